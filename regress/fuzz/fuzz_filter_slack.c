/*
 * fuzz_filter_slack.c - an incoming webhook's answer (carrier/
 * slack-filter.c) on any body, through answer_http() (fuzz_filter.h has
 * the input's layout).  Success is the body "ok" and nothing else; an
 * error's code is one of Slack's words or made from the status.
 */
#include "fuzz_filter.h"

static const struct fuzz_filter slack_filters[] = {
	{ "post", slack_filter_post, BNC_CARRIER_RESPONSE_TEXT },
};
#define NFILTERS (sizeof(slack_filters) / sizeof(slack_filters[0]))

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct msg_carrier_result res;
	size_t i;

	if (size < 3)
		return 0;
	fuzz_filter_run(slack_filters, NFILTERS, slack_filter_error, data,
	    size, &res);
	if (res.status == CARRIER_OK)
		FUZZ_CHECK(res.data->u.o.n == 1 &&
		    value_is(value_get(res.data, "ok"), V_BOOL));
	if (res.status == CARRIER_API || res.status == CARRIER_RATE)
		for (i = 0; res.code[i] != '\0'; i++)
			FUZZ_CHECK((res.code[i] >= 'a' && res.code[i] <= 'z') ||
			    (res.code[i] >= '0' && res.code[i] <= '9') ||
			    res.code[i] == '_');
	msg_carrier_result_free(&res);
	return 0;
}
