/*
 * uritemplate.h - could a URI be an expansion of an RFC 6570 template?
 *
 * An upstream lists resource templates (resources/templates/list); a
 * URI one of them can produce counts as listed by that upstream
 * (DESIGN 5, "Not only tools/call").  A template is compiled once into
 * a small automaton; matching a URI costs time proportional to the
 * URI's length times the automaton's size, bounded by a work budget the
 * caller shares across templates, and memory proportional to the
 * automaton only.  Nothing here decides or allocates per byte of input.
 */
#ifndef BNC_URITEMPLATE_H
#define BNC_URITEMPLATE_H

#include <stddef.h>

struct uritemplate;

/*
 * Compiles the NUL-terminated template: levels 1 to 4 of RFC 6570, the
 * operators none, '+', '#', '.', '/', ';', '?' and '&', the explode
 * modifier '*' and the prefix modifier ":N" (parsed and checked; the
 * length it would cut a value to is not enforced, so a prefixed
 * variable matches as an unprefixed one would).  *out receives a
 * template the caller frees with uritemplate_free.  Returns 0,
 * -BNC_ERR_BAD_FORMAT for a template RFC 6570 does not allow, or
 * -BNC_ERR_TOO_LARGE past BNC_URITEMPLATE_LEN_MAX bytes or
 * BNC_URITEMPLATE_PROG_MAX instructions.
 */
int	uritemplate_compile(const char *tmpl, struct uritemplate **out);
void	uritemplate_free(struct uritemplate *);
/* Instructions of the compiled template (tests, diagnostics). */
size_t	uritemplate_size(const struct uritemplate *);
/* Bytes it holds. */
size_t	uritemplate_mem(const struct uritemplate *);

/*
 * 1 if some assignment of values (strings, lists or associative arrays,
 * or undefined) to the template's variables expands to exactly the len
 * bytes of uri, else 0.  Literal text compares byte for byte; a
 * variable's value is what the operator lets through unencoded plus
 * percent-encoded triplets.  Each step of the automaton spends one unit
 * of *work; when none is left, or uri is longer than BNC_URI_MAX bytes,
 * the answer is -BNC_ERR_TOO_LARGE (callers fail closed).
 */
int	uritemplate_match(const struct uritemplate *, const char *uri,
	    size_t len, size_t *work);

#endif /* BNC_URITEMPLATE_H */
