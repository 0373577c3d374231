/*
 * field.c - vendor strings made fit for the typed fields of an answer.
 *
 * The monitor decodes every string it is sent as strict UTF-8 and holds
 * each field to a cap; a vendor (or whoever answers in its place) can
 * send any bytes.  So every string that leaves a carrier passes here,
 * and the result is always valid: this file never refuses, it cleans.
 * It must never return more than the cap it is given.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "carrier.h"
#include "field.h"
#include "utf8.h"
#include "value.h"
#include "xmalloc.h"

#define FIELD_REPLACEMENT	"\xef\xbf\xbd"	/* U+FFFD */

/* Characters a one-line field drops besides the controls: they turn or
 * hide text (bidi controls, zero-width characters, the BOM). */
static const struct {
	uint32_t	 lo, hi;
} format_chars[] = {
	{ 0x00ad, 0x00ad },	/* soft hyphen */
	{ 0x061c, 0x061c },	/* Arabic letter mark */
	{ 0x180e, 0x180e },	/* Mongolian vowel separator */
	{ 0x200b, 0x200f },	/* zero-width space .. right-to-left mark */
	{ 0x2028, 0x202e },	/* line, paragraph separators; embeddings */
	{ 0x2060, 0x206f },	/* word joiner .. isolates and deprecated */
	{ 0xfeff, 0xfeff },	/* byte order mark */
	{ 0xfff9, 0xfffb },	/* interlinear annotations */
};

static int
dropped(uint32_t cp, enum field_mode mode)
{
	size_t i;

	if (cp == 0)
		return 1;
	if (mode == FIELD_TEXT)
		return (cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7f;
	if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
		return 1;
	for (i = 0; i < sizeof(format_chars) / sizeof(format_chars[0]); i++)
		if (cp >= format_chars[i].lo && cp <= format_chars[i].hi)
			return 1;
	return 0;
}

char *
field_clean(const char *s, size_t len, size_t max, enum field_mode mode,
    size_t *outlen)
{
	const uint8_t *p = (const uint8_t *)s;
	char *out;
	size_t i = 0, o = 0, n, w;
	uint32_t cp;
	const char *src;

	/* at most 3 bytes out for each byte in (U+FFFD), and the cap */
	out = xmalloc((len < max ? len * 3 : max) + 1);
	while (i < len) {
		if ((n = utf8_decode(p + i, len - i, &cp)) == 0) {
			src = FIELD_REPLACEMENT;
			w = strlen(FIELD_REPLACEMENT);
			n = 1;
		} else if (dropped(cp, mode)) {
			i += n;
			continue;
		} else {
			src = s + i;
			w = n;
		}
		if (o + w > max)
			break;
		memcpy(out + o, src, w);
		o += w;
		i += n;
	}
	out[o] = '\0';
	if (outlen != NULL)
		*outlen = o;
	return out;
}

struct value *
field_value(const char *s, size_t max, enum field_mode mode)
{
	struct value *v;
	size_t n;
	char *c;

	c = field_clean(s, strlen(s), max, mode, &n);
	v = value_stringn(c, n);
	free(c);
	return v;
}

const char *
field_body(const struct http_resp *resp, size_t *lenp)
{
	if (resp->body == NULL || buf_len(resp->body) == 0) {
		*lenp = 0;
		return "";
	}
	*lenp = buf_len(resp->body);
	return (const char *)buf_ptr(resp->body);
}

cJSON *
field_json(const struct http_resp *resp)
{
	const char *p;
	size_t len;

	p = field_body(resp, &len);
	return cJSON_ParseWithLength(p, len);
}

const char *
field_str(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

struct value *
field_value_or_null(const cJSON *o, const char *key, size_t max,
    enum field_mode mode)
{
	const char *s;

	if ((s = field_str(o, key)) == NULL)
		return value_null();
	return field_value(s, max, mode);
}
