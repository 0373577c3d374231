/*
 * notion.c - bouncer-carrier-notion: Notion's endpoint tables.
 *
 *   bouncer-carrier-notion -m read|comment|audit [-b LOOPBACK-BASE] [-d]
 *
 * One program, three tables, one per token (DESIGN 8): the read token's
 * carrier can retrieve a database, query a data source, retrieve a page
 * and list comments; the comment token's carrier can create a comment
 * and nothing else; the audit carrier (bouncer-monitor -C only) can
 * read a page and send it back unchanged, to show that the token cannot
 * write.  Notion itself refuses what the capabilities of each token do
 * not allow; these tables make sure nothing else is asked for.  This
 * file must never gain a row that changes a page, a block or a property.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "args.h"
#include "answer.h"
#include "body.h"
#include "buf.h"
#include "call.h"
#include "carrier.h"
#include "filter.h"
#include "http.h"
#include "msg.h"
#include "path.h"
#include "utf8.h"
#include "work.h"
#include "xmalloc.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const notion_headers[] = {
	"Notion-Version: " WORK_NOTION_VERSION,
	"Accept: application/json",
	NULL
};

/*
 * A query asks for a full page; the status filter is the carrier's
 * (notion-filter.c), the cursor is Notion's, passed back as it came.
 */
static int
body_query(const struct carrier_args *args, struct buf *out)
{
	const struct carrier_arg *cur = args_get(args, "cursor");
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "page_size", BNC_CARRIER_LIST_MAX);
	if (cur != NULL)
		cJSON_AddStringToObject(o, "start_cursor", cur->val);
	return body_put(out, o);
}

/*
 * The comment, as rich-text items of at most BNC_NOTION_CHUNK_UNITS
 * UTF-16 units each (as Notion counts), never splitting a character,
 * at most BNC_NOTION_CHUNKS_MAX of them.
 */
static int
body_comment(const struct carrier_args *args, struct buf *out)
{
	const struct carrier_arg *page = args_get(args, "page_id");
	const struct carrier_arg *text = args_get(args, "text");
	cJSON *o, *rt, *item;
	size_t i = 0, start, units, n, chunks = 0;
	uint32_t cp;
	char *chunk;

	if (page == NULL || text == NULL)
		return -1;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "parent"),
	    "page_id", page->val);
	rt = cJSON_AddArrayToObject(o, "rich_text");
	while (i < text->len) {
		start = i;
		units = 0;
		while (i < text->len) {
			if ((n = utf8_decode(text->val + i, text->len - i,
			    &cp)) == 0)
				goto fail;
			if (units + (cp > 0xffff ? 2 : 1) >
			    BNC_NOTION_CHUNK_UNITS)
				break;
			units += cp > 0xffff ? 2 : 1;
			i += n;
		}
		if (++chunks > BNC_NOTION_CHUNKS_MAX)
			goto fail;
		chunk = xstrndup(text->val + start, i - start);
		item = cJSON_CreateObject();
		cJSON_AddStringToObject(item, "type", "text");
		cJSON_AddStringToObject(cJSON_AddObjectToObject(item, "text"),
		    "content", chunk);
		cJSON_AddItemToArray(rt, item);
		free(chunk);
	}
	return body_put(out, o);
 fail:
	cJSON_Delete(o);
	return -1;
}

/*
 * The audit's no-op: read the page, then send back the property op
 * names with the value it has now (or an empty update, if the token
 * cannot read), over the one connection the call came with.  A write
 * Notion accepts is CARRIER_OK {written: true}; its 403 restricted_resource
 * is the outcome -C hopes for.
 */
static void
run_noop(const struct carrier_service *svc, const struct carrier_endpoint *ep,
    const struct carrier_args *args, struct http_conn *conn,
    struct msg_carrier_result *res)
{
	const struct carrier_arg *op = args_get(args, "op");
	char path[BNC_CARRIER_PATH_MAX + 1];
	struct http_resp got, resp;
	struct http_req req;
	struct buf *body = buf_new();

	memset(&got, 0, sizeof(got));
	memset(&resp, 0, sizeof(resp));
	if (op == NULL || path_expand(ep, args, path) != 0) {
		answer_refused(res, REFUSE_NO_ENDPOINT, "the audit's path "
		    "cannot be built");
		goto out;
	}
	memset(&req, 0, sizeof(req));
	req.method = "GET";
	req.path = path;
	req.cap = BNC_CARRIER_RESPONSE_ONE;
	req.keep = 1;
	if (call_request(svc, conn, &req, &got, res) != 0)
		goto out;
	if (notion_filter_noop_body(&got, op->val, body) != 0) {
		answer_refused(res, REFUSE_ARGUMENT, "the audit's update "
		    "cannot be built");
		goto out;
	}
	req.method = ep->method;
	req.body = (const char *)buf_ptr(body);
	req.bodylen = buf_len(body);
	req.cap = ep->cap;
	req.keep = 0;
	if (call_request(svc, conn, &req, &resp, res) != 0)
		goto out;
	answer_http(svc, ep, args, &resp, res);
 out:
	http_resp_clear(&got);
	http_resp_clear(&resp);
	buf_free(body);
}

static const struct carrier_endpoint read_table[] = {
	{ CEP_NOTION_DATABASE, "GET", "/v1/databases/{database_id}",
	    { { "database_id", ARG_NOTION_ID, 0 } },
	    NULL, notion_filter_database, NULL,
	    BNC_CARRIER_RESPONSE_ONE, 0 },
	{ CEP_NOTION_QUERY, "POST", "/v1/data_sources/{data_source_id}/query",
	    { { "data_source_id", ARG_NOTION_ID, 0 },
	      { "status", ARG_STATUS, 1 },
	      { "cursor", ARG_CURSOR, 1 } },
	    body_query, notion_filter_query, NULL,
	    BNC_CARRIER_RESPONSE_MAX, 0 },
	{ CEP_NOTION_PAGE, "GET", "/v1/pages/{page_id}",
	    { { "page_id", ARG_NOTION_ID, 0 } },
	    NULL, notion_filter_page, NULL,
	    BNC_CARRIER_RESPONSE_ONE, 0 },
	{ CEP_NOTION_COMMENTS, "GET",
	    "/v1/comments?block_id={page_id}[&start_cursor={cursor}]",
	    { { "page_id", ARG_NOTION_ID, 0 },
	      { "cursor", ARG_CURSOR, 1 } },
	    NULL, notion_filter_comments, NULL,
	    BNC_CARRIER_RESPONSE_MAX, 0 },
};

static const struct carrier_endpoint comment_table[] = {
	{ CEP_NOTION_COMMENT, "POST", "/v1/comments",
	    { { "page_id", ARG_NOTION_ID, 0 },
	      { "text", ARG_NOTION_TEXT, 0 } },
	    body_comment, notion_filter_comment, NULL,
	    BNC_CARRIER_RESPONSE_ONE, 1 },
};

/* The GET it makes first is not a row: nobody may ask for it alone. */
static const struct carrier_endpoint audit_table[] = {
	{ CEP_NOTION_NOOP, "PATCH", "/v1/pages/{page_id}",
	    { { "page_id", ARG_NOTION_ID, 0 },
	      { "op", ARG_NOOP_OP, 0 } },
	    NULL, notion_filter_noop, run_noop,
	    BNC_CARRIER_RESPONSE_ONE, 1 },
};

static const struct carrier_service notion_read = {
	"notion-read", "read", WORK_NOTION_HOST, ROLE_CARRIER_NOTION_READ,
	RL_NOTION_READ, CRED_TOKEN, notion_headers,
	read_table, nitems(read_table), notion_filter_error
};

static const struct carrier_service notion_comment = {
	"notion-comment", "comment", WORK_NOTION_HOST,
	ROLE_CARRIER_NOTION_COMMENT, RL_NOTION_COMMENT, CRED_TOKEN,
	notion_headers, comment_table, nitems(comment_table),
	notion_filter_error
};

static const struct carrier_service notion_audit = {
	"notion-audit", "audit", WORK_NOTION_HOST, ROLE_CARRIER_NOTION_AUDIT,
	RL_NOTION_AUDIT, CRED_TOKEN, notion_headers,
	audit_table, nitems(audit_table), notion_filter_error
};

int
main(int argc, char **argv)
{
	static const struct carrier_service *const modes[] = {
		&notion_read, &notion_comment, &notion_audit,
	};

	return carrier_main(argc, argv, modes, nitems(modes));
}
