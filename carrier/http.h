/*
 * http.h - one HTTP exchange over the socket the monitor connected
 * (DESIGN 2, "Network for carriers"), with libcurl.
 */
#ifndef BNC_HTTP_H
#define BNC_HTTP_H

#include <stddef.h>

#include "base.h"
#include "carrier.h"

/*
 * Before the sandbox: loads the CA bundle (for the vendor's https base),
 * initialises libcurl with allocators that zero what they free, and
 * makes the transfer loop, whose wake-up socket pair libcurl creates
 * now rather than under the filter.  Returns 0, or -1 with err.
 */
int	http_init(const struct carrier_service *,
	    const struct carrier_base *, char *err, size_t errlen);
/*
 * Sends req over conn's socket and reads the answer into resp (which
 * the caller clears with http_resp_clear).  libcurl opens no socket, runs
 * no resolver, follows no redirect, uses no proxy and never retries; the
 * connection is closed after the exchange unless req->keep.
 */
void	http_exchange(struct http_conn *, const struct http_req *,
	    struct http_resp *);
void	http_resp_clear(struct http_resp *);
/*
 * After a call: closes the socket if libcurl never took it; libcurl
 * still holding it is a broken invariant (fatal).
 */
void	http_conn_done(struct http_conn *);

#endif /* BNC_HTTP_H */
