/*
 * worker.c - bouncer-worker: parses the JSON-RPC lines of one peer.
 *
 *   bouncer-worker -r client|upstream [-n NAME] -m MAX_MESSAGE [-d LEVEL]
 *
 * The client worker reads the MCP client's stdin; an upstream worker
 * reads one upstream server's stdout.  Each line becomes a typed
 * MSG_RPC_IN or MSG_RPC_BAD frame on fd 3, the monitor's socket.  Both
 * only read: the monitor writes the client's stdout and the upstreams'
 * stdin itself, and fd 1 is /dev/null in either role, so a worker never
 * sees an answer and never writes a line anyone reads.  When the monitor
 * stops taking frames (its client is not reading its answers), a send
 * waits for room, and so the peer waits for room on its pipe.  After
 * set-up the process is sandboxed (DESIGN 2): a parser bug gives an
 * attacker a process that can only talk to the monitor, which
 * re-validates everything it is told.
 *
 * This process must never hold a descriptor other than 0-3 and its event
 * loop's, never write to fd 1, and never decide anything: it describes
 * lines, the monitor judges them.
 */
#include <sys/types.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "buf.h"
#include "err.h"
#include "fd.h"
#include "frame.h"
#include "bounds.h"
#include "idscan.h"
#include "lines.h"
#include "log.h"
#include "msg.h"
#include "parse.h"
#include "sandbox.h"
#include "value.h"
#include "xmalloc.h"

/*
 * Descriptors probed for the sandbox's RLIMIT_NOFILE: after closefrom()
 * only 0-3 and libevent's (epoll fd, signal pipe) can be open.
 */
#define WORKER_FD_SCAN		64

/*
 * An empty buffer that grew past this for one big message is given back,
 * so a single 16 MiB line does not stay resident for the whole session.
 */
#define WORKER_BUF_KEEP		(1024 * 1024)

struct worker {
	struct event_base	*base;
	struct event		*ev_in;		/* fd 0 readable, or a kick */
	struct event		*ev_chan;	/* fd 3 readable */
	struct lines		*lines;
	struct idscan		 idscan;	/* of the over-long line */
	struct buf		*msg;		/* frame payload scratch */
	struct frame_rx		 rx;
	size_t			 max_message;
	int			 role;		/* enum bnc_role */
	int			 in_pollable;	/* else a plain file: kick */
	int			 in_done;	/* MSG_INPUT_EOF sent */
	uint32_t		 seq;		/* id of the next frame */
};

static void
usage(void)
{
	fprintf(stderr, "usage: bouncer-worker -r client|upstream [-n name] "
	    "-m max_message [-d level]\n");
	exit(1);
}

/* Replaces an empty buffer that grew large; keeps its growth cap. */
static struct buf *
buf_trim(struct buf *b)
{
	size_t max = b->max;

	if (buf_len(b) != 0 || b->cap <= WORKER_BUF_KEEP)
		return b;
	buf_free(b);
	b = buf_new();
	buf_set_max(b, max);
	return b;
}

/* Sends one frame; the monitor being gone ends us quietly. */
static void
send_frame(struct worker *w, uint16_t type, struct buf *b)
{
	int r;

	if ((r = frame_send(BNC_CHILD_FD, type, w->seq++, b, -1)) == 0) {
		if (b == w->msg) {
			buf_reset(w->msg);
			w->msg = buf_trim(w->msg);
		}
		return;
	}
	if (r == -BNC_ERR_EOF)
		exit(0);
	fatal_r(r, "send %s", msg_type_name(type));
}

static struct worker *log_worker;

/* Log lines travel to the monitor once the sandbox is on. */
static void
log_to_monitor(enum bnc_loglevel level, const char *line, void *ctx)
{
	static int busy;
	struct msg_log m;
	struct buf *b;
	char cut[BNC_LOG_LINE_MAX + 1];
	size_t n;

	(void)ctx;
	if (busy || log_worker == NULL)
		return;
	busy = 1;
	n = strlen(line);
	if (n > BNC_LOG_LINE_MAX) {
		n = BNC_LOG_LINE_MAX;
		while (n > 0 && ((uint8_t)line[n] & 0xc0) == 0x80)
			n--;
		memcpy(cut, line, n);
		cut[n] = '\0';
		line = cut;
	}
	m.level = level < LOG_LEVEL_FATAL ? LOG_LEVEL_FATAL : level;
	m.line = (char *)(uintptr_t)line;
	b = buf_new();
	/* A log line that cannot be sent is lost, never retried by logging. */
	if (msg_log_put(b, &m) == 0)
		(void)frame_send(BNC_CHILD_FD, MSG_LOG, log_worker->seq++, b,
		    -1);
	buf_free(b);
	busy = 0;
}

static void
libevent_log(int severity, const char *msg)
{
	if (severity >= EVENT_LOG_ERR)
		error("libevent: %s", msg);
	else
		debug("libevent: %s", msg);
}

static void
libevent_fatal(int err)
{
	fatal("libevent fatal error %d", err);
}

/* Input from the peer */

static void
kick_input(struct worker *w)
{
	if (w->in_pollable)
		event_add(w->ev_in, NULL);
	else
		event_active(w->ev_in, EV_READ, 0);
}

static void
send_rpc(struct worker *w, struct rpc *rpc)
{
	struct msg_rpc_bad bad;
	int r;

	buf_reset(w->msg);
	if ((r = msg_rpc_put(w->msg, rpc)) == 0) {
		send_frame(w, MSG_RPC_IN, w->msg);
		return;
	}
	/* parse_line() checked every cap msg_rpc_put() does. */
	error_r(r, "encode %s", rpc->method != NULL ? "request" : "response");
	memset(&bad, 0, sizeof(bad));
	bad.code = RPC_ERR_INTERNAL;
	bad.message = xstrdup("Internal error");
	if (rpc->id.type == RPC_ID_INT || rpc->id.type == RPC_ID_STR)
		rpc_id_copy(&bad.id, &rpc->id);
	else
		bad.id.type = RPC_ID_NULL;
	bad.was_response = rpc->kind == RPC_RESULT || rpc->kind == RPC_ERROR;
	buf_reset(w->msg);
	if ((r = msg_rpc_bad_put(w->msg, &bad)) != 0)
		fatal_r(r, "encode rpc-bad");
	send_frame(w, MSG_RPC_BAD, w->msg);
	msg_rpc_bad_free(&bad);
}

static void
send_bad(struct worker *w, struct msg_rpc_bad *bad)
{
	int r;

	debug2("bad line: %d %s", bad->code, bad->message);
	buf_reset(w->msg);
	if ((r = msg_rpc_bad_put(w->msg, bad)) != 0)
		fatal_r(r, "encode rpc-bad");
	send_frame(w, MSG_RPC_BAD, w->msg);
}

/* The bytes of an over-long line, as they are dropped: find its id. */
static void
scan_dropped(void *arg, const uint8_t *p, size_t n, int first)
{
	struct worker *w = arg;

	if (first)
		idscan_init(&w->idscan);
	idscan_feed(&w->idscan, p, n);
}

static void
handle_lines(struct worker *w)
{
	struct msg_rpc_bad bad;
	struct rpc rpc;
	size_t len;
	char *line;
	int t;

	while ((t = lines_next(w->lines, &line, &len)) != LINES_NONE) {
		if (t == LINES_TOO_LONG) {
			parse_bad_too_large(&bad, &w->idscan);
			send_bad(w, &bad);
			msg_rpc_bad_free(&bad);
			continue;
		}
		switch (parse_line(line, len, &rpc, &bad)) {
		case PARSE_RPC:
			send_rpc(w, &rpc);
			msg_rpc_free(&rpc);
			break;
		case PARSE_BAD:
			send_bad(w, &bad);
			msg_rpc_bad_free(&bad);
			break;
		default:
			break;
		}
	}
}

static void
input_done(struct worker *w)
{
	if (w->in_done)
		return;
	w->in_done = 1;
	event_del(w->ev_in);
	buf_reset(w->msg);
	msg_empty_put(w->msg);
	send_frame(w, MSG_INPUT_EOF, w->msg);
	debug("input closed");
}

static void
in_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker *w = arg;
	int r;

	(void)fd;
	(void)what;
	if (w->in_done)
		return;
	r = lines_read(w->lines, STDIN_FILENO);
	if (r == -BNC_ERR_AGAIN)
		return;
	if (r < 0) {
		/* An unreadable input is a closed one; keep what we had. */
		error_r(r, "read input: %s", strerror(errno));
		lines_feed(w->lines, NULL, 0);
	}
	handle_lines(w);
	if (r <= 0)
		input_done(w);
	if (!w->in_pollable && !w->in_done)
		event_active(w->ev_in, EV_READ, 0);
}

/* Frames from the monitor */

/*
 * MSG_SHUTDOWN is the one frame a worker takes: it has nothing to flush,
 * and goes.  MSG_RPC_OUT is no longer sent to any worker (the monitor
 * writes the client's stdout itself): one that arrives is a monitor
 * broken or impersonated, and the worker stops.
 */
static void
handle_frame(struct worker *w, struct frame_msg *fm)
{
	int r;

	(void)w;
	if (fm->fd != -1)
		fatal("%s frame carries a descriptor", msg_type_name(fm->type));
	switch (fm->type) {
	case MSG_SHUTDOWN:
		if ((r = msg_empty_get(fm->payload)) != 0)
			fatal_r(r, "decode shutdown");
		debug("shutdown");
		exit(0);
	case MSG_RPC_OUT:
		fatal("rpc-out sent to a worker: the monitor writes the "
		    "client's output itself");
	default:
		fatal("unexpected %s frame", msg_type_name(fm->type));
	}
}

static void
chan_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker *w = arg;
	struct frame_msg fm;
	int r;

	(void)fd;
	(void)what;
	for (;;) {
		memset(&fm, 0, sizeof(fm));
		fm.fd = -1;
		r = frame_recv(BNC_CHILD_FD, &w->rx, &fm);
		if (r == -BNC_ERR_AGAIN)
			break;
		/*
		 * The monitor is gone: so is the session.  A peer that closes
		 * with our frames unread makes recvmsg() fail ECONNRESET.
		 */
		if (r == -BNC_ERR_EOF || (r == -BNC_ERR_SYS &&
		    (errno == ECONNRESET || errno == EPIPE)))
			exit(0);
		if (r < 0)
			fatal_r(r, "frame from monitor");
		if (r == 0)
			continue;
		handle_frame(w, &fm);
		frame_msg_clear(&fm);
	}
}

/* Set-up */

static int
set_nonblock(int fd)
{
	int fl;

	if ((fl = fcntl(fd, F_GETFL)) == -1)
		return -1;
	if ((fl & O_NONBLOCK) != 0)
		return 0;
	return fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void
check_channel(void)
{
	socklen_t len;
	int type, domain;

	len = sizeof(type);
	if (getsockopt(BNC_CHILD_FD, SOL_SOCKET, SO_TYPE, &type, &len) == -1) {
		fprintf(stderr, "bouncer-worker: fd %d is not the monitor "
		    "socket: %s\n", BNC_CHILD_FD, strerror(errno));
		exit(1);
	}
	len = sizeof(domain);
	if (type != SOCK_SEQPACKET || getsockopt(BNC_CHILD_FD, SOL_SOCKET,
	    SO_DOMAIN, &domain, &len) == -1 || domain != AF_UNIX) {
		fprintf(stderr, "bouncer-worker: fd %d is not a unix "
		    "seqpacket socket\n", BNC_CHILD_FD);
		exit(1);
	}
}

static int
valid_name(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > BNC_UPSTREAM_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

static int
parse_level(const char *s, enum bnc_loglevel *lp)
{
	char *ep;
	long n;
	int i;

	for (i = LOG_LEVEL_QUIET; i <= LOG_LEVEL_DEBUG3; i++)
		if (strcmp(s, log_level_name((enum bnc_loglevel)i)) == 0) {
			*lp = (enum bnc_loglevel)i;
			return 0;
		}
	errno = 0;
	n = strtol(s, &ep, 10);
	if (*s == '\0' || *ep != '\0' || errno != 0 ||
	    n < LOG_LEVEL_QUIET || n > LOG_LEVEL_DEBUG3)
		return -1;
	*lp = (enum bnc_loglevel)n;
	return 0;
}

static int
ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a;
	uintptr_t y = (uintptr_t)*(void *const *)b;

	return (x > y) - (x < y);
}

/*
 * glibc's qsort sizes its scratch space with sysconf(_SC_PHYS_PAGES),
 * i.e. sysinfo(2), on its first large sort; value_decode() sorts the
 * keys of big objects.  Pay that probe now, before the filter, so the
 * allowlist need not carry it.
 */
static void
libc_warmup(void)
{
	void *v[512];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		v[i] = (void *)(uintptr_t)(sizeof(v) / sizeof(v[0]) - i);
	qsort(v, sizeof(v) / sizeof(v[0]), sizeof(v[0]), ptr_cmp);
}

/*
 * RLIMIT_NOFILE for the sandbox: one past the highest descriptor we hold
 * (0-3, the epoll fd, libevent's signal pipe), plus one spare because
 * sandbox_apply() opens Landlock's ruleset fd after setting the limit.
 */
static int
sandbox_nfds(void)
{
	int fd, high = BNC_CHILD_FD;

	for (fd = BNC_CHILD_FD + 1; fd < WORKER_FD_SCAN; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			high = fd;
	return high + 2;
}

static struct event_base *
make_base(void)
{
	struct event_config *cfg;
	struct event_base *base;

	/*
	 * epoll only, no locks, no environment overrides: nothing that
	 * opens a descriptor or a file once the sandbox is on.
	 */
	if ((cfg = event_config_new()) == NULL)
		fatal("event_config_new failed");
	event_config_avoid_method(cfg, "select");
	event_config_avoid_method(cfg, "poll");
	event_config_set_flag(cfg, EVENT_BASE_FLAG_NOLOCK |
	    EVENT_BASE_FLAG_IGNORE_ENV);
	base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	if (base == NULL)
		fatal("cannot create an epoll event loop");
	return base;
}

int
main(int argc, char **argv)
{
	static char tag[sizeof("worker:upstream:") + BNC_UPSTREAM_NAME_MAX];
	static struct worker w;
	enum bnc_loglevel level = LOG_LEVEL_INFO;
	struct sb_status st;
	struct msg_hello hello;
	const char *role = NULL, *name = NULL, *errstr = NULL;
	unsigned long long mm = 0;
	char *ep;
	pid_t pid;
	int ch, r;

	/* A closed stderr is an error to report, not a death (frames go with
	 * MSG_NOSIGNAL); fd 1 is /dev/null, and no file is ever grown. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	log_init("worker", LOG_LEVEL_INFO);

	while ((ch = getopt(argc, argv, "d:m:n:r:")) != -1) {
		switch (ch) {
		case 'd':
			if (parse_level(optarg, &level) != 0)
				usage();
			break;
		case 'm':
			errno = 0;
			mm = strtoull(optarg, &ep, 10);
			if (*optarg < '0' || *optarg > '9' || *ep != '\0' ||
			    errno != 0)
				usage();
			break;
		case 'n':
			name = optarg;
			break;
		case 'r':
			role = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || role == NULL || mm == 0)
		usage();
	if (strcmp(role, "client") == 0 && name == NULL) {
		w.role = ROLE_WORKER_CLIENT;
		snprintf(tag, sizeof(tag), "worker:client");
	} else if (strcmp(role, "upstream") == 0) {
		w.role = ROLE_WORKER_UPSTREAM;
		if (name == NULL)
			name = "upstream";
		if (!valid_name(name))
			errstr = "bad upstream name";
		snprintf(tag, sizeof(tag), "worker:upstream:%s", name);
	} else
		usage();
	if (mm < BNC_MSG_MAX_LOWEST || mm > BNC_MSG_MAX_HIGHEST)
		errstr = "max_message out of range";
	if (errstr != NULL) {
		fprintf(stderr, "bouncer-worker: %s\n", errstr);
		exit(1);
	}
	w.max_message = (size_t)mm;
	log_init(tag, level);

	/* Fixed descriptors first, then nothing else may stay open. */
	check_channel();
	closefrom(BNC_CHILD_FD + 1);
	if (set_nonblock(STDIN_FILENO) == -1 ||
	    set_nonblock(BNC_CHILD_FD) == -1)
		fatal("fcntl O_NONBLOCK: %s", strerror(errno));
	w.in_pollable = fd_pollable(STDIN_FILENO, EPOLLIN);
	pid = getpid();

	parse_init();
	libc_warmup();
	event_set_log_callback(libevent_log);
	event_set_fatal_callback(libevent_fatal);
	w.base = make_base();
	w.ev_in = event_new(w.base, w.in_pollable ? STDIN_FILENO : -1,
	    w.in_pollable ? EV_READ | EV_PERSIST : 0, in_cb, &w);
	w.ev_chan = event_new(w.base, BNC_CHILD_FD, EV_READ | EV_PERSIST,
	    chan_cb, &w);
	if (w.ev_in == NULL || w.ev_chan == NULL)
		fatal("event_new failed");
	w.lines = lines_new(w.max_message);
	lines_on_drop(w.lines, scan_dropped, &w);
	w.msg = buf_new();
	frame_rx_init(&w.rx, MSG_DIR_MONITOR_TO_WORKER, w.max_message);

	memset(&st, 0, sizeof(st));
	if ((r = sandbox_apply(SB_PROFILE_WORKER, sandbox_nfds(), &st)) != 0)
		fatal_r(r, "sandbox");

	memset(&hello, 0, sizeof(hello));
	hello.role = (uint8_t)w.role;
	hello.sandbox = (uint8_t)st.seccomp;
	hello.pid = (uint32_t)pid;
	hello.landlock_abi = (uint32_t)st.landlock_abi;
	buf_reset(w.msg);
	if ((r = msg_hello_put(w.msg, &hello)) != 0)
		fatal_r(r, "encode hello");
	send_frame(&w, MSG_HELLO, w.msg);
	log_worker = &w;
	log_set_sink(log_to_monitor, NULL);
	debug("sandboxed: seccomp %d, landlock abi %d, max_message %zu",
	    st.seccomp, st.landlock_abi, w.max_message);

	kick_input(&w);
	event_add(w.ev_chan, NULL);
	if (event_base_dispatch(w.base) == -1)
		fatal("event loop failed");
	/* Only reached when nothing is left to wait for. */
	exit(0);
}
