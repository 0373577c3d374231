/*
 * github.c - bouncer-carrier-github: GitHub's endpoint table.
 *
 *   bouncer-carrier-github [-b LOOPBACK-BASE] [-d]
 *
 * One row: create an issue comment.  GitHub has no comment-only
 * credential ("Issues: write" also edits assignees, labels, state and
 * other comments), so this table and reqline.c are the only controls on
 * what the token does (DESIGN 8).  This file must never gain another
 * row; listing or reading issues belongs in a carrier of its own, with
 * a read-only token.
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

static const char *const github_headers[] = {
	"Accept: application/vnd.github+json",
	"X-GitHub-Api-Version: " WORK_GITHUB_VERSION,
	NULL
};

/* {"body": text}: the request schema's only property. */
static int
body_comment(const struct carrier_args *args, struct buf *out)
{
	const struct carrier_arg *text = args_get(args, "text");
	cJSON *o;

	if (text == NULL)
		return -1;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "body", text->val);
	return body_put(out, o);
}

static const struct carrier_endpoint github_table[] = {
	{ CEP_GITHUB_COMMENT, "POST",
	    "/repos/{owner}/{repo}/issues/{number}/comments",
	    { { "owner", ARG_GITHUB_OWNER, 0 },
	      { "repo", ARG_GITHUB_REPO, 0 },
	      { "number", ARG_ISSUE, 0 },
	      { "text", ARG_GITHUB_TEXT, 0 } },
	    body_comment, github_filter_comment, NULL,
	    BNC_CARRIER_RESPONSE_ONE, 1 },
};

static const struct carrier_service github_service = {
	"github", NULL, WORK_GITHUB_HOST, ROLE_CARRIER_GITHUB, RL_GITHUB,
	CRED_TOKEN, github_headers, github_table, nitems(github_table),
	github_filter_error
};

int
main(int argc, char **argv)
{
	static const struct carrier_service *const svcs[] = {
		&github_service,
	};

	return carrier_main(argc, argv, svcs, nitems(svcs));
}
