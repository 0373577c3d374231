/*
 * msg.h - the typed messages that cross between the monitor and its
 * children, and their codecs.
 *
 * Numbers are explicit, grouped in ranges per direction, and never
 * reused.  Each message has one msg_<name>_put/get/free trio in msg.c;
 * _get consumes the whole payload or fails; after a failed _get the
 * caller must still call _free (fields may be partly filled).  A receiver checks that a
 * type lies in its peer's range (msg_type_allowed) before decoding.
 */
#ifndef BNC_MSG_H
#define BNC_MSG_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct value;

enum bnc_msgtype {
	/* any child -> monitor: 0x0100..0x01ff */
	MSG_HELLO	= 0x0101,	/* first frame: role, sandbox state */
	MSG_LOG		= 0x0102,	/* one log line */

	/* worker -> monitor: 0x0200..0x02ff */
	MSG_RPC_IN	= 0x0201,	/* one parsed JSON-RPC message */
	MSG_RPC_BAD	= 0x0202,	/* a line that could not be used */
	MSG_INPUT_EOF	= 0x0203,	/* the worker's input closed */

	/* monitor -> worker: 0x0300..0x03ff */
	MSG_RPC_OUT	= 0x0301,	/* retired: the monitor writes the
					 * client's stdout itself; a worker
					 * that gets one ends (its codec is
					 * MSG_RPC_IN's) */
	MSG_SHUTDOWN	= 0x0302,	/* exit now: nothing is left to do */

	/* carrier -> monitor: 0x0400..0x04ff */
	MSG_CARRIER_RESULT = 0x0401,	/* the outcome of a call or probe */

	/* monitor -> carrier: 0x0500..0x05ff */
	MSG_CARRIER_CALL = 0x0501,	/* call an endpoint; FD: a socket
					 * the monitor connected */
	MSG_CARRIER_PROBE = 0x0502	/* would the table send this request
					 * line?  (bouncer-monitor -C; no fd,
					 * nothing reaches the network) */
};

/* Directions, for msg_type_allowed(). */
enum msg_dir {
	MSG_DIR_WORKER_TO_MONITOR = 1,
	MSG_DIR_MONITOR_TO_WORKER = 2,
	MSG_DIR_CARRIER_TO_MONITOR = 3,
	MSG_DIR_MONITOR_TO_CARRIER = 4
};

/* Child roles reported in MSG_HELLO. */
enum bnc_role {
	ROLE_WORKER_CLIENT = 1,
	ROLE_WORKER_UPSTREAM = 2,
	ROLE_CARRIER_NOTION_READ = 3,	/* bouncer-carrier-notion -m read */
	ROLE_CARRIER_NOTION_COMMENT = 4, /* bouncer-carrier-notion -m comment */
	ROLE_CARRIER_GITHUB = 5,
	ROLE_CARRIER_SLACK = 6,
	ROLE_CARRIER_NOTION_AUDIT = 7	/* bouncer-carrier-notion -m audit */
};
#define ROLE_MAX		ROLE_CARRIER_NOTION_AUDIT

/* Sandbox state reported in MSG_HELLO. */
enum bnc_sandbox_state {
	SB_STATE_OFF = 0,		/* --disable-sandbox build */
	SB_STATE_ON = 1,
	SB_STATE_DEBUG = 2		/* --enable-sandbox-debug: traps */
};

int	 msg_type_allowed(enum msg_dir, uint16_t type);
const char *msg_type_name(uint16_t type);
/* Largest total payload a message of this type may have. */
size_t	 msg_type_cap(uint16_t type, size_t max_message);

/* MSG_HELLO */
struct msg_hello {
	uint8_t		 role;		/* enum bnc_role */
	uint8_t		 sandbox;	/* enum bnc_sandbox_state */
	uint32_t	 pid;
	uint32_t	 landlock_abi;	/* 0: none */
};
int	msg_hello_put(struct buf *, const struct msg_hello *);
int	msg_hello_get(struct buf *, struct msg_hello *);
void	msg_hello_free(struct msg_hello *);

/* MSG_LOG */
struct msg_log {
	uint8_t		 level;		/* enum bnc_loglevel */
	char		*line;		/* <= BNC_LOG_LINE_MAX, no NUL */
};
int	msg_log_put(struct buf *, const struct msg_log *);
int	msg_log_get(struct buf *, struct msg_log *);
void	msg_log_free(struct msg_log *);

/* JSON-RPC ids: absent (notification), null (error for a bad line),
 * integer, or string of at most BNC_ID_STR_MAX bytes. */
enum rpc_id_type {
	RPC_ID_NONE = 0,
	RPC_ID_NULL = 1,
	RPC_ID_INT = 2,
	RPC_ID_STR = 3
};

struct rpc_id {
	uint8_t		 type;		/* enum rpc_id_type */
	int64_t		 n;
	char		*s;
};

enum rpc_kind {
	RPC_REQUEST = 1,
	RPC_NOTIFICATION = 2,
	RPC_RESULT = 3,
	RPC_ERROR = 4
};

/*
 * One JSON-RPC message.  Which fields are set depends on kind:
 * REQUEST: id, method, params?; NOTIFICATION: method, params?;
 * RESULT: id, result; ERROR: id (maybe null), code, message, data?.
 */
struct rpc {
	uint8_t		 kind;		/* enum rpc_kind */
	struct rpc_id	 id;
	char		*method;
	struct value	*params;	/* NULL: absent */
	struct value	*result;
	int64_t		 code;
	char		*message;
	struct value	*data;		/* NULL: absent */
};

/*
 * A message to send, borrowed: its caller keeps what every field points
 * to, and nothing is freed through it.  Messages bouncer makes up (an
 * error, a notification, a request of its own) are built as one from
 * constant strings; a parsed one is sent through rpc_out_of().
 */
struct rpc_out {
	uint8_t			 kind;		/* enum rpc_kind */
	struct rpc_id		 id;		/* a copy; its string borrowed */
	const char		*method;
	const struct value	*params;	/* NULL: absent */
	const struct value	*result;
	int64_t			 code;
	const char		*message;
	const struct value	*data;		/* NULL: absent */
};
void	rpc_out_of(struct rpc_out *, const struct rpc *);

/* MSG_RPC_IN (MSG_RPC_OUT had the same layout) */
int	msg_rpc_out_put(struct buf *, const struct rpc_out *);
int	msg_rpc_put(struct buf *, const struct rpc *);
int	msg_rpc_get(struct buf *, struct rpc *, size_t max_message);
void	msg_rpc_free(struct rpc *);

/* MSG_RPC_BAD: the worker could not use a line; the monitor answers. */
struct msg_rpc_bad {
	int32_t		 code;		/* -32700, -32600, ... */
	char		*message;	/* <= BNC_REASON_MAX */
	struct rpc_id	 id;		/* NONE or NULL if unknown */
	uint8_t		 was_response;	/* the line was a response */
};
int	msg_rpc_bad_put(struct buf *, const struct msg_rpc_bad *);
int	msg_rpc_bad_get(struct buf *, struct msg_rpc_bad *);
void	msg_rpc_bad_free(struct msg_rpc_bad *);

/* MSG_INPUT_EOF, MSG_SHUTDOWN: no payload. */
int	msg_empty_put(struct buf *);
int	msg_empty_get(struct buf *);

/*
 * MSG_CARRIER_CALL: one call of an endpoint of the carrier's table
 * (CEP_* of work.h), with its arguments as a typed tree: an object whose
 * members are strings (each within BNC_CARRIER_ARG_MAX, the text of a
 * comment or message within BNC_CONSENT_TEXT_MAX).  Never a URL: the
 * carrier builds the request itself.  The frame carries the connected
 * socket; the result comes back under the frame id of the call.
 */
struct msg_carrier_call {
	uint16_t	 endpoint;	/* enum carrier_ep */
	struct value	*args;		/* an object */
};
int	msg_carrier_call_put(struct buf *, const struct msg_carrier_call *);
int	msg_carrier_call_get(struct buf *, struct msg_carrier_call *);
void	msg_carrier_call_free(struct msg_carrier_call *);

/* MSG_CARRIER_PROBE: a request line for the carrier's two checks only. */
struct msg_carrier_probe {
	char		*method;	/* <= BNC_CARRIER_METHOD_MAX */
	char		*path;		/* <= BNC_CARRIER_PATH_MAX, with query */
};
int	msg_carrier_probe_put(struct buf *, const struct msg_carrier_probe *);
int	msg_carrier_probe_get(struct buf *, struct msg_carrier_probe *);
void	msg_carrier_probe_free(struct msg_carrier_probe *);

/* What became of a call (enum carrier_status of work.h; msg.c knows
 * only that 1, refused, means nothing was sent). */
#define CARRIER_STATUS_REFUSED	1
struct msg_carrier_result {
	uint8_t		 status;	/* CARRIER_* */
	uint8_t		 sent;		/* a byte of the request reached the
					 * network: a write's outcome may be
					 * unknown unless status says */
	uint16_t	 http_status;	/* 0: no answer */
	uint32_t	 retry_after;	/* seconds, CARRIER_RATE; capped */
	char		*code;		/* the vendor's error code, or the
					 * check that refused; <= BNC_CARRIER_CODE_MAX */
	char		*message;	/* <= BNC_REASON_MAX; "" if none */
	struct value	*data;		/* CARRIER_OK: the typed fields; else
					 * NULL */
};
int	msg_carrier_result_put(struct buf *, const struct msg_carrier_result *);
int	msg_carrier_result_get(struct buf *, struct msg_carrier_result *,
	    size_t max_message);
void	msg_carrier_result_free(struct msg_carrier_result *);

/* rpc_id helpers */
void	rpc_id_copy(struct rpc_id *dst, const struct rpc_id *src);
void	rpc_id_clear(struct rpc_id *);
int	rpc_id_equal(const struct rpc_id *, const struct rpc_id *);
int	rpc_id_put(struct buf *, const struct rpc_id *);
int	rpc_id_get(struct buf *, struct rpc_id *);

#endif /* BNC_MSG_H */
