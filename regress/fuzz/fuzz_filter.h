/*
 * fuzz_filter.h - what the carriers' response-filter harnesses share
 * (fuzz_filter_notion.c, fuzz_filter_github.c, fuzz_filter_slack.c).
 *
 * An input is three bytes of choices and a vendor's body: byte 0 picks
 * the filter (an endpoint's row), byte 1 the HTTP status (0: no answer,
 * the body is then libcurl's error text), byte 2 flags (bit 0: the body
 * was cut at the row's cap; bit 1: a status argument to filter on; the
 * high bits: a Retry-After).  Whatever the body, the outcome must be
 * one the monitor accepts: msg_carrier_result_put() takes it (every
 * string valid UTF-8 and within its cap, the data a well-formed tree,
 * data exactly when CARRIER_OK), it decodes to the same, and its kind
 * follows from the status alone.  Test code only.
 */
#ifndef BNC_FUZZ_FILTER_H
#define BNC_FUZZ_FILTER_H

#include "fuzz.h"

#include "answer.h"
#include "buf.h"
#include "carrier.h"
#include "filter.h"
#include "msg.h"
#include "value.h"
#include "work.h"

struct fuzz_filter {
	const char	*what;
	int		(*filter)(const struct http_resp *,
			    const struct carrier_args *, struct value **);
	size_t		 cap;
};

static const long fuzz_statuses[] = {
	0, 200, 201, 204, 301, 400, 401, 403, 404, 409, 410, 422, 429, 500,
	503, 529,
};

/* Runs one input through answer_http() with filt[byte 0]'s row. */
static void FUZZ_UNUSED
fuzz_filter_run(const struct fuzz_filter *filt, size_t nfilt,
    void (*error)(const struct http_resp *, struct msg_carrier_result *),
    const uint8_t *data, size_t size, struct msg_carrier_result *res)
{
	static char status_val[] = "Done";
	struct carrier_service svc;
	struct carrier_endpoint ep;
	struct carrier_args args;
	struct http_resp resp;
	struct msg_carrier_result back;
	struct buf *b;
	size_t n;
	uint8_t flags;

	if (size < 3)
		return;
	memset(&svc, 0, sizeof(svc));
	memset(&ep, 0, sizeof(ep));
	memset(&args, 0, sizeof(args));
	memset(&resp, 0, sizeof(resp));
	memset(res, 0, sizeof(*res));
	svc.name = "fuzz";
	svc.error = error;
	ep.method = "POST";
	ep.path = "/fuzz/{x}";
	ep.filter = filt[data[0] % nfilt].filter;
	ep.cap = filt[data[0] % nfilt].cap;
	resp.status = fuzz_statuses[data[1] % (sizeof(fuzz_statuses) /
	    sizeof(fuzz_statuses[0]))];
	flags = data[2];
	resp.over_cap = flags & 1;
	resp.retry_after = (long)(flags >> 2) - 1;
	if (flags & 2) {
		args.n = 1;
		args.a[0].name = "status";
		args.a[0].kind = ARG_STATUS;
		args.a[0].val = status_val;
		args.a[0].len = strlen(status_val);
	}
	data += 3;
	size -= 3;
	resp.body = buf_from(data, size);
	if (resp.status == 0) {
		n = size < sizeof(resp.errbuf) - 1 ? size :
		    sizeof(resp.errbuf) - 1;
		memcpy(resp.errbuf, data, n);
		resp.errbuf[strnlen(resp.errbuf, n)] = '\0';
		resp.sent = flags & 1;
	}

	answer_http(&svc, &ep, &args, &resp, res);

	/* the kind of outcome follows from the status alone */
	if (resp.status == 0)
		FUZZ_CHECK(res->status == CARRIER_NET);
	else if (resp.status == 429 || resp.status == 529)
		FUZZ_CHECK(res->status == CARRIER_RATE &&
		    res->retry_after <= BNC_CARRIER_RETRY_AFTER_MAX);
	else if (resp.status >= 200 && resp.status <= 299)
		FUZZ_CHECK(res->status == CARRIER_OK ||
		    res->status == CARRIER_BAD_RESPONSE);
	else
		FUZZ_CHECK(res->status == CARRIER_API);
	FUZZ_CHECK((res->status == CARRIER_OK) == (res->data != NULL));
	FUZZ_CHECK(res->status != CARRIER_OK || !resp.over_cap);
	FUZZ_CHECK(res->code != NULL && res->message != NULL);
	FUZZ_CHECK(strlen(res->message) <= BNC_CARRIER_MESSAGE_MAX);

	/* the monitor takes it, and reads back what was sent */
	b = buf_new();
	FUZZ_CHECK(msg_carrier_result_put(b, res) == 0);
	FUZZ_CHECK(buf_len(b) <= msg_type_cap(MSG_CARRIER_RESULT, 0));
	FUZZ_CHECK(msg_carrier_result_get(b, &back, BNC_MSG_MAX_DEFAULT) == 0);
	FUZZ_CHECK(back.status == res->status && back.sent == res->sent &&
	    back.http_status == res->http_status &&
	    back.retry_after == res->retry_after &&
	    strcmp(back.code, res->code) == 0 &&
	    strcmp(back.message, res->message) == 0 &&
	    (res->data == NULL ? back.data == NULL :
	    value_equal(back.data, res->data)));
	msg_carrier_result_free(&back);
	buf_free(b);
	buf_free(resp.body);
}

/* A string member of an object, or NULL. */
static FUZZ_UNUSED const char *
fuzz_str(const struct value *o, const char *key)
{
	const struct value *v = value_get(o, key);

	return value_is(v, V_STRING) ? v->u.s.p : NULL;
}

/* A member that is a string or null. */
static int FUZZ_UNUSED
fuzz_str_or_null(const struct value *o, const char *key)
{
	const struct value *v = value_get(o, key);

	return value_is(v, V_STRING) || value_is(v, V_NULL);
}

#endif /* BNC_FUZZ_FILTER_H */
