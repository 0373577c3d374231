/*
 * gate.h - the path of one tools/call, and of one request for a
 * prompt, a resource or a completion: decide, record, ask, forward
 * (DESIGN 5, 9, 10).
 *
 * gate.c owns the calls that wait: for a human (s->asks) and for a
 * changed tool list (s->held); and it alone writes decision rows.
 */
#ifndef BNC_GATE_H
#define BNC_GATE_H

struct request;
struct rpc;
struct rpc_id;
struct session;
struct tool_entry;
struct upstream;
struct value;

void	 gate_tool_call(struct session *, struct rpc *);
void	 gate_release_held(struct upstream *);
int	 gate_client_answer(struct session *, struct rpc *);
void	 gate_forward(struct session *, const struct tool_entry *,
	    const struct rpc_id *, const struct value *params,
	    int strip_consent);
void	 gate_audit_event(struct session *, const char *event,
	    const char *reason);
/* The one row of a session whose agent the registry does not know. */
void	 gate_audit_identity(struct session *);
void	 gate_not_sent(struct session *, const struct upstream *,
	    const struct rpc_id *cid, const char *what);
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

#endif /* BNC_GATE_H */
