/*
 * args.h - a call's arguments checked against its table row (DESIGN 8).
 */
#ifndef BNC_ARGS_H
#define BNC_ARGS_H

#include <stddef.h>

#include "carrier.h"

struct value;

/*
 * Checks the call's arguments (an object of strings, as msg.c decoded
 * it) against the row: each of the row's arguments is there unless
 * optional, no other is, and each passes its validator.  out gets the
 * canonical forms, in the row's order.  Returns 0, or -1 with a reason
 * in why (which names the argument, never its value).
 */
int	args_check(const struct carrier_endpoint *, const struct value *,
	    struct carrier_args *out, char *why, size_t whysz);
void	args_clear(struct carrier_args *);
/* The argument called name, or NULL. */
const struct carrier_arg *args_get(const struct carrier_args *,
	    const char *name);
/*
 * In a probe: is s[0..len) what a call of this kind would put in a path,
 * exactly?  (Its validator accepts it and it is its own canonical form;
 * for a channel, one of the webhook paths.)
 */
int	args_match(enum carrier_argkind, const char *s, size_t len);

#endif /* BNC_ARGS_H */
