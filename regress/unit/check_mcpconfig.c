/*
 * check_mcpconfig.c - the upstream stashed by bouncer-init, as
 * bouncer-monitor -c FILE -u NAME reads it (monitor/mcpconfig.c).
 *
 * JSON read through libyaml: escapes, surrogate pairs, tabs, numbers,
 * nesting, large files, the ${VAR} expansion, every bound at the limit
 * and one past it, and every error naming the file, the line and the key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "bounds.h"
#include "conffile.h"
#include "err.h"
#include "mcpconfig.h"
#include "testdir.h"
#include "xmalloc.h"

static char path[256];
static char err[1024];
static struct upstream_cfg up;

static void
write_file(const char *text, size_t len)
{
	FILE *f;
	int fd;

	if (path[0] != '\0')
		unlink(path);
	snprintf(path, sizeof(path), "%s/mcp.XXXXXX", testdir_path());
	ck_assert_int_ne(fd = mkstemp(path), -1);
	ck_assert_ptr_nonnull(f = fdopen(fd, "w"));
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

static int
load_named(const char *text, const char *name)
{
	write_file(text, strlen(text));
	config_upstream_free(&up);
	err[0] = '\0';
	return mcpconfig_load(path, name, &up, err, sizeof(err));
}

static int
load(const char *text)
{
	return load_named(text, "srv");
}

/* A config whose mcpServers.srv stash is the given JSON object text. */
static int
load_stash(const char *stash)
{
	char *text;
	int r;

	xasprintf(&text, "{\n  \"mcpServers\": {\n    \"srv\": {\n"
	    "      \"command\": \"/usr/bin/bouncer-monitor\",\n"
	    "      \"x-bouncer-upstream\": %s\n    }\n  }\n}\n", stash);
	r = load(text);
	free(text);
	return r;
}

static void
teardown(void)
{
	if (path[0] != '\0')
		unlink(path);
	path[0] = '\0';
	config_upstream_free(&up);
}

/* The call failed and its message is "FILE:LINE: KEY..." holding want. */
static void
expect_error(int r, int line, const char *key, const char *want)
{
	char head[512];

	ck_assert_int_eq(r, -BNC_ERR_CONFIG);
	if (line > 0)
		snprintf(head, sizeof(head), "%s:%d: %s", path, line, key);
	else
		snprintf(head, sizeof(head), "%s: %s", path, key);
	ck_assert_msg(strncmp(err, head, strlen(head)) == 0,
	    "error \"%s\" does not start with \"%s\"", err, head);
	ck_assert_msg(want == NULL || strstr(err, want) != NULL,
	    "error \"%s\" does not say \"%s\"", err, want);
	/* nothing half-filled is left behind */
	ck_assert_ptr_null(up.name);
	ck_assert_ptr_null(up.command);
	ck_assert_ptr_null(up.args);
	ck_assert_ptr_null(up.env);
	ck_assert_ptr_null(up.cwd);
}

/* ------------------------------------------------------------------ */
/* core */

START_TEST(test_full)
{
	ck_assert_int_eq(load(
	    "{\n"
	    "  \"globalShortcut\": \"\",\n"
	    "  \"mcpServers\": {\n"
	    "    \"other\": {\"type\": \"http\", \"url\": \"https://x\"},\n"
	    "    \"srv\": {\n"
	    "      \"type\": \"stdio\",\n"
	    "      \"command\": \"/usr/local/bin/bouncer-monitor\",\n"
	    "      \"args\": [\"-c\", \"/home/u/.cursor/mcp.json\", \"-u\", "
	    "\"srv\"],\n"
	    "      \"disabled\": false,\n"
	    "      \"x-bouncer-upstream\": {\n"
	    "        \"type\": \"stdio\",\n"
	    "        \"command\": \"npx\",\n"
	    "        \"args\": [\"-y\", \"@scope/server\", \"/srv dir\"],\n"
	    "        \"env\": {\"TOKEN\": \"t0k\", \"EMPTY\": \"\"},\n"
	    "        \"cwd\": \"/tmp\",\n"
	    "        \"disabled\": false,\n"
	    "        \"timeout\": 30000,\n"
	    "        \"autoApprove\": [\"x\"],\n"
	    "        \"description\": {\"nested\": [1, {\"a\": null}]}\n"
	    "      }\n"
	    "    }\n"
	    "  },\n"
	    "  \"numbers\": [0, -1, 2.5e-3, 1E+30, 12345678901234567890],\n"
	    "  \"flags\": [true, false, null]\n"
	    "}\n"), 0);
	ck_assert_str_eq(up.name, "srv");
	ck_assert_str_eq(up.command, "npx");
	ck_assert_uint_eq(up.nargs, 3);
	ck_assert_str_eq(up.args[0], "-y");
	ck_assert_str_eq(up.args[1], "@scope/server");
	ck_assert_str_eq(up.args[2], "/srv dir");
	ck_assert_ptr_null(up.args[3]);
	ck_assert_uint_eq(up.nenv, 2);
	ck_assert_str_eq(up.env[0], "TOKEN=t0k");
	ck_assert_str_eq(up.env[1], "EMPTY=");
	ck_assert_ptr_null(up.env[2]);
	ck_assert_str_eq(up.cwd, "/tmp");
	ck_assert_int_eq(up.namespace, 0);
}
END_TEST

START_TEST(test_minimal)
{
	ck_assert_int_eq(load_stash("{\"command\": \"srv-bin\"}"), 0);
	ck_assert_str_eq(up.command, "srv-bin");
	ck_assert_uint_eq(up.nargs, 0);
	ck_assert_ptr_null(up.args);
	ck_assert_uint_eq(up.nenv, 0);
	ck_assert_ptr_null(up.env);
	ck_assert_ptr_null(up.cwd);
	/* empty lists are fine too */
	ck_assert_int_eq(load_stash("{\"command\": \"x\", \"args\": [], "
	    "\"env\": {}}"), 0);
	ck_assert_uint_eq(up.nargs, 0);
	ck_assert_ptr_null(up.args[0]);
	ck_assert_uint_eq(up.nenv, 0);
	ck_assert_ptr_null(up.env[0]);
}
END_TEST

START_TEST(test_escapes)
{
	ck_assert_int_eq(load_stash("{\"command\": \"a\\\"b\\\\c\\/d\","
	    " \"args\": [\"\\u00e9\", \"\\ud83d\\ude00\", \"x\\tz\\n\","
	    " \"\\b\\f\\r\", \"\\u0041\\u00E9\\uD83D\\uDE00!\"],"
	    " \"env\": {\"\\u004b\": \"v\\u00e9\\\"\"}}"), 0);
	ck_assert_str_eq(up.command, "a\"b\\c/d");
	ck_assert_str_eq(up.args[0], "\xc3\xa9");
	ck_assert_str_eq(up.args[1], "\xf0\x9f\x98\x80");
	ck_assert_str_eq(up.args[2], "x\tz\n");
	ck_assert_str_eq(up.args[3], "\b\f\r");
	ck_assert_str_eq(up.args[4], "A\xc3\xa9\xf0\x9f\x98\x80!");
	ck_assert_str_eq(up.env[0], "K=v\xc3\xa9\"");
}
END_TEST

/* Raw characters JSON allows in strings and YAML 1.1 does not. */
START_TEST(test_raw_chars)
{
	ck_assert_int_eq(load_stash("{\"command\": \"c\", \"args\": ["
	    "\"\xf0\x9f\x98\x80 raw\", \"del\x7f\", \"c1\xc2\x80\xc2\x9f\","
	    " \"nel\xc2\x85\", \"ls\xe2\x80\xa8ps\xe2\x80\xa9\","
	    " \"nc\xef\xbf\xbe\xef\xbf\xbf\"]}"), 0);
	ck_assert_str_eq(up.args[0], "\xf0\x9f\x98\x80 raw");
	ck_assert_str_eq(up.args[1], "del\x7f");
	ck_assert_str_eq(up.args[2], "c1\xc2\x80\xc2\x9f");
	ck_assert_str_eq(up.args[3], "nel\xc2\x85");
	ck_assert_str_eq(up.args[4], "ls\xe2\x80\xa8ps\xe2\x80\xa9");
	ck_assert_str_eq(up.args[5], "nc\xef\xbf\xbe\xef\xbf\xbf");
}
END_TEST

/* Elsewhere in the file, what JSON.stringify writes must not stop us. */
START_TEST(test_rest_of_file)
{
	ck_assert_int_eq(load(
	    "{\"projects\": {\"/p\": {\"history\": [{\"display\": "
	    "\"lone \\ud83d and \\ude00, nul \\u0000, \x7f\xc2\x90\"}]}},\n"
	    " \"mcpServers\": {\"srv\": {\"x-bouncer-upstream\": "
	    "{\"command\": \"c\", \"args\": [\"\\ud800x\", \"a\\u0000b\"]}}}}"),
	    0);
	/* what no C string can carry becomes U+FFFD */
	ck_assert_str_eq(up.args[0], "\xef\xbf\xbdx");
	ck_assert_str_eq(up.args[1], "a\xef\xbf\xbd" "b");
}
END_TEST

START_TEST(test_tabs_crlf_bom)
{
	ck_assert_int_eq(load(
	    "\xef\xbb\xbf\t{\r\n\t\"mcpServers\":\t{\r\n\t\t\"srv\": {\r\n"
	    "\t\t\t\"x-bouncer-upstream\": {\"command\":\t\"c\t d\"}\r\n"
	    "\t\t}\r\n\t}\r\n}\t\r\n"), 0);
	ck_assert_str_eq(up.command, "c\t d");
	/* minified, no final newline */
	ck_assert_int_eq(load("{\"mcpServers\":{\"srv\":{\"x-bouncer-upstream\""
	    ":{\"command\":\"c\",\"args\":[\"1\",\"2\"],\"env\":{\"A\":\"B\"}}"
	    "}}}"), 0);
	ck_assert_uint_eq(up.nargs, 2);
	ck_assert_str_eq(up.env[0], "A=B");
}
END_TEST

START_TEST(test_names)
{
	const char *text = "{\"mcpServers\": {"
	    "\"a-b_C9\": {\"x-bouncer-upstream\": {\"command\": \"one\"}},"
	    "\"srv\": {\"x-bouncer-upstream\": {\"command\": \"two\"}}}}";

	ck_assert_int_eq(load_named(text, "a-b_C9"), 0);
	ck_assert_str_eq(up.command, "one");
	ck_assert_str_eq(up.name, "a-b_C9");
	ck_assert_int_eq(load_named(text, "srv"), 0);
	ck_assert_str_eq(up.command, "two");
}
END_TEST

START_TEST(test_expand)
{
	setenv("BNC_T_SET", "val", 1);
	setenv("BNC_T_EMPTY", "", 1);
	setenv("BNC_T_NESTED", "${BNC_T_SET}", 1);
	unsetenv("BNC_T_UNSET");
	ck_assert_int_eq(load_stash("{\"command\": \"${BNC_T_SET}/bin\","
	    " \"args\": [\"${BNC_T_SET}\", \"a${BNC_T_SET}b${BNC_T_SET}\","
	    " \"${BNC_T_UNSET}\", \"${BNC_T_UNSET:-def}\","
	    " \"${BNC_T_SET:-def}\", \"${BNC_T_EMPTY}|${BNC_T_EMPTY:-d}\","
	    " \"$BNC_T_SET ${} ${BNC_T_SET\", \"${BNC_T_NESTED}\","
	    " \"${env:BNC_T_SET}\", \"${A=B:-x}\"],"
	    " \"env\": {\"T\": \"${BNC_T_SET:-}\", \"U\": \"${BNC_T_UNSET:-}\"},"
	    " \"cwd\": \"${BNC_T_SET}\"}"), 0);
	ck_assert_str_eq(up.command, "val/bin");
	ck_assert_str_eq(up.args[0], "val");
	ck_assert_str_eq(up.args[1], "avalbval");
	ck_assert_str_eq(up.args[2], "${BNC_T_UNSET}");
	ck_assert_str_eq(up.args[3], "def");
	ck_assert_str_eq(up.args[4], "val");
	ck_assert_str_eq(up.args[5], "|");
	ck_assert_str_eq(up.args[6], "$BNC_T_SET ${} ${BNC_T_SET");
	ck_assert_str_eq(up.args[7], "${BNC_T_SET}");
	ck_assert_str_eq(up.args[8], "${env:BNC_T_SET}");
	ck_assert_str_eq(up.args[9], "x");
	ck_assert_str_eq(up.env[0], "T=val");
	ck_assert_str_eq(up.env[1], "U=");
	/* Claude Code does not expand cwd, and neither do we */
	ck_assert_str_eq(up.cwd, "${BNC_T_SET}");
}
END_TEST

/* Megabytes of a client's own state (Claude Code's history) around it. */
START_TEST(test_large_file)
{
	char *text, *p, filler[301];
	size_t i, j, np = 200, nh = 100, cap = np * nh * 400 + 1024;

	memset(filler, 'y', 300);
	filler[300] = '\0';
	p = text = xmalloc(cap);
	p += sprintf(p, "{\n  \"projects\": {\n");
	for (i = 0; i < np; i++) {
		p += sprintf(p, "    \"/home/u/project%04zu\": {\"history\": [",
		    i);
		for (j = 0; j < nh; j++)
			p += sprintf(p, "%s\n      {\"display\": \"fix the "
			    "\\\"bug\\\" \\u00e9 %s\", \"n\": %zu, "
			    "\"ok\": true, \"pastedContents\": {}}",
			    j > 0 ? "," : "", filler, j);
		p += sprintf(p, "]},\n");
	}
	p += sprintf(p, "    \"/last\": {}\n  },\n  \"mcpServers\": {\"srv\": "
	    "{\"x-bouncer-upstream\": {\"command\": \"big\"}}}\n}\n");
	ck_assert_uint_lt((size_t)(p - text), cap);
	ck_assert_uint_gt((size_t)(p - text), 6 * 1024 * 1024);
	ck_assert_int_eq(load(text), 0);
	ck_assert_str_eq(up.command, "big");
	free(text);
}
END_TEST

/* ------------------------------------------------------------------ */
/* limits */

static char *
stash_with_args(size_t nargs, size_t arglen)
{
	struct { char *p; size_t len, cap; } s = { NULL, 0, 0 };
	char *arg, *out;
	size_t i;

	arg = xmalloc(arglen + 1);
	memset(arg, 'a', arglen);
	arg[arglen] = '\0';
	s.cap = 64 + nargs * (arglen + 4);
	s.p = xmalloc(s.cap);
	s.len = (size_t)sprintf(s.p, "{\"command\": \"c\", \"args\": [");
	for (i = 0; i < nargs; i++)
		s.len += (size_t)sprintf(s.p + s.len, "%s\"%s\"",
		    i > 0 ? "," : "", arg);
	sprintf(s.p + s.len, "]}");
	out = s.p;
	free(arg);
	return out;
}

START_TEST(test_limit_args)
{
	char *st;

	st = stash_with_args(BNC_ARGV_MAX - 2, 1);
	ck_assert_int_eq(load_stash(st), 0);
	ck_assert_uint_eq(up.nargs, BNC_ARGV_MAX - 2);
	free(st);
	st = stash_with_args(BNC_ARGV_MAX - 1, 1);
	expect_error(load_stash(st), 5, "mcpServers.srv.x-bouncer-upstream"
	    ".args", "more than");
	free(st);
	st = stash_with_args(1, BNC_ARG_LEN_MAX);
	ck_assert_int_eq(load_stash(st), 0);
	ck_assert_uint_eq(strlen(up.args[0]), BNC_ARG_LEN_MAX);
	free(st);
	st = stash_with_args(1, BNC_ARG_LEN_MAX + 1);
	expect_error(load_stash(st), 5, "mcpServers.srv.x-bouncer-upstream"
	    ".args", "longer than");
	free(st);
}
END_TEST

START_TEST(test_limit_env)
{
	char *st, *val;
	size_t i, len;

	st = xmalloc(64 + (BNC_ENV_MAX + 1) * 24);
	for (i = 0; i <= 1; i++) {
		size_t k, n = BNC_ENV_MAX + i;

		len = (size_t)sprintf(st, "{\"command\": \"c\", \"env\": {");
		for (k = 0; k < n; k++)
			len += (size_t)sprintf(st + len, "%s\"V%zu\": \"x\"",
			    k > 0 ? "," : "", k);
		sprintf(st + len, "}}");
		if (i == 0) {
			ck_assert_int_eq(load_stash(st), 0);
			ck_assert_uint_eq(up.nenv, BNC_ENV_MAX);
		} else
			expect_error(load_stash(st), 5, "mcpServers.srv."
			    "x-bouncer-upstream.env", "more than");
	}
	free(st);
	/* "K=" plus the value: BNC_ARG_LEN_MAX bytes in all */
	val = xmalloc(BNC_ARG_LEN_MAX + 1);
	memset(val, 'v', BNC_ARG_LEN_MAX - 2);
	val[BNC_ARG_LEN_MAX - 2] = '\0';
	xasprintf(&st, "{\"command\": \"c\", \"env\": {\"K\": \"%s\"}}", val);
	ck_assert_int_eq(load_stash(st), 0);
	ck_assert_uint_eq(strlen(up.env[0]), BNC_ARG_LEN_MAX);
	free(st);
	xasprintf(&st, "{\"command\": \"c\", \"env\": {\"K\": \"%sv\"}}", val);
	expect_error(load_stash(st), 5, "mcpServers.srv.x-bouncer-upstream"
	    ".env", "longer than");
	free(st);
	free(val);
}
END_TEST

START_TEST(test_limit_expand)
{
	char *st, *val;

	val = xmalloc(BNC_ARG_LEN_MAX + 1);
	memset(val, 'v', BNC_ARG_LEN_MAX - 1);
	val[BNC_ARG_LEN_MAX - 1] = '\0';
	setenv("BNC_T_LONG", val, 1);
	ck_assert_int_eq(load_stash("{\"command\": \"c\", \"args\": "
	    "[\"${BNC_T_LONG}x\"]}"), 0);
	ck_assert_uint_eq(strlen(up.args[0]), BNC_ARG_LEN_MAX);
	expect_error(load_stash("{\"command\": \"c\", \"args\": "
	    "[\"${BNC_T_LONG}xy\"]}"), 5, "mcpServers.srv.x-bouncer-upstream"
	    ".args", "expansion");
	unsetenv("BNC_T_LONG");
	free(val);
	(void)st;
}
END_TEST

START_TEST(test_limit_name)
{
	char name[BNC_UPSTREAM_NAME_MAX + 2], *text;

	memset(name, 'n', sizeof(name) - 1);
	name[BNC_UPSTREAM_NAME_MAX] = '\0';
	xasprintf(&text, "{\"mcpServers\": {\"%s\": {\"x-bouncer-upstream\": "
	    "{\"command\": \"c\"}}}}", name);
	ck_assert_int_eq(load_named(text, name), 0);
	free(text);
	name[BNC_UPSTREAM_NAME_MAX] = 'n';
	name[BNC_UPSTREAM_NAME_MAX + 1] = '\0';
	xasprintf(&text, "{\"mcpServers\": {\"%s\": {\"x-bouncer-upstream\": "
	    "{\"command\": \"c\"}}}}", name);
	ck_assert_int_eq(load_named(text, name), -BNC_ERR_CONFIG);
	ck_assert(strstr(err, "bad server name") != NULL);
	free(text);
}
END_TEST

/* At the size cap, and one byte past it (JSON padded with spaces). */
START_TEST(test_limit_size)
{
	static const char body[] = "{\"mcpServers\": {\"srv\": "
	    "{\"x-bouncer-upstream\": {\"command\": \"c\"}}}}";
	char *text;
	size_t len = BNC_MCPCONFIG_MAX;

	text = xmalloc(len + 2);
	memset(text, ' ', len + 1);
	memcpy(text, body, sizeof(body) - 1);
	text[len - 1] = '\n';
	write_file(text, len);
	ck_assert_int_eq(mcpconfig_load(path, "srv", &up, err, sizeof(err)),
	    0);
	ck_assert_str_eq(up.command, "c");
	config_upstream_free(&up);
	write_file(text, len + 1);
	ck_assert_int_eq(mcpconfig_load(path, "srv", &up, err, sizeof(err)),
	    -BNC_ERR_CONFIG);
	ck_assert(strstr(err, "larger than") != NULL);
	ck_assert(strncmp(err, path, strlen(path)) == 0);
	free(text);
}
END_TEST

/* ------------------------------------------------------------------ */
/* errors */

START_TEST(test_err_file)
{
	strcpy(path, "/nonexistent/mcp.json");
	ck_assert_int_eq(mcpconfig_load(path, "srv", &up, err, sizeof(err)),
	    -BNC_ERR_CONFIG);
	ck_assert(strncmp(err, "/nonexistent/mcp.json: ", 23) == 0);
	path[0] = '\0';
	expect_error(load(""), 0, "(top level)", "must be an object");
	expect_error(load("{\n  \"mcpServers\": {\n    \"srv\": [1,\n}\n"), 4,
	    "", NULL);
	expect_error(load("[\n  {\"mcpServers\": {}}\n]\n"), 1, "(top level)",
	    "not an array");
}
END_TEST

START_TEST(test_err_tree)
{
	expect_error(load("{\n  \"other\": 1\n}\n"), 1, "mcpServers",
	    "no such key");
	expect_error(load("{\n  \"mcpServers\": [\n  ]\n}\n"), 2, "mcpServers",
	    "must be an object, not an array");
	expect_error(load("{\n  \"mcpServers\": {\n    \"other\": {}\n  }\n}\n"),
	    2, "mcpServers.srv", "no such server");
	expect_error(load("{\"mcpServers\": {\n\"srv\": \"x\"}}\n"), 2,
	    "mcpServers.srv", "must be an object, not a string");
	expect_error(load("{\"mcpServers\": {\n\n\"srv\": {\"command\": "
	    "\"npx\"}}}\n"), 3, "mcpServers.srv", "run bouncer-init");
	expect_error(load_stash("[\"npx\"]"), 5,
	    "mcpServers.srv.x-bouncer-upstream", "not an array");
	expect_error(load_named("{\"mcpServers\": {}}", "a.b"), 0,
	    "bad server name", NULL);
}
END_TEST

START_TEST(test_err_types)
{
	static const struct {
		const char	*stash;
		const char	*key;
		const char	*want;
	} t[] = {
		{ "{\"args\": []}", "", "has no command" },
		{ "{\"command\": 42}", ".command", "not a number" },
		{ "{\"command\": null}", ".command", "not null" },
		{ "{\"command\": true}", ".command", "not a boolean" },
		{ "{\"command\": \"\"}", ".command", "is empty" },
		{ "{\"command\": [\"x\"]}", ".command", "not an array" },
		{ "{\"command\": \"c\", \"args\": \"-v\"}", ".args",
		    "must be an array, not a string" },
		{ "{\"command\": \"c\", \"args\": [\"a\", 1]}", ".args",
		    "must be a string, not a number" },
		{ "{\"command\": \"c\", \"args\": [{}]}", ".args",
		    "not an object" },
		{ "{\"command\": \"c\", \"env\": [\"A=B\"]}", ".env",
		    "must be an object" },
		{ "{\"command\": \"c\", \"env\": {\"A\": 1}}", ".env",
		    "not a number" },
		{ "{\"command\": \"c\", \"env\": {\"A\": false}}", ".env",
		    "not a boolean" },
		{ "{\"command\": \"c\", \"env\": {\"A=B\": \"x\"}}", ".env",
		    "bad variable name" },
		{ "{\"command\": \"c\", \"env\": {\"\": \"x\"}}", ".env",
		    "bad variable name" },
		{ "{\"command\": \"c\", \"cwd\": 7}", ".cwd", "not a number" },
		{ "{\"command\": \"c\", \"type\": \"sse\"}", ".type",
		    "not a stdio server" },
		{ "{\"command\": \"c\", \"url\": \"http://x\"}", ".url",
		    "not a stdio server" },
		{ "{\"command\": \"c\", \"envFile\": \".env\"}", ".envFile",
		    "not supported" },
	};
	char key[128];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(key, sizeof(key),
		    "mcpServers.srv.x-bouncer-upstream%s", t[i].key);
		expect_error(load_stash(t[i].stash), 5, key, t[i].want);
	}
}
END_TEST

/* What libyaml refuses, documented in bouncer-init(1). */
START_TEST(test_err_yaml)
{
	char *text, key[1100];

	/* a duplicate key anywhere in the file */
	expect_error(load("{\"a\": 1,\n \"a\": 2, \"mcpServers\": {}}"), 2, "",
	    "duplicate key");
	/* an object key longer than 1024 bytes */
	memset(key, 'k', 1100);
	key[1099] = '\0';
	xasprintf(&text, "{\n\"%s\": 1, \"mcpServers\": {}}", key);
	expect_error(load(text), 2, "", NULL);
	free(text);
	/* a key and its colon on different lines */
	expect_error(load("{\"mcpServers\"\n: {}}"), 2, "", NULL);
	/* nesting deeper than yaml-tree's 32 levels, anywhere */
	expect_error(load("{\"mcpServers\": {}, \"deep\": "
	    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
	    "]]]]]]]]}"), 1, "", "too deep");
	/* invalid UTF-8 (libyaml names no useful line) */
	ck_assert_int_eq(load("{\"mcpServers\": {},\n \"x\": \"\xff\"}"),
	    -BNC_ERR_CONFIG);
	ck_assert(strncmp(err, path, strlen(path)) == 0);
	ck_assert(strstr(err, "UTF-8") != NULL);
}
END_TEST

static Suite *
mcpconfig_suite(void)
{
	Suite *s = suite_create("mcpconfig");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_full);
	tcase_add_test(tc, test_minimal);
	tcase_add_test(tc, test_escapes);
	tcase_add_test(tc, test_raw_chars);
	tcase_add_test(tc, test_rest_of_file);
	tcase_add_test(tc, test_tabs_crlf_bom);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_expand);
	tcase_add_test(tc, test_large_file);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_limit_args);
	tcase_add_test(tc, test_limit_env);
	tcase_add_test(tc, test_limit_expand);
	tcase_add_test(tc, test_limit_name);
	tcase_add_test(tc, test_limit_size);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_err_file);
	tcase_add_test(tc, test_err_tree);
	tcase_add_test(tc, test_err_types);
	tcase_add_test(tc, test_err_yaml);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr;
	int failed;

	sr = srunner_create(mcpconfig_suite());
	testdir_create("check_mcpconfig");
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	testdir_remove();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
