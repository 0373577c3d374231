/*
 * args.c - a call's arguments, each through its validator (DESIGN 8).
 *
 * One row per kind of argument maps it to validate.c and says what its
 * canonical form is: that form, never the text the monitor sent, is
 * what a path or body is built from.  An argument the row does not name
 * is refused, as is one it needs and did not get.  This file must never
 * put an argument's value in a reason (a Slack channel's webhook path is
 * the credential), and never accept what its validator refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "args.h"
#include "bounds.h"
#include "credential.h"
#include "validate.h"
#include "value.h"
#include "xmalloc.h"

/* What bouncer-monitor -C may ask the audit carrier to leave unchanged. */
static const char *const noop_ops[] = {
	"owner", "due", "status", "property", "trash",
};

static void
arg_set(struct carrier_arg *a, const char *s, size_t len)
{
	a->val = xmalloc(len + 1);
	memcpy(a->val, s, len);
	a->val[len] = '\0';
	a->len = len;
}

static int
check_notion_id(const char *s, size_t len, struct carrier_arg *a,
    const char **why)
{
	char id[VALID_NOTION_ID_LEN + 1];

	if (valid_notion_id(s, len, id, why) != 0)
		return -1;
	arg_set(a, id, strlen(id));
	return 0;
}

static int
check_cursor(const char *s, size_t len, struct carrier_arg *a,
    const char **why)
{
	if (valid_cursor(s, len, why) != 0)
		return -1;
	arg_set(a, s, len);
	return 0;
}

static int
check_status(const char *s, size_t len, struct carrier_arg *a,
    const char **why)
{
	if (valid_status_name(s, len, why) != 0)
		return -1;
	arg_set(a, s, len);
	return 0;
}

static int
check_notion_text(const char *s, size_t len, struct carrier_arg *a,
    const char **why)
{
	/* Notion counts UTF-16 units; the body builder chunks it */
	if (valid_text(s, len, (size_t)BNC_NOTION_CHUNK_UNITS *
	    BNC_NOTION_CHUNKS_MAX, 1, why) != 0)
		return -1;
	arg_set(a, s, len);
	return 0;
}

static int
check_owner(const char *s, size_t len, struct carrier_arg *a,
    const char **why)
{
	if (valid_github_owner(s, len, why) != 0)
		return -1;
	arg_set(a, s, len);
	return 0;
}

static int
check_repo(const char *s, size_t len, struct carrier_arg *a,
    const char **why)
{
	if (valid_github_repo(s, len, why) != 0)
		return -1;
	arg_set(a, s, len);
	return 0;
}

static int
check_issue(const char *s, size_t len, struct carrier_arg *a,
    const char **why)
{
	char num[sizeof("4294967295")];
	uint32_t n;

	if (valid_issue_number(s, len, &n, why) != 0)
		return -1;
	snprintf(num, sizeof(num), "%u", (unsigned int)n);
	arg_set(a, num, strlen(num));
	return 0;
}

static int
check_github_text(const char *s, size_t len, struct carrier_arg *a,
    const char **why)
{
	if (valid_text(s, len, BNC_GITHUB_TEXT_MAX, 0, why) != 0)
		return -1;
	arg_set(a, s, len);
	return 0;
}

static int
check_channel(const char *s, size_t len, struct carrier_arg *a,
    const char **why)
{
	if (valid_channel_name(s, len, why) != 0)
		return -1;
	if ((a->path = credential_webhook(s, len, &a->pathlen)) == NULL) {
		*why = "no webhook is configured for this channel";
		return -1;
	}
	arg_set(a, s, len);
	return 0;
}

static int
check_slack_text(const char *s, size_t len, struct carrier_arg *a,
    const char **why)
{
	if (valid_text(s, len, BNC_SLACK_TEXT_MAX, 0, why) != 0)
		return -1;
	arg_set(a, s, len);
	return 0;
}

static int
check_noop_op(const char *s, size_t len, struct carrier_arg *a,
    const char **why)
{
	size_t i;

	for (i = 0; i < sizeof(noop_ops) / sizeof(noop_ops[0]); i++)
		if (strlen(noop_ops[i]) == len &&
		    memcmp(noop_ops[i], s, len) == 0) {
			arg_set(a, s, len);
			return 0;
		}
	*why = "not owner, due, status, property or trash";
	return -1;
}

static const struct argkind {
	enum carrier_argkind	 kind;
	int			(*check)(const char *, size_t,
				    struct carrier_arg *, const char **);
	int			 in_path;	/* may stand in a path */
} argkinds[] = {
	{ ARG_NOTION_ID,	check_notion_id,	1 },
	{ ARG_CURSOR,		check_cursor,		1 },
	{ ARG_STATUS,		check_status,		0 },
	{ ARG_NOTION_TEXT,	check_notion_text,	0 },
	{ ARG_GITHUB_OWNER,	check_owner,		1 },
	{ ARG_GITHUB_REPO,	check_repo,		1 },
	{ ARG_ISSUE,		check_issue,		1 },
	{ ARG_GITHUB_TEXT,	check_github_text,	0 },
	{ ARG_CHANNEL,		check_channel,		1 },
	{ ARG_SLACK_TEXT,	check_slack_text,	0 },
	{ ARG_NOOP_OP,		check_noop_op,		0 },
};

static const struct argkind *
argkind_find(enum carrier_argkind kind)
{
	size_t i;

	for (i = 0; i < sizeof(argkinds) / sizeof(argkinds[0]); i++)
		if (argkinds[i].kind == kind)
			return &argkinds[i];
	return NULL;
}

void
args_clear(struct carrier_args *args)
{
	size_t i;

	for (i = 0; i < args->n; i++) {
		if (args->a[i].val != NULL)
			sodium_memzero(args->a[i].val, args->a[i].len);
		free(args->a[i].val);
	}
	memset(args, 0, sizeof(*args));
}

int
args_check(const struct carrier_endpoint *ep, const struct value *in,
    struct carrier_args *out, char *why, size_t whysz)
{
	const struct carrier_argdef *d;
	const struct argkind *k;
	const struct value *v;
	struct carrier_arg *a;
	const char *reason;
	size_t i, j;

	memset(out, 0, sizeof(*out));
	if (!value_is(in, V_OBJECT)) {
		snprintf(why, whysz, "the arguments are not an object");
		goto fail;
	}
	/* no argument the row does not name */
	for (i = 0; i < in->u.o.n; i++) {
		for (j = 0; j < BNC_CARRIER_ARGS_MAX &&
		    ep->args[j].name != NULL; j++)
			if (strcmp(ep->args[j].name, in->u.o.m[i].key) == 0)
				break;
		if (j == BNC_CARRIER_ARGS_MAX || ep->args[j].name == NULL) {
			snprintf(why, whysz, "unknown argument \"%.*s\"",
			    BNC_CARRIER_ARG_NAME_MAX, in->u.o.m[i].key);
			goto fail;
		}
	}
	for (j = 0; j < BNC_CARRIER_ARGS_MAX && ep->args[j].name != NULL;
	    j++) {
		d = &ep->args[j];
		if ((v = value_get(in, d->name)) == NULL) {
			if (d->optional)
				continue;
			snprintf(why, whysz, "missing argument \"%s\"",
			    d->name);
			goto fail;
		}
		if (!value_is(v, V_STRING)) {
			snprintf(why, whysz, "argument \"%s\" is not a string",
			    d->name);
			goto fail;
		}
		if ((k = argkind_find(d->kind)) == NULL) {
			snprintf(why, whysz, "argument \"%s\": no validator",
			    d->name);
			goto fail;
		}
		a = &out->a[out->n++];
		a->name = d->name;
		a->kind = d->kind;
		reason = "refused";
		if (k->check(v->u.s.p, v->u.s.len, a, &reason) != 0) {
			snprintf(why, whysz, "argument \"%s\": %s", d->name,
			    reason);
			goto fail;
		}
	}
	return 0;
 fail:
	args_clear(out);
	return -1;
}

const struct carrier_arg *
args_get(const struct carrier_args *args, const char *name)
{
	size_t i;

	for (i = 0; i < args->n; i++)
		if (strcmp(args->a[i].name, name) == 0)
			return &args->a[i];
	return NULL;
}

int
args_match(enum carrier_argkind kind, const char *s, size_t len)
{
	const struct argkind *k;
	struct carrier_arg a;
	const char *why;
	int ok;

	if ((k = argkind_find(kind)) == NULL || !k->in_path)
		return 0;
	/* a path holds the webhook's path, not the channel's name */
	if (kind == ARG_CHANNEL)
		return valid_webhook_path(s, len, &why) == 0 &&
		    credential_webhook_known(s, len);
	memset(&a, 0, sizeof(a));
	ok = k->check(s, len, &a, &why) == 0 && a.len == len &&
	    memcmp(a.val, s, len) == 0;
	free(a.val);
	return ok;
}
