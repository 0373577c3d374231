/*
 * check_render.c - unit tests for common/value-json.c.
 *
 * Exact lines for every JSON-RPC kind, string escapes, integers that a
 * double format would spoil, shortest round-trip doubles, the depth cap,
 * rollback on every failure, byte-for-byte agreement with cJSON's printer,
 * random trees through render -> worker parse -> value_equal, and the
 * monitor's strict rendering of the client's lines against a frame's
 * round trip (the way they went before the monitor wrote them).  It must
 * never test through anything but value-json.h, parse.h and the common
 * headers.
 */

#include <check.h>
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
#include "parse.h"
#include "value.h"
#include "value-json.h"

#define CK_R(expr, want) do {						\
	int ck_r_ = (expr), ck_w_ = (want);				\
	ck_assert_msg(ck_r_ == ck_w_, "%s: got %d (%s), want %d (%s)",	\
	    #expr, ck_r_, bnc_err(ck_r_), ck_w_, bnc_err(ck_w_));	\
} while (0)

#define P53	((int64_t)1 << 53)

/* struct rpc holds mutable strings; these literals are never written. */
#define S(lit)	((char *)(uintptr_t)(lit))

/* The unread bytes of b as a new NUL-terminated string. */
static char *
text(const struct buf *b)
{
	char *s;

	ck_assert_ptr_nonnull(s = malloc(buf_len(b) + 1));
	memcpy(s, buf_ptr(b), buf_len(b));
	s[buf_len(b)] = '\0';
	return s;
}

/* Renders m alone and compares with want (which ends in "\n"). */
static void
expect_line(const struct rpc *m, const char *want)
{
	struct buf *b;
	char *got;

	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(rpc_render(b, m), 0);
	got = text(b);
	ck_assert_str_eq(got, want);
	free(got);
	buf_free(b);
}

static void
expect_value(const struct value *v, const char *want)
{
	struct buf *b;
	char *got;

	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(value_render(b, v), 0);
	got = text(b);
	ck_assert_str_eq(got, want);
	free(got);
	buf_free(b);
}

/* Expects rpc_render to fail with r and leave b's contents alone. */
static void
expect_fail(const struct rpc *m, int r)
{
	struct buf *b;

	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(buf_put(b, "keep", 4), 0);
	CK_R(rpc_render(b, m), r);
	ck_assert_uint_eq(buf_len(b), 4);
	ck_assert(memcmp(buf_ptr(b), "keep", 4) == 0);
	buf_free(b);
}

static struct value *
obj1(const char *k, struct value *v)
{
	struct value *o = value_object();

	CK_R(value_object_set(o, k, v), 0);
	return o;
}

static struct value *
nest(int n)
{
	struct value *v = value_int(1), *a;

	while (n-- > 0) {
		a = value_array();
		value_array_append(a, v);
		v = a;
	}
	return v;
}

/* core */

START_TEST(test_kinds)
{
	struct rpc m;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_REQUEST;
	m.id.type = RPC_ID_INT;
	m.id.n = 7;
	m.method = S("tools/call");
	m.params = obj1("name", value_string("x"));
	expect_line(&m, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"x\"}}\n");
	m.id.type = RPC_ID_STR;
	m.id.s = S("srv-1");
	expect_line(&m, "{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"x\"}}\n");
	value_free(m.params);
	m.params = NULL;
	expect_line(&m, "{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":"
	    "\"tools/call\"}\n");

	/* A notification never prints an id, whatever the struct holds. */
	m.kind = RPC_NOTIFICATION;
	m.method = S("notifications/initialized");
	expect_line(&m, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}\n");
	m.params = value_array();
	expect_line(&m, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\",\"params\":[]}\n");
	value_free(m.params);
	m.params = NULL;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_RESULT;
	m.id.type = RPC_ID_INT;
	m.id.n = -3;
	m.result = value_object();
	expect_line(&m, "{\"jsonrpc\":\"2.0\",\"id\":-3,\"result\":{}}\n");
	value_free(m.result);

	memset(&m, 0, sizeof(m));
	m.kind = RPC_ERROR;
	m.id.type = RPC_ID_INT;
	m.id.n = 3;
	m.code = -32601;
	m.message = S("Method not found");
	expect_line(&m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":"
	    "-32601,\"message\":\"Method not found\"}}\n");
	m.id.type = RPC_ID_NULL;
	m.code = -32700;
	m.message = S("Parse error");
	m.data = obj1("line", value_int(1));
	expect_line(&m, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":"
	    "-32700,\"message\":\"Parse error\",\"data\":{\"line\":1}}}\n");
	value_free(m.data);
	m.data = NULL;
	/* An error with no id at all still says id null, as it must. */
	m.id.type = RPC_ID_NONE;
	expect_line(&m, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":"
	    "-32700,\"message\":\"Parse error\"}}\n");
}
END_TEST

/* Canonical: keys in byte order at every depth, whatever their order. */
START_TEST(test_canonical)
{
	struct value *a = value_object(), *b = value_object();
	struct value *ia = value_object(), *ib = value_object();
	struct buf *x, *y;
	char *gx, *gy;

	value_object_put(ia, "z", value_int(1));
	value_object_put(ia, "a", value_string("\u00e9"));
	value_object_put(a, "repo", value_string("app"));
	value_object_put(a, "owner", value_string("corp"));
	value_object_put(a, "issue_number", value_int(12));
	value_object_put(a, "nested", ia);
	value_object_put(a, "ab", value_double(1.5));
	value_object_put(a, "a", value_array());
	/* the same members, another order */
	value_object_put(ib, "a", value_string("\u00e9"));
	value_object_put(ib, "z", value_int(1));
	value_object_put(b, "a", value_array());
	value_object_put(b, "nested", ib);
	value_object_put(b, "issue_number", value_int(12));
	value_object_put(b, "ab", value_double(1.5));
	value_object_put(b, "owner", value_string("corp"));
	value_object_put(b, "repo", value_string("app"));
	ck_assert_ptr_nonnull(x = buf_new());
	ck_assert_ptr_nonnull(y = buf_new());
	CK_R(value_render_canonical(x, a), 0);
	CK_R(value_render_canonical(y, b), 0);
	gx = text(x);
	gy = text(y);
	ck_assert_str_eq(gx, "{\"a\":[],\"ab\":1.5,\"issue_number\":12,"
	    "\"nested\":{\"a\":\"\u00e9\",\"z\":1},\"owner\":\"corp\","
	    "\"repo\":\"app\"}");
	ck_assert_str_eq(gx, gy);
	free(gx);
	free(gy);
	/* the plain renderer keeps the order it was given */
	buf_reset(x);
	CK_R(value_render(x, b), 0);
	gx = text(x);
	ck_assert_msg(strncmp(gx, "{\"a\":[],\"nested\"", 15) == 0, "%s",
	    gx);
	free(gx);
	buf_free(x);
	buf_free(y);
	value_free(a);
	value_free(b);
}
END_TEST

START_TEST(test_append)
{
	struct rpc m;
	struct buf *b;
	char *got;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_RESULT;
	m.id.type = RPC_ID_INT;
	m.id.n = 1;
	m.result = value_null();
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(buf_put(b, "xx", 2), 0);
	CK_R(buf_consume(b, 1), 0);
	CK_R(rpc_render(b, &m), 0);
	m.id.n = 2;
	CK_R(rpc_render(b, &m), 0);
	got = text(b);
	ck_assert_str_eq(got,
	    "x{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":null}\n");
	free(got);
	buf_free(b);
	value_free(m.result);
}
END_TEST

START_TEST(test_escapes)
{
	struct value *v;
	char raw[0x20 + 8];
	size_t i;

	for (i = 1; i < 0x20; i++)
		raw[i - 1] = (char)i;
	memcpy(raw + 0x1f, "\"\\/\x7f\xc3\xa9", 6);
	v = value_stringn(raw, 0x1f + 6);
	expect_value(v, "\"\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007"
	    "\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013"
	    "\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c"
	    "\\u001d\\u001e\\u001f\\\"\\\\/\x7f\xc3\xa9\"");
	value_free(v);
	/* Keys are strings too. */
	v = obj1("a\nb\"", value_bool(1));
	expect_value(v, "{\"a\\nb\\\"\":true}");
	value_free(v);
	v = value_string("");
	expect_value(v, "\"\"");
	value_free(v);
}
END_TEST

START_TEST(test_ints)
{
	static const struct {
		int64_t		 i;
		const char	*want;
	} t[] = {
		{ 0, "0" },
		{ -1, "-1" },
		{ 2147483647, "2147483647" },
		{ 2147483648LL, "2147483648" },
		{ -2147483649LL, "-2147483649" },
		{ 1000000000000000LL, "1000000000000000" },
		{ 1234567890123450LL, "1234567890123450" },
		{ P53, "9007199254740992" },
		{ -P53, "-9007199254740992" },
		{ INT64_MAX, "9223372036854775807" },
		{ INT64_MIN, "-9223372036854775808" },
	};
	struct value *v;
	struct rpc m;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		v = value_int(t[i].i);
		expect_value(v, t[i].want);
		value_free(v);
	}
	memset(&m, 0, sizeof(m));
	m.kind = RPC_ERROR;
	m.id.type = RPC_ID_INT;
	m.id.n = P53;
	m.code = INT64_MIN;
	m.message = S("m");
	expect_line(&m, "{\"jsonrpc\":\"2.0\",\"id\":9007199254740992,"
	    "\"error\":{\"code\":-9223372036854775808,\"message\":\"m\"}}\n");
}
END_TEST

START_TEST(test_doubles)
{
	static const struct {
		double		 d;
		const char	*want;
	} t[] = {
		{ 0.1, "0.1" },
		{ 1.5, "1.5" },
		{ -2.5e-3, "-0.0025" },
		{ 1e300, "1e+300" },
		{ 0.30000000000000004, "0.30000000000000004" },
		{ 5e-324, "4.94065645841247e-324" },
		{ 9007199254740994.0, "9007199254740994" },
	};
	struct value *v;
	struct buf *b;
	char *s;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		v = value_double(t[i].d);
		expect_value(v, t[i].want);
		ck_assert_ptr_nonnull(b = buf_new());
		CK_R(value_render(b, v), 0);
		s = text(b);
		ck_assert(strtod(s, NULL) == t[i].d);
		free(s);
		buf_free(b);
		value_free(v);
	}
	/* No JSON form: null, as cJSON prints it. */
	v = value_double(NAN);
	expect_value(v, "null");
	value_free(v);
	v = value_double(INFINITY);
	expect_value(v, "null");
	value_free(v);
}
END_TEST

START_TEST(test_to_cjson)
{
	struct value *v, *a;
	cJSON *c;
	char *s;

	a = value_array();
	value_array_append(a, value_int(P53));
	value_array_append(a, value_int(-1000000000000000LL));
	value_array_append(a, value_int(42));
	value_array_append(a, value_double(0.5));
	value_array_append(a, value_string("t\n"));
	value_array_append(a, value_null());
	value_array_append(a, value_bool(0));
	v = obj1("k", a);
	ck_assert_ptr_nonnull(c = value_to_cjson(v));
	/* The tree is a copy: it outlives v. */
	value_free(v);
	ck_assert(cJSON_IsNumber(cJSON_GetArrayItem(
	    cJSON_GetObjectItemCaseSensitive(c, "k"), 2)));
	ck_assert_ptr_nonnull(s = cJSON_PrintUnformatted(c));
	ck_assert_str_eq(s, "{\"k\":[9007199254740992,-1000000000000000,42,"
	    "0.5,\"t\\n\",null,false]}");
	free(s);
	cJSON_Delete(c);
	ck_assert_ptr_null(value_to_cjson(NULL));
}
END_TEST

/* Random trees */

static uint64_t rng_state;

static uint64_t
rng(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

/* Appends one random valid UTF-8 character, never NUL. */
static size_t
rand_char(char *p)
{
	uint32_t cp;

	switch (rng() % 6) {
	case 0:
		p[0] = (char)(1 + rng() % 0x1f);	/* control */
		return 1;
	case 1:
		p[0] = "\"\\/\x7f"[rng() % 4];
		return 1;
	case 2:
		cp = 0x80 + (uint32_t)(rng() % (0x800 - 0x80));
		p[0] = (char)(0xc0 | cp >> 6);
		p[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	case 3:
		do
			cp = 0x800 + (uint32_t)(rng() % (0x10000 - 0x800));
		while (cp >= 0xd800 && cp <= 0xdfff);
		p[0] = (char)(0xe0 | cp >> 12);
		p[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		p[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	case 4:
		cp = 0x10000 + (uint32_t)(rng() % (0x110000 - 0x10000));
		p[0] = (char)(0xf0 | cp >> 18);
		p[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		p[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		p[3] = (char)(0x80 | (cp & 0x3f));
		return 4;
	default:
		p[0] = (char)(0x20 + rng() % 0x5f);
		return 1;
	}
}

static struct value *
rand_string(const char *suffix)
{
	char s[256];
	size_t n = 0, k = rng() % 24;

	while (k-- > 0)
		n += rand_char(s + n);
	if (suffix != NULL) {
		memcpy(s + n, suffix, strlen(suffix));
		n += strlen(suffix);
	}
	return value_stringn(s, n);
}

/*
 * A finite double the worker reads back as a double: not integral within
 * 2^53 (that is an integer on the wire).  dbl15 keeps to values whose
 * %.15g reads back, where cJSON's printer and ours agree byte for byte.
 */
static double
rand_double(int dbl15)
{
	uint64_t u;
	double d;
	char t[64];

	for (;;) {
		if (dbl15)
			d = (double)(int64_t)(rng() % 2000001 - 1000000) / 64.0;
		else {
			u = rng();
			memcpy(&d, &u, sizeof(d));
		}
		if (!isfinite(d) || (fabs(d) <= (double)P53 && d == floor(d)))
			continue;
		if (dbl15) {
			snprintf(t, sizeof(t), "%.15g", d);
			if (strtod(t, NULL) != d)
				continue;
		}
		return d;
	}
}

static struct value *
rand_tree(int depth, int dbl15)
{
	struct value *v, *k;
	size_t i, n;
	char suffix[16];

	switch (depth > 0 ? rng() % 8 : rng() % 6) {
	case 0:
		return value_null();
	case 1:
		return value_bool((int)(rng() & 1));
	case 2:
		return value_int((int64_t)(rng() % (2 * (uint64_t)P53 + 1)) -
		    P53);
	case 3:
		return value_double(rand_double(dbl15));
	case 4:
	case 5:
		return rand_string(NULL);
	case 6:
		v = value_array();
		n = rng() % 6;
		for (i = 0; i < n; i++)
			value_array_append(v, rand_tree(depth - 1, dbl15));
		return v;
	default:
		v = value_object();
		n = rng() % 6;
		for (i = 0; i < n; i++) {
			/* A unique tail keeps random keys distinct. */
			snprintf(suffix, sizeof(suffix), "#%zu", i);
			k = rand_string(suffix);
			CK_R(value_object_set(v, k->u.s.p,
			    rand_tree(depth - 1, dbl15)), 0);
			value_free(k);
		}
		return v;
	}
}

START_TEST(test_roundtrip_random)
{
	struct msg_rpc_bad bad;
	struct rpc m, back;
	struct buf *b;
	int i, r;

	rng_state = 0x9e3779b97f4a7c15ULL;
	ck_assert_ptr_nonnull(b = buf_new());
	for (i = 0; i < 2000; i++) {
		memset(&m, 0, sizeof(m));
		if (i % 2 == 0) {
			m.kind = RPC_RESULT;
			m.id.type = RPC_ID_INT;
			m.id.n = i;
			m.result = rand_tree(6, 0);
		} else {
			m.kind = RPC_REQUEST;
			m.id.type = RPC_ID_STR;
			m.id.s = S("id\n\"x");
			m.method = S("m/\x01\xc3\xa9");
			m.params = value_object();
			CK_R(value_object_set(m.params, "p",
			    rand_tree(6, 0)), 0);
		}
		buf_reset(b);
		CK_R(rpc_render(b, &m), 0);
		ck_assert_int_eq(buf_ptr(b)[buf_len(b) - 1], '\n');
		ck_assert_ptr_null(memchr(buf_ptr(b), '\n', buf_len(b) - 1));
		r = parse_line((const char *)buf_ptr(b), buf_len(b) - 1, &back,
		    &bad);
		ck_assert_msg(r == PARSE_RPC, "tree %d: %d %s", i, bad.code,
		    bad.message != NULL ? bad.message : "-");
		ck_assert_int_eq(back.kind, m.kind);
		if (m.kind == RPC_RESULT) {
			ck_assert(value_equal(back.result, m.result));
			ck_assert_int_eq(back.id.n, m.id.n);
			value_free(m.result);
		} else {
			ck_assert(value_equal(back.params, m.params));
			ck_assert_str_eq(back.id.s, m.id.s);
			ck_assert_str_eq(back.method, m.method);
			value_free(m.params);
		}
		msg_rpc_free(&back);
	}
	buf_free(b);
}
END_TEST

START_TEST(test_same_as_cjson)
{
	struct value *v;
	struct buf *b;
	cJSON *c;
	char *ours, *theirs;
	int i;

	rng_state = 0x243f6a8885a308d3ULL;
	ck_assert_ptr_nonnull(b = buf_new());
	for (i = 0; i < 2000; i++) {
		v = rand_tree(6, 1);
		buf_reset(b);
		CK_R(value_render(b, v), 0);
		ours = text(b);
		ck_assert_ptr_nonnull(c = value_to_cjson(v));
		ck_assert_ptr_nonnull(theirs = cJSON_PrintUnformatted(c));
		ck_assert_msg(strcmp(ours, theirs) == 0,
		    "tree %d:\n ours   %s\n theirs %s", i, ours, theirs);
		free(theirs);
		free(ours);
		cJSON_Delete(c);
		value_free(v);
	}
	buf_free(b);
}
END_TEST

/* limits */

START_TEST(test_depth)
{
	struct value *v;
	struct buf *b;
	struct rpc m;
	cJSON *c;

	v = nest(BNC_VALUE_DEPTH_MAX);
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(value_render(b, v), 0);
	ck_assert_uint_eq(buf_len(b), 2 * BNC_VALUE_DEPTH_MAX + 1);
	ck_assert_ptr_nonnull(c = value_to_cjson(v));
	cJSON_Delete(c);
	value_free(v);

	v = nest(BNC_VALUE_DEPTH_MAX + 1);
	buf_reset(b);
	CK_R(buf_put(b, "keep", 4), 0);
	CK_R(value_render(b, v), -BNC_ERR_TOO_DEEP);
	ck_assert_uint_eq(buf_len(b), 4);
	ck_assert_ptr_null(value_to_cjson(v));
	memset(&m, 0, sizeof(m));
	m.kind = RPC_RESULT;
	m.id.type = RPC_ID_INT;
	m.result = v;
	expect_fail(&m, -BNC_ERR_TOO_DEEP);
	value_free(v);
	buf_free(b);
}
END_TEST

START_TEST(test_big_string)
{
	struct msg_rpc_bad bad;
	struct rpc m, back;
	struct buf *b;
	size_t n = 300000, i;
	char *s;

	/* Longer than the staging area, with escapes on both sides of it. */
	s = malloc(n + 1);
	for (i = 0; i < n; i++)
		s[i] = i % 4097 == 0 ? '\n' : (char)('a' + i % 26);
	s[n] = '\0';
	memset(&m, 0, sizeof(m));
	m.kind = RPC_RESULT;
	m.id.type = RPC_ID_INT;
	m.result = value_string(s);
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(rpc_render(b, &m), 0);
	ck_assert_ptr_null(memchr(buf_ptr(b), '\n', buf_len(b) - 1));
	ck_assert_int_eq(parse_line((const char *)buf_ptr(b), buf_len(b) - 1,
	    &back, &bad), PARSE_RPC);
	ck_assert(value_equal(back.result, m.result));
	msg_rpc_free(&back);
	value_free(m.result);
	buf_free(b);
	free(s);
}
END_TEST

START_TEST(test_buffer_full)
{
	struct rpc m;
	struct buf *b;
	char big[10000];

	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memset(&m, 0, sizeof(m));
	m.kind = RPC_RESULT;
	m.id.type = RPC_ID_INT;
	m.result = value_string(big);
	ck_assert_ptr_nonnull(b = buf_new());
	buf_set_max(b, 5000);
	/* Consumed bytes force a compaction inside the failing render. */
	CK_R(buf_put(b, "0123456789", 10), 0);
	CK_R(buf_consume(b, 6), 0);
	CK_R(rpc_render(b, &m), -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(b), 4);
	ck_assert(memcmp(buf_ptr(b), "6789", 4) == 0);
	buf_set_max(b, 0);
	CK_R(rpc_render(b, &m), 0);
	ck_assert(memcmp(buf_ptr(b), "6789{", 5) == 0);
	value_free(m.result);
	buf_free(b);
}
END_TEST

/* errors */

START_TEST(test_bad_messages)
{
	struct value *v = value_object();
	struct rpc m;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_REQUEST;
	m.method = S("m");
	expect_fail(&m, -BNC_ERR_BAD_FORMAT);	/* no id */
	m.id.type = RPC_ID_NULL;
	expect_fail(&m, -BNC_ERR_BAD_FORMAT);
	m.id.type = RPC_ID_STR;
	expect_fail(&m, -BNC_ERR_BAD_FORMAT);	/* string id, no string */
	m.id.type = RPC_ID_INT;
	m.method = NULL;
	expect_fail(&m, -BNC_ERR_BAD_FORMAT);
	m.method = S("");
	expect_fail(&m, -BNC_ERR_BAD_FORMAT);
	m.kind = RPC_NOTIFICATION;
	expect_fail(&m, -BNC_ERR_BAD_FORMAT);

	memset(&m, 0, sizeof(m));
	m.kind = RPC_RESULT;
	m.id.type = RPC_ID_INT;
	expect_fail(&m, -BNC_ERR_BAD_FORMAT);	/* no result */
	m.result = v;
	m.id.type = RPC_ID_NULL;
	expect_fail(&m, -BNC_ERR_BAD_FORMAT);
	m.id.type = RPC_ID_NONE;
	expect_fail(&m, -BNC_ERR_BAD_FORMAT);

	memset(&m, 0, sizeof(m));
	m.kind = RPC_ERROR;
	m.id.type = RPC_ID_INT;
	expect_fail(&m, -BNC_ERR_BAD_FORMAT);	/* no message */
	m.kind = 0;
	m.message = S("x");
	expect_fail(&m, -BNC_ERR_BAD_FORMAT);
	m.kind = 99;
	expect_fail(&m, -BNC_ERR_BAD_FORMAT);
	value_free(v);
}
END_TEST

/*
 * The monitor renders the client's lines itself (rpc_out_render_strict);
 * they used to cross to the client worker as a frame and be rendered
 * there (msg_rpc_out_put, msg_rpc_get, rpc_render).  Both ways give the
 * same bytes for every message, and refuse the same ones.
 */
static void
both_ways(const struct rpc *m, struct buf *direct, struct buf *framed)
{
	struct rpc_out o;
	struct rpc back;
	struct buf *f;
	int r, rf;

	ck_assert_ptr_nonnull(f = buf_new());
	rpc_out_of(&o, m);
	buf_reset(direct);
	buf_reset(framed);
	r = rpc_out_render_strict(direct, &o);
	rf = msg_rpc_out_put(f, &o);
	if (rf == 0) {
		CK_R(msg_rpc_get(f, &back, BNC_MSG_MAX_HIGHEST), 0);
		CK_R(rpc_render(framed, &back), 0);
		msg_rpc_free(&back);
	}
	ck_assert_msg((r == 0) == (rf == 0), "strict render %d (%s), "
	    "frame %d (%s)", r, bnc_err(r), rf, bnc_err(rf));
	if (r != 0)
		ck_assert_uint_eq(buf_len(direct), 0);
	buf_free(f);
}

START_TEST(test_strict_same_as_frame)
{
	static const uint8_t kinds[] = { RPC_REQUEST, RPC_NOTIFICATION,
	    RPC_RESULT, RPC_ERROR };
	struct buf *d, *f;
	struct rpc m;
	char ids[32];
	int i;

	rng_state = 0x2545f4914f6cdd1dULL;
	ck_assert_ptr_nonnull(d = buf_new());
	ck_assert_ptr_nonnull(f = buf_new());
	for (i = 0; i < 2000; i++) {
		memset(&m, 0, sizeof(m));
		m.kind = kinds[rng() % 4];
		if (m.kind != RPC_NOTIFICATION) {
			if (m.kind == RPC_ERROR && rng() % 4 == 0)
				m.id.type = RPC_ID_NULL;
			else if (rng() & 1) {
				m.id.type = RPC_ID_INT;
				m.id.n = (int64_t)(rng() % 1000000) - 1000;
			} else {
				snprintf(ids, sizeof(ids), "id-%d\t\"", i);
				m.id.type = RPC_ID_STR;
				m.id.s = ids;
			}
		}
		switch (m.kind) {
		case RPC_REQUEST:
		case RPC_NOTIFICATION:
			m.method = S("tools/call");
			if (rng() & 1)
				m.params = rand_tree(4, 0);
			break;
		case RPC_RESULT:
			m.result = rand_tree(5, 0);
			break;
		default:
			m.code = -32603;
			m.message = S("Internal error: \"quoted\"\n\u00e9");
			if (rng() & 1)
				m.data = rand_tree(3, 0);
			break;
		}
		both_ways(&m, d, f);
		ck_assert_uint_gt(buf_len(d), 0);
		ck_assert_msg(buf_len(d) == buf_len(f) &&
		    memcmp(buf_ptr(d), buf_ptr(f), buf_len(d)) == 0,
		    "message %d renders differently", i);
		value_free(m.params);
		value_free(m.result);
		value_free(m.data);
	}
	buf_free(d);
	buf_free(f);
}
END_TEST

/* At BNC_VALUE_NODES_MAX nodes both ways render; one more, neither. */
START_TEST(test_strict_nodes)
{
	struct buf *d, *f;
	struct rpc m;
	size_t i;

	ck_assert_ptr_nonnull(d = buf_new());
	ck_assert_ptr_nonnull(f = buf_new());
	memset(&m, 0, sizeof(m));
	m.kind = RPC_RESULT;
	m.id.type = RPC_ID_INT;
	m.result = value_array();
	for (i = 1; i < BNC_VALUE_NODES_MAX; i++)
		value_array_append(m.result, value_null());
	both_ways(&m, d, f);
	ck_assert_uint_gt(buf_len(d), 0);
	ck_assert(buf_len(d) == buf_len(f) &&
	    memcmp(buf_ptr(d), buf_ptr(f), buf_len(d)) == 0);
	value_array_append(m.result, value_null());
	both_ways(&m, d, f);
	ck_assert_uint_eq(buf_len(d), 0);
	value_free(m.result);
	buf_free(d);
	buf_free(f);
}
END_TEST

/* What the codec refuses, the strict form refuses; the plain one not. */
START_TEST(test_strict_refuses)
{
	static char big[BNC_ERRMSG_MAX + 2];
	struct buf *d, *f;
	struct rpc_out o;
	struct rpc m;
	size_t i;

	struct {
		const char	*what;
		struct value	*v;
	} bad[] = {
		{ "bad UTF-8", value_stringn("\xc3(", 2) },
		{ "NUL", value_stringn("a\0b", 3) },
		{ "2^53 + 1", value_int(P53 + 1) },
		{ "-2^53 - 1", value_int(-P53 - 1) },
		{ "NaN", value_double(NAN) },
		{ "infinity", value_double(INFINITY) },
		{ "key not UTF-8", value_object() },
	};

	ck_assert_ptr_nonnull(d = buf_new());
	ck_assert_ptr_nonnull(f = buf_new());
	memset(big, 'm', sizeof(big) - 1);
	value_object_put(bad[6].v, "\xff", value_null());
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&m, 0, sizeof(m));
		m.kind = RPC_RESULT;
		m.id.type = RPC_ID_INT;
		m.result = value_array();
		value_array_append(m.result, bad[i].v);
		both_ways(&m, d, f);
		ck_assert_msg(buf_len(d) == 0, "%s rendered", bad[i].what);
		rpc_out_of(&o, &m);
		CK_R(rpc_out_render(d, &o), 0);
		buf_reset(d);
		value_free(m.result);
	}
	/* at the envelope's caps, and one past */
	memset(&m, 0, sizeof(m));
	m.kind = RPC_ERROR;
	m.id.type = RPC_ID_INT;
	big[BNC_ERRMSG_MAX] = '\0';
	m.message = big;
	both_ways(&m, d, f);
	ck_assert_uint_gt(buf_len(d), 0);
	big[BNC_ERRMSG_MAX] = 'm';
	both_ways(&m, d, f);
	ck_assert_uint_eq(buf_len(d), 0);
	m.message = S("x");
	m.id.type = RPC_ID_NONE;	/* an error with no id at all */
	both_ways(&m, d, f);
	ck_assert_uint_eq(buf_len(d), 0);
	m.id.type = RPC_ID_STR;
	big[BNC_ID_STR_MAX] = '\0';
	m.id.s = big;
	both_ways(&m, d, f);
	ck_assert_uint_gt(buf_len(d), 0);
	big[BNC_ID_STR_MAX] = 'm';
	big[BNC_ID_STR_MAX + 1] = '\0';
	both_ways(&m, d, f);
	ck_assert_uint_eq(buf_len(d), 0);
	memset(&m, 0, sizeof(m));
	m.kind = RPC_NOTIFICATION;
	big[BNC_METHOD_MAX] = '\0';
	m.method = big;
	both_ways(&m, d, f);
	ck_assert_uint_gt(buf_len(d), 0);
	big[BNC_METHOD_MAX] = 'm';
	big[BNC_METHOD_MAX + 1] = '\0';
	both_ways(&m, d, f);
	ck_assert_uint_eq(buf_len(d), 0);
	m.method = S("m");
	m.id.type = RPC_ID_INT;		/* a notification with an id */
	both_ways(&m, d, f);
	ck_assert_uint_eq(buf_len(d), 0);
	buf_free(d);
	buf_free(f);
}
END_TEST

static Suite *
render_suite(void)
{
	Suite *s;
	TCase *tc;

	s = suite_create("render");

	tc = tcase_create("core");
	tcase_add_test(tc, test_kinds);
	tcase_add_test(tc, test_append);
	tcase_add_test(tc, test_canonical);
	tcase_add_test(tc, test_escapes);
	tcase_add_test(tc, test_ints);
	tcase_add_test(tc, test_doubles);
	tcase_add_test(tc, test_to_cjson);
	tcase_add_test(tc, test_roundtrip_random);
	tcase_add_test(tc, test_same_as_cjson);
	tcase_add_test(tc, test_strict_same_as_frame);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_test(tc, test_depth);
	tcase_add_test(tc, test_big_string);
	tcase_add_test(tc, test_buffer_full);
	tcase_add_test(tc, test_strict_nodes);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_bad_messages);
	tcase_add_test(tc, test_strict_refuses);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	SRunner *sr;
	int nfailed;

	parse_init();
	sr = srunner_create(render_suite());
	srunner_run_all(sr, CK_NORMAL);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
