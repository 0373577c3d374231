/*
 * parse.h - one JSON-RPC line to a typed message (DESIGN 3, 4).
 *
 * The only place attacker-shaped JSON becomes a struct rpc.  What comes
 * out obeys every cap of value.h and msg.h; what cannot is described as a
 * struct msg_rpc_bad for the monitor to answer.
 */
#ifndef BNC_WORKER_PARSE_H
#define BNC_WORKER_PARSE_H

#include <stddef.h>

struct msg_rpc_bad;
struct rpc;

enum parse_status {
	PARSE_SKIP = 0,		/* blank line: nothing to report */
	PARSE_RPC = 1,		/* *rpc filled */
	PARSE_BAD = 2		/* *bad filled */
};

/* JSON-RPC 2.0 error codes a line can earn. */
#define RPC_ERR_PARSE		(-32700)
#define RPC_ERR_INVALID		(-32600)
#define RPC_ERR_INTERNAL	(-32603)

/* Installs cJSON allocation hooks that treat exhaustion as fatal. */
void	parse_init(void);

/*
 * Parses one line of len bytes, without its '\n' (one trailing '\r' is
 * stripped here); line need not be NUL-terminated.  Returns an enum
 * parse_status.  PARSE_RPC: the caller owns *rpc (msg_rpc_free).
 * PARSE_BAD: the caller owns *bad (msg_rpc_bad_free).  The other
 * structure is left zeroed.
 */
int	parse_line(const char *line, size_t len, struct rpc *rpc,
	    struct msg_rpc_bad *bad);

struct idscan;

/* Fills *bad for a line longer than max_message, with the id x found in
 * it (idscan.h; NULL: none); the caller owns it. */
void	parse_bad_too_large(struct msg_rpc_bad *bad, const struct idscan *x);

#endif /* BNC_WORKER_PARSE_H */
