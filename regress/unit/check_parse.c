/*
 * check_parse.c - unit tests for worker/parse.c and worker/lines.c.
 *
 * Every rule of parse_line() with its exact code, message, id and
 * was_response; every cap at the limit and one past it; the parser
 * differentials the worker exists to close (duplicate keys, \u0000,
 * lenient number and whitespace forms); and the line framer driven
 * through a real pipe: the cap, the once-only report, the discarded
 * remainder, EOF.  It must never test through anything but parse.h,
 * lines.h and the common headers.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "bounds.h"
#include "idscan.h"
#include "lines.h"
#include "msg.h"
#include "parse.h"
#include "value.h"

#define P53	((int64_t)1 << 53)

/* A growable string for building long lines. */
struct sb {
	char	*p;
	size_t	 len, cap;
};

static void
sb_add(struct sb *s, const char *p, size_t n)
{
	if (s->len + n + 1 > s->cap) {
		s->cap = (s->len + n + 1) * 2;
		ck_assert_ptr_nonnull(s->p = realloc(s->p, s->cap));
	}
	memcpy(s->p + s->len, p, n);
	s->len += n;
	s->p[s->len] = '\0';
}

static void
sb_str(struct sb *s, const char *p)
{
	sb_add(s, p, strlen(p));
}

static void
sb_rep(struct sb *s, const char *p, size_t times)
{
	size_t n = strlen(p);

	while (times-- > 0)
		sb_add(s, p, n);
}

/*
 * Parses line (len bytes, from an exact-size heap copy so that a read
 * past the end is caught by sanitizers) and returns the status.
 */
static int
parse_n(const char *line, size_t len, struct rpc *rpc,
    struct msg_rpc_bad *bad)
{
	char *copy;
	int r;

	ck_assert_ptr_nonnull(copy = malloc(len > 0 ? len : 1));
	memcpy(copy, line, len);
	r = parse_line(copy, len, rpc, bad);
	free(copy);
	return r;
}

static int
parse_s(const char *line, struct rpc *rpc, struct msg_rpc_bad *bad)
{
	return parse_n(line, strlen(line), rpc, bad);
}

/* Expects a good message of the given kind; the caller frees rpc. */
static void
ok_n(const char *line, size_t len, int kind, struct rpc *rpc)
{
	struct msg_rpc_bad bad;
	int r;

	r = parse_n(line, len, rpc, &bad);
	ck_assert_msg(r == PARSE_RPC, "%.200s: status %d (%d %s)", line, r,
	    bad.code, bad.message != NULL ? bad.message : "-");
	ck_assert_int_eq(rpc->kind, kind);
	ck_assert_ptr_null(bad.message);
}

static void
ok(const char *line, int kind, struct rpc *rpc)
{
	ok_n(line, strlen(line), kind, rpc);
}

/*
 * Expects a bad line with this code and message.  idtype RPC_ID_INT uses
 * idn, RPC_ID_STR uses ids.
 */
static void
bad_n(const char *line, size_t len, int code, const char *message,
    int idtype, int64_t idn, const char *ids, int was_response)
{
	struct msg_rpc_bad bad;
	struct rpc rpc;
	int r;

	r = parse_n(line, len, &rpc, &bad);
	ck_assert_msg(r == PARSE_BAD, "%.200s: status %d, want bad", line, r);
	ck_assert_int_eq(rpc.kind, 0);
	ck_assert_msg(bad.code == code, "%.200s: code %d want %d", line,
	    bad.code, code);
	ck_assert_ptr_nonnull(bad.message);
	ck_assert_msg(strcmp(bad.message, message) == 0,
	    "%.200s: message \"%s\" want \"%s\"", line, bad.message, message);
	ck_assert_msg(bad.id.type == idtype, "%.200s: id type %d want %d",
	    line, bad.id.type, idtype);
	if (idtype == RPC_ID_INT)
		ck_assert_int_eq(bad.id.n, idn);
	if (idtype == RPC_ID_STR)
		ck_assert_str_eq(bad.id.s, ids);
	ck_assert_msg(bad.was_response == was_response,
	    "%.200s: was_response %d", line, bad.was_response);
	ck_assert_uint_le(strlen(bad.message), BNC_REASON_MAX);
	msg_rpc_bad_free(&bad);
}

static void
bad(const char *line, int code, const char *message, int idtype,
    int64_t idn, const char *ids, int was_response)
{
	bad_n(line, strlen(line), code, message, idtype, idn, ids,
	    was_response);
}

/* Shorthands: id null / id integer. */
#define BAD0(line, code, msg) \
	bad((line), (code), (msg), RPC_ID_NULL, 0, NULL, 0)
#define BADI(line, code, msg, n) \
	bad((line), (code), (msg), RPC_ID_INT, (n), NULL, 0)
#define BADR(line, code, msg, idtype, n) \
	bad((line), (code), (msg), (idtype), (n), NULL, 1)

#define INV	RPC_ERR_INVALID
#define PARSE	RPC_ERR_PARSE

/* Parsed trees are compared with trees built by hand. */
static struct value *
obj1(const char *k, struct value *v)
{
	struct value *o = value_object();

	ck_assert_int_eq(value_object_set(o, k, v), 0);
	return o;
}

/* core */

START_TEST(test_request)
{
	struct rpc rpc;
	struct value *want, *args;

	ok("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"read_file\",\"arguments\":"
	    "{\"path\":\"/tmp/x\"}}}", RPC_REQUEST, &rpc);
	ck_assert_int_eq(rpc.id.type, RPC_ID_INT);
	ck_assert_int_eq(rpc.id.n, 1);
	ck_assert_str_eq(rpc.method, "tools/call");
	args = obj1("path", value_string("/tmp/x"));
	want = value_object();
	ck_assert_int_eq(value_object_set(want, "name",
	    value_string("read_file")), 0);
	ck_assert_int_eq(value_object_set(want, "arguments", args), 0);
	ck_assert(value_equal(rpc.params, want));
	ck_assert_ptr_null(rpc.result);
	ck_assert_ptr_null(rpc.message);
	value_free(want);
	msg_rpc_free(&rpc);

	/* Key order is free; params may be absent or an array. */
	ok("{\"method\":\"ping\",\"id\":0,\"jsonrpc\":\"2.0\"}", RPC_REQUEST,
	    &rpc);
	ck_assert_int_eq(rpc.id.n, 0);
	ck_assert_ptr_null(rpc.params);
	msg_rpc_free(&rpc);
	ok("{\"jsonrpc\":\"2.0\",\"id\":-7,\"method\":\"m\",\"params\":{}}",
	    RPC_REQUEST, &rpc);
	ck_assert_int_eq(rpc.id.n, -7);
	ck_assert(value_is(rpc.params, V_OBJECT));
	ck_assert_uint_eq(rpc.params->u.o.n, 0);
	msg_rpc_free(&rpc);
}
END_TEST

START_TEST(test_string_id)
{
	struct rpc rpc;

	ok("{\"jsonrpc\":\"2.0\",\"id\":\"str-id-5\",\"method\":\"ping\"}",
	    RPC_REQUEST, &rpc);
	ck_assert_int_eq(rpc.id.type, RPC_ID_STR);
	ck_assert_str_eq(rpc.id.s, "str-id-5");
	msg_rpc_free(&rpc);
	/* Escapes are decoded; the empty string is an id too. */
	ok("{\"jsonrpc\":\"2.0\",\"id\":\"a\\u00e9\\\"\",\"method\":\"p\"}",
	    RPC_REQUEST, &rpc);
	ck_assert_str_eq(rpc.id.s, "a\xc3\xa9\"");
	msg_rpc_free(&rpc);
	ok("{\"jsonrpc\":\"2.0\",\"id\":\"\",\"method\":\"p\"}", RPC_REQUEST,
	    &rpc);
	ck_assert_str_eq(rpc.id.s, "");
	msg_rpc_free(&rpc);
	/* An integral number in any spelling is an integer id. */
	ok("{\"jsonrpc\":\"2.0\",\"id\":2.0,\"method\":\"p\"}", RPC_REQUEST,
	    &rpc);
	ck_assert_int_eq(rpc.id.type, RPC_ID_INT);
	ck_assert_int_eq(rpc.id.n, 2);
	msg_rpc_free(&rpc);
	ok("{\"jsonrpc\":\"2.0\",\"id\":1e3,\"method\":\"p\"}", RPC_REQUEST,
	    &rpc);
	ck_assert_int_eq(rpc.id.n, 1000);
	msg_rpc_free(&rpc);
}
END_TEST

START_TEST(test_notification)
{
	struct rpc rpc;

	ok("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
	    RPC_NOTIFICATION, &rpc);
	ck_assert_int_eq(rpc.id.type, RPC_ID_NONE);
	ck_assert_str_eq(rpc.method, "notifications/initialized");
	ck_assert_ptr_null(rpc.params);
	msg_rpc_free(&rpc);
	ok("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
	    "\"params\":{\"requestId\":3,\"reason\":\"test cancel\"}}",
	    RPC_NOTIFICATION, &rpc);
	ck_assert_int_eq(value_get(rpc.params, "requestId")->u.i, 3);
	ck_assert_str_eq(value_get_str(rpc.params, "reason"), "test cancel");
	msg_rpc_free(&rpc);
}
END_TEST

START_TEST(test_result)
{
	struct rpc rpc;
	struct value *r, *a;

	ok("{\"result\":{\"protocolVersion\":\"2024-11-05\",\"x\":[1,2.5,"
	    "\"s\",true,false,null,{}]},\"jsonrpc\":\"2.0\",\"id\":1}",
	    RPC_RESULT, &rpc);
	ck_assert_int_eq(rpc.id.n, 1);
	r = rpc.result;
	ck_assert_str_eq(value_get_str(r, "protocolVersion"), "2024-11-05");
	a = value_get(r, "x");
	ck_assert(value_is(a, V_ARRAY));
	ck_assert_uint_eq(a->u.a.n, 7);
	ck_assert(value_is(a->u.a.v[0], V_INT));
	ck_assert_int_eq(a->u.a.v[0]->u.i, 1);
	ck_assert(value_is(a->u.a.v[1], V_DOUBLE));
	ck_assert(a->u.a.v[1]->u.d == 2.5);
	ck_assert_str_eq(a->u.a.v[2]->u.s.p, "s");
	ck_assert(value_is(a->u.a.v[3], V_BOOL) && a->u.a.v[3]->u.b == 1);
	ck_assert(value_is(a->u.a.v[4], V_BOOL) && a->u.a.v[4]->u.b == 0);
	ck_assert(value_is(a->u.a.v[5], V_NULL));
	ck_assert(value_is(a->u.a.v[6], V_OBJECT));
	ck_assert_ptr_null(rpc.method);
	msg_rpc_free(&rpc);
	/* A result may be any value, null included. */
	ok("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":null}", RPC_RESULT,
	    &rpc);
	ck_assert(value_is(rpc.result, V_NULL));
	msg_rpc_free(&rpc);
}
END_TEST

START_TEST(test_error)
{
	struct rpc rpc;

	ok("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32601,"
	    "\"message\":\"Method not found\"}}", RPC_ERROR, &rpc);
	ck_assert_int_eq(rpc.id.n, 3);
	ck_assert_int_eq(rpc.code, -32601);
	ck_assert_str_eq(rpc.message, "Method not found");
	ck_assert_ptr_null(rpc.data);
	msg_rpc_free(&rpc);
	ok("{\"jsonrpc\":\"2.0\",\"id\":6,\"error\":{\"code\":-32042,"
	    "\"message\":\"MCP error -32042: x\",\"data\":{\"elicitations\":"
	    "[{\"mode\":\"url\"}]},\"extra\":1}}", RPC_ERROR, &rpc);
	ck_assert_int_eq(rpc.code, -32042);
	ck_assert(value_is(value_get(rpc.data, "elicitations"), V_ARRAY));
	msg_rpc_free(&rpc);
	/* id null is allowed in an error response, and only there. */
	ok("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
	    "\"message\":\"Parse error\"}}", RPC_ERROR, &rpc);
	ck_assert_int_eq(rpc.id.type, RPC_ID_NULL);
	msg_rpc_free(&rpc);
}
END_TEST

START_TEST(test_blank_and_cr)
{
	struct msg_rpc_bad b;
	struct rpc rpc;

	ck_assert_int_eq(parse_s("", &rpc, &b), PARSE_SKIP);
	ck_assert_int_eq(parse_s("   \t ", &rpc, &b), PARSE_SKIP);
	ck_assert_int_eq(parse_s("\r", &rpc, &b), PARSE_SKIP);
	ck_assert_int_eq(parse_s(" \t\r", &rpc, &b), PARSE_SKIP);
	ck_assert_ptr_null(b.message);
	/* One trailing CR is stripped, and whitespace around is fine. */
	ok("  {\"jsonrpc\":\"2.0\",\"method\":\"a\"} \r", RPC_NOTIFICATION,
	    &rpc);
	msg_rpc_free(&rpc);
	ok("{\"jsonrpc\" : \"2.0\" ,\r\n\"method\":\t\"a\"}",
	    RPC_NOTIFICATION, &rpc);
	msg_rpc_free(&rpc);
}
END_TEST

START_TEST(test_other_keys_ignored)
{
	struct rpc rpc;

	ok("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"x\":[1,{\"y\":"
	    "null}],\"_meta\":{}}", RPC_REQUEST, &rpc);
	ck_assert_ptr_null(rpc.params);
	msg_rpc_free(&rpc);
	/* params in a response is just another key. */
	ok("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"params\":5}",
	    RPC_RESULT, &rpc);
	msg_rpc_free(&rpc);
}
END_TEST

START_TEST(test_numbers)
{
	struct rpc rpc;
	struct value *a;

	ok("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[1.0,1.5,-0,1e2,"
	    "9007199254740992,-9007199254740992,9007199254740994,0.1,-2.5e-3,"
	    "1e-400,123456789012345678901234567890]}", RPC_RESULT, &rpc);
	a = rpc.result;
	ck_assert(value_is(a->u.a.v[0], V_INT) && a->u.a.v[0]->u.i == 1);
	ck_assert(value_is(a->u.a.v[1], V_DOUBLE) && a->u.a.v[1]->u.d == 1.5);
	ck_assert(value_is(a->u.a.v[2], V_INT) && a->u.a.v[2]->u.i == 0);
	ck_assert(value_is(a->u.a.v[3], V_INT) && a->u.a.v[3]->u.i == 100);
	ck_assert(value_is(a->u.a.v[4], V_INT) && a->u.a.v[4]->u.i == P53);
	ck_assert(value_is(a->u.a.v[5], V_INT) && a->u.a.v[5]->u.i == -P53);
	/* Past 2^53 an integer is no longer exact: a double. */
	ck_assert(value_is(a->u.a.v[6], V_DOUBLE));
	ck_assert(a->u.a.v[6]->u.d == 9007199254740994.0);
	ck_assert(value_is(a->u.a.v[7], V_DOUBLE) && a->u.a.v[7]->u.d == 0.1);
	ck_assert(value_is(a->u.a.v[8], V_DOUBLE));
	ck_assert(value_is(a->u.a.v[9], V_INT) && a->u.a.v[9]->u.i == 0);
	ck_assert(value_is(a->u.a.v[10], V_DOUBLE));
	msg_rpc_free(&rpc);
}
END_TEST

START_TEST(test_strings)
{
	struct rpc rpc;
	struct value *a;

	ok("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[\"\\u00e9\","
	    "\"\\ud83d\\ude00\",\"\\\\u0000\",\"\\\"\\\\\\/\\b\\f\\n\\r\\t\","
	    "\"\xe2\x82\xac\x7f\",\"\"]}", RPC_RESULT, &rpc);
	a = rpc.result;
	ck_assert_str_eq(a->u.a.v[0]->u.s.p, "\xc3\xa9");
	ck_assert_uint_eq(a->u.a.v[0]->u.s.len, 2);
	ck_assert_str_eq(a->u.a.v[1]->u.s.p, "\xf0\x9f\x98\x80");
	/* An escaped backslash before u0000 is text, not a NUL. */
	ck_assert_str_eq(a->u.a.v[2]->u.s.p, "\\u0000");
	ck_assert_str_eq(a->u.a.v[3]->u.s.p, "\"\\/\b\f\n\r\t");
	ck_assert_str_eq(a->u.a.v[4]->u.s.p, "\xe2\x82\xac\x7f");
	ck_assert_uint_eq(a->u.a.v[5]->u.s.len, 0);
	msg_rpc_free(&rpc);
}
END_TEST

/* Lines captured from real peers (shared/fixtures/transcripts). */
static const char *const fixture_lines[] = {
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
	"{\"protocolVersion\":\"2024-11-05\",\"capabilities\":{},"
	"\"clientInfo\":{\"name\":\"sh\",\"version\":\"0\"}}}",
	"{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Allowed "
	"directories:\\n$ROOT/fs\"}],\"structuredContent\":{\"content\":"
	"\"Allowed directories:\\n$ROOT/fs\"}},\"jsonrpc\":\"2.0\",\"id\":2}",
	"{\"method\":\"elicitation/create\",\"params\":{\"mode\":\"url\","
	"\"url\":\"https://example.com/consent\",\"message\":\"Please open "
	"the link to complete this action.\",\"elicitationId\":\"48da737d\"},"
	"\"jsonrpc\":\"2.0\",\"id\":1}",
	"{\"result\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada "
	"Lovelace\",\"check\":true,\"email\":\"ada@example.com\",\"integer\":"
	"7}},\"jsonrpc\":\"2.0\",\"id\":0}",
	"{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32601,\"message\":"
	"\"Method not found\"}}",
};

START_TEST(test_fixtures)
{
	static const int kinds[] = { RPC_REQUEST, RPC_RESULT, RPC_REQUEST,
	    RPC_RESULT, RPC_ERROR };
	struct rpc rpc;

	ok(fixture_lines[_i], kinds[_i], &rpc);
	msg_rpc_free(&rpc);
}
END_TEST

/* limits */

/*
 * A request whose params hold `n` nested arrays: the message object and
 * params make 2 levels, so the depth is n + 2.
 */
static char *
nested_request(size_t n)
{
	struct sb s = { NULL, 0, 0 };

	sb_str(&s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"m\",\"params\":"
	    "{\"a\":");
	sb_rep(&s, "[", n);
	sb_rep(&s, "]", n);
	sb_str(&s, "}}");
	return s.p;
}

START_TEST(test_depth)
{
	struct rpc rpc;
	char *line;

	/* Envelope and params are 2: 62 more make exactly 64. */
	line = nested_request(BNC_VALUE_DEPTH_MAX - 2);
	ok(line, RPC_REQUEST, &rpc);
	ck_assert_int_eq(value_depth(rpc.params), BNC_VALUE_DEPTH_MAX - 1);
	msg_rpc_free(&rpc);
	free(line);
	line = nested_request(BNC_VALUE_DEPTH_MAX - 1);
	BADI(line, INV, "Invalid Request: nesting too deep", 9);
	free(line);
	/* Objects count the same. */
	{
		struct sb s = { NULL, 0, 0 };

		sb_str(&s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":");
		sb_rep(&s, "{\"a\":", BNC_VALUE_DEPTH_MAX - 1);
		sb_str(&s, "1");
		sb_rep(&s, "}", BNC_VALUE_DEPTH_MAX - 1);
		sb_str(&s, "}");
		ok(s.p, RPC_RESULT, &rpc);
		msg_rpc_free(&rpc);
		free(s.p);
	}
	/* Past cJSON's own limit: refused before it runs, id unknown. */
	line = nested_request(5000);
	BAD0(line, INV, "Invalid Request: nesting too deep");
	free(line);
	line = nested_request(998);
	BADI(line, INV, "Invalid Request: nesting too deep", 9);
	free(line);
}
END_TEST

/* A request whose params hold an array of k zeros: 6 + k nodes. */
static char *
wide_request(size_t k)
{
	struct sb s = { NULL, 0, 0 };

	sb_str(&s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"m\",\"params\":"
	    "{\"a\":[");
	if (k > 0) {
		sb_str(&s, "0");
		sb_rep(&s, ",0", k - 1);
	}
	sb_str(&s, "]}}");
	return s.p;
}

START_TEST(test_nodes)
{
	struct rpc rpc;
	char *line;

	line = wide_request(BNC_VALUE_NODES_MAX - 6);
	ok(line, RPC_REQUEST, &rpc);
	ck_assert_uint_eq(value_count_nodes(rpc.params),
	    BNC_VALUE_NODES_MAX - 4);
	msg_rpc_free(&rpc);
	free(line);
	line = wide_request(BNC_VALUE_NODES_MAX - 5);
	BAD0(line, INV, "Invalid Request: too many values");
	free(line);
}
END_TEST

START_TEST(test_method_len)
{
	struct sb s = { NULL, 0, 0 }, t = { NULL, 0, 0 };
	struct rpc rpc;

	sb_str(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"");
	sb_rep(&s, "m", BNC_METHOD_MAX);
	sb_str(&s, "\"}");
	ok(s.p, RPC_REQUEST, &rpc);
	ck_assert_uint_eq(strlen(rpc.method), BNC_METHOD_MAX);
	msg_rpc_free(&rpc);
	sb_str(&t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"");
	sb_rep(&t, "m", BNC_METHOD_MAX + 1);
	sb_str(&t, "\"}");
	BADI(t.p, INV, "Invalid Request: method too long", 1);
	free(s.p);
	free(t.p);
}
END_TEST

START_TEST(test_id_len)
{
	struct sb s = { NULL, 0, 0 }, t = { NULL, 0, 0 };
	struct rpc rpc;

	sb_str(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":\"");
	sb_rep(&s, "i", BNC_ID_STR_MAX);
	sb_str(&s, "\"}");
	ok(s.p, RPC_REQUEST, &rpc);
	ck_assert_uint_eq(strlen(rpc.id.s), BNC_ID_STR_MAX);
	msg_rpc_free(&rpc);
	sb_str(&t, "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":\"");
	sb_rep(&t, "i", BNC_ID_STR_MAX + 1);
	sb_str(&t, "\"}");
	BAD0(t.p, INV, "Invalid Request: bad id");
	free(s.p);
	free(t.p);
}
END_TEST

START_TEST(test_id_range)
{
	struct rpc rpc;

	ok("{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":9007199254740991}",
	    RPC_REQUEST, &rpc);
	ck_assert_int_eq(rpc.id.n, P53 - 1);
	msg_rpc_free(&rpc);
	ok("{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":-9007199254740991}",
	    RPC_REQUEST, &rpc);
	ck_assert_int_eq(rpc.id.n, -(P53 - 1));
	msg_rpc_free(&rpc);
	/* 2^53 + 1 reads as 2^53: both refused, as is all beyond */
	BAD0("{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":9007199254740992}",
	    INV, "Invalid Request: bad id");
	BAD0("{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":9007199254740993}",
	    INV, "Invalid Request: bad id");
	BAD0("{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":-9007199254740993}",
	    INV, "Invalid Request: bad id");
	BAD0("{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":9007199254740994}",
	    INV, "Invalid Request: bad id");
	BAD0("{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":1e300}", INV,
	    "Invalid Request: bad id");
}
END_TEST

START_TEST(test_errmsg_len)
{
	struct sb s = { NULL, 0, 0 }, t = { NULL, 0, 0 };
	struct rpc rpc;

	sb_str(&s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":1,"
	    "\"message\":\"");
	sb_rep(&s, "e", BNC_ERRMSG_MAX);
	sb_str(&s, "\"}}");
	ok(s.p, RPC_ERROR, &rpc);
	ck_assert_uint_eq(strlen(rpc.message), BNC_ERRMSG_MAX);
	msg_rpc_free(&rpc);
	sb_str(&t, "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":1,"
	    "\"message\":\"");
	sb_rep(&t, "e", BNC_ERRMSG_MAX + 1);
	sb_str(&t, "\"}}");
	BADR(t.p, INV, "Invalid Request: error message too long", RPC_ID_INT,
	    4);
	free(s.p);
	free(t.p);
}
END_TEST

/* An object of n distinct keys k0..k(n-1), plus "dup" twice if asked. */
static char *
many_keys(size_t n, int dup)
{
	struct sb s = { NULL, 0, 0 };
	char k[64];
	size_t i;

	sb_str(&s, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"m\","
	    "\"params\":{");
	if (dup)
		sb_str(&s, "\"dup\":1,");
	for (i = 0; i < n; i++) {
		snprintf(k, sizeof(k), "%s\"k%zu\":%zu", i > 0 ? "," : "", i,
		    i);
		sb_str(&s, k);
	}
	if (dup)
		sb_str(&s, ",\"dup\":2");
	sb_str(&s, "}}");
	return s.p;
}

/* CPU seconds to parse an object of n distinct keys: the best of tries. */
static double
parse_cpu(size_t n, int tries)
{
	struct rpc rpc;
	struct timespec t0, t1;
	double secs, best = 0.0;
	char *line;
	int i;

	line = many_keys(n, 0);
	for (i = 0; i < tries; i++) {
		ck_assert_int_eq(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0),
		    0);
		ok(line, RPC_REQUEST, &rpc);
		ck_assert_int_eq(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1),
		    0);
		ck_assert_uint_eq(rpc.params->u.o.n, n);
		msg_rpc_free(&rpc);
		secs = (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (i == 0 || secs < best)
			best = secs;
	}
	free(line);
	return best;
}

/*
 * Half a million keys: quadratic checking would never finish.  No time
 * is asserted (the machine, valgrind or a sanitizer set it), only how
 * the cost grows from a hundredth of the keys to all of them: about a
 * hundred times if parsing is linear, several hundred once the caches
 * no longer hold the object (230 to 540 measured), ten thousand if it
 * is quadratic (9600 with the pairwise check forced on every object,
 * 500 against 50k keys).  CPU time, so that other processes do not
 * count; the small parse is the best of five, so that one slow run of
 * it cannot hide a quadratic.  The figures are printed.
 */
#define DUP_LARGE_KEYS	500000
#define DUP_LARGE_GROWTH 2000.0	/* for 100 times the keys */
START_TEST(test_dup_large)
{
	struct rpc rpc;
	double small, large;
	char *line;

	small = parse_cpu(DUP_LARGE_KEYS / 100, 5);
	large = parse_cpu(DUP_LARGE_KEYS, 1);
	printf("check_parse: %d keys: %.0f times the CPU time of %d (%.3f s, "
	    "%.4f s)\n", DUP_LARGE_KEYS, large / small, DUP_LARGE_KEYS / 100,
	    large, small);
	ck_assert_msg(large < DUP_LARGE_GROWTH * small, "%d keys took %.0f "
	    "times as long as %d (%.3f s, %.4f s of CPU): not linear",
	    DUP_LARGE_KEYS, large / small, DUP_LARGE_KEYS / 100, large,
	    small);
	line = many_keys(DUP_LARGE_KEYS, 1);
	BADI(line, INV, "Invalid Request: duplicate key \"dup\"", 5);
	free(line);
	/* Both sides of the pairwise/sorted switch. */
	line = many_keys(13, 1);
	BADI(line, INV, "Invalid Request: duplicate key \"dup\"", 5);
	free(line);
	line = many_keys(14, 1);
	BADI(line, INV, "Invalid Request: duplicate key \"dup\"", 5);
	free(line);
	line = many_keys(14, 0);
	ok(line, RPC_REQUEST, &rpc);
	msg_rpc_free(&rpc);
	free(line);
}
END_TEST

/* The framer, through a pipe */

struct pipe_lines {
	int		 fd[2];
	struct lines	*l;
};

static void
pl_open(struct pipe_lines *pl, size_t max)
{
	ck_assert_int_eq(pipe(pl->fd), 0);
	ck_assert_int_ne(fcntl(pl->fd[0], F_SETFL, O_NONBLOCK), -1);
	ck_assert_ptr_nonnull(pl->l = lines_new(max));
}

static void
pl_close(struct pipe_lines *pl)
{
	if (pl->fd[1] != -1)
		close(pl->fd[1]);
	close(pl->fd[0]);
	lines_free(pl->l);
}

static void
pl_write(struct pipe_lines *pl, const void *p, size_t n)
{
	ck_assert_int_eq(write(pl->fd[1], p, n), (ssize_t)n);
}

/*
 * Reads until the pipe is empty, collecting events: each line's length
 * into lens[] (or (size_t)-1 for a too-long report), copies of the last
 * line into last[].  Returns the number of events.
 */
static size_t
pl_drain(struct pipe_lines *pl, size_t *lens, size_t nlens, char *last,
    size_t lastsz, size_t max)
{
	size_t n = 0, len;
	char *p;
	int r, t;

	for (;;) {
		r = lines_read(pl->l, pl->fd[0]);
		if (r == -BNC_ERR_AGAIN)
			break;
		ck_assert_int_ge(r, 0);
		ck_assert_uint_le(lines_pending(pl->l),
		    max + BNC_READ_CHUNK);
		while ((t = lines_next(pl->l, &p, &len)) != LINES_NONE) {
			ck_assert_uint_lt(n, nlens);
			if (t == LINES_TOO_LONG) {
				lens[n++] = (size_t)-1;
				continue;
			}
			ck_assert_int_eq(t, LINES_LINE);
			ck_assert_int_eq(p[len], '\0');
			ck_assert_ptr_null(memchr(p, '\n', len));
			lens[n++] = len;
			if (last != NULL && len < lastsz)
				memcpy(last, p, len + 1);
		}
		if (r == 0)
			break;
	}
	return n;
}

START_TEST(test_lines_at_limit)
{
	struct pipe_lines pl;
	size_t max = 4096, lens[8], n;
	char *big;

	big = malloc(max + 2);
	memset(big, 'x', max + 1);
	pl_open(&pl, max);
	/* Exactly max bytes, then max + 1. */
	big[max] = '\n';
	pl_write(&pl, big, max + 1);
	n = pl_drain(&pl, lens, 8, NULL, 0, max);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(lens[0], max);
	big[max] = 'x';
	big[max + 1] = '\n';
	pl_write(&pl, big, max + 2);
	n = pl_drain(&pl, lens, 8, NULL, 0, max);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(lens[0], (size_t)-1);
	/* The framer still works afterwards. */
	pl_write(&pl, "ab\n", 3);
	n = pl_drain(&pl, lens, 8, NULL, 0, max);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(lens[0], 2);
	pl_close(&pl);
	free(big);
}
END_TEST

START_TEST(test_lines_discard)
{
	static const char good[] =
	    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n";
	struct pipe_lines pl;
	size_t max = BNC_MSG_MAX_LOWEST, lens[8], n, i, total = 0;
	char chunk[1000], last[256];
	struct msg_rpc_bad b;
	struct rpc rpc;

	memset(chunk, 'y', sizeof(chunk));
	pl_open(&pl, max);
	/*
	 * 50 times the cap, in pieces, drained as it comes: never buffered
	 * past the bound (pl_drain checks), not reported before it ends.
	 */
	n = 0;
	for (i = 0; i < 50 * max / sizeof(chunk); i++) {
		pl_write(&pl, chunk, sizeof(chunk));
		n += pl_drain(&pl, lens + n, 8 - n, NULL, 0, max);
		total += sizeof(chunk);
	}
	ck_assert_uint_gt(total, 50 * max - sizeof(chunk));
	ck_assert_uint_eq(n, 0);
	/* The end of the long line, then a good one in the same write:
	 * the long one reported once, then the good one. */
	pl_write(&pl, "tail\n", 5);
	pl_write(&pl, good, sizeof(good) - 1);
	n = pl_drain(&pl, lens, 8, last, sizeof(last), max);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(lens[0], (size_t)-1);
	ck_assert_uint_eq(lens[1], sizeof(good) - 2);
	ck_assert_int_eq(parse_line(last, lens[1], &rpc, &b), PARSE_RPC);
	ck_assert_int_eq(rpc.id.n, 7);
	ck_assert_str_eq(rpc.method, "ping");
	msg_rpc_free(&rpc);
	pl_close(&pl);
}
END_TEST

START_TEST(test_lines_many_and_eof)
{
	struct pipe_lines pl;
	size_t lens[16], n;
	char last[64];

	pl_open(&pl, 100);
	/* Many lines in one read, an empty one, a CR kept for parse. */
	pl_write(&pl, "a\nbb\n\nccc\r\nlast", 15);
	close(pl.fd[1]);
	pl.fd[1] = -1;
	n = pl_drain(&pl, lens, 16, last, sizeof(last), 100);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(lens[0], 1);
	ck_assert_uint_eq(lens[1], 2);
	ck_assert_uint_eq(lens[2], 0);
	ck_assert_uint_eq(lens[3], 4);
	/* EOF: the unterminated last line is still a line. */
	ck_assert_uint_eq(lens[4], 4);
	ck_assert_str_eq(last, "last");
	ck_assert_int_eq(lines_read(pl.l, pl.fd[0]), 0);
	pl_close(&pl);
}
END_TEST

START_TEST(test_lines_big_line_pieces)
{
	struct pipe_lines pl;
	size_t max = 1 << 20, lens[4], n = 0, sent = 0, k;
	char *piece;

	/* A line of exactly max bytes in odd pieces, with reads between. */
	piece = malloc(7777);
	memset(piece, 'z', 7777);
	pl_open(&pl, max);
	while (sent < max) {
		k = max - sent < 7777 ? max - sent : 7777;
		pl_write(&pl, piece, k);
		sent += k;
		n += pl_drain(&pl, lens + n, 4 - n, NULL, 0, max);
	}
	ck_assert_uint_eq(n, 0);
	pl_write(&pl, "\n", 1);
	n = pl_drain(&pl, lens, 4, NULL, 0, max);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(lens[0], max);
	/* And one byte more, still in pieces: reported once. */
	sent = 0;
	n = 0;
	while (sent < max + 1) {
		k = max + 1 - sent < 7777 ? max + 1 - sent : 7777;
		pl_write(&pl, piece, k);
		sent += k;
		n += pl_drain(&pl, lens + n, 4 - n, NULL, 0, max);
	}
	pl_write(&pl, "\nok\n", 4);
	n += pl_drain(&pl, lens + n, 4 - n, NULL, 0, max);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(lens[0], (size_t)-1);
	ck_assert_uint_eq(lens[1], 2);
	pl_close(&pl);
	free(piece);
}
END_TEST

START_TEST(test_lines_eof_discard)
{
	struct lines *l;
	char buf[200], *p;
	size_t len;

	/* A too-long unterminated last line is reported when it ends (at
	 * end of file), once. */
	memset(buf, 'q', sizeof(buf));
	ck_assert_ptr_nonnull(l = lines_new(100));
	ck_assert_int_eq(lines_feed(l, buf, sizeof(buf)), (int)sizeof(buf));
	ck_assert_int_eq(lines_next(l, &p, &len), LINES_NONE);
	ck_assert_uint_eq(lines_pending(l), 0);
	ck_assert_int_eq(lines_feed(l, buf, 50), 50);
	ck_assert_int_eq(lines_next(l, &p, &len), LINES_NONE);
	ck_assert_int_eq(lines_feed(l, NULL, 0), 0);
	ck_assert_int_eq(lines_next(l, &p, &len), LINES_TOO_LONG);
	ck_assert_int_eq(lines_next(l, &p, &len), LINES_NONE);
	lines_free(l);
}
END_TEST

START_TEST(test_too_large_bad)
{
	struct msg_rpc_bad b;

	parse_bad_too_large(&b, NULL);
	ck_assert_int_eq(b.code, INV);
	ck_assert_str_eq(b.message, "message too large");
	ck_assert_int_eq(b.id.type, RPC_ID_NULL);
	ck_assert_int_eq(b.was_response, 0);
	msg_rpc_bad_free(&b);
}
END_TEST

/*
 * idscan: the id of a line too long to parse, fed whole and one byte at
 * a time (the answer must not depend on how the bytes arrive).
 */
static int
scan_id(const char *line, struct rpc_id *id, int *was_response)
{
	struct idscan x, y;
	struct rpc_id id2;
	size_t i, n = strlen(line);
	int r, r2, resp2;

	idscan_init(&x);
	idscan_feed(&x, (const uint8_t *)line, n);
	r = idscan_result(&x, id, was_response);
	idscan_init(&y);
	for (i = 0; i < n; i++)
		idscan_feed(&y, (const uint8_t *)line + i, 1);
	r2 = idscan_result(&y, &id2, &resp2);
	ck_assert_int_eq(r, r2);
	ck_assert_int_eq(*was_response, resp2);
	ck_assert_int_eq(id->type, id2.type);
	ck_assert(id->type != RPC_ID_STR || strcmp(id->s, id2.s) == 0);
	free(id2.s);
	return r;
}

START_TEST(test_idscan)
{
	static const struct {
		const char	*line;
		int		 found;
		int		 type;
		int64_t		 n;
		const char	*s;
		int		 response;
	} cases[] = {
		{ "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\"}", 1,
		    RPC_ID_INT, 7, NULL, 0 },
		/* after nested values, strings with braces and escapes */
		{ "{\"params\":{\"a\":[1,{\"id\":9}],\"b\":\"}\\\"{\"},"
		    "\"id\" : -42 }", 1, RPC_ID_INT, -42, NULL, 0 },
		{ " {\"result\":{\"content\":[]},\"jsonrpc\":\"2.0\","
		    "\"id\":\"req-1\"}\r", 1, RPC_ID_STR, 0, "req-1", 1 },
		{ "{\"error\":{\"code\":1},\"id\":null}", 1, RPC_ID_NULL, 0,
		    NULL, 1 },
		{ "{\"id\":9007199254740991}", 1, RPC_ID_INT,
		    INT64_C(9007199254740991), NULL, 0 },
		/* unknown: none, two, odd shapes, escapes, bad JSON */
		{ "{\"method\":\"x\"}", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"id\":1,\"id\":2}", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"id\":1.5}", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"id\":01}", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"id\":9007199254740993}", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"id\":9007199254740992}", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"id\":true}", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"id\":[1]}", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"id\":\"a\\u0041\"}", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"id\":\"\xff\"}", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "[{\"id\":1}]", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"id\":1", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"id\":1} x", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"id\" 1}", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"result\":\"\", \"id\":3", 0, RPC_ID_NULL, 0, NULL, 1 },
		/* what a parser refuses is not answered with an id either */
		{ "{\"id\":1,}", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"id\":5,\"x\":[}}", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"x\":{\"y\":[1]],\"id\":6}", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"id\":7]", 0, RPC_ID_NULL, 0, NULL, 0 },
		/* an escaped name might spell "id" or "result": unknown */
		{ "{\"i\\u0064\":1,\"id\":2}", 0, RPC_ID_NULL, 0, NULL, 0 },
		{ "{\"id\":3,\"r\\u0065sult\":1}", 0, RPC_ID_NULL, 0, NULL, 0 },
	};
	struct rpc_id id;
	size_t i;
	int resp;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_msg(scan_id(cases[i].line, &id, &resp) ==
		    cases[i].found, "case %zu: found", i);
		ck_assert_msg(id.type == cases[i].type, "case %zu: type", i);
		ck_assert_msg(resp == cases[i].response, "case %zu: response",
		    i);
		if (id.type == RPC_ID_INT)
			ck_assert_msg(id.n == cases[i].n, "case %zu: n", i);
		if (id.type == RPC_ID_STR)
			ck_assert_str_eq(id.s, cases[i].s);
		free(id.s);
	}
}
END_TEST

/* The framer hands every byte of an over-long line to the scanner. */
static void
drop_into(void *arg, const uint8_t *p, size_t n, int first)
{
	struct idscan *x = arg;

	if (first)
		idscan_init(x);
	idscan_feed(x, p, n);
}

START_TEST(test_lines_drop_hook)
{
	struct lines *l;
	struct idscan x;
	struct rpc_id id;
	struct msg_rpc_bad b;
	char head[] = "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":"
	    "{\"pad\":\"", pad[300], tail[] = "\"},\"id\":77}\n";
	char *p;
	size_t len;
	int resp;

	memset(pad, 'x', sizeof(pad));
	ck_assert_ptr_nonnull(l = lines_new(100));
	lines_on_drop(l, drop_into, &x);
	ck_assert_int_eq(lines_feed(l, head, strlen(head)), (int)strlen(head));
	ck_assert_int_eq(lines_feed(l, pad, sizeof(pad)), (int)sizeof(pad));
	ck_assert_int_eq(lines_next(l, &p, &len), LINES_NONE);
	ck_assert_int_eq(lines_feed(l, tail, strlen(tail)), (int)strlen(tail));
	ck_assert_int_eq(lines_next(l, &p, &len), LINES_TOO_LONG);
	ck_assert_int_eq(idscan_result(&x, &id, &resp), 1);
	ck_assert_int_eq(id.type, RPC_ID_INT);
	ck_assert_int_eq(id.n, 77);
	parse_bad_too_large(&b, &x);
	ck_assert_int_eq(b.id.type, RPC_ID_INT);
	ck_assert_int_eq(b.id.n, 77);
	msg_rpc_bad_free(&b);
	/* the next line is a fresh one, and short lines never reach it */
	ck_assert_int_eq(lines_feed(l, "{\"id\":1}\n", 9), 9);
	ck_assert_int_eq(lines_next(l, &p, &len), LINES_LINE);
	ck_assert_str_eq(p, "{\"id\":1}");
	ck_assert_int_eq(idscan_result(&x, &id, &resp), 1);
	ck_assert_int_eq(id.n, 77);
	lines_free(l);
}
END_TEST

/* errors */

START_TEST(test_bad_utf8)
{
	static const char *const lines[] = {
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc0\xaf\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xed\xa0\x80\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\xe2\x82\"}",
		"\xf4\x90\x80\x80",
	};
	size_t i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		BAD0(lines[i], PARSE, "Parse error: invalid UTF-8");
}
END_TEST

START_TEST(test_nul)
{
	static const char raw_nul1[] =
	    "{\"jsonrpc\":\"2.0\",\"method\":\"a\0\"}";
	static const char raw_nul2[] =
	    "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\0";
	struct rpc rpc;

	/* Refused, but with the id when the line is otherwise readable. */
	BADI("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\\u0000b\"}", INV,
	    "NUL character in string", 1);
	bad("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"m\",\"params\":"
	    "{\"k\\u0000\":1}}", INV, "NUL character in string", RPC_ID_STR, 0,
	    "x", 0);
	BADR("{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":[\"\\u0000\"]}", INV,
	    "NUL character in string", RPC_ID_INT, 4);
	/* ... but never an id that held the NUL, or a repeated one. */
	BAD0("{\"jsonrpc\":\"2.0\",\"id\":\"a\\u0000\",\"method\":\"m\"}",
	    INV, "NUL character in string");
	BAD0("{\"jsonrpc\":\"2.0\",\"id\":\"a\\ufffd\",\"method\":\"\\u0000\"}",
	    INV, "NUL character in string");
	BAD0("{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":1,\"method\":\"\\u0000\"}",
	    INV, "NUL character in string");
	/* A key "id\u0000" is not the key "id". */
	BAD0("{\"jsonrpc\":\"2.0\",\"id\\u0000\":1,\"method\":\"m\"}",
	    INV, "NUL character in string");
	/* Escaped backslash, then a real \u0000. */
	BAD0("{\"jsonrpc\":\"2.0\",\"method\":\"\\\\\\u0000\"}", INV,
	    "NUL character in string");
	/* Reported even when the line is broken elsewhere too. */
	BAD0("{\"a\":\"\\u0000\"", INV, "NUL character in string");
	/* Not NULs: an escaped backslash, and U+0100. */
	ok("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[\"\\\\u0000\","
	    "\"\\u0100\",\"\\\\\\\\u0000\"]}", RPC_RESULT, &rpc);
	msg_rpc_free(&rpc);
	/* A raw NUL byte is not JSON at all. */
	bad_n(raw_nul1, sizeof(raw_nul1) - 1, PARSE, "Parse error",
	    RPC_ID_NULL, 0, NULL, 0);
	bad_n(raw_nul2, sizeof(raw_nul2) - 1, PARSE, "Parse error",
	    RPC_ID_NULL, 0, NULL, 0);
}
END_TEST

START_TEST(test_not_json)
{
	static const char *const lines[] = {
		"not json",
		"{",
		"{\"jsonrpc\":\"2.0\",\"method\":\"a\"",
		"{\"jsonrpc\":\"2.0\",\"method\":\"a\"} x",
		"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}{}",
		"{\"jsonrpc\":\"2.0\",\"method\":\"a\",}",
		"{\"jsonrpc\":\"2.0\",\"method\":'a'}",
		"{jsonrpc:\"2.0\"}",
		"{\"a\":\"unterminated}",
		"{\"a\":\"bad escape \\x\"}",
		"{\"a\":\"\\u12\"}",
		"{\"a\":\"\\ud800\"}",		/* lone surrogate */
		"{\"a\":\"\\udc00\\ud800\"}",
		/* forms cJSON accepts and other parsers do not */
		"{\"a\":01}",
		"{\"a\":1.}",
		"{\"a\":-.5}",
		"{\"a\":1.e3}",
		"{\"a\":-}",
		"{\"a\":+1}",
		"{\"a\":.5}",
		"{\"a\":0x10}",
		"{\"a\":NaN}",
		"{\"a\":Infinity}",
		"{\"a\":tru}",
		"{\"a\":nulls}",
		"{\"a\":\"tab\there\"}",	/* raw control byte */
		"{\"a\":\x01 1}",		/* not JSON whitespace */
		"{\"a\":\x0b 1}",
		"{\"a\":1\x0c}",
		"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"a\"}",
		"]",
		"{}}",
		"{\"a\" 1}",
	};
	size_t i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		BAD0(lines[i], PARSE, "Parse error");
}
END_TEST

START_TEST(test_batch_and_non_object)
{
	BAD0("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", INV,
	    "Batch requests are not supported");
	BAD0("[]", INV, "Batch requests are not supported");
	BAD0("1", INV, "Invalid Request: not an object");
	BAD0("\"x\"", INV, "Invalid Request: not an object");
	BAD0("null", INV, "Invalid Request: not an object");
	BAD0(" true ", INV, "Invalid Request: not an object");
}
END_TEST

START_TEST(test_dup_keys)
{
	struct sb s = { NULL, 0, 0 };

	BADI("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"method\":\"b\"}",
	    INV, "Invalid Request: duplicate key \"method\"", 1);
	bad("{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"a\",\"params\":"
	    "{\"x\":{\"y\":[{\"z\":1,\"z\":2}]}}}", INV,
	    "Invalid Request: duplicate key \"z\"", RPC_ID_STR, 0, "s", 0);
	/* Equal after unescaping is equal. */
	BADI("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":"
	    "{\"a\":1,\"\\u0061\":2}}", INV,
	    "Invalid Request: duplicate key \"a\"", 1);
	/* A repeated id is no id at all. */
	BAD0("{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"m\"}", INV,
	    "Invalid Request: duplicate key \"id\"");
	/* In a response: the id, and was_response. */
	BADR("{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"a\":1,\"a\":1}}",
	    INV, "Invalid Request: duplicate key \"a\"", RPC_ID_INT, 8);
	/* The key is escaped and cut, never cut inside UTF-8. */
	BADI("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":"
	    "{\"q\\\"\\\\\\n\\u0001\":1,\"q\\\"\\\\\\n\\u0001\":2}}", INV,
	    "Invalid Request: duplicate key \"q\\\"\\\\\\u000a\\u0001\"", 1);
	sb_str(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\","
	    "\"params\":{");
	sb_str(&s, "\"a");
	sb_rep(&s, "\xc3\xa9", 40);
	sb_str(&s, "\":1,\"a");
	sb_rep(&s, "\xc3\xa9", 40);
	sb_str(&s, "\":2}}");
	{
		struct sb want = { NULL, 0, 0 };

		sb_str(&want, "Invalid Request: duplicate key \"a");
		sb_rep(&want, "\xc3\xa9", 31);
		sb_str(&want, "...\"");
		BADI(s.p, INV, want.p, 1);
		free(want.p);
	}
	free(s.p);
	/* Deep down, and the deeper one is still found. */
	s.p = NULL;
	s.len = s.cap = 0;
	sb_str(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"m\","
	    "\"params\":");
	sb_rep(&s, "{\"n\":[", 30);
	sb_str(&s, "{\"deep\":0,\"deep\":0}");
	sb_rep(&s, "]}", 30);
	sb_str(&s, "}");
	BADI(s.p, INV, "Invalid Request: duplicate key \"deep\"", 2);
	free(s.p);
}
END_TEST

START_TEST(test_number_range)
{
	BADI("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":"
	    "{\"a\":[1e400]}}", INV, "Invalid Request: number out of range", 1);
	BADI("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":"
	    "{\"x\":-1E+999}}", INV, "Invalid Request: number out of range", 1);
	/* An id that overflows is a number fault, and the id is unknown. */
	BAD0("{\"jsonrpc\":\"2.0\",\"id\":1e400,\"method\":\"m\"}", INV,
	    "Invalid Request: number out of range");
}
END_TEST

START_TEST(test_jsonrpc)
{
	BADI("{\"id\":1,\"method\":\"m\"}", INV,
	    "Invalid Request: jsonrpc must be \"2.0\"", 1);
	BADI("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"m\"}", INV,
	    "Invalid Request: jsonrpc must be \"2.0\"", 1);
	BADI("{\"jsonrpc\":2.0,\"id\":1,\"method\":\"m\"}", INV,
	    "Invalid Request: jsonrpc must be \"2.0\"", 1);
	BADI("{\"jsonrpc\":\"2.0 \",\"id\":1,\"method\":\"m\"}", INV,
	    "Invalid Request: jsonrpc must be \"2.0\"", 1);
	bad("{\"jsonrpc\":\"2\",\"id\":\"q\",\"method\":\"m\"}", INV,
	    "Invalid Request: jsonrpc must be \"2.0\"", RPC_ID_STR, 0, "q", 0);
	/* With a bad id, the id is unknown. */
	BAD0("{\"jsonrpc\":\"1.0\",\"id\":[1],\"method\":\"m\"}", INV,
	    "Invalid Request: jsonrpc must be \"2.0\"");
	BAD0("{}", INV, "Invalid Request: jsonrpc must be \"2.0\"");
}
END_TEST

START_TEST(test_bad_id)
{
	static const char *const ids[] = {
		"[1]", "{}", "true", "false", "1.5", "-0.5", "9007199254740994",
	};
	char line[128];
	size_t i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		snprintf(line, sizeof(line),
		    "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"m\"}", ids[i]);
		BAD0(line, INV, "Invalid Request: bad id");
		snprintf(line, sizeof(line),
		    "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}", ids[i]);
		BADR(line, INV, "Invalid Request: bad id", RPC_ID_NULL, 0);
	}
	/* null only in an error response */
	BAD0("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"m\"}", INV,
	    "Invalid Request: bad id");
	BADR("{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}", INV,
	    "Invalid Request: bad id", RPC_ID_NULL, 0);
}
END_TEST

START_TEST(test_method)
{
	BADI("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", INV,
	    "Invalid Request: method must be a non-empty string", 1);
	BADI("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}", INV,
	    "Invalid Request: method must be a non-empty string", 1);
	BAD0("{\"jsonrpc\":\"2.0\",\"method\":null}", INV,
	    "Invalid Request: method must be a non-empty string");
	BADI("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"result\":{}}",
	    INV, "Invalid Request: method with result or error", 1);
	BADI("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"error\":"
	    "{\"code\":1,\"message\":\"x\"}}", INV,
	    "Invalid Request: method with result or error", 1);
	BADI("{\"jsonrpc\":\"2.0\",\"id\":1}", INV,
	    "Invalid Request: missing method", 1);
	BAD0("{\"jsonrpc\":\"2.0\"}", INV, "Invalid Request: missing method");
}
END_TEST

START_TEST(test_params)
{
	/* MCP params are objects: positional (array) params are refused. */
	static const char *const params[] = {
		"\"x\"", "5", "true", "null", "1.5", "[]", "[1,2]",
	};
	char line[128];
	size_t i;

	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":3,"
		    "\"method\":\"m\",\"params\":%s}", params[i]);
		BADI(line, INV,
		    "Invalid Request: params must be an object", 3);
		snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\","
		    "\"method\":\"m\",\"params\":%s}", params[i]);
		BAD0(line, INV, "Invalid Request: params must be an object");
	}
}
END_TEST

START_TEST(test_response_shape)
{
	BADR("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":"
	    "{\"code\":1,\"message\":\"x\"}}", INV,
	    "Invalid Request: both result and error", RPC_ID_INT, 1);
	BADR("{\"jsonrpc\":\"2.0\",\"result\":{}}", INV,
	    "Invalid Request: response without id", RPC_ID_NULL, 0);
	BADR("{\"jsonrpc\":\"2.0\",\"error\":{\"code\":1,\"message\":\"x\"}}",
	    INV, "Invalid Request: response without id", RPC_ID_NULL, 0);
	BADR("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"x\"}", INV,
	    "Invalid Request: error must be an object", RPC_ID_INT, 1);
	BADR("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":null}", INV,
	    "Invalid Request: error must be an object", RPC_ID_INT, 1);
	BADR("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"message\":\"x\"}}",
	    INV, "Invalid Request: error code must be an integer",
	    RPC_ID_INT, 1);
	BADR("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1.5,"
	    "\"message\":\"x\"}}", INV,
	    "Invalid Request: error code must be an integer", RPC_ID_INT, 1);
	BADR("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":\"1\","
	    "\"message\":\"x\"}}", INV,
	    "Invalid Request: error code must be an integer", RPC_ID_INT, 1);
	BADR("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1}}", INV,
	    "Invalid Request: error message must be a string", RPC_ID_INT, 1);
	BADR("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1,"
	    "\"message\":[]}}", INV,
	    "Invalid Request: error message must be a string", RPC_ID_INT, 1);
	/* A fault inside a response's tree still says it was a response. */
	BADR("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[1e999]}", INV,
	    "Invalid Request: number out of range", RPC_ID_INT, 1);
}
END_TEST

static Suite *
parse_suite(void)
{
	Suite *s;
	TCase *tc;

	s = suite_create("parse");

	tc = tcase_create("core");
	tcase_add_test(tc, test_request);
	tcase_add_test(tc, test_string_id);
	tcase_add_test(tc, test_notification);
	tcase_add_test(tc, test_result);
	tcase_add_test(tc, test_error);
	tcase_add_test(tc, test_blank_and_cr);
	tcase_add_test(tc, test_other_keys_ignored);
	tcase_add_test(tc, test_numbers);
	tcase_add_test(tc, test_strings);
	tcase_add_loop_test(tc, test_fixtures, 0,
	    sizeof(fixture_lines) / sizeof(fixture_lines[0]));
	tcase_add_test(tc, test_lines_many_and_eof);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_depth);
	tcase_add_test(tc, test_nodes);
	tcase_add_test(tc, test_method_len);
	tcase_add_test(tc, test_id_len);
	tcase_add_test(tc, test_id_range);
	tcase_add_test(tc, test_errmsg_len);
	tcase_add_test(tc, test_dup_large);
	tcase_add_test(tc, test_lines_at_limit);
	tcase_add_test(tc, test_lines_discard);
	tcase_add_test(tc, test_lines_big_line_pieces);
	tcase_add_test(tc, test_lines_eof_discard);
	tcase_add_test(tc, test_too_large_bad);
	tcase_add_test(tc, test_idscan);
	tcase_add_test(tc, test_lines_drop_hook);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_bad_utf8);
	tcase_add_test(tc, test_nul);
	tcase_add_test(tc, test_not_json);
	tcase_add_test(tc, test_batch_and_non_object);
	tcase_add_test(tc, test_dup_keys);
	tcase_add_test(tc, test_number_range);
	tcase_add_test(tc, test_jsonrpc);
	tcase_add_test(tc, test_bad_id);
	tcase_add_test(tc, test_method);
	tcase_add_test(tc, test_params);
	tcase_add_test(tc, test_response_shape);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	SRunner *sr;
	int nfailed;

	parse_init();
	sr = srunner_create(parse_suite());
	srunner_run_all(sr, CK_NORMAL);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
