/*
 * fuzz_jsonrpc.c - libFuzzer harness for worker/parse.c, the one place a
 * client's JSON-RPC line becomes a typed message.
 *
 * The input is one line (the framer strips the '\n'; this harness feeds
 * the bytes as they are, which also covers a line with a raw newline).
 * What parse_line accepts must obey every cap of the IPC codec (it
 * encodes and decodes to an equal message), and rpc_render must turn it
 * into one line that parses back to an equal message.  What it refuses
 * must make a valid MSG_RPC_BAD.  idscan.c, which reads the id of a line
 * too long to parse, must say the same fed whole or in two pieces, and
 * an id it reports for a line parse_line accepts must be that line's.
 * It must never test anything but the public APIs of parse.h, idscan.h,
 * value-json.h and msg.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "bounds.h"
#include "fuzz.h"
#include "idscan.h"
#include "msg.h"
#include "parse.h"
#include "utf8.h"
#include "value.h"
#include "value-json.h"

/* Through the IPC codec: must encode, decode equal, and re-encode same. */
static void
codec_rpc(const struct rpc *m)
{
	struct buf *b, *b2;
	struct rpc back;

	b = buf_new();
	b2 = buf_new();
	FUZZ_CHECK(msg_rpc_put(b, m) == 0);
	FUZZ_CHECK(msg_rpc_get(b, &back, BNC_MSG_MAX_DEFAULT) == 0);
	FUZZ_CHECK(fuzz_rpc_equal(m, &back));
	FUZZ_CHECK(msg_rpc_put(b2, &back) == 0);
	FUZZ_CHECK(buf_len(b2) == b->len);
	FUZZ_CHECK(memcmp(buf_ptr(b2), b->d, b->len) == 0);
	msg_rpc_free(&back);
	buf_free(b);
	buf_free(b2);
}

static void
codec_bad(const struct msg_rpc_bad *m)
{
	struct msg_rpc_bad back;
	struct buf *b;

	b = buf_new();
	FUZZ_CHECK(m->message != NULL && utf8_valid(m->message,
	    strlen(m->message)));
	FUZZ_CHECK(m->id.type != RPC_ID_NONE);
	FUZZ_CHECK(msg_rpc_bad_put(b, m) == 0);
	FUZZ_CHECK(msg_rpc_bad_get(b, &back) == 0);
	FUZZ_CHECK(back.code == m->code && back.was_response ==
	    m->was_response && rpc_id_equal(&back.id, &m->id) &&
	    strcmp(back.message, m->message) == 0);
	msg_rpc_bad_free(&back);
	buf_free(b);
}

/* Render, check it is one line, parse it again: the same message. */
static void
rerender(const struct rpc *m)
{
	struct msg_rpc_bad bad;
	struct rpc again;
	struct buf *b;
	const char *line;
	size_t len;

	b = buf_new();
	FUZZ_CHECK(rpc_render(b, m) == 0);
	line = (const char *)buf_ptr(b);
	len = buf_len(b);
	FUZZ_CHECK(len > 0 && line[len - 1] == '\n');
	FUZZ_CHECK(memchr(line, '\n', len - 1) == NULL);
	FUZZ_CHECK(utf8_valid(line, len));
	FUZZ_CHECK(parse_line(line, len - 1, &again, &bad) == PARSE_RPC);
	FUZZ_CHECK(fuzz_rpc_equal(m, &again));
	msg_rpc_free(&again);
	msg_rpc_bad_free(&bad);
	buf_free(b);
}

/* idscan on the same bytes: its answer whole and in two pieces. */
static void
scan_check(const uint8_t *data, size_t size, int status,
    const struct rpc *rpc)
{
	struct idscan x, y;
	struct rpc_id a, b;
	size_t cut = size > 0 ? data[0] % (size + 1) : 0;
	int ra, rb, wa, wb;

	idscan_init(&x);
	idscan_feed(&x, data, size);
	idscan_init(&y);
	idscan_feed(&y, data, cut);
	idscan_feed(&y, data + cut, size - cut);
	ra = idscan_result(&x, &a, &wa);
	rb = idscan_result(&y, &b, &wb);
	FUZZ_CHECK(ra == rb && wa == wb && rpc_id_equal(&a, &b));
	if (status == PARSE_RPC) {
		if (ra)
			FUZZ_CHECK(rpc_id_equal(&a, &rpc->id));
		if (rpc->kind == RPC_RESULT || rpc->kind == RPC_ERROR)
			FUZZ_CHECK(wa);
	}
	rpc_id_clear(&a);
	rpc_id_clear(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct msg_rpc_bad bad;
	struct rpc rpc;
	int status;

	if (!ready) {
		parse_init();
		ready = 1;
	}
	status = parse_line((const char *)data, size, &rpc, &bad);
	scan_check(data, size, status, &rpc);
	switch (status) {
	case PARSE_SKIP:
		FUZZ_CHECK(rpc.kind == 0 && bad.message == NULL);
		break;
	case PARSE_RPC:
		FUZZ_CHECK(bad.message == NULL);
		FUZZ_CHECK(fuzz_rpc_parser_shaped(&rpc));
		codec_rpc(&rpc);
		rerender(&rpc);
		break;
	case PARSE_BAD:
		FUZZ_CHECK(rpc.kind == 0);
		codec_bad(&bad);
		break;
	default:
		FUZZ_CHECK(!"parse_line returned no parse_status");
	}
	msg_rpc_free(&rpc);
	msg_rpc_bad_free(&bad);
	return 0;
}
