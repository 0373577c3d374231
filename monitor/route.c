/*
 * route.c - resources, prompts and completions across upstreams.
 *
 * A list request goes to the upstreams that declared the capability; with
 * several, it is paged through them in configuration order under
 * bouncer's own cursor ("bncr.<n>.<the upstream's cursor>").  What the
 * lists name is remembered: resource URIs, resource templates and prompt
 * names (with the arguments a prompt declares), and the URIs of the
 * resource links and embedded resources in the results an upstream
 * returns.  A read, a get, a subscription or a completion names one of
 * those, and route_resolve says which, and whose: the upstream that
 * listed it exactly, else the one whose templates produce the URI.  A
 * name two upstreams claim has no owner (DESIGN 5, Names): listing order
 * must not pick one, so it is left out of the lists from then on, and
 * what the policy forbids is never listed.  This file routes and
 * remembers only: gate.c decides and records before route_forward sends
 * anything, and what comes back is untrusted like everything else
 * (decide_result).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "client.h"
#include "decide.h"
#include "err.h"
#include "gate.h"
#include "log.h"
#include "monitor.h"
#include "policy.h"
#include "route.h"
#include "upstream.h"
#include "uritemplate.h"
#include "utf8.h"
#include "value.h"
#include "xmalloc.h"

#define ROUTE_LIST_RESOURCES	1
#define ROUTE_LIST_TEMPLATES	2
#define ROUTE_LIST_PROMPTS	3

/*
 * A resource URI ('r'), resource template ('t') or prompt name ('p') and
 * who listed it (a URI also: who linked to it in a result); other: a
 * second upstream listed it too, and it is routed to neither.
 */
struct route {
	char		 kind;
	char		*name;
	struct upstream	*up;
	struct upstream	*other;
	struct uritemplate *tmpl;	/* 't': compiled (NULL: matches
					 * nothing) */
	char		**args;		/* 'p': the arguments it declares */
	size_t		 nargs;
	size_t		 mem;		/* charged: the route and its name */
	size_t		 args_mem;	/* charged: args */
};

#define ROUTE_CURSOR	"bncr."

/* Which list a method is, and what a request names. */
static const struct route_method {
	const char	*method;
	int		 list;		/* ROUTE_LIST_* or 0 */
	const char	*param;		/* what a non-list request names */
	enum request_kind req;		/* 0 for a list; a completion's
					 * kind depends on its ref */
	int		 result;	/* POLICY_* whose taint_source says
					 * what its result is, or 0 */
} route_methods[] = {
	{ "resources/list", ROUTE_LIST_RESOURCES, NULL, 0, 0 },
	{ "resources/templates/list", ROUTE_LIST_TEMPLATES, NULL, 0, 0 },
	{ "prompts/list", ROUTE_LIST_PROMPTS, NULL, 0, 0 },
	{ "resources/read", 0, "uri", REQ_RESOURCE, POLICY_RESOURCE },
	{ "resources/subscribe", 0, "uri", REQ_RESOURCE, 0 },
	{ "resources/unsubscribe", 0, "uri", REQ_RESOURCE, 0 },
	{ "prompts/get", 0, "name", REQ_PROMPT, POLICY_PROMPT },
	{ "completion/complete", 0, NULL, REQ_COMPLETE_PROMPT, 0 },
};

/* What a list's entries are, by ROUTE_LIST_*. */
static const struct route_list {
	const char	*array;
	const char	*key;
	char		 kind;
	int		 policy;	/* POLICY_* of its forbidden marks */
} route_lists[] = {
	[ROUTE_LIST_RESOURCES] = { "resources", "uri", 'r', POLICY_RESOURCE },
	[ROUTE_LIST_TEMPLATES] = { "resourceTemplates", "uriTemplate", 't',
	    POLICY_RESOURCE },
	[ROUTE_LIST_PROMPTS] = { "prompts", "name", 'p', POLICY_PROMPT },
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
	return kind == 'p' ? "prompt" : kind == 't' ? "resource template" :
	    "resource";
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

/*
 * A template that cannot be compiled, or whose automaton finds no room
 * in the session's memory, is kept, and matches nothing.
 */
static void
compile_template(struct session *s, struct route *r)
{
	char shown[256];
	size_t need;
	int e;

	if ((e = uritemplate_compile(r->name, &r->tmpl)) == 0) {
		need = mem_alloc(uritemplate_mem(r->tmpl));
		if (mem_charge(&s->mem, need) == 0) {
			r->mem += need;
			return;
		}
		uritemplate_free(r->tmpl);
		r->tmpl = NULL;
		e = -BNC_ERR_ALLOC;
	}
	utf8_escape(shown, sizeof(shown), r->name, strlen(r->name));
	logit("upstream %s: resource template '%s' %s; no URI matches it",
	    r->up->name, shown, e == -BNC_ERR_TOO_LARGE ? "is too large to "
	    "match" : e == -BNC_ERR_ALLOC ? "finds no room: " MEM_FULL_REASON :
	    "is not an RFC 6570 template");
}

/*
 * Remembers that up listed (or linked to) name; returns its route, or
 * NULL when the table is full.
 */
static struct route *
route_remember(struct session *s, struct upstream *up, char kind,
    const char *name)
{
	struct route *r;
	char shown[256], msg[BNC_REASON_MAX];
	size_t need;

	if ((r = route_lookup(s, kind, name)) != NULL) {
		if (r->up == up || r->other != NULL)
			return r;
		/* Two owners is none: said once, here. */
		r->other = up;
		utf8_escape(shown, sizeof(shown), name, strlen(name));
		snprintf(msg, sizeof(msg), "%s '%s' is listed by upstreams "
		    "%s and %s: withheld from both, and refused when asked "
		    "for", kind_name(kind), shown, r->up->name, up->name);
		logit("%s", msg);
		gate_audit_event(s, "name-withheld", msg);
		return r;
	}
	/* Not remembered, it is not listed: a request for it is refused. */
	need = sizeof(*r) + mem_string(name);
	if (s->nroutes >= BNC_ROUTES_MAX ||
	    (kind == 't' && s->ntemplates >= BNC_TEMPLATES_MAX) ||
	    mem_charge(&s->mem, need) != 0) {
		debug("routes full; %s not remembered", name);
		return NULL;
	}
	s->routes = xreallocarray(s->routes, s->nroutes + 1,
	    sizeof(*s->routes));
	r = &s->routes[s->nroutes++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->name = xstrdup(name);
	r->up = up;
	r->mem = need;
	if (kind == 't') {
		s->ntemplates++;
		compile_template(s, r);
	}
	return r;
}

/*
 * The argument names a prompt declares (its prompts/list entry).  With
 * no room for them it declares none, and a request that passes any is
 * denied (fail closed).
 */
static void
remember_args(struct session *s, struct route *r, const struct value *def)
{
	const struct value *args = value_get(def, "arguments");
	const char *name;
	size_t i, need;

	for (i = 0; i < r->nargs; i++)
		free(r->args[i]);
	free(r->args);
	r->args = NULL;
	r->nargs = 0;
	mem_release(&s->mem, r->args_mem);
	r->args_mem = 0;
	if (!value_is(args, V_ARRAY))
		return;
	need = mem_alloc((args->u.a.n + 1) * sizeof(*r->args));
	for (i = 0; i < args->u.a.n && i < BNC_PROMPT_ARGS_MAX; i++)
		need += mem_string(value_get_str(args->u.a.v[i], "name"));
	if (mem_charge(&s->mem, need) != 0) {
		logit("prompt '%.64s': no room for its arguments (%s)",
		    r->name, MEM_FULL_REASON);
		return;
	}
	r->args_mem = need;
	r->args = xcalloc(args->u.a.n + 1, sizeof(*r->args));
	for (i = 0; i < args->u.a.n && r->nargs < BNC_PROMPT_ARGS_MAX; i++)
		if ((name = value_get_str(args->u.a.v[i], "name")) != NULL)
			r->args[r->nargs++] = xstrdup(name);
}

/* A resource link or an embedded resource names a URI of its upstream. */
static void
note_block(struct upstream *up, const struct value *b)
{
	const char *type = value_get_str(b, "type"), *uri = NULL;

	if (type == NULL)
		return;
	if (strcmp(type, "resource_link") == 0)
		uri = value_get_str(b, "uri");
	else if (strcmp(type, "resource") == 0)
		uri = value_get_str(value_get(b, "resource"), "uri");
	if (uri != NULL)
		route_remember(up->s, up, 'r', uri);
}

/*
 * The content blocks of a result: a tool result's "content", and each
 * of a prompt's "messages" (one block, or a list of them).
 */
static void
note_links(struct upstream *up, const struct value *result)
{
	const struct value *a, *c;
	size_t i, j;

	if (value_is(a = value_get(result, "content"), V_ARRAY))
		for (i = 0; i < a->u.a.n; i++)
			note_block(up, a->u.a.v[i]);
	if (!value_is(a = value_get(result, "messages"), V_ARRAY))
		return;
	for (i = 0; i < a->u.a.n; i++) {
		c = value_get(a->u.a.v[i], "content");
		if (value_is(c, V_OBJECT))
			note_block(up, c);
		else if (value_is(c, V_ARRAY))
			for (j = 0; j < c->u.a.n; j++)
				note_block(up, c->u.a.v[j]);
	}
}

/* What a forwarded read or get is for: its result's policy. */
struct named {
	int		 kind;		/* POLICY_RESOURCE or POLICY_PROMPT */
	char		 name[];	/* its URI or prompt name */
};

/* A list page: which list, and the upstream's place in the paging. */
struct page {
	int		 list;		/* ROUTE_LIST_* */
	int		 index;		/* paged across upstreams, or -1 */
};

/*
 * A forwarded request's answer: its result is untrusted (under the
 * entry of the resource or prompt it names, if it names one), the
 * resource links in it are remembered, and it goes back to the client.
 */
static void
request_done(struct upstream *up, const struct pending *p,
    enum pend_end how, struct rpc *m)
{
	const struct named *n = p->arg;

	if (how == PEND_ANSWER && m->kind == RPC_RESULT) {
		if (n != NULL)
			decide_request_result(&up->s->dc, up, n->kind, n->name,
			    m->result);
		else
			decide_result(&up->s->dc, NULL, m->result);
		route_result(up, 0, -1, m->result);
	}
	upstream_to_client(up, p, how, m);
}

/* A list page's answer: merged (route_result) before it goes back. */
static void
page_done(struct upstream *up, const struct pending *p, enum pend_end how,
    struct rpc *m)
{
	const struct page *pg = p->arg;

	if (how == PEND_ANSWER && m->kind == RPC_RESULT) {
		decide_result(&up->s->dc, NULL, m->result);
		route_result(up, pg->list, pg->index, m->result);
	}
	upstream_to_client(up, p, how, m);
}

void
route_forward(struct session *s, struct upstream *up, const char *method,
    const struct rpc_id *cid, const struct value *params)
{
	const struct route_method *rm = find_method(method);
	struct pending_req req;
	struct named *n;
	struct value *p;
	const char *name;
	size_t len;

	if (up->state != UP_READY) {
		client_send_error(s, cid, -32603, "Internal error: "
		    "upstream is not running");
		return;
	}
	p = params != NULL ? value_dup(params) : value_object();
	/*
	 * the decision saw the upstream take requests: too large as JSON,
	 * or it exited as it was written
	 */
	memset(&req, 0, sizeof(req));
	req.done = request_done;
	req.cid = cid;
	req.progress = value_get(value_get(params, "_meta"), "progressToken");
	if (rm != NULL && rm->result != 0 &&
	    (name = value_get_str(params, rm->param)) != NULL) {
		len = strlen(name);
		n = xmalloc(sizeof(*n) + len + 1);
		n->kind = rm->result;
		memcpy(n->name, name, len + 1);
		req.arg = n;
		req.arg_mem = mem_alloc(sizeof(*n) + len + 1);
	}
	if (upstream_request(up, method, p, &req) == -1)
		gate_not_sent(s, up, cid, "request");
}

/* Forwards a list to one upstream of several, index: its place. */
static void
forward_page(struct session *s, struct upstream *up, struct rpc *m,
    const struct value *params, int list, int index)
{
	struct pending_req req;
	struct page *pg;

	if (gate_list(s, up, m, params) != 0)
		return;
	pg = xmalloc(sizeof(*pg));
	pg->list = list;
	pg->index = index;
	memset(&req, 0, sizeof(req));
	req.done = page_done;
	req.arg = pg;
	req.arg_mem = mem_alloc(sizeof(*pg));
	req.cid = &m->id;
	req.progress = value_get(value_get(params, "_meta"), "progressToken");
	if (upstream_request(up, m->method, value_dup(params), &req) == -1)
		gate_not_sent(s, up, &m->id, "list");
}

void
route_request(struct session *s, struct rpc *m, const char *cap)
{
	struct upstream *cand[BNC_UPSTREAMS_MAX];
	const struct route_method *rm;
	struct value *params = NULL;
	const char *cur, *dot;
	char *end;
	unsigned long idx = 0;
	size_t n;

	rm = find_method(m->method);
	n = candidates(s, cap, cand);
	if (n == 0 || rm == NULL) {
		client_send_error(s, &m->id, -32601, "Method not found");
		return;
	}
	if (rm->list == 0) {
		gate_request(s, m);
		return;
	}
	params = m->params != NULL ? value_dup(m->params) : value_object();
	if (n == 1) {
		forward_page(s, cand[0], m, params, rm->list, -1);
		goto out;
	}
	if ((cur = value_get_str(params, "cursor")) != NULL) {
		if (strncmp(cur, ROUTE_CURSOR, sizeof(ROUTE_CURSOR) - 1) != 0 ||
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
			value_object_put(params, "cursor", value_string(dot));
	}
	forward_page(s, cand[idx], m, params, rm->list, (int)idx);
	goto out;
 badcursor:
	client_send_error(s, &m->id, -32602, "Invalid params: unknown cursor");
 out:
	value_free(params);
}

/* The owner of a URI listed, linked or produced by a template. */
static void
resolve_uri(struct session *s, const char *uri, struct request *req)
{
	const struct route *r;
	size_t i, work = BNC_URITEMPLATE_WORK_MAX;
	int m;

	if ((r = route_lookup(s, 'r', uri)) != NULL) {
		req->up = r->up;
		req->other = r->other;
		req->listed = r->other != NULL ? LISTED_CONTESTED :
		    LISTED_EXACT;
		return;
	}
	for (i = 0; i < s->nroutes; i++) {
		r = &s->routes[i];
		if (r->kind != 't' || r->tmpl == NULL)
			continue;
		if ((m = uritemplate_match(r->tmpl, uri, strlen(uri),
		    &work)) < 0) {
			req->listed = LISTED_UNSURE;
			return;
		}
		if (m == 0)
			continue;
		/* the second claimant is enough to make it nobody's */
		if (r->other != NULL || (req->up != NULL && req->up != r->up)) {
			req->other = r->other != NULL ? r->other : r->up;
			if (req->up == NULL)
				req->up = r->up;
			req->listed = LISTED_CONTESTED;
			return;
		}
		req->up = r->up;
		req->listed = LISTED_TEMPLATE;
		req->templates = xreallocarray(req->templates,
		    req->ntemplates + 1, sizeof(*req->templates));
		req->templates[req->ntemplates++] = r->name;
	}
}

/* The owner of a name listed exactly (kinds in order of preference). */
static void
resolve_exact(struct session *s, const char *kinds, const char *name,
    struct request *req)
{
	const struct route *r = NULL;

	for (; *kinds != '\0' && r == NULL; kinds++)
		r = route_lookup(s, *kinds, name);
	if (r == NULL)
		return;
	req->up = r->up;
	req->other = r->other;
	req->listed = r->other != NULL ? LISTED_CONTESTED : LISTED_EXACT;
	req->declared = r->args;
	req->ndeclared = r->nargs;
}

/*
 * A completion: what its ref names (a prompt, or a resource or template
 * listed exactly) and the values it sends: the argument being completed
 * and the ones already chosen (context.arguments), by name.
 */
static int
resolve_completion(struct session *s, const struct value *params,
    struct request *req, char *why, size_t whylen)
{
	const struct value *ref, *arg, *ctx, *v;
	const char *type, *name;
	size_t i;

	ref = value_get(params, "ref");
	type = value_get_str(ref, "type");
	arg = value_get(params, "argument");
	if ((name = value_get_str(arg, "name")) == NULL ||
	    (v = value_get(arg, "value")) == NULL) {
		snprintf(why, whylen, "completion/complete needs an argument "
		    "with a name and a value");
		return -1;
	}
	req->args = value_object();
	if (value_is(ctx = value_get(value_get(params, "context"),
	    "arguments"), V_OBJECT))
		for (i = 0; i < ctx->u.o.n; i++)
			value_object_put(req->args, ctx->u.o.m[i].key,
			    value_dup(ctx->u.o.m[i].val));
	value_object_put(req->args, name, value_dup(v));
	if ((type == NULL || strcmp(type, "ref/prompt") == 0) &&
	    (req->name = value_get_str(ref, "name")) != NULL) {
		req->kind = REQ_COMPLETE_PROMPT;
		resolve_exact(s, "p", req->name, req);
		return 0;
	}
	if ((type == NULL || strcmp(type, "ref/resource") == 0) &&
	    (req->name = value_get_str(ref, "uri")) != NULL) {
		req->kind = REQ_COMPLETE_RESOURCE;
		resolve_exact(s, "tr", req->name, req);
		req->declared = NULL;
		req->ndeclared = 0;
		return 0;
	}
	snprintf(why, whylen, "completion/complete needs a ref/prompt with a "
	    "name or a ref/resource with a uri");
	return -1;
}

int
route_resolve(struct session *s, const char *method,
    const struct value *params, struct request *req, char *why,
    size_t whylen)
{
	const struct route_method *rm;
	const struct value *args;

	memset(req, 0, sizeof(*req));
	req->method = method;
	if ((rm = find_method(method)) == NULL || rm->list != 0) {
		snprintf(why, whylen, "%s names nothing", method);
		return -1;
	}
	req->kind = rm->req;
	if (rm->param != NULL &&
	    (req->name = value_get_str(params, rm->param)) == NULL) {
		snprintf(why, whylen, "%s needs a string \"%s\"", method,
		    rm->param);
		return -1;
	}
	switch (rm->req) {
	case REQ_RESOURCE:
		req->args = value_object();
		value_object_put(req->args, "uri", value_string(req->name));
		resolve_uri(s, req->name, req);
		break;
	case REQ_PROMPT:
		args = value_get(params, "arguments");
		if (args != NULL && !value_is(args, V_OBJECT)) {
			snprintf(why, whylen, "arguments must be an object");
			return -1;
		}
		req->args = args != NULL ? value_dup(args) : value_object();
		resolve_exact(s, "p", req->name, req);
		break;
	default:
		if (resolve_completion(s, params, req, why, whylen) != 0)
			return -1;
		break;
	}
	xasprintf(&req->key, "%s/%s", req->kind == REQ_PROMPT ||
	    req->kind == REQ_COMPLETE_PROMPT ? "prompt" : "resource",
	    req->kind == REQ_PROMPT || req->kind == REQ_COMPLETE_PROMPT ?
	    req->name : "");
	return 0;
}

/* What the policy forbids is never listed (bouncer-policy(5)). */
static int
forbidden(struct upstream *up, int list, const char *name)
{
	if (up->s->policy == NULL)
		return 0;
	return policy_request_forbidden(up->s->policy, up->name,
	    route_lists[list].policy, name);
}

/*
 * A forwarded request came back: remember the URIs its content links
 * to; for a list, what it names, and turn its nextCursor into bouncer's,
 * moving on to the next upstream at its end.
 */
void
route_result(struct upstream *up, int list, int index, struct value *result)
{
	struct session *s = up->s;
	struct upstream *cand[BNC_UPSTREAMS_MAX];
	const struct route_list *rl;
	struct route *r;
	struct value *arr, *e;
	const char *name, *next;
	char *cursor;
	size_t i, n, kept;

	if (!value_is(result, V_OBJECT))
		return;
	if (list == 0) {
		note_links(up, result);
		return;
	}
	rl = &route_lists[list];
	arr = value_get(result, rl->array);
	if (value_is(arr, V_ARRAY)) {
		for (i = 0; i < arr->u.a.n; i++) {
			e = arr->u.a.v[i];
			if ((name = value_get_str(e, rl->key)) == NULL)
				continue;
			r = route_remember(s, up, rl->kind, name);
			if (r != NULL && r->kind == 'p' && r->up == up)
				remember_args(s, r, e);
		}
		/* what two upstreams list is shown for neither */
		for (i = kept = 0; i < arr->u.a.n; i++) {
			e = arr->u.a.v[i];
			if ((name = value_get_str(e, rl->key)) != NULL &&
			    (((r = route_lookup(s, rl->kind, name)) != NULL &&
			    r->other != NULL) || forbidden(up, list, name))) {
				value_free(e);
				continue;
			}
			arr->u.a.v[kept++] = e;
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
