/*
 * fuzz_frame.c - libFuzzer harness for frame_recv (common/frame.c): the
 * records a hostile child can put on its monitor socket.
 *
 * Input: one byte of set-up (bit 0: which direction's types the receiver
 * accepts; bits 1-2: max_message), then records, each
 *
 *	u8 ctl, u8 n, n bytes
 *
 * sent as one SOCK_SEQPACKET record.  ctl bits 0-1: how many fds ride
 * with it (one SCM_RIGHTS message; more than one is never legal, three
 * overflow the receiver's control buffer); bit 2: overwrite the header's
 * length with the record's true length; bit 3: overwrite its version
 * with the right one (both to get past the first checks quickly); bits
 * 4-7: k, append k * 5000 zero bytes (up to 75 KB, past BNC_FRAME_MAX).
 * After each record the harness receives until the socket is empty,
 * and decodes each complete message with its type's codec; at the end
 * it closes the sender and expects EOF.  frame_recv must never crash,
 * accept what its contract refuses, or leak an fd: the lowest free fd
 * number after a run must be the one before it.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "bounds.h"
#include "err.h"
#include "frame.h"
#include "fuzz.h"
#include "log.h"
#include "msg.h"

#define FUZZ_PAD_STEP	5000
#define FUZZ_FDS_MAX	3

static const size_t max_messages[4] = {
	BNC_MSG_MAX_LOWEST, BNC_FRAME_MAX, BNC_MSG_MAX_DEFAULT,
	BNC_MSG_MAX_HIGHEST
};

static uint8_t rec[BNC_FRAME_MAX + 16 * FUZZ_PAD_STEP + 256];

static int
lowest_free_fd(int any)
{
	int fd;

	FUZZ_CHECK((fd = fcntl(any, F_DUPFD, 0)) != -1);
	close(fd);
	return fd;
}

static void
send_rec(int s, const uint8_t *p, size_t n, int nfds, int passfd)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(FUZZ_FDS_MAX * sizeof(int))];
	} cmsgbuf;
	struct msghdr msg;
	struct cmsghdr *cmsg;
	struct iovec iov;
	int i;

	memset(&msg, 0, sizeof(msg));
	iov.iov_base = (void *)(uintptr_t)p;
	iov.iov_len = n;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (nfds > 0) {
		memset(&cmsgbuf, 0, sizeof(cmsgbuf));
		msg.msg_control = cmsgbuf.buf;
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		for (i = 0; i < nfds; i++)
			memcpy(CMSG_DATA(cmsg) + i * sizeof(int), &passfd,
			    sizeof(int));
	}
	/* A record the kernel will not take is simply not sent. */
	while (sendmsg(s, &msg, MSG_NOSIGNAL) == -1 && errno == EINTR)
		;
}

/* A complete message: what the contract promises, then its codec. */
static void
got_message(const struct frame_rx *rx, struct frame_msg *m)
{
	struct msg_hello hello;
	struct msg_log lg;
	struct msg_rpc_bad bad;
	struct rpc rpc;

	FUZZ_CHECK(msg_type_allowed(rx->dir, m->type));
	FUZZ_CHECK(m->payload != NULL);
	FUZZ_CHECK(buf_len(m->payload) <= msg_type_cap(m->type,
	    rx->max_message));
	if (m->fd != -1)
		FUZZ_CHECK(fcntl(m->fd, F_GETFD) == FD_CLOEXEC);
	switch (m->type) {
	case MSG_HELLO:
		(void)msg_hello_get(m->payload, &hello);
		msg_hello_free(&hello);
		break;
	case MSG_LOG:
		(void)msg_log_get(m->payload, &lg);
		msg_log_free(&lg);
		break;
	case MSG_RPC_IN:
	case MSG_RPC_OUT:
		(void)msg_rpc_get(m->payload, &rpc, rx->max_message);
		msg_rpc_free(&rpc);
		break;
	case MSG_RPC_BAD:
		(void)msg_rpc_bad_get(m->payload, &bad);
		msg_rpc_bad_free(&bad);
		break;
	default:
		(void)msg_empty_get(m->payload);
		break;
	}
	frame_msg_clear(m);
	FUZZ_CHECK(m->fd == -1 && m->payload == NULL);
}

/* Receives until the socket is empty; 0, or 1 at EOF. */
static int
drain(int s, struct frame_rx *rx)
{
	struct frame_msg m;
	int r;

	for (;;) {
		memset(&m, 0, sizeof(m));
		m.fd = -1;
		r = frame_recv(s, rx, &m);
		if (r == 1) {
			got_message(rx, &m);
			continue;
		}
		FUZZ_CHECK(m.payload == NULL && m.fd == -1);
		if (r == 0)
			continue;
		if (r == -BNC_ERR_AGAIN)
			return 0;
		if (r == -BNC_ERR_EOF)
			return 1;
		/* a protocol fault: the receiver is reset, not left half */
		FUZZ_CHECK(r < 0 && r > -BNC_ERR_MAX);
		FUZZ_CHECK(rx->msg == NULL && rx->fd == -1 && !rx->partial);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int devnull = -1;
	struct frame_rx rx;
	size_t i, n, len;
	int sv[2], before, nfds;
	uint8_t ctl;

	if (devnull == -1)
		FUZZ_CHECK((devnull = open("/dev/null", O_RDWR |
		    O_CLOEXEC)) != -1);
	if (size < 1)
		return 0;
	before = lowest_free_fd(devnull);
	FUZZ_CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv) == 0);
	frame_rx_init(&rx, (data[0] & 1) ? MSG_DIR_MONITOR_TO_WORKER :
	    MSG_DIR_WORKER_TO_MONITOR, max_messages[(data[0] >> 1) & 3]);
	for (i = 1; i + 2 <= size;) {
		ctl = data[i];
		n = data[i + 1];
		i += 2;
		if (n > size - i)
			n = size - i;
		memcpy(rec, data + i, n);
		i += n;
		len = n + (size_t)(ctl >> 4) * FUZZ_PAD_STEP;
		memset(rec + n, 0, len - n);
		if ((ctl & 4) && len >= 4) {
			rec[0] = len >> 24;
			rec[1] = len >> 16;
			rec[2] = len >> 8;
			rec[3] = len;
		}
		if ((ctl & 8) && len >= 5)
			rec[4] = BNC_FRAME_VERSION;
		nfds = ctl & 3;
		send_rec(sv[1], rec, len, nfds, devnull);
		(void)drain(sv[0], &rx);
	}
	close(sv[1]);
	FUZZ_CHECK(drain(sv[0], &rx) == 1);
	frame_rx_clear(&rx);
	close(sv[0]);
	FUZZ_CHECK(lowest_free_fd(devnull) == before);
	return 0;
}
