/*
 * builtin.c - bouncer's own tools (DESIGN 7), offered to the agents of
 * a registry, decided and recorded by gate.c like any call and carried
 * out here (create_draft) or by worktools.c through a carrier.
 *
 * One table row per tool: its name, schema, the checks of its
 * arguments that belong to the decision, and what it does (the lowest
 * tier that may call it, and all the built-in names, are registry.c's
 * table).  No built-in tool has a parameter for an owner, a due date or
 * a status.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "bounds.h"
#include "builtin.h"
#include "consent.h"
#include "decide.h"
#include "log.h"
#include "memory.h"
#include "monitor.h"
#include "registry.h"
#include "utf8.h"
#include "value.h"
#include "worktools.h"
#include "xmalloc.h"

#define BUILTIN_PARAMS	3

/* Those implemented; their names and tiers are the registry's table. */
struct builtin {
	const char	*name;
	const char	*description;
	/* the properties, all strings */
	const char	*params[BUILTIN_PARAMS];
	const char	*param_desc[BUILTIN_PARAMS];
	unsigned	 optional;	/* bit i: params[i] may be absent */
	/* 1 if the session can carry it out (its carrier is configured);
	 * NULL: always */
	int		(*available)(const struct session *);
	long long	 budget;	/* calls per session when the registry
					 * names none; 0: no bound */
	/* 0, or 1 with d a deny (after the checks every row has) */
	int		(*check)(struct session *, const char *,
			    const struct value *, struct decision *);
	void		(*run)(struct bjob *);
};

static int	draft_check(struct session *, const char *,
		    const struct value *, struct decision *);
static void	draft_run(struct bjob *);

#define TARGET_DESC	"notion:<page-id> or github:<owner>/<repo>#<number>"
#define TOKEN_DESC	"The consent token a human issued for exactly this " \
			"text and target (bouncer-issue-consent)"

static const struct builtin builtins[] = {
	{ "read_tasks",
	    "List the tasks of the team's Notion task database: id, title, "
	    "status, due date, owners and link of each.  Optionally only "
	    "those whose status is the one given.",
	    { "status", NULL, NULL },
	    { "Only tasks with this status (as Notion names it)", NULL,
	    NULL }, 0x1, worktools_can_read, 0,
	    worktools_read_check, worktools_read_tasks },
	{ "read_task",
	    "Read one Notion task: id, title, status, due date, owners and "
	    "link.",
	    { "task_id", NULL, NULL },
	    { "The task's Notion page id", NULL, NULL }, 0,
	    worktools_can_read, 0, worktools_read_check, worktools_read_task },
	{ "read_comments",
	    "Read the comments of one Notion task.",
	    { "task_id", NULL, NULL },
	    { "The task's Notion page id", NULL, NULL }, 0,
	    worktools_can_read, 0, worktools_read_check,
	    worktools_read_comments },
	{ "create_draft",
	    "Store a draft text for a target (notion:<page-id> or "
	    "github:<owner>/<repo>#<number>) in bouncer's database, for a "
	    "human to read and, if they agree, sign.  Nothing is sent.  "
	    "Returns the draft's id.",
	    { "target", "text", NULL },
	    { TARGET_DESC, "The draft, exactly as it should be posted", NULL },
	    0, NULL, 0, draft_check, draft_run },
	{ "post_human_authored_comment",
	    "Post a comment a human wrote or approved, word for word, to a "
	    "Notion task or a GitHub issue.  Needs the consent token the "
	    "human issued for exactly this text and target.",
	    { "target", "text", "consent_token" },
	    { TARGET_DESC, "The comment, exactly as the human approved it",
	    TOKEN_DESC }, 0, worktools_can_post, 0,
	    worktools_post_check, worktools_post },
	{ "send_external_message",
	    "Send a message a human approved, word for word, to a Slack "
	    "channel the administrator configured.  Needs the consent token "
	    "the human issued for exactly this text and channel.",
	    { "channel", "text", "consent_token" },
	    { "The channel's name, as configured", "The message, exactly as "
	    "the human approved it", TOKEN_DESC }, 0, worktools_can_message,
	    BNC_SLACK_MESSAGES_DEFAULT,
	    worktools_message_check, worktools_message },
};

static const struct builtin *
find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strcmp(builtins[i].name, name) == 0)
			return &builtins[i];
	return NULL;
}

int
builtin_offered(const struct session *s, const char *name)
{
	const struct builtin *b;

	return s->registry != NULL && name != NULL &&
	    (b = find(name)) != NULL &&
	    (b->available == NULL || b->available(s));
}

static struct value *
definition(const struct builtin *b)
{
	struct value *t, *schema, *props, *req, *p;
	size_t i;

	props = value_object();
	req = value_array();
	for (i = 0; i < BUILTIN_PARAMS && b->params[i] != NULL; i++) {
		p = value_object();
		value_object_put(p, "type", value_string("string"));
		value_object_put(p, "description",
		    value_string(b->param_desc[i]));
		value_object_put(props, b->params[i], p);
		if (!(b->optional & (1u << i)))
			value_array_append(req, value_string(b->params[i]));
	}
	schema = value_object();
	value_object_put(schema, "type", value_string("object"));
	value_object_put(schema, "properties", props);
	value_object_put(schema, "required", req);
	value_object_put(schema, "additionalProperties", value_bool(0));
	t = value_object();
	value_object_put(t, "name", value_string(b->name));
	value_object_put(t, "description", value_string(b->description));
	value_object_put(t, "inputSchema", schema);
	return t;
}

void
builtin_list(const struct session *s, struct value *tools)
{
	size_t i;

	if (s->registry == NULL || s->grant == NULL)
		return;
	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (registry_builtin_tier(builtins[i].name) <= s->grant->tier &&
		    registry_grants(s->grant, builtins[i].name) &&
		    builtin_offered(s, builtins[i].name))
			value_array_append(tools, definition(&builtins[i]));
}

static void
deny(struct decision *d, const char *contract, const char *why)
{
	d->verdict = VERDICT_DENY;
	d->contract = contract;
	snprintf(d->reason, sizeof(d->reason), "%s", why);
}

void
builtin_decide(struct session *s, const char *name, const struct value *args,
    int flags, struct decision *d)
{
	const struct builtin *b = find(name);
	const struct member *m;
	long long max;
	size_t i, j;
	char why[BNC_REASON_MAX];

	memset(d, 0, sizeof(*d));
	d->verdict = VERDICT_ALLOW;
	d->contract = "default";
	/* grant: the agent's, and a tier the tool allows */
	if (b == NULL || s->grant == NULL ||
	    !registry_grants(s->grant, name) ||
	    registry_builtin_tier(name) > s->grant->tier) {
		snprintf(why, sizeof(why), "tool '%.128s' is not in the grant "
		    "of agent %s", name, s->agent);
		deny(d, "grant", why);
		return;
	}
	if ((max = registry_budget(s->grant, name)) < 0 && b->budget > 0)
		max = b->budget;
	if (decide_budget(&s->dc, name, max, flags, d))
		return;
	/* its arguments: exactly the declared ones, all strings */
	if (!value_is(args, V_OBJECT)) {
		deny(d, "constraint", "arguments are not an object");
		return;
	}
	for (i = 0; i < args->u.o.n; i++) {
		m = &args->u.o.m[i];
		for (j = 0; j < BUILTIN_PARAMS && b->params[j] != NULL; j++)
			if (strcmp(m->key, b->params[j]) == 0)
				break;
		if (j == BUILTIN_PARAMS || b->params[j] == NULL) {
			snprintf(why, sizeof(why), "argument '%.64s' is not "
			    "in the tool's input schema", m->key);
			deny(d, "constraint", why);
			return;
		}
		if (!value_is(m->val, V_STRING)) {
			snprintf(why, sizeof(why), "argument '%.64s' must be "
			    "a string", m->key);
			deny(d, "constraint", why);
			return;
		}
	}
	for (j = 0; j < BUILTIN_PARAMS && b->params[j] != NULL; j++)
		if (!(b->optional & (1u << j)) &&
		    value_get(args, b->params[j]) == NULL) {
			snprintf(why, sizeof(why), "argument '%s' is "
			    "required", b->params[j]);
			deny(d, "constraint", why);
			return;
		}
	if (b->check != NULL)
		b->check(s, name, args, d);
}

void
builtin_run(struct session *s, const char *name, const struct value *args,
    int64_t seq, const struct rpc_id *cid, builtin_done_fn done)
{
	const struct builtin *b = find(name);
	struct bjob *job;
	char why[BNC_REASON_MAX];

	if (b == NULL) {
		snprintf(why, sizeof(why), "tool '%.128s' is not available",
		    name);
		done(s, cid, name, NULL, why);
		return;
	}
	job = xcalloc(1, sizeof(*job));
	job->s = s;
	job->tool = b->name;
	job->args = value_dup(args);
	job->seq = seq;
	rpc_id_copy(&job->cid, cid);
	job->done = done;
	b->run(job);
}

void
builtin_finish(struct bjob *job, struct value *res, const char *why)
{
	job->done(job->s, &job->cid, job->tool, res, why);
	mem_release(&job->s->mem, job->mem);
	rpc_id_clear(&job->cid);
	value_free(job->args);
	value_free(job->items);
	free(job);
}

struct value *
builtin_result(const char *text, struct value *sc)
{
	struct value *res, *content, *block;

	block = value_object();
	value_object_put(block, "type", value_string("text"));
	value_object_put(block, "text", value_string(text));
	content = value_array();
	value_array_append(content, block);
	res = value_object();
	value_object_put(res, "content", content);
	if (sc != NULL)
		value_object_put(res, "structuredContent", sc);
	return res;
}

/* ---- create_draft --------------------------------------------------- */

static int
draft_check(struct session *s, const char *name, const struct value *args,
    struct decision *d)
{
	const struct value *target = value_get(args, "target");
	const struct value *text = value_get(args, "text");

	(void)s;
	(void)name;
	if (consent_work_target(target->u.s.p) != 0) {
		deny(d, "constraint", "target must be notion:<page-id> or "
		    "github:<owner>/<repo>#<number>");
		return 1;
	}
	if (text->u.s.len == 0 || text->u.s.len > BNC_CONSENT_TEXT_MAX) {
		snprintf(d->reason, sizeof(d->reason), "text must be 1 to %d "
		    "bytes", BNC_CONSENT_TEXT_MAX);
		d->verdict = VERDICT_DENY;
		d->contract = "constraint";
		return 1;
	}
	return 0;
}

static void
draft_run(struct bjob *job)
{
	struct session *s = job->s;
	const struct value *target = value_get(job->args, "target");
	const struct value *text = value_get(job->args, "text");
	struct value *sc;
	char msg[256], why[BNC_REASON_MAX];
	int64_t id;

	if (audit_draft_add(s->audit, job->seq, s->id, s->agent,
	    target->u.s.p, text->u.s.p, text->u.s.len, &id) != 0) {
		snprintf(why, sizeof(why), "the draft could not be stored "
		    "(%s)", audit_errmsg(s->audit));
		builtin_finish(job, NULL, why);
		return;
	}
	logit("draft %lld stored by agent %s for %s", (long long)id,
	    s->agent, target->u.s.p);
	snprintf(msg, sizeof(msg), "Draft %lld stored for %.128s.  Nothing "
	    "was sent: a human may sign it with bouncer-issue-consent -D "
	    "%lld.", (long long)id, target->u.s.p, (long long)id);
	sc = value_object();
	value_object_put(sc, "draft_id", value_int(id));
	value_object_put(sc, "target", value_string(target->u.s.p));
	builtin_finish(job, builtin_result(msg, sc), NULL);
}
