/*
 * carriers.c - start the carriers, hand each its credential, connect its
 * sockets and carry its calls (DESIGN 2, 3, 8).
 *
 * A carrier is started on its first call, never before: a session that
 * reads no task holds no Notion carrier.  Its credential is read from the
 * file carriers_open() opened, into guarded memory, written into a pipe on
 * the carrier's fd 4 and wiped: after the hand-off no byte of it is left
 * in the monitor.  seccomp cannot look at connect()'s address, so a
 * carrier has no connect() at all: the monitor connects, to the vendor's
 * compiled-in host or to a loopback api_base only, and passes the
 * socket with the call.  One call is in flight per carrier; the others
 * wait, bounded.  A carrier that dies or does not answer in time fails
 * the call in flight with a clear error and is started again for the
 * next one, BNC_CARRIER_RESTARTS_MAX times a session at most.  A frame
 * a carrier should not send (a result for another call, a malformed
 * one) ends the session, as from any child: it lies.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "bounds.h"
#include "buf.h"
#include "carriers.h"
#include "child.h"
#include "conffile.h"
#include "err.h"
#include "log.h"
#include "monitor.h"
#include "msg.h"
#include "value.h"
#include "work.h"
#include "xmalloc.h"

/* What each kind of carrier is. */
static const struct kind_desc {
	enum work_kind	 kind;
	const char	*binary;
	const char	*mode;		/* its -m, or NULL */
	int		 role;		/* what its hello must say */
	const char	*host;		/* the vendor's */
	const char	*name;		/* in logs and errors */
	const char	*vendor;
} kinds[WORK_KINDS] = {
	{ WORK_NOTION_READ, "bouncer-carrier-notion", "read",
	    ROLE_CARRIER_NOTION_READ, WORK_NOTION_HOST, "notion-read", "Notion" },
	{ WORK_NOTION_COMMENT, "bouncer-carrier-notion", "comment",
	    ROLE_CARRIER_NOTION_COMMENT, WORK_NOTION_HOST, "notion-comment",
	    "Notion" },
	{ WORK_GITHUB, "bouncer-carrier-github", NULL,
	    ROLE_CARRIER_GITHUB, WORK_GITHUB_HOST, "github", "GitHub" },
	{ WORK_SLACK, "bouncer-carrier-slack", NULL,
	    ROLE_CARRIER_SLACK, WORK_SLACK_HOST, "slack", "Slack" },
	{ WORK_NOTION_READ_AUDIT, "bouncer-carrier-notion", "audit",
	    ROLE_CARRIER_NOTION_AUDIT, WORK_NOTION_HOST, "notion-read (audit)",
	    "Notion" },
	{ WORK_NOTION_COMMENT_AUDIT, "bouncer-carrier-notion", "audit",
	    ROLE_CARRIER_NOTION_AUDIT, WORK_NOTION_HOST,
	    "notion-comment (audit)", "Notion" },
};

struct work_call {
	struct work_call *next;
	uint16_t	 ep;		/* 0: a probe */
	struct value	*args;
	char		*method, *path;	/* a probe's */
	work_done_fn	 done;
	void		*arg;
	int		 tries;		/* after a 429 */
};

enum carrier_state {
	CS_DOWN = 0,		/* not running */
	CS_START,		/* started, no hello yet */
	CS_IDLE,		/* sandboxed, no call */
	CS_CONNECT,		/* connecting for cur */
	CS_BUSY,		/* cur sent, no answer yet */
	CS_WAIT			/* cur waits out a Retry-After */
};

struct carrier {
	const struct kind_desc *d;
	struct session	*s;
	struct child	 ch;
	char		 tag[48];
	/* its credential: open files, and for Slack the channel names */
	int		 fds[BNC_WORK_CHANNELS_MAX];
	const char	*chans[BNC_WORK_CHANNELS_MAX];
	size_t		 nfds;
	const char	*api_base;	/* NULL: the vendor's */
	enum carrier_state state;
	int		 starts;
	struct work_call *cur;		/* in flight */
	struct work_call *q, **qtail;	/* waiting */
	size_t		 nq;
	uint32_t	 call_id;	/* the frame id of cur */
	int		 conn;		/* the socket being connected */
	struct event	*conn_ev;
	struct event	*timer;		/* hello, call or Retry-After */
};

struct carriers {
	struct carrier	 c[WORK_KINDS];
};

static void	kick(struct carrier *);

static void
carrier_log_state(const struct carrier *c, const char *what)
{
	debug("%s: %s", c->tag, what);
}

/* ---- credentials ---------------------------------------------------- */

/* An open credential file: a regular file, no larger than the bound. */
static int
open_credential(const char *path, int *fdp, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > BNC_CARRIER_CREDENTIAL_MAX) {
		snprintf(err, errlen, "%s: not a regular file of at most %d "
		    "bytes", path, BNC_CARRIER_CREDENTIAL_MAX);
		close(fd);
		return -1;
	}
	*fdp = fd;
	return 0;
}

/*
 * Reads one credential file from its start into guarded memory at
 * buf + *off, without its trailing newlines.  0, or -1 with err.
 */
static int
read_credential(int fd, char *buf, size_t cap, size_t *off, char *err,
    size_t errlen)
{
	ssize_t n;
	size_t got = 0;

	for (;;) {
		if (*off + got >= cap) {
			snprintf(err, errlen, "credential over %d bytes",
			    BNC_CARRIER_CREDENTIAL_MAX);
			return -1;
		}
		n = pread(fd, buf + *off + got, cap - *off - got,
		    (off_t)got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			snprintf(err, errlen, "credential: %s",
			    strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	while (got > 0 && (buf[*off + got - 1] == '\n' ||
	    buf[*off + got - 1] == '\r'))
		got--;
	if (got == 0 || memchr(buf + *off, '\n', got) != NULL ||
	    memchr(buf + *off, '\0', got) != NULL) {
		snprintf(err, errlen, "credential file is empty or not one "
		    "line");
		return -1;
	}
	*off += got;
	return 0;
}

/*
 * The bytes a carrier reads on fd 4, into a pipe: its token, or for
 * Slack one "CHANNEL<TAB>WEBHOOK-URL" line per channel.  Returns the
 * pipe's read end, or -1 with err.  The guarded copy is wiped on every
 * path.
 */
static int
credential_pipe(struct carrier *c, char *err, size_t errlen)
{
	size_t cap = BNC_CARRIER_CREDENTIAL_MAX, off = 0, i, n;
	char *buf;
	int p[2] = { -1, -1 }, r = -1;
	ssize_t w;

	if ((buf = sodium_malloc(cap)) == NULL) {
		snprintf(err, errlen, "no guarded memory for a credential");
		return -1;
	}
	for (i = 0; i < c->nfds; i++) {
		if (c->chans[i] != NULL) {
			n = strlen(c->chans[i]);
			if (off + n + 1 >= cap) {
				snprintf(err, errlen, "webhooks over %d bytes",
				    BNC_CARRIER_CREDENTIAL_MAX);
				goto out;
			}
			memcpy(buf + off, c->chans[i], n);
			off += n;
			buf[off++] = '\t';
		}
		if (read_credential(c->fds[i], buf, cap - 1, &off, err,
		    errlen) != 0)
			goto out;
		if (c->chans[i] != NULL)
			buf[off++] = '\n';
	}
	/* at most BNC_CARRIER_CREDENTIAL_MAX bytes: a pipe takes them whole */
	if (pipe2(p, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < off; i += (size_t)w) {
		if ((w = write(p[1], buf + i, off - i)) == -1) {
			if (errno == EINTR) {
				w = 0;
				continue;
			}
			snprintf(err, errlen, "credential pipe: %s",
			    strerror(errno));
			goto out;
		}
	}
	r = p[0];
	p[0] = -1;
 out:
	sodium_free(buf);	/* wipes it */
	if (p[0] != -1)
		close(p[0]);
	if (p[1] != -1)
		close(p[1]);
	return r;
}

int
carriers_open(struct session *s, const struct config *cf, char *err,
    size_t errlen)
{
	struct carriers *w;
	struct carrier *c;
	const char *one[WORK_KINDS] = {
		cf->notion.read_token_file, cf->notion.comment_token_file,
		cf->github.token_file, NULL,
		cf->notion.read_token_file, cf->notion.comment_token_file
	};
	const char *base[WORK_KINDS] = {
		cf->notion.api_base, cf->notion.api_base,
		cf->github.api_base, cf->slack.api_base,
		cf->notion.api_base, cf->notion.api_base
	};
	size_t i, k;

	w = xcalloc(1, sizeof(*w));
	s->carriers = w;
	for (k = 0; k < WORK_KINDS; k++) {
		c = &w->c[k];
		c->d = &kinds[k];
		c->s = s;
		c->conn = -1;
		c->qtail = &c->q;
		c->api_base = base[k];
		snprintf(c->tag, sizeof(c->tag), "carrier %s", c->d->name);
		c->ch.kind = CHILD_CARRIER;
		c->ch.tag = c->tag;
		c->ch.sock = -1;
		c->ch.owner = c;
		if (one[k] != NULL) {
			if (open_credential(one[k], &c->fds[0], err,
			    errlen) != 0)
				return -1;
			c->nfds = 1;
		}
	}
	c = &w->c[WORK_SLACK];
	if (cf->slack.nchannels > BNC_WORK_CHANNELS_MAX) {
		snprintf(err, errlen, "more than %d Slack channels",
		    BNC_WORK_CHANNELS_MAX);
		return -1;
	}
	for (i = 0; i < cf->slack.nchannels; i++) {
		if (open_credential(cf->slack.channels[i].webhook_file,
		    &c->fds[i], err, errlen) != 0)
			return -1;
		c->chans[i] = cf->slack.channels[i].name;
		c->nfds++;
	}
	return 0;
}

int
carriers_configured(const struct session *s, enum work_kind k)
{
	return s->carriers != NULL && k < WORK_KINDS &&
	    s->carriers->c[k].nfds > 0;
}

/* ---- calls ---------------------------------------------------------- */

static void
call_end(struct carrier *c, struct work_call *wc,
    const struct msg_carrier_result *res, const char *err)
{
	wc->done(c->s, wc->arg, res, err);
	value_free(wc->args);
	free(wc->method);
	free(wc->path);
	free(wc);
	/* the drain may have waited for it */
	session_event(c->s, SEV_SETTLED);
}

/* Every waiting call fails with why (the carrier cannot be had). */
static void
fail_queue(struct carrier *c, const char *why)
{
	struct work_call *wc;

	while ((wc = c->q) != NULL) {
		c->q = wc->next;
		c->nq--;
		call_end(c, wc, NULL, why);
	}
	c->qtail = &c->q;
}

static void
fail_cur(struct carrier *c, const char *why)
{
	struct work_call *wc;

	if ((wc = c->cur) == NULL)
		return;
	c->cur = NULL;
	call_end(c, wc, NULL, why);
}

static void
stop_timer(struct carrier *c)
{
	if (c->timer != NULL)
		evtimer_del(c->timer);
}

static void carrier_timeout(evutil_socket_t, short, void *);

static void
start_timer(struct carrier *c, int seconds)
{
	struct timeval tv = { seconds, 0 };

	if (c->timer == NULL &&
	    (c->timer = evtimer_new(c->s->base, carrier_timeout, c)) == NULL)
		fatal("evtimer_new");
	evtimer_add(c->timer, &tv);
}

static void
close_conn(struct carrier *c)
{
	if (c->conn_ev != NULL) {
		event_free(c->conn_ev);
		c->conn_ev = NULL;
	}
	if (c->conn != -1) {
		close(c->conn);
		c->conn = -1;
	}
}

/* A carrier that must go: killed; its exit (exited()) does the rest. */
static void
carrier_kill(struct carrier *c)
{
	if (c->ch.pid > 0)
		kill(c->ch.pid, SIGKILL);
	child_close(&c->ch);
}

static void
carrier_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct carrier *c = arg;
	char why[256];

	(void)fd;
	(void)what;
	switch (c->state) {
	case CS_START:
		error("%s: no hello within %d s", c->tag, BNC_HELLO_TIMEOUT_S);
		carrier_kill(c);
		break;
	case CS_CONNECT:
	case CS_BUSY:
		snprintf(why, sizeof(why), "the %s carrier did not answer "
		    "within %d s; whether the call reached %s is unknown",
		    c->d->name, BNC_CARRIER_CALL_TIMEOUT_S, c->d->vendor);
		error("%s: %s", c->tag, why);
		close_conn(c);
		fail_cur(c, why);
		carrier_kill(c);
		break;
	case CS_WAIT:
		/* Retry-After is over: the same call, a new connection */
		c->state = CS_IDLE;
		kick(c);
		break;
	default:
		break;
	}
}

/* ---- starting ------------------------------------------------------- */

static void carrier_exited(struct child *, int);
static void carrier_hello(struct child *, struct frame_msg *);
static void carrier_result(struct child *, struct frame_msg *);

static const struct child_frame carrier_frames[] = {
	{ MSG_HELLO,		CHILD_P_HELLO,	carrier_hello },
	{ MSG_LOG,		CHILD_P_RUN,	child_log },
	{ MSG_CARRIER_RESULT,	CHILD_P_RUN,	carrier_result },
};

static int
carrier_start(struct carrier *c, char *why, size_t whylen)
{
	char *argv[8], bin[64], mode[16], base[BNC_PATH_MAX];
	char err[256];
	int fd, i = 0, r;

	if (c->starts > BNC_CARRIER_RESTARTS_MAX) {
		snprintf(why, whylen, "the %s carrier failed %d times in this "
		    "session and is not started again", c->d->name,
		    c->starts);
		return -1;
	}
	if ((fd = credential_pipe(c, err, sizeof(err))) == -1) {
		snprintf(why, whylen, "the %s carrier cannot start: %s",
		    c->d->name, err);
		return -1;
	}
	/* argv is not const (execve's): the strings are copied */
	snprintf(bin, sizeof(bin), "%s", c->d->binary);
	argv[i++] = bin;
	if (c->d->mode != NULL) {
		snprintf(mode, sizeof(mode), "%s", c->d->mode);
		argv[i++] = "-m";
		argv[i++] = mode;
	}
	if (c->api_base != NULL) {
		snprintf(base, sizeof(base), "%s", c->api_base);
		argv[i++] = "-b";
		argv[i++] = base;
	}
	argv[i] = NULL;
	c->ch.frames = carrier_frames;
	c->ch.nframes = sizeof(carrier_frames) / sizeof(carrier_frames[0]);
	c->ch.exited = carrier_exited;
	r = child_spawn_carrier(&c->ch, argv, fd);
	close(fd);
	if (r != 0) {
		snprintf(why, whylen, "the %s carrier cannot start (%s)",
		    c->d->name, bnc_err(r));
		return -1;
	}
	c->starts++;
	c->state = CS_START;
	start_timer(c, BNC_HELLO_TIMEOUT_S);
	carrier_log_state(c, "started");
	return 0;
}

static void
carrier_hello(struct child *ch, struct frame_msg *m)
{
	struct carrier *c = ch->owner;

	child_hello(ch, m, c->d->role);
	stop_timer(c);
	c->state = CS_IDLE;
	kick(c);
}

static void
carrier_exited(struct child *ch, int status)
{
	struct carrier *c = ch->owner;
	char desc[128], why[256];

	child_describe(status, desc, sizeof(desc));
	stop_timer(c);
	close_conn(c);
	child_forget(ch);
	c->state = CS_DOWN;
	if (c->cur != NULL) {
		snprintf(why, sizeof(why), "the %s carrier %s during the "
		    "call; whether it reached %s is unknown", c->d->name,
		    desc, c->d->vendor);
		error("%s: %s", c->tag, why);
		fail_cur(c, why);
	} else if (c->s->exit_code == 0)
		verbose("%s %s", c->tag, desc);
	kick(c);
}

/* ---- connecting ----------------------------------------------------- */

/* 1 if sa is a loopback address. */
static int
is_loopback(const struct sockaddr *sa)
{
	const struct sockaddr_in *a4;
	const struct sockaddr_in6 *a6;

	if (sa->sa_family == AF_INET) {
		a4 = (const struct sockaddr_in *)(const void *)sa;
		return (ntohl(a4->sin_addr.s_addr) >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6) {
		a6 = (const struct sockaddr_in6 *)(const void *)sa;
		return IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr);
	}
	return 0;
}

/*
 * Where a carrier's requests go: the vendor's host on 443, or a loopback
 * api_base ("http://HOST:PORT", which conffile.c checked; checked again
 * here, as DESIGN 2 asks of the monitor too).  0 with host and port, or
 * -1 with why.
 */
static int
target(const struct carrier *c, char *host, size_t hostlen, char *port,
    size_t portlen, char *why, size_t whylen)
{
	const char *p, *e;

	if (c->api_base == NULL) {
		snprintf(host, hostlen, "%s", c->d->host);
		snprintf(port, portlen, "%d", WORK_HTTPS_PORT);
		return 0;
	}
	if (!config_api_base_ok(c->api_base))
		goto bad;
	p = c->api_base + strlen("http://");
	if (*p == '[') {
		if ((e = strchr(p, ']')) == NULL || e[1] != ':')
			goto bad;
		snprintf(host, hostlen, "%.*s", (int)(e - p - 1), p + 1);
		p = e + 2;
	} else {
		if ((e = strchr(p, ':')) == NULL)
			goto bad;
		snprintf(host, hostlen, "%.*s", (int)(e - p), p);
		p = e + 1;
	}
	snprintf(port, portlen, "%.*s", (int)strspn(p, "0123456789"), p);
	return 0;
 bad:
	snprintf(why, whylen, "the %s api_base is not a loopback address",
	    c->d->name);
	return -1;
}

static void send_cur(struct carrier *);

static void
connected(evutil_socket_t fd, short what, void *arg)
{
	struct carrier *c = arg;
	socklen_t len = sizeof(int);
	char why[256];
	int e = 0;

	(void)fd;
	(void)what;
	if (getsockopt(c->conn, SOL_SOCKET, SO_ERROR, &e, &len) == -1)
		e = errno;
	if (e != 0) {
		snprintf(why, sizeof(why), "cannot connect to %s: %s; "
		    "nothing was sent", c->d->name, strerror(e));
		close_conn(c);
		stop_timer(c);
		c->state = CS_IDLE;
		fail_cur(c, why);
		kick(c);
		return;
	}
	event_free(c->conn_ev);
	c->conn_ev = NULL;
	send_cur(c);
}

/* Starts connecting for cur: 0, or -1 with why (nothing sent). */
static int
connect_cur(struct carrier *c, char *why, size_t whylen)
{
	struct addrinfo hints, *res = NULL, *ai;
	char host[256], port[8];
	int fd = -1, one = 1, r;

	if (target(c, host, sizeof(host), port, sizeof(port), why,
	    whylen) != 0)
		return -1;
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	/* a blocking look-up: the vendors' names, or loopback ones */
	if ((r = getaddrinfo(host, port, &hints, &res)) != 0) {
		snprintf(why, whylen, "cannot resolve %s: %s; nothing was "
		    "sent", host, gai_strerror(r));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if (c->api_base != NULL && !is_loopback(ai->ai_addr)) {
			snprintf(why, whylen, "the %s api_base %s resolves to "
			    "an address that is not loopback; nothing was "
			    "sent", c->d->name, host);
			goto fail;
		}
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, ai->ai_protocol);
		if (fd == -1)
			continue;
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
		    sizeof(one));
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 ||
		    errno == EINPROGRESS)
			break;
		close(fd);
		fd = -1;
	}
	if (fd == -1) {
		snprintf(why, whylen, "cannot connect to %s port %s: %s; "
		    "nothing was sent", host, port, strerror(errno));
		goto fail;
	}
	freeaddrinfo(res);
	c->conn = fd;
	c->conn_ev = event_new(c->s->base, fd, EV_WRITE, connected, c);
	if (c->conn_ev == NULL || event_add(c->conn_ev, NULL) == -1)
		fatal("event_new");
	c->state = CS_CONNECT;
	start_timer(c, BNC_CARRIER_CALL_TIMEOUT_S);
	return 0;
 fail:
	freeaddrinfo(res);
	return -1;
}

static void
send_cur(struct carrier *c)
{
	struct msg_carrier_call m;
	struct msg_carrier_probe pr;
	struct buf *b = buf_new();
	char why[256];
	int r;

	if (c->cur->ep == 0) {
		/* a probe: no socket, and so no network */
		pr.method = c->cur->method;
		pr.path = c->cur->path;
		if ((r = msg_carrier_probe_put(b, &pr)) == 0) {
			c->call_id++;
			r = child_send_fd(&c->ch, MSG_CARRIER_PROBE,
			    c->call_id, b, -1);
		}
		buf_free(b);
		if (r != 0) {
			snprintf(why, sizeof(why), "the probe cannot be put "
			    "to the %s carrier", c->d->name);
			c->state = CS_IDLE;
			fail_cur(c, why);
			kick(c);
			return;
		}
		c->state = CS_BUSY;
		start_timer(c, BNC_CARRIER_CALL_TIMEOUT_S);
		return;
	}
	m.endpoint = c->cur->ep;
	m.args = c->cur->args;
	if ((r = msg_carrier_call_put(b, &m)) != 0) {
		buf_free(b);
		snprintf(why, sizeof(why), "the call cannot be put to the "
		    "%s carrier (%s); nothing was sent", c->d->name,
		    bnc_err(r));
		close_conn(c);
		stop_timer(c);
		c->state = CS_IDLE;
		fail_cur(c, why);
		kick(c);
		return;
	}
	c->call_id++;
	/* the socket goes to the carrier: ours is closed once it is sent */
	r = child_send_fd(&c->ch, MSG_CARRIER_CALL, c->call_id, b, c->conn);
	c->conn = -1;
	buf_free(b);
	if (r != 0) {
		snprintf(why, sizeof(why), "no room to send the call to the "
		    "%s carrier; nothing was sent", c->d->name);
		stop_timer(c);
		c->state = CS_IDLE;
		fail_cur(c, why);
		kick(c);
		return;
	}
	c->state = CS_BUSY;
}

/* Moves the carrier on: starts it, or sends the next call. */
static void
kick(struct carrier *c)
{
	char why[BNC_REASON_MAX];

	for (;;) {
		switch (c->state) {
		case CS_DOWN:
			if (c->cur == NULL && c->q == NULL)
				return;
			if (carrier_start(c, why, sizeof(why)) != 0) {
				error("%s: %s", c->tag, why);
				fail_cur(c, why);
				fail_queue(c, why);
			}
			return;
		case CS_IDLE:
			if (c->cur == NULL) {
				if (c->q == NULL)
					return;
				c->cur = c->q;
				if ((c->q = c->cur->next) == NULL)
					c->qtail = &c->q;
				c->cur->next = NULL;
				c->nq--;
			}
			if (c->cur->ep == 0) {
				send_cur(c);
				return;
			}
			if (connect_cur(c, why, sizeof(why)) == 0)
				return;
			error("%s: %s", c->tag, why);
			fail_cur(c, why);
			break;
		default:
			return;
		}
	}
}

/* ---- answers -------------------------------------------------------- */

static void
carrier_result(struct child *ch, struct frame_msg *fm)
{
	struct carrier *c = ch->owner;
	struct msg_carrier_result res;
	struct work_call *wc;
	int r;

	if ((r = msg_carrier_result_get(fm->payload, &res,
	    BNC_CARRIER_RESULT_MAX)) != 0)
		fatal_r(r, "%s: bad result", c->tag);
	if (c->state != CS_BUSY || c->cur == NULL || fm->id != c->call_id)
		fatal("%s: a result for no call in flight", c->tag);
	stop_timer(c);
	wc = c->cur;
	if (res.status == CARRIER_RATE &&
	    wc->tries < BNC_CARRIER_RETRIES_MAX &&
	    res.retry_after <= BNC_CARRIER_WAIT_MAX_S) {
		/* refused, not done: the same call after Retry-After */
		wc->tries++;
		logit("%s: rate limited; trying again in %u s", c->tag,
		    res.retry_after);
		c->state = CS_WAIT;
		start_timer(c, res.retry_after > 0 ? (int)res.retry_after :
		    1);
		msg_carrier_result_free(&res);
		return;
	}
	c->cur = NULL;
	c->state = CS_IDLE;
	call_end(c, wc, &res, NULL);
	msg_carrier_result_free(&res);
	kick(c);
}

static void
enqueue(struct session *s, enum work_kind k, struct work_call *wc)
{
	struct carrier *c;
	char why[256];

	if (!carriers_configured(s, k)) {
		snprintf(why, sizeof(why), "no %s credential is configured "
		    "(bouncer.yaml work:)", k < WORK_KINDS ?
		    kinds[k].name : "such");
		wc->done(s, wc->arg, NULL, why);
		value_free(wc->args);
		free(wc->method);
		free(wc->path);
		free(wc);
		return;
	}
	c = &s->carriers->c[k];
	if (c->nq >= BNC_CARRIER_QUEUE_MAX) {
		snprintf(why, sizeof(why), "%d calls already wait for the %s "
		    "carrier", BNC_CARRIER_QUEUE_MAX, c->d->name);
		call_end(c, wc, NULL, why);
		return;
	}
	*c->qtail = wc;
	c->qtail = &wc->next;
	c->nq++;
	kick(c);
}

void
carriers_call(struct session *s, enum work_kind k, uint16_t ep,
    struct value *args, work_done_fn done, void *arg)
{
	struct work_call *wc;

	wc = xcalloc(1, sizeof(*wc));
	wc->ep = ep;
	wc->args = args;
	wc->done = done;
	wc->arg = arg;
	enqueue(s, k, wc);
}

void
carriers_probe(struct session *s, enum work_kind k, const char *method,
    const char *path, work_done_fn done, void *arg)
{
	struct work_call *wc;

	wc = xcalloc(1, sizeof(*wc));
	wc->method = xstrdup(method);
	wc->path = xstrdup(path);
	wc->done = done;
	wc->arg = arg;
	enqueue(s, k, wc);
}

const char *
carriers_name(enum work_kind k)
{
	return k < WORK_KINDS ? kinds[k].name : "none";
}

int
carriers_busy(const struct session *s)
{
	size_t k;

	if (s->carriers == NULL)
		return 0;
	for (k = 0; k < WORK_KINDS; k++)
		if (s->carriers->c[k].cur != NULL ||
		    s->carriers->c[k].q != NULL)
			return 1;
	return 0;
}

void
carriers_close(struct session *s)
{
	struct carrier *c;
	size_t k, i;

	if (s->carriers == NULL)
		return;
	for (k = 0; k < WORK_KINDS; k++) {
		c = &s->carriers->c[k];
		close_conn(c);
		stop_timer(c);
		fail_cur(c, "the session ended");
		fail_queue(c, "the session ended");
		/* EOF on its socket tells it to go */
		child_close(&c->ch);
		for (i = 0; i < c->nfds; i++)
			close(c->fds[i]);
		c->nfds = 0;
	}
}
