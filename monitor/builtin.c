/*
 * builtin.c - bouncer's own tools (DESIGN 7), offered to the agents of
 * a registry, decided and recorded by gate.c like any call and carried
 * out here.
 *
 * One table row per tool this release implements: its name, schema and
 * what it does (the lowest tier that may call it, and all the built-in
 * names, are registry.c's table).  The work-system tools arrive with
 * their carriers; until then their names are reserved but not offered.
 * No built-in tool has a parameter for an owner, a due date or a
 * status.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include "audit.h"
#include "bounds.h"
#include "builtin.h"
#include "consent.h"
#include "decide.h"
#include "log.h"
#include "monitor.h"
#include "registry.h"
#include "utf8.h"
#include "value.h"

/* Those implemented; their names and tiers are the registry's table. */
struct builtin {
	const char	*name;
	const char	*description;
	/* the properties, all strings and all required */
	const char	*params[3];
	const char	*param_desc[3];
	/* 0 or 1 with d a constraint deny */
	int		(*check)(const struct value *, struct decision *);
	struct value	*(*run)(struct session *, const struct value *,
			    int64_t, char *, size_t);
};

static int	draft_check(const struct value *, struct decision *);
static struct value *draft_run(struct session *, const struct value *,
		    int64_t, char *, size_t);

static const struct builtin builtins[] = {
	{ "create_draft",
	    "Store a draft text for a target (notion:<page-id> or "
	    "github:<owner>/<repo>#<number>) in bouncer's database, for a "
	    "human to read and, if they agree, sign.  Nothing is sent.  "
	    "Returns the draft's id.",
	    { "target", "text", NULL },
	    { "notion:<page-id> or github:<owner>/<repo>#<number>",
	    "The draft, exactly as it should be posted", NULL },
	    draft_check, draft_run },
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
	return s->registry != NULL && name != NULL && find(name) != NULL;
}

static struct value *
definition(const struct builtin *b)
{
	struct value *t, *schema, *props, *req, *p;
	size_t i;

	props = value_object();
	req = value_array();
	for (i = 0; i < 3 && b->params[i] != NULL; i++) {
		p = value_object();
		value_object_put(p, "type", value_string("string"));
		value_object_put(p, "description",
		    value_string(b->param_desc[i]));
		value_object_put(props, b->params[i], p);
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
		    registry_grants(s->grant, builtins[i].name))
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
	if (decide_budget(&s->dc, name, registry_budget(s->grant, name),
	    flags, d))
		return;
	/* its arguments: exactly the declared ones, all strings */
	if (!value_is(args, V_OBJECT)) {
		deny(d, "constraint", "arguments are not an object");
		return;
	}
	for (i = 0; i < args->u.o.n; i++) {
		m = &args->u.o.m[i];
		for (j = 0; j < 3 && b->params[j] != NULL; j++)
			if (strcmp(m->key, b->params[j]) == 0)
				break;
		if (j == 3 || b->params[j] == NULL) {
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
	for (j = 0; j < 3 && b->params[j] != NULL; j++)
		if (value_get(args, b->params[j]) == NULL) {
			snprintf(why, sizeof(why), "argument '%s' is "
			    "required", b->params[j]);
			deny(d, "constraint", why);
			return;
		}
	if (b->check != NULL)
		b->check(args, d);
}

struct value *
builtin_run(struct session *s, const char *name, const struct value *args,
    int64_t seq, char *why, size_t whylen)
{
	const struct builtin *b = find(name);

	if (b == NULL) {
		snprintf(why, whylen, "tool '%.128s' is not available", name);
		return NULL;
	}
	return b->run(s, args, seq, why, whylen);
}

/* ---- create_draft --------------------------------------------------- */

static int
draft_check(const struct value *args, struct decision *d)
{
	const struct value *target = value_get(args, "target");
	const struct value *text = value_get(args, "text");

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

static struct value *
draft_run(struct session *s, const struct value *args, int64_t seq,
    char *why, size_t whylen)
{
	const struct value *target = value_get(args, "target");
	const struct value *text = value_get(args, "text");
	struct value *res, *content, *block, *sc;
	char msg[256];
	int64_t id;
	int r;

	if ((r = audit_draft_add(s->audit, seq, s->id, s->agent,
	    target->u.s.p, text->u.s.p, text->u.s.len, &id)) != 0) {
		snprintf(why, whylen, "the draft could not be stored (%s)",
		    audit_errmsg(s->audit));
		return NULL;
	}
	logit("draft %lld stored by agent %s for %s", (long long)id,
	    s->agent, target->u.s.p);
	snprintf(msg, sizeof(msg), "Draft %lld stored for %.128s.  Nothing "
	    "was sent: a human may sign it with bouncer-issue-consent -D "
	    "%lld.", (long long)id, target->u.s.p, (long long)id);
	block = value_object();
	value_object_put(block, "type", value_string("text"));
	value_object_put(block, "text", value_string(msg));
	content = value_array();
	value_array_append(content, block);
	sc = value_object();
	value_object_put(sc, "draft_id", value_int(id));
	value_object_put(sc, "target", value_string(target->u.s.p));
	res = value_object();
	value_object_put(res, "content", content);
	value_object_put(res, "structuredContent", sc);
	return res;
}
