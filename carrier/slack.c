/*
 * slack.c - bouncer-carrier-slack: the incoming-webhook table.
 *
 *   bouncer-carrier-slack [-b LOOPBACK-BASE] [-d]
 *
 * One row: post {"text": ...} to the webhook of a channel the admin
 * configured.  The webhook URLs arrive on fd 4 (channel, tab, URL, one
 * a line); the monitor names a channel, never a URL, and a webhook's
 * path, which is the credential, is never logged or sent anywhere but
 * to Slack.  This file must never gain a row, nor send any field but
 * "text" (no channel, username or icon override).
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "args.h"
#include "body.h"
#include "carrier.h"
#include "filter.h"
#include "msg.h"
#include "work.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const slack_headers[] = {
	NULL
};

static int
body_post(const struct carrier_args *args, struct buf *out)
{
	const struct carrier_arg *text = args_get(args, "text");
	cJSON *o;

	if (text == NULL)
		return -1;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "text", text->val);
	return body_put(out, o);
}

/* The path is the channel's webhook path (args.c, path.c). */
static const struct carrier_endpoint slack_table[] = {
	{ CEP_SLACK_POST, "POST", "{channel}",
	    { { "channel", ARG_CHANNEL, 0 },
	      { "text", ARG_SLACK_TEXT, 0 } },
	    body_post, slack_filter_post, NULL,
	    BNC_CARRIER_RESPONSE_TEXT, 1 },
};

static const struct carrier_service slack_service = {
	"slack", NULL, WORK_SLACK_HOST, ROLE_CARRIER_SLACK, RL_SLACK,
	CRED_WEBHOOKS, slack_headers, slack_table, nitems(slack_table),
	slack_filter_error
};

int
main(int argc, char **argv)
{
	static const struct carrier_service *const svcs[] = {
		&slack_service,
	};

	return carrier_main(argc, argv, svcs, nitems(svcs));
}
