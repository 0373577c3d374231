/*
 * check_registry.c - the agent registry (monitor/registry.c) over files
 * written in the suite's scratch directory, with a real policy.
 *
 * Every rule of bouncer-agents(5) has a case that asserts the one report
 * it gives: its file, line, agent and exact text.  Then a clean registry
 * of one agent per tier, several problems in one file, the token and id
 * lookups, budgets, T0 grants of upstream tools against the policy's
 * read_only marks, and every bound at its limit and one past it.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <sodium.h>

#include "bounds.h"
#include "err.h"
#include "policy.h"
#include "registry.h"
#include "testdir.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))
#define NREPORTS	64

struct report {
	char		 file[512];
	unsigned long	 line;
	char		 agent[BNC_AGENT_ID_MAX + 1];
	int		 has_agent;
	char		 msg[1024];
};

static struct report reports[NREPORTS];
static int nreports;
static char path[512];
static struct registry *reg;
static struct policy *pol;

/* The config's forbidden_tools in every case. */
static char *extra_forbidden[] = { "notion:API-patch-page", "update_issue" };

/* The user policy and the pack every case loads. */
static const char policy_text[] =
	"github:get_issue: { read_only: true }\n"
	"list_issues: { read_only: true }\n"
	"search: { read_only: false }\n"
	"wiki:fetch: { read_only: true }\n"
	"archive: { forbidden: true, read_only: true }\n"
	"jira:close_ticket: { forbidden: true }\n";
static const char pack_text[] =
	"(server): [\"wiki\"]\n"
	"fetch: { read_only: true }\n"
	"lookup: { read_only: true }\n";

static void
collect(void *arg, const char *file, unsigned long line, const char *agent,
    const char *msg)
{
	struct report *r;

	ck_assert_ptr_null(arg);
	ck_assert_ptr_nonnull(file);
	ck_assert_ptr_nonnull(msg);
	ck_assert_ptr_null(strchr(msg, '\n'));
	ck_assert_int_lt(nreports, NREPORTS);
	r = &reports[nreports++];
	snprintf(r->file, sizeof(r->file), "%s", file);
	r->line = line;
	r->has_agent = agent != NULL;
	snprintf(r->agent, sizeof(r->agent), "%s", agent != NULL ? agent : "");
	snprintf(r->msg, sizeof(r->msg), "%s", msg);
}

/* hex of SHA-256(token) into out[65] */
static void
hexhash(const char *token, char *out)
{
	uint8_t h[crypto_hash_sha256_BYTES];

	crypto_hash_sha256(h, (const unsigned char *)token, strlen(token));
	sodium_bin2hex(out, 65, h, sizeof(h));
}

/* The token of agent n in every document: "token-n". */
static void
token_of(int n, char *buf, size_t len)
{
	snprintf(buf, len, "token-%d", n);
}

/* text with each "@N" (one digit) replaced by the hash of token N */
static char *
expand(const char *text)
{
	char tok[32], hex[65], *out;
	size_t o = 0;

	out = calloc(1, strlen(text) * 33 + 1);
	ck_assert_ptr_nonnull(out);
	for (; *text != '\0'; text++) {
		if (text[0] == '@' && text[1] >= '0' && text[1] <= '9') {
			token_of(text[1] - '0', tok, sizeof(tok));
			hexhash(tok, hex);
			memcpy(out + o, hex, 64);
			o += 64;
			text++;
		} else
			out[o++] = *text;
	}
	return out;
}

/* name under the scratch directory; 0 or -1 (main calls it too, where
 * Check's assertions cannot report) */
static int
put_file(const char *name, const char *text, size_t len)
{
	char p[512];
	FILE *f;
	int r = 0;

	snprintf(p, sizeof(p), "%s/%s", testdir_path(), name);
	if ((f = fopen(p, "w")) == NULL)
		return -1;
	if (fwrite(text, 1, len, f) != len)
		r = -1;
	if (fclose(f) != 0)
		r = -1;
	return r;
}

static void
write_file(const char *name, const char *text, size_t len)
{
	ck_assert_int_eq(put_file(name, text, len), 0);
}

static struct policy *
test_policy(void)
{
	struct policy *p = policy_new();
	char pp[512], err[1024];

	snprintf(pp, sizeof(pp), "%s/policy.yaml", testdir_path());
	ck_assert_msg(policy_load_file(p, pp, 0, err, sizeof(err)) == 0,
	    "%s", err);
	snprintf(pp, sizeof(pp), "%s/pack.yaml", testdir_path());
	ck_assert_msg(policy_load_file(p, pp, 1, err, sizeof(err)) == 0,
	    "%s", err);
	return p;
}

/* Loads text (after expand) as agents.yaml with the test policy. */
static int
load_with(const char *text, struct policy *p)
{
	char *t = expand(text);
	int r;

	snprintf(path, sizeof(path), "%s/agents.yaml", testdir_path());
	write_file("agents.yaml", t, strlen(t));
	free(t);
	registry_free(reg);
	reg = NULL;
	nreports = 0;
	r = registry_load(path, p, extra_forbidden, NELEM(extra_forbidden),
	    collect, NULL, &reg);
	if (r != 0)
		ck_assert_ptr_null(reg);
	else
		ck_assert_ptr_nonnull(reg);
	return r;
}

static int
load(const char *text)
{
	if (pol == NULL)
		pol = test_policy();
	return load_with(text, pol);
}

static void
teardown(void)
{
	registry_free(reg);
	reg = NULL;
	policy_free(pol);
	pol = NULL;
}

static void
expect_report(int i, unsigned long line, const char *agent, const char *msg)
{
	const struct report *r = &reports[i];

	ck_assert_int_lt(i, nreports);
	ck_assert_str_eq(r->file, path);
	ck_assert_msg(strcmp(r->msg, msg) == 0, "report %d: \"%s\", not "
	    "\"%s\"", i, r->msg, msg);
	ck_assert_uint_eq(r->line, line);
	if (agent == NULL)
		ck_assert_msg(!r->has_agent, "report %d names agent %s", i,
		    r->agent);
	else {
		ck_assert(r->has_agent);
		ck_assert_str_eq(r->agent, agent);
	}
}

/* The file has exactly one problem, this one. */
static void
expect_one(const char *text, unsigned long line, const char *agent,
    const char *msg)
{
	int r = load(text);

	ck_assert_msg(r == 1, "%d problems (want 1), first \"%s\"", r,
	    nreports > 0 ? reports[0].msg : "");
	ck_assert_int_eq(nreports, 1);
	expect_report(0, line, agent, msg);
}

/* ---- a clean registry --------------------------------------------- */

static const char four_tiers[] =
	"# one agent per tier\n"
	"agents:\n"
	"  - id: reader\n"				/* 3 */
	"    owner: ops\n"
	"    tier: T0\n"
	"    tools: [read_tasks, read_task, read_comments,\n"
	"            github__get_issue, list_issues, lookup]\n"
	"    token_sha256: @0\n"
	"  - id: drafter\n"				/* 9 */
	"    owner: Ops Team <ops@example.org>\n"
	"    tier: T1\n"
	"    tools: [read_tasks, create_draft, github__create_issue]\n"
	"    token_sha256: @1\n"
	"    eval_suite: evals/drafter.yaml\n"
	"  - id: carrier\n"				/* 15 */
	"    owner: team-a\n"
	"    tier: T2\n"
	"    tools:\n"
	"      - read_task\n"
	"      - post_human_authored_comment\n"
	"    token_sha256: @2\n"
	"    eval_suite: evals\n"
	"    budgets: { post_human_authored_comment: 5 }\n"
	"  - id: sender.v2\n"				/* 24 */
	"    owner: team-b\n"
	"    tier: \"T3\"\n"
	"    tools: [read_tasks, send_external_message, create_draft]\n"
	"    token_sha256: @3\n"
	"    eval_suite: EVALSUITE\n"
	"    budgets:\n"
	"      send_external_message: 3\n"
	"      create_draft: 1000000000\n";

/* four_tiers with EVALSUITE an absolute path, upper-case hash of agent 3 */
static char *
four_tiers_text(void)
{
	char *t, *p, abs[512];
	size_t n;

	snprintf(abs, sizeof(abs), "%s/evals/sender.yaml", testdir_path());
	n = strlen(four_tiers) + strlen(abs) + 1;
	ck_assert_ptr_nonnull(t = malloc(n));
	p = strstr(four_tiers, "EVALSUITE");
	snprintf(t, n, "%.*s%s%s", (int)(p - four_tiers), four_tiers, abs,
	    p + strlen("EVALSUITE"));
	return t;
}

START_TEST(test_clean)
{
	static const char *const tiers[] = { "T0", "T1", "T2", "T3" };
	const struct registry_agent *a;
	char *t = four_tiers_text(), want[600];
	size_t i;

	ck_assert_int_eq(load(t), 0);
	free(t);
	ck_assert_int_eq(nreports, 0);
	ck_assert_uint_eq(registry_nagents(reg), 4);

	ck_assert_ptr_nonnull(a = registry_find_id(reg, "reader"));
	ck_assert_ptr_eq(a, registry_agent(reg, 0));
	ck_assert_str_eq(a->owner, "ops");
	ck_assert_int_eq(a->tier, REGISTRY_T0);
	ck_assert_uint_eq(a->ntools, 6);
	ck_assert_str_eq(a->tools[3], "github__get_issue");
	ck_assert_ptr_null(a->eval_suite);
	ck_assert_uint_eq(a->nbudgets, 0);
	ck_assert_uint_eq(a->line, 3);

	ck_assert_ptr_nonnull(a = registry_find_id(reg, "drafter"));
	ck_assert_str_eq(a->owner, "Ops Team <ops@example.org>");
	ck_assert_int_eq(a->tier, REGISTRY_T1);
	snprintf(want, sizeof(want), "%s/evals/drafter.yaml",
	    testdir_path());
	ck_assert_str_eq(a->eval_suite, want);
	ck_assert_uint_eq(a->line, 9);

	ck_assert_ptr_nonnull(a = registry_find_id(reg, "carrier"));
	ck_assert_int_eq(a->tier, REGISTRY_T2);
	snprintf(want, sizeof(want), "%s/evals", testdir_path());
	ck_assert_str_eq(a->eval_suite, want);

	ck_assert_ptr_nonnull(a = registry_find_id(reg, "sender.v2"));
	ck_assert_ptr_eq(a, registry_agent(reg, 3));
	ck_assert_int_eq(a->tier, REGISTRY_T3);
	snprintf(want, sizeof(want), "%s/evals/sender.yaml", testdir_path());
	ck_assert_str_eq(a->eval_suite, want);
	ck_assert_uint_eq(a->ntools, 3);
	ck_assert_uint_eq(a->nbudgets, 2);
	ck_assert_str_eq(a->budgets[0].tool, "send_external_message");
	ck_assert_int_eq(a->budgets[0].max, 3);
	ck_assert_uint_eq(a->line, 24);

	ck_assert_ptr_null(registry_agent(reg, 4));
	ck_assert_ptr_null(registry_find_id(reg, "nobody"));
	ck_assert_ptr_null(registry_find_id(reg, "Reader"));
	ck_assert_ptr_null(registry_find_id(reg, NULL));
	for (i = 0; i < 4; i++)
		ck_assert_str_eq(registry_tier_name((int)i), tiers[i]);
	ck_assert_ptr_null(registry_tier_name(-1));
	ck_assert_ptr_null(registry_tier_name(4));
}
END_TEST

START_TEST(test_find_token)
{
	static const char *const ids[] = { "reader", "drafter", "carrier",
	    "sender.v2" };
	const struct registry_agent *a;
	char *t = four_tiers_text(), tok[32], hex[65];
	int i;

	ck_assert_int_eq(load(t), 0);
	free(t);
	for (i = 0; i < 4; i++) {
		token_of(i, tok, sizeof(tok));
		ck_assert_ptr_nonnull(a = registry_find_token(reg, tok,
		    strlen(tok)));
		ck_assert_str_eq(a->id, ids[i]);
		/* a prefix of the token, and one byte more, are others */
		ck_assert_ptr_null(registry_find_token(reg, tok,
		    strlen(tok) - 1));
		ck_assert_ptr_null(registry_find_token(reg, tok,
		    strlen(tok) + 1));
		/* the hash, or its first half, is not the token */
		hexhash(tok, hex);
		ck_assert_ptr_null(registry_find_token(reg, hex, 64));
		ck_assert_ptr_null(registry_find_token(reg, hex, 32));
	}
	ck_assert_ptr_null(registry_find_token(reg, "token-4", 7));
	ck_assert_ptr_null(registry_find_token(reg, "token-0\n", 8));
	ck_assert_ptr_null(registry_find_token(reg, "", 0));
	ck_assert_ptr_null(registry_find_token(reg, "token-0", 0));
	ck_assert_ptr_null(registry_find_token(reg, NULL, 0));
	ck_assert_ptr_null(registry_find_token(NULL, "token-0", 7));
}
END_TEST

START_TEST(test_budgets)
{
	const struct registry_agent *a;
	char *t = four_tiers_text();

	ck_assert_int_eq(load(t), 0);
	free(t);
	a = registry_find_id(reg, "sender.v2");
	ck_assert_int_eq(registry_budget(a, "send_external_message"), 3);
	ck_assert_int_eq(registry_budget(a, "create_draft"),
	    BNC_POLICY_MAX_CALLS_MAX);
	ck_assert_int_eq(registry_budget(a, "read_tasks"), -1);
	ck_assert_int_eq(registry_budget(a, "other"), -1);
	ck_assert_int_eq(registry_budget(a, NULL), -1);
	ck_assert_int_eq(registry_budget(NULL, "create_draft"), -1);
	ck_assert_int_eq(registry_grants(a, "send_external_message"), 1);
	ck_assert_int_eq(registry_grants(a, "read_tasks"), 1);
	ck_assert_int_eq(registry_grants(a, "read_task"), 0);
	ck_assert_int_eq(registry_grants(a, "send_external_messag"), 0);
	ck_assert_int_eq(registry_grants(a, NULL), 0);
	ck_assert_int_eq(registry_grants(NULL, "read_tasks"), 0);
	a = registry_find_id(reg, "carrier");
	ck_assert_int_eq(registry_budget(a, "post_human_authored_comment"), 5);
	ck_assert_int_eq(registry_budget(a, "send_external_message"), -1);
	a = registry_find_id(reg, "reader");
	ck_assert_int_eq(registry_grants(a, "github__get_issue"), 1);
	ck_assert_int_eq(registry_grants(a, "get_issue"), 0);
}
END_TEST

/* `agents: []' admits nobody, and says so by being empty. */
START_TEST(test_no_agents)
{
	ck_assert_int_eq(load("agents: []\n"), 0);
	ck_assert_uint_eq(registry_nagents(reg), 0);
	ck_assert_ptr_null(registry_find_token(reg, "token-0", 7));
}
END_TEST

/* ---- T0 grants of upstream tools ----------------------------------- */

static const struct ro_case {
	const char	*tool;
	int		 ok;
} ro_cases[] = {
	{ "github__get_issue",	1 },	/* user github:get_issue */
	{ "get_issue",		0 },	/* the qualified entry only */
	{ "gitlab__get_issue",	0 },
	{ "list_issues",	1 },	/* unqualified: any upstream */
	{ "gitlab__list_issues", 1 },
	{ "search",		0 },	/* read_only: false */
	{ "lookup",		1 },	/* the pack's */
	{ "wiki__lookup",	1 },
	{ "fetch",		1 },	/* the pack's unqualified entry */
	{ "wiki__fetch",	1 },	/* the user's qualified entry */
	{ "other_tool",		0 },	/* no entry */
	{ "a__b__list_issues",	1 },	/* upstream "a__b" */
};

START_TEST(test_t0_read_only)
{
	const struct ro_case *c = &ro_cases[_i];
	char text[512], msg[512];
	int r;

	snprintf(text, sizeof(text),
	    "agents:\n"
	    "  - id: r\n"
	    "    owner: o\n"
	    "    tier: T0\n"
	    "    tools: [read_tasks, %s]\n"
	    "    token_sha256: @0\n", c->tool);
	r = load(text);
	if (c->ok) {
		ck_assert_msg(r == 0, "%s: %s", c->tool, reports[0].msg);
		/* the same grant is refused without a policy */
		ck_assert_int_eq(load_with(text, NULL), 1);
	} else
		ck_assert_int_eq(r, 1);
	if (r != 0) {
		snprintf(msg, sizeof(msg), "tools: %s is not marked read-only "
		    "by the policy (a T0 grant may name only read-only tools)",
		    c->tool);
		expect_report(0, 5, "r", msg);
	}
	/* any tier above T0 may name any upstream tool */
	snprintf(text, sizeof(text),
	    "agents:\n"
	    "  - id: r\n"
	    "    owner: o\n"
	    "    tier: T1\n"
	    "    tools: [read_tasks, %s]\n"
	    "    token_sha256: @0\n"
	    "    eval_suite: evals\n", c->tool);
	ck_assert_int_eq(load(text), 0);
}
END_TEST

/* A user entry replaces a pack's of the same name, read_only and all. */
START_TEST(test_t0_user_over_pack)
{
	struct policy *p = policy_new();
	char pp[512], err[1024];

	write_file("over-pack.yaml", "lookup: { read_only: true }\n", 28);
	write_file("over-user.yaml", "lookup: { max_calls: 3 }\n", 25);
	snprintf(pp, sizeof(pp), "%s/over-pack.yaml", testdir_path());
	ck_assert_int_eq(policy_load_file(p, pp, 1, err, sizeof(err)), 0);
	ck_assert_int_eq(policy_marks_read_only(p, "lookup"), 1);
	snprintf(pp, sizeof(pp), "%s/over-user.yaml", testdir_path());
	ck_assert_int_eq(policy_load_file(p, pp, 0, err, sizeof(err)), 0);
	ck_assert_int_eq(policy_marks_read_only(p, "lookup"), 0);
	ck_assert_int_eq(policy_marks_read_only(p, "x__lookup"), 0);
	ck_assert_int_eq(load_with(
	    "agents:\n"
	    "  - id: r\n"
	    "    owner: o\n"
	    "    tier: T0\n"
	    "    tools: [lookup]\n"
	    "    token_sha256: @0\n", p), 1);
	policy_free(p);
	/* a forbidden entry marks nothing read-only */
	pol = test_policy();
	ck_assert_int_eq(policy_marks_read_only(pol, "archive"), 0);
	ck_assert_int_eq(policy_marks_read_only(pol, "list_issues"), 1);
	ck_assert_int_eq(policy_marks_read_only(pol, "__list_issues"), 0);
	ck_assert_int_eq(policy_marks_read_only(pol, "github__"), 0);
	ck_assert_int_eq(policy_marks_read_only(NULL, "list_issues"), 0);
	ck_assert_int_eq(policy_marks_read_only(pol, NULL), 0);
}
END_TEST

/* ---- one case per rule --------------------------------------------- */

/* An agent of tier T1 with every key right, from line 2 to line 7. */
#define T1_AGENT(id, tok)						\
	"  - id: " id "\n"						\
	"    owner: o\n"						\
	"    tier: T1\n"						\
	"    tools: [create_draft]\n"					\
	"    token_sha256: " tok "\n"					\
	"    eval_suite: evals/a.yaml\n"
#define HEAD	"agents:\n  - id: a\n    owner: o\n"	/* lines 1-3 */

static const struct rule_case {
	const char	*what;
	const char	*text;
	unsigned long	 line;
	const char	*agent;
	const char	*msg;
} rules[] = {
	/* the file's shape */
	{ "top level not a mapping", "- agents\n", 1, NULL,
	  "(top level): must be a mapping with the key agents, not a list" },
	{ "top-level key unknown", "agents: []\nversion: 2\n", 2, NULL,
	  "version: unknown key" },
	{ "agents missing", "# agents: []\nsome: []\nother: []\n", 0, NULL,
	  NULL },	/* two unknown keys and a missing one: below */
	{ "agents not a list", "agents:\n  a: 1\n", 2, NULL,
	  "agents: must be a list of agents, not a mapping" },
	{ "agents null", "agents:\n", 1, NULL,
	  "agents: must be a list of agents, not null" },
	{ "agent not a mapping", "agents:\n  - reader\n", 2, NULL,
	  "agents: an agent must be a mapping, not a scalar" },
	{ "empty file", "# nothing\n", 0, NULL,
	  "agents: missing: the file is empty" },
	{ "yaml syntax", "agents:\n  - id: a\n   owner: [\n", 3, NULL,
	  "(syntax): did not find expected '-' indicator" },
	{ "yaml duplicate key", "agents:\n  - id: a\n    id: b\n", 3, NULL,
	  "(syntax): duplicate key \"id\"" },
	{ "unknown agent key", "agents:\n" T1_AGENT("a", "@0")
	  "    colour: blue\n", 8, "a", "colour: unknown key" },

	/* id */
	{ "id charset", "agents:\n" T1_AGENT("a/b", "@0"), 2, NULL,
	  "id: must be 1 to 64 of A-Z a-z 0-9 . _ -" },
	{ "id empty", "agents:\n" T1_AGENT("\"\"", "@0"), 2, NULL,
	  "id: must be 1 to 64 of A-Z a-z 0-9 . _ -" },
	{ "id not a string", "agents:\n" T1_AGENT("[a]", "@0"), 2, NULL,
	  "id: must be a string, not a list" },
	{ "id reserved", "agents:\n" T1_AGENT("\"-\"", "@0"), 2, NULL,
	  "id: may not be \"-\", \".\" or \"..\"" },
	{ "id reserved dots", "agents:\n" T1_AGENT("..", "@0"), 2, NULL,
	  "id: may not be \"-\", \".\" or \"..\"" },
	{ "id duplicate", "agents:\n" T1_AGENT("a", "@0") T1_AGENT("a", "@1"),
	  8, "a", "id: duplicate of line 2" },
	{ "id missing", "agents:\n  - owner: o\n    tier: T1\n"
	  "    tools: [create_draft]\n    token_sha256: @0\n"
	  "    eval_suite: evals/a.yaml\n", 2, NULL, "id: missing" },

	/* owner */
	{ "owner null", "agents:\n  - id: a\n    owner:\n    tier: T0\n"
	  "    tools: [read_tasks]\n    token_sha256: @0\n", 3, "a",
	  "owner: must be a person or team, not null" },
	{ "owner empty", "agents:\n  - id: a\n    owner: ''\n    tier: T0\n"
	  "    tools: [read_tasks]\n    token_sha256: @0\n", 3, "a",
	  "owner: must be 1 to 256 bytes" },
	{ "owner control", "agents:\n  - id: a\n    owner: \"o\\tp\"\n"
	  "    tier: T0\n    tools: [read_tasks]\n    token_sha256: @0\n", 3,
	  "a", "owner: must be UTF-8 text without control characters" },
	{ "owner missing", "agents:\n  - id: a\n    tier: T0\n"
	  "    tools: [read_tasks]\n    token_sha256: @0\n", 2, "a",
	  "owner: missing" },

	/* tier */
	{ "tier unknown", HEAD "    tier: T4\n    tools: [read_tasks]\n"
	  "    token_sha256: @0\n", 4, "a", "tier: must be T0, T1, T2 or T3" },
	{ "tier lower case", HEAD "    tier: t1\n    tools: [read_tasks]\n"
	  "    token_sha256: @0\n", 4, "a", "tier: must be T0, T1, T2 or T3" },
	{ "tier number", HEAD "    tier: 1\n    tools: [read_tasks]\n"
	  "    token_sha256: @0\n", 4, "a", "tier: must be T0, T1, T2 or T3" },
	{ "tier missing", HEAD "    tools: [read_tasks]\n"
	  "    token_sha256: @0\n", 2, "a", "tier: missing" },

	/* tools */
	{ "tools not a list", HEAD "    tier: T0\n    tools: read_tasks\n"
	  "    token_sha256: @0\n", 5, "a",
	  "tools: must be a list of tool names, not a scalar" },
	{ "tools empty", HEAD "    tier: T0\n    tools: []\n"
	  "    token_sha256: @0\n", 5, "a",
	  "tools: must name at least one tool" },
	{ "tools missing", HEAD "    tier: T0\n    token_sha256: @0\n", 2, "a",
	  "tools: missing" },
	{ "tool twice", HEAD "    tier: T0\n    tools:\n      - read_tasks\n"
	  "      - read_task\n      - read_tasks\n    token_sha256: @0\n", 8,
	  "a", "tools: read_tasks is listed twice" },
	{ "tool name", HEAD "    tier: T0\n    tools: [read_tasks, \"a b\"]\n"
	  "    token_sha256: @0\n", 5, "a",
	  "tools: a b is not a tool name (1 to 128 of A-Z a-z 0-9 _ - .)" },
	{ "tool name colon", HEAD "    tier: T1\n    tools: [\"gh:x\"]\n"
	  "    token_sha256: @0\n    eval_suite: evals\n", 5, "a",
	  "tools: gh:x is not a tool name (1 to 128 of A-Z a-z 0-9 _ - .)" },
	{ "tool not a string", HEAD "    tier: T1\n    tools: [[x]]\n"
	  "    token_sha256: @0\n    eval_suite: evals\n", 5, "a",
	  "tools: a list is not a tool name (1 to 128 of A-Z a-z 0-9 _ - .)" },
	{ "forbidden built-in", HEAD "    tier: T3\n"
	  "    tools: [read_tasks, set_owner]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n", 5, "a",
	  "tools: set_owner is in the forbidden write set" },
	{ "forbidden spelt otherwise", HEAD "    tier: T3\n"
	  "    tools: [SetDueDate]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n", 5, "a",
	  "tools: SetDueDate is in the forbidden write set" },
	{ "forbidden namespaced", HEAD "    tier: T3\n"
	  "    tools: [notion__delete_page]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n", 5, "a",
	  "tools: notion__delete_page is in the forbidden write set" },
	{ "forbidden at T0", HEAD "    tier: T0\n"
	  "    tools: [assign]\n    token_sha256: @0\n", 5, "a",
	  "tools: assign is in the forbidden write set" },
	{ "forbidden by the config", HEAD "    tier: T2\n"
	  "    tools: [github__update_issue]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n", 5, "a",
	  "tools: github__update_issue is in the forbidden write set" },
	{ "forbidden by the config, qualified", HEAD "    tier: T2\n"
	  "    tools: [notion__API-patch-page]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n", 5, "a",
	  "tools: notion__API-patch-page is in the forbidden write set" },
	{ "forbidden by the config, other upstream", HEAD "    tier: T2\n"
	  "    tools: [API-patch-page]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n", 5, "a",
	  "tools: API-patch-page is in the forbidden write set" },
	{ "forbidden by the policy", HEAD "    tier: T2\n"
	  "    tools: [archive]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n", 5, "a",
	  "tools: archive is in the forbidden write set" },
	{ "forbidden by the policy, namespaced", HEAD "    tier: T2\n"
	  "    tools: [x__archive]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n", 5, "a",
	  "tools: x__archive is in the forbidden write set" },
	{ "forbidden by the policy, qualified", HEAD "    tier: T2\n"
	  "    tools: [close_ticket]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n", 5, "a",
	  "tools: close_ticket is in the forbidden write set" },
	{ "create_draft at T0", HEAD "    tier: T0\n"
	  "    tools: [read_tasks, create_draft]\n    token_sha256: @0\n", 5,
	  "a",
	  "tools: create_draft needs tier T1 or above (this agent is T0)" },
	{ "comment at T1", HEAD "    tier: T1\n"
	  "    tools: [post_human_authored_comment]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n", 5, "a",
	  "tools: post_human_authored_comment needs tier T2 or above "
	  "(this agent is T1)" },
	{ "external at T2", HEAD "    tier: T2\n"
	  "    tools: [send_external_message]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n    budgets: { send_external_message: 1 }\n",
	  5, "a", "tools: send_external_message needs tier T3 or above "
	  "(this agent is T2)" },
	{ "T0 upstream tool", HEAD "    tier: T0\n"
	  "    tools: [github__create_issue]\n    token_sha256: @0\n", 5, "a",
	  "tools: github__create_issue is not marked read-only by the policy "
	  "(a T0 grant may name only read-only tools)" },

	/* token_sha256 */
	{ "token short", HEAD "    tier: T0\n    tools: [read_tasks]\n"
	  "    token_sha256: abcdef\n", 6, "a", "token_sha256: must be 64 "
	  "hexadecimal digits, the SHA-256 of the agent's token" },
	{ "token not hex", HEAD "    tier: T0\n    tools: [read_tasks]\n"
	  "    token_sha256: "
	  "g000000000000000000000000000000000000000000000000000000000000000\n",
	  6, "a", "token_sha256: must be 64 hexadecimal digits, the SHA-256 of "
	  "the agent's token" },
	{ "token 65 digits", HEAD "    tier: T0\n    tools: [read_tasks]\n"
	  "    token_sha256: @00\n", 6, "a", "token_sha256: must be 64 "
	  "hexadecimal digits, the SHA-256 of the agent's token" },
	{ "token of nothing", HEAD "    tier: T0\n    tools: [read_tasks]\n"
	  "    token_sha256: "
	  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n",
	  6, "a", "token_sha256: is the SHA-256 of the empty string, not of "
	  "a token" },
	{ "token duplicate", "agents:\n" T1_AGENT("ops-bot", "@1")
	  T1_AGENT("b", "@1"), 12, "b", "token_sha256: same as agent ops-bot" },
	{ "token duplicate, other case", "agents:\n"
	  T1_AGENT("ops-bot", "@1") T1_AGENT("b", "UPPER1"), 12, "b",
	  "token_sha256: same as agent ops-bot" },
	{ "token missing", HEAD "    tier: T0\n    tools: [read_tasks]\n", 2,
	  "a", "token_sha256: missing" },

	/* eval_suite */
	{ "eval_suite missing T1", HEAD "    tier: T1\n"
	  "    tools: [create_draft]\n    token_sha256: @0\n", 2, "a",
	  "eval_suite: required for tier T1" },
	{ "eval_suite missing T3", HEAD "    tier: T3\n"
	  "    tools: [read_tasks]\n    token_sha256: @0\n", 2, "a",
	  "eval_suite: required for tier T3" },
	{ "eval_suite absent file", HEAD "    tier: T1\n"
	  "    tools: [create_draft]\n    token_sha256: @0\n"
	  "    eval_suite: evals/none.yaml\n", 7, "a",
	  "eval_suite: evals/none.yaml does not exist" },
	{ "eval_suite under a file", HEAD "    tier: T2\n"
	  "    tools: [create_draft]\n    token_sha256: @0\n"
	  "    eval_suite: evals/a.yaml/x\n", 7, "a",
	  "eval_suite: evals/a.yaml/x does not exist" },
	{ "eval_suite absolute absent", HEAD "    tier: T1\n"
	  "    tools: [create_draft]\n    token_sha256: @0\n"
	  "    eval_suite: /nonexistent/evals.yaml\n", 7, "a",
	  "eval_suite: /nonexistent/evals.yaml does not exist" },
	{ "eval_suite not a string", HEAD "    tier: T1\n"
	  "    tools: [create_draft]\n    token_sha256: @0\n"
	  "    eval_suite: {}\n", 7, "a",
	  "eval_suite: must be a path, not a mapping" },
	{ "eval_suite at T0 checked too", HEAD "    tier: T0\n"
	  "    tools: [read_tasks]\n    token_sha256: @0\n"
	  "    eval_suite: nope\n", 7, "a", "eval_suite: nope does not exist" },

	/* budgets */
	{ "T3 without budgets", HEAD "    tier: T3\n"
	  "    tools: [send_external_message]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n", 2, "a",
	  "budgets: send_external_message needs a budget (T3)" },
	{ "T3 budgets without it", HEAD "    tier: T3\n"
	  "    tools: [send_external_message, create_draft]\n"
	  "    token_sha256: @0\n    eval_suite: evals\n"
	  "    budgets: { create_draft: 2 }\n", 8, "a",
	  "budgets: send_external_message needs a budget (T3)" },
	{ "budget not in grant", HEAD "    tier: T1\n"
	  "    tools: [create_draft]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n    budgets:\n      create_draft: 1\n"
	  "      x: 4\n", 10, "a", "budgets: x is not in the grant" },
	{ "budget zero", HEAD "    tier: T1\n"
	  "    tools: [create_draft]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n    budgets:\n      create_draft: 0\n", 9,
	  "a",
	  "budgets: create_draft must be an integer from 1 to 1000000000" },
	{ "budget too large", HEAD "    tier: T1\n"
	  "    tools: [create_draft]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n    budgets: { create_draft: 1000000001 }\n",
	  8, "a", "budgets: create_draft must be an integer from 1 to "
	  "1000000000" },
	{ "budget quoted", HEAD "    tier: T1\n"
	  "    tools: [create_draft]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n    budgets: { create_draft: \"3\" }\n",
	  8, "a", "budgets: create_draft must be an integer from 1 to "
	  "1000000000" },
	{ "budgets not a mapping", HEAD "    tier: T1\n"
	  "    tools: [create_draft]\n    token_sha256: @0\n"
	  "    eval_suite: evals\n    budgets: [create_draft]\n", 8, "a",
	  "budgets: must be a mapping of tool to calls per session, "
	  "not a list" },
};

START_TEST(test_rule)
{
	const struct rule_case *c = &rules[_i];
	char *text = NULL, *u, hex[65];
	int r;

	/* "UPPER1": the hash of token 1 in upper case */
	if ((u = strstr(c->text, "UPPER1")) != NULL) {
		hexhash("token-1", hex);
		for (r = 0; r < 64; r++)
			if (hex[r] >= 'a' && hex[r] <= 'f')
				hex[r] = (char)(hex[r] - 'a' + 'A');
		ck_assert_int_ne(asprintf(&text, "%.*s%s%s",
		    (int)(u - c->text), c->text, hex, u + 6), -1);
	}
	if (c->msg == NULL) {
		/* "agents missing": every key reported, then the absence */
		ck_assert_int_eq(load(c->text), 3);
		expect_report(0, 2, NULL, "some: unknown key");
		expect_report(1, 3, NULL, "other: unknown key");
		expect_report(2, 2, NULL, "agents: missing");
		return;
	}
	expect_one(text != NULL ? text : c->text, c->line, c->agent, c->msg);
	free(text);
}
END_TEST

/* ---- several problems, all of them ---------------------------------- */

START_TEST(test_all_reported)
{
	ck_assert_int_eq(load(
	    "agents:\n"
	    "  - id: ops-bot\n"				/* 2 */
	    "    owner: o\n"
	    "    tier: T1\n"
	    "    tools: [create_draft, set_status, send_external_message]\n"
	    "    token_sha256: @0\n"
	    "  - id: bad id\n"				/* 7 */
	    "    owner: o\n"
	    "    tier: T9\n"
	    "    tools: [read_tasks]\n"
	    "    token_sha256: @0\n"
	    "    budgets: { send_external_message: 0 }\n"
	    "  - id: ops-bot\n"				/* 13 */
	    "    tier: T3\n"
	    "    tools: [send_external_message]\n"
	    "    token_sha256: @2\n"
	    "    eval_suite: evals/missing\n"
	    "    what: 1\n"), 12);
	expect_report(0, 5, "ops-bot",
	    "tools: set_status is in the forbidden write set");
	expect_report(1, 5, "ops-bot", "tools: send_external_message "
	    "needs tier T3 or above (this agent is T1)");
	expect_report(2, 2, "ops-bot", "eval_suite: required for tier T1");
	expect_report(3, 7, NULL, "id: must be 1 to 64 of A-Z a-z 0-9 . _ -");
	expect_report(4, 9, NULL, "tier: must be T0, T1, T2 or T3");
	expect_report(5, 11, NULL, "token_sha256: same as agent ops-bot");
	expect_report(6, 12, NULL, "budgets: send_external_message is not in "
	    "the grant");
	expect_report(7, 13, "ops-bot", "id: duplicate of line 2");
	expect_report(8, 18, "ops-bot", "what: unknown key");
	expect_report(9, 13, "ops-bot", "owner: missing");
	expect_report(10, 17, "ops-bot",
	    "eval_suite: evals/missing does not exist");
	expect_report(11, 13, "ops-bot",
	    "budgets: send_external_message needs a budget (T3)");
}
END_TEST

/* One problem in the second agent, and the first is not kept either. */
START_TEST(test_nothing_kept)
{
	ck_assert_int_eq(load("agents:\n" T1_AGENT("a", "@0")
	    T1_AGENT("b", "@1") "    colour: x\n"), 1);
	ck_assert_ptr_null(reg);
	expect_report(0, 14, "b", "colour: unknown key");
}
END_TEST

/* No report callback: the count alone. */
START_TEST(test_no_callback)
{
	char *t = expand(HEAD "    tier: T0\n    tools: [set_owner, assign]\n"
	    "    token_sha256: @0\n");
	struct registry *r = NULL;

	write_file("agents-nocb.yaml", t, strlen(t));
	free(t);
	snprintf(path, sizeof(path), "%s/agents-nocb.yaml", testdir_path());
	ck_assert_int_eq(registry_load(path, NULL, NULL, 0, NULL, NULL, &r),
	    2);
	ck_assert_ptr_null(r);
}
END_TEST

/* ---- limits ------------------------------------------------------- */

/* n T0 agents, each with its own token */
static char *
many_agents(size_t n, size_t *lenp)
{
	char tok[32], hex[65], *t;
	size_t i, o = 0, cap = 64 + n * 160;

	ck_assert_ptr_nonnull(t = malloc(cap));
	o += (size_t)snprintf(t, cap, "agents:\n");
	for (i = 0; i < n; i++) {
		snprintf(tok, sizeof(tok), "many-%zu", i);
		hexhash(tok, hex);
		o += (size_t)snprintf(t + o, cap - o, "  - id: agent%zu\n"
		    "    owner: o\n    tier: T0\n    tools: [read_tasks]\n"
		    "    token_sha256: %s\n", i, hex);
		ck_assert_uint_lt(o, cap);
	}
	*lenp = o;
	return t;
}

START_TEST(test_agents_limit)
{
	const struct registry_agent *a;
	char *t;
	size_t len;

	t = many_agents(BNC_AGENTS_MAX, &len);
	ck_assert_int_eq(load(t), 0);
	free(t);
	ck_assert_uint_eq(registry_nagents(reg), BNC_AGENTS_MAX);
	ck_assert_ptr_nonnull(a = registry_find_token(reg, "many-1023", 9));
	ck_assert_str_eq(a->id, "agent1023");
	ck_assert_ptr_nonnull(a = registry_find_token(reg, "many-0", 6));
	ck_assert_str_eq(a->id, "agent0");
	t = many_agents(BNC_AGENTS_MAX + 1, &len);
	ck_assert_int_eq(load(t), 1);
	free(t);
	expect_report(0, 2, NULL, "agents: more than 1024 agents");
}
END_TEST

START_TEST(test_tools_limit)
{
	char *t;
	size_t i, o, cap = 64 * 1024;
	int n;

	for (n = BNC_GRANT_TOOLS_MAX; n <= BNC_GRANT_TOOLS_MAX + 1; n++) {
		ck_assert_ptr_nonnull(t = malloc(cap));
		o = (size_t)snprintf(t, cap, HEAD "    tier: T1\n"
		    "    token_sha256: @0\n    eval_suite: evals\n"
		    "    tools:\n");
		for (i = 0; i < (size_t)n; i++)
			o += (size_t)snprintf(t + o, cap - o,
			    "      - tool%zu\n", i);
		if (n == BNC_GRANT_TOOLS_MAX) {
			ck_assert_int_eq(load(t), 0);
			ck_assert_uint_eq(registry_agent(reg, 0)->ntools,
			    BNC_GRANT_TOOLS_MAX);
		} else {
			ck_assert_int_eq(load(t), 1);
			expect_report(0, 8, "a", "tools: more than 256 tools");
		}
		free(t);
	}
}
END_TEST

START_TEST(test_id_owner_limits)
{
	char text[1024], id[BNC_AGENT_ID_MAX + 2];
	char owner[BNC_AGENT_OWNER_MAX + 2];

	memset(id, 'i', sizeof(id));
	memset(owner, 'o', sizeof(owner));
	id[BNC_AGENT_ID_MAX] = '\0';
	owner[BNC_AGENT_OWNER_MAX] = '\0';
	snprintf(text, sizeof(text), "agents:\n  - id: %s\n    owner: %s\n"
	    "    tier: T0\n    tools: [read_tasks]\n    token_sha256: @0\n",
	    id, owner);
	ck_assert_int_eq(load(text), 0);
	ck_assert_ptr_nonnull(registry_find_id(reg, id));
	id[BNC_AGENT_ID_MAX] = 'i';
	id[BNC_AGENT_ID_MAX + 1] = '\0';
	snprintf(text, sizeof(text), "agents:\n  - id: %s\n    owner: o\n"
	    "    tier: T0\n    tools: [read_tasks]\n    token_sha256: @0\n",
	    id);
	expect_one(text, 2, NULL, "id: must be 1 to 64 of A-Z a-z 0-9 . _ -");
	owner[BNC_AGENT_OWNER_MAX] = 'o';
	owner[BNC_AGENT_OWNER_MAX + 1] = '\0';
	snprintf(text, sizeof(text), "agents:\n  - id: a\n    owner: %s\n"
	    "    tier: T0\n    tools: [read_tasks]\n    token_sha256: @0\n",
	    owner);
	expect_one(text, 3, "a", "owner: must be 1 to 256 bytes");
}
END_TEST

START_TEST(test_tool_name_limit)
{
	char text[1024], name[BNC_TOOL_NAME_MAX + 2], msg[512];

	memset(name, 'n', sizeof(name));
	name[BNC_TOOL_NAME_MAX] = '\0';
	snprintf(text, sizeof(text), HEAD "    tier: T1\n    tools: [%s]\n"
	    "    token_sha256: @0\n    eval_suite: evals\n", name);
	ck_assert_int_eq(load(text), 0);
	name[BNC_TOOL_NAME_MAX] = 'n';
	name[BNC_TOOL_NAME_MAX + 1] = '\0';
	snprintf(text, sizeof(text), HEAD "    tier: T1\n    tools: [%s]\n"
	    "    token_sha256: @0\n    eval_suite: evals\n", name);
	snprintf(msg, sizeof(msg), "tools: %s is not a tool name (1 to 128 of "
	    "A-Z a-z 0-9 _ - .)", name);
	expect_one(text, 5, "a", msg);
}
END_TEST

START_TEST(test_file_limit)
{
	char *t;
	size_t n, len;

	/* a valid file of BNC_REGISTRY_MAX bytes, padded by a comment */
	t = many_agents(1, &len);
	n = BNC_REGISTRY_MAX + 1;
	ck_assert_ptr_nonnull(t = realloc(t, n + 1));
	t[len++] = '#';
	memset(t + len, 'x', BNC_REGISTRY_MAX - len - 1);
	t[BNC_REGISTRY_MAX - 1] = '\n';
	t[BNC_REGISTRY_MAX] = '\0';
	ck_assert_int_eq(load(t), 0);
	/* one byte more */
	t[BNC_REGISTRY_MAX - 1] = 'x';
	t[BNC_REGISTRY_MAX] = '\n';
	t[BNC_REGISTRY_MAX + 1] = '\0';
	ck_assert_int_eq(load(t), -BNC_ERR_TOO_LARGE);
	free(t);
	ck_assert_int_eq(nreports, 1);
	expect_report(0, 0, NULL, "(file): larger than 1048576 bytes");
}
END_TEST

/* ---- errors -------------------------------------------------------- */

START_TEST(test_unreadable)
{
	struct registry *r = (struct registry *)&r;

	nreports = 0;
	snprintf(path, sizeof(path), "%s/no-such.yaml", testdir_path());
	errno = 0;
	ck_assert_int_eq(registry_load(path, NULL, NULL, 0, collect, NULL,
	    &r), -BNC_ERR_SYS);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_null(r);
	ck_assert_int_eq(nreports, 1);
	expect_report(0, 0, NULL, "(file): No such file or directory");

	nreports = 0;
	snprintf(path, sizeof(path), "%s/evals", testdir_path());
	ck_assert_int_eq(registry_load(path, NULL, NULL, 0, collect, NULL,
	    &r), -BNC_ERR_BAD_FORMAT);
	expect_report(0, 0, NULL, "(file): not a regular file");
}
END_TEST

static Suite *
registry_suite(void)
{
	Suite *s = suite_create("registry");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_clean);
	tcase_add_test(tc, test_find_token);
	tcase_add_test(tc, test_budgets);
	tcase_add_test(tc, test_no_agents);
	tcase_add_loop_test(tc, test_t0_read_only, 0, NELEM(ro_cases));
	tcase_add_test(tc, test_t0_user_over_pack);
	suite_add_tcase(s, tc);
	tc = tcase_create("limits");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_agents_limit);
	tcase_add_test(tc, test_tools_limit);
	tcase_add_test(tc, test_id_owner_limits);
	tcase_add_test(tc, test_tool_name_limit);
	tcase_add_test(tc, test_file_limit);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_loop_test(tc, test_rule, 0, NELEM(rules));
	tcase_add_test(tc, test_all_reported);
	tcase_add_test(tc, test_nothing_kept);
	tcase_add_test(tc, test_no_callback);
	tcase_add_test(tc, test_unreadable);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(registry_suite());
	char p[512];
	int failed;

	if (sodium_init() < 0)
		return 99;
	testdir_create("check_registry");
	snprintf(p, sizeof(p), "%s/evals", testdir_path());
	if (mkdir(p, 0700) != 0 ||
	    put_file("evals/a.yaml", "cases: []\n", 10) != 0 ||
	    put_file("evals/drafter.yaml", "cases: []\n", 10) != 0 ||
	    put_file("evals/sender.yaml", "cases: []\n", 10) != 0 ||
	    put_file("policy.yaml", policy_text, strlen(policy_text)) != 0 ||
	    put_file("pack.yaml", pack_text, strlen(pack_text)) != 0)
		return 99;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	testdir_remove();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
