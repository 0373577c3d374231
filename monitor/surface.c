/*
 * surface.c - tool pins and the merged tool surface (DESIGN 4, 5).
 *
 * At start-up each upstream's whole tool list is recorded: one SHA-256
 * per tool over its canonical definition (name, description, schemas,
 * annotations: everything the server said), and one over the whole set.
 * Afterwards a tool is shown and callable only while the upstream still
 * lists it with the same definition.  A changed or new tool is withheld
 * until a restart re-pins it.  Every name shown has exactly one owner
 * (DESIGN 5, Names): a name two upstreams share is shown prefixed
 * "<upstream>__", and a name bouncer cannot give one owner (outside the
 * spec's characters, inside another upstream's prefix, or shown twice)
 * is withheld, never routed by listing order.  This file decides
 * visibility; it never forwards anything.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sodium.h>

#include "bounds.h"
#include "buf.h"
#include "conffile.h"
#include "err.h"
#include "log.h"
#include "monitor.h"
#include "policy.h"
#include "registry.h"
#include "surface.h"
#include "utf8.h"
#include "value.h"
#include "xmalloc.h"

static void	add_consent_param(struct value *);

#define CURSOR_PREFIX	"bnc1."

static int
tool_hash(const struct value *def, uint8_t out[32])
{
	struct buf *b;
	int r;

	b = buf_new();
	if ((r = value_encode_canonical(b, def)) == 0)
		crypto_hash_sha256(out, buf_ptr(b), buf_len(b));
	buf_free(b);
	return r;
}

/* A definition's name; NULL if it has none.  Whether the name is one a
 * client may be shown is surface_build's to judge. */
static const char *
tool_name(const struct value *def)
{
	if (!value_is(def, V_OBJECT))
		return NULL;
	return value_get_str(def, "name");
}

/*
 * A tool name as the MCP spec allows it: 1 to BNC_TOOL_NAME_MAX of
 * ASCII letters, digits, '_', '-' and '.'.  Anything else (a Cyrillic
 * 'e', a zero-width space, a fullwidth letter, a space) can only make a
 * name look like another.
 */
static int
name_in_spec(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > BNC_TOOL_NAME_MAX)
		return 0;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '_' || s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

static int
pin_ptr_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct pin *const *)a)->name,
	    (*(const struct pin *const *)b)->name);
}

/* Forgets up's pins and its last listing. */
static void
pins_free(struct upstream *up)
{
	size_t i;

	for (i = 0; i < up->npins; i++) {
		free(up->pins[i].name);
		value_free(up->pins[i].def);
	}
	free(up->pins);
	up->pins = NULL;
	up->npins = 0;
	up->pinned = 0;
	value_free(up->current);
	up->current = NULL;
}

int
surface_pin(struct upstream *up, struct value *tools, char *err,
    size_t errlen)
{
	crypto_hash_sha256_state st;
	struct pin *p, **sorted;
	const char *name;
	char hex[65];
	size_t i, j;
	int r = 0;

	if (!value_is(tools, V_ARRAY)) {
		snprintf(err, errlen, "tools/list did not return a list");
		r = -BNC_ERR_BAD_FORMAT;
		goto out;
	}
	if (tools->u.a.n > BNC_TOOLS_MAX) {
		snprintf(err, errlen, "more than %d tools", BNC_TOOLS_MAX);
		r = -BNC_ERR_TOO_LARGE;
		goto out;
	}
	up->pins = xcalloc(tools->u.a.n + 1, sizeof(*up->pins));
	for (i = 0; i < tools->u.a.n; i++) {
		if ((name = tool_name(tools->u.a.v[i])) == NULL) {
			snprintf(err, errlen, "tool %zu has no valid name", i);
			r = -BNC_ERR_BAD_FORMAT;
			goto out;
		}
		for (j = 0; j < up->npins; j++)
			if (strcmp(up->pins[j].name, name) == 0)
				break;
		if (j < up->npins) {
			/* Two definitions, one name: neither can be trusted. */
			snprintf(err, errlen, "tool \"%.128s\" listed twice",
			    name);
			r = -BNC_ERR_BAD_FORMAT;
			goto out;
		}
		p = &up->pins[up->npins++];
		p->name = xstrdup(name);
		p->def = value_dup(tools->u.a.v[i]);
		if ((r = tool_hash(p->def, p->hash)) != 0) {
			snprintf(err, errlen, "cannot hash tool \"%.128s\"",
			    name);
			goto out;
		}
	}
	/*
	 * The surface hash covers the set of names, not only each tool, in
	 * name order; the pins keep the upstream's order for listing.
	 */
	sorted = xcalloc(up->npins + 1, sizeof(*sorted));
	for (i = 0; i < up->npins; i++)
		sorted[i] = &up->pins[i];
	qsort(sorted, up->npins, sizeof(*sorted), pin_ptr_cmp);
	crypto_hash_sha256_init(&st);
	for (i = 0; i < up->npins; i++) {
		crypto_hash_sha256_update(&st,
		    (const unsigned char *)sorted[i]->name,
		    strlen(sorted[i]->name) + 1);
		crypto_hash_sha256_update(&st, sorted[i]->hash, 32);
	}
	crypto_hash_sha256_final(&st, up->surface_hash);
	free(sorted);
	sodium_bin2hex(hex, sizeof(hex), up->surface_hash, 32);
	up->pinned = 1;
	verbose("upstream %s: pinned %zu tools, surface sha256 %s",
	    up->name, up->npins, hex);
 out:
	/* a list refused in part is refused whole: no pins are kept */
	if (r != 0)
		pins_free(up);
	value_free(tools);
	return r;
}

/* Is pin p listed, unchanged, in tools? */
static int
pin_current(const struct pin *p, const struct value *tools)
{
	const struct value *def;
	const char *name;
	uint8_t h[32];
	size_t i;

	if (tools == NULL)
		return 1;
	for (i = 0; i < tools->u.a.n; i++) {
		def = tools->u.a.v[i];
		if ((name = tool_name(def)) == NULL ||
		    strcmp(name, p->name) != 0)
			continue;
		return tool_hash(def, h) == 0 &&
		    sodium_memcmp(h, p->hash, 32) == 0;
	}
	return 0;
}

int
surface_update(struct upstream *up, struct value *tools)
{
	const char *name;
	size_t i, j, changed = 0;
	int was, now;

	if (!value_is(tools, V_ARRAY)) {
		value_free(tools);
		tools = value_array();	/* an unreadable list shows nothing */
	}
	for (i = 0; i < up->npins; i++) {
		was = pin_current(&up->pins[i], up->current);
		now = pin_current(&up->pins[i], tools);
		if (was != now) {
			changed++;
			if (now)
				logit("upstream %s: tool \"%s\" is back as "
				    "pinned", up->name, up->pins[i].name);
			else
				error("upstream %s: tool \"%s\" changed or "
				    "vanished since pinning: withheld",
				    up->name, up->pins[i].name);
		}
	}
	for (i = 0; i < tools->u.a.n; i++) {
		if ((name = tool_name(tools->u.a.v[i])) == NULL)
			continue;
		for (j = 0; j < up->npins; j++)
			if (strcmp(up->pins[j].name, name) == 0)
				break;
		if (j == up->npins)
			error("upstream %s: new tool \"%.128s\" was not "
			    "pinned: withheld", up->name, name);
	}
	value_free(up->current);
	up->current = tools;
	return changed > 0;
}

static void
entries_free(struct session *s)
{
	size_t i;

	for (i = 0; i < s->ntools; i++) {
		free(s->tools[i].exposed);
		free(s->tools[i].withheld);
		value_free(s->tools[i].listed);
	}
	free(s->tools);
	s->tools = NULL;
	s->ntools = 0;
}

/*
 * Names that differ only in ASCII case or in '-', '_' and '.' are one
 * name to a reader (and to the forbidden set): two upstreams listing
 * them collide.
 */
static char *
name_fold(const char *s)
{
	char *o, *q;

	o = q = xmalloc(strlen(s) + 1);
	for (; *s != '\0'; s++) {
		if (*s == '-' || *s == '_' || *s == '.')
			continue;
		*q++ = (*s >= 'A' && *s <= 'Z') ? *s - 'A' + 'a' : *s;
	}
	*q = '\0';
	return o;
}

/* A tool of the surface being built, for sorting by a name. */
struct slot {
	char			*key;
	struct tool_entry	*e;
};

static int
slot_cmp(const void *a, const void *b)
{
	return strcmp(((const struct slot *)a)->key,
	    ((const struct slot *)b)->key);
}

/* Withholds e, saying why (printf-like); the first reason stays. */
static void __attribute__((format(printf, 2, 3)))
withhold(struct tool_entry *e, const char *fmt, ...)
{
	char why[BNC_REASON_MAX / 2], shown[BNC_TOOL_NAME_MAX + 64];
	char raw[BNC_TOOL_NAME_MAX + 64];
	const struct value *n;
	va_list ap;

	if (e->withheld != NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	utf8_escape(shown, sizeof(shown), e->exposed, strlen(e->exposed));
	n = value_get(e->pin->def, "name");
	utf8_escape(raw, sizeof(raw), n->u.s.p, n->u.s.len);
	if (strcmp(shown, raw) == 0)
		xasprintf(&e->withheld, "tool '%s' of upstream %s is "
		    "withheld: %s", shown, e->up->name, why);
	else
		xasprintf(&e->withheld, "tool '%s' (upstream %s's '%s') is "
		    "withheld: %s", shown, e->up->name, raw, why);
}

/* Does name begin with "<upstream>__" (ASCII case ignored)? */
static int
in_prefix(const char *name, const char *upstream)
{
	size_t n = strlen(upstream);

	return strncasecmp(name, upstream, n) == 0 && name[n] == '_' &&
	    name[n + 1] == '_';
}

/* Name checks of one entry: characters, prefixes, length shown. */
static void
check_name(struct session *s, struct tool_entry *e)
{
	const struct value *n = value_get(e->pin->def, "name");
	size_t i;

	if (!name_in_spec(n->u.s.p, n->u.s.len)) {
		withhold(e, "its name is outside the MCP tool-name characters "
		    "(1 to %d of A-Z a-z 0-9 _ - .)", BNC_TOOL_NAME_MAX);
		return;
	}
	for (i = 0; i < s->nups; i++)
		if (&s->ups[i] != e->up && in_prefix(e->pin->name,
		    s->ups[i].name)) {
			withhold(e, "its name begins with '%s__', the prefix "
			    "of upstream %s", s->ups[i].name, s->ups[i].name);
			return;
		}
	if (strlen(e->exposed) > BNC_TOOL_NAME_MAX) {
		withhold(e, "with its upstream's prefix the name is longer "
		    "than %d bytes", BNC_TOOL_NAME_MAX);
		return;
	}
	/* with a registry, the built-in names are bouncer's (DESIGN 7) */
	if (s->registry != NULL && registry_builtin_tier(e->exposed) >= 0)
		withhold(e, "'%s' is the name of one of bouncer's own tools",
		    e->exposed);
}

/*
 * Tools of two or more upstreams whose names fold alike get prefixes:
 * shared[] is indexed like tools[].
 */
static void
mark_shared(const struct tool_entry *tools, const struct slot *v, size_t n,
    int *shared)
{
	size_t i, j, k;
	int many;

	for (i = 0; i < n; i = j) {
		many = 0;
		for (j = i + 1; j < n && strcmp(v[j].key, v[i].key) == 0; j++)
			if (v[j].e->up != v[i].e->up)
				many = 1;
		for (k = i; many && k < j; k++)
			shared[v[k].e - tools] = 1;
	}
}

/* A name two tools would be shown under is shown for neither. */
static void
withhold_twins(struct slot *v, size_t n)
{
	char shown[BNC_TOOL_NAME_MAX + 64];
	size_t i, j, k;

	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && strcmp(v[j].key, v[i].key) == 0; j++)
			;
		if (j - i < 2)
			continue;
		utf8_escape(shown, sizeof(shown), v[i].key, strlen(v[i].key));
		for (k = i; k < j; k++) {
			if (v[i].e->up == v[i + 1].e->up)
				withhold(v[k].e, "upstream %s would show two "
				    "tools as '%s'", v[i].e->up->name, shown);
			else
				withhold(v[k].e, "upstreams %s and %s would "
				    "both show a tool as '%s'",
				    v[i].e->up->name, v[i + 1].e->up->name,
				    shown);
		}
	}
}

/* Tells the policy what its scope rules depend on (policy.h). */
static void
scope_policy(struct session *s)
{
	const struct value *sv;
	const char *server;
	struct upstream *up;
	size_t i, j;

	if (s->policy == NULL)
		return;
	for (i = 0; i < s->nups; i++) {
		up = &s->ups[i];
		sv = value_get(up->info, "name");
		/* a name with a NUL inside is no name a pack could give */
		server = value_is(sv, V_STRING) &&
		    strlen(sv->u.s.p) == sv->u.s.len ? sv->u.s.p : NULL;
		policy_scope_upstream(s->policy, up->name, server);
		for (j = 0; j < up->npins; j++)
			policy_scope_tool(s->policy, up->name,
			    up->pins[j].name);
	}
}

void
surface_build(struct session *s)
{
	struct tool_entry *e;
	struct upstream *up;
	struct slot *v;
	size_t i, j, n = 0, m;
	int *shared;

	entries_free(s);
	scope_policy(s);
	for (i = 0; i < s->nups; i++)
		n += s->ups[i].npins;
	s->tools = xcalloc(n + 1, sizeof(*s->tools));
	v = xcalloc(n + 1, sizeof(*v));
	shared = xcalloc(n + 1, sizeof(*shared));
	for (i = 0; i < s->nups; i++) {
		up = &s->ups[i];
		for (j = 0; j < up->npins; j++) {
			e = &s->tools[s->ntools];
			e->up = up;
			e->pin = &up->pins[j];
			v[s->ntools].e = e;
			v[s->ntools++].key = name_fold(up->pins[j].name);
		}
	}
	qsort(v, n, sizeof(*v), slot_cmp);
	mark_shared(s->tools, v, n, shared);
	for (i = 0; i < n; i++)
		free(v[i].key);
	for (i = m = 0; i < s->ntools; i++) {
		e = &s->tools[i];
		up = e->up;
		if (up->cfg->namespace || shared[i])
			xasprintf(&e->exposed, "%s__%s", up->name,
			    e->pin->name);
		else
			e->exposed = xstrdup(e->pin->name);
		e->listed = value_dup(e->pin->def);
		value_object_put(e->listed, "name", value_string(e->exposed));
		if (s->policy != NULL && policy_for(s->policy, up->name,
		    e->pin->name, value_get(e->pin->def, "inputSchema"))->
		    consent_text != NULL)
			add_consent_param(e->listed);
		e->visible = pin_current(e->pin, up->current);
		/* Never listed, always denied (DESIGN 6). */
		e->forbidden = s->policy != NULL &&
		    policy_forbidden(s->policy, up->name, e->pin->name);
		check_name(s, e);
		if (e->withheld == NULL) {
			v[m].e = e;
			v[m++].key = e->exposed;
		}
	}
	qsort(v, m, sizeof(*v), slot_cmp);
	withhold_twins(v, m);
	free(shared);
	free(v);
}

/*
 * A consent-gated tool (DESIGN 5, 7) is shown with one more required
 * argument, the token; bouncer checks it and strips it, so the
 * upstream never sees it.  A schema bouncer cannot extend (no object)
 * is left alone: every call of it is then denied for want of a token.
 */
static void
add_consent_param(struct value *def)
{
	struct value *schema, *props, *req, *p;

	schema = value_get(def, "inputSchema");
	if (!value_is(schema, V_OBJECT))
		return;
	if ((props = value_get(schema, "properties")) == NULL) {
		props = value_object();
		value_object_put(schema, "properties", props);
	}
	if (!value_is(props, V_OBJECT))
		return;
	p = value_object();
	value_object_put(p, "type", value_string("string"));
	value_object_put(p, "description", value_string("A signed consent "
	    "token for this exact text and target (bouncer-issue-consent); "
	    "checked and removed by bouncer."));
	value_object_put(props, POLICY_CONSENT_PARAM, p);
	if ((req = value_get(schema, "required")) == NULL) {
		req = value_array();
		value_object_put(schema, "required", req);
	}
	if (value_is(req, V_ARRAY))
		value_array_append(req, value_string(POLICY_CONSENT_PARAM));
}

void
surface_free(struct session *s)
{
	size_t i;

	entries_free(s);
	for (i = 0; i < s->nups; i++)
		pins_free(&s->ups[i]);
}

const struct tool_entry *
surface_find(const struct session *s, const char *name)
{
	const struct tool_entry *w = NULL;
	size_t i;

	for (i = 0; i < s->ntools; i++) {
		if (strcmp(s->tools[i].exposed, name) != 0)
			continue;
		if (s->tools[i].withheld == NULL)
			return &s->tools[i];
		if (w == NULL)
			w = &s->tools[i];
	}
	return w;
}

struct value *
surface_page(const struct session *s, const char *cursor, int *bad)
{
	struct value *res, *arr;
	unsigned long long start = 0;
	size_t i, seen = 0, added = 0;
	char *end, next[BNC_CURSOR_MAX];

	*bad = 0;
	if (cursor != NULL) {
		if (strncmp(cursor, CURSOR_PREFIX,
		    sizeof(CURSOR_PREFIX) - 1) != 0) {
			*bad = 1;
			return NULL;
		}
		cursor += sizeof(CURSOR_PREFIX) - 1;
		if (*cursor < '0' || *cursor > '9') {
			*bad = 1;
			return NULL;
		}
		start = strtoull(cursor, &end, 10);
		if (*end != '\0' || start > s->ntools) {
			*bad = 1;
			return NULL;
		}
	}
	res = value_object();
	arr = value_array();
	for (i = 0; i < s->ntools; i++) {
		if (!s->tools[i].visible || s->tools[i].forbidden ||
		    s->tools[i].withheld != NULL)
			continue;
		/* a registered agent sees its grant, and nothing else */
		if (s->grant != NULL &&
		    !registry_grants(s->grant, s->tools[i].exposed))
			continue;
		if (seen++ < start)
			continue;
		if (added == BNC_TOOLS_PAGE) {
			snprintf(next, sizeof(next), CURSOR_PREFIX "%zu",
			    (size_t)start + added);
			value_object_put(res, "nextCursor", value_string(next));
			break;
		}
		value_array_append(arr, value_dup(s->tools[i].listed));
		added++;
	}
	value_object_set(res, "tools", arr);
	return res;
}
