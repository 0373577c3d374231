/*
 * utf8.c - strict UTF-8 validation (RFC 3629).
 *
 * Used by the worker on every input line and by value_decode() on every
 * string, so the monitor never handles a byte sequence that two parsers
 * could read differently.  ASCII runs take the fast path.
 */
#include <stdint.h>

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
