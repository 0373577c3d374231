/*
 * idscan.c - the id of a JSON-RPC line too long to parse.
 *
 * A small state machine over the bytes of one line, fed in pieces: it
 * follows strings (with their escapes) and the nesting of objects and
 * arrays, reads the names of the top-level object's members, and keeps
 * the text of the value of "id" when that is an integer, a string
 * without escapes of at most BNC_ID_STR_MAX bytes, or null.  It also
 * notes a top-level "result" or "error" member (a response).
 *
 * It is not a parser and proves nothing about the line: the line is
 * refused whatever this finds.  It only says which request an error is
 * for, and it answers "unknown" (id null) on anything it does not
 * expect: no object, a second "id", an id of another shape, bytes after
 * the object, a member name with an escape (it might spell "id"), a
 * ',' before '}', a bracket that closes the wrong container, nesting
 * deeper than ID_DEPTH_MAX.  Its memory is the struct; its work is one
 * pass.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "idscan.h"
#include "msg.h"
#include "utf8.h"
#include "xmalloc.h"

#define ID_INT_MAX	INT64_C(9007199254740991)	/* 2^53 - 1, as parse.c */
#define ID_DIGITS_MAX	16

#define ID_DEPTH_MAX	64	/* containers tracked (the parser's cap) */

enum state {
	S_START,	/* before the top-level '{' */
	S_KEY_OR_END,	/* a member's name, or '}' */
	S_KEY_NEXT,	/* a member's name, after ',' */
	S_KEY,		/* inside a member's name */
	S_COLON,	/* after the name */
	S_VALUE,	/* before a member's value */
	S_SKIP,		/* inside a value we do not keep */
	S_ID_STR,	/* inside the id's string */
	S_ID_LIT,	/* inside the id's number or null */
	S_AFTER,	/* after a value: ',' or '}' */
	S_DONE		/* after the top-level '}' */
};

enum member {
	M_OTHER,
	M_ID,
	M_RESPONSE	/* "result" or "error" */
};

enum id_kind {
	ID_NONE = 0,
	ID_NUMBER,
	ID_STRING,
	ID_NULL,
	ID_UNUSABLE
};

static int
is_ws(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

void
idscan_init(struct idscan *x)
{
	memset(x, 0, sizeof(*x));
	x->state = S_START;
}

static void
end_key(struct idscan *x)
{
	x->member = M_OTHER;
	if (x->klen == 2 && memcmp(x->key, "id", 2) == 0) {
		x->member = M_ID;
		x->ids++;
	} else if ((x->klen == 6 && memcmp(x->key, "result", 6) == 0) ||
	    (x->klen == 5 && memcmp(x->key, "error", 5) == 0))
		x->member = M_RESPONSE;
	if (x->member == M_RESPONSE)
		x->response = 1;
	x->state = S_COLON;
}

/* Opens a container inside a value; 0 if nesting goes too deep. */
static void
open_container(struct idscan *x, uint8_t c)
{
	if (x->depth >= ID_DEPTH_MAX) {
		x->bad = 1;
		return;
	}
	x->stack = (x->stack << 1) | (c == '{');
	x->depth++;
}

/* Closes the innermost container; it must be of the bracket's kind. */
static void
close_container(struct idscan *x, uint8_t c)
{
	if ((x->stack & 1) != (uint64_t)(c == '}'))
		x->bad = 1;
	x->stack >>= 1;
	x->depth--;
}

/* A value ended at depth 1: what may follow is ',' or '}'. */
static void
end_value(struct idscan *x, uint8_t c)
{
	if (c == ',')
		x->state = S_KEY_NEXT;
	else if (c == '}') {
		x->depth = 0;
		x->state = S_DONE;
	} else if (is_ws(c))
		x->state = S_AFTER;
	else
		x->bad = 1;
}

/* One byte inside a value that is skipped (any depth, any type). */
static void
skip(struct idscan *x, uint8_t c)
{
	if (x->in_str) {
		if (x->esc)
			x->esc = 0;
		else if (c == '\\')
			x->esc = 1;
		else if (c == '"')
			x->in_str = 0;
		if (!x->in_str && x->depth == 1)
			x->state = S_AFTER;
		return;
	}
	switch (c) {
	case '"':
		x->in_str = 1;
		return;
	case '{':
	case '[':
		open_container(x, c);
		return;
	case '}':
	case ']':
		if (x->depth == 1) {	/* the top-level object ends */
			if (c != '}')
				x->bad = 1;
			end_value(x, c);
			return;
		}
		close_container(x, c);
		if (x->depth == 1)
			x->state = S_AFTER;
		return;
	case ',':
		if (x->depth == 1)
			end_value(x, c);
		return;
	default:
		if (x->depth == 1 && is_ws(c))
			x->state = S_AFTER;
		return;
	}
}

static void
id_char(struct idscan *x, uint8_t c)
{
	if (x->vlen < sizeof(x->val) - 1)
		x->val[x->vlen++] = (char)c;
	else
		x->id_kind = ID_UNUSABLE;
}

static void
step(struct idscan *x, uint8_t c)
{
	switch (x->state) {
	case S_START:
		if (c == '{') {
			x->depth = 1;
			x->stack = 1;
			x->state = S_KEY_OR_END;
		} else if (!is_ws(c))
			x->bad = 1;
		return;
	case S_KEY_OR_END:
	case S_KEY_NEXT:
		if (c == '"') {
			x->klen = 0;
			x->state = S_KEY;
		} else if (c == '}' && x->state == S_KEY_OR_END) {
			x->depth = 0;
			x->state = S_DONE;
		} else if (!is_ws(c))
			x->bad = 1;
		return;
	case S_KEY:
		if (c == '\\')	/* an escaped name might spell "id" */
			x->bad = 1;
		else if (c == '"')
			end_key(x);
		else if (x->klen < sizeof(x->key))
			x->key[x->klen++] = (char)c;
		return;
	case S_COLON:
		if (c == ':')
			x->state = S_VALUE;
		else if (!is_ws(c))
			x->bad = 1;
		return;
	case S_VALUE:
		if (is_ws(c))
			return;
		if (x->member == M_ID) {
			x->vlen = 0;
			x->id_kind = ID_NONE;
			if (c == '"') {
				x->state = S_ID_STR;
				return;
			}
			x->state = S_ID_LIT;
			id_char(x, c);
			return;
		}
		x->state = S_SKIP;
		skip(x, c);
		return;
	case S_SKIP:
		skip(x, c);
		return;
	case S_ID_STR:
		if (c == '"') {
			if (x->id_kind == ID_NONE)
				x->id_kind = ID_STRING;
			x->state = S_AFTER;
		} else if (c == '\\' || c < 0x20) {
			/* escapes are not decoded here: unknown; skip the
			 * rest of the string as any other */
			x->id_kind = ID_UNUSABLE;
			x->in_str = 1;
			x->state = S_SKIP;
			skip(x, c);
		} else
			id_char(x, c);
		return;
	case S_ID_LIT:
		if (c == ',' || c == '}' || is_ws(c)) {
			x->val[x->vlen] = '\0';
			if (x->id_kind == ID_NONE)
				x->id_kind = strcmp(x->val, "null") == 0 ?
				    ID_NULL : ID_NUMBER;
			end_value(x, c);
		} else
			id_char(x, c);
		return;
	case S_AFTER:
		if (c == ',')
			x->state = S_KEY_NEXT;
		else if (c == '}') {
			x->depth = 0;
			x->state = S_DONE;
		} else if (!is_ws(c))
			x->bad = 1;
		return;
	case S_DONE:
		if (!is_ws(c))
			x->bad = 1;
		return;
	}
}

void
idscan_feed(struct idscan *x, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && !x->bad; i++)
		step(x, p[i]);
}

/* An integer as JSON writes one, within the exact range of a double. */
static int
id_integer(const char *s, int64_t *out)
{
	const char *d = s + (s[0] == '-');
	int64_t n = 0;
	size_t i, len = strlen(d);

	if (len == 0 || len > ID_DIGITS_MAX || (d[0] == '0' && len > 1))
		return 0;
	for (i = 0; i < len; i++) {
		if (d[i] < '0' || d[i] > '9')
			return 0;
		n = n * 10 + (d[i] - '0');
	}
	if (n > ID_INT_MAX)
		return 0;
	*out = s[0] == '-' ? -n : n;
	return 1;
}

int
idscan_result(const struct idscan *x, struct rpc_id *id, int *was_response)
{
	char val[sizeof(x->val)];
	int64_t n;

	memset(id, 0, sizeof(*id));
	id->type = RPC_ID_NULL;
	*was_response = x->response;
	if (x->bad || x->state != S_DONE || x->ids != 1)
		return 0;
	memcpy(val, x->val, x->vlen);
	val[x->vlen] = '\0';
	switch (x->id_kind) {
	case ID_NUMBER:
		if (!id_integer(val, &n))
			return 0;
		id->type = RPC_ID_INT;
		id->n = n;
		return 1;
	case ID_STRING:
		if (!utf8_valid(val, x->vlen) || memchr(val, '\0', x->vlen))
			return 0;
		id->type = RPC_ID_STR;
		id->s = xstrdup(val);
		return 1;
	case ID_NULL:
		return 1;
	default:
		return 0;
	}
}
