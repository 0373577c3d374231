/*
 * decide.c - the gauntlet every tools/call runs (DESIGN 5).
 *
 * First hit wins; any doubt is a deny.  It must never forward, write or
 * answer anything itself: it only decides, so that every caller records
 * and enforces the same verdict.  Nor may it reach into the session: it
 * sees one only through a struct decide_ctx (decide.h), and calls
 * nothing of the modules that run it (regress/structure.sh), so that
 * it is tested alone.  Reason strings follow the reference design
 * (seed-semantics 3.1), values quoted as Python's repr() would, because
 * existing users and audits compare them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "approvals.h"
#include "bounds.h"
#include "buf.h"
#include "canon.h"
#include "consent.h"
#include "conffile.h"
#include "decide.h"
#include "err.h"
#include "log.h"
#include "monitor.h"
#include "pathcheck.h"
#include "policy.h"
#include "registry.h"
#include "schema.h"
#include "taint.h"
#include "utf8.h"
#include "value-json.h"
#include "value.h"
#include "xmalloc.h"

static const char *const verdict_names[] = {
	[VERDICT_ALLOW] = "allow",
	[VERDICT_DENY] = "deny",
	[VERDICT_ASK] = "ask",
};

const char *
verdict_name(enum verdict v)
{
	if (v < VERDICT_ALLOW || v > VERDICT_ASK)
		return "unknown";
	return verdict_names[v];
}

void
decision_clear(struct decision *d)
{
	size_t i;

	free(d->ask_param);
	free(d->ask_value);
	for (i = 0; i < d->nsinks; i++)
		free(d->sinks[i]);
	free(d->sinks);
	memset(d, 0, sizeof(*d));
}

/* Notes an argument judged as a destination, once. */
static void
sink_note(struct decision *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->nsinks; i++)
		if (strcmp(d->sinks[i], name) == 0)
			return;
	d->sinks = xreallocarray(d->sinks, d->nsinks + 1, sizeof(*d->sinks));
	d->sinks[d->nsinks++] = xstrdup(name);
}

const char *
decide_unreachable(const struct upstream *up)
{
	if (up->state != UP_READY)
		return "is not running";
	if (up->in_closed || up->in_fd == -1)
		return "no longer reads its input";
	if (up->npend >= BNC_PENDING_MAX)
		return "has too many requests in flight";
	return NULL;
}

static void __attribute__((format(printf, 4, 5)))
set(struct decision *d, enum verdict v, const char *contract,
    const char *fmt, ...)
{
	va_list ap;

	d->verdict = v;
	d->contract = contract;
	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	/* a reason cut short ends on a whole character (audit, JSON) */
	utf8_trim(d->reason);
	va_end(ap);
}

/* Python's repr() of a str, as the reference design's reasons show it. */
static void
repr(struct buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char q = '\'';
	size_t i;
	unsigned char c;

	if (memchr(s, '\'', len) != NULL && memchr(s, '"', len) == NULL)
		q = '"';
	buf_put_u8(b, (uint8_t)q);
	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c == '\\' || c == (unsigned char)q) {
			buf_put_u8(b, '\\');
			buf_put_u8(b, c);
		} else if (c == '\n')
			buf_put(b, "\\n", 2);
		else if (c == '\r')
			buf_put(b, "\\r", 2);
		else if (c == '\t')
			buf_put(b, "\\t", 2);
		else if (c < 0x20 || c == 0x7f) {
			buf_put(b, "\\x", 2);
			buf_put_u8(b, (uint8_t)hex[c >> 4]);
			buf_put_u8(b, (uint8_t)hex[c & 0xf]);
		} else
			buf_put_u8(b, c);
	}
	buf_put_u8(b, (uint8_t)q);
}

/* A scalar as the text a pattern or a sink is judged on (DESIGN 5). */
static int
scalar_text(struct buf *b, const struct value *v)
{
	if (v->type == V_STRING)
		return buf_put(b, v->u.s.p, v->u.s.len);
	return value_render(b, v);
}

/*
 * "name=repr" for reasons; non-strings as their JSON text.  What a human
 * cannot see is made visible (canon_visible: zero-width and bidi
 * characters as <U+XXXX>), so a question never shows two values alike.
 * Returns the text, or NULL if it would be longer than max bytes.
 */
static const char *
show_max(struct buf *b, const char *name, const struct value *v,
    size_t max)
{
	struct buf *t = buf_new();
	const char *r = NULL;

	buf_reset(b);
	/* a name an agent chose may not read as part of the sentence */
	if (name[strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
	    "qrstuvwxyz0123456789_.-")] != '\0')
		repr(t, name, strlen(name));
	else
		buf_put(t, name, strlen(name));
	buf_put_u8(t, '=');
	if (v->type == V_STRING)
		repr(t, v->u.s.p, v->u.s.len);
	else
		scalar_text(t, v);
	if (canon_visible((const char *)buf_ptr(t), buf_len(t), max, b) == 0)
		r = (const char *)buf_ptr(b);
	buf_free(t);
	return r;
}

/* As show_max, unbounded (a reason is cut where it must be). */
static const char *
show(struct buf *b, const char *name, const struct value *v)
{
	const char *r;

	/* every byte shows in at most 8 ("<U+XXXX>" of 3, "<0xNN>" of 1) */
	if ((r = show_max(b, name, v, (strlen(name) + 32) * 8 +
	    (v->type == V_STRING ? v->u.s.len * 16 : 64))) == NULL) {
		buf_reset(b);
		buf_put(b, "(unshowable)", 13);
		r = (const char *)buf_ptr(b);
	}
	return r;
}

/* ['a', 'b'] */
static const char *
show_list(struct buf *b, char *const *items, size_t n)
{
	size_t i;

	buf_reset(b);
	buf_put_u8(b, '[');
	for (i = 0; i < n; i++) {
		if (i > 0)
			buf_put(b, ", ", 2);
		repr(b, items[i], strlen(items[i]));
	}
	buf_put(b, "]", 2);
	return (const char *)buf_ptr(b);
}

/* Calls counted against a tool's (or an entry's) max_calls. */
struct budget {
	char		*tool;
	long long	 count;
};

static struct budget *
budget_slot(struct decide_ctx *dc, const char *tool)
{
	struct budgets *bs = dc->budgets;
	size_t i;

	for (i = 0; i < bs->n; i++)
		if (strcmp(bs->v[i].tool, tool) == 0)
			return &bs->v[i];
	if (bs->n >= BNC_BUDGETS_MAX)
		return NULL;
	bs->v = xreallocarray(bs->v, bs->n + 1, sizeof(*bs->v));
	bs->v[bs->n].tool = xstrdup(tool);
	bs->v[bs->n].count = 0;
	return &bs->v[bs->n++];
}

void
budgets_clear(struct budgets *bs)
{
	size_t i;

	if (bs == NULL)
		return;
	for (i = 0; i < bs->n; i++)
		free(bs->v[i].tool);
	free(bs->v);
	bs->v = NULL;
	bs->n = 0;
}

/*
 * The HOME an upstream's "~" means: its configured env, else the one it
 * inherits from us (child.c's upstream_env); NULL when it has none.
 */
static const char *
upstream_home(const struct upstream_cfg *u)
{
	size_t i;

	for (i = 0; i < u->nenv; i++)
		if (strncmp(u->env[i], "HOME=", 5) == 0)
			return u->env[i] + 5;
	return getenv("HOME");
}

/* 4. Constraints: write paths, then full-match patterns. */
static int
check_constraints(struct decide_ctx *dc, const struct tool_entry *e,
    const struct tool_policy *pol, const struct value *args,
    struct decision *d)
{
	const struct value *v;
	const char *base, *why;
	struct buf *b = buf_new(), *l = buf_new(), *t = buf_new();
	size_t i;
	int r, denied = 0;

	base = e->up->cfg->cwd != NULL ? e->up->cfg->cwd : dc->cwd;
	for (i = 0; i < pol->nwrite && pol->nprefixes > 0 && !denied; i++) {
		if ((v = value_get(args, pol->write_params[i])) == NULL)
			continue;
		why = NULL;
		if (v->type != V_STRING || strlen(v->u.s.p) != v->u.s.len ||
		    !path_confined(v->u.s.p, pol->prefixes, pol->nprefixes,
		    base, upstream_home(e->up->cfg), &why)) {
			show(b, pol->write_params[i], v);
			set(d, VERDICT_DENY, "constraint",
			    "%s outside allowed prefixes %s%s%s",
			    (const char *)buf_ptr(b),
			    show_list(l, pol->prefixes, pol->nprefixes),
			    why != NULL ? ": " : "", why != NULL ? why : "");
			denied = 1;
		}
	}
	for (i = 0; i < pol->npatterns && !denied; i++) {
		if ((v = value_get(args, pol->patterns[i].param)) == NULL)
			continue;
		buf_reset(t);
		if (scalar_text(t, v) != 0)
			r = -1;
		else
			r = policy_pattern_match(&pol->patterns[i],
			    (const char *)buf_ptr(t), buf_len(t));
		if (r != 1) {
			show(b, pol->patterns[i].param, v);
			set(d, VERDICT_DENY, "constraint",
			    "%s does not match /%s/%s",
			    (const char *)buf_ptr(b), pol->patterns[i].src,
			    r < 0 ? " (match error)" : "");
			denied = 1;
		}
	}
	buf_free(b);
	buf_free(l);
	buf_free(t);
	return denied;
}

/*
 * How the sink gate judges a value (DESIGN 5).  A destination must be
 * trusted, else it is tainted (deny, or ask with `tainted: ask') or
 * unproven (ask).  Swept text is judged by the destination identities in
 * it, each as a destination; text with none is no destination.  Scanned
 * text only may not name a tainted identity.  Header-like text is
 * scanned, unless a CR or LF in it starts new header lines: then each
 * line is a destination.
 */
enum gmode {
	G_SINK,		/* a declared or destination-shaped argument */
	G_HEADER,	/* subject: new lines are destinations */
	G_HEADERS,	/* raw headers: every address is a destination */
	G_SWEEP,	/* no declared sink holds a value: its identities */
	G_ASK,		/* text whose identities may each be destinations:
			 * JSON text, a URI a destination-shaped template
			 * variable filled */
	G_SCAN		/* anything else: a tainted identity denies */
};

/* The sink gate's working state for one call. */
struct gate {
	struct decide_ctx	 *dc;
	const char		 *tool;
	const struct tool_policy *pol;
	struct decision		 *d;
	size_t			  n;		/* destinations judged */
	size_t			  nswept;	/* texts scanned */
	size_t			  idents;	/* identities left to look up */
	size_t			  asked;	/* swept identities asked about */
	int			  tainted;	/* a DENY was set */
	int			  have_ask;
	int			  links;	/* scanned text: ask about an
						 * unproven URL */
	struct buf		 *tmp;
	const char		 *top;		/* the argument being judged */
	char			 *path;		/* "top" or "top.key...", NUL */
	size_t			  plen, pcap;
};

/* Trusted: the policy's list, else a human's approval this session,
 * both on canonical forms (policy_trusted_value, approvals_key). */
static int
is_trusted(const struct gate *g, const char *param, const char *s, size_t len)
{
	return policy_trusted_value(g->pol, s, len) ||
	    approvals_has(g->dc->approvals, g->tool, param, s, len);
}

static const char *
gpath(const struct gate *g)
{
	return g->path;
}

/* Appends ".key" (or the top-level name) to the path; returns the old
 * length for path_pop. */
static size_t
path_push(struct gate *g, const char *key, size_t klen)
{
	size_t old = g->plen, need = g->plen + 1 + klen + 1;

	if (need > g->pcap) {
		g->pcap = need * 2;
		g->path = xreallocarray(g->path, g->pcap, 1);
	}
	if (g->plen > 0)
		g->path[g->plen++] = '.';
	memcpy(g->path + g->plen, key, klen);
	g->plen += klen;
	g->path[g->plen] = '\0';
	return old;
}

static void
path_pop(struct gate *g, size_t old)
{
	g->plen = old;
	g->path[old] = '\0';
}

/* An identity found in text, already canonical. */
static int
id_trusted(const struct gate *g, const struct canon_id *id)
{
	return policy_trusted_id(g->pol, id->form, id->alt) ||
	    approvals_has_id(g->dc->approvals, g->tool, gpath(g), id->form,
	    id->alt);
}

/* The worse of two lookups: found, then unsure, then absent. */
static enum taint_found
worse(enum taint_found a, enum taint_found b)
{
	if (a == TAINT_FOUND || b == TAINT_FOUND)
		return TAINT_FOUND;
	if (a == TAINT_UNSURE || b == TAINT_UNSURE)
		return TAINT_UNSURE;
	return TAINT_ABSENT;
}

/*
 * An identity is in untrusted output if its text as written, its form
 * or its other reading is (canon.h: the index folds text its own way, and
 * a canonical form need not occur where it came from; taint.c records
 * the forms of what it is given, too).
 */
static enum taint_found
lookup_id(const struct gate *g, const char *text, const struct canon_id *id)
{
	enum taint_found f;

	f = taint_lookup(g->dc->taint, text + id->off, id->len);
	if (f != TAINT_FOUND)
		f = worse(f, taint_lookup(g->dc->taint, id->form,
		    strlen(id->form)));
	if (f != TAINT_FOUND && id->alt != NULL)
		f = worse(f, taint_lookup(g->dc->taint, id->alt,
		    strlen(id->alt)));
	return f;
}

/* A string value of len bytes that is only read (shown in a reason). */
static struct value
str_view(const char *s, size_t len)
{
	struct value v;

	v.type = V_STRING;
	v.u.s.p = (char *)(uintptr_t)s;
	v.u.s.len = len;
	return v;
}

/*
 * A value written with letters outside ASCII that is one identity: " (as
 * DNS reads it: FORM)", so a look-alike shows as the other host it is
 * (a Cyrillic "о" in corp.example is xn--...); else "".
 */
static const char *
dns_form(const char *s, size_t len, char *out, size_t outlen)
{
	struct canon_id id;
	size_t i;

	out[0] = '\0';
	for (i = 0; i < len && (unsigned char)s[i] < 0x80; i++)
		;
	memset(&id, 0, sizeof(id));
	if (i < len && canon_whole(s, len, &id) == 1 &&
	    strstr(id.form, "xn--") != NULL &&
	    strlen(id.form) + 32 < outlen)
		snprintf(out, outlen, " (as DNS reads it: %s)", id.form);
	canon_id_clear(&id);
	return out;
}

/*
 * Sets the ask "WHAT PATH=VALUE WHY" if a human can be shown the whole
 * value; else the call is denied, never asked about a value cut short.
 * 1 if it asks.
 */
static int
gate_question(struct gate *g, const char *what, const char *s, size_t len,
    const char *why)
{
	struct value iv = str_view(s, len);
	struct buf *b = buf_new();
	const char *shown;
	char dns[BNC_CANON_HOST_MAX + 128];
	int r = 1;

	if ((shown = show_max(b, gpath(g), &iv, BNC_ASK_SHOW_MAX)) != NULL)
		set(g->d, VERDICT_ASK, "sink_gate", "%s %s %s%s", what, shown,
		    why, dns_form(s, len, dns, sizeof(dns)));
	else {
		set(g->d, VERDICT_DENY, "sink_gate", "%s %.64s (%zu bytes) "
		    "is too long to show a human whole, and is not asked about "
		    "cut short", what, gpath(g), len);
		g->tainted = 1;
		r = 0;
	}
	buf_free(b);
	return r;
}

/* The call asks about s (the first ask's value is what is asked). */
static void
gate_ask(struct gate *g, const char *s, size_t len)
{
	g->have_ask = 1;
	if (g->d->ask_value != NULL)
		return;
	g->d->ask_param = xstrdup(gpath(g));
	g->d->ask_value = xmalloc(len + 1);
	memcpy(g->d->ask_value, s, len);
	g->d->ask_value[len] = '\0';
	g->d->ask_len = len;
}

/* A tainted destination or identity: deny, or ask with `tainted: ask'. */
static void
gate_tainted(struct gate *g, const char *what, const char *s, size_t len,
    enum taint_found found)
{
	struct value iv = str_view(s, len);
	/* a lookup that could not rule it out counts as found */
	const char *how = found == TAINT_FOUND ? "came from untrusted data" :
	    "may have come from untrusted data (the lookup could not rule it "
	    "out)";
	struct buf *b;

	if (g->pol->tainted == TAINTED_DENY) {
		b = buf_new();
		set(g->d, VERDICT_DENY, "sink_gate", "%s %s %s", what,
		    show(b, gpath(g), &iv), how);
		buf_free(b);
		g->tainted = 1;
	} else if (!g->have_ask && gate_question(g, what, s, len, how))
		gate_ask(g, s, len);
}

/* An unproven destination or identity: the first one is asked about. */
static void
gate_unproven(struct gate *g, const char *what, const char *s, size_t len,
    const char *why)
{
	if (!g->have_ask && gate_question(g, what, s, len, why))
		gate_ask(g, s, len);
}

/* What the identities of one text came to: the worst one decides. */
enum id_rank {
	ID_NONE = 0,
	ID_UNPROVEN,		/* looked up, not found */
	ID_DROPPED,		/* not found, but output was dropped */
	ID_UNSURE,		/* the lookup could not rule it out */
	ID_FOUND,		/* in untrusted output */
	ID_OVER,		/* too many to look up: deny */
	ID_ERROR		/* cannot be judged: deny */
};

struct idres {
	struct gate	*g;
	enum id_rank	 rank;
	char		 ident[BNC_TAINT_IDENT_LEN + 1];	/* the worst */
	char		 link[BNC_TAINT_IDENT_LEN + 1];	/* first unproven URL */
};

/* Keeps the worst identity (the first of its rank). */
static void
idres_note(struct idres *res, enum id_rank rank, const char *s, size_t len)
{
	if (rank <= res->rank)
		return;
	res->rank = rank;
	snprintf(res->ident, sizeof(res->ident), "%.*s", (int)len, s);
}

/*
 * One identity a pack's identity_patterns found: trusted, else looked
 * up.  Returns 1 to stop (found: nothing worse can come).
 */
static int
judge_identity(void *arg, const char *s, size_t len)
{
	struct idres *res = arg;
	struct gate *g = res->g;
	enum taint_found f;

	if (g->idents == 0) {
		idres_note(res, ID_OVER, "", 0);
		return 1;
	}
	g->idents--;
	if (is_trusted(g, gpath(g), s, len))
		return 0;
	f = taint_lookup(g->dc->taint, s, len);
	if (f == TAINT_FOUND)
		idres_note(res, ID_FOUND, s, len);
	else if (f == TAINT_UNSURE)
		idres_note(res, ID_UNSURE, s, len);
	else if (taint_strict(g->dc->taint))
		idres_note(res, ID_DROPPED, s, len);
	else
		idres_note(res, ID_UNPROVEN, s, len);
	return res->rank >= ID_FOUND;
}

/* The identities the entry's identity_patterns find in s. */
static void
pattern_identities(struct idres *res, const char *s, size_t len)
{
	int r;

	if (res->rank >= ID_FOUND || res->g->pol->nidpats == 0)
		return;
	r = policy_identities(res->g->pol, s, len, judge_identity, res);
	if (r == -BNC_ERR_TOO_LARGE)
		idres_note(res, ID_OVER, "", 0);
	else if (r < 0)
		idres_note(res, ID_ERROR, "", 0);
}

/* Denies for an identity that could not be judged; 1 if it did. */
static int
idres_fail(struct gate *g, const struct idres *res)
{
	if (res->rank == ID_OVER || ((res->rank == ID_FOUND ||
	    res->rank == ID_UNSURE) && res->ident[0] == '\0'))
		set(g->d, VERDICT_DENY, "sink_gate", "too many addresses in "
		    "one call to check (more than %d)", BNC_SWEPT_IDENTS_MAX);
	else if (res->rank == ID_ERROR)
		set(g->d, VERDICT_DENY, "sink_gate", "the identities in %s "
		    "cannot be judged (the match failed)", gpath(g));
	else
		return 0;
	g->tainted = 1;
	return 1;
}

/*
 * The identities inside a destination that is not one: each mailbox of
 * an address list is judged (trusted ones pass, a tainted one taints,
 * the first unproven is what the human is asked about); in other text,
 * the identities canon_scan finds are looked up.  *list says which.
 */
static void
dest_inner(struct gate *g, struct idres *res, const char *s, size_t len,
    int *list)
{
	struct canon_id *ids = NULL;
	enum taint_found f;
	size_t nids = 0, i;
	int r;

	*list = 0;
	if ((r = canon_addrlist(s, len, BNC_CANON_IDS_MAX, &ids, &nids)) > 1)
		*list = 1;
	else {
		canon_ids_free(ids, nids);
		ids = NULL;
		nids = 0;
		r = canon_scan(s, len, g->idents, &ids, &nids);
		if (r == -BNC_ERR_TOO_LARGE)
			idres_note(res, ID_OVER, "", 0);
		else if (r < 0)
			idres_note(res, ID_ERROR, "", 0);
	}
	for (i = 0; i < nids && res->rank < ID_FOUND; i++) {
		if (g->idents == 0) {
			idres_note(res, ID_OVER, "", 0);
			break;
		}
		g->idents--;
		if (*list && id_trusted(g, &ids[i]))
			continue;
		f = lookup_id(g, s, &ids[i]);
		if (f == TAINT_FOUND)
			idres_note(res, ID_FOUND, s + ids[i].off, ids[i].len);
		else if (f == TAINT_UNSURE)
			idres_note(res, ID_UNSURE, s + ids[i].off, ids[i].len);
		else if (*list)
			idres_note(res, ID_UNPROVEN, s + ids[i].off,
			    ids[i].len);
	}
	canon_ids_free(ids, nids);
}

/*
 * One destination: trusted, else tainted, else unproven.  Compared in
 * canonical form (canon.h): a value that is one identity by its form, an
 * address list mailbox by mailbox; a value servers would read in ways
 * bouncer cannot tell apart (a malformed URL, one too long to judge) is
 * denied.
 */
static void
judge_dest(struct gate *g, const char *s, size_t len)
{
	struct canon_id id;
	enum taint_found found;
	struct idres res;
	struct value iv;
	struct buf *b;
	int r, list = 0;

	if (g->tainted)
		return;
	if (++g->n > BNC_SINK_VALUES_MAX) {
		set(g->d, VERDICT_DENY, "sink_gate", "too many destinations in "
		    "one call (more than %d)", BNC_SINK_VALUES_MAX);
		g->tainted = 1;
		return;
	}
	memset(&id, 0, sizeof(id));
	if ((r = canon_whole(s, len, &id)) < 0) {
		iv = str_view(s, len);
		b = buf_new();
		set(g->d, VERDICT_DENY, "sink_gate", "destination %s is no "
		    "well-formed address (too long, or malformed: servers may "
		    "read it in different ways)", show(b, gpath(g), &iv));
		buf_free(b);
		g->tainted = 1;
		goto out;
	}
	if (is_trusted(g, gpath(g), s, len))
		goto out;
	found = taint_lookup(g->dc->taint, s, len);
	if (r == 1 && found != TAINT_FOUND) {
		/* the span is the trimmed value: the whole, looked up above */
		id.off = 0;
		id.len = len;
		found = worse(found, lookup_id(g, s, &id));
	}
	if (found != TAINT_ABSENT) {
		gate_tainted(g, "destination", s, len, found);
		goto out;
	}
	memset(&res, 0, sizeof(res));
	res.g = g;
	if (r == 0)
		dest_inner(g, &res, s, len, &list);
	/* an account a pack names, inside a longer destination */
	pattern_identities(&res, s, len);
	if (idres_fail(g, &res))
		goto out;
	if (res.rank == ID_FOUND || res.rank == ID_UNSURE)
		gate_tainted(g, "an address in destination", res.ident,
		    strlen(res.ident), res.rank == ID_FOUND ? TAINT_FOUND :
		    TAINT_UNSURE);
	else if (list && res.rank == ID_UNPROVEN)
		gate_unproven(g, "an address in destination", res.ident,
		    strlen(res.ident), "is not a vouched recipient");
	else if (!list)
		gate_unproven(g, "destination", s, len,
		    "is not a vouched recipient");
 out:
	canon_id_clear(&id);
}

/*
 * The length of the line break at s (CR, LF, VT, FF, NEL, U+2028,
 * U+2029: what one mail library or another splits header lines at), or
 * 0 if there is none.
 */
static size_t
line_break(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	if (u[0] == '\r' || u[0] == '\n' || u[0] == '\v' || u[0] == '\f')
		return 1;
	if (len >= 2 && u[0] == 0xc2 && u[1] == 0x85)
		return 2;
	if (len >= 3 && u[0] == 0xe2 && u[1] == 0x80 &&
	    (u[2] == 0xa8 || u[2] == 0xa9))
		return 3;
	return 0;
}

static int
has_lines(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (line_break(s + i, len - i) != 0)
			return 1;
	return 0;
}

/* JSON text inside a string (a server may decode it: DESIGN 5)? */
static int
looks_json(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' ||
	    s[i] == '\n'))
		i++;
	return i < len && (s[i] == '{' || s[i] == '[');
}

/* Each line of text with a line break is a destination of its own. */
static void
judge_lines(struct gate *g, const char *s, size_t len)
{
	size_t i = 0, e, k;

	while (i < len && !g->tainted) {
		for (e = i; e < len && (k = line_break(s + e, len - e)) == 0;
		    e++)
			;
		if (e > i)
			judge_dest(g, s + i, e - i);
		i = e + (e < len ? k : 1);
	}
}

/* An identity canon_scan found, as the taint index normalises it. */
struct seen {
	char	*nspan;		/* its text as written, normalised */
	char	*nform;		/* its form, normalised */
	int	 trusted;
};

struct pass_ctx {
	const struct gate	*g;
	struct seen		*seen;
	size_t			 nseen;
	char			 first[BNC_TAINT_IDENT_LEN + 1];
};

static char *
normalised(const char *s, size_t len)
{
	char *n = xmalloc(len + 1);

	n[taint_normalise(s, len, n)] = '\0';
	return n;
}

/*
 * An identity of the normalised text (the index's own scanner).  One
 * that canon_scan also found in the text as written was judged there: it
 * passes if that one was trusted, and is never asked about twice (the
 * normalised text has lost the case an approval is keyed by).  Another
 * (an address spelt with fullwidth or invisible characters) is trusted
 * only by the policy; the first untrusted one is kept.
 */
static int
pass_trusted(void *arg, const char *s, size_t len)
{
	struct pass_ctx *pc = arg;
	size_t i;

	for (i = 0; i < pc->nseen; i++)
		if ((strlen(pc->seen[i].nspan) == len &&
		    memcmp(pc->seen[i].nspan, s, len) == 0) ||
		    (strlen(pc->seen[i].nform) == len &&
		    memcmp(pc->seen[i].nform, s, len) == 0))
			return pc->seen[i].trusted;
	if (is_trusted(pc->g, gpath(pc->g), s, len))
		return 1;
	if (pc->first[0] == '\0')
		snprintf(pc->first, sizeof(pc->first), "%.*s", (int)len, s);
	return 0;
}

/*
 * The identities canon_scan finds in text: trusted ones pass (on their
 * canonical form), the others are looked up as written and by form.
 * Each is noted in pc for the normalised scan.
 */
static void
text_identities(struct gate *g, struct idres *res, struct pass_ctx *pc,
    const char *s, size_t len)
{
	struct canon_id *ids = NULL;
	struct seen *sn;
	enum taint_found f;
	size_t nids = 0, i;
	int r;

	r = canon_scan(s, len, g->idents, &ids, &nids);
	if (r == -BNC_ERR_TOO_LARGE)
		idres_note(res, ID_OVER, "", 0);
	else if (r < 0)
		idres_note(res, ID_ERROR, "", 0);
	g->idents -= nids < g->idents ? nids : g->idents;
	pc->seen = xcalloc(nids + 1, sizeof(*pc->seen));
	for (i = 0; i < nids; i++) {
		sn = &pc->seen[pc->nseen++];
		sn->nspan = normalised(s + ids[i].off, ids[i].len);
		sn->nform = normalised(ids[i].form, strlen(ids[i].form));
		if ((sn->trusted = id_trusted(g, &ids[i])) ||
		    res->rank >= ID_FOUND)
			continue;
		f = lookup_id(g, s, &ids[i]);
		if (f == TAINT_FOUND)
			idres_note(res, ID_FOUND, s + ids[i].off, ids[i].len);
		else if (f == TAINT_UNSURE)
			idres_note(res, ID_UNSURE, s + ids[i].off, ids[i].len);
		else if (taint_strict(g->dc->taint))
			idres_note(res, ID_DROPPED, s + ids[i].off,
			    ids[i].len);
		else {
			idres_note(res, ID_UNPROVEN, s + ids[i].off,
			    ids[i].len);
			if (ids[i].kind == CANON_URL && res->link[0] == '\0')
				snprintf(res->link, sizeof(res->link), "%.*s",
				    (int)ids[i].len, s + ids[i].off);
		}
	}
	canon_ids_free(ids, nids);
}

static void
pass_ctx_free(struct pass_ctx *pc)
{
	size_t i;

	for (i = 0; i < pc->nseen; i++) {
		free(pc->seen[i].nspan);
		free(pc->seen[i].nform);
	}
	free(pc->seen);
}

/*
 * Text judged by the destination identities in it: those canon_scan
 * finds (mailboxes in any spelling, URLs, scheme addresses, +E.164
 * phones, IBANs), those the taint index's own scanner finds in the
 * normalised text (an address spelt with fullwidth or invisible
 * characters), and what the entry's identity_patterns find.  Each is
 * trusted or else looked up: a tainted one denies (or asks, with
 * `tainted: ask').  Swept text asks about its first unproven identity;
 * scanned text does not (it is what a message says, not where it goes)
 * until the taint index has dropped output: an identity not found may
 * have been in what was dropped (DESIGN 5: the gate then gets
 * stricter).  The reason shows the identity as written, never the rest
 * of the text.
 */
static void
judge_idents(struct gate *g, const char *s, size_t len, enum gmode mode)
{
	static const enum id_rank ranks[] = {
		[TAINT_ABSENT] = ID_NONE, [TAINT_FOUND] = ID_FOUND,
		[TAINT_UNSURE] = ID_UNSURE, [TAINT_DROPPED] = ID_DROPPED,
	};
	struct idres res, norm;
	struct pass_ctx pc;
	enum taint_found r;
	const char *what = mode == G_SWEEP ? "an address in swept argument" :
	    mode == G_HEADERS ? "an address in header" :
	    "an address in argument";
	int ask = mode == G_SWEEP || mode == G_HEADERS || mode == G_ASK;

	if (g->tainted)
		return;
	if (++g->nswept > BNC_SWEPT_VALUES_MAX) {
		set(g->d, VERDICT_DENY, "sink_gate", "too many values to check "
		    "in one call (more than %d)", BNC_SWEPT_VALUES_MAX);
		g->tainted = 1;
		return;
	}
	memset(&res, 0, sizeof(res));
	memset(&pc, 0, sizeof(pc));
	res.g = g;
	pc.g = g;
	text_identities(g, &res, &pc, s, len);
	if (res.rank < ID_FOUND) {
		memset(&norm, 0, sizeof(norm));
		r = taint_lookup_idents(g->dc->taint, s, len, pass_trusted,
		    &pc, &g->idents, norm.ident, sizeof(norm.ident));
		/* what only the normalised text shows counts as well */
		if (ranks[r] > res.rank)
			idres_note(&res, ranks[r], norm.ident,
			    strlen(norm.ident));
		if (res.rank == ID_NONE && pc.first[0] != '\0')
			idres_note(&res, ID_UNPROVEN, pc.first,
			    strlen(pc.first));
	}
	pass_ctx_free(&pc);
	pattern_identities(&res, s, len);
	if (idres_fail(g, &res))
		return;
	if (res.rank == ID_FOUND || res.rank == ID_UNSURE)
		gate_tainted(g, what, res.ident, strlen(res.ident),
		    res.rank == ID_FOUND ? TAINT_FOUND : TAINT_UNSURE);
	else if (res.rank == ID_DROPPED || (ask &&
	    res.rank == ID_UNPROVEN)) {
		if (!g->have_ask)
			g->asked++;
		gate_unproven(g, what, res.ident, strlen(res.ident),
		    res.rank == ID_DROPPED ? "may have come from output the "
		    "session no longer holds (the taint index dropped its "
		    "oldest output)" : "is not a vouched recipient");
	} else if (g->links && res.link[0] != '\0') {
		if (!g->have_ask)
			g->asked++;
		gate_unproven(g, "a link in argument", res.link,
		    strlen(res.link), "is not a vouched destination (whoever "
		    "receives the message may have it fetched)");
	}
}

/* One scalar, as its mode has it. */
static void
judge_scalar(struct gate *g, const struct value *v, enum gmode mode)
{
	struct buf *b = g->tmp;
	const char *s;
	size_t len;

	if (g->tainted)
		return;
	if (v->type != V_STRING && mode != G_SINK)
		return;		/* numbers and booleans name no identity */
	if (v->type == V_STRING && v->u.s.len == 0)
		return;		/* nor does the empty string */
	buf_reset(b);
	if (scalar_text(b, v) != 0 || buf_put_u8(b, '\0') != 0) {
		set(g->d, VERDICT_DENY, "sink_gate", "destination %s cannot "
		    "be judged", gpath(g));
		g->tainted = 1;
		return;
	}
	s = (const char *)buf_ptr(b);
	len = buf_len(b) - 1;
	if ((mode == G_SINK || mode == G_HEADER) && has_lines(s, len))
		judge_lines(g, s, len);
	else if (mode == G_SINK)
		judge_dest(g, s, len);
	else if ((mode == G_SCAN || mode == G_HEADER) && looks_json(s, len))
		/* what it nests is unknown: each address may be a cc */
		judge_idents(g, s, len, G_ASK);
	else
		judge_idents(g, s, len, mode == G_HEADER ? G_SCAN : mode);
}

/* Absent, null, or an empty list, object or string. */
static int
is_empty(const struct value *v)
{
	return v == NULL || v->type == V_NULL ||
	    (v->type == V_ARRAY && v->u.a.n == 0) ||
	    (v->type == V_OBJECT && v->u.o.n == 0) ||
	    (v->type == V_STRING && v->u.s.len == 0);
}

/*
 * The mode of a member named key inside a value of mode outer: its name
 * makes it a destination or header-like at any depth (a Bcc inside
 * headers); else it keeps its container's mode.
 */
static enum gmode
member_mode(const char *key, enum gmode outer)
{
	int c = heuristics_name_class(key);

	if (c & NAME_SINK)
		return G_SINK;
	if (c & NAME_HEADERS)
		return G_HEADERS;
	if (c & NAME_HEADER)
		return G_HEADER;
	return outer;
}

/*
 * A key of a destination object that names a field (to, email, name,
 * type) rather than being a destination itself: a plain word, and one a
 * record of a person or a header would have.  Anything else (an
 * address, a URL, "to.x@evil.example") is a destination.
 */
static int
is_field_name(const char *key)
{
	static const char *const fields[] = {
		"name", "display_name", "displayname", "first_name",
		"last_name", "full_name", "title", "type", "kind", "label",
		"role", "id", "value",
	};
	char low[64];
	size_t i, n = strlen(key);

	if (n == 0 || n >= sizeof(low) ||
	    !((key[0] >= 'A' && key[0] <= 'Z') ||
	    (key[0] >= 'a' && key[0] <= 'z')))
		return 0;
	for (i = 0; i < n; i++) {
		if (!((key[i] >= 'A' && key[i] <= 'Z') ||
		    (key[i] >= 'a' && key[i] <= 'z') ||
		    (key[i] >= '0' && key[i] <= '9') || key[i] == '_' ||
		    key[i] == '-'))
			return 0;
		low[i] = key[i] >= 'A' && key[i] <= 'Z' ?
		    (char)(key[i] - 'A' + 'a') : key[i];
	}
	low[n] = '\0';
	if (heuristics_name_class(key) != 0)
		return 1;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strcmp(low, fields[i]) == 0)
			return 1;
	return 0;
}


/*
 * Lists and objects are judged element by element, keys and values.  In
 * a destination, a key is a destination too, unless it names one (a
 * "Bcc" key holds destinations; it is not one).
 */
static void
walk(struct gate *g, const struct value *v, enum gmode mode)
{
	const struct member *m;
	struct value key;
	size_t i, plen;
	enum gmode inner;

	if (g->tainted)
		return;
	switch (v->type) {
	case V_NULL:
		return;
	case V_ARRAY:
		for (i = 0; i < v->u.a.n && !g->tainted; i++)
			walk(g, v->u.a.v[i], mode);
		return;
	case V_OBJECT:
		for (i = 0; i < v->u.o.n && !g->tainted; i++) {
			m = &v->u.o.m[i];
			key = str_view(m->key, m->klen);
			inner = member_mode(m->key, mode);
			if (mode != G_SINK || !is_field_name(m->key))
				judge_scalar(g, &key, mode);
			if (inner == G_SINK && mode != G_SINK &&
			    !is_empty(m->val))
				sink_note(g->d, g->top);
			plen = path_push(g, m->key, m->klen);
			walk(g, m->val, inner);
			path_pop(g, plen);
		}
		return;
	default:
		judge_scalar(g, v, mode);
	}
}
/* Does v hold a non-empty string at some depth ([null], [[]], [{}] do
 * not)?  Object keys count: {"alice@corp.example": ...} is filled. */
static int
is_filled(const struct value *v, int depth)
{
	size_t i;

	if (v == NULL || depth > BNC_VALUE_DEPTH_MAX)
		return 0;
	switch (v->type) {
	case V_STRING:
		return v->u.s.len > 0;
	case V_ARRAY:
		for (i = 0; i < v->u.a.n; i++)
			if (is_filled(v->u.a.v[i], depth + 1))
				return 1;
		return 0;
	case V_OBJECT:
		for (i = 0; i < v->u.o.n; i++)
			if (v->u.o.m[i].klen > 0 ||
			    is_filled(v->u.o.m[i].val, depth + 1))
				return 1;
		return 0;
	default:
		return 0;
	}
}

/* The member of object o named key, or NULL. */
static const struct member *
member_of(const struct value *o, const char *key)
{
	size_t i;

	for (i = 0; i < o->u.o.n; i++)
		if (strcmp(o->u.o.m[i].key, key) == 0)
			return &o->u.o.m[i];
	return NULL;
}

static int
is_declared(const struct tool_policy *pol, const char *name)
{
	size_t i;

	for (i = 0; i < pol->nsink; i++)
		if (strcmp(pol->sink_params[i], name) == 0)
			return 1;
	return 0;
}

/* Judges one argument in mode; destination arguments are noted. */
static void
gate_arg(struct gate *g, const struct member *m, enum gmode mode)
{
	size_t old;

	if (mode == G_SINK && !is_empty(m->val))
		sink_note(g->d, m->key);
	g->top = m->key;
	old = path_push(g, m->key, m->klen);
	walk(g, m->val, mode);
	path_pop(g, old);
}

/*
 * 5. The sink gate (DESIGN 5), over every argument of an exfiltrating
 * tool.  The declared sinks are destinations; so is every argument, at
 * any depth, whose name is destination-shaped (heuristics_name_class).  If
 * no declared sink holds a non-empty string (or none is declared), every
 * other argument is swept: judged by the identities in it.  Otherwise the
 * others are scanned: a tainted identity anywhere denies.  Seed bugs 13
 * and 19.2 do not come back, nor do sinks that look filled but hold
 * nothing ([null], [[]], [{}]).
 */
static void
sink_gate(struct decide_ctx *dc, const char *tool,
    const struct tool_policy *pol, const struct value *args, struct decision *d)
{
	struct gate g;
	const struct member *m;
	size_t i, present = 0;
	enum gmode mode;
	int c;

	if (args->u.o.n > BNC_SWEEP_ARGS_MAX) {
		set(d, VERDICT_DENY, "sink_gate", "too many arguments to judge "
		    "(more than %d)", BNC_SWEEP_ARGS_MAX);
		return;
	}
	memset(&g, 0, sizeof(g));
	g.dc = dc;
	g.tool = tool;
	g.pol = pol;
	g.d = d;
	g.idents = BNC_SWEPT_IDENTS_MAX;
	g.tmp = buf_new();
	/* what an exfiltrating tool sends is read where it arrives: a
	 * mail client loads its images, a chat unfurls its links */
	g.links = 1;
	for (i = 0; i < pol->nsink; i++)
		if (is_filled(value_get(args, pol->sink_params[i]), 0))
			present++;
	/* the declared sinks first, in the policy's order */
	for (i = 0; i < pol->nsink && !g.tainted; i++)
		if ((m = member_of(args, pol->sink_params[i])) != NULL)
			gate_arg(&g, m, G_SINK);
	for (i = 0; i < args->u.o.n && !g.tainted; i++) {
		m = &args->u.o.m[i];
		if (is_declared(pol, m->key))
			continue;
		c = heuristics_name_class(m->key);
		if (c & NAME_SINK)
			mode = G_SINK;
		else if (c & NAME_HEADERS)
			mode = G_HEADERS;
		else if (c & NAME_HEADER)
			mode = G_HEADER;
		else
			mode = present > 0 ? G_SCAN : G_SWEEP;
		gate_arg(&g, m, mode);
	}
	d->dests = g.n + g.asked;
	buf_free(g.tmp);
	free(g.path);
	if (g.tainted) {
		free(d->ask_param);
		free(d->ask_value);
		d->ask_param = d->ask_value = NULL;
	}
}

/*
 * 4a. An argument the pinned input schema does not declare reaches the
 * server unjudged by its author's contract: denied, unless the entry says
 * extra_args: allow.  Names are read through $ref and composition
 * (schema.c); what could not be read declares nothing more.
 */
static int
check_declared(const struct tool_entry *e, const struct tool_policy *pol,
    const struct value *args, struct decision *d)
{
	struct schema_props props;
	struct buf *b;
	size_t i;
	int denied = 0;

	if (pol->extra_args || args->u.o.n == 0)
		return 0;
	schema_props_get(value_get(e->pin->def, "inputSchema"), &props);
	for (i = 0; i < args->u.o.n && !denied; i++) {
		if (schema_props_has(&props, args->u.o.m[i].key))
			continue;
		b = buf_new();
		repr(b, args->u.o.m[i].key, args->u.o.m[i].klen);
		buf_put_u8(b, '\0');
		set(d, VERDICT_DENY, "constraint", "argument %s is not in the "
		    "tool's input schema", (const char *)buf_ptr(b));
		buf_free(b);
		denied = 1;
	}
	schema_props_free(&props);
	return denied;
}

/*
 * approval: signed.  An elicitation answer is only as trustworthy as the
 * client worker that parses it and the client application together (a
 * hijacked parser can declare elicitation and accept every question), so
 * such a tool's asks never go to the client: they wait for a signed
 * out-of-band approval (gate.c), which comes from the admin's key
 * through the database, never through the client.
 */
static void
require_signed(const struct tool_policy *pol, struct decision *d)
{
	char reason[BNC_REASON_MAX];

	if (pol == NULL || pol->approval != APPROVAL_SIGNED ||
	    d->verdict != VERDICT_ASK)
		return;
	snprintf(reason, sizeof(reason), "%.*s; needs a signed approval",
	    (int)utf8_cut(d->reason, strlen(d->reason), BNC_REASON_MAX - 64),
	    d->reason);
	set(d, VERDICT_ASK, d->contract, "%s", reason);
	d->ask_signed = 1;
}

/*
 * An approval the admin signed for this exact call (its canonical
 * arguments, DESIGN 7) answers every question the call would ask, and
 * this call only: nothing is remembered for the session.
 */
static void
signed_call(int flags, struct decision *d)
{
	if (!(flags & DECIDE_SIGNED_CALL) || d->verdict != VERDICT_ASK)
		return;
	d->verdict = VERDICT_ALLOW;
	d->ask_signed = 0;
	d->ask_once = 0;
	/* an allow says nothing else; gate.c names the approval */
	d->reason[0] = '\0';
}

static void decide_tool(struct decide_ctx *, const char *,
    const struct tool_entry *, const struct value *, const struct value *,
    int, struct decision *, const struct tool_policy **);
static void scan_gate(struct decide_ctx *, const char *,
    const struct tool_policy *, const struct value *, struct decision *);
static int check_consent(struct decide_ctx *, const char *,
    const struct tool_policy *, const struct value *, struct decision *);

int
decide_budget(struct decide_ctx *dc, const char *name, long long max,
    int flags, struct decision *d)
{
	struct budget *bg;
	struct buf *b;

	if (max < 0 || !(flags & DECIDE_COUNT_BUDGET))
		return 0;
	if ((bg = budget_slot(dc, name)) == NULL) {
		set(d, VERDICT_DENY, "budget", "too many budgets");
		return 1;
	}
	if (++bg->count > max) {
		b = buf_new();
		repr(b, name, strlen(name));
		buf_put_u8(b, '\0');
		set(d, VERDICT_DENY, "budget", "call budget %lld for %s "
		    "exceeded", max, (const char *)buf_ptr(b));
		buf_free(b);
		return 1;
	}
	return 0;
}

void
decide_call(struct decide_ctx *dc, const char *name,
    const struct tool_entry *e, const struct value *args, int flags,
    struct decision *d)
{
	const struct tool_policy *pol = NULL;
	struct value view;
	struct member *mv = NULL;
	size_t i, n = 0;

	/*
	 * What a consent-gated tool's other checks see: its arguments
	 * without the token, which is bouncer's and never the upstream's
	 * (a view borrowing the members; nothing is copied).
	 */
	memset(&view, 0, sizeof(view));
	if (value_is(args, V_OBJECT) &&
	    value_get(args, POLICY_CONSENT_PARAM) != NULL) {
		mv = xcalloc(args->u.o.n, sizeof(*mv));
		for (i = 0; i < args->u.o.n; i++)
			if (strcmp(args->u.o.m[i].key,
			    POLICY_CONSENT_PARAM) != 0)
				mv[n++] = args->u.o.m[i];
		view.type = V_OBJECT;
		view.u.o.m = mv;
		view.u.o.n = view.u.o.cap = n;
	}
	decide_tool(dc, name, e, args, mv != NULL ? &view : NULL, flags, d,
	    &pol);
	free(mv);
	require_signed(pol, d);
	signed_call(flags, d);
}

/*
 * A consent-gated tool (DESIGN 5, 7): the call carries a token that a
 * trusted key signed for this agent, this tool (the name the client
 * calls), the canonical JSON of the target arguments and the SHA-256 of
 * the text argument, and that has not expired.  Its nonce is consumed
 * later, by the allow row (gate.c, audit.c): a replay is refused there.
 * 0, or 1 with the deny set, its reason the check that failed.
 */
static int
check_consent(struct decide_ctx *dc, const char *name,
    const struct tool_policy *pol, const struct value *args,
    struct decision *d)
{
	const struct value *tok, *text, *t;
	struct value *target;
	struct buf *b;
	size_t i;
	int r;

	tok = value_get(args, POLICY_CONSENT_PARAM);
	if (!value_is(tok, V_STRING)) {
		set(d, VERDICT_DENY, "consent", "tool '%.128s' needs a "
		    "signed consent token (%s) for its %s", name,
		    POLICY_CONSENT_PARAM, pol->consent_text);
		return 1;
	}
	text = value_get(args, pol->consent_text);
	if (!value_is(text, V_STRING)) {
		set(d, VERDICT_DENY, "consent", "argument '%.64s', the text "
		    "consented to, is missing or not a string",
		    pol->consent_text);
		return 1;
	}
	target = value_object();
	for (i = 0; i < pol->nconsent_target; i++) {
		if ((t = value_get(args, pol->consent_target[i])) == NULL) {
			value_free(target);
			set(d, VERDICT_DENY, "consent", "target argument "
			    "'%.64s' is missing", pol->consent_target[i]);
			return 1;
		}
		value_object_put(target, pol->consent_target[i],
		    value_dup(t));
	}
	b = buf_new();
	r = value_render_canonical(b, target);
	value_free(target);
	if (r != 0 || buf_len(b) > BNC_CONSENT_TARGET_MAX) {
		buf_free(b);
		set(d, VERDICT_DENY, "consent", "the target arguments are "
		    "over %d bytes as canonical JSON", BNC_CONSENT_TARGET_MAX);
		return 1;
	}
	buf_put_u8(b, '\0');
	r = decide_consent(dc, name, (const char *)buf_ptr(b), text,
	    tok->u.s.p, tok->u.s.len, d);
	buf_free(b);
	if (r == 0)
		d->strip_consent = 1;
	return r;
}

int
decide_consent(struct decide_ctx *dc, const char *tool, const char *target,
    const struct value *text, const char *token, size_t toklen,
    struct decision *d)
{
	struct consent_want w;
	struct consent c;
	uint8_t h[crypto_hash_sha256_BYTES];
	const char *why;

	crypto_hash_sha256(h, (const uint8_t *)text->u.s.p, text->u.s.len);
	memset(&w, 0, sizeof(w));
	w.agent = dc->agent_id != NULL ? dc->agent_id : "-";
	w.tool = tool;
	w.target = target;
	w.text_sha256 = h;
	w.now = (int64_t)time(NULL);
	w.skew = dc->consent_skew;
	w.max_ttl = dc->consent_max_ttl;
	if (consent_check(token, toklen, dc->consent_keys, &w, &c,
	    &why) != 0) {
		set(d, VERDICT_DENY, "consent", "consent token refused: %s",
		    why);
		return 1;
	}
	sodium_bin2hex(d->nonce, sizeof(d->nonce), c.nonce, sizeof(c.nonce));
	return 0;
}

/*
 * A tool that neither the user's policy nor a pack has an entry for:
 * its entry is the heuristics' reading of its schema, or none.
 */
static int
undescribed(const struct tool_policy *pol)
{
	return pol->file == NULL;
}

static void
decide_tool(struct decide_ctx *dc, const char *name,
    const struct tool_entry *e, const struct value *args,
    const struct value *view, int flags, struct decision *d,
    const struct tool_policy **polp)
{
	const struct tool_policy *pol;
	const struct value *schema;
	const char *why;
	long long max, amax;
	size_t i;

	memset(d, 0, sizeof(*d));

	/*
	 * 1. grant: a registered agent calls only what its grant names
	 * (DESIGN 6), and nobody a name in the forbidden set, whether an
	 * upstream offers it or not; 2. pinning: only tools recorded at
	 * start-up.  The grant comes first, so that a name is denied for
	 * the same reason (contract) whether or not it is pinned.
	 */
	if (dc->agent != NULL && !registry_grants(dc->agent, name)) {
		set(d, VERDICT_DENY, "grant", "tool '%.128s' is not in the "
		    "grant of agent %s (tier %s)", name, dc->agent->id,
		    registry_tier_name(dc->agent->tier));
		return;
	}
	if (e != NULL && e->withheld != NULL) {
		set(d, VERDICT_DENY, "grant", "%s", e->withheld);
		return;
	}
	if (e != NULL ? e->forbidden :
	    policy_forbidden(dc->policy, NULL, name)) {
		set(d, VERDICT_DENY, "grant", "tool '%.128s' is in the "
		    "forbidden write set", name);
		return;
	}
	if (e == NULL) {
		set(d, VERDICT_DENY, "pinning",
		    "unknown tool (not pinned at startup)");
		return;
	}
	if (!e->visible) {
		set(d, VERDICT_DENY, "pinning", "tool '%.128s' changed since "
		    "it was pinned; withheld until re-pinned", name);
		return;
	}
	/* before the budget: a call its upstream cannot take costs none */
	if ((why = decide_unreachable(e->up)) != NULL) {
		set(d, VERDICT_DENY, "default", "upstream \"%.64s\" %s",
		    e->up->name, why);
		return;
	}
	schema = value_get(e->pin->def, "inputSchema");
	pol = *polp = policy_for(dc->policy, e->up->name, e->pin->name,
	    schema);
	/* the registry checked a T0 grant by name; the entry that decides
	 * for this upstream's tool must mark it read-only too */
	if (dc->agent != NULL && dc->agent->tier == REGISTRY_T0 &&
	    !pol->read_only) {
		set(d, VERDICT_DENY, "grant", "tool '%.128s' of upstream "
		    "%.64s is not read-only by the policy, and agent %s is "
		    "tier T0", name, e->up->name, dc->agent->id);
		return;
	}
	for (i = 0; i < pol->nsink; i++)
		sink_note(d, pol->sink_params[i]);

	/* 3. budget: attempts count, re-evaluations do not; the policy's
	 * and the agent's registry entry's, whichever is smaller */
	max = pol->max_calls;
	if (dc->agent != NULL && (amax = registry_budget(dc->agent,
	    name)) >= 0 && (max < 0 || amax < max))
		max = amax;
	if (decide_budget(dc, name, max, flags, d))
		return;
	/* 3b. consent: a human signed this exact text for this target;
	 * everything after sees the arguments without the token */
	if (pol->consent_text != NULL) {
		if (check_consent(dc, name, pol, args, d))
			return;
		if (view != NULL)
			args = view;
	}
	if (args != NULL && args->type != V_OBJECT) {
		set(d, VERDICT_DENY, "constraint", "arguments are not an "
		    "object");
		return;
	}

	/* 4. constraints: declared arguments, paths, patterns */
	if (args != NULL && (check_declared(e, pol, args, d) ||
	    check_constraints(dc, e, pol, args, d)))
		return;

	/* 5. sink gate */
	if (pol->exfiltrating) {
		if (args == NULL || args->u.o.n == 0) {
			if (!(flags & DECIDE_CONFIRMED)) {
				set(d, VERDICT_ASK, "sink_gate", "tool '%.128s' "
				    "sends data but the call has no arguments "
				    "to check", name);
				d->ask_once = 1;
				return;
			}
		} else {
			sink_gate(dc, name, pol, args, d);
			if (d->verdict != 0)
				return;
		}
	} else if (args != NULL && args->u.o.n > 0 && undescribed(pol)) {
		/*
		 * Nobody described this tool: the heuristics read only
		 * parameter names, and a name says nothing of where a
		 * value goes.  Its arguments are scanned as a prompt's are:
		 * an identity from untrusted output in any of them denies.
		 */
		scan_gate(dc, name, pol, args, d);
		if (d->verdict != 0)
			return;
	}

	/* confirm: true asks a human on every call */
	if (pol->confirm && !(flags & DECIDE_CONFIRMED)) {
		set(d, VERDICT_ASK, "default", "tool '%.128s' needs a human's "
		    "confirmation for every call", name);
		d->ask_once = 1;
		return;
	}
	set(d, VERDICT_ALLOW, "default", "%s", "");
}

/*
 * Says once that the index dropped its oldest output: from then on an
 * address in swept content that is not found is asked about.
 */
static void
recorded(struct decide_ctx *dc)
{
	if (dc->taint_dropped || !taint_strict(dc->taint))
		return;
	dc->taint_dropped = 1;
	logit("session %s: the taint index no longer holds all untrusted "
	    "output (its cap of %zu bytes was passed, or the canonical forms "
	    "of one output's addresses could not all be recorded); addresses "
	    "in scanned arguments that are not found are now asked about",
	    dc->sid, taint_retained(dc->taint));
}

/*
 * Everything an upstream returns is untrusted, shared by all upstreams
 * of the session: text blocks, resource contents, structuredContent as
 * decoded values (never escaped JSON text), every key and type, blobs
 * and image or audio data (decoded too when they are UTF-8 text), error
 * texts and error data.  A tool whose policy says taint_source: false
 * is a trusted directory.
 */
void
decide_result(struct decide_ctx *dc, const struct tool_entry *e,
    const struct value *result)
{
	const struct tool_policy *pol;

	if (result == NULL)
		return;
	if (e != NULL) {
		pol = policy_for(dc->policy, e->up->name, e->pin->name,
		    value_get(e->pin->def, "inputSchema"));
		if (!pol->taint_source)
			return;
	}
	taint_add_result(dc->taint, result);
	recorded(dc);
}

void
decide_error_text(struct decide_ctx *dc, const char *text)
{
	if (text != NULL)
		taint_add_text(dc->taint, text, strlen(text));
	recorded(dc);
}

/*
 * Upstream output that is no tool result but reaches the client all the
 * same (log messages, progress messages, the questions and prompts of
 * requests relayed to the client) is untrusted output too.
 */
void
decide_record_output(struct decide_ctx *dc, const struct value *v)
{
	if (v != NULL)
		taint_add_value(dc->taint, v);
	recorded(dc);
}

/*
 * Requests that name a prompt or a resource rather than a tool (DESIGN 5,
 * "Not only tools/call"; bouncer-policy(5), PROMPTS AND RESOURCES).  They
 * run the same gauntlet as a call, with the sink gate's judging functions
 * above; what differs is said where it differs.
 */

void
request_clear(struct request *r)
{
	free(r->templates);
	value_free(r->args);
	free(r->key);
	memset(r, 0, sizeof(*r));
}

static int
req_is_prompt(const struct request *r)
{
	return r->kind == REQ_PROMPT || r->kind == REQ_COMPLETE_PROMPT;
}

static int
req_is_completion(const struct request *r)
{
	return r->kind == REQ_COMPLETE_PROMPT ||
	    r->kind == REQ_COMPLETE_RESOURCE;
}

/*
 * Only a read, a subscription and a get spend budget and ask for a
 * confirmation: an unsubscription ends what was allowed, and a
 * completion only suggests values for a request that is judged itself.
 */
static int
req_counts(const struct request *r)
{
	return r->kind == REQ_PROMPT || (r->kind == REQ_RESOURCE &&
	    strcmp(r->method, "resources/unsubscribe") != 0);
}

/* The sink gate's state for one request, as sink_gate sets it up. */
static void
req_gate_init(struct gate *g, struct decide_ctx *dc, const char *key,
    const struct tool_policy *pol, struct decision *d)
{
	memset(g, 0, sizeof(*g));
	g->dc = dc;
	g->tool = key;
	g->pol = pol;
	g->d = d;
	g->idents = BNC_SWEPT_IDENTS_MAX;
	g->tmp = buf_new();
}

static void
req_gate_done(struct gate *g)
{
	buf_free(g->tmp);
	free(g->path);
	if (g->tainted) {
		free(g->d->ask_param);
		free(g->d->ask_value);
		g->d->ask_param = g->d->ask_value = NULL;
	}
}

/*
 * The sink gate's scanning mode, for a prompt's arguments (or a
 * completion's values) whose entry does not say exfiltrating: true:
 * declared sinks and destination-shaped names are destinations as in a
 * tool (trusted, else tainted: deny, else unproven: ask), header-like
 * names header-like, and everything else is scanned: a destination
 * identity in it that came from untrusted output denies, an unproven
 * one passes.
 */
static void
scan_gate(struct decide_ctx *dc, const char *key,
    const struct tool_policy *pol, const struct value *args, struct decision *d)
{
	struct gate g;
	const struct member *m;
	enum gmode mode;
	size_t i;
	int c;

	if (args->u.o.n > BNC_SWEEP_ARGS_MAX) {
		set(d, VERDICT_DENY, "sink_gate", "too many arguments to judge "
		    "(more than %d)", BNC_SWEEP_ARGS_MAX);
		return;
	}
	req_gate_init(&g, dc, key, pol, d);
	for (i = 0; i < args->u.o.n && !g.tainted; i++) {
		m = &args->u.o.m[i];
		c = heuristics_name_class(m->key);
		if (is_declared(pol, m->key) || (c & NAME_SINK))
			mode = G_SINK;
		else if (c & NAME_HEADERS)
			mode = G_HEADERS;
		else if (c & NAME_HEADER)
			mode = G_HEADER;
		else
			mode = G_SCAN;
		gate_arg(&g, m, mode);
	}
	d->dests = g.n + g.asked;
	req_gate_done(&g);
}

/* The identities of a template's own text, or of a URI. */
struct idlist {
	char	**v;
	size_t	  n;
};

static int
idlist_add(void *arg, const char *s, size_t len)
{
	struct idlist *l = arg;

	/* an identity is trusted as an exact value: a '*' would glob */
	if (memchr(s, '*', len) == NULL && l->n < BNC_POLICY_LIST_MAX) {
		l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
		l->v[l->n++] = xstrndup(s, len);
	}
	return 1;		/* passed over: nothing is looked up */
}

static void
idlist_of(struct idlist *l, const struct taint *t, const char *s)
{
	size_t budget = BNC_SWEPT_IDENTS_MAX;

	taint_lookup_idents(t, s, strlen(s), idlist_add, l, &budget, NULL, 0);
}

static void
idlist_free(struct idlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/*
 * Decodes the percent-escapes of s in place (a "%00" stays: a C string
 * cannot hold it); 1 if anything changed.
 */
static int
pct_decode(char *s)
{
	static const char hex[] = "0123456789abcdef0123456789ABCDEF";
	const char *h, *l;
	char *w = s;
	int changed = 0;

	for (; *s != '\0'; s++) {
		if (s[0] == '%' && s[1] != '\0' && s[2] != '\0' &&
		    (h = strchr(hex, s[1])) != NULL &&
		    (l = strchr(hex, s[2])) != NULL &&
		    ((h - hex) % 16 != 0 || (l - hex) % 16 != 0)) {
			*w++ = (char)(((h - hex) % 16) << 4 | (l - hex) % 16);
			s += 2;
			changed = 1;
		} else
			*w++ = *s;
	}
	*w = '\0';
	return changed;
}

/* Does an RFC 6570 template name a destination-shaped variable? */
static int
template_dest(const char *t)
{
	const char *e;
	char name[128];
	size_t n;

	while ((t = strchr(t, '{')) != NULL) {
		if ((e = strchr(t, '}')) == NULL)
			break;
		t++;
		if (*t != '\0' && strchr("+#./;?&=,!@|", *t) != NULL)
			t++;
		while (t < e) {
			n = strcspn(t, ",}:*");
			if (n > 0 && n < sizeof(name)) {
				memcpy(name, t, n);
				name[n] = '\0';
				if (heuristics_dest_name(name))
					return 1;
			}
			t += n;
			t += strcspn(t, ",}");
			if (*t == ',')
				t++;
		}
		t = e + 1;
	}
	return 0;
}

/*
 * A resource's URI.  One that an upstream listed exactly (or linked to)
 * names that upstream's own resource and is not judged for taint: the
 * listing is untrusted output itself, so every listed address would be
 * "tainted".  One that only a template produces carries what the agent
 * filled in: its destination identities are scanned, except those the
 * matching templates' own text holds (the host an upstream put in its
 * template is its own).  With exfiltrating: true the URI is a
 * destination: trusted (trusted_destinations, or approved for this
 * session), else tainted as above, else unproven: ask.
 */
static void
uri_gate(struct decide_ctx *dc, const struct request *r,
    const struct tool_policy *pol, struct decision *d)
{
	struct tool_policy own = *pol;
	struct idlist tids, uids;
	struct gate g;
	enum gmode mode;
	char *dec;
	size_t i, len = strlen(r->name);

	memset(&tids, 0, sizeof(tids));
	memset(&uids, 0, sizeof(uids));
	if (r->listed != LISTED_TEMPLATE && !pol->exfiltrating)
		return;
	if (r->listed == LISTED_TEMPLATE) {
		for (i = 0; i < r->ntemplates; i++)
			idlist_of(&tids, dc->taint, r->templates[i]);
		own.trusted = xcalloc(pol->ntrusted + tids.n + 1,
		    sizeof(*own.trusted));
		for (i = 0; i < pol->ntrusted; i++)
			own.trusted[i] = pol->trusted[i];
		for (i = 0; i < tids.n; i++)
			own.trusted[pol->ntrusted + i] = tids.v[i];
		own.ntrusted = pol->ntrusted + tids.n;
	}
	req_gate_init(&g, dc, r->key, pol, d);
	g.top = "uri";
	path_push(&g, "uri", 3);
	if (pol->exfiltrating && is_trusted(&g, "uri", r->name, len))
		goto out;
	if (r->listed == LISTED_TEMPLATE) {
		/* a variable named like a destination (url, host, to) is
		 * one: its unproven identities are asked about */
		mode = G_SCAN;
		for (i = 0; i < r->ntemplates && mode == G_SCAN; i++)
			if (template_dest(r->templates[i]))
				mode = G_ASK;
		g.pol = &own;
		judge_idents(&g, r->name, len, mode);
		/* a variable's value is often escaped whole ({url} of
		 * "https://x"): what the server decodes is judged too */
		dec = xstrdup(r->name);
		for (i = 0; i < BNC_URI_DECODE_ROUNDS && !g.tainted &&
		    pct_decode(dec); i++)
			judge_idents(&g, dec, strlen(dec), mode);
		free(dec);
		g.pol = pol;
	}
	if (pol->exfiltrating && !g.tainted && !g.have_ask)
		gate_unproven(&g, "destination", r->name, len,
		    "is not a vouched destination");
 out:
	/* one question for the URI, one for each identity in it */
	idlist_of(&uids, dc->taint, r->name);
	d->dests = g.n + g.asked + uids.n + 1;
	req_gate_done(&g);
	if (own.trusted != pol->trusted)
		free(own.trusted);
	idlist_free(&tids);
	idlist_free(&uids);
}

/* A prompt's arguments must be ones prompts/list declared. */
static int
check_prompt_args(const struct request *r, const struct tool_policy *pol,
    const struct value *args, struct decision *d)
{
	struct buf *b;
	size_t i, j;

	if (pol->extra_args)
		return 0;
	for (i = 0; i < args->u.o.n; i++) {
		for (j = 0; j < r->ndeclared; j++)
			if (strcmp(r->declared[j], args->u.o.m[i].key) == 0)
				break;
		if (j < r->ndeclared)
			continue;
		b = buf_new();
		repr(b, args->u.o.m[i].key, args->u.o.m[i].klen);
		buf_put_u8(b, '\0');
		set(d, VERDICT_DENY, "constraint", "argument %s is not one the "
		    "prompt declares", (const char *)buf_ptr(b));
		buf_free(b);
		return 1;
	}
	return 0;
}

/* 1-2. Listed, by one upstream, and not forbidden; 1 if denied. */
static int
check_listed(struct decide_ctx *dc, const struct request *r,
    const char *what, const char *shown, struct decision *d)
{
	const char *why;

	switch (r->listed) {
	case LISTED_NONE:
		set(d, VERDICT_DENY, "pinning", "%s '%s' was not listed by "
		    "any upstream%s", what, shown, req_is_prompt(r) ? "" :
		    r->kind == REQ_COMPLETE_RESOURCE ? " (as a resource or a "
		    "resource template)" : " (in a resource list, as the "
		    "expansion of a resource template or as a link in a "
		    "result)");
		return 1;
	case LISTED_UNSURE:
		if (strlen(r->name) > BNC_URI_MAX)
			set(d, VERDICT_DENY, "pinning", "%s '%s' is longer than "
			    "%d bytes, too long to match against the resource "
			    "templates", what, shown, BNC_URI_MAX);
		else
			set(d, VERDICT_DENY, "pinning", "%s '%s' cannot be "
			    "matched against the resource templates (more "
			    "work than %d steps)", what, shown,
			    BNC_URITEMPLATE_WORK_MAX);
		return 1;
	case LISTED_CONTESTED:
		set(d, VERDICT_DENY, "grant", "%s '%s' is listed by upstreams "
		    "%s and %s; bouncer routes it to neither", what, shown,
		    r->up->name, r->other->name);
		return 1;
	default:
		break;
	}
	if (policy_request_forbidden(dc->policy, r->up->name,
	    req_is_prompt(r) ? POLICY_PROMPT : POLICY_RESOURCE, r->name)) {
		set(d, VERDICT_DENY, "grant", "%s '%s' is forbidden by the "
		    "policy", what, shown);
		return 1;
	}
	if (!req_is_prompt(r) && policy_request_ambiguous(dc->policy,
	    r->up->name, r->name)) {
		set(d, VERDICT_DENY, "constraint", "%s '%s' is read two ways "
		    "by servers, and the policy says something else of each",
		    what, shown);
		return 1;
	}
	if ((why = decide_unreachable(r->up)) != NULL) {
		set(d, VERDICT_DENY, "default", "upstream \"%.64s\" %s",
		    r->up->name, why);
		return 1;
	}
	return 0;
}

static void decide_req(struct decide_ctx *, const struct request *, int,
    struct decision *, const struct tool_policy **);

void
decide_request(struct decide_ctx *dc, const struct request *r, int flags,
    struct decision *d)
{
	const struct tool_policy *pol = NULL;

	decide_req(dc, r, flags, d, &pol);
	require_signed(pol, d);
	signed_call(flags, d);
}

static void
decide_req(struct decide_ctx *dc, const struct request *r, int flags,
    struct decision *d, const struct tool_policy **polp)
{
	const struct tool_policy *pol;
	struct tool_entry te;
	struct budget *bg;
	struct buf *b;
	const char *what;
	char shown[256], reason[BNC_REASON_MAX + 64];

	memset(d, 0, sizeof(*d));
	what = req_is_prompt(r) ? "prompt" : "resource";
	utf8_escape(shown, sizeof(shown), r->name, strlen(r->name));
	/* the audit row shows what it names in clear */
	sink_note(d, req_is_completion(r) ? "ref" : req_is_prompt(r) ?
	    "name" : "uri");
	if (check_listed(dc, r, what, shown, d))
		return;
	pol = *polp = policy_for_request(dc->policy, r->up->name,
	    req_is_prompt(r) ? POLICY_PROMPT : POLICY_RESOURCE, r->name);

	/* 3. budget: a prompt's by its name, a resource's by its entry */
	if (pol->max_calls >= 0 && req_counts(r) &&
	    (flags & DECIDE_COUNT_BUDGET)) {
		if ((bg = budget_slot(dc, req_is_prompt(r) ? r->key :
		    pol->name)) == NULL) {
			set(d, VERDICT_DENY, "budget", "too many budgets");
			return;
		}
		if (++bg->count > pol->max_calls) {
			b = buf_new();
			repr(b, bg->tool, strlen(bg->tool));
			buf_put_u8(b, '\0');
			set(d, VERDICT_DENY, "budget", "call budget %lld for "
			    "%s exceeded", pol->max_calls,
			    (const char *)buf_ptr(b));
			buf_free(b);
			return;
		}
	}

	/* 4. constraints: declared prompt arguments, then patterns */
	memset(&te, 0, sizeof(te));
	te.up = r->up;
	if ((req_is_prompt(r) && check_prompt_args(r, pol, r->args, d)) ||
	    check_constraints(dc, &te, pol, r->args, d))
		return;

	/* 5. the sink gate, or its scanning mode */
	if (r->kind == REQ_RESOURCE)
		uri_gate(dc, r, pol, d);
	else if (r->kind == REQ_PROMPT && pol->exfiltrating) {
		if (r->args->u.o.n == 0 && !(flags & DECIDE_CONFIRMED)) {
			set(d, VERDICT_ASK, "sink_gate", "prompt '%s' sends "
			    "data but the request has no arguments to check",
			    shown);
			d->ask_once = 1;
		} else if (r->args->u.o.n > 0)
			sink_gate(dc, r->key, pol, r->args, d);
	} else
		scan_gate(dc, r->key, pol, r->args, d);
	if (d->verdict == VERDICT_ASK && req_is_completion(r)) {
		snprintf(reason, sizeof(reason), "%s; a completion is not "
		    "asked about", d->reason);
		set(d, VERDICT_DENY, d->contract, "%s", reason);
	}
	if (d->verdict != 0)
		return;

	/* confirm: true asks a human on every read, subscription or get */
	if (pol->confirm && req_counts(r) && !(flags & DECIDE_CONFIRMED)) {
		set(d, VERDICT_ASK, "default", "%s '%s' needs a human's "
		    "confirmation for every request", what, shown);
		d->ask_once = 1;
		return;
	}
	set(d, VERDICT_ALLOW, "default", "%s", "");
}

/*
 * What a read or a get returned is untrusted like a tool's output,
 * unless its entry says taint_source: false (a directory the
 * administrator keeps).
 */
void
decide_request_result(struct decide_ctx *dc, const struct upstream *up,
    int kind, const char *name, const struct value *result)
{
	if (result == NULL)
		return;
	if (dc->policy != NULL && name != NULL &&
	    !policy_for_request(dc->policy, up->name, kind, name)->taint_source)
		return;
	taint_add_result(dc->taint, result);
	recorded(dc);
}
