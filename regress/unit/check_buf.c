/*
 * check_buf.c - unit tests for common/buf.c.
 *
 * Checks the contract of buf.h: big-endian layout byte by byte, typed
 * round trips, whole-field-or-nothing gets at every truncation, string
 * caps, NUL-free cstrings, the growth cap and read-only wrapping.  It
 * must never test through anything but the public header.
 */

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "bounds.h"

#define CK_R(expr, want) do {						\
	int ck_r_ = (expr), ck_w_ = (want);				\
	ck_assert_msg(ck_r_ == ck_w_, "%s: got %d (%s), want %d (%s)",	\
	    #expr, ck_r_, bnc_err(ck_r_), ck_w_, bnc_err(ck_w_));	\
} while (0)

/* Asserts the unread bytes of b equal the n bytes at want. */
static void
expect_bytes(const struct buf *b, const void *want, size_t n)
{
	size_t	 i;

	ck_assert_uint_eq(buf_len(b), n);
	for (i = 0; i < n; i++)
		ck_assert_msg(buf_ptr(b)[i] == ((const uint8_t *)want)[i],
		    "byte %zu: got 0x%02x want 0x%02x", i, buf_ptr(b)[i],
		    ((const uint8_t *)want)[i]);
}

/* core: layout */

START_TEST(test_layout_ints)
{
	struct buf	*b;
	static const uint8_t want[] = {
		0xab,
		0x12, 0x34,
		0x12, 0x34, 0x56, 0x78,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};

	ck_assert_ptr_nonnull(b = buf_new());
	ck_assert_uint_eq(buf_len(b), 0);
	CK_R(buf_put_u8(b, 0xab), 0);
	CK_R(buf_put_u16(b, 0x1234), 0);
	CK_R(buf_put_u32(b, 0x12345678), 0);
	CK_R(buf_put_u64(b, 0x0102030405060708ULL), 0);
	CK_R(buf_put_i64(b, -2), 0);
	CK_R(buf_put_i64(b, INT64_MIN), 0);
	expect_bytes(b, want, sizeof(want));
	buf_free(b);
}
END_TEST

START_TEST(test_layout_double)
{
	struct buf	*b;
	static const uint8_t want[] = {
		0x3f, 0xf0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* 1.0 */
		0xc0, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* -2.5 */
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* -0.0 */
	};

	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(buf_put_double(b, 1.0), 0);
	CK_R(buf_put_double(b, -2.5), 0);
	CK_R(buf_put_double(b, -0.0), 0);
	expect_bytes(b, want, sizeof(want));
	buf_free(b);
}
END_TEST

START_TEST(test_layout_strings)
{
	struct buf	*b;
	static const uint8_t want[] = {
		0x00, 0x00, 0x00, 0x03, 'a', 'b', 'c',
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x03, 'x', 0x00, 'y',
		0x00, 0x00, 0x00, 0x02, 'h', 'i',
		0x00, 0x00, 0x00, 0x00,
	};

	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(buf_put_string(b, "abc", 3), 0);
	CK_R(buf_put_string(b, "", 0), 0);
	CK_R(buf_put_string(b, "x\0y", 3), 0);
	CK_R(buf_put_cstring(b, "hi"), 0);
	CK_R(buf_put_cstring(b, ""), 0);
	expect_bytes(b, want, sizeof(want));
	buf_free(b);
}
END_TEST

/* core: round trips */

START_TEST(test_roundtrip_ints)
{
	static const uint16_t	 v16[] = { 0, 1, 0x7fff, 0x8000, 0xffff };
	static const uint32_t	 v32[] = { 0, 1, 0x7fffffff, 0x80000000,
	    0xffffffff };
	static const uint64_t	 v64[] = { 0, 1, 0xffffffffULL,
	    0x100000000ULL, UINT64_MAX };
	static const int64_t	 vi64[] = { 0, 1, -1, INT64_MAX, INT64_MIN,
	    (int64_t)1 << 53, -((int64_t)1 << 53) };
	struct buf	*b;
	unsigned int	 i;
	uint8_t		 u8;
	uint16_t	 u16;
	uint32_t	 u32;
	uint64_t	 u64;
	int64_t		 i64;

	ck_assert_ptr_nonnull(b = buf_new());
	for (i = 0; i < 256; i++)
		CK_R(buf_put_u8(b, (uint8_t)i), 0);
	for (i = 0; i < sizeof(v16) / sizeof(v16[0]); i++)
		CK_R(buf_put_u16(b, v16[i]), 0);
	for (i = 0; i < sizeof(v32) / sizeof(v32[0]); i++)
		CK_R(buf_put_u32(b, v32[i]), 0);
	for (i = 0; i < sizeof(v64) / sizeof(v64[0]); i++)
		CK_R(buf_put_u64(b, v64[i]), 0);
	for (i = 0; i < sizeof(vi64) / sizeof(vi64[0]); i++)
		CK_R(buf_put_i64(b, vi64[i]), 0);

	for (i = 0; i < 256; i++) {
		CK_R(buf_get_u8(b, &u8), 0);
		ck_assert_uint_eq(u8, i);
	}
	for (i = 0; i < sizeof(v16) / sizeof(v16[0]); i++) {
		CK_R(buf_get_u16(b, &u16), 0);
		ck_assert_uint_eq(u16, v16[i]);
	}
	for (i = 0; i < sizeof(v32) / sizeof(v32[0]); i++) {
		CK_R(buf_get_u32(b, &u32), 0);
		ck_assert_uint_eq(u32, v32[i]);
	}
	for (i = 0; i < sizeof(v64) / sizeof(v64[0]); i++) {
		CK_R(buf_get_u64(b, &u64), 0);
		ck_assert_uint_eq(u64, v64[i]);
	}
	for (i = 0; i < sizeof(vi64) / sizeof(vi64[0]); i++) {
		CK_R(buf_get_i64(b, &i64), 0);
		ck_assert_int_eq(i64, vi64[i]);
	}
	ck_assert_uint_eq(buf_len(b), 0);
	buf_free(b);
}
END_TEST

START_TEST(test_roundtrip_double)
{
	const double	 vd[] = { 0.0, -0.0, 1.0, -1.5, 0.1, 1e300, -1e-300,
	    DBL_MAX, DBL_MIN, 4.9e-324 /* subnormal */, 9007199254740993.0,
	    HUGE_VAL, -HUGE_VAL };
	struct buf	*b;
	unsigned int	 i;
	double		 d;

	ck_assert_ptr_nonnull(b = buf_new());
	for (i = 0; i < sizeof(vd) / sizeof(vd[0]); i++)
		CK_R(buf_put_double(b, vd[i]), 0);
	for (i = 0; i < sizeof(vd) / sizeof(vd[0]); i++) {
		CK_R(buf_get_double(b, &d), 0);
		/* bit for bit: -0.0 must stay negative */
		ck_assert_msg(memcmp(&d, &vd[i], sizeof(d)) == 0,
		    "double %u: got %a want %a", i, d, vd[i]);
	}
	ck_assert_uint_eq(buf_len(b), 0);
	buf_free(b);
}
END_TEST

START_TEST(test_roundtrip_strings)
{
	static const char	 utf[] =
	    "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80";
	struct buf	*b;
	char		*s = NULL;
	const uint8_t	*p;
	size_t		 len;

	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(buf_put_string(b, "abc", 3), 0);
	CK_R(buf_put_string(b, "", 0), 0);
	CK_R(buf_put_string(b, "x\0y", 3), 0);
	CK_R(buf_put_cstring(b, utf), 0);
	CK_R(buf_put_cstring(b, ""), 0);
	CK_R(buf_put_string(b, "direct", 6), 0);

	CK_R(buf_get_string(b, &s, &len, 16), 0);
	ck_assert_uint_eq(len, 3);
	ck_assert_str_eq(s, "abc");
	free(s);
	s = NULL;
	CK_R(buf_get_string(b, &s, NULL, 16), 0);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s, "");
	free(s);
	s = NULL;
	/* a plain string may hold a NUL; the copy is still terminated */
	CK_R(buf_get_string(b, &s, &len, 16), 0);
	ck_assert_uint_eq(len, 3);
	ck_assert_mem_eq(s, "x\0y", 4);
	free(s);
	s = NULL;
	CK_R(buf_get_cstring(b, &s, &len, 64), 0);
	ck_assert_uint_eq(len, strlen(utf));
	ck_assert_str_eq(s, utf);
	free(s);
	s = NULL;
	CK_R(buf_get_cstring(b, &s, &len, 64), 0);
	ck_assert_uint_eq(len, 0);
	ck_assert_str_eq(s, "");
	free(s);
	s = NULL;
	CK_R(buf_get_string_direct(b, &p, &len, 16), 0);
	ck_assert_uint_eq(len, 6);
	ck_assert_mem_eq(p, "direct", 6);
	ck_assert_uint_eq(buf_len(b), 0);
	buf_free(b);
}
END_TEST

START_TEST(test_raw_and_consume)
{
	struct buf	*b;
	uint8_t		*w = NULL;
	uint8_t		 out[4];

	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(buf_put(b, "abcdef", 6), 0);
	CK_R(buf_reserve(b, 3, &w), 0);
	ck_assert_ptr_nonnull(w);
	memcpy(w, "XYZ", 3);
	expect_bytes(b, "abcdefXYZ", 9);
	CK_R(buf_consume(b, 2), 0);
	expect_bytes(b, "cdefXYZ", 7);
	CK_R(buf_get(b, out, 4), 0);
	ck_assert_mem_eq(out, "cdef", 4);
	expect_bytes(b, "XYZ", 3);
	CK_R(buf_consume(b, 0), 0);
	CK_R(buf_consume(b, 3), 0);
	ck_assert_uint_eq(buf_len(b), 0);
	CK_R(buf_put(b, "q", 1), 0);
	expect_bytes(b, "q", 1);
	buf_reset(b);
	ck_assert_uint_eq(buf_len(b), 0);
	CK_R(buf_put_u16(b, 0xbeef), 0);
	expect_bytes(b, "\xbe\xef", 2);
	buf_free(b);
	buf_free(NULL);
}
END_TEST

/* Interleaved writes and reads must keep order across growth/compaction. */
START_TEST(test_interleave)
{
	struct buf	*b;
	uint32_t	 i, v, next = 0;

	ck_assert_ptr_nonnull(b = buf_new());
	for (i = 0; i < 50000; i++) {
		CK_R(buf_put_u32(b, i), 0);
		if (i % 3 != 0) {
			CK_R(buf_get_u32(b, &v), 0);
			ck_assert_uint_eq(v, next);
			next++;
		}
	}
	while (buf_len(b) > 0) {
		CK_R(buf_get_u32(b, &v), 0);
		ck_assert_uint_eq(v, next);
		next++;
	}
	ck_assert_uint_eq(next, 50000);
	buf_free(b);
}
END_TEST

START_TEST(test_from_readonly)
{
	uint8_t		 mem[8] = { 0, 0, 0, 2, 'o', 'k', 0x12, 0x34 };
	uint8_t		 copy[8];
	struct buf	*b;
	uint8_t		*w = NULL;
	char		*s = NULL;
	uint16_t	 u16;

	memcpy(copy, mem, sizeof(mem));
	/* mem is on the stack: freeing or reallocating it would crash */
	ck_assert_ptr_nonnull(b = buf_from(mem, sizeof(mem)));
	ck_assert_uint_eq(buf_len(b), 8);
	ck_assert_ptr_eq(buf_ptr(b), mem);
	ck_assert_int_lt(buf_put_u8(b, 1), 0);
	ck_assert_int_lt(buf_put(b, "xxxxxxxxxxxxxxxx", 16), 0);
	ck_assert_int_lt(buf_put_string(b, "a", 1), 0);
	ck_assert_int_lt(buf_reserve(b, 1, &w), 0);
	ck_assert_uint_eq(buf_len(b), 8);
	ck_assert_mem_eq(mem, copy, sizeof(mem));
	CK_R(buf_get_cstring(b, &s, NULL, 8), 0);
	ck_assert_str_eq(s, "ok");
	free(s);
	CK_R(buf_get_u16(b, &u16), 0);
	ck_assert_uint_eq(u16, 0x1234);
	ck_assert_int_lt(buf_put_u8(b, 1), 0);
	ck_assert_mem_eq(mem, copy, sizeof(mem));
	buf_free(b);
	/* an empty wrap is fine too */
	ck_assert_ptr_nonnull(b = buf_from(mem, 0));
	ck_assert_uint_eq(buf_len(b), 0);
	buf_free(b);
}
END_TEST

/* An empty buffer's bytes can be handed to memcpy, strndup, ... */
START_TEST(test_empty_ptr)
{
	struct buf *b;
	char out[1] = { 'x' };

	b = buf_new();
	ck_assert_ptr_nonnull(buf_ptr(b));
	memcpy(out, buf_ptr(b), buf_len(b));
	ck_assert_int_eq(out[0], 'x');
	CK_R(buf_put_u8(b, 7), 0);
	CK_R(buf_get_u8(b, (uint8_t *)out), 0);
	ck_assert_ptr_nonnull(buf_ptr(b));	/* consumed, still there */
	buf_reset(b);
	ck_assert_ptr_nonnull(buf_ptr(b));
	buf_free(b);
	b = buf_from(NULL, 0);
	ck_assert_ptr_nonnull(buf_ptr(b));
	buf_free(b);
}
END_TEST

/* limits */

START_TEST(test_string_max)
{
	char		 big[300];
	struct buf	*b;
	char		*s = NULL;
	const uint8_t	*p = NULL;
	size_t		 len = 0;
	int		 r;

	memset(big, 'z', sizeof(big));
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(buf_put_string(b, big, 256), 0);

	/* one past the max: refused, nothing consumed */
	CK_R(buf_get_string(b, &s, &len, 255), -BNC_ERR_TOO_LARGE);
	ck_assert_ptr_null(s);
	ck_assert_uint_eq(buf_len(b), 4 + 256);
	CK_R(buf_get_cstring(b, &s, &len, 255), -BNC_ERR_TOO_LARGE);
	ck_assert_ptr_null(s);
	ck_assert_uint_eq(buf_len(b), 4 + 256);
	CK_R(buf_get_string_direct(b, &p, &len, 255), -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(b), 4 + 256);
	CK_R(buf_get_string(b, &s, &len, 0), -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(b), 4 + 256);

	/* exactly the max: accepted */
	CK_R(buf_get_string(b, &s, &len, 256), 0);
	ck_assert_uint_eq(len, 256);
	ck_assert_uint_eq(strlen(s), 256);
	free(s);
	s = NULL;

	/* an empty string fits a max of 0 */
	CK_R(buf_put_string(b, "", 0), 0);
	CK_R(buf_get_cstring(b, &s, &len, 0), 0);
	ck_assert_uint_eq(len, 0);
	free(s);
	s = NULL;

	/* a huge claimed length: too large or truncated, never a wrap */
	CK_R(buf_put_u32(b, 0xffffffff), 0);
	CK_R(buf_put(b, "abc", 3), 0);
	r = buf_get_string(b, &s, &len, 1024);
	ck_assert_msg(r == -BNC_ERR_TOO_LARGE || r == -BNC_ERR_TRUNCATED,
	    "got %d (%s)", r, bnc_err(r));
	ck_assert_ptr_null(s);
	ck_assert_uint_eq(buf_len(b), 7);
	buf_free(b);
}
END_TEST

START_TEST(test_set_max)
{
	uint8_t		 blob[100];
	struct buf	*b;
	uint8_t		*w = NULL;
	uint32_t	 v;

	memset(blob, 0x5a, sizeof(blob));
	ck_assert_ptr_nonnull(b = buf_new());
	buf_set_max(b, 100);
	CK_R(buf_put(b, blob, 98), 0);
	/* a field that would cross the cap is refused whole */
	CK_R(buf_put_u32(b, 1), -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(b), 98);
	CK_R(buf_put_string(b, "", 0), -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(b), 98);
	CK_R(buf_put_u16(b, 0x0102), 0);
	ck_assert_uint_eq(buf_len(b), 100);
	CK_R(buf_put_u8(b, 1), -BNC_ERR_TOO_LARGE);
	CK_R(buf_reserve(b, 1, &w), -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(b), 100);
	CK_R(buf_consume(b, 98), 0);
	CK_R(buf_get(b, &v, 2), 0);
	buf_free(b);
}
END_TEST

START_TEST(test_reserve_overflow)
{
	struct buf	*b;
	uint8_t		*w = NULL;

	/* an overflowing reservation must fail, not wrap */
	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(buf_put_u8(b, 7), 0);
	CK_R(buf_reserve(b, SIZE_MAX, &w), -BNC_ERR_TOO_LARGE);
	CK_R(buf_reserve(b, SIZE_MAX - 1, &w), -BNC_ERR_TOO_LARGE);
	CK_R(buf_put(b, "", SIZE_MAX), -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(b), 1);
	buf_set_max(b, 64);
	CK_R(buf_reserve(b, SIZE_MAX, &w), -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(b), 1);
	buf_free(b);
}
END_TEST

/* max 0 means BNC_BUF_MAX (buf.h) */
START_TEST(test_default_max)
{
	struct buf	*b;
	uint8_t		*w = NULL;

	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(buf_put_u8(b, 7), 0);
	CK_R(buf_reserve(b, BNC_BUF_MAX, &w), -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(b), 1);
	CK_R(buf_reserve(b, 1024 * 1024, &w), 0);
	ck_assert_uint_eq(buf_len(b), 1 + 1024 * 1024);
	buf_free(b);
}
END_TEST

START_TEST(test_raise_max)
{
	uint8_t		 blob[10];
	struct buf	*b;

	/* raising the cap lets the buffer grow again */
	memset(blob, 1, sizeof(blob));
	ck_assert_ptr_nonnull(b = buf_new());
	buf_set_max(b, 10);
	CK_R(buf_put(b, blob, 10), 0);
	CK_R(buf_put_u8(b, 1), -BNC_ERR_TOO_LARGE);
	buf_set_max(b, 20);
	CK_R(buf_put(b, blob, 10), 0);
	ck_assert_uint_eq(buf_len(b), 20);
	buf_free(b);
}
END_TEST

/* A string that does not fit is refused whole, prefix included. */
START_TEST(test_put_string_whole)
{
	char		 blob[100];
	struct buf	*b;

	memset(blob, 's', sizeof(blob));
	ck_assert_ptr_nonnull(b = buf_new());
	buf_set_max(b, 100);
	CK_R(buf_put(b, blob, 90), 0);
	CK_R(buf_put_string(b, blob, 20), -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(b), 90);
	CK_R(buf_put_cstring(b, "0123456789"), -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(b), 90);
	CK_R(buf_put_string(b, blob, 6), 0);
	ck_assert_uint_eq(buf_len(b), 100);
	buf_free(b);
}
END_TEST
END_TEST

/* errors */

enum getter {
	G_U8, G_U16, G_U32, G_U64, G_I64, G_DOUBLE, G_STRING, G_CSTRING,
	G_DIRECT, G_RAW, G_CONSUME, G_MAX
};

static const char *getter_name[G_MAX] = {
	"u8", "u16", "u32", "u64", "i64", "double", "string", "cstring",
	"string_direct", "get", "consume"
};

/* Encodes one field for getter g into b; returns its size. */
static size_t
put_field(struct buf *b, enum getter g)
{
	switch (g) {
	case G_U8:
		ck_assert_int_eq(buf_put_u8(b, 0x81), 0);
		return 1;
	case G_U16:
		ck_assert_int_eq(buf_put_u16(b, 0x8182), 0);
		return 2;
	case G_U32:
		ck_assert_int_eq(buf_put_u32(b, 0x81828384), 0);
		return 4;
	case G_U64:
	case G_I64:
		ck_assert_int_eq(buf_put_u64(b, 0x8182838485868788ULL), 0);
		return 8;
	case G_DOUBLE:
		ck_assert_int_eq(buf_put_double(b, -123.456), 0);
		return 8;
	case G_STRING:
	case G_CSTRING:
	case G_DIRECT:
		ck_assert_int_eq(buf_put_cstring(b, "hello"), 0);
		return 9;
	case G_RAW:
	case G_CONSUME:
		ck_assert_int_eq(buf_put(b, "0123456789", 10), 0);
		return 10;
	default:
		ck_abort_msg("bad getter");
	}
	return 0;
}

/* Runs getter g on b; out-parameters that were not set must stay NULL. */
static int
run_getter(struct buf *b, enum getter g)
{
	uint8_t		 u8, raw[10];
	uint16_t	 u16;
	uint32_t	 u32;
	uint64_t	 u64;
	int64_t		 i64;
	double		 d;
	char		*s = NULL;
	const uint8_t	*p = NULL;
	size_t		 len;
	int		 r;

	switch (g) {
	case G_U8:
		return buf_get_u8(b, &u8);
	case G_U16:
		return buf_get_u16(b, &u16);
	case G_U32:
		return buf_get_u32(b, &u32);
	case G_U64:
		return buf_get_u64(b, &u64);
	case G_I64:
		return buf_get_i64(b, &i64);
	case G_DOUBLE:
		return buf_get_double(b, &d);
	case G_STRING:
		r = buf_get_string(b, &s, &len, 64);
		break;
	case G_CSTRING:
		r = buf_get_cstring(b, &s, &len, 64);
		break;
	case G_DIRECT:
		return buf_get_string_direct(b, &p, &len, 64);
	case G_RAW:
		return buf_get(b, raw, sizeof(raw));
	case G_CONSUME:
		return buf_consume(b, 10);
	default:
		ck_abort_msg("bad getter");
		return -1;
	}
	if (r != 0)
		ck_assert_msg(s == NULL, "failed get set *sp");
	free(s);
	return r;
}

/* Every get on every truncation of its field fails and consumes nothing. */
START_TEST(test_truncated_every_length)
{
	struct buf	*enc, *b;
	enum getter	 g = (enum getter)_i;
	size_t		 full, len;
	int		 r;

	ck_assert_ptr_nonnull(enc = buf_new());
	full = put_field(enc, g);
	ck_assert_uint_eq(buf_len(enc), full);
	for (len = 0; len < full; len++) {
		ck_assert_ptr_nonnull(b = buf_from(buf_ptr(enc), len));
		r = run_getter(b, g);
		ck_assert_msg(r == -BNC_ERR_TRUNCATED,
		    "get_%s at %zu/%zu bytes: got %d (%s)",
		    getter_name[g], len, full, r, bnc_err(r));
		ck_assert_msg(buf_len(b) == len,
		    "get_%s at %zu/%zu bytes consumed %zu",
		    getter_name[g], len, full, len - buf_len(b));
		buf_free(b);
	}
	/* the whole field reads, and exactly the whole field */
	ck_assert_ptr_nonnull(b = buf_from(buf_ptr(enc), full));
	CK_R(run_getter(b, g), 0);
	ck_assert_uint_eq(buf_len(b), 0);
	buf_free(b);
	buf_free(enc);
}
END_TEST

START_TEST(test_cstring_nul)
{
	struct buf	*b;
	char		*s = NULL;
	size_t		 len = 0;

	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(buf_put_string(b, "a\0b", 3), 0);
	CK_R(buf_get_cstring(b, &s, &len, 64), -BNC_ERR_NUL);
	ck_assert_ptr_null(s);
	ck_assert_uint_eq(buf_len(b), 7);
	/* nothing was consumed: the same field still reads as a string */
	CK_R(buf_get_string(b, &s, &len, 64), 0);
	ck_assert_uint_eq(len, 3);
	free(s);
	s = NULL;

	/* NUL at either end too */
	CK_R(buf_put_string(b, "\0", 1), 0);
	CK_R(buf_get_cstring(b, &s, NULL, 64), -BNC_ERR_NUL);
	CK_R(buf_consume(b, 5), 0);
	CK_R(buf_put_string(b, "abc\0", 4), 0);
	CK_R(buf_get_cstring(b, &s, NULL, 64), -BNC_ERR_NUL);
	ck_assert_ptr_null(s);
	ck_assert_uint_eq(buf_len(b), 8);
	buf_free(b);
}
END_TEST

START_TEST(test_consume_past_end)
{
	struct buf	*b;
	uint8_t		 out[8];

	ck_assert_ptr_nonnull(b = buf_new());
	CK_R(buf_put(b, "abc", 3), 0);
	CK_R(buf_consume(b, 4), -BNC_ERR_TRUNCATED);
	CK_R(buf_consume(b, SIZE_MAX), -BNC_ERR_TRUNCATED);
	CK_R(buf_get(b, out, 4), -BNC_ERR_TRUNCATED);
	CK_R(buf_get(b, out, SIZE_MAX), -BNC_ERR_TRUNCATED);
	expect_bytes(b, "abc", 3);
	buf_free(b);
}
END_TEST

START_TEST(test_err_strings)
{
	int	 i;

	for (i = 0; i < BNC_ERR_MAX; i++) {
		ck_assert_ptr_nonnull(bnc_err(i));
		ck_assert_ptr_nonnull(bnc_err(-i));
		ck_assert_str_eq(bnc_err(i), bnc_err(-i));
		ck_assert_uint_gt(strlen(bnc_err(i)), 0);
	}
	/* out of range codes still get a string */
	ck_assert_ptr_nonnull(bnc_err(BNC_ERR_MAX));
	ck_assert_ptr_nonnull(bnc_err(-1000));
	ck_assert_str_ne(bnc_err(-BNC_ERR_TRUNCATED),
	    bnc_err(-BNC_ERR_TRAILING));
}
END_TEST

static Suite *
buf_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("buf");

	tc = tcase_create("core");
	tcase_add_test(tc, test_layout_ints);
	tcase_add_test(tc, test_layout_double);
	tcase_add_test(tc, test_layout_strings);
	tcase_add_test(tc, test_roundtrip_ints);
	tcase_add_test(tc, test_roundtrip_double);
	tcase_add_test(tc, test_roundtrip_strings);
	tcase_add_test(tc, test_raw_and_consume);
	tcase_add_test(tc, test_interleave);
	tcase_add_test(tc, test_from_readonly);
	tcase_add_test(tc, test_empty_ptr);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_test(tc, test_string_max);
	tcase_add_test(tc, test_set_max);
	tcase_add_test(tc, test_reserve_overflow);
	tcase_add_test(tc, test_default_max);
	tcase_add_test(tc, test_raise_max);
	tcase_add_test(tc, test_put_string_whole);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_truncated_every_length, 0, G_MAX);
	tcase_add_test(tc, test_cstring_nul);
	tcase_add_test(tc, test_consume_past_end);
	tcase_add_test(tc, test_err_strings);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(buf_suite());
	srunner_run_all(sr, CK_NORMAL);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
