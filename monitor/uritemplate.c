/*
 * uritemplate.c - RFC 6570 URI templates, read backwards: could this URI
 * be an expansion of that template?
 *
 * A template compiles to a Thompson automaton (byte, class, split, jump,
 * match): literal text byte for byte, and per expression the language of
 * its expansions, where every variable may be undefined, a string, a list
 * or an associative array.  Matching runs the automaton over the URI one
 * byte at a time with a set of states (Pike's VM without captures), so
 * it never backtracks: time is the URI's length times the automaton's
 * size at most, memory the automaton's size, whatever either holds.  It
 * only answers; deciding what a match means is decide.c's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "err.h"
#include "uritemplate.h"
#include "xmalloc.h"

enum ut_opcode {
	I_BYTE,			/* arg: the byte */
	I_CLASS,		/* arg: enum ut_class */
	I_SPLIT,		/* go on at x and at y */
	I_JMP,			/* go on at x */
	I_MATCH
};

/* What a value may hold unencoded, beside its percent-encoded triplets. */
enum ut_class {
	CL_UNRES,		/* unreserved */
	CL_UNRES_C,		/* unreserved and ',' (a list) */
	CL_UNRES_CE,		/* unreserved, ',' and '=' (exploded pairs) */
	CL_RESV,		/* unreserved and reserved ('+', '#') */
	CL_HEX
};

static const char *const class_extra[] = {
	[CL_UNRES] = "",
	[CL_UNRES_C] = ",",
	[CL_UNRES_CE] = ",=",
	[CL_RESV] = ":/?#[]@!$&'()*+,;=",
	[CL_HEX] = "",
};

struct insn {
	uint8_t		 op;
	uint8_t		 arg;
	uint32_t	 x, y;
};

struct uritemplate {
	struct insn	*prog;
	size_t		 n, cap;
	int		 over;		/* past BNC_URITEMPLATE_PROG_MAX */
};

/*
 * The operators (RFC 6570, appendix A): what the expansion starts with,
 * what joins its values, whether names are shown (name=value) and
 * whether reserved characters pass unencoded.
 */
static const struct ut_operator {
	char	 op;		/* '\0': simple string expansion */
	char	 first;		/* '\0': nothing */
	char	 sep;
	int	 named;
	int	 reserved;
	int	 bare;		/* an empty value shows the name alone */
} ut_operators[] = {
	{ '\0',	'\0',	',',	0, 0, 0 },
	{ '+',	'\0',	',',	0, 1, 0 },
	{ '#',	'#',	',',	0, 1, 0 },
	{ '.',	'.',	'.',	0, 0, 0 },
	{ '/',	'/',	'/',	0, 0, 0 },
	{ ';',	';',	';',	1, 0, 1 },
	{ '?',	'?',	'&',	1, 0, 0 },
	{ '&',	'&',	'&',	1, 0, 0 },
};

/* One varspec of an expression. */
struct ut_var {
	const char	*name;
	size_t		 len;
	int		 explode;
};

static int
is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int
is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int
is_unreserved(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || c == '-' || c == '.' ||
	    c == '_' || c == '~';
}

static int
in_class(unsigned int cls, unsigned char c)
{
	if (cls == CL_HEX)
		return is_hex(c);
	return is_unreserved(c) || (c != '\0' &&
	    strchr(class_extra[cls], c) != NULL);
}

/* Appends an instruction; past the bound only notes it (checked at end). */
static size_t
emit(struct uritemplate *t, int op, int arg, size_t x, size_t y)
{
	size_t at = t->n;

	if (t->n >= BNC_URITEMPLATE_PROG_MAX) {
		t->over = 1;
		return at;
	}
	if (t->n == t->cap) {
		t->cap = t->cap == 0 ? 64 : t->cap * 2;
		t->prog = xreallocarray(t->prog, t->cap, sizeof(*t->prog));
	}
	t->prog[t->n].op = (uint8_t)op;
	t->prog[t->n].arg = (uint8_t)arg;
	t->prog[t->n].x = (uint32_t)x;
	t->prog[t->n].y = (uint32_t)y;
	t->n++;
	return at;
}

/* Sets a jump target of an instruction emitted earlier. */
static void
patch_x(struct uritemplate *t, size_t at, size_t x)
{
	if (at < t->n)
		t->prog[at].x = (uint32_t)x;
}

static void
patch_y(struct uritemplate *t, size_t at, size_t y)
{
	if (at < t->n)
		t->prog[at].y = (uint32_t)y;
}

static void
emit_bytes(struct uritemplate *t, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		emit(t, I_BYTE, (unsigned char)s[i], 0, 0);
}

/* One character of a value: one of cls, or a percent-encoded triplet. */
static void
emit_vchar(struct uritemplate *t, int cls)
{
	size_t split, jmp;

	split = emit(t, I_SPLIT, 0, t->n + 1, 0);
	emit(t, I_CLASS, cls, 0, 0);
	jmp = emit(t, I_JMP, 0, 0, 0);
	patch_y(t, split, t->n);
	emit(t, I_BYTE, '%', 0, 0);
	emit(t, I_CLASS, CL_HEX, 0, 0);
	emit(t, I_CLASS, CL_HEX, 0, 0);
	patch_x(t, jmp, t->n);
}

/* Any number of value characters, at least one if plus. */
static void
emit_run(struct uritemplate *t, int cls, int plus)
{
	size_t loop;

	if (plus)
		emit_vchar(t, cls);
	loop = emit(t, I_SPLIT, 0, t->n + 1, 0);
	emit_vchar(t, cls);
	emit(t, I_JMP, 0, loop, 0);
	patch_y(t, loop, t->n);
}

/* Optionally "=" and a value (a list's values joined by ','). */
static void
emit_opt_value(struct uritemplate *t)
{
	size_t split;

	split = emit(t, I_SPLIT, 0, t->n + 1, 0);
	emit(t, I_BYTE, '=', 0, 0);
	emit_run(t, CL_UNRES_C, 0);
	patch_y(t, split, t->n);
}

/*
 * What one defined variable expands to, after the expression's first or
 * separator character: a named operator shows name=value (an exploded
 * one key=value pairs, each key any name), the others the value alone
 * (an exploded one its members joined by the separator).
 */
static void
emit_item(struct uritemplate *t, const struct ut_operator *o,
    const struct ut_var *v)
{
	size_t loop;

	if (o->named && !v->explode) {
		emit_bytes(t, v->name, v->len);
		if (o->bare)
			emit_opt_value(t);
		else {
			emit(t, I_BYTE, '=', 0, 0);
			emit_run(t, CL_UNRES_C, 0);
		}
		return;
	}
	if (o->named) {
		emit_run(t, CL_UNRES, 1);
		emit_opt_value(t);
		loop = emit(t, I_SPLIT, 0, t->n + 1, 0);
		emit(t, I_BYTE, (unsigned char)o->sep, 0, 0);
		emit_run(t, CL_UNRES, 1);
		emit_opt_value(t);
		emit(t, I_JMP, 0, loop, 0);
		patch_y(t, loop, t->n);
		return;
	}
	if (o->reserved) {
		emit_run(t, CL_RESV, 0);
		return;
	}
	emit_run(t, v->explode ? CL_UNRES_CE : CL_UNRES_C, 0);
	/* '.' and ',' are value characters; '/' is not */
	if (v->explode && o->sep == '/') {
		loop = emit(t, I_SPLIT, 0, t->n + 1, 0);
		emit(t, I_BYTE, '/', 0, 0);
		emit_run(t, CL_UNRES_CE, 0);
		emit(t, I_JMP, 0, loop, 0);
		patch_y(t, loop, t->n);
	}
}

/* Forward jumps waiting for the label they go to. */
struct ut_fixups {
	size_t	 at[4];
	int	 y[4];		/* patch the y target, not x */
	size_t	 n;
};

static void
fix_add(struct ut_fixups *f, size_t at, int y)
{
	f->at[f->n] = at;
	f->y[f->n] = y;
	f->n++;
}

static void
fix_here(struct uritemplate *t, struct ut_fixups *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		if (f->y[i])
			patch_y(t, f->at[i], t->n);
		else
			patch_x(t, f->at[i], t->n);
	}
	f->n = 0;
}

/*
 * An expression expands its defined variables in order: the first one
 * after the operator's first character, each later one after its
 * separator; with none defined, to nothing.  Two chains of states say
 * whether a variable was expanded yet: m0 (not yet) and m1.
 */
static void
emit_expr(struct uritemplate *t, const struct ut_operator *o,
    const struct ut_var *vars, size_t nvars)
{
	struct ut_fixups f0, f1;
	size_t i, s;

	memset(&f0, 0, sizeof(f0));
	memset(&f1, 0, sizeof(f1));
	for (i = 0; i < nvars; i++) {
		/* m0: skip the variable, or expand it first */
		fix_here(t, &f0);
		s = emit(t, I_SPLIT, 0, 0, t->n + 1);
		fix_add(&f0, s, 0);
		if (o->first != '\0')
			emit(t, I_BYTE, (unsigned char)o->first, 0, 0);
		emit_item(t, o, &vars[i]);
		s = emit(t, I_JMP, 0, 0, 0);
		/* m1: skip it, or expand it after the separator */
		fix_here(t, &f1);
		fix_add(&f1, s, 0);
		if (i == 0)
			continue;	/* nothing can be expanded before it */
		s = emit(t, I_SPLIT, 0, 0, t->n + 1);
		fix_add(&f1, s, 0);
		emit(t, I_BYTE, (unsigned char)o->sep, 0, 0);
		emit_item(t, o, &vars[i]);
		s = emit(t, I_JMP, 0, 0, 0);
		fix_add(&f1, s, 0);
	}
	fix_here(t, &f0);
	fix_here(t, &f1);
}

/* A varname: varchars (ALPHA, DIGIT, '_', %XX) with single inner dots. */
static int
varname_ok(const char *s, size_t len)
{
	size_t i = 0;
	int dot = 1;

	if (len == 0)
		return 0;
	while (i < len) {
		if (s[i] == '.') {
			if (dot)
				return 0;
			dot = 1;
			i++;
		} else if (s[i] == '%') {
			if (i + 2 >= len || !is_hex((unsigned char)s[i + 1]) ||
			    !is_hex((unsigned char)s[i + 2]))
				return 0;
			dot = 0;
			i += 3;
		} else if (is_alpha((unsigned char)s[i]) ||
		    is_digit((unsigned char)s[i]) || s[i] == '_') {
			dot = 0;
			i++;
		} else
			return 0;
	}
	return !dot;
}

/* One varspec: varname, then ":" 1 to 4 digits (not starting 0) or "*". */
static int
parse_varspec(const char *s, size_t len, struct ut_var *v)
{
	const char *c;
	size_t nlen, dl;

	memset(v, 0, sizeof(*v));
	v->name = s;
	if (len > 0 && s[len - 1] == '*') {
		v->explode = 1;
		len--;
	}
	if ((c = memchr(s, ':', len)) != NULL) {
		if (v->explode)
			return -BNC_ERR_BAD_FORMAT;
		nlen = (size_t)(c - s);
		dl = len - nlen - 1;
		if (dl < 1 || dl > 4 || c[1] == '0')
			return -BNC_ERR_BAD_FORMAT;
		for (c++; dl > 0; c++, dl--)
			if (!is_digit((unsigned char)*c))
				return -BNC_ERR_BAD_FORMAT;
	} else
		nlen = len;
	if (!varname_ok(s, nlen))
		return -BNC_ERR_BAD_FORMAT;
	v->len = nlen;
	return 0;
}

/* "{...}" without its braces. */
static int
compile_expr(struct uritemplate *t, const char *s, size_t len)
{
	const struct ut_operator *o = &ut_operators[0];
	struct ut_var *vars = NULL;
	const char *e;
	size_t i, n = 0, l;
	int r = 0;

	if (len == 0)
		return -BNC_ERR_BAD_FORMAT;
	for (i = 1; i < sizeof(ut_operators) / sizeof(ut_operators[0]); i++)
		if (s[0] == ut_operators[i].op) {
			o = &ut_operators[i];
			s++;
			len--;
			break;
		}
	/* reserved for future extensions (RFC 6570, 2.2) */
	if (len == 0 || strchr("=,!@|", s[0]) != NULL)
		return -BNC_ERR_BAD_FORMAT;
	vars = xcalloc(len / 2 + 1, sizeof(*vars));
	while (len > 0) {
		e = memchr(s, ',', len);
		l = e != NULL ? (size_t)(e - s) : len;
		if ((r = parse_varspec(s, l, &vars[n])) != 0)
			goto out;
		n++;
		if (e == NULL)
			break;
		s += l + 1;
		len -= l + 1;
		if (len == 0) {
			r = -BNC_ERR_BAD_FORMAT;	/* a trailing ',' */
			goto out;
		}
	}
	emit_expr(t, o, vars, n);
 out:
	free(vars);
	return r;
}

/* Literal text: RFC 6570, 2.1 (percent-encoded triplets whole). */
static int
literal_ok(const char *p)
{
	unsigned char c = (unsigned char)*p;

	if (c < 0x20 || c == 0x7f)
		return 0;
	if (c == '%')
		return is_hex((unsigned char)p[1]) &&
		    is_hex((unsigned char)p[2]);
	return strchr(" \"'<>\\^`{|}", c) == NULL;
}

int
uritemplate_compile(const char *tmpl, struct uritemplate **out)
{
	struct uritemplate *t = NULL;
	const char *p, *q;
	int r = 0;

	*out = NULL;
	if (strlen(tmpl) > BNC_URITEMPLATE_LEN_MAX)
		return -BNC_ERR_TOO_LARGE;
	t = xcalloc(1, sizeof(*t));
	for (p = tmpl; *p != '\0';) {
		if (*p == '{') {
			if ((q = strchr(p, '}')) == NULL) {
				r = -BNC_ERR_BAD_FORMAT;
				goto out;
			}
			if (memchr(p + 1, '{', (size_t)(q - p - 1)) != NULL) {
				r = -BNC_ERR_BAD_FORMAT;
				goto out;
			}
			if ((r = compile_expr(t, p + 1,
			    (size_t)(q - p - 1))) != 0)
				goto out;
			p = q + 1;
			continue;
		}
		if (!literal_ok(p)) {
			r = -BNC_ERR_BAD_FORMAT;
			goto out;
		}
		emit(t, I_BYTE, (unsigned char)*p, 0, 0);
		p++;
	}
	emit(t, I_MATCH, 0, 0, 0);
	if (t->over) {
		r = -BNC_ERR_TOO_LARGE;
		goto out;
	}
	*out = t;
	t = NULL;
 out:
	uritemplate_free(t);
	return r;
}

size_t
uritemplate_mem(const struct uritemplate *t)
{
	return t != NULL ? sizeof(*t) + t->cap * sizeof(*t->prog) : 0;
}

size_t
uritemplate_size(const struct uritemplate *t)
{
	return t->n;
}

void
uritemplate_free(struct uritemplate *t)
{
	if (t == NULL)
		return;
	free(t->prog);
	free(t);
}

/* The state set of one step, and the marks of its epsilon closure. */
struct ut_run {
	const struct uritemplate *t;
	uint32_t	*mark;		/* generation an insn was added in */
	uint32_t	*stack;
	uint32_t	 gen;
};

/* Adds pc and what it reaches without reading to list. */
static void
add_state(struct ut_run *u, uint32_t pc, uint32_t *list, size_t *n)
{
	const struct insn *in;
	size_t sp = 0;

	u->stack[sp++] = pc;
	while (sp > 0) {
		pc = u->stack[--sp];
		if (u->mark[pc] == u->gen)
			continue;
		u->mark[pc] = u->gen;
		in = &u->t->prog[pc];
		switch (in->op) {
		case I_JMP:
			u->stack[sp++] = in->x;
			break;
		case I_SPLIT:
			u->stack[sp++] = in->y;
			u->stack[sp++] = in->x;
			break;
		default:
			list[(*n)++] = pc;
		}
	}
}

int
uritemplate_match(const struct uritemplate *t, const char *uri, size_t len,
    size_t *work)
{
	struct ut_run u;
	const struct insn *in;
	uint32_t *cur = NULL, *nxt = NULL, *tmp;
	size_t ncur = 0, nnxt, i, j;
	unsigned char c;
	int r = 0;

	if (len > BNC_URI_MAX)
		return -BNC_ERR_TOO_LARGE;
	memset(&u, 0, sizeof(u));
	u.t = t;
	/* every insn is marked once per step and pushes at most two */
	u.mark = xcalloc(t->n, sizeof(*u.mark));
	u.stack = xcalloc(2 * t->n + 1, sizeof(*u.stack));
	cur = xcalloc(t->n, sizeof(*cur));
	nxt = xcalloc(t->n, sizeof(*nxt));
	u.gen = 1;
	add_state(&u, 0, cur, &ncur);
	for (j = 0; j < len && ncur > 0; j++) {
		c = (unsigned char)uri[j];
		u.gen++;
		nnxt = 0;
		for (i = 0; i < ncur; i++) {
			if (*work == 0) {
				r = -BNC_ERR_TOO_LARGE;
				goto out;
			}
			(*work)--;
			in = &t->prog[cur[i]];
			if ((in->op == I_BYTE && in->arg == c) ||
			    (in->op == I_CLASS && in_class(in->arg, c)))
				add_state(&u, cur[i] + 1, nxt, &nnxt);
		}
		tmp = cur;
		cur = nxt;
		nxt = tmp;
		ncur = nnxt;
	}
	if (j < len)
		goto out;
	for (i = 0; i < ncur; i++)
		if (t->prog[cur[i]].op == I_MATCH) {
			r = 1;
			break;
		}
 out:
	free(u.mark);
	free(u.stack);
	free(cur);
	free(nxt);
	return r;
}
