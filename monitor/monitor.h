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
#include "surface.h"
#include "upstream.h"

struct approvals;
struct ask;
struct audit;
struct carriers;
struct config;
struct consent_keys;
struct held_call;
struct policy;
struct registry;
struct registry_agent;
struct relay;
struct route;
struct taint;
struct value;

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
	/* its stdout, which the monitor writes (client.c) */
	int			 out_fd;	/* -1: none, or it broke */
	int			 out_pollable;	/* else a file: never waits */
	struct evbuffer		*out;		/* lines not yet written */
	struct event		*out_ev;	/* writable, while queued */
	size_t			 out_mem;	/* charged for what out holds */
	size_t			 out_high;	/* past it the client worker is
						 * held; under half, released */
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
	char			*start_error;	/* the start failed: every
						 * request but ping is refused
						 * with this */
	int			 wait_client;	/* ...and the session ends at
						 * the client's EOF (or a
						 * signal), not before */
	/* everything it holds but the taint index (max_session_memory) */
	struct memacct		 mem;
	/* the contract engine */
	char			 id[33];	/* session id for the audit */
	const char		*agent;		/* its id; "-": the implicit agent
						 * (no registry); "unknown": a
						 * registry, and no known token */
	struct registry		*registry;	/* agents.yaml, or NULL */
	struct consent_keys	*consent_keys;	/* consent.keys, or NULL:
						 * no token is good */
	const struct registry_agent *grant;	/* the agent's entry, or NULL:
						 * the implicit agent */
	const char		*identity_error; /* a registry, and no agent:
						 * every request is refused
						 * with this */
	char			*cwd;		/* base of relative paths */
	struct policy		*policy;
	struct taint		*taint;
	struct approvals	*approvals;
	struct audit		*audit;
	struct budgets		 budgets;	/* max_calls spent */
	struct decide_ctx	 dc;		/* borrows the above */
	struct ask		*asks[BNC_ASKS_MAX];
	size_t			 nasks;
	struct event		*oob_poll;	/* gate.c's: looks for out-of-
						 * band answers */
	struct held_call	*held;		/* gate.c's: calls that wait for
						 * a changed tool list */
	size_t			 nheld;
	struct route		*routes;
	size_t			 nroutes;
	size_t			 ntemplates;	/* 't' routes */
	struct carriers		*carriers;	/* carriers.c's: work systems */
	char			*data_source;	/* builtin.c's: the Notion task
						 * data source, once found */
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

#endif /* BNC_MONITOR_H */
