/*
 * errpipe.c - a worker's standard error, read by the monitor (SECURITY.md,
 * "Parser bugs").
 *
 * A worker writes to its fd 2 only when something is wrong before its
 * log lines can travel in MSG_LOG frames: a failed exec (common/spawn.c),
 * a bad command line, the report of a refused call in an
 * --enable-sandbox-debug build.  A worker hijacked by the bytes it
 * parses can write there too, so nothing of it reaches the client's log
 * as written: lines are split on newlines, escaped, tagged with the
 * worker's name, cut to one log line, and at most BNC_CHILD_STDERR_LINES
 * of them are logged per BNC_CHILD_STDERR_PERIOD_S; the others are
 * counted, and the count is logged once per window.
 *
 * It must never block on the pipe, never hold more than one partial
 * line, and never call fatal(): it also runs from cleanup_exit().
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "bounds.h"
#include "errpipe.h"
#include "log.h"
#include "xmalloc.h"

#define ERRPIPE_PREFIX	": stderr: "
#define ERRPIPE_CUT	" [line cut]"

struct errpipe {
	int		 fd;		/* -1 after EOF */
	const char	*tag;
	struct event	*ev;		/* readable */
	struct event	*timer;		/* ends a dropping window */
	char		 line[BNC_LOG_LINE_MAX];	/* a partial line */
	size_t		 len;
	int		 cut;		/* skipping a cut line's rest */
	int		 window;	/* a window is open */
	uint64_t	 wstart;	/* when it opened, CLOCK_MONOTONIC ms */
	unsigned	 lines;		/* lines it logged */
	unsigned long	 dropped;	/* lines it dropped */
};

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Closes the window, saying once how many lines it dropped. */
static void
window_end(struct errpipe *ep)
{
	if (ep->dropped > 0)
		error("%s: %lu line%s of stderr dropped (more than %d in %d "
		    "s)", ep->tag, ep->dropped, ep->dropped == 1 ? "" : "s",
		    BNC_CHILD_STDERR_LINES, BNC_CHILD_STDERR_PERIOD_S);
	ep->window = 0;
	ep->lines = 0;
	ep->dropped = 0;
	evtimer_del(ep->timer);
}

static void
window_timeout(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	window_end(arg);
}

/*
 * Logs the buffered line, or counts it if its window is full.  The
 * first drop arms a timer for the window's end, so that the count is
 * told even if the worker says nothing more.
 */
static void
emit(struct errpipe *ep, int cut)
{
	char esc[BNC_LOG_LINE_MAX];
	struct timeval tv;
	uint64_t now = now_ms(), left;
	size_t room, need, i;

	if (ep->window && now - ep->wstart >=
	    (uint64_t)BNC_CHILD_STDERR_PERIOD_S * 1000)
		window_end(ep);
	if (!ep->window) {
		ep->window = 1;
		ep->wstart = now;
	}
	if (ep->lines >= BNC_CHILD_STDERR_LINES) {
		if (ep->dropped++ == 0) {
			left = ep->wstart +
			    (uint64_t)BNC_CHILD_STDERR_PERIOD_S * 1000 - now;
			tv.tv_sec = (time_t)(left / 1000);
			tv.tv_usec = (suseconds_t)(left % 1000) * 1000;
			evtimer_add(ep->timer, &tv);
		}
		ep->len = 0;
		return;
	}
	ep->lines++;
	/*
	 * What fits in one log line (do_log() truncates the rest, and the
	 * mark with it): the escaped size, counted as log_escape() writes.
	 */
	room = sizeof(esc) - 1 - strlen(ep->tag) - strlen(ERRPIPE_PREFIX) -
	    strlen(ERRPIPE_CUT);
	for (need = ep->len, i = 0; i < ep->len; i++)
		if ((unsigned char)ep->line[i] < 0x20 || ep->line[i] == 0x7f)
			need += 3;
	if (need > room)
		cut = 1;
	log_escape(esc, room + 1, ep->line, ep->len);
	error("%s" ERRPIPE_PREFIX "%s%s", ep->tag, esc, cut ? ERRPIPE_CUT :
	    "");
	ep->len = 0;
}

/* Splits n bytes into lines; a line past the buffer is cut once. */
static void
feed(struct errpipe *ep, const char *p, size_t n)
{
	const char *nl;
	size_t k, take;

	while (n > 0) {
		nl = memchr(p, '\n', n);
		k = nl != NULL ? (size_t)(nl - p) : n;
		if (!ep->cut) {
			take = sizeof(ep->line) - ep->len;
			if (take > k)
				take = k;
			memcpy(ep->line + ep->len, p, take);
			ep->len += take;
			if (take < k) {
				emit(ep, 1);
				ep->cut = 1;
			}
		}
		if (nl == NULL)
			return;
		if (!ep->cut)
			emit(ep, 0);
		ep->cut = 0;
		p += k + 1;
		n -= k + 1;
	}
}

/* The worker closed its end: the last line, the drops, then the fd. */
static void
at_eof(struct errpipe *ep)
{
	if (ep->len > 0 && !ep->cut)
		emit(ep, 0);
	ep->len = 0;
	ep->cut = 0;
	window_end(ep);
	event_del(ep->ev);
	close(ep->fd);
	ep->fd = -1;
}

/* Reads up to max bytes, or until the pipe is empty. */
static void
errpipe_read(struct errpipe *ep, size_t max)
{
	static char buf[BNC_READ_CHUNK];
	size_t total = 0, want;
	ssize_t n;

	while (ep->fd != -1 && total < max) {
		want = max - total < sizeof(buf) ? max - total : sizeof(buf);
		if ((n = read(ep->fd, buf, want)) > 0) {
			feed(ep, buf, (size_t)n);
			total += (size_t)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n == -1)
			error("%s: stderr: %s", ep->tag, strerror(errno));
		at_eof(ep);
	}
}

/* One read per event: a flood must not starve the session. */
static void
errpipe_readable(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	errpipe_read(arg, BNC_READ_CHUNK);
}

struct errpipe *
errpipe_open(struct event_base *base, int fd, const char *tag)
{
	struct errpipe *ep;
	int fl;

	ep = xcalloc(1, sizeof(*ep));
	ep->fd = fd;
	ep->tag = tag;
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1 ||
	    (ep->ev = event_new(base, fd, EV_READ | EV_PERSIST,
	    errpipe_readable, ep)) == NULL ||
	    (ep->timer = evtimer_new(base, window_timeout, ep)) == NULL ||
	    event_add(ep->ev, NULL) == -1) {
		if (ep->ev != NULL)
			event_free(ep->ev);
		if (ep->timer != NULL)
			event_free(ep->timer);
		close(fd);
		free(ep);
		return NULL;
	}
	return ep;
}

void
errpipe_drain(struct errpipe *ep)
{
	if (ep != NULL)
		errpipe_read(ep, BNC_CHILD_STDERR_DRAIN);
}

void
errpipe_close(struct errpipe *ep)
{
	if (ep == NULL)
		return;
	errpipe_read(ep, BNC_CHILD_STDERR_DRAIN);
	if (ep->fd != -1)
		at_eof(ep);
	event_free(ep->ev);
	event_free(ep->timer);
	free(ep);
}
