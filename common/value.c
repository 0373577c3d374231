/*
 * value.c - JSON value trees and their wire codec.
 *
 * The codec is the only way a tree crosses between processes.  Encoding:
 * u8 tag, then NULL/FALSE/TRUE: nothing; INT: i64; DOUBLE: IEEE 754
 * binary64; STRING: u32 length + bytes; ARRAY: u32 count + values;
 * OBJECT: u32 count + (u32 key length + key bytes, value) pairs.
 * Both ends enforce depth, node count, UTF-8 and key uniqueness, so a
 * tree the monitor holds is always one the worker could have produced.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "bounds.h"
#include "utf8.h"
#include "value.h"
#include "xmalloc.h"

enum value_tag {
	TAG_NULL = 0,
	TAG_FALSE = 1,
	TAG_TRUE = 2,
	TAG_INT = 3,
	TAG_DOUBLE = 4,
	TAG_STRING = 5,
	TAG_ARRAY = 6,
	TAG_OBJECT = 7
};

static struct value *
value_new(enum value_type t)
{
	struct value *v;

	v = xcalloc(1, sizeof(*v));
	v->type = t;
	return v;
}

struct value *
value_null(void)
{
	return value_new(V_NULL);
}

struct value *
value_bool(int b)
{
	struct value *v = value_new(V_BOOL);

	v->u.b = b != 0;
	return v;
}

struct value *
value_int(int64_t i)
{
	struct value *v = value_new(V_INT);

	v->u.i = i;
	return v;
}

struct value *
value_double(double d)
{
	struct value *v = value_new(V_DOUBLE);

	v->u.d = d;
	return v;
}

struct value *
value_stringn(const char *s, size_t len)
{
	struct value *v = value_new(V_STRING);

	v->u.s.p = xmalloc(len + 1);
	memcpy(v->u.s.p, s, len);
	v->u.s.p[len] = '\0';
	v->u.s.len = len;
	return v;
}

struct value *
value_string(const char *s)
{
	return value_stringn(s, strlen(s));
}

struct value *
value_array(void)
{
	return value_new(V_ARRAY);
}

struct value *
value_object(void)
{
	return value_new(V_OBJECT);
}

void
value_free(struct value *v)
{
	size_t i;

	if (v == NULL)
		return;
	switch (v->type) {
	case V_STRING:
		free(v->u.s.p);
		break;
	case V_ARRAY:
		for (i = 0; i < v->u.a.n; i++)
			value_free(v->u.a.v[i]);
		free(v->u.a.v);
		break;
	case V_OBJECT:
		for (i = 0; i < v->u.o.n; i++) {
			free(v->u.o.m[i].key);
			value_free(v->u.o.m[i].val);
		}
		free(v->u.o.m);
		break;
	default:
		break;
	}
	free(v);
}

struct value *
value_dup(const struct value *v)
{
	struct value *n;
	size_t i;

	if (v == NULL)
		return NULL;
	switch (v->type) {
	case V_STRING:
		return value_stringn(v->u.s.p, v->u.s.len);
	case V_ARRAY:
		n = value_array();
		for (i = 0; i < v->u.a.n; i++)
			value_array_append(n, value_dup(v->u.a.v[i]));
		return n;
	case V_OBJECT:
		n = value_object();
		for (i = 0; i < v->u.o.n; i++)
			value_object_put(n, v->u.o.m[i].key,
			    value_dup(v->u.o.m[i].val));
		return n;
	default:
		n = value_new(v->type);
		n->u = v->u;
		return n;
	}
}

void
value_array_append(struct value *a, struct value *v)
{
	if (a->u.a.n == a->u.a.cap) {
		a->u.a.cap = a->u.a.cap == 0 ? 4 : a->u.a.cap * 2;
		a->u.a.v = xreallocarray(a->u.a.v, a->u.a.cap,
		    sizeof(*a->u.a.v));
	}
	a->u.a.v[a->u.a.n++] = v;
}

static struct member *
object_find(const struct value *o, const char *key)
{
	size_t i;

	if (o == NULL || o->type != V_OBJECT)
		return NULL;
	for (i = 0; i < o->u.o.n; i++)
		if (strcmp(o->u.o.m[i].key, key) == 0)
			return &o->u.o.m[i];
	return NULL;
}

/* Appends without a uniqueness check; callers have checked. */
static void
object_append(struct value *o, char *key, size_t klen, struct value *v)
{
	struct member *m;

	if (o->u.o.n == o->u.o.cap) {
		o->u.o.cap = o->u.o.cap == 0 ? 4 : o->u.o.cap * 2;
		o->u.o.m = xreallocarray(o->u.o.m, o->u.o.cap,
		    sizeof(*o->u.o.m));
	}
	m = &o->u.o.m[o->u.o.n++];
	m->key = key;
	m->klen = klen;
	m->val = v;
}

int
value_object_set(struct value *o, const char *key, struct value *v)
{
	if (object_find(o, key) != NULL) {
		value_free(v);
		return -BNC_ERR_DUP_KEY;
	}
	object_append(o, xstrdup(key), strlen(key), v);
	return 0;
}

void
value_object_put(struct value *o, const char *key, struct value *v)
{
	struct member *m;

	if ((m = object_find(o, key)) != NULL) {
		value_free(m->val);
		m->val = v;
		return;
	}
	object_append(o, xstrdup(key), strlen(key), v);
}

struct value *
value_object_take(struct value *o, const char *key)
{
	struct member *m;
	struct value *v;
	size_t i;

	if ((m = object_find(o, key)) == NULL)
		return NULL;
	v = m->val;
	free(m->key);
	i = (size_t)(m - o->u.o.m);
	memmove(m, m + 1, (o->u.o.n - i - 1) * sizeof(*m));
	o->u.o.n--;
	return v;
}

struct value *
value_get(const struct value *o, const char *key)
{
	struct member *m;

	if ((m = object_find(o, key)) == NULL)
		return NULL;
	return m->val;
}

const char *
value_get_str(const struct value *o, const char *key)
{
	struct value *v;

	if ((v = value_get(o, key)) == NULL || v->type != V_STRING)
		return NULL;
	return v->u.s.p;
}

int
value_is(const struct value *v, enum value_type t)
{
	return v != NULL && v->type == t;
}

int
value_equal(const struct value *a, const struct value *b)
{
	struct value *bv;
	size_t i;

	if (a == NULL || b == NULL)
		return a == b;
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case V_NULL:
		return 1;
	case V_BOOL:
		return a->u.b == b->u.b;
	case V_INT:
		return a->u.i == b->u.i;
	case V_DOUBLE:
		return memcmp(&a->u.d, &b->u.d, sizeof(double)) == 0;
	case V_STRING:
		return a->u.s.len == b->u.s.len &&
		    memcmp(a->u.s.p, b->u.s.p, a->u.s.len) == 0;
	case V_ARRAY:
		if (a->u.a.n != b->u.a.n)
			return 0;
		for (i = 0; i < a->u.a.n; i++)
			if (!value_equal(a->u.a.v[i], b->u.a.v[i]))
				return 0;
		return 1;
	case V_OBJECT:
		if (a->u.o.n != b->u.o.n)
			return 0;
		for (i = 0; i < a->u.o.n; i++) {
			bv = value_get(b, a->u.o.m[i].key);
			if (bv == NULL || !value_equal(a->u.o.m[i].val, bv))
				return 0;
		}
		return 1;
	}
	return 0;
}

size_t
value_count_nodes(const struct value *v)
{
	size_t i, n = 1;

	if (v == NULL)
		return 0;
	if (v->type == V_ARRAY)
		for (i = 0; i < v->u.a.n; i++)
			n += value_count_nodes(v->u.a.v[i]);
	else if (v->type == V_OBJECT)
		for (i = 0; i < v->u.o.n; i++)
			n += value_count_nodes(v->u.o.m[i].val);
	return n;
}

int
value_depth(const struct value *v)
{
	int d, max = 0;
	size_t i;

	if (v == NULL)
		return 0;
	if (v->type == V_ARRAY) {
		for (i = 0; i < v->u.a.n; i++)
			if ((d = value_depth(v->u.a.v[i])) > max)
				max = d;
		return max + 1;
	}
	if (v->type == V_OBJECT) {
		for (i = 0; i < v->u.o.n; i++)
			if ((d = value_depth(v->u.o.m[i].val)) > max)
				max = d;
		return max + 1;
	}
	return 0;
}

static int	check_string(const uint8_t *, size_t);

/* Encoder.  depth counts containers entered; the root container is 1. */

struct enc_state {
	size_t	nodes;
	int	canonical;
};

static int
member_cmp(const void *a, const void *b)
{
	const struct member *ma = *(const struct member *const *)a;
	const struct member *mb = *(const struct member *const *)b;
	size_t n = ma->klen < mb->klen ? ma->klen : mb->klen;
	int c;

	if ((c = memcmp(ma->key, mb->key, n)) != 0)
		return c;
	return ma->klen < mb->klen ? -1 : ma->klen > mb->klen;
}

static int
encode(struct buf *b, const struct value *v, int depth, struct enc_state *st)
{
	const struct member **sorted = NULL;
	const struct member *m;
	size_t i;
	int r = 0;

	if (++st->nodes > BNC_VALUE_NODES_MAX)
		return -BNC_ERR_TOO_LARGE;
	switch (v->type) {
	case V_NULL:
		return buf_put_u8(b, TAG_NULL);
	case V_BOOL:
		return buf_put_u8(b, v->u.b ? TAG_TRUE : TAG_FALSE);
	case V_INT:
		if (v->u.i > VALUE_INT_EXACT || v->u.i < -VALUE_INT_EXACT)
			return -BNC_ERR_TOO_LARGE;
		if ((r = buf_put_u8(b, TAG_INT)) != 0)
			return r;
		return buf_put_i64(b, v->u.i);
	case V_DOUBLE:
		if (!isfinite(v->u.d))
			return -BNC_ERR_BAD_FORMAT;
		if ((r = buf_put_u8(b, TAG_DOUBLE)) != 0)
			return r;
		return buf_put_double(b, v->u.d);
	case V_STRING:
		if ((r = check_string((const uint8_t *)v->u.s.p,
		    v->u.s.len)) != 0 || (r = buf_put_u8(b, TAG_STRING)) != 0)
			return r;
		return buf_put_string(b, v->u.s.p, v->u.s.len);
	case V_ARRAY:
		if (depth + 1 > BNC_VALUE_DEPTH_MAX)
			return -BNC_ERR_TOO_DEEP;
		if ((r = buf_put_u8(b, TAG_ARRAY)) != 0 ||
		    (r = buf_put_u32(b, (uint32_t)v->u.a.n)) != 0)
			return r;
		for (i = 0; i < v->u.a.n; i++)
			if ((r = encode(b, v->u.a.v[i], depth + 1, st)) != 0)
				return r;
		return 0;
	case V_OBJECT:
		if (depth + 1 > BNC_VALUE_DEPTH_MAX)
			return -BNC_ERR_TOO_DEEP;
		if ((r = buf_put_u8(b, TAG_OBJECT)) != 0 ||
		    (r = buf_put_u32(b, (uint32_t)v->u.o.n)) != 0)
			return r;
		if (st->canonical && v->u.o.n > 1) {
			sorted = xreallocarray(NULL, v->u.o.n, sizeof(*sorted));
			for (i = 0; i < v->u.o.n; i++)
				sorted[i] = &v->u.o.m[i];
			qsort(sorted, v->u.o.n, sizeof(*sorted), member_cmp);
		}
		for (i = 0; i < v->u.o.n; i++) {
			m = sorted != NULL ? sorted[i] : &v->u.o.m[i];
			if ((r = check_string((const uint8_t *)m->key,
			    m->klen)) != 0 ||
			    (r = buf_put_string(b, m->key, m->klen)) != 0 ||
			    (r = encode(b, m->val, depth + 1, st)) != 0)
				break;
		}
		free(sorted);
		return r;
	}
	return -BNC_ERR_INTERNAL;
}

int
value_encode(struct buf *b, const struct value *v)
{
	struct enc_state st = { 0, 0 };

	return encode(b, v, 0, &st);
}

int
value_encode_canonical(struct buf *b, const struct value *v)
{
	struct enc_state st = { 0, 1 };

	return encode(b, v, 0, &st);
}

/* Decoder */

struct dec_state {
	size_t	nodes;
	size_t	maxbytes;
};

static int
check_string(const uint8_t *p, size_t n)
{
	if (memchr(p, '\0', n) != NULL)
		return -BNC_ERR_NUL;
	if (!utf8_valid(p, n))
		return -BNC_ERR_BAD_UTF8;
	return 0;
}

/* Detects a duplicate key; sorts a copy of the pointers for big objects. */
static int
check_unique(const struct value *o)
{
	const struct member **sorted;
	size_t i, j, n = o->u.o.n;
	int r = 0;

	if (n < 16) {
		for (i = 1; i < n; i++)
			for (j = 0; j < i; j++)
				if (member_cmp(&(const struct member *){
				    &o->u.o.m[i] }, &(const struct member *){
				    &o->u.o.m[j] }) == 0)
					return -BNC_ERR_DUP_KEY;
		return 0;
	}
	sorted = xreallocarray(NULL, n, sizeof(*sorted));
	for (i = 0; i < n; i++)
		sorted[i] = &o->u.o.m[i];
	qsort(sorted, n, sizeof(*sorted), member_cmp);
	for (i = 1; i < n; i++)
		if (member_cmp(&sorted[i - 1], &sorted[i]) == 0) {
			r = -BNC_ERR_DUP_KEY;
			break;
		}
	free(sorted);
	return r;
}

static int
decode(struct buf *b, struct value **vp, int depth, struct dec_state *st)
{
	struct value *v = NULL, *child = NULL;
	const uint8_t *p;
	uint32_t count, i;
	uint8_t tag;
	size_t n;
	char *key;
	int r;

	*vp = NULL;
	if (++st->nodes > BNC_VALUE_NODES_MAX)
		return -BNC_ERR_TOO_LARGE;
	if ((r = buf_get_u8(b, &tag)) != 0)
		return r;
	switch (tag) {
	case TAG_NULL:
		v = value_null();
		break;
	case TAG_FALSE:
	case TAG_TRUE:
		v = value_bool(tag == TAG_TRUE);
		break;
	case TAG_INT:
		v = value_new(V_INT);
		if ((r = buf_get_i64(b, &v->u.i)) != 0)
			goto out;
		if (v->u.i > VALUE_INT_EXACT || v->u.i < -VALUE_INT_EXACT) {
			r = -BNC_ERR_BAD_FORMAT;
			goto out;
		}
		break;
	case TAG_DOUBLE:
		v = value_new(V_DOUBLE);
		if ((r = buf_get_double(b, &v->u.d)) != 0)
			goto out;
		if (!isfinite(v->u.d)) {
			r = -BNC_ERR_BAD_FORMAT;
			goto out;
		}
		break;
	case TAG_STRING:
		if ((r = buf_get_string_direct(b, &p, &n, st->maxbytes)) != 0)
			return r;
		if ((r = check_string(p, n)) != 0)
			return r;
		v = value_stringn((const char *)p, n);
		break;
	case TAG_ARRAY:
		if (depth + 1 > BNC_VALUE_DEPTH_MAX)
			return -BNC_ERR_TOO_DEEP;
		if ((r = buf_get_u32(b, &count)) != 0)
			return r;
		/* Each element takes at least one byte: reject lies early. */
		if (count > buf_len(b))
			return -BNC_ERR_TRUNCATED;
		v = value_array();
		for (i = 0; i < count; i++) {
			if ((r = decode(b, &child, depth + 1, st)) != 0)
				goto out;
			value_array_append(v, child);
		}
		break;
	case TAG_OBJECT:
		if (depth + 1 > BNC_VALUE_DEPTH_MAX)
			return -BNC_ERR_TOO_DEEP;
		if ((r = buf_get_u32(b, &count)) != 0)
			return r;
		if (count > buf_len(b) / 5)
			return -BNC_ERR_TRUNCATED;
		v = value_object();
		for (i = 0; i < count; i++) {
			if ((r = buf_get_string_direct(b, &p, &n,
			    st->maxbytes)) != 0)
				goto out;
			if ((r = check_string(p, n)) != 0)
				goto out;
			if ((r = decode(b, &child, depth + 1, st)) != 0)
				goto out;
			key = xmalloc(n + 1);
			memcpy(key, p, n);
			key[n] = '\0';
			object_append(v, key, n, child);
		}
		if ((r = check_unique(v)) != 0)
			goto out;
		break;
	default:
		return -BNC_ERR_BAD_FORMAT;
	}
	*vp = v;
	v = NULL;
	r = 0;
 out:
	value_free(v);
	return r;
}

int
value_decode(struct buf *b, struct value **vp, size_t maxbytes)
{
	struct dec_state st = { 0, maxbytes };
	size_t off = b->off;
	int r;

	if ((r = decode(b, vp, 0, &st)) != 0)
		b->off = off;
	return r;
}
