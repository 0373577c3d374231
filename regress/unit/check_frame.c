/*
 * check_frame.c - unit tests for common/frame.c over real SEQPACKET
 * socket pairs.
 *
 * Round trips (small, empty, chunked, with an fd), the record layout on
 * the wire, and every protocol fault frame.h names, crafted as raw
 * records with send(): each must be a negative code, never a message,
 * and a stray fd must not leak into the receiver.  Only socketpairs, no
 * network.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "frame.h"
#include "bounds.h"
#include "msg.h"

#define CK_R(expr, want) do {						\
	int ck_r_ = (expr), ck_w_ = (want);				\
	ck_assert_msg(ck_r_ == ck_w_, "%s: got %d (%s), want %d (%s)",	\
	    #expr, ck_r_, bnc_err(ck_r_), ck_w_, bnc_err(ck_w_));	\
} while (0)

#define W2M	MSG_DIR_WORKER_TO_MONITOR
#define M2W	MSG_DIR_MONITOR_TO_WORKER
#define MAXM	((size_t)BNC_MSG_MAX_DEFAULT)

/* sv[0] sends (blocking), sv[1] receives (non-blocking). */
static void
pair(int sv[2])
{
	int	 fl;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	ck_assert_int_ne(fl = fcntl(sv[1], F_GETFL), -1);
	ck_assert_int_ne(fcntl(sv[1], F_SETFL, fl | O_NONBLOCK), -1);
}

/* Open fds in this process. */
static int
count_fds(void)
{
	DIR		*d;
	struct dirent	*de;
	int		 n = 0;

	ck_assert_ptr_nonnull(d = opendir("/proc/self/fd"));
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static int
fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

/*
 * Calls frame_recv until it returns something other than 0 or
 * -BNC_ERR_AGAIN, waiting for input in between; *nzero counts the 0s.
 */
static int
recv_one(int fd, struct frame_rx *rx, struct frame_msg *out, int *nzero)
{
	struct pollfd	 pfd;
	int		 r;

	for (;;) {
		r = frame_recv(fd, rx, out);
		if (r == 0) {
			if (nzero != NULL)
				(*nzero)++;
			continue;
		}
		if (r != -BNC_ERR_AGAIN)
			return r;
		pfd.fd = fd;
		pfd.events = POLLIN;
		ck_assert_msg(poll(&pfd, 1, 10000) == 1, "nothing arrived");
	}
}

/* Writes one raw record: a 12-byte header with these fields, then body. */
static void
send_raw(int fd, uint32_t len, uint8_t ver, uint8_t flags, uint16_t type,
    uint32_t id, const void *body, size_t blen, int passfd)
{
	uint8_t		*rec;
	struct msghdr	 mh;
	struct iovec	 iov;
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(2 * sizeof(int))];
	} cm;
	struct cmsghdr	*c;
	size_t		 n = BNC_FRAME_HDR + blen;

	ck_assert_ptr_nonnull(rec = malloc(n));
	rec[0] = len >> 24;
	rec[1] = len >> 16;
	rec[2] = len >> 8;
	rec[3] = len;
	rec[4] = ver;
	rec[5] = flags;
	rec[6] = type >> 8;
	rec[7] = type;
	rec[8] = id >> 24;
	rec[9] = id >> 16;
	rec[10] = id >> 8;
	rec[11] = id;
	if (blen > 0)
		memcpy(rec + BNC_FRAME_HDR, body, blen);
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = rec;
	iov.iov_len = n;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (passfd >= 0) {
		memset(&cm, 0, sizeof(cm));
		mh.msg_control = cm.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &passfd, sizeof(int));
	}
	ck_assert_int_eq(sendmsg(fd, &mh, 0), (ssize_t)n);
	free(rec);
}

/* A record whose header agrees with its size. */
static void
send_rec(int fd, uint8_t flags, uint16_t type, uint32_t id,
    const void *body, size_t blen, int passfd)
{
	send_raw(fd, BNC_FRAME_HDR + blen, BNC_FRAME_VERSION, flags, type, id,
	    body, blen, passfd);
}

/* A buffer of n pattern bytes. */
static struct buf *
pattern(size_t n, unsigned int seed)
{
	struct buf	*b;
	uint8_t		*p;
	size_t		 i;

	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(buf_reserve(b, n, &p), 0);
	for (i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 7 + seed) % 251);
	return b;
}

/* Sends in a child so the parent can read while it blocks. */
static pid_t
send_async(int fd, uint16_t type, uint32_t id, const struct buf *b,
    int passfd)
{
	pid_t	 pid;

	ck_assert_int_ne(pid = fork(), -1);
	if (pid == 0)
		_exit(frame_send(fd, type, id, b, passfd) == 0 ? 0 : 1);
	return pid;
}

static void
reap(pid_t pid, int want_ok)
{
	int	 st;

	if (!want_ok)
		kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	if (want_ok)
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "sender failed, status %d", st);
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/* core */

START_TEST(test_small)
{
	struct frame_rx		 rx;
	struct frame_msg	 m;
	struct buf		*b;
	int			 sv[2], nzero = 0;

	pair(sv);
	frame_rx_init(&rx, W2M, MAXM);
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(buf_put(b, "hello", 5), 0);
	CK_R(frame_send(sv[0], MSG_RPC_IN, 0xdeadbeef, b, -1), 0);
	memset(&m, 0, sizeof(m));
	CK_R(recv_one(sv[1], &rx, &m, &nzero), 1);
	ck_assert_int_eq(nzero, 0);
	ck_assert_uint_eq(m.type, MSG_RPC_IN);
	ck_assert_uint_eq(m.id, 0xdeadbeef);
	ck_assert_int_eq(m.fd, -1);
	ck_assert_ptr_nonnull(m.payload);
	ck_assert_uint_eq(buf_len(m.payload), 5);
	ck_assert_mem_eq(buf_ptr(m.payload), "hello", 5);
	frame_msg_clear(&m);

	/* an empty message, then the next one is still in step */
	buf_reset(b);
	CK_R(frame_send(sv[0], MSG_INPUT_EOF, 0, b, -1), 0);
	CK_R(buf_put(b, "x", 1), 0);
	CK_R(frame_send(sv[0], MSG_HELLO, 2, b, -1), 0);
	memset(&m, 0, sizeof(m));
	CK_R(recv_one(sv[1], &rx, &m, NULL), 1);
	ck_assert_uint_eq(m.type, MSG_INPUT_EOF);
	ck_assert_uint_eq(m.id, 0);
	ck_assert_uint_eq(buf_len(m.payload), 0);
	frame_msg_clear(&m);
	memset(&m, 0, sizeof(m));
	CK_R(recv_one(sv[1], &rx, &m, NULL), 1);
	ck_assert_uint_eq(m.type, MSG_HELLO);
	ck_assert_uint_eq(m.id, 2);
	ck_assert_mem_eq(buf_ptr(m.payload), "x", 1);
	frame_msg_clear(&m);

	/* nothing waiting */
	memset(&m, 0, sizeof(m));
	CK_R(frame_recv(sv[1], &rx, &m), -BNC_ERR_AGAIN);
	CK_R(frame_recv(sv[1], &rx, &m), -BNC_ERR_AGAIN);
	frame_rx_clear(&rx);
	buf_free(b);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* The record on the wire: header fields big-endian, then the payload. */
START_TEST(test_wire_layout)
{
	static const uint8_t	 want[] = {
		0x00, 0x00, 0x00, 0x11,		/* len 17 */
		BNC_FRAME_VERSION, 0x00,	/* version, flags */
		0x03, 0x01,			/* MSG_RPC_OUT */
		0x01, 0x02, 0x03, 0x04,		/* id */
		'h', 'e', 'l', 'l', 'o'
	};
	uint8_t		 rec[64];
	struct buf	*b;
	int		 sv[2];

	pair(sv);
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(buf_put(b, "hello", 5), 0);
	CK_R(frame_send(sv[0], MSG_RPC_OUT, 0x01020304, b, -1), 0);
	ck_assert_int_eq(recv(sv[1], rec, sizeof(rec), 0), sizeof(want));
	ck_assert_mem_eq(rec, want, sizeof(want));
	buf_free(b);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* A message larger than a record is chunked with MORE and reassembled. */
START_TEST(test_chunked)
{
	struct frame_rx		 rx;
	struct frame_msg	 m;
	struct buf		*b;
	size_t			 n = 300 * 1024;
	pid_t			 pid;
	int			 sv[2], nzero = 0;

	pair(sv);
	frame_rx_init(&rx, M2W, MAXM);
	b = pattern(n, 3);
	pid = send_async(sv[0], MSG_RPC_OUT, 77, b, -1);
	memset(&m, 0, sizeof(m));
	CK_R(recv_one(sv[1], &rx, &m, &nzero), 1);
	reap(pid, 1);
	/* ceil(300 KiB / BNC_FRAME_PAYLOAD) records, all but the last 0 */
	ck_assert_int_eq(nzero, (int)((n + BNC_FRAME_PAYLOAD - 1) /
	    BNC_FRAME_PAYLOAD) - 1);
	ck_assert_uint_eq(m.type, MSG_RPC_OUT);
	ck_assert_uint_eq(m.id, 77);
	ck_assert_int_eq(m.fd, -1);
	ck_assert_uint_eq(buf_len(m.payload), n);
	ck_assert(memcmp(buf_ptr(m.payload), buf_ptr(b), n) == 0);
	frame_msg_clear(&m);

	/* the next message after a chunked one starts clean */
	buf_free(b);
	b = pattern(10, 9);
	CK_R(frame_send(sv[0], MSG_SHUTDOWN, 78, b, -1), 0);
	memset(&m, 0, sizeof(m));
	CK_R(recv_one(sv[1], &rx, &m, NULL), 1);
	ck_assert_uint_eq(m.type, MSG_SHUTDOWN);
	ck_assert_uint_eq(buf_len(m.payload), 10);
	frame_msg_clear(&m);
	frame_rx_clear(&rx);
	buf_free(b);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* The chunks themselves: full records, MORE on all but the last. */
START_TEST(test_chunk_layout)
{
	static const size_t	 sizes[] = { BNC_FRAME_PAYLOAD,
	    BNC_FRAME_PAYLOAD + 1, 3 * BNC_FRAME_PAYLOAD, 300 * 1024 };
	uint8_t		*rec;
	struct buf	*b, *got;
	struct pollfd	 pfd;
	size_t		 n = sizes[_i], nrec, want;
	ssize_t		 k;
	pid_t		 pid;
	int		 sv[2], last = 0;

	pair(sv);
	ck_assert_ptr_nonnull(rec = malloc(BNC_FRAME_MAX + 16));
	ck_assert_ptr_nonnull(got = buf_new());
	b = pattern(n, 5);
	pid = send_async(sv[0], MSG_RPC_IN, 0x0a0b0c0d, b, -1);
	for (nrec = 0; !last; nrec++) {
		pfd.fd = sv[1];
		pfd.events = POLLIN;
		ck_assert_int_eq(poll(&pfd, 1, 10000), 1);
		k = recv(sv[1], rec, BNC_FRAME_MAX + 16, 0);
		ck_assert_int_ge(k, BNC_FRAME_HDR);
		ck_assert_int_le(k, BNC_FRAME_MAX);
		ck_assert_uint_eq(be32(rec), (size_t)k);
		ck_assert_uint_eq(rec[4], BNC_FRAME_VERSION);
		ck_assert_uint_eq((unsigned)rec[6] << 8 | rec[7], MSG_RPC_IN);
		ck_assert_uint_eq(be32(rec + 8), 0x0a0b0c0d);
		ck_assert_uint_eq(rec[5] & ~FRAME_MORE, 0);
		last = (rec[5] & FRAME_MORE) == 0;
		/* every record but the last is full */
		if (!last)
			ck_assert_int_eq(k, BNC_FRAME_MAX);
		CK_R(buf_put(got, rec + BNC_FRAME_HDR, k - BNC_FRAME_HDR), 0);
	}
	reap(pid, 1);
	want = (n + BNC_FRAME_PAYLOAD - 1) / BNC_FRAME_PAYLOAD;
	ck_assert_uint_eq(nrec, want);
	ck_assert_uint_eq(buf_len(got), n);
	ck_assert(memcmp(buf_ptr(got), buf_ptr(b), n) == 0);
	free(rec);
	buf_free(got);
	buf_free(b);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* An fd sent with a message arrives, works, and is the receiver's. */
START_TEST(test_fd_passing)
{
	struct frame_rx		 rx;
	struct frame_msg	 m;
	struct buf		*b;
	char			 got[8];
	pid_t			 pid;
	int			 sv[2], p[2], fd, chunked = _i;

	pair(sv);
	ck_assert_int_eq(pipe(p), 0);
	frame_rx_init(&rx, W2M, MAXM);
	b = chunked ? pattern(200 * 1024, 1) : pattern(16, 1);
	pid = send_async(sv[0], MSG_RPC_IN, 5, b, p[0]);
	memset(&m, 0, sizeof(m));
	CK_R(recv_one(sv[1], &rx, &m, NULL), 1);
	reap(pid, 1);
	ck_assert_uint_eq(buf_len(m.payload), buf_len(b));
	ck_assert_int_ge(m.fd, 0);
	ck_assert_int_ne(m.fd, p[0]);
	ck_assert_int_eq(write(p[1], "ping", 4), 4);
	ck_assert_int_eq(read(m.fd, got, sizeof(got)), 4);
	ck_assert_mem_eq(got, "ping", 4);

	/* an fd the receiver did not claim is closed with the message */
	fd = m.fd;
	frame_msg_clear(&m);
	ck_assert_msg(!fd_is_open(fd), "unclaimed fd %d left open", fd);

	/* a claimed one stays open */
	pid = send_async(sv[0], MSG_RPC_IN, 6, b, p[0]);
	memset(&m, 0, sizeof(m));
	CK_R(recv_one(sv[1], &rx, &m, NULL), 1);
	reap(pid, 1);
	ck_assert_int_ge(fd = m.fd, 0);
	m.fd = -1;
	frame_msg_clear(&m);
	ck_assert(fd_is_open(fd));
	close(fd);

	frame_rx_clear(&rx);
	buf_free(b);
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(test_eof)
{
	struct frame_rx		 rx;
	struct frame_msg	 m;
	int			 sv[2];

	pair(sv);
	frame_rx_init(&rx, W2M, MAXM);
	close(sv[0]);
	memset(&m, 0, sizeof(m));
	CK_R(frame_recv(sv[1], &rx, &m), -BNC_ERR_EOF);
	frame_rx_clear(&rx);
	close(sv[1]);

	/* EOF inside a MORE sequence is not a message either */
	pair(sv);
	frame_rx_init(&rx, W2M, MAXM);
	send_rec(sv[0], FRAME_MORE, MSG_RPC_IN, 1, "abc", 3, -1);
	close(sv[0]);
	memset(&m, 0, sizeof(m));
	CK_R(frame_recv(sv[1], &rx, &m), 0);
	ck_assert_int_lt(frame_recv(sv[1], &rx, &m), 0);
	frame_rx_clear(&rx);
	close(sv[1]);
}
END_TEST

/* limits */

/* A total of exactly msg_type_cap is accepted, one byte more is not. */
START_TEST(test_type_cap)
{
	struct frame_rx		 rx;
	struct frame_msg	 m;
	struct buf		*b;
	size_t			 cap;
	pid_t			 pid;
	int			 sv[2], r, over = _i;

	pair(sv);
	frame_rx_init(&rx, W2M, BNC_MSG_MAX_LOWEST);
	cap = msg_type_cap(MSG_RPC_IN, BNC_MSG_MAX_LOWEST);
	ck_assert_uint_gt(cap, BNC_FRAME_PAYLOAD);
	b = pattern(cap + over, 2);
	pid = send_async(sv[0], MSG_RPC_IN, 1, b, -1);
	memset(&m, 0, sizeof(m));
	r = recv_one(sv[1], &rx, &m, NULL);
	if (over) {
		ck_assert_msg(r < 0, "cap + 1 accepted: %d", r);
		reap(pid, 0);
	} else {
		CK_R(r, 1);
		ck_assert_uint_eq(buf_len(m.payload), cap);
		frame_msg_clear(&m);
		reap(pid, 1);
	}
	frame_rx_clear(&rx);
	buf_free(b);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* The same with hand-made chunks of a control message. */
START_TEST(test_type_cap_raw)
{
	struct frame_rx		 rx;
	struct frame_msg	 m;
	uint8_t			*body;
	size_t			 cap, sent = 0, n;
	int			 sv[2], r = 0;

	pair(sv);
	frame_rx_init(&rx, W2M, MAXM);
	cap = msg_type_cap(MSG_HELLO, MAXM);
	ck_assert_uint_gt(cap, 0);
	ck_assert_ptr_nonnull(body = calloc(1, BNC_FRAME_PAYLOAD));
	memset(&m, 0, sizeof(m));
	while (sent <= cap) {
		n = BNC_FRAME_PAYLOAD;
		send_rec(sv[0], FRAME_MORE, MSG_HELLO, 1, body, n, -1);
		sent += n;
		r = frame_recv(sv[1], &rx, &m);
		if (sent <= cap)
			CK_R(r, 0);
	}
	ck_assert_msg(r < 0 && r != -BNC_ERR_AGAIN,
	    "total %zu over cap %zu: got %d (%s)", sent, cap, r, bnc_err(r));
	free(body);
	frame_rx_clear(&rx);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* errors */

/* Sends one fault; the receiver must answer with a negative code. */
static int
fault(enum msg_dir dir, void (*craft)(int), int *nfd_delta)
{
	struct frame_rx		 rx;
	struct frame_msg	 m;
	int			 sv[2], r, i, before;

	pair(sv);
	frame_rx_init(&rx, dir, MAXM);
	before = count_fds();
	craft(sv[0]);
	memset(&m, 0, sizeof(m));
	m.fd = -1;
	/* earlier records of a sequence are 0; the fault itself is not */
	for (i = 0; i < 8; i++) {
		r = frame_recv(sv[1], &rx, &m);
		if (r != 0)
			break;
	}
	if (r == 1)
		frame_msg_clear(&m);
	frame_rx_clear(&rx);
	if (nfd_delta != NULL)
		*nfd_delta = count_fds() - before;
	close(sv[0]);
	close(sv[1]);
	return r;
}

static void
craft_version2(int fd)
{
	send_raw(fd, 17, BNC_FRAME_VERSION + 1, 0, MSG_RPC_IN, 1, "hello", 5,
	    -1);
}

static void
craft_version0(int fd)
{
	send_raw(fd, 17, 0, 0, MSG_RPC_IN, 1, "hello", 5, -1);
}

static void
craft_len_long(int fd)
{
	send_raw(fd, 18, BNC_FRAME_VERSION, 0, MSG_RPC_IN, 1, "hello", 5, -1);
}

static void
craft_len_short(int fd)
{
	send_raw(fd, 16, BNC_FRAME_VERSION, 0, MSG_RPC_IN, 1, "hello", 5, -1);
}

static void
craft_len_zero(int fd)
{
	send_raw(fd, 0, BNC_FRAME_VERSION, 0, MSG_RPC_IN, 1, "hello", 5, -1);
}

static void
craft_len_huge(int fd)
{
	send_raw(fd, 0xffffffff, BNC_FRAME_VERSION, 0, MSG_RPC_IN, 1, "hello",
	    5, -1);
}

static void
craft_short_record(int fd)
{
	/* 11 bytes: one short of a header */
	ck_assert_int_eq(send(fd, "\0\0\0\x0b\x01\0\x02\x01\0\0\0", 11, 0),
	    11);
}

static void
craft_tiny_record(int fd)
{
	ck_assert_int_eq(send(fd, "\0", 1, 0), 1);
}

static void
craft_oversized_record(int fd)
{
	uint8_t		*body;
	size_t		 n = BNC_FRAME_PAYLOAD + 1;

	ck_assert_ptr_nonnull(body = calloc(1, n));
	send_rec(fd, 0, MSG_RPC_IN, 1, body, n, -1);
	free(body);
}

static void
craft_oversized_lying(int fd)
{
	uint8_t		*body;
	size_t		 n = BNC_FRAME_PAYLOAD + 100;

	/* the header claims exactly what a truncated read would return */
	ck_assert_ptr_nonnull(body = calloc(1, n));
	send_raw(fd, BNC_FRAME_MAX, BNC_FRAME_VERSION, 0, MSG_RPC_IN, 1,
	    body, n, -1);
	free(body);
}

static void
craft_switch_type(int fd)
{
	send_rec(fd, FRAME_MORE, MSG_RPC_IN, 5, "abc", 3, -1);
	send_rec(fd, 0, MSG_RPC_BAD, 5, "def", 3, -1);
}

static void
craft_switch_id(int fd)
{
	send_rec(fd, FRAME_MORE, MSG_RPC_IN, 5, "abc", 3, -1);
	send_rec(fd, 0, MSG_RPC_IN, 6, "def", 3, -1);
}

static void
craft_switch_later(int fd)
{
	send_rec(fd, FRAME_MORE, MSG_RPC_IN, 5, "abc", 3, -1);
	send_rec(fd, FRAME_MORE, MSG_RPC_IN, 5, "def", 3, -1);
	send_rec(fd, 0, MSG_RPC_IN, 0x10005, "ghi", 3, -1);
}

static void
craft_monitor_type(int fd)
{
	send_rec(fd, 0, MSG_RPC_OUT, 1, "abc", 3, -1);
}

static void
craft_unknown_type(int fd)
{
	send_rec(fd, 0, 0x02ff, 1, "abc", 3, -1);
}

static void
craft_zero_type(int fd)
{
	send_rec(fd, 0, 0, 1, "abc", 3, -1);
}

static void
craft_worker_type(int fd)
{
	send_rec(fd, 0, MSG_HELLO, 1, "abc", 3, -1);
}

static void
craft_fd_unannounced(int fd)
{
	int	 p[2];

	ck_assert_int_eq(pipe(p), 0);
	send_rec(fd, 0, MSG_RPC_IN, 1, "abc", 3, p[0]);
	close(p[0]);
	close(p[1]);
}

static void
craft_fd_missing(int fd)
{
	send_rec(fd, FRAME_FD, MSG_RPC_IN, 1, "abc", 3, -1);
}

static void
craft_fd_late(int fd)
{
	int	 p[2];

	ck_assert_int_eq(pipe(p), 0);
	send_rec(fd, FRAME_MORE, MSG_RPC_IN, 1, "abc", 3, -1);
	send_rec(fd, FRAME_FD, MSG_RPC_IN, 1, "def", 3, p[0]);
	close(p[0]);
	close(p[1]);
}

static void
craft_two_fds(int fd)
{
	uint8_t		 rec[BNC_FRAME_HDR + 3];
	struct msghdr	 mh;
	struct iovec	 iov;
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(2 * sizeof(int))];
	} cm;
	struct cmsghdr	*c;
	int		 p[2];

	ck_assert_int_eq(pipe(p), 0);
	memset(rec, 0, sizeof(rec));
	rec[3] = sizeof(rec);
	rec[4] = BNC_FRAME_VERSION;
	rec[5] = FRAME_FD;
	rec[6] = MSG_RPC_IN >> 8;
	rec[7] = MSG_RPC_IN & 0xff;
	rec[11] = 1;
	memset(&mh, 0, sizeof(mh));
	memset(&cm, 0, sizeof(cm));
	iov.iov_base = rec;
	iov.iov_len = sizeof(rec);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = CMSG_SPACE(2 * sizeof(int));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(c), p, 2 * sizeof(int));
	ck_assert_int_eq(sendmsg(fd, &mh, 0), (ssize_t)sizeof(rec));
	close(p[0]);
	close(p[1]);
}

static void
craft_unknown_flag(int fd)
{
	send_rec(fd, 0x80, MSG_RPC_IN, 1, "abc", 3, -1);
}

static const struct fault_case {
	const char	*name;
	enum msg_dir	 dir;
	void		(*craft)(int);
	int		 want;		/* exact code, or 0: any negative */
} faults[] = {
	{ "wrong version", W2M, craft_version2, -BNC_ERR_BAD_VERSION },
	{ "version 0", W2M, craft_version0, -BNC_ERR_BAD_VERSION },
	{ "len > record", W2M, craft_len_long, 0 },
	{ "len < record", W2M, craft_len_short, 0 },
	{ "len 0", W2M, craft_len_zero, 0 },
	{ "len 2^32-1", W2M, craft_len_huge, 0 },
	{ "record shorter than header", W2M, craft_short_record, 0 },
	{ "1-byte record", W2M, craft_tiny_record, 0 },
	{ "record over BNC_FRAME_MAX", W2M, craft_oversized_record, 0 },
	{ "record over BNC_FRAME_MAX, len says BNC_FRAME_MAX", W2M,
	    craft_oversized_lying, 0 },
	{ "MORE then other type", W2M, craft_switch_type, 0 },
	{ "MORE then other id", W2M, craft_switch_id, 0 },
	{ "MORE, MORE, then other id", W2M, craft_switch_later, 0 },
	{ "monitor type from a worker", W2M, craft_monitor_type,
	    -BNC_ERR_BAD_TYPE },
	{ "unknown type in the worker range", W2M, craft_unknown_type,
	    -BNC_ERR_BAD_TYPE },
	{ "type 0", W2M, craft_zero_type, -BNC_ERR_BAD_TYPE },
	{ "worker type from the monitor", M2W, craft_worker_type,
	    -BNC_ERR_BAD_TYPE },
	{ "fd without FRAME_FD", W2M, craft_fd_unannounced, -BNC_ERR_BAD_FD },
	{ "FRAME_FD without fd", W2M, craft_fd_missing, -BNC_ERR_BAD_FD },
	{ "fd on a later chunk", W2M, craft_fd_late, 0 },
	{ "two fds", W2M, craft_two_fds, 0 },
	{ "unknown flag", W2M, craft_unknown_flag, 0 },
};
#define NFAULTS	(sizeof(faults) / sizeof(faults[0]))

START_TEST(test_fault)
{
	const struct fault_case	*f = &faults[_i];
	int			 r, delta;

	r = fault(f->dir, f->craft, &delta);
	if (f->want != 0)
		ck_assert_msg(r == f->want, "%s: got %d (%s), want %d (%s)",
		    f->name, r, bnc_err(r), f->want, bnc_err(f->want));
	else
		ck_assert_msg(r < 0 && r != -BNC_ERR_AGAIN,
		    "%s: got %d (%s)", f->name, r, bnc_err(r));
	/* a received fd belongs to the receiver on every path */
	ck_assert_msg(delta == 0, "%s: %d fd(s) leaked", f->name, delta);
}
END_TEST

static Suite *
frame_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("frame");

	tc = tcase_create("core");
	tcase_add_test(tc, test_small);
	tcase_add_test(tc, test_wire_layout);
	tcase_add_test(tc, test_chunked);
	tcase_add_loop_test(tc, test_chunk_layout, 0, 4);
	tcase_add_loop_test(tc, test_fd_passing, 0, 2);
	tcase_add_test(tc, test_eof);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_type_cap, 0, 2);
	tcase_add_test(tc, test_type_cap_raw);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_fault, 0, NFAULTS);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	signal(SIGPIPE, SIG_IGN);
	sr = srunner_create(frame_suite());
	srunner_run_all(sr, CK_NORMAL);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
