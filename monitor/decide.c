/*
 * decide.c - the gauntlet every tools/call runs (DESIGN 5).
 *
 * First hit wins; any doubt is a deny.  It must never forward, write or
 * answer anything itself: it only decides, so that every caller records
 * and enforces the same verdict.  Reason strings follow the reference
 * design (seed-semantics 3.1), values quoted as Python's repr() would,
 * because existing users and audits compare them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approvals.h"
#include "bounds.h"
#include "buf.h"
#include "conffile.h"
#include "decide.h"
#include "log.h"
#include "monitor.h"
#include "pathcheck.h"
#include "policy.h"
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

/* "name=repr" for reasons; non-strings as their JSON text. */
static const char *
show(struct buf *b, const char *name, const struct value *v)
{
	struct buf *t = buf_new();

	buf_reset(b);
	buf_put(b, name, strlen(name));
	buf_put_u8(b, '=');
	if (v->type == V_STRING)
		repr(b, v->u.s.p, v->u.s.len);
	else {
		scalar_text(t, v);
		buf_put(b, buf_ptr(t), buf_len(t));
	}
	buf_put_u8(b, '\0');
	buf_free(t);
	return (const char *)buf_ptr(b);
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

static struct budget *
budget_slot(struct session *s, const char *tool)
{
	size_t i;

	for (i = 0; i < s->nbudgets; i++)
		if (strcmp(s->budgets[i].tool, tool) == 0)
			return &s->budgets[i];
	if (s->nbudgets >= BNC_BUDGETS_MAX)
		return NULL;
	s->budgets = xreallocarray(s->budgets, s->nbudgets + 1,
	    sizeof(*s->budgets));
	s->budgets[s->nbudgets].tool = xstrdup(tool);
	s->budgets[s->nbudgets].count = 0;
	return &s->budgets[s->nbudgets++];
}

/* 4. Constraints: write paths, then full-match patterns. */
static int
check_constraints(struct session *s, const struct tool_entry *e,
    const struct tool_policy *pol, const struct value *args,
    struct decision *d)
{
	const struct value *v;
	const char *base;
	struct buf *b = buf_new(), *l = buf_new(), *t = buf_new();
	size_t i, j = 0;
	int r, denied = 0;

	base = e->up->cfg->cwd != NULL ? e->up->cfg->cwd : s->cwd;
	for (i = 0; i < pol->nwrite && pol->nprefixes > 0 && !denied; i++) {
		if ((v = value_get(args, pol->write_params[i])) == NULL)
			continue;
		if (v->type == V_STRING && strlen(v->u.s.p) == v->u.s.len)
			for (j = 0; j < pol->nprefixes; j++)
				if (path_confined(v->u.s.p, pol->prefixes[j],
				    base))
					break;
		if (v->type != V_STRING || j == pol->nprefixes) {
			show(b, pol->write_params[i], v);
			set(d, VERDICT_DENY, "constraint",
			    "%s outside allowed prefixes %s",
			    (const char *)buf_ptr(b),
			    show_list(l, pol->prefixes, pol->nprefixes));
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

/* The sink gate's working state for one call. */
struct gate {
	struct session		 *s;
	const char		 *tool;
	const struct tool_policy *pol;
	struct decision		 *d;
	size_t			  n;		/* scalars judged */
	size_t			  nswept;	/* content scalars checked */
	size_t			  idents;	/* content addresses left to
						 * look up */
	int			  tainted;	/* a DENY was set */
	int			  have_ask;
	struct buf		 *tmp;
};

static int
is_trusted(const struct gate *g, const char *param, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < g->pol->ntrusted; i++)
		if (policy_trusted_match(g->pol->trusted[i], s, len))
			return 1;
	return approvals_has(g->s->approvals, g->tool, param, s, len);
}

/*
 * A swept content value that is one word holding a digit or one of
 * @ . : / - _ # + is an identifier (an account, a handle, a number): it
 * is looked up whole, as a destination is.  Prose and plain words are
 * judged only by the addresses inside them.
 */
static int
identifier_like(const char *s, size_t len)
{
	size_t i;
	int mark = 0;

	if (len < TAINT_MIN_LEN || len > BNC_TAINT_IDENT_MAX)
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
		    s[i] == '\r' || s[i] == '\0')
			return 0;
		if ((s[i] >= '0' && s[i] <= '9') ||
		    strchr("@.:/-_#+", s[i]) != NULL)
			mark = 1;
	}
	return mark;
}

struct pass_ctx {
	const struct gate	*g;
	const char		*param;
};

/* An address inside content that is trusted is passed over. */
static int
pass_trusted(void *arg, const char *s, size_t len)
{
	const struct pass_ctx *pc = arg;

	return is_trusted(pc->g, pc->param, s, len);
}

/* The call asks about content value v of param (the first ask wins). */
static void
content_ask(struct gate *g, const char *param, const struct value *v)
{
	g->have_ask = 1;
	if (g->d->ask_value != NULL)
		return;
	g->d->ask_param = xstrdup(param);
	g->d->ask_value = xmemdup(v->u.s.p, v->u.s.len + 1);
	g->d->ask_len = v->u.s.len;
}

/*
 * Content v of param named an identity that is not in the retained
 * output, after the index dropped some: it may have come from what was
 * dropped.  Unproven, so asked about (never denied), as DESIGN 5 has the
 * gate get stricter after eviction.
 */
static void
drop_ask(struct gate *g, const char *param, const struct value *v,
    const char *what)
{
	struct buf *b;

	if (g->have_ask)
		return;
	b = buf_new();
	show(b, param, v);
	set(g->d, VERDICT_ASK, "sink_gate", "%s %s may have come from output "
	    "the session no longer holds (the taint index dropped its oldest "
	    "output)", what, (const char *)buf_ptr(b));
	buf_free(b);
	content_ask(g, param, v);
}

/*
 * A content scalar: an argument swept because a declared sink is empty,
 * whose name is not destination-shaped.  It is judged by what it names,
 * not by its words, which may well occur in output: an identifier (see
 * identifier_like) whole, any other text by the addresses, URL hosts and
 * scheme addresses inside it, each trusted or else looked up.  Tainted
 * denies (or asks, with `tainted: ask'); unproven content is what a
 * message says, not where it goes, and is not asked about, until the
 * taint index has dropped output (DESIGN 5: the gate then gets
 * stricter): an identity not found may have been in what was dropped,
 * and is asked about.  The reason shows what was found, never the rest
 * of the text.
 */
static void
judge_content(struct gate *g, const char *param, const char *s, size_t len)
{
	char ident[BNC_TAINT_IDENT_LEN + 1];	/* whole: may be approved */
	struct pass_ctx pc = { g, param };
	enum taint_found found = TAINT_ABSENT, r;
	const char *what = "swept argument", *how;
	size_t left;
	struct value iv;
	struct buf *b;

	iv.type = V_STRING;
	iv.u.s.p = (char *)(uintptr_t)s;	/* only read: shown */
	iv.u.s.len = len;
	if (identifier_like(s, len) && !is_trusted(g, param, s, len) &&
	    (found = taint_lookup(g->s->taint, s, len)) == TAINT_ABSENT &&
	    taint_strict(g->s->taint))
		found = TAINT_DROPPED;
	if (found == TAINT_ABSENT || found == TAINT_DROPPED) {
		left = g->idents;
		r = taint_lookup_idents(g->s->taint, s, len, pass_trusted,
		    &pc, &g->idents, ident, sizeof(ident));
		/* an identifier that names trusted addresses only is theirs
		 * (mailto:boss@corp.example); one that names none may be
		 * from what was dropped */
		if (r == TAINT_ABSENT && found == TAINT_DROPPED) {
			if (left == g->idents)
				drop_ask(g, param, &iv, what);
			return;
		}
		found = r;
		if (found == TAINT_ABSENT)
			return;
		if (ident[0] == '\0') {
			set(g->d, VERDICT_DENY, "sink_gate", "too many "
			    "addresses in swept arguments to check (more than "
			    "%d)", BNC_SWEPT_IDENTS_MAX);
			g->tainted = 1;
			return;
		}
		what = "an address in swept argument";
		iv.u.s.p = ident;
		iv.u.s.len = strlen(ident);
		if (found == TAINT_DROPPED) {
			drop_ask(g, param, &iv, what);
			return;
		}
	}
	how = found == TAINT_FOUND ? "came from untrusted data" :
	    "may have come from untrusted data (the lookup could not rule "
	    "it out)";
	b = buf_new();
	show(b, param, &iv);
	if (g->pol->tainted == TAINTED_DENY) {
		set(g->d, VERDICT_DENY, "sink_gate", "%s %s %s", what,
		    (const char *)buf_ptr(b), how);
		g->tainted = 1;
	} else if (!g->have_ask) {
		set(g->d, VERDICT_ASK, "sink_gate", "%s %s %s", what,
		    (const char *)buf_ptr(b), how);
		content_ask(g, param, &iv);
	}
	buf_free(b);
}

/*
 * Judges one scalar of a sink: trusted, else tainted (deny, or ask with
 * `tainted: ask'), else unproven (ask); content: judge_content.
 */
static void
judge(struct gate *g, const char *param, const struct value *v, int content)
{
	enum taint_found found;
	struct buf *b;
	const char *s;
	size_t len;

	if (g->tainted)
		return;
	if (content ? ++g->nswept > BNC_SWEPT_VALUES_MAX :
	    ++g->n > BNC_SINK_VALUES_MAX) {
		set(g->d, VERDICT_DENY, "sink_gate", "too many %s in one call "
		    "(more than %d)", content ? "values to check" :
		    "destinations", content ? BNC_SWEPT_VALUES_MAX :
		    BNC_SINK_VALUES_MAX);
		g->tainted = 1;
		return;
	}
	b = g->tmp;
	buf_reset(b);
	if (scalar_text(b, v) != 0 || buf_put_u8(b, '\0') != 0) {
		set(g->d, VERDICT_DENY, "sink_gate", "destination %s cannot "
		    "be judged", param);
		g->tainted = 1;
		return;
	}
	s = (const char *)buf_ptr(b);
	len = buf_len(b) - 1;
	if (content) {
		judge_content(g, param, s, len);
		return;
	}
	if (is_trusted(g, param, s, len))
		return;
	found = taint_lookup(g->s->taint, s, len);
	if (found != TAINT_ABSENT) {
		struct buf *r = buf_new();
		/* A lookup that could not rule it out counts as found. */
		const char *how = found == TAINT_FOUND ? "came from untrusted "
		    "data" : "may have come from untrusted data (the lookup "
		    "could not rule it out)";

		show(r, param, v);
		if (g->pol->tainted == TAINTED_DENY) {
			set(g->d, VERDICT_DENY, "sink_gate", "destination %s %s",
			    (const char *)buf_ptr(r), how);
			g->tainted = 1;
		} else if (!g->have_ask) {
			set(g->d, VERDICT_ASK, "sink_gate", "destination %s %s",
			    (const char *)buf_ptr(r), how);
			g->have_ask = 1;
		}
		buf_free(r);
	} else if (!g->have_ask) {
		struct buf *r = buf_new();

		show(r, param, v);
		set(g->d, VERDICT_ASK, "sink_gate", "destination %s is not a "
		    "vouched recipient", (const char *)buf_ptr(r));
		buf_free(r);
		g->have_ask = 1;
	} else
		return;
	if (g->d->verdict == VERDICT_ASK && g->d->ask_value == NULL) {
		g->d->ask_param = xstrdup(param);
		g->d->ask_value = xmemdup(s, len + 1);
		g->d->ask_len = len;
	}
}

/* Lists and objects are judged element by element, keys and values. */
static void
flatten(struct gate *g, const char *param, const struct value *v, int depth,
    int content)
{
	size_t i;

	switch (v->type) {
	case V_NULL:
		return;
	case V_ARRAY:
		for (i = 0; i < v->u.a.n; i++)
			flatten(g, param, v->u.a.v[i], depth + 1, content);
		return;
	case V_OBJECT:
		for (i = 0; i < v->u.o.n; i++) {
			struct value key;

			key.type = V_STRING;
			key.u.s.p = v->u.o.m[i].key;
			key.u.s.len = v->u.o.m[i].klen;
			judge(g, param, &key, content);
			flatten(g, param, v->u.o.m[i].val, depth + 1, content);
		}
		return;
	default:
		judge(g, param, v, content);
	}
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

static int
is_declared(const struct tool_policy *pol, const char *name)
{
	size_t i;

	for (i = 0; i < pol->nsink; i++)
		if (strcmp(pol->sink_params[i], name) == 0)
			return 1;
	return 0;
}

/*
 * 5. The sink gate.  Candidates: the declared sinks that carry a value;
 * if none carries a value (or none is declared), every argument.  If a
 * declared sink is absent, null or empty, every undeclared argument is
 * swept too (DESIGN 5): a destination-shaped one is judged as a sink,
 * any other is checked for taint only, so that a mail without cc is not
 * asked about its body, yet a tainted address in its subject denies.
 * Seed bugs 13 and 19.2 do not come back.
 */
static void
sink_gate(struct session *s, const char *tool, const struct tool_policy *pol,
    const struct value *args, struct decision *d)
{
	struct gate g;
	size_t i, present = 0, missing = 0;

	memset(&g, 0, sizeof(g));
	g.s = s;
	g.tool = tool;
	g.pol = pol;
	g.d = d;
	g.idents = BNC_SWEPT_IDENTS_MAX;
	for (i = 0; i < pol->nsink; i++) {
		if (is_empty(value_get(args, pol->sink_params[i])))
			missing++;
		else
			present++;
	}
	/* a sweep's work is bounded by the number of arguments too */
	if ((present == 0 || missing > 0) &&
	    args->u.o.n > BNC_SWEEP_ARGS_MAX) {
		set(d, VERDICT_DENY, "sink_gate", "too many arguments to judge "
		    "(more than %d)", BNC_SWEEP_ARGS_MAX);
		return;
	}
	g.tmp = buf_new();
	for (i = 0; i < pol->nsink && !g.tainted; i++)
		if (!is_empty(value_get(args, pol->sink_params[i])))
			flatten(&g, pol->sink_params[i],
			    value_get(args, pol->sink_params[i]), 0, 0);
	for (i = 0; i < args->u.o.n && !g.tainted; i++) {
		const char *k = args->u.o.m[i].key;

		if (is_declared(pol, k))
			continue;
		if (present == 0 || (missing > 0 && policy_dest_name(k))) {
			if (!is_empty(args->u.o.m[i].val))
				sink_note(d, k);
			flatten(&g, k, args->u.o.m[i].val, 0, 0);
		} else if (missing > 0)
			flatten(&g, k, args->u.o.m[i].val, 0, 1);
	}
	d->dests = g.n;
	buf_free(g.tmp);
	if (g.tainted) {
		free(d->ask_param);
		free(d->ask_value);
		d->ask_param = d->ask_value = NULL;
	}
}

void
decide_call(struct session *s, const char *name,
    const struct tool_entry *e, const struct value *args, int flags,
    struct decision *d)
{
	const struct tool_policy *pol;
	const struct value *schema;
	struct budget *bg;
	struct buf *b;
	size_t i;

	memset(d, 0, sizeof(*d));

	/* 1-2. grant and pinning: only tools recorded at start-up */
	if (e == NULL) {
		set(d, VERDICT_DENY, "pinning",
		    "unknown tool (not pinned at startup)");
		return;
	}
	if (e->forbidden) {
		set(d, VERDICT_DENY, "grant", "tool '%.128s' is in the "
		    "forbidden write set", name);
		return;
	}
	if (!e->visible) {
		set(d, VERDICT_DENY, "pinning", "tool '%.128s' changed since "
		    "it was pinned; withheld until re-pinned", name);
		return;
	}
	if (e->up->state != UP_READY) {
		set(d, VERDICT_DENY, "default", "upstream \"%.64s\" is not "
		    "running", e->up->name);
		return;
	}
	schema = value_get(e->pin->def, "inputSchema");
	pol = policy_for(s->policy, e->up->name, e->pin->name, schema);
	for (i = 0; i < pol->nsink; i++)
		sink_note(d, pol->sink_params[i]);

	/* 3. budget: attempts count, re-evaluations do not */
	if (pol->max_calls >= 0 && (flags & DECIDE_COUNT_BUDGET)) {
		if ((bg = budget_slot(s, name)) == NULL) {
			set(d, VERDICT_DENY, "budget", "too many budgets");
			return;
		}
		if (++bg->count > pol->max_calls) {
			b = buf_new();
			repr(b, name, strlen(name));
			buf_put_u8(b, '\0');
			set(d, VERDICT_DENY, "budget", "call budget %lld for %s "
			    "exceeded", pol->max_calls,
			    (const char *)buf_ptr(b));
			buf_free(b);
			return;
		}
	}
	if (args != NULL && args->type != V_OBJECT) {
		set(d, VERDICT_DENY, "constraint", "arguments are not an "
		    "object");
		return;
	}

	/* 4. constraints */
	if (args != NULL && check_constraints(s, e, pol, args, d))
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
			sink_gate(s, name, pol, args, d);
			if (d->verdict != 0)
				return;
		}
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
recorded(struct session *s)
{
	if (s->taint_dropped || !taint_strict(s->taint))
		return;
	s->taint_dropped = 1;
	logit("session %s: untrusted output passed the taint index's cap "
	    "(%zu bytes kept); its oldest output is dropped, and addresses "
	    "in swept arguments that are not found are now asked about",
	    s->id, taint_retained(s->taint));
}

/*
 * Everything an upstream returns is untrusted, shared by all upstreams
 * of the session: text blocks, resource contents, structuredContent as
 * decoded values (never escaped JSON text), error texts.  A tool whose
 * policy says taint_source: false is a trusted directory.
 */
void
decide_result(struct session *s, const struct tool_entry *e,
    const struct value *result)
{
	const struct tool_policy *pol;

	if (result == NULL)
		return;
	if (e != NULL) {
		pol = policy_for(s->policy, e->up->name, e->pin->name,
		    value_get(e->pin->def, "inputSchema"));
		if (!pol->taint_source)
			return;
	}
	taint_add_result(s->taint, result);
	recorded(s);
}

void
decide_error_text(struct session *s, const char *text)
{
	if (text != NULL)
		taint_add_text(s->taint, text, strlen(text));
	recorded(s);
}

/*
 * Upstream output that is no tool result but reaches the client all the
 * same (log messages, progress messages, the questions and prompts of
 * requests relayed to the client) is untrusted output too.
 */
void
decide_record_output(struct session *s, const struct value *v)
{
	if (v != NULL)
		taint_add_value(s->taint, v);
	recorded(s);
}
