/*
 * worktools.c - the work-system tools (DESIGN 7): read Notion tasks and
 * their comments, post a comment a human consented to on a Notion task
 * or a GitHub issue, send a message a human consented to to a Slack
 * channel the administrator named.
 *
 * Each tool is a short chain of carrier calls (carriers.c) ending in
 * builtin_finish().  What a carrier answers is read only as the typed
 * fields work.h promises, checked against the shapes below: a carrier
 * that answers anything else lies, and the session ends as for any
 * child's bad frame.  What the reads return is untrusted output, a
 * taint source like any upstream's.  No tool has a parameter for an
 * owner, a due date or a status, and no endpoint a carrier holds could
 * set one.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bounds.h"
#include "buf.h"
#include "builtin.h"
#include "carriers.h"
#include "conffile.h"
#include "consent.h"
#include "decide.h"
#include "log.h"
#include "memory.h"
#include "monitor.h"
#include "msg.h"
#include "utf8.h"
#include "value.h"
#include "value-json.h"
#include "work.h"
#include "worktools.h"
#include "xmalloc.h"

/* ---- the shapes of the answers (work.h) ----------------------------- */

#define T_STR	(1u << V_STRING)
#define T_NULL	(1u << V_NULL)
#define T_BOOL	(1u << V_BOOL)
#define T_INT	(1u << V_INT)
#define T_ARR	(1u << V_ARRAY)

struct field {
	const char		*name;
	unsigned		 types;		/* T_* */
	const struct field	*items;		/* T_ARR: objects of these
						 * fields; NULL: strings */
};

static const struct field task_fields[] = {
	{ "id", T_STR, NULL },
	{ "title", T_STR, NULL },
	{ "status", T_STR | T_NULL, NULL },
	{ "due", T_STR | T_NULL, NULL },
	{ "owners", T_ARR, NULL },
	{ "url", T_STR | T_NULL, NULL },
	{ "last_edited_time", T_STR | T_NULL, NULL },
	{ NULL, 0, NULL }
};
static const struct field source_fields[] = {
	{ "id", T_STR, NULL },
	{ "name", T_STR | T_NULL, NULL },
	{ NULL, 0, NULL }
};
static const struct field database_fields[] = {
	{ "data_sources", T_ARR, source_fields },
	{ NULL, 0, NULL }
};
static const struct field query_fields[] = {
	{ "tasks", T_ARR, task_fields },
	{ "has_more", T_BOOL, NULL },
	{ "next_cursor", T_STR | T_NULL, NULL },
	{ NULL, 0, NULL }
};
static const struct field comment_fields[] = {
	{ "id", T_STR, NULL },
	{ "created_time", T_STR | T_NULL, NULL },
	{ "author", T_STR | T_NULL, NULL },
	{ "text", T_STR, NULL },
	{ NULL, 0, NULL }
};
static const struct field comments_fields[] = {
	{ "comments", T_ARR, comment_fields },
	{ "has_more", T_BOOL, NULL },
	{ "next_cursor", T_STR | T_NULL, NULL },
	{ NULL, 0, NULL }
};
static const struct field posted_fields[] = {
	{ "id", T_STR, NULL },
	{ NULL, 0, NULL }
};
static const struct field github_fields[] = {
	{ "id", T_INT, NULL },
	{ "html_url", T_STR | T_NULL, NULL },
	{ NULL, 0, NULL }
};
static const struct field slack_fields[] = {
	{ "ok", T_BOOL, NULL },
	{ NULL, 0, NULL }
};

/* 1 if v is an object of exactly these fields, each of its types. */
static int
shape_ok(const struct value *v, const struct field *f)
{
	const struct value *x;
	size_t i, n;

	if (!value_is(v, V_OBJECT))
		return 0;
	for (n = 0; f[n].name != NULL; n++) {
		if ((x = value_get(v, f[n].name)) == NULL ||
		    !(f[n].types & (1u << x->type)))
			return 0;
		if (x->type != V_ARRAY)
			continue;
		for (i = 0; i < x->u.a.n; i++)
			if (f[n].items != NULL ?
			    !shape_ok(x->u.a.v[i], f[n].items) :
			    !value_is(x->u.a.v[i], V_STRING))
				return 0;
	}
	return v->u.o.n == n;
}

/*
 * The answer of a call: 0 with its fields, or -1 with why (the vendor's
 * error, or none at all).  A carrier's OK answer of the wrong shape is a
 * lie: fatal.  The error's code and message are the vendor's words (or
 * a hijacked carrier's) and reach the agent in why: untrusted output,
 * recorded as taint like an upstream's error text.
 */
static int
answer(struct session *s, const char *carrier,
    const struct msg_carrier_result *res, const char *err,
    const struct field *shape, char *why, size_t whylen)
{
	if (res == NULL) {
		snprintf(why, whylen, "%s", err);
		return -1;
	}
	if (res->status != CARRIER_OK) {
		decide_error_text(&s->dc, res->code);
		decide_error_text(&s->dc, res->message);
	}
	switch (res->status) {
	case CARRIER_OK:
		if (!shape_ok(res->data, shape))
			fatal("carrier %s: an answer of the wrong shape",
			    carrier);
		return 0;
	case CARRIER_REFUSED:
		snprintf(why, whylen, "the %s carrier refused the request "
		    "(%s: %s); nothing was sent", carrier, res->code,
		    res->message);
		break;
	case CARRIER_API:
		snprintf(why, whylen, "%s answered %u %s: %s", carrier,
		    res->http_status, res->code, res->message);
		break;
	case CARRIER_RATE:
		snprintf(why, whylen, "%s is rate limiting (retry after %u "
		    "s); nothing was done", carrier, res->retry_after);
		break;
	case CARRIER_NET:
		snprintf(why, whylen, "no answer from %s (%s)%s", carrier,
		    res->message, res->sent ? "; whether it was done is "
		    "unknown" : "; nothing was sent");
		break;
	default:
		snprintf(why, whylen, "%s answered what the carrier could not "
		    "read (%s)", carrier, res->message);
		break;
	}
	utf8_trim(why);
	return -1;
}

/*
 * Keeps the items of one page of a list, each charged to the session's
 * memory (max_session_memory): 0, or -1 when one does not fit, and the
 * list ends there, said to be cut.
 */
static int
gather(struct bjob *job, const struct value *list)
{
	size_t i, need;

	if (job->items == NULL)
		job->items = value_array();
	for (i = 0; i < list->u.a.n; i++) {
		need = mem_value(list->u.a.v[i]);
		if (mem_charge(&job->s->mem, need) != 0)
			return -1;
		job->mem += need;
		value_array_append(job->items, value_dup(list->u.a.v[i]));
	}
	return 0;
}

/* The result of a read: its fields as JSON text, and structured. */
static void
finish_read(struct bjob *job, struct value *sc)
{
	struct buf *b = buf_new();
	char *text;

	/* what a vendor holds is untrusted, whoever wrote it */
	decide_record_output(&job->s->dc, sc);
	if (value_render(b, sc) != 0 || buf_put_u8(b, '\0') != 0) {
		buf_free(b);
		value_free(sc);
		builtin_finish(job, NULL, "the answer could not be rendered");
		return;
	}
	text = xstrdup((const char *)buf_ptr(b));
	buf_free(b);
	builtin_finish(job, builtin_result(text, sc), NULL);
	free(text);
}

static struct value *
args1(const char *k, const char *v)
{
	struct value *a = value_object();

	value_object_put(a, k, value_string(v));
	return a;
}

/* ---- checks --------------------------------------------------------- */

static void
deny(struct decision *d, const char *contract, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
deny(struct decision *d, const char *contract, const char *fmt, ...)
{
	va_list ap;

	d->verdict = VERDICT_DENY;
	d->contract = contract;
	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
	utf8_trim(d->reason);
}

/* A Notion id as an agent may give it: 32 hex digits, dashed or not. */
static int
notion_id_ok(const char *s)
{
	static const int dash[] = { 8, 13, 18, 23 };
	size_t i, len = strlen(s), k = 0;

	if (len == 32)
		return strspn(s, "0123456789abcdefABCDEF") == 32;
	if (len != 36)
		return 0;
	for (i = 0; i < len; i++) {
		if (k < 4 && (int)i == dash[k]) {
			if (s[i] != '-')
				return 0;
			k++;
		} else if (!isxdigit((unsigned char)s[i]))
			return 0;
	}
	return 1;
}

int
worktools_can_read(const struct session *s)
{
	return carriers_configured(s, WORK_NOTION_READ) &&
	    s->cfg->notion.database_id != NULL;
}

int
worktools_can_post(const struct session *s)
{
	return carriers_configured(s, WORK_NOTION_COMMENT) ||
	    carriers_configured(s, WORK_GITHUB);
}

int
worktools_can_message(const struct session *s)
{
	return carriers_configured(s, WORK_SLACK);
}

int
worktools_read_check(struct session *s, const char *tool,
    const struct value *args, struct decision *d)
{
	const struct value *id = value_get(args, "task_id");
	const struct value *st = value_get(args, "status");

	(void)s;
	(void)tool;
	if (id != NULL && !notion_id_ok(id->u.s.p)) {
		deny(d, "constraint", "task_id must be a Notion page id (32 "
		    "hex digits, with or without dashes)");
		return 1;
	}
	if (st != NULL && (st->u.s.len == 0 || st->u.s.len > 100 ||
	    !utf8_valid(st->u.s.p, st->u.s.len) ||
	    strlen(st->u.s.p) != st->u.s.len)) {
		deny(d, "constraint", "status must be 1 to 100 bytes of text");
		return 1;
	}
	return 0;
}

/* A target split into what its carrier takes. */
struct target {
	enum work_kind	 kind;
	char		 page[40];		/* notion */
	char		 owner[40], repo[104], number[16];	/* github */
};

static int
target_parse(const char *t, struct target *tg)
{
	const char *p, *slash, *hash;

	memset(tg, 0, sizeof(*tg));
	if (strncmp(t, "notion:", 7) == 0) {
		if (!notion_id_ok(t + 7))
			return -1;
		tg->kind = WORK_NOTION_COMMENT;
		snprintf(tg->page, sizeof(tg->page), "%s", t + 7);
		return 0;
	}
	if (strncmp(t, "github:", 7) != 0)
		return -1;
	p = t + 7;
	if ((slash = strchr(p, '/')) == NULL ||
	    (hash = strchr(slash, '#')) == NULL ||
	    (size_t)(slash - p) >= sizeof(tg->owner) ||
	    (size_t)(hash - slash - 1) >= sizeof(tg->repo) ||
	    strlen(hash + 1) >= sizeof(tg->number))
		return -1;
	tg->kind = WORK_GITHUB;
	snprintf(tg->owner, sizeof(tg->owner), "%.*s", (int)(slash - p), p);
	snprintf(tg->repo, sizeof(tg->repo), "%.*s", (int)(hash - slash - 1),
	    slash + 1);
	snprintf(tg->number, sizeof(tg->number), "%s", hash + 1);
	/* the carrier's validators are the strict check; this is the form */
	return consent_work_target(t) == 0 ? 0 : -1;
}

/* The text and token every consented tool takes, then the token. */
static int
consented(struct session *s, const char *tool, const char *target,
    const struct value *args, struct decision *d)
{
	const struct value *text = value_get(args, "text");
	const struct value *tok = value_get(args, "consent_token");

	if (text->u.s.len == 0 || text->u.s.len > BNC_CONSENT_TEXT_MAX ||
	    strlen(text->u.s.p) != text->u.s.len) {
		deny(d, "constraint", "text must be 1 to %d bytes, without "
		    "NUL", BNC_CONSENT_TEXT_MAX);
		return 1;
	}
	return decide_consent(&s->dc, tool, target, text, tok->u.s.p,
	    tok->u.s.len, d);
}

int
worktools_post_check(struct session *s, const char *tool,
    const struct value *args, struct decision *d)
{
	const char *t = value_get_str(args, "target");
	const struct work_github *gh = &s->cfg->github;
	struct target tg;
	char want[160];
	size_t i;

	if (target_parse(t, &tg) != 0) {
		deny(d, "constraint", "target must be notion:<page-id> or "
		    "github:<owner>/<repo>#<number>");
		return 1;
	}
	if (!carriers_configured(s, tg.kind)) {
		deny(d, "constraint", "no %s credential is configured "
		    "(bouncer.yaml work:)", tg.kind == WORK_GITHUB ?
		    "GitHub" : "Notion comment");
		return 1;
	}
	if (tg.kind == WORK_GITHUB && gh->nrepos > 0) {
		/* GitHub's names are not case-sensitive */
		snprintf(want, sizeof(want), "%s/%s", tg.owner, tg.repo);
		for (i = 0; i < gh->nrepos; i++)
			if (strcasecmp(gh->repos[i], want) == 0)
				break;
		if (i == gh->nrepos) {
			deny(d, "constraint", "repository %s is not in "
			    "work.github.repos", want);
			return 1;
		}
	}
	return consented(s, tool, t, args, d);
}

int
worktools_message_check(struct session *s, const char *tool,
    const struct value *args, struct decision *d)
{
	const char *ch = value_get_str(args, "channel");
	const struct work_slack *sl = &s->cfg->slack;
	size_t i;

	for (i = 0; i < sl->nchannels; i++)
		if (strcmp(sl->channels[i].name, ch) == 0)
			break;
	if (i == sl->nchannels) {
		deny(d, "constraint", "channel '%.80s' is not one the "
		    "administrator configured", ch);
		return 1;
	}
	return consented(s, tool, ch, args, d);
}

/* ---- read_tasks ----------------------------------------------------- */

static void tasks_page(struct session *, void *,
		    const struct msg_carrier_result *, const char *);

static void
tasks_query(struct bjob *job, const char *cursor)
{
	struct value *a = args1("data_source_id", job->s->data_source);
	const char *st = value_get_str(job->args, "status");

	if (st != NULL)
		value_object_put(a, "status", value_string(st));
	if (cursor != NULL)
		value_object_put(a, "cursor", value_string(cursor));
	carriers_call(job->s, WORK_NOTION_READ, CEP_NOTION_QUERY, a,
	    tasks_page, job);
}

static void
tasks_page(struct session *s, void *arg, const struct msg_carrier_result *res,
    const char *err)
{
	struct bjob *job = arg;
	const struct value *tasks, *next;
	struct value *sc;
	char why[BNC_REASON_MAX];
	int more, full;

	if (answer(s, "notion", res, err, query_fields, why,
	    sizeof(why)) != 0) {
		builtin_finish(job, NULL, why);
		return;
	}
	tasks = value_get(res->data, "tasks");
	full = gather(job, tasks) != 0;
	next = value_get(res->data, "next_cursor");
	more = full || (value_get(res->data, "has_more")->u.b &&
	    value_is(next, V_STRING));
	if (more && !full && ++job->pages < BNC_WORK_PAGES_MAX) {
		tasks_query(job, next->u.s.p);
		return;
	}
	sc = value_object();
	value_object_put(sc, "tasks", job->items);
	job->items = NULL;
	/* more than BNC_WORK_PAGES_MAX pages, or than the session's memory
	 * holds: said, not hidden */
	value_object_put(sc, "truncated", value_bool(more));
	finish_read(job, sc);
}

static void
tasks_source(struct session *s, void *arg,
    const struct msg_carrier_result *res, const char *err)
{
	struct bjob *job = arg;
	const struct value *ds;
	char why[BNC_REASON_MAX];

	if (answer(s, "notion", res, err, database_fields, why,
	    sizeof(why)) != 0) {
		builtin_finish(job, NULL, why);
		return;
	}
	ds = value_get(res->data, "data_sources");
	if (ds->u.a.n == 0) {
		builtin_finish(job, NULL, "the Notion task database has no "
		    "data source");
		return;
	}
	/* the first data source of the configured database holds the tasks */
	free(s->data_source);
	s->data_source = xstrdup(value_get_str(ds->u.a.v[0], "id"));
	tasks_query(job, NULL);
}

void
worktools_read_tasks(struct bjob *job)
{
	struct session *s = job->s;

	if (s->data_source != NULL) {
		tasks_query(job, NULL);
		return;
	}
	carriers_call(s, WORK_NOTION_READ, CEP_NOTION_DATABASE,
	    args1("database_id", s->cfg->notion.database_id), tasks_source,
	    job);
}

/* ---- read_task ------------------------------------------------------ */

static void
task_got(struct session *s, void *arg, const struct msg_carrier_result *res,
    const char *err)
{
	struct bjob *job = arg;
	char why[BNC_REASON_MAX];

	if (answer(s, "notion", res, err, task_fields, why,
	    sizeof(why)) != 0) {
		builtin_finish(job, NULL, why);
		return;
	}
	finish_read(job, value_dup(res->data));
}

void
worktools_read_task(struct bjob *job)
{
	carriers_call(job->s, WORK_NOTION_READ, CEP_NOTION_PAGE,
	    args1("page_id", value_get_str(job->args, "task_id")), task_got,
	    job);
}

/* ---- read_comments -------------------------------------------------- */

static void comments_page(struct session *, void *,
		    const struct msg_carrier_result *, const char *);

static void
comments_query(struct bjob *job, const char *cursor)
{
	struct value *a = args1("page_id", value_get_str(job->args,
	    "task_id"));

	if (cursor != NULL)
		value_object_put(a, "cursor", value_string(cursor));
	carriers_call(job->s, WORK_NOTION_READ, CEP_NOTION_COMMENTS, a,
	    comments_page, job);
}

static void
comments_page(struct session *s, void *arg,
    const struct msg_carrier_result *res, const char *err)
{
	struct bjob *job = arg;
	const struct value *list, *next;
	struct value *sc;
	char why[BNC_REASON_MAX];
	int more, full;

	if (answer(s, "notion", res, err, comments_fields, why,
	    sizeof(why)) != 0) {
		builtin_finish(job, NULL, why);
		return;
	}
	list = value_get(res->data, "comments");
	full = gather(job, list) != 0;
	next = value_get(res->data, "next_cursor");
	more = full || (value_get(res->data, "has_more")->u.b &&
	    value_is(next, V_STRING));
	if (more && !full && ++job->pages < BNC_WORK_PAGES_MAX) {
		comments_query(job, next->u.s.p);
		return;
	}
	sc = value_object();
	value_object_put(sc, "comments", job->items);
	job->items = NULL;
	value_object_put(sc, "truncated", value_bool(more));
	finish_read(job, sc);
}

void
worktools_read_comments(struct bjob *job)
{
	comments_query(job, NULL);
}

/* ---- post_human_authored_comment, send_external_message ------------ */

static void
posted(struct session *s, void *arg, const struct msg_carrier_result *res,
    const char *err)
{
	struct bjob *job = arg;
	const char *target = value_get_str(job->args, "target");
	const char *vendor;
	const struct field *shape;
	struct value *sc;
	const struct value *id, *url;
	char why[BNC_REASON_MAX], msg[BNC_REASON_MAX];

	if (target == NULL) {		/* send_external_message */
		vendor = "slack";
		shape = slack_fields;
	} else if (strncmp(target, "github:", 7) == 0) {
		vendor = "github";
		shape = github_fields;
	} else {
		vendor = "notion";
		shape = posted_fields;
	}
	if (answer(s, vendor, res, err, shape, why, sizeof(why)) != 0) {
		builtin_finish(job, NULL, why);
		return;
	}
	/* what the vendor answered (its id, its URL) reaches the agent */
	decide_record_output(&s->dc, res->data);
	sc = value_object();
	value_object_put(sc, "posted", value_bool(1));
	if (target != NULL) {
		value_object_put(sc, "target", value_string(target));
		id = value_get(res->data, "id");
		value_object_put(sc, "id", value_dup(id));
		if ((url = value_get(res->data, "html_url")) != NULL &&
		    value_is(url, V_STRING))
			value_object_put(sc, "url", value_dup(url));
		snprintf(msg, sizeof(msg), "Posted to %.200s.", target);
	} else {
		value_object_put(sc, "channel", value_string(
		    value_get_str(job->args, "channel")));
		snprintf(msg, sizeof(msg), "Sent to %.80s.",
		    value_get_str(job->args, "channel"));
	}
	logit("%s: %s", job->tool, msg);
	builtin_finish(job, builtin_result(msg, sc), NULL);
}

void
worktools_post(struct bjob *job)
{
	const struct value *text = value_get(job->args, "text");
	struct target tg;
	struct value *a;

	/* the decision parsed it; again here, for its parts */
	if (target_parse(value_get_str(job->args, "target"), &tg) != 0) {
		builtin_finish(job, NULL, "bad target");
		return;
	}
	if (tg.kind == WORK_GITHUB) {
		a = args1("owner", tg.owner);
		value_object_put(a, "repo", value_string(tg.repo));
		value_object_put(a, "number", value_string(tg.number));
		value_object_put(a, "text", value_dup(text));
		carriers_call(job->s, WORK_GITHUB, CEP_GITHUB_COMMENT, a,
		    posted, job);
		return;
	}
	a = args1("page_id", tg.page);
	value_object_put(a, "text", value_dup(text));
	carriers_call(job->s, WORK_NOTION_COMMENT, CEP_NOTION_COMMENT, a,
	    posted, job);
}

void
worktools_message(struct bjob *job)
{
	struct value *a;

	a = args1("channel", value_get_str(job->args, "channel"));
	value_object_put(a, "text", value_dup(value_get(job->args, "text")));
	carriers_call(job->s, WORK_SLACK, CEP_SLACK_POST, a, posted, job);
}
