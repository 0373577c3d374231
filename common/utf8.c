/*
 * utf8.c - strict UTF-8 validation (RFC 3629).
 *
 * Used by the worker on every input line and by value_decode() on every
 * string, so the monitor never handles a byte sequence that two parsers
 * could read differently.  ASCII runs take the fast path.
 */
#include <stdint.h>

#include <stdio.h>
#include <string.h>

#include "utf8.h"

int
utf8_valid(const void *p, size_t len)
{
	const uint8_t *s = p, *end = s + len;
	uint8_t c;

	while (s < end) {
		c = *s;
		if (c < 0x80) {
			s++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			if (end - s < 2 || (s[1] & 0xc0) != 0x80)
				return 0;
			s += 2;
		} else if (c >= 0xe0 && c <= 0xef) {
			if (end - s < 3 || (s[1] & 0xc0) != 0x80 ||
			    (s[2] & 0xc0) != 0x80)
				return 0;
			if (c == 0xe0 && s[1] < 0xa0)
				return 0;	/* overlong */
			if (c == 0xed && s[1] >= 0xa0)
				return 0;	/* surrogate */
			s += 3;
		} else if (c >= 0xf0 && c <= 0xf4) {
			if (end - s < 4 || (s[1] & 0xc0) != 0x80 ||
			    (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
				return 0;
			if (c == 0xf0 && s[1] < 0x90)
				return 0;	/* overlong */
			if (c == 0xf4 && s[1] >= 0x90)
				return 0;	/* above U+10FFFF */
			s += 4;
		} else
			return 0;
	}
	return 1;
}

size_t
utf8_cut(const void *p, size_t len, size_t max)
{
	const unsigned char *s = p;

	if (len <= max)
		return len;
	len = max;
	while (len > 0 && (s[len] & 0xc0) == 0x80)
		len--;
	return len;
}

void
utf8_trim(char *p)
{
	unsigned char *s = (unsigned char *)p;
	size_t n = strlen(p), j = n, need;

	while (j > 0 && n - j < 3 && (s[j - 1] & 0xc0) == 0x80)
		j--;
	if (j == 0 || s[j - 1] < 0xc0)
		return;		/* ASCII, or no lead byte to finish */
	need = s[j - 1] >= 0xf0 ? 4 : s[j - 1] >= 0xe0 ? 3 : 2;
	if (n - (j - 1) < need)
		s[j - 1] = '\0';
}

size_t
utf8_decode(const void *p, size_t len, uint32_t *cp)
{
	const uint8_t *s = p;
	size_t n, i;
	uint32_t v, min;

	if (len == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		v = s[0] & 0x1f;
		min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		v = s[0] & 0x0f;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		v = s[0] & 0x07;
		min = 0x10000;
	} else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* The escape of the character at s in one[16]; its length in bytes. */
static size_t
escape_one(const uint8_t *s, size_t left, char *one)
{
	size_t n;
	uint32_t c;

	if ((n = utf8_decode(s, left, &c)) == 0) {
		snprintf(one, 16, "\\x%02x", s[0]);
		return 1;
	}
	if (c == '\\')
		snprintf(one, 16, "\\\\");
	else if (c >= 0x20 && c < 0x7f)
		snprintf(one, 16, "%c", (char)c);
	else if (c <= 0xffff)
		snprintf(one, 16, "\\u%04x", (unsigned)c);
	else
		snprintf(one, 16, "\\U%08x", (unsigned)c);
	return n;
}

void
utf8_escape(char *dst, size_t dstsz, const void *p, size_t len)
{
	const uint8_t *s = p;
	char one[16];
	size_t i, o = 0, w, total = 0, room;

	if (dstsz == 0)
		return;
	for (i = 0; i < len; i += w) {
		w = escape_one(s + i, len - i, one);
		total += strlen(one);
	}
	/* all of it, or whole escapes and "..." */
	room = total < dstsz ? dstsz - 1 : dstsz > 3 ? dstsz - 4 : 0;
	for (i = 0; i < len; i += w) {
		w = escape_one(s + i, len - i, one);
		if (o + strlen(one) > room)
			break;
		memcpy(dst + o, one, strlen(one));
		o += strlen(one);
	}
	if (i < len && dstsz > 3) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = '\0';
}
