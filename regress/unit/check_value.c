/*
 * check_value.c - unit tests for common/value.c and common/utf8.c.
 *
 * Checks the contract of value.h: constructors and lookups, unique keys,
 * value_equal and value_dup, the wire codec round trip over every type,
 * decode failures (every truncation, bad tags, bad UTF-8, duplicate
 * keys), the depth, node and byte caps on both sides, and the canonical
 * encoding.  Faulty wire bytes are crafted from the encoder's own output
 * and buf.h's u32-length-prefixed strings, never from a copy of value.c's
 * layout.
 */

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "bounds.h"
#include "utf8.h"
#include "value.h"

#define CK_R(expr, want) do {						\
	int ck_r_ = (expr), ck_w_ = (want);				\
	ck_assert_msg(ck_r_ == ck_w_, "%s: got %d (%s), want %d (%s)",	\
	    #expr, ck_r_, bnc_err(ck_r_), ck_w_, bnc_err(ck_w_));	\
} while (0)

#define P53	((int64_t)1 << 53)
#define MAXB	((size_t)BNC_MSG_MAX_DEFAULT)

/* Returns a new buffer holding value_encode(v), which must succeed. */
static struct buf *
enc(const struct value *v)
{
	struct buf	*b;

	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(value_encode(b, v), 0);
	return b;
}

/* Decodes len bytes at p; on failure *vp must stay NULL. */
static int
dec(const void *p, size_t len, size_t maxbytes, struct value **vp,
    size_t *leftp)
{
	struct buf	*b;
	int		 r;

	*vp = NULL;
	ck_assert_ptr_nonnull(b = buf_from(p, len));
	r = value_decode(b, vp, maxbytes);
	if (r != 0)
		ck_assert_msg(*vp == NULL, "failed decode returned a tree");
	else
		ck_assert_ptr_nonnull(*vp);
	if (leftp != NULL)
		*leftp = buf_len(b);
	buf_free(b);
	return r;
}

/*
 * Replaces the one occurrence of the u32-prefixed string `from' in b with
 * the string `to' (tlen bytes), fixing the length prefix.
 */
static struct buf *
swap_string(const struct buf *b, const char *from, const void *to,
    size_t tlen)
{
	const uint8_t	*p = buf_ptr(b), *hit = NULL;
	size_t		 n = buf_len(b), flen = strlen(from), i, at;
	struct buf	*out;

	for (i = 0; i + flen <= n; i++) {
		if (memcmp(p + i, from, flen) != 0)
			continue;
		ck_assert_msg(hit == NULL, "marker %s occurs twice", from);
		hit = p + i;
	}
	ck_assert_msg(hit != NULL, "marker %s not found", from);
	at = hit - p;
	ck_assert_uint_ge(at, 4);
	ck_assert_msg(p[at - 4] == (flen >> 24 & 0xff) &&
	    p[at - 3] == (flen >> 16 & 0xff) &&
	    p[at - 2] == (flen >> 8 & 0xff) && p[at - 1] == (flen & 0xff),
	    "marker %s is not a u32-prefixed string", from);
	ck_assert_ptr_nonnull(out = buf_new());
	CK_R(buf_put(out, p, at - 4), 0);
	CK_R(buf_put_string(out, to, tlen), 0);
	CK_R(buf_put(out, p + at + flen, n - at - flen), 0);
	return out;
}

/* Nests n arrays (or objects under key "k"), the innermost empty. */
static struct value *
nest(int n, int objects)
{
	struct value	*v, *outer;
	int		 i;

	v = objects ? value_object() : value_array();
	for (i = 1; i < n; i++) {
		outer = objects ? value_object() : value_array();
		if (objects)
			CK_R(value_object_set(outer, "k", v), 0);
		else
			value_array_append(outer, v);
		v = outer;
	}
	return v;
}

/* Every type, every edge the wire must carry. */
static struct value *
every_type(void)
{
	struct value	*o, *a, *in, *obj;

	o = value_object();
	CK_R(value_object_set(o, "null", value_null()), 0);
	CK_R(value_object_set(o, "true", value_bool(1)), 0);
	CK_R(value_object_set(o, "false", value_bool(0)), 0);
	CK_R(value_object_set(o, "zero", value_int(0)), 0);
	CK_R(value_object_set(o, "minus1", value_int(-1)), 0);
	CK_R(value_object_set(o, "p53", value_int(P53)), 0);
	CK_R(value_object_set(o, "m53", value_int(-P53)), 0);
	CK_R(value_object_set(o, "p53m1", value_int(P53 - 1)), 0);
	CK_R(value_object_set(o, "half", value_double(0.5)), 0);
	CK_R(value_object_set(o, "big", value_double(-1.5e300)), 0);
	CK_R(value_object_set(o, "tiny", value_double(4.9e-324)), 0);
	CK_R(value_object_set(o, "pi", value_double(3.141592653589793)), 0);
	CK_R(value_object_set(o, "empty", value_string("")), 0);
	CK_R(value_object_set(o, "utf8",
	    value_string("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80")), 0);
	CK_R(value_object_set(o, "\xe2\x9c\x93 key", value_string("k")), 0);
	CK_R(value_object_set(o, "", value_string("empty key")), 0);
	CK_R(value_object_set(o, "earr", value_array()), 0);
	CK_R(value_object_set(o, "eobj", value_object()), 0);
	a = value_array();
	value_array_append(a, value_int(1));
	value_array_append(a, value_string("two"));
	in = value_array();
	value_array_append(in, value_double(-0.25));
	obj = value_object();
	value_array_append(in, obj);
	CK_R(value_object_set(obj, "four", value_null()), 0);
	value_array_append(a, in);
	value_array_append(a, value_array());
	value_array_append(a, value_bool(1));
	CK_R(value_object_set(o, "arr", a), 0);
	return o;
}

/* core */

START_TEST(test_constructors)
{
	struct value	*v;
	char		 s[] = "abc";

	ck_assert_ptr_nonnull(v = value_null());
	ck_assert_int_eq(v->type, V_NULL);
	ck_assert(value_is(v, V_NULL));
	ck_assert(!value_is(v, V_BOOL));
	value_free(v);
	v = value_bool(1);
	ck_assert_int_eq(v->type, V_BOOL);
	ck_assert(v->u.b);
	value_free(v);
	v = value_bool(0);
	ck_assert(!v->u.b);
	value_free(v);
	v = value_int(-P53);
	ck_assert_int_eq(v->type, V_INT);
	ck_assert_int_eq(v->u.i, -P53);
	value_free(v);
	v = value_double(2.5);
	ck_assert_int_eq(v->type, V_DOUBLE);
	ck_assert(v->u.d == 2.5);
	value_free(v);
	v = value_string(s);
	s[0] = 'X';	/* the node holds its own copy */
	ck_assert_int_eq(v->type, V_STRING);
	ck_assert_str_eq(v->u.s.p, "abc");
	ck_assert_uint_eq(v->u.s.len, 3);
	value_free(v);
	v = value_stringn("hello", 3);
	ck_assert_str_eq(v->u.s.p, "hel");
	ck_assert_uint_eq(v->u.s.len, 3);
	value_free(v);
	v = value_array();
	ck_assert_int_eq(v->type, V_ARRAY);
	ck_assert_uint_eq(v->u.a.n, 0);
	value_array_append(v, value_int(1));
	value_array_append(v, value_null());
	ck_assert_uint_eq(v->u.a.n, 2);
	ck_assert_int_eq(v->u.a.v[0]->u.i, 1);
	ck_assert_int_eq(v->u.a.v[1]->type, V_NULL);
	value_free(v);
	v = value_object();
	ck_assert_int_eq(v->type, V_OBJECT);
	ck_assert_uint_eq(v->u.o.n, 0);
	value_free(v);
	value_free(NULL);
}
END_TEST

START_TEST(test_object_ops)
{
	struct value	*o, *v, *num;

	o = value_object();
	CK_R(value_object_set(o, "a", value_int(1)), 0);
	CK_R(value_object_set(o, "b", value_string("bee")), 0);
	CK_R(value_object_set(o, "c", value_null()), 0);
	ck_assert_uint_eq(o->u.o.n, 3);

	/* a duplicate is refused, the new value freed, the old one kept */
	CK_R(value_object_set(o, "a", value_string("dup")), -BNC_ERR_DUP_KEY);
	CK_R(value_object_set(o, "b", value_array()), -BNC_ERR_DUP_KEY);
	ck_assert_uint_eq(o->u.o.n, 3);
	ck_assert_ptr_nonnull(v = value_get(o, "a"));
	ck_assert_int_eq(v->type, V_INT);
	ck_assert_int_eq(v->u.i, 1);

	ck_assert_str_eq(value_get_str(o, "b"), "bee");
	ck_assert_ptr_null(value_get_str(o, "a"));	/* not a string */
	ck_assert_ptr_null(value_get_str(o, "zz"));
	ck_assert_ptr_null(value_get(o, "zz"));
	ck_assert_ptr_null(value_get(o, ""));
	ck_assert_ptr_null(value_get(o, "A"));

	/* put replaces in place */
	value_object_put(o, "a", value_int(2));
	ck_assert_uint_eq(o->u.o.n, 3);
	ck_assert_int_eq(value_get(o, "a")->u.i, 2);
	value_object_put(o, "d", value_bool(1));
	ck_assert_uint_eq(o->u.o.n, 4);

	/* take detaches */
	ck_assert_ptr_nonnull(v = value_object_take(o, "b"));
	ck_assert_str_eq(v->u.s.p, "bee");
	value_free(v);
	ck_assert_uint_eq(o->u.o.n, 3);
	ck_assert_ptr_null(value_get(o, "b"));
	ck_assert_ptr_null(value_object_take(o, "b"));
	ck_assert_ptr_nonnull(value_get(o, "a"));
	ck_assert_ptr_nonnull(value_get(o, "c"));
	ck_assert_ptr_nonnull(value_get(o, "d"));
	/* the key is free again */
	CK_R(value_object_set(o, "b", value_int(9)), 0);

	/* lookups on non-objects are NULL */
	num = value_int(5);
	ck_assert_ptr_null(value_get(num, "a"));
	ck_assert_ptr_null(value_get_str(num, "a"));
	ck_assert_ptr_null(value_object_take(num, "a"));
	ck_assert_ptr_null(value_get(NULL, "a"));
	value_free(num);
	value_free(o);
}
END_TEST

START_TEST(test_equal)
{
	struct value	*a, *b;

	a = value_null();
	b = value_null();
	ck_assert(value_equal(a, b));
	value_free(b);
	b = value_bool(0);
	ck_assert(!value_equal(a, b));
	value_free(a);
	value_free(b);

	a = value_int(1);
	b = value_int(2);
	ck_assert(!value_equal(a, b));
	value_free(b);
	b = value_bool(1);
	ck_assert(!value_equal(a, b));
	value_free(b);
	b = value_string("1");
	ck_assert(!value_equal(a, b));
	value_free(a);
	value_free(b);

	a = value_double(0.5);
	b = value_double(0.5);
	ck_assert(value_equal(a, b));
	value_free(b);
	b = value_double(0.25);
	ck_assert(!value_equal(a, b));
	value_free(a);
	value_free(b);

	a = value_string("ab");
	b = value_string("ab");
	ck_assert(value_equal(a, b));
	value_free(b);
	b = value_string("abc");
	ck_assert(!value_equal(a, b));
	ck_assert(!value_equal(b, a));
	value_free(a);
	value_free(b);

	a = value_array();
	b = value_array();
	ck_assert(value_equal(a, b));
	value_array_append(a, value_int(1));
	ck_assert(!value_equal(a, b));
	ck_assert(!value_equal(b, a));
	value_array_append(b, value_int(1));
	ck_assert(value_equal(a, b));
	value_array_append(a, value_int(2));
	value_array_append(b, value_int(3));
	ck_assert(!value_equal(a, b));
	value_free(a);
	value_free(b);

	a = value_object();
	b = value_object();
	ck_assert(value_equal(a, b));
	CK_R(value_object_set(a, "x", value_int(1)), 0);
	ck_assert(!value_equal(a, b));
	ck_assert(!value_equal(b, a));
	CK_R(value_object_set(b, "y", value_int(1)), 0);
	ck_assert(!value_equal(a, b));	/* same size, other key */
	value_free(b);
	b = value_object();
	CK_R(value_object_set(b, "x", value_int(2)), 0);
	ck_assert(!value_equal(a, b));	/* same key, other value */
	value_object_put(b, "x", value_int(1));
	ck_assert(value_equal(a, b));
	value_free(a);
	value_free(b);

	a = every_type();
	b = every_type();
	ck_assert(value_equal(a, b));
	value_object_put(value_get(b, "arr")->u.a.v[2]->u.a.v[1], "four",
	    value_bool(0));
	ck_assert(!value_equal(a, b));
	value_free(a);
	value_free(b);
}
END_TEST

START_TEST(test_dup)
{
	struct value	*a, *d;

	a = every_type();
	ck_assert_ptr_nonnull(d = value_dup(a));
	ck_assert_ptr_ne(a, d);
	ck_assert(value_equal(a, d));
	ck_assert_ptr_ne(value_get(a, "arr"), value_get(d, "arr"));
	ck_assert_ptr_ne(value_get(a, "utf8")->u.s.p,
	    value_get(d, "utf8")->u.s.p);
	/* a deep change to the copy leaves the original alone */
	value_array_append(value_get(d, "earr"), value_null());
	CK_R(value_object_set(value_get(d, "eobj"), "n", value_int(1)), 0);
	ck_assert(!value_equal(a, d));
	ck_assert_uint_eq(value_get(a, "earr")->u.a.n, 0);
	ck_assert_uint_eq(value_get(a, "eobj")->u.o.n, 0);
	value_free(a);
	/* and the copy outlives it */
	ck_assert_str_eq(value_get_str(d, "empty"), "");
	value_free(d);
}
END_TEST

START_TEST(test_count_depth)
{
	struct value	*v, *in;

	v = value_array();
	value_array_append(v, value_int(1));
	in = value_array();
	value_array_append(in, value_int(2));
	value_array_append(in, value_int(3));
	value_array_append(v, in);
	ck_assert_uint_eq(value_count_nodes(v), 5);
	value_free(v);

	v = nest(1, 0);
	ck_assert_int_eq(value_depth(v), 1);
	value_free(v);
	v = nest(BNC_VALUE_DEPTH_MAX, 0);
	ck_assert_int_eq(value_depth(v), BNC_VALUE_DEPTH_MAX);
	ck_assert_uint_eq(value_count_nodes(v), BNC_VALUE_DEPTH_MAX);
	value_free(v);
	v = nest(10, 1);
	ck_assert_int_eq(value_depth(v), 10);
	value_free(v);
}
END_TEST

START_TEST(test_roundtrip)
{
	struct value	*v, *out;
	struct buf	*b;
	size_t		 left;

	v = every_type();
	b = enc(v);
	CK_R(dec(buf_ptr(b), buf_len(b), MAXB, &out, &left), 0);
	ck_assert_uint_eq(left, 0);
	ck_assert(value_equal(v, out));
	/* types survive: integers stay integers, doubles stay doubles */
	ck_assert_int_eq(value_get(out, "p53")->type, V_INT);
	ck_assert_int_eq(value_get(out, "p53")->u.i, P53);
	ck_assert_int_eq(value_get(out, "m53")->u.i, -P53);
	ck_assert_int_eq(value_get(out, "half")->type, V_DOUBLE);
	ck_assert(value_get(out, "tiny")->u.d == 4.9e-324);
	ck_assert(value_get(out, "big")->u.d == -1.5e300);
	ck_assert_str_eq(value_get_str(out, "utf8"),
	    "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80");
	ck_assert_uint_eq(value_get(out, "utf8")->u.s.len, 15);
	ck_assert_str_eq(value_get_str(out, ""), "empty key");
	ck_assert_str_eq(value_get_str(out, "\xe2\x9c\x93 key"), "k");
	ck_assert_int_eq(value_get(out, "earr")->type, V_ARRAY);
	ck_assert_int_eq(value_get(out, "eobj")->type, V_OBJECT);
	ck_assert_uint_eq(value_get(out, "arr")->u.a.n, 5);
	value_free(out);
	buf_free(b);
	value_free(v);

	/* each scalar alone is a whole message too */
	v = value_string("");
	b = enc(v);
	CK_R(dec(buf_ptr(b), buf_len(b), MAXB, &out, &left), 0);
	ck_assert(value_equal(v, out));
	value_free(out);
	buf_free(b);
	value_free(v);
}
END_TEST

START_TEST(test_trailing_left)
{
	struct value	*v, *out;
	struct buf	*b;
	size_t		 left;

	v = every_type();
	b = enc(v);
	CK_R(buf_put_u8(b, 0), 0);
	CK_R(buf_put_u8(b, 0xff), 0);
	CK_R(dec(buf_ptr(b), buf_len(b), MAXB, &out, &left), 0);
	ck_assert_uint_eq(left, 2);
	ck_assert(value_equal(v, out));
	value_free(out);
	buf_free(b);
	value_free(v);

	/* two values back to back decode one at a time */
	b = buf_new();
	v = value_int(7);
	CK_R(value_encode(b, v), 0);
	value_free(v);
	v = value_string("x");
	CK_R(value_encode(b, v), 0);
	value_free(v);
	CK_R(value_decode(b, &out, MAXB), 0);
	ck_assert_int_eq(out->u.i, 7);
	value_free(out);
	CK_R(value_decode(b, &out, MAXB), 0);
	ck_assert_str_eq(out->u.s.p, "x");
	value_free(out);
	ck_assert_uint_eq(buf_len(b), 0);
	buf_free(b);
}
END_TEST

/* Builds the same object with its keys inserted in the order given. */
static struct value *
ordered(const char *order)
{
	struct value	*o, *in;
	const char	*c;
	char		 k[2] = { 0, 0 };

	o = value_object();
	for (c = order; *c != '\0'; c++) {
		k[0] = *c;
		switch (*c) {
		case 'a':
			in = value_object();
			/* inner keys in the opposite sense */
			if (order[0] == 'a') {
				CK_R(value_object_set(in, "zz", value_int(1)),
				    0);
				CK_R(value_object_set(in, "z", value_int(2)),
				    0);
				CK_R(value_object_set(in, "\xc3\xa9",
				    value_int(3)), 0);
			} else {
				CK_R(value_object_set(in, "\xc3\xa9",
				    value_int(3)), 0);
				CK_R(value_object_set(in, "z", value_int(2)),
				    0);
				CK_R(value_object_set(in, "zz", value_int(1)),
				    0);
			}
			CK_R(value_object_set(o, k, in), 0);
			break;
		case 'b':
			CK_R(value_object_set(o, k, value_string("bee")), 0);
			break;
		case 'c':
			CK_R(value_object_set(o, k, value_null()), 0);
			break;
		case 'd':
			CK_R(value_object_set(o, "dd", value_double(1.5)), 0);
			break;
		}
	}
	return o;
}

START_TEST(test_canonical)
{
	static const char	*orders[] = { "abcd", "dcba", "bdac", "cadb" };
	struct value	*v, *w;
	struct buf	*first, *b;
	unsigned int	 i;

	v = ordered(orders[0]);
	ck_assert_ptr_nonnull(first = buf_new());
	CK_R(value_encode_canonical(first, v), 0);
	ck_assert_uint_gt(buf_len(first), 0);
	for (i = 1; i < sizeof(orders) / sizeof(orders[0]); i++) {
		w = ordered(orders[i]);
		ck_assert_ptr_nonnull(b = buf_new());
		CK_R(value_encode_canonical(b, w), 0);
		ck_assert_uint_eq(buf_len(b), buf_len(first));
		ck_assert_mem_eq(buf_ptr(b), buf_ptr(first), buf_len(b));
		/* canonicalising must not reorder or damage the tree */
		ck_assert_str_eq(value_get_str(w, "b"), "bee");
		buf_free(b);
		value_free(w);
	}
	/* and a different value gives different bytes */
	w = ordered(orders[1]);
	value_object_put(value_get(w, "a"), "z", value_int(4));
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(value_encode_canonical(b, w), 0);
	ck_assert(buf_len(b) != buf_len(first) ||
	    memcmp(buf_ptr(b), buf_ptr(first), buf_len(b)) != 0);
	buf_free(b);
	value_free(w);

	/* canonical encoding is appended, and stable across calls */
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(buf_put_u8(b, 0xee), 0);
	CK_R(value_encode_canonical(b, v), 0);
	ck_assert_uint_eq(buf_len(b), 1 + buf_len(first));
	ck_assert_mem_eq(buf_ptr(b) + 1, buf_ptr(first), buf_len(first));
	buf_free(b);
	buf_free(first);
	value_free(v);
}
END_TEST

START_TEST(test_utf8_valid)
{
	static const char *good[] = {
		"", "plain ascii", "\x7f",
		"\xc2\x80", "\xc3\xa9", "\xdf\xbf",
		"\xe0\xa0\x80", "\xe2\x82\xac", "\xed\x9f\xbf",
		"\xee\x80\x80", "\xef\xbf\xbf",
		"\xf0\x90\x80\x80", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf",
	};
	unsigned int	 i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(utf8_valid(good[i], strlen(good[i])) == 1,
		    "good[%u] refused", i);
	/* the length is what counts, not a terminator */
	ck_assert_int_eq(utf8_valid("\xc3\xa9", 1), 0);
	ck_assert_int_eq(utf8_valid("\xf0\x9f\x98\x80", 3), 0);
	ck_assert_int_eq(utf8_valid("ab\xff", 2), 1);
}
END_TEST

/* Cutting text (a reason) never leaves half a character. */
START_TEST(test_utf8_cut_trim)
{
	char s[16];

	ck_assert_uint_eq(utf8_cut("a\xc3\xa9" "b", 4, 2), 1);
	ck_assert_uint_eq(utf8_cut("a\xc3\xa9" "b", 4, 3), 3);
	ck_assert_uint_eq(utf8_cut("a\xc3\xa9" "b", 4, 9), 4);
	ck_assert_uint_eq(utf8_cut("\xf0\x9f\x98\x80", 4, 3), 0);
	strcpy(s, "ab\xc3");			/* as snprintf cuts it */
	utf8_trim(s);
	ck_assert_str_eq(s, "ab");
	strcpy(s, "ab\xf0\x9f\x98");
	utf8_trim(s);
	ck_assert_str_eq(s, "ab");
	strcpy(s, "ab\xc3\xa9");		/* whole: kept */
	utf8_trim(s);
	ck_assert_str_eq(s, "ab\xc3\xa9");
	strcpy(s, "\xf0\x9f\x98\x80");
	utf8_trim(s);
	ck_assert_str_eq(s, "\xf0\x9f\x98\x80");
	strcpy(s, "");
	utf8_trim(s);
	ck_assert_str_eq(s, "");
}
END_TEST

/* Look-alike and invisible characters show as escapes, never as such. */
START_TEST(test_utf8_escape)
{
	char s[64];

	utf8_escape(s, sizeof(s), "set_owner", 9);
	ck_assert_str_eq(s, "set_owner");
	utf8_escape(s, sizeof(s), "set_own\xd0\xb5r", 10);	/* Cyrillic e */
	ck_assert_str_eq(s, "set_own\\u0435r");
	utf8_escape(s, sizeof(s), "set\xe2\x80\x8b_owner", 12);
	ck_assert_str_eq(s, "set\\u200b_owner");
	utf8_escape(s, sizeof(s), "\xef\xbd\x93", 3);	/* fullwidth s */
	ck_assert_str_eq(s, "\\uff53");
	utf8_escape(s, sizeof(s), "\xf0\x9f\x98\x80", 4);
	ck_assert_str_eq(s, "\\U0001f600");
	utf8_escape(s, sizeof(s), "a\\b\tc\x7f", 6);
	ck_assert_str_eq(s, "a\\\\b\\u0009c\\u007f");
	utf8_escape(s, sizeof(s), "a\xffz\xc3", 4);		/* not UTF-8 */
	ck_assert_str_eq(s, "a\\xffz\\xc3");
	utf8_escape(s, sizeof(s), "a\0b", 3);
	ck_assert_str_eq(s, "a\\u0000b");
	utf8_escape(s, sizeof(s), "", 0);
	ck_assert_str_eq(s, "");
}
END_TEST

/* A cut escape: whole escapes, then "...", always terminated. */
START_TEST(test_utf8_escape_cut)
{
	char s[12];

	utf8_escape(s, sizeof(s), "abcdefghijk", 11);		/* 11 fit */
	ck_assert_str_eq(s, "abcdefghijk");
	utf8_escape(s, sizeof(s), "abcdefghijkl", 12);
	ck_assert_str_eq(s, "abcdefgh...");
	utf8_escape(s, sizeof(s), "ab\xd0\xb5\xd0\xb5", 6);
	ck_assert_str_eq(s, "ab\\u0435...");
	utf8_escape(s, 1, "abc", 3);
	ck_assert_str_eq(s, "");
}
END_TEST

/* limits */

START_TEST(test_depth_cap)
{
	struct value	*v, *out;
	struct buf	*e1, *e2, *e64, *crafted;
	size_t		 hlen, i;
	int		 objects = _i;

	/* exactly BNC_VALUE_DEPTH_MAX: encodes and decodes */
	v = nest(BNC_VALUE_DEPTH_MAX, objects);
	e64 = enc(v);
	CK_R(dec(buf_ptr(e64), buf_len(e64), MAXB, &out, NULL), 0);
	ck_assert(value_equal(v, out));
	ck_assert_int_eq(value_depth(out), BNC_VALUE_DEPTH_MAX);
	value_free(out);
	value_free(v);

	/* one deeper: the encoder refuses */
	v = nest(BNC_VALUE_DEPTH_MAX + 1, objects);
	ck_assert_int_eq(value_depth(v), BNC_VALUE_DEPTH_MAX + 1);
	crafted = buf_new();
	CK_R(value_encode(crafted, v), -BNC_ERR_TOO_DEEP);
	buf_free(crafted);
	value_free(v);

	/*
	 * and the decoder refuses it too: the encoding of nest(n + 1) is a
	 * container header followed by the encoding of nest(n).
	 */
	v = nest(1, objects);
	e1 = enc(v);
	value_free(v);
	v = nest(2, objects);
	e2 = enc(v);
	value_free(v);
	ck_assert_uint_gt(buf_len(e2), buf_len(e1));
	hlen = buf_len(e2) - buf_len(e1);
	ck_assert_mem_eq(buf_ptr(e2) + hlen, buf_ptr(e1), buf_len(e1));
	crafted = buf_new();
	for (i = 1; i < BNC_VALUE_DEPTH_MAX; i++)
		CK_R(buf_put(crafted, buf_ptr(e2), hlen), 0);
	CK_R(buf_put(crafted, buf_ptr(e1), buf_len(e1)), 0);
	/* the derivation reproduces the encoder's nest(64) */
	ck_assert_uint_eq(buf_len(crafted), buf_len(e64));
	ck_assert_mem_eq(buf_ptr(crafted), buf_ptr(e64), buf_len(e64));
	buf_free(crafted);
	crafted = buf_new();
	for (i = 0; i < BNC_VALUE_DEPTH_MAX; i++)
		CK_R(buf_put(crafted, buf_ptr(e2), hlen), 0);
	CK_R(buf_put(crafted, buf_ptr(e1), buf_len(e1)), 0);
	CK_R(dec(buf_ptr(crafted), buf_len(crafted), MAXB, &out, NULL),
	    -BNC_ERR_TOO_DEEP);
	/* and far deeper must not blow the stack */
	for (i = 0; i < 100000; i++)
		CK_R(buf_put(crafted, buf_ptr(e2), hlen), 0);
	CK_R(buf_put(crafted, buf_ptr(e1), buf_len(e1)), 0);
	CK_R(dec(buf_ptr(crafted), buf_len(crafted), MAXB, &out, NULL),
	    -BNC_ERR_TOO_DEEP);
	buf_free(crafted);
	buf_free(e1);
	buf_free(e2);
	buf_free(e64);
}
END_TEST

/* Offset of the u32 element count in the encoding of an array of nulls. */
static size_t
count_offset(void)
{
	struct value	*v;
	struct buf	*b1, *b2;
	size_t		 off, last = SIZE_MAX, hlen, nlen;

	v = value_null();
	b1 = enc(v);
	nlen = buf_len(b1);
	buf_free(b1);
	value_free(v);
	v = value_array();
	value_array_append(v, value_null());
	b1 = enc(v);
	value_array_append(v, value_null());
	b2 = enc(v);
	value_free(v);
	ck_assert_uint_eq(buf_len(b2), buf_len(b1) + nlen);
	hlen = buf_len(b1) - nlen;
	for (off = 0; off < hlen; off++)
		if (buf_ptr(b1)[off] != buf_ptr(b2)[off])
			last = off;
	ck_assert_msg(last != SIZE_MAX && last >= 3, "no count field");
	off = last - 3;
	ck_assert(memcmp(buf_ptr(b1) + off, "\0\0\0\1", 4) == 0);
	ck_assert(memcmp(buf_ptr(b2) + off, "\0\0\0\2", 4) == 0);
	buf_free(b1);
	buf_free(b2);
	return off;
}

START_TEST(test_node_cap)
{
	struct value	*v, *out, *n;
	struct buf	*b, *nb;
	size_t		 off, i;
	uint8_t		*p;

	/* exactly BNC_VALUE_NODES_MAX nodes: the array and its elements */
	v = value_array();
	for (i = 0; i < BNC_VALUE_NODES_MAX - 1; i++)
		value_array_append(v, value_null());
	ck_assert_uint_eq(value_count_nodes(v), BNC_VALUE_NODES_MAX);
	b = enc(v);
	CK_R(dec(buf_ptr(b), buf_len(b), MAXB, &out, NULL), 0);
	ck_assert_uint_eq(value_count_nodes(out), BNC_VALUE_NODES_MAX);
	value_free(out);

	/* one more: the encoder refuses */
	value_array_append(v, value_null());
	nb = buf_new();
	CK_R(value_encode(nb, v), -BNC_ERR_TOO_LARGE);
	buf_free(nb);
	value_free(v);

	/* and so does the decoder: bump the count, add one null */
	off = count_offset();
	n = value_null();
	nb = enc(n);
	value_free(n);
	p = (uint8_t *)buf_ptr(b) + off;
	ck_assert_uint_eq((uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3],
	    BNC_VALUE_NODES_MAX - 1);
	p[0] = (BNC_VALUE_NODES_MAX >> 24) & 0xff;
	p[1] = (BNC_VALUE_NODES_MAX >> 16) & 0xff;
	p[2] = (BNC_VALUE_NODES_MAX >> 8) & 0xff;
	p[3] = BNC_VALUE_NODES_MAX & 0xff;
	CK_R(buf_put(b, buf_ptr(nb), buf_len(nb)), 0);
	CK_R(dec(buf_ptr(b), buf_len(b), MAXB, &out, NULL),
	    -BNC_ERR_TOO_LARGE);

	/* a huge claimed count with no elements fails without allocating */
	p = (uint8_t *)buf_ptr(b) + off;
	memset(p, 0xff, 4);
	ck_assert_int_lt(dec(buf_ptr(b), off + 4, MAXB, &out, NULL), 0);
	ck_assert_int_lt(dec(buf_ptr(b), off + 4 + 64, MAXB, &out, NULL), 0);
	buf_free(nb);
	buf_free(b);
}
END_TEST

START_TEST(test_maxbytes)
{
	char		 big[1000];
	struct value	*v, *out;
	struct buf	*b;

	memset(big, 'm', sizeof(big));
	v = value_array();
	value_array_append(v, value_stringn(big, sizeof(big)));
	value_array_append(v, value_int(1));
	b = enc(v);
	CK_R(dec(buf_ptr(b), buf_len(b), buf_len(b), &out, NULL), 0);
	ck_assert(value_equal(v, out));
	value_free(out);
	CK_R(dec(buf_ptr(b), buf_len(b), 500, &out, NULL),
	    -BNC_ERR_TOO_LARGE);
	CK_R(dec(buf_ptr(b), buf_len(b), 10, &out, NULL),
	    -BNC_ERR_TOO_LARGE);
	buf_free(b);
	value_free(v);
}
END_TEST

/* Replaces the one occurrence of n bytes `from' in b by `to'. */
static void
patch_bytes(struct buf *b, const void *from, const void *to, size_t n)
{
	uint8_t		*p = (uint8_t *)buf_ptr(b), *hit = NULL;
	size_t		 i;

	for (i = 0; i + n <= buf_len(b); i++) {
		if (memcmp(p + i, from, n) != 0)
			continue;
		ck_assert_msg(hit == NULL, "pattern occurs twice");
		hit = p + i;
	}
	ck_assert_msg(hit != NULL, "pattern not found");
	memcpy(hit, to, n);
}

/* Integers are exact (|n| <= 2^53) and doubles finite, on both sides. */
START_TEST(test_number_range)
{
	static const uint8_t p53[8] = { 0x00, 0x20, 0, 0, 0, 0, 0, 0 };
	static const uint8_t p53p1[8] = { 0x00, 0x20, 0, 0, 0, 0, 0, 1 };
	static const uint8_t m53[8] = { 0xff, 0xe0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t m53m1[8] = { 0xff, 0xdf, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff };
	static const uint8_t half[8] = { 0x3f, 0xe0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t inf[8] = { 0x7f, 0xf0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t nan[8] = { 0x7f, 0xf8, 0, 0, 0, 0, 0, 0 };
	const double	 nonfinite[] = { HUGE_VAL, -HUGE_VAL, NAN };
	const int64_t	 inexact[] = { P53 + 1, -P53 - 1, INT64_MAX,
	    INT64_MIN };
	struct value	*v, *out;
	struct buf	*b;
	unsigned int	 i;

	for (i = 0; i < sizeof(inexact) / sizeof(inexact[0]); i++) {
		v = value_int(inexact[i]);
		b = buf_new();
		ck_assert_msg(value_encode(b, v) < 0, "int %lld encoded",
		    (long long)inexact[i]);
		buf_free(b);
		value_free(v);
	}
	for (i = 0; i < sizeof(nonfinite) / sizeof(nonfinite[0]); i++) {
		v = value_double(nonfinite[i]);
		b = buf_new();
		ck_assert_msg(value_encode(b, v) < 0, "%f encoded",
		    nonfinite[i]);
		buf_free(b);
		value_free(v);
	}

	v = value_int(P53);
	b = enc(v);
	value_free(v);
	patch_bytes(b, p53, p53p1, 8);
	ck_assert_int_lt(dec(buf_ptr(b), buf_len(b), MAXB, &out, NULL), 0);
	buf_free(b);
	v = value_int(-P53);
	b = enc(v);
	value_free(v);
	patch_bytes(b, m53, m53m1, 8);
	ck_assert_int_lt(dec(buf_ptr(b), buf_len(b), MAXB, &out, NULL), 0);
	buf_free(b);
	v = value_double(0.5);
	b = enc(v);
	value_free(v);
	patch_bytes(b, half, inf, 8);
	ck_assert_int_lt(dec(buf_ptr(b), buf_len(b), MAXB, &out, NULL), 0);
	patch_bytes(b, inf, nan, 8);
	ck_assert_int_lt(dec(buf_ptr(b), buf_len(b), MAXB, &out, NULL), 0);
	buf_free(b);
}
END_TEST

/* The encoder never sends a string the decoder must refuse. */
START_TEST(test_encode_bad_string)
{
	struct value	*v, *o;
	struct buf	*b;

	v = value_stringn("a\0b", 3);
	b = buf_new();
	ck_assert_int_lt(value_encode(b, v), 0);
	buf_free(b);
	value_free(v);
	v = value_string("bad \xc3\x28");
	b = buf_new();
	ck_assert_int_lt(value_encode(b, v), 0);
	buf_free(b);
	value_free(v);
	o = value_object();
	CK_R(value_object_set(o, "\xed\xa0\x80", value_null()), 0);
	b = buf_new();
	ck_assert_int_lt(value_encode(b, o), 0);
	buf_free(b);
	value_free(o);
}
END_TEST

/* errors */

START_TEST(test_truncated_every_length)
{
	struct value	*v, *out;
	struct buf	*b;
	size_t		 len, full;
	int		 r;

	v = every_type();
	b = enc(v);
	full = buf_len(b);
	for (len = 0; len < full; len++) {
		r = dec(buf_ptr(b), len, MAXB, &out, NULL);
		ck_assert_msg(r < 0, "decode of %zu/%zu bytes: got %d",
		    len, full, r);
	}
	buf_free(b);
	value_free(v);
}
END_TEST

START_TEST(test_bad_tag)
{
	static const enum value_type kinds[8] = { V_NULL, V_BOOL, V_BOOL,
	    V_INT, V_DOUBLE, V_STRING, V_ARRAY, V_OBJECT };
	uint8_t		 bytes[64];
	int		 used[256];
	struct value	*v, *out;
	struct buf	*b;
	unsigned int	 i, c;
	size_t		 nlen;
	int		 r;

	/* the first byte of every kind of value is a tag; collect them */
	memset(used, 0, sizeof(used));
	for (i = 0; i < 8; i++) {
		v = kinds[i] == V_NULL ? value_null() :
		    kinds[i] == V_BOOL ? value_bool(i == 2) :
		    kinds[i] == V_INT ? value_int(1) :
		    kinds[i] == V_DOUBLE ? value_double(0.5) :
		    kinds[i] == V_STRING ? value_string("s") :
		    kinds[i] == V_ARRAY ? value_array() : value_object();
		b = enc(v);
		used[buf_ptr(b)[0]] = 1;
		buf_free(b);
		value_free(v);
	}
	for (c = 0; c < 256; c++) {
		if (used[c])
			continue;
		memset(bytes, 0, sizeof(bytes));
		bytes[0] = c;
		r = dec(bytes, sizeof(bytes), MAXB, &out, NULL);
		ck_assert_msg(r == -BNC_ERR_BAD_FORMAT,
		    "tag 0x%02x: got %d (%s)", c, r, bnc_err(r));
	}

	/* a bad tag inside an array: the null is the last element */
	v = value_null();
	b = enc(v);
	nlen = buf_len(b);
	buf_free(b);
	value_free(v);
	v = value_array();
	value_array_append(v, value_null());
	b = enc(v);
	value_free(v);
	ck_assert_uint_le(buf_len(b), sizeof(bytes));
	for (c = 0; c < 256; c++) {
		if (used[c])
			continue;
		memcpy(bytes, buf_ptr(b), buf_len(b));
		bytes[buf_len(b) - nlen] = c;
		r = dec(bytes, buf_len(b), MAXB, &out, NULL);
		ck_assert_msg(r == -BNC_ERR_BAD_FORMAT,
		    "nested tag 0x%02x: got %d (%s)", c, r, bnc_err(r));
	}
	buf_free(b);
}
END_TEST

START_TEST(test_bad_bool)
{
	struct value	*v, *out;
	struct buf	*b;
	uint8_t		 bytes[16];
	size_t		 n;

	/* a bool's payload, if it has one, is 0 or 1 and nothing else */
	v = value_bool(1);
	b = enc(v);
	n = buf_len(b);
	value_free(v);
	if (n < 2 || buf_ptr(b)[n - 1] != 1) {
		buf_free(b);
		return;
	}
	memcpy(bytes, buf_ptr(b), n);
	bytes[n - 1] = 2;
	CK_R(dec(bytes, n, MAXB, &out, NULL), -BNC_ERR_BAD_FORMAT);
	bytes[n - 1] = 0xff;
	CK_R(dec(bytes, n, MAXB, &out, NULL), -BNC_ERR_BAD_FORMAT);
	buf_free(b);
}
END_TEST

static const struct {
	const char	*bytes;
	size_t		 len;
} bad_utf8[] = {
	{ "\x80QQQ", 4 },		/* lone continuation */
	{ "\xc3(QQ", 4 },		/* bad continuation */
	{ "\xc0\xafQQ", 4 },		/* overlong '/' */
	{ "\xc0\x80QQ", 4 },		/* overlong NUL */
	{ "\xc1\xbfQQ", 4 },		/* overlong */
	{ "\xe0\x80\x80Q", 4 },		/* overlong, 3 bytes */
	{ "\xe0\x9f\xbfQ", 4 },		/* overlong, 3 bytes */
	{ "\xed\xa0\x80Q", 4 },		/* surrogate U+D800 */
	{ "\xed\xbf\xbfQ", 4 },		/* surrogate U+DFFF */
	{ "\xf0\x80\x80\x80", 4 },	/* overlong, 4 bytes */
	{ "\xf0\x8f\xbf\xbf", 4 },	/* overlong, 4 bytes */
	{ "\xf4\x90\x80\x80", 4 },	/* above U+10FFFF */
	{ "\xf5\x80\x80\x80", 4 },	/* no such lead */
	{ "\xf8\x88\x80\x80", 4 },	/* 5-byte form */
	{ "\xfe\xfeQQ", 4 },
	{ "\xffQQQ", 4 },
	{ "QQQ\xc3", 4 },		/* cut at the end */
	{ "QQ\xe2\x82", 4 },		/* cut at the end */
	{ "Q\xf0\x9f\x98", 4 },		/* cut at the end */
	{ "\xe2\x82(Q", 4 },		/* bad third byte */
};
#define NBAD_UTF8	(sizeof(bad_utf8) / sizeof(bad_utf8[0]))

START_TEST(test_utf8_invalid)
{
	unsigned int	 i;

	for (i = 0; i < NBAD_UTF8; i++)
		ck_assert_msg(utf8_valid(bad_utf8[i].bytes,
		    bad_utf8[i].len) == 0, "bad_utf8[%u] accepted", i);
}
END_TEST

/* Invalid UTF-8 in a string value and in a key: refused. */
START_TEST(test_bad_utf8_string)
{
	struct value	*v, *out, *o;
	struct buf	*b, *bad;
	unsigned int	 i = _i;

	v = value_array();
	value_array_append(v, value_int(1));
	value_array_append(v, value_string("QQQQ"));
	o = value_object();
	CK_R(value_object_set(o, "KKKK", value_null()), 0);
	value_array_append(v, o);
	b = enc(v);
	value_free(v);

	/* the marker swapped for itself still decodes */
	bad = swap_string(b, "QQQQ", "QQQQ", 4);
	CK_R(dec(buf_ptr(bad), buf_len(bad), MAXB, &out, NULL), 0);
	value_free(out);
	buf_free(bad);

	bad = swap_string(b, "QQQQ", bad_utf8[i].bytes, bad_utf8[i].len);
	CK_R(dec(buf_ptr(bad), buf_len(bad), MAXB, &out, NULL),
	    -BNC_ERR_BAD_UTF8);
	buf_free(bad);
	bad = swap_string(b, "KKKK", bad_utf8[i].bytes, bad_utf8[i].len);
	CK_R(dec(buf_ptr(bad), buf_len(bad), MAXB, &out, NULL),
	    -BNC_ERR_BAD_UTF8);
	buf_free(bad);
	buf_free(b);
}
END_TEST

/* Strings and keys may not contain NUL. */
START_TEST(test_nul_in_string)
{
	struct value	*v, *out, *o;
	struct buf	*b, *bad;
	int		 r;

	v = value_array();
	value_array_append(v, value_string("QQQQ"));
	o = value_object();
	CK_R(value_object_set(o, "KKKK", value_null()), 0);
	value_array_append(v, o);
	b = enc(v);
	value_free(v);

	bad = swap_string(b, "QQQQ", "QQ\0Q", 4);
	r = dec(buf_ptr(bad), buf_len(bad), MAXB, &out, NULL);
	ck_assert_msg(r == -BNC_ERR_NUL || r == -BNC_ERR_BAD_UTF8,
	    "NUL in string: got %d (%s)", r, bnc_err(r));
	buf_free(bad);
	bad = swap_string(b, "KKKK", "K\0KK", 4);
	r = dec(buf_ptr(bad), buf_len(bad), MAXB, &out, NULL);
	ck_assert_msg(r == -BNC_ERR_NUL || r == -BNC_ERR_BAD_UTF8,
	    "NUL in key: got %d (%s)", r, bnc_err(r));
	buf_free(bad);
	buf_free(b);
}
END_TEST

START_TEST(test_dup_key_wire)
{
	struct value	*v, *out, *in;
	struct buf	*b, *bad;

	v = value_object();
	CK_R(value_object_set(v, "ka", value_int(1)), 0);
	CK_R(value_object_set(v, "kb", value_int(2)), 0);
	b = enc(v);
	bad = swap_string(b, "kb", "ka", 2);
	CK_R(dec(buf_ptr(bad), buf_len(bad), MAXB, &out, NULL),
	    -BNC_ERR_DUP_KEY);
	buf_free(bad);
	buf_free(b);
	value_free(v);

	/* nested, and not adjacent */
	v = value_array();
	in = value_object();
	CK_R(value_object_set(in, "k1", value_null()), 0);
	CK_R(value_object_set(in, "mid", value_string("m")), 0);
	CK_R(value_object_set(in, "k2", value_array()), 0);
	value_array_append(v, value_int(0));
	value_array_append(v, in);
	b = enc(v);
	bad = swap_string(b, "k2", "k1", 2);
	CK_R(dec(buf_ptr(bad), buf_len(bad), MAXB, &out, NULL),
	    -BNC_ERR_DUP_KEY);
	buf_free(bad);
	buf_free(b);
	value_free(v);
}
END_TEST

static Suite *
value_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("value");

	tc = tcase_create("core");
	tcase_add_test(tc, test_constructors);
	tcase_add_test(tc, test_object_ops);
	tcase_add_test(tc, test_equal);
	tcase_add_test(tc, test_dup);
	tcase_add_test(tc, test_count_depth);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_trailing_left);
	tcase_add_test(tc, test_canonical);
	tcase_add_test(tc, test_utf8_valid);
	tcase_add_test(tc, test_utf8_cut_trim);
	tcase_add_test(tc, test_utf8_escape);
	tcase_add_test(tc, test_utf8_escape_cut);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_depth_cap, 0, 2);
	tcase_add_test(tc, test_node_cap);
	tcase_add_test(tc, test_maxbytes);
	tcase_add_test(tc, test_number_range);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_truncated_every_length);
	tcase_add_test(tc, test_bad_tag);
	tcase_add_test(tc, test_bad_bool);
	tcase_add_test(tc, test_utf8_invalid);
	tcase_add_loop_test(tc, test_bad_utf8_string, 0, NBAD_UTF8);
	tcase_add_test(tc, test_nul_in_string);
	tcase_add_test(tc, test_dup_key_wire);
	tcase_add_test(tc, test_encode_bad_string);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(value_suite());
	srunner_run_all(sr, CK_NORMAL);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
