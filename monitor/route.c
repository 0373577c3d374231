/*
 * route.c - resources, prompts and completions across upstreams.
 *
 * With one upstream that declares a capability, its requests pass
 * through untouched.  With several, list requests are paged through the
 * upstreams in configuration order under bouncer's own cursor
 * ("bncr.<n>.<the upstream's cursor>"), and what the lists name (resource
 * URIs, prompt names) is remembered, so a read, a get, a subscription or
 * a completion goes to the upstream that listed it.  A name no upstream
 * listed is refused rather than guessed, and so is a name two upstreams
 * listed (DESIGN 5, Names): it has no one owner, and listing order must
 * not pick one.  Such a name is left out of the lists from then on.
 * This file routes only; what comes back is untrusted like everything
 * else (decide_result).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "log.h"
#include "monitor.h"
#include "utf8.h"
#include "value.h"
#include "xmalloc.h"

#define ROUTE_CURSOR	"bncr."

/* Which list a method is, and the key its entries are remembered by. */
static const struct route_method {
	const char	*method;
	int		 list;		/* ROUTE_LIST_* or 0 */
	const char	*param;		/* what a non-list request names */
	char		 kind;		/* 'r' resource, 'p' prompt */
} route_methods[] = {
	{ "resources/list",		ROUTE_LIST_RESOURCES, NULL, 'r' },
	{ "resources/templates/list",	ROUTE_LIST_TEMPLATES, NULL, 'r' },
	{ "prompts/list",		ROUTE_LIST_PROMPTS, NULL, 'p' },
	{ "resources/read",		0, "uri", 'r' },
	{ "resources/subscribe",	0, "uri", 'r' },
	{ "resources/unsubscribe",	0, "uri", 'r' },
	{ "prompts/get",		0, "name", 'p' },
	{ "completion/complete",	0, NULL, 0 },
};

static const struct route_method *
find_method(const char *method)
{
	size_t i;

	for (i = 0; i < sizeof(route_methods) / sizeof(route_methods[0]); i++)
		if (strcmp(route_methods[i].method, method) == 0)
			return &route_methods[i];
	return NULL;
}

/* The upstreams that declared cap, in configuration order. */
static size_t
candidates(struct session *s, const char *cap, struct upstream **out)
{
	size_t i, n = 0;

	for (i = 0; i < s->nups; i++)
		if (value_get(s->ups[i].caps, cap) != NULL)
			out[n++] = &s->ups[i];
	return n;
}

static const char *
kind_name(char kind)
{
	return kind == 'p' ? "prompt" : "resource";
}

static struct route *
route_lookup(struct session *s, char kind, const char *name)
{
	size_t i;

	for (i = 0; i < s->nroutes; i++)
		if (s->routes[i].kind == kind &&
		    strcmp(s->routes[i].name, name) == 0)
			return &s->routes[i];
	return NULL;
}

static void
route_remember(struct session *s, struct upstream *up, char kind,
    const char *name)
{
	struct route *r;
	char shown[256], msg[BNC_REASON_MAX];

	if ((r = route_lookup(s, kind, name)) != NULL) {
		if (r->up == up || r->other != NULL)
			return;
		/* Two owners is none: said once, here. */
		r->other = up;
		utf8_escape(shown, sizeof(shown), name, strlen(name));
		snprintf(msg, sizeof(msg), "%s '%s' is listed by upstreams "
		    "%s and %s: withheld from both, and refused when asked "
		    "for", kind_name(kind), shown, r->up->name, up->name);
		logit("%s", msg);
		gate_audit_event(s, "name-withheld", msg);
		return;
	}
	if (s->nroutes >= BNC_ROUTES_MAX) {
		debug("routes full; %s not remembered", name);
		return;
	}
	s->routes = xreallocarray(s->routes, s->nroutes + 1,
	    sizeof(*s->routes));
	s->routes[s->nroutes].kind = kind;
	s->routes[s->nroutes].name = xstrdup(name);
	s->routes[s->nroutes].up = up;
	s->routes[s->nroutes].other = NULL;
	s->nroutes++;
}

static void
forward(struct session *s, struct upstream *up, struct rpc *m,
    struct value *params, int list, int index)
{
	const struct value *meta;
	int64_t uid;

	meta = value_get(params, "_meta");
	if (up->state != UP_READY) {
		value_free(params);
		client_send_error(s, &m->id, -32603, "Internal error: "
		    "upstream is not running");
		return;
	}
	if ((uid = upstream_request(up, m->method, params, PEND_FORWARD,
	    &m->id, value_get(meta, "progressToken"))) == -1) {
		client_send_error(s, &m->id, -32603,
		    "Internal error: too many requests in flight");
		return;
	}
	upstream_pending_route(up, uid, list, index);
}

/* A completion names its prompt or resource in params.ref. */
static struct route *
completion_target(struct session *s, const struct value *params)
{
	const struct value *ref = value_get(params, "ref");
	const char *name;

	if ((name = value_get_str(ref, "uri")) != NULL)
		return route_lookup(s, 'r', name);
	if ((name = value_get_str(ref, "name")) != NULL)
		return route_lookup(s, 'p', name);
	return NULL;
}

/* A request for a name two upstreams listed: refused, and audited. */
static void
refuse_contested(struct session *s, struct rpc *m, const struct route *r)
{
	char shown[256], msg[BNC_REASON_MAX];

	utf8_escape(shown, sizeof(shown), r->name, strlen(r->name));
	snprintf(msg, sizeof(msg), "Invalid params: %s '%s' is listed by "
	    "upstreams %s and %s; bouncer routes it to neither",
	    kind_name(r->kind), shown, r->up->name, r->other->name);
	gate_audit_event(s, "name-refused", msg);
	client_send_error(s, &m->id, -32602, msg);
}

void
route_request(struct session *s, struct rpc *m, const char *cap)
{
	struct upstream *cand[BNC_UPSTREAMS_MAX];
	const struct route_method *rm;
	const struct route *r = NULL;
	struct value *params;
	const char *cur, *dot, *name;
	char *end;
	unsigned long idx = 0;
	size_t n;

	rm = find_method(m->method);
	n = candidates(s, cap, cand);
	if (n == 0 || rm == NULL) {
		client_send_error(s, &m->id, -32601, "Method not found");
		return;
	}
	params = m->params != NULL ? value_dup(m->params) : value_object();
	if (rm->list == 0 && rm->param != NULL &&
	    (name = value_get_str(params, rm->param)) != NULL)
		r = route_lookup(s, rm->kind, name);
	else if (rm->list == 0 && rm->param == NULL)
		r = completion_target(s, params);
	/* one upstream can complete what two listed: still neither's */
	if (r != NULL && r->other != NULL) {
		value_free(params);
		refuse_contested(s, m, r);
		return;
	}
	if (n == 1) {
		forward(s, cand[0], m, params, rm->list, -1);
		return;
	}
	if (rm->list) {
		if ((cur = value_get_str(params, "cursor")) != NULL) {
			if (strncmp(cur, ROUTE_CURSOR,
			    sizeof(ROUTE_CURSOR) - 1) != 0 ||
			    cur[sizeof(ROUTE_CURSOR) - 1] < '0' ||
			    cur[sizeof(ROUTE_CURSOR) - 1] > '9')
				goto badcursor;
			idx = strtoul(cur + sizeof(ROUTE_CURSOR) - 1, &end, 10);
			if (*end != '.' || idx >= n)
				goto badcursor;
			dot = end + 1;
			if (*dot == '\0')
				value_free(value_object_take(params, "cursor"));
			else
				value_object_put(params, "cursor",
				    value_string(dot));
		}
		forward(s, cand[idx], m, params, rm->list, (int)idx);
		return;
	}
	if (r == NULL) {
		value_free(params);
		client_send_error(s, &m->id, -32602, "Invalid params: no "
		    "upstream listed this; list it first");
		return;
	}
	forward(s, r->up, m, params, 0, -1);
	return;
 badcursor:
	value_free(params);
	client_send_error(s, &m->id, -32602, "Invalid params: unknown cursor");
}

/*
 * A routed list came back: remember what it names, and turn its
 * nextCursor into bouncer's, moving on to the next upstream at its end.
 */
void
route_result(struct upstream *up, int list, int index, struct value *result)
{
	static const char *const arrays[] = {
		[ROUTE_LIST_RESOURCES] = "resources",
		[ROUTE_LIST_TEMPLATES] = "resourceTemplates",
		[ROUTE_LIST_PROMPTS] = "prompts",
	};
	static const char *const keys[] = {
		[ROUTE_LIST_RESOURCES] = "uri",
		[ROUTE_LIST_TEMPLATES] = "uriTemplate",
		[ROUTE_LIST_PROMPTS] = "name",
	};
	struct session *s = up->s;
	struct upstream *cand[BNC_UPSTREAMS_MAX];
	const struct route *r;
	struct value *arr;
	const char *name, *next;
	char *cursor, kind = list == ROUTE_LIST_PROMPTS ? 'p' : 'r';
	size_t i, n, kept;

	if (list == 0 || !value_is(result, V_OBJECT))
		return;
	arr = value_get(result, arrays[list]);
	if (value_is(arr, V_ARRAY) && list != ROUTE_LIST_TEMPLATES) {
		for (i = 0; i < arr->u.a.n; i++)
			if ((name = value_get_str(arr->u.a.v[i],
			    keys[list])) != NULL)
				route_remember(s, up, kind, name);
		/* what two upstreams list is shown for neither */
		for (i = kept = 0; i < arr->u.a.n; i++) {
			if ((name = value_get_str(arr->u.a.v[i],
			    keys[list])) != NULL &&
			    (r = route_lookup(s, kind, name)) != NULL &&
			    r->other != NULL) {
				value_free(arr->u.a.v[i]);
				continue;
			}
			arr->u.a.v[kept++] = arr->u.a.v[i];
		}
		arr->u.a.n = kept;
	}
	if (index < 0)
		return;
	n = candidates(s, list == ROUTE_LIST_PROMPTS ? "prompts" :
	    "resources", cand);
	next = value_get_str(result, "nextCursor");
	if (next != NULL && *next != '\0')
		xasprintf(&cursor, ROUTE_CURSOR "%d.%s", index, next);
	else if ((size_t)index + 1 < n)
		xasprintf(&cursor, ROUTE_CURSOR "%d.", index + 1);
	else
		cursor = NULL;
	if (cursor != NULL) {
		value_object_put(result, "nextCursor", value_string(cursor));
		free(cursor);
	} else
		value_free(value_object_take(result, "nextCursor"));
}
