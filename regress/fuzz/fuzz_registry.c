/*
 * fuzz_registry.c - libFuzzer harness for the agent registry,
 * agents.yaml (monitor/registry.c over monitor/yaml-tree.c).
 *
 * The input is a whole registry.  registry.h only loads from a path, so
 * the bytes go to a file under /dev/shm (or TMPDIR when /dev/shm is
 * missing); the same scratch file first holds a small policy, loaded
 * once, so that T0 grants of upstream tools and forbidden entries are
 * reached.  A refused file must have been reported once per problem, each
 * report one line naming the file; an accepted one must hold only what
 * bouncer-agents(5) allows: every bound of bounds.h, ids and tokens
 * unique, grants within their tier and outside the forbidden set,
 * budgets on granted tools, the per-tier keys present.  It must never
 * write anywhere but its one scratch file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounds.h"
#include "err.h"
#include "fuzz.h"
#include "policy.h"
#include "registry.h"

static const char policy_text[] =
	"github:get_issue: { read_only: true }\n"
	"list_issues: { read_only: true }\n"
	"archive: { forbidden: true }\n";

static char *extra[] = { "notion:API-patch-page", "update_issue" };

static struct policy *pol;

struct seen {
	int	n;
};

static void
report(void *arg, const char *file, unsigned long line, const char *agent,
    const char *msg)
{
	struct seen *s = arg;

	FUZZ_CHECK(strcmp(file, fuzz_scratch) == 0);
	FUZZ_CHECK(msg != NULL && msg[0] != '\0' && strchr(msg, '\n') == NULL);
	FUZZ_CHECK(strlen(msg) < BNC_REASON_MAX);
	FUZZ_CHECK(agent == NULL || (agent[0] != '\0' &&
	    strlen(agent) <= BNC_AGENT_ID_MAX));
	(void)line;
	s->n++;
}

static int
id_ok(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= BNC_AGENT_ID_MAX &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") == n && strcmp(s, "-") != 0 &&
	    strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

/* The lowest tier that may hold a built-in tool; -1 for an upstream's. */
static int
builtin_tier(const char *t)
{
	static const struct {
		const char	*name;
		int		 tier;
	} b[] = {
		{ "read_tasks", 0 }, { "read_task", 0 }, { "read_comments", 0 },
		{ "create_draft", 1 }, { "post_human_authored_comment", 2 },
		{ "send_external_message", 3 },
	};
	size_t i;

	for (i = 0; i < sizeof(b) / sizeof(b[0]); i++)
		if (strcmp(b[i].name, t) == 0)
			return b[i].tier;
	return -1;
}

static void
check_agent(const struct registry *reg, const struct registry_agent *a)
{
	size_t i, j;
	int bt;

	FUZZ_CHECK(a->id != NULL && id_ok(a->id));
	FUZZ_CHECK(registry_find_id(reg, a->id) == a);
	FUZZ_CHECK(a->owner != NULL && a->owner[0] != '\0' &&
	    strlen(a->owner) <= BNC_AGENT_OWNER_MAX);
	FUZZ_CHECK(registry_tier_name(a->tier) != NULL);
	FUZZ_CHECK(a->ntools >= 1 && a->ntools <= BNC_GRANT_TOOLS_MAX);
	for (i = 0; i < a->ntools; i++) {
		FUZZ_CHECK(a->tools[i] != NULL && a->tools[i][0] != '\0' &&
		    strlen(a->tools[i]) <= BNC_TOOL_NAME_MAX);
		FUZZ_CHECK(registry_grants(a, a->tools[i]));
		FUZZ_CHECK(!policy_forbidden(pol, NULL, a->tools[i]));
		bt = builtin_tier(a->tools[i]);
		if (bt >= 0)
			FUZZ_CHECK(a->tier >= bt);
		else if (a->tier == REGISTRY_T0)
			FUZZ_CHECK(policy_marks_read_only(pol, a->tools[i]));
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(a->tools[i], a->tools[j]) != 0);
	}
	FUZZ_CHECK(a->nbudgets <= a->ntools);
	for (i = 0; i < a->nbudgets; i++) {
		FUZZ_CHECK(registry_grants(a, a->budgets[i].tool));
		FUZZ_CHECK(a->budgets[i].max >= 1 &&
		    a->budgets[i].max <= BNC_POLICY_MAX_CALLS_MAX);
		FUZZ_CHECK(registry_budget(a, a->budgets[i].tool) ==
		    a->budgets[i].max);
	}
	if (a->tier >= REGISTRY_T1)
		FUZZ_CHECK(a->eval_suite != NULL);
	if (registry_grants(a, "send_external_message"))
		FUZZ_CHECK(registry_budget(a, "send_external_message") >= 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct registry_agent *a, *b;
	struct registry *reg = NULL;
	struct seen seen = { 0 };
	char err[1024];
	size_t i, j;
	int r;

	if (fuzz_scratch[0] == '\0') {
		fuzz_scratch_open("fuzz_registry");
		fuzz_scratch_write((const uint8_t *)policy_text,
		    strlen(policy_text));
		pol = policy_new();
		FUZZ_CHECK(policy_load_file(pol, fuzz_scratch, 0, err,
		    sizeof(err)) == 0);
		for (i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
			policy_add_forbidden(pol, extra[i]);
	}
	if (size > BNC_REGISTRY_MAX)
		return 0;
	fuzz_scratch_write(data, size);
	r = registry_load(fuzz_scratch, pol, extra,
	    sizeof(extra) / sizeof(extra[0]), report, &seen, &reg);
	if (r != 0) {
		/* the file is there and small enough: it can be read */
		FUZZ_CHECK(r > 0 && r == seen.n && reg == NULL);
		return 0;
	}
	FUZZ_CHECK(reg != NULL && seen.n == 0);
	FUZZ_CHECK(registry_nagents(reg) <= BNC_AGENTS_MAX);
	for (i = 0; i < registry_nagents(reg); i++) {
		a = registry_agent(reg, i);
		check_agent(reg, a);
		for (j = 0; j < i; j++) {
			b = registry_agent(reg, j);
			FUZZ_CHECK(strcmp(a->id, b->id) != 0);
			FUZZ_CHECK(memcmp(a->token_sha256, b->token_sha256,
			    sizeof(a->token_sha256)) != 0);
		}
	}
	FUZZ_CHECK(registry_agent(reg, i) == NULL);
	registry_free(reg);
	return 0;
}
