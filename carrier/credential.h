/*
 * credential.h - the one credential a carrier holds (DESIGN 2,
 * "Credentials"): read from fd 4 at start-up into sodium_malloc memory,
 * read-only from then on, sent nowhere but to the vendor.
 */
#ifndef BNC_CREDENTIAL_H
#define BNC_CREDENTIAL_H

#include <stddef.h>

#include "carrier.h"

/*
 * Reads fd 4 to its end (at most BNC_CARRIER_CREDENTIAL_MAX bytes) and
 * closes it.  CRED_TOKEN: one token of printable ASCII without spaces,
 * one trailing newline allowed.  CRED_WEBHOOKS: lines
 * "CHANNEL<TAB>https://hooks.slack.com/services/T.../B.../...", each
 * channel and path validated, no channel twice.  sodium_init() must have
 * run.  Returns 0, or -1 with a message in err that holds no part of the
 * credential.
 */
int	 credential_load(enum carrier_cred, char *err, size_t errlen);
/* CRED_TOKEN: "Authorization: Bearer TOKEN", in credential memory. */
const char *credential_auth_header(void);
/* CRED_WEBHOOKS: the webhook path of a channel, a C string of *lenp
 * bytes in credential memory, or NULL. */
const char *credential_webhook(const char *channel, size_t len,
	    size_t *lenp);
/* CRED_WEBHOOKS: is s[0..len) one of the webhook paths?  Compared in
 * constant time for each path of the same length. */
int	 credential_webhook_known(const char *s, size_t len);

#endif /* BNC_CREDENTIAL_H */
