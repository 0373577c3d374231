/*
 * surface.c - tool pins and the merged tool surface (DESIGN 4, 5).
 *
 * At start-up each upstream's whole tool list is recorded: one SHA-256
 * per tool over its canonical definition (name, description, schemas,
 * annotations: everything the server said), and one over the whole set.
 * Afterwards a tool is shown and callable only while the upstream still
 * lists it with the same definition.  A changed or new tool is withheld
 * until a restart re-pins it.  This file decides visibility; it never
 * forwards anything.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "buf.h"
#include "conffile.h"
#include "err.h"
#include "bounds.h"
#include "log.h"
#include "monitor.h"
#include "policy.h"
#include "value.h"
#include "xmalloc.h"

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

static const char *
tool_name(const struct value *def)
{
	const char *name;

	if (!value_is(def, V_OBJECT) ||
	    (name = value_get_str(def, "name")) == NULL ||
	    *name == '\0' || strlen(name) > BNC_TOOL_NAME_MAX)
		return NULL;
	return name;
}

static int
pin_ptr_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct pin *const *)a)->name,
	    (*(const struct pin *const *)b)->name);
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
		value_free(s->tools[i].listed);
	}
	free(s->tools);
	s->tools = NULL;
	s->ntools = 0;
}

/* How many upstreams pin a tool of this name? */
static size_t
name_users(const struct session *s, const char *name)
{
	size_t i, j, n = 0;

	for (i = 0; i < s->nups; i++)
		for (j = 0; j < s->ups[i].npins; j++)
			if (strcmp(s->ups[i].pins[j].name, name) == 0) {
				n++;
				break;
			}
	return n;
}

void
surface_build(struct session *s)
{
	struct tool_entry *e;
	struct upstream *up;
	size_t i, j, n = 0;

	entries_free(s);
	for (i = 0; i < s->nups; i++)
		n += s->ups[i].npins;
	s->tools = xcalloc(n + 1, sizeof(*s->tools));
	for (i = 0; i < s->nups; i++) {
		up = &s->ups[i];
		for (j = 0; j < up->npins; j++) {
			e = &s->tools[s->ntools++];
			e->up = up;
			e->pin = &up->pins[j];
			if (up->cfg->namespace ||
			    name_users(s, up->pins[j].name) > 1)
				xasprintf(&e->exposed, "%s__%s", up->name,
				    up->pins[j].name);
			else
				e->exposed = xstrdup(up->pins[j].name);
			e->listed = value_dup(up->pins[j].def);
			value_object_put(e->listed, "name",
			    value_string(e->exposed));
			e->visible = pin_current(e->pin, up->current);
			/* Never listed, always denied (DESIGN 6). */
			e->forbidden = s->policy != NULL &&
			    policy_forbidden(s->policy, up->name,
			    up->pins[j].name);
		}
	}
}

const struct tool_entry *
surface_find(const struct session *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->ntools; i++)
		if (strcmp(s->tools[i].exposed, name) == 0)
			return &s->tools[i];
	return NULL;
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
		if (!s->tools[i].visible || s->tools[i].forbidden)
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
