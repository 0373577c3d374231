/*
 * answer.c - a vendor's answer, or a carrier's refusal, as the outcome
 * the monitor reads (DESIGN 8; work.h enum carrier_status).
 *
 * The vendor's status decides the kind of outcome; the row's filter
 * turns a success into typed fields, the service's error parser turns
 * a failure into a short code and message.  Raw bodies and headers never
 * leave the carrier, and nothing here retries: a 429 is reported with
 * its Retry-After, and the monitor, which owns the sockets, decides.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "bounds.h"
#include "buf.h"
#include "field.h"
#include "msg.h"
#include "value.h"
#include "work.h"
#include "xmalloc.h"

/*
 * The statuses that mean "not now, try later": 429, and Notion's 529
 * service_overload, which its documentation says to retry as a 429.
 * Neither was acted on, so the monitor may send the call again.
 */
static const long rate_statuses[] = { 429, 529 };

static int
is_rate(long status)
{
	size_t i;

	for (i = 0; i < sizeof(rate_statuses) / sizeof(rate_statuses[0]); i++)
		if (rate_statuses[i] == status)
			return 1;
	return 0;
}

static void
answer_reset(struct msg_carrier_result *res, int status)
{
	msg_carrier_result_free(res);
	memset(res, 0, sizeof(*res));
	res->status = (uint8_t)status;
}

void
answer_refused(struct msg_carrier_result *res, const char *code,
    const char *fmt, ...)
{
	char msg[BNC_CARRIER_MESSAGE_MAX + 1];
	va_list ap;

	answer_reset(res, CARRIER_REFUSED);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	res->code = xstrdup(code);
	answer_message(res, msg, strlen(msg));
}

void
answer_ok(struct msg_carrier_result *res, struct value *data)
{
	answer_reset(res, CARRIER_OK);
	res->data = data;
	res->code = xstrdup("");
	res->message = xstrdup("");
}

void
answer_code(struct msg_carrier_result *res, const char *s, size_t len,
    long status)
{
	char code[BNC_CARRIER_CODE_MAX + 1];
	size_t i, o = 0;
	char c;

	for (i = 0; i < len && o < BNC_CARRIER_CODE_MAX; i++) {
		c = s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-')
			code[o++] = c;
	}
	code[o] = '\0';
	if (o == 0)
		snprintf(code, sizeof(code), "http_%ld", status);
	free(res->code);
	res->code = xstrdup(code);
}

void
answer_message(struct msg_carrier_result *res, const char *s, size_t len)
{
	free(res->message);
	res->message = field_clean(s, len, BNC_CARRIER_MESSAGE_MAX,
	    FIELD_LINE, NULL);
}

static void
answer_net(const struct http_resp *resp, struct msg_carrier_result *res)
{
	answer_reset(res, CARRIER_NET);
	res->sent = resp->sent ? 1 : 0;
	res->code = xstrdup("network");
	answer_message(res, resp->errbuf, strlen(resp->errbuf));
}

void
answer_http(const struct carrier_service *svc,
    const struct carrier_endpoint *ep, const struct carrier_args *args,
    const struct http_resp *resp, struct msg_carrier_result *res)
{
	struct value *data = NULL;
	char msg[BNC_CARRIER_MESSAGE_MAX + 1];

	if (resp->status == 0) {
		answer_net(resp, res);
		return;
	}
	if (resp->status >= 200 && resp->status <= 299) {
		if (resp->over_cap) {
			answer_reset(res, CARRIER_BAD_RESPONSE);
			snprintf(msg, sizeof(msg), "the answer is over %zu "
			    "bytes", ep->cap);
		} else if (ep->filter(resp, args, &data) == 0) {
			answer_ok(res, data);
			res->sent = 1;
			res->http_status = (uint16_t)resp->status;
			return;
		} else {
			value_free(data);
			answer_reset(res, CARRIER_BAD_RESPONSE);
			snprintf(msg, sizeof(msg), "not the answer of %s %s",
			    ep->method, ep->path);
		}
		res->code = xstrdup("bad-response");
		answer_message(res, msg, strlen(msg));
	} else {
		answer_reset(res, is_rate(resp->status) ? CARRIER_RATE :
		    CARRIER_API);
		res->code = xstrdup("");
		res->message = xstrdup("");
		svc->error(resp, res);
		if (res->code[0] == '\0')
			answer_code(res, "", 0, resp->status);
		if (res->status == CARRIER_RATE)
			res->retry_after = resp->retry_after < 0 ||
			    resp->retry_after > BNC_CARRIER_RETRY_AFTER_MAX ?
			    BNC_CARRIER_RETRY_AFTER_MAX :
			    (uint32_t)resp->retry_after;
	}
	res->sent = 1;
	res->http_status = resp->status > 0 && resp->status <= UINT16_MAX ?
	    (uint16_t)resp->status : 0;
}
