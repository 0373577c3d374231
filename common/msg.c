/*
 * msg.c - one encoder/decoder trio per message type (STYLE rule 3).
 *
 * Every field is serialised explicitly with its own cap; a _get consumes
 * the whole payload or fails, and leftover bytes are -BNC_ERR_TRAILING.
 * On failure a _get may leave fields allocated: the caller always calls
 * the matching _free, which accepts a partly filled structure.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "bounds.h"
#include "log.h"
#include "msg.h"
#include "utf8.h"
#include "value.h"
#include "xmalloc.h"

/* A type every child sends (its hello, its logs): either child's
 * direction to the monitor. */
#define MSG_DIR_ANY_CHILD	0

struct msg_desc {
	uint16_t	 type;
	enum msg_dir	 dir;		/* or MSG_DIR_ANY_CHILD */
	const char	*name;
	size_t		 cap;		/* 0: depends on max_message */
};

static const struct msg_desc msg_table[] = {
	{ MSG_HELLO,	 MSG_DIR_ANY_CHILD, "hello", BNC_CTRL_MSG_MAX },
	{ MSG_LOG,	 MSG_DIR_ANY_CHILD, "log", BNC_CTRL_MSG_MAX },
	{ MSG_RPC_IN,	 MSG_DIR_WORKER_TO_MONITOR, "rpc-in", 0 },
	{ MSG_RPC_BAD,	 MSG_DIR_WORKER_TO_MONITOR, "rpc-bad", BNC_CTRL_MSG_MAX },
	{ MSG_INPUT_EOF, MSG_DIR_WORKER_TO_MONITOR, "input-eof", BNC_CTRL_MSG_MAX },
	{ MSG_RPC_OUT,	 MSG_DIR_MONITOR_TO_WORKER, "rpc-out", 0 },
	{ MSG_SHUTDOWN,	 MSG_DIR_MONITOR_TO_WORKER, "shutdown", BNC_CTRL_MSG_MAX },
	/* the typed fields, and the status, code and message around them */
	{ MSG_CARRIER_RESULT, MSG_DIR_CARRIER_TO_MONITOR, "carrier-result",
	    BNC_CARRIER_RESULT_MAX + BNC_CTRL_MSG_MAX },
	{ MSG_CARRIER_CALL, MSG_DIR_MONITOR_TO_CARRIER, "carrier-call",
	    BNC_CARRIER_CALL_MAX },
	{ MSG_CARRIER_PROBE, MSG_DIR_MONITOR_TO_CARRIER, "carrier-probe",
	    BNC_CTRL_MSG_MAX },
};

static const struct msg_desc *
msg_find(uint16_t type)
{
	size_t i;

	for (i = 0; i < sizeof(msg_table) / sizeof(msg_table[0]); i++)
		if (msg_table[i].type == type)
			return &msg_table[i];
	return NULL;
}

int
msg_type_allowed(enum msg_dir dir, uint16_t type)
{
	const struct msg_desc *d;

	if ((d = msg_find(type)) == NULL)
		return 0;
	if (d->dir == MSG_DIR_ANY_CHILD)
		return dir == MSG_DIR_WORKER_TO_MONITOR ||
		    dir == MSG_DIR_CARRIER_TO_MONITOR;
	return d->dir == dir;
}

const char *
msg_type_name(uint16_t type)
{
	const struct msg_desc *d;

	return (d = msg_find(type)) != NULL ? d->name : "unknown";
}

size_t
msg_type_cap(uint16_t type, size_t max_message)
{
	const struct msg_desc *d;

	if ((d = msg_find(type)) == NULL)
		return 0;
	if (d->cap != 0)
		return d->cap;
	/*
	 * A tree costs at most a few bytes per node beyond its text, and
	 * both are capped: the text by max_message, nodes by the limit.
	 */
	return max_message + 16 * (size_t)BNC_VALUE_NODES_MAX + 4096;
}

static int
check_done(struct buf *b)
{
	return buf_len(b) == 0 ? 0 : -BNC_ERR_TRAILING;
}

/* A cstring that must also be valid UTF-8. */
static int
get_text(struct buf *b, char **sp, size_t max)
{
	size_t n;
	int r;

	if ((r = buf_get_cstring(b, sp, &n, max)) != 0)
		return r;
	if (!utf8_valid(*sp, n)) {
		free(*sp);
		*sp = NULL;
		return -BNC_ERR_BAD_UTF8;
	}
	return 0;
}

/* get_text's twin: never writes what get_text refuses. */
static int
put_text(struct buf *b, const char *s, size_t max)
{
	size_t n;

	if (s == NULL || (n = strlen(s)) > max)
		return -BNC_ERR_TOO_LARGE;
	if (!utf8_valid(s, n))
		return -BNC_ERR_BAD_UTF8;
	return buf_put_cstring(b, s);
}

/* MSG_HELLO */

int
msg_hello_put(struct buf *b, const struct msg_hello *m)
{
	int r;

	if (m->role < ROLE_WORKER_CLIENT || m->role > ROLE_MAX ||
	    m->sandbox > SB_STATE_DEBUG)
		return -BNC_ERR_BAD_FORMAT;
	if ((r = buf_put_u8(b, m->role)) != 0 ||
	    (r = buf_put_u8(b, m->sandbox)) != 0 ||
	    (r = buf_put_u32(b, m->pid)) != 0 ||
	    (r = buf_put_u32(b, m->landlock_abi)) != 0)
		return r;
	return 0;
}

int
msg_hello_get(struct buf *b, struct msg_hello *m)
{
	int r;

	memset(m, 0, sizeof(*m));
	if ((r = buf_get_u8(b, &m->role)) != 0 ||
	    (r = buf_get_u8(b, &m->sandbox)) != 0 ||
	    (r = buf_get_u32(b, &m->pid)) != 0 ||
	    (r = buf_get_u32(b, &m->landlock_abi)) != 0)
		return r;
	if (m->role < ROLE_WORKER_CLIENT || m->role > ROLE_MAX)
		return -BNC_ERR_BAD_FORMAT;
	if (m->sandbox > SB_STATE_DEBUG)
		return -BNC_ERR_BAD_FORMAT;
	return check_done(b);
}

void
msg_hello_free(struct msg_hello *m)
{
	(void)m;
}

/* MSG_LOG */

int
msg_log_put(struct buf *b, const struct msg_log *m)
{
	int r;

	if (m->level < LOG_LEVEL_FATAL || m->level > LOG_LEVEL_DEBUG3)
		return -BNC_ERR_BAD_FORMAT;
	/* any bytes but NUL, as msg_log_get reads: the monitor escapes
	 * what it logs, and a line may quote what was not UTF-8 */
	if (m->line == NULL || strlen(m->line) > BNC_LOG_LINE_MAX)
		return -BNC_ERR_TOO_LARGE;
	if ((r = buf_put_u8(b, m->level)) != 0 ||
	    (r = buf_put_cstring(b, m->line)) != 0)
		return r;
	return 0;
}

int
msg_log_get(struct buf *b, struct msg_log *m)
{
	int r;

	memset(m, 0, sizeof(*m));
	if ((r = buf_get_u8(b, &m->level)) != 0 ||
	    (r = buf_get_cstring(b, &m->line, NULL, BNC_LOG_LINE_MAX)) != 0)
		return r;
	if (m->level < LOG_LEVEL_FATAL || m->level > LOG_LEVEL_DEBUG3)
		return -BNC_ERR_BAD_FORMAT;
	return check_done(b);
}

void
msg_log_free(struct msg_log *m)
{
	if (m == NULL)
		return;
	free(m->line);
	m->line = NULL;
}

/* MSG_CARRIER_CALL */

/* An object of strings, each within its bound (the text's is larger). */
static int
carrier_args_ok(const struct value *v)
{
	size_t i;

	if (!value_is(v, V_OBJECT) || v->u.o.n > BNC_CARRIER_ARGS_MAX)
		return 0;
	for (i = 0; i < v->u.o.n; i++) {
		if (strlen(v->u.o.m[i].key) > BNC_CARRIER_ARG_NAME_MAX ||
		    !value_is(v->u.o.m[i].val, V_STRING))
			return 0;
		if (v->u.o.m[i].val->u.s.len > (strcmp(v->u.o.m[i].key,
		    "text") == 0 ? BNC_CONSENT_TEXT_MAX : BNC_CARRIER_ARG_MAX))
			return 0;
	}
	return 1;
}

int
msg_carrier_call_put(struct buf *b, const struct msg_carrier_call *m)
{
	int r;

	if (m->endpoint == 0 || !carrier_args_ok(m->args))
		return -BNC_ERR_BAD_FORMAT;
	if ((r = buf_put_u16(b, m->endpoint)) != 0 ||
	    (r = value_encode(b, m->args)) != 0)
		return r;
	return 0;
}

int
msg_carrier_call_get(struct buf *b, struct msg_carrier_call *m)
{
	int r;

	memset(m, 0, sizeof(*m));
	if ((r = buf_get_u16(b, &m->endpoint)) != 0 ||
	    (r = value_decode(b, &m->args, BNC_CARRIER_CALL_MAX)) != 0)
		return r;
	if (m->endpoint == 0 || !carrier_args_ok(m->args))
		return -BNC_ERR_BAD_FORMAT;
	return check_done(b);
}

void
msg_carrier_call_free(struct msg_carrier_call *m)
{
	if (m == NULL)
		return;
	value_free(m->args);
	m->args = NULL;
}

/* MSG_CARRIER_PROBE */

int
msg_carrier_probe_put(struct buf *b, const struct msg_carrier_probe *m)
{
	int r;

	if ((r = put_text(b, m->method, BNC_CARRIER_METHOD_MAX)) != 0 ||
	    (r = put_text(b, m->path, BNC_CARRIER_PATH_MAX)) != 0)
		return r;
	return 0;
}

int
msg_carrier_probe_get(struct buf *b, struct msg_carrier_probe *m)
{
	int r;

	memset(m, 0, sizeof(*m));
	if ((r = get_text(b, &m->method, BNC_CARRIER_METHOD_MAX)) != 0 ||
	    (r = get_text(b, &m->path, BNC_CARRIER_PATH_MAX)) != 0)
		return r;
	return check_done(b);
}

void
msg_carrier_probe_free(struct msg_carrier_probe *m)
{
	if (m == NULL)
		return;
	free(m->method);
	free(m->path);
	m->method = m->path = NULL;
}

/* MSG_CARRIER_RESULT */

int
msg_carrier_result_put(struct buf *b, const struct msg_carrier_result *m)
{
	int r;

	if (m->status > BNC_CARRIER_STATUS_MAX || m->sent > 1 ||
	    m->retry_after > BNC_CARRIER_RETRY_AFTER_MAX ||
	    (m->status == 0) != (m->data != NULL) ||
	    (m->status == CARRIER_STATUS_REFUSED && m->sent))
		return -BNC_ERR_BAD_FORMAT;
	if ((r = buf_put_u8(b, m->status)) != 0 ||
	    (r = buf_put_u8(b, m->sent)) != 0 ||
	    (r = buf_put_u16(b, m->http_status)) != 0 ||
	    (r = buf_put_u32(b, m->retry_after)) != 0 ||
	    (r = put_text(b, m->code != NULL ? m->code : "",
	    BNC_CARRIER_CODE_MAX)) != 0 ||
	    (r = put_text(b, m->message != NULL ? m->message : "",
	    BNC_REASON_MAX)) != 0)
		return r;
	if (m->data != NULL && (r = value_encode(b, m->data)) != 0)
		return r;
	return 0;
}

int
msg_carrier_result_get(struct buf *b, struct msg_carrier_result *m,
    size_t max_message)
{
	int r;

	memset(m, 0, sizeof(*m));
	if ((r = buf_get_u8(b, &m->status)) != 0 ||
	    (r = buf_get_u8(b, &m->sent)) != 0 ||
	    (r = buf_get_u16(b, &m->http_status)) != 0 ||
	    (r = buf_get_u32(b, &m->retry_after)) != 0 ||
	    (r = get_text(b, &m->code, BNC_CARRIER_CODE_MAX)) != 0 ||
	    (r = get_text(b, &m->message, BNC_REASON_MAX)) != 0)
		return r;
	/* refused means nothing reached the network */
	if (m->status > BNC_CARRIER_STATUS_MAX || m->sent > 1 ||
	    m->retry_after > BNC_CARRIER_RETRY_AFTER_MAX ||
	    (m->status == CARRIER_STATUS_REFUSED && m->sent))
		return -BNC_ERR_BAD_FORMAT;
	if (m->status == 0 && (r = value_decode(b, &m->data,
	    max_message < BNC_CARRIER_RESULT_MAX ? max_message :
	    BNC_CARRIER_RESULT_MAX)) != 0)
		return r;
	return check_done(b);
}

void
msg_carrier_result_free(struct msg_carrier_result *m)
{
	if (m == NULL)
		return;
	free(m->code);
	free(m->message);
	value_free(m->data);
	m->code = m->message = NULL;
	m->data = NULL;
}

/* JSON-RPC ids */

void
rpc_id_clear(struct rpc_id *id)
{
	free(id->s);
	memset(id, 0, sizeof(*id));
}

void
rpc_id_copy(struct rpc_id *dst, const struct rpc_id *src)
{
	dst->type = src->type;
	dst->n = src->n;
	dst->s = src->s != NULL ? xstrdup(src->s) : NULL;
}

int
rpc_id_equal(const struct rpc_id *a, const struct rpc_id *b)
{
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case RPC_ID_INT:
		return a->n == b->n;
	case RPC_ID_STR:
		return strcmp(a->s, b->s) == 0;
	default:
		return 1;
	}
}

int
rpc_id_put(struct buf *b, const struct rpc_id *id)
{
	int r;

	if ((r = buf_put_u8(b, id->type)) != 0)
		return r;
	switch (id->type) {
	case RPC_ID_NONE:
	case RPC_ID_NULL:
		return 0;
	case RPC_ID_INT:
		return buf_put_i64(b, id->n);
	case RPC_ID_STR:
		return put_text(b, id->s, BNC_ID_STR_MAX);
	}
	return -BNC_ERR_BAD_FORMAT;
}

int
rpc_id_get(struct buf *b, struct rpc_id *id)
{
	int r;

	memset(id, 0, sizeof(*id));
	if ((r = buf_get_u8(b, &id->type)) != 0)
		return r;
	switch (id->type) {
	case RPC_ID_NONE:
	case RPC_ID_NULL:
		return 0;
	case RPC_ID_INT:
		return buf_get_i64(b, &id->n);
	case RPC_ID_STR:
		return get_text(b, &id->s, BNC_ID_STR_MAX);
	}
	return -BNC_ERR_BAD_FORMAT;
}

/* MSG_RPC_IN / MSG_RPC_OUT */

static int
put_opt_value(struct buf *b, const struct value *v)
{
	int r;

	if (v == NULL)
		return buf_put_u8(b, 0);
	if ((r = buf_put_u8(b, 1)) != 0)
		return r;
	return value_encode(b, v);
}

static int
get_opt_value(struct buf *b, struct value **vp, size_t max)
{
	uint8_t present;
	int r;

	*vp = NULL;
	if ((r = buf_get_u8(b, &present)) != 0)
		return r;
	if (present > 1)
		return -BNC_ERR_BAD_FORMAT;
	if (!present)
		return 0;
	return value_decode(b, vp, max);
}

void
rpc_out_of(struct rpc_out *o, const struct rpc *m)
{
	o->kind = m->kind;
	o->id = m->id;
	o->method = m->method;
	o->params = m->params;
	o->result = m->result;
	o->code = m->code;
	o->message = m->message;
	o->data = m->data;
}

int
msg_rpc_put(struct buf *b, const struct rpc *m)
{
	struct rpc_out o;

	rpc_out_of(&o, m);
	return msg_rpc_out_put(b, &o);
}

int
msg_rpc_out_put(struct buf *b, const struct rpc_out *m)
{
	int r;

	if ((r = buf_put_u8(b, m->kind)) != 0 ||
	    (r = rpc_id_put(b, &m->id)) != 0)
		return r;
	switch (m->kind) {
	case RPC_REQUEST:
	case RPC_NOTIFICATION:
		/* A request has an id; a notification has none, not null. */
		if ((m->kind == RPC_REQUEST) != (m->id.type == RPC_ID_INT ||
		    m->id.type == RPC_ID_STR) || (m->kind == RPC_NOTIFICATION &&
		    m->id.type != RPC_ID_NONE))
			return -BNC_ERR_BAD_FORMAT;
		if (m->method == NULL || *m->method == '\0')
			return -BNC_ERR_BAD_FORMAT;
		if ((r = put_text(b, m->method, BNC_METHOD_MAX)) != 0)
			return r;
		return put_opt_value(b, m->params);
	case RPC_RESULT:
		if (m->result == NULL || m->id.type == RPC_ID_NONE ||
		    m->id.type == RPC_ID_NULL)
			return -BNC_ERR_BAD_FORMAT;
		return value_encode(b, m->result);
	case RPC_ERROR:
		if (m->id.type == RPC_ID_NONE)
			return -BNC_ERR_BAD_FORMAT;
		if ((r = buf_put_i64(b, m->code)) != 0 ||
		    (r = put_text(b, m->message, BNC_ERRMSG_MAX)) != 0)
			return r;
		return put_opt_value(b, m->data);
	}
	return -BNC_ERR_BAD_FORMAT;
}

int
msg_rpc_get(struct buf *b, struct rpc *m, size_t max_message)
{
	int r;

	memset(m, 0, sizeof(*m));
	if ((r = buf_get_u8(b, &m->kind)) != 0 ||
	    (r = rpc_id_get(b, &m->id)) != 0)
		return r;
	switch (m->kind) {
	case RPC_REQUEST:
	case RPC_NOTIFICATION:
		/* A request has an id; a notification has none, not null. */
		if ((m->kind == RPC_REQUEST) != (m->id.type == RPC_ID_INT ||
		    m->id.type == RPC_ID_STR) || (m->kind == RPC_NOTIFICATION &&
		    m->id.type != RPC_ID_NONE))
			return -BNC_ERR_BAD_FORMAT;
		if ((r = get_text(b, &m->method, BNC_METHOD_MAX)) != 0)
			return r;
		if (*m->method == '\0')
			return -BNC_ERR_BAD_FORMAT;
		if ((r = get_opt_value(b, &m->params, max_message)) != 0)
			return r;
		break;
	case RPC_RESULT:
		if (m->id.type == RPC_ID_NONE || m->id.type == RPC_ID_NULL)
			return -BNC_ERR_BAD_FORMAT;
		if ((r = value_decode(b, &m->result, max_message)) != 0)
			return r;
		break;
	case RPC_ERROR:
		if (m->id.type == RPC_ID_NONE)
			return -BNC_ERR_BAD_FORMAT;
		if ((r = buf_get_i64(b, &m->code)) != 0 ||
		    (r = get_text(b, &m->message, BNC_ERRMSG_MAX)) != 0 ||
		    (r = get_opt_value(b, &m->data, max_message)) != 0)
			return r;
		break;
	default:
		return -BNC_ERR_BAD_FORMAT;
	}
	return check_done(b);
}

void
msg_rpc_free(struct rpc *m)
{
	if (m == NULL)
		return;
	rpc_id_clear(&m->id);
	free(m->method);
	value_free(m->params);
	value_free(m->result);
	free(m->message);
	value_free(m->data);
	memset(m, 0, sizeof(*m));
}

/* MSG_RPC_BAD */

int
msg_rpc_bad_put(struct buf *b, const struct msg_rpc_bad *m)
{
	int r;

	if (m->code > -32600 || m->code < -32700 || m->was_response > 1)
		return -BNC_ERR_BAD_FORMAT;
	if ((r = buf_put_u32(b, (uint32_t)m->code)) != 0 ||
	    (r = put_text(b, m->message, BNC_REASON_MAX)) != 0 ||
	    (r = rpc_id_put(b, &m->id)) != 0 ||
	    (r = buf_put_u8(b, m->was_response)) != 0)
		return r;
	return 0;
}

int
msg_rpc_bad_get(struct buf *b, struct msg_rpc_bad *m)
{
	uint32_t code;
	int r;

	memset(m, 0, sizeof(*m));
	if ((r = buf_get_u32(b, &code)) != 0 ||
	    (r = get_text(b, &m->message, BNC_REASON_MAX)) != 0 ||
	    (r = rpc_id_get(b, &m->id)) != 0 ||
	    (r = buf_get_u8(b, &m->was_response)) != 0)
		return r;
	m->code = (int32_t)code;
	/* Only the JSON-RPC codes a parser can produce. */
	if (m->code > -32600 || m->code < -32700 || m->was_response > 1)
		return -BNC_ERR_BAD_FORMAT;
	return check_done(b);
}

void
msg_rpc_bad_free(struct msg_rpc_bad *m)
{
	if (m == NULL)
		return;
	free(m->message);
	rpc_id_clear(&m->id);
}

/* MSG_INPUT_EOF, MSG_SHUTDOWN */

int
msg_empty_put(struct buf *b)
{
	(void)b;
	return 0;
}

int
msg_empty_get(struct buf *b)
{
	return check_done(b);
}
