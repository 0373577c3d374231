/*
 * errpipe.h - a worker's standard error, read by the monitor.
 *
 * A worker's fd 2 is a pipe to the monitor, never the client's log: a
 * worker hijacked by the bytes it parses may write anything there.  Its
 * lines are logged escaped, tagged, cut to one log line and rate-limited
 * (bounds.h: BNC_CHILD_STDERR_*).
 */
#ifndef BNC_ERRPIPE_H
#define BNC_ERRPIPE_H

#include <event2/event.h>

struct errpipe;

/*
 * Starts reading fd, the read end of a worker's stderr, on base; fd is
 * the errpipe's from now on, on every path, and is made non-blocking.
 * tag names the worker in the log and must outlive the errpipe.
 * Returns NULL (fd closed) if libevent cannot take it.
 */
struct errpipe	*errpipe_open(struct event_base *, int fd,
		    const char *tag);
/*
 * Reads what the pipe holds now, up to BNC_CHILD_STDERR_DRAIN bytes,
 * without waiting: a dead worker's last words, before its death is
 * judged.
 */
void		 errpipe_drain(struct errpipe *);
/*
 * Drains, logs a last line without its newline and the drops not yet
 * reported, closes the pipe and frees everything; NULL is allowed.
 */
void		 errpipe_close(struct errpipe *);

#endif /* BNC_ERRPIPE_H */
