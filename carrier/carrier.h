/*
 * carrier.h - what the parts of a carrier share (DESIGN 8).
 *
 * A carrier is one service (Notion in one mode, GitHub, Slack) whose
 * static const table of endpoints is all it can send: a row names the
 * endpoint id the monitor asks for, the method, the path template, the
 * arguments and how each is validated, how the body is built, how the
 * vendor's answer becomes typed fields, the most of it read, and
 * whether the request writes.  Nothing outside a row reaches the
 * network, and the finished request line passes reqline_check() too.
 *
 * Path templates: literal text, {name} for an argument's canonical form,
 * and [...] around a part that is there only when its arguments are:
 * "/v1/comments?block_id={page_id}[&start_cursor={cursor}]".
 */
#ifndef BNC_CARRIER_H
#define BNC_CARRIER_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "reqline.h"

struct buf;
struct value;
struct msg_carrier_result;

/* How an argument is validated (args.c holds one row per kind). */
enum carrier_argkind {
	ARG_NOTION_ID = 1,	/* canonical: dashed, lower case */
	ARG_CURSOR,
	ARG_STATUS,
	ARG_NOTION_TEXT,	/* a comment: chunked by the body builder */
	ARG_GITHUB_OWNER,
	ARG_GITHUB_REPO,
	ARG_ISSUE,		/* canonical: decimal, as validated */
	ARG_GITHUB_TEXT,
	ARG_CHANNEL,		/* in a path: the channel's webhook path */
	ARG_SLACK_TEXT,
	ARG_NOOP_OP		/* owner, due, status, property, trash */
};

struct carrier_argdef {
	const char	*name;		/* NULL ends the row's list */
	enum carrier_argkind kind;
	int		 optional;
};

/* One argument of a call, validated. */
struct carrier_arg {
	const char	*name;		/* the row's */
	enum carrier_argkind kind;
	char		*val;		/* canonical form; owned */
	size_t		 len;
	const char	*path;		/* ARG_CHANNEL: its webhook path,
					 * in credential memory */
	size_t		 pathlen;
};

struct carrier_args {
	struct carrier_arg a[BNC_CARRIER_ARGS_MAX];
	size_t		 n;
};

/* libcurl's CURL_ERROR_SIZE (http.c checks that they agree). */
#define HTTP_ERRBUF_SIZE	256

/* The answer of one HTTP exchange (http.c fills it). */
struct http_resp {
	long		 status;	/* HTTP status; 0: no answer */
	struct buf	*body;		/* at most the row's cap */
	int		 over_cap;	/* the body was longer: cut off */
	long		 retry_after;	/* Retry-After seconds; -1: none
					 * or not an integer */
	int		 curl_err;	/* CURLcode of the exchange */
	int		 sent;		/* a request byte may have left */
	char		 errbuf[HTTP_ERRBUF_SIZE]; /* libcurl's words */
};

struct carrier_service;
struct carrier_endpoint;

/* One request a row's run() makes (http.c). */
struct http_req {
	const char	*method;
	const char	*path;		/* with its query */
	const char	*body;		/* NULL: none */
	size_t		 bodylen;
	size_t		 cap;		/* most of the answer read */
	int		 keep;		/* another request follows on
					 * this connection */
};

/* The connection a call came with: the socket the monitor connected. */
struct http_conn {
	int		 fd;
	int		 handed;	/* given to libcurl */
	int		 closed;	/* libcurl closed it */
};

struct carrier_endpoint {
	uint16_t	 id;		/* enum carrier_ep */
	const char	*method;
	const char	*path;		/* template, see above */
	struct carrier_argdef args[BNC_CARRIER_ARGS_MAX];
	/* the request's JSON body, appended to out; NULL: no body */
	int		(*body)(const struct carrier_args *,
			    struct buf *out);
	/* a 2xx answer's body as the endpoint's typed fields (work.h);
	 * -1: not what this endpoint answers */
	int		(*filter)(const struct http_resp *,
			    const struct carrier_args *, struct value **out);
	/* NULL: one request, made of the above; else the row makes its
	 * own (the audit's read-then-write) */
	void		(*run)(const struct carrier_service *,
			    const struct carrier_endpoint *,
			    const struct carrier_args *, struct http_conn *,
			    struct msg_carrier_result *);
	size_t		 cap;		/* <= BNC_CARRIER_RESPONSE_MAX */
	int		 write;
};

enum carrier_cred {
	CRED_TOKEN = 1,			/* a bearer token */
	CRED_WEBHOOKS			/* lines CHANNEL<TAB>WEBHOOK-URL */
};

struct carrier_service {
	const char	*name;		/* log tag: carrier:<name> */
	const char	*mode;		/* its -m, or NULL */
	const char	*host;		/* the vendor's, for TLS */
	int		 role;		/* enum bnc_role */
	enum reqline_set rlset;
	enum carrier_cred cred;
	/* header lines sent with every request, NULL-terminated; the
	 * bearer token is added to them for CRED_TOKEN */
	const char *const *headers;
	const struct carrier_endpoint *ep;
	size_t		 nep;
	/* a non-2xx answer's vendor code and message */
	void		(*error)(const struct http_resp *,
			    struct msg_carrier_result *);
};

/* Refusal codes (CARRIER_REFUSED): which check said no. */
#define REFUSE_NO_ENDPOINT	"no-endpoint"
#define REFUSE_ARGUMENT		"bad-argument"
#define REFUSE_REQUEST_LINE	"request-line"

/* main.c: the common main of a carrier, given the services it can be. */
int	carrier_main(int argc, char **argv,
	    const struct carrier_service *const *svcs, size_t nsvcs);

#endif /* BNC_CARRIER_H */
