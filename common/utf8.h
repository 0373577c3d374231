/*
 * utf8.h - strict UTF-8 validation (no overlongs, no surrogates,
 * nothing above U+10FFFF).
 */
#ifndef BNC_UTF8_H
#define BNC_UTF8_H

#include <stddef.h>

/* Returns 1 if the bytes are valid UTF-8, else 0. */
int	utf8_valid(const void *, size_t);
/* The length of s[0..len) cut to at most max bytes without splitting a
 * character. */
size_t	utf8_cut(const void *s, size_t len, size_t max);
/* Ends the NUL-terminated s before a character that a cut (snprintf's)
 * left unfinished at its end. */
void	utf8_trim(char *s);

#endif /* BNC_UTF8_H */
