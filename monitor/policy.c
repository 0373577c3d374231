/*
 * policy.c - load policy files and packs, layer them, answer lookups.
 *
 * Files are parsed with yaml-tree (line numbers; quoted scalars are never
 * booleans or integers) and checked key by key against a table: an
 * unknown key, a wrong type, a regex that does not compile is an error
 * naming file, line and key, and the file is refused whole.  Lookups are
 * a hash per layer.  It must never guess in the permissive direction: a
 * malformed value is an error, not a default, and a forbidden mark
 * cannot be lifted by a later entry.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "bounds.h"
#include "buf.h"
#include "canon.h"
#include "err.h"
#include "policy.h"
#include "schema.h"
#include "utf8.h"
#include "value.h"
#include "xmalloc.h"
#include "yaml-tree.h"

enum layer {
	LAYER_USER = 0,
	LAYER_PACK = 1,
	LAYER_HEUR = 2
};

/* A pack file, and the servers (serverInfo.name) its (server) names. */
struct pack {
	char	 *file;
	char	**servers;
	size_t	  nservers;
};

struct pentry {
	struct tool_policy	 tp;
	char			*key;		/* hash key */
	enum layer		 layer;
	struct pentry		*shadows;	/* same name, layer; earlier */
	const struct pack	*pack;		/* LAYER_PACK: its file */
	int			 noted;		/* policy_explain said why */
	/*
	 * A resolved lookup (the cache): either use points to the entry
	 * that decides, or tp is its own (heuristics), or tp is a copy of
	 * a user entry without its trust-granting keys whose lists belong
	 * to that entry (borrowed).
	 */
	const struct tool_policy *use;
	int			 borrowed;
	/* a prompt or resource entry without its trust-granting keys */
	struct pentry		*untrusted;
};

struct htab {
	struct pentry	**slot;
	size_t		  cap;		/* a power of two, or 0 */
	size_t		  n;
};

struct fname {
	char	*qual;		/* upstream, or NULL for every upstream */
	char	*norm;		/* normalised tool name */
};

/* An upstream of the session (policy_scope_upstream). */
struct scope_up {
	char	*name;
	char	*server;		/* serverInfo.name, or NULL */
};

/* A tool name, and the upstreams that list it (indices into sups). */
struct scope_tool {
	char	*tool;
	size_t	*ups;
	size_t	 n;
};

struct policy {
	struct pentry	**ents;		/* user and pack entries, in order */
	size_t		  nents;
	struct pentry	**heurs;	/* resolved lookups, owned */
	size_t		  nheurs;
	struct htab	  tab[3];	/* by layer; LAYER_HEUR: resolved */
	struct fname	 *forb;
	size_t		  nforb;
	struct pack	**packs;	/* pack files, with their (server) */
	size_t		  npacks;
	struct scope_up	 *sups;
	size_t		  nsups;
	struct scope_tool **stab;	/* by tool name, open addressing */
	size_t		  stcap, stn;
	struct tool_policy fallback;	/* when the cache is full */
	struct pentry	**rents;	/* resource/GLOB entries, load order */
	size_t		  nrents;
	struct tool_policy none;	/* a prompt or resource without one */
};

/* DESIGN 6: never listed, always denied, whatever the policy says. */
static const char *const builtin_forbidden[] = {
	"set_owner", "set_due_date", "set_status", "update_property",
	"update_any_property", "assign", "delete_page", "delete_issue",
};

static const char *const layer_source[] = {
	[LAYER_USER] = "user",
	[LAYER_PACK] = "pack",
	[LAYER_HEUR] = "heuristics",
};

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- hash tables -------------------------------------------------- */

static uint32_t
hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

static struct pentry *
ht_get(const struct htab *t, const char *key)
{
	size_t i;

	if (t->cap == 0)
		return NULL;
	for (i = hash_str(key) & (t->cap - 1); t->slot[i] != NULL;
	    i = (i + 1) & (t->cap - 1))
		if (strcmp(t->slot[i]->key, key) == 0)
			return t->slot[i];
	return NULL;
}

/* Inserts e; returns the entry it replaced (same key), or NULL. */
static struct pentry *
ht_put(struct htab *t, struct pentry *e)
{
	struct pentry *old, **oslot;
	size_t i, ocap;

	if ((t->n + 1) * 2 > t->cap) {
		oslot = t->slot;
		ocap = t->cap;
		t->cap = ocap == 0 ? 64 : ocap * 2;
		t->slot = xcalloc(t->cap, sizeof(*t->slot));
		t->n = 0;
		for (i = 0; i < ocap; i++)
			if (oslot[i] != NULL)
				ht_put(t, oslot[i]);
		free(oslot);
	}
	for (i = hash_str(e->key) & (t->cap - 1); t->slot[i] != NULL;
	    i = (i + 1) & (t->cap - 1))
		if (strcmp(t->slot[i]->key, e->key) == 0) {
			old = t->slot[i];
			t->slot[i] = e;
			return old;
		}
	t->slot[i] = e;
	t->n++;
	return NULL;
}

/*
 * Every lookup resolved so far depends on the entries and the scope;
 * when either changes, they are forgotten.  The entries stay allocated:
 * policy_for's pointers stay valid until policy_free.
 */
static void
cache_forget(struct policy *p)
{
	free(p->tab[LAYER_HEUR].slot);
	memset(&p->tab[LAYER_HEUR], 0, sizeof(p->tab[LAYER_HEUR]));
}

/* ---- entries ------------------------------------------------------ */

static void
free_vec(char **v, size_t n)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void
tool_policy_clear(struct tool_policy *tp)
{
	size_t i;

	free(tp->name);
	free(tp->file);
	free_vec(tp->sink_params, tp->nsink);
	free_vec(tp->trusted, tp->ntrusted);
	free_vec(tp->write_params, tp->nwrite);
	free_vec(tp->prefixes, tp->nprefixes);
	for (i = 0; i < tp->npatterns; i++) {
		free(tp->patterns[i].param);
		free(tp->patterns[i].src);
		pcre2_code_free(tp->patterns[i].re);
	}
	free(tp->patterns);
	for (i = 0; i < tp->nidpats; i++) {
		free(tp->idpats[i].src);
		pcre2_code_free(tp->idpats[i].re);
	}
	free(tp->idpats);
	free(tp->consent_text);
	free_vec(tp->consent_target, tp->nconsent_target);
	memset(tp, 0, sizeof(*tp));
}

static struct pentry *
pentry_new(enum layer layer)
{
	struct pentry *e;

	e = xcalloc(1, sizeof(*e));
	e->layer = layer;
	e->tp.source = layer_source[layer];
	e->tp.max_calls = -1;
	e->tp.tainted = TAINTED_DENY;
	e->tp.taint_source = 1;
	return e;
}

static void
pentry_free(struct pentry *e)
{
	if (e == NULL)
		return;
	if (e->key != e->tp.name)
		free(e->key);
	/* an alias or a borrowed copy owns nothing of its tp */
	if (e->use == NULL && !e->borrowed)
		tool_policy_clear(&e->tp);
	pentry_free(e->untrusted);
	free(e);
}

static void
pack_free(struct pack *pk)
{
	if (pk == NULL)
		return;
	free(pk->file);
	free_vec(pk->servers, pk->nservers);
	free(pk);
}

struct policy *
policy_new(void)
{
	struct policy *p;

	p = xcalloc(1, sizeof(*p));
	/* Fail closed: every argument is a sink, and a human confirms. */
	p->fallback.name = xstrdup("(heuristic cache full)");
	p->fallback.source = layer_source[LAYER_HEUR];
	p->fallback.exfiltrating = 1;
	p->fallback.max_calls = -1;
	p->fallback.confirm = 1;
	p->fallback.taint_source = 1;
	p->none.name = xstrdup("(no entry)");
	p->none.source = "none";
	p->none.max_calls = -1;
	p->none.taint_source = 1;
	return p;
}

void
policy_free(struct policy *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->nents; i++)
		pentry_free(p->ents[i]);
	free(p->ents);
	for (i = 0; i < p->nheurs; i++)
		pentry_free(p->heurs[i]);
	free(p->heurs);
	for (i = 0; i < NELEM(p->tab); i++)
		free(p->tab[i].slot);
	for (i = 0; i < p->nforb; i++) {
		free(p->forb[i].qual);
		free(p->forb[i].norm);
	}
	free(p->forb);
	for (i = 0; i < p->npacks; i++)
		pack_free(p->packs[i]);
	free(p->packs);
	for (i = 0; i < p->nsups; i++) {
		free(p->sups[i].name);
		free(p->sups[i].server);
	}
	free(p->sups);
	for (i = 0; i < p->stcap; i++)
		if (p->stab[i] != NULL) {
			free(p->stab[i]->tool);
			free(p->stab[i]->ups);
			free(p->stab[i]);
		}
	free(p->stab);
	tool_policy_clear(&p->fallback);
	tool_policy_clear(&p->none);
	free(p->rents);
	free(p);
}

size_t
policy_nentries(const struct policy *p)
{
	return p->nents;
}

const struct tool_policy *
policy_entry(const struct policy *p, size_t i)
{
	return i < p->nents ? &p->ents[i]->tp : NULL;
}

/* ---- the forbidden set -------------------------------------------- */

/* Lower-case ASCII, drop '-', '_', '.' and spaces. */
static char *
forbid_norm(const char *s)
{
	char *o, *q;

	o = q = xmalloc(strlen(s) + 1);
	for (; *s != '\0'; s++) {
		if (*s == '-' || *s == '_' || *s == '.' || *s == ' ')
			continue;
		*q++ = (*s >= 'A' && *s <= 'Z') ? *s - 'A' + 'a' : *s;
	}
	*q = '\0';
	return o;
}

/* "upstream:tool" splits only where the qualifier is an upstream name. */
static int
upstream_name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > BNC_UPSTREAM_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

/* The tool part of a name, and the qualifier's length (0: unqualified). */
static const char *
split_qualified(const char *name, size_t *qlen)
{
	const char *c = strchr(name, ':');

	*qlen = 0;
	if (c == NULL || !upstream_name_ok(name, (size_t)(c - name)) ||
	    c[1] == '\0')
		return name;
	*qlen = (size_t)(c - name);
	return c + 1;
}

void
policy_add_forbidden(struct policy *p, const char *name)
{
	const char *tool;
	size_t qlen;

	tool = split_qualified(name, &qlen);
	p->forb = xreallocarray(p->forb, p->nforb + 1, sizeof(*p->forb));
	p->forb[p->nforb].qual = qlen > 0 ? xstrndup(name, qlen) : NULL;
	p->forb[p->nforb].norm = forbid_norm(tool);
	p->nforb++;
}

static int
builtin_forbidden_name(const char *tool)
{
	char *n, *b;
	size_t i;
	int hit = 0;

	n = forbid_norm(tool);
	for (i = 0; i < NELEM(builtin_forbidden) && !hit; i++) {
		b = forbid_norm(builtin_forbidden[i]);
		hit = strcmp(n, b) == 0;
		free(b);
	}
	free(n);
	return hit;
}

int
policy_forbidden(const struct policy *p, const char *upstream,
    const char *tool)
{
	char *n;
	size_t i;
	int hit = 0;

	if (tool == NULL)
		return 1;
	if (builtin_forbidden_name(tool))
		return 1;
	n = forbid_norm(tool);
	for (i = 0; p != NULL && i < p->nforb && !hit; i++) {
		if (p->forb[i].qual != NULL && (upstream == NULL ||
		    strcmp(p->forb[i].qual, upstream) != 0))
			continue;
		hit = strcmp(p->forb[i].norm, n) == 0;
	}
	free(n);
	return hit;
}

/* ---- loading ------------------------------------------------------ */

struct pctx {
	const char	*path;
	char		*err;
	size_t		 errlen;
};

static int __attribute__((format(printf, 4, 5)))
pfail(struct pctx *x, const struct ynode *n, const char *key,
    const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = ynode_vfail(x->err, x->errlen, x->path, n, key, fmt, ap);
	va_end(ap);
	return r;
}

/* How a wrong value reads in a message. */
static const char *
describe(const struct ynode *v, char *buf, size_t len)
{
	if (v == NULL)
		return "nothing";
	if (v->type != YNODE_SCALAR)
		return ynode_type_name(v);
	snprintf(buf, len, "%s\"%.64s%s\"", v->quoted ? "the quoted string " :
	    "", v->scalar, strlen(v->scalar) > 64 ? "..." : "");
	return buf;
}

static int
is_null_scalar(const struct ynode *v)
{
	return v->type == YNODE_SCALAR && !v->quoted &&
	    (v->scalar[0] == '\0' || strcmp(v->scalar, "~") == 0 ||
	    strcmp(v->scalar, "null") == 0 || strcmp(v->scalar, "Null") == 0 ||
	    strcmp(v->scalar, "NULL") == 0);
}

/* A non-empty string scalar of at most BNC_POLICY_STRING_MAX bytes. */
static int
get_string(struct pctx *x, const struct ynode *v, const char *key,
    const char **out)
{
	char d[96];

	if (v == NULL || v->type != YNODE_SCALAR || is_null_scalar(v))
		return pfail(x, v, key, "must be a string, not %s",
		    v != NULL && v->type == YNODE_SCALAR ? "null" :
		    describe(v, d, sizeof(d)));
	if (v->scalar[0] == '\0')
		return pfail(x, v, key, "must not be empty");
	if (strlen(v->scalar) > BNC_POLICY_STRING_MAX)
		return pfail(x, v, key, "longer than %d bytes",
		    BNC_POLICY_STRING_MAX);
	if (!utf8_valid(v->scalar, strlen(v->scalar)))
		return pfail(x, v, key, "not valid UTF-8");
	*out = v->scalar;
	return 0;
}

enum list_kind {
	LIST_PARAM,		/* argument names */
	LIST_DEST,		/* trusted destinations */
	LIST_PREFIX,		/* allowed path prefixes */
	LIST_SERVER		/* a pack's (server): serverInfo names */
};

static int
check_prefix(struct pctx *x, const struct ynode *v, const char *key,
    const char *s)
{
	const char *c = s, *e;

	if (s[0] == '~')
		return pfail(x, v, key, "\"%.64s\": '~' is not expanded; "
		    "write the directory out", s);
	/* No ".." component: a prefix may not climb out of itself. */
	while (*c != '\0') {
		e = strchr(c, '/');
		if (e == NULL)
			e = c + strlen(c);
		if (e - c == 2 && c[0] == '.' && c[1] == '.')
			return pfail(x, v, key, "\"%.64s\": a prefix may not "
			    "contain a \"..\" component", s);
		c = *e == '/' ? e + 1 : e;
	}
	return 0;
}

static int pattern_canon(const char *, char **, char *);

/* A trusted destination must be a well-formed identity, read one way. */
static int
check_dest(struct pctx *x, const struct ynode *v, const char *key,
    const char *s)
{
	char *pc, err[256];

	if (pattern_canon(s, &pc, err) != 0)
		return pfail(x, v, key, "%s", err);
	free(pc);
	return 0;
}

static int
get_list(struct pctx *x, const struct ynode *v, const char *key,
    enum list_kind kind, char ***vecp, size_t *np)
{
	const char *s;
	char d[96];
	char **vec = NULL;
	size_t i, j, n = 0;
	int r = 0;

	if (v->type != YNODE_SEQUENCE)
		return pfail(x, v, key, "must be a list of strings, not %s",
		    describe(v, d, sizeof(d)));
	if (v->n > BNC_POLICY_LIST_MAX)
		return pfail(x, v, key, "more than %d entries",
		    BNC_POLICY_LIST_MAX);
	vec = xcalloc(v->n + 1, sizeof(*vec));
	for (i = 0; i < v->n; i++) {
		if ((r = get_string(x, v->items[i], key, &s)) != 0)
			goto out;
		if (kind == LIST_PREFIX &&
		    (r = check_prefix(x, v->items[i], key, s)) != 0)
			goto out;
		if (kind == LIST_DEST &&
		    (r = check_dest(x, v->items[i], key, s)) != 0)
			goto out;
		for (j = 0; j < n; j++)
			if (strcmp(vec[j], s) == 0) {
				r = pfail(x, v->items[i], key, "\"%.64s\" is "
				    "listed twice", s);
				goto out;
			}
		vec[n++] = xstrdup(s);
	}
	*vecp = vec;
	*np = n;
	vec = NULL;
	n = 0;
 out:
	free_vec(vec, n);
	return r;
}

static int
key_bool(struct pctx *x, const struct ynode *v, const char *key, int *out)
{
	char d[96];

	if (ynode_bool(v, out) != 0)
		return pfail(x, v, key, "must be true or false, not %s%s",
		    describe(v, d, sizeof(d)), v->type == YNODE_SCALAR &&
		    v->quoted ? " (quoted, so not a boolean)" : "");
	return 0;
}

static int
key_max_calls(struct pctx *x, const struct ynode *v, const char *key,
    long long *out)
{
	char d[96];

	if (ynode_int(v, 0, BNC_POLICY_MAX_CALLS_MAX, out) != 0)
		return pfail(x, v, key, "must be a whole number from 0 to "
		    "%lld, not %s%s", BNC_POLICY_MAX_CALLS_MAX,
		    describe(v, d, sizeof(d)), v->type == YNODE_SCALAR &&
		    v->quoted ? " (quoted, so not a number)" : "");
	return 0;
}

static int
key_tainted(struct pctx *x, const struct ynode *v, const char *key,
    enum tainted_action *out)
{
	char d[96];

	if (v->type == YNODE_SCALAR && strcmp(v->scalar, "deny") == 0)
		*out = TAINTED_DENY;
	else if (v->type == YNODE_SCALAR && strcmp(v->scalar, "ask") == 0)
		*out = TAINTED_ASK;
	else
		return pfail(x, v, key, "must be deny or ask, not %s",
		    describe(v, d, sizeof(d)));
	return 0;
}

static int
key_approval(struct pctx *x, const struct ynode *v, const char *key,
    enum approval_channel *out)
{
	char d[96];

	if (v->type == YNODE_SCALAR && strcmp(v->scalar, "elicit") == 0)
		*out = APPROVAL_ELICIT;
	else if (v->type == YNODE_SCALAR && strcmp(v->scalar, "signed") == 0)
		*out = APPROVAL_SIGNED;
	else
		return pfail(x, v, key, "must be elicit or signed, not %s",
		    describe(v, d, sizeof(d)));
	return 0;
}

/*
 * consent: {text: PARAM, target: [PARAM, ...]}: the argument whose exact
 * text a human consents to, and those that name where it goes.  None
 * of them may be the token's own argument, nor the text a target.
 */
static int
key_consent(struct pctx *x, const struct ynode *v, const char *key,
    struct tool_policy *tp)
{
	const struct ynode *k, *val;
	const char *s;
	char d[96];
	size_t i;
	int r;

	if (v->type != YNODE_MAPPING)
		return pfail(x, v, key, "must be a mapping {text: PARAM, "
		    "target: [PARAM, ...]}, not %s", describe(v, d, sizeof(d)));
	for (i = 0; i < v->n; i += 2) {
		k = v->items[i];
		val = v->items[i + 1];
		if (strcmp(k->scalar, "text") == 0) {
			if ((r = get_string(x, val, "consent.text", &s)) != 0)
				return r;
			free(tp->consent_text);
			tp->consent_text = xstrdup(s);
		} else if (strcmp(k->scalar, "target") == 0) {
			free_vec(tp->consent_target, tp->nconsent_target);
			tp->consent_target = NULL;
			tp->nconsent_target = 0;
			if ((r = get_list(x, val, "consent.target", LIST_PARAM,
			    &tp->consent_target, &tp->nconsent_target)) != 0)
				return r;
		} else
			return pfail(x, k, key, "unknown key \"%.64s\" (text, "
			    "target)", k->scalar);
	}
	if (tp->consent_text == NULL || tp->nconsent_target == 0)
		return pfail(x, v, key, "needs both text and a non-empty "
		    "target list");
	for (i = 0; i < tp->nconsent_target; i++) {
		if (strcmp(tp->consent_target[i], tp->consent_text) == 0)
			return pfail(x, v, key, "\"%.64s\" is both the text "
			    "and a target", tp->consent_text);
		if (strcmp(tp->consent_target[i], POLICY_CONSENT_PARAM) == 0)
			return pfail(x, v, key, "the target cannot be %s",
			    POLICY_CONSENT_PARAM);
	}
	if (strcmp(tp->consent_text, POLICY_CONSENT_PARAM) == 0)
		return pfail(x, v, key, "the text cannot be %s",
		    POLICY_CONSENT_PARAM);
	return 0;
}

static int
key_extra(struct pctx *x, const struct ynode *v, const char *key, int *out)
{
	char d[96];

	if (v->type == YNODE_SCALAR && strcmp(v->scalar, "deny") == 0)
		*out = 0;
	else if (v->type == YNODE_SCALAR && strcmp(v->scalar, "allow") == 0)
		*out = 1;
	else
		return pfail(x, v, key, "must be allow or deny, not %s",
		    describe(v, d, sizeof(d)));
	return 0;
}

/*
 * Compiles src (from node v, key for messages).  anchored: the whole
 * value must match, by options, not by wrapping the source in
 * ^(?:...)$: a stray ')' must not compile.
 */
static int
compile_regex(struct pctx *x, const struct ynode *v, const char *key,
    const char *src, int anchored, pcre2_code **out)
{
	PCRE2_UCHAR emsg[256];
	PCRE2_SIZE eoff;
	uint32_t opts = PCRE2_UTF | PCRE2_NEVER_BACKSLASH_C;
	int ecode;

	if (anchored)
		opts |= PCRE2_ANCHORED | PCRE2_ENDANCHORED;
	*out = pcre2_compile((PCRE2_SPTR)src, PCRE2_ZERO_TERMINATED, opts,
	    &ecode, &eoff, NULL);
	if (*out != NULL)
		return 0;
	if (pcre2_get_error_message(ecode, emsg, sizeof(emsg)) < 0)
		snprintf((char *)emsg, sizeof(emsg), "error %d", ecode);
	return pfail(x, v, key, "bad regex /%.200s/: %s at offset %zu", src,
	    (char *)emsg, (size_t)eoff);
}

static int
key_patterns(struct pctx *x, const struct ynode *v, const char *key,
    struct tool_policy *tp)
{
	pcre2_code *re;
	const struct ynode *rv;
	const char *param, *src;
	char kp[BNC_POLICY_STRING_MAX + 128], d[96];
	size_t i;
	int r;

	if (v->type != YNODE_MAPPING)
		return pfail(x, v, key, "must be a mapping of argument to "
		    "regex, not %s", describe(v, d, sizeof(d)));
	if (v->n / 2 > BNC_POLICY_LIST_MAX)
		return pfail(x, v, key, "more than %d entries",
		    BNC_POLICY_LIST_MAX);
	tp->patterns = xcalloc(v->n / 2 + 1, sizeof(*tp->patterns));
	for (i = 0; i < v->n; i += 2) {
		if ((r = get_string(x, v->items[i], key, &param)) != 0)
			return r;
		snprintf(kp, sizeof(kp), "%s.%s", key, param);
		/* '' is a regex too: it admits only the empty value */
		rv = v->items[i + 1];
		if (rv->type == YNODE_SCALAR && rv->quoted &&
		    rv->scalar[0] == '\0')
			src = "";
		else if ((r = get_string(x, rv, kp, &src)) != 0)
			return r;
		if ((r = compile_regex(x, rv, kp, src, 1, &re)) != 0)
			return r;
		tp->patterns[tp->npatterns].param = xstrdup(param);
		tp->patterns[tp->npatterns].src = xstrdup(src);
		tp->patterns[tp->npatterns].re = re;
		tp->npatterns++;
	}
	return 0;
}

/* Searches s for re from off; 1 and the match's span, 0 none, < 0 error. */
static int
search(const pcre2_code *re, const char *s, size_t len, size_t off,
    size_t *mo, size_t *ml)
{
	pcre2_match_data *md = NULL;
	pcre2_match_context *mc = NULL;
	PCRE2_SIZE *ov;
	int r = -1, rc;

	if ((md = pcre2_match_data_create_from_pattern(re, NULL)) == NULL ||
	    (mc = pcre2_match_context_create(NULL)) == NULL)
		goto out;
	/* The subject is the agent's: bound the backtracking it can cause. */
	pcre2_set_match_limit(mc, BNC_POLICY_MATCH_LIMIT);
	pcre2_set_depth_limit(mc, BNC_POLICY_DEPTH_LIMIT);
	pcre2_set_heap_limit(mc, BNC_POLICY_HEAP_LIMIT);
	rc = pcre2_match(re, (PCRE2_SPTR)s, len, off, 0, md, mc);
	if (rc >= 0) {
		ov = pcre2_get_ovector_pointer(md);
		if (ov[0] > ov[1] || ov[1] > len)
			goto out;
		*mo = ov[0];
		*ml = ov[1] - ov[0];
		r = 1;
	} else if (rc == PCRE2_ERROR_NOMATCH)
		r = 0;
 out:
	pcre2_match_data_free(md);
	pcre2_match_context_free(mc);
	return r;
}

/* identity_patterns: found anywhere in a value, never empty. */
static int
key_idpats(struct pctx *x, const struct ynode *v, const char *key,
    struct tool_policy *tp)
{
	pcre2_code *re;
	const char *src;
	char d[96];
	size_t i, mo, ml;
	int r;

	if (v->type != YNODE_SEQUENCE)
		return pfail(x, v, key, "must be a list of regexes, not %s",
		    describe(v, d, sizeof(d)));
	if (v->n > BNC_POLICY_LIST_MAX)
		return pfail(x, v, key, "more than %d entries",
		    BNC_POLICY_LIST_MAX);
	tp->idpats = xcalloc(v->n + 1, sizeof(*tp->idpats));
	for (i = 0; i < v->n; i++) {
		if ((r = get_string(x, v->items[i], key, &src)) != 0 ||
		    (r = compile_regex(x, v->items[i], key, src, 0, &re)) != 0)
			return r;
		tp->idpats[tp->nidpats].src = xstrdup(src);
		tp->idpats[tp->nidpats].re = re;
		tp->nidpats++;
		/* an identity is something: a pattern that matches nothing
		 * would find one between every two characters */
		if (search(re, "", 0, 0, &mo, &ml) != 0)
			return pfail(x, v->items[i], key, "/%.200s/ matches "
			    "the empty string", src);
	}
	return 0;
}

enum key_kind {
	K_BOOL,
	K_LIST,
	K_PATTERNS,
	K_MAX_CALLS,
	K_TAINTED,
	K_EXTRA,
	K_IDPATS,
	K_APPROVAL,
	K_CONSENT
};

/* Every key an entry may have; anything else is an error. */
static const struct entry_key {
	const char	*name;
	enum key_kind	 kind;
	enum list_kind	 list;
	size_t		 off;		/* the field */
	size_t		 noff;		/* its count, for lists */
} entry_keys[] = {
	{ "exfiltrating", K_BOOL, 0,
	    offsetof(struct tool_policy, exfiltrating), 0 },
	{ "sink_params", K_LIST, LIST_PARAM,
	    offsetof(struct tool_policy, sink_params),
	    offsetof(struct tool_policy, nsink) },
	{ "trusted_destinations", K_LIST, LIST_DEST,
	    offsetof(struct tool_policy, trusted),
	    offsetof(struct tool_policy, ntrusted) },
	{ "write_params", K_LIST, LIST_PARAM,
	    offsetof(struct tool_policy, write_params),
	    offsetof(struct tool_policy, nwrite) },
	{ "allowed_path_prefixes", K_LIST, LIST_PREFIX,
	    offsetof(struct tool_policy, prefixes),
	    offsetof(struct tool_policy, nprefixes) },
	{ "arg_patterns", K_PATTERNS, 0, 0, 0 },
	{ "max_calls", K_MAX_CALLS, 0,
	    offsetof(struct tool_policy, max_calls), 0 },
	{ "tainted", K_TAINTED, 0, offsetof(struct tool_policy, tainted), 0 },
	{ "extra_args", K_EXTRA, 0, offsetof(struct tool_policy, extra_args),
	    0 },
	{ "identity_patterns", K_IDPATS, 0, 0, 0 },
	{ "approval", K_APPROVAL, 0, offsetof(struct tool_policy, approval),
	    0 },
	{ "confirm", K_BOOL, 0, offsetof(struct tool_policy, confirm), 0 },
	{ "taint_source", K_BOOL, 0,
	    offsetof(struct tool_policy, taint_source), 0 },
	{ "forbidden", K_BOOL, 0, offsetof(struct tool_policy, forbidden), 0 },
	{ "read_only", K_BOOL, 0, offsetof(struct tool_policy, read_only), 0 },
	{ "consent", K_CONSENT, 0, 0, 0 },
};

static int
entry_key(struct pctx *x, const struct entry_key *k, const struct ynode *v,
    const char *key, struct tool_policy *tp)
{
	char *f = (char *)tp + k->off;

	switch (k->kind) {
	case K_BOOL:
		return key_bool(x, v, key, (int *)(void *)f);
	case K_LIST:
		return get_list(x, v, key, k->list, (char ***)(void *)f,
		    (size_t *)(void *)((char *)tp + k->noff));
	case K_PATTERNS:
		return key_patterns(x, v, key, tp);
	case K_MAX_CALLS:
		return key_max_calls(x, v, key, (long long *)(void *)f);
	case K_TAINTED:
		return key_tainted(x, v, key, (enum tainted_action *)(void *)f);
	case K_EXTRA:
		return key_extra(x, v, key, (int *)(void *)f);
	case K_IDPATS:
		return key_idpats(x, v, key, tp);
	case K_APPROVAL:
		return key_approval(x, v, key,
		    (enum approval_channel *)(void *)f);
	case K_CONSENT:
		return key_consent(x, v, key, tp);
	}
	return pfail(x, v, key, "internal error");
}

/*
 * Entries for what is not a tool: "prompt/NAME" and "resource/GLOB"
 * (bouncer-policy(5), PROMPTS AND RESOURCES).  No tool can have such a
 * name: '/' is outside the MCP tool-name characters.
 */
static const struct request_prefix {
	const char	*prefix;
	int		 kind;
} request_prefixes[] = {
	{ "prompt/",	POLICY_PROMPT },
	{ "resource/",	POLICY_RESOURCE },
};

/* POLICY_PROMPT or POLICY_RESOURCE for such a name (unqualified), else 0;
 * *rest: what follows the prefix. */
static int
request_kind(const char *name, const char **rest)
{
	size_t i, l;

	for (i = 0; i < NELEM(request_prefixes); i++) {
		l = strlen(request_prefixes[i].prefix);
		if (strncmp(name, request_prefixes[i].prefix, l) == 0) {
			if (rest != NULL)
				*rest = name + l;
			return request_prefixes[i].kind;
		}
	}
	return 0;
}

/* The keys that say something about a tool only. */
static const char *const tool_only_keys[] = {
	"write_params", "allowed_path_prefixes", "read_only", "consent",
};

static int
check_request_name(struct pctx *x, const struct ynode *k, const char *s,
    const char *rest)
{
	if (strlen(s) > BNC_POLICY_STRING_MAX)
		return pfail(x, k, "(prompt or resource name)", "\"%.64s...\" "
		    "is longer than %d bytes", s, BNC_POLICY_STRING_MAX);
	if (*rest == '\0')
		return pfail(x, k, s, "names no prompt or resource");
	return 0;
}

static int
check_name(struct pctx *x, const struct ynode *k)
{
	const char *s = k->scalar, *tool, *rest;
	size_t i, qlen;

	if (s[0] == '\0' || is_null_scalar(k))
		return pfail(x, k, "(tool name)", "a tool name may not be "
		    "empty or null");
	if (!utf8_valid(s, strlen(s)))
		return pfail(x, k, "(tool name)", "not valid UTF-8");
	tool = split_qualified(s, &qlen);
	if (request_kind(tool, &rest) != 0) {
		for (i = 0; s[i] != '\0'; i++)
			if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
				return pfail(x, k, "(prompt or resource name)",
				    "a name may not contain white space or "
				    "control characters");
		return check_request_name(x, k, s, rest);
	}
	if (strlen(s) > BNC_UPSTREAM_NAME_MAX + 1 + BNC_TOOL_NAME_MAX)
		return pfail(x, k, "(tool name)", "\"%.64s...\" is longer "
		    "than %d bytes", s,
		    BNC_UPSTREAM_NAME_MAX + 1 + BNC_TOOL_NAME_MAX);
	for (i = 0; s[i] != '\0'; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return pfail(x, k, s, "a tool name may not contain "
			    "white space or control characters");
	if (qlen == 0 && strchr(s, ':') != NULL)
		return pfail(x, k, s, "in \"upstream:tool\" the upstream must "
		    "be 1 to %d of A-Z a-z 0-9 _ - and the tool not empty",
		    BNC_UPSTREAM_NAME_MAX);
	if (strlen(tool) > BNC_TOOL_NAME_MAX)
		return pfail(x, k, s, "the tool name is longer than %d bytes",
		    BNC_TOOL_NAME_MAX);
	return 0;
}

/* A key that means something for a tool only is refused, not ignored. */
static int
check_request_key(struct pctx *x, const struct ynode *k,
    const struct ynode *ek, const char *key)
{
	size_t i, qlen;

	if (request_kind(split_qualified(k->scalar, &qlen), NULL) == 0)
		return 0;
	for (i = 0; i < NELEM(tool_only_keys); i++)
		if (strcmp(ek->scalar, tool_only_keys[i]) == 0)
			return pfail(x, ek, key, "applies to tools only, not "
			    "to a prompt or resource entry%s", i < 2 ? " (use "
			    "arg_patterns to constrain an argument)" : "");
	return 0;
}

static int
parse_entry(struct pctx *x, const struct ynode *k, const struct ynode *v,
    enum layer layer, struct pentry **out)
{
	struct pentry *e = NULL;
	const struct ynode *ek, *ev;
	char key[BNC_UPSTREAM_NAME_MAX + BNC_TOOL_NAME_MAX + 64], d[96];
	size_t i, j;
	int r;

	*out = NULL;
	if ((r = check_name(x, k)) != 0)
		return r;
	if (v->type != YNODE_MAPPING)
		return pfail(x, v, k->scalar, "must be a mapping of policy "
		    "keys (write {} for an empty entry), not %s",
		    is_null_scalar(v) ? "null" : describe(v, d, sizeof(d)));
	e = pentry_new(layer);
	e->tp.name = xstrdup(k->scalar);
	e->key = e->tp.name;
	e->tp.file = xstrdup(x->path);
	e->tp.line = k->line;
	for (i = 0; i < v->n; i += 2) {
		ek = v->items[i];
		ev = v->items[i + 1];
		snprintf(key, sizeof(key), "%s.%.40s", k->scalar, ek->scalar);
		for (j = 0; j < NELEM(entry_keys); j++)
			if (strcmp(ek->scalar, entry_keys[j].name) == 0)
				break;
		if (j == NELEM(entry_keys)) {
			r = pfail(x, ek, key, "unknown key");
			goto out;
		}
		if ((r = check_request_key(x, k, ek, key)) != 0)
			goto out;
		if ((r = entry_key(x, &entry_keys[j], ev, key, &e->tp)) != 0)
			goto out;
	}
	*out = e;
	e = NULL;
 out:
	pentry_free(e);
	return r;
}

static void
add_entry(struct policy *p, struct pentry *e)
{
	const char *tool;
	size_t qlen;

	p->ents = xreallocarray(p->ents, p->nents + 1, sizeof(*p->ents));
	p->ents[p->nents++] = e;
	e->shadows = ht_put(&p->tab[e->layer], e);
	tool = split_qualified(e->tp.name, &qlen);
	if (request_kind(tool, NULL) == POLICY_RESOURCE) {
		p->rents = xreallocarray(p->rents, p->nrents + 1,
		    sizeof(*p->rents));
		p->rents[p->nrents++] = e;
	}
	/* a prompt's or resource's mark is its entry's (policy_for_request) */
	if (e->tp.forbidden && request_kind(tool, NULL) == 0) {
		p->forb = xreallocarray(p->forb, p->nforb + 1,
		    sizeof(*p->forb));
		p->forb[p->nforb].qual = qlen > 0 ?
		    xstrndup(e->tp.name, qlen) : NULL;
		p->forb[p->nforb].norm = forbid_norm(tool);
		p->nforb++;
	}
}

/*
 * A pack's reserved top-level key: the MCP servers it describes, by the
 * serverInfo.name they answer initialize with.  No tool can have this
 * name (the spec's tool-name characters have no parentheses).
 */
#define PACK_SERVER_KEY	"(server)"

static int
parse_servers(struct pctx *x, const struct ynode *k, const struct ynode *v,
    int is_pack, struct pack *pk)
{
	int r;

	if (!is_pack)
		return pfail(x, k, PACK_SERVER_KEY, "only a pack names the "
		    "servers it describes; in a user policy, qualify an entry "
		    "with its upstream (\"upstream:tool\") instead");
	if ((r = get_list(x, v, PACK_SERVER_KEY, LIST_SERVER, &pk->servers,
	    &pk->nservers)) != 0)
		return r;
	if (pk->nservers == 0)
		return pfail(x, v, PACK_SERVER_KEY, "names no server; leave "
		    "the key out instead");
	return 0;
}

int
policy_load_file(struct policy *p, const char *path, int is_pack,
    char *errbuf, size_t errlen)
{
	struct pctx x;
	struct ynode *root = NULL;
	struct pentry **new = NULL;
	struct pack *pk = NULL;
	const struct ynode *k;
	char d[96];
	size_t i, n = 0;
	int r;

	x.path = path;
	x.err = errbuf;
	x.errlen = errlen;
	if ((r = yaml_load_file(path, BNC_POLICY_FILE_MAX, &root, errbuf,
	    errlen)) != 0)
		goto out;
	if (root == NULL)
		goto out;		/* an empty file is an empty policy */
	if (root->type != YNODE_MAPPING) {
		r = pfail(&x, root, "(top level)", "must be a mapping of tool "
		    "name to entry, not %s", describe(root, d, sizeof(d)));
		goto out;
	}
	if (root->n / 2 > BNC_POLICY_ENTRIES_MAX) {
		r = pfail(&x, root, "(top level)", "more than %d entries",
		    BNC_POLICY_ENTRIES_MAX);
		goto out;
	}
	new = xcalloc(root->n / 2 + 1, sizeof(*new));
	pk = xcalloc(1, sizeof(*pk));
	pk->file = xstrdup(path);
	for (i = 0; i < root->n; i += 2) {
		k = root->items[i];
		if (k->type == YNODE_SCALAR &&
		    strcmp(k->scalar, PACK_SERVER_KEY) == 0) {
			if ((r = parse_servers(&x, k, root->items[i + 1],
			    is_pack, pk)) != 0)
				goto out;
			continue;
		}
		if ((r = parse_entry(&x, k, root->items[i + 1],
		    is_pack ? LAYER_PACK : LAYER_USER, &new[n])) != 0)
			goto out;
		new[n]->pack = is_pack ? pk : NULL;
		n++;
	}
	for (i = 0; i < n; i++)
		add_entry(p, new[i]);
	n = 0;
	cache_forget(p);
	if (is_pack) {
		p->packs = xreallocarray(p->packs, p->npacks + 1,
		    sizeof(*p->packs));
		p->packs[p->npacks++] = pk;
		pk = NULL;
	}
 out:
	for (i = 0; i < n; i++)
		pentry_free(new[i]);
	free(new);
	pack_free(pk);
	ynode_free(root);
	return r;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
policy_load_dir(struct policy *p, const char *dir, int is_pack,
    char *errbuf, size_t errlen)
{
	DIR *dp = NULL;
	struct dirent *de;
	struct stat st;
	char **names = NULL, *path = NULL;
	size_t i, n = 0, l;
	int r = -BNC_ERR_CONFIG;

	if ((dp = opendir(dir)) == NULL) {
		snprintf(errbuf, errlen, "%s: %s", dir, strerror(errno));
		goto out;
	}
	while ((de = readdir(dp)) != NULL) {
		l = strlen(de->d_name);
		if (de->d_name[0] == '.' || l < 6 ||
		    strcmp(de->d_name + l - 5, ".yaml") != 0)
			continue;
		if (n == BNC_POLICY_FILES_MAX) {
			snprintf(errbuf, errlen, "%s: more than %d policy "
			    "files", dir, BNC_POLICY_FILES_MAX);
			goto out;
		}
		names = xreallocarray(names, n + 1, sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	if (n > 0)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		free(path);
		xasprintf(&path, "%s/%s", dir, names[i]);
		if (stat(path, &st) != 0) {
			snprintf(errbuf, errlen, "%s: %s", path,
			    strerror(errno));
			goto out;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(errbuf, errlen, "%s: not a regular file",
			    path);
			goto out;
		}
		if ((r = policy_load_file(p, path, is_pack, errbuf,
		    errlen)) != 0)
			goto out;
	}
	r = 0;
 out:
	if (dp != NULL)
		closedir(dp);
	free_vec(names, n);
	free(path);
	return r;
}

/* ---- scope: the session's upstreams and their tools --------------- */

/* The index of upstream in p->sups, added if add; -1 if absent or full. */
static long
scope_up_index(struct policy *p, const char *upstream, int add)
{
	size_t i;

	for (i = 0; i < p->nsups; i++)
		if (strcmp(p->sups[i].name, upstream) == 0)
			return (long)i;
	if (!add || p->nsups >= BNC_UPSTREAMS_MAX)
		return -1;
	p->sups = xreallocarray(p->sups, p->nsups + 1, sizeof(*p->sups));
	p->sups[p->nsups].name = xstrdup(upstream);
	p->sups[p->nsups].server = NULL;
	cache_forget(p);
	return (long)p->nsups++;
}

void
policy_scope_upstream(struct policy *p, const char *upstream,
    const char *server)
{
	struct scope_up *u;
	long i;

	if (upstream == NULL || (i = scope_up_index(p, upstream, 1)) < 0)
		return;
	u = &p->sups[i];
	if ((u->server == NULL && server == NULL) || (u->server != NULL &&
	    server != NULL && strcmp(u->server, server) == 0))
		return;
	free(u->server);
	u->server = server != NULL ? xstrdup(server) : NULL;
	cache_forget(p);
}

static struct scope_tool *
scope_tool_get(const struct policy *p, const char *tool)
{
	size_t i;

	if (p->stcap == 0)
		return NULL;
	for (i = hash_str(tool) & (p->stcap - 1); p->stab[i] != NULL;
	    i = (i + 1) & (p->stcap - 1))
		if (strcmp(p->stab[i]->tool, tool) == 0)
			return p->stab[i];
	return NULL;
}

/* Adds t, whose name is not in the table yet. */
static void
scope_tool_put(struct policy *p, struct scope_tool *t)
{
	struct scope_tool **old;
	size_t i, ocap;

	if ((p->stn + 1) * 2 > p->stcap) {
		old = p->stab;
		ocap = p->stcap;
		p->stcap = ocap == 0 ? 64 : ocap * 2;
		p->stab = xcalloc(p->stcap, sizeof(*p->stab));
		p->stn = 0;
		for (i = 0; i < ocap; i++)
			if (old[i] != NULL)
				scope_tool_put(p, old[i]);
		free(old);
	}
	for (i = hash_str(t->tool) & (p->stcap - 1); p->stab[i] != NULL;
	    i = (i + 1) & (p->stcap - 1))
		;
	p->stab[i] = t;
	p->stn++;
}

void
policy_scope_tool(struct policy *p, const char *upstream, const char *tool)
{
	struct scope_tool *t;
	size_t i;
	long u;

	if (upstream == NULL || tool == NULL ||
	    (u = scope_up_index(p, upstream, 1)) < 0)
		return;
	if ((t = scope_tool_get(p, tool)) == NULL) {
		t = xcalloc(1, sizeof(*t));
		t->tool = xstrdup(tool);
		scope_tool_put(p, t);
	}
	for (i = 0; i < t->n; i++)
		if (t->ups[i] == (size_t)u)
			return;
	t->ups = xreallocarray(t->ups, t->n + 1, sizeof(*t->ups));
	t->ups[t->n++] = (size_t)u;
	cache_forget(p);
}

/* The serverInfo.name of upstream's server, or NULL. */
static const char *
scope_server(const struct policy *p, const char *upstream)
{
	size_t i;

	for (i = 0; upstream != NULL && i < p->nsups; i++)
		if (strcmp(p->sups[i].name, upstream) == 0)
			return p->sups[i].server;
	return NULL;
}

/* ---- scope: what an entry grants, and where it applies ------------- */

static int
tk_taint(const struct tool_policy *tp)
{
	return !tp->taint_source;
}

static void
tk_taint_off(struct tool_policy *tp)
{
	tp->taint_source = 1;
}

static int
tk_trusted(const struct tool_policy *tp)
{
	return tp->ntrusted > 0;
}

/* Only on a borrowed copy: the list stays its entry's. */
static void
tk_trusted_off(struct tool_policy *tp)
{
	tp->trusted = NULL;
	tp->ntrusted = 0;
}

static int
tk_extra(const struct tool_policy *tp)
{
	return tp->extra_args;
}

static void
tk_extra_off(struct tool_policy *tp)
{
	tp->extra_args = 0;
}

static int
tk_read_only(const struct tool_policy *tp)
{
	return tp->read_only;
}

static void
tk_read_only_off(struct tool_policy *tp)
{
	tp->read_only = 0;
}

/*
 * The keys that grant a tool something rather than restrict it
 * (bouncer-policy(5), SCOPE): they apply only where bouncer can tell
 * which server's tool the entry was written for.
 */
static const struct trust_key {
	const char	*name;		/* as an administrator writes it */
	int		(*grants)(const struct tool_policy *);
	void		(*revoke)(struct tool_policy *);
} trust_keys[] = {
	{ "taint_source: false",	tk_taint,	tk_taint_off },
	{ "trusted_destinations",	tk_trusted,	tk_trusted_off },
	{ "extra_args: allow",		tk_extra,	tk_extra_off },
	{ "read_only: true",		tk_read_only,	tk_read_only_off },
};

/* The trust-granting keys tp has, as "a, b" in buf; 0 if none. */
static int
trust_list(const struct tool_policy *tp, char *buf, size_t len)
{
	size_t i, o = 0;
	int n = 0;

	buf[0] = '\0';
	for (i = 0; i < NELEM(trust_keys); i++) {
		if (!trust_keys[i].grants(tp))
			continue;
		if (o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s",
			    n > 0 ? ", " : "", trust_keys[i].name);
		n++;
	}
	return n;
}

/* Does the entry name a parameter (sink, write or pattern)? */
static int
names_params(const struct tool_policy *tp)
{
	return tp->nsink > 0 || tp->nwrite > 0 || tp->npatterns > 0;
}

/* The first parameter tp names that props does not declare, or NULL. */
static const char *
undeclared_param(const struct tool_policy *tp,
    const struct schema_props *props)
{
	size_t i;

	for (i = 0; i < tp->nsink; i++)
		if (!schema_props_has(props, tp->sink_params[i]))
			return tp->sink_params[i];
	for (i = 0; i < tp->nwrite; i++)
		if (!schema_props_has(props, tp->write_params[i]))
			return tp->write_params[i];
	for (i = 0; i < tp->npatterns; i++)
		if (!schema_props_has(props, tp->patterns[i].param))
			return tp->patterns[i].param;
	return NULL;
}

static int
pack_names_server(const struct pack *pk, const char *server)
{
	size_t i;

	for (i = 0; pk != NULL && server != NULL && i < pk->nservers; i++)
		if (strcmp(pk->servers[i], server) == 0)
			return 1;
	return 0;
}

/*
 * Does pack entry e describe upstream's tool (bouncer-policy(5),
 * SCOPE)?  A pack is written for the servers its (server) names; for
 * any other server's tool of that name its entry must fit the tool's
 * pinned schema, must not grant trust on the name alone, and must not be
 * weaker than the heuristics would be for that schema.  If not, why
 * says why.  A forbidden mark restricts, and applies everywhere.
 */
static int
pack_applies(const struct policy *p, const struct pentry *e,
    const char *upstream, const char *tool, const struct value *schema,
    char *why, size_t whylen)
{
	const struct tool_policy *tp = &e->tp;
	struct schema_props props;
	struct tool_policy h;
	const char *server, *miss;
	char keys[128], shown[96];
	int r = 0;

	if (tp->forbidden)
		return 1;
	server = scope_server(p, upstream);
	if (pack_names_server(e->pack, server))
		return 1;
	memset(&h, 0, sizeof(h));
	h.max_calls = -1;
	h.taint_source = 1;
	schema_props_get(schema, &props);
	if ((miss = undeclared_param(tp, &props)) != NULL)
		snprintf(why, whylen, "its schema has no parameter '%.128s'",
		    miss);
	else if (!names_params(tp) && trust_list(tp, keys, sizeof(keys))) {
		if (e->pack == NULL || e->pack->nservers == 0)
			snprintf(why, whylen, "it grants %s without naming a "
			    "parameter, and its pack names no server", keys);
		else if (server == NULL)
			snprintf(why, whylen, "it grants %s without naming a "
			    "parameter, and the server gave no serverInfo.name "
			    "the pack could name", keys);
		else {
			utf8_escape(shown, sizeof(shown), server,
			    strlen(server));
			snprintf(why, whylen, "it grants %s without naming a "
			    "parameter, and the pack does not name server "
			    "\"%s\"", keys, shown);
		}
	} else {
		heuristics_derive(&h, tool, schema);
		if (h.exfiltrating && !tp->exfiltrating)
			snprintf(why, whylen, "it leaves the sink gate off, "
			    "but the tool's schema has the destination "
			    "parameter '%.128s'", h.sink_params[0]);
		else if (h.max_calls >= 0 && !tp->confirm &&
		    (tp->max_calls < 0 || tp->max_calls > h.max_calls))
			snprintf(why, whylen, "it allows more calls than the "
			    "heuristics' budget for the name (max_calls %lld)",
			    h.max_calls);
		else
			r = 1;
	}
	tool_policy_clear(&h);
	schema_props_free(&props);
	return r;
}

/* Start-up notes (policy_explain); NULL for a plain lookup. */
struct explain {
	void		(*note)(const char *event, const char *msg, void *);
	void		 *arg;
	const char	 *upstream;
};

static void __attribute__((format(printf, 3, 4)))
xnote(struct explain *x, const char *event, const char *fmt, ...)
{
	char msg[BNC_REASON_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	utf8_trim(msg);
	x->note(event, msg, x->arg);
}

/*
 * Is an unqualified user entry's trust withheld from this tool because
 * two or more upstreams list a tool of its name?  Noted once per entry.
 */
static int
trust_shared(const struct policy *p, struct pentry *e, const char *tool,
    struct explain *x)
{
	const struct scope_tool *t;
	char keys[128], ups[256];
	size_t i, o = 0;

	if ((t = scope_tool_get(p, tool)) == NULL || t->n < 2 ||
	    !trust_list(&e->tp, keys, sizeof(keys)))
		return 0;
	if (x != NULL && !e->noted) {
		e->noted = 1;
		for (i = 0; i < t->n && i < 3 && o < sizeof(ups); i++)
			o += (size_t)snprintf(ups + o, sizeof(ups) - o, "%s%s",
			    i == 0 ? "" : i + 1 == t->n ? " and " : ", ",
			    p->sups[t->ups[i]].name);
		if (t->n > 3 && o < sizeof(ups))
			snprintf(ups + o, sizeof(ups) - o, " and %zu more",
			    t->n - 3);
		xnote(x, "trust-ignored", "user entry %s:%lu %s: its "
		    "trust-granting keys (%s) are ignored, because upstreams "
		    "%s all list '%s'; write the qualified form, "
		    "'UPSTREAM:%s', for the one it was written for",
		    e->tp.file, e->tp.line, e->tp.name, keys, ups, tool, tool);
	}
	return 1;
}

/*
 * The entry that decides for upstream's tool: the user's (qualified
 * first), else the first pack entry, latest file first, that applies to
 * the tool; NULL for the heuristics.  *strip: the user entry's
 * trust-granting keys do not apply.  With x, every pack entry of the
 * name that does not decide is noted, with the reason.
 */
static struct pentry *
choose(struct policy *p, const char *upstream, const char *tool,
    const struct value *schema, int *strip, struct explain *x)
{
	struct pentry *win = NULL, *e;
	const char *keys[2];
	char *q = NULL, why[BNC_REASON_MAX / 2];
	size_t i, nk = 0;

	*strip = 0;
	if (upstream != NULL) {
		xasprintf(&q, "%s:%s", upstream, tool);
		keys[nk++] = q;
	}
	keys[nk++] = tool;
	for (i = 0; i < nk && win == NULL; i++)
		win = ht_get(&p->tab[LAYER_USER], keys[i]);
	if (win != NULL && strcmp(win->key, tool) == 0)
		*strip = trust_shared(p, win, tool, x);
	for (i = 0; i < nk && (win == NULL || x != NULL); i++) {
		for (e = ht_get(&p->tab[LAYER_PACK], keys[i]); e != NULL &&
		    (win == NULL || x != NULL); e = e->shadows) {
			if (!pack_applies(p, e, upstream, tool, schema, why,
			    sizeof(why))) {
				if (x != NULL)
					xnote(x, "pack-not-applied", "pack "
					    "%s:%lu %s not applied to upstream "
					    "%s: %s", e->tp.file, e->tp.line,
					    e->tp.name, upstream, why);
			} else if (win == NULL)
				win = e;
			else
				xnote(x, "pack-not-applied", "pack %s:%lu %s "
				    "not applied to upstream %s: the %s entry "
				    "at %s:%lu replaces it", e->tp.file,
				    e->tp.line, e->tp.name, upstream,
				    win->tp.source, win->tp.file, win->tp.line);
		}
	}
	free(q);
	return win;
}

const struct tool_policy *
policy_for(struct policy *p, const char *upstream, const char *tool,
    const struct value *schema)
{
	struct pentry *c, *win;
	char *key;
	size_t i;
	int strip;

	if (tool == NULL)
		return &p->fallback;
	/* Resolved once per upstream US tool: the first schema decides. */
	xasprintf(&key, "%s\x1f%s", upstream != NULL ? upstream : "", tool);
	if ((c = ht_get(&p->tab[LAYER_HEUR], key)) != NULL) {
		free(key);
		return c->use != NULL ? c->use : &c->tp;
	}
	if (p->tab[LAYER_HEUR].n >= BNC_POLICY_CACHE_MAX) {
		free(key);
		return &p->fallback;
	}
	win = choose(p, upstream, tool, schema, &strip, NULL);
	c = pentry_new(LAYER_HEUR);
	c->key = key;
	if (win != NULL && !strip)
		c->use = &win->tp;
	else if (win != NULL) {
		c->tp = win->tp;
		c->borrowed = 1;
		for (i = 0; i < NELEM(trust_keys); i++)
			trust_keys[i].revoke(&c->tp);
	} else {
		c->tp.name = xstrdup(tool);
		if (!heuristics_derive(&c->tp, tool, schema))
			c->tp.source = "none";
	}
	p->heurs = xreallocarray(p->heurs, p->nheurs + 1, sizeof(*p->heurs));
	p->heurs[p->nheurs++] = c;
	ht_put(&p->tab[LAYER_HEUR], c);
	return c->use != NULL ? c->use : &c->tp;
}

void
policy_explain(struct policy *p, const char *upstream, const char *tool,
    const struct value *schema,
    void (*note)(const char *event, const char *msg, void *), void *arg)
{
	struct explain x;
	int strip;

	if (upstream == NULL || tool == NULL || note == NULL)
		return;
	x.note = note;
	x.arg = arg;
	x.upstream = upstream;
	(void)choose(p, upstream, tool, schema, &strip, &x);
}

int
policy_pattern_match(const struct arg_pattern *ap, const char *s, size_t len)
{
	size_t mo, ml;

	if (ap == NULL || ap->re == NULL || s == NULL)
		return -1;
	/* anchored at both ends when compiled: a match is a full match */
	return search(ap->re, s, len, 0, &mo, &ml);
}

int
policy_identities(const struct tool_policy *tp, const char *s, size_t len,
    int (*fn)(void *, const char *, size_t), void *arg)
{
	size_t i, off, mo, ml, n = 0;
	int r;

	for (i = 0; i < tp->nidpats; i++) {
		for (off = 0; off <= len; off = mo + ml) {
			if ((r = search(tp->idpats[i].re, s, len, off, &mo,
			    &ml)) < 0)
				return -BNC_ERR_INTERNAL;
			if (r == 0 || ml == 0)
				break;
			if (++n > BNC_POLICY_IDENTS_MAX)
				return -BNC_ERR_TOO_LARGE;
			if ((r = fn(arg, s + mo, ml)) != 0)
				return r;
		}
	}
	return 0;
}

/* ---- prompts and resources ---------------------------------------- */

/* Lower-case ASCII of s[0..n) in place. */
static void
lower(char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] >= 'A' && s[i] <= 'Z')
			s[i] = (char)(s[i] - 'A' + 'a');
}

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

/* Drops the last segment of out[0..o) and the '/' before it. */
static size_t
drop_segment(const char *out, size_t o)
{
	while (o > 0 && out[o - 1] != '/')
		o--;
	return o > 0 ? o - 1 : 0;
}

/*
 * RFC 3986 5.2.4 "remove_dot_segments", in place on p[0..n) (the output
 * never overtakes the input).  Returns the new length.
 */
static size_t
remove_dots(char *p, size_t n)
{
	size_t i = 0, o = 0;

	while (i < n) {
		if (n - i >= 3 && memcmp(p + i, "../", 3) == 0)
			i += 3;
		else if (n - i >= 2 && memcmp(p + i, "./", 2) == 0)
			i += 2;
		else if (n - i >= 3 && memcmp(p + i, "/./", 3) == 0)
			i += 2;
		else if (n - i == 2 && memcmp(p + i, "/.", 2) == 0)
			p[++i] = '/';
		else if (n - i >= 4 && memcmp(p + i, "/../", 4) == 0) {
			i += 3;
			o = drop_segment(p, o);
		} else if (n - i == 3 && memcmp(p + i, "/..", 3) == 0) {
			i += 2;
			p[i] = '/';
			o = drop_segment(p, o);
		} else if ((n - i == 1 && p[i] == '.') ||
		    (n - i == 2 && memcmp(p + i, "..", 2) == 0))
			i = n;
		else {
			/* one segment, with the '/' before it */
			do
				p[o++] = p[i++];
			while (i < n && p[i] != '/');
		}
	}
	return o;
}

/*
 * The form a resource glob and a URI are compared in, so that another
 * spelling of the same resource is the same text: the scheme and the
 * authority in lower case, every percent-encoded byte but NUL decoded,
 * '\' read as '/' (as lenient servers do), and "." and ".." segments
 * resolved.  A '*' passes through.  out holds strlen(in) + 1 bytes.
 */
static void
uri_canon(const char *in, char *out)
{
	size_t n = 0, i, a, p, len = strlen(in);
	int h, l;

	for (i = 0; i < len; i++) {
		if (in[i] == '%' && (h = hexval(in[i + 1])) >= 0 &&
		    (l = hexval(in[i + 2])) >= 0 && (h | l) != 0) {
			out[n++] = (char)(h << 4 | l);
			i += 2;
		} else
			out[n++] = in[i] == '\\' ? '/' : in[i];
	}
	out[n] = '\0';
	/* scheme ":" */
	for (i = 0; i < n && ((out[i] >= 'a' && out[i] <= 'z') ||
	    (out[i] >= 'A' && out[i] <= 'Z') || (i > 0 && ((out[i] >= '0' &&
	    out[i] <= '9') || out[i] == '+' || out[i] == '-' ||
	    out[i] == '.'))); i++)
		;
	if (i == 0 || i >= n || out[i] != ':')
		i = 0;
	else
		lower(out, ++i);
	/* "//" authority */
	a = i;
	if (a + 1 < n && out[a] == '/' && out[a + 1] == '/') {
		for (p = a + 2; p < n && out[p] != '/' && out[p] != '?' &&
		    out[p] != '#'; p++)
			;
		lower(out + a, p - a);
		a = p;
	}
	/* the path, up to a query or fragment */
	for (p = a; p < n && out[p] != '?' && out[p] != '#'; p++)
		;
	i = remove_dots(out + a, p - a);
	memmove(out + a + i, out + p, n - p + 1);
}

/*
 * The place a canonical URL (canon.h) names: its userinfo dropped (it does
 * not change where the request goes), and for file: a "localhost" host
 * dropped, runs of '/' made one and the query and fragment dropped (a
 * file has neither).  In place.
 */
static void
uri_place(char *u)
{
	char *a, *e, *at, *q, *w;

	if ((a = strstr(u, "://")) == NULL)
		return;
	a += 3;
	e = a + strcspn(a, "/?#");
	for (at = NULL, q = a; q < e; q++)
		if (*q == '@')
			at = q;
	if (at != NULL)
		memmove(a, at + 1, strlen(at + 1) + 1);
	if (strncmp(u, "file://", 7) != 0)
		return;
	if (strncmp(a, "localhost", 9) == 0 && (a[9] == '/' || a[9] == '\0'))
		memmove(a, a + 9, strlen(a + 9) + 1);
	a[strcspn(a, "?#")] = '\0';
	for (q = w = a; *q != '\0'; q++) {
		if (*q == '/' && w > a && w[-1] == '/')
			continue;
		*w++ = *q;
	}
	*w = '\0';
}

/*
 * The readings of a URI or glob a resource entry is matched on, in the
 * form a receiving server acts on (canon_url: scheme and host case,
 * IDNA, IPv4 forms, default port, escapes of unreserved characters, dot
 * segments), each as uri_place leaves it: out[0], and out[1] when
 * servers read it two ways (a backslash, an escaped slash).  A URI that
 * is no URL with an authority (urn:, a custom scheme without "//") has
 * one reading, uri_canon's.  Returns the number of readings; the caller
 * frees them.
 */
static int
uri_readings(const char *in, char *out[2])
{
	struct buf *f = buf_new(), *a = buf_new();
	int flags = 0, n;

	if (strstr(in, "://") != NULL && canon_url(in, strlen(in), f, a,
	    &flags) == 0) {
		out[0] = xstrdup((const char *)buf_ptr(f));
		uri_place(out[0]);
		n = 1;
		if ((flags & CANON_AMBIGUOUS) && buf_len(a) > 0) {
			out[1] = xstrdup((const char *)buf_ptr(a));
			uri_place(out[1]);
			n = strcmp(out[0], out[1]) == 0 ? 1 : 2;
			if (n == 1)
				free(out[1]);
		}
	} else {
		out[0] = xmalloc(strlen(in) + 1);
		uri_canon(in, out[0]);
		n = 1;
	}
	buf_free(f);
	buf_free(a);
	return n;
}

/*
 * A '*' matches any run of characters, '/' and '@' too; everything else
 * itself.  Literal runs are found leftmost in order (optimal when '*' is
 * the only wildcard), so the cost is linear in both lengths.
 */
static int
uri_glob_match(const char *pat, const char *s)
{
	const char *star, *hit;
	size_t seg, sl = strlen(s);

	star = strchr(pat, '*');
	if (star == NULL)
		return strcmp(pat, s) == 0;
	seg = (size_t)(star - pat);
	if (seg > sl || strncmp(pat, s, seg) != 0)
		return 0;
	s += seg;
	sl -= seg;
	pat = star + 1;
	while ((star = strchr(pat, '*')) != NULL) {
		seg = (size_t)(star - pat);
		if ((hit = memmem(s, sl, pat, seg)) == NULL)
			return 0;
		sl -= (size_t)(hit - s) + seg;
		s = hit + seg;
		pat = star + 1;
	}
	seg = strlen(pat);
	return seg <= sl && memcmp(s + sl - seg, pat, seg) == 0;
}

int
policy_request_name(const char *name)
{
	size_t qlen;

	return request_kind(split_qualified(name, &qlen), NULL);
}

/*
 * Does a prompt or resource entry speak for upstream?  A qualified one
 * for its upstream only; a pack's only for the servers its (server)
 * names (there is no schema to fit a prompt or resource to), unless it
 * forbids.
 */
static int
request_entry_applies(const struct policy *p, const struct pentry *e,
    const char *upstream)
{
	size_t qlen;

	(void)split_qualified(e->tp.name, &qlen);
	if (qlen > 0 && (upstream == NULL || strlen(upstream) != qlen ||
	    strncmp(upstream, e->tp.name, qlen) != 0))
		return 0;
	if (e->layer == LAYER_PACK && !e->tp.forbidden &&
	    !pack_names_server(e->pack, scope_server(p, upstream)))
		return 0;
	return 1;
}

/*
 * A glob in the URIs' form: the literal part before its first '*', when
 * it holds a whole authority ("https://host/..."), as uri_readings has
 * it (its first reading: a glob is written one way), then the rest as
 * written; any other glob (a star in the authority, a scheme without
 * "//") as uri_canon has it.
 */
static char *
glob_canon(const char *glob)
{
	const char *star = strchr(glob, '*'), *auth;
	char *lit, *rd[2] = { NULL, NULL }, *out;
	int n;

	auth = strstr(glob, "://");
	if (star == NULL || auth == NULL || auth > star ||
	    memchr(auth + 3, '/', (size_t)(star - auth - 3)) == NULL) {
		if (star == NULL && auth != NULL) {
			n = uri_readings(glob, rd);
			if (n == 2)
				free(rd[1]);
			return rd[0];
		}
		out = xmalloc(strlen(glob) + 1);
		uri_canon(glob, out);
		return out;
	}
	lit = xstrndup(glob, (size_t)(star - glob));
	n = uri_readings(lit, rd);
	xasprintf(&out, "%s%s", rd[0], star);
	free(lit);
	free(rd[0]);
	if (n == 2)
		free(rd[1]);
	return out;
}

/* Does resource entry e's glob match the canonical URI? */
static int
resource_entry_matches(const struct pentry *e, const char *canon)
{
	const char *glob;
	char *g;
	size_t qlen;
	int r;

	(void)request_kind(split_qualified(e->tp.name, &qlen), &glob);
	g = glob_canon(glob);
	r = uri_glob_match(g, canon);
	free(g);
	return r;
}

/*
 * Calls fn for each entry that applies to the prompt or resource, in
 * the order the first match is taken: user entries (for a prompt the
 * qualified one first; for a resource in file order), then pack entries
 * (latest file first; a resource's in file order within its file).
 * Stops when fn returns non-zero and returns that.
 */
static int
request_entries(struct policy *p, const char *upstream, int kind,
    const char *name, int which, int (*fn)(struct pentry *, void *),
    void *arg)
{
	struct pentry *e;
	char *key = NULL, *qual = NULL, *canon = NULL, *rd[2] = { NULL, NULL };
	const char *keys[2];
	size_t i, j, nk = 0;
	long k;
	int layer, r = 0, n;

	if (kind == POLICY_PROMPT) {
		xasprintf(&key, "%s%s", request_prefixes[0].prefix, name);
		if (upstream != NULL) {
			xasprintf(&qual, "%s:%s", upstream, key);
			keys[nk++] = qual;
		}
		keys[nk++] = key;
		for (layer = LAYER_USER; layer <= LAYER_PACK && r == 0;
		    layer++)
			for (i = 0; i < nk && r == 0; i++)
				for (e = ht_get(&p->tab[layer], keys[i]);
				    e != NULL && r == 0; e = e->shadows)
					if (request_entry_applies(p, e,
					    upstream))
						r = fn(e, arg);
		goto out;
	}
	/* the reading asked for; none: r stays 0 */
	n = uri_readings(name, rd);
	if (which >= n)
		goto out;
	canon = rd[which];
	for (i = 0; i < p->nrents && r == 0; i++) {
		e = p->rents[i];
		if (e->layer == LAYER_USER &&
		    ht_get(&p->tab[LAYER_USER], e->key) == e &&
		    request_entry_applies(p, e, upstream) &&
		    resource_entry_matches(e, canon))
			r = fn(e, arg);
	}
	for (k = (long)p->npacks - 1; k >= 0 && r == 0; k--)
		for (j = 0; j < p->nrents && r == 0; j++) {
			e = p->rents[j];
			if (e->pack == p->packs[k] &&
			    request_entry_applies(p, e, upstream) &&
			    resource_entry_matches(e, canon))
				r = fn(e, arg);
		}
 out:
	free(key);
	free(qual);
	free(rd[0]);
	free(rd[1]);
	return r;
}

static int
take_first(struct pentry *e, void *arg)
{
	*(struct pentry **)arg = e;
	return 1;
}

static int
take_forbidden(struct pentry *e, void *arg)
{
	(void)arg;
	return e->tp.forbidden;
}

/*
 * An unqualified user entry for a resource grants its trust only while
 * one upstream is configured: a URI pattern does not say whose server it
 * was written for (a prompt name has one owner, or none).
 */
static const struct tool_policy *
request_trust(struct policy *p, struct pentry *e, int kind)
{
	char keys[128];
	size_t i, qlen;

	(void)split_qualified(e->tp.name, &qlen);
	if (kind != POLICY_RESOURCE || e->layer != LAYER_USER || qlen > 0 ||
	    p->nsups < 2 || !trust_list(&e->tp, keys, sizeof(keys)))
		return &e->tp;
	if (e->untrusted == NULL) {
		e->untrusted = pentry_new(LAYER_USER);
		e->untrusted->tp = e->tp;
		e->untrusted->borrowed = 1;
		for (i = 0; i < NELEM(trust_keys); i++)
			trust_keys[i].revoke(&e->untrusted->tp);
	}
	return &e->untrusted->tp;
}

const struct tool_policy *
policy_for_request(struct policy *p, const char *upstream, int kind,
    const char *name)
{
	struct pentry *win = NULL;

	if (name == NULL || (kind != POLICY_PROMPT && kind != POLICY_RESOURCE))
		return &p->fallback;
	if (request_entries(p, upstream, kind, name, 0, take_first, &win) == 0)
		return &p->none;
	return request_trust(p, win, kind);
}

int
policy_request_forbidden(struct policy *p, const char *upstream, int kind,
    const char *name)
{
	if (name == NULL || (kind != POLICY_PROMPT && kind != POLICY_RESOURCE))
		return 1;
	/* forbidden in either reading of a URI servers read two ways */
	return request_entries(p, upstream, kind, name, 0, take_forbidden,
	    NULL) != 0 || request_entries(p, upstream, kind, name, 1,
	    take_forbidden, NULL) != 0;
}

int
policy_request_ambiguous(struct policy *p, const char *upstream,
    const char *uri)
{
	struct pentry *w0 = NULL, *w1 = NULL;
	char *rd[2] = { NULL, NULL };
	int n;

	n = uri_readings(uri, rd);
	free(rd[0]);
	free(rd[1]);
	if (n < 2)
		return 0;
	(void)request_entries(p, upstream, POLICY_RESOURCE, uri, 0,
	    take_first, &w0);
	(void)request_entries(p, upstream, POLICY_RESOURCE, uri, 1,
	    take_first, &w1);
	return w0 != w1;
}

/* ---- trusted destinations ----------------------------------------- */

static int
is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	    c == '\f';
}

/*
 * Trimmed, white space runs as one space, ASCII lower case.  Returns the
 * length, or -1 for a NUL byte or more than BNC_POLICY_DEST_MAX bytes.
 */
static long
dest_norm(const char *s, size_t len, char *out)
{
	size_t i, o = 0;
	int gap = 0;

	if (len > BNC_POLICY_DEST_MAX)
		return -1;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\0')
			return -1;
		if (is_space(c)) {
			gap = o > 0;
			continue;
		}
		if (gap)
			out[o++] = ' ';
		gap = 0;
		out[o++] = (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : (char)c;
	}
	out[o] = '\0';
	return (long)o;
}

/* What a '*' at pattern position i may consume. */
static int
star_takes(const char *pat, size_t plen, size_t i, unsigned char c)
{
	if (i + 1 == plen && i > 0 && pat[i - 1] == '/')
		return c > ' ' && c != 0x7f;
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' ||
	    c == '-';
}

/* A '*' may match nothing: every state before a star reaches past it. */
static void
closure(const char *pat, size_t plen, unsigned char *st)
{
	size_t i;

	for (i = 0; i < plen; i++)
		if (st[i] && pat[i] == '*')
			st[i + 1] = 1;
}

/* A set-of-states walk: linear in len times the pattern, no backtracking. */
static int
glob_match(const char *pat, size_t plen, const char *v, size_t vlen)
{
	unsigned char *cur, *nxt, *t;
	size_t i, j;
	int alive, r;

	cur = xcalloc(plen + 1, 1);
	nxt = xcalloc(plen + 1, 1);
	cur[0] = 1;
	closure(pat, plen, cur);
	for (j = 0; j < vlen; j++) {
		unsigned char c = (unsigned char)v[j];

		memset(nxt, 0, plen + 1);
		alive = 0;
		for (i = 0; i < plen; i++) {
			if (!cur[i])
				continue;
			if (pat[i] == '*') {
				if (star_takes(pat, plen, i, c))
					nxt[i] = alive = 1;
			} else if ((unsigned char)pat[i] == c)
				nxt[i + 1] = alive = 1;
		}
		closure(pat, plen, nxt);
		t = cur;
		cur = nxt;
		nxt = t;
		if (!alive)
			break;
	}
	r = j == vlen && cur[plen];
	free(cur);
	free(nxt);
	return r;
}

/* Does pattern (as pattern_canon left it) match v[0..vlen)? */
static int
dest_match(const char *pattern, const char *v, size_t vlen)
{
	char *pn = NULL, *vn = NULL;
	long pl, vl;
	int r = 0;

	pn = xmalloc(strlen(pattern) + 1);
	vn = xmalloc(vlen + 1);
	if ((pl = dest_norm(pattern, strlen(pattern), pn)) <= 0 ||
	    (vl = dest_norm(v, vlen, vn)) <= 0)
		goto out;
	if (strchr(pn, '*') == NULL)
		r = pl == vl && memcmp(pn, vn, (size_t)vl) == 0;
	else
		r = glob_match(pn, (size_t)pl, vn, (size_t)vl);
 out:
	free(pn);
	free(vn);
	return r;
}

/*
 * The form a trusted_destinations entry is compared in (canon.h), its
 * '*' kept: an entry without '*' that is one identity, that identity's
 * form; "LOCAL@DOMAIN" and "*.DOMAIN" with no '*' in DOMAIN, the domain
 * as a host; a URL pattern "scheme://host/path/" and a final '*', its
 * URL before the '*'.  Anything else as written.  0 and *out (the caller
 * frees it), or
 * < 0 with a message in err[256]: an entry that is no well-formed
 * identity, or one that servers read two ways (write the one meant).
 */
static int names_identity(const char *, size_t);

static int
pattern_canon(const char *pat, char **out, char *err)
{
	struct canon_id id;
	struct buf *b = buf_new();
	const char *at, *star = strchr(pat, '*');
	size_t len = strlen(pat);
	int r, flags = 0;

	*out = NULL;
	memset(&id, 0, sizeof(id));
	if (star == NULL) {
		if ((r = canon_whole(pat, len, &id)) < 0)
			goto bad;
		/* a name that holds an identity is compared as none: it
		 * would trust nothing (" bob@host/x ", "a@b.example, c") */
		if (r == 0 && names_identity(pat, len))
			goto bad;
		if (r == 0)
			*out = xstrdup(pat);
		else if (id.alt != NULL)
			goto twice;
		else
			*out = xstrdup(id.form);
		r = 0;
	} else if ((at = strrchr(pat, '@')) != NULL &&
	    strchr(at, '*') == NULL && strstr(pat, "://") == NULL) {
		if ((r = buf_put(b, pat, (size_t)(at - pat) + 1)) != 0 ||
		    (r = canon_host(at + 1, strlen(at + 1), b, &flags)) != 0)
			goto bad;
		if (flags & CANON_AMBIGUOUS)
			goto twice;
		*out = xstrdup((const char *)buf_ptr(b));
	} else if (strncmp(pat, "*.", 2) == 0 && strchr(pat + 2, '*') ==
	    NULL) {
		if ((r = buf_put(b, "*.", 2)) != 0 ||
		    (r = canon_host(pat + 2, len - 2, b, &flags)) != 0)
			goto bad;
		if (flags & CANON_AMBIGUOUS)
			goto twice;
		*out = xstrdup((const char *)buf_ptr(b));
	} else if (strstr(pat, "://") != NULL && star == pat + len - 1 &&
	    len >= 2 && pat[len - 2] == '/') {
		if ((r = canon_url(pat, len - 1, b, NULL, &flags)) != 0)
			goto bad;
		if (flags & CANON_AMBIGUOUS)
			goto twice;
		/* the URL form, without its NUL, then the '*' */
		xasprintf(out, "%s*", (const char *)buf_ptr(b));
	} else
		*out = xstrdup(pat);
	r = 0;
	goto out;
 twice:
	snprintf(err, 256, "\"%.64s\" is read two ways by servers (as "
	    "\"%.64s\" and otherwise); write the one meant", pat,
	    id.form != NULL ? id.form : (const char *)buf_ptr(b));
	r = -BNC_ERR_BAD_FORMAT;
	goto out;
 bad:
	snprintf(err, 256, "\"%.64s\" is not a well-formed address, host or "
	    "URL", pat);
	r = -BNC_ERR_BAD_FORMAT;
 out:
	canon_id_clear(&id);
	buf_free(b);
	return r;
}

/* Does pattern match the identity (both readings of an ambiguous one)? */
static int
pattern_matches(const char *pattern, const char *form, const char *alt)
{
	char *pc, err[256];
	int r;

	if (pattern_canon(pattern, &pc, err) != 0)
		return 0;
	r = dest_match(pc, form, strlen(form)) &&
	    (alt == NULL || dest_match(pc, alt, strlen(alt)));
	free(pc);
	return r;
}

/*
 * The host of a URL in canonical form (canon.h: lower case, no default
 * port, userinfo before the last '@' of the authority), copied to out;
 * NULL if form is no URL with a host.
 */
static char *
url_host(const char *form)
{
	const char *a, *e, *at, *h;

	if ((a = strstr(form, "://")) == NULL)
		return NULL;
	a += 3;
	e = a + strcspn(a, "/?#");
	for (h = a; (at = memchr(h, '@', (size_t)(e - h))) != NULL;
	    h = at + 1)
		;
	if (*h == '[')
		e = (at = memchr(h, ']', (size_t)(e - h))) != NULL ? at + 1 : e;
	else if ((at = memchr(h, ':', (size_t)(e - h))) != NULL)
		e = at;
	return e > h ? xstrndup(h, (size_t)(e - h)) : NULL;
}

/*
 * An entry that names a host ("wiki.corp.example", "*.corp.example")
 * trusts the URLs to that host, whatever their path: the host is where
 * the request goes.
 */
static int
host_matches(const char *pattern, const char *form, const char *alt)
{
	char *h = NULL, *ha = NULL;
	int r = 0;

	if (strstr(pattern, "://") != NULL || strchr(pattern, '@') != NULL ||
	    strchr(pattern, '/') != NULL)
		return 0;
	if ((h = url_host(form)) == NULL ||
	    (alt != NULL && (ha = url_host(alt)) == NULL))
		goto out;
	r = pattern_matches(pattern, h, ha);
 out:
	free(h);
	free(ha);
	return r;
}

int
policy_trusted_id(const struct tool_policy *tp, const char *form,
    const char *alt)
{
	size_t i;

	for (i = 0; i < tp->ntrusted; i++)
		if (pattern_matches(tp->trusted[i], form, alt) ||
		    host_matches(tp->trusted[i], form, alt))
			return 1;
	return 0;
}

/*
 * Does a value that is no single identity name any?  Then it is several
 * (an address list, a comment holding another address), and no entry
 * trusts it as a whole: its identities are judged one by one.
 */
static int
names_identity(const char *s, size_t len)
{
	struct canon_id *ids = NULL;
	size_t nids = 0;
	int r;

	r = canon_scan(s, len, 1, &ids, &nids);
	canon_ids_free(ids, nids);
	return nids > 0 || r < 0;
}

int
policy_trusted_value(const struct tool_policy *tp, const char *value,
    size_t len)
{
	struct canon_id id;
	char *v;
	size_t i;
	int r, hit = 0;

	if (tp->ntrusted == 0)
		return 0;
	memset(&id, 0, sizeof(id));
	if ((r = canon_whole(value, len, &id)) == 1)
		hit = policy_trusted_id(tp, id.form, id.alt);
	else if (r == 0 && memchr(value, '\0', len) == NULL &&
	    !names_identity(value, len)) {
		/* a name, not an address: compared as written */
		v = xmalloc(len + 1);
		memcpy(v, value, len);
		v[len] = '\0';
		for (i = 0; i < tp->ntrusted && !hit; i++)
			hit = pattern_matches(tp->trusted[i], v, NULL);
		free(v);
	}
	canon_id_clear(&id);
	return hit;
}

int
policy_trusted_match(const char *pattern, const char *value, size_t len)
{
	struct tool_policy tp;
	char *one[1];

	if (pattern == NULL || value == NULL)
		return 0;
	memset(&tp, 0, sizeof(tp));
	one[0] = (char *)(uintptr_t)pattern;	/* only read */
	tp.trusted = one;
	tp.ntrusted = 1;
	return policy_trusted_value(&tp, value, len);
}

/* ---- -t ------------------------------------------------------------- */

struct lint {
	void	(*warn)(const char *, void *);
	void	 *arg;
	int	  n;
};

static void __attribute__((format(printf, 3, 4)))
lwarn(struct lint *l, const struct tool_policy *tp, const char *fmt, ...)
{
	char msg[1024], line[1400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "%s:%lu: %s: %s", tp->file != NULL ?
	    tp->file : "(built-in)", tp->line, tp->name, msg);
	l->warn(line, l->arg);
	l->n++;
}

static int
in_vec(char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

/* e replaces old (for every upstream, or for the one it names). */
static void
lint_replace(struct lint *l, const struct tool_policy *e,
    const struct tool_policy *old)
{
	char list[768];
	size_t i, o = 0;
	const char *what = strcmp(old->source, "pack") == 0 ? "pack" :
	    "earlier";

	if (old->forbidden && !e->forbidden)
		lwarn(l, e, "replaces the %s entry at %s:%lu but cannot lift "
		    "its forbidden: true; the tool stays forbidden", what,
		    old->file, old->line);
	if (old->exfiltrating && !e->exfiltrating)
		lwarn(l, e, "replaces the %s entry at %s:%lu and drops its "
		    "exfiltrating: true; the sink gate is off for this tool",
		    what, old->file, old->line);
	list[0] = '\0';
	for (i = 0; i < old->nsink; i++)
		if (!in_vec(e->sink_params, e->nsink, old->sink_params[i]) &&
		    o + strlen(old->sink_params[i]) + 8 < sizeof(list))
			o += (size_t)snprintf(list + o, sizeof(list) - o,
			    "%s'%s'", o > 0 ? ", " : "", old->sink_params[i]);
	if (o > 0)
		lwarn(l, e, "replaces the %s entry at %s:%lu and drops its "
		    "sink parameter(s) %s", what, old->file, old->line, list);
	if (old->confirm && !e->confirm)
		lwarn(l, e, "replaces the %s entry at %s:%lu and drops its "
		    "confirm: true", what, old->file, old->line);
	if (old->approval == APPROVAL_SIGNED &&
	    e->approval != APPROVAL_SIGNED)
		lwarn(l, e, "replaces the %s entry at %s:%lu and drops its "
		    "approval: signed; its asks go to the client again", what,
		    old->file, old->line);
	if (old->max_calls >= 0 && (e->max_calls < 0 ||
	    e->max_calls > old->max_calls))
		lwarn(l, e, "replaces the %s entry at %s:%lu and raises its "
		    "max_calls %lld to %s", what, old->file, old->line,
		    old->max_calls, e->max_calls < 0 ? "none" : "more");
	for (i = 0; i < old->npatterns; i++) {
		size_t j;

		for (j = 0; j < e->npatterns; j++)
			if (strcmp(e->patterns[j].param,
			    old->patterns[i].param) == 0)
				break;
		if (j == e->npatterns)
			lwarn(l, e, "replaces the %s entry at %s:%lu and drops "
			    "its arg_patterns for '%s'", what, old->file,
			    old->line, old->patterns[i].param);
	}
}

static void
lint_trusted(struct lint *l, const struct tool_policy *tp, const char *t)
{
	size_t n = strlen(t), i, lit = 0;

	if (strchr(t, '*') == NULL)
		return;
	for (i = 0; i < n; i++)
		if (t[i] != '*' && t[i] != '.' && t[i] != '/')
			lit++;
	if (lit == 0) {
		lwarn(l, tp, "trusted destination '%s' trusts almost "
		    "everything", t);
		return;
	}
	if (t[n - 1] == '*' && (n < 2 || t[n - 2] != '/'))
		lwarn(l, tp, "trusted destination '%s' ends in a '*' that "
		    "also matches other domains ('%.*s.evil.example'); end a "
		    "URL pattern in '/*'", t, (int)(n - 1), t);
	if (t[0] == '*' && n > 1 && ((t[1] >= 'a' && t[1] <= 'z') ||
	    (t[1] >= 'A' && t[1] <= 'Z') || (t[1] >= '0' && t[1] <= '9')))
		lwarn(l, tp, "trusted destination '%s' also matches longer "
		    "names ('evil%s'); write '*.%s' or '*@%s'", t, t + 1,
		    t + 1, t + 1);
}

static void
lint_entry(struct lint *l, const struct tool_policy *tp, int user)
{
	size_t i;

	if (tp->forbidden) {
		if (tp->exfiltrating || tp->nsink || tp->ntrusted ||
		    tp->nwrite || tp->nprefixes || tp->npatterns ||
		    tp->max_calls >= 0 || tp->confirm || tp->read_only)
			lwarn(l, tp, "forbidden: true makes its other keys "
			    "pointless");
		return;
	}
	if (!tp->exfiltrating && tp->nsink > 0)
		lwarn(l, tp, "sink_params have no effect without "
		    "exfiltrating: true");
	if (!tp->exfiltrating && tp->ntrusted > 0)
		lwarn(l, tp, "trusted_destinations have no effect without "
		    "exfiltrating: true");
	if (!tp->exfiltrating && tp->tainted == TAINTED_ASK)
		lwarn(l, tp, "tainted: ask has no effect without "
		    "exfiltrating: true");
	if (tp->nprefixes > 0 && tp->nwrite == 0)
		lwarn(l, tp, "allowed_path_prefixes have no effect without "
		    "write_params");
	if (user && tp->nwrite > 0 && tp->nprefixes == 0)
		lwarn(l, tp, "write_params have no effect without "
		    "allowed_path_prefixes");
	for (i = 0; i < tp->ntrusted; i++)
		lint_trusted(l, tp, tp->trusted[i]);
}

/*
 * A resource entry judges one argument, "uri"; its glob's '*' crosses
 * every character, so one in the scheme or the host reaches any host.
 */
static void
lint_resource(struct lint *l, const struct tool_policy *tp, const char *glob)
{
	const char *host, *star;
	size_t i, hl;

	if (!tp->exfiltrating && tp->nsink > 0)
		lwarn(l, tp, "sink_params have no effect without "
		    "exfiltrating: true");
	for (i = 0; i < tp->nsink; i++)
		if (strcmp(tp->sink_params[i], "uri") != 0)
			lwarn(l, tp, "sink parameter '%s' has no effect: a "
			    "resource request has only the argument 'uri'",
			    tp->sink_params[i]);
	for (i = 0; i < tp->npatterns; i++)
		if (strcmp(tp->patterns[i].param, "uri") != 0)
			lwarn(l, tp, "arg_patterns for '%s' have no effect: a "
			    "resource request has only the argument 'uri'",
			    tp->patterns[i].param);
	if (tp->extra_args)
		lwarn(l, tp, "extra_args has no effect on a resource entry");
	/*
	 * A star alone after the scheme says "every one"; a star beside a
	 * host name reads as a subdomain wildcard, and is not one.
	 */
	if ((host = strstr(glob, "://")) == NULL)
		return;
	host += 3;
	hl = strcspn(host, "/?#");
	if ((star = memchr(host, '*', hl)) != NULL && hl > 1)
		lwarn(l, tp, "the '*' in '%s' is in the host part and "
		    "matches any characters, '/' and '@' too, so it reaches "
		    "other hosts ('%.*sevil.example/')", glob,
		    (int)(star - glob), glob);
}

/*
 * A prompt's or resource's arguments are always at least scanned
 * (bouncer-policy(5), PROMPTS AND RESOURCES), so its trusted
 * destinations and tainted: ask count without exfiltrating: true.
 */
static void
lint_request(struct lint *l, const struct tool_policy *tp, int kind,
    const char *glob)
{
	size_t i;

	if (tp->forbidden) {
		if (tp->exfiltrating || tp->nsink || tp->ntrusted ||
		    tp->npatterns || tp->max_calls >= 0 || tp->confirm)
			lwarn(l, tp, "forbidden: true makes its other keys "
			    "pointless");
		return;
	}
	if (kind == POLICY_RESOURCE)
		lint_resource(l, tp, glob);
	for (i = 0; i < tp->ntrusted; i++)
		lint_trusted(l, tp, tp->trusted[i]);
}

int
policy_lint(struct policy *p, void (*warn)(const char *, void *), void *arg)
{
	struct lint l;
	const struct pentry *e, *old;
	const char *tool, *glob;
	char keys[128];
	size_t i, qlen;
	int kind;

	l.warn = warn;
	l.arg = arg;
	l.n = 0;
	for (i = 0; i < p->nents; i++) {
		e = p->ents[i];
		tool = split_qualified(e->tp.name, &qlen);
		if ((kind = request_kind(tool, &glob)) != 0)
			lint_request(&l, &e->tp, kind, glob);
		else
			lint_entry(&l, &e->tp, e->layer == LAYER_USER);
		if (builtin_forbidden_name(tool) && !e->tp.forbidden)
			lwarn(&l, &e->tp, "is in the built-in forbidden write "
			    "set: never listed, always denied; this entry has "
			    "no effect");
		if (e->shadows != NULL)
			lint_replace(&l, &e->tp, &e->shadows->tp);
		if (e->layer != LAYER_USER)
			continue;
		/*
		 * The pack entries this user entry hides.  Whether one
		 * applies depends on the pinned schema and the server's
		 * name, which -t does not see: each could.
		 */
		for (old = ht_get(&p->tab[LAYER_PACK], e->tp.name);
		    old != NULL; old = old->shadows)
			lint_replace(&l, &e->tp, &old->tp);
		for (old = qlen > 0 ? ht_get(&p->tab[LAYER_PACK], tool) :
		    NULL; old != NULL; old = old->shadows)
			lint_replace(&l, &e->tp, &old->tp);
		if (request_kind(tool, &glob) == POLICY_RESOURCE && qlen == 0 &&
		    p->nsups >= 2 && trust_list(&e->tp, keys, sizeof(keys)))
			lwarn(&l, &e->tp, "grants %s to the resources of every "
			    "upstream that match it; with %zu upstreams "
			    "configured those keys do not apply: write the "
			    "qualified form, 'UPSTREAM:%s'", keys, p->nsups,
			    tool);
		else if (request_kind(tool, NULL) == 0 && qlen == 0 &&
		    p->nsups >= 2 && trust_list(&e->tp, keys, sizeof(keys)))
			lwarn(&l, &e->tp, "grants %s to the tool of this name "
			    "of every upstream; with %zu upstreams configured "
			    "those keys apply only while exactly one of them "
			    "lists '%s': write the qualified form, "
			    "'UPSTREAM:%s'", keys, p->nsups, tool, tool);
	}
	return l.n;
}

/* ---- by name alone, for the agent registry (registry.c) ----------- */

/*
 * The entry that would decide for upstream's tool before a session
 * exists: choose()'s order without its schema and scope tests.
 */
static const struct pentry *
entry_by_name(const struct policy *p, const char *upstream, const char *tool)
{
	const struct pentry *e = NULL;
	const char *keys[2];
	char *q = NULL;
	size_t i, l, nk = 0;

	if (upstream != NULL) {
		xasprintf(&q, "%s:%s", upstream, tool);
		keys[nk++] = q;
	}
	keys[nk++] = tool;
	for (l = LAYER_USER; l <= LAYER_PACK && e == NULL; l++)
		for (i = 0; i < nk && e == NULL; i++)
			e = ht_get(&p->tab[l], keys[i]);
	free(q);
	return e;
}

static int
entry_read_only(const struct pentry *e)
{
	return e != NULL && e->tp.read_only && !e->tp.forbidden;
}

int
policy_marks_read_only(const struct policy *p, const char *name)
{
	const char *sep;
	char *up;
	int hit;

	if (p == NULL || name == NULL)
		return 0;
	hit = entry_read_only(entry_by_name(p, NULL, name));
	/* upstream names may hold "__" themselves: try every split */
	for (sep = strstr(name, "__"); sep != NULL && !hit;
	    sep = strstr(sep + 1, "__")) {
		if (sep[2] == '\0' ||
		    !upstream_name_ok(name, (size_t)(sep - name)))
			continue;
		up = xstrndup(name, (size_t)(sep - name));
		hit = entry_read_only(entry_by_name(p, up, sep + 2));
		free(up);
	}
	return hit;
}
