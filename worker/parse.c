/*
 * parse.c - one JSON-RPC line to a struct rpc, or the reason it cannot be.
 *
 * Steps, each a gate the next relies on: strict UTF-8; a lexical pass
 * that rejects what cJSON would accept but other parsers read otherwise
 * (a \u0000 escape cJSON truncates at, raw control bytes, lenient number
 * forms) and counts nodes and depth before cJSON allocates anything;
 * cJSON; a conversion to a value tree that refuses duplicate keys (cJSON
 * keeps both, a lookup finds the first: a parser differential), depth
 * and node counts over the caps, and numbers without a JSON value; then
 * the JSON-RPC envelope, with MCP's one narrowing: params is an object.
 * The tree is the only thing that leaves: the monitor re-serialises what
 * it forwards.  A refused line carries its id whenever one can be read
 * unambiguously, so the client can match the error to its request.
 *
 * This file must never act on a line: it only describes it.  It must
 * never let a string with a NUL, a non-UTF-8 byte or a duplicate key
 * through, and never use libc qsort: the merge sort below is O(n log n)
 * whatever keys an attacker picks, and probes nothing of the system.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "bounds.h"
#include "msg.h"
#include "idscan.h"
#include "parse.h"
#include "utf8.h"
#include "value.h"
#include "xmalloc.h"

/* Integers beyond 2^53 are not exact in a double: JSON peers disagree. */
#define PARSE_INT_EXACT		9007199254740992.0

/* Objects with fewer keys are checked pairwise, larger ones sorted. */
#define PARSE_DUP_PAIRWISE	16

/* Bytes of a duplicate key quoted in the error message. */
#define PARSE_DUPKEY_SHOW	64

enum parse_err {
	PE_NONE = 0,
	PE_UTF8,
	PE_NUL,
	PE_SYNTAX,
	PE_BATCH,
	PE_NOT_OBJECT,
	PE_DUP_KEY,
	PE_DEPTH,
	PE_NODES,
	PE_RANGE,
	PE_JSONRPC,
	PE_BAD_ID,
	PE_METHOD,
	PE_METHOD_LONG,
	PE_METHOD_AND_RESPONSE,
	PE_PARAMS,
	PE_NO_METHOD,
	PE_RESULT_AND_ERROR,
	PE_RESPONSE_NO_ID,
	PE_ERROR_OBJECT,
	PE_ERROR_CODE,
	PE_ERROR_MESSAGE,
	PE_ERROR_MESSAGE_LONG,
	PE_TOO_LARGE,
	PE_MAX
};

static const struct {
	int		 code;
	const char	*message;
} parse_errors[PE_MAX] = {
	[PE_UTF8] = { RPC_ERR_PARSE, "Parse error: invalid UTF-8" },
	[PE_NUL] = { RPC_ERR_INVALID, "NUL character in string" },
	[PE_SYNTAX] = { RPC_ERR_PARSE, "Parse error" },
	[PE_BATCH] = { RPC_ERR_INVALID, "Batch requests are not supported" },
	[PE_NOT_OBJECT] = { RPC_ERR_INVALID,
	    "Invalid Request: not an object" },
	[PE_DUP_KEY] = { RPC_ERR_INVALID, "Invalid Request: duplicate key" },
	[PE_DEPTH] = { RPC_ERR_INVALID, "Invalid Request: nesting too deep" },
	[PE_NODES] = { RPC_ERR_INVALID, "Invalid Request: too many values" },
	[PE_RANGE] = { RPC_ERR_INVALID,
	    "Invalid Request: number out of range" },
	[PE_JSONRPC] = { RPC_ERR_INVALID,
	    "Invalid Request: jsonrpc must be \"2.0\"" },
	[PE_BAD_ID] = { RPC_ERR_INVALID, "Invalid Request: bad id" },
	[PE_METHOD] = { RPC_ERR_INVALID,
	    "Invalid Request: method must be a non-empty string" },
	[PE_METHOD_LONG] = { RPC_ERR_INVALID,
	    "Invalid Request: method too long" },
	[PE_METHOD_AND_RESPONSE] = { RPC_ERR_INVALID,
	    "Invalid Request: method with result or error" },
	[PE_PARAMS] = { RPC_ERR_INVALID,
	    "Invalid Request: params must be an object" },
	[PE_NO_METHOD] = { RPC_ERR_INVALID, "Invalid Request: missing method" },
	[PE_RESULT_AND_ERROR] = { RPC_ERR_INVALID,
	    "Invalid Request: both result and error" },
	[PE_RESPONSE_NO_ID] = { RPC_ERR_INVALID,
	    "Invalid Request: response without id" },
	[PE_ERROR_OBJECT] = { RPC_ERR_INVALID,
	    "Invalid Request: error must be an object" },
	[PE_ERROR_CODE] = { RPC_ERR_INVALID,
	    "Invalid Request: error code must be an integer" },
	[PE_ERROR_MESSAGE] = { RPC_ERR_INVALID,
	    "Invalid Request: error message must be a string" },
	[PE_ERROR_MESSAGE_LONG] = { RPC_ERR_INVALID,
	    "Invalid Request: error message too long" },
	[PE_TOO_LARGE] = { RPC_ERR_INVALID, "message too large" },
};

/* What the lexical pass learnt. */
struct scan {
	size_t	 nodes;		/* values the tree will hold */
	size_t	 depth;		/* deepest container nesting */
	int	 nul;		/* a \u0000 escape inside a string */
	int	 syntax;	/* something no JSON parser may accept */
};

/* State of the tree conversion. */
struct conv {
	size_t	 nodes;
	char	*detail;	/* message naming the duplicate key */
};

/* The top-level "id" as far as it can be known before conversion. */
enum id_state {
	ID_ABSENT = 0,
	ID_VALID,		/* integer or string, in *id */
	ID_NULL,
	ID_BAD			/* wrong type, out of range, or repeated */
};

static void *
parse_cjson_malloc(size_t n)
{
	return xmalloc(n);
}

void
parse_init(void)
{
	cJSON_Hooks hooks = { parse_cjson_malloc, free };

	cJSON_InitHooks(&hooks);
}

/* Lexical pass */

static int
is_ws(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int
is_delim(uint8_t c)
{
	return is_ws(c) || c == '{' || c == '}' || c == '[' || c == ']' ||
	    c == ',' || c == ':' || c == '"' || c < 0x20;
}

static int
is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static int
is_hex(uint8_t c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* RFC 8259 number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int
number_ok(const uint8_t *p, size_t n)
{
	size_t i = 0;

	if (i < n && p[i] == '-')
		i++;
	if (i >= n || !is_digit(p[i]))
		return 0;
	if (p[i++] != '0')
		while (i < n && is_digit(p[i]))
			i++;
	if (i < n && p[i] == '.') {
		if (++i >= n || !is_digit(p[i]))
			return 0;
		while (i < n && is_digit(p[i]))
			i++;
	}
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		if (++i < n && (p[i] == '+' || p[i] == '-'))
			i++;
		if (i >= n || !is_digit(p[i]))
			return 0;
		while (i < n && is_digit(p[i]))
			i++;
	}
	return i == n;
}

static int
literal_ok(const uint8_t *p, size_t n)
{
	return (n == 4 && memcmp(p, "true", 4) == 0) ||
	    (n == 4 && memcmp(p, "null", 4) == 0) ||
	    (n == 5 && memcmp(p, "false", 5) == 0);
}

/*
 * Skips a string whose opening quote is at p[i]; returns the index after
 * the closing quote.  "\\u0000" is an escaped backslash followed by
 * "u0000", so escapes are consumed whole, never matched as text.
 */
static size_t
scan_string(const uint8_t *p, size_t n, size_t i, struct scan *sc,
    uint8_t *fix)
{
	uint8_t c;

	for (i++; i < n; i++) {
		c = p[i];
		if (c == '"')
			return i + 1;
		if (c < 0x20) {
			sc->syntax = 1;
			continue;
		}
		if (c != '\\')
			continue;
		if (i + 1 >= n) {
			sc->syntax = 1;
			return n;
		}
		c = p[++i];
		if (c == 'u') {
			if (n - i <= 4 || !is_hex(p[i + 1]) ||
			    !is_hex(p[i + 2]) || !is_hex(p[i + 3]) ||
			    !is_hex(p[i + 4])) {
				sc->syntax = 1;
				continue;
			}
			if (memcmp(p + i + 1, "0000", 4) == 0) {
				sc->nul = 1;
				if (fix != NULL)
					memcpy(fix + i + 1, "fffd", 4);
			}
			i += 4;
		} else if (strchr("\"\\/bfnrt", c) == NULL || c == '\0')
			sc->syntax = 1;
	}
	sc->syntax = 1;		/* unterminated */
	return n;
}

/*
 * One pass over the line.  For valid JSON the node count is exact:
 * every string, scalar token and container is a value, except strings
 * used as keys, one per ':'.  It runs to the end even after a syntax
 * error so a \u0000 anywhere is reported as such.  With fix (a copy of
 * the line), each \u0000 escape there becomes \ufffd.
 */
static void
prescan(const uint8_t *p, size_t n, struct scan *sc, uint8_t *fix)
{
	size_t i = 0, j, depth = 0, strings = 0, colons = 0, others = 0;
	uint8_t c;

	memset(sc, 0, sizeof(*sc));
	while (i < n) {
		c = p[i];
		if (is_ws(c)) {
			i++;
			continue;
		}
		switch (c) {
		case '{':
		case '[':
			others++;
			if (++depth > sc->depth)
				sc->depth = depth;
			i++;
			continue;
		case '}':
		case ']':
			if (depth == 0)
				sc->syntax = 1;
			else
				depth--;
			i++;
			continue;
		case ',':
			i++;
			continue;
		case ':':
			colons++;
			i++;
			continue;
		case '"':
			strings++;
			i = scan_string(p, n, i, sc, fix);
			continue;
		}
		if (c < 0x20) {
			sc->syntax = 1;
			i++;
			continue;
		}
		for (j = i; j < n && !is_delim(p[j]); j++)
			;
		if (!number_ok(p + i, j - i) && !literal_ok(p + i, j - i))
			sc->syntax = 1;
		others++;
		i = j;
	}
	if (colons > strings)
		sc->syntax = 1;
	else
		sc->nodes = strings - colons + others;
}

/* Duplicate keys */

struct keyref {
	const char	*k;
	size_t		 len;
};

static int
keyref_cmp(const struct keyref *a, const struct keyref *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c;

	if ((c = memcmp(a->k, b->k, n)) != 0)
		return c;
	return (a->len > b->len) - (a->len < b->len);
}

/* Bottom-up merge sort: O(n log n) for any keys an attacker picks. */
static void
keyref_sort(struct keyref *a, struct keyref *tmp, size_t n)
{
	struct keyref *src = a, *dst = tmp, *t;
	size_t width, i, x, y, k, mid, end;

	for (width = 1; width < n; width *= 2) {
		for (i = 0; i < n; i += 2 * width) {
			mid = i + width < n ? i + width : n;
			end = i + 2 * width < n ? i + 2 * width : n;
			x = i;
			y = mid;
			k = i;
			while (x < mid && y < end)
				dst[k++] = keyref_cmp(&src[x], &src[y]) <= 0 ?
				    src[x++] : src[y++];
			while (x < mid)
				dst[k++] = src[x++];
			while (y < end)
				dst[k++] = src[y++];
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/* "Invalid Request: duplicate key \"<key>\"", the key escaped and cut. */
static char *
dup_message(const char *key)
{
	static const char hex[] = "0123456789abcdef";
	static const char pre[] = "Invalid Request: duplicate key \"";
	size_t len = strlen(key), show = len, i, o;
	char *s;
	uint8_t c;

	if (show > PARSE_DUPKEY_SHOW) {
		show = PARSE_DUPKEY_SHOW;
		/* Never cut a UTF-8 sequence: the message must stay valid. */
		while (show > 0 && ((uint8_t)key[show] & 0xc0) == 0x80)
			show--;
	}
	s = xmalloc(sizeof(pre) + show * 6 + sizeof("...\""));
	memcpy(s, pre, sizeof(pre) - 1);
	o = sizeof(pre) - 1;
	for (i = 0; i < show; i++) {
		c = (uint8_t)key[i];
		if (c == '"' || c == '\\') {
			s[o++] = '\\';
			s[o++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			s[o++] = '\\';
			s[o++] = 'u';
			s[o++] = '0';
			s[o++] = '0';
			s[o++] = hex[c >> 4];
			s[o++] = hex[c & 0xf];
		} else
			s[o++] = (char)c;
	}
	if (show < len) {
		memcpy(s + o, "...", 3);
		o += 3;
	}
	s[o++] = '"';
	s[o] = '\0';
	return s;
}

static int
check_dups(struct conv *cv, const cJSON *first, size_t n)
{
	struct keyref *refs = NULL;
	const cJSON *a, *b;
	size_t i;
	int r = PE_NONE;

	if (n < PARSE_DUP_PAIRWISE) {
		for (a = first; a != NULL; a = a->next)
			for (b = first; b != a; b = b->next)
				if (strcmp(a->string, b->string) == 0) {
					cv->detail = dup_message(a->string);
					return PE_DUP_KEY;
				}
		return PE_NONE;
	}
	refs = xreallocarray(NULL, n, 2 * sizeof(*refs));
	for (i = 0, a = first; a != NULL; a = a->next, i++) {
		refs[i].k = a->string;
		refs[i].len = strlen(a->string);
	}
	keyref_sort(refs, refs + n, n);
	for (i = 1; i < n; i++)
		if (keyref_cmp(&refs[i - 1], &refs[i]) == 0) {
			cv->detail = dup_message(refs[i].k);
			r = PE_DUP_KEY;
			break;
		}
	free(refs);
	return r;
}

/* Conversion */

/* Integral and within 2^53; the cast is exact in that range (no libm). */
static int
int_exact(double d)
{
	return isfinite(d) && fabs(d) <= PARSE_INT_EXACT &&
	    (double)(int64_t)d == d;
}

static struct value *
node_new(enum value_type t)
{
	struct value *v = xcalloc(1, sizeof(*v));

	v->type = t;
	return v;
}

/*
 * Converts `it` and its children (never its siblings: the caller has
 * unlinked it) and frees the cJSON nodes on every path.  Strings and
 * keys are moved out of cJSON, not copied; cJSON allocates them with
 * the same malloc value_free() frees with.  depth counts containers,
 * the root container being 1, as value_depth() does.
 */
static int
conv(struct conv *cv, cJSON *it, int depth, struct value **out)
{
	struct value *v = NULL, *child;
	struct member *m;
	cJSON *c;
	size_t n;
	double d;
	char *key;
	int r = PE_NONE;

	*out = NULL;
	if (++cv->nodes > BNC_VALUE_NODES_MAX) {
		r = PE_NODES;
		goto out;
	}
	switch (it->type & 0xff) {
	case cJSON_NULL:
		v = node_new(V_NULL);
		break;
	case cJSON_False:
	case cJSON_True:
		v = node_new(V_BOOL);
		v->u.b = (it->type & 0xff) == cJSON_True;
		break;
	case cJSON_Number:
		d = it->valuedouble;
		if (!isfinite(d)) {
			r = PE_RANGE;
			goto out;
		}
		if (int_exact(d)) {
			v = node_new(V_INT);
			v->u.i = (int64_t)d;
		} else {
			v = node_new(V_DOUBLE);
			v->u.d = d;
		}
		break;
	case cJSON_String:
		if (it->valuestring == NULL) {
			r = PE_SYNTAX;
			goto out;
		}
		v = node_new(V_STRING);
		v->u.s.p = it->valuestring;
		v->u.s.len = strlen(it->valuestring);
		it->valuestring = NULL;
		break;
	case cJSON_Array:
	case cJSON_Object:
		if (depth + 1 > BNC_VALUE_DEPTH_MAX) {
			r = PE_DEPTH;
			goto out;
		}
		for (n = 0, c = it->child; c != NULL; c = c->next)
			n++;
		if ((it->type & 0xff) == cJSON_Array) {
			v = node_new(V_ARRAY);
			if (n > 0)
				v->u.a.v = xreallocarray(NULL, n,
				    sizeof(*v->u.a.v));
			v->u.a.cap = n;
		} else {
			if ((r = check_dups(cv, it->child, n)) != PE_NONE)
				goto out;
			v = node_new(V_OBJECT);
			if (n > 0)
				v->u.o.m = xreallocarray(NULL, n,
				    sizeof(*v->u.o.m));
			v->u.o.cap = n;
		}
		while ((c = it->child) != NULL) {
			/* Unlink first: what is left stays it's to free. */
			it->child = c->next;
			c->next = c->prev = NULL;
			key = c->string;
			c->string = NULL;
			if ((r = conv(cv, c, depth + 1, &child)) != PE_NONE) {
				free(key);
				goto out;
			}
			if (v->type == V_ARRAY) {
				v->u.a.v[v->u.a.n++] = child;
				continue;
			}
			m = &v->u.o.m[v->u.o.n++];
			m->key = key;
			m->klen = strlen(key);
			m->val = child;
		}
		break;
	default:
		r = PE_SYNTAX;
		goto out;
	}
	*out = v;
	v = NULL;
 out:
	cJSON_Delete(it);
	value_free(v);
	return r;
}

/* Envelope */

static enum id_state
id_from_cjson(const cJSON *root, struct rpc_id *id)
{
	const cJSON *c, *found = NULL;

	memset(id, 0, sizeof(*id));
	for (c = root->child; c != NULL; c = c->next) {
		if (strcmp(c->string, "id") != 0)
			continue;
		if (found != NULL)
			return ID_BAD;
		found = c;
	}
	if (found == NULL)
		return ID_ABSENT;
	switch (found->type & 0xff) {
	case cJSON_NULL:
		return ID_NULL;
	case cJSON_Number:
		/*
		 * Below 2^53, not at it: 9007199254740993 reads as 2^53 too,
		 * and an answer must carry its request's id exactly.  RFC
		 * 8259 6: peers agree on integers up to 2^53 - 1.
		 */
		if (!int_exact(found->valuedouble) ||
		    fabs(found->valuedouble) >= PARSE_INT_EXACT)
			return ID_BAD;
		id->type = RPC_ID_INT;
		id->n = (int64_t)found->valuedouble;
		return ID_VALID;
	case cJSON_String:
		if (found->valuestring == NULL ||
		    strlen(found->valuestring) > BNC_ID_STR_MAX)
			return ID_BAD;
		id->type = RPC_ID_STR;
		id->s = xstrdup(found->valuestring);
		return ID_VALID;
	}
	return ID_BAD;
}

static int
has_member(const cJSON *root, const char *key)
{
	const cJSON *c;

	for (c = root->child; c != NULL; c = c->next)
		if (strcmp(c->string, key) == 0)
			return 1;
	return 0;
}

/* Moves a string member's text out of the tree. */
static char *
steal_string(struct value *v)
{
	char *s = v->u.s.p;

	v->u.s.p = NULL;
	v->u.s.len = 0;
	return s;
}

/* Fills rpc from the tree top, or returns the envelope's first fault. */
static int
envelope(struct value *top, enum id_state ids, struct rpc_id *id,
    struct rpc *rpc)
{
	struct value *jv, *mv, *ev, *cv, *sv;
	int has_result, has_error;

	jv = value_get(top, "jsonrpc");
	if (jv == NULL || jv->type != V_STRING || strcmp(jv->u.s.p, "2.0") != 0)
		return PE_JSONRPC;
	mv = value_get(top, "method");
	has_result = value_get(top, "result") != NULL;
	has_error = value_get(top, "error") != NULL;
	if (ids == ID_BAD || (ids == ID_NULL && (mv != NULL || !has_error)))
		return PE_BAD_ID;

	if (mv != NULL) {
		if (mv->type != V_STRING || mv->u.s.len == 0)
			return PE_METHOD;
		if (mv->u.s.len > BNC_METHOD_MAX)
			return PE_METHOD_LONG;
		if (has_result || has_error)
			return PE_METHOD_AND_RESPONSE;
		/*
		 * JSON-RPC also allows an array; MCP never sends one, so
		 * the monitor only ever sees named parameters.
		 */
		if ((sv = value_get(top, "params")) != NULL &&
		    sv->type != V_OBJECT)
			return PE_PARAMS;
		rpc->kind = ids == ID_VALID ? RPC_REQUEST : RPC_NOTIFICATION;
		rpc->method = steal_string(mv);
		rpc->params = value_object_take(top, "params");
		goto done;
	}

	if (!has_result && !has_error)
		return PE_NO_METHOD;
	if (has_result && has_error)
		return PE_RESULT_AND_ERROR;
	if (ids == ID_ABSENT)
		return PE_RESPONSE_NO_ID;
	if (has_result) {
		rpc->kind = RPC_RESULT;
		rpc->result = value_object_take(top, "result");
		goto done;
	}
	ev = value_get(top, "error");
	if (ev->type != V_OBJECT)
		return PE_ERROR_OBJECT;
	if ((cv = value_get(ev, "code")) == NULL || cv->type != V_INT)
		return PE_ERROR_CODE;
	if ((sv = value_get(ev, "message")) == NULL || sv->type != V_STRING)
		return PE_ERROR_MESSAGE;
	if (sv->u.s.len > BNC_ERRMSG_MAX)
		return PE_ERROR_MESSAGE_LONG;
	rpc->kind = RPC_ERROR;
	rpc->code = cv->u.i;
	rpc->message = steal_string(sv);
	rpc->data = value_object_take(ev, "data");
 done:
	/* Moved last: on a fault above, the caller still owns the id. */
	if (ids == ID_VALID) {
		rpc->id = *id;
		memset(id, 0, sizeof(*id));
	} else
		rpc->id.type = ids == ID_NULL ? RPC_ID_NULL : RPC_ID_NONE;
	return PE_NONE;
}

/* cJSON over exactly len bytes, with nothing but whitespace after. */
static cJSON *
parse_json(const char *line, size_t len)
{
	const char *end = NULL;
	cJSON *root;

	if ((root = cJSON_ParseWithLengthOpts(line, len, &end, 0)) == NULL)
		return NULL;
	if (end < line || end > line + len)
		goto fail;
	for (; end < line + len; end++)
		if (!is_ws((uint8_t)*end))
			goto fail;
	return root;
 fail:
	cJSON_Delete(root);
	return NULL;
}

static int
looks_like_response(const cJSON *root)
{
	return !has_member(root, "method") &&
	    (has_member(root, "result") || has_member(root, "error"));
}

/*
 * A line with a \u0000 escape is refused, but its id is still worth
 * knowing so the client can match the error: parse a copy in which each
 * \u0000 became U+FFFD.  A string id holding U+FFFD may be one that was
 * altered, so it stays unknown.
 */
static enum id_state
nul_line_id(const char *line, size_t len, struct rpc_id *id,
    int *was_response)
{
	enum id_state ids = ID_BAD;
	struct scan sc;
	cJSON *root = NULL;
	char *copy;

	copy = xmemdup(line, len);
	prescan((const uint8_t *)line, len, &sc, (uint8_t *)copy);
	if (sc.syntax || sc.nodes > BNC_VALUE_NODES_MAX ||
	    sc.depth > CJSON_NESTING_LIMIT ||
	    (root = parse_json(copy, len)) == NULL || !cJSON_IsObject(root))
		goto out;
	ids = id_from_cjson(root, id);
	if (ids == ID_VALID && id->type == RPC_ID_STR &&
	    strstr(id->s, "\xef\xbf\xbd") != NULL) {
		rpc_id_clear(id);
		ids = ID_BAD;
	}
	*was_response = looks_like_response(root);
 out:
	cJSON_Delete(root);
	free(copy);
	return ids;
}

static int
blank(const char *line, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			return 0;
	return 1;
}

static void
bad_fill(struct msg_rpc_bad *bad, int e, char *detail, struct rpc_id *id,
    int was_response)
{
	bad->code = parse_errors[e].code;
	bad->message = detail != NULL ? detail :
	    xstrdup(parse_errors[e].message);
	bad->was_response = was_response != 0;
	if (id != NULL && id->type != RPC_ID_NONE) {
		bad->id = *id;
		memset(id, 0, sizeof(*id));
	} else
		bad->id.type = RPC_ID_NULL;
}

int
parse_line(const char *line, size_t len, struct rpc *rpc,
    struct msg_rpc_bad *bad)
{
	struct conv cv = { 0, NULL };
	struct rpc_id id;
	struct scan sc;
	struct value *top = NULL;
	cJSON *root = NULL;
	enum id_state ids = ID_ABSENT;
	int e, was_response = 0, known = 0;

	memset(rpc, 0, sizeof(*rpc));
	memset(bad, 0, sizeof(*bad));
	memset(&id, 0, sizeof(id));
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (blank(line, len))
		return PARSE_SKIP;
	if (!utf8_valid(line, len)) {
		e = PE_UTF8;
		goto bad;
	}
	prescan((const uint8_t *)line, len, &sc, NULL);
	if (sc.nul) {
		e = PE_NUL;
		known = nul_line_id(line, len, &id, &was_response) == ID_VALID;
		goto bad;
	}
	if (sc.syntax) {
		e = PE_SYNTAX;
		goto bad;
	}
	/* Refused before cJSON allocates a node per value. */
	if (sc.nodes > BNC_VALUE_NODES_MAX) {
		e = PE_NODES;
		goto bad;
	}
	if (sc.depth > CJSON_NESTING_LIMIT) {
		e = PE_DEPTH;
		goto bad;
	}
	if ((root = parse_json(line, len)) == NULL) {
		e = PE_SYNTAX;
		goto bad;
	}
	if (cJSON_IsArray(root)) {
		e = PE_BATCH;
		goto bad;
	}
	if (!cJSON_IsObject(root)) {
		e = PE_NOT_OBJECT;
		goto bad;
	}

	ids = id_from_cjson(root, &id);
	known = ids == ID_VALID;
	was_response = looks_like_response(root);
	e = conv(&cv, root, 0, &top);
	root = NULL;
	if (e != PE_NONE)
		goto bad;
	if ((e = envelope(top, ids, &id, rpc)) != PE_NONE) {
		msg_rpc_free(rpc);
		if (e == PE_BAD_ID)
			known = 0;
		goto bad;
	}
	value_free(top);
	return PARSE_RPC;

 bad:
	cJSON_Delete(root);
	value_free(top);
	bad_fill(bad, e, cv.detail, known ? &id : NULL, was_response);
	rpc_id_clear(&id);
	return PARSE_BAD;
}

void
parse_bad_too_large(struct msg_rpc_bad *bad, const struct idscan *x)
{
	struct rpc_id id;
	int was_response = 0;

	memset(bad, 0, sizeof(*bad));
	memset(&id, 0, sizeof(id));
	if (x != NULL)
		(void)idscan_result(x, &id, &was_response);
	bad_fill(bad, PE_TOO_LARGE, NULL, &id, was_response);
}
