/*
 * check_packs.c - the shipped packs (packs/NAME.yaml) against the real
 * servers' tool lists (regress/data/tools/NAME.json).
 *
 * Each pack must be complete for the server it names: every tool has an
 * entry, every entry is a real tool, every parameter a pack names is in
 * that tool's input schema, every destination-shaped argument is declared
 * (or the tool is forbidden or read-only), and no entry is weaker than
 * what the heuristics would have said.  The forbidden writes of DESIGN 5
 * and 6 are forbidden.  The tool lists are test data only: this program
 * parses JSON with cJSON, which the monitor itself never does.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <cjson/cJSON.h>

#include "bounds.h"
#include "policy.h"
#include "testjson.h"
#include "value.h"

/*
 * Every shipped pack, the tool list it is checked against, its size, and
 * the serverInfo.name that server answers initialize with (its pack's
 * (server)): filesystem, github and notion as captured on the wire
 * (../shared/fixtures/transcripts), the others from the servers' sources
 * at the versions checked.
 */
static const struct pack {
	const char	*name;
	const char	*tools;
	int		 ntools;
	const char	*server;
} packs[] = {
	/* server-filesystem 2026.8.31 */
	{ "filesystem", "filesystem.json", 14, "secure-filesystem-server" },
	/* server-github 2025.4.8 */
	{ "github", "github.json", 26, "github-mcp-server" },
	/* gongrzhe server-gmail-autoauth-mcp 1.1.11 */
	{ "gmail", "gmail.json", 19, "gmail" },
	/* server-slack 2025.4.25 */
	{ "slack", "slack.json", 8, "Slack MCP Server" },
	/* server-gdrive 2025.1.14 */
	{ "gdrive", "gdrive.json", 1, "example-servers/gdrive" },
	/* notion-mcp-server 2.5.2 */
	{ "notion", "notion.json", 24, "Notion API" },
};

#define NPACKS	(sizeof(packs) / sizeof(packs[0]))

static char err[2048];

static const char *
srcdir(void)
{
	const char *s = getenv("top_srcdir");

	return s != NULL ? s : ".";
}

static char *
slurp(const char *path)
{
	FILE *f;
	char *buf;
	long n;

	ck_assert_msg((f = fopen(path, "rb")) != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

struct server {
	cJSON		*root;
	const cJSON	*tools;
};

static void
server_load(struct server *sv, const struct pack *pk)
{
	char path[512];
	char *text;

	snprintf(path, sizeof(path), "%s/regress/data/tools/%s", srcdir(),
	    pk->tools);
	text = slurp(path);
	ck_assert_msg((sv->root = cJSON_Parse(text)) != NULL, "%s: bad JSON",
	    path);
	free(text);
	sv->tools = cJSON_GetObjectItemCaseSensitive(sv->root, "tools");
	ck_assert_msg(cJSON_IsArray(sv->tools), "%s: no tools", path);
	ck_assert_int_eq(cJSON_GetArraySize(sv->tools), pk->ntools);
}

static const cJSON *
server_tool(const struct server *sv, const char *name)
{
	const cJSON *t, *n;

	cJSON_ArrayForEach(t, sv->tools) {
		n = cJSON_GetObjectItemCaseSensitive(t, "name");
		if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
			return t;
	}
	return NULL;
}

static const cJSON *
properties(const cJSON *tool)
{
	const cJSON *s;

	s = cJSON_GetObjectItemCaseSensitive(tool, "inputSchema");
	return cJSON_GetObjectItemCaseSensitive(s, "properties");
}

static int
has(char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

static struct policy *
pack_load(const struct pack *pk)
{
	struct policy *p = policy_new();
	char path[512];

	snprintf(path, sizeof(path), "%s/packs/%s.yaml", srcdir(), pk->name);
	ck_assert_msg(policy_load_file(p, path, 1, err, sizeof(err)) == 0,
	    "%s", err);
	return p;
}

/* Every entry is a real tool; every parameter it names exists. */
START_TEST(test_entries_exist)
{
	const struct pack *pk = &packs[_i];
	const struct tool_policy *tp;
	const cJSON *tool, *props;
	struct server sv;
	struct policy *p;
	size_t i, j;

	p = pack_load(pk);
	server_load(&sv, pk);
	ck_assert_uint_gt(policy_nentries(p), 0);
	for (i = 0; i < policy_nentries(p); i++) {
		tp = policy_entry(p, i);
		ck_assert_str_eq(tp->source, "pack");
		ck_assert_msg(strchr(tp->name, ':') == NULL, "%s: %s is "
		    "qualified", pk->name, tp->name);
		tool = server_tool(&sv, tp->name);
		ck_assert_msg(tool != NULL, "%s pack: %s is not a tool of the "
		    "server", pk->name, tp->name);
		props = properties(tool);
		for (j = 0; j < tp->nsink; j++)
			ck_assert_msg(cJSON_GetObjectItemCaseSensitive(props,
			    tp->sink_params[j]) != NULL, "%s: %s: no sink "
			    "parameter %s", pk->name, tp->name,
			    tp->sink_params[j]);
		for (j = 0; j < tp->nwrite; j++)
			ck_assert_msg(cJSON_GetObjectItemCaseSensitive(props,
			    tp->write_params[j]) != NULL, "%s: %s: no write "
			    "parameter %s", pk->name, tp->name,
			    tp->write_params[j]);
		for (j = 0; j < tp->npatterns; j++)
			ck_assert_msg(cJSON_GetObjectItemCaseSensitive(props,
			    tp->patterns[j].param) != NULL, "%s: %s: no "
			    "pattern parameter %s", pk->name, tp->name,
			    tp->patterns[j].param);
		/* packs confine nothing by themselves (seed 12) */
		ck_assert_uint_eq(tp->nprefixes, 0);
		ck_assert_uint_eq(tp->ntrusted, 0);
	}
	cJSON_Delete(sv.root);
	policy_free(p);
}
END_TEST

/*
 * Complete: every tool of the server has an entry; every destination-
 * shaped argument is a declared sink unless the tool is forbidden or
 * only reads; nothing is weaker than the heuristics' guess.
 */
START_TEST(test_complete)
{
	const struct pack *pk = &packs[_i];
	const struct tool_policy *tp, *h;
	const cJSON *tool, *props, *pr, *name;
	struct policy *p, *bare;
	struct server sv;
	struct value *schema;
	size_t j;

	p = pack_load(pk);
	/* the server the pack names: every entry applies */
	policy_scope_upstream(p, "srv", pk->server);
	bare = policy_new();
	server_load(&sv, pk);
	cJSON_ArrayForEach(tool, sv.tools) {
		name = cJSON_GetObjectItemCaseSensitive(tool, "name");
		tp = policy_for(p, "srv", name->valuestring, NULL);
		ck_assert_msg(strcmp(tp->source, "pack") == 0, "%s pack has "
		    "no entry for %s", pk->name, name->valuestring);
		if (tp->forbidden)
			continue;
		props = properties(tool);
		cJSON_ArrayForEach(pr, props) {
			/* a path the server confines is no destination */
			if (!heuristics_dest_name(pr->string) || tp->read_only ||
			    has(tp->write_params, tp->nwrite, pr->string))
				continue;
			ck_assert_msg(tp->exfiltrating &&
			    has(tp->sink_params, tp->nsink, pr->string),
			    "%s: %s: destination-shaped %s is not a declared "
			    "sink", pk->name, tp->name, pr->string);
		}
		schema = testjson_value(cJSON_GetObjectItemCaseSensitive(tool,
		    "inputSchema"));
		h = policy_for(bare, "srv", name->valuestring, schema);
		value_free(schema);
		for (j = 0; j < h->nsink && !tp->read_only; j++) {
			if (has(tp->write_params, tp->nwrite,
			    h->sink_params[j]))
				continue;
			ck_assert_msg(tp->exfiltrating && has(tp->sink_params,
			    tp->nsink, h->sink_params[j]), "%s: %s: heuristics "
			    "say %s is a sink", pk->name, tp->name,
			    h->sink_params[j]);
		}
		if (h->max_calls >= 0)
			ck_assert_msg(tp->confirm || (tp->max_calls >= 0 &&
			    tp->max_calls <= h->max_calls), "%s: %s: weaker "
			    "than the heuristics' budget", pk->name, tp->name);
	}
	cJSON_Delete(sv.root);
	policy_free(bare);
	policy_free(p);
}
END_TEST

/*
 * Another server's tool of a pack's name (bouncer-policy(5), SCOPE): an
 * entry applies only where it fits the tool's schema, never grants trust
 * on the name alone, and is never weaker than the heuristics there.  The
 * real schemas fit their own entries, so an entry that names parameters
 * still applies to a server that calls itself something else.
 */
START_TEST(test_foreign_server)
{
	const struct pack *pk = &packs[_i];
	const struct tool_policy *tp, *own, *h;
	const cJSON *tool, *name;
	struct policy *p, *named, *bare;
	struct server sv;
	struct value *schema;
	size_t applied = 0;

	p = pack_load(pk);
	policy_scope_upstream(p, "other", "not-the-server");
	named = pack_load(pk);
	policy_scope_upstream(named, "srv", pk->server);
	bare = policy_new();
	server_load(&sv, pk);
	cJSON_ArrayForEach(tool, sv.tools) {
		name = cJSON_GetObjectItemCaseSensitive(tool, "name");
		schema = testjson_value(cJSON_GetObjectItemCaseSensitive(tool,
		    "inputSchema"));
		own = policy_for(named, "srv", name->valuestring, NULL);
		tp = policy_for(p, "other", name->valuestring, schema);
		h = policy_for(bare, "other", name->valuestring, schema);
		value_free(schema);
		if (own->forbidden) {
			ck_assert_int_eq(tp->forbidden, 1);
			continue;
		}
		if (own->read_only && own->nsink + own->nwrite +
		    own->npatterns == 0)
			ck_assert_msg(strcmp(tp->source, "pack") != 0 &&
			    !tp->read_only, "%s: %s: read_only applied to "
			    "another server", pk->name, own->name);
		if (strcmp(tp->source, "pack") != 0)
			continue;
		applied++;
		ck_assert_str_eq(tp->name, own->name);
		ck_assert_uint_eq(tp->line, own->line);
		ck_assert_msg(!h->exfiltrating || tp->exfiltrating, "%s: %s: "
		    "applied, weaker than the heuristics", pk->name, tp->name);
		ck_assert_msg(own->nsink + own->nwrite + own->npatterns > 0 ||
		    !own->read_only, "%s", own->name);
	}
	/* the entries that name parameters, at least, still apply */
	if (strcmp(pk->name, "gdrive") != 0)
		ck_assert_uint_gt(applied, 0);
	cJSON_Delete(sv.root);
	policy_free(bare);
	policy_free(named);
	policy_free(p);
}
END_TEST

/* Every *.yaml in packs/ is one of the packs checked here. */
START_TEST(test_no_unchecked_pack)
{
	char path[512];
	DIR *d;
	struct dirent *de;
	size_t i, l, n = 0;

	snprintf(path, sizeof(path), "%s/packs", srcdir());
	ck_assert_ptr_nonnull(d = opendir(path));
	while ((de = readdir(d)) != NULL) {
		l = strlen(de->d_name);
		if (l < 6 || strcmp(de->d_name + l - 5, ".yaml") != 0)
			continue;
		for (i = 0; i < NPACKS; i++)
			if (strncmp(de->d_name, packs[i].name, l - 5) == 0 &&
			    strlen(packs[i].name) == l - 5)
				break;
		ck_assert_msg(i < NPACKS, "pack %s is not checked",
		    de->d_name);
		n++;
	}
	closedir(d);
	ck_assert_uint_eq(n, NPACKS);
}
END_TEST

static int lint_count;

static void
lint_print(const char *msg, void *arg)
{
	fprintf(stderr, "lint: %s\n", msg);
	lint_count++;
}

/* All packs together, as the monitor loads them: no clash, no warning. */
static struct policy *
all_packs(void)
{
	/* the upstream names test_pack_contents uses, each its server */
	static const struct {
		const char	*upstream;
		const char	*server;
	} ups[] = {
		{ "fs", "secure-filesystem-server" },
		{ "gh", "github-mcp-server" },
		{ "mail", "gmail" },
		{ "slack", "Slack MCP Server" },
		{ "gd", "example-servers/gdrive" },
		{ "notion", "Notion API" },
	};
	struct policy *p = policy_new();
	char path[512];
	size_t i;

	snprintf(path, sizeof(path), "%s/packs", srcdir());
	ck_assert_msg(policy_load_dir(p, path, 1, err, sizeof(err)) == 0,
	    "%s", err);
	for (i = 0; i < sizeof(ups) / sizeof(ups[0]); i++)
		policy_scope_upstream(p, ups[i].upstream, ups[i].server);
	return p;
}

START_TEST(test_all_packs)
{
	struct policy *p = all_packs();
	size_t i, total = 0;

	for (i = 0; i < NPACKS; i++)
		total += (size_t)packs[i].ntools;
	/* complete packs, and no tool name in two of them */
	ck_assert_uint_eq(policy_nentries(p), total);
	lint_count = 0;
	ck_assert_int_eq(policy_lint(p, lint_print, NULL), 0);
	ck_assert_int_eq(lint_count, 0);
	policy_free(p);
}
END_TEST

/* DESIGN 5-6: commitments are never written; notion and github writes. */
START_TEST(test_forbidden_writes)
{
	static const char *const forbidden[] = {
		"API-patch-page", "API-post-page", "API-move-page",
		"API-update-page-markdown", "API-patch-block-children",
		"API-update-a-block", "API-delete-a-block",
		"API-create-a-data-source", "API-update-a-data-source",
		"update_issue", "merge_pull_request",
	};
	static const char *const allowed[] = {
		"API-create-a-comment", "API-retrieve-a-page",
		"API-query-data-source", "add_issue_comment", "create_issue",
		"send_email", "slack_post_message", "write_file", "search",
	};
	struct policy *p = all_packs();
	size_t i, n = 0;

	for (i = 0; i < sizeof(forbidden) / sizeof(forbidden[0]); i++) {
		ck_assert_msg(policy_forbidden(p, "any", forbidden[i]), "%s",
		    forbidden[i]);
		ck_assert_int_eq(policy_for(p, "any", forbidden[i],
		    NULL)->forbidden, 1);
	}
	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		ck_assert_msg(!policy_forbidden(p, "any", allowed[i]), "%s",
		    allowed[i]);
	for (i = 0; i < policy_nentries(p); i++)
		n += policy_entry(p, i)->forbidden;
	ck_assert_uint_eq(n, sizeof(forbidden) / sizeof(forbidden[0]));
	policy_free(p);
}
END_TEST

static int
pm(const struct tool_policy *tp, const char *param, const char *s)
{
	size_t i;

	for (i = 0; i < tp->npatterns; i++)
		if (strcmp(tp->patterns[i].param, param) == 0)
			return policy_pattern_match(&tp->patterns[i], s,
			    strlen(s));
	ck_abort_msg("%s has no pattern for %s", tp->name, param);
	return -1;
}

/* The seed's pack table (12), with the real servers' names. */
START_TEST(test_pack_contents)
{
	struct policy *p = all_packs();
	const struct tool_policy *tp;

	tp = policy_for(p, "fs", "write_file", NULL);
	ck_assert_uint_eq(tp->nwrite, 1);
	ck_assert_str_eq(tp->write_params[0], "path");
	ck_assert_int_eq(tp->exfiltrating, 0);
	tp = policy_for(p, "fs", "move_file", NULL);
	ck_assert_uint_eq(tp->nwrite, 2);
	ck_assert_str_eq(tp->write_params[1], "destination");
	/* seed bug 18.7: no delete_file in the filesystem pack */
	ck_assert_str_ne(policy_for(p, "fs", "delete_file", NULL)->source,
	    "pack");
	ck_assert_int_eq(policy_for(p, "fs", "read_file", NULL)->read_only, 1);

	tp = policy_for(p, "mail", "send_email", NULL);
	ck_assert_int_eq(tp->exfiltrating, 1);
	ck_assert_uint_eq(tp->nsink, 3);
	ck_assert_str_eq(tp->sink_params[0], "to");
	ck_assert_str_eq(tp->sink_params[1], "cc");
	ck_assert_str_eq(tp->sink_params[2], "bcc");
	ck_assert_int_eq(tp->tainted, TAINTED_DENY);
	tp = policy_for(p, "mail", "create_filter", NULL);
	ck_assert_int_eq(tp->exfiltrating, 1);
	ck_assert_int_eq(tp->confirm, 1);
	ck_assert_int_eq(policy_for(p, "mail", "delete_email", NULL)->confirm,
	    1);
	tp = policy_for(p, "mail", "download_attachment", NULL);
	ck_assert_int_eq(pm(tp, "filename", "report.pdf"), 1);
	ck_assert_int_eq(pm(tp, "filename", ".bashrc"), 1);
	ck_assert_int_eq(pm(tp, "filename", "../../.ssh/authorized_keys"), 0);
	ck_assert_int_eq(pm(tp, "filename", "a/b"), 0);
	ck_assert_int_eq(pm(tp, "filename", "a\\b"), 0);
	ck_assert_int_eq(pm(tp, "filename", ".."), 0);
	ck_assert_int_eq(pm(tp, "filename", "."), 0);
	ck_assert_int_eq(pm(tp, "filename", ""), 0);

	tp = policy_for(p, "slack", "slack_post_message", NULL);
	ck_assert_int_eq(tp->exfiltrating, 1);
	ck_assert_uint_eq(tp->nsink, 1);
	ck_assert_str_eq(tp->sink_params[0], "channel_id");
	ck_assert_int_eq(policy_for(p, "slack", "slack_reply_to_thread",
	    NULL)->exfiltrating, 1);

	tp = policy_for(p, "gh", "create_issue", NULL);
	ck_assert_int_eq(tp->exfiltrating, 1);
	ck_assert_uint_eq(tp->nsink, 2);
	ck_assert_str_eq(tp->sink_params[0], "owner");
	ck_assert_str_eq(tp->sink_params[1], "repo");
	/* non-strings are matched on their JSON text */
	ck_assert_int_eq(pm(tp, "assignees", "[]"), 1);
	ck_assert_int_eq(pm(tp, "assignees", "null"), 1);
	ck_assert_int_eq(pm(tp, "assignees", "[\"bob\"]"), 0);
	ck_assert_int_eq(pm(tp, "labels", "[\"in progress\"]"), 0);
	ck_assert_int_eq(pm(tp, "milestone", "3"), 0);
	ck_assert_int_eq(pm(tp, "milestone", "null"), 1);
	tp = policy_for(p, "gh", "create_pull_request_review", NULL);
	ck_assert_int_eq(pm(tp, "event", "COMMENT"), 1);
	ck_assert_int_eq(pm(tp, "event", "APPROVE"), 0);
	ck_assert_int_eq(pm(tp, "event", "REQUEST_CHANGES"), 0);
	ck_assert_int_eq(pm(tp, "event", "COMMENTAPPROVE"), 0);
	tp = policy_for(p, "gh", "fork_repository", NULL);
	ck_assert_uint_eq(tp->nsink, 3);
	ck_assert_int_eq(policy_for(p, "gh", "create_repository",
	    NULL)->confirm, 1);

	tp = policy_for(p, "notion", "API-create-a-comment", NULL);
	ck_assert_int_eq(tp->exfiltrating, 1);
	ck_assert_str_eq(tp->sink_params[0], "parent");
	ck_assert_int_eq(tp->tainted, TAINTED_ASK);
	ck_assert_int_eq(tp->confirm, 1);
	ck_assert_int_eq(policy_for(p, "gd", "search", NULL)->read_only, 1);
	policy_free(p);
}
END_TEST

/* The gmail pack, for gmail and for a send_email of another shape. */
START_TEST(test_gmail_scope)
{
	struct policy *p = all_packs();
	const struct tool_policy *tp;
	struct value *s;

	/* gongrzhe's send_email, served under another name: still gated */
	policy_scope_upstream(p, "m2", "gmail-server-v2");
	s = tj("{\"type\":\"object\",\"properties\":{\"to\":{},"
	    "\"subject\":{},\"body\":{},\"cc\":{},\"bcc\":{}}}");
	tp = policy_for(p, "m2", "send_email", s);
	ck_assert_str_eq(tp->source, "pack");
	ck_assert_uint_eq(tp->nsink, 3);
	value_free(s);
	/* a send_email without to, cc and bcc: the heuristics */
	policy_scope_upstream(p, "m3", "mailer");
	s = tj("{\"type\":\"object\",\"properties\":{\"recipient\":{},"
	    "\"message\":{}}}");
	tp = policy_for(p, "m3", "send_email", s);
	ck_assert_str_eq(tp->source, "heuristics");
	ck_assert_int_eq(tp->exfiltrating, 1);
	ck_assert_str_eq(tp->sink_params[0], "recipient");
	value_free(s);
	/* read_only is for gmail itself */
	ck_assert_int_eq(policy_for(p, "mail", "read_email",
	    NULL)->read_only, 1);
	ck_assert_int_eq(policy_for(p, "m2", "read_email", NULL)->read_only,
	    0);
	policy_free(p);
}
END_TEST

static Suite *
packs_suite(void)
{
	Suite *s = suite_create("packs");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_loop_test(tc, test_entries_exist, 0, NPACKS);
	tcase_add_loop_test(tc, test_complete, 0, NPACKS);
	tcase_add_loop_test(tc, test_foreign_server, 0, NPACKS);
	tcase_add_test(tc, test_gmail_scope);
	tcase_add_test(tc, test_no_unchecked_pack);
	tcase_add_test(tc, test_all_packs);
	tcase_add_test(tc, test_forbidden_writes);
	tcase_add_test(tc, test_pack_contents);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr;
	int failed;

	sr = srunner_create(packs_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
