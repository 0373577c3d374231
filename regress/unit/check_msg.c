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
#include <stdarg.h>
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
#include "work.h"

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

/*
 * Replaces the one occurrence of tree `from', as value.h's codec encodes
 * it, in b with the encoding of `to': a tree msg.c's put would refuse,
 * at the place of one it wrote.
 */
static struct buf *
swap_tree(const struct buf *b, const struct value *from,
    const struct value *to)
{
	const uint8_t	*p = buf_ptr(b), *hit = NULL;
	struct buf	*f, *t, *out;
	size_t		 n = buf_len(b), i, at, flen;

	ck_assert_ptr_nonnull(f = buf_new());
	ck_assert_ptr_nonnull(t = buf_new());
	CK_R(value_encode(f, from), 0);
	CK_R(value_encode(t, to), 0);
	flen = buf_len(f);
	for (i = 0; i + flen <= n; i++) {
		if (memcmp(p + i, buf_ptr(f), flen) != 0)
			continue;
		ck_assert_msg(hit == NULL, "tree occurs twice");
		hit = p + i;
	}
	ck_assert_msg(hit != NULL, "tree not found");
	at = hit - p;
	ck_assert_ptr_nonnull(out = buf_new());
	CK_R(buf_put(out, p, at), 0);
	CK_R(buf_put(out, buf_ptr(t), buf_len(t)), 0);
	CK_R(buf_put(out, p + at + flen, n - at - flen), 0);
	buf_free(f);
	buf_free(t);
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
	struct msg_hello	 m;
	struct buf		*b;
	unsigned int		 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_ptr_nonnull(b = buf_new());
		CK_R(msg_hello_put(b, &cases[i]), 0);
		check_codec("hello", b, hello_getcmp, &cases[i]);
		buf_free(b);
	}
	/* every role a child may report, each carrier's too */
	for (i = ROLE_WORKER_CLIENT; i <= ROLE_MAX; i++) {
		m.role = i;
		m.sandbox = i % (SB_STATE_DEBUG + 1);
		m.pid = 1000 + i;
		m.landlock_abi = i;
		ck_assert_ptr_nonnull(b = buf_new());
		CK_R(msg_hello_put(b, &m), 0);
		check_codec("hello role", b, hello_getcmp, &m);
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

/* MSG_CARRIER_CALL */

/* An object of string members, from NULL-terminated key, value pairs. */
static struct value *
args_of(const char *key, ...)
{
	struct value	*o;
	const char	*k, *v;
	va_list		 ap;

	o = value_object();
	va_start(ap, key);
	for (k = key; k != NULL; k = va_arg(ap, const char *)) {
		v = va_arg(ap, const char *);
		CK_R(value_object_set(o, k, value_string(v)), 0);
	}
	va_end(ap);
	return o;
}

static int
call_getcmp(struct buf *b, const void *ctx)
{
	const struct msg_carrier_call	*want = ctx;
	struct msg_carrier_call		 got;
	int				 r;

	memset(&got, 0xa5, sizeof(got));
	if ((r = msg_carrier_call_get(b, &got)) != 0) {
		msg_carrier_call_free(&got);
		return r;
	}
	ck_assert_uint_eq(got.endpoint, want->endpoint);
	ck_assert_ptr_nonnull(got.args);
	ck_assert_msg(value_equal(got.args, want->args), "args differ");
	msg_carrier_call_free(&got);
	ck_assert_ptr_null(got.args);
	return 0;
}

/* Puts, checks and frees a call of endpoint with args (taken). */
static void
call_roundtrip(const char *what, uint16_t endpoint, struct value *args)
{
	struct msg_carrier_call	 m;
	struct buf		*b;

	m.endpoint = endpoint;
	m.args = args;
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_call_put(b, &m), 0);
	check_codec(what, b, call_getcmp, &m);
	buf_free(b);
	value_free(args);
}

START_TEST(test_carrier_call)
{
	call_roundtrip("call github comment", CEP_GITHUB_COMMENT,
	    args_of("owner", "octo-org", "repo", "hello-world", "number", "42",
	    "text", "Fixed in #43 \xe2\x9c\x85\nThanks, J\xc3\xbcrgen!", NULL));
	call_roundtrip("call notion query", CEP_NOTION_QUERY,
	    args_of("data_source_id", "248104cd-477e-80af-bc30-000bd28de8f9",
	    "status", "In progress", "cursor", "", NULL));
	call_roundtrip("call notion noop", CEP_NOTION_NOOP,
	    args_of("page_id", "59833787-2cf9-4fdf-8782-e53db20768a5",
	    "op", "trash", NULL));
	call_roundtrip("call slack", CEP_SLACK_POST,
	    args_of("channel", "ops", "text", "deploy done", NULL));
	call_roundtrip("call no arguments", CEP_NOTION_DATABASE,
	    value_object());
	/* empty names and values are for the carrier's validators */
	call_roundtrip("call empty key and text", CEP_SLACK_POST,
	    args_of("", "", "text", "", NULL));
	/* the id is the carrier table's to refuse (CARRIER_REFUSED), not
	 * the codec's: only 0, which names no endpoint, is a bad frame */
	call_roundtrip("call endpoint past CEP_MAX", CEP_MAX + 1,
	    args_of("page_id", "x", NULL));
	call_roundtrip("call endpoint 0xffff", 0xffff, value_object());
}
END_TEST

/* MSG_CARRIER_PROBE */

static int
probe_getcmp(struct buf *b, const void *ctx)
{
	const struct msg_carrier_probe	*want = ctx;
	struct msg_carrier_probe	 got;
	int				 r;

	memset(&got, 0xa5, sizeof(got));
	if ((r = msg_carrier_probe_get(b, &got)) != 0) {
		msg_carrier_probe_free(&got);
		return r;
	}
	ck_assert_ptr_nonnull(got.method);
	ck_assert_ptr_nonnull(got.path);
	ck_assert_str_eq(got.method, want->method);
	ck_assert_str_eq(got.path, want->path);
	msg_carrier_probe_free(&got);
	ck_assert_ptr_null(got.method);
	ck_assert_ptr_null(got.path);
	return 0;
}

START_TEST(test_carrier_probe)
{
	static const struct msg_carrier_probe	 cases[] = {
		{ "GET", "/v1/pages/59833787-2cf9-4fdf-8782-e53db20768a5" },
		{ "POST", "/v1/data_sources/248104cd/query" },
		{ "GET", "/v1/comments?block_id=abc&start_cursor=def" },
		{ "PATCH", "/repos/o/r/issues/1?q=\xc3\xa9\xe2\x82\xac" },
		/* the carrier's request-line check refuses these, not the
		 * codec */
		{ "", "" },
		{ "get", "not a path" },
	};
	struct buf	*b;
	unsigned int	 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_ptr_nonnull(b = buf_new());
		CK_R(msg_carrier_probe_put(b, &cases[i]), 0);
		check_codec("probe", b, probe_getcmp, &cases[i]);
		buf_free(b);
	}
}
END_TEST

/* MSG_CARRIER_RESULT */

static int
result_getcmp(struct buf *b, const void *ctx)
{
	const struct msg_carrier_result	*want = ctx;
	struct msg_carrier_result	 got;
	int				 r;

	memset(&got, 0xa5, sizeof(got));
	if ((r = msg_carrier_result_get(b, &got, MAXM)) != 0) {
		msg_carrier_result_free(&got);
		return r;
	}
	ck_assert_uint_eq(got.status, want->status);
	ck_assert_uint_eq(got.sent, want->sent);
	ck_assert_uint_eq(got.http_status, want->http_status);
	ck_assert_uint_eq(got.retry_after, want->retry_after);
	/* an absent code or message travels as "" */
	ck_assert_ptr_nonnull(got.code);
	ck_assert_ptr_nonnull(got.message);
	ck_assert_str_eq(got.code, want->code != NULL ? want->code : "");
	ck_assert_str_eq(got.message, want->message != NULL ?
	    want->message : "");
	if (want->data == NULL)
		ck_assert_ptr_null(got.data);
	else
		ck_assert_msg(value_equal(got.data, want->data),
		    "data differs");
	msg_carrier_result_free(&got);
	ck_assert_ptr_null(got.code);
	ck_assert_ptr_null(got.message);
	ck_assert_ptr_null(got.data);
	return 0;
}

/* A TASK of work.h, for a result's data. */
static struct value *
sample_task(void)
{
	struct value	*t, *owners;

	t = args_of("id", "59833787-2cf9-4fdf-8782-e53db20768a5",
	    "title", "Ship the carrier \xe2\x80\x94 v2", "status", "Done",
	    "url", "https://www.notion.so/59833787", NULL);
	CK_R(value_object_set(t, "due", value_null()), 0);
	CK_R(value_object_set(t, "last_edited_time", value_null()), 0);
	owners = value_array();
	value_array_append(owners, value_string("u-1"));
	value_array_append(owners, value_string("u-2"));
	CK_R(value_object_set(t, "owners", owners), 0);
	return t;
}

START_TEST(test_carrier_result)
{
	struct msg_carrier_result	 m;
	struct value			*tasks;
	struct buf			*b;
	unsigned int			 i;

	for (i = 0; i < 11; i++) {
		memset(&m, 0, sizeof(m));
		switch (i) {
		case 0:		/* a comment posted */
			m.status = CARRIER_OK;
			m.sent = 1;
			m.http_status = 201;
			m.data = value_object();
			CK_R(value_object_set(m.data, "id",
			    value_int(2123456789)), 0);
			CK_R(value_object_set(m.data, "html_url",
			    value_string("https://github.com/o/r/issues/1"
			    "#issuecomment-2123456789")), 0);
			break;
		case 1:		/* a page of tasks, code and message absent */
			m.status = CARRIER_OK;
			m.sent = 1;
			m.http_status = 200;
			m.data = value_object();
			tasks = value_array();
			value_array_append(tasks, sample_task());
			value_array_append(tasks, sample_task());
			CK_R(value_object_set(m.data, "tasks", tasks), 0);
			CK_R(value_object_set(m.data, "has_more",
			    value_bool(1)), 0);
			CK_R(value_object_set(m.data, "next_cursor",
			    value_string("c-2")), 0);
			break;
		case 2:		/* data may be any tree, a null too */
			m.status = CARRIER_OK;
			m.data = value_null();
			m.code = "";
			m.message = "";
			break;
		case 3:
			m.status = CARRIER_OK;
			m.sent = 1;
			m.data = value_array();
			break;
		case 4:
			m.status = CARRIER_REFUSED;
			m.code = "validator:page_id";
			m.message = "page_id is not a Notion id";
			break;
		case 5:
			m.status = CARRIER_API;
			m.sent = 1;
			m.http_status = 404;
			m.code = "object_not_found";
			m.message = "Could not find page \xe2\x80\x9cx\xe2\x80"
			    "\x9d.";
			break;
		case 6:
			m.status = CARRIER_RATE;
			m.sent = 1;
			m.http_status = 429;
			m.retry_after = BNC_CARRIER_RETRY_AFTER_MAX;
			m.code = "rate_limited";
			break;
		case 7:
			m.status = CARRIER_RATE;
			m.sent = 1;
			m.http_status = 429;
			m.retry_after = 0;
			break;
		case 8:		/* no answer: a write's fate unknown */
			m.status = CARRIER_NET;
			m.sent = 1;
			m.message = "TLS handshake: timed out";
			break;
		case 9:
			m.status = CARRIER_NET;
			m.message = "connect: refused";
			break;
		case 10:	/* http_status is whatever the vendor said */
			m.status = CARRIER_BAD_RESPONSE;
			m.sent = 1;
			m.http_status = 0xffff;
			m.code = "shape";
			break;
		}
		ck_assert_ptr_nonnull(b = buf_new());
		CK_R(msg_carrier_result_put(b, &m), 0);
		check_codec("result", b, result_getcmp, &m);
		buf_free(b);
		value_free(m.data);
	}
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
	/* every type and the directions it may travel, a bit per direction */
#define DIR(d)	(1u << (d))
	static const struct {
		uint16_t	 type;
		unsigned int	 dirs;
	} known[] = {
		/* any child's, a carrier's as much as a worker's */
		{ MSG_HELLO,	DIR(MSG_DIR_WORKER_TO_MONITOR) |
				DIR(MSG_DIR_CARRIER_TO_MONITOR) },
		{ MSG_LOG,	DIR(MSG_DIR_WORKER_TO_MONITOR) |
				DIR(MSG_DIR_CARRIER_TO_MONITOR) },
		{ MSG_RPC_IN,	DIR(MSG_DIR_WORKER_TO_MONITOR) },
		{ MSG_RPC_BAD,	DIR(MSG_DIR_WORKER_TO_MONITOR) },
		{ MSG_INPUT_EOF, DIR(MSG_DIR_WORKER_TO_MONITOR) },
		{ MSG_RPC_OUT,	DIR(MSG_DIR_MONITOR_TO_WORKER) },
		{ MSG_SHUTDOWN,	DIR(MSG_DIR_MONITOR_TO_WORKER) },
		{ MSG_CARRIER_RESULT, DIR(MSG_DIR_CARRIER_TO_MONITOR) },
		{ MSG_CARRIER_CALL, DIR(MSG_DIR_MONITOR_TO_CARRIER) },
		{ MSG_CARRIER_PROBE, DIR(MSG_DIR_MONITOR_TO_CARRIER) },
	};
	/* unassigned numbers, the edges of each range among them */
	static const uint16_t	 never[] = { 0x0000, 0x0001, 0x00ff, 0x0100,
	    0x0103, 0x01ff, 0x0200, 0x0204, 0x02ff, 0x0300, 0x0303, 0x03ff,
	    0x0400, 0x0402, 0x04ff, 0x0500, 0x0503, 0x05ff, 0x0600, 0x1000,
	    0x8101, 0x8401, 0x8501, 0xffff };
	const size_t	 nknown = sizeof(known) / sizeof(known[0]);
	unsigned int	 i, j;
	int		 dir, want;

	/* every pair, with the unknown directions on either side */
	for (i = 0; i < nknown; i++)
		for (dir = 0; dir <= MSG_DIR_MONITOR_TO_CARRIER + 1; dir++) {
			want = (known[i].dirs & DIR(dir)) != 0;
			ck_assert_msg(!!msg_type_allowed((enum msg_dir)dir,
			    known[i].type) == want, "0x%04x (%s) %s in "
			    "direction %d", known[i].type,
			    msg_type_name(known[i].type),
			    want ? "refused" : "allowed", dir);
		}
	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		for (dir = 0; dir <= MSG_DIR_MONITOR_TO_CARRIER + 1; dir++)
			ck_assert_msg(!msg_type_allowed((enum msg_dir)dir,
			    never[i]), "0x%04x allowed in direction %d",
			    never[i], dir);
	ck_assert(!msg_type_allowed((enum msg_dir)-1, MSG_HELLO));
	ck_assert(!msg_type_allowed((enum msg_dir)0xff, MSG_CARRIER_CALL));
#undef DIR

	/* names: one each, none like an unknown type's */
	for (i = 0; i < nknown; i++) {
		ck_assert_ptr_nonnull(msg_type_name(known[i].type));
		ck_assert_str_ne(msg_type_name(known[i].type),
		    msg_type_name(0xffff));
		for (j = 0; j < i; j++)
			ck_assert_str_ne(msg_type_name(known[i].type),
			    msg_type_name(known[j].type));
	}
	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		ck_assert_str_eq(msg_type_name(never[i]),
		    msg_type_name(0xffff));
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

	/* carriers: fixed caps, whatever max_message is */
	ck_assert_uint_eq(msg_type_cap(MSG_CARRIER_PROBE, lo),
	    msg_type_cap(MSG_CARRIER_PROBE, hi));
	ck_assert_uint_gt(msg_type_cap(MSG_CARRIER_PROBE, lo),
	    BNC_CARRIER_METHOD_MAX + BNC_CARRIER_PATH_MAX);
	ck_assert_uint_le(msg_type_cap(MSG_CARRIER_PROBE, hi),
	    BNC_CTRL_MSG_MAX);
	ck_assert_uint_eq(msg_type_cap(MSG_CARRIER_CALL, lo),
	    msg_type_cap(MSG_CARRIER_CALL, hi));
	ck_assert_uint_eq(msg_type_cap(MSG_CARRIER_CALL, lo),
	    BNC_CARRIER_CALL_MAX);
	ck_assert_uint_gt(msg_type_cap(MSG_CARRIER_CALL, lo),
	    BNC_CONSENT_TEXT_MAX);
	ck_assert_uint_eq(msg_type_cap(MSG_CARRIER_RESULT, lo),
	    msg_type_cap(MSG_CARRIER_RESULT, hi));
	/* the fields may fill BNC_CARRIER_RESULT_MAX: the envelope is more */
	ck_assert_uint_eq(msg_type_cap(MSG_CARRIER_RESULT, lo),
	    BNC_CARRIER_RESULT_MAX + BNC_CTRL_MSG_MAX);

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

/* A probe's method and path: at their caps, and one past, both ways. */
START_TEST(test_probe_caps)
{
	struct msg_carrier_probe	 m, got;
	struct buf			*b, *bad;
	size_t				 max;
	char				*at, *over;

	max = _i == 0 ? BNC_CARRIER_METHOD_MAX : BNC_CARRIER_PATH_MAX;
	at = fill('Q', max);
	over = fill('Q', max + 1);
	m.method = _i == 0 ? at : "GET";
	m.path = _i == 0 ? "/v1/pages/x" : at;
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_probe_put(b, &m), 0);
	check_codec(_i == 0 ? "probe method at cap" : "probe path at cap", b,
	    probe_getcmp, &m);
	bad = swap_string(b, at, max, over, max + 1);
	memset(&got, 0xa5, sizeof(got));
	CK_R(msg_carrier_probe_get(bad, &got), -BNC_ERR_TOO_LARGE);
	msg_carrier_probe_free(&got);
	buf_free(bad);
	buf_free(b);

	if (_i == 0)
		m.method = over;
	else
		m.path = over;
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_probe_put(b, &m), -BNC_ERR_TOO_LARGE);
	buf_free(b);
	free(at);
	free(over);
}
END_TEST

/* A result's code and message: at their caps, and one past, both ways. */
START_TEST(test_result_caps)
{
	struct msg_carrier_result	 m, got;
	struct buf			*b, *bad;
	size_t				 max;
	char				*at, *over;

	max = _i == 0 ? BNC_CARRIER_CODE_MAX : BNC_REASON_MAX;
	at = fill('C', max);
	over = fill('C', max + 1);
	memset(&m, 0, sizeof(m));
	m.status = _i == 0 ? CARRIER_API : CARRIER_OK;
	m.sent = 1;
	m.http_status = 400;
	m.code = _i == 0 ? at : "validation_error";
	m.message = _i == 0 ? "body failed validation" : at;
	m.data = _i == 0 ? NULL : value_object();
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_result_put(b, &m), 0);
	check_codec(_i == 0 ? "result code at cap" : "result message at cap",
	    b, result_getcmp, &m);
	bad = swap_string(b, at, max, over, max + 1);
	memset(&got, 0xa5, sizeof(got));
	CK_R(msg_carrier_result_get(bad, &got, MAXM), -BNC_ERR_TOO_LARGE);
	msg_carrier_result_free(&got);
	buf_free(bad);
	buf_free(b);

	if (_i == 0)
		m.code = over;
	else
		m.message = over;
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_result_put(b, &m), -BNC_ERR_TOO_LARGE);
	buf_free(b);
	value_free(m.data);
	free(at);
	free(over);
}
END_TEST

/*
 * A call's arguments at each bound, and one past it: the put refuses the
 * one past, and so does the get when it is on the wire.  _i: 0 the count
 * of members, 1 a name, 2 the text, 3 any other argument, 4.. a member
 * whose name is close to "text" but is not, which gets no more room.
 */
START_TEST(test_args_caps)
{
	static const char	*not_text[] = { "Text", "texts", "tex",
	    "text ", "body", "message" };
	struct msg_carrier_call	 m, got;
	struct value		*at, *over;
	struct buf		*b, *bad;
	char			*s, *t, key[8];
	unsigned int		 i;

	switch (_i) {
	case 0:
		at = value_object();
		for (i = 0; i < BNC_CARRIER_ARGS_MAX; i++) {
			snprintf(key, sizeof(key), "a%u", i);
			CK_R(value_object_set(at, key, value_string("v")), 0);
		}
		over = value_dup(at);
		snprintf(key, sizeof(key), "a%u", i);
		CK_R(value_object_set(over, key, value_string("v")), 0);
		break;
	case 1:
		s = fill('n', BNC_CARRIER_ARG_NAME_MAX);
		t = fill('n', BNC_CARRIER_ARG_NAME_MAX + 1);
		at = args_of(s, "v", "page_id", "p", NULL);
		over = args_of(t, "v", "page_id", "p", NULL);
		free(s);
		free(t);
		break;
	case 2:
		s = fill('T', BNC_CONSENT_TEXT_MAX);
		t = fill('T', BNC_CONSENT_TEXT_MAX + 1);
		at = args_of("page_id", "p", "text", s, NULL);
		over = args_of("page_id", "p", "text", t, NULL);
		free(s);
		free(t);
		break;
	case 3:
		s = fill('A', BNC_CARRIER_ARG_MAX);
		t = fill('A', BNC_CARRIER_ARG_MAX + 1);
		at = args_of("page_id", s, "text", "hi", NULL);
		over = args_of("page_id", t, "text", "hi", NULL);
		free(s);
		free(t);
		break;
	default:
		s = fill('A', BNC_CARRIER_ARG_MAX);
		t = fill('A', BNC_CARRIER_ARG_MAX + 1);
		at = args_of(not_text[_i - 4], s, NULL);
		over = args_of(not_text[_i - 4], t, NULL);
		free(s);
		free(t);
		break;
	}

	m.endpoint = CEP_NOTION_COMMENT;
	m.args = at;
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_call_put(b, &m), 0);
	/* every truncation of the text's 64 KiB would take too long */
	if (_i == 2) {
		ck_assert_ptr_nonnull(bad = buf_from(buf_ptr(b), buf_len(b)));
		CK_R(call_getcmp(bad, &m), 0);
		ck_assert_uint_eq(buf_len(bad), 0);
		buf_free(bad);
	} else
		check_codec("args at cap", b, call_getcmp, &m);
	bad = swap_tree(b, at, over);
	memset(&got, 0xa5, sizeof(got));
	CK_R(msg_carrier_call_get(bad, &got), -BNC_ERR_BAD_FORMAT);
	msg_carrier_call_free(&got);
	buf_free(bad);
	buf_free(b);

	m.args = over;
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_call_put(b, &m), -BNC_ERR_BAD_FORMAT);
	ck_assert_uint_eq(buf_len(b), 0);
	buf_free(b);
	value_free(at);
	value_free(over);
}
END_TEST

/*
 * The largest call the codec lets through, and the largest probe, fit
 * their types' caps, so the frame layer never refuses what a put wrote.
 * The text is counted in bytes: 4-byte characters fill it sooner.
 */
START_TEST(test_carrier_largest)
{
	struct msg_carrier_call		 c;
	struct msg_carrier_probe	 p;
	struct msg_carrier_result	 r;
	struct value			*args;
	struct buf			*b, *w;
	char				*text, *val;
	char				 key[BNC_CARRIER_ARG_NAME_MAX + 1];
	unsigned int			 i;

	ck_assert_ptr_nonnull(text = malloc(BNC_CONSENT_TEXT_MAX + 2));
	for (i = 0; i < BNC_CONSENT_TEXT_MAX; i += 4)
		memcpy(text + i, "\xf0\x9f\x98\x80", 4);
	text[BNC_CONSENT_TEXT_MAX] = '\0';
	val = fill('v', BNC_CARRIER_ARG_MAX);
	args = args_of("text", text, NULL);
	for (i = 1; i < BNC_CARRIER_ARGS_MAX; i++) {
		memset(key, 'k', BNC_CARRIER_ARG_NAME_MAX);
		key[BNC_CARRIER_ARG_NAME_MAX] = '\0';
		key[0] = '0' + i;
		CK_R(value_object_set(args, key, value_string(val)), 0);
	}
	c.endpoint = CEP_GITHUB_COMMENT;
	c.args = args;
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_call_put(b, &c), 0);
	ck_assert_uint_le(buf_len(b), msg_type_cap(MSG_CARRIER_CALL,
	    BNC_MSG_MAX_LOWEST));
	ck_assert_ptr_nonnull(w = buf_from(buf_ptr(b), buf_len(b)));
	CK_R(call_getcmp(w, &c), 0);
	buf_free(w);
	buf_free(b);
	/* one byte more of text is one too many */
	text[BNC_CONSENT_TEXT_MAX - 4] = 'x';
	text[BNC_CONSENT_TEXT_MAX - 3] = '\0';
	strcat(text, "\xf0\x9f\x98\x80");
	ck_assert_uint_eq(strlen(text), BNC_CONSENT_TEXT_MAX + 1);
	value_object_put(args, "text", value_string(text));
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_call_put(b, &c), -BNC_ERR_BAD_FORMAT);
	buf_free(b);
	value_free(args);
	free(text);
	free(val);

	p.method = fill('M', BNC_CARRIER_METHOD_MAX);
	p.path = fill('/', BNC_CARRIER_PATH_MAX);
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_probe_put(b, &p), 0);
	ck_assert_uint_le(buf_len(b), msg_type_cap(MSG_CARRIER_PROBE,
	    BNC_MSG_MAX_LOWEST));
	buf_free(b);
	free(p.method);
	free(p.path);

	/* a result's envelope leaves its data nearly all of the cap */
	memset(&r, 0, sizeof(r));
	r.status = CARRIER_API;
	r.code = fill('c', BNC_CARRIER_CODE_MAX);
	r.message = fill('m', BNC_REASON_MAX);
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_result_put(b, &r), 0);
	ck_assert_uint_lt(buf_len(b) + BNC_CARRIER_RESULT_MAX / 2,
	    msg_type_cap(MSG_CARRIER_RESULT, BNC_MSG_MAX_LOWEST));
	buf_free(b);
	free(r.code);
	free(r.message);
}
END_TEST

/*
 * A result's data is bounded by the receiver's max_message, and never
 * beyond BNC_CARRIER_RESULT_MAX however large max_message is.
 */
START_TEST(test_result_max_message)
{
	struct msg_carrier_result	 m, got;
	struct buf			*b, *w;
	char				*big, *over;

	big = fill('B', 2 * BNC_MSG_MAX_LOWEST);
	memset(&m, 0, sizeof(m));
	m.status = CARRIER_OK;
	m.data = value_object();
	CK_R(value_object_set(m.data, "text", value_string(big)), 0);
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_result_put(b, &m), 0);
	ck_assert_ptr_nonnull(w = buf_from(buf_ptr(b), buf_len(b)));
	memset(&got, 0xa5, sizeof(got));
	CK_R(msg_carrier_result_get(w, &got, BNC_MSG_MAX_LOWEST),
	    -BNC_ERR_TOO_LARGE);
	msg_carrier_result_free(&got);
	buf_free(w);
	ck_assert_ptr_nonnull(w = buf_from(buf_ptr(b), buf_len(b)));
	memset(&got, 0xa5, sizeof(got));
	CK_R(msg_carrier_result_get(w, &got, 4 * BNC_MSG_MAX_LOWEST), 0);
	ck_assert(value_equal(got.data, m.data));
	msg_carrier_result_free(&got);
	buf_free(w);
	buf_free(b);
	value_free(m.data);
	free(big);

	/* a string of BNC_CARRIER_RESULT_MAX, then one byte more; the
	 * marker's first byte is unique, so finding it is linear */
	big = fill('B', BNC_CARRIER_RESULT_MAX);
	over = fill('B', BNC_CARRIER_RESULT_MAX + 1);
	big[0] = over[0] = 'Z';
	m.data = value_string(big);
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_result_put(b, &m), 0);
	ck_assert_ptr_nonnull(w = buf_from(buf_ptr(b), buf_len(b)));
	memset(&got, 0xa5, sizeof(got));
	CK_R(msg_carrier_result_get(w, &got, BNC_MSG_MAX_HIGHEST), 0);
	ck_assert(value_equal(got.data, m.data));
	msg_carrier_result_free(&got);
	buf_free(w);
	w = swap_string(b, big, BNC_CARRIER_RESULT_MAX, over,
	    BNC_CARRIER_RESULT_MAX + 1);
	memset(&got, 0xa5, sizeof(got));
	CK_R(msg_carrier_result_get(w, &got, BNC_MSG_MAX_HIGHEST),
	    -BNC_ERR_TOO_LARGE);
	msg_carrier_result_free(&got);
	buf_free(w);
	buf_free(b);
	value_free(m.data);
	free(big);
	free(over);
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

/*
 * A probe or a result (*which: 1 a probe) with "MARK" in one of its
 * strings: 0 the probe's method, 1 its path, 2 the result's code, 3 its
 * message.
 */
static struct buf *
carrier_strings_put(unsigned int field, int *which)
{
	struct msg_carrier_probe	 p;
	struct msg_carrier_result	 r;
	struct buf			*b;

	ck_assert_ptr_nonnull(b = buf_new());
	p.method = "GET";
	p.path = "/v1/pages/x";
	memset(&r, 0, sizeof(r));
	r.status = CARRIER_API;
	r.code = "code";
	r.message = "message";
	switch (field) {
	case 0:
		p.method = "MARK";
		break;
	case 1:
		p.path = "MARK";
		break;
	case 2:
		r.code = "MARK";
		break;
	case 3:
		r.message = "MARK";
		break;
	}
	*which = field < 2;
	if (*which)
		CK_R(msg_carrier_probe_put(b, &p), 0);
	else
		CK_R(msg_carrier_result_put(b, &r), 0);
	return b;
}

/* Decodes b as a probe (which) or a result; returns the get's result. */
static int
carrier_strings_get(struct buf *b, int which)
{
	struct msg_carrier_probe	 p;
	struct msg_carrier_result	 r;
	int				 ret;

	memset(&p, 0xa5, sizeof(p));
	memset(&r, 0xa5, sizeof(r));
	if (which) {
		ret = msg_carrier_probe_get(b, &p);
		msg_carrier_probe_free(&p);
	} else {
		ret = msg_carrier_result_get(b, &r, MAXM);
		msg_carrier_result_free(&r);
	}
	return ret;
}

/*
 * A probe's and a result's strings are NUL-free UTF-8: the carrier
 * matches the probe against its table, the monitor prints the result.
 */
START_TEST(test_carrier_strings)
{
	static const struct {
		const char	*bytes;
		int		 err;
	} bad[] = {
		{ "MA\0K", -BNC_ERR_NUL },
		{ "\0ARK", -BNC_ERR_NUL },
		{ "MA\xc3\x28", -BNC_ERR_BAD_UTF8 },	/* bad continuation */
		{ "M\xed\xa0\x80", -BNC_ERR_BAD_UTF8 },	/* a surrogate */
		{ "MAR\xff", -BNC_ERR_BAD_UTF8 },
		{ "M\xc0\xaf" "K", -BNC_ERR_BAD_UTF8 },	/* overlong '/' */
		{ "MAR\xe2", -BNC_ERR_BAD_UTF8 },	/* cut short */
	};
	struct buf	*b, *w;
	unsigned int	 i;
	int		 which;

	b = carrier_strings_put(_i, &which);
	/* the marker as it is, then as each bad string of its length */
	ck_assert_ptr_nonnull(w = buf_from(buf_ptr(b), buf_len(b)));
	CK_R(carrier_strings_get(w, which), 0);
	buf_free(w);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		w = swap_string(b, "MARK", 4, bad[i].bytes, 4);
		ck_assert_msg(carrier_strings_get(w, which) == bad[i].err,
		    "field %d, bad string %u accepted or refused otherwise",
		    _i, i);
		buf_free(w);
	}
	buf_free(b);
}
END_TEST

/*
 * A call's arguments: an object whose members are all strings, each
 * UTF-8.  The put refuses any other shape, and so does the get.
 */
START_TEST(test_args_shape)
{
	struct msg_carrier_call	 m, got;
	struct value		*good, *bad, *v;
	struct buf		*b, *w;
	int			 err = -BNC_ERR_BAD_FORMAT;

	good = args_of("page_id", "p", "text", "t", NULL);
	switch (_i) {
	case 0:
		bad = value_null();
		break;
	case 1:
		bad = value_string("page_id=p");
		break;
	case 2:
		bad = value_array();
		value_array_append(bad, value_string("p"));
		value_array_append(bad, value_string("t"));
		break;
	case 3:
		bad = args_of("page_id", "p", NULL);
		CK_R(value_object_set(bad, "number", value_int(42)), 0);
		break;
	case 4:
		bad = args_of("page_id", "p", NULL);
		CK_R(value_object_set(bad, "text", value_null()), 0);
		break;
	case 5:
		bad = args_of("page_id", "p", NULL);
		CK_R(value_object_set(bad, "draft", value_bool(0)), 0);
		break;
	case 6:
		bad = args_of("page_id", "p", NULL);
		CK_R(value_object_set(bad, "text", args_of("x", "y", NULL)),
		    0);
		break;
	case 7:
		bad = args_of("page_id", "p", NULL);
		v = value_array();
		value_array_append(v, value_string("t"));
		CK_R(value_object_set(bad, "text", v), 0);
		break;
	case 8:
		bad = args_of("page_id", "p", NULL);
		CK_R(value_object_set(bad, "n", value_double(0.5)), 0);
		break;
	case 9:		/* a value that is not UTF-8 */
		bad = args_of("page_id", "p", "text", "t\xff", NULL);
		err = -BNC_ERR_BAD_UTF8;
		break;
	case 10:	/* a name that is not UTF-8 */
		bad = args_of("page_id", "p", "te\xc3", "t", NULL);
		err = -BNC_ERR_BAD_UTF8;
		break;
	default:	/* a value with a NUL */
		bad = args_of("page_id", "p", NULL);
		CK_R(value_object_set(bad, "text", value_stringn("t\0t", 3)),
		    0);
		err = -BNC_ERR_NUL;
		break;
	}

	m.endpoint = CEP_NOTION_COMMENT;
	m.args = good;
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_call_put(b, &m), 0);
	w = swap_tree(b, good, good);
	CK_R(call_getcmp(w, &m), 0);
	buf_free(w);
	/* the value codec refuses to write what it would not read */
	if (err == -BNC_ERR_BAD_FORMAT) {
		w = swap_tree(b, good, bad);
		memset(&got, 0xa5, sizeof(got));
		CK_R(msg_carrier_call_get(w, &got), err);
		msg_carrier_call_free(&got);
		buf_free(w);
	}
	buf_free(b);

	m.args = bad;
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_call_put(b, &m), err);
	buf_free(b);
	value_free(good);
	value_free(bad);
}
END_TEST

/* The same, for bytes the value codec would not write. */
START_TEST(test_args_bytes)
{
	struct msg_carrier_call	 m, got;
	struct buf		*b, *w;

	m.endpoint = CEP_GITHUB_COMMENT;
	m.args = args_of("owner", "OWNER", "TEXT", "t", NULL);
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_call_put(b, &m), 0);

	w = swap_string(b, "OWNER", 5, "OW\xc3\x28R", 5);
	memset(&got, 0xa5, sizeof(got));
	CK_R(msg_carrier_call_get(w, &got), -BNC_ERR_BAD_UTF8);
	msg_carrier_call_free(&got);
	buf_free(w);
	w = swap_string(b, "OWNER", 5, "OW\0ER", 5);
	memset(&got, 0xa5, sizeof(got));
	CK_R(msg_carrier_call_get(w, &got), -BNC_ERR_NUL);
	msg_carrier_call_free(&got);
	buf_free(w);
	w = swap_string(b, "TEXT", 4, "T\xffXT", 4);
	memset(&got, 0xa5, sizeof(got));
	CK_R(msg_carrier_call_get(w, &got), -BNC_ERR_BAD_UTF8);
	msg_carrier_call_free(&got);
	buf_free(w);
	w = swap_string(b, "TEXT", 4, "T\0XT", 4);
	memset(&got, 0xa5, sizeof(got));
	CK_R(msg_carrier_call_get(w, &got), -BNC_ERR_NUL);
	msg_carrier_call_free(&got);
	buf_free(w);
	/* two members of one name */
	w = swap_string(b, "TEXT", 4, "owner", 5);
	memset(&got, 0xa5, sizeof(got));
	CK_R(msg_carrier_call_get(w, &got), -BNC_ERR_DUP_KEY);
	msg_carrier_call_free(&got);
	buf_free(w);
	buf_free(b);
	value_free(m.args);
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
	struct msg_carrier_result c1, c2;
	struct msg_carrier_call	 k1, k2;
	struct buf		*a, *b;
	size_t			 pos;
	unsigned int		 i;

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

	/* MSG_CARRIER_RESULT status (one without data), sent, retry_after */
	memset(&c1, 0, sizeof(c1));
	c1.status = CARRIER_RATE;
	c1.sent = 0;
	c1.http_status = 429;
	c1.retry_after = 1;
	c1.code = "c";
	c1.message = "m";
	for (i = 0; i < 3; i++) {
		c2 = c1;
		switch (i) {
		case 0:
			c2.status = BNC_CARRIER_STATUS_MAX;
			break;
		case 1:
			c2.sent = 1;
			break;
		case 2:
			c2.retry_after = BNC_CARRIER_RETRY_AFTER_MAX;
			break;
		}
		a = buf_new();
		b = buf_new();
		CK_R(msg_carrier_result_put(a, &c1), 0);
		CK_R(msg_carrier_result_put(b, &c2), 0);
		pos = diff_pos(a, b);
		/* c2 holds the largest value, so one more is refused */
		CK_R(get_patched(a, pos, buf_ptr(b)[pos], result_getcmp,
		    &c2), 0);
		CK_R(get_patched(a, pos, i == 0 ? BNC_CARRIER_STATUS_MAX + 1 :
		    i == 1 ? 2 : BNC_CARRIER_RETRY_AFTER_MAX + 1, result_getcmp,
		    &c1), -BNC_ERR_BAD_FORMAT);
		CK_R(get_patched(a, pos, 0xff, result_getcmp, &c1),
		    -BNC_ERR_BAD_FORMAT);
		buf_free(a);
		buf_free(b);
	}

	/* MSG_CARRIER_CALL endpoint: 0 names none */
	k1.endpoint = 1;
	k1.args = value_object();
	k2 = k1;
	k2.endpoint = 2;
	a = buf_new();
	b = buf_new();
	CK_R(msg_carrier_call_put(a, &k1), 0);
	CK_R(msg_carrier_call_put(b, &k2), 0);
	pos = diff_pos(a, b);
	CK_R(get_patched(a, pos, 0, call_getcmp, &k1), -BNC_ERR_BAD_FORMAT);
	buf_free(a);
	buf_free(b);
	value_free(k1.args);
}
END_TEST

/*
 * CARRIER_OK, and only it, carries data.  On the wire, a result of
 * another status followed by a tree is one with trailing bytes, and an OK
 * without one is cut short.
 */
START_TEST(test_result_data_rules)
{
	struct msg_carrier_result	 ok, no;
	struct buf			*a, *b, *head;
	size_t				 pos;
	unsigned int			 st;

	memset(&ok, 0, sizeof(ok));
	ok.status = CARRIER_OK;
	ok.sent = 1;
	ok.http_status = 200;
	ok.code = "c";
	ok.message = "m";
	ok.data = args_of("id", "x", NULL);
	no = ok;
	no.status = CARRIER_API;
	no.data = NULL;

	ck_assert_ptr_nonnull(a = buf_new());
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_carrier_result_put(a, &ok), 0);
	CK_R(msg_carrier_result_put(b, &no), 0);
	ck_assert_uint_gt(buf_len(a), buf_len(b));
	ck_assert_ptr_nonnull(head = buf_from(buf_ptr(a), buf_len(b)));
	pos = diff_pos(head, b);
	buf_free(head);
	CK_R(get_patched(a, pos, CARRIER_OK, result_getcmp, &ok), 0);
	CK_R(get_patched(b, pos, CARRIER_API, result_getcmp, &no), 0);
	/* refused says nothing was sent: with sent set it is a lie */
	CK_R(get_patched(b, pos, CARRIER_REFUSED, result_getcmp, &no),
	    -BNC_ERR_BAD_FORMAT);
	/* (refused with sent set is refused first: see above) */
	for (st = CARRIER_OK + 1; st <= BNC_CARRIER_STATUS_MAX; st++)
		ck_assert_msg(get_patched(a, pos, st, result_getcmp, &ok) ==
		    (st == CARRIER_REFUSED ? -BNC_ERR_BAD_FORMAT :
		    -BNC_ERR_TRAILING), "status %u with data", st);
	CK_R(get_patched(b, pos, CARRIER_OK, result_getcmp, &no),
	    -BNC_ERR_TRUNCATED);
	buf_free(a);
	buf_free(b);

	/* the put refuses both */
	ck_assert_ptr_nonnull(b = buf_new());
	for (st = CARRIER_OK + 1; st <= BNC_CARRIER_STATUS_MAX; st++) {
		ok.status = st;
		ck_assert_msg(msg_carrier_result_put(b, &ok) ==
		    -BNC_ERR_BAD_FORMAT, "status %u with data put", st);
		no.status = st;
		CK_R(msg_carrier_result_put(b, &no), st == CARRIER_REFUSED ?
		    -BNC_ERR_BAD_FORMAT : 0);
	}
	no.sent = 0;
	no.status = CARRIER_REFUSED;
	CK_R(msg_carrier_result_put(b, &no), 0);
	no.status = CARRIER_OK;
	CK_R(msg_carrier_result_put(b, &no), -BNC_ERR_BAD_FORMAT);
	buf_free(b);
	value_free(ok.data);
}
END_TEST

/* A put refuses what the peer's get must refuse. */
START_TEST(test_put_refuses)
{
	struct msg_hello	 h;
	struct msg_log		 l;
	struct msg_rpc_bad	 r;
	struct msg_carrier_result cr;
	struct msg_carrier_call	 cc;
	struct msg_carrier_probe cp;
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
	memset(&cr, 0, sizeof(cr));
	cr.status = CARRIER_RATE;
	cr.sent = 1;
	cr.retry_after = 5;
	cc.endpoint = CEP_NOTION_PAGE;
	cc.args = args_of("page_id", "p", NULL);
	cp.method = "GET";
	cp.path = "/";
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
	case 5:
		h.role = ROLE_MAX + 1;
		ret = msg_hello_put(b, &h);
		break;
	case 6:
		cr.status = BNC_CARRIER_STATUS_MAX + 1;
		ret = msg_carrier_result_put(b, &cr);
		break;
	case 7:
		cr.status = 0xff;
		ret = msg_carrier_result_put(b, &cr);
		break;
	case 8:
		cr.sent = 2;
		ret = msg_carrier_result_put(b, &cr);
		break;
	case 9:
		cr.retry_after = BNC_CARRIER_RETRY_AFTER_MAX + 1;
		ret = msg_carrier_result_put(b, &cr);
		break;
	case 10:
		cr.retry_after = UINT32_MAX;
		ret = msg_carrier_result_put(b, &cr);
		break;
	case 11:
		cr.status = CARRIER_OK;		/* without data */
		ret = msg_carrier_result_put(b, &cr);
		break;
	case 12:
		cr.status = CARRIER_NET;	/* with data */
		cr.data = value_object();
		ret = msg_carrier_result_put(b, &cr);
		break;
	case 13:
		cc.endpoint = 0;
		ret = msg_carrier_call_put(b, &cc);
		break;
	case 14:
		value_free(cc.args);
		cc.args = NULL;
		ret = msg_carrier_call_put(b, &cc);
		break;
	case 15:
		cp.method = NULL;
		ret = msg_carrier_probe_put(b, &cp);
		break;
	case 16:
		cp.path = NULL;
		ret = msg_carrier_probe_put(b, &cp);
		break;
	}
	ck_assert_msg(ret < 0, "case %d: put accepted a value get refuses",
	    _i);
	buf_free(b);
	value_free(cr.data);
	value_free(cc.args);
}
END_TEST

/*
 * A put refuses a string its get would refuse as not UTF-8: the sender
 * can still answer otherwise (client_send's internal error), where the
 * receiver could only end the session.  _i picks the field.
 */
START_TEST(test_put_utf8)
{
	struct msg_carrier_probe	 p;
	struct msg_carrier_result	 cr;
	struct msg_rpc_bad		 rb;
	struct rpc			 m;
	struct buf			*b;
	char				 bad[] = "bad \xc3\x28 utf-8";
	int				 ret = 0;

	p.method = "GET";
	p.path = "/";
	memset(&cr, 0, sizeof(cr));
	cr.status = CARRIER_API;
	memset(&rb, 0, sizeof(rb));
	rb.code = -32700;
	rb.message = "m";
	rb.id.type = RPC_ID_NULL;
	memset(&m, 0, sizeof(m));
	m.kind = RPC_REQUEST;
	m.id.type = RPC_ID_INT;
	m.method = "m";
	ck_assert_ptr_nonnull(b = buf_new());
	switch (_i) {
	case 0:
		p.method = bad;
		ret = msg_carrier_probe_put(b, &p);
		break;
	case 1:
		p.path = bad;
		ret = msg_carrier_probe_put(b, &p);
		break;
	case 2:
		cr.code = bad;
		ret = msg_carrier_result_put(b, &cr);
		break;
	case 3:
		cr.message = bad;
		ret = msg_carrier_result_put(b, &cr);
		break;
	case 4:
		rb.message = bad;
		ret = msg_rpc_bad_put(b, &rb);
		break;
	case 5:
		m.method = bad;
		ret = msg_rpc_put(b, &m);
		break;
	case 6:
		m.id.type = RPC_ID_STR;
		m.id.s = bad;
		ret = msg_rpc_put(b, &m);
		break;
	case 7:
		m.kind = RPC_ERROR;
		m.message = bad;
		ret = msg_rpc_put(b, &m);
		break;
	}
	CK_R(ret, -BNC_ERR_BAD_UTF8);
	buf_free(b);
}
END_TEST

/* A log line is any bytes but NUL, both ways: the monitor escapes it. */
START_TEST(test_log_bytes)
{
	struct msg_log	 m;
	struct buf	*b;

	m.level = LOG_LEVEL_INFO;
	m.line = "vendor said \xff\xfe \xc3\x28";
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(msg_log_put(b, &m), 0);
	check_codec("log not utf-8", b, log_getcmp, &m);
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
	tcase_add_test(tc, test_carrier_call);
	tcase_add_test(tc, test_carrier_probe);
	tcase_add_test(tc, test_carrier_result);
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
	tcase_add_loop_test(tc, test_probe_caps, 0, 2);
	tcase_add_loop_test(tc, test_result_caps, 0, 2);
	tcase_add_loop_test(tc, test_args_caps, 0, 10);
	tcase_add_test(tc, test_carrier_largest);
	tcase_add_test(tc, test_result_max_message);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_nul_fields);
	tcase_add_test(tc, test_utf8_fields);
	tcase_add_test(tc, test_rpc_put_inconsistent);
	tcase_add_test(tc, test_rpc_bad_value);
	tcase_add_test(tc, test_rpc_id_bad_type);
	tcase_add_loop_test(tc, test_carrier_strings, 0, 4);
	tcase_add_loop_test(tc, test_args_shape, 0, 12);
	tcase_add_test(tc, test_args_bytes);
	tcase_add_test(tc, test_bad_enums);
	tcase_add_test(tc, test_result_data_rules);
	tcase_add_loop_test(tc, test_put_refuses, 0, 17);
	tcase_add_loop_test(tc, test_put_utf8, 0, 8);
	tcase_add_test(tc, test_log_bytes);
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
