/*
 * credaudit.c - bouncer-monitor -C, the credential audit (DESIGN 8).
 *
 * For every configured credential and every forbidden operation (set an
 * owner, a due date, a status, update a property, trash a page, PATCH an
 * issue, assign, label) it shows what stops it:
 *
 *  - a Notion token is asked to make the change itself, as a no-op (the
 *    property's current value, or an empty update when the token cannot
 *    read the page), by a carrier started in its audit mode: Notion must
 *    refuse it (403), because the integration lacks the capability;
 *  - a GitHub token or a Slack webhook has no such guarantee from its
 *    vendor, so its carrier is asked whether its table and request-line
 *    check would send the operation's request (MSG_CARRIER_PROBE):
 *    they must refuse it before the network.
 *
 * An agent reaches the credentials of the tools its grant holds; an
 * operation is blocked for an agent when every credential it reaches
 * blocks it.  The table of agents x operations, blocked / total and the
 * protection rate are printed; the exit status is 0 only if everything
 * was blocked.  Anything that could not be shown (a carrier that fails,
 * no page to try the no-op on) counts as not blocked.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "bounds.h"
#include "carriers.h"
#include "child.h"
#include "conffile.h"
#include "credaudit.h"
#include "log.h"
#include "monitor.h"
#include "msg.h"
#include "registry.h"
#include "value.h"
#include "work.h"
#include "xmalloc.h"

#define CA_OPS		8
#define CA_CREDS	4

/* The operations, and how each is tried on each kind of credential. */
static const struct ca_op {
	const char	*name;
	const char	*notion;	/* CEP_NOTION_NOOP's op */
	const char	*gh_method, *gh_path;	/* after /repos/OWNER/REPO */
	const char	*slack_path;	/* POSTed on Slack's host */
} ops[CA_OPS] = {
	{ "set owner", "owner",
	    "POST", "/issues/1/assignees",
	    "/api/conversations.setPurpose" },
	{ "set due date", "due",
	    "PATCH", "/milestones/1", "/api/reminders.add" },
	{ "set status", "status",
	    "PATCH", "/issues/1", "/api/users.profile.set" },
	{ "update property", "property",
	    "PATCH", "/issues/1", "/api/chat.update" },
	{ "trash/delete page", "trash",
	    "DELETE", "/issues/comments/1", "/api/chat.delete" },
	{ "PATCH issue", "property",
	    "PATCH", "/issues/1", "/api/chat.update" },
	{ "assign", "owner",
	    "POST", "/issues/1/assignees",
	    "/api/conversations.invite" },
	{ "label", "property",
	    "POST", "/issues/1/labels", "/api/reactions.add" },
};

/* The credentials: the carrier a session uses, and how each is tried. */
enum ca_how { CA_NOOP, CA_PROBE };
static const struct ca_cred {
	enum work_kind	 kind;		/* the session's carrier */
	enum work_kind	 try;		/* the one -C asks */
	enum ca_how	 how;
} creds[CA_CREDS] = {
	{ WORK_NOTION_READ, WORK_NOTION_READ_AUDIT, CA_NOOP },
	{ WORK_NOTION_COMMENT, WORK_NOTION_COMMENT_AUDIT, CA_NOOP },
	{ WORK_GITHUB, WORK_GITHUB, CA_PROBE },
	{ WORK_SLACK, WORK_SLACK, CA_PROBE },
};

/* Which credentials each built-in tool uses. */
static const struct {
	const char	*tool;
	unsigned	 creds;		/* bit i: creds[i] */
} tool_creds[] = {
	{ "read_tasks", 0x1 },
	{ "read_task", 0x1 },
	{ "read_comments", 0x1 },
	{ "post_human_authored_comment", 0x2 | 0x4 },
	{ "send_external_message", 0x8 },
};

enum ca_outcome { CA_PENDING = 0, CA_BLOCKED_API, CA_BLOCKED_TABLE,
    CA_OPEN, CA_UNKNOWN };

struct ca {
	struct session	*s;
	char		*page;		/* the page the no-op is tried on */
	enum ca_outcome	 out[CA_CREDS][CA_OPS];
	char		 why[CA_CREDS][CA_OPS][BNC_REASON_MAX];
	int		 pending;
	int		 running;	/* inside event_base_dispatch() */
};

struct ca_try {
	struct ca	*ca;
	int		 cred, op;
};

static void
settle(struct ca *ca)
{
	/* a loopexit outside the loop would end the next one at once */
	if (--ca->pending == 0 && ca->running)
		event_base_loopexit(ca->s->base, NULL);
}

static void
tried(struct session *s, void *arg, const struct msg_carrier_result *res,
    const char *err)
{
	struct ca_try *t = arg;
	struct ca *ca = t->ca;
	enum ca_outcome *o = &ca->out[t->cred][t->op];
	char *why = ca->why[t->cred][t->op];

	(void)s;
	if (res == NULL) {
		*o = CA_UNKNOWN;
		snprintf(why, BNC_REASON_MAX, "%s", err);
	} else if (creds[t->cred].how == CA_NOOP &&
	    res->status == CARRIER_API && (res->http_status == 403 ||
	    res->http_status == 401)) {
		*o = CA_BLOCKED_API;
		snprintf(why, BNC_REASON_MAX, "Notion refused it (%u %s)",
		    res->http_status, res->code);
	} else if (creds[t->cred].how == CA_PROBE &&
	    res->status == CARRIER_REFUSED) {
		*o = CA_BLOCKED_TABLE;
		snprintf(why, BNC_REASON_MAX, "the carrier's table refused it "
		    "before the network (%s)", res->code);
	} else if (res->status == CARRIER_OK) {
		*o = CA_OPEN;
		snprintf(why, BNC_REASON_MAX, "%s", creds[t->cred].how ==
		    CA_NOOP ? "Notion ACCEPTED the (no-op) update: the "
		    "token can write" : "the carrier WOULD SEND it");
	} else {
		*o = CA_UNKNOWN;
		snprintf(why, BNC_REASON_MAX, "not shown: status %u, %u %s: "
		    "%s", res->status, res->http_status, res->code,
		    res->message);
	}
	free(t);
	settle(ca);
}

static void
try_all(struct ca *ca, const struct config *cf)
{
	const char *owner = "octocat", *repo = "Hello-World";
	char path[BNC_CARRIER_PATH_MAX], rbuf[256], *sl;
	struct ca_try *t;
	struct value *a;
	int c, o;

	if (cf->github.nrepos > 0) {
		snprintf(rbuf, sizeof(rbuf), "%s", cf->github.repos[0]);
		if ((sl = strchr(rbuf, '/')) != NULL) {
			*sl = '\0';
			owner = rbuf;
			repo = sl + 1;
		}
	}
	for (c = 0; c < CA_CREDS; c++) {
		if (!carriers_configured(ca->s, creds[c].kind))
			continue;
		for (o = 0; o < CA_OPS; o++) {
			if (creds[c].how == CA_NOOP && ca->page == NULL) {
				ca->out[c][o] = CA_UNKNOWN;
				snprintf(ca->why[c][o], BNC_REASON_MAX, "no "
				    "task page to try the no-op update on");
				continue;
			}
			t = xcalloc(1, sizeof(*t));
			t->ca = ca;
			t->cred = c;
			t->op = o;
			ca->pending++;
			if (creds[c].how == CA_NOOP) {
				a = value_object();
				value_object_put(a, "page_id",
				    value_string(ca->page));
				value_object_put(a, "op",
				    value_string(ops[o].notion));
				carriers_call(ca->s, creds[c].try,
				    CEP_NOTION_NOOP, a, tried, t);
			} else if (creds[c].kind == WORK_GITHUB) {
				snprintf(path, sizeof(path), "/repos/%s/%s%s",
				    owner, repo, ops[o].gh_path);
				carriers_probe(ca->s, creds[c].try,
				    ops[o].gh_method, path, tried, t);
			} else
				carriers_probe(ca->s, creds[c].try, "POST",
				    ops[o].slack_path, tried, t);
		}
	}
}

/* The page to try the no-op on: the first task of the data source. */
static void
got_tasks(struct session *s, void *arg, const struct msg_carrier_result *res,
    const char *err)
{
	struct ca *ca = arg;
	const struct value *tasks;

	(void)s;
	(void)err;
	if (res != NULL && res->status == CARRIER_OK &&
	    value_is(tasks = value_get(res->data, "tasks"), V_ARRAY) &&
	    tasks->u.a.n > 0 &&
	    value_get_str(tasks->u.a.v[0], "id") != NULL)
		ca->page = xstrdup(value_get_str(tasks->u.a.v[0], "id"));
	settle(ca);
}

static void
got_source(struct session *s, void *arg, const struct msg_carrier_result *res,
    const char *err)
{
	struct ca *ca = arg;
	const struct value *ds;
	struct value *a;

	(void)err;
	if (res != NULL && res->status == CARRIER_OK &&
	    value_is(ds = value_get(res->data, "data_sources"), V_ARRAY) &&
	    ds->u.a.n > 0 && value_get_str(ds->u.a.v[0], "id") != NULL) {
		a = value_object();
		value_object_put(a, "data_source_id",
		    value_string(value_get_str(ds->u.a.v[0], "id")));
		ca->pending++;
		carriers_call(s, WORK_NOTION_READ, CEP_NOTION_QUERY, a,
		    got_tasks, ca);
	}
	settle(ca);
}

static void
dispatch(struct ca *ca)
{
	if (ca->pending == 0)
		return;
	ca->running = 1;
	event_base_dispatch(ca->s->base);
	ca->running = 0;
}

static void
on_chld(evutil_socket_t sig, short what, void *arg)
{
	(void)sig;
	(void)what;
	(void)arg;
	child_stderr_drain();
	child_reap();
}

/* 1 if every credential the agent reaches blocks op; reached says which. */
static int
agent_blocked(const struct ca *ca, const struct session *s,
    const struct registry_agent *ag, int op)
{
	unsigned reach = 0;
	size_t i;
	int c;

	for (i = 0; i < sizeof(tool_creds) / sizeof(tool_creds[0]); i++)
		if (ag == NULL || registry_grants(ag, tool_creds[i].tool))
			reach |= tool_creds[i].creds;
	for (c = 0; c < CA_CREDS; c++)
		if ((reach & (1u << c)) &&
		    carriers_configured(s, creds[c].kind) &&
		    ca->out[c][op] != CA_BLOCKED_API &&
		    ca->out[c][op] != CA_BLOCKED_TABLE)
			return 0;
	return 1;
}

static void
report(const struct ca *ca, struct session *s, FILE *f, int *blocked,
    int *total)
{
	const struct registry_agent *ag;
	size_t i, nagents;
	int c, o, n, w;

	fprintf(f, "%-24s %-18s %s\n", "credential", "operation", "outcome");
	for (c = 0; c < CA_CREDS; c++) {
		if (!carriers_configured(s, creds[c].kind))
			continue;
		for (o = 0; o < CA_OPS; o++)
			fprintf(f, "%-24s %-18s %s: %s\n",
			    carriers_name(creds[c].kind), ops[o].name,
			    ca->out[c][o] == CA_BLOCKED_API ||
			    ca->out[c][o] == CA_BLOCKED_TABLE ? "blocked" :
			    "NOT BLOCKED", ca->why[c][o]);
	}
	fprintf(f, "\n%-16s", "agent");
	/* a column is as wide as its name, and as "blocked" */
	for (o = 0; o < CA_OPS; o++)
		fprintf(f, " | %-7s", ops[o].name);
	fprintf(f, " | blocked\n");
	nagents = s->registry != NULL ? registry_nagents(s->registry) : 1;
	for (i = 0; i < nagents; i++) {
		ag = s->registry != NULL ? registry_agent(s->registry, i) :
		    NULL;
		fprintf(f, "%-16s", ag != NULL ? ag->id : "-");
		for (o = n = 0; o < CA_OPS; o++) {
			w = (int)strlen(ops[o].name) > 7 ?
			    (int)strlen(ops[o].name) : 7;
			if (agent_blocked(ca, s, ag, o)) {
				n++;
				fprintf(f, " | %-*s", w, "blocked");
			} else
				fprintf(f, " | %-*s", w, "OPEN");
		}
		fprintf(f, " | %d/%d\n", n, CA_OPS);
		*blocked += n;
		*total += CA_OPS;
	}
}

int
credaudit_run(struct session *s, const struct config *cf, FILE *out)
{
	struct child_env cenv;
	struct ca ca;
	struct event *chld;
	struct value *a;
	int blocked = 0, total = 0;

	memset(&ca, 0, sizeof(ca));
	ca.s = s;
	if ((s->base = event_base_new()) == NULL)
		fatal("event_base_new");
	memset(&cenv, 0, sizeof(cenv));
	cenv.base = s->base;
	cenv.libexec = s->libexec;
	cenv.max_message = cf->max_message;
	cenv.mem = &s->mem;
	child_setup(&cenv);
	if ((chld = evsignal_new(s->base, SIGCHLD, on_chld, NULL)) == NULL ||
	    event_add(chld, NULL) == -1)
		fatal("evsignal_new");
	/* first the page the Notion no-ops are tried on */
	if (carriers_configured(s, WORK_NOTION_READ) &&
	    cf->notion.database_id != NULL) {
		a = value_object();
		value_object_put(a, "database_id",
		    value_string(cf->notion.database_id));
		ca.pending = 1;
		carriers_call(s, WORK_NOTION_READ, CEP_NOTION_DATABASE, a,
		    got_source, &ca);
		dispatch(&ca);
	}
	try_all(&ca, cf);
	dispatch(&ca);
	report(&ca, s, out, &blocked, &total);
	fprintf(out, "\nprotection rate: %.1f%% (%d/%d blocked)\n",
	    total > 0 ? 100.0 * blocked / total : 100.0, blocked, total);
	if (total == 0)
		fprintf(out, "no work: credential is configured\n");
	carriers_close(s);
	while (!child_all_exited())
		child_reap_wait();
	event_free(chld);
	free(ca.page);
	return blocked == total ? 0 : 1;
}
