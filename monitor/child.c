/*
 * child.c - start, watch and reap the monitor's children (DESIGN 2, 3, 10).
 *
 * Workers are exec'd fresh with the socket on fd 3, their stderr on a
 * pipe the monitor reads (errpipe.c), and report MSG_HELLO before
 * anything else.  Each frame a worker sends goes to the handler its
 * owner's table has for the type, if the worker's permit state allows
 * it; a frame of another type or state, a malformed or out-of-direction
 * one, or a file descriptor, ends the session.  What a frame means, and
 * what a child's exit means, is the owner's (session.c, upstream.c):
 * this file names none of their functions.  An upstream server is not
 * trusted either, but it only ever reaches the monitor through its
 * worker.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bounds.h"
#include "buf.h"
#include "child.h"
#include "conffile.h"
#include "err.h"
#include "errpipe.h"
#include "frame.h"
#include "log.h"
#include "memory.h"
#include "msg.h"
#include "spawn.h"
#include "xmalloc.h"

extern char **environ;

static struct child_env env;

/* Every child started, so that reaping and killing need no owner. */
static struct child *children[BNC_CHILDREN_MAX];
static size_t nchildren;

void
child_setup(const struct child_env *e)
{
	env = *e;
}

static void
child_register(struct child *ch)
{
	size_t i;

	for (i = 0; i < nchildren; i++)
		if (children[i] == ch)
			return;
	if (nchildren >= BNC_CHILDREN_MAX)
		fatal_f("more than %d children", BNC_CHILDREN_MAX);
	children[nchildren++] = ch;
}

static struct child *
child_by_pid(pid_t pid)
{
	size_t i;

	for (i = 0; i < nchildren; i++)
		if (children[i]->pid == pid)
			return children[i];
	return NULL;
}

static void
set_nonblock(int fd)
{
	int fl;

	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
		fatal("fcntl: %s", strerror(errno));
}

/*
 * The monitor never blocks on a child: a worker that is itself sending a
 * large message would otherwise wait for us while we wait for it.  What
 * the socket does not take now is queued, bounded, and sent when it is
 * writable.  A child that stops reading past the bound ends the session.
 */
/* What a queued message holds: its copy and its entry. */
static size_t
outmsg_mem(const struct buf *b)
{
	return mem_alloc(sizeof(struct outmsg)) + mem_alloc(sizeof(*b)) +
	    mem_alloc(buf_len(b));
}

/* What is queued for ch can never be sent now: it goes. */
static void
outq_drop(struct child *ch)
{
	struct outmsg *m;

	while ((m = ch->outq) != NULL) {
		ch->outq = m->next;
		if (m->fd != -1)
			close(m->fd);
		mem_release(env.mem, outmsg_mem(m->payload));
		buf_free(m->payload);
		free(m);
	}
	ch->outq_tail = &ch->outq;
	ch->outq_bytes = 0;
}

/*
 * A send found the child's end of the socket closed: it is exiting (a
 * kill, a sandbox violation), or it closed its socket and lies.  It is
 * sent nothing more, and SIGKILL makes sure it exits (the status of one
 * already exiting stays what it was).  How it ended is for its exit
 * status to tell its owner once it is reaped, not for this send: a
 * worker killed by SIGSYS is recorded as a sandbox violation, a
 * carrier's call fails and the carrier is started again.  What it sent
 * before is still read.
 */
static void
send_closed(struct child *ch)
{
	debug("%s: its end of the socket is closed", ch->tag);
	if (ch->wev != NULL)
		event_del(ch->wev);
	outq_drop(ch);
	ch->send_closed = 1;
	if (ch->pid > 0)
		kill(ch->pid, SIGKILL);
}

static int
outq_flush(struct child *ch)
{
	struct outmsg *m;
	int r;

	while ((m = ch->outq) != NULL) {
		r = frame_send_some(ch->sock, m->type, m->id, m->payload,
		    &m->off, m->off == 0 ? m->fd : -1);
		if (r == -BNC_ERR_AGAIN)
			return 0;
		if (r < 0)
			return r;
		if (m->fd != -1)
			close(m->fd);
		ch->outq = m->next;
		if (ch->outq == NULL)
			ch->outq_tail = &ch->outq;
		ch->outq_bytes -= buf_len(m->payload);
		mem_release(env.mem, outmsg_mem(m->payload));
		buf_free(m->payload);
		free(m);
	}
	return 0;
}

static void
worker_writable(evutil_socket_t fd, short what, void *arg)
{
	struct child *ch = arg;
	int r;

	(void)fd;
	(void)what;
	if ((r = outq_flush(ch)) == -BNC_ERR_EOF) {
		send_closed(ch);
		return;
	}
	if (r != 0)
		fatal_r(r, "%s: send", ch->tag);
	if (ch->outq == NULL)
		event_del(ch->wev);
}

int
child_send(struct child *ch, uint16_t type, const struct buf *b)
{
	return child_send_fd(ch, type, 0, b, -1);
}

int
child_send_fd(struct child *ch, uint16_t type, uint32_t id,
    const struct buf *b, int fd)
{
	struct outmsg *m;
	size_t off = 0, cap;
	int r;

	if (ch->sock == -1 || ch->send_closed) {
		if (fd != -1)
			close(fd);
		return 0;
	}
	/* a queue must not start with half a message that then has no room */
	if (ch->outq != NULL && !mem_fits(env.mem, outmsg_mem(b))) {
		if (fd != -1)
			close(fd);
		return -BNC_ERR_TOO_LARGE;
	}
	if (ch->outq == NULL) {
		r = frame_send_some(ch->sock, type, id, b, &off, fd);
		if (r == 1 || r == -BNC_ERR_EOF) {
			if (fd != -1)
				close(fd);
			if (r == -BNC_ERR_EOF)
				send_closed(ch);
			return 0;
		}
		if (r != -BNC_ERR_AGAIN)
			fatal_r(r, "%s: send %s", ch->tag,
			    msg_type_name(type));
		/*
		 * The socket took part of it: the rest must follow, past the
		 * account if need be (one message per child at most: the
		 * next one finds the queue and no room).
		 */
		if (off > 0) {
			mem_force(env.mem, outmsg_mem(b));
			/* the fd went with the first record */
			if (fd != -1)
				close(fd);
			fd = -1;
		} else if (mem_charge(env.mem, outmsg_mem(b)) != 0) {
			if (fd != -1)
				close(fd);
			return -BNC_ERR_TOO_LARGE;
		}
	} else if (mem_charge(env.mem, outmsg_mem(b)) != 0) {
		if (fd != -1)
			close(fd);
		return -BNC_ERR_TOO_LARGE;
	}
	/* twice the largest message: a whole one behind a partial one */
	cap = 2 * msg_type_cap(MSG_RPC_IN, env.max_message);
	if (ch->outq_bytes + buf_len(b) > cap)
		fatal("%s is not reading its socket", ch->tag);
	m = xcalloc(1, sizeof(*m));
	m->type = type;
	m->id = id;
	m->fd = fd;
	m->payload = buf_new();
	if ((r = buf_put(m->payload, buf_ptr(b), buf_len(b))) != 0)
		fatal_r(r, "%s: queue", ch->tag);
	m->off = off;
	*ch->outq_tail = m;
	ch->outq_tail = &m->next;
	ch->outq_bytes += buf_len(b);
	if (event_add(ch->wev, NULL) == -1)
		fatal("event_add");
	return 0;
}

/*
 * For shutdown: what is queued must reach the child first, but a child
 * that does not read gets BNC_KILL_GRACE_MS, not forever.  Returns 0, or
 * -1 if it gave up.
 */
int
child_flush_blocking(struct child *ch)
{
	struct pollfd pfd;
	int r;

	while (ch->outq != NULL) {
		if ((r = outq_flush(ch)) != 0)
			return -1;
		if (ch->outq == NULL)
			break;
		pfd.fd = ch->sock;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, BNC_KILL_GRACE_MS) <= 0)
			return -1;
	}
	if (ch->wev != NULL)
		event_del(ch->wev);
	return 0;
}

void
child_hold(struct child *ch, int hold)
{
	if (ch->held == hold)
		return;
	ch->held = hold;
	if (ch->sock == -1 || ch->ev == NULL)
		return;
	/* level-triggered: what waits in the socket is read once re-added */
	if (hold)
		event_del(ch->ev);
	else if (event_add(ch->ev, NULL) == -1)
		fatal("%s: event_add", ch->tag);
}

void
child_close(struct child *ch)
{
	if (ch->sock == -1)
		return;
	event_del(ch->ev);
	if (ch->wev != NULL)
		event_del(ch->wev);
	close(ch->sock);
	ch->sock = -1;
	outq_drop(ch);
}

int
child_said_hello(const struct child *ch)
{
	return (ch->permit & (CHILD_P_RUN | CHILD_P_EOF)) != 0;
}

int
child_at_eof(const struct child *ch)
{
	return (ch->permit & CHILD_P_EOF) != 0;
}

void
child_input_ended(struct child *ch)
{
	ch->permit = CHILD_P_EOF;
}

/* The first frame of a worker must say it is sandboxed. */
void
child_hello(struct child *ch, struct frame_msg *m, int role)
{
	struct msg_hello h;
	int r;

	if ((r = msg_hello_get(m->payload, &h)) != 0)
		fatal_r(r, "%s: bad hello", ch->tag);
	if (h.role != role || h.pid != (uint32_t)ch->pid)
		fatal("%s: hello for the wrong role or process", ch->tag);
#ifndef SANDBOX_DISABLED
	/*
	 * A worker of a --enable-sandbox-debug build traps and reports a
	 * refused call instead of dying: only a monitor built the same way
	 * takes one.
	 */
#ifdef SANDBOX_DEBUG
	if (h.sandbox != SB_STATE_ON && h.sandbox != SB_STATE_DEBUG)
#else
	if (h.sandbox == SB_STATE_DEBUG)
		fatal("%s: reports the debug sandbox, which this build does "
		    "not accept", ch->tag);
	if (h.sandbox != SB_STATE_ON)
#endif
		fatal("%s: reports no sandbox", ch->tag);
#endif
	ch->permit = CHILD_P_RUN;
	ch->sandbox = h.sandbox;
	ch->landlock_abi = h.landlock_abi;
	debug("%s: sandboxed (seccomp %d, landlock ABI %u)", ch->tag,
	    h.sandbox, h.landlock_abi);
}

void
child_log(struct child *ch, struct frame_msg *m)
{
	struct msg_log l;
	struct timespec ts;
	uint64_t now;
	int r;

	if ((r = msg_log_get(m->payload, &l)) != 0)
		fatal_r(r, "%s: bad log frame", ch->tag);
	/*
	 * A worker hijacked by its input may send log frames as fast as it
	 * likes: at most BNC_CHILD_LOG_LINES a window are logged (escaped,
	 * as every line), and how many were not is said when the next
	 * window opens.
	 */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	/* a window is a whole period from its first line, not the rest of
	 * the clock's second it began in */
	if (ch->log_lines == 0 ||
	    now - ch->log_window >= BNC_CHILD_STDERR_PERIOD_S * 1000ULL) {
		if (ch->log_dropped > 0)
			error("%s: %lu log line%s dropped (more than %d in %d "
			    "s)", ch->tag, ch->log_dropped, ch->log_dropped ==
			    1 ? "" : "s", BNC_CHILD_LOG_LINES,
			    BNC_CHILD_STDERR_PERIOD_S);
		ch->log_window = now;
		ch->log_lines = 0;
		ch->log_dropped = 0;
	}
	if (ch->log_lines++ < BNC_CHILD_LOG_LINES)
		do_log(l.level == LOG_LEVEL_FATAL ? LOG_LEVEL_ERROR : l.level,
		    NULL, 0, "%s: %s", ch->tag, l.line);
	else
		ch->log_dropped++;
	msg_log_free(&l);
}

/* A frame its table does not take now: the session ends, saying why. */
static void __attribute__((noreturn))
out_of_state(struct child *ch, uint16_t type, int known)
{
	if (ch->permit & CHILD_P_HELLO)
		fatal("%s: sent %s before hello", ch->tag,
		    msg_type_name(type));
	if (known && (ch->permit & CHILD_P_EOF))
		fatal("%s: %s after input-eof", ch->tag, msg_type_name(type));
	fatal("%s: unexpected %s", ch->tag, msg_type_name(type));
}

static void
dispatch(struct child *ch, struct frame_msg *m)
{
	const struct child_frame *f;
	size_t i;

	for (i = 0; i < ch->nframes; i++) {
		f = &ch->frames[i];
		if (f->type != m->type)
			continue;
		if (!(f->permit & ch->permit))
			out_of_state(ch, m->type, 1);
		f->fn(ch, m);
		return;
	}
	out_of_state(ch, m->type, 0);
}

static void
worker_readable(evutil_socket_t fd, short what, void *arg)
{
	struct child *ch = arg;
	struct frame_msg m;
	int r, n = 0;

	(void)fd;
	(void)what;
	/*
	 * A handler may shut this worker down, or hold it: then stop.  What
	 * is left past the budget is read on the loop's next turn (the
	 * event is level-triggered).
	 */
	while (ch->sock != -1 && !ch->held && n < BNC_CHILD_FRAMES_PER_READ) {
		memset(&m, 0, sizeof(m));
		m.fd = -1;
		r = frame_recv(ch->sock, &ch->rx, &m);
		if (r == -BNC_ERR_AGAIN || r == 0) {
			if (r == 0)
				continue;
			return;
		}
		if (r == -BNC_ERR_EOF) {
			/* It is exiting; its owner decides what that means. */
			event_del(ch->ev);
			return;
		}
		if (r == -BNC_ERR_SYS)
			fatal("%s: receive: %s", ch->tag, strerror(errno));
		if (r < 0)
			fatal_r(r, "%s: protocol fault", ch->tag);
		if (m.fd != -1)
			fatal("%s: unexpected file descriptor", ch->tag);
		dispatch(ch, &m);
		frame_msg_clear(&m);
		n++;
	}
}

/*
 * Starts helper bin of the libexec directory with argv, its stdin and
 * stdout on fd_in and fd_out, fd_extra (or -1) on fd 4, its stderr on a
 * pipe we read, and the socket on fd 3 whose frames come from dir.
 */
static int
spawn_helper(struct child *ch, const char *bin, char **argv, int fd_in,
    int fd_out, int fd_extra, enum msg_dir dir)
{
	struct spawn_spec sp;
	char *envp[1] = { NULL };
	char path[BNC_PATH_MAX];
	int sv[2], ep[2], r;

	if (snprintf(path, sizeof(path), "%s/%s", env.libexec, bin) >=
	    (int)sizeof(path))
		return -BNC_ERR_TOO_LARGE;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return -BNC_ERR_SYS;
	/* its stderr is ours to read, never the client's log (errpipe.c) */
	if (pipe2(ep, O_CLOEXEC) == -1) {
		close(sv[0]);
		close(sv[1]);
		return -BNC_ERR_SYS;
	}
	spawn_spec_init(&sp);
	sp.path = path;
	sp.argv = argv;
	sp.envp = envp;		/* a helper needs nothing from us */
	sp.fd_in = fd_in;
	sp.fd_out = fd_out;
	sp.fd_err = ep[1];
	sp.fd_chan = sv[1];
	sp.fd_extra = fd_extra;
	if ((r = spawn_child(&sp, &ch->pid)) != 0) {
		close(sv[0]);
		close(sv[1]);
		close(ep[0]);
		close(ep[1]);
		return r;
	}
	child_register(ch);
	close(sv[1]);
	close(ep[1]);
	ch->sock = sv[0];
	ch->permit = CHILD_P_HELLO;
	if ((ch->err = errpipe_open(env.base, ep[0], ch->tag)) == NULL)
		fatal("%s: cannot read its stderr", ch->tag);
	set_nonblock(ch->sock);
	frame_rx_init(&ch->rx, dir, env.max_message);
	/* a carrier started again: its first life's events go */
	if (ch->ev != NULL)
		event_free(ch->ev);
	if (ch->wev != NULL)
		event_free(ch->wev);
	ch->ev = event_new(env.base, ch->sock, EV_READ | EV_PERSIST,
	    worker_readable, ch);
	ch->wev = event_new(env.base, ch->sock, EV_WRITE | EV_PERSIST,
	    worker_writable, ch);
	ch->outq = NULL;
	ch->outq_tail = &ch->outq;
	ch->send_closed = 0;
	if (ch->ev == NULL || ch->wev == NULL || event_add(ch->ev, NULL) == -1)
		fatal("event_new");
	debug("%s: started, pid %ld", ch->tag, (long)ch->pid);
	return 0;
}

int
child_spawn_worker(struct child *ch, int role, const char *upname,
    int fd_in, int fd_out)
{
	char *argv[12];
	char maxs[32], lvl[8];
	char name[BNC_UPSTREAM_NAME_MAX + 1];
	int i = 0;

	/* argv is not const (execve's): the name is copied, not cast */
	if (upname != NULL && (size_t)snprintf(name, sizeof(name), "%s",
	    upname) >= sizeof(name))
		return -BNC_ERR_TOO_LARGE;
	snprintf(maxs, sizeof(maxs), "%zu", env.max_message);
	snprintf(lvl, sizeof(lvl), "%d", (int)log_get_level());
	argv[i++] = "bouncer-worker";
	argv[i++] = "-r";
	argv[i++] = role == ROLE_WORKER_CLIENT ? "client" : "upstream";
	if (upname != NULL) {
		argv[i++] = "-n";
		argv[i++] = name;
	}
	argv[i++] = "-m";
	argv[i++] = maxs;
	argv[i++] = "-d";
	argv[i++] = lvl;
	argv[i] = NULL;
	return spawn_helper(ch, "bouncer-worker", argv, fd_in, fd_out, -1,
	    MSG_DIR_WORKER_TO_MONITOR);
}

int
child_spawn_carrier(struct child *ch, char **argv, int fd_cred)
{
	return spawn_helper(ch, argv[0], argv, SPAWN_DEVNULL, SPAWN_DEVNULL,
	    fd_cred, MSG_DIR_CARRIER_TO_MONITOR);
}

/* A server's environment: ours without bouncer's own secrets. */
static char **
server_env(const struct upstream_cfg *u)
{
	char **e;
	size_t n = 0, i, j, k;

	for (i = 0; environ[i] != NULL; i++)
		;
	e = xcalloc(i + u->nenv + 1, sizeof(*e));
	for (i = 0; environ[i] != NULL; i++) {
		if (strncmp(environ[i], "BOUNCER_", 8) == 0)
			continue;
		for (j = 0; j < u->nenv; j++) {
			k = strcspn(u->env[j], "=");
			if (strncmp(environ[i], u->env[j], k + 1) == 0)
				break;
		}
		if (j == u->nenv)
			e[n++] = environ[i];
	}
	for (j = 0; j < u->nenv; j++)
		e[n++] = u->env[j];
	e[n] = NULL;
	return e;
}

int
child_spawn_server(struct child *proc, struct child *worker,
    const struct upstream_cfg *u, const char *name, int *in_fd)
{
	struct spawn_spec sp;
	char **argv = NULL, **envp = NULL;
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, r = -BNC_ERR_SYS;
	size_t i;

	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1)
		goto out;
	argv = xcalloc(u->nargs + 2, sizeof(*argv));
	argv[0] = u->command;
	for (i = 0; i < u->nargs; i++)
		argv[i + 1] = u->args[i];
	envp = server_env(u);
	spawn_spec_init(&sp);
	sp.path = u->command;
	sp.argv = argv;
	sp.envp = envp;
	sp.cwd = u->cwd;
	sp.fd_in = in[0];
	sp.fd_out = out[1];
	if ((r = spawn_child(&sp, &proc->pid)) != 0)
		goto out;
	child_register(proc);
	debug("%s: started, pid %ld", proc->tag, (long)proc->pid);
	close(in[0]);
	close(out[1]);
	in[0] = out[1] = -1;
	*in_fd = in[1];
	in[1] = -1;
	set_nonblock(*in_fd);
	r = child_spawn_worker(worker, ROLE_WORKER_UPSTREAM, name, out[0],
	    SPAWN_DEVNULL);
 out:
	if (r != 0)
		error("upstream %s: cannot start %s: %s", name, u->command,
		    strerror(errno));
	for (i = 0; i < 2; i++) {
		if (in[i] != -1)
			close(in[i]);
		if (out[i] != -1)
			close(out[i]);
	}
	free(argv);
	free(envp);
	return r;
}

const char *
child_describe(int st, char *buf, size_t len)
{
	if (WIFEXITED(st))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS)
		snprintf(buf, len, "was killed by SIGSYS: sandbox violation");
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "was killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, len, "stopped (status 0x%x)", st);
	return buf;
}

void
child_reap(void)
{
	struct child *ch;
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if ((ch = child_by_pid(pid)) == NULL)
			continue;
		ch->pid = 0;
		ch->status = st;
		if (ch->exited != NULL)
			ch->exited(ch, st);
	}
}

void
child_kill_all(int sig)
{
	size_t i;

	for (i = 0; i < nchildren; i++)
		if (children[i]->pid > 0)
			kill(children[i]->pid, sig);
}

int
child_all_exited(void)
{
	size_t i;

	for (i = 0; i < nchildren; i++)
		if (children[i]->pid > 0)
			return 0;
	return 1;
}

void
child_reap_quiet(void)
{
	struct child *ch;
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		if ((ch = child_by_pid(pid)) != NULL)
			ch->pid = 0;
}

void
child_reap_wait(void)
{
	struct child *ch;
	pid_t pid;
	size_t i;
	int st;

	if ((pid = waitpid(-1, &st, 0)) > 0) {
		if ((ch = child_by_pid(pid)) != NULL)
			ch->pid = 0;
	} else if (pid == -1 && errno == ECHILD) {
		/* Nothing left to wait for: forget them all. */
		for (i = 0; i < nchildren; i++)
			children[i]->pid = 0;
	}
}

/*
 * Reads what the workers wrote to stderr and has not been read yet, so
 * that a dead worker's last words (a failed exec, a sandbox report) are
 * logged before its death is judged.
 */
void
child_stderr_drain(void)
{
	size_t i;

	for (i = 0; i < nchildren; i++)
		errpipe_drain(children[i]->err);
}

/*
 * A reaped child that will be started again (a carrier): its socket,
 * its queue, its partial frame and its stderr (last words logged) go.
 */
void
child_forget(struct child *ch)
{
	child_close(ch);
	frame_rx_clear(&ch->rx);
	errpipe_close(ch->err);
	ch->err = NULL;
	ch->permit = 0;
}

/* At the end: what is left of the workers' stderr, then the pipes go. */
void
child_stderr_close(void)
{
	size_t i;

	for (i = 0; i < nchildren; i++) {
		errpipe_close(children[i]->err);
		children[i]->err = NULL;
	}
}
