/*
 * fuzz_msg.c - libFuzzer harness for every codec trio of common/msg.h.
 *
 * The first byte picks the codec (hello, log, rpc, rpc-bad, empty, then
 * carrier-call, carrier-probe, carrier-result: new codecs go last, so a
 * seed keeps its codec), the rest is the payload as a child or the
 * monitor might send it.  What a
 * _get accepts must _put again to exactly the same bytes (every _get
 * consumes the whole payload) and _get again to an equal message; what
 * it refuses it must let _free clean up.  A decoded rpc must also render
 * as one JSON-RPC line, which the worker's parser reads back as the same
 * message wherever its number and params rules allow.  It must never
 * test anything but the public APIs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "bounds.h"
#include "err.h"
#include "fuzz.h"
#include "log.h"
#include "msg.h"
#include "parse.h"
#include "utf8.h"
#include "value.h"
#include "value-json.h"

enum fuzz_codec {
	FC_HELLO = 0,
	FC_LOG,
	FC_RPC,
	FC_RPC_BAD,
	FC_EMPTY,
	FC_CARRIER_CALL,
	FC_CARRIER_PROBE,
	FC_CARRIER_RESULT,
	FC_MAX
};

/* The re-encoded bytes must be the payload, byte for byte. */
static void
same_bytes(const struct buf *b, const uint8_t *p, size_t n)
{
	FUZZ_CHECK(buf_len(b) == n);
	FUZZ_CHECK(n == 0 || memcmp(buf_ptr(b), p, n) == 0);
}

static void
fz_hello(const uint8_t *p, size_t n)
{
	struct msg_hello m, m2;
	struct buf *in, *out;

	in = buf_from(p, n);
	out = buf_new();
	if (msg_hello_get(in, &m) != 0)
		goto out;
	FUZZ_CHECK(buf_len(in) == 0);
	FUZZ_CHECK(msg_hello_put(out, &m) == 0);
	same_bytes(out, p, n);
	FUZZ_CHECK(msg_hello_get(out, &m2) == 0);
	FUZZ_CHECK(memcmp(&m, &m2, sizeof(m)) == 0);
	msg_hello_free(&m2);
 out:
	msg_hello_free(&m);
	buf_free(in);
	buf_free(out);
}

static void
fz_log(const uint8_t *p, size_t n)
{
	struct msg_log m, m2 = { 0, NULL };
	struct buf *in, *out;

	in = buf_from(p, n);
	out = buf_new();
	if (msg_log_get(in, &m) != 0)
		goto out;
	FUZZ_CHECK(buf_len(in) == 0);
	FUZZ_CHECK(m.line != NULL && strlen(m.line) <= BNC_LOG_LINE_MAX);
	FUZZ_CHECK(msg_log_put(out, &m) == 0);
	same_bytes(out, p, n);
	FUZZ_CHECK(msg_log_get(out, &m2) == 0);
	FUZZ_CHECK(m.level == m2.level && strcmp(m.line, m2.line) == 0);
 out:
	msg_log_free(&m);
	msg_log_free(&m2);
	buf_free(in);
	buf_free(out);
}

/*
 * What the monitor does with a decoded message: renders it for the
 * client (strict: the bytes a worker rendered from its frame, which
 * decoded) or for an upstream.
 */
static void
render(const struct rpc *m)
{
	struct msg_rpc_bad bad;
	struct rpc_out o;
	struct rpc again;
	struct buf *b, *strict;
	const char *line;
	size_t len;
	int r, rs;

	b = buf_new();
	strict = buf_new();
	r = rpc_render(b, m);
	rpc_out_of(&o, m);
	rs = rpc_out_render_strict(strict, &o);
	FUZZ_CHECK(rs == r);
	FUZZ_CHECK(buf_len(strict) == buf_len(b) &&
	    memcmp(buf_ptr(strict), buf_ptr(b), buf_len(b)) == 0);
	buf_free(strict);
	if (r != 0) {
		/* only a tree too deep for the envelope is refused */
		FUZZ_CHECK(r == -BNC_ERR_TOO_DEEP);
		FUZZ_CHECK(buf_len(b) == 0);
		goto out;
	}
	line = (const char *)buf_ptr(b);
	len = buf_len(b);
	FUZZ_CHECK(len > 0 && line[len - 1] == '\n');
	FUZZ_CHECK(memchr(line, '\n', len - 1) == NULL);
	FUZZ_CHECK(utf8_valid(line, len));
	if (!fuzz_rpc_parser_shaped(m))
		goto out;
	FUZZ_CHECK(parse_line(line, len - 1, &again, &bad) == PARSE_RPC);
	FUZZ_CHECK(fuzz_rpc_equal(m, &again));
	msg_rpc_free(&again);
	msg_rpc_bad_free(&bad);
 out:
	buf_free(b);
}

static void
fz_rpc(const uint8_t *p, size_t n)
{
	struct rpc m, m2;
	struct buf *in, *out;

	memset(&m2, 0, sizeof(m2));
	in = buf_from(p, n);
	out = buf_new();
	if (msg_rpc_get(in, &m, BNC_MSG_MAX_DEFAULT) != 0)
		goto out;
	FUZZ_CHECK(buf_len(in) == 0);
	/* msg.h: a request has an id, a notification none, a response one */
	FUZZ_CHECK(m.kind != RPC_NOTIFICATION || m.id.type == RPC_ID_NONE);
	FUZZ_CHECK(m.kind != RPC_REQUEST || m.id.type == RPC_ID_INT ||
	    m.id.type == RPC_ID_STR);
	FUZZ_CHECK(m.id.type != RPC_ID_NONE || m.kind == RPC_NOTIFICATION);
	FUZZ_CHECK(msg_rpc_put(out, &m) == 0);
	same_bytes(out, p, n);
	FUZZ_CHECK(msg_rpc_get(out, &m2, BNC_MSG_MAX_DEFAULT) == 0);
	FUZZ_CHECK(fuzz_rpc_equal(&m, &m2));
	render(&m);
 out:
	msg_rpc_free(&m);
	msg_rpc_free(&m2);
	buf_free(in);
	buf_free(out);
}

static void
fz_rpc_bad(const uint8_t *p, size_t n)
{
	struct msg_rpc_bad m, m2;
	struct buf *in, *out;

	memset(&m2, 0, sizeof(m2));
	in = buf_from(p, n);
	out = buf_new();
	if (msg_rpc_bad_get(in, &m) != 0)
		goto out;
	FUZZ_CHECK(buf_len(in) == 0);
	FUZZ_CHECK(strlen(m.message) <= BNC_REASON_MAX);
	FUZZ_CHECK(msg_rpc_bad_put(out, &m) == 0);
	same_bytes(out, p, n);
	FUZZ_CHECK(msg_rpc_bad_get(out, &m2) == 0);
	FUZZ_CHECK(m.code == m2.code && m.was_response == m2.was_response &&
	    rpc_id_equal(&m.id, &m2.id) && strcmp(m.message, m2.message) == 0);
 out:
	msg_rpc_bad_free(&m);
	msg_rpc_bad_free(&m2);
	buf_free(in);
	buf_free(out);
}

static void
fz_empty(const uint8_t *p, size_t n)
{
	struct buf *in, *out;
	int r;

	in = buf_from(p, n);
	out = buf_new();
	r = msg_empty_get(in);
	FUZZ_CHECK((r == 0) == (n == 0));
	FUZZ_CHECK(msg_empty_put(out) == 0 && buf_len(out) == 0);
	buf_free(in);
	buf_free(out);
}

/* msg.h: an object of at most BNC_CARRIER_ARGS_MAX strings. */
static int
args_shaped(const struct value *v)
{
	const struct member *mb;
	size_t i;

	if (v == NULL || v->type != V_OBJECT ||
	    v->u.o.n > BNC_CARRIER_ARGS_MAX)
		return 0;
	for (i = 0; i < v->u.o.n; i++) {
		mb = &v->u.o.m[i];
		if (mb->klen > BNC_CARRIER_ARG_NAME_MAX ||
		    mb->val->type != V_STRING || mb->val->u.s.len >
		    (strcmp(mb->key, "text") == 0 ? BNC_CONSENT_TEXT_MAX :
		    BNC_CARRIER_ARG_MAX))
			return 0;
	}
	return 1;
}

static void
fz_carrier_call(const uint8_t *p, size_t n)
{
	struct msg_carrier_call m, m2;
	struct buf *in, *out;

	memset(&m2, 0, sizeof(m2));
	in = buf_from(p, n);
	out = buf_new();
	if (msg_carrier_call_get(in, &m) != 0)
		goto out;
	FUZZ_CHECK(buf_len(in) == 0);
	FUZZ_CHECK(m.endpoint != 0 && args_shaped(m.args));
	FUZZ_CHECK(msg_carrier_call_put(out, &m) == 0);
	same_bytes(out, p, n);
	FUZZ_CHECK(msg_carrier_call_get(out, &m2) == 0);
	FUZZ_CHECK(m.endpoint == m2.endpoint && value_equal(m.args, m2.args));
 out:
	msg_carrier_call_free(&m);
	msg_carrier_call_free(&m2);
	buf_free(in);
	buf_free(out);
}

static void
fz_carrier_probe(const uint8_t *p, size_t n)
{
	struct msg_carrier_probe m, m2 = { NULL, NULL };
	struct buf *in, *out;

	in = buf_from(p, n);
	out = buf_new();
	if (msg_carrier_probe_get(in, &m) != 0)
		goto out;
	FUZZ_CHECK(buf_len(in) == 0);
	FUZZ_CHECK(m.method != NULL && m.path != NULL);
	FUZZ_CHECK(strlen(m.method) <= BNC_CARRIER_METHOD_MAX &&
	    utf8_valid(m.method, strlen(m.method)));
	FUZZ_CHECK(strlen(m.path) <= BNC_CARRIER_PATH_MAX &&
	    utf8_valid(m.path, strlen(m.path)));
	FUZZ_CHECK(msg_carrier_probe_put(out, &m) == 0);
	same_bytes(out, p, n);
	FUZZ_CHECK(msg_carrier_probe_get(out, &m2) == 0);
	FUZZ_CHECK(strcmp(m.method, m2.method) == 0 &&
	    strcmp(m.path, m2.path) == 0);
 out:
	msg_carrier_probe_free(&m);
	msg_carrier_probe_free(&m2);
	buf_free(in);
	buf_free(out);
}

static void
fz_carrier_result(const uint8_t *p, size_t n)
{
	struct msg_carrier_result m, m2;
	struct buf *in, *out;

	memset(&m2, 0, sizeof(m2));
	in = buf_from(p, n);
	out = buf_new();
	if (msg_carrier_result_get(in, &m, BNC_MSG_MAX_DEFAULT) != 0)
		goto out;
	FUZZ_CHECK(buf_len(in) == 0);
	/* msg.h: the typed fields with CARRIER_OK, and only with it */
	FUZZ_CHECK(m.status <= BNC_CARRIER_STATUS_MAX && m.sent <= 1 &&
	    m.retry_after <= BNC_CARRIER_RETRY_AFTER_MAX);
	FUZZ_CHECK((m.status == 0) == (m.data != NULL));
	FUZZ_CHECK(m.code != NULL && strlen(m.code) <= BNC_CARRIER_CODE_MAX &&
	    utf8_valid(m.code, strlen(m.code)));
	FUZZ_CHECK(m.message != NULL && strlen(m.message) <= BNC_REASON_MAX &&
	    utf8_valid(m.message, strlen(m.message)));
	FUZZ_CHECK(msg_carrier_result_put(out, &m) == 0);
	same_bytes(out, p, n);
	FUZZ_CHECK(msg_carrier_result_get(out, &m2, BNC_MSG_MAX_DEFAULT) == 0);
	FUZZ_CHECK(m.status == m2.status && m.sent == m2.sent &&
	    m.http_status == m2.http_status &&
	    m.retry_after == m2.retry_after &&
	    strcmp(m.code, m2.code) == 0 &&
	    strcmp(m.message, m2.message) == 0 &&
	    value_equal(m.data, m2.data));
 out:
	msg_carrier_result_free(&m);
	msg_carrier_result_free(&m2);
	buf_free(in);
	buf_free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;

	if (!ready) {
		parse_init();
		ready = 1;
	}
	if (size < 1)
		return 0;
	switch (data[0] % FC_MAX) {
	case FC_HELLO:
		fz_hello(data + 1, size - 1);
		break;
	case FC_LOG:
		fz_log(data + 1, size - 1);
		break;
	case FC_RPC:
		fz_rpc(data + 1, size - 1);
		break;
	case FC_RPC_BAD:
		fz_rpc_bad(data + 1, size - 1);
		break;
	case FC_EMPTY:
		fz_empty(data + 1, size - 1);
		break;
	case FC_CARRIER_CALL:
		fz_carrier_call(data + 1, size - 1);
		break;
	case FC_CARRIER_PROBE:
		fz_carrier_probe(data + 1, size - 1);
		break;
	case FC_CARRIER_RESULT:
		fz_carrier_result(data + 1, size - 1);
		break;
	}
	return 0;
}
