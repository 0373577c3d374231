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
 */
#include <sys/socket.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "frame.h"
#include "bounds.h"
#include "msg.h"

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
