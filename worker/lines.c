/*
 * lines.c - newline framing of a byte stream, with a line-length cap.
 *
 * One buffer holds the unfinished tail of the stream.  Lines are handed
 * out in place (the '\n' becomes a NUL), so a read that carries many
 * lines costs no copy, and a long line is moved at most once, to the
 * front, when the buffer runs out of room behind it.  The search for
 * '\n' resumes where it stopped, so a line arriving in many reads is
 * scanned once.  An over-long line is dropped as soon as it passes the
 * cap and the rest of it is discarded as it arrives; its bytes go to the
 * owner's drop hook on their way out (worker.c finds the line's id in
 * them), and the line is reported when it ends.
 *
 * This file must never hold more than max + BNC_READ_CHUNK + 1 bytes,
 * and never look inside a line.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "bounds.h"
#include "lines.h"
#include "xmalloc.h"

/* An empty buffer this many times its initial size is shrunk back. */
#define LINES_SHRINK_FACTOR	4

struct lines {
	uint8_t	*d;
	size_t	 cap;
	size_t	 initial;	/* cap to return to when idle */
	size_t	 start;		/* first byte not handed out */
	size_t	 scan;		/* no '\n' in [start, scan) */
	size_t	 end;		/* bytes held */
	size_t	 max;		/* longest line, '\n' not counted */
	int	 discard;	/* inside an over-long line */
	int	 eof;
	lines_drop_fn	 drop;	/* sees the bytes of over-long lines */
	void		*drop_arg;
	int	 first;		/* the next dropped bytes start a line */
};

struct lines *
lines_new(size_t max)
{
	struct lines *l;

	l = xcalloc(1, sizeof(*l));
	l->max = max;
	/* Room for a whole small line plus one read, and a NUL. */
	l->initial = (max < BNC_READ_CHUNK ? max : BNC_READ_CHUNK) +
	    BNC_READ_CHUNK + 1;
	l->cap = l->initial;
	l->d = xmalloc(l->cap);
	return l;
}

void
lines_free(struct lines *l)
{
	if (l == NULL)
		return;
	free(l->d);
	free(l);
}

void
lines_on_drop(struct lines *l, lines_drop_fn fn, void *arg)
{
	l->drop = fn;
	l->drop_arg = arg;
}

static void
dropped(struct lines *l, const uint8_t *p, size_t n)
{
	if (l->drop != NULL)
		l->drop(l->drop_arg, p, n, l->first);
	l->first = 0;
}

size_t
lines_pending(const struct lines *l)
{
	return l->end - l->start;
}

/*
 * Makes room for one read and a NUL behind it.  The unfinished line is at
 * most max bytes (lines_next() drops longer ones), so the buffer never
 * needs more than max + BNC_READ_CHUNK + 1.
 */
static int
make_room(struct lines *l)
{
	size_t ncap, keep;

	if (l->start == l->end) {
		l->start = l->scan = l->end = 0;
		if (l->cap > LINES_SHRINK_FACTOR * l->initial) {
			l->d = xreallocarray(l->d, l->initial, 1);
			l->cap = l->initial;
		}
	}
	if (l->cap - l->end > BNC_READ_CHUNK)
		return 0;
	if (l->start > 0) {
		keep = l->end - l->start;
		memmove(l->d, l->d + l->start, keep);
		l->scan -= l->start;
		l->end = keep;
		l->start = 0;
	}
	if (l->cap - l->end > BNC_READ_CHUNK)
		return 0;
	if (l->end > l->max)
		return -BNC_ERR_INTERNAL;	/* lines left undrained */
	ncap = l->cap * 2;
	if (ncap < l->end + BNC_READ_CHUNK + 1)
		ncap = l->end + BNC_READ_CHUNK + 1;
	if (ncap > l->max + BNC_READ_CHUNK + 1)
		ncap = l->max + BNC_READ_CHUNK + 1;
	l->d = xreallocarray(l->d, ncap, 1);
	l->cap = ncap;
	return 0;
}

int
lines_read(struct lines *l, int fd)
{
	ssize_t n;
	int r;

	if (l->eof)
		return 0;
	if ((r = make_room(l)) != 0)
		return r;
	for (;;) {
		n = read(fd, l->d + l->end, BNC_READ_CHUNK);
		if (n >= 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return -BNC_ERR_AGAIN;
		return -BNC_ERR_SYS;
	}
	if (n == 0)
		l->eof = 1;
	l->end += (size_t)n;
	return (int)n;
}

int
lines_feed(struct lines *l, const void *p, size_t len)
{
	int r;

	if (l->eof)
		return 0;
	if (len == 0) {
		l->eof = 1;
		return 0;
	}
	if (len > BNC_READ_CHUNK)
		return -BNC_ERR_TOO_LARGE;
	if ((r = make_room(l)) != 0)
		return r;
	memcpy(l->d + l->end, p, len);
	l->end += len;
	return (int)len;
}

int
lines_next(struct lines *l, char **pp, size_t *lenp)
{
	uint8_t *nl;
	size_t at, len;

	*pp = NULL;
	*lenp = 0;
	if (l->discard) {
		nl = memchr(l->d + l->start, '\n', l->end - l->start);
		if (nl == NULL) {
			dropped(l, l->d + l->start, l->end - l->start);
			l->start = l->scan = l->end;
			if (!l->eof)
				return LINES_NONE;
			l->discard = 0;		/* ended by end of file */
			return LINES_TOO_LONG;
		}
		dropped(l, l->d + l->start, (size_t)(nl - (l->d + l->start)));
		l->start = l->scan = (size_t)(nl - l->d) + 1;
		l->discard = 0;
		return LINES_TOO_LONG;
	}
	nl = memchr(l->d + l->scan, '\n', l->end - l->scan);
	if (nl != NULL) {
		at = l->start;
		len = (size_t)(nl - l->d) - at;
		l->start = l->scan = (size_t)(nl - l->d) + 1;
		if (len > l->max) {
			l->first = 1;
			dropped(l, l->d + at, len);
			return LINES_TOO_LONG;
		}
		*nl = '\0';
		*pp = (char *)l->d + at;
		*lenp = len;
		return LINES_LINE;
	}
	l->scan = l->end;
	if (l->end - l->start > l->max) {
		/* Drop what we hold, skip the rest as it comes, report the
		 * line when it ends. */
		l->first = 1;
		dropped(l, l->d + l->start, l->end - l->start);
		l->start = l->scan = l->end;
		if (l->eof)
			return LINES_TOO_LONG;
		l->discard = 1;
		return LINES_NONE;
	}
	if (l->eof && l->end > l->start) {
		l->d[l->end] = '\0';
		*pp = (char *)l->d + l->start;
		*lenp = l->end - l->start;
		l->start = l->scan = l->end;
		return LINES_LINE;
	}
	return LINES_NONE;
}
