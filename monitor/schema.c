/*
 * schema.c - the argument names a pinned inputSchema declares.
 *
 * Servers write input schemas as generators emit them: properties behind
 * a "$ref" into "$defs", split over "allOf", alternatives in "anyOf" or
 * "oneOf".  A reader that looks only at the top-level "properties" sees
 * nothing there, and a sink gate built on it would take every argument
 * for undeclared (or every destination-shaped one for absent).  This
 * file follows local references and composition, bounded, and says when
 * it could not read everything.  It reads the schema only; it never
 * validates arguments against it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "schema.h"
#include "value.h"
#include "xmalloc.h"

struct walk {
	const struct value	 *root;
	const struct value	**seen;		/* subschemas already read */
	size_t			  nseen;
	struct schema_props	 *out;
};

static const char *const branches[] = { "allOf", "anyOf", "oneOf" };

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * One reference token of a JSON pointer in a URI fragment: %XX decoded,
 * then ~1 and ~0.  Returns the decoded length or -1.
 */
static long
pointer_token(const char *s, size_t len, char *out)
{
	size_t i, o = 0, k = 0;
	int hi, lo;
	char c;

	for (i = 0; i < len; i++) {
		c = s[i];
		if (c == '%') {
			if (i + 2 >= len || (hi = hexval(s[i + 1])) < 0 ||
			    (lo = hexval(s[i + 2])) < 0)
				return -1;
			c = (char)(hi << 4 | lo);
			i += 2;
		}
		if (c == '\0')
			return -1;
		out[o++] = c;
	}
	/* ~1 is '/', ~0 is '~', any other '~' is malformed */
	for (i = 0; i < o; i++) {
		if (out[i] != '~') {
			out[k++] = out[i];
			continue;
		}
		if (i + 1 == o || (out[i + 1] != '0' && out[i + 1] != '1'))
			return -1;
		out[k++] = out[i + 1] == '1' ? '/' : '~';
		i++;
	}
	return (long)k;
}

/* The subschema a local "$ref" names, or NULL. */
static const struct value *
resolve(const struct value *root, const char *ref)
{
	const struct value *v = root;
	const char *p, *e;
	char *tok;
	long n;
	size_t i;

	if (ref[0] != '#')
		return NULL;		/* another document: never fetched */
	p = ref + 1;
	if (*p == '\0')
		return root;
	if (*p != '/')
		return NULL;		/* a plain-name anchor: not followed */
	tok = xmalloc(strlen(ref) + 1);
	while (v != NULL && *p == '/') {
		p++;
		e = strchr(p, '/');
		if (e == NULL)
			e = p + strlen(p);
		if ((n = pointer_token(p, (size_t)(e - p), tok)) < 0) {
			v = NULL;
			break;
		}
		tok[n] = '\0';
		if (v->type == V_OBJECT)
			v = value_get(v, tok);
		else if (v->type == V_ARRAY && n > 0 && n < 10 &&
		    strspn(tok, "0123456789") == (size_t)n &&
		    (n == 1 || tok[0] != '0')) {
			i = (size_t)strtoul(tok, NULL, 10);
			v = i < v->u.a.n ? v->u.a.v[i] : NULL;
		} else
			v = NULL;
		p = e;
	}
	free(tok);
	return v;
}

static void
add_name(struct schema_props *out, const char *name, size_t klen,
    const struct value *def)
{
	if (strlen(name) != klen || schema_props_has(out, name))
		return;
	out->names = xreallocarray(out->names, out->n + 1,
	    sizeof(*out->names));
	out->defs = xreallocarray(out->defs, out->n + 1, sizeof(*out->defs));
	out->names[out->n] = xstrdup(name);
	out->defs[out->n] = def;
	out->n++;
}

static void
walk(struct walk *w, const struct value *s, int depth)
{
	const struct value *props, *ref, *br;
	size_t i, j;

	if (s == NULL || s->type != V_OBJECT)
		return;		/* true/false schemas declare nothing */
	for (i = 0; i < w->nseen; i++)
		if (w->seen[i] == s)
			return;	/* read already (a cycle, or shared) */
	if (depth > BNC_SCHEMA_DEPTH_MAX || w->nseen >= BNC_SCHEMA_NODES_MAX) {
		w->out->complete = 0;
		return;
	}
	w->seen = xreallocarray(w->seen, w->nseen + 1, sizeof(*w->seen));
	w->seen[w->nseen++] = s;

	props = value_get(s, "properties");
	if (props != NULL && props->type == V_OBJECT)
		for (i = 0; i < props->u.o.n; i++)
			add_name(w->out, props->u.o.m[i].key,
			    props->u.o.m[i].klen, props->u.o.m[i].val);
	if ((ref = value_get(s, "$ref")) != NULL) {
		if (ref->type != V_STRING ||
		    strlen(ref->u.s.p) != ref->u.s.len ||
		    (ref = resolve(w->root, ref->u.s.p)) == NULL)
			w->out->complete = 0;
		else
			walk(w, ref, depth + 1);
	}
	for (j = 0; j < sizeof(branches) / sizeof(branches[0]); j++) {
		if ((br = value_get(s, branches[j])) == NULL)
			continue;
		if (br->type != V_ARRAY) {
			w->out->complete = 0;
			continue;
		}
		for (i = 0; i < br->u.a.n; i++)
			walk(w, br->u.a.v[i], depth + 1);
	}
}

void
schema_props_get(const struct value *schema, struct schema_props *out)
{
	struct walk w;

	memset(out, 0, sizeof(*out));
	out->complete = 1;
	memset(&w, 0, sizeof(w));
	w.root = schema;
	w.out = out;
	walk(&w, schema, 0);
	free(w.seen);
}

void
schema_props_free(struct schema_props *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->n; i++)
		free(p->names[i]);
	free(p->names);
	free(p->defs);
	memset(p, 0, sizeof(*p));
}

int
schema_props_has(const struct schema_props *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (strcmp(p->names[i], name) == 0)
			return 1;
	return 0;
}
