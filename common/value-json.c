/*
 * value-json.c - JSON text from value trees and JSON-RPC messages.
 *
 * The monitor renders the lines the client and each upstream read; the
 * tests render with rpc_render() what a decoded message would print.
 * Rendering writes straight into a struct buf through a small staging
 * area: no intermediate tree, no allocation per node.  value_to_cjson()
 * is kept for callers that want to edit a cJSON tree.
 *
 * This file must never parse JSON text (no cJSON_Parse*): the monitor
 * links it, and the monitor holds no JSON parser.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "err.h"
#include "bounds.h"
#include "msg.h"
#include "utf8.h"
#include "value.h"
#include "value-json.h"
#include "xmalloc.h"

/* Bytes gathered before one buf_put(); a buffer size, not a limit. */
#define JW_STAGE	4096

struct jw {
	struct buf	*out;
	size_t		 n;		/* bytes staged */
	int		 r;		/* first error */
	int		 sorted;	/* members in key order (canonical) */
	int		 strict;	/* refuse what the IPC codec refuses */
	size_t		 nodes;		/* counted when strict */
	char		 stage[JW_STAGE];
};

/*
 * Bytes that need an escape inside a JSON string: the control characters,
 * the quote and the backslash.  The escapes are cJSON's, so a line looks
 * the same whichever printer made it.
 */
static const char esc_short[0x20] = {
	['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't'
};

static int
needs_escape(uint8_t c)
{
	return c < 0x20 || c == '"' || c == '\\';
}

static void
jw_init(struct jw *w, struct buf *out)
{
	w->out = out;
	w->n = 0;
	w->r = 0;
	w->sorted = 0;
	w->strict = 0;
	w->nodes = 0;
}

/* Byte order of two keys; a key that is a prefix of the other first. */
static int
member_cmp(const void *a, const void *b)
{
	const struct member *x = *(const struct member *const *)a;
	const struct member *y = *(const struct member *const *)b;
	size_t n = x->klen < y->klen ? x->klen : y->klen;
	int c = memcmp(x->key, y->key, n);

	if (c != 0)
		return c;
	return x->klen < y->klen ? -1 : x->klen > y->klen;
}

static void
jw_flush(struct jw *w)
{
	int r;

	if (w->n == 0 || w->r != 0)
		return;
	if ((r = buf_put(w->out, w->stage, w->n)) != 0)
		w->r = r;
	w->n = 0;
}

static void
jw_put(struct jw *w, const void *p, size_t len)
{
	int r;

	if (w->r != 0)
		return;
	if (len > JW_STAGE - w->n) {
		jw_flush(w);
		if (len >= JW_STAGE) {
			if (w->r == 0 && (r = buf_put(w->out, p, len)) != 0)
				w->r = r;
			return;
		}
	}
	memcpy(w->stage + w->n, p, len);
	w->n += len;
}

static void
jw_putc(struct jw *w, char c)
{
	if (w->n == JW_STAGE)
		jw_flush(w);
	if (w->r != 0)
		return;
	w->stage[w->n++] = c;
}

#define jw_lit(w, s)	jw_put((w), (s), sizeof(s) - 1)

static void
jw_string(struct jw *w, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *p = (const uint8_t *)s;
	size_t i, run = 0;
	char e[6];
	uint8_t c;

	/* value_encode()'s check_string(): no NUL, valid UTF-8 */
	if (w->strict && w->r == 0) {
		if (memchr(s, '\0', len) != NULL)
			w->r = -BNC_ERR_NUL;
		else if (!utf8_valid(s, len))
			w->r = -BNC_ERR_BAD_UTF8;
	}
	jw_putc(w, '"');
	for (i = 0; i < len; i++) {
		c = p[i];
		if (!needs_escape(c))
			continue;
		jw_put(w, p + run, i - run);
		run = i + 1;
		e[0] = '\\';
		if (c == '"' || c == '\\') {
			e[1] = (char)c;
			jw_put(w, e, 2);
		} else if (esc_short[c] != 0) {
			e[1] = esc_short[c];
			jw_put(w, e, 2);
		} else {
			e[1] = 'u';
			e[2] = '0';
			e[3] = '0';
			e[4] = hex[c >> 4];
			e[5] = hex[c & 0xf];
			jw_put(w, e, 6);
		}
	}
	jw_put(w, p + run, len - run);
	jw_putc(w, '"');
}

static void
jw_int(struct jw *w, int64_t i)
{
	char t[24];
	size_t o = sizeof(t);
	uint64_t u;

	/* Negate in unsigned arithmetic so INT64_MIN is safe. */
	u = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
	do {
		t[--o] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (i < 0)
		t[--o] = '-';
	jw_put(w, t + o, sizeof(t) - o);
}

/*
 * Shortest of %.15g, %.16g, %.17g that reads back to the same double;
 * %.17g always does.  Non-finite numbers have no JSON form: null, as
 * cJSON prints them.
 */
static void
jw_double(struct jw *w, double d)
{
	char t[64];
	int prec, n = 0;
	size_t i;

	if (!isfinite(d)) {
		jw_lit(w, "null");
		return;
	}
	for (prec = 15; prec <= 17; prec++) {
		n = snprintf(t, sizeof(t), "%.*g", prec, d);
		if (n <= 0 || (size_t)n >= sizeof(t)) {
			w->r = -BNC_ERR_INTERNAL;
			return;
		}
		if (strtod(t, NULL) == d)
			break;
	}
	/* A locale with a decimal comma must not leak into JSON. */
	for (i = 0; i < (size_t)n; i++)
		if (t[i] == ',')
			t[i] = '.';
	jw_put(w, t, (size_t)n);
}

/* depth counts containers entered, the root container being 1. */
static void
jw_value(struct jw *w, const struct value *v, int depth)
{
	const struct member *m, **order = NULL;
	size_t i;

	if (w->r != 0)
		return;
	if (v == NULL) {
		w->r = -BNC_ERR_BAD_FORMAT;
		return;
	}
	if (w->strict && ++w->nodes > BNC_VALUE_NODES_MAX) {
		w->r = -BNC_ERR_TOO_LARGE;
		return;
	}
	switch (v->type) {
	case V_NULL:
		jw_lit(w, "null");
		return;
	case V_BOOL:
		if (v->u.b)
			jw_lit(w, "true");
		else
			jw_lit(w, "false");
		return;
	case V_INT:
		if (w->strict && (v->u.i > VALUE_INT_EXACT ||
		    v->u.i < -VALUE_INT_EXACT)) {
			w->r = -BNC_ERR_TOO_LARGE;
			return;
		}
		jw_int(w, v->u.i);
		return;
	case V_DOUBLE:
		if (w->strict && !isfinite(v->u.d)) {
			w->r = -BNC_ERR_BAD_FORMAT;
			return;
		}
		jw_double(w, v->u.d);
		return;
	case V_STRING:
		jw_string(w, v->u.s.p, v->u.s.len);
		return;
	case V_ARRAY:
		if (depth + 1 > BNC_VALUE_DEPTH_MAX) {
			w->r = -BNC_ERR_TOO_DEEP;
			return;
		}
		jw_putc(w, '[');
		for (i = 0; i < v->u.a.n && w->r == 0; i++) {
			if (i > 0)
				jw_putc(w, ',');
			jw_value(w, v->u.a.v[i], depth + 1);
		}
		jw_putc(w, ']');
		return;
	case V_OBJECT:
		if (depth + 1 > BNC_VALUE_DEPTH_MAX) {
			w->r = -BNC_ERR_TOO_DEEP;
			return;
		}
		if (w->sorted && v->u.o.n > 1) {
			order = xreallocarray(NULL, v->u.o.n, sizeof(*order));
			for (i = 0; i < v->u.o.n; i++)
				order[i] = &v->u.o.m[i];
			qsort(order, v->u.o.n, sizeof(*order), member_cmp);
		}
		jw_putc(w, '{');
		for (i = 0; i < v->u.o.n && w->r == 0; i++) {
			m = order != NULL ? order[i] : &v->u.o.m[i];
			if (i > 0)
				jw_putc(w, ',');
			jw_string(w, m->key, m->klen);
			jw_putc(w, ':');
			jw_value(w, m->val, depth + 1);
		}
		jw_putc(w, '}');
		free(order);
		return;
	}
	w->r = -BNC_ERR_BAD_FORMAT;
}

static void
jw_id(struct jw *w, const struct rpc_id *id)
{
	switch (id->type) {
	case RPC_ID_INT:
		jw_int(w, id->n);
		return;
	case RPC_ID_STR:
		if (id->s == NULL) {
			w->r = -BNC_ERR_BAD_FORMAT;
			return;
		}
		jw_string(w, id->s, strlen(id->s));
		return;
	default:
		jw_lit(w, "null");
		return;
	}
}

/* Flushes the staging area; on error, drops everything this call added. */
static int
jw_finish(struct jw *w, size_t saved)
{
	jw_flush(w);
	/*
	 * buf_reserve() may have compacted the buffer, moving its unread
	 * bytes to the front; the unread count survives that, the offset
	 * does not.
	 */
	if (w->r != 0)
		w->out->len = w->out->off + saved;
	return w->r;
}

int
value_render(struct buf *out, const struct value *v)
{
	struct jw w;
	size_t saved = buf_len(out);

	jw_init(&w, out);
	jw_value(&w, v, 0);
	return jw_finish(&w, saved);
}

int
value_render_canonical(struct buf *out, const struct value *v)
{
	struct jw w;
	size_t saved = buf_len(out);

	jw_init(&w, out);
	w.sorted = 1;
	jw_value(&w, v, 0);
	return jw_finish(&w, saved);
}

static int
id_is_request_id(const struct rpc_id *id)
{
	return id->type == RPC_ID_INT ||
	    (id->type == RPC_ID_STR && id->s != NULL);
}

int
rpc_render(struct buf *out, const struct rpc *m)
{
	struct rpc_out o;

	rpc_out_of(&o, m);
	return rpc_out_render(out, &o);
}

/*
 * msg_rpc_out_put()'s envelope rules, for the strict form: a request has
 * an id and a notification none, an answer's id is not absent, and the
 * method, the error message and a string id are UTF-8 text within their
 * caps.  The values are checked as they are rendered.
 */
static int
envelope_check(const struct rpc_out *m)
{
	int req = m->id.type == RPC_ID_INT || m->id.type == RPC_ID_STR;

	if (m->id.type == RPC_ID_STR && (m->id.s == NULL ||
	    strlen(m->id.s) > BNC_ID_STR_MAX))
		return -BNC_ERR_TOO_LARGE;
	switch (m->kind) {
	case RPC_REQUEST:
	case RPC_NOTIFICATION:
		if ((m->kind == RPC_REQUEST) != req ||
		    (m->kind == RPC_NOTIFICATION && m->id.type != RPC_ID_NONE))
			return -BNC_ERR_BAD_FORMAT;
		if (m->method != NULL && strlen(m->method) > BNC_METHOD_MAX)
			return -BNC_ERR_TOO_LARGE;
		return 0;
	case RPC_RESULT:
		return req ? 0 : -BNC_ERR_BAD_FORMAT;
	case RPC_ERROR:
		if (m->id.type == RPC_ID_NONE)
			return -BNC_ERR_BAD_FORMAT;
		if (m->message != NULL && strlen(m->message) > BNC_ERRMSG_MAX)
			return -BNC_ERR_TOO_LARGE;
		return 0;
	}
	return -BNC_ERR_BAD_FORMAT;
}

static int
render_rpc(struct buf *out, const struct rpc_out *m, int strict)
{
	struct jw w;
	size_t saved = buf_len(out);
	int r;

	if (strict && (r = envelope_check(m)) != 0)
		return r;
	jw_init(&w, out);
	w.strict = strict;
	jw_lit(&w, "{\"jsonrpc\":\"2.0\"");
	switch (m->kind) {
	case RPC_REQUEST:
	case RPC_NOTIFICATION:
		if (m->method == NULL || *m->method == '\0' ||
		    (m->kind == RPC_REQUEST && !id_is_request_id(&m->id))) {
			w.r = -BNC_ERR_BAD_FORMAT;
			break;
		}
		if (m->kind == RPC_REQUEST) {
			jw_lit(&w, ",\"id\":");
			jw_id(&w, &m->id);
		}
		jw_lit(&w, ",\"method\":");
		jw_string(&w, m->method, strlen(m->method));
		if (m->params != NULL) {
			jw_lit(&w, ",\"params\":");
			jw_value(&w, m->params, 0);
		}
		break;
	case RPC_RESULT:
		if (m->result == NULL || !id_is_request_id(&m->id)) {
			w.r = -BNC_ERR_BAD_FORMAT;
			break;
		}
		jw_lit(&w, ",\"id\":");
		jw_id(&w, &m->id);
		jw_lit(&w, ",\"result\":");
		jw_value(&w, m->result, 0);
		break;
	case RPC_ERROR:
		if (m->message == NULL) {
			w.r = -BNC_ERR_BAD_FORMAT;
			break;
		}
		/* An error about a line whose id was unreadable: id null. */
		jw_lit(&w, ",\"id\":");
		jw_id(&w, &m->id);
		jw_lit(&w, ",\"error\":{\"code\":");
		jw_int(&w, m->code);
		jw_lit(&w, ",\"message\":");
		jw_string(&w, m->message, strlen(m->message));
		if (m->data != NULL) {
			jw_lit(&w, ",\"data\":");
			jw_value(&w, m->data, 0);
		}
		jw_putc(&w, '}');
		break;
	default:
		w.r = -BNC_ERR_BAD_FORMAT;
		break;
	}
	jw_lit(&w, "}\n");
	return jw_finish(&w, saved);
}

int
rpc_out_render(struct buf *out, const struct rpc_out *m)
{
	return render_rpc(out, m, 0);
}

int
rpc_out_render_strict(struct buf *out, const struct rpc_out *m)
{
	return render_rpc(out, m, 1);
}

/* cJSON trees, for callers that edit before printing. */

static cJSON *
to_cjson(const struct value *v, int depth)
{
	cJSON *c = NULL, *child;
	char t[24];
	size_t i;

	if (v == NULL)
		return NULL;
	switch (v->type) {
	case V_NULL:
		return cJSON_CreateNull();
	case V_BOOL:
		return cJSON_CreateBool(v->u.b);
	case V_INT:
		/* cJSON prints "%d" only for what fits an int. */
		if (v->u.i >= -2147483647LL - 1 && v->u.i <= 2147483647LL)
			return cJSON_CreateNumber((double)v->u.i);
		snprintf(t, sizeof(t), "%lld", (long long)v->u.i);
		return cJSON_CreateRaw(t);
	case V_DOUBLE:
		return cJSON_CreateNumber(v->u.d);
	case V_STRING:
		return cJSON_CreateString(v->u.s.p);
	case V_ARRAY:
		if (depth + 1 > BNC_VALUE_DEPTH_MAX ||
		    (c = cJSON_CreateArray()) == NULL)
			return NULL;
		for (i = 0; i < v->u.a.n; i++) {
			if ((child = to_cjson(v->u.a.v[i], depth + 1)) == NULL)
				goto fail;
			if (!cJSON_AddItemToArray(c, child)) {
				cJSON_Delete(child);
				goto fail;
			}
		}
		return c;
	case V_OBJECT:
		if (depth + 1 > BNC_VALUE_DEPTH_MAX ||
		    (c = cJSON_CreateObject()) == NULL)
			return NULL;
		for (i = 0; i < v->u.o.n; i++) {
			if ((child = to_cjson(v->u.o.m[i].val,
			    depth + 1)) == NULL)
				goto fail;
			if (!cJSON_AddItemToObject(c, v->u.o.m[i].key, child)) {
				cJSON_Delete(child);
				goto fail;
			}
		}
		return c;
	}
	return NULL;
 fail:
	cJSON_Delete(c);
	return NULL;
}

cJSON *
value_to_cjson(const struct value *v)
{
	return to_cjson(v, 0);
}
