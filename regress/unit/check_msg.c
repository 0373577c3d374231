/*
 * check_msg.c - unit tests for common/msg.c.
 *
 * Every codec trio in msg.h: round trip, a failure at every truncation,
 * -BNC_ERR_TRAILING for one byte too many, the field caps at the limit
 * and one past it on both the put and the get side, and the message type
 * tables.  Over-cap wire bytes are crafted from the encoder's own output
 * using buf.h's u32-length-prefixed strings, never from a copy of msg.c's
 * layout.
 */

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "bounds.h"
#include "log.h"
#include "msg.h"
#include "value.h"

#define CK_R(expr, want) do {						\
	int ck_r_ = (expr), ck_w_ = (want);				\
	ck_assert_msg(ck_r_ == ck_w_, "%s: got %d (%s), want %d (%s)",	\
	    #expr, ck_r_, bnc_err(ck_r_), ck_w_, bnc_err(ck_w_));	\
} while (0)

#define P53	((int64_t)1 << 53)
#define MAXM	((size_t)BNC_MSG_MAX_DEFAULT)

/*
 * A decoder under test: decodes b, compares with the expected message in
 * ctx when it succeeds, frees what it decoded, returns the get's result.
 */
typedef int (*getcmp_fn)(struct buf *, const void *ctx);

/*
 * The whole payload decodes and is consumed; every truncation fails; one
 * byte more is -BNC_ERR_TRAILING.
 */
static void
check_codec(const char *what, const struct buf *enc, getcmp_fn fn,
    const void *ctx)
{
	struct buf	*b;
	size_t		 full = buf_len(enc), len;
	uint8_t		*p;
	int		 r;

	ck_assert_ptr_nonnull(b = buf_from(buf_ptr(enc), full));
	r = fn(b, ctx);
	ck_assert_msg(r == 0, "%s: decode got %d (%s)", what, r, bnc_err(r));
	ck_assert_msg(buf_len(b) == 0, "%s: %zu bytes left", what,
	    buf_len(b));
	buf_free(b);

	for (len = 0; len < full; len++) {
		ck_assert_ptr_nonnull(b = buf_from(buf_ptr(enc), len));
		r = fn(b, ctx);
		ck_assert_msg(r < 0, "%s: truncated at %zu/%zu: got %d",
		    what, len, full, r);
		buf_free(b);
	}

	p = malloc(full + 1);
	ck_assert_ptr_nonnull(p);
	if (full > 0)
		memcpy(p, buf_ptr(enc), full);
	p[full] = 0;
	ck_assert_ptr_nonnull(b = buf_from(p, full + 1));
	r = fn(b, ctx);
	ck_assert_msg(r == -BNC_ERR_TRAILING,
	    "%s: one trailing byte: got %d (%s)", what, r, bnc_err(r));
	buf_free(b);
	free(p);
}

/*
 * Replaces the one occurrence of the u32-prefixed string `from' (flen
 * bytes) in b with tlen bytes at `to', fixing the length prefix.
 */
static struct buf *
swap_string(const struct buf *b, const void *from, size_t flen,
    const void *to, size_t tlen)
{
	const uint8_t	*p = buf_ptr(b), *hit = NULL;
	size_t		 n = buf_len(b), i, at;
	struct buf	*out;

	for (i = 0; i + flen <= n; i++) {
		if (memcmp(p + i, from, flen) != 0)
			continue;
		ck_assert_msg(hit == NULL, "marker occurs twice");
		hit = p + i;
	}
	ck_assert_msg(hit != NULL, "marker not found");
	at = hit - p;
	ck_assert_uint_ge(at, 4);
	ck_assert_msg(p[at - 4] == (flen >> 24 & 0xff) &&
	    p[at - 3] == (flen >> 16 & 0xff) &&
	    p[at - 2] == (flen >> 8 & 0xff) && p[at - 1] == (flen & 0xff),
	    "marker is not a u32-prefixed string");
	ck_assert_ptr_nonnull(out = buf_new());
	CK_R(buf_put(out, p, at - 4), 0);
	CK_R(buf_put_string(out, to, tlen), 0);
	CK_R(buf_put(out, p + at + flen, n - at - flen), 0);
	return out;
}

/* Returns a malloc'd string of n copies of c. */
static char *
fill(int c, size_t n)
{
	char	*s;

	ck_assert_ptr_nonnull(s = malloc(n + 1));
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static int
str_same(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* MSG_HELLO */

static int
hello_getcmp(struct buf *b, const void *ctx)
{
	const struct msg_hello	*want = ctx;
	struct msg_hello	 got;
	int			 r;

	memset(&got, 0xa5, sizeof(got));
	if ((r = msg_hello_get(b, &got)) != 0) {
		msg_hello_free(&got);
		return r;
	}
	ck_assert_uint_eq(got.role, want->role);
	ck_assert_uint_eq(got.sandbox, want->sandbox);
	ck_assert_uint_eq(got.pid, want->pid);
	ck_assert_uint_eq(got.landlock_abi, want->landlock_abi);
	msg_hello_free(&got);
	return 0;
}

START_TEST(test_hello)
{
	static const struct msg_hello	 cases[] = {
		{ ROLE_WORKER_CLIENT, SB_STATE_ON, 1234, 4 },
		{ ROLE_WORKER_UPSTREAM, SB_STATE_OFF, 0xfffffffe, 0 },
		{ ROLE_WORKER_CLIENT, SB_STATE_DEBUG, 1, 0x7fffffff },
	};
	struct buf	*b;
	unsigned int	 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_ptr_nonnull(b = buf_new());
		CK_R(msg_hello_put(b, &cases[i]), 0);
		check_codec("hello", b, hello_getcmp, &cases[i]);
		buf_free(b);
	}
}
END_TEST

/* MSG_LOG */

static int
log_getcmp(struct buf *b, const void *ctx)
{
	const struct msg_log	*want = ctx;
	struct msg_log		 got;
	int			 r;

	memset(&got, 0, sizeof(got));
	if ((r = msg_log_get(b, &got)) != 0) {
		msg_log_free(&got);
		return r;
	}
	ck_assert_uint_eq(got.level, want->level);
	ck_assert_ptr_nonnull(got.line);
	ck_assert_str_eq(got.line, want->line);
	msg_log_free(&got);
	return 0;
}

START_TEST(test_log)
{
	struct msg_log	 m;
	struct buf	*b;

	m.level = LOG_LEVEL_ERROR;
	m.line = "worker: sandbox on, \xc3\xa9t\xc3\xa9";
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_log_put(b, &m), 0);
	check_codec("log", b, log_getcmp, &m);
	buf_free(b);

	m.level = LOG_LEVEL_DEBUG3;
	m.line = "";
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_log_put(b, &m), 0);
	check_codec("log empty", b, log_getcmp, &m);
	buf_free(b);
}
END_TEST

/* rpc */

static void
rpc_cmp(const struct rpc *got, const struct rpc *want)
{
	ck_assert_uint_eq(got->kind, want->kind);
	ck_assert_msg(rpc_id_equal(&got->id, &want->id), "id differs");
	ck_assert_uint_eq(got->id.type, want->id.type);
	if (want->id.type == RPC_ID_INT)
		ck_assert_int_eq(got->id.n, want->id.n);
	if (want->id.type == RPC_ID_STR)
		ck_assert_str_eq(got->id.s, want->id.s);
	switch (want->kind) {
	case RPC_REQUEST:
	case RPC_NOTIFICATION:
		ck_assert_str_eq(got->method, want->method);
		ck_assert_msg(value_equal(got->params, want->params),
		    "params differ");
		break;
	case RPC_RESULT:
		ck_assert_ptr_nonnull(got->result);
		ck_assert_msg(value_equal(got->result, want->result),
		    "result differs");
		break;
	case RPC_ERROR:
		ck_assert_int_eq(got->code, want->code);
		ck_assert_msg(str_same(got->message, want->message) ||
		    (want->message == NULL && got->message != NULL &&
		    *got->message == '\0'), "message differs");
		ck_assert_msg(value_equal(got->data, want->data),
		    "data differs");
		break;
	}
}

struct rpc_ctx {
	const struct rpc	*want;
	size_t			 max_message;
};

static int
rpc_getcmp(struct buf *b, const void *ctx)
{
	const struct rpc_ctx	*c = ctx;
	struct rpc		 got;
	int			 r;

	memset(&got, 0, sizeof(got));
	if ((r = msg_rpc_get(b, &got, c->max_message)) != 0) {
		msg_rpc_free(&got);
		return r;
	}
	rpc_cmp(&got, c->want);
	msg_rpc_free(&got);
	return 0;
}

static struct value *
sample_params(void)
{
	struct value	*o, *a;

	o = value_object();
	CK_R(value_object_set(o, "name", value_string("read_file")), 0);
	a = value_object();
	CK_R(value_object_set(a, "path", value_string("/tmp/\xc3\xa9")), 0);
	CK_R(value_object_set(a, "n", value_int(-P53)), 0);
	CK_R(value_object_set(a, "list", value_array()), 0);
	CK_R(value_object_set(o, "arguments", a), 0);
	return o;
}

static void
rpc_roundtrip(const char *what, const struct rpc *m)
{
	struct rpc_ctx	 c = { m, MAXM };
	struct buf	*b;

	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_rpc_put(b, m), 0);
	check_codec(what, b, rpc_getcmp, &c);
	buf_free(b);
}

START_TEST(test_rpc_request)
{
	struct rpc	 m;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_REQUEST;
	m.id.type = RPC_ID_INT;
	m.id.n = 42;
	m.method = "tools/call";
	m.params = sample_params();
	rpc_roundtrip("request int id", &m);
	value_free(m.params);
	m.params = NULL;
	rpc_roundtrip("request int id, no params", &m);

	m.id.n = -P53;
	rpc_roundtrip("request id -2^53", &m);
	m.id.n = P53;
	rpc_roundtrip("request id 2^53", &m);
	m.id.n = 0;
	rpc_roundtrip("request id 0", &m);

	m.id.type = RPC_ID_STR;
	m.id.s = "req-\xe2\x82\xac-1";
	m.method = "ping";
	rpc_roundtrip("request str id, no params", &m);
	m.params = value_array();
	rpc_roundtrip("request str id, empty array params", &m);
	value_free(m.params);
	m.params = value_object();
	rpc_roundtrip("request str id, empty object params", &m);
	value_free(m.params);
	m.params = NULL;
	m.id.s = "";
	rpc_roundtrip("request empty str id", &m);
}
END_TEST

START_TEST(test_rpc_notification)
{
	struct rpc	 m;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_NOTIFICATION;
	m.id.type = RPC_ID_NONE;
	m.method = "notifications/initialized";
	rpc_roundtrip("notification, no params", &m);
	m.method = "notifications/progress";
	m.params = sample_params();
	rpc_roundtrip("notification with params", &m);
	value_free(m.params);
}
END_TEST

START_TEST(test_rpc_result)
{
	struct rpc	 m;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_RESULT;
	m.id.type = RPC_ID_INT;
	m.id.n = 7;
	m.result = sample_params();
	rpc_roundtrip("result int id", &m);
	value_free(m.result);
	m.id.type = RPC_ID_STR;
	m.id.s = "abc";
	m.result = value_object();
	rpc_roundtrip("result str id, empty object", &m);
	value_free(m.result);
	m.result = value_null();
	rpc_roundtrip("result null", &m);
	value_free(m.result);
}
END_TEST

START_TEST(test_rpc_error)
{
	struct rpc	 m;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_ERROR;
	m.id.type = RPC_ID_INT;
	m.id.n = 9;
	m.code = -32601;
	m.message = "Method not found";
	rpc_roundtrip("error int id, no data", &m);
	m.data = sample_params();
	rpc_roundtrip("error int id, data", &m);
	value_free(m.data);
	m.data = NULL;

	m.id.type = RPC_ID_STR;
	m.id.s = "s-1";
	m.code = INT64_MIN;
	m.message = "";
	rpc_roundtrip("error str id, empty message", &m);
	m.data = value_string("why");
	rpc_roundtrip("error str id, string data", &m);
	value_free(m.data);
	m.data = NULL;

	m.id.type = RPC_ID_NULL;
	m.code = -32700;
	m.message = "Parse error";
	rpc_roundtrip("error null id", &m);
	m.data = value_null();
	rpc_roundtrip("error null id, null data", &m);
	value_free(m.data);
}
END_TEST

/* MSG_RPC_BAD */

static int
rpc_bad_getcmp(struct buf *b, const void *ctx)
{
	const struct msg_rpc_bad	*want = ctx;
	struct msg_rpc_bad		 got;
	int				 r;

	memset(&got, 0, sizeof(got));
	if ((r = msg_rpc_bad_get(b, &got)) != 0) {
		msg_rpc_bad_free(&got);
		return r;
	}
	ck_assert_int_eq(got.code, want->code);
	ck_assert_ptr_nonnull(got.message);
	ck_assert_str_eq(got.message, want->message);
	ck_assert_msg(rpc_id_equal(&got.id, &want->id), "id differs");
	ck_assert_uint_eq(got.was_response, want->was_response);
	msg_rpc_bad_free(&got);
	return 0;
}

START_TEST(test_rpc_bad)
{
	struct msg_rpc_bad	 m;
	struct buf		*b;
	unsigned int		 i;

	for (i = 0; i < 4; i++) {
		memset(&m, 0, sizeof(m));
		m.code = i % 2 ? -32700 : -32600;
		m.message = i == 3 ? "" : "Invalid Request";
		m.id.type = i;	/* NONE, NULL, INT, STR */
		m.id.n = -5;
		m.id.s = "bad-\xc3\xa9";
		if (i != RPC_ID_INT)
			m.id.n = 0;
		if (i != RPC_ID_STR)
			m.id.s = NULL;
		m.was_response = i == 2;
		ck_assert_ptr_nonnull(b = buf_new());
		CK_R(msg_rpc_bad_put(b, &m), 0);
		check_codec("rpc_bad", b, rpc_bad_getcmp, &m);
		buf_free(b);
	}
}
END_TEST

/* MSG_INPUT_EOF, MSG_SHUTDOWN */

static int
empty_get(struct buf *b, const void *ctx)
{
	return msg_empty_get(b);
}

START_TEST(test_empty)
{
	struct buf	*b;

	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_empty_put(b), 0);
	ck_assert_uint_eq(buf_len(b), 0);
	check_codec("empty", b, empty_get, NULL);
	CK_R(buf_put_u32(b, 0), 0);
	CK_R(msg_empty_get(b), -BNC_ERR_TRAILING);
	buf_free(b);
}
END_TEST

/* rpc_id helpers */

static int
id_getcmp(struct buf *b, const void *ctx)
{
	const struct rpc_id	*want = ctx;
	struct rpc_id		 got;
	int			 r;

	memset(&got, 0, sizeof(got));
	if ((r = rpc_id_get(b, &got)) != 0) {
		rpc_id_clear(&got);
		return r;
	}
	ck_assert(rpc_id_equal(&got, want));
	rpc_id_clear(&got);
	return 0;
}

START_TEST(test_rpc_id)
{
	struct rpc_id	 ids[6], copy;
	struct buf	*b, *w;
	unsigned int	 i, j;
	size_t		 full, len;

	memset(ids, 0, sizeof(ids));
	ids[0].type = RPC_ID_NONE;
	ids[1].type = RPC_ID_NULL;
	ids[2].type = RPC_ID_INT;
	ids[2].n = 1;
	ids[3].type = RPC_ID_INT;
	ids[3].n = -1;
	ids[4].type = RPC_ID_STR;
	ids[4].s = "1";
	ids[5].type = RPC_ID_STR;
	ids[5].s = "";
	for (i = 0; i < 6; i++)
		for (j = 0; j < 6; j++)
			ck_assert_msg(rpc_id_equal(&ids[i], &ids[j]) ==
			    (i == j), "rpc_id_equal(%u, %u)", i, j);
	for (i = 0; i < 6; i++) {
		rpc_id_copy(&copy, &ids[i]);
		ck_assert(rpc_id_equal(&copy, &ids[i]));
		if (ids[i].type == RPC_ID_STR)
			ck_assert_ptr_ne(copy.s, ids[i].s);
		rpc_id_clear(&copy);
		ck_assert_uint_eq(copy.type, RPC_ID_NONE);
		ck_assert_ptr_null(copy.s);

		ck_assert_ptr_nonnull(b = buf_new());
		CK_R(rpc_id_put(b, &ids[i]), 0);
		full = buf_len(b);
		/* rpc_id_get is a field reader: it leaves what follows */
		CK_R(buf_put_u8(b, 0x99), 0);
		ck_assert_ptr_nonnull(w = buf_from(buf_ptr(b), full + 1));
		CK_R(id_getcmp(w, &ids[i]), 0);
		ck_assert_uint_eq(buf_len(w), 1);
		buf_free(w);
		for (len = 0; len < full; len++) {
			ck_assert_ptr_nonnull(w = buf_from(buf_ptr(b), len));
			ck_assert_msg(id_getcmp(w, &ids[i]) < 0,
			    "id %u truncated at %zu", i, len);
			buf_free(w);
		}
		buf_free(b);
	}
}
END_TEST

/* msg_type_allowed, msg_type_name, msg_type_cap */

START_TEST(test_type_tables)
{
	static const uint16_t	 w2m[] = { MSG_HELLO, MSG_LOG, MSG_RPC_IN,
	    MSG_RPC_BAD, MSG_INPUT_EOF };
	static const uint16_t	 m2w[] = { MSG_RPC_OUT, MSG_SHUTDOWN };
	static const uint16_t	 never[] = { 0x0000, 0x0001, 0x00ff, 0x0400,
	    0x0401, 0x1000, 0x8101, 0xffff };
	unsigned int	 i, j;

	for (i = 0; i < sizeof(w2m) / sizeof(w2m[0]); i++) {
		ck_assert_msg(msg_type_allowed(MSG_DIR_WORKER_TO_MONITOR,
		    w2m[i]), "0x%04x refused from a worker", w2m[i]);
		ck_assert_msg(!msg_type_allowed(MSG_DIR_MONITOR_TO_WORKER,
		    w2m[i]), "0x%04x allowed from the monitor", w2m[i]);
	}
	for (i = 0; i < sizeof(m2w) / sizeof(m2w[0]); i++) {
		ck_assert_msg(msg_type_allowed(MSG_DIR_MONITOR_TO_WORKER,
		    m2w[i]), "0x%04x refused from the monitor", m2w[i]);
		ck_assert_msg(!msg_type_allowed(MSG_DIR_WORKER_TO_MONITOR,
		    m2w[i]), "0x%04x allowed from a worker", m2w[i]);
	}
	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
		ck_assert(!msg_type_allowed(MSG_DIR_WORKER_TO_MONITOR,
		    never[i]));
		ck_assert(!msg_type_allowed(MSG_DIR_MONITOR_TO_WORKER,
		    never[i]));
	}
	/* the range edges: 0x0100 and 0x0300 ... 0x03ff are not a worker's */
	ck_assert(!msg_type_allowed(MSG_DIR_WORKER_TO_MONITOR, 0x0300));
	ck_assert(!msg_type_allowed(MSG_DIR_WORKER_TO_MONITOR, 0x03ff));
	ck_assert(!msg_type_allowed(MSG_DIR_MONITOR_TO_WORKER, 0x02ff));
	ck_assert(!msg_type_allowed(MSG_DIR_MONITOR_TO_WORKER, 0x0400));
	/* an unknown direction allows nothing */
	ck_assert(!msg_type_allowed((enum msg_dir)0, MSG_HELLO));
	ck_assert(!msg_type_allowed((enum msg_dir)3, MSG_RPC_OUT));

	for (i = 0; i < sizeof(w2m) / sizeof(w2m[0]); i++) {
		ck_assert_ptr_nonnull(msg_type_name(w2m[i]));
		for (j = 0; j < sizeof(m2w) / sizeof(m2w[0]); j++)
			ck_assert_str_ne(msg_type_name(w2m[i]),
			    msg_type_name(m2w[j]));
	}
	ck_assert_str_ne(msg_type_name(MSG_HELLO), msg_type_name(MSG_LOG));
	(void)msg_type_name(0xffff);	/* must not crash */
}
END_TEST

START_TEST(test_type_cap)
{
	size_t	 lo = BNC_MSG_MAX_LOWEST, hi = BNC_MSG_MAX_HIGHEST;

	/* control messages: a fixed cap, whatever max_message is */
	ck_assert_uint_gt(msg_type_cap(MSG_HELLO, lo), 0);
	ck_assert_uint_le(msg_type_cap(MSG_HELLO, hi), BNC_CTRL_MSG_MAX);
	ck_assert_uint_gt(msg_type_cap(MSG_LOG, lo), BNC_LOG_LINE_MAX);
	ck_assert_uint_le(msg_type_cap(MSG_LOG, hi), BNC_CTRL_MSG_MAX);
	ck_assert_uint_eq(msg_type_cap(MSG_LOG, lo), msg_type_cap(MSG_LOG,
	    hi));
	ck_assert_uint_gt(msg_type_cap(MSG_RPC_BAD, lo), BNC_REASON_MAX);
	ck_assert_uint_le(msg_type_cap(MSG_RPC_BAD, hi), BNC_CTRL_MSG_MAX);

	/* JSON-RPC messages scale with max_message, both ways */
	ck_assert_uint_ge(msg_type_cap(MSG_RPC_IN, lo), lo);
	ck_assert_uint_ge(msg_type_cap(MSG_RPC_OUT, lo), lo);
	ck_assert_uint_ge(msg_type_cap(MSG_RPC_IN, hi), hi);
	ck_assert_uint_ge(msg_type_cap(MSG_RPC_OUT, MAXM), MAXM);
	ck_assert_uint_lt(msg_type_cap(MSG_RPC_IN, lo),
	    msg_type_cap(MSG_RPC_IN, MAXM));
	ck_assert_uint_lt(msg_type_cap(MSG_RPC_OUT, MAXM),
	    msg_type_cap(MSG_RPC_OUT, hi));

	/* no payload: never more than a control message */
	ck_assert_uint_le(msg_type_cap(MSG_INPUT_EOF, hi), BNC_CTRL_MSG_MAX);
	ck_assert_uint_le(msg_type_cap(MSG_SHUTDOWN, hi), BNC_CTRL_MSG_MAX);

	/* unknown types get nothing */
	ck_assert_uint_eq(msg_type_cap(0x0000, hi), 0);
	ck_assert_uint_eq(msg_type_cap(0x01ff, hi), 0);
	ck_assert_uint_eq(msg_type_cap(0xffff, hi), 0);
}
END_TEST

/* limits */

START_TEST(test_method_cap)
{
	struct rpc	 m, got;
	struct rpc_ctx	 c = { &m, MAXM };
	struct buf	*b, *bad;
	char		*at, *over;

	memset(&m, 0, sizeof(m));
	m.kind = _i ? RPC_NOTIFICATION : RPC_REQUEST;
	m.id.type = _i ? RPC_ID_NONE : RPC_ID_INT;
	m.id.n = 1;
	at = fill('M', BNC_METHOD_MAX);
	over = fill('M', BNC_METHOD_MAX + 1);
	m.method = at;
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_rpc_put(b, &m), 0);
	check_codec("method at cap", b, rpc_getcmp, &c);

	bad = swap_string(b, at, BNC_METHOD_MAX, over, BNC_METHOD_MAX + 1);
	memset(&got, 0, sizeof(got));
	CK_R(msg_rpc_get(bad, &got, MAXM), -BNC_ERR_TOO_LARGE);
	msg_rpc_free(&got);
	buf_free(bad);
	buf_free(b);

	m.method = over;
	ck_assert_ptr_nonnull(b = buf_new());
	ck_assert_int_lt(msg_rpc_put(b, &m), 0);
	buf_free(b);
	free(at);
	free(over);
}
END_TEST

START_TEST(test_id_cap)
{
	struct rpc		 m, got;
	struct rpc_ctx		 c = { &m, MAXM };
	struct msg_rpc_bad	 bm, bgot;
	struct rpc_id		 id;
	struct buf		*b, *bad;
	char			*at, *over;

	at = fill('I', BNC_ID_STR_MAX);
	over = fill('I', BNC_ID_STR_MAX + 1);
	memset(&m, 0, sizeof(m));
	m.kind = RPC_RESULT;
	m.id.type = RPC_ID_STR;
	m.id.s = at;
	m.result = value_int(1);
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_rpc_put(b, &m), 0);
	check_codec("id at cap", b, rpc_getcmp, &c);
	bad = swap_string(b, at, BNC_ID_STR_MAX, over, BNC_ID_STR_MAX + 1);
	memset(&got, 0, sizeof(got));
	CK_R(msg_rpc_get(bad, &got, MAXM), -BNC_ERR_TOO_LARGE);
	msg_rpc_free(&got);
	buf_free(bad);
	buf_free(b);
	m.id.s = over;
	ck_assert_ptr_nonnull(b = buf_new());
	ck_assert_int_lt(msg_rpc_put(b, &m), 0);
	buf_free(b);
	value_free(m.result);

	/* the same cap in rpc_id_put/get and in MSG_RPC_BAD */
	id.type = RPC_ID_STR;
	id.s = over;
	ck_assert_ptr_nonnull(b = buf_new());
	ck_assert_int_lt(rpc_id_put(b, &id), 0);
	buf_free(b);
	memset(&bm, 0, sizeof(bm));
	bm.code = -32600;
	bm.message = "x";
	bm.id.type = RPC_ID_STR;
	bm.id.s = at;
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_rpc_bad_put(b, &bm), 0);
	bad = swap_string(b, at, BNC_ID_STR_MAX, over, BNC_ID_STR_MAX + 1);
	memset(&bgot, 0, sizeof(bgot));
	CK_R(msg_rpc_bad_get(bad, &bgot), -BNC_ERR_TOO_LARGE);
	msg_rpc_bad_free(&bgot);
	buf_free(bad);
	buf_free(b);
	bm.id.s = over;
	ck_assert_ptr_nonnull(b = buf_new());
	ck_assert_int_lt(msg_rpc_bad_put(b, &bm), 0);
	buf_free(b);
	free(at);
	free(over);
}
END_TEST

START_TEST(test_log_cap)
{
	struct msg_log	 m, got;
	struct buf	*b, *bad;
	char		*at, *over;

	at = fill('L', BNC_LOG_LINE_MAX);
	over = fill('L', BNC_LOG_LINE_MAX + 1);
	m.level = LOG_LEVEL_INFO;
	m.line = at;
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_log_put(b, &m), 0);
	check_codec("log at cap", b, log_getcmp, &m);
	bad = swap_string(b, at, BNC_LOG_LINE_MAX, over, BNC_LOG_LINE_MAX + 1);
	memset(&got, 0, sizeof(got));
	CK_R(msg_log_get(bad, &got), -BNC_ERR_TOO_LARGE);
	msg_log_free(&got);
	buf_free(bad);
	buf_free(b);
	m.line = over;
	ck_assert_ptr_nonnull(b = buf_new());
	ck_assert_int_lt(msg_log_put(b, &m), 0);
	buf_free(b);
	free(at);
	free(over);
}
END_TEST

START_TEST(test_message_caps)
{
	struct rpc		 m, got;
	struct rpc_ctx		 c = { &m, MAXM };
	struct msg_rpc_bad	 bm, bgot;
	struct buf		*b, *bad;
	char			*at, *over;

	/* an error's message: BNC_ERRMSG_MAX */
	at = fill('E', BNC_ERRMSG_MAX);
	over = fill('E', BNC_ERRMSG_MAX + 1);
	memset(&m, 0, sizeof(m));
	m.kind = RPC_ERROR;
	m.id.type = RPC_ID_INT;
	m.id.n = 3;
	m.code = -32000;
	m.message = at;
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_rpc_put(b, &m), 0);
	CK_R(rpc_getcmp(b, &c), 0);
	buf_free(b);
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_rpc_put(b, &m), 0);
	bad = swap_string(b, at, BNC_ERRMSG_MAX, over, BNC_ERRMSG_MAX + 1);
	memset(&got, 0, sizeof(got));
	CK_R(msg_rpc_get(bad, &got, MAXM), -BNC_ERR_TOO_LARGE);
	msg_rpc_free(&got);
	buf_free(bad);
	buf_free(b);
	m.message = over;
	ck_assert_ptr_nonnull(b = buf_new());
	ck_assert_int_lt(msg_rpc_put(b, &m), 0);
	buf_free(b);
	free(at);
	free(over);

	/* a bad line's reason: BNC_REASON_MAX */
	at = fill('R', BNC_REASON_MAX);
	over = fill('R', BNC_REASON_MAX + 1);
	memset(&bm, 0, sizeof(bm));
	bm.code = -32700;
	bm.message = at;
	bm.id.type = RPC_ID_NULL;
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_rpc_bad_put(b, &bm), 0);
	check_codec("rpc_bad at cap", b, rpc_bad_getcmp, &bm);
	bad = swap_string(b, at, BNC_REASON_MAX, over, BNC_REASON_MAX + 1);
	memset(&bgot, 0, sizeof(bgot));
	CK_R(msg_rpc_bad_get(bad, &bgot), -BNC_ERR_TOO_LARGE);
	msg_rpc_bad_free(&bgot);
	buf_free(bad);
	buf_free(b);
	bm.message = over;
	ck_assert_ptr_nonnull(b = buf_new());
	ck_assert_int_lt(msg_rpc_bad_put(b, &bm), 0);
	buf_free(b);
	free(at);
	free(over);
}
END_TEST

/* A message's values are bounded by the receiver's max_message. */
START_TEST(test_rpc_max_message)
{
	struct rpc	 m, got;
	struct buf	*b, *w;
	char		*big;

	big = fill('B', 2 * BNC_MSG_MAX_LOWEST);
	memset(&m, 0, sizeof(m));
	m.kind = RPC_RESULT;
	m.id.type = RPC_ID_INT;
	m.id.n = 1;
	m.result = value_object();
	CK_R(value_object_set(m.result, "text", value_string(big)), 0);
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_rpc_put(b, &m), 0);
	ck_assert_ptr_nonnull(w = buf_from(buf_ptr(b), buf_len(b)));
	memset(&got, 0, sizeof(got));
	ck_assert_int_lt(msg_rpc_get(w, &got, BNC_MSG_MAX_LOWEST), 0);
	msg_rpc_free(&got);
	buf_free(w);
	ck_assert_ptr_nonnull(w = buf_from(buf_ptr(b), buf_len(b)));
	memset(&got, 0, sizeof(got));
	CK_R(msg_rpc_get(w, &got, 4 * BNC_MSG_MAX_LOWEST), 0);
	ck_assert(value_equal(got.result, m.result));
	msg_rpc_free(&got);
	buf_free(w);
	buf_free(b);
	value_free(m.result);
	free(big);
}
END_TEST

/* errors */

/* Envelope strings are NUL-free: a NUL in any of them is refused. */
START_TEST(test_nul_fields)
{
	struct rpc		 m, got;
	struct msg_log		 l, lgot;
	struct msg_rpc_bad	 bm, bgot;
	struct buf		*b, *bad;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_REQUEST;
	m.id.type = RPC_ID_STR;
	m.id.s = "IDIDID";
	m.method = "METHOD";
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_rpc_put(b, &m), 0);
	bad = swap_string(b, "METHOD", 6, "MET\0OD", 6);
	memset(&got, 0, sizeof(got));
	ck_assert_int_lt(msg_rpc_get(bad, &got, MAXM), 0);
	msg_rpc_free(&got);
	buf_free(bad);
	bad = swap_string(b, "IDIDID", 6, "ID\0DID", 6);
	memset(&got, 0, sizeof(got));
	ck_assert_int_lt(msg_rpc_get(bad, &got, MAXM), 0);
	msg_rpc_free(&got);
	buf_free(bad);
	buf_free(b);

	memset(&m, 0, sizeof(m));
	m.kind = RPC_ERROR;
	m.id.type = RPC_ID_NULL;
	m.code = 1;
	m.message = "MESSAGE";
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_rpc_put(b, &m), 0);
	bad = swap_string(b, "MESSAGE", 7, "MESS\0GE", 7);
	memset(&got, 0, sizeof(got));
	ck_assert_int_lt(msg_rpc_get(bad, &got, MAXM), 0);
	msg_rpc_free(&got);
	buf_free(bad);
	buf_free(b);

	l.level = LOG_LEVEL_INFO;
	l.line = "LOGLINE";
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_log_put(b, &l), 0);
	bad = swap_string(b, "LOGLINE", 7, "LOG\0INE", 7);
	memset(&lgot, 0, sizeof(lgot));
	CK_R(msg_log_get(bad, &lgot), -BNC_ERR_NUL);
	msg_log_free(&lgot);
	buf_free(bad);
	buf_free(b);

	memset(&bm, 0, sizeof(bm));
	bm.code = -32700;
	bm.message = "REASON";
	bm.id.type = RPC_ID_NONE;
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_rpc_bad_put(b, &bm), 0);
	bad = swap_string(b, "REASON", 6, "REA\0ON", 6);
	memset(&bgot, 0, sizeof(bgot));
	ck_assert_int_lt(msg_rpc_bad_get(bad, &bgot), 0);
	msg_rpc_bad_free(&bgot);
	buf_free(bad);
	buf_free(b);
}
END_TEST

/* Envelope strings the monitor will print as JSON must be UTF-8. */
START_TEST(test_utf8_fields)
{
	struct rpc		 m, got;
	struct buf		*b, *bad;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_REQUEST;
	m.id.type = RPC_ID_STR;
	m.id.s = "IDIDID";
	m.method = "METHOD";
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_rpc_put(b, &m), 0);
	bad = swap_string(b, "METHOD", 6, "ME\xc3\x28OD", 6);
	memset(&got, 0, sizeof(got));
	CK_R(msg_rpc_get(bad, &got, MAXM), -BNC_ERR_BAD_UTF8);
	msg_rpc_free(&got);
	buf_free(bad);
	bad = swap_string(b, "IDIDID", 6, "ID\xed\xa0\x80I", 6);
	memset(&got, 0, sizeof(got));
	CK_R(msg_rpc_get(bad, &got, MAXM), -BNC_ERR_BAD_UTF8);
	msg_rpc_free(&got);
	buf_free(bad);
	buf_free(b);

	memset(&m, 0, sizeof(m));
	m.kind = RPC_ERROR;
	m.id.type = RPC_ID_NULL;
	m.code = 1;
	m.message = "MESSAGE";
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_rpc_put(b, &m), 0);
	bad = swap_string(b, "MESSAGE", 7, "MESS\xffGE", 7);
	memset(&got, 0, sizeof(got));
	CK_R(msg_rpc_get(bad, &got, MAXM), -BNC_ERR_BAD_UTF8);
	msg_rpc_free(&got);
	buf_free(bad);
	buf_free(b);
}
END_TEST

/* The encoder refuses messages whose fields do not fit their kind. */
START_TEST(test_rpc_put_inconsistent)
{
	struct rpc	 m;
	struct buf	*b;
	int		 i;

	for (i = 0; i < 8; i++) {
		memset(&m, 0, sizeof(m));
		m.kind = RPC_REQUEST;
		m.id.type = RPC_ID_INT;
		m.method = "m";
		switch (i) {
		case 0:
			m.kind = 0;
			break;
		case 1:
			m.kind = RPC_ERROR + 1;
			break;
		case 2:
			m.method = NULL;		/* request, no method */
			break;
		case 3:
			m.id.type = RPC_ID_NONE;	/* request, no id */
			break;
		case 4:
			m.id.type = RPC_ID_STR + 1;	/* no such id type */
			break;
		case 5:
			m.kind = RPC_NOTIFICATION;
			m.method = NULL;
			break;
		case 6:
			m.kind = RPC_RESULT;		/* no result */
			break;
		case 7:
			m.id.type = RPC_ID_STR;		/* no string */
			break;
		}
		ck_assert_ptr_nonnull(b = buf_new());
		ck_assert_msg(msg_rpc_put(b, &m) < 0, "case %d encoded", i);
		buf_free(b);
	}
}
END_TEST

/* A value that the value codec refuses makes the whole message fail. */
START_TEST(test_rpc_bad_value)
{
	struct rpc	 m;
	struct value	*v;
	struct buf	*b;
	int		 i;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_REQUEST;
	m.id.type = RPC_ID_INT;
	m.method = "deep";
	m.params = value_array();
	v = m.params;
	for (i = 0; i < BNC_VALUE_DEPTH_MAX; i++) {
		value_array_append(v, value_array());
		v = v->u.a.v[0];
	}
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_rpc_put(b, &m), -BNC_ERR_TOO_DEEP);
	buf_free(b);
	value_free(m.params);
}
END_TEST

/* An id type byte that names no type is refused. */
START_TEST(test_rpc_id_bad_type)
{
	struct rpc_id	 a, z, got;
	struct buf	*ba, *bz, *w;
	uint8_t		 bytes[32];
	size_t		 i, diff = SIZE_MAX;

	memset(&a, 0, sizeof(a));
	memset(&z, 0, sizeof(z));
	a.type = RPC_ID_NONE;
	z.type = RPC_ID_NULL;
	ck_assert_ptr_nonnull(ba = buf_new());
	ck_assert_ptr_nonnull(bz = buf_new());
	CK_R(rpc_id_put(ba, &a), 0);
	CK_R(rpc_id_put(bz, &z), 0);
	ck_assert_uint_eq(buf_len(ba), buf_len(bz));
	ck_assert_uint_le(buf_len(ba), sizeof(bytes));
	for (i = 0; i < buf_len(ba); i++)
		if (buf_ptr(ba)[i] != buf_ptr(bz)[i]) {
			ck_assert_uint_eq(diff, SIZE_MAX);
			diff = i;
		}
	ck_assert_uint_ne(diff, SIZE_MAX);
	memcpy(bytes, buf_ptr(ba), buf_len(ba));
	for (i = RPC_ID_STR + 1; i < 256; i++) {
		bytes[diff] = i;
		ck_assert_ptr_nonnull(w = buf_from(bytes, buf_len(ba)));
		memset(&got, 0, sizeof(got));
		ck_assert_msg(rpc_id_get(w, &got) < 0, "id type %zu", i);
		rpc_id_clear(&got);
		buf_free(w);
	}
	buf_free(ba);
	buf_free(bz);
}
END_TEST

/* The one byte position where two encodings differ. */
static size_t
diff_pos(const struct buf *a, const struct buf *b)
{
	size_t	 i, pos = SIZE_MAX;

	ck_assert_uint_eq(buf_len(a), buf_len(b));
	for (i = 0; i < buf_len(a); i++)
		if (buf_ptr(a)[i] != buf_ptr(b)[i]) {
			ck_assert_msg(pos == SIZE_MAX, "differ twice");
			pos = i;
		}
	ck_assert_msg(pos != SIZE_MAX, "no difference");
	return pos;
}

/* Decodes enc with the byte at pos set to v; returns the get's result. */
static int
get_patched(const struct buf *enc, size_t pos, uint8_t v, getcmp_fn fn,
    const void *ctx)
{
	uint8_t		*p;
	struct buf	*b;
	int		 r;

	ck_assert_ptr_nonnull(p = malloc(buf_len(enc)));
	memcpy(p, buf_ptr(enc), buf_len(enc));
	p[pos] = v;
	ck_assert_ptr_nonnull(b = buf_from(p, buf_len(enc)));
	r = fn(b, ctx);
	buf_free(b);
	free(p);
	return r;
}

/* Enumerated fields hold one of their values, on the wire and on put. */
START_TEST(test_bad_enums)
{
	struct msg_hello	 h1, h2;
	struct msg_log		 l1, l2;
	struct msg_rpc_bad	 r1, r2;
	struct buf		*a, *b;
	size_t			 pos;

	/* MSG_HELLO role */
	h1.role = ROLE_WORKER_CLIENT;
	h1.sandbox = SB_STATE_ON;
	h1.pid = 77;
	h1.landlock_abi = 3;
	h2 = h1;
	h2.role = ROLE_WORKER_UPSTREAM;
	a = buf_new();
	b = buf_new();
	CK_R(msg_hello_put(a, &h1), 0);
	CK_R(msg_hello_put(b, &h2), 0);
	pos = diff_pos(a, b);
	CK_R(get_patched(a, pos, 0, hello_getcmp, &h1), -BNC_ERR_BAD_FORMAT);
	CK_R(get_patched(a, pos, ROLE_MAX + 1, hello_getcmp, &h1),
	    -BNC_ERR_BAD_FORMAT);
	CK_R(get_patched(a, pos, 0xff, hello_getcmp, &h1),
	    -BNC_ERR_BAD_FORMAT);
	buf_free(a);
	buf_free(b);
	/* MSG_HELLO sandbox */
	h2 = h1;
	h2.sandbox = SB_STATE_DEBUG;
	a = buf_new();
	b = buf_new();
	CK_R(msg_hello_put(a, &h1), 0);
	CK_R(msg_hello_put(b, &h2), 0);
	pos = diff_pos(a, b);
	CK_R(get_patched(a, pos, 3, hello_getcmp, &h1), -BNC_ERR_BAD_FORMAT);
	buf_free(a);
	buf_free(b);

	/* MSG_LOG level */
	l1.level = LOG_LEVEL_ERROR;
	l1.line = "x";
	l2 = l1;
	l2.level = LOG_LEVEL_DEBUG3;
	a = buf_new();
	b = buf_new();
	CK_R(msg_log_put(a, &l1), 0);
	CK_R(msg_log_put(b, &l2), 0);
	pos = diff_pos(a, b);
	CK_R(get_patched(a, pos, LOG_LEVEL_DEBUG3 + 1, log_getcmp, &l1),
	    -BNC_ERR_BAD_FORMAT);
	CK_R(get_patched(a, pos, 0xff, log_getcmp, &l1), -BNC_ERR_BAD_FORMAT);
	buf_free(a);
	buf_free(b);

	/* MSG_RPC_BAD was_response */
	memset(&r1, 0, sizeof(r1));
	r1.code = -32600;
	r1.message = "m";
	r1.id.type = RPC_ID_NULL;
	r2 = r1;
	r2.was_response = 1;
	a = buf_new();
	b = buf_new();
	CK_R(msg_rpc_bad_put(a, &r1), 0);
	CK_R(msg_rpc_bad_put(b, &r2), 0);
	pos = diff_pos(a, b);
	CK_R(get_patched(a, pos, 2, rpc_bad_getcmp, &r1), -BNC_ERR_BAD_FORMAT);
	buf_free(a);
	buf_free(b);
}
END_TEST

/* A put refuses what the peer's get must refuse. */
START_TEST(test_put_refuses)
{
	struct msg_hello	 h;
	struct msg_log		 l;
	struct msg_rpc_bad	 r;
	struct buf		*b;
	int			 ret = 0;

	b = buf_new();
	h.role = ROLE_WORKER_CLIENT;
	h.sandbox = SB_STATE_ON;
	h.pid = 1;
	h.landlock_abi = 0;
	l.level = LOG_LEVEL_INFO;
	l.line = "x";
	memset(&r, 0, sizeof(r));
	r.code = -32600;
	r.message = "m";
	r.id.type = RPC_ID_NONE;
	switch (_i) {
	case 0:
		h.role = 0;
		ret = msg_hello_put(b, &h);
		break;
	case 1:
		h.sandbox = SB_STATE_DEBUG + 1;
		ret = msg_hello_put(b, &h);
		break;
	case 2:
		l.level = LOG_LEVEL_DEBUG3 + 1;
		ret = msg_log_put(b, &l);
		break;
	case 3:
		r.was_response = 2;
		ret = msg_rpc_bad_put(b, &r);
		break;
	case 4:
		r.code = 0;
		ret = msg_rpc_bad_put(b, &r);
		break;
	}
	ck_assert_msg(ret < 0, "case %d: put accepted a value get refuses",
	    _i);
	buf_free(b);
}
END_TEST

static Suite *
msg_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("msg");

	tc = tcase_create("core");
	tcase_add_test(tc, test_hello);
	tcase_add_test(tc, test_log);
	tcase_add_test(tc, test_rpc_request);
	tcase_add_test(tc, test_rpc_notification);
	tcase_add_test(tc, test_rpc_result);
	tcase_add_test(tc, test_rpc_error);
	tcase_add_test(tc, test_rpc_bad);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_rpc_id);
	tcase_add_test(tc, test_type_tables);
	tcase_add_test(tc, test_type_cap);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_method_cap, 0, 2);
	tcase_add_test(tc, test_id_cap);
	tcase_add_test(tc, test_log_cap);
	tcase_add_test(tc, test_message_caps);
	tcase_add_test(tc, test_rpc_max_message);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_nul_fields);
	tcase_add_test(tc, test_utf8_fields);
	tcase_add_test(tc, test_rpc_put_inconsistent);
	tcase_add_test(tc, test_rpc_bad_value);
	tcase_add_test(tc, test_rpc_id_bad_type);
	tcase_add_test(tc, test_bad_enums);
	tcase_add_loop_test(tc, test_put_refuses, 0, 5);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(msg_suite());
	srunner_run_all(sr, CK_NORMAL);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
