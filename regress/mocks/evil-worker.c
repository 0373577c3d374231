/*
 * evil-worker.c - a compromised bouncer-worker, for regress/evil-worker.sh.
 *
 * Installed in place of bouncer-worker (via BOUNCER_LIBEXEC and a wrapper
 * script), it breaks the IPC protocol in one chosen way.  The monitor must
 * treat each as fatal for the session: log it, kill and reap its
 * children, exit non-zero.  A parser can lie; it must not be able to act.
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
 */
#include <sys/socket.h>

#include <netinet/in.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "frame.h"
#include "bounds.h"
#include "msg.h"
#include "sandbox.h"
#include "value.h"

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
