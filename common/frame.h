/*
 * frame.h - IPC frames over SOCK_SEQPACKET (DESIGN 3).
 *
 * Header, big-endian: u32 len (whole record), u8 version, u8 flags,
 * u16 type, u32 id.  A record is at most BNC_FRAME_MAX bytes; a larger
 * message is split into records flagged MORE, all with the same type and
 * id.  An fd rides on the first record of a message and sets FRAME_FD.
 * Anything that does not add up — a truncated record, a wrong version,
 * a length that disagrees with the record, a chunk of another message,
 * a total over the type's cap, an unannounced fd — is an error, and a
 * receiver treats it as fatal for the peer.
 */
#ifndef BNC_FRAME_H
#define BNC_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

#define FRAME_FD	0x01
#define FRAME_MORE	0x02

struct buf;

/* Reassembly state for one receiving end. */
struct frame_rx {
	enum msg_dir	 dir;		/* which types the peer may send */
	size_t		 max_message;	/* passed to msg_type_cap() */
	struct buf	*msg;		/* payload so far */
	uint16_t	 type;
	uint32_t	 id;
	int		 fd;		/* received fd or -1 */
	int		 partial;	/* inside a MORE sequence */
};

/* A complete received message; frame_msg_clear() closes an unclaimed fd. */
struct frame_msg {
	uint16_t	 type;
	uint32_t	 id;
	int		 fd;		/* -1 if none; owned by the receiver */
	struct buf	*payload;	/* owned by the receiver */
};

void	frame_rx_init(struct frame_rx *, enum msg_dir, size_t max_message);
void	frame_rx_clear(struct frame_rx *);
void	frame_msg_clear(struct frame_msg *);

/*
 * Send a message, chunked as needed; passfd < 0 for none.  Blocks until
 * every record is queued (the socket stays blocking for sends).
 */
int	frame_send(int fd, uint16_t type, uint32_t id, const struct buf *,
	    int passfd);

/*
 * Sends a message without blocking, resuming at *offp (0 for a new
 * message; it counts payload bytes already sent).  Returns 1 when the
 * whole message is sent, -BNC_ERR_AGAIN when the socket is full (call
 * again with the same *offp when it is writable), another negative code
 * on error.  An fd is passed with the first record only.
 */
int	frame_send_some(int fd, uint16_t type, uint32_t id,
	    const struct buf *, size_t *offp, int passfd);

/*
 * Read one record.  Returns 1 with *out filled when a message is complete,
 * 0 when more records are needed, -BNC_ERR_AGAIN if none is waiting,
 * -BNC_ERR_EOF on close, another negative code on a protocol fault.
 */
int	frame_recv(int fd, struct frame_rx *, struct frame_msg *out);

#endif /* BNC_FRAME_H */
