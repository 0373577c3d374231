/*
 * session.h - the session's life, from the workers' hellos to the last
 * child reaped (DESIGN 3).
 *
 * session.c is the only writer of s->state: the other modules report
 * what happened with session_event(), and session.c decides what that
 * means now (a state change, the drain, the close).  They may read the
 * state to decide what they do with a message.
 *
 *   SESSION_START     workers starting; only MSG_HELLO is accepted from them
 *   SESSION_INIT      the client sent initialize; upstreams handshake + pin
 *   SESSION_READY     initialize answered; everything flows
 *   SESSION_DRAIN     client input closed; answers still delivered
 *   SESSION_CLOSING   upstreams told EOF; waiting for children to exit
 */
#ifndef BNC_SESSION_H
#define BNC_SESSION_H

struct child;
struct session;

enum session_state {
	SESSION_START = 0,
	SESSION_INIT,
	SESSION_READY,
	SESSION_DRAIN,
	SESSION_CLOSING
};

enum session_event {
	SEV_HELLO = 1,		/* a worker said hello */
	SEV_INITIALIZE,		/* the client's initialize was accepted */
	SEV_READY,		/* the client's initialize was answered */
	SEV_CLIENT_EOF,		/* the client's input ended */
	SEV_SETTLED,		/* something the drain waits for ended */
	SEV_CHILD_GONE,		/* a child exited, or its output ended */
	SEV_END,		/* an orderly end: exit 0 */
	SEV_FAIL,		/* the session cannot go on: exit 1 */
	SEV_FATAL		/* fatal(): cleanup_exit() kills the children */
};

/* Its timers and signal events, on s->base; once, before any child. */
void	 session_setup(struct session *);
void	 session_event(struct session *, enum session_event);
/* A worker's exit, from its owner's exited callback: fatal unless the
 * session told it to leave. */
void	 session_worker_exited(struct session *, struct child *, int status);
/* The state name, for log lines. */
const char *session_state_name(const struct session *);

#endif /* BNC_SESSION_H */
