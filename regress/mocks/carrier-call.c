/*
 * carrier-call.c - plays the monitor to one carrier, for the scenarios.
 *
 *	carrier-call [-6] [-c CREDFILE] [-P PORT] [-t SECONDS] COMMAND... \
 *	    -- CARRIER [ARG ...]
 *	carrier-call -H -- CARRIER [ARG ...]
 *
 * Starts CARRIER with the monitor's fd layout (fd 3 a SEQPACKET socket
 * pair, fd 4 a pipe fed with CREDFILE, nothing above), waits for its
 * hello, runs the COMMANDs in order, closes fd 3 and waits for it to
 * exit.  Commands:
 *
 *	-e ID		call endpoint ID over a TCP socket connected to
 *			127.0.0.1:PORT (with -6, [::1]:PORT); the -a that
 *			follow are its arguments
 *	-a NAME=VALUE	an argument (NAME=@FILE: the file's bytes)
 *	-k PID		kill PID (a mock) right after the next call's
 *			socket is connected, and wait until it is dead
 *	-X		encode the next -e's call past the encoder's checks
 *			(a text over its cap), as a broken monitor might
 *	-p 'METHOD PATH' a probe (no socket)
 *	-s		the carrier's /proc status: Seccomp, NoNewPrivs
 *
 * Output, one JSON object a line: {"hello":{...}}, one line per command
 * ({"status":"ok|refused|api|rate|net|bad_response", "sent", "http_status",
 * "retry_after", "code", "message", "data"} or {"proc":{...}}), then
 * {"exit":N} or {"signal":N}.  The carrier's log frames go to stderr.
 * Exits 0 only if every command was answered and the carrier exited 0.
 *
 * -H holds fd 4 open and empty, so that the carrier waits in its read
 * and a scenario can look at it then (today's monitor fills the pipe
 * before the exec; see SECURITY.md on the window that leaves).  carrier-call prints
 * {"pid":N}, the carrier's, and waits until the carrier is gone (the
 * scenario kills it), then prints how it ended and exits 0.
 *
 * Test code, never installed; it only ever connects to 127.0.0.1.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bounds.h"
#include "buf.h"
#include "err.h"
#include "frame.h"
#include "msg.h"
#include "spawn.h"
#include "value.h"
#include "value-json.h"
#include "work.h"
#include "xmalloc.h"

#define CC_CMDS_MAX	64
#define CC_WAIT_MS	100	/* between looks at a dying process */

enum cmd_kind { CMD_CALL, CMD_PROBE, CMD_STATUS };

static struct cmd {
	enum cmd_kind	 kind;
	unsigned int	 endpoint;
	struct value	*args;
	char		*line;		/* a probe's "METHOD PATH" */
	pid_t		 kill;		/* a mock to kill, or 0 */
	int		 raw;		/* -X */
} cmds[CC_CMDS_MAX];
static int ncmds;

static int chan = -1;
static int ipv6;			/* -6: calls connect to ::1 */
static pid_t carrier_pid;
static uint32_t next_id = 1;
static int timeout_s = BNC_CARRIER_CALL_TIMEOUT_S + 5;
static int hold;			/* -H */

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "carrier-call: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	if (carrier_pid > 0)
		kill(carrier_pid, SIGKILL);
	exit(1);
}

static void
usage(void)
{
	fprintf(stderr, "usage: carrier-call [-6] [-c credfile] [-P port] "
	    "[-t seconds]\n\t[[-X] -e id [-a name=value]... [-k pid] | "
	    "-p 'METHOD PATH' | -s]... -- carrier [arg ...]\n"
	    "       carrier-call -H -- carrier [arg ...]\n");
	exit(2);
}

static char *
slurp(const char *path, size_t *lenp)
{
	struct buf *b = buf_new();
	char chunk[4096], *s;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY)) == -1)
		die("%s: %s", path, strerror(errno));
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		if (buf_put(b, chunk, (size_t)n) != 0)
			die("%s: too large", path);
	if (n == -1)
		die("%s: %s", path, strerror(errno));
	close(fd);
	*lenp = buf_len(b);
	s = xmalloc(*lenp + 1);
	memcpy(s, buf_ptr(b), *lenp);
	s[*lenp] = '\0';
	buf_free(b);
	return s;
}

static void
add_arg(const char *spec)
{
	struct cmd *c;
	const char *eq = strchr(spec, '=');
	char *name, *val;
	size_t len;

	if (ncmds == 0 || (c = &cmds[ncmds - 1])->kind != CMD_CALL ||
	    eq == NULL)
		usage();
	name = xstrndup(spec, (size_t)(eq - spec));
	if (eq[1] == '@')
		val = slurp(eq + 2, &len);
	else {
		val = xstrdup(eq + 1);
		len = strlen(val);
	}
	if (value_object_set(c->args, name, value_stringn(val, len)) != 0)
		die("argument %s twice", name);
	free(name);
	free(val);
}

static struct cmd *
new_cmd(enum cmd_kind kind)
{
	if (ncmds == CC_CMDS_MAX)
		die("too many commands");
	memset(&cmds[ncmds], 0, sizeof(cmds[ncmds]));
	cmds[ncmds].kind = kind;
	return &cmds[ncmds++];
}

/* The carrier's log lines, to stderr as the monitor would log them. */
static void
show_log(struct buf *payload)
{
	struct msg_log m;
	int r;

	if ((r = msg_log_get(payload, &m)) != 0)
		die("bad log frame: %s", bnc_err(r));
	fprintf(stderr, "carrier log: %s\n", m.line);
	msg_log_free(&m);
}

/*
 * The next frame of type want (logs shown on the way), within the
 * timeout; its payload is the caller's.
 */
static struct buf *
wait_frame(struct frame_rx *rx, uint16_t want, uint32_t *idp)
{
	struct frame_msg fm;
	struct pollfd pfd;
	time_t end = time(NULL) + timeout_s;
	int r;

	for (;;) {
		pfd.fd = chan;
		pfd.events = POLLIN;
		if (time(NULL) > end)
			die("no %s within %ds", msg_type_name(want), timeout_s);
		if (poll(&pfd, 1, 1000) <= 0)
			continue;
		memset(&fm, 0, sizeof(fm));
		fm.fd = -1;
		r = frame_recv(chan, rx, &fm);
		if (r == -BNC_ERR_AGAIN || r == 0)
			continue;
		if (r == -BNC_ERR_EOF)
			return NULL;
		if (r < 0)
			die("frame from the carrier: %s", bnc_err(r));
		if (fm.fd != -1)
			die("a frame from the carrier carries an fd");
		if (fm.type == MSG_LOG) {
			show_log(fm.payload);
			frame_msg_clear(&fm);
			continue;
		}
		if (fm.type != want)
			die("unexpected %s frame", msg_type_name(fm.type));
		*idp = fm.id;
		return fm.payload;
	}
}

static int
connect_mock(int port)
{
	struct sockaddr_in6 sin6;
	struct sockaddr_in sin;
	int fd, r;

	if ((fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM |
	    SOCK_CLOEXEC, 0)) == -1)
		die("socket: %s", strerror(errno));
	if (ipv6) {
		memset(&sin6, 0, sizeof(sin6));
		sin6.sin6_family = AF_INET6;
		sin6.sin6_port = htons((unsigned short)port);
		sin6.sin6_addr = in6addr_loopback;
		r = connect(fd, (struct sockaddr *)&sin6, sizeof(sin6));
	} else {
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons((unsigned short)port);
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		r = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	}
	if (r == -1)
		die("connect %s:%d: %s", ipv6 ? "[::1]" : "127.0.0.1", port,
		    strerror(errno));
	return fd;
}

/* Kills a mock and waits until it is gone (dead, or a zombie). */
static void
kill_mock(pid_t pid)
{
	char path[64], st[512], *p;
	FILE *f;
	int i;

	if (kill(pid, SIGKILL) == -1)
		die("kill %ld: %s", (long)pid, strerror(errno));
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	for (i = 0; i < 50; i++) {
		if ((f = fopen(path, "r")) == NULL)
			return;
		p = fgets(st, sizeof(st), f);
		fclose(f);
		if (p == NULL || ((p = strrchr(st, ')')) != NULL &&
		    (p[2] == 'Z' || p[2] == 'X')))
			return;
		usleep(CC_WAIT_MS * 1000);
	}
	die("%ld did not die", (long)pid);
}

static const char *const status_names[] = {
	[CARRIER_OK] = "ok",
	[CARRIER_REFUSED] = "refused",
	[CARRIER_API] = "api",
	[CARRIER_RATE] = "rate",
	[CARRIER_NET] = "net",
	[CARRIER_BAD_RESPONSE] = "bad_response",
};

static void
print_json(cJSON *o)
{
	char *s;

	if ((s = cJSON_PrintUnformatted(o)) == NULL)
		die("cannot print JSON");
	printf("%s\n", s);
	fflush(stdout);
	free(s);
	cJSON_Delete(o);
}

/* How the carrier ended: {"exit":N} or {"signal":N}. */
static void
print_end(int status)
{
	cJSON *o = cJSON_CreateObject();

	if (WIFEXITED(status))
		cJSON_AddNumberToObject(o, "exit", WEXITSTATUS(status));
	else
		cJSON_AddNumberToObject(o, "signal", WTERMSIG(status));
	print_json(o);
}

static void
print_result(struct buf *payload)
{
	struct msg_carrier_result res;
	cJSON *o, *d;
	int r;

	if ((r = msg_carrier_result_get(payload, &res,
	    BNC_MSG_MAX_DEFAULT)) != 0)
		die("bad result frame: %s", bnc_err(r));
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "status", res.status <
	    sizeof(status_names) / sizeof(status_names[0]) ?
	    status_names[res.status] : "?");
	cJSON_AddNumberToObject(o, "sent", res.sent);
	cJSON_AddNumberToObject(o, "http_status", res.http_status);
	cJSON_AddNumberToObject(o, "retry_after", res.retry_after);
	cJSON_AddStringToObject(o, "code", res.code);
	cJSON_AddStringToObject(o, "message", res.message);
	if (res.data != NULL) {
		if ((d = value_to_cjson(res.data)) == NULL)
			die("cannot render the data");
		cJSON_AddItemToObject(o, "data", d);
	} else
		cJSON_AddNullToObject(o, "data");
	print_json(o);
	msg_carrier_result_free(&res);
}

static void
print_proc(void)
{
	char path[64], line[256], *v;
	cJSON *o, *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)carrier_pid);
	if ((f = fopen(path, "r")) == NULL)
		die("%s: %s", path, strerror(errno));
	o = cJSON_CreateObject();
	p = cJSON_AddObjectToObject(o, "proc");
	cJSON_AddNumberToObject(p, "pid", carrier_pid);
	while (fgets(line, sizeof(line), f) != NULL) {
		if ((v = strchr(line, ':')) == NULL)
			continue;
		*v++ = '\0';
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = '\0';
		if (strcmp(line, "Seccomp") == 0 ||
		    strcmp(line, "NoNewPrivs") == 0)
			cJSON_AddStringToObject(p, line, v);
	}
	fclose(f);
	print_json(o);
}

static void
run_cmd(struct frame_rx *rx, struct cmd *c, int port)
{
	struct msg_carrier_call call;
	struct msg_carrier_probe probe;
	struct buf *b = buf_new(), *res;
	uint32_t id = next_id++, got;
	char *sp;
	int fd = -1, r;

	switch (c->kind) {
	case CMD_STATUS:
		print_proc();
		buf_free(b);
		return;
	case CMD_CALL:
		if (port == 0)
			die("-e needs -P");
		call.endpoint = (uint16_t)c->endpoint;
		call.args = c->args;
		if (c->raw)
			r = buf_put_u16(b, call.endpoint) != 0 ? -1 :
			    value_encode(b, call.args);
		else
			r = msg_carrier_call_put(b, &call);
		if (r != 0)
			die("encode call: %s", bnc_err(r));
		fd = connect_mock(port);
		if (c->kill > 0)
			kill_mock(c->kill);
		if ((r = frame_send(chan, MSG_CARRIER_CALL, id, b, fd)) != 0)
			die("send call: %s", bnc_err(r));
		close(fd);
		break;
	case CMD_PROBE:
		if ((sp = strchr(c->line, ' ')) == NULL)
			usage();
		*sp = '\0';
		probe.method = c->line;
		probe.path = sp + 1;
		if ((r = msg_carrier_probe_put(b, &probe)) != 0)
			die("encode probe: %s", bnc_err(r));
		if ((r = frame_send(chan, MSG_CARRIER_PROBE, id, b, -1)) != 0)
			die("send probe: %s", bnc_err(r));
		break;
	}
	buf_free(b);
	if ((res = wait_frame(rx, MSG_CARRIER_RESULT, &got)) == NULL)
		die("the carrier closed its socket without an answer");
	if (got != id)
		die("result under frame id %u, want %u", got, id);
	print_result(res);
	buf_free(res);
}

int
main(int argc, char **argv)
{
	struct spawn_spec spec;
	struct frame_rx rx;
	struct msg_hello hello;
	struct buf *b;
	cJSON *o, *h;
	const char *credfile = NULL;
	char *cred = NULL, *end;
	size_t credlen = 0, off = 0;
	ssize_t w;
	uint32_t id;
	int ch, i, port = 0, sv[2], cp[2], status, r, answered = 0, raw = 0;

	signal(SIGPIPE, SIG_IGN);
	while ((ch = getopt(argc, argv, "6a:c:e:Hk:p:P:st:X")) != -1) {
		switch (ch) {
		case '6':
			ipv6 = 1;
			break;
		case 'a':
			add_arg(optarg);
			break;
		case 'c':
			credfile = optarg;
			break;
		case 'e':
			new_cmd(CMD_CALL)->endpoint = (unsigned int)strtoul(
			    optarg, &end, 10);
			cmds[ncmds - 1].args = value_object();
			cmds[ncmds - 1].raw = raw;
			raw = 0;
			if (*end != '\0')
				usage();
			break;
		case 'H':
			hold = 1;
			break;
		case 'k':
			if (ncmds == 0 || cmds[ncmds - 1].kind != CMD_CALL)
				usage();
			cmds[ncmds - 1].kill = (pid_t)strtol(optarg, &end, 10);
			if (*end != '\0' || cmds[ncmds - 1].kill <= 0)
				usage();
			break;
		case 'p':
			new_cmd(CMD_PROBE)->line = xstrdup(optarg);
			break;
		case 'P':
			port = (int)strtol(optarg, &end, 10);
			if (*end != '\0' || port < 1 || port > 65535)
				usage();
			break;
		case 's':
			new_cmd(CMD_STATUS);
			break;
		case 'X':
			raw = 1;
			break;
		case 't':
			timeout_s = (int)strtol(optarg, &end, 10);
			if (*end != '\0' || timeout_s < 1)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind >= argc || (hold && (ncmds > 0 || credfile != NULL)))
		usage();
	if (credfile != NULL)
		cred = slurp(credfile, &credlen);

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1 ||
	    pipe2(cp, O_CLOEXEC) == -1)
		die("socketpair/pipe: %s", strerror(errno));
	spawn_spec_init(&spec);
	spec.path = argv[optind];
	spec.argv = argv + optind;
	spec.fd_in = SPAWN_DEVNULL;
	spec.fd_out = SPAWN_DEVNULL;
	spec.fd_chan = sv[1];
	spec.fd_extra = cp[0];
	if ((r = spawn_child(&spec, &carrier_pid)) != 0)
		die("spawn %s: %s", argv[optind], bnc_err(r));
	close(sv[1]);
	close(cp[0]);
	chan = sv[0];
	if (hold) {
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "pid", carrier_pid);
		print_json(o);
		if (waitpid(carrier_pid, &status, 0) == -1)
			die("waitpid: %s", strerror(errno));
		print_end(status);
		return 0;
	}
	/* the credential, then EOF; a carrier that died early is no error
	 * here: its exit status says what happened */
	while (off < credlen) {
		if ((w = write(cp[1], cred + off, credlen - off)) <= 0)
			break;
		off += (size_t)w;
	}
	close(cp[1]);
	free(cred);

	frame_rx_init(&rx, MSG_DIR_CARRIER_TO_MONITOR, BNC_MSG_MAX_DEFAULT);
	if ((b = wait_frame(&rx, MSG_HELLO, &id)) != NULL) {
		if ((r = msg_hello_get(b, &hello)) != 0)
			die("bad hello: %s", bnc_err(r));
		buf_free(b);
		o = cJSON_CreateObject();
		h = cJSON_AddObjectToObject(o, "hello");
		cJSON_AddNumberToObject(h, "role", hello.role);
		cJSON_AddNumberToObject(h, "sandbox", hello.sandbox);
		cJSON_AddNumberToObject(h, "pid", hello.pid);
		cJSON_AddNumberToObject(h, "landlock_abi",
		    hello.landlock_abi);
		print_json(o);
		for (i = 0; i < ncmds; i++)
			run_cmd(&rx, &cmds[i], port);
		answered = 1;
	}
	close(chan);
	chan = -1;
	for (i = 0; i < timeout_s * 10; i++) {
		if ((r = waitpid(carrier_pid, &status, WNOHANG)) != 0)
			break;
		usleep(CC_WAIT_MS * 1000);
	}
	if (r == 0) {
		kill(carrier_pid, SIGKILL);
		waitpid(carrier_pid, &status, 0);
		die("the carrier did not exit on EOF");
	}
	print_end(status);
	for (i = 0; i < ncmds; i++) {
		value_free(cmds[i].args);
		free(cmds[i].line);
	}
	return answered && WIFEXITED(status) && WEXITSTATUS(status) == 0 ?
	    0 : 1;
}
