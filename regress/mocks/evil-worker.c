/*
 * evil-worker.c - a compromised bouncer-worker, for regress/evil-worker.sh.
 *
 * Installed in place of bouncer-worker (via BOUNCER_LIBEXEC and a wrapper
 * script), it breaks the IPC protocol in one chosen way.  The monitor must
 * treat each as fatal for the session: log it, kill and reap its
 * children, exit non-zero.  A parser can lie; it must not be able to act.
 *
 * The sandbox modes (regress/sandbox-violation.sh) keep the protocol:
 * the process confines itself with the real worker profile, says hello
 * truthfully, and then makes one call the profile refuses for its
 * arguments, as a parser hijacked by its input would.  It must die by
 * SIGSYS, and the monitor must record that as a sandbox violation.
 *
 * usage: evil-worker MODE REAL-WORKER ROLE-TO-ATTACK [worker args]
 * If the worker's role (-r) is not ROLE-TO-ATTACK it execs REAL-WORKER.
 *
 * Most modes break the framing or the handshake.  Two tell a well-formed
 * lie, a frame whose value tree the real worker could never have built:
 * "dupkey" (an object with one key twice, the parser differential DESIGN
 * 3 forbids) and "deep" (nesting one past BNC_VALUE_DEPTH_MAX).  And
 * "sigsys" behaves: it applies the real worker sandbox and says hello,
 * then, once its input has a byte (the client's first line, or the
 * upstream's first answer), makes a call the filter does not allow, as a
 * parser taken over by its input would; the kernel must kill it.
 * "debugsandbox" says hello truthfully for a worker of an
 * --enable-sandbox-debug build, which only such a monitor may accept;
 * "eofthen" says its input ended and then sends a request anyway;
 * "hello2" says hello twice and "eof2" says twice that its input ended.
 * "silent" says nothing at all, as a worker stuck before its hello: the
 * monitor's start timer must end the session.
 * "ctrlbytes" (client role, regress/core-limits.sh) sends a call whose
 * JSON toward the upstream would be six times its frame.
 *
 * A worker never sees the answers: the monitor writes the client's
 * stdout itself, and a worker's fd 1 is /dev/null.  The modes that play
 * a client on their own and must react to what the monitor says
 * ("approve", "stderr", "ctrlbytes") read it from EVIL_ANSWERS, a copy of the
 * monitor's stdout the scenario keeps: a worker with a colluding client
 * application, the worst case.  The others send blind and let the
 * scenario read the answers.
 * "logflood" (client role, regress/worker-logflood.sh) floods the log
 * channel with terminal controls.
 * "flood" (client role, regress/session-memory.sh) sends calls faster
 * than a starting session can take them, as large as frames may be.
 * "approve" (client role, regress/approval-signed.sh) breaks nothing: it
 * plays a client on its own, declares elicitation and accepts every
 * question, the one lie the monitor cannot see through.  "stderr"
 * (client role, regress/worker-stderr.sh) breaks nothing either: it
 * writes control sequences and a flood to its stderr, then plays the
 * client as "approve" does.
 */
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <netinet/in.h>

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "frame.h"
#include "log.h"
#include "bounds.h"
#include "err.h"
#include "msg.h"
#include "sandbox.h"
#include "value-json.h"
#include "value.h"

/* Exit codes of a sandbox mode that was not killed. */
#define EXIT_ALLOWED	42	/* "allowed": the permitted forms all worked */
#define EXIT_SURVIVED	43	/* an attack returned */
#define EXIT_BROKEN	44	/* a permitted form failed */

static void
raw_send(const uint8_t *p, size_t n)
{
	if (send(BNC_CHILD_FD, p, n, 0) != (ssize_t)n)
		_exit(2);
}

static void
send_msg(uint16_t type, struct buf *b, int fd)
{
	if (frame_send(BNC_CHILD_FD, type, 0, b, fd) != 0)
		_exit(2);
}

static void
hello(struct buf *b, int sandbox, uint32_t pid, int role)
{
	struct msg_hello h = { (uint8_t)role, (uint8_t)sandbox, pid, 0 };

	buf_reset(b);
	msg_hello_put(b, &h);
}

/*
 * b = a tools/call request from the client (id 1) whose params are the
 * n encoded bytes of tree, which the encoder itself would have refused.
 * The prefix comes from the real codec with a null placeholder for
 * params, whose one-byte encoding is then replaced.
 */
static void
rpc_with_tree(struct buf *b, const uint8_t *tree, size_t n)
{
	struct rpc m;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_REQUEST;
	m.id.type = RPC_ID_INT;
	m.id.n = 1;
	m.method = "tools/call";
	m.params = value_null();
	buf_reset(b);
	if (msg_rpc_put(b, &m) != 0 || buf_len(b) < 1)
		_exit(2);
	b->len--;
	if (buf_put(b, tree, n) != 0)
		_exit(2);
	value_free(m.params);
}

/* {"name":"echo","name":"rm"}: the second key renamed after encoding. */
static void
dup_key_tree(struct buf *t)
{
	struct value *o = value_object();
	uint8_t *p;

	value_object_put(o, "name", value_string("echo"));
	value_object_put(o, "namX", value_string("rm"));
	if (value_encode(t, o) != 0 ||
	    (p = memmem(t->d, t->len, "namX", 4)) == NULL)
		_exit(2);
	p[3] = 'e';
	value_free(o);
}

/* BNC_VALUE_DEPTH_MAX + 1 arrays, each holding the next, around null. */
static void
deep_tree(struct buf *t)
{
	struct value *a = value_array();
	struct buf *one = buf_new();
	int i;

	/* [null] is "open an array of one" followed by null's one byte. */
	value_array_append(a, value_null());
	if (value_encode(one, a) != 0 || buf_len(one) < 2)
		_exit(2);
	for (i = 0; i <= BNC_VALUE_DEPTH_MAX; i++)
		if (buf_put(t, buf_ptr(one), buf_len(one) - 1) != 0)
			_exit(2);
	if (buf_put(t, buf_ptr(one) + buf_len(one) - 1, 1) != 0)
		_exit(2);
	value_free(a);
	buf_free(one);
}

/* One request or response of the lying client, as a frame. */
static void
send_rpc(struct buf *b, int kind, int64_t id, const char *method,
    struct value *params, struct value *result)
{
	struct rpc m;

	memset(&m, 0, sizeof(m));
	m.kind = (uint8_t)kind;
	m.id.type = kind == RPC_NOTIFICATION ? RPC_ID_NONE : RPC_ID_INT;
	m.id.n = id;
	m.method = (char *)(uintptr_t)method;
	m.params = params;
	m.result = result;
	buf_reset(b);
	if (msg_rpc_put(b, &m) != 0)
		_exit(2);
	send_msg(MSG_RPC_IN, b, -1);
	value_free(params);
	value_free(result);
}

/* A tools/call of tool with arguments {key: val}. */
static struct value *
call_params(const char *tool, const char *key, const char *val)
{
	struct value *p = value_object(), *a = value_object();

	value_object_put(a, key, value_string(val));
	value_object_put(p, "name", value_string(tool));
	value_object_put(p, "arguments", a);
	return p;
}

static void	play_client(struct buf *) __attribute__((noreturn));

/* EVIL_ANSWERS, opened before any sandbox; -1 until then. */
static int answers_fd = -1;

static void
open_answers(void)
{
	const char *path = getenv("EVIL_ANSWERS");

	if (path == NULL || (answers_fd = open(path, O_RDONLY)) == -1)
		_exit(2);
}

/* The monitor hung up (the session ended): so do we. */
static void
hangup_check(int wait_ms)
{
	struct pollfd pfd = { BNC_CHILD_FD, POLLIN, 0 };
	static char rec[BNC_FRAME_MAX];

	if (poll(&pfd, 1, wait_ms) <= 0)
		return;
	/* a record (its shutdown) is dropped; none at all is the end */
	if (read(BNC_CHILD_FD, rec, sizeof(rec)) <= 0)
		_exit(0);
}

/*
 * The next line the client read, parsed: EVIL_ANSWERS grows as the
 * scenario copies the monitor's stdout into it.
 */
static cJSON *
next_answer(void)
{
	static char line[1024 * 1024];
	static size_t len;
	cJSON *j;
	char *nl;
	size_t k;
	ssize_t n;

	for (;;) {
		if ((nl = memchr(line, '\n', len)) != NULL) {
			*nl = '\0';
			j = cJSON_Parse(line);
			k = (size_t)(nl + 1 - line);
			memmove(line, nl + 1, len - k);
			len -= k;
			if (j != NULL)
				return j;
			continue;
		}
		if (len == sizeof(line) - 1)
			_exit(2);
		if ((n = read(answers_fd, line + len,
		    sizeof(line) - 1 - len)) > 0) {
			len += (size_t)n;
			continue;
		}
		if (n == -1)
			_exit(2);
		hangup_check(20);
	}
}

/*
 * "approve": a client worker hijacked by the bytes it parses.  It needs
 * no client at all: it declares elicitation on its own, calls the tools
 * EVIL_CALLS names ("tool:key=value,..."), and answers every question
 * the monitor asks with "accept", as if a human had.  The monitor cannot
 * tell; approval: signed is what keeps such an answer from counting.
 */
static void
approve(struct buf *b, int nrole)
{
	open_answers();
	hello(b, SB_STATE_ON, (uint32_t)getpid(), nrole);
	send_msg(MSG_HELLO, b, -1);
	play_client(b);
}

/* The client "approve" plays, once its hello is sent; never returns. */
static void
play_client(struct buf *b)
{
	struct value *p, *caps, *r;
	const cJSON *id, *method;
	cJSON *j;
	char *calls, *c, *tool, *kv, *eq;
	int64_t next = 1;
	int left = 0, answer;

	caps = value_object();
	value_object_put(caps, "elicitation", value_object());
	p = value_object();
	value_object_put(p, "protocolVersion", value_string("2025-11-25"));
	value_object_put(p, "capabilities", caps);
	value_object_put(p, "clientInfo", value_object());
	send_rpc(b, RPC_REQUEST, 0, "initialize", p, NULL);
	for (;;) {
		j = next_answer();
		id = cJSON_GetObjectItemCaseSensitive(j, "id");
		method = cJSON_GetObjectItemCaseSensitive(j, "method");
		answer = cJSON_GetObjectItemCaseSensitive(j, "result") !=
		    NULL || cJSON_GetObjectItemCaseSensitive(j, "error") !=
		    NULL;
		if (answer && cJSON_IsNumber(id) && id->valuedouble == 0) {
			send_rpc(b, RPC_NOTIFICATION, 0,
			    "notifications/initialized", NULL, NULL);
			calls = strdup(getenv("EVIL_CALLS") != NULL ?
			    getenv("EVIL_CALLS") : "");
			for (c = calls; (tool = strsep(&c, ",")) != NULL;) {
				if ((kv = strchr(tool, ':')) == NULL ||
				    (eq = strchr(kv, '=')) == NULL)
					continue;
				*kv++ = '\0';
				*eq++ = '\0';
				send_rpc(b, RPC_REQUEST, next++, "tools/call",
				    call_params(tool, kv, eq), NULL);
				left++;
			}
			free(calls);
		} else if (cJSON_IsString(method) && cJSON_IsNumber(id) &&
		    strcmp(method->valuestring, "elicitation/create") == 0) {
			r = value_object();
			value_object_put(r, "action", value_string("accept"));
			send_rpc(b, RPC_RESULT, (int64_t)id->valuedouble, NULL,
			    NULL, r);
		} else if (answer && cJSON_IsNumber(id) &&
		    id->valuedouble > 0 && --left == 0) {
			/* every call answered: the "client" is done */
			buf_reset(b);
			msg_empty_put(b);
			send_msg(MSG_INPUT_EOF, b, -1);
			cJSON_Delete(j);
			for (;;)
				hangup_check(-1);
		}
		cJSON_Delete(j);
	}
}

/*
 * The next answer the client read, whatever came before it; its id, or
 * -1 for an id that is not an integer.
 */
static int64_t
next_answer_id(void)
{
	const cJSON *id;
	cJSON *j;
	int64_t n = -1;

	for (;;) {
		j = next_answer();
		if (cJSON_GetObjectItemCaseSensitive(j, "method") == NULL)
			break;
		cJSON_Delete(j);
	}
	id = cJSON_GetObjectItemCaseSensitive(j, "id");
	if (cJSON_IsNumber(id))
		n = (int64_t)id->valuedouble;
	cJSON_Delete(j);
	return n;
}

/*
 * "ctrlbytes": a client worker that builds what no JSON of max_message
 * bytes could carry: a tools/call of echo whose message is EVIL_CTRL
 * bytes of U+0001, each of which the monitor must write as \u0001, six
 * bytes, toward the upstream.  Then a ping; after the ping's answer its
 * input "ends".  It reads the answers from EVIL_ANSWERS, so that it
 * calls only once initialize is answered.
 */
static void
ctrl_client(struct buf *b, int nrole)
{
	struct value *p, *args;
	const char *n = getenv("EVIL_CTRL");
	size_t len = n != NULL ? strtoul(n, NULL, 10) : 0;
	char *msg;

	open_answers();
	hello(b, SB_STATE_ON, (uint32_t)getpid(), nrole);
	send_msg(MSG_HELLO, b, -1);
	p = value_object();
	value_object_put(p, "protocolVersion", value_string("2025-11-25"));
	value_object_put(p, "capabilities", value_object());
	value_object_put(p, "clientInfo", value_object());
	send_rpc(b, RPC_REQUEST, 0, "initialize", p, NULL);
	while (next_answer_id() != 0)
		continue;
	send_rpc(b, RPC_NOTIFICATION, 0, "notifications/initialized", NULL,
	    NULL);
	if ((msg = malloc(len + 1)) == NULL)
		_exit(2);
	memset(msg, 1, len);
	msg[len] = '\0';
	args = value_object();
	value_object_put(args, "message", value_string(msg));
	free(msg);
	p = value_object();
	value_object_put(p, "name", value_string("echo"));
	value_object_put(p, "arguments", args);
	send_rpc(b, RPC_REQUEST, 1, "tools/call", p, NULL);
	send_rpc(b, RPC_REQUEST, 2, "ping", NULL, NULL);
	while (next_answer_id() != 2)
		continue;
	buf_reset(b);
	msg_empty_put(b);
	send_msg(MSG_INPUT_EOF, b, -1);
	for (;;)
		hangup_check(-1);
}

/*
 * "flood" (client role, regress/session-memory.sh): what a client worker
 * hijacked by its input can make the monitor hold.  It says initialize
 * and, without waiting for the answer, EVIL_FLOOD_N calls of add whose
 * padding argument is EVIL_FLOOD_SIZE bytes (each frame up to the
 * monitor's max_message), then ping.  The scenario reads the answers;
 * once its stdin ends, the worker's input "ends".
 */
static void
flood_client(struct buf *b, int nrole)
{
	struct value *p, *args;
	const char *e;
	size_t n = 1000, size = 1000, i;
	char *pad, tmp[512];

	if ((e = getenv("EVIL_FLOOD_N")) != NULL)
		n = strtoul(e, NULL, 10);
	if ((e = getenv("EVIL_FLOOD_SIZE")) != NULL)
		size = strtoul(e, NULL, 10);
	if ((pad = malloc(size + 1)) == NULL)
		_exit(2);
	memset(pad, 'x', size);
	pad[size] = '\0';
	hello(b, SB_STATE_ON, (uint32_t)getpid(), nrole);
	send_msg(MSG_HELLO, b, -1);
	p = value_object();
	value_object_put(p, "protocolVersion", value_string("2025-11-25"));
	value_object_put(p, "capabilities", value_object());
	value_object_put(p, "clientInfo", value_object());
	send_rpc(b, RPC_REQUEST, 0, "initialize", p, NULL);
	for (i = 1; i <= n; i++) {
		args = value_object();
		value_object_put(args, "a", value_int(1));
		value_object_put(args, "b", value_int(2));
		value_object_put(args, "pad", value_string(pad));
		p = value_object();
		value_object_put(p, "name", value_string("add"));
		value_object_put(p, "arguments", args);
		send_rpc(b, RPC_REQUEST, (int64_t)i, "tools/call", p, NULL);
	}
	send_rpc(b, RPC_REQUEST, (int64_t)n + 1, "ping", NULL, NULL);
	/* its input ends when the client's does: the test reads the
	 * monitor's peak memory first */
	while (read(STDIN_FILENO, tmp, sizeof(tmp)) > 0)
		continue;
	buf_reset(b);
	msg_empty_put(b);
	send_msg(MSG_INPUT_EOF, b, -1);
	for (;;)
		hangup_check(-1);
}

/* All n bytes to fd 2, which the monitor reads (monitor/errpipe.c). */
static void
put_err(const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(STDERR_FILENO, p, n)) <= 0)
			_exit(2);
		p += w;
		n -= (size_t)w;
	}
}

/*
 * "stderr" (client role, regress/worker-stderr.sh): confined as
 * bouncer-worker is and truthful in its hello, it writes to its stderr
 * what a parser taken over by its input could: terminal control
 * sequences and a flood of EVIL_STDERR_FLOOD lines.  After a pause past
 * the monitor's window it writes a line too long for one log line, a
 * plain one and a last one without its newline.  Then it plays the
 * client as "approve" does, so the session shows it still works.
 */
#define EVIL_STDERR_FLOOD	20000

static void
stderr_mode(struct buf *b, int nrole)
{
	static const char junk[] = "evil: \033[2J clear \007 bell \0 nul "
	    "\r cr\n";
	static char big[BNC_LOG_LINE_MAX + 100 + sizeof("TAIL\n")];
	struct sb_status st;
	char chunk[4096];
	size_t len = 0;
	int i;

	closefrom(BNC_CHILD_FD + 1);
	/* fd 4; Landlock's ruleset takes one more */
	open_answers();
	if (sandbox_apply(SB_PROFILE_WORKER, BNC_CHILD_FD + 3, &st) != 0)
		_exit(2);
	hello(b, st.seccomp, (uint32_t)getpid(), nrole);
	send_msg(MSG_HELLO, b, -1);
	put_err(junk, sizeof(junk) - 1);
	for (i = 1; i <= EVIL_STDERR_FLOOD; i++) {
		if (len + 32 > sizeof(chunk)) {
			put_err(chunk, len);
			len = 0;
		}
		len += (size_t)snprintf(chunk + len, sizeof(chunk) - len,
		    "flood %d\n", i);
	}
	put_err(chunk, len);
	(void)poll(NULL, 0, BNC_CHILD_STDERR_PERIOD_S * 1000 + 500);
	memset(big, 'x', BNC_LOG_LINE_MAX + 100);
	memcpy(big + BNC_LOG_LINE_MAX + 100, "TAIL\n", 5);
	put_err(big, BNC_LOG_LINE_MAX + 100 + 5);
	put_err("second window\n", 14);
	put_err("no newline", 10);
	play_client(b);
}

/* One log frame at level error. */
static void
send_log(struct buf *b, const char *line)
{
	struct msg_log l;

	l.level = LOG_LEVEL_ERROR;
	l.line = (char *)(uintptr_t)line;
	buf_reset(b);
	if (msg_log_put(b, &l) != 0)
		_exit(2);
	send_msg(MSG_LOG, b, -1);
}

/*
 * "logflood" (client role, regress/worker-logflood.sh): the log channel
 * a worker has, used as a hijacked one would: EVIL_LOG_N frames carrying
 * a terminal's clear-screen and its 8-bit CSI (U+009B), then, past the
 * window, one more; then a short session of its own (initialize, ping),
 * whose answers the scenario reads, and its input "ends".
 */
static void
logflood_client(struct buf *b, int nrole)
{
	struct value *p;
	const char *e;
	size_t n = 5000, i;
	char line[128];

	if ((e = getenv("EVIL_LOG_N")) != NULL)
		n = strtoul(e, NULL, 10);
	hello(b, SB_STATE_ON, (uint32_t)getpid(), nrole);
	send_msg(MSG_HELLO, b, -1);
	for (i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "flood %zu \033[2J\302\233"
		    "31m\007", i);
		send_log(b, line);
	}
	usleep(1200 * 1000);
	send_log(b, "after the window");
	p = value_object();
	value_object_put(p, "protocolVersion", value_string("2025-11-25"));
	value_object_put(p, "capabilities", value_object());
	value_object_put(p, "clientInfo", value_object());
	send_rpc(b, RPC_REQUEST, 0, "initialize", p, NULL);
	send_rpc(b, RPC_REQUEST, 1, "ping", NULL, NULL);
	buf_reset(b);
	msg_empty_put(b);
	send_msg(MSG_INPUT_EOF, b, -1);
	for (;;)
		hangup_check(-1);
}

/* What the worker itself does with the same calls: all allowed. */
static void
permitted_forms(void)
{
	void *m;
	int fl;

	if (syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), 0) != 0 ||
	    (fl = fcntl(BNC_CHILD_FD, F_GETFL)) == -1 ||
	    fcntl(BNC_CHILD_FD, F_SETFL, fl | O_NONBLOCK) == -1)
		_exit(EXIT_BROKEN);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || munmap(m, 4096) == -1)
		_exit(EXIT_BROKEN);
}

static void
sb_allowed(pid_t monitor)
{
	(void)monitor;
	_exit(EXIT_ALLOWED);
}

/* Ends the session from inside: Landlock only scopes this from ABI 6. */
static void
sb_tgkill(pid_t monitor)
{
	syscall(SYS_tgkill, monitor, monitor, SIGTERM);
}

/* SIGIO, whose default is to terminate, to the monitor on our input. */
static void
sb_setown(pid_t monitor)
{
	if (fcntl(BNC_CHILD_FD, F_SETOWN, monitor) == 0)
		fcntl(BNC_CHILD_FD, F_SETFL, O_NONBLOCK | O_ASYNC);
}

/* Room for code of its own: the first step past a parser bug. */
static void
sb_protexec(pid_t monitor)
{
	(void)monitor;
	mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static const struct sb_mode {
	const char *name;
	void (*fn)(pid_t monitor);
} sb_modes[] = {
	{ "allowed", sb_allowed },
	{ "tgkill", sb_tgkill },
	{ "setown", sb_setown },
	{ "protexec", sb_protexec },
};

/*
 * Confined as bouncer-worker is, hello sent, the permitted forms made:
 * then the mode's call.  Returns only for a mode of another kind.
 */
static void
sandbox_mode(const char *mode, int nrole, struct buf *b)
{
	struct msg_hello h;
	struct sb_status st;
	pid_t monitor = getppid();
	size_t i;

	for (i = 0; i < sizeof(sb_modes) / sizeof(sb_modes[0]); i++)
		if (strcmp(mode, sb_modes[i].name) == 0)
			break;
	if (i == sizeof(sb_modes) / sizeof(sb_modes[0]))
		return;
	closefrom(BNC_CHILD_FD + 1);
	/* fds 0-3 and the one Landlock's ruleset takes */
	if (sandbox_apply(SB_PROFILE_WORKER, BNC_CHILD_FD + 2, &st) != 0)
		_exit(2);
	memset(&h, 0, sizeof(h));
	h.role = (uint8_t)nrole;
	h.sandbox = (uint8_t)st.seccomp;
	h.pid = (uint32_t)getpid();
	h.landlock_abi = (uint32_t)st.landlock_abi;
	buf_reset(b);
	msg_hello_put(b, &h);
	send_msg(MSG_HELLO, b, -1);
	permitted_forms();
	sb_modes[i].fn(monitor);
	_exit(EXIT_SURVIVED);
}

int
main(int argc, char **argv)
{
	const char *mode, *real, *target, *role = "";
	struct buf *b = buf_new();
	uint8_t rec[BNC_FRAME_HDR + 16];
	int i, r, nrole;
	char buf[16];

	if (argc < 4)
		return 2;
	mode = argv[1];
	real = argv[2];
	target = argv[3];
	for (i = 4; i + 1 < argc; i++)
		if (strcmp(argv[i], "-r") == 0)
			role = argv[i + 1];
	if (strcmp(role, target) != 0) {
		argv[3] = (char *)(uintptr_t)real;
		execv(real, argv + 3);
		return 127;
	}
	nrole = strcmp(role, "client") == 0 ? ROLE_WORKER_CLIENT :
	    ROLE_WORKER_UPSTREAM;
	sandbox_mode(mode, nrole, b);

	if (strcmp(mode, "nohello") == 0) {
		struct rpc m;

		memset(&m, 0, sizeof(m));
		m.kind = RPC_NOTIFICATION;
		m.method = "notifications/initialized";
		msg_rpc_put(b, &m);
		send_msg(MSG_RPC_IN, b, -1);
	} else if (strcmp(mode, "unsandboxed") == 0) {
		hello(b, SB_STATE_OFF, (uint32_t)getpid(), nrole);
		send_msg(MSG_HELLO, b, -1);
	} else if (strcmp(mode, "wrongpid") == 0) {
		hello(b, SB_STATE_ON, (uint32_t)getpid() + 1, nrole);
		send_msg(MSG_HELLO, b, -1);
	} else if (strcmp(mode, "wrongrole") == 0) {
		hello(b, SB_STATE_ON, (uint32_t)getpid(),
		    nrole == ROLE_WORKER_CLIENT ? ROLE_WORKER_UPSTREAM :
		    ROLE_WORKER_CLIENT);
		send_msg(MSG_HELLO, b, -1);
	} else if (strcmp(mode, "trailing") == 0) {
		hello(b, SB_STATE_ON, (uint32_t)getpid(), nrole);
		buf_put_u8(b, 0);
		send_msg(MSG_HELLO, b, -1);
	} else if (strcmp(mode, "badversion") == 0) {
		hello(b, SB_STATE_ON, (uint32_t)getpid(), nrole);
		memset(rec, 0, sizeof(rec));
		rec[3] = BNC_FRAME_HDR + (uint8_t)buf_len(b);
		rec[4] = BNC_FRAME_VERSION + 1;
		rec[7] = MSG_HELLO & 0xff;
		rec[6] = MSG_HELLO >> 8;
		memcpy(rec + BNC_FRAME_HDR, buf_ptr(b), buf_len(b));
		raw_send(rec, BNC_FRAME_HDR + buf_len(b));
	} else if (strcmp(mode, "wrongdir") == 0) {
		hello(b, SB_STATE_ON, (uint32_t)getpid(), nrole);
		send_msg(MSG_HELLO, b, -1);
		buf_reset(b);
		send_msg(MSG_SHUTDOWN, b, -1);
	} else if (strcmp(mode, "passfd") == 0) {
		hello(b, SB_STATE_ON, (uint32_t)getpid(), nrole);
		send_msg(MSG_HELLO, b, 0);
	} else if (strcmp(mode, "garbage") == 0) {
		hello(b, SB_STATE_ON, (uint32_t)getpid(), nrole);
		send_msg(MSG_HELLO, b, -1);
		buf_reset(b);
		buf_put_u8(b, 0xee);
		send_msg(MSG_RPC_IN, b, -1);
	} else if (strcmp(mode, "dupkey") == 0 || strcmp(mode, "deep") == 0) {
		struct buf *t = buf_new();

		hello(b, SB_STATE_ON, (uint32_t)getpid(), nrole);
		send_msg(MSG_HELLO, b, -1);
		if (strcmp(mode, "dupkey") == 0)
			dup_key_tree(t);
		else
			deep_tree(t);
		rpc_with_tree(b, buf_ptr(t), buf_len(t));
		send_msg(MSG_RPC_IN, b, -1);
		buf_free(t);
	} else if (strcmp(mode, "sigsys") == 0) {
		struct sb_status st;
		char c;

		if (sandbox_apply(SB_PROFILE_WORKER, BNC_CHILD_FD + 2,
		    &st) != 0)
			_exit(2);
		hello(b, st.seccomp, (uint32_t)getpid(), nrole);
		send_msg(MSG_HELLO, b, -1);
		if (read(STDIN_FILENO, &c, 1) != 1)
			_exit(2);
		/* phoning home: socket(2) is not in the worker's table */
		(void)socket(AF_INET, SOCK_STREAM, 0);
		_exit(3);
	} else if (strcmp(mode, "debugsandbox") == 0) {
		hello(b, SB_STATE_DEBUG, (uint32_t)getpid(), nrole);
		send_msg(MSG_HELLO, b, -1);
	} else if (strcmp(mode, "eofthen") == 0) {
		struct rpc m;

		hello(b, SB_STATE_ON, (uint32_t)getpid(), nrole);
		send_msg(MSG_HELLO, b, -1);
		buf_reset(b);
		msg_empty_put(b);
		send_msg(MSG_INPUT_EOF, b, -1);
		memset(&m, 0, sizeof(m));
		m.kind = RPC_REQUEST;
		m.id.type = RPC_ID_INT;
		m.id.n = 7;
		m.method = "ping";
		buf_reset(b);
		if (msg_rpc_put(b, &m) != 0)
			_exit(2);
		send_msg(MSG_RPC_IN, b, -1);
	} else if (strcmp(mode, "stderr") == 0) {
		stderr_mode(b, nrole);
	} else if (strcmp(mode, "approve") == 0) {
		approve(b, nrole);
	} else if (strcmp(mode, "ctrlbytes") == 0) {
		ctrl_client(b, nrole);
	} else if (strcmp(mode, "flood") == 0) {
		flood_client(b, nrole);
	} else if (strcmp(mode, "logflood") == 0) {
		logflood_client(b, nrole);
	} else if (strcmp(mode, "hello2") == 0) {
		hello(b, SB_STATE_ON, (uint32_t)getpid(), nrole);
		send_msg(MSG_HELLO, b, -1);
		send_msg(MSG_HELLO, b, -1);
	} else if (strcmp(mode, "eof2") == 0) {
		hello(b, SB_STATE_ON, (uint32_t)getpid(), nrole);
		send_msg(MSG_HELLO, b, -1);
		buf_reset(b);
		msg_empty_put(b);
		send_msg(MSG_INPUT_EOF, b, -1);
		send_msg(MSG_INPUT_EOF, b, -1);
	} else if (strcmp(mode, "silent") == 0) {
		/* no hello at all: the monitor's start timer must end it */
	} else if (strcmp(mode, "exit") == 0) {
		hello(b, SB_STATE_ON, (uint32_t)getpid(), nrole);
		send_msg(MSG_HELLO, b, -1);
		return 0;
	} else
		return 2;
	/* Wait for the monitor to hang up on us. */
	while ((r = (int)read(BNC_CHILD_FD, buf, sizeof(buf))) > 0)
		;
	return 0;
}
