/*
 * call.h - one call of an endpoint (MSG_CARRIER_CALL).
 */
#ifndef BNC_CALL_H
#define BNC_CALL_H

#include <stdint.h>

#include "carrier.h"

struct msg_carrier_result;
struct value;

/*
 * Runs endpoint with args over the socket fd (which it owns from here
 * on, and closes) and says what became of it in res.
 */
void	call_run(const struct carrier_service *, uint16_t endpoint,
	    const struct value *args, int fd, struct msg_carrier_result *res);
/*
 * One request of a row: the request-line check, then the exchange.
 * Returns 0 with *resp filled (the caller clears it), or -1 with res a
 * refusal and nothing sent.
 */
int	call_request(const struct carrier_service *, struct http_conn *,
	    const struct http_req *, struct http_resp *,
	    struct msg_carrier_result *res);

#endif /* BNC_CALL_H */
