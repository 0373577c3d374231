/*
 * slack-filter.c - what an incoming webhook answers: "ok", or a
 * plain-text error string such as invalid_payload, no_text or
 * no_service (the only code Slack gives).  Anything else in the body is
 * shown, cleaned and cut, as the message, never passed on whole.
 */
#include <stdio.h>
#include <string.h>

#include "answer.h"
#include "bounds.h"
#include "field.h"
#include "filter.h"
#include "msg.h"
#include "value.h"

/* The body without trailing white space. */
static size_t
body_len(const struct http_resp *resp, const char **p)
{
	size_t n;

	*p = field_body(resp, &n);
	while (n > 0 && ((*p)[n - 1] == '\n' || (*p)[n - 1] == '\r' ||
	    (*p)[n - 1] == ' ' || (*p)[n - 1] == '\t'))
		n--;
	return n;
}

int
slack_filter_post(const struct http_resp *resp,
    const struct carrier_args *args, struct value **out)
{
	const char *p;
	size_t n = body_len(resp, &p);

	(void)args;
	*out = NULL;
	if (n != 2 || memcmp(p, "ok", 2) != 0)
		return -1;
	*out = value_object();
	value_object_put(*out, "ok", value_bool(1));
	return 0;
}

/* Is it one of Slack's error words: [a-z0-9_], not too long? */
static int
slack_word(const char *p, size_t n)
{
	size_t i;

	if (n == 0 || n > BNC_CARRIER_CODE_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') ||
		    (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
			return 0;
	return 1;
}

void
slack_filter_error(const struct http_resp *resp,
    struct msg_carrier_result *res)
{
	const char *p;
	size_t n = body_len(resp, &p);

	if (slack_word(p, n))
		answer_code(res, p, n, resp->status);
	else if (n > 0)
		answer_message(res, p, n);
}
