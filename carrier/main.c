/*
 * main.c - a carrier's life, common to the three programs (DESIGN 2, 8).
 *
 *   bouncer-carrier-notion -m read|comment|audit [-b BASE] [-d]
 *   bouncer-carrier-github [-b BASE] [-d]
 *   bouncer-carrier-slack [-b BASE] [-d]
 *
 * fd 3 is the monitor's SEQPACKET socket, fd 4 the credential (read to
 * its end and closed).  Set-up, in this order: the credential into
 * guarded memory, the CA bundle (for the vendor's https base), libcurl,
 * the request-line patterns, the transfer loop; then the sandbox, then
 * MSG_HELLO; then one frame at a time: MSG_CARRIER_CALL (with the
 * socket the monitor connected) or MSG_CARRIER_PROBE, each answered by
 * one MSG_CARRIER_RESULT under the same frame id.  EOF on fd 3 ends the
 * carrier with status 0; a frame out of protocol ends it with 1.
 *
 * A carrier never connects, never opens a file after set-up, never
 * retries, and never sends its credential anywhere but in the request
 * its table allows.  Its logs travel to the monitor in MSG_LOG frames.
 */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "answer.h"
#include "base.h"
#include "bounds.h"
#include "buf.h"
#include "call.h"
#include "carrier.h"
#include "credential.h"
#include "err.h"
#include "frame.h"
#include "http.h"
#include "log.h"
#include "msg.h"
#include "probe.h"
#include "reqline.h"
#include "sandbox.h"
#include "value.h"
#include "work.h"

/* Descriptors probed for the sandbox's RLIMIT_NOFILE (see nfds()). */
#define CARRIER_FD_SCAN		64

#ifdef CARRIER_TEST_CA
/*
 * Tests only (regress/carrier-tls.sh): -C FILE reads another CA bundle,
 * so that TLS can be shown to work, and fail, against a local server
 * with a test CA.  regress/linker.sh checks that no shipped carrier has
 * this symbol, and so this option.
 */
#define CARRIER_OPTS	"b:C:dm:"
const int carrier_test_ca_build = 1;
static const char *test_ca;
#else
#define CARRIER_OPTS	"b:dm:"
#endif

static const struct carrier_service *svc;
static const char *progname = "bouncer-carrier";
static uint32_t seq;		/* id of our next hello or log frame */
static int hello_sent;

/*
 * The monitor is gone: so is the session.  _exit, not exit: nothing is
 * buffered, and the libraries' exit handlers (OpenSSL's) would make
 * calls the sandbox has no reason to allow.
 */
static void __attribute__((noreturn))
carrier_exit(void)
{
	_exit(0);
}

static void __attribute__((noreturn))
usage(const struct carrier_service *const *svcs, size_t n)
{
	size_t i;

	fprintf(stderr, "usage: %s ", progname);
	if (svcs[0]->mode != NULL) {
		fprintf(stderr, "-m ");
		for (i = 0; i < n; i++)
			fprintf(stderr, "%s%s", i > 0 ? "|" : "",
			    svcs[i]->mode);
		fprintf(stderr, " ");
	}
	fprintf(stderr, "[-b http://127.0.0.1:PORT] [-d]\n");
	exit(1);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

/* Log lines travel to the monitor once it has our hello. */
static void
log_to_monitor(enum bnc_loglevel level, const char *line, void *ctx)
{
	static int busy;
	struct msg_log m;
	struct buf *b;
	char cut[BNC_LOG_LINE_MAX + 1];
	size_t n;

	(void)ctx;
	if (busy || !hello_sent)
		return;
	busy = 1;
	if ((n = strlen(line)) > BNC_LOG_LINE_MAX) {
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
	/* a line that cannot be sent is lost, never retried */
	if (msg_log_put(b, &m) == 0)
		(void)frame_send(BNC_CHILD_FD, MSG_LOG, seq++, b, -1);
	buf_free(b);
	busy = 0;
}

/* fd 3 must be the monitor's socket before anything else is done. */
static void
check_channel(void)
{
	socklen_t len;
	int type = 0, domain = 0;

	len = sizeof(type);
	if (getsockopt(BNC_CHILD_FD, SOL_SOCKET, SO_TYPE, &type, &len) == -1 ||
	    type != SOCK_SEQPACKET)
		die("fd %d is not the monitor's seqpacket socket",
		    BNC_CHILD_FD);
	len = sizeof(domain);
	if (getsockopt(BNC_CHILD_FD, SOL_SOCKET, SO_DOMAIN, &domain,
	    &len) == -1 || domain != AF_UNIX)
		die("fd %d is not a unix socket", BNC_CHILD_FD);
}

static int
ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a;
	uintptr_t y = (uintptr_t)*(void *const *)b;

	return (x > y) - (x < y);
}

/*
 * What libc does once, on first use, done before the filter so that the
 * allowlist need not carry it: glibc's qsort sizes its scratch space
 * with sysconf(_SC_PHYS_PAGES), i.e. sysinfo(2), on its first large
 * sort; and its first gmtime_r() (OpenSSL's, checking a certificate's
 * dates) reads the time zone, /etc/localtime with TZ cleared.
 */
static void
libc_warmup(void)
{
	void *v[512];
	size_t i;

	tzset();

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		v[i] = (void *)(uintptr_t)(sizeof(v) / sizeof(v[0]) - i);
	qsort(v, sizeof(v) / sizeof(v[0]), sizeof(v[0]), ptr_cmp);
}

/*
 * RLIMIT_NOFILE for the sandbox: one past the highest descriptor held
 * (0-3 and libcurl's wake-up pair), plus one for the socket of a call,
 * which arrives in a frame and must fit under the limit.
 */
static int
sandbox_nfds(void)
{
	int fd, high = BNC_CHILD_FD;

	for (fd = BNC_CHILD_FD + 1; fd < CARRIER_FD_SCAN; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			high = fd;
	return high + 2;
}

/* Sends a result; one the codec or its cap refuses becomes a plain
 * CARRIER_BAD_RESPONSE, so the monitor always gets its answer. */
static void
send_result(uint32_t id, struct msg_carrier_result *res)
{
	struct msg_carrier_result bad;
	struct buf *b = buf_new();
	int r;

	if ((r = msg_carrier_result_put(b, res)) != 0 ||
	    buf_len(b) > msg_type_cap(MSG_CARRIER_RESULT, 0)) {
		error("result of frame %u cannot be sent (%s, %zu bytes)",
		    id, r != 0 ? bnc_err(r) : "too large", buf_len(b));
		memset(&bad, 0, sizeof(bad));
		bad.status = CARRIER_BAD_RESPONSE;
		bad.sent = res->sent;
		bad.http_status = res->http_status;
		bad.code = "too-large";
		bad.message = "the answer's fields do not fit a result";
		buf_reset(b);
		if ((r = msg_carrier_result_put(b, &bad)) != 0)
			fatal_r(r, "encode a bad-response result");
	}
	if ((r = frame_send(BNC_CHILD_FD, MSG_CARRIER_RESULT, id, b, -1)) ==
	    -BNC_ERR_EOF)
		carrier_exit();
	if (r != 0)
		fatal_r(r, "send result");
	buf_free(b);
}

static void
handle(struct frame_msg *fm)
{
	struct msg_carrier_result res;
	struct msg_carrier_call call;
	struct msg_carrier_probe probe;
	int fd, r;

	memset(&res, 0, sizeof(res));
	switch (fm->type) {
	case MSG_CARRIER_CALL:
		if (fm->fd == -1)
			fatal("carrier-call frame without a socket");
		if ((r = msg_carrier_call_get(fm->payload, &call)) != 0)
			fatal_r(r, "decode carrier-call");
		fd = fm->fd;
		fm->fd = -1;
		debug("frame %u: endpoint %u", fm->id,
		    (unsigned int)call.endpoint);
		call_run(svc, call.endpoint, call.args, fd, &res);
		msg_carrier_call_free(&call);
		break;
	case MSG_CARRIER_PROBE:
		if (fm->fd != -1)
			fatal("carrier-probe frame with a descriptor");
		if ((r = msg_carrier_probe_get(fm->payload, &probe)) != 0)
			fatal_r(r, "decode carrier-probe");
		probe_run(svc, probe.method, probe.path, &res);
		msg_carrier_probe_free(&probe);
		break;
	default:
		fatal("unexpected %s frame", msg_type_name(fm->type));
	}
	debug("frame %u: status %u, code \"%s\", http %u", fm->id,
	    (unsigned int)res.status, res.code != NULL ? res.code : "",
	    (unsigned int)res.http_status);
	send_result(fm->id, &res);
	msg_carrier_result_free(&res);
}

static void __attribute__((noreturn))
serve(void)
{
	struct frame_rx rx;
	struct frame_msg fm;
	struct pollfd pfd;
	int r;

	frame_rx_init(&rx, MSG_DIR_MONITOR_TO_CARRIER, BNC_CARRIER_CALL_MAX);
	for (;;) {
		pfd.fd = BNC_CHILD_FD;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, -1) == -1) {
			if (errno == EINTR)
				continue;
			fatal("poll: %s", strerror(errno));
		}
		memset(&fm, 0, sizeof(fm));
		fm.fd = -1;
		r = frame_recv(BNC_CHILD_FD, &rx, &fm);
		if (r == -BNC_ERR_AGAIN || r == 0)
			continue;
		/* the monitor is gone: so is the session */
		if (r == -BNC_ERR_EOF || (r == -BNC_ERR_SYS &&
		    (errno == ECONNRESET || errno == EPIPE)))
			carrier_exit();
		if (r < 0)
			fatal_r(r, "frame from monitor");
		handle(&fm);
		frame_msg_clear(&fm);
	}
}

int
carrier_main(int argc, char **argv, const struct carrier_service *const *svcs,
    size_t nsvcs)
{
	static char tag[64];
	enum bnc_loglevel level = LOG_LEVEL_INFO;
	struct carrier_base base;
	struct msg_hello hello;
	struct sb_status st;
	struct buf *b;
	const char *mode = NULL, *baseopt = NULL, *why, *p;
	char err[256];
	size_t i;
	int ch, r;

	/*
	 * Not dumpable before anything else: exec made this process
	 * dumpable, and the credential waits on fd 4.  Until the sandbox,
	 * any process of the same user (an upstream server) could open
	 * /proc/PID/fd/4 and read it, or read it out of this memory.
	 */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1)
		die("prctl(PR_SET_DUMPABLE): %s", strerror(errno));
	/* a dead peer is an error to report, not a death */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	if (argc > 0 && argv[0] != NULL)
		progname = (p = strrchr(argv[0], '/')) != NULL ? p + 1 :
		    argv[0];
	log_init(progname, LOG_LEVEL_INFO);

	while ((ch = getopt(argc, argv, CARRIER_OPTS)) != -1) {
		switch (ch) {
#ifdef CARRIER_TEST_CA
		case 'C':
			test_ca = optarg;
			break;
#endif
		case 'b':
			baseopt = optarg;
			break;
		case 'd':
			/* -d debug1, -dd debug2, -ddd debug3 */
			level = level < LOG_LEVEL_DEBUG1 ? LOG_LEVEL_DEBUG1 :
			    level < LOG_LEVEL_DEBUG3 ? level + 1 : level;
			break;
		case 'm':
			mode = optarg;
			break;
		default:
			usage(svcs, nsvcs);
		}
	}
	if (optind != argc)
		usage(svcs, nsvcs);
	for (i = 0; i < nsvcs; i++)
		if ((mode == NULL && svcs[i]->mode == NULL) ||
		    (mode != NULL && svcs[i]->mode != NULL &&
		    strcmp(mode, svcs[i]->mode) == 0))
			svc = svcs[i];
	if (svc == NULL)
		usage(svcs, nsvcs);
	if (baseopt == NULL)
		base_vendor(svc->host, &base);
	else if (base_parse(baseopt, &base, &why) != 0)
		die("-b %s: %s", baseopt, why);
#ifdef CARRIER_TEST_CA
	if (test_ca != NULL)
		base.ca = test_ca;
#endif
	snprintf(tag, sizeof(tag), "carrier:%s", svc->name);
	log_init(tag, level);

	/*
	 * Nothing of the environment reaches libcurl or OpenSSL: no proxy,
	 * no OPENSSL_CONF to load a module, no SSLKEYLOGFILE to write
	 * session keys to.
	 */
	if (clearenv() != 0)
		die("clearenv failed");
	check_channel();
	closefrom(BNC_CHILD_FD_FIRST_FREE);
	if (sodium_init() < 0)
		die("sodium_init failed");
	if (credential_load(svc->cred, err, sizeof(err)) != 0)
		die("%s", err);
	if (http_init(svc, &base, err, sizeof(err)) != 0)
		die("%s", err);
	if (reqline_init(svc->rlset, err, sizeof(err)) != 0)
		die("request-line patterns: %s", err);
	libc_warmup();

	memset(&st, 0, sizeof(st));
	if ((r = sandbox_apply(SB_PROFILE_CARRIER, sandbox_nfds(), &st)) != 0)
		fatal_r(r, "sandbox");

	memset(&hello, 0, sizeof(hello));
	hello.role = (uint8_t)svc->role;
	hello.sandbox = (uint8_t)st.seccomp;
	hello.pid = (uint32_t)getpid();
	hello.landlock_abi = (uint32_t)st.landlock_abi;
	b = buf_new();
	if ((r = msg_hello_put(b, &hello)) != 0)
		fatal_r(r, "encode hello");
	if ((r = frame_send(BNC_CHILD_FD, MSG_HELLO, seq++, b, -1)) ==
	    -BNC_ERR_EOF)
		carrier_exit();
	if (r != 0)
		fatal_r(r, "send hello");
	buf_free(b);
	hello_sent = 1;
	log_set_sink(log_to_monitor, NULL);
	debug("sandboxed: seccomp %d, landlock abi %d, base %s", st.seccomp,
	    st.landlock_abi, base.origin);
	serve();
}
