/*
 * upstream.h - one upstream MCP server (DESIGN 2, 4): its process, the
 * worker that parses its stdout, the stdin the monitor writes, its
 * handshake and listing, and the requests in flight toward it.
 *
 * upstream.c owns a struct upstream; surface.c owns its pins and the
 * listings it keeps (pins, current), gate.c reads `unsettled`.  A
 * request in flight (struct pending) is upstream.c's until it ends, in
 * its requester's done callback.
 */
#ifndef BNC_UPSTREAM_H
#define BNC_UPSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "child.h"
#include "msg.h"

struct evbuffer;
struct event;
struct pin;
struct session;
struct upstream_cfg;
struct value;

enum upstream_state {
	UP_STARTED = 0,		/* spawned; its worker may not have said hello */
	UP_INIT_SENT,		/* initialize written */
	UP_LISTING,		/* reading tools/list pages to pin */
	UP_READY,
	UP_FAILED,		/* start-up failed; the session cannot start */
	UP_DEAD			/* exited after start-up */
};

/*
 * How a request toward an upstream ended, for the done callback its
 * requester gave (upstream_request).
 */
enum pend_end {
	PEND_ANSWER = 1,	/* m: the upstream's result or error */
	PEND_UNUSABLE,		/* m: our error: its answer could not be used */
	PEND_GONE		/* m: NULL: the upstream went away */
};

struct pending;
struct upstream;

/*
 * A request in flight toward an upstream.  It ends once, in its
 * requester's done callback (NULL: the answer is discarded), or it is
 * dropped without one when the client cancels it.  arg is the
 * requester's, one allocation, freed with free() once it ends.
 */
struct pending {
	int64_t		 uid;		/* id we sent upstream */
	struct rpc_id	 cid;		/* for the client: its id; else
					 * RPC_ID_NONE */
	struct value	*progress;	/* the client's progressToken or NULL */
	char		*method;
	void		(*done)(struct upstream *, const struct pending *,
			    enum pend_end, struct rpc *m);
	void		*arg;
	size_t		 mem;		/* charged to the session */
};

/* What upstream_request() is asked to remember of a request. */
struct pending_req {
	void		(*done)(struct upstream *, const struct pending *,
			    enum pend_end, struct rpc *m);
	void		*arg;		/* taken, even when the request fails */
	size_t		 arg_mem;	/* what arg holds, charged with it */
	const struct rpc_id *cid;	/* forwarded: the client's id */
	const struct value *progress;	/* forwarded: its progressToken */
};

struct upstream {
	struct session		*s;
	const struct upstream_cfg *cfg;
	char			*name;
	enum upstream_state	 state;
	struct child		 proc;		/* the server itself */
	struct child		 worker;	/* parses its stdout */
	int			 in_fd;		/* its stdin, written by us */
	struct event		*wev;
	struct evbuffer		*out;
	size_t			 out_mem;	/* charged: what out holds */
	int			 in_closed;
	int64_t			 next_id;
	struct pending		*pend;
	size_t			 npend;
	/* from initialize */
	char			*version;
	struct value		*caps;
	struct value		*info;
	char			*instructions;
	/* pins, taken from the first complete tools/list */
	struct pin		*pins;
	size_t			 npins;
	uint8_t			 surface_hash[32];
	int			 pinned;
	/* the listing in progress */
	struct value		*listing;	/* array of tool objects */
	unsigned		 pages;
	int			 relist;	/* list_changed while listing */
	/*
	 * Between a list_changed and the answer to our re-listing, the
	 * upstream's tools are unsettled: gate.c holds calls to them, in
	 * order, and decides them against the new list (a rug pull cannot
	 * slip a call through that window).
	 */
	int			 unsettled;
	/* current tools, as last listed: a pin is visible if unchanged */
	struct value		*current;	/* array, or NULL = pins */
	char			*fail_reason;
	size_t			 listing_mem;	/* charged: the listing in progress */
	size_t			 pins_mem;	/* charged: pins and the surface's
						 * copies of them */
	size_t			 current_mem;	/* charged: current */
};

void	 upstream_start(struct upstream *);
void	 upstream_setup_io(struct upstream *);
int	 upstream_send(struct upstream *, const struct rpc_out *);
/*
 * Sends a request (params taken) and remembers it until its answer: its
 * id, or -1 if it was not sent (not running, its input closed,
 * BNC_PENDING_MAX in flight, no memory, too large).
 */
int64_t	 upstream_request(struct upstream *, const char *method,
	    struct value *params, const struct pending_req *);
/* The usual done of a request forwarded for the client. */
void	 upstream_to_client(struct upstream *, const struct pending *,
	    enum pend_end, const struct rpc *m);
void	 upstream_notify(struct upstream *, const char *method,
	    struct value *params);
void	 upstream_reply(struct upstream *, const struct rpc_id *,
	    struct value *result);
void	 upstream_reply_error(struct upstream *, const struct rpc_id *,
	    int64_t code, const char *msg);
void	 upstream_children_init(struct upstream *);
struct pending *upstream_find_cid(struct upstream *, const struct rpc_id *);
void	 upstream_drop_pending(struct upstream *, struct pending *);
/* The memory a request sent with params keeps while in flight. */
size_t	 upstream_pending_need(const struct value *params);
void	 upstream_close_input(struct upstream *);
void	 upstream_fail(struct upstream *, const char *reason);
int	 upstream_has_cap(const struct upstream *, const char *cap);

#endif /* BNC_UPSTREAM_H */
