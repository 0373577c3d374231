/*
 * relay.h - requests an upstream makes of the client (elicitation,
 * roots, sampling), relayed under an id of ours (DESIGN 4).
 *
 * The client answers our id; the answer goes back to the upstream
 * that asked, under its own id.  An upstream never learns the client's
 * ids, nor the client an upstream's.  The relays live in the session
 * (s->relays) and are charged to its memory; relay.c alone reads them.
 */
#ifndef BNC_RELAY_H
#define BNC_RELAY_H

struct rpc;
struct session;
struct upstream;
struct value;

/* A request from up: relayed if the client offered its capability. */
void	 relay_request(struct session *, struct upstream *up,
	    const struct rpc *);
/* up cancelled one of its requests: the client is told, under our id. */
void	 relay_cancel(struct session *, struct upstream *up,
	    const struct value *params);
/* The client's answer m to a relayed request: 1 if it was one (sent on
 * to its upstream), 0 if m answers something else. */
int	 relay_answer(struct session *, struct rpc *m);
/* up is gone: its relayed requests are forgotten. */
void	 relay_drop(struct session *, const struct upstream *up);

#endif /* BNC_RELAY_H */
