/*
 * frame.c - IPC frames over SOCK_SEQPACKET with chunking and fd passing.
 *
 * SEQPACKET keeps record boundaries, so a record is read whole or the
 * kernel says it was truncated; either way nothing is ever guessed.  The
 * receiver trusts nothing in a header: each field is checked against the
 * record it arrived in and against the message it continues.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "frame.h"
#include "bounds.h"
#include "msg.h"
#include "xmalloc.h"

static void
hdr_put(uint8_t *h, uint32_t len, uint8_t flags, uint16_t type, uint32_t id)
{
	h[0] = len >> 24;
	h[1] = len >> 16;
	h[2] = len >> 8;
	h[3] = len;
	h[4] = BNC_FRAME_VERSION;
	h[5] = flags;
	h[6] = type >> 8;
	h[7] = type;
	h[8] = id >> 24;
	h[9] = id >> 16;
	h[10] = id >> 8;
	h[11] = id;
}

/*
 * Sends one record.  With wait, it waits for room on a non-blocking
 * socket; without, a full socket is -BNC_ERR_AGAIN and nothing was sent.
 */
static int
send_record(int fd, const uint8_t *hdr, const uint8_t *p, size_t n,
    int passfd, int wait)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cmsgbuf;
	struct iovec iov[2];
	struct msghdr msg;
	struct cmsghdr *cmsg;
	struct pollfd pfd;
	ssize_t w;

	memset(&msg, 0, sizeof(msg));
	iov[0].iov_base = (void *)(uintptr_t)hdr;
	iov[0].iov_len = BNC_FRAME_HDR;
	iov[1].iov_base = (void *)(uintptr_t)p;
	iov[1].iov_len = n;
	msg.msg_iov = iov;
	msg.msg_iovlen = n > 0 ? 2 : 1;
	if (passfd >= 0) {
		memset(&cmsgbuf, 0, sizeof(cmsgbuf));
		msg.msg_control = cmsgbuf.buf;
		msg.msg_controllen = sizeof(cmsgbuf.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &passfd, sizeof(int));
	}
	for (;;) {
		w = sendmsg(fd, &msg, MSG_NOSIGNAL);
		if (w >= 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if (!wait)
				return -BNC_ERR_AGAIN;
			pfd.fd = fd;
			pfd.events = POLLOUT;
			if (poll(&pfd, 1, -1) == -1 && errno != EINTR)
				return -BNC_ERR_SYS;
			continue;
		}
		if (errno == EPIPE || errno == ECONNRESET)
			return -BNC_ERR_EOF;
		return -BNC_ERR_SYS;
	}
	if ((size_t)w != BNC_FRAME_HDR + n)
		return -BNC_ERR_SYS;
	return 0;
}

int
frame_send(int fd, uint16_t type, uint32_t id, const struct buf *payload,
    int passfd)
{
	uint8_t hdr[BNC_FRAME_HDR];
	const uint8_t *p = NULL;
	size_t left = 0, n;
	uint8_t flags;
	int r;

	if (payload != NULL) {
		p = buf_ptr(payload);
		left = buf_len(payload);
	}
	do {
		n = left > BNC_FRAME_PAYLOAD ? BNC_FRAME_PAYLOAD : left;
		flags = 0;
		if (n < left)
			flags |= FRAME_MORE;
		if (passfd >= 0)
			flags |= FRAME_FD;
		hdr_put(hdr, (uint32_t)(BNC_FRAME_HDR + n), flags, type, id);
		if ((r = send_record(fd, hdr, p, n, passfd, 1)) != 0)
			return r;
		passfd = -1;
		p += n;
		left -= n;
	} while (left > 0);
	return 0;
}

int
frame_send_some(int fd, uint16_t type, uint32_t id, const struct buf *payload,
    size_t *offp, int passfd)
{
	uint8_t hdr[BNC_FRAME_HDR];
	const uint8_t *p;
	size_t total, left, n;
	uint8_t flags;
	int r;

	p = payload != NULL ? buf_ptr(payload) : NULL;
	total = payload != NULL ? buf_len(payload) : 0;
	if (*offp > total)
		return -BNC_ERR_INTERNAL;
	/* An fd rides on the first record only. */
	if (*offp > 0)
		passfd = -1;
	do {
		left = total - *offp;
		n = left > BNC_FRAME_PAYLOAD ? BNC_FRAME_PAYLOAD : left;
		flags = 0;
		if (n < left)
			flags |= FRAME_MORE;
		if (passfd >= 0)
			flags |= FRAME_FD;
		hdr_put(hdr, (uint32_t)(BNC_FRAME_HDR + n), flags, type, id);
		if ((r = send_record(fd, hdr, p != NULL ? p + *offp : NULL, n,
		    passfd, 0)) != 0)
			return r;
		passfd = -1;
		*offp += n;
	} while (*offp < total);
	return 1;
}

void
frame_rx_init(struct frame_rx *rx, enum msg_dir dir, size_t max_message)
{
	memset(rx, 0, sizeof(*rx));
	rx->dir = dir;
	rx->max_message = max_message;
	rx->fd = -1;
}

void
frame_rx_clear(struct frame_rx *rx)
{
	buf_free(rx->msg);
	rx->msg = NULL;
	if (rx->fd >= 0)
		close(rx->fd);
	rx->fd = -1;
	rx->partial = 0;
}

void
frame_msg_clear(struct frame_msg *m)
{
	buf_free(m->payload);
	m->payload = NULL;
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
}

int
frame_recv(int fd, struct frame_rx *rx, struct frame_msg *out)
{
	static uint8_t rec[BNC_FRAME_MAX];
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cmsgbuf;
	struct iovec iov;
	struct msghdr msg;
	struct cmsghdr *cmsg;
	uint32_t len, id;
	uint16_t type;
	uint8_t flags;
	ssize_t n;
	int rfd = -1, r;

	memset(&msg, 0, sizeof(msg));
	iov.iov_base = rec;
	iov.iov_len = sizeof(rec);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cmsgbuf.buf;
	msg.msg_controllen = sizeof(cmsgbuf.buf);
	do {
		n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	} while (n == -1 && errno == EINTR);
	if (n == -1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return -BNC_ERR_AGAIN;
		/* A peer that died with records unread resets the pair. */
		if (errno == ECONNRESET)
			return -BNC_ERR_EOF;
		return -BNC_ERR_SYS;
	}
	if (n == 0)
		return -BNC_ERR_EOF;
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg != NULL;
	    cmsg = CMSG_NXTHDR(&msg, cmsg)) {
		if (cmsg->cmsg_level == SOL_SOCKET &&
		    cmsg->cmsg_type == SCM_RIGHTS &&
		    cmsg->cmsg_len == CMSG_LEN(sizeof(int)) && rfd == -1)
			memcpy(&rfd, CMSG_DATA(cmsg), sizeof(int));
		else {
			/* Close whatever fds arrived before refusing them. */
			if (cmsg->cmsg_level == SOL_SOCKET &&
			    cmsg->cmsg_type == SCM_RIGHTS) {
				size_t i, k = (cmsg->cmsg_len -
				    CMSG_LEN(0)) / sizeof(int);
				int tfd;

				for (i = 0; i < k; i++) {
					memcpy(&tfd, CMSG_DATA(cmsg) +
					    i * sizeof(int), sizeof(int));
					close(tfd);
				}
			}
			r = -BNC_ERR_BAD_FD;
			goto fail;
		}
	}
	if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0) {
		r = -BNC_ERR_TRUNCATED;
		goto fail;
	}
	if ((size_t)n < BNC_FRAME_HDR) {
		r = -BNC_ERR_TRUNCATED;
		goto fail;
	}
	len = (uint32_t)rec[0] << 24 | (uint32_t)rec[1] << 16 |
	    (uint32_t)rec[2] << 8 | rec[3];
	flags = rec[5];
	type = (uint16_t)(rec[6] << 8 | rec[7]);
	id = (uint32_t)rec[8] << 24 | (uint32_t)rec[9] << 16 |
	    (uint32_t)rec[10] << 8 | rec[11];
	if (rec[4] != BNC_FRAME_VERSION) {
		r = -BNC_ERR_BAD_VERSION;
		goto fail;
	}
	if (len != (uint32_t)n || (flags & ~(FRAME_FD | FRAME_MORE)) != 0) {
		r = -BNC_ERR_BAD_FORMAT;
		goto fail;
	}
	if (!msg_type_allowed(rx->dir, type)) {
		r = -BNC_ERR_BAD_TYPE;
		goto fail;
	}
	/* An fd may only ride on the first record, and only if announced. */
	if (((flags & FRAME_FD) != 0) != (rfd != -1) ||
	    (rfd != -1 && rx->partial)) {
		r = -BNC_ERR_BAD_FD;
		goto fail;
	}
	if (rx->partial) {
		if (type != rx->type || id != rx->id) {
			r = -BNC_ERR_BAD_FORMAT;
			goto fail;
		}
	} else {
		rx->type = type;
		rx->id = id;
		rx->fd = rfd;
		rfd = -1;
		if (rx->msg == NULL)
			rx->msg = buf_new();
		buf_reset(rx->msg);
	}
	if (buf_len(rx->msg) + (n - BNC_FRAME_HDR) >
	    msg_type_cap(type, rx->max_message)) {
		r = -BNC_ERR_TOO_LARGE;
		goto fail;
	}
	if ((r = buf_put(rx->msg, rec + BNC_FRAME_HDR,
	    (size_t)n - BNC_FRAME_HDR)) != 0)
		goto fail;
	if (flags & FRAME_MORE) {
		rx->partial = 1;
		return 0;
	}
	rx->partial = 0;
	out->type = rx->type;
	out->id = rx->id;
	out->fd = rx->fd;
	out->payload = rx->msg;
	rx->fd = -1;
	rx->msg = NULL;
	return 1;
 fail:
	if (rfd != -1)
		close(rfd);
	frame_rx_clear(rx);
	return r;
}
