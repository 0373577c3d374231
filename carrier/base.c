/*
 * base.c - the loopback rule for a carrier's -b (DESIGN 2).
 *
 * The monitor connects the socket a request goes over, and it refuses
 * any api_base but a loopback one; the carrier refuses it once more
 * here, by itself, because a credential sent in clear to another host
 * is lost whoever made the mistake.  It must never accept a scheme but
 * http, a host but the three loopback spellings, user information, a
 * path, a query or a fragment.
 */
#include <stdio.h>
#include <string.h>

#include "base.h"
#include "work.h"

static const struct loopback_host {
	const char	*spelled;	/* between "http://" and ":PORT" */
	const char	*resolve;	/* a name libcurl must not resolve */
} loopback_hosts[] = {
	{ "127.0.0.1", "" },
	{ "[::1]", "" },
	{ "localhost", "localhost" },
};

#define BASE_SCHEME	"http://"
#define BASE_PORT_DIGITS 5

int
base_parse(const char *s, struct carrier_base *b, const char **why)
{
	const struct loopback_host *h = NULL;
	const char *p;
	size_t i, n;
	unsigned int port = 0;

	memset(b, 0, sizeof(*b));
	if (strlen(s) >= sizeof(b->origin)) {
		*why = "too long";
		return -1;
	}
	if (strncmp(s, BASE_SCHEME, strlen(BASE_SCHEME)) != 0) {
		*why = "not http:// (only a loopback http base may be set)";
		return -1;
	}
	p = s + strlen(BASE_SCHEME);
	for (i = 0; i < sizeof(loopback_hosts) / sizeof(loopback_hosts[0]);
	    i++) {
		n = strlen(loopback_hosts[i].spelled);
		if (strncmp(p, loopback_hosts[i].spelled, n) == 0 &&
		    p[n] == ':') {
			h = &loopback_hosts[i];
			p += n + 1;
			break;
		}
	}
	if (h == NULL) {
		*why = "not 127.0.0.1, [::1] or localhost with a port";
		return -1;
	}
	for (n = 0; p[n] >= '0' && p[n] <= '9' && n <= BASE_PORT_DIGITS; n++)
		port = port * 10 + (unsigned int)(p[n] - '0');
	if (n == 0 || n > BASE_PORT_DIGITS || p[0] == '0' || port > 65535) {
		*why = "not a port 1-65535";
		return -1;
	}
	if (p[n] != '\0' && !(p[n] == '/' && p[n + 1] == '\0')) {
		*why = "more than a scheme, a host and a port";
		return -1;
	}
	b->loopback = 1;
	b->port = port;
	snprintf(b->origin, sizeof(b->origin), "%s%s:%u", BASE_SCHEME,
	    h->spelled, port);
	snprintf(b->host, sizeof(b->host), "%s", h->resolve);
	return 0;
}

void
base_vendor(const char *host, struct carrier_base *b)
{
	memset(b, 0, sizeof(*b));
	b->port = WORK_HTTPS_PORT;
	b->ca = WORK_CA_BUNDLE;
	snprintf(b->origin, sizeof(b->origin), "https://%s", host);
	snprintf(b->host, sizeof(b->host), "%s", host);
}
