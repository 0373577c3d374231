/*
 * route.h - resources, prompts and completions across upstreams
 * (DESIGN 4, 5, "Not only tools/call").
 *
 * route.c owns the session's routes (s->routes: each URI, template and
 * prompt name an upstream listed or linked to, and who did); gate.c
 * decides a request before route_forward() sends it.
 */
#ifndef BNC_ROUTE_H
#define BNC_ROUTE_H

#include <stddef.h>

struct request;
struct rpc;
struct rpc_id;
struct session;
struct upstream;
struct value;

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

#endif /* BNC_ROUTE_H */
