/*
 * filter.h - the response filters: a vendor's answer as the typed
 * fields of work.h, and a vendor's error as a code and a message.
 *
 * Filters parse attacker-shaped bytes (whoever answers for the vendor),
 * in the carrier only (DESIGN 2); each is fuzzed (regress/fuzz).  A
 * filter returns 0 with *out set, or -1 when the body is not what its
 * endpoint answers (then *out may hold a partial tree the caller
 * frees).  Every string out is valid UTF-8 within its bound.
 */
#ifndef BNC_FILTER_H
#define BNC_FILTER_H

#include "carrier.h"

struct buf;
struct msg_carrier_result;
struct value;

/* Notion (notion-filter.c) */
int	notion_filter_database(const struct http_resp *,
	    const struct carrier_args *, struct value **);
int	notion_filter_query(const struct http_resp *,
	    const struct carrier_args *, struct value **);
int	notion_filter_page(const struct http_resp *,
	    const struct carrier_args *, struct value **);
int	notion_filter_comments(const struct http_resp *,
	    const struct carrier_args *, struct value **);
int	notion_filter_comment(const struct http_resp *,
	    const struct carrier_args *, struct value **);
int	notion_filter_noop(const struct http_resp *,
	    const struct carrier_args *, struct value **);
void	notion_filter_error(const struct http_resp *,
	    struct msg_carrier_result *);
/*
 * The audit's update: the property op names set to the value the page
 * read (got, a GET's answer, any status) has now, or {"properties":{}}
 * when it could not be read.  Appends to out; returns 0 or -1.
 */
int	notion_filter_noop_body(const struct http_resp *got, const char *op,
	    struct buf *out);

/* GitHub (github-filter.c) */
int	github_filter_comment(const struct http_resp *,
	    const struct carrier_args *, struct value **);
void	github_filter_error(const struct http_resp *,
	    struct msg_carrier_result *);

/* Slack (slack-filter.c) */
int	slack_filter_post(const struct http_resp *,
	    const struct carrier_args *, struct value **);
void	slack_filter_error(const struct http_resp *,
	    struct msg_carrier_result *);

#endif /* BNC_FILTER_H */
