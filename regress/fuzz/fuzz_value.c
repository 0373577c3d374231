/*
 * fuzz_value.c - libFuzzer harness for the value-tree wire codec
 * (common/value.c), the form every JSON value crosses the privilege
 * line in.
 *
 * The input is a payload as a peer might send it.  A tree value_decode
 * accepts must re-encode to exactly the bytes it consumed and decode
 * again to an equal tree; it must respect the depth and node caps, and
 * a tiny maxbytes must refuse every longer string.  The tree must also
 * render as JSON (common/value-json.c) that the worker's parser reads
 * back as the same tree, wherever the parser's number rules allow.  It
 * must never test anything but the public APIs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "bounds.h"
#include "fuzz.h"
#include "msg.h"
#include "parse.h"
#include "value.h"
#include "value-json.h"

/* Longest string or key a tree decoded with maxbytes may hold. */
static size_t
longest(const struct value *v)
{
	size_t i, n = 0, k;

	switch (v->type) {
	case V_STRING:
		return v->u.s.len;
	case V_ARRAY:
		for (i = 0; i < v->u.a.n; i++)
			if ((k = longest(v->u.a.v[i])) > n)
				n = k;
		return n;
	case V_OBJECT:
		for (i = 0; i < v->u.o.n; i++) {
			if (v->u.o.m[i].klen > n)
				n = v->u.o.m[i].klen;
			if ((k = longest(v->u.o.m[i].val)) > n)
				n = k;
		}
		return n;
	default:
		return 0;
	}
}

/* As a result line through the worker's parser: the same tree. */
static void
through_json(const struct value *v)
{
	static const char pre[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":";
	struct msg_rpc_bad bad;
	struct rpc m;
	struct buf *b;

	b = buf_new();
	FUZZ_CHECK(buf_put(b, pre, sizeof(pre) - 1) == 0);
	FUZZ_CHECK(value_render(b, v) == 0);
	FUZZ_CHECK(buf_put_u8(b, '}') == 0);
	FUZZ_CHECK(memchr(buf_ptr(b), '\n', buf_len(b)) == NULL);
	FUZZ_CHECK(parse_line((const char *)buf_ptr(b), buf_len(b), &m,
	    &bad) == PARSE_RPC);
	FUZZ_CHECK(m.kind == RPC_RESULT && value_equal(v, m.result));
	msg_rpc_free(&m);
	msg_rpc_bad_free(&bad);
	buf_free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct value *v = NULL, *w = NULL, *dup = NULL, *small = NULL;
	struct buf *in, *out, *canon;
	size_t used;
	int r;

	if (!ready) {
		parse_init();
		ready = 1;
	}
	in = buf_from(data, size);
	out = buf_new();
	canon = buf_new();
	if ((r = value_decode(in, &v, BNC_MSG_MAX_DEFAULT)) != 0) {
		/* a failed decode consumes nothing and returns nothing */
		FUZZ_CHECK(r < 0 && v == NULL && buf_len(in) == size);
		goto small;
	}
	used = size - buf_len(in);
	FUZZ_CHECK(v != NULL && used > 0);
	FUZZ_CHECK(value_depth(v) <= BNC_VALUE_DEPTH_MAX);
	FUZZ_CHECK(value_count_nodes(v) <= BNC_VALUE_NODES_MAX);

	FUZZ_CHECK(value_encode(out, v) == 0);
	FUZZ_CHECK(buf_len(out) == used);
	FUZZ_CHECK(memcmp(buf_ptr(out), data, used) == 0);
	FUZZ_CHECK(value_decode(out, &w, BNC_MSG_MAX_DEFAULT) == 0);
	FUZZ_CHECK(buf_len(out) == 0);
	FUZZ_CHECK(value_equal(v, w) && value_equal(w, v));

	dup = value_dup(v);
	FUZZ_CHECK(value_equal(v, dup));
	FUZZ_CHECK(value_encode_canonical(canon, v) == 0);
	FUZZ_CHECK(buf_len(canon) == used);

	/* the root container is 1 deep, like the result in its line */
	if (fuzz_parser_shaped(v, 1))
		through_json(v);
 small:
	/* A tiny string cap refuses longer strings and keeps the rest. */
	buf_free(in);
	in = buf_from(data, size);
	if (value_decode(in, &small, 8) == 0) {
		FUZZ_CHECK(longest(small) <= 8);
		FUZZ_CHECK(value_equal(v, small));
	} else
		FUZZ_CHECK(v == NULL || longest(v) > 8);
	value_free(v);
	value_free(w);
	value_free(dup);
	value_free(small);
	buf_free(in);
	buf_free(out);
	buf_free(canon);
	return 0;
}
