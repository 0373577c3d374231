/*
 * lines.h - newline framing of a byte stream, with a line-length cap.
 *
 * A line longer than the cap is discarded as it arrives, never buffered
 * (memory stays below max + BNC_READ_CHUNK whatever the peer sends), and
 * reported once, when it ends.
 */
#ifndef BNC_WORKER_LINES_H
#define BNC_WORKER_LINES_H

#include <stddef.h>
#include <stdint.h>

struct lines;

/* Sees each piece of an over-long line as it is dropped; first: the
 * piece starts the line. */
typedef void (*lines_drop_fn)(void *arg, const uint8_t *p, size_t n,
    int first);

enum lines_status {
	LINES_NONE = 0,		/* no complete line buffered: read more */
	LINES_LINE = 1,		/* *pp, *lenp: one line without its '\n' */
	LINES_TOO_LONG = 2	/* a line over the cap ended, dropped */
};

/* A new framer for lines of at most max bytes (the '\n' not counted). */
struct lines	*lines_new(size_t max);
void		 lines_free(struct lines *);

/*
 * One read(2) of at most BNC_READ_CHUNK bytes from fd.  Returns the byte
 * count, 0 at end of file (then lines_next() hands out a last line
 * without '\n'), -BNC_ERR_AGAIN, or -BNC_ERR_SYS with errno set.
 */
int	lines_read(struct lines *, int fd);

/*
 * Feeds bytes as if read (for tests and for input that is not a file
 * descriptor).  At most BNC_READ_CHUNK bytes; len 0 means end of file.
 */
int	lines_feed(struct lines *, const void *p, size_t len);

/*
 * The next event.  A line is NUL-terminated at (*pp)[*lenp], lives in
 * the framer's buffer and stays valid until the next lines_read() or
 * lines_feed(); the caller may modify it in place.
 */
int	lines_next(struct lines *, char **pp, size_t *lenp);

/* Passes the bytes of over-long lines to fn (NULL: to nobody). */
void	lines_on_drop(struct lines *, lines_drop_fn fn, void *arg);

/* Bytes buffered and not yet handed out. */
size_t	lines_pending(const struct lines *);

#endif /* BNC_WORKER_LINES_H */
