/*
 * check_config.c - bouncer.yaml loading (monitor/config.c, monitor/yaml.c).
 *
 * Every error must name file, line and key; every bound has a test at
 * the limit and one past it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "conffile.h"
#include "err.h"
#include "bounds.h"
#include "testdir.h"

static char path[256];
static char err[1024];
static struct config cfg;

static int
load(const char *text)
{
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/bouncer.XXXXXX", testdir_path());
	ck_assert_int_ne(fd = mkstemp(path), -1);
	ck_assert_ptr_nonnull(f = fdopen(fd, "w"));
	fputs(text, f);
	fclose(f);
	config_free(&cfg);
	config_defaults(&cfg);
	err[0] = '\0';
	return config_load(&cfg, path, err, sizeof(err));
}

static void
teardown(void)
{
	if (path[0] != '\0')
		unlink(path);
	config_free(&cfg);
}

/* The error names the file, the line and the key. */
static void
expect_error(const char *text, int line, const char *key)
{
	char want[512];

	ck_assert_int_eq(load(text), -BNC_ERR_CONFIG);
	snprintf(want, sizeof(want), "%s:%d: %s", path, line, key);
	ck_assert_msg(strncmp(err, want, strlen(want)) == 0,
	    "error \"%s\" does not start with \"%s\"", err, want);
}

START_TEST(test_empty)
{
	ck_assert_int_eq(load(""), 0);
	ck_assert_uint_eq(cfg.max_message, BNC_MSG_MAX_DEFAULT);
	ck_assert_uint_eq(cfg.nups, 0);
	ck_assert_int_eq(load("# only a comment\n"), 0);
}
END_TEST

START_TEST(test_full)
{
	ck_assert_int_eq(load(
	    "state_dir: /var/tmp/bnc\n"
	    "max_message: 65536\n"
	    "upstreams:\n"
	    "  fs:\n"
	    "    command: node\n"
	    "    args: [server.js, /srv]\n"
	    "    env: { A: \"1\", B: two }\n"
	    "    cwd: /tmp\n"
	    "    namespace: true\n"
	    "  mail:\n"
	    "    command: /usr/bin/mail-mcp\n"
	    "audit: { sync: normal }\n"
	    "consent: { keys: /etc/bouncer/consent.d, max_ttl: 900, "
	    "skew: 5 }\n"
	    "forbidden_tools: [x, y]\n"), 0);
	ck_assert_str_eq(cfg.consent_keys, "/etc/bouncer/consent.d");
	ck_assert_int_eq(cfg.consent_max_ttl, 900);
	ck_assert_int_eq(cfg.consent_skew, 5);
	ck_assert_str_eq(cfg.state_dir, "/var/tmp/bnc");
	ck_assert_uint_eq(cfg.max_message, 65536);
	ck_assert_uint_eq(cfg.nups, 2);
	ck_assert_str_eq(cfg.ups[0].name, "fs");
	ck_assert_str_eq(cfg.ups[0].command, "node");
	ck_assert_uint_eq(cfg.ups[0].nargs, 2);
	ck_assert_str_eq(cfg.ups[0].args[1], "/srv");
	ck_assert_ptr_null(cfg.ups[0].args[2]);
	ck_assert_uint_eq(cfg.ups[0].nenv, 2);
	ck_assert_str_eq(cfg.ups[0].env[0], "A=1");
	ck_assert_str_eq(cfg.ups[0].env[1], "B=two");
	ck_assert_str_eq(cfg.ups[0].cwd, "/tmp");
	ck_assert_int_eq(cfg.ups[0].namespace, 1);
	ck_assert_str_eq(cfg.ups[1].name, "mail");
	ck_assert_int_eq(cfg.ups[1].namespace, 0);
}
END_TEST

/* Relative paths are the file's directory's, not the cwd's. */
START_TEST(test_relative_paths)
{
	char want[320];

	ck_assert_int_eq(load(
	    "state_dir: state\n"
	    "policy: policy.yaml\n"
	    "registry: gov/agents.yaml\n"
	    "packs: [packs.d, /abs/packs]\n"
	    "upstreams:\n"
	    "  fs: { command: node, cwd: srv/../notes }\n"), 0);
	snprintf(want, sizeof(want), "%s/state", testdir_path());
	ck_assert_str_eq(cfg.state_dir, want);
	snprintf(want, sizeof(want), "%s/policy.yaml", testdir_path());
	ck_assert_str_eq(cfg.policy, want);
	snprintf(want, sizeof(want), "%s/gov/agents.yaml", testdir_path());
	ck_assert_str_eq(cfg.registry, want);
	ck_assert_uint_eq(cfg.npacks, 2);
	snprintf(want, sizeof(want), "%s/packs.d", testdir_path());
	ck_assert_str_eq(cfg.packs[0], want);
	ck_assert_str_eq(cfg.packs[1], "/abs/packs");
	snprintf(want, sizeof(want), "%s/srv/../notes", testdir_path());
	ck_assert_str_eq(cfg.ups[0].cwd, want);
	/* the command is left alone: PATH, or the upstream's cwd */
	ck_assert_str_eq(cfg.ups[0].command, "node");
}
END_TEST

/* work: every key, paths made relative, and api_base on loopback only */
START_TEST(test_work)
{
	static const char *const good[] = {
		"http://127.0.0.1:8080", "http://127.0.0.1:1/", "http://[::1]:65535",
		"http://localhost:443",
	};
	static const char *const bad[] = {
		"https://api.notion.com", "http://127.0.0.2:80", "http://127.0.0.1",
		"http://127.0.0.1:0", "http://127.0.0.1:65536", "http://127.0.0.1:80/v1",
		"http://localhost.evil.example:80", "http://user@127.0.0.1:80",
		"https://127.0.0.1:443", "http://127.0.0.1:080", "http://[::1]:80x",
		"HTTP://127.0.0.1:80", "http://127.0.0.1:123456",
	};
	char want[320];
	size_t i;

	ck_assert_int_eq(load(
	    "work:\n"
	    "  notion:\n"
	    "    read_token_file: notion-read.token\n"
	    "    comment_token_file: /etc/bouncer/notion-comment.token\n"
	    "    database_id: 0123456789abcdef0123456789ABCDEF\n"
	    "    api_base: http://127.0.0.1:8080\n"
	    "  github: { token_file: gh.token, repos: [corp/app, corp/web.site] }\n"
	    "  slack:\n"
	    "    channels:\n"
	    "      ops: { webhook_file: ops.hook }\n"
	    "      release-notes: { webhook_file: /x/rn.hook }\n"), 0);
	ck_assert_int_eq(cfg.notion.set, 1);
	snprintf(want, sizeof(want), "%s/notion-read.token", testdir_path());
	ck_assert_str_eq(cfg.notion.read_token_file, want);
	ck_assert_str_eq(cfg.notion.comment_token_file,
	    "/etc/bouncer/notion-comment.token");
	ck_assert_str_eq(cfg.notion.api_base, "http://127.0.0.1:8080");
	ck_assert_uint_eq(cfg.github.nrepos, 2);
	ck_assert_str_eq(cfg.github.repos[1], "corp/web.site");
	ck_assert_ptr_null(cfg.github.api_base);
	ck_assert_uint_eq(cfg.slack.nchannels, 2);
	ck_assert_str_eq(cfg.slack.channels[1].name, "release-notes");
	ck_assert_str_eq(cfg.slack.channels[1].webhook_file, "/x/rn.hook");
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(config_api_base_ok(good[i]), "%s", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!config_api_base_ok(bad[i]), "%s", bad[i]);
	expect_error("work:\n  github:\n    api_base: https://api.github.com\n",
	    3, "work.github.api_base");
	expect_error("work:\n  notion: { database_id: 12ab }\n", 2,
	    "work.notion.database_id");
	expect_error("work:\n  github: { repos: [corp/..] }\n", 2,
	    "work.github.repos");
	expect_error("work:\n  github: { repos: [../x] }\n", 2,
	    "work.github.repos");
	/* what the carriers' validators refuse, -t refuses */
	expect_error("work:\n  github: { repos: [corp/app.git] }\n", 2,
	    "work.github.repos");
	expect_error("work:\n  github: { repos: [-corp/app] }\n", 2,
	    "work.github.repos");
	expect_error("work:\n  github: { repos: [co--rp/app] }\n", 2,
	    "work.github.repos");
	expect_error("work:\n  notion: { database_id: "
	    "0123-456789abcdef0123456789ABCDEF }\n", 2,
	    "work.notion.database_id");
	expect_error("work:\n  slack:\n    channels:\n"
	    "      Ops: { webhook_file: x }\n", 4, "work.slack.channels");
	expect_error("work:\n  github: { owner_file: x }\n", 2,
	    "work.github");
	expect_error("work:\n  jira: {}\n", 2, "work");
	expect_error("work:\n  slack:\n    channels:\n"
	    "      \"a b\": { webhook_file: x }\n", 4, "work.slack.channels");
	expect_error("work:\n  slack:\n    channels:\n"
	    "      ops: { webhook_file: x, url: y }\n", 4,
	    "work.slack.channels");
}
END_TEST

START_TEST(test_command_line)
{
	char *argv[] = { "node", "srv.js", "dir", NULL };

	ck_assert_int_eq(load("upstreams: { a: { command: x } }\n"), 0);
	config_set_command(&cfg, "upstream", argv);
	ck_assert_uint_eq(cfg.nups, 1);
	ck_assert_str_eq(cfg.ups[0].name, "upstream");
	ck_assert_str_eq(cfg.ups[0].command, "node");
	ck_assert_uint_eq(cfg.ups[0].nargs, 2);
	ck_assert_str_eq(cfg.ups[0].args[0], "srv.js");
}
END_TEST

START_TEST(test_max_session_memory)
{
	ck_assert_int_eq(load("max_message: 4096\n"), 0);
	ck_assert_uint_eq(cfg.max_session_memory, BNC_SESSION_MEMORY_DEFAULT);
	ck_assert_int_eq(load("max_session_memory: 4194304\n"), 0);
	ck_assert_uint_eq(cfg.max_session_memory, 4194304);
	ck_assert_int_eq(load("max_session_memory: 68719476736\n"), 0);
	ck_assert_uint_eq(cfg.max_session_memory, 68719476736ULL);
	expect_error("max_session_memory: 4194303\n", 1,
	    "max_session_memory");
	expect_error("max_session_memory: 68719476737\n", 1,
	    "max_session_memory");
	expect_error("max_session_memory: 64M\n", 1, "max_session_memory");
	expect_error("max_session_memory: -1\n", 1, "max_session_memory");
}
END_TEST

START_TEST(test_max_message_limits)
{
	ck_assert_int_eq(load("max_message: 4096\n"), 0);
	ck_assert_uint_eq(cfg.max_message, 4096);
	ck_assert_int_eq(load("max_message: 268435456\n"), 0);
	expect_error("max_message: 4095\n", 1, "max_message");
	expect_error("max_message: 268435457\n", 1, "max_message");
	expect_error("max_message: \"65536\"\n", 1, "max_message");
	expect_error("max_message: true\n", 1, "max_message");
	expect_error("max_message: 12abc\n", 1, "max_message");
}
END_TEST

START_TEST(test_upstream_name_limits)
{
	char text[256], name[BNC_UPSTREAM_NAME_MAX + 2];

	memset(name, 'a', BNC_UPSTREAM_NAME_MAX);
	name[BNC_UPSTREAM_NAME_MAX] = '\0';
	snprintf(text, sizeof(text), "upstreams: { %s: { command: x } }\n",
	    name);
	ck_assert_int_eq(load(text), 0);
	strcat(name, "a");
	snprintf(text, sizeof(text), "upstreams: { %s: { command: x } }\n",
	    name);
	expect_error(text, 1, "upstreams");
	expect_error("upstreams:\n  \"a b\": { command: x }\n", 2,
	    "upstreams");
}
END_TEST

START_TEST(test_errors)
{
	expect_error("- a\n- b\n", 1, "(top level)");
	expect_error("state_dir: /x\nbogus: 1\n", 2, "bogus");
	expect_error("upstreams:\n  a:\n    args: [x]\n", 2, "upstreams");
	expect_error("upstreams:\n  a:\n    command: x\n    args: y\n", 4,
	    "upstreams.a.args");
	expect_error("upstreams:\n  a:\n    command: x\n    colour: red\n", 4,
	    "upstreams.a.colour");
	expect_error("upstreams:\n  a:\n    command: x\n"
	    "    namespace: \"true\"\n", 4, "upstreams.a.namespace");
	expect_error("upstreams:\n  a:\n    command: x\n"
	    "    env: { A: [1] }\n", 4, "upstreams.a.env");
	expect_error("upstreams:\n  a:\n    command: [x]\n", 3,
	    "upstreams.a.command");
	expect_error("upstreams: [a]\n", 1, "upstreams");
	expect_error("audit: normal\n", 1, "audit");
	expect_error("consent: { max_ttl: 86401 }\n", 1, "consent.max_ttl");
	expect_error("consent: { skew: -1 }\n", 1, "consent.skew");
	expect_error("consent:\n  keys: /k\n  colour: red\n", 3, "consent");
	expect_error("consent: [a]\n", 1, "consent");
	expect_error("registry: [a]\n", 1, "registry");
	expect_error("packs: [a, [b]]\n", 1, "packs");
	expect_error("state_dir: [a]\n", 1, "state_dir");
}
END_TEST

START_TEST(test_yaml_errors)
{
	/* Syntax errors, duplicate keys and aliases name file and line. */
	ck_assert_int_eq(load("a: [\n"), -BNC_ERR_CONFIG);
	ck_assert_ptr_nonnull(strstr(err, path));
	ck_assert_int_eq(load("state_dir: /a\nstate_dir: /b\n"),
	    -BNC_ERR_CONFIG);
	ck_assert_ptr_nonnull(strstr(err, ":2: duplicate key"));
	ck_assert_int_eq(load("a: &x 1\nb: *x\n"), -BNC_ERR_CONFIG);
	ck_assert_ptr_nonnull(strstr(err, "not allowed"));
	ck_assert_int_eq(load("a: 1\n---\nb: 2\n"), -BNC_ERR_CONFIG);
	ck_assert_ptr_nonnull(strstr(err, "more than one document"));
}
END_TEST

START_TEST(test_missing_file)
{
	config_defaults(&cfg);
	ck_assert_int_eq(config_load(&cfg, "/nonexistent/bouncer.yaml", err,
	    sizeof(err)), -BNC_ERR_CONFIG);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/bouncer.yaml"));
}
END_TEST

static Suite *
config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_full);
	tcase_add_test(tc, test_relative_paths);
	tcase_add_test(tc, test_work);
	tcase_add_test(tc, test_command_line);
	suite_add_tcase(s, tc);
	tc = tcase_create("limits");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_max_message_limits);
	tcase_add_test(tc, test_max_session_memory);
	tcase_add_test(tc, test_upstream_name_limits);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_yaml_errors);
	tcase_add_test(tc, test_missing_file);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(config_suite());
	int failed;

	testdir_create("check_config");
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	testdir_remove();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
