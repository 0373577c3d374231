/*
 * monitor.h - the monitor's session state, shared by its modules.
 *
 * One monitor process serves one session: one MCP client (through the
 * client worker) and the upstream servers it wraps.  Everything a
 * decision needs lives here, in the monitor, never in a child.
 *
 * The session's states and events are session.h's.
 */
#ifndef BNC_MONITOR_H
#define BNC_MONITOR_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>
#include <event2/buffer.h>

#include "bounds.h"
#include "child.h"
#include "decide.h"
#include "frame.h"
#include "memory.h"
#include "msg.h"
#include "session.h"

struct approvals;
struct ask;
struct audit;
struct errpipe;
struct held_call;
struct request;
struct uritemplate;
struct config;
struct policy;
struct relay;
struct taint;
struct upstream_cfg;
struct value;

struct upstream;
struct session;

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
struct rpc;

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

#define ROUTE_LIST_RESOURCES	1
#define ROUTE_LIST_TEMPLATES	2
#define ROUTE_LIST_PROMPTS	3

/*
 * A resource URI ('r'), resource template ('t') or prompt name ('p') and
 * who listed it (a URI also: who linked to it in a result); other: a
 * second upstream listed it too, and it is routed to neither.
 */
struct route {
	char		 kind;
	char		*name;
	struct upstream	*up;
	struct upstream	*other;
	struct uritemplate *tmpl;	/* 't': compiled (NULL: matches
					 * nothing) */
	char		**args;		/* 'p': the arguments it declares */
	size_t		 nargs;
	size_t		 mem;		/* charged: the route and its name */
	size_t		 args_mem;	/* charged: args */
};

enum upstream_state {
	UP_STARTED = 0,		/* spawned; its worker may not have said hello */
	UP_INIT_SENT,		/* initialize written */
	UP_LISTING,		/* reading tools/list pages to pin */
	UP_READY,
	UP_FAILED,		/* start-up failed; the session cannot start */
	UP_DEAD			/* exited after start-up */
};

struct pin {
	char		*name;		/* the upstream's tool name */
	uint8_t		 hash[32];	/* SHA-256 of the canonical definition */
	struct value	*def;
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

/* One entry of the merged tool surface shown to the client. */
struct tool_entry {
	char		*exposed;	/* name the client sees */
	struct upstream	*up;
	const struct pin *pin;
	struct value	*listed;	/* definition with the exposed name */
	int		 visible;	/* unchanged since pinning */
	int		 forbidden;	/* in the forbidden write set */
	char		*withheld;	/* not listed, denied: why (DESIGN 5,
					 * Names), or NULL */
};

/* A call waiting for a human's answer to an elicitation/create. */
struct ask {
	int64_t		 sid;		/* id of our elicitation request */
	struct rpc_id	 cid;		/* the client's tools/call id */
	char		*tool;		/* the name the client called */
	struct value	*params;	/* the call, to forward once allowed */
	char		*param;		/* what is asked about, or NULL */
	char		*value;
	size_t		 len;
	int		 once;		/* a confirmation, not remembered */
	int		 confirmed;	/* a human confirmed this call */
	char		*method;	/* NULL: a tools/call; else the method
					 * of a request route.c forwards */
	char		*key;		/* requests: what approvals call it */
	char		*upname;	/* requests: its owner (the audit) */
	int		 rounds;	/* questions left for this call */
	char		*reason;	/* the question's reason */
	const char	*contract;	/* the contract that asked (static) */
	char		**sinks;	/* its destination arguments (audit) */
	size_t		 nsinks;
	struct event	*timer;
	struct session	*s;
	size_t		 mem;		/* charged to the session */
};

struct session {
	struct event_base	*base;
	struct config		*cfg;
	const char		*libexec;
	enum session_state	 state;
	struct child		 client;
	struct upstream		*ups;
	size_t			 nups;
	/* the client */
	char			 version[BNC_VERSION_MAX + 1];
	struct value		*client_caps;
	struct value		*client_info;
	struct rpc_id		 init_id;	/* initialize awaiting upstreams */
	struct rpc		*queued;	/* sent while upstreams start */
	size_t			 nqueued;
	size_t			 queued_mem;	/* charged for them */
	int			 client_initialized;
	/* relayed upstream -> client requests */
	struct relay		*relays;
	size_t			 nrelays;
	int64_t			 next_sid;
	/* the merged, pinned surface */
	struct tool_entry	*tools;
	size_t			 ntools;
	struct event		*start_timer;
	struct event		*grace_timer;
	int			 grace_stage;
	int			 force_close;	/* grace ran out: stop waiting */
	struct event		*sig_chld, *sig_term, *sig_int, *sig_hup;
	int			 exit_code;
	int			 started;	/* every worker said hello and the
						 * start row is written */
	/* everything it holds but the taint index (max_session_memory) */
	struct memacct		 mem;
	/* the contract engine */
	char			 id[33];	/* session id for the audit */
	const char		*agent;		/* "-": the implicit agent */
	char			*cwd;		/* base of relative paths */
	struct policy		*policy;
	struct taint		*taint;
	struct approvals	*approvals;
	struct audit		*audit;
	struct budgets		 budgets;	/* max_calls spent */
	struct decide_ctx	 dc;		/* borrows the above */
	struct ask		*asks[BNC_ASKS_MAX];
	size_t			 nasks;
	struct held_call	*held;		/* gate.c's: calls that wait for
						 * a changed tool list */
	size_t			 nheld;
	struct route		*routes;
	size_t			 nroutes;
	size_t			 ntemplates;	/* 't' routes */
};

/* monitor.c */
void	 cleanup_exit(int) __attribute__((noreturn));

/*
 * Who owns what a send function is given, for every one of them
 * (client_*, upstream_*, relay_*, route_forward, gate_forward): a
 * `struct value *` is taken, and the function frees it on every path,
 * sent or not; a `const struct value *`, and all a `const struct rpc *`
 * or `const struct rpc_out *` points to, is borrowed and stays the
 * caller's.  What bouncer makes up is sent as a struct rpc_out, whose
 * fields are const: no cast strips a string's const to send it.
 */

/* client.c: the monitor as the client's server */
int	 mcp_version_supported(const char *);
void	 client_send(struct session *, const struct rpc_out *);
void	 client_send_error(struct session *, const struct rpc_id *, int64_t,
	    const char *);
void	 client_send_result(struct session *, const struct rpc_id *,
	    struct value *);
void	 client_notify(struct session *, const char *method,
	    struct value *params);
void	 client_upstream_ready(struct session *);
void	 client_worker_init(struct session *);

/* upstream.c */
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

/* gate.c: the path of a tools/call through the contract engine */
void	 gate_tool_call(struct session *, struct rpc *);
void	 gate_release_held(struct upstream *);
int	 gate_client_answer(struct session *, struct rpc *);
void	 gate_forward(struct session *, const struct tool_entry *,
	    const struct rpc_id *, const struct value *params);
void	 gate_audit_event(struct session *, const char *event,
	    const char *reason);
void	 gate_not_sent(struct session *, const struct rpc_id *cid,
	    const char *what);
void	 gate_cancel_all(struct session *);
/* The client cancelled a call that waits in the gate (for a human, or
 * for a changed tool list): 1 if it was there; it is not forwarded. */
int	 gate_cancel(struct session *, const struct rpc_id *cid);

/*
 * The path of a request for a prompt, a resource or a completion: decide,
 * record, ask, forward through route_forward; and of a list request:
 * record, then forward (0), or deny (-1, the client was answered).
 */
void	 gate_request(struct session *, struct rpc *);
int	 gate_notice(struct session *, struct upstream *, const char *method,
	    const struct value *params);
int	 gate_list(struct session *, struct upstream *, const struct rpc *,
	    const struct value *params);

/* route.c: resources, prompts and completions across upstreams */
void	 route_request(struct session *, struct rpc *, const char *cap);
void	 route_result(struct upstream *, int list, int index,
	    struct value *result);
/*
 * What a request names and who listed it, for decide_request.  0, or -1
 * for a malformed request (why says what is missing: -32602).  Clear
 * req with request_clear either way.
 */
int	 route_resolve(struct session *, const char *method,
	    const struct value *params, struct request *req, char *why,
	    size_t whylen);
/* Sends the client's request (a copy of params) to up with the client's
 * id; answers the client itself if it cannot. */
void	 route_forward(struct session *, struct upstream *, const char *method,
	    const struct rpc_id *cid, const struct value *params);

/* surface.c: pins and the merged tool surface */
int	 surface_pin(struct upstream *, struct value *tools, char *err,
	    size_t errlen);
int	 surface_update(struct upstream *, struct value *tools);
void	 surface_build(struct session *);
/* The entry the client means by name: one that is not withheld, else a
 * withheld one (its reason), else NULL. */
const struct tool_entry *surface_find(const struct session *, const char *);
struct value *surface_page(const struct session *, const char *cursor,
	    int *bad);

#endif /* BNC_MONITOR_H */
