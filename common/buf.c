/*
 * buf.c - growable byte buffer with typed, bounds-checked get/put.
 *
 * A get either consumes a whole field or nothing.  Growth is capped by
 * the buffer's max so a peer cannot make us allocate without bound.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "bounds.h"
#include "xmalloc.h"

#define BUF_INITIAL	256

struct buf *
buf_new(void)
{
	struct buf *b;

	b = xcalloc(1, sizeof(*b));
	return b;
}

struct buf *
buf_from(const void *p, size_t len)
{
	struct buf *b;

	b = xcalloc(1, sizeof(*b));
	b->d = (uint8_t *)(uintptr_t)p;
	b->len = b->cap = len;
	b->readonly = 1;
	return b;
}

void
buf_free(struct buf *b)
{
	if (b == NULL)
		return;
	if (!b->readonly)
		free(b->d);
	free(b);
}

void
buf_reset(struct buf *b)
{
	b->off = 0;
	if (!b->readonly)
		b->len = 0;
}

void
buf_set_max(struct buf *b, size_t max)
{
	b->max = max;
}

size_t
buf_len(const struct buf *b)
{
	return b->len - b->off;
}

const uint8_t *
buf_ptr(const struct buf *b)
{
	static const uint8_t empty[1];

	/*
	 * Never NULL, though a new buffer has no storage: callers pass it
	 * on with buf_len() to memcpy, strndup and the like, for which a
	 * NULL pointer is undefined even with a length of 0.
	 */
	return b->d != NULL ? b->d + b->off : empty;
}

int
buf_consume(struct buf *b, size_t n)
{
	if (n > buf_len(b))
		return -BNC_ERR_TRUNCATED;
	b->off += n;
	if (b->off == b->len && !b->readonly)
		b->off = b->len = 0;
	return 0;
}

int
buf_reserve(struct buf *b, size_t n, uint8_t **pp)
{
	size_t max, need, ncap;

	if (b->readonly)
		return -BNC_ERR_INTERNAL;
	max = b->max != 0 ? b->max : (size_t)BNC_BUF_MAX;
	if (n > max || b->len - b->off > max - n)
		return -BNC_ERR_TOO_LARGE;
	need = b->len + n;
	if (need > b->cap) {
		/* Compact before growing: consumed bytes are dead. */
		if (b->off > 0) {
			memmove(b->d, b->d + b->off, b->len - b->off);
			b->len -= b->off;
			b->off = 0;
			need = b->len + n;
		}
		if (need > b->cap) {
			ncap = b->cap < BUF_INITIAL ? BUF_INITIAL : b->cap;
			while (ncap < need)
				ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
			b->d = xreallocarray(b->d, ncap, 1);
			b->cap = ncap;
		}
	}
	*pp = b->d != NULL ? b->d + b->len : NULL;
	b->len += n;
	return 0;
}

int
buf_put(struct buf *b, const void *p, size_t n)
{
	uint8_t *d;
	int r;

	if ((r = buf_reserve(b, n, &d)) != 0)
		return r;
	if (n > 0)
		memcpy(d, p, n);
	return 0;
}

int
buf_put_u8(struct buf *b, uint8_t v)
{
	return buf_put(b, &v, 1);
}

int
buf_put_u16(struct buf *b, uint16_t v)
{
	uint8_t d[2] = { v >> 8, v };

	return buf_put(b, d, sizeof(d));
}

int
buf_put_u32(struct buf *b, uint32_t v)
{
	uint8_t d[4] = { v >> 24, v >> 16, v >> 8, v };

	return buf_put(b, d, sizeof(d));
}

int
buf_put_u64(struct buf *b, uint64_t v)
{
	uint8_t d[8];
	int i;

	for (i = 7; i >= 0; i--) {
		d[i] = (uint8_t)v;
		v >>= 8;
	}
	return buf_put(b, d, sizeof(d));
}

int
buf_put_i64(struct buf *b, int64_t v)
{
	return buf_put_u64(b, (uint64_t)v);
}

int
buf_put_double(struct buf *b, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return buf_put_u64(b, u);
}

int
buf_put_string(struct buf *b, const void *p, size_t n)
{
	uint8_t *d;
	int r;

	if (n > UINT32_MAX || n > SIZE_MAX - 4)
		return -BNC_ERR_TOO_LARGE;
	/* Reserve the whole field so a failure writes nothing. */
	if ((r = buf_reserve(b, 4 + n, &d)) != 0)
		return r;
	d[0] = (uint8_t)(n >> 24);
	d[1] = (uint8_t)(n >> 16);
	d[2] = (uint8_t)(n >> 8);
	d[3] = (uint8_t)n;
	if (n > 0)
		memcpy(d + 4, p, n);
	return 0;
}

int
buf_put_cstring(struct buf *b, const char *s)
{
	return buf_put_string(b, s, s == NULL ? 0 : strlen(s));
}

int
buf_get(struct buf *b, void *p, size_t n)
{
	if (n > buf_len(b))
		return -BNC_ERR_TRUNCATED;
	if (n > 0 && p != NULL)
		memcpy(p, b->d + b->off, n);
	b->off += n;
	return 0;
}

int
buf_get_u8(struct buf *b, uint8_t *v)
{
	return buf_get(b, v, 1);
}

int
buf_get_u16(struct buf *b, uint16_t *v)
{
	uint8_t d[2];
	int r;

	if ((r = buf_get(b, d, sizeof(d))) != 0)
		return r;
	*v = (uint16_t)(d[0] << 8 | d[1]);
	return 0;
}

int
buf_get_u32(struct buf *b, uint32_t *v)
{
	uint8_t d[4];
	int r;

	if ((r = buf_get(b, d, sizeof(d))) != 0)
		return r;
	*v = (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 |
	    (uint32_t)d[2] << 8 | d[3];
	return 0;
}

int
buf_get_u64(struct buf *b, uint64_t *v)
{
	uint8_t d[8];
	uint64_t u = 0;
	int i, r;

	if ((r = buf_get(b, d, sizeof(d))) != 0)
		return r;
	for (i = 0; i < 8; i++)
		u = u << 8 | d[i];
	*v = u;
	return 0;
}

int
buf_get_i64(struct buf *b, int64_t *v)
{
	uint64_t u;
	int r;

	if ((r = buf_get_u64(b, &u)) != 0)
		return r;
	*v = (int64_t)u;
	return 0;
}

int
buf_get_double(struct buf *b, double *v)
{
	uint64_t u;
	int r;

	if ((r = buf_get_u64(b, &u)) != 0)
		return r;
	memcpy(v, &u, sizeof(*v));
	return 0;
}

int
buf_get_string_direct(struct buf *b, const uint8_t **pp, size_t *lenp,
    size_t max)
{
	const uint8_t *d;
	uint32_t n;

	if (buf_len(b) < 4)
		return -BNC_ERR_TRUNCATED;
	d = buf_ptr(b);
	n = (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 |
	    (uint32_t)d[2] << 8 | d[3];
	if (n > max)
		return -BNC_ERR_TOO_LARGE;
	if (buf_len(b) - 4 < n)
		return -BNC_ERR_TRUNCATED;
	*pp = d + 4;
	if (lenp != NULL)
		*lenp = n;
	b->off += 4 + (size_t)n;
	return 0;
}

int
buf_get_string(struct buf *b, char **sp, size_t *lenp, size_t max)
{
	const uint8_t *p;
	size_t n;
	char *s;
	int r;

	*sp = NULL;
	if ((r = buf_get_string_direct(b, &p, &n, max)) != 0)
		return r;
	s = xmalloc(n + 1);
	memcpy(s, p, n);
	s[n] = '\0';
	*sp = s;
	if (lenp != NULL)
		*lenp = n;
	return 0;
}

int
buf_get_cstring(struct buf *b, char **sp, size_t *lenp, size_t max)
{
	const uint8_t *p;
	size_t n, off;
	int r;

	*sp = NULL;
	off = b->off;
	if ((r = buf_get_string_direct(b, &p, &n, max)) != 0)
		return r;
	if (n > 0 && memchr(p, '\0', n) != NULL) {
		b->off = off;
		return -BNC_ERR_NUL;
	}
	*sp = xmalloc(n + 1);
	memcpy(*sp, p, n);
	(*sp)[n] = '\0';
	if (lenp != NULL)
		*lenp = n;
	return 0;
}
