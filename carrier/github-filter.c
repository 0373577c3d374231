/*
 * github-filter.c - GitHub's answers as the typed fields of work.h.
 *
 * GitHub's errors carry no code of their own (basic-error: message,
 * documentation_url, status), so the code is derived from the status,
 * from a table, and a 403 that says it is a rate limit is told apart
 * from a permission refusal.  This file must never pass on a raw body.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "answer.h"
#include "bounds.h"
#include "buf.h"
#include "field.h"
#include "filter.h"
#include "msg.h"
#include "value.h"

/* Integers a double holds exactly: a comment id is one of them. */
#define GITHUB_ID_MAX	9007199254740992.0	/* 2^53 */

static const struct {
	long		 status;
	const char	*code;
} github_codes[] = {
	{ 301, "moved" },	/* a transferred issue; never followed */
	{ 400, "bad_request" },
	{ 401, "bad_credentials" },
	{ 403, "forbidden" },
	{ 404, "not_found" },
	{ 409, "conflict" },
	{ 410, "gone" },
	{ 422, "validation_failed" },
	{ 429, "rate_limited" },
	{ 500, "server_error" },
	{ 502, "bad_gateway" },
	{ 503, "unavailable" },
};

int
github_filter_comment(const struct http_resp *resp,
    const struct carrier_args *args, struct value **out)
{
	const cJSON *id;
	cJSON *j;
	int r = -1;

	(void)args;
	*out = NULL;
	if ((j = field_json(resp)) == NULL || !cJSON_IsObject(j))
		goto out;
	id = cJSON_GetObjectItemCaseSensitive(j, "id");
	if (!cJSON_IsNumber(id) || !(id->valuedouble >= 1 &&
	    id->valuedouble <= GITHUB_ID_MAX) ||
	    (double)(int64_t)id->valuedouble != id->valuedouble)
		goto out;
	*out = value_object();
	value_object_put(*out, "id", value_int((int64_t)id->valuedouble));
	value_object_put(*out, "html_url", field_value_or_null(j, "html_url",
	    BNC_CARRIER_URL_MAX, FIELD_LINE));
	r = 0;
 out:
	cJSON_Delete(j);
	return r;
}

void
github_filter_error(const struct http_resp *resp,
    struct msg_carrier_result *res)
{
	const cJSON *first;
	const char *code = NULL, *msg = NULL, *detail = NULL;
	char line[BNC_CARRIER_MESSAGE_MAX + 1];
	cJSON *j;
	size_t i;

	for (i = 0; i < sizeof(github_codes) / sizeof(github_codes[0]); i++)
		if (github_codes[i].status == resp->status)
			code = github_codes[i].code;
	if (code == NULL && resp->status >= 500)
		code = "server_error";
	j = field_json(resp);
	msg = field_str(j, "message");
	/* a secondary or primary rate limit, not a missing permission */
	if (resp->status == 403 && msg != NULL &&
	    strstr(msg, "rate limit") != NULL)
		code = "rate_limited";
	if (code != NULL)
		answer_code(res, code, strlen(code), resp->status);
	first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j,
	    "errors"), 0);
	if ((detail = field_str(first, "message")) == NULL)
		detail = field_str(first, "code");
	if (msg != NULL) {
		snprintf(line, sizeof(line), "%s%s%s", msg,
		    detail != NULL ? ": " : "", detail != NULL ? detail : "");
		answer_message(res, line, strlen(line));
	}
	cJSON_Delete(j);
}
