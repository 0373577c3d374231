/*
 * mock-work.c - loopback mocks of the Notion API, the GitHub REST API
 * and Slack incoming webhooks, for the carriers' scenarios.
 *
 * One program, three services (-s notion|github|slack): the HTTP
 * plumbing (loopback bind, port file, request log, injected 429s, seed
 * data) is most of the code and is the same for all three, so a single
 * binary keeps one copy of it; each service is one dispatch function.
 *
 * Usage:
 *	mock-work -s notion|github|slack [-p PORT] [-P PORTFILE]
 *	    [-l LOGFILE] [-R N] [-S FILE] [-d SEED] [-T TOKEN[:CAPS]]...
 *	    [-W PATH]...
 *
 *	-p PORT		port on 127.0.0.1; 0 (the default) lets the
 *			kernel choose.  Only 127.0.0.1 is ever bound.
 *	-P PORTFILE	the bound port is written here (atomically, by
 *			rename) once the server accepts connections;
 *			without -P it is printed on stdout.
 *	-l LOGFILE	one JSON line appended per request received,
 *			before it is answered: method, path, query, the
 *			headers that matter (Authorization cut to its
 *			scheme and the first 4 characters of the
 *			credential) and the body.  A scenario proves
 *			with it what never reached the "vendor".
 *	-R N		every Nth request (counting all of them) gets 429
 *			with an integer Retry-After and the vendor's body.
 *	-d SEED		JSON seed data replacing the built-in data (the
 *			shape of default_seed below); any string may be
 *			a task's title, body or comment.
 *	-T TOKEN:CAPS	notion: a token and its capabilities, comma
 *			separated: read_content, update_content,
 *			insert_content, read_comments, insert_comments
 *			(aliases read, update, insert).  github: a token
 *			(CAPS ignored).  Repeatable; default none, so
 *			every request gets 401.
 *	-S FILE		while FILE exists, a request is logged and never
 *			answered (a vendor that stalls): a scenario kills
 *			a carrier in the middle of a call with it.
 *	-W PATH		slack: a webhook path that exists; repeatable;
 *			default /services/T00000000/B00000000/XXXXXXXX...
 *			(the placeholder of Slack's SDK documentation).
 *
 * What each answer copies (vendor documentation unless marked; facts
 * gathered in late 2026; "3rd-party" = observed by clients or other
 * mocks, not documented by the vendor):
 *
 * Notion (https://developers.notion.com/reference/...):
 *  - precedence, as the status-codes page and measured mocks show:
 *    auth 401 -> version 400 -> route 400 -> capability 403 ->
 *    existence 404 -> body validation 400;
 *  - error envelope {"object":"error","status":N,"code":...,
 *    "message":...,"request_id":...}; x-notion-request-id on every
 *    answer;
 *  - no or unknown bearer token: 401 unauthorized "API token is
 *    invalid.";
 *  - no Notion-Version: 400 missing_version "Notion-Version header
 *    failed validation: Notion-Version header should be defined,
 *    instead was `undefined`."; an unknown value: the same code with
 *    the enumeration message (3rd-party);
 *  - POST /v1/data_sources/{id}/query only under 2025-09-03 and later,
 *    POST /v1/databases/{id}/query only before; the other gets 400
 *    invalid_request_url "Invalid request URL." (3rd-party);
 *  - capabilities (reference/capabilities): query, retrieve database,
 *    retrieve page need Read content; PATCH /v1/pages/{id}, PATCH and
 *    DELETE /v1/blocks/{id} need Update content; POST /v1/pages needs
 *    Insert content; GET /v1/comments needs Read comments; POST
 *    /v1/comments needs Insert comments.  Missing: 403
 *    restricted_resource "Insufficient permissions for this endpoint."
 *    (the text observed in practice, notion-sdk-js issue #494);
 *  - unknown or unshared id: 404 object_not_found "Could not find page
 *    with ID: <uuid>. Make sure the relevant pages and databases are
 *    shared with your integration."; ids with or without dashes,
 *    answered dashed and lower case;
 *  - cursor pagination: start_cursor, page_size (default and maximum
 *    100; outside 1..100: 400 validation_error), has_more, next_cursor
 *    (opaque), "type":"page_or_data_source" / "page_or_database" /
 *    "comment";
 *  - create comment: exactly one of parent.page_id / parent.block_id /
 *    discussion_id and exactly one of rich_text / markdown, rich_text
 *    at most 100 items, text.content at most 2000 characters, else 400
 *    validation_error (message shape 3rd-party); unparseable body: 400
 *    invalid_json "Error parsing JSON body."; success 200 (not 201)
 *    with the comment object, or just {"object":"comment","id":...}
 *    without Read comments;
 *  - PATCH /v1/pages/{id} with Update content: 200 with the page (the
 *    mock changes nothing; it exists to be refused).  POST /v1/pages
 *    and the block writes are modelled only as far as their 403: with
 *    the capability they get 400 invalid_request_url;
 *  - 429 rate_limited "You have been rate limited. Please try again in
 *    a few minutes." with Retry-After: 1 and additional_data
 *    (reference/request-limits).
 *
 * GitHub (docs.github.com/rest, OpenAPI api.github.com.2026-03-10):
 *  - no or unknown token (Bearer or token scheme): 401 "Bad
 *    credentials"; bodies are basic-error {"message",
 *    "documentation_url","status"} with status a string;
 *  - no User-Agent: 403 (GitHub rejects such requests; the message
 *    text here is an assumption);
 *  - X-GitHub-Api-Version absent, 2022-11-28 or 2026-03-10; anything
 *    else 400 (the docs: "Not a supported version"); 2026-03-10 drops
 *    the singular "assignee" from issues;
 *  - unknown repo or issue, and any route the mock does not know: 404
 *    "Not Found" (GitHub answers 404, not 403, to hide private repos);
 *  - POST /repos/{o}/{r}/issues/{n}/comments: body not JSON 400
 *    "Problems parsing JSON"; not an object 400 "Body should be a JSON
 *    object"; no string "body" 422 missing_field (unverified); over
 *    65536 characters 422 "Validation Failed" with errors[]
 *    "body is too long (maximum is 65536 characters)" (3rd-party);
 *    success 201, Location: .../issues/comments/{id}, the comment;
 *  - the forbidden writes (PATCH issue, assignees, labels, lock,
 *    comment edit and delete, create issue) SUCCEED, as they do for an
 *    "Issues: write" token: GitHub has no comment-only credential, so
 *    only the carrier's table stops them and the log must show they
 *    never came;
 *  - page / per_page (default 30, maximum 100) with a Link header;
 *    x-ratelimit-* and x-github-request-id on every answer;
 *  - 429: secondary rate limit message with retry-after: 1.
 *
 * Slack incoming webhooks (api.slack.com/changelog/2016-05-17-changes-
 * to-errors-for-incoming-webhooks, docs.slack.dev python-slack-sdk):
 *  - the URL is the credential: an unknown path gets 404 no_service
 *    (3rd-party mapping); errors are plain-text strings;
 *  - not application/json, malformed JSON or not an object: 400
 *    invalid_payload; no string "text": 400 no_text (3rd-party);
 *  - success: 200 with the plain-text body "ok";
 *  - 429 with Retry-After (documented); its body "rate_limited" is an
 *    assumption.
 *
 * Test code: it parses JSON with cJSON and must never be linked into,
 * or installed with, a bouncer binary.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include <cjson/cJSON.h>

#define MW_BODY_MAX		(1024 * 1024)	/* evhttp answers 413 above */
#define MW_TOKENS_MAX		16
#define MW_HOOKS_MAX		16
#define MW_NOTION_TEXT_MAX	2000		/* text.content, characters */
#define MW_NOTION_ARRAY_MAX	100		/* any array in a request */
#define MW_NOTION_PAGE_MAX	100		/* page_size */
#define MW_GITHUB_BODY_MAX	65536		/* comment body, characters */
#define MW_GITHUB_PER_PAGE	30
#define MW_GITHUB_PER_PAGE_MAX	100
#define MW_CURSOR_PREFIX	"mwc_"

#define CAP_READ_CONTENT	0x01
#define CAP_UPDATE_CONTENT	0x02
#define CAP_INSERT_CONTENT	0x04
#define CAP_READ_COMMENTS	0x08
#define CAP_INSERT_COMMENTS	0x10

enum service { SVC_NOTION, SVC_GITHUB, SVC_SLACK };

struct token {
	char	*secret;
	int	 caps;
};

static enum service	 service;
static struct token	 tokens[MW_TOKENS_MAX];
static int		 ntokens;
static const char	*hooks[MW_HOOKS_MAX];
static int		 nhooks;
static FILE		*logfp;
static unsigned long	 rate_every;
static unsigned long	 nrequests;
static unsigned long	 next_id = 1000;	/* ids of created objects */
static cJSON		*seed;
static const char	*stallfile;

/*
 * The built-in data: one Notion data source with three tasks (the third
 * has more comments than one page of two), and one GitHub repository
 * with two issues.  A scenario that needs other text gives -d.
 */
static const char default_seed[] =
"{\"notion\":{"
" \"databases\":[{\"id\":\"668d797c-76fa-4934-9b05-ad288df2d136\","
"  \"title\":\"Tasks\",\"data_sources\":["
"   {\"id\":\"6c4240a9-a3ce-413e-9fd0-8a51a4d0a49b\",\"name\":\"Tasks\"}]}],"
" \"pages\":["
"  {\"id\":\"be633bf1-dfa0-436d-b259-571129a590e5\",\"title\":\"Bug bash\","
"   \"status\":\"Not started\",\"due\":\"2026-09-15\","
"   \"owner\":\"c2f20311-9e54-4d11-8c79-7398424ae41e\"},"
"  {\"id\":\"5c6a2821-6bb1-4a7e-b6e1-c50111515c3d\","
"   \"title\":\"Write release notes\",\"status\":\"In progress\","
"   \"due\":\"2026-09-20\","
"   \"owner\":\"c2f20311-9e54-4d11-8c79-7398424ae41e\"},"
"  {\"id\":\"1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9\","
"   \"title\":\"Plan the offsite\",\"status\":\"Done\","
"   \"due\":\"2026-10-01\","
"   \"owner\":\"9188c6a5-7381-452f-b3dc-d4865aa89bdf\"}],"
" \"comments\":["
"  {\"id\":\"94cc56ab-9f02-409d-9f99-1037e9fe502f\","
"   \"page_id\":\"be633bf1-dfa0-436d-b259-571129a590e5\","
"   \"text\":\"First pass done.\"},"
"  {\"id\":\"94cc56ab-9f02-409d-9f99-1037e9fe5030\","
"   \"page_id\":\"be633bf1-dfa0-436d-b259-571129a590e5\","
"   \"text\":\"Two crashes left.\"},"
"  {\"id\":\"94cc56ab-9f02-409d-9f99-1037e9fe5031\","
"   \"page_id\":\"be633bf1-dfa0-436d-b259-571129a590e5\","
"   \"text\":\"Fixed one.\"}]},"
"\"github\":{\"repos\":[{\"owner\":\"octocat\",\"repo\":\"Hello-World\","
" \"issues\":["
"  {\"number\":1347,\"title\":\"Found a bug\","
"   \"body\":\"I'm having a problem with this.\","
"   \"comments\":[\"Me too\",\"Same here\",\"Fixed in 1.4?\"]},"
"  {\"number\":1348,\"title\":\"Docs typo\",\"body\":\"teh\","
"   \"comments\":[]}]}]}}";

static const char *const notion_versions[] = {
	"2021-05-11", "2021-05-13", "2021-08-16", "2022-02-22",
	"2022-06-28", "2025-09-03", "2026-03-11", NULL
};

__attribute__((noreturn, format(printf, 1, 2)))
static void
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mock-work: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

/* --- request context ------------------------------------------------ */

struct req {
	struct evhttp_request	*r;
	const char		*method;
	char			*path;		/* decoded */
	const char		*query;		/* raw, may be NULL */
	struct evkeyvalq	 params;	/* decoded query */
	char			*body;		/* NUL-terminated copy */
	size_t			 bodylen;
	char			 reqid[40];
};

static const char *
method_name(enum evhttp_cmd_type t)
{
	switch (t) {
	case EVHTTP_REQ_GET:	return "GET";
	case EVHTTP_REQ_POST:	return "POST";
	case EVHTTP_REQ_HEAD:	return "HEAD";
	case EVHTTP_REQ_PUT:	return "PUT";
	case EVHTTP_REQ_DELETE:	return "DELETE";
	case EVHTTP_REQ_OPTIONS: return "OPTIONS";
	case EVHTTP_REQ_TRACE:	return "TRACE";
	case EVHTTP_REQ_CONNECT: return "CONNECT";
	case EVHTTP_REQ_PATCH:	return "PATCH";
	}
	return "?";
}

static const char *
header(struct req *q, const char *name)
{
	return evhttp_find_header(evhttp_request_get_input_headers(q->r),
	    name);
}

/* Enough to tell which token came without writing the secret down. */
static char *
redact_auth(const char *v)
{
	const char *sp = strchr(v, ' ');
	size_t scheme = sp != NULL ? (size_t)(sp - v) + 1 : 0;
	size_t keep = strlen(v + scheme) < 4 ? strlen(v + scheme) : 4;
	char *out;

	if ((out = malloc(scheme + keep + 4)) == NULL)
		die("out of memory");
	memcpy(out, v, scheme + keep);
	memcpy(out + scheme + keep, "...", 4);
	return out;
}

/*
 * Written and flushed before the request is answered: once a client
 * has its answer, the line is in the file.
 */
static void
log_request(struct req *q)
{
	static const char *const names[] = {
		"Authorization", "Notion-Version", "Content-Type",
		"User-Agent", "Accept", "X-GitHub-Api-Version", NULL
	};
	cJSON *o, *h;
	const char *v;
	char *s, *red;
	int i;

	if (logfp == NULL)
		return;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "method", q->method);
	cJSON_AddStringToObject(o, "path", q->path);
	if (q->query != NULL)
		cJSON_AddStringToObject(o, "query", q->query);
	else
		cJSON_AddNullToObject(o, "query");
	h = cJSON_AddObjectToObject(o, "headers");
	for (i = 0; names[i] != NULL; i++) {
		if ((v = header(q, names[i])) == NULL)
			continue;
		if (i == 0) {
			red = redact_auth(v);
			cJSON_AddStringToObject(h, names[i], red);
			free(red);
		} else
			cJSON_AddStringToObject(h, names[i], v);
	}
	cJSON_AddStringToObject(o, "body", q->body);
	if ((s = cJSON_PrintUnformatted(o)) == NULL)
		die("out of memory");
	fprintf(logfp, "%s\n", s);
	fflush(logfp);
	free(s);
	cJSON_Delete(o);
}

/* --- answers -------------------------------------------------------- */

static void
send_text(struct req *q, int code, const char *ctype, const char *body)
{
	struct evbuffer *b = evbuffer_new();

	if (b == NULL)
		die("out of memory");
	evhttp_add_header(evhttp_request_get_output_headers(q->r),
	    "Content-Type", ctype);
	evbuffer_add(b, body, strlen(body));
	evhttp_send_reply(q->r, code, NULL, b);
	evbuffer_free(b);
}

/* Sends and frees o. */
static void
send_json(struct req *q, int code, cJSON *o)
{
	char *s;

	if ((s = cJSON_PrintUnformatted(o)) == NULL)
		die("out of memory");
	send_text(q, code, service == SVC_GITHUB ?
	    "application/json; charset=utf-8" : "application/json", s);
	free(s);
	cJSON_Delete(o);
}

static void
add_header(struct req *q, const char *name, const char *value)
{
	evhttp_add_header(evhttp_request_get_output_headers(q->r), name,
	    value);
}

/* --- small helpers -------------------------------------------------- */

/*
 * Characters as the vendors count them.  Notion's validator is
 * JavaScript: a string's length is in UTF-16 code units, so a
 * character outside the BMP counts twice (an assumption; the docs say
 * "characters").  GitHub (Ruby) counts code points.
 */
static size_t
count_chars(const char *s, int utf16)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	for (; *p != '\0'; p++) {
		if ((*p & 0xc0) == 0x80)
			continue;
		n += (utf16 && *p >= 0xf0) ? 2 : 1;
	}
	return n;
}

/* A Notion id, dashed or not, as lowercase 8-4-4-4-12; 0 if not one. */
static int
notion_id(const char *in, char out[37])
{
	size_t i, n = 0, len = strlen(in);

	if (len != 32 && len != 36)
		return 0;
	for (i = 0; i < len; i++) {
		if (len == 36 && (i == 8 || i == 13 || i == 18 || i == 23)) {
			if (in[i] != '-')
				return 0;
			continue;
		}
		if (!isxdigit((unsigned char)in[i]))
			return 0;
		if (n == 8 || n == 12 || n == 16 || n == 20)
			*out++ = '-';
		*out++ = tolower((unsigned char)in[i]);
		n++;
	}
	*out = '\0';
	return 1;
}

static cJSON *
find_by(cJSON *arr, const char *key, const char *val)
{
	cJSON *e;
	const char *s;

	cJSON_ArrayForEach(e, arr) {
		s = cJSON_GetStringValue(cJSON_GetObjectItem(e, key));
		if (s != NULL && strcasecmp(s, val) == 0)
			return e;
	}
	return NULL;
}

/* A seed number; 0 when absent (cJSON would give NaN). */
static int
iget(cJSON *o, const char *key)
{
	cJSON *n = cJSON_GetObjectItem(o, key);

	return cJSON_IsNumber(n) ? n->valueint : 0;
}

static const char *
sget(cJSON *o, const char *key)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, key));

	return s != NULL ? s : "";
}

/* Splits the path into at most max segments; returns their number. */
static int
split_path(char *path, char **seg, int max)
{
	int n = 0;
	char *p = path;

	if (*p != '/')
		return -1;
	while (*p == '/' && n < max) {
		*p++ = '\0';
		seg[n++] = p;
		while (*p != '\0' && *p != '/')
			p++;
	}
	return *p == '\0' ? n : -1;
}

/* --- Notion --------------------------------------------------------- */

static void
notion_error(struct req *q, int status, const char *code, const char *msg)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "object", "error");
	cJSON_AddNumberToObject(o, "status", status);
	cJSON_AddStringToObject(o, "code", code);
	cJSON_AddStringToObject(o, "message", msg);
	cJSON_AddStringToObject(o, "request_id", q->reqid);
	send_json(q, status, o);
}

static void
notion_not_found(struct req *q, const char *kind, const char *id)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "Could not find %s with ID: %s. Make "
	    "sure the relevant pages and databases are shared with your "
	    "integration.", kind, id);
	notion_error(q, 404, "object_not_found", msg);
}

static void
notion_forbidden(struct req *q)
{
	notion_error(q, 403, "restricted_resource",
	    "Insufficient permissions for this endpoint.");
}

static cJSON *
rich_text(const char *text)
{
	cJSON *a = cJSON_CreateArray(), *t = cJSON_CreateObject();
	cJSON *x, *an;

	cJSON_AddStringToObject(t, "type", "text");
	x = cJSON_AddObjectToObject(t, "text");
	cJSON_AddStringToObject(x, "content", text);
	cJSON_AddNullToObject(x, "link");
	an = cJSON_AddObjectToObject(t, "annotations");
	cJSON_AddFalseToObject(an, "bold");
	cJSON_AddFalseToObject(an, "italic");
	cJSON_AddFalseToObject(an, "strikethrough");
	cJSON_AddFalseToObject(an, "underline");
	cJSON_AddFalseToObject(an, "code");
	cJSON_AddStringToObject(an, "color", "default");
	cJSON_AddStringToObject(t, "plain_text", text);
	cJSON_AddNullToObject(t, "href");
	cJSON_AddItemToArray(a, t);
	return a;
}

static cJSON *
notion_user(const char *id)
{
	cJSON *u = cJSON_CreateObject();

	cJSON_AddStringToObject(u, "object", "user");
	cJSON_AddStringToObject(u, "id", id);
	return u;
}

/* The page object of reference/page, from a seed entry. */
static cJSON *
notion_page(cJSON *p, const char *version)
{
	cJSON *db = cJSON_GetObjectItem(cJSON_GetObjectItem(seed, "notion"),
	    "databases");
	cJSON *o = cJSON_CreateObject(), *par, *props, *v, *d;
	const char *dbid = "", *dsid = "";
	char url[128], hex[33];
	const char *id = sget(p, "id");
	size_t i, n;

	dbid = sget(cJSON_GetArrayItem(db, 0), "id");
	dsid = sget(cJSON_GetArrayItem(cJSON_GetObjectItem(
	    cJSON_GetArrayItem(db, 0), "data_sources"), 0), "id");
	cJSON_AddStringToObject(o, "object", "page");
	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddStringToObject(o, "created_time", "2026-09-01T09:00:00.000Z");
	cJSON_AddStringToObject(o, "last_edited_time",
	    "2026-09-04T14:30:00.000Z");
	cJSON_AddItemToObject(o, "created_by", notion_user(sget(p, "owner")));
	cJSON_AddItemToObject(o, "last_edited_by",
	    notion_user(sget(p, "owner")));
	cJSON_AddNullToObject(o, "cover");
	cJSON_AddNullToObject(o, "icon");
	par = cJSON_AddObjectToObject(o, "parent");
	/* Before 2025-09-03 a row's parent was its database. */
	if (strcmp(version, "2025-09-03") >= 0) {
		cJSON_AddStringToObject(par, "type", "data_source_id");
		cJSON_AddStringToObject(par, "data_source_id", dsid);
	} else
		cJSON_AddStringToObject(par, "type", "database_id");
	cJSON_AddStringToObject(par, "database_id", dbid);
	cJSON_AddFalseToObject(o, "in_trash");
	/* 2026-03-11 renamed archived to in_trash. */
	if (strcmp(version, "2026-03-11") < 0)
		cJSON_AddFalseToObject(o, "archived");
	cJSON_AddFalseToObject(o, "is_archived");
	cJSON_AddFalseToObject(o, "is_locked");
	props = cJSON_AddObjectToObject(o, "properties");
	v = cJSON_AddObjectToObject(props, "Name");
	cJSON_AddStringToObject(v, "id", "title");
	cJSON_AddStringToObject(v, "type", "title");
	cJSON_AddItemToObject(v, "title", rich_text(sget(p, "title")));
	v = cJSON_AddObjectToObject(props, "Owner");
	cJSON_AddStringToObject(v, "id", "ownR");
	cJSON_AddStringToObject(v, "type", "people");
	cJSON_AddItemToArray(cJSON_AddArrayToObject(v, "people"),
	    notion_user(sget(p, "owner")));
	v = cJSON_AddObjectToObject(props, "Due date");
	cJSON_AddStringToObject(v, "id", "M%3BBw");
	cJSON_AddStringToObject(v, "type", "date");
	d = cJSON_AddObjectToObject(v, "date");
	cJSON_AddStringToObject(d, "start", sget(p, "due"));
	cJSON_AddNullToObject(d, "end");
	cJSON_AddNullToObject(d, "time_zone");
	v = cJSON_AddObjectToObject(props, "Status");
	cJSON_AddStringToObject(v, "id", "Z%3ClH");
	cJSON_AddStringToObject(v, "type", "status");
	d = cJSON_AddObjectToObject(v, "status");
	cJSON_AddStringToObject(d, "name", sget(p, "status"));
	cJSON_AddStringToObject(d, "color", "default");
	for (i = 0, n = 0; id[i] != '\0' && n < 32; i++)
		if (id[i] != '-')
			hex[n++] = id[i];
	hex[n] = '\0';
	snprintf(url, sizeof(url), "https://www.notion.so/%s", hex);
	cJSON_AddStringToObject(o, "url", url);
	cJSON_AddNullToObject(o, "public_url");
	return o;
}

static cJSON *
notion_comment(cJSON *c)
{
	cJSON *o = cJSON_CreateObject(), *par, *dn;

	cJSON_AddStringToObject(o, "object", "comment");
	cJSON_AddStringToObject(o, "id", sget(c, "id"));
	par = cJSON_AddObjectToObject(o, "parent");
	cJSON_AddStringToObject(par, "type", "page_id");
	cJSON_AddStringToObject(par, "page_id", sget(c, "page_id"));
	cJSON_AddStringToObject(o, "discussion_id",
	    "f1407351-36f5-4c49-a13c-49f8ba11776d");
	cJSON_AddStringToObject(o, "created_time", "2026-09-02T10:00:00.000Z");
	cJSON_AddStringToObject(o, "last_edited_time",
	    "2026-09-02T10:00:00.000Z");
	cJSON_AddItemToObject(o, "created_by",
	    notion_user("9b15170a-9941-4297-8ee6-83fa7649a87a"));
	cJSON_AddItemToObject(o, "rich_text", rich_text(sget(c, "text")));
	dn = cJSON_AddObjectToObject(o, "display_name");
	cJSON_AddStringToObject(dn, "type", "integration");
	cJSON_AddStringToObject(dn, "resolved_name", "Bouncer");
	cJSON_AddArrayToObject(o, "attachments");
	return o;
}

/*
 * Cursor pagination over the items for which keep() says yes.  The
 * cursor is the index of the next item behind a prefix: opaque enough
 * for a client that follows the rule "pass it back as start_cursor".
 * Returns 0 and answers 400 itself on a bad page_size or cursor.
 */
static int
notion_paginate(struct req *q, cJSON *items, const char *want_key,
    const char *want, cJSON *(*build)(cJSON *, const char *),
    const char *version, long page_size, const char *cursor,
    const char *type)
{
	cJSON *o, *res, *e;
	long start = 0, idx = 0, taken = 0;
	char next[32], *end;
	int more = 0;

	if (page_size < 1 || page_size > MW_NOTION_PAGE_MAX) {
		notion_error(q, 400, "validation_error",
		    "body failed validation: body.page_size should be "
		    "≤ `100`.");
		return 0;
	}
	if (cursor != NULL) {
		if (strncmp(cursor, MW_CURSOR_PREFIX,
		    strlen(MW_CURSOR_PREFIX)) != 0)
			goto badcursor;
		errno = 0;
		start = strtol(cursor + strlen(MW_CURSOR_PREFIX), &end, 10);
		if (errno != 0 || *end != '\0' || start < 0)
			goto badcursor;
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "object", "list");
	res = cJSON_AddArrayToObject(o, "results");
	cJSON_ArrayForEach(e, items) {
		if (want != NULL && strcasecmp(sget(e, want_key), want) != 0)
			continue;
		if (idx++ < start)
			continue;
		if (taken == page_size) {
			more = 1;
			break;
		}
		cJSON_AddItemToArray(res, build(e, version));
		taken++;
	}
	if (more) {
		snprintf(next, sizeof(next), MW_CURSOR_PREFIX "%ld",
		    start + taken);
		cJSON_AddStringToObject(o, "next_cursor", next);
	} else
		cJSON_AddNullToObject(o, "next_cursor");
	cJSON_AddBoolToObject(o, "has_more", more);
	cJSON_AddStringToObject(o, "type", type);
	cJSON_AddObjectToObject(o, type);
	send_json(q, 200, o);
	return 1;
badcursor:
	notion_error(q, 400, "validation_error",
	    "body failed validation: body.start_cursor should be a valid "
	    "cursor.");
	return 0;
}

static cJSON *
build_comment(cJSON *c, const char *version)
{
	return notion_comment(c);
}

static void
notion_query(struct req *q, cJSON *nt, const char *id, const char *ver,
    int legacy)
{
	cJSON *db, *ds = NULL, *body = NULL, *ps, *cur;
	long page_size = MW_NOTION_PAGE_MAX;
	const char *cursor = NULL;

	/* The data source's parent database, or the database itself. */
	cJSON_ArrayForEach(db, cJSON_GetObjectItem(nt, "databases")) {
		if (legacy && strcmp(sget(db, "id"), id) == 0)
			break;
		if (!legacy && (ds = find_by(cJSON_GetObjectItem(db,
		    "data_sources"), "id", id)) != NULL)
			break;
	}
	if (db == NULL) {
		notion_not_found(q, legacy ? "database" : "data_source", id);
		return;
	}
	if (q->bodylen > 0) {
		body = cJSON_Parse(q->body);
		if (body == NULL) {
			notion_error(q, 400, "invalid_json",
			    "Error parsing JSON body.");
			return;
		}
		if ((ps = cJSON_GetObjectItem(body, "page_size")) != NULL) {
			if (!cJSON_IsNumber(ps))
				page_size = -1;
			else
				page_size = (long)ps->valuedouble;
		}
		cur = cJSON_GetObjectItem(body, "start_cursor");
		if (cJSON_IsString(cur))
			cursor = cur->valuestring;
	}
	/* Every seeded page belongs to the first data source. */
	notion_paginate(q, cJSON_GetObjectItem(nt, "pages"), NULL, NULL,
	    notion_page, ver, page_size, cursor, legacy ?
	    "page_or_database" : "page_or_data_source");
	cJSON_Delete(body);
}

static int
notion_version_ok(struct req *q, const char **verp)
{
	const char *v = header(q, "Notion-Version");
	char msg[512];
	int i, n;

	if (v == NULL) {
		notion_error(q, 400, "missing_version", "Notion-Version "
		    "header failed validation: Notion-Version header should "
		    "be defined, instead was `undefined`.");
		return 0;
	}
	for (i = 0; notion_versions[i] != NULL; i++)
		if (strcmp(v, notion_versions[i]) == 0) {
			*verp = notion_versions[i];
			return 1;
		}
	n = snprintf(msg, sizeof(msg), "Notion-Version header failed "
	    "validation: Notion-Version header should be ");
	for (i = 0; notion_versions[i] != NULL && n < (int)sizeof(msg); i++)
		n += snprintf(msg + n, sizeof(msg) - n, "%s`\"%s\"`",
		    i == 0 ? "" : notion_versions[i + 1] == NULL ?
		    ", or " : ", ", notion_versions[i]);
	if (n < (int)sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, ", instead was `\"%.40s\"`.",
		    v);
	notion_error(q, 400, "missing_version", msg);
	return 0;
}

/* A rich-text array as Notion validates it; answers 400 itself. */
static int
notion_rich_text_ok(struct req *q, cJSON *rt)
{
	cJSON *e, *c;
	char msg[256];
	size_t len;
	int i = 0;

	if (!cJSON_IsArray(rt)) {
		notion_error(q, 400, "validation_error", "body failed "
		    "validation: body.rich_text should be an array, instead "
		    "was not.");
		return 0;
	}
	if (cJSON_GetArraySize(rt) > MW_NOTION_ARRAY_MAX) {
		snprintf(msg, sizeof(msg), "body failed validation: "
		    "body.rich_text.length should be ≤ `%d`, instead was "
		    "`%d`.", MW_NOTION_ARRAY_MAX, cJSON_GetArraySize(rt));
		notion_error(q, 400, "validation_error", msg);
		return 0;
	}
	cJSON_ArrayForEach(e, rt) {
		c = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "text"),
		    "content");
		if (!cJSON_IsString(c)) {
			snprintf(msg, sizeof(msg), "body failed validation: "
			    "body.rich_text[%d].text.content should be "
			    "defined, instead was `undefined`.", i);
			notion_error(q, 400, "validation_error", msg);
			return 0;
		}
		if ((len = count_chars(c->valuestring, 1)) >
		    MW_NOTION_TEXT_MAX) {
			snprintf(msg, sizeof(msg), "body failed validation: "
			    "body.rich_text[%d].text.content.length should "
			    "be ≤ `%d`, instead was `%zu`.", i,
			    MW_NOTION_TEXT_MAX, len);
			notion_error(q, 400, "validation_error", msg);
			return 0;
		}
		i++;
	}
	return 1;
}

static void
notion_create_comment(struct req *q, cJSON *nt, int caps)
{
	cJSON *body, *par, *disc, *rt, *md, *c, *pages, *out;
	const char *pid = NULL;
	char id[37], newid[37];

	if ((body = cJSON_Parse(q->body)) == NULL || !cJSON_IsObject(body)) {
		cJSON_Delete(body);
		notion_error(q, 400, "invalid_json",
		    "Error parsing JSON body.");
		return;
	}
	par = cJSON_GetObjectItem(body, "parent");
	disc = cJSON_GetObjectItem(body, "discussion_id");
	rt = cJSON_GetObjectItem(body, "rich_text");
	md = cJSON_GetObjectItem(body, "markdown");
	if ((par != NULL) == (disc != NULL)) {
		notion_error(q, 400, "validation_error", "body failed "
		    "validation. Fix one: body.parent should be defined, "
		    "instead was `undefined`. body.discussion_id should be "
		    "defined, instead was `undefined`.");
		goto out;
	}
	if ((rt != NULL) == (md != NULL)) {
		notion_error(q, 400, "validation_error", "body failed "
		    "validation. Fix one: body.rich_text should be defined, "
		    "instead was `undefined`. body.markdown should be "
		    "defined, instead was `undefined`.");
		goto out;
	}
	if (par != NULL) {
		pid = cJSON_GetStringValue(cJSON_GetObjectItem(par, "page_id"));
		if (pid == NULL)
			pid = cJSON_GetStringValue(cJSON_GetObjectItem(par,
			    "block_id"));
	}
	/* A discussion the mock never started is as unknown as a page. */
	if (disc != NULL || pid == NULL || !notion_id(pid, id) ||
	    find_by(pages = cJSON_GetObjectItem(nt, "pages"), "id", id) ==
	    NULL) {
		notion_not_found(q, "page", pid != NULL ? pid :
		    cJSON_IsString(disc) ? disc->valuestring : "");
		goto out;
	}
	if (rt != NULL && !notion_rich_text_ok(q, rt))
		goto out;
	if (md != NULL && (!cJSON_IsString(md) ||
	    count_chars(md->valuestring, 1) > MW_NOTION_TEXT_MAX *
	    MW_NOTION_ARRAY_MAX)) {
		notion_error(q, 400, "validation_error", "body failed "
		    "validation: body.markdown should be a string.");
		goto out;
	}
	snprintf(newid, sizeof(newid), "0c0ffee0-0000-4000-8000-%012lu",
	    next_id++);
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "id", newid);
	cJSON_AddStringToObject(c, "page_id", id);
	/* The stored text is the items joined, as Notion shows them. */
	if (rt != NULL) {
		cJSON *e;
		size_t total = 1;
		char *t;

		cJSON_ArrayForEach(e, rt)
			total += strlen(cJSON_GetObjectItem(
			    cJSON_GetObjectItem(e, "text"),
			    "content")->valuestring);
		if ((t = calloc(1, total)) == NULL)
			die("out of memory");
		cJSON_ArrayForEach(e, rt)
			strcat(t, cJSON_GetObjectItem(cJSON_GetObjectItem(e,
			    "text"), "content")->valuestring);
		cJSON_AddStringToObject(c, "text", t);
		free(t);
	} else
		cJSON_AddStringToObject(c, "text", md->valuestring);
	cJSON_AddItemToArray(cJSON_GetObjectItem(nt, "comments"), c);
	if (caps & CAP_READ_COMMENTS)
		out = notion_comment(c);
	else {
		out = cJSON_CreateObject();
		cJSON_AddStringToObject(out, "object", "comment");
		cJSON_AddStringToObject(out, "id", newid);
	}
	send_json(q, 200, out);
out:
	cJSON_Delete(body);
}

static void
notion(struct req *q, int caps)
{
	cJSON *nt = cJSON_GetObjectItem(seed, "notion"), *p;
	const char *ver = NULL, *v;
	char *seg[6], id[37];
	int n, legacy;
	long ps = MW_NOTION_PAGE_MAX;
	char *end;

	if (!notion_version_ok(q, &ver))
		return;
	legacy = strcmp(ver, "2025-09-03") < 0;
	n = split_path(q->path, seg, 6);
	if (n < 2 || strcmp(seg[0], "v1") != 0)
		goto badurl;

	/* POST /v1/data_sources/{id}/query, POST /v1/databases/{id}/query */
	if (n == 4 && strcmp(seg[3], "query") == 0 &&
	    strcmp(q->method, "POST") == 0 &&
	    (strcmp(seg[1], "data_sources") == 0 ||
	    strcmp(seg[1], "databases") == 0)) {
		if (legacy != (strcmp(seg[1], "databases") == 0))
			goto badurl;
		if (!(caps & CAP_READ_CONTENT))
			goto forbidden;
		if (!notion_id(seg[2], id)) {
			notion_not_found(q, legacy ? "database" :
			    "data_source", seg[2]);
			return;
		}
		notion_query(q, nt, id, ver, legacy);
		return;
	}
	/* GET /v1/databases/{id} */
	if (n == 3 && strcmp(seg[1], "databases") == 0 &&
	    strcmp(q->method, "GET") == 0) {
		if (!(caps & CAP_READ_CONTENT))
			goto forbidden;
		if (!notion_id(seg[2], id) || (p = find_by(cJSON_GetObjectItem(
		    nt, "databases"), "id", id)) == NULL) {
			notion_not_found(q, "database", seg[2]);
			return;
		} else {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "object", "database");
			cJSON_AddStringToObject(o, "id", id);
			cJSON_AddItemToObject(o, "title",
			    rich_text(sget(p, "title")));
			cJSON_AddItemToObject(o, "data_sources",
			    cJSON_Duplicate(cJSON_GetObjectItem(p,
			    "data_sources"), 1));
			cJSON_AddFalseToObject(o, "is_inline");
			cJSON_AddFalseToObject(o, "in_trash");
			send_json(q, 200, o);
		}
		return;
	}
	/* GET and PATCH /v1/pages/{id} */
	if (n == 3 && strcmp(seg[1], "pages") == 0 &&
	    (strcmp(q->method, "GET") == 0 ||
	    strcmp(q->method, "PATCH") == 0)) {
		if (!(caps & (q->method[0] == 'G' ? CAP_READ_CONTENT :
		    CAP_UPDATE_CONTENT)))
			goto forbidden;
		if (!notion_id(seg[2], id) || (p = find_by(cJSON_GetObjectItem(
		    nt, "pages"), "id", id)) == NULL) {
			notion_not_found(q, "page", seg[2]);
			return;
		}
		if (q->method[0] == 'P' && (p = cJSON_Parse(q->body)) == NULL) {
			notion_error(q, 400, "invalid_json",
			    "Error parsing JSON body.");
			return;
		} else if (q->method[0] == 'P') {
			cJSON_Delete(p);
			p = find_by(cJSON_GetObjectItem(nt, "pages"), "id", id);
		}
		send_json(q, 200, notion_page(p, ver));
		return;
	}
	/* GET /v1/comments?block_id= and POST /v1/comments */
	if (n == 2 && strcmp(seg[1], "comments") == 0) {
		if (strcmp(q->method, "POST") == 0) {
			if (!(caps & CAP_INSERT_COMMENTS))
				goto forbidden;
			notion_create_comment(q, nt, caps);
			return;
		}
		if (strcmp(q->method, "GET") != 0)
			goto badurl;
		if (!(caps & CAP_READ_COMMENTS))
			goto forbidden;
		if ((v = evhttp_find_header(&q->params, "block_id")) == NULL) {
			notion_error(q, 400, "validation_error", "query "
			    "failed validation: query.block_id should be "
			    "defined, instead was `undefined`.");
			return;
		}
		if (!notion_id(v, id) || find_by(cJSON_GetObjectItem(nt,
		    "pages"), "id", id) == NULL) {
			notion_not_found(q, "block", v);
			return;
		}
		if ((v = evhttp_find_header(&q->params, "page_size")) != NULL) {
			errno = 0;
			ps = strtol(v, &end, 10);
			if (errno != 0 || *v == '\0' || *end != '\0')
				ps = -1;
		}
		notion_paginate(q, cJSON_GetObjectItem(nt, "comments"),
		    "page_id", id, build_comment, ver, ps,
		    evhttp_find_header(&q->params, "start_cursor"), "comment");
		return;
	}
	/* Forbidden writes the carriers must never send: the capability
	 * Notion checks for each, so a refusal looks like the real one. */
	if (n == 2 && strcmp(seg[1], "pages") == 0 &&
	    strcmp(q->method, "POST") == 0) {
		if (!(caps & CAP_INSERT_CONTENT))
			goto forbidden;
		goto badurl;
	}
	if (n == 3 && strcmp(seg[1], "blocks") == 0 &&
	    (strcmp(q->method, "PATCH") == 0 ||
	    strcmp(q->method, "DELETE") == 0)) {
		if (!(caps & CAP_UPDATE_CONTENT))
			goto forbidden;
		goto badurl;
	}
badurl:
	notion_error(q, 400, "invalid_request_url", "Invalid request URL.");
	return;
forbidden:
	notion_forbidden(q);
}

/* --- GitHub --------------------------------------------------------- */

#define GH_DOCS		"https://docs.github.com/rest"
#define GH_DOCS_COMMENT	\
    "https://docs.github.com/rest/issues/comments#create-an-issue-comment"
#define GH_API		"http://api.github.invalid"	/* in URLs we make */

static void
github_error(struct req *q, int status, const char *msg, const char *doc)
{
	cJSON *o = cJSON_CreateObject();
	char st[8];

	snprintf(st, sizeof(st), "%d", status);
	cJSON_AddStringToObject(o, "message", msg);
	cJSON_AddStringToObject(o, "documentation_url", doc);
	cJSON_AddStringToObject(o, "status", st);
	send_json(q, status, o);
}

static cJSON *
github_user(void)
{
	cJSON *u = cJSON_CreateObject();

	cJSON_AddStringToObject(u, "login", "octocat");
	cJSON_AddNumberToObject(u, "id", 1);
	cJSON_AddStringToObject(u, "node_id", "MDQ6VXNlcjE=");
	cJSON_AddStringToObject(u, "type", "User");
	cJSON_AddFalseToObject(u, "site_admin");
	return u;
}

static cJSON *
github_issue(cJSON *repo, cJSON *is, const char *version)
{
	cJSON *o = cJSON_CreateObject();
	char buf[512];
	int num = iget(is, "number");
	const char *st = sget(is, "state");

	snprintf(buf, sizeof(buf), GH_API "/repos/%s/%s/issues/%d",
	    sget(repo, "owner"), sget(repo, "repo"), num);
	cJSON_AddNumberToObject(o, "id", num);
	cJSON_AddStringToObject(o, "url", buf);
	cJSON_AddNumberToObject(o, "number", num);
	cJSON_AddStringToObject(o, "state", *st != '\0' ? st : "open");
	cJSON_AddNullToObject(o, "state_reason");
	cJSON_AddStringToObject(o, "title", sget(is, "title"));
	cJSON_AddStringToObject(o, "body", sget(is, "body"));
	cJSON_AddItemToObject(o, "user", github_user());
	cJSON_AddArrayToObject(o, "labels");
	/* 2026-03-10 removed the singular assignee. */
	if (strcmp(version, "2026-03-10") != 0)
		cJSON_AddNullToObject(o, "assignee");
	cJSON_AddArrayToObject(o, "assignees");
	cJSON_AddFalseToObject(o, "locked");
	cJSON_AddNumberToObject(o, "comments", cJSON_GetArraySize(
	    cJSON_GetObjectItem(is, "comments")));
	cJSON_AddStringToObject(o, "created_at", "2026-09-01T09:00:00Z");
	cJSON_AddStringToObject(o, "updated_at", "2026-09-01T09:00:00Z");
	cJSON_AddStringToObject(o, "author_association", "COLLABORATOR");
	return o;
}

static cJSON *
github_comment(cJSON *repo, int num, long id, const char *text)
{
	cJSON *o = cJSON_CreateObject();
	char buf[512];

	cJSON_AddNumberToObject(o, "id", id);
	snprintf(buf, sizeof(buf), GH_API "/repos/%s/%s/issues/comments/%ld",
	    sget(repo, "owner"), sget(repo, "repo"), id);
	cJSON_AddStringToObject(o, "url", buf);
	snprintf(buf, sizeof(buf), GH_API "/repos/%s/%s/issues/%d",
	    sget(repo, "owner"), sget(repo, "repo"), num);
	cJSON_AddStringToObject(o, "issue_url", buf);
	cJSON_AddStringToObject(o, "body", text);
	cJSON_AddItemToObject(o, "user", github_user());
	cJSON_AddStringToObject(o, "created_at", "2026-09-02T10:00:00Z");
	cJSON_AddStringToObject(o, "updated_at", "2026-09-02T10:00:00Z");
	cJSON_AddStringToObject(o, "author_association", "COLLABORATOR");
	return o;
}

static long
github_param(struct req *q, const char *name, long def)
{
	const char *v = evhttp_find_header(&q->params, name);
	char *end;
	long n;

	if (v == NULL)
		return def;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno != 0 || *v == '\0' || *end != '\0' || n < 1)
		return def;
	return n;
}

/* page/per_page over the issue's comments, with a Link header. */
static void
github_list_comments(struct req *q, cJSON *repo, cJSON *is, int num)
{
	cJSON *list = cJSON_GetObjectItem(is, "comments"), *o;
	long per = github_param(q, "per_page", MW_GITHUB_PER_PAGE);
	long page = github_param(q, "page", 1), i, total, last;
	char link[1024];
	int n;

	if (per > MW_GITHUB_PER_PAGE_MAX)
		per = MW_GITHUB_PER_PAGE_MAX;
	total = cJSON_GetArraySize(list);
	last = total == 0 ? 1 : (total + per - 1) / per;
	o = cJSON_CreateArray();
	for (i = (page - 1) * per; i < total && i < page * per; i++)
		cJSON_AddItemToArray(o, github_comment(repo, num, 1 + i,
		    cJSON_GetStringValue(cJSON_GetArrayItem(list, i))));
	if (page < last) {
		n = snprintf(link, sizeof(link), "<" GH_API "/repos/%s/%s/"
		    "issues/%d/comments?per_page=%ld&page=%ld>; rel=\"next\", ",
		    sget(repo, "owner"), sget(repo, "repo"), num, per,
		    page + 1);
		snprintf(link + n, sizeof(link) - n, "<" GH_API "/repos/%s/%s/"
		    "issues/%d/comments?per_page=%ld&page=%ld>; rel=\"last\"",
		    sget(repo, "owner"), sget(repo, "repo"), num, per, last);
		add_header(q, "Link", link);
	}
	send_json(q, 200, o);
}

static void
github_create_comment(struct req *q, cJSON *repo, cJSON *is, int num)
{
	cJSON *body, *b, *o, *e, *err;
	char loc[512];
	long id;

	if ((body = cJSON_Parse(q->body)) == NULL) {
		github_error(q, 400, "Problems parsing JSON", GH_DOCS_COMMENT);
		return;
	}
	if (!cJSON_IsObject(body)) {
		github_error(q, 400, "Body should be a JSON object",
		    GH_DOCS_COMMENT);
		goto out;
	}
	b = cJSON_GetObjectItem(body, "body");
	if (!cJSON_IsString(b) || count_chars(b->valuestring, 0) >
	    MW_GITHUB_BODY_MAX) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "message", "Validation Failed");
		err = cJSON_AddArrayToObject(o, "errors");
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "resource", "IssueComment");
		if (cJSON_IsString(b)) {
			cJSON_AddStringToObject(e, "code", "custom");
			cJSON_AddStringToObject(e, "field", "body");
			cJSON_AddStringToObject(e, "message", "body is too "
			    "long (maximum is 65536 characters)");
		} else {
			cJSON_AddStringToObject(e, "code", "missing_field");
			cJSON_AddStringToObject(e, "field", "body");
		}
		cJSON_AddItemToArray(err, e);
		cJSON_AddStringToObject(o, "documentation_url",
		    GH_DOCS_COMMENT);
		cJSON_AddStringToObject(o, "status", "422");
		send_json(q, 422, o);
		goto out;
	}
	cJSON_AddItemToArray(cJSON_GetObjectItem(is, "comments"),
	    cJSON_CreateString(b->valuestring));
	id = cJSON_GetArraySize(cJSON_GetObjectItem(is, "comments"));
	snprintf(loc, sizeof(loc), GH_API "/repos/%s/%s/issues/comments/%ld",
	    sget(repo, "owner"), sget(repo, "repo"), id);
	add_header(q, "Location", loc);
	send_json(q, 201, github_comment(repo, num, id, b->valuestring));
out:
	cJSON_Delete(body);
}

static void
github(struct req *q)
{
	cJSON *repos, *repo = NULL, *is = NULL, *e;
	const char *ver = header(q, "X-GitHub-Api-Version"), *m = q->method;
	char *seg[8], *end;
	int n, num = 0, w;
	long l;

	if (header(q, "User-Agent") == NULL) {
		github_error(q, 403, "Request forbidden by administrative "
		    "rules. Please make sure your request has a User-Agent "
		    "header", GH_DOCS);
		return;
	}
	if (ver == NULL)
		ver = "2022-11-28";
	if (strcmp(ver, "2022-11-28") != 0 && strcmp(ver, "2026-03-10") != 0) {
		github_error(q, 400, "Not a supported version", GH_DOCS);
		return;
	}
	n = split_path(q->path, seg, 8);
	if (n == 1 && strcmp(seg[0], "graphql") == 0 &&
	    strcmp(m, "POST") == 0) {
		/* The same token could run deleteIssue here. */
		send_text(q, 200, "application/json; charset=utf-8",
		    "{\"data\":{}}");
		return;
	}
	if (n < 3 || strcmp(seg[0], "repos") != 0)
		goto notfound;
	repos = cJSON_GetObjectItem(cJSON_GetObjectItem(seed, "github"),
	    "repos");
	cJSON_ArrayForEach(repo, repos)
		if (strcasecmp(sget(repo, "owner"), seg[1]) == 0 &&
		    strcasecmp(sget(repo, "repo"), seg[2]) == 0)
			break;
	if (repo == NULL || n < 4 || strcmp(seg[3], "issues") != 0)
		goto notfound;
	/* /repos/o/r/issues: list (GET) or create an issue (POST). */
	if (n == 4) {
		if (strcmp(m, "GET") == 0) {
			cJSON *a = cJSON_CreateArray();

			cJSON_ArrayForEach(is, cJSON_GetObjectItem(repo,
			    "issues"))
				cJSON_AddItemToArray(a, github_issue(repo, is,
				    ver));
			send_json(q, 200, a);
			return;
		}
		if (strcmp(m, "POST") == 0) {
			send_json(q, 201, github_issue(repo, cJSON_GetArrayItem(
			    cJSON_GetObjectItem(repo, "issues"), 0), ver));
			return;
		}
		goto notfound;
	}
	/* /repos/o/r/issues/comments/{id}: edit or delete a comment. */
	if (n == 6 && strcmp(seg[4], "comments") == 0) {
		if (strcmp(m, "DELETE") == 0) {
			evhttp_send_reply(q->r, 204, "No Content", NULL);
			return;
		}
		if (strcmp(m, "PATCH") == 0) {
			send_json(q, 200, github_comment(repo, 1347,
			    strtol(seg[5], NULL, 10), "edited"));
			return;
		}
		goto notfound;
	}
	errno = 0;
	l = strtol(seg[4], &end, 10);
	if (errno != 0 || *seg[4] == '\0' || *end != '\0' || l < 1 ||
	    l > INT_MAX)
		goto notfound;
	num = (int)l;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(repo, "issues"))
		if (iget(e, "number") == num)
			is = e;
	if (is == NULL)
		goto notfound;
	if (n == 5) {
		if (strcmp(m, "GET") == 0) {
			send_json(q, 200, github_issue(repo, is, ver));
			return;
		}
		if (strcmp(m, "PATCH") == 0) {
			/* Applied, as GitHub would: the damage a leaked
			 * Issues:write token can do. */
			cJSON *b = cJSON_Parse(q->body), *f;

			if (b == NULL) {
				github_error(q, 400, "Problems parsing JSON",
				    GH_DOCS);
				return;
			}
			if (cJSON_IsString(f = cJSON_GetObjectItem(b,
			    "title")))
				cJSON_ReplaceItemInObject(is, "title",
				    cJSON_CreateString(f->valuestring));
			if (cJSON_IsString(f = cJSON_GetObjectItem(b,
			    "state"))) {
				cJSON_DeleteItemFromObject(is, "state");
				cJSON_AddStringToObject(is, "state",
				    f->valuestring);
			}
			cJSON_Delete(b);
			send_json(q, 200, github_issue(repo, is, ver));
			return;
		}
		goto notfound;
	}
	if (n == 6 && strcmp(seg[5], "comments") == 0) {
		if (strcmp(m, "GET") == 0)
			github_list_comments(q, repo, is, num);
		else if (strcmp(m, "POST") == 0)
			github_create_comment(q, repo, is, num);
		else
			goto notfound;
		return;
	}
	/* assignees, labels, lock: the writes "Issues: write" allows. */
	if ((n == 6 || n == 7) && (strcmp(seg[5], "assignees") == 0 ||
	    strcmp(seg[5], "labels") == 0 || strcmp(seg[5], "lock") == 0)) {
		w = strcmp(m, "GET") != 0;
		if (strcmp(seg[5], "lock") == 0 && n == 6 &&
		    (strcmp(m, "PUT") == 0 || strcmp(m, "DELETE") == 0)) {
			evhttp_send_reply(q->r, 204, "No Content", NULL);
			return;
		}
		if (strcmp(seg[5], "assignees") == 0 && n == 6 && w) {
			send_json(q, strcmp(m, "POST") == 0 ? 201 : 200,
			    github_issue(repo, is, ver));
			return;
		}
		if (strcmp(seg[5], "labels") == 0 && w) {
			send_text(q, 200, "application/json; charset=utf-8",
			    "[]");
			return;
		}
	}
notfound:
	github_error(q, 404, "Not Found", GH_DOCS);
}

/* --- Slack ---------------------------------------------------------- */

static void
slack(struct req *q)
{
	const char *ct = header(q, "Content-Type");
	cJSON *b;
	int i;

	for (i = 0; i < nhooks; i++)
		if (strcmp(q->path, hooks[i]) == 0)
			break;
	if (i == nhooks) {
		send_text(q, 404, "text/plain", "no_service");
		return;
	}
	if (strcmp(q->method, "POST") != 0 || ct == NULL ||
	    strncasecmp(ct, "application/json", 16) != 0 ||
	    (b = cJSON_Parse(q->body)) == NULL) {
		send_text(q, 400, "text/plain", "invalid_payload");
		return;
	}
	if (!cJSON_IsObject(b))
		send_text(q, 400, "text/plain", "invalid_payload");
	else if (!cJSON_IsString(cJSON_GetObjectItem(b, "text")))
		send_text(q, 400, "text/plain", "no_text");
	else
		send_text(q, 200, "text/plain", "ok");
	cJSON_Delete(b);
}

/* --- dispatch ------------------------------------------------------- */

static void
rate_limited(struct req *q)
{
	add_header(q, "Retry-After", "1");
	switch (service) {
	case SVC_NOTION:
		send_text(q, 429, "application/json",
		    "{\"object\":\"error\",\"status\":429,"
		    "\"code\":\"rate_limited\",\"message\":\"You have been "
		    "rate limited. Please try again in a few minutes.\","
		    "\"additional_data\":{\"rate_limit_reason\":"
		    "\"public_api_request_rate_limit\","
		    "\"retry_after\":\"1\"}}");
		break;
	case SVC_GITHUB:
		add_header(q, "x-ratelimit-remaining", "4990");
		github_error(q, 429, "You have exceeded a secondary rate "
		    "limit. Please wait a few minutes before you try again.",
		    "https://docs.github.com/rest/overview/rate-limits-for-"
		    "the-rest-api#about-secondary-rate-limits");
		break;
	case SVC_SLACK:
		send_text(q, 429, "text/plain", "rate_limited");
		break;
	}
}

/* The token's capabilities, or -1 for no known token. */
static int
authorize(struct req *q)
{
	const char *a = header(q, "Authorization"), *cred = NULL;
	int i;

	if (a == NULL)
		return -1;
	if (strncmp(a, "Bearer ", 7) == 0)
		cred = a + 7;
	else if (service == SVC_GITHUB && strncmp(a, "token ", 6) == 0)
		cred = a + 6;
	if (cred == NULL)
		return -1;
	for (i = 0; i < ntokens; i++)
		if (strcmp(cred, tokens[i].secret) == 0)
			return tokens[i].caps;
	return -1;
}

static void
handle(struct evhttp_request *r, void *arg)
{
	struct req q;
	const struct evhttp_uri *u = evhttp_request_get_evhttp_uri(r);
	struct evbuffer *in = evhttp_request_get_input_buffer(r);
	const char *p;
	struct evkeyvalq *oh = evhttp_request_get_output_headers(r);
	int caps;

	memset(&q, 0, sizeof(q));
	q.r = r;
	q.method = method_name(evhttp_request_get_command(r));
	p = evhttp_uri_get_path(u);
	if ((q.path = evhttp_uridecode(p != NULL && *p != '\0' ? p : "/", 0,
	    NULL)) == NULL)
		die("out of memory");
	q.query = evhttp_uri_get_query(u);
	/* Also initialises params when there is no query. */
	evhttp_parse_query_str(q.query != NULL ? q.query : "", &q.params);
	q.bodylen = evbuffer_get_length(in);
	if ((q.body = malloc(q.bodylen + 1)) == NULL)
		die("out of memory");
	evbuffer_copyout(in, q.body, q.bodylen);
	q.body[q.bodylen] = '\0';
	nrequests++;
	snprintf(q.reqid, sizeof(q.reqid),
	    "00000000-0000-4000-8000-%012lu", nrequests);
	log_request(&q);
	/* a stalled vendor: the request is never answered */
	if (stallfile != NULL && access(stallfile, F_OK) == 0)
		goto done;

	switch (service) {
	case SVC_NOTION:
		evhttp_add_header(oh, "x-notion-request-id", q.reqid);
		break;
	case SVC_GITHUB:
		evhttp_add_header(oh, "x-github-request-id", q.reqid);
		evhttp_add_header(oh, "x-ratelimit-limit", "5000");
		evhttp_add_header(oh, "x-ratelimit-remaining", "4999");
		evhttp_add_header(oh, "x-ratelimit-used", "1");
		evhttp_add_header(oh, "x-ratelimit-reset", "1798761600");
		evhttp_add_header(oh, "x-ratelimit-resource", "core");
		break;
	case SVC_SLACK:
		break;
	}
	if (rate_every > 0 && nrequests % rate_every == 0) {
		rate_limited(&q);
		goto done;
	}
	if (service == SVC_SLACK) {
		slack(&q);
		goto done;
	}
	if ((caps = authorize(&q)) < 0) {
		if (service == SVC_NOTION)
			notion_error(&q, 401, "unauthorized",
			    "API token is invalid.");
		else
			github_error(&q, 401, "Bad credentials", GH_DOCS);
		goto done;
	}
	if (service == SVC_NOTION)
		notion(&q, caps);
	else
		github(&q);
done:
	evhttp_clear_headers(&q.params);
	free(q.path);
	free(q.body);
}

/* --- set-up --------------------------------------------------------- */

static void
add_token(char *arg)
{
	static const struct { const char *name; int cap; } names[] = {
		{ "read_content", CAP_READ_CONTENT },
		{ "read", CAP_READ_CONTENT },
		{ "update_content", CAP_UPDATE_CONTENT },
		{ "update", CAP_UPDATE_CONTENT },
		{ "insert_content", CAP_INSERT_CONTENT },
		{ "insert", CAP_INSERT_CONTENT },
		{ "read_comments", CAP_READ_COMMENTS },
		{ "insert_comments", CAP_INSERT_COMMENTS },
		{ NULL, 0 }
	};
	char *c = strchr(arg, ':'), *w;
	int i;

	if (ntokens == MW_TOKENS_MAX)
		die("too many -T");
	tokens[ntokens].secret = arg;
	tokens[ntokens].caps = 0;
	if (c != NULL) {
		*c++ = '\0';
		while ((w = strsep(&c, ",")) != NULL) {
			if (*w == '\0')
				continue;
			for (i = 0; names[i].name != NULL; i++)
				if (strcmp(w, names[i].name) == 0)
					break;
			if (names[i].name == NULL)
				die("-T: unknown capability %s", w);
			tokens[ntokens].caps |= names[i].cap;
		}
	}
	if (*arg == '\0')
		die("-T: empty token");
	ntokens++;
}

static cJSON *
load_seed(const char *path)
{
	FILE *f;
	char *buf;
	long len;
	cJSON *j;

	if (path == NULL)
		j = cJSON_Parse(default_seed);
	else {
		if ((f = fopen(path, "r")) == NULL)
			die("%s: %s", path, strerror(errno));
		if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
		    fseek(f, 0, SEEK_SET) != 0)
			die("%s: cannot size", path);
		if ((buf = malloc(len + 1)) == NULL)
			die("out of memory");
		if (fread(buf, 1, len, f) != (size_t)len)
			die("%s: short read", path);
		buf[len] = '\0';
		fclose(f);
		j = cJSON_Parse(buf);
		free(buf);
	}
	if (j == NULL)
		die("%s: not JSON", path != NULL ? path : "built-in seed");
	/* The handlers append to these; make sure they exist. */
	if (!cJSON_IsObject(cJSON_GetObjectItem(j, "notion")))
		cJSON_AddObjectToObject(j, "notion");
	if (!cJSON_IsArray(cJSON_GetObjectItem(cJSON_GetObjectItem(j,
	    "notion"), "comments")))
		cJSON_AddArrayToObject(cJSON_GetObjectItem(j, "notion"),
		    "comments");
	return j;
}

static void
write_port(const char *file, int port)
{
	char tmp[PATH_MAX];
	FILE *f;

	if (file == NULL) {
		printf("%d\n", port);
		fflush(stdout);
		return;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", file) >= (int)sizeof(tmp))
		die("%s: path too long", file);
	if ((f = fopen(tmp, "w")) == NULL)
		die("%s: %s", tmp, strerror(errno));
	fprintf(f, "%d\n", port);
	if (fclose(f) != 0 || rename(tmp, file) != 0)
		die("%s: %s", file, strerror(errno));
}

static void
usage(void)
{
	fprintf(stderr, "usage: mock-work -s notion|github|slack [-p port] "
	    "[-P portfile] [-l logfile]\n"
	    "\t[-R n] [-S stallfile] [-d seed] [-T token[:caps]]... "
	    "[-W path]...\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	struct event_base *base;
	struct evhttp *http;
	struct evhttp_bound_socket *bs;
	struct sockaddr_in sin;
	socklen_t slen = sizeof(sin);
	const char *portfile = NULL, *seedfile = NULL, *svc = NULL;
	const char *logfile = NULL;
	char *end;
	long port = 0;
	int ch;

	while ((ch = getopt(argc, argv, "d:l:p:P:R:s:S:T:W:")) != -1) {
		switch (ch) {
		case 'd':
			seedfile = optarg;
			break;
		case 'l':
			logfile = optarg;
			break;
		case 'p':
			errno = 0;
			port = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || port < 0 ||
			    port > 65535)
				die("-p: bad port %s", optarg);
			break;
		case 'P':
			portfile = optarg;
			break;
		case 'R':
			errno = 0;
			rate_every = strtoul(optarg, &end, 10);
			if (errno != 0 || *end != '\0')
				die("-R: bad count %s", optarg);
			break;
		case 's':
			svc = optarg;
			break;
		case 'S':
			stallfile = optarg;
			break;
		case 'T':
			add_token(optarg);
			break;
		case 'W':
			if (nhooks == MW_HOOKS_MAX)
				die("too many -W");
			hooks[nhooks++] = optarg;
			break;
		default:
			usage();
		}
	}
	if (svc == NULL || optind != argc)
		usage();
	if (strcmp(svc, "notion") == 0)
		service = SVC_NOTION;
	else if (strcmp(svc, "github") == 0)
		service = SVC_GITHUB;
	else if (strcmp(svc, "slack") == 0)
		service = SVC_SLACK;
	else
		usage();
	if (nhooks == 0)
		hooks[nhooks++] =
		    "/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX";
	seed = load_seed(seedfile);
	if (logfile != NULL && (logfp = fopen(logfile, "a")) == NULL)
		die("%s: %s", logfile, strerror(errno));

	if ((base = event_base_new()) == NULL ||
	    (http = evhttp_new(base)) == NULL)
		die("libevent initialisation failed");
	evhttp_set_max_body_size(http, MW_BODY_MAX);
	evhttp_set_allowed_methods(http, EVHTTP_REQ_GET | EVHTTP_REQ_POST |
	    EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |
	    EVHTTP_REQ_PATCH | EVHTTP_REQ_OPTIONS);
	evhttp_set_gencb(http, handle, NULL);
	/* Loopback only: a mock holding test tokens is nobody's server. */
	if ((bs = evhttp_bind_socket_with_handle(http, "127.0.0.1",
	    (unsigned short)port)) == NULL)
		die("cannot bind 127.0.0.1:%ld", port);
	if (getsockname(evhttp_bound_socket_get_fd(bs),
	    (struct sockaddr *)&sin, &slen) != 0)
		die("getsockname: %s", strerror(errno));
	write_port(portfile, ntohs(sin.sin_port));
	event_base_dispatch(base);
	return 0;
}
