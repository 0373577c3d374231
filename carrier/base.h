/*
 * base.h - where a carrier's requests go (DESIGN 2, "Network for
 * carriers"): the vendor's https host, or, for tests and local mirrors
 * only, a loopback http base given with -b.
 */
#ifndef BNC_BASE_H
#define BNC_BASE_H

#include "bounds.h"

struct carrier_base {
	int		 loopback;	/* http to a loopback address */
	/* scheme://host[:port] */
	char		 origin[BNC_CARRIER_BASE_MAX];
	/* the name for CURLOPT_RESOLVE; "" for an address literal */
	char		 host[BNC_CARRIER_BASE_MAX];
	unsigned int	 port;
	const char	*ca;		/* the CA bundle (https only) */
};

/*
 * A -b argument: exactly http://127.0.0.1:PORT, http://[::1]:PORT or
 * http://localhost:PORT (PORT 1..65535 in decimal, no leading zero), an
 * optional final "/", nothing else.  Returns 0, or -1 with *why.
 */
int	base_parse(const char *, struct carrier_base *, const char **why);
/* The vendor's own base: https://HOST, port 443. */
void	base_vendor(const char *host, struct carrier_base *);

#endif /* BNC_BASE_H */
