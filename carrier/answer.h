/*
 * answer.h - the outcome of a call, as the monitor is told it
 * (msg_carrier_result, enum carrier_status of work.h).
 */
#ifndef BNC_ANSWER_H
#define BNC_ANSWER_H

#include <stddef.h>

#include "carrier.h"

struct msg_carrier_result;

/* CARRIER_REFUSED with code and a message: nothing reached the network. */
void	answer_refused(struct msg_carrier_result *, const char *code,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* CARRIER_OK with data (taken). */
void	answer_ok(struct msg_carrier_result *, struct value *data);
/*
 * What the vendor's answer to ep's request means: a 2xx body through
 * ep->filter (CARRIER_OK, or CARRIER_BAD_RESPONSE), 429 (and Notion's
 * 529) CARRIER_RATE
 * with a bounded retry_after, another status CARRIER_API with the
 * vendor's code and message from svc->error, no answer CARRIER_NET.
 */
void	answer_http(const struct carrier_service *svc,
	    const struct carrier_endpoint *ep, const struct carrier_args *,
	    const struct http_resp *, struct msg_carrier_result *);
/* Sets the result's code from a vendor's: [A-Za-z0-9_.-] only, at most
 * BNC_CARRIER_CODE_MAX bytes; none left: "http_<status>". */
void	answer_code(struct msg_carrier_result *, const char *s, size_t len,
	    long status);
/* Sets the result's message from a vendor's: one line of valid UTF-8,
 * at most BNC_CARRIER_MESSAGE_MAX bytes. */
void	answer_message(struct msg_carrier_result *, const char *s,
	    size_t len);

#endif /* BNC_ANSWER_H */
