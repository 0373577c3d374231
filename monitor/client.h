/*
 * client.h - the monitor as an MCP server to its one client.
 *
 * client.c owns the client's side of the session: its version and
 * capabilities, the requests queued while upstreams start, the frames
 * of the client worker, and the client's stdout, which the monitor
 * writes itself.
 */
#ifndef BNC_CLIENT_H
#define BNC_CLIENT_H

#include <stdint.h>

struct rpc_id;
struct rpc_out;
struct session;
struct value;

/* The JSON-RPC error of every request of an agent the registry does
 * not know (a server error, in JSON-RPC's -32000..-32099). */
#define CLIENT_ERR_IDENTITY	(-32001)

/* 1 if bouncer speaks MCP version v */
int	 client_version_supported(const char *v);
/*
 * Renders m as one line for the client and writes it to the client's
 * stdout, or queues it (charged to the session's memory).
 */
void	 client_send(struct session *, const struct rpc_out *);
void	 client_send_error(struct session *, const struct rpc_id *, int64_t,
	    const char *);
void	 client_send_result(struct session *, const struct rpc_id *,
	    struct value *);
void	 client_notify(struct session *, const char *method,
	    struct value *params);
void	 client_upstream_ready(struct session *);
void	 client_worker_init(struct session *);
/* fd is the client's stdout (made non-blocking); after the config and
 * the memory account, before anything is sent. */
void	 client_output_init(struct session *, int fd);
/* At exit: what is queued waits BNC_CLIENT_FLUSH_MS at most; never
 * calls fatal(). */
void	 client_flush(struct session *);

#endif /* BNC_CLIENT_H */
