/*
 * buf.h - a growable byte buffer with typed, bounds-checked get/put.
 *
 * Every multi-byte integer is big-endian.  A get either consumes a whole
 * field or nothing and returns a negative code; the caller checks at once.
 * Strings are u32-length-prefixed; a cstring is a string that must not
 * contain NUL and is returned NUL-terminated.
 */
#ifndef BNC_BUF_H
#define BNC_BUF_H

#include <stddef.h>
#include <stdint.h>

struct buf {
	uint8_t	*d;		/* storage */
	size_t	 off;		/* read offset */
	size_t	 len;		/* bytes written */
	size_t	 cap;		/* allocated */
	size_t	 max;		/* growth cap; 0 = BNC_BUF_MAX */
	int	 readonly;	/* wraps caller memory; never grown or freed */
};

/* Returns a new empty buffer; caller frees with buf_free(). */
struct buf	*buf_new(void);
/* Wraps len bytes at p for reading; p must outlive the buffer. */
struct buf	*buf_from(const void *p, size_t len);
void		 buf_free(struct buf *);
void		 buf_reset(struct buf *);
void		 buf_set_max(struct buf *, size_t);

size_t		 buf_len(const struct buf *);	/* unread bytes */
/* The first unread byte; never NULL, even for an empty buffer. */
const uint8_t	*buf_ptr(const struct buf *);
int		 buf_consume(struct buf *, size_t);
/* Reserve n bytes at the end; *pp receives where to write them. */
int		 buf_reserve(struct buf *, size_t n, uint8_t **pp);

int	buf_put(struct buf *, const void *, size_t);
int	buf_put_u8(struct buf *, uint8_t);
int	buf_put_u16(struct buf *, uint16_t);
int	buf_put_u32(struct buf *, uint32_t);
int	buf_put_u64(struct buf *, uint64_t);
int	buf_put_i64(struct buf *, int64_t);
int	buf_put_double(struct buf *, double);
int	buf_put_string(struct buf *, const void *, size_t);
int	buf_put_cstring(struct buf *, const char *);

int	buf_get(struct buf *, void *, size_t);
int	buf_get_u8(struct buf *, uint8_t *);
int	buf_get_u16(struct buf *, uint16_t *);
int	buf_get_u32(struct buf *, uint32_t *);
int	buf_get_u64(struct buf *, uint64_t *);
int	buf_get_i64(struct buf *, int64_t *);
int	buf_get_double(struct buf *, double *);
/*
 * Length-prefixed string of at most max bytes.  *sp receives a NUL-
 * terminated copy the caller frees; *lenp (may be NULL) its length.
 */
int	buf_get_string(struct buf *, char **sp, size_t *lenp, size_t max);
/* As buf_get_string, but an embedded NUL is -BNC_ERR_NUL. */
int	buf_get_cstring(struct buf *, char **sp, size_t *lenp, size_t max);
/* Pointer into the buffer, no copy; valid until the buffer changes. */
int	buf_get_string_direct(struct buf *, const uint8_t **, size_t *,
	    size_t max);

#endif /* BNC_BUF_H */
