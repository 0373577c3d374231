/*
 * fuzz_filter_github.c - GitHub's comment filter and error parser
 * (carrier/github-filter.c) on any body, through answer_http()
 * (fuzz_filter.h has the input's layout).  A comment's answer is
 * {id: a positive integer, html_url: string or null}.
 */
#include "fuzz_filter.h"

static const struct fuzz_filter github_filters[] = {
	{ "comment", github_filter_comment, BNC_CARRIER_RESPONSE_ONE },
};
#define NFILTERS (sizeof(github_filters) / sizeof(github_filters[0]))

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct msg_carrier_result res;
	const struct value *id;

	if (size < 3)
		return 0;
	fuzz_filter_run(github_filters, NFILTERS, github_filter_error, data,
	    size, &res);
	if (res.status == CARRIER_OK) {
		id = value_get(res.data, "id");
		FUZZ_CHECK(res.data->u.o.n == 2 && value_is(id, V_INT) &&
		    id->u.i >= 1 && fuzz_str_or_null(res.data, "html_url"));
	}
	msg_carrier_result_free(&res);
	return 0;
}
