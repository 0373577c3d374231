/*
 * utf8.h - strict UTF-8 validation (no overlongs, no surrogates,
 * nothing above U+10FFFF), and a way to show any text in ASCII.
 */
#ifndef BNC_UTF8_H
#define BNC_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Returns 1 if the bytes are valid UTF-8, else 0. */
int	utf8_valid(const void *, size_t);
/* The character at s[0..len): its length (1 to 4) and *cp, or 0 when it
 * is no well-formed UTF-8 (overlong, surrogate, cut short, too high). */
size_t	utf8_decode(const void *s, size_t len, uint32_t *cp);
/* The length of s[0..len) cut to at most max bytes without splitting a
 * character. */
size_t	utf8_cut(const void *s, size_t len, size_t max);
/* Ends the NUL-terminated s before a character that a cut (snprintf's)
 * left unfinished at its end. */
void	utf8_trim(char *s);
/*
 * s[0..len) as printable ASCII in dst (always NUL-terminated), so that a
 * look-alike or invisible character shows: every character outside
 * U+0020..U+007E as \uXXXX (\UXXXXXXXX above U+FFFF), a byte that is
 * not UTF-8 as \xNN, a backslash as \\.  What does not fit is cut on a
 * whole escape and ends in "...".
 */
void	utf8_escape(char *dst, size_t dstsz, const void *s, size_t len);

#endif /* BNC_UTF8_H */
