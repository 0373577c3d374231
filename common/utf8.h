/*
 * utf8.h - strict UTF-8 validation (no overlongs, no surrogates,
 * nothing above U+10FFFF).
 */
#ifndef BNC_UTF8_H
#define BNC_UTF8_H

#include <stddef.h>

/* Returns 1 if the bytes are valid UTF-8, else 0. */
int	utf8_valid(const void *, size_t);

#endif /* BNC_UTF8_H */
