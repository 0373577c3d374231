/*
 * work.h - what the monitor and the carriers agree on (DESIGN 7, 8):
 * the endpoints a carrier's table may hold, the arguments each takes,
 * the typed fields each answers with, the vendors' hosts and the
 * outcomes of a call.
 *
 * This is the whole interface: the monitor never sends a URL, a method
 * or a header, only an endpoint id and these arguments, and it reads
 * only these fields back (as a typed tree, never JSON).  A carrier
 * refuses an endpoint its own table does not hold, so a notion-read
 * carrier asked for CEP_NOTION_COMMENT answers CARRIER_REFUSED.
 */
#ifndef BNC_WORK_H
#define BNC_WORK_H

/* The vendors' hosts, compiled in: TLS is checked against these names. */
#define WORK_NOTION_HOST	"api.notion.com"
#define WORK_GITHUB_HOST	"api.github.com"
#define WORK_SLACK_HOST		"hooks.slack.com"
#define WORK_HTTPS_PORT		443
#define WORK_NOTION_VERSION	"2025-09-03"	/* Notion-Version, pinned */
#define WORK_GITHUB_VERSION	"2022-11-28"	/* X-GitHub-Api-Version, pinned */
#define WORK_CA_BUNDLE		"/etc/ssl/certs/ca-certificates.crt"

/*
 * Endpoints.  Arguments are strings; "?" marks an optional one.  The
 * answer's typed fields follow "->".
 */
enum carrier_ep {
	/* notion-read */
	CEP_NOTION_DATABASE = 1,	/* GET /v1/databases/{database_id}
					 * -> {data_sources: [{id, name}]} */
	CEP_NOTION_QUERY = 2,		/* POST /v1/data_sources/{data_source_id}/query
					 * args data_source_id, status?, cursor?
					 * -> {tasks: [TASK], has_more: bool,
					 *     next_cursor: string|null} */
	CEP_NOTION_PAGE = 3,		/* GET /v1/pages/{page_id}
					 * args page_id -> TASK */
	CEP_NOTION_COMMENTS = 4,	/* GET /v1/comments?block_id={page_id}
					 *     [&start_cursor={cursor}]
					 * args page_id, cursor?
					 * -> {comments: [{id, created_time,
					 *     author, text}], has_more,
					 *     next_cursor} */
	/* notion-comment */
	CEP_NOTION_COMMENT = 5,		/* POST /v1/comments
					 * args page_id, text -> {id} */
	/* github */
	CEP_GITHUB_COMMENT = 6,		/* POST /repos/{owner}/{repo}/issues/{number}/comments
					 * args owner, repo, number, text
					 * -> {id: int, html_url} */
	/* slack */
	CEP_SLACK_POST = 7,		/* POST the webhook of {channel}
					 * args channel, text -> {ok: true} */
	/* notion, audit mode only (bouncer-carrier-notion -m audit, which
	 * only bouncer-monitor -C starts): a no-op update of one property
	 * of a page, to show that the token cannot write (DESIGN 8) */
	CEP_NOTION_NOOP = 8		/* PATCH /v1/pages/{page_id}
					 * args page_id, op (owner, due, status,
					 * property, trash) -> {written: bool};
					 * the vendor's refusal is CARRIER_API */
};
#define CEP_MAX			CEP_NOTION_NOOP

/*
 * TASK: {id, title, status: string|null, due: string|null,
 *        owners: [string], url: string|null, last_edited_time: string|null}
 * (owners are the ids of the people of the task's people property).
 */

/* What became of a call (msg_carrier_result.status). */
enum carrier_status {
	CARRIER_OK = 0,			/* data holds the typed fields */
	CARRIER_REFUSED = 1,		/* the table, a validator or the
					 * request-line check refused: nothing
					 * reached the network */
	CARRIER_API = 2,		/* the vendor answered with an error
					 * (http_status, code, message) */
	CARRIER_RATE = 3,		/* 429: retry_after seconds */
	CARRIER_NET = 4,		/* no answer (connection, TLS, timeout):
					 * a write's outcome is unknown */
	CARRIER_BAD_RESPONSE = 5	/* an answer that is not what the
					 * endpoint answers: not used */
};

#endif /* BNC_WORK_H */
