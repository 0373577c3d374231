/*
 * session.c - the session's life (DESIGN 3): the only writer of its
 * state.
 *
 * client.c, upstream.c, gate.c and the children's owners report what
 * happened (session_event); this file decides what it means: which
 * state follows, when the client's input is drained, when the
 * upstreams are told EOF, when the workers may go, and when the event
 * loop ends.  A transition no row of the table allows leaves the state
 * as it is: a late event cannot move a closing session back.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <event2/event.h>

#include "bounds.h"
#include "buf.h"
#include "carriers.h"
#include "child.h"
#include "gate.h"
#include "log.h"
#include "monitor.h"
#include "msg.h"
#include "session.h"
#include "upstream.h"

#define SM(st)		(1U << (st))
#define SM_START	SM(SESSION_START)
#define SM_INIT		SM(SESSION_INIT)
#define SM_READY	SM(SESSION_READY)
#define SM_DRAIN	SM(SESSION_DRAIN)
#define SM_CLOSING	SM(SESSION_CLOSING)
#define SM_OPEN		(SM_START | SM_INIT | SM_READY | SM_DRAIN)

static const struct transition {
	enum session_event	 ev;
	unsigned		 from;	/* SM() of the states it moves */
	enum session_state	 to;
} transitions[] = {
	{ SEV_INITIALIZE, SM_START,		SESSION_INIT },
	/* after the client's EOF it stays draining */
	{ SEV_READY,	  SM_INIT,		SESSION_READY },
	{ SEV_CLIENT_EOF, SM_START | SM_INIT | SM_READY, SESSION_DRAIN },
	{ SEV_END,	  SM_OPEN,		SESSION_CLOSING },
	{ SEV_FAIL,	  SM_OPEN,		SESSION_CLOSING },
	{ SEV_FATAL,	  SM_OPEN | SM_CLOSING,	SESSION_CLOSING },
};

static const char *const state_names[] = {
	[SESSION_START] = "start",
	[SESSION_INIT] = "init",
	[SESSION_READY] = "ready",
	[SESSION_DRAIN] = "drain",
	[SESSION_CLOSING] = "closing"
};

static void	closing(struct session *, int code);

const char *
session_state_name(const struct session *s)
{
	return state_names[s->state];
}

static void
send_shutdown(struct session *s, struct child *ch)
{
	struct buf *b;

	if (ch->sock == -1 || ch->pid == 0)
		return;
	b = buf_new();
	msg_empty_put(b);
	child_send(ch, MSG_SHUTDOWN, b);
	buf_free(b);
	if (child_flush_blocking(ch) != 0) {
		error("%s does not read its socket; killing it", ch->tag);
		s->force_close = 1;
		kill(ch->pid, SIGKILL);
	}
	/* From now on its exit is expected and its socket unused. */
	child_close(ch);
}

/*
 * A worker may only leave when we told it to (its socket closed after
 * MSG_SHUTDOWN, status 0), or once the grace ran out; anything else ends
 * the session.
 */
void
session_worker_exited(struct session *s, struct child *ch, int st)
{
	char desc[128];

	child_describe(st, desc, sizeof(desc));
	if (!s->force_close && (s->state != SESSION_CLOSING ||
	    ch->sock != -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0))
		fatal("%s %s", ch->tag, desc);
	debug("%s %s", ch->tag, desc);
}

/*
 * Once every upstream is gone and its worker has read all it wrote, let
 * the workers go.  The answers are the monitor's own to write: once the
 * loop ends, monitor.c gives the client BNC_CLIENT_FLUSH_MS to read what
 * still waits for it (client_flush).
 */
static void
closing_progress(struct session *s)
{
	size_t i;

	for (i = 0; i < s->nups && !s->force_close; i++)
		if (s->ups[i].proc.pid > 0 || (s->ups[i].worker.pid > 0 &&
		    !child_at_eof(&s->ups[i].worker)))
			return;
	for (i = 0; i < s->nups; i++)
		send_shutdown(s, &s->ups[i].worker);
	/*
	 * A failed start is told to every request until the client
	 * closes: the session ends with the client (DESIGN 10).  The
	 * grace is for the upstreams, which are gone; it starts again
	 * when the wait ends.
	 */
	if (s->wait_client && !s->force_close && !child_at_eof(&s->client)) {
		evtimer_del(s->grace_timer);
		s->grace_stage = 0;
		return;
	}
	send_shutdown(s, &s->client);
	if (child_all_exited())
		event_base_loopexit(s->base, NULL);
}

static void
grace_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;
	struct timeval tv = { BNC_KILL_GRACE_MS / 1000,
	    (BNC_KILL_GRACE_MS % 1000) * 1000 };
	size_t i;
	int sig;

	(void)fd;
	(void)what;
	if (s->grace_stage >= 2) {
		/* Something still holds an upstream's output open. */
		error("children did not finish in time; forcing shutdown");
		s->force_close = 1;
		closing_progress(s);
		child_kill_all(SIGKILL);
		return;
	}
	sig = s->grace_stage++ == 0 ? SIGTERM : SIGKILL;
	for (i = 0; i < s->nups; i++)
		if (s->ups[i].proc.pid > 0) {
			verbose("%s: sending %s", s->ups[i].proc.tag,
			    sig == SIGTERM ? "SIGTERM" : "SIGKILL");
			kill(s->ups[i].proc.pid, sig);
		}
	evtimer_add(s->grace_timer, &tv);
}

/* The children's grace to leave in, from now. */
static void
grace_start(struct session *s)
{
	struct timeval tv = { BNC_KILL_GRACE_MS / 1000,
	    (BNC_KILL_GRACE_MS % 1000) * 1000 };

	evtimer_add(s->grace_timer, &tv);
}

/* Entered CLOSING: each upstream gets EOF, and a grace to leave in. */
static void
closing(struct session *s, int code)
{
	size_t i;

	if (code > s->exit_code)
		s->exit_code = code;
	/* a call still with a carrier (an end by signal) fails; EOF on
	 * their sockets tells the carriers to go */
	carriers_close(s);
	for (i = 0; i < s->nups; i++)
		upstream_close_input(&s->ups[i]);
	grace_start(s);
	closing_progress(s);
}

/* The wait of a failed start for its client is over. */
static void
end_wait(struct session *s)
{
	if (!s->wait_client)
		return;
	s->wait_client = 0;
	/* a grace still running for an upstream goes on as it was */
	if (!evtimer_pending(s->grace_timer, NULL))
		grace_start(s);
	closing_progress(s);
}

/*
 * After the client's EOF, everything it sent is delivered: a start-up in
 * progress completes and the requests queued behind it are forwarded.
 * Then each upstream gets EOF too and, like any server, decides itself
 * what it still answers before it exits; its answers still reach the
 * client, and no error is made up for what it leaves unanswered.
 */
static int
drained(const struct session *s)
{
	return s->init_id.type == RPC_ID_NONE && s->nqueued == 0 &&
	    !carriers_busy(s);
}

/*
 * The start row says what the workers reported, so it is written once
 * every one of them has said hello, not before: a session that ends at a
 * worker's hello never claims a sandbox.
 */
static void
hello_done(struct session *s)
{
	char reason[BNC_REASON_MAX];
	unsigned abi;
	size_t i;

	if (s->started || !child_said_hello(&s->client))
		return;
	abi = s->client.landlock_abi;
	for (i = 0; i < s->nups; i++) {
		if (!child_said_hello(&s->ups[i].worker))
			return;
		if (s->ups[i].worker.landlock_abi < abi)
			abi = s->ups[i].worker.landlock_abi;
	}
	s->started = 1;
#ifdef SANDBOX_DISABLED
	snprintf(reason, sizeof(reason), "session started; SANDBOX "
	    "DISABLED (--disable-sandbox build)");
#else
	if (abi > 0)
		snprintf(reason, sizeof(reason), "session started; %zu "
		    "workers sandboxed (seccomp%s, Landlock ABI %u, "
		    "no_new_privs)", s->nups + 1, s->client.sandbox ==
		    SB_STATE_DEBUG ? " in debug mode" : "", abi);
	else
		snprintf(reason, sizeof(reason), "session started; %zu "
		    "workers sandboxed (seccomp%s, no_new_privs; no Landlock "
		    "in this kernel)", s->nups + 1, s->client.sandbox ==
		    SB_STATE_DEBUG ? " in debug mode" : "");
#endif
	gate_audit_event(s, "start", reason);
	/* an agent the registry does not know: one row, its reason */
	if (s->identity_error != NULL)
		gate_audit_identity(s);
}

void
session_event(struct session *s, enum session_event ev)
{
	struct timeval tv = { BNC_START_TIMEOUT_S, 0 };
	enum session_state was = s->state;
	size_t i;

	for (i = 0; i < sizeof(transitions) / sizeof(transitions[0]); i++)
		if (transitions[i].ev == ev &&
		    (transitions[i].from & SM(s->state)) != 0) {
			s->state = transitions[i].to;
			debug2("session: %s -> %s", state_names[was],
			    state_names[s->state]);
			break;
		}
	switch (ev) {
	case SEV_HELLO:
		hello_done(s);
		break;
	case SEV_INITIALIZE:
		if (s->state != was)
			evtimer_add(s->start_timer, &tv);
		break;
	case SEV_READY:
		evtimer_del(s->start_timer);
		break;
	case SEV_CHILD_GONE:
		if (s->state == SESSION_CLOSING)
			closing_progress(s);
		break;
	case SEV_FAIL:
		/* start-up failed: its timer has nothing left to judge */
		if (s->state != was)
			evtimer_del(s->start_timer);
		/* FALLTHROUGH */
	case SEV_END:
		if (s->state != was)
			closing(s, ev == SEV_FAIL);
		else if (ev == SEV_END)
			end_wait(s);	/* a signal */
		break;
	case SEV_CLIENT_EOF:
		if (s->state == SESSION_CLOSING)
			end_wait(s);
		break;
	case SEV_FATAL:
	case SEV_SETTLED:
		break;
	}
	/* Whatever happened may have been the last thing the drain awaited. */
	if (s->state == SESSION_DRAIN && ev != SEV_FATAL && drained(s)) {
		debug("client input drained");
		session_event(s, SEV_END);
	}
}

static void
on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct session *s = arg;

	(void)what;
	if (sig == SIGCHLD) {
		child_stderr_drain();
		child_reap();
		session_event(s, SEV_CHILD_GONE);
		return;
	}
	logit("received signal %d; shutting down", (int)sig);
	session_event(s, SEV_END);
}

static void
start_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;
	size_t i;

	(void)fd;
	(void)what;
	/* the client's worker too when there is no upstream (work tools) */
	if (!child_said_hello(&s->client))
		fatal("%s: no hello within %d s", s->client.tag,
		    BNC_HELLO_TIMEOUT_S);
	for (i = 0; i < s->nups; i++)
		if (!child_said_hello(&s->ups[i].worker))
			fatal("%s: no hello within %d s", s->ups[i].worker.tag,
			    BNC_HELLO_TIMEOUT_S);
	if (s->state != SESSION_INIT && s->state != SESSION_DRAIN)
		return;
	for (i = 0; i < s->nups; i++)
		if (s->ups[i].state != UP_READY && s->ups[i].state != UP_FAILED)
			upstream_fail(&s->ups[i], "no answer during start-up "
			    "(timeout)");
}

static struct event *
signal_event(struct session *s, int sig)
{
	struct event *ev;

	if ((ev = evsignal_new(s->base, sig, on_signal, s)) == NULL ||
	    event_add(ev, NULL) == -1)
		fatal("evsignal_new");
	return ev;
}

void
session_setup(struct session *s)
{
	struct timeval tv = { BNC_HELLO_TIMEOUT_S, 0 };

	s->state = SESSION_START;
	s->sig_chld = signal_event(s, SIGCHLD);
	s->sig_term = signal_event(s, SIGTERM);
	s->sig_int = signal_event(s, SIGINT);
	s->sig_hup = signal_event(s, SIGHUP);
	if ((s->grace_timer = evtimer_new(s->base, grace_timeout, s)) ==
	    NULL || (s->start_timer = evtimer_new(s->base, start_timeout,
	    s)) == NULL)
		fatal("evtimer_new");
	/* the workers have this long to say hello */
	evtimer_add(s->start_timer, &tv);
}
