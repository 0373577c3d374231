/*
 * check_policy.c - policy files, layering, heuristics, patterns, globs
 * and lint (monitor/policy.c, monitor/heuristics.c).
 *
 * Every behaviour of the reference design's policy files, packs and
 * heuristics (seed-semantics 10-12) and every "must not repeat" case of
 * seed 18-19 that belongs to them; every error names file, line and key;
 * every bound has a test at the limit and one past it.
 */
#include <sys/stat.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "bounds.h"
#include "err.h"
#include "policy.h"
#include "testdir.h"
#include "testjson.h"
#include "value.h"

static char dir[256];
static char path[320];
static char err[2048];
static struct policy *pol;
static int nfile;

static void
setup(void)
{
	snprintf(dir, sizeof(dir), "%s/packs.XXXXXX", testdir_path());
	ck_assert_ptr_nonnull(mkdtemp(dir));
	pol = policy_new();
	nfile = 0;
}

static void
teardown(void)
{
	policy_free(pol);
	pol = NULL;
	if (testdir_rmtree(dir) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* Writes text to a new file in dir; its path is left in path. */
static const char *
write_file(const char *name, const char *text)
{
	FILE *f;

	if (name == NULL)
		snprintf(path, sizeof(path), "%s/p%d.yaml", dir, nfile++);
	else
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	return path;
}

static int
load(const char *text, int is_pack)
{
	err[0] = '\0';
	return policy_load_file(pol, write_file(NULL, text), is_pack, err,
	    sizeof(err));
}

/* The load fails and the error starts "FILE:LINE: KEY:". */
static void
expect_error(const char *text, int line, const char *key)
{
	char want[512];

	ck_assert_int_eq(load(text, 0), -BNC_ERR_CONFIG);
	snprintf(want, sizeof(want), "%s:%d: %s:", path, line, key);
	ck_assert_msg(strncmp(err, want, strlen(want)) == 0,
	    "error \"%s\" does not start with \"%s\"", err, want);
}

/* ... and also says something. */
static void
expect_error_says(const char *text, int line, const char *key,
    const char *says)
{
	expect_error(text, line, key);
	ck_assert_msg(strstr(err, says) != NULL, "error \"%s\" does not say "
	    "\"%s\"", err, says);
}

/* {"type":"object","properties":{p:{"type":"string"}, ...}} */
static struct value *
schema(const char *first, ...)
{
	struct value *s = value_object(), *props = value_object(), *t;
	const char *p;
	va_list ap;

	va_start(ap, first);
	for (p = first; p != NULL; p = va_arg(ap, const char *)) {
		t = value_object();
		value_object_put(t, "type", value_string("string"));
		value_object_put(props, p, t);
	}
	va_end(ap);
	value_object_put(s, "type", value_string("object"));
	value_object_put(s, "properties", props);
	return s;
}

/* policy_for(), for a schema made for the call (freed). */
static const struct tool_policy *
pfor(const char *up, const char *tool, struct value *sch)
{
	const struct tool_policy *tp;

	tp = policy_for(pol, up, tool, sch);
	value_free(sch);
	return tp;
}

static const struct tool_policy *
heur(const char *tool, struct value *sch)
{
	return pfor("up", tool, sch);
}

/* ---- core: loading ------------------------------------------------ */

START_TEST(test_empty)
{
	ck_assert_int_eq(load("", 0), 0);
	ck_assert_int_eq(load("# nothing but a comment\n", 0), 0);
	ck_assert_int_eq(load("---\n", 0), 0);
	ck_assert_uint_eq(policy_nentries(pol), 0);
	/* nothing matched: heuristics, and nothing derived: "none" */
	ck_assert_str_eq(policy_for(pol, "up", "read_file", NULL)->source,
	    "none");
}
END_TEST

START_TEST(test_full_entry)
{
	const struct tool_policy *tp;

	ck_assert_int_eq(load(
	    "send_email:\n"
	    "  exfiltrating: true\n"
	    "  sink_params: [to, cc, bcc]\n"
	    "  trusted_destinations: [you@yourcompany.com, '*@corp.example']\n"
	    "  write_params: [path]\n"
	    "  allowed_path_prefixes: [./out, ./tmp]\n"
	    "  arg_patterns:\n"
	    "    mode: read|write\n"
	    "    count: '\\d+'\n"
	    "  max_calls: 3\n"
	    "  tainted: ask\n"
	    "  confirm: true\n"
	    "  taint_source: false\n"
	    "  extra_args: allow\n"
	    "  approval: signed\n"
	    "  read_only: yes\n", 0), 0);
	tp = policy_for(pol, "mail", "send_email", NULL);
	ck_assert_str_eq(tp->source, "user");
	ck_assert_str_eq(tp->name, "send_email");
	ck_assert_str_eq(tp->file, path);
	ck_assert_uint_eq(tp->line, 1);
	ck_assert_int_eq(tp->exfiltrating, 1);
	ck_assert_uint_eq(tp->nsink, 3);
	ck_assert_str_eq(tp->sink_params[0], "to");
	ck_assert_str_eq(tp->sink_params[2], "bcc");
	ck_assert_uint_eq(tp->ntrusted, 2);
	ck_assert_str_eq(tp->trusted[1], "*@corp.example");
	ck_assert_uint_eq(tp->nwrite, 1);
	ck_assert_uint_eq(tp->nprefixes, 2);
	ck_assert_str_eq(tp->prefixes[0], "./out");
	ck_assert_uint_eq(tp->npatterns, 2);
	/* YAML mapping order is kept */
	ck_assert_str_eq(tp->patterns[0].param, "mode");
	ck_assert_str_eq(tp->patterns[0].src, "read|write");
	ck_assert_str_eq(tp->patterns[1].src, "\\d+");
	ck_assert_int_eq(tp->max_calls, 3);
	ck_assert_int_eq(tp->tainted, TAINTED_ASK);
	ck_assert_int_eq(tp->confirm, 1);
	ck_assert_int_eq(tp->taint_source, 0);
	ck_assert_int_eq(tp->read_only, 1);
	ck_assert_int_eq(tp->extra_args, 1);
	ck_assert_int_eq(tp->approval, APPROVAL_SIGNED);
	ck_assert_int_eq(tp->forbidden, 0);
	ck_assert_uint_eq(policy_nentries(pol), 1);
	ck_assert_ptr_eq(policy_entry(pol, 0), tp);
	ck_assert_ptr_null(policy_entry(pol, 1));
}
END_TEST

START_TEST(test_defaults)
{
	const struct tool_policy *tp;

	ck_assert_int_eq(load("t: {}\n", 0), 0);
	tp = policy_for(pol, "up", "t", NULL);
	ck_assert_str_eq(tp->source, "user");
	ck_assert_int_eq(tp->exfiltrating, 0);
	ck_assert_int_eq(tp->max_calls, -1);
	ck_assert_int_eq(tp->tainted, TAINTED_DENY);
	ck_assert_int_eq(tp->confirm, 0);
	ck_assert_int_eq(tp->taint_source, 1);
	ck_assert_int_eq(tp->extra_args, 0);
	ck_assert_int_eq(tp->approval, APPROVAL_ELICIT);
	ck_assert_uint_eq(tp->nsink + tp->ntrusted + tp->nwrite +
	    tp->nprefixes + tp->npatterns, 0);
	/* max_calls: 0 denies the first call: it is kept as 0, not "none" */
	ck_assert_int_eq(load("z: { max_calls: 0 }\n", 0), 0);
	ck_assert_int_eq(policy_for(pol, "up", "z", NULL)->max_calls, 0);
	/* tainted: deny written out; prefixes "." and "/" are fine */
	ck_assert_int_eq(load("d: { tainted: deny, write_params: [p], "
	    "allowed_path_prefixes: [., /, ./] }\n", 0), 0);
	ck_assert_int_eq(policy_for(pol, "up", "d", NULL)->tainted,
	    TAINTED_DENY);
	ck_assert_uint_eq(policy_for(pol, "up", "d", NULL)->nprefixes, 3);
}
END_TEST

/* ---- core: layering ---------------------------------------------- */

START_TEST(test_layering)
{
	const struct tool_policy *tp;

	ck_assert_int_eq(load(
	    "send_email: { exfiltrating: true, sink_params: [to, cc, bcc] }\n"
	    "mail:draft_email: { max_calls: 7 }\n"
	    "post: { max_calls: 1 }\n", 1), 0);
	ck_assert_int_eq(load(
	    "send_email: { trusted_destinations: [you@yourcompany.com] }\n"
	    "mail:send_email: { max_calls: 5 }\n", 0), 0);

	/* user qualified beats user unqualified beats pack */
	tp = policy_for(pol, "mail", "send_email", NULL);
	ck_assert_str_eq(tp->source, "user");
	ck_assert_str_eq(tp->name, "mail:send_email");
	ck_assert_int_eq(tp->max_calls, 5);
	tp = policy_for(pol, "other", "send_email", NULL);
	ck_assert_str_eq(tp->name, "send_email");
	ck_assert_str_eq(tp->source, "user");
	/* the user entry replaces the pack's wholesale (seed 10 gotcha) */
	ck_assert_int_eq(tp->exfiltrating, 0);
	ck_assert_uint_eq(tp->nsink, 0);
	/* a pack's qualified entry applies to its upstream only */
	ck_assert_int_eq(policy_for(pol, "mail", "draft_email",
	    NULL)->max_calls, 7);
	ck_assert_str_eq(heur("draft_email", schema("to", NULL))->source,
	    "heuristics");
	/* pack entries when the user has none; no upstream: unqualified */
	ck_assert_str_eq(policy_for(pol, "x", "post", NULL)->source, "pack");
	ck_assert_str_eq(policy_for(pol, NULL, "post", NULL)->source, "pack");
	ck_assert_str_eq(policy_for(pol, NULL, "send_email", NULL)->name,
	    "send_email");
}
END_TEST

START_TEST(test_pack_beats_heuristics)
{
	const struct tool_policy *tp;
	struct value *s = schema("to", "body", NULL);

	ck_assert_int_eq(load("(server): [mailer]\n"
	    "send_email: { confirm: true }\n", 1), 0);
	/*
	 * For the server its pack names, an explicit pack entry, even one
	 * without sinks, is not guessed.
	 */
	policy_scope_upstream(pol, "m", "mailer");
	tp = policy_for(pol, "m", "send_email", s);
	ck_assert_str_eq(tp->source, "pack");
	ck_assert_int_eq(tp->exfiltrating, 0);
	value_free(s);
}
END_TEST

START_TEST(test_later_pack_wins)
{
	const struct tool_policy *tp;
	char d2[320];

	write_file("b.yaml", "t: { max_calls: 2 }\n");
	write_file("a.yaml", "t: { max_calls: 1 }\nu: { max_calls: 1 }\n");
	write_file("README", "not: [yaml\n");
	write_file(".hidden.yaml", "t: { max_calls: 99 }\n");
	write_file("c.yml", "t: { max_calls: 98 }\n");
	ck_assert_int_eq(policy_load_dir(pol, dir, 1, err, sizeof(err)), 0);
	/* sorted: a.yaml then b.yaml, which replaces a.yaml's t */
	tp = policy_for(pol, "up", "t", NULL);
	ck_assert_int_eq(tp->max_calls, 2);
	ck_assert_msg(strstr(tp->file, "/b.yaml") != NULL, "%s", tp->file);
	ck_assert_int_eq(policy_for(pol, "up", "u", NULL)->max_calls, 1);
	ck_assert_uint_eq(policy_nentries(pol), 3);

	/* a later directory (the config's packs:) wins too */
	snprintf(d2, sizeof(d2), "%s/more", dir);
	ck_assert_int_eq(mkdir(d2, 0700), 0);
	write_file("more/x.yaml", "t: { max_calls: 3 }\n");
	ck_assert_int_eq(policy_load_dir(pol, d2, 1, err, sizeof(err)), 0);
	ck_assert_int_eq(policy_for(pol, "up", "t", NULL)->max_calls, 3);
}
END_TEST

START_TEST(test_all_or_nothing)
{
	/* the second entry is bad: the first is not kept either */
	ck_assert_int_eq(load("good: { max_calls: 1 }\n"
	    "bad: { max_calls: true }\n", 0), -BNC_ERR_CONFIG);
	ck_assert_uint_eq(policy_nentries(pol), 0);
	ck_assert_str_eq(policy_for(pol, "up", "good", NULL)->source, "none");
	/* one bad file of a directory fails the directory */
	write_file("a.yaml", "a: {}\n");
	write_file("b.yaml", "b: [\n");
	ck_assert_int_eq(policy_load_dir(pol, dir, 1, err, sizeof(err)),
	    -BNC_ERR_CONFIG);
	ck_assert_msg(strstr(err, "/b.yaml:") != NULL, "%s", err);
}
END_TEST

/* ---- core: heuristics (seed 11, must-not-repeat 19.6) ------------ */

START_TEST(test_heuristics_seed)
{
	const struct tool_policy *tp;

	/* send_email(to, cc, subject, body): sinks to, cc; not body */
	tp = heur("send_email", schema("to", "cc", "subject", "body", NULL));
	ck_assert_str_eq(tp->source, "heuristics");
	ck_assert_int_eq(tp->exfiltrating, 1);
	ck_assert_uint_eq(tp->nsink, 2);
	ck_assert_str_eq(tp->sink_params[0], "to");
	ck_assert_str_eq(tp->sink_params[1], "cc");
	ck_assert_int_eq(tp->max_calls, -1);
	/* write_file(path, contents): a write path, not exfiltrating */
	tp = heur("write_file", schema("path", "contents", NULL));
	ck_assert_int_eq(tp->exfiltrating, 0);
	ck_assert_uint_eq(tp->nwrite, 1);
	ck_assert_str_eq(tp->write_params[0], "path");
	ck_assert_uint_eq(tp->nprefixes, 0);
	/* delete_file(path): a budget of 2 */
	tp = heur("delete_file", schema("path", NULL));
	ck_assert_int_eq(tp->max_calls, 2);
	ck_assert_int_eq(tp->exfiltrating, 0);
	/* read_file(path): nothing */
	tp = heur("read_file", schema("path", NULL));
	ck_assert_str_eq(tp->source, "none");
	ck_assert_int_eq(tp->exfiltrating, 0);
	ck_assert_uint_eq(tp->nwrite, 0);
	ck_assert_int_eq(tp->max_calls, -1);
	ck_assert_int_eq(tp->taint_source, 1);
	/* no trusted destinations, prefixes or patterns, ever */
	tp = heur("upload_to_url", schema("url", "path", NULL));
	ck_assert_uint_eq(tp->ntrusted + tp->nprefixes + tp->npatterns, 0);
	ck_assert_int_eq(tp->exfiltrating, 1);
	ck_assert_uint_eq(tp->nwrite, 1);
}
END_TEST

START_TEST(test_heuristics_sink_names)
{
	const struct tool_policy *tp;
	static const char *const yes[] = {
		"to", "cc", "bcc", "recipient", "recipients", "url", "email",
		"address", "channel", "share_with", "To", "CC", "BCC", "URL",
		"Email", "emailAddress", "email_address", "toRecipients",
		"ccRecipients", "to_email", "recipient_email", "webhookUrl",
		"callback_url", "channel_id", "channelId", "uri", "urls",
		"emails", "addresses", "channels", "shareWith", "host",
		"reply_to", "forward_to", "participants", "attendees",
		"phone_number", "chat_id", "ip_address",
		/* DESIGN 5: by the words of the name */
		"emailTo", "to_phone", "webhook_endpoint", "destination",
		"target", "link", "links", "destinations", "endpoint",
		"toAddress", "cc_list", "bcc_emails", "recipient_name",
		"callback_url", "redirect_uri", "webhookTarget", "sendTo",
		"forwardTo", "replyTo", "copy_to", "PhoneNumbers", "mailto",
		"push_target",
	};
	static const char *const no[] = {
		"subject", "body", "text", "content", "path", "query",
		"from", "from_email", "sender_email", "sender_address",
		"email_subject", "email_body", "url_path", "channel_topic",
		"total", "photo", "tool", "today", "cursor", "forward",
		"", "_", "tochannel", "inReplyTo", "in_reply_to",
		/* a range's end, a format: not where anything goes */
		"date_to", "dateTo", "valid_to", "convert_to", "time_to_live",
		"target_language", "link_text_color", "targetted",
		"headers", "sender",
	};
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		ck_assert_msg(heuristics_dest_name(yes[i]), "%s", yes[i]);
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		ck_assert_msg(!heuristics_dest_name(no[i]), "%s", no[i]);
	ck_assert_int_eq(heuristics_dest_name(NULL), 0);

	/* original case and schema order are kept */
	tp = heur("notify", schema("Subject", "CC", "body", "To", NULL));
	ck_assert_uint_eq(tp->nsink, 2);
	ck_assert_str_eq(tp->sink_params[0], "CC");
	ck_assert_str_eq(tp->sink_params[1], "To");

	/* the seed packs' unverified names are caught by heuristics */
	tp = heur("share_file", schema("file_id", "email", "permission",
	    NULL));
	ck_assert_uint_eq(tp->nsink, 1);
	ck_assert_str_eq(tp->sink_params[0], "email");
	tp = heur("create_permission", schema("fileId", "emailAddress",
	    "role", NULL));
	ck_assert_uint_eq(tp->nsink, 1);
	ck_assert_str_eq(tp->sink_params[0], "emailAddress");
	tp = heur("post_message", schema("channel", "text", NULL));
	ck_assert_str_eq(tp->sink_params[0], "channel");
	tp = heur("reply_email", schema("to", "cc", "bcc", "body", NULL));
	ck_assert_uint_eq(tp->nsink, 3);
	/* AgentDojo's send_email(recipients, ...) (seed bug 13) */
	tp = heur("send_email", schema("recipients", "subject", "body", "cc",
	    "bcc", NULL));
	ck_assert_uint_eq(tp->nsink, 3);
	ck_assert_str_eq(tp->sink_params[0], "recipients");
}
END_TEST

/* The sink gate's names: destinations, sender fields, header-like. */
START_TEST(test_name_class)
{
	static const struct {
		const char	*name;
		int		 c;
	} v[] = {
		{ "to", NAME_DEST | NAME_SINK },
		{ "emailTo", NAME_DEST | NAME_SINK },
		{ "reply_to", NAME_DEST | NAME_SINK },
		{ "replyTo", NAME_DEST | NAME_SINK },
		{ "from", NAME_SINK },
		{ "From", NAME_SINK },
		{ "sender", NAME_SINK },
		{ "from_email", NAME_SINK },
		{ "sender_address", NAME_SINK },
		{ "webhook", NAME_DEST | NAME_SINK },
		{ "callback", NAME_SINK },
		{ "on_callback", NAME_SINK },
		{ "redirect", NAME_SINK },
		{ "success_redirect", NAME_SINK },
		{ "redirect_to", NAME_DEST | NAME_SINK },
		{ "return_path", NAME_SINK },
		{ "Bcc", NAME_DEST | NAME_SINK },
		{ "Reply-To", NAME_DEST | NAME_SINK },
		{ "headers", NAME_HEADER | NAME_HEADERS },
		{ "Header", NAME_HEADER | NAME_HEADERS },
		{ "extraHeaders", NAME_HEADER | NAME_HEADERS },
		{ "custom_headers", NAME_HEADER | NAME_HEADERS },
		{ "subject", NAME_HEADER },
		{ "Subject", NAME_HEADER },
		{ "body", 0 },
		{ "in_reply_to", 0 },
		{ "date_from", 0 },
		{ "fromDate", 0 },
		{ "subject_line", 0 },
		{ "", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		ck_assert_msg(heuristics_name_class(v[i].name) == v[i].c,
		    "%s: %d, want %d", v[i].name,
		    heuristics_name_class(v[i].name), v[i].c);
	ck_assert_int_eq(heuristics_name_class(NULL), 0);
}
END_TEST

START_TEST(test_heuristics_word_boundaries)
{
	static const char *const budget[] = {
		"delete_file", "deleteFile", "DeleteFile", "delete-file",
		"file.delete", "remove_item", "rm", "rm_rf", "drop_table",
		"API-delete-a-block", "APIDeleteBlock", "batch_delete_emails",
		"move_to_trash", "purge_cache", "rmdir", "HTTPDelete",
		"delete2", "s3rm", "v2Delete",
	};
	static const char *const nobudget[] = {
		/* seed 11's substring false positives */
		"confirm_order", "inform_user", "format_drive", "dropbox_list",
		/* inflections are not verbs: readers of deleted things */
		"list_deleted_items", "get_deleted", "undelete_file",
		"removal_report", "dropdown_options", "perform", "term_search",
		"normalize", "warm_cache", "firmware", "",
	};
	static const char *const writes[] = {
		"write_file", "createFile", "save-note", "put_object",
		"upload", "edit_file", "file_write",
	};
	static const char *const nowrites[] = {
		/* seed 11: "put" in output/compute */
		"output_report", "compute", "computeHash", "input_text",
		"recreate_x", "editor_open", "screenwriter",
	};
	size_t i;

	for (i = 0; i < sizeof(budget) / sizeof(budget[0]); i++)
		ck_assert_msg(heur(budget[i], NULL)->max_calls == 2, "%s",
		    budget[i]);
	for (i = 0; i < sizeof(nobudget) / sizeof(nobudget[0]); i++)
		ck_assert_msg(heur(nobudget[i], NULL)->max_calls == -1, "%s",
		    nobudget[i]);
	for (i = 0; i < sizeof(writes) / sizeof(writes[0]); i++)
		ck_assert_msg(heur(writes[i], schema("path", "content",
		    NULL))->nwrite == 1, "%s", writes[i]);
	for (i = 0; i < sizeof(nowrites) / sizeof(nowrites[0]); i++)
		ck_assert_msg(heur(nowrites[i], schema("path", "content",
		    NULL))->nwrite == 0, "%s", nowrites[i]);
}
END_TEST

START_TEST(test_heuristics_cache)
{
	const struct tool_policy *a, *b, *c;
	struct value *s1 = schema("to", NULL), *s2 = schema("body", NULL);

	a = policy_for(pol, "up", "notify", s1);
	/* cached per (upstream, tool): the first schema decides */
	b = policy_for(pol, "up", "notify", s2);
	ck_assert_ptr_eq(a, b);
	ck_assert_int_eq(b->exfiltrating, 1);
	c = policy_for(pol, "other", "notify", s2);
	ck_assert_ptr_ne(a, c);
	ck_assert_int_eq(c->exfiltrating, 0);
	ck_assert_str_eq(c->source, "none");
	ck_assert_str_eq(c->name, "notify");
	/* "up" + "a:b" and "up:a" + "b" are not the same cache entry */
	ck_assert_ptr_ne(policy_for(pol, "up", "a:b", s1),
	    policy_for(pol, "up:a", "b", s2));
	value_free(s1);
	value_free(s2);
}
END_TEST

START_TEST(test_heuristics_odd_schemas)
{
	struct value *s = value_object(), *n = value_string("x");
	const struct tool_policy *tp;

	/* properties that are not an object: name-only heuristics */
	value_object_put(s, "properties", value_array());
	tp = policy_for(pol, "up", "delete_thing", s);
	ck_assert_int_eq(tp->max_calls, 2);
	ck_assert_int_eq(tp->exfiltrating, 0);
	/* a schema that is not an object at all */
	tp = policy_for(pol, "up", "send_it", n);
	ck_assert_str_eq(tp->source, "none");
	/* a very long name is split safely */
	{
		char big[4096];

		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		ck_assert_int_eq(heuristics_dest_name(big), 0);
		memcpy(big + 4000, "_email", 7);
		ck_assert_int_eq(heuristics_dest_name(big), 1);
		for (size_t i = 0; i < 4000; i += 2)
			big[i + 1] = '_';
		ck_assert_int_eq(heuristics_dest_name(big), 0);
	}
	value_free(s);
	value_free(n);
}
END_TEST

struct idcollect {
	char	got[512];
	size_t	n;
};

static int
idcollect(void *arg, const char *s, size_t len)
{
	struct idcollect *c = arg;
	int n;

	if (c->n >= sizeof(c->got) - 1)
		return 0;
	n = snprintf(c->got + c->n, sizeof(c->got) - c->n, "[%.*s]", (int)len,
	    s);
	c->n = n < 0 ? c->n : c->n + (size_t)n;
	return 0;
}

START_TEST(test_identity_patterns)
{
	const struct tool_policy *tp;
	struct idcollect c;
	char big[8192];
	size_t i;

	ck_assert_msg(load("pay:\n  identity_patterns: ['ACCT-[0-9]{3}', "
	    "'[a-z]+@bank']\n", 0) == 0, "%s", err);
	tp = policy_for(pol, "up", "pay", NULL);
	ck_assert_uint_eq(tp->nidpats, 2);
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(policy_identities(tp, "to ACCT-123 and ACCT-456, "
	    "or bob@bank", 38, idcollect, &c), 0);
	ck_assert_str_eq(c.got, "[ACCT-123][ACCT-456][bob@bank]");
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(policy_identities(tp, "nothing", 7, idcollect, &c),
	    0);
	ck_assert_str_eq(c.got, "");
	/* at the bound and past it */
	for (i = 0; i < BNC_POLICY_IDENTS_MAX; i++)
		memcpy(big + 9 * i, "ACCT-000 ", 9);
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(policy_identities(tp, big, 9 * i, idcollect, &c), 0);
	memcpy(big + 9 * i, "ACCT-000 ", 9);
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(policy_identities(tp, big, 9 * (i + 1), idcollect,
	    &c), -BNC_ERR_TOO_LARGE);
	/* a match that fails (invalid UTF-8) is an error, never "none" */
	ck_assert_int_lt(policy_identities(tp, "ACCT-\xff", 6, idcollect, &c),
	    0);
}
END_TEST

/* ---- core: patterns (full match, seed 6.2) ------------------------ */

static const struct arg_pattern *
pattern(const char *re)
{
	char text[512];
	const struct tool_policy *tp;
	static int n;
	char tool[32];

	snprintf(tool, sizeof(tool), "pt%d", n++);
	snprintf(text, sizeof(text), "%s:\n  arg_patterns:\n    a: '%s'\n",
	    tool, re);
	ck_assert_msg(load(text, 0) == 0, "%s", err);
	tp = policy_for(pol, "up", tool, NULL);
	ck_assert_uint_eq(tp->npatterns, 1);
	return &tp->patterns[0];
}

static int
pm(const struct arg_pattern *ap, const char *s)
{
	return policy_pattern_match(ap, s, strlen(s));
}

START_TEST(test_pattern_full_match)
{
	const struct arg_pattern *ap;
	struct timespec t0, t1;
	char big[64];

	ap = pattern("read|write");
	ck_assert_int_eq(pm(ap, "read"), 1);
	ck_assert_int_eq(pm(ap, "write"), 1);
	ck_assert_int_eq(pm(ap, "readwrite"), 0);
	ck_assert_int_eq(pm(ap, "xread"), 0);
	ck_assert_int_eq(pm(ap, "reading"), 0);
	ck_assert_int_eq(pm(ap, "delete"), 0);
	ck_assert_int_eq(pm(ap, "read\n"), 0);
	ck_assert_int_eq(pm(ap, ""), 0);
	/* a NUL inside the subject is part of it */
	ck_assert_int_eq(policy_pattern_match(ap, "read\0x", 6), 0);
	ck_assert_int_eq(policy_pattern_match(ap, "read\0x", 4), 1);

	ap = pattern("\\d+");
	ck_assert_int_eq(pm(ap, "42"), 1);	/* int 42's JSON text */
	ck_assert_int_eq(pm(ap, "42a"), 0);
	ck_assert_int_eq(pm(ap, "-1"), 0);
	/* backtracking into an alternation still reaches the end */
	ap = pattern("(?:a|ab)");
	ck_assert_int_eq(pm(ap, "ab"), 1);
	ck_assert_int_eq(pm(ap, "a"), 1);
	ap = pattern("a$");
	ck_assert_int_eq(pm(ap, "a"), 1);
	ck_assert_int_eq(pm(ap, "a\n"), 0);
	ap = pattern("");
	ck_assert_int_eq(pm(ap, ""), 1);
	ck_assert_int_eq(pm(ap, "x"), 0);
	ap = pattern("true|false");
	ck_assert_int_eq(pm(ap, "true"), 1);
	ck_assert_int_eq(pm(ap, "True"), 0);	/* JSON text, not Python's */
	ap = pattern("null");
	ck_assert_int_eq(pm(ap, "null"), 1);
	ck_assert_int_eq(pm(ap, "None"), 0);
	/* UTF-8 aware; invalid UTF-8 is an error, so a deny */
	ap = pattern("caf.");
	ck_assert_int_eq(pm(ap, "caf\xc3\xa9"), 1);
	ck_assert_int_lt(pm(ap, "caf\xc3"), 0);
	ck_assert_int_lt(pm(ap, "caf\xff"), 0);
	/* a backtracking bomb stops at the match limit: never a match */
	ap = pattern("(a+)+b");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_lt(pm(ap, big), 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 10);
	/* NULL in, error out */
	ck_assert_int_lt(policy_pattern_match(NULL, "x", 1), 0);
	ck_assert_int_lt(policy_pattern_match(ap, NULL, 0), 0);
}
END_TEST

/* ---- core: trusted destinations ---------------------------------- */

static int
tm(const char *pat, const char *v)
{
	return policy_trusted_match(pat, v, strlen(v));
}

START_TEST(test_trusted_exact)
{
	ck_assert_int_eq(tm("you@yourcompany.com", "you@yourcompany.com"), 1);
	/* the seed's normalisation: trim, lower case, collapse spaces */
	ck_assert_int_eq(tm("you@yourcompany.com", "  You@YourCompany.COM "),
	    1);
	ck_assert_int_eq(tm("  You@YourCompany.COM", "you@yourcompany.com"),
	    1);
	ck_assert_int_eq(tm("team  general", "team\t general"), 1);
	ck_assert_int_eq(tm("you@yourcompany.com", "you@yourcompany.co"), 0);
	ck_assert_int_eq(tm("you@yourcompany.com", "xyou@yourcompany.com"),
	    0);
	/* DESIGN 5: a mailto: names the mailbox it holds */
	ck_assert_int_eq(tm("you@yourcompany.com",
	    "mailto:you@yourcompany.com"), 1);
	/* no '?' or '[' magic */
	ck_assert_int_eq(tm("a?c", "abc"), 0);
	ck_assert_int_eq(tm("a?c", "a?c"), 1);
	ck_assert_int_eq(tm("[ab]", "a"), 0);
	/* non-ASCII compares exactly */
	ck_assert_int_eq(tm("jos\xc3\xa9@x.example", "jos\xc3\xa9@x.example"),
	    1);
	ck_assert_int_eq(tm("jos\xc3\xa9@x.example", "JOS\xc3\x89@x.example"),
	    0);
	/* NUL, empty and NULL values are never trusted */
	ck_assert_int_eq(policy_trusted_match("a", "a\0", 2), 0);
	ck_assert_int_eq(tm("*", ""), 0);
	ck_assert_int_eq(tm("*", "   "), 0);
	ck_assert_int_eq(tm("", ""), 0);
	ck_assert_int_eq(policy_trusted_match(NULL, "a", 1), 0);
	ck_assert_int_eq(policy_trusted_match("a", NULL, 0), 0);
}
END_TEST

START_TEST(test_trusted_glob)
{
	/* addresses */
	ck_assert_int_eq(tm("*@corp.example", "alice@corp.example"), 1);
	ck_assert_int_eq(tm("*@corp.example", "Alice.Smith+tag@CORP.example"),
	    1);
	ck_assert_int_eq(tm("*@corp.example", "alice@corp.example.evil.com"),
	    0);
	ck_assert_int_eq(tm("*@corp.example", "alice@evil.com@corp.example"),
	    0);
	ck_assert_int_eq(tm("*@corp.example",
	    "attacker@evil.com, bob@corp.example"), 0);
	ck_assert_int_eq(tm("*@corp.example",
	    "attacker@evil.com,bob@corp.example"), 0);
	/* DESIGN 5: a display name, a comment, quotes or a mailto: make no
	 * other mailbox; an address list is no single trusted one */
	ck_assert_int_eq(tm("*@corp.example",
	    "Bob <bob@corp.example>"), 1);
	ck_assert_int_eq(tm("*@corp.example", "mailto:bob@corp.example"), 1);
	ck_assert_int_eq(tm("*@corp.example", "\"bob\"@corp.example"), 1);
	ck_assert_int_eq(tm("*@corp.example", "bob(x)@corp.example."), 1);
	ck_assert_int_eq(tm("*@corp.example",
	    "Bob <bob@corp.example>, eve@evil.example"), 0);
	ck_assert_int_eq(tm("*@corp.example", "Bob <bob@evil.example>"), 0);
	/* a trusted mailbox with another address beside it is not one */
	ck_assert_int_eq(tm("*@corp.example",
	    "bob@corp.example (leak@evil.example)"), 0);
	ck_assert_int_eq(tm("https://wiki.corp.example/*",
	    "https://wiki.corp.example/x,https://new.example/"), 0);
	ck_assert_int_eq(tm("https://wiki.corp.example/*",
	    "https://wiki.corp.example/r?to=https://new.example/"), 0);
	ck_assert_int_eq(tm("*@corp.example", "@corp.example"), 1);
	ck_assert_int_eq(tm("team-*@corp.example", "team-a@corp.example"), 1);
	ck_assert_int_eq(tm("team-*@corp.example", "bob@corp.example"), 0);
	/* host names */
	ck_assert_int_eq(tm("*.corp.example", "wiki.corp.example"), 1);
	ck_assert_int_eq(tm("*.corp.example", "a.b.corp.example"), 1);
	ck_assert_int_eq(tm("*.corp.example", "corp.example"), 0);
	ck_assert_int_eq(tm("*.corp.example", "evilcorp.example"), 0);
	ck_assert_int_eq(tm("*.corp.example", "evil.com/.corp.example"), 0);
	ck_assert_int_eq(tm("*.corp.example", "evil.com:1.corp.example"), 0);
	ck_assert_int_eq(tm("*.corp.example", "evil%2f.corp.example"), 0);
	/* URLs: a final "/ *" takes the rest of the URL */
	ck_assert_int_eq(tm("https://wiki.corp.example/*",
	    "https://wiki.corp.example/"), 1);
	ck_assert_int_eq(tm("https://wiki.corp.example/*",
	    "https://wiki.corp.example/Page/x?y=1&z=a@b#top"), 1);
	ck_assert_int_eq(tm("https://wiki.corp.example/*",
	    "HTTPS://WIKI.corp.example/a"), 1);
	/* the same URL: an empty path is "/" */
	ck_assert_int_eq(tm("https://wiki.corp.example/*",
	    "https://wiki.corp.example"), 1);
	ck_assert_int_eq(tm("https://wiki.corp.example/*",
	    "https://wiki.corp.example.evil.com/"), 0);
	ck_assert_int_eq(tm("https://wiki.corp.example/*",
	    "https://wiki.corp.example@evil.com/"), 0);
	ck_assert_int_eq(tm("https://wiki.corp.example/*",
	    "https://wiki.corp.example:8443/"), 0);
	ck_assert_int_eq(tm("https://wiki.corp.example/*",
	    "https://wiki.corp.example/x https://evil.com/"), 0);
	ck_assert_int_eq(tm("https://wiki.corp.example/*",
	    "https://wiki.corp.example/x\x01"), 0);
	ck_assert_int_eq(tm("https://*.corp.example/*",
	    "https://docs.corp.example/a/b"), 1);
	ck_assert_int_eq(tm("https://*.corp.example/*",
	    "https://evil.com/.corp.example/a"), 0);
	ck_assert_int_eq(tm("https://*.corp.example/*",
	    "https://x.corp.example@evil.com/a"), 0);
	/* a '*' that is not after a final '/' never crosses '/' */
	ck_assert_int_eq(tm("https://wiki.corp.example/docs*",
	    "https://wiki.corp.example/docs/x"), 0);
	ck_assert_int_eq(tm("https://wiki.corp.example/docs*",
	    "https://wiki.corp.example/docs-2"), 1);
	/* '*' alone: one plain token (lint warns about it) */
	ck_assert_int_eq(tm("*", "general"), 1);
	ck_assert_int_eq(tm("*", "a b"), 0);
	ck_assert_int_eq(tm("**", "general"), 1);
	ck_assert_int_eq(tm("a*b*c", "a-b.x.c"), 1);
	ck_assert_int_eq(tm("a*b*c", "a-b.x.d"), 0);
}
END_TEST

/* ---- core: the forbidden set ------------------------------------- */

START_TEST(test_forbidden)
{
	/* DESIGN 6's built-in set, whatever the spelling */
	ck_assert_int_eq(policy_forbidden(pol, "up", "set_owner"), 1);
	ck_assert_int_eq(policy_forbidden(pol, "up", "SetOwner"), 1);
	ck_assert_int_eq(policy_forbidden(pol, "up", "set-due-date"), 1);
	ck_assert_int_eq(policy_forbidden(pol, "up", "SET_STATUS"), 1);
	ck_assert_int_eq(policy_forbidden(pol, NULL, "update_property"), 1);
	ck_assert_int_eq(policy_forbidden(pol, "up", "updateAnyProperty"), 1);
	ck_assert_int_eq(policy_forbidden(pol, "up", "assign"), 1);
	ck_assert_int_eq(policy_forbidden(pol, "up", "delete_page"), 1);
	ck_assert_int_eq(policy_forbidden(pol, "up", "delete.issue"), 1);
	ck_assert_int_eq(policy_forbidden(NULL, "up", "delete_issue"), 1);
	ck_assert_int_eq(policy_forbidden(pol, "up", NULL), 1);
	ck_assert_int_eq(policy_forbidden(pol, "up", "read_tasks"), 0);
	ck_assert_int_eq(policy_forbidden(pol, "up", "assignee_list"), 0);
	ck_assert_int_eq(policy_forbidden(pol, "up", "set_owner_x"), 0);

	/* a pack's forbidden: true, the config's names, qualified ones */
	ck_assert_int_eq(load("API-patch-page: { forbidden: true }\n"
	    "gh:update_issue: { forbidden: true }\n", 1), 0);
	policy_add_forbidden(pol, "wipe_all");
	policy_add_forbidden(pol, "mail:send_email");
	ck_assert_int_eq(policy_forbidden(pol, "notion", "API-patch-page"), 1);
	ck_assert_int_eq(policy_forbidden(pol, "x", "api_patch_page"), 1);
	ck_assert_int_eq(policy_forbidden(pol, "gh", "update_issue"), 1);
	ck_assert_int_eq(policy_forbidden(pol, "jira", "update_issue"), 0);
	ck_assert_int_eq(policy_forbidden(pol, NULL, "update_issue"), 0);
	ck_assert_int_eq(policy_forbidden(pol, "a", "wipe_all"), 1);
	ck_assert_int_eq(policy_forbidden(pol, "mail", "send_email"), 1);
	ck_assert_int_eq(policy_forbidden(pol, "gmail", "send_email"), 0);

	/* a later entry cannot lift a forbidden mark */
	ck_assert_int_eq(load("API-patch-page: { confirm: true }\n", 0), 0);
	ck_assert_int_eq(policy_forbidden(pol, "notion", "API-patch-page"), 1);
	ck_assert_int_eq(load("API-patch-page: { forbidden: false }\n", 1), 0);
	ck_assert_int_eq(policy_forbidden(pol, "notion", "API-patch-page"), 1);
	/* a user may forbid too */
	ck_assert_int_eq(load("drop_db: { forbidden: true }\n", 0), 0);
	ck_assert_int_eq(policy_forbidden(pol, "db", "drop_db"), 1);
	ck_assert_int_eq(policy_for(pol, "db", "drop_db", NULL)->forbidden, 1);
}
END_TEST

/* ---- core: lint -------------------------------------------------- */

static char warnings[8192];

static void
collect(const char *msg, void *arg)
{
	int *n = arg;

	(*n)++;
	strncat(warnings, msg, sizeof(warnings) - strlen(warnings) - 2);
	strcat(warnings, "\n");
}

static int
lint(void)
{
	int n = 0, r;

	warnings[0] = '\0';
	r = policy_lint(pol, collect, &n);
	ck_assert_int_eq(r, n);
	return r;
}

static void
expect_warning(const char *says)
{
	ck_assert_msg(strstr(warnings, says) != NULL,
	    "no warning \"%s\" in:\n%s", says, warnings);
}

START_TEST(test_lint_clean)
{
	ck_assert_int_eq(load(
	    "send_email:\n"
	    "  exfiltrating: true\n"
	    "  sink_params: [to, cc, bcc]\n"
	    "  max_calls: 2\n", 1), 0);
	ck_assert_int_eq(load(
	    "send_email:\n"
	    "  exfiltrating: true\n"
	    "  sink_params: [to, cc, bcc, reply_to]\n"
	    "  trusted_destinations: ['*@corp.example',"
	    " 'https://wiki.corp.example/*', '*.corp.example']\n"
	    "  max_calls: 1\n"
	    "write_file:\n"
	    "  write_params: [path]\n"
	    "  allowed_path_prefixes: [./out]\n", 0), 0);
	ck_assert_int_eq(lint(), 0);
}
END_TEST

START_TEST(test_lint_drops)
{
	char pack[128];

	ck_assert_int_eq(load(
	    "send_email:\n"
	    "  exfiltrating: true\n"
	    "  sink_params: [to, cc, bcc]\n"
	    "  confirm: true\n"
	    "  max_calls: 2\n"
	    "  arg_patterns: { mode: a|b }\n"
	    "API-patch-page: { forbidden: true }\n"
	    "post: { exfiltrating: true, sink_params: [channel] }\n", 1), 0);
	strcpy(pack, path);
	/* the seed's gotcha: trusted_destinations alone turns the gate off */
	ck_assert_int_eq(load(
	    "send_email:\n"
	    "  trusted_destinations: [you@yourcompany.com]\n"
	    "API-patch-page: { confirm: true }\n"
	    "chat:post: { exfiltrating: true, sink_params: [text] }\n", 0), 0);
	ck_assert_int_eq(lint(), 8);
	expect_warning(":1: send_email: replaces the pack entry at ");
	expect_warning("drops its exfiltrating: true; the sink gate is off");
	expect_warning("drops its sink parameter(s) 'to', 'cc', 'bcc'");
	expect_warning("drops its confirm: true");
	expect_warning("raises its max_calls 2 to none");
	expect_warning("drops its arg_patterns for 'mode'");
	expect_warning("trusted_destinations have no effect without "
	    "exfiltrating: true");
	expect_warning(":3: API-patch-page: replaces the pack entry");
	expect_warning("cannot lift its forbidden: true");
	/* a qualified user entry hides the unqualified pack entry */
	expect_warning(":4: chat:post: replaces the pack entry at ");
	expect_warning("drops its sink parameter(s) 'channel'");
	ck_assert_msg(strstr(warnings, pack) != NULL, "%s", warnings);
}
END_TEST

START_TEST(test_lint_misc)
{
	ck_assert_int_eq(load(
	    "a: { sink_params: [to] }\n"
	    "b: { tainted: ask }\n"
	    "c: { allowed_path_prefixes: [./out] }\n"
	    "d: { write_params: [path] }\n"
	    "e: { exfiltrating: true, trusted_destinations: ['*'] }\n"
	    "f: { exfiltrating: true, trusted_destinations: "
	    "['https://wiki.corp.example*'] }\n"
	    "g: { exfiltrating: true, trusted_destinations: "
	    "['*corp.example'] }\n"
	    "set_owner: { confirm: true }\n"
	    "h: { forbidden: true, max_calls: 1 }\n"
	    "i: { exfiltrating: true, trusted_destinations: ['/*'] }\n", 0), 0);
	ck_assert_int_eq(lint(), 10);
	expect_warning(":1: a: sink_params have no effect without "
	    "exfiltrating");
	expect_warning(":2: b: tainted: ask has no effect");
	expect_warning(":3: c: allowed_path_prefixes have no effect without "
	    "write_params");
	expect_warning(":4: d: write_params have no effect without "
	    "allowed_path_prefixes");
	expect_warning(":5: e: trusted destination '*' trusts almost "
	    "everything");
	expect_warning(":6: f: trusted destination "
	    "'https://wiki.corp.example*' ends in a '*'");
	expect_warning(":7: g: trusted destination '*corp.example' also "
	    "matches longer names ('evilcorp.example')");
	expect_warning(":8: set_owner: is in the built-in forbidden write set");
	expect_warning(":9: h: forbidden: true makes its other keys pointless");
	expect_warning(":10: i: trusted destination '/*' trusts almost");
	/* write_params without prefixes is normal in a pack */
	policy_free(pol);
	pol = policy_new();
	ck_assert_int_eq(load("d: { write_params: [path] }\n", 1), 0);
	ck_assert_int_eq(lint(), 0);
}
END_TEST

START_TEST(test_lint_pack_over_pack)
{
	ck_assert_int_eq(load("t: { exfiltrating: true, sink_params: [to] }\n",
	    1), 0);
	ck_assert_int_eq(load("t: { exfiltrating: true, sink_params: [cc] }\n",
	    1), 0);
	ck_assert_int_eq(lint(), 1);
	expect_warning("t: replaces the pack entry at ");
	expect_warning("drops its sink parameter(s) 'to'");
}
END_TEST

/* The forbidden set, whatever the case and the separators. */
START_TEST(test_forbidden_variants)
{
	static const char *const same[] = {
		"SET-OWNER", "set.owner", "Set_Owner", "setOwner", "SETOWNER",
		"set__owner", "s.e-t_owner", "set owner", "Assign", "ASSIGN",
		"Delete-Page", "delete.issue", "SetDueDate", "set-status",
		"Update.Any.Property",
	};
	static const char *const other[] = {
		"set_owners", "reset_owner", "owner_set", "assignee",
		/* withheld by the surface instead */
		"set_own\xd0\xb5r",
	};
	size_t i;

	ck_assert_int_eq(load("Wipe-All: { forbidden: true }\n", 0), 0);
	policy_add_forbidden(pol, "API.Patch.Page");
	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		ck_assert_msg(policy_forbidden(pol, "up", same[i]), "%s",
		    same[i]);
	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		ck_assert_msg(!policy_forbidden(pol, "up", other[i]), "%s",
		    other[i]);
	ck_assert_int_eq(policy_forbidden(pol, "up", "wipe_all"), 1);
	ck_assert_int_eq(policy_forbidden(pol, "up", "WIPEALL"), 1);
	ck_assert_int_eq(policy_forbidden(pol, "up", "api-patch-page"), 1);
}
END_TEST

/* ---- core: scope -------------------------------------------------- */

static char notes[8192];
static int nnotes;

static void
note(const char *event, const char *msg, void *arg)
{
	(void)arg;
	nnotes++;
	strncat(notes, event, sizeof(notes) - strlen(notes) - 1);
	strncat(notes, ": ", sizeof(notes) - strlen(notes) - 1);
	strncat(notes, msg, sizeof(notes) - strlen(notes) - 1);
	strncat(notes, "\n", sizeof(notes) - strlen(notes) - 1);
}

static void
explain(const char *up, const char *tool, struct value *sch)
{
	policy_explain(pol, up, tool, sch, note, NULL);
	value_free(sch);
}

static void
expect_note(const char *says)
{
	ck_assert_msg(strstr(notes, says) != NULL, "no note \"%s\" in:\n%s",
	    says, notes);
}

/*
 * C: an unqualified entry's trust-granting keys apply only while one
 * upstream lists the name; its restricting keys stay.
 */
START_TEST(test_scope_trust)
{
	const struct tool_policy *tp;
	struct value *sch = schema("name", NULL);

	ck_assert_int_eq(load(
	    "lookup_contact:\n"
	    "  taint_source: false\n"
	    "  extra_args: allow\n"
	    "  read_only: true\n"
	    "  exfiltrating: true\n"
	    "  sink_params: [name]\n"
	    "  trusted_destinations: [a@corp.example]\n"
	    "  max_calls: 3\n"
	    "  confirm: true\n", 0), 0);
	policy_scope_upstream(pol, "dir", NULL);
	policy_scope_upstream(pol, "other", NULL);
	policy_scope_tool(pol, "dir", "lookup_contact");
	tp = policy_for(pol, "dir", "lookup_contact", sch);
	ck_assert_int_eq(tp->taint_source, 0);
	ck_assert_int_eq(tp->extra_args, 1);
	ck_assert_int_eq(tp->read_only, 1);
	ck_assert_uint_eq(tp->ntrusted, 1);

	/* a second upstream lists the name: trust for neither */
	policy_scope_tool(pol, "other", "lookup_contact");
	for (int i = 0; i < 2; i++) {
		tp = policy_for(pol, i == 0 ? "dir" : "other",
		    "lookup_contact", sch);
		ck_assert_str_eq(tp->source, "user");
		ck_assert_int_eq(tp->taint_source, 1);
		ck_assert_int_eq(tp->extra_args, 0);
		ck_assert_int_eq(tp->read_only, 0);
		ck_assert_uint_eq(tp->ntrusted, 0);
		ck_assert_int_eq(tp->exfiltrating, 1);
		ck_assert_uint_eq(tp->nsink, 1);
		ck_assert_int_eq(tp->max_calls, 3);
		ck_assert_int_eq(tp->confirm, 1);
	}
	/* the entry itself is untouched */
	ck_assert_int_eq(policy_entry(pol, 0)->taint_source, 0);
	ck_assert_uint_eq(policy_entry(pol, 0)->ntrusted, 1);
	/* registering again changes nothing */
	policy_scope_tool(pol, "other", "lookup_contact");
	ck_assert_int_eq(policy_for(pol, "dir", "lookup_contact",
	    sch)->taint_source, 1);

	/* said once, whichever upstream is explained first */
	notes[0] = '\0';
	nnotes = 0;
	policy_explain(pol, "other", "lookup_contact", sch, note, NULL);
	policy_explain(pol, "dir", "lookup_contact", sch, note, NULL);
	ck_assert_int_eq(nnotes, 1);
	expect_note("trust-ignored: user entry ");
	expect_note(":1 lookup_contact: its trust-granting keys "
	    "(taint_source: false, trusted_destinations, extra_args: allow, "
	    "read_only: true) are ignored, because upstreams dir and other "
	    "all list 'lookup_contact'; write the qualified form, "
	    "'UPSTREAM:lookup_contact'");

	/* the qualified form gives it back, to that upstream only */
	ck_assert_int_eq(load("dir:lookup_contact: { taint_source: false }\n",
	    0), 0);
	ck_assert_int_eq(policy_for(pol, "dir", "lookup_contact",
	    sch)->taint_source, 0);
	ck_assert_int_eq(policy_for(pol, "other", "lookup_contact",
	    sch)->taint_source, 1);
	/* an entry without trust is the same for both */
	ck_assert_int_eq(load("other_tool: { max_calls: 1 }\n", 0), 0);
	policy_scope_tool(pol, "dir", "other_tool");
	policy_scope_tool(pol, "other", "other_tool");
	ck_assert_int_eq(policy_for(pol, "other", "other_tool",
	    sch)->max_calls, 1);
	value_free(sch);
}
END_TEST

/* -t: an unqualified entry that grants trust, with two upstreams. */
START_TEST(test_scope_lint)
{
	ck_assert_int_eq(load(
	    "a: { taint_source: false }\n"
	    "b: { extra_args: allow }\n"
	    "c: { read_only: true }\n"
	    "d: { exfiltrating: true, sink_params: [to], "
	    "trusted_destinations: [x@corp.example] }\n"
	    "up1:e: { taint_source: false }\n"
	    "f: { taint_source: true, extra_args: deny, read_only: false }\n",
	    0), 0);
	policy_scope_upstream(pol, "up1", NULL);
	ck_assert_int_eq(lint(), 0);
	policy_scope_upstream(pol, "up2", NULL);
	ck_assert_int_eq(lint(), 4);
	expect_warning(":1: a: grants taint_source: false to the tool of this "
	    "name of every upstream; with 2 upstreams configured those keys "
	    "apply only while exactly one of them lists 'a': write the "
	    "qualified form, 'UPSTREAM:a'");
	expect_warning(":2: b: grants extra_args: allow");
	expect_warning(":3: c: grants read_only: true");
	expect_warning(":4: d: grants trusted_destinations");
	ck_assert_ptr_null(strstr(warnings, ":5:"));
	ck_assert_ptr_null(strstr(warnings, ":6:"));
}
END_TEST

/* D: a pack entry applies where it describes the tool. */
START_TEST(test_scope_pack)
{
	const struct tool_policy *tp;

	ck_assert_int_eq(load(
	    "(server): [gmail, gmail-fork]\n"
	    "send_email: { exfiltrating: true, sink_params: [to, cc, bcc] }\n"
	    "read_email: { read_only: true }\n"
	    "modify_email: {}\n"
	    "delete_label: {}\n"
	    "download_attachment:\n"
	    "  write_params: [savePath]\n"
	    "  arg_patterns: { filename: '[^/]+' }\n"
	    "update_issue: { forbidden: true }\n", 1), 0);
	policy_scope_upstream(pol, "g", "gmail");
	policy_scope_upstream(pol, "f", "gmail-fork");

	/* a server the pack names: every entry, whatever the schema */
	ck_assert_str_eq(pfor("g", "send_email",
	    schema("recipient", NULL))->source, "pack");
	ck_assert_int_eq(policy_for(pol, "f", "read_email", NULL)->read_only,
	    1);
	ck_assert_str_eq(pfor("g", "modify_email",
	    schema("forward_to", NULL))->source, "pack");
	ck_assert_int_eq(policy_for(pol, "g", "delete_label",
	    NULL)->max_calls, -1);

	/* another server: only where the entry fits the tool */
	policy_scope_upstream(pol, "o", "other-mail");
	notes[0] = '\0';
	nnotes = 0;

	tp = pfor("o", "send_email", schema("recipient", "body",
	    NULL));
	ck_assert_str_eq(tp->source, "heuristics");
	ck_assert_uint_eq(tp->nsink, 1);
	ck_assert_str_eq(tp->sink_params[0], "recipient");
	explain("o", "send_email", schema("recipient", "body", NULL));
	expect_note("pack-not-applied: pack ");
	expect_note(":2 send_email not applied to upstream o: its schema "
	    "has no parameter 'to'");
	tp = pfor("o2", "send_email", schema("to", "cc", "bcc",
	    "subject", NULL));
	ck_assert_str_eq(tp->source, "pack");

	ck_assert_str_ne(pfor("o", "read_email",
	    schema("id", NULL))->source, "pack");
	ck_assert_int_eq(policy_for(pol, "o", "read_email", NULL)->read_only,
	    0);
	explain("o", "read_email", schema("id", NULL));
	expect_note(":3 read_email not applied to upstream o: it grants "
	    "read_only: true without naming a parameter, and the pack does "
	    "not name server \"other-mail\"");
	explain("nameless", "read_email", NULL);
	expect_note("upstream nameless: it grants read_only: true without "
	    "naming a parameter, and the server gave no serverInfo.name");

	/* weaker than the heuristics for this schema: not applied */
	tp = pfor("o", "modify_email", schema("id", "forward_to",
	    NULL));
	ck_assert_str_eq(tp->source, "heuristics");
	ck_assert_int_eq(tp->exfiltrating, 1);
	explain("o", "modify_email", schema("id", "forward_to", NULL));
	expect_note(":4 modify_email not applied to upstream o: it leaves "
	    "the sink gate off, but the tool's schema has the destination "
	    "parameter 'forward_to'");
	ck_assert_str_eq(pfor("o3", "modify_email",
	    schema("id", "labels", NULL))->source, "pack");
	tp = policy_for(pol, "o", "delete_label", NULL);
	ck_assert_str_eq(tp->source, "heuristics");
	ck_assert_int_eq(tp->max_calls, 2);

	/* parameters through the schema reader; patterns count */
	ck_assert_str_eq(pfor("o", "download_attachment",
	    tj("{\"type\":\"object\",\"allOf\":[{\"$ref\":\"#/$defs/a\"}],"
	    "\"$defs\":{\"a\":{\"properties\":{\"savePath\":{},"
	    "\"filename\":{}}}}}"))->source, "pack");
	ck_assert_str_ne(pfor("o4", "download_attachment",
	    schema("savePath", NULL))->source, "pack");

	/* a forbidden mark restricts: it applies everywhere */
	ck_assert_int_eq(policy_for(pol, "o", "update_issue",
	    NULL)->forbidden, 1);
	ck_assert_int_eq(policy_forbidden(pol, "o", "update_issue"), 1);
}
END_TEST

/* A pack without (server): trust without parameters applies nowhere. */
START_TEST(test_scope_pack_unnamed)
{
	ck_assert_int_eq(load("read_email: { read_only: true }\n"
	    "send: { exfiltrating: true, sink_params: [to] }\n", 1), 0);
	policy_scope_upstream(pol, "o", "gmail");
	ck_assert_int_eq(policy_for(pol, "o", "read_email", NULL)->read_only,
	    0);
	ck_assert_str_eq(pfor("o", "send",
	    schema("to", NULL))->source, "pack");
	notes[0] = '\0';
	explain("o", "read_email", NULL);
	expect_note("without naming a parameter, and its pack names no "
	    "server");
}
END_TEST

/* Two packs with one name: the first, latest file first, that applies. */
START_TEST(test_scope_pack_chain)
{
	ck_assert_int_eq(load("(server): [gmail]\n"
	    "send_email: { exfiltrating: true, sink_params: [to] }\n", 1), 0);
	ck_assert_int_eq(load("(server): [outlook]\n"
	    "send_email: { exfiltrating: true, sink_params: [recipients] }\n",
	    1), 0);
	policy_scope_upstream(pol, "g", "gmail");
	policy_scope_upstream(pol, "m", "outlook");
	ck_assert_str_eq(pfor("g", "send_email",
	    schema("to", NULL))->sink_params[0], "to");
	ck_assert_str_eq(pfor("m", "send_email",
	    schema("to", NULL))->sink_params[0], "recipients");
	notes[0] = '\0';
	explain("g", "send_email", schema("to", NULL));
	expect_note(":2 send_email not applied to upstream g: its schema has "
	    "no parameter 'recipients'");
	notes[0] = '\0';
	explain("m", "send_email", schema("to", "recipients", NULL));
	expect_note("p0.yaml:2 send_email not applied to upstream m: the "
	    "pack entry at ");
	/* a user entry replaces the pack entry that would apply */
	ck_assert_int_eq(load("send_email: { max_calls: 1 }\n", 0), 0);
	notes[0] = '\0';
	explain("g", "send_email", schema("to", NULL));
	expect_note("p0.yaml:2 send_email not applied to upstream g: the "
	    "user entry at ");
}
END_TEST

/* ---- errors: file, line and key ---------------------------------- */

START_TEST(test_err_top_level)
{
	/* seed bug 18.1: not a mapping was silently accepted */
	expect_error_says("- send_email\n- write_file\n", 1, "(top level)",
	    "must be a mapping of tool name to entry, not a list");
	expect_error_says("just a string\n", 1, "(top level)", "not");
	expect_error_says("# comment\n\n42\n", 3, "(top level)", "\"42\"");
	expect_error_says("~\n", 1, "(top level)", "must be a mapping");
}
END_TEST

/* (server) is a pack's, and a list of server names. */
START_TEST(test_err_server)
{
	expect_error_says("send: {}\n(server): [gmail]\n", 2, "(server)",
	    "only a pack names the servers it describes");
	ck_assert_int_eq(load("(server): []\n", 1), -BNC_ERR_CONFIG);
	ck_assert_msg(strstr(err, ":1: (server): names no server") != NULL,
	    "%s", err);
	ck_assert_int_eq(load("(server): gmail\n", 1), -BNC_ERR_CONFIG);
	ck_assert_msg(strstr(err, ":1: (server): must be a list") != NULL,
	    "%s", err);
	ck_assert_int_eq(load("(server): [gmail, \"\"]\n", 1),
	    -BNC_ERR_CONFIG);
	ck_assert_int_eq(load("(server): [gmail, gmail]\n", 1),
	    -BNC_ERR_CONFIG);
	ck_assert_int_eq(load("(server): [gmail]\n(server): [x]\n", 1),
	    -BNC_ERR_CONFIG);
	ck_assert_msg(strstr(err, "duplicate key") != NULL, "%s", err);
	/* not an entry: nothing named "(server)" is looked up */
	ck_assert_int_eq(load("(server): [\"Slack MCP Server\"]\n"
	    "t: {}\n", 1), 0);
	ck_assert_uint_eq(policy_nentries(pol), 1);
	ck_assert_str_ne(policy_for(pol, "up", "(server)", NULL)->source,
	    "pack");
}
END_TEST

START_TEST(test_err_types)
{
	/* seed 19.5: strict types */
	expect_error_says("send_email:\n  exfiltrating: \"false\"\n", 2,
	    "send_email.exfiltrating", "quoted, so not a boolean");
	expect_error_says("t:\n  exfiltrating: 'true'\n", 2,
	    "t.exfiltrating", "not a boolean");
	expect_error("t:\n  exfiltrating: 1\n", 2, "t.exfiltrating");
	expect_error("t:\n  exfiltrating: [true]\n", 2, "t.exfiltrating");
	expect_error("t:\n  confirm: maybe\n", 2, "t.confirm");
	expect_error("t:\n  taint_source: ''\n", 2, "t.taint_source");
	expect_error("t:\n  forbidden: on\n", 2, "t.forbidden");
	expect_error("t:\n  read_only: {}\n", 2, "t.read_only");
	/* seed bug 18.1: max_calls: true became 1 */
	expect_error_says("t:\n  max_calls: true\n", 2, "t.max_calls",
	    "whole number");
	expect_error_says("t:\n  max_calls: \"3\"\n", 2, "t.max_calls",
	    "quoted, so not a number");
	expect_error("t:\n  max_calls: 2.0\n", 2, "t.max_calls");
	expect_error("t:\n  max_calls: -1\n", 2, "t.max_calls");
	expect_error("t:\n  max_calls: 0x10\n", 2, "t.max_calls");
	expect_error("t:\n  max_calls: []\n", 2, "t.max_calls");
	expect_error("t:\n  max_calls:\n", 2, "t.max_calls");
	/* seed 19.5: a scalar sink_params was ignored */
	expect_error_says("t:\n  sink_params: to\n", 2, "t.sink_params",
	    "must be a list of strings");
	expect_error("t:\n  write_params: {a: b}\n", 2, "t.write_params");
	expect_error("t:\n  sink_params: [to, [cc]]\n", 2, "t.sink_params");
	expect_error_says("t:\n  sink_params:\n    - to\n    - ~\n", 4,
	    "t.sink_params", "not null");
	expect_error_says("t:\n  sink_params: [to, '']\n", 2, "t.sink_params",
	    "empty");
	expect_error_says("t:\n  sink_params: [to, cc, to]\n", 2,
	    "t.sink_params", "listed twice");
	expect_error("t:\n  trusted_destinations: a@b.c\n", 2,
	    "t.trusted_destinations");
	/* a name that holds an address would trust nothing (fuzz_policy) */
	expect_error_says("t:\n  trusted_destinations: [' Bob@Exa/ple.COM ']"
	    "\n", 2, "t.trusted_destinations", "not a well-formed address");
	expect_error_says("t:\n  trusted_destinations: ['a@b.example, c']\n",
	    2, "t.trusted_destinations", "not a well-formed address");
	expect_error_says("t:\n  tainted: allow\n", 2, "t.tainted",
	    "must be deny or ask");
	expect_error("t:\n  tainted: [deny]\n", 2, "t.tainted");
	expect_error_says("t:\n  extra_args: true\n", 2, "t.extra_args",
	    "must be allow or deny");
	expect_error("t:\n  extra_args: yes\n", 2, "t.extra_args");
	expect_error("t:\n  extra_args: [allow]\n", 2, "t.extra_args");
	ck_assert_int_eq(load("t:\n  extra_args: deny\n", 0), 0);
	expect_error_says("t:\n  approval: human\n", 2, "t.approval",
	    "must be elicit or signed");
	expect_error("t:\n  approval: true\n", 2, "t.approval");
	ck_assert_int_eq(load("t:\n  approval: elicit\n", 0), 0);
	expect_error_says("t:\n  identity_patterns: 'x+'\n", 2,
	    "t.identity_patterns", "must be a list of regexes");
	expect_error_says("t:\n  identity_patterns: ['a(']\n", 2,
	    "t.identity_patterns", "bad regex");
	expect_error_says("t:\n  identity_patterns: ['x*']\n", 2,
	    "t.identity_patterns", "matches the empty string");
	expect_error_says("t:\n  identity_patterns: ['a|']\n", 2,
	    "t.identity_patterns", "matches the empty string");
	expect_error("t:\n  arg_patterns: [a]\n", 2, "t.arg_patterns");
	expect_error("t:\n  arg_patterns: {a: [x]}\n", 2, "t.arg_patterns.a");
	expect_error("t:\n  arg_patterns:\n    a: ~\n", 3, "t.arg_patterns.a");
}
END_TEST

START_TEST(test_err_keys_entries)
{
	expect_error_says("send_email:\n  exfiltrating: true\n"
	    "  sink_param: [to]\n", 3, "send_email.sink_param", "unknown key");
	expect_error("t:\n  Exfiltrating: true\n", 2, "t.Exfiltrating");
	expect_error("a: {}\nt: { x: 1 }\n", 2, "t.x");
	/* seed 10: a non-mapping entry became a permissive policy */
	expect_error_says("send_email: 5\n", 1, "send_email",
	    "must be a mapping of policy keys");
	expect_error_says("a: {}\nsend_email:\n", 2, "send_email",
	    "not null");
	expect_error("send_email: [exfiltrating]\n", 1, "send_email");
	expect_error("send_email: true\n", 1, "send_email");
	/* names */
	expect_error_says("'bad name': {}\n", 1, "bad name", "white space");
	expect_error("'': {}\n", 1, "(tool name)");
	expect_error("~: {}\n", 1, "(tool name)");
	expect_error_says("':tool': {}\n", 1, ":tool", "upstream must be");
	expect_error("'up:': {}\n", 1, "up:");
	expect_error("'b!d:tool': {}\n", 1, "b!d:tool");
	expect_error("\"t\\x01\": {}\n", 1, "t\x01");
}
END_TEST

START_TEST(test_err_regex)
{
	/* seed bug 18.3: a bad regex failed only at call time */
	expect_error_says("t:\n  arg_patterns:\n    mode: '(unclosed'\n", 3,
	    "t.arg_patterns.mode", "bad regex /(unclosed/");
	expect_error("t:\n  arg_patterns:\n    a: ok\n    b: '[z-a]'\n", 4,
	    "t.arg_patterns.b");
	/* wrapping in ^(?:...)$ would have accepted this */
	expect_error("t:\n  arg_patterns:\n    a: 'a)(b'\n", 3,
	    "t.arg_patterns.a");
	expect_error("t:\n  arg_patterns:\n    a: '\\C'\n", 3,
	    "t.arg_patterns.a");
	expect_error("t:\n  arg_patterns:\n    '': x\n", 3, "t.arg_patterns");
}
END_TEST

START_TEST(test_err_prefixes)
{
	/* seed 19.1: no escape through "." or "" or ".." */
	expect_error_says("t:\n  write_params: [p]\n"
	    "  allowed_path_prefixes: ['']\n", 3, "t.allowed_path_prefixes",
	    "empty");
	expect_error_says("t:\n  allowed_path_prefixes: [..]\n", 2,
	    "t.allowed_path_prefixes", "\"..\" component");
	expect_error("t:\n  allowed_path_prefixes: [./out/../..]\n", 2,
	    "t.allowed_path_prefixes");
	expect_error("t:\n  allowed_path_prefixes: [/srv/../etc]\n", 2,
	    "t.allowed_path_prefixes");
	expect_error("t:\n  allowed_path_prefixes: [../x]\n", 2,
	    "t.allowed_path_prefixes");
	expect_error_says("t:\n  allowed_path_prefixes: [~/out]\n", 2,
	    "t.allowed_path_prefixes", "not expanded");
	/* "..." and "..x" are names, not ".." */
	ck_assert_int_eq(load("t: { write_params: [p], allowed_path_prefixes: "
	    "[..., ./..x, x..] }\n", 0), 0);
}
END_TEST

START_TEST(test_err_yaml)
{
	char want[sizeof(path) + 8];

	ck_assert_int_eq(load("a: {\n", 0), -BNC_ERR_CONFIG);
	snprintf(want, sizeof(want), "%s:", path);
	ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
	ck_assert_int_eq(load("a: &x {}\nb: *x\n", 0), -BNC_ERR_CONFIG);
	ck_assert_msg(strstr(err, ":1: anchors are not allowed") != NULL, "%s",
	    err);
	ck_assert_int_eq(load("a: {}\na: {}\n", 0), -BNC_ERR_CONFIG);
	ck_assert_msg(strstr(err, "duplicate key") != NULL, "%s", err);
	/* a missing file or directory */
	ck_assert_int_eq(policy_load_file(pol, "/nonexistent/p.yaml", 0, err,
	    sizeof(err)), -BNC_ERR_CONFIG);
	ck_assert_msg(strstr(err, "/nonexistent/p.yaml") != NULL, "%s", err);
	ck_assert_int_eq(policy_load_dir(pol, "/nonexistent", 1, err,
	    sizeof(err)), -BNC_ERR_CONFIG);
	ck_assert_msg(strstr(err, "/nonexistent") != NULL, "%s", err);
	/* a directory named *.yaml inside a pack directory */
	snprintf(want, sizeof(want), "%s/d.yaml", dir);
	ck_assert_int_eq(mkdir(want, 0700), 0);
	ck_assert_int_eq(policy_load_dir(pol, dir, 1, err, sizeof(err)),
	    -BNC_ERR_CONFIG);
	ck_assert_msg(strstr(err, "not a regular file") != NULL, "%s", err);
}
END_TEST

/* ---- limits ------------------------------------------------------- */

static char *
list_yaml(const char *key, int n)
{
	char *s;
	size_t off = 0, cap = (size_t)n * 16 + 64;
	int i;

	s = malloc(cap);
	off += (size_t)snprintf(s + off, cap - off, "t:\n  %s: [", key);
	for (i = 0; i < n; i++)
		off += (size_t)snprintf(s + off, cap - off, "%sp%d",
		    i > 0 ? ", " : "", i);
	snprintf(s + off, cap - off, "]\n");
	return s;
}

START_TEST(test_limit_list)
{
	char *s;

	s = list_yaml("sink_params", BNC_POLICY_LIST_MAX);
	ck_assert_msg(load(s, 0) == 0, "%s", err);
	free(s);
	s = list_yaml("trusted_destinations", BNC_POLICY_LIST_MAX + 1);
	expect_error_says(s, 2, "t.trusted_destinations", "more than");
	free(s);
}
END_TEST

START_TEST(test_limit_string)
{
	char *s;
	size_t n = BNC_POLICY_STRING_MAX;

	s = malloc(n + 64);
	memcpy(s, "t: { sink_params: [", 19);
	memset(s + 19, 'x', n);
	strcpy(s + 19 + n, "] }\n");
	ck_assert_msg(load(s, 0) == 0, "%s", err);
	memset(s + 19, 'y', n + 1);
	strcpy(s + 20 + n, "] }\n");
	expect_error_says(s, 1, "t.sink_params", "longer than");
	free(s);
}
END_TEST

START_TEST(test_limit_max_calls)
{
	char s[128];

	snprintf(s, sizeof(s), "t: { max_calls: %lld }\n",
	    (long long)BNC_POLICY_MAX_CALLS_MAX);
	ck_assert_int_eq(load(s, 0), 0);
	ck_assert_int_eq(policy_for(pol, "u", "t", NULL)->max_calls,
	    BNC_POLICY_MAX_CALLS_MAX);
	snprintf(s, sizeof(s), "t: { max_calls: %lld }\n",
	    (long long)BNC_POLICY_MAX_CALLS_MAX + 1);
	expect_error(s, 1, "t.max_calls");
	expect_error("t: { max_calls: 99999999999999999999999 }\n", 1,
	    "t.max_calls");
}
END_TEST

START_TEST(test_limit_name)
{
	char s[BNC_UPSTREAM_NAME_MAX + BNC_TOOL_NAME_MAX + 64];
	char up[BNC_UPSTREAM_NAME_MAX + 2], tool[BNC_TOOL_NAME_MAX + 2];

	memset(up, 'u', sizeof(up));
	up[BNC_UPSTREAM_NAME_MAX] = '\0';
	memset(tool, 't', sizeof(tool));
	tool[BNC_TOOL_NAME_MAX] = '\0';
	snprintf(s, sizeof(s), "%s:%s: {}\n", up, tool);
	ck_assert_msg(load(s, 0) == 0, "%s", err);
	ck_assert_str_eq(policy_for(pol, up, tool, NULL)->source, "user");
	/* one more byte of tool name */
	tool[BNC_TOOL_NAME_MAX] = 't';
	tool[BNC_TOOL_NAME_MAX + 1] = '\0';
	snprintf(s, sizeof(s), "%s: {}\n", tool);
	expect_error_says(s, 1, tool, "longer than");
	/* one more byte of upstream name: not a qualifier, so refused */
	tool[BNC_TOOL_NAME_MAX] = '\0';
	up[BNC_UPSTREAM_NAME_MAX] = 'u';
	up[BNC_UPSTREAM_NAME_MAX + 1] = '\0';
	snprintf(s, sizeof(s), "%s:t: {}\n", up);
	ck_assert_int_eq(load(s, 0), -BNC_ERR_CONFIG);
}
END_TEST

START_TEST(test_limit_file)
{
	char *s;
	size_t n = BNC_POLICY_FILE_MAX;

	s = malloc(n + 2);
	memset(s, '#', n);
	s[n - 1] = '\n';
	s[n] = '\0';
	ck_assert_msg(load(s, 0) == 0, "%s", err);
	s[n] = '\n';
	s[n + 1] = '\0';
	ck_assert_int_eq(load(s, 0), -BNC_ERR_CONFIG);
	ck_assert_msg(strstr(err, "larger than") != NULL, "%s", err);
	free(s);
}
END_TEST

START_TEST(test_limit_entries)
{
	char *s;
	size_t off = 0, cap = (size_t)(BNC_POLICY_ENTRIES_MAX + 1) * 16;
	int i;

	s = malloc(cap);
	for (i = 0; i < BNC_POLICY_ENTRIES_MAX; i++)
		off += (size_t)snprintf(s + off, cap - off, "t%d: {}\n", i);
	ck_assert_msg(load(s, 0) == 0, "%s", err);
	ck_assert_uint_eq(policy_nentries(pol), BNC_POLICY_ENTRIES_MAX);
	snprintf(s + off, cap - off, "t%d: {}\n", i);
	expect_error_says(s, 1, "(top level)", "more than");
	free(s);
}
END_TEST

START_TEST(test_limit_files)
{
	char name[32];
	int i;

	for (i = 0; i < BNC_POLICY_FILES_MAX; i++) {
		snprintf(name, sizeof(name), "f%03d.yaml", i);
		write_file(name, "");
	}
	ck_assert_int_eq(policy_load_dir(pol, dir, 1, err, sizeof(err)), 0);
	write_file("g.yaml", "");
	ck_assert_int_eq(policy_load_dir(pol, dir, 1, err, sizeof(err)),
	    -BNC_ERR_CONFIG);
	ck_assert_msg(strstr(err, "more than") != NULL, "%s", err);
}
END_TEST

START_TEST(test_limit_dest)
{
	char *v;
	size_t n = BNC_POLICY_DEST_MAX;

	v = malloc(n + 2);
	memset(v, 'a', n + 1);
	v[n + 1] = '\0';
	ck_assert_int_eq(policy_trusted_match("*", v, n), 1);
	ck_assert_int_eq(policy_trusted_match("*", v, n + 1), 0);
	free(v);
}
END_TEST

/* ---- prompts and resources ---------------------------------------- */

/* The entry that applies, by its line (0: none). */
static unsigned long
req_line(const char *upstream, int kind, const char *name)
{
	const struct tool_policy *tp;

	tp = policy_for_request(pol, upstream, kind, name);
	ck_assert_ptr_nonnull(tp);
	return strcmp(tp->source, "none") == 0 ? 0 : tp->line;
}

START_TEST(test_request_entries)
{
	ck_assert_msg(load(
	    "prompt/greet: { max_calls: 1 }\n"
	    "mail:prompt/greet: { confirm: true }\n"
	    "resource/https://wiki.corp.example/private/*: { confirm: true }\n"
	    "resource/https://wiki.corp.example/*: { max_calls: 3 }\n"
	    "mail:resource/file:///srv/*: { taint_source: false }\n"
	    "resource/file:///srv/inbox.txt: { forbidden: true }\n"
	    "greet: { max_calls: 7 }\n", 0) == 0, "%s", err);
	/* a prompt: the qualified entry first, then the unqualified */
	ck_assert_uint_eq(req_line("mail", POLICY_PROMPT, "greet"), 2);
	ck_assert_uint_eq(req_line("other", POLICY_PROMPT, "greet"), 1);
	ck_assert_uint_eq(req_line(NULL, POLICY_PROMPT, "greet"), 1);
	ck_assert_uint_eq(req_line("mail", POLICY_PROMPT, "greet2"), 0);
	/* and never a tool's entry, nor a tool a prompt's */
	ck_assert_uint_eq(policy_for(pol, "mail", "greet", NULL)->max_calls,
	    7);
	ck_assert_uint_eq(req_line("mail", POLICY_PROMPT, "prompt/greet"), 0);
	/* a resource: the first glob in file order that matches */
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "https://wiki.corp.example/private/x"), 3);
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "https://wiki.corp.example/public/x"), 4);
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "https://wiki.corp.example/"), 4);
	/* the same place: an empty path is "/" (red team F4) */
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "https://wiki.corp.example"), 4);
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "https://x@WIKI.corp.example.:443/public/../y?z"), 4);
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "https://wiki.corp.example.evil.example/x"), 0);
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "https://wiki.corp.example@evil.example/x"), 0);
	/* qualified: that upstream's only */
	ck_assert_uint_eq(req_line("mail", POLICY_RESOURCE,
	    "file:///srv/a.txt"), 5);
	ck_assert_uint_eq(req_line("other", POLICY_RESOURCE,
	    "file:///srv/a.txt"), 0);
	ck_assert(!policy_for_request(pol, "mail", POLICY_RESOURCE,
	    "file:///srv/a.txt")->taint_source);
	ck_assert_int_eq(policy_request_name("mail:resource/file:///x"),
	    POLICY_RESOURCE);
	ck_assert_int_eq(policy_request_name("prompt/x"), POLICY_PROMPT);
	ck_assert_int_eq(policy_request_name("prompts"), 0);
	ck_assert_int_eq(policy_request_name("mail:send"), 0);
}
END_TEST

/* Another spelling of the same URI is the same URI. */
START_TEST(test_request_canonical)
{
	static const char *const inside[] = {
		"HTTPS://Wiki.Corp.Example/private/x",
		"https://wiki.corp.example/public/../private/x",
		"https://wiki.corp.example/./private/./x",
		"https://wiki.corp.example/%70rivate/x",
		"https://wiki.corp.example%2Fprivate/x",
		"https://wiki.corp.example/private\\x",
		"https://wiki.corp.example/a/b/../../private/x",
	};
	static const char *const outside[] = {
		"https://wiki.corp.example/private/../public/x",
		"https://wiki.corp.example/private/%2e%2e/public",
		"https://wiki.corp.example/private\\..\\public",
		"https://wiki.corp.example/Private/x",
		"https://wiki.corp.example/privatex",
		"http://wiki.corp.example/private/x",
	};
	size_t i;

	ck_assert_int_eq(load(
	    "resource/https://WIKI.corp.example/private/*: "
	    "{ forbidden: true }\n"
	    "resource/file:///srv/*: { max_calls: 3 }\n", 0), 0);
	for (i = 0; i < sizeof(inside) / sizeof(inside[0]); i++)
		ck_assert_msg(policy_request_forbidden(pol, "w",
		    POLICY_RESOURCE, inside[i]), "%s is not forbidden",
		    inside[i]);
	for (i = 0; i < sizeof(outside) / sizeof(outside[0]); i++)
		ck_assert_msg(!policy_request_forbidden(pol, "w",
		    POLICY_RESOURCE, outside[i]), "%s is forbidden",
		    outside[i]);
	/* climbing out of a trusted prefix leaves its entry */
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "file:///srv/a/../b"), 2);
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "file:///srv/../etc/passwd"), 0);
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "file:///srv/%2E%2E/etc/passwd"), 0);
	/* read two ways (an escaped slash): the caller denies when the
	 * readings take different entries */
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "file:///srv/..%2Fetc/passwd"), 2);
	ck_assert_int_eq(policy_request_ambiguous(pol, "w",
	    "file:///srv/..%2Fetc/passwd"), 1);
	ck_assert_int_eq(policy_request_ambiguous(pol, "w",
	    "file:///srv/a%2Fb"), 0);
	ck_assert_int_eq(policy_request_ambiguous(pol, "w",
	    "file:///srv/x"), 0);
	/* red team F4: file: URLs a server reads as the same file */
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "file://localhost/srv/x"), 2);
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "file:////srv//x#frag"), 2);
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "file:///srv\\..\\etc\\passwd"), 0);
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "file:///srv/../../../srv/x"), 2);
	/* %00 stays encoded: a C string does not end inside a URI */
	ck_assert_uint_eq(req_line("w", POLICY_RESOURCE,
	    "file:///srv/x%00y"), 2);
}
END_TEST

/* A forbidden mark wins, wherever it is; packs speak for their servers. */
START_TEST(test_request_forbidden_and_packs)
{
	ck_assert_int_eq(load(
	    "(server): [mailserver]\n"
	    "prompt/wipe: { forbidden: true }\n"
	    "prompt/digest: { confirm: true }\n"
	    "resource/mail://*: { max_calls: 2 }\n"
	    "resource/mail://secrets/*: { forbidden: true }\n", 1), 0);
	ck_assert_int_eq(load(
	    "prompt/wipe: { max_calls: 9 }\n"
	    "resource/mail://secrets/*: { max_calls: 1 }\n", 0), 0);
	policy_scope_upstream(pol, "m", "mailserver");
	policy_scope_upstream(pol, "o", "other");
	/* the user's entry decides, but cannot lift the pack's mark */
	ck_assert_uint_eq(req_line("m", POLICY_PROMPT, "wipe"), 1);
	ck_assert(policy_request_forbidden(pol, "m", POLICY_PROMPT, "wipe"));
	ck_assert(policy_request_forbidden(pol, "o", POLICY_PROMPT, "wipe"));
	ck_assert(policy_request_forbidden(pol, "m", POLICY_RESOURCE,
	    "mail://secrets/key"));
	ck_assert(policy_request_forbidden(pol, "o", POLICY_RESOURCE,
	    "mail://secrets/key"));
	ck_assert(!policy_request_forbidden(pol, "m", POLICY_RESOURCE,
	    "mail://inbox/1"));
	ck_assert(policy_request_forbidden(pol, "m", POLICY_RESOURCE, NULL));
	/* a pack's other keys apply to the server it names only */
	ck_assert_uint_eq(req_line("m", POLICY_PROMPT, "digest"), 3);
	ck_assert_uint_eq(req_line("o", POLICY_PROMPT, "digest"), 0);
	ck_assert_uint_eq(req_line("m", POLICY_RESOURCE, "mail://inbox/1"),
	    4);
	ck_assert_uint_eq(req_line("o", POLICY_RESOURCE, "mail://inbox/1"),
	    0);
	/* user entries before pack entries */
	ck_assert_str_eq(policy_for_request(pol, "m", POLICY_RESOURCE,
	    "mail://secrets/key")->source, "user");
}
END_TEST

/* An unqualified resource entry grants trust only with one upstream. */
START_TEST(test_request_scope_trust)
{
	const struct tool_policy *tp;

	ck_assert_int_eq(load(
	    "resource/book://*: { taint_source: false, max_calls: 4 }\n"
	    "prompt/card: { taint_source: false }\n"
	    "a:resource/pad://*: { taint_source: false }\n", 0), 0);
	policy_scope_upstream(pol, "a", NULL);
	ck_assert(!policy_for_request(pol, "a", POLICY_RESOURCE,
	    "book://x")->taint_source);
	policy_scope_upstream(pol, "b", NULL);
	tp = policy_for_request(pol, "a", POLICY_RESOURCE, "book://x");
	ck_assert(tp->taint_source);
	ck_assert_int_eq(tp->max_calls, 4);
	/* a prompt name has one owner: its entry's trust stays */
	ck_assert(!policy_for_request(pol, "a", POLICY_PROMPT,
	    "card")->taint_source);
	ck_assert(!policy_for_request(pol, "a", POLICY_RESOURCE,
	    "pad://x")->taint_source);
	ck_assert_uint_eq(lint(), 1);
	expect_warning(":1: resource/book://*: grants taint_source: false "
	    "to the resources of every upstream that match it; with 2 "
	    "upstreams configured those keys do not apply: write the "
	    "qualified form, 'UPSTREAM:resource/book://*'");
}
END_TEST

START_TEST(test_request_lint)
{
	ck_assert_int_eq(load(
	    "prompt/p:\n"
	    "  trusted_destinations: [\"*@corp.example\"]\n"
	    "  tainted: ask\n"
	    "  sink_params: [to]\n"
	    "resource/https://*.corp.example/*:\n"
	    "  sink_params: [to, uri]\n"
	    "  arg_patterns: { path: \"x\", uri: \"https://.*\" }\n"
	    "  extra_args: allow\n"
	    "resource/file:///srv/*: { sink_params: [uri] }\n"
	    "resource/x: { forbidden: true, max_calls: 1 }\n", 0), 0);
	ck_assert_int_eq(lint(), 7);
	expect_warning(":5: resource/https://*.corp.example/*: sink_params "
	    "have no effect without exfiltrating: true");
	expect_warning(":5: resource/https://*.corp.example/*: sink "
	    "parameter 'to' has no effect");
	expect_warning(":5: resource/https://*.corp.example/*: arg_patterns "
	    "for 'path' have no effect");
	expect_warning(":5: resource/https://*.corp.example/*: extra_args "
	    "has no effect");
	expect_warning(":5: resource/https://*.corp.example/*: the '*' in "
	    "'https://*.corp.example/*' is in the host part");
	expect_warning(":9: resource/file:///srv/*: sink_params have no "
	    "effect without exfiltrating: true");
	expect_warning(":10: resource/x: forbidden: true makes its other keys "
	    "pointless");
	/* a prompt's arguments are always scanned: no warning for it */
	ck_assert_ptr_null(strstr(warnings, ":1:"));
}
END_TEST

START_TEST(test_err_request_entries)
{
	expect_error_says("prompt/p: { write_params: [x] }\n", 1,
	    "prompt/p.write_params", "applies to tools only");
	expect_error_says("resource/file:///*: { allowed_path_prefixes: "
	    "[/srv] }\n", 1, "resource/file:///*.allowed_path_prefixes",
	    "use arg_patterns");
	expect_error_says("a:prompt/p: { read_only: true }\n", 1,
	    "a:prompt/p.read_only", "applies to tools only");
	expect_error_says("prompt/: {}\n", 1, "prompt/",
	    "names no prompt or resource");
	expect_error_says("x:resource/: {}\n", 1, "x:resource/",
	    "names no prompt or resource");
	expect_error_says("\"resource/a b\": {}\n", 1,
	    "(prompt or resource name)", "white space");
	/* ':' in a URI is no qualifier; a bad qualifier is no entry name */
	ck_assert_int_eq(load("resource/https://x.example:8443/*: {}\n"
	    "prompt/a:b: {}\n", 0), 0);
	ck_assert_uint_eq(req_line("u", POLICY_PROMPT, "a:b"), 2);
	ck_assert_uint_eq(req_line("u", POLICY_RESOURCE,
	    "https://x.example:8443/y"), 1);
	expect_error("bad.up:resource/x: {}\n", 1, "bad.up:resource/x");
}
END_TEST

START_TEST(test_limit_request_name)
{
	char *s, *name;
	size_t n = BNC_POLICY_STRING_MAX;

	name = malloc(n + 2);
	memcpy(name, "resource/", 9);
	memset(name + 9, 'a', n - 9);
	name[n] = '\0';
	s = malloc(n + 16);
	snprintf(s, n + 16, "? %s\n: {}\n", name);
	ck_assert_msg(load(s, 0) == 0, "%s", err);
	ck_assert_uint_eq(req_line("u", POLICY_RESOURCE, name + 9), 1);
	name[n] = 'a';
	name[n + 1] = '\0';
	snprintf(s, n + 16, "? %s\n: {}\n", name);
	expect_error_says(s, 1, "(prompt or resource name)", "longer than");
	free(s);
	free(name);
}
END_TEST

static Suite *
policy_suite(void)
{
	Suite *s = suite_create("policy");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_full_entry);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_layering);
	tcase_add_test(tc, test_pack_beats_heuristics);
	tcase_add_test(tc, test_later_pack_wins);
	tcase_add_test(tc, test_all_or_nothing);
	tcase_add_test(tc, test_heuristics_seed);
	tcase_add_test(tc, test_heuristics_sink_names);
	tcase_add_test(tc, test_heuristics_word_boundaries);
	tcase_add_test(tc, test_name_class);
	tcase_add_test(tc, test_identity_patterns);
	tcase_add_test(tc, test_heuristics_cache);
	tcase_add_test(tc, test_heuristics_odd_schemas);
	tcase_add_test(tc, test_pattern_full_match);
	tcase_add_test(tc, test_trusted_exact);
	tcase_add_test(tc, test_trusted_glob);
	tcase_add_test(tc, test_forbidden);
	tcase_add_test(tc, test_forbidden_variants);
	tcase_add_test(tc, test_scope_trust);
	tcase_add_test(tc, test_scope_lint);
	tcase_add_test(tc, test_scope_pack);
	tcase_add_test(tc, test_scope_pack_unnamed);
	tcase_add_test(tc, test_scope_pack_chain);
	tcase_add_test(tc, test_lint_clean);
	tcase_add_test(tc, test_lint_drops);
	tcase_add_test(tc, test_lint_misc);
	tcase_add_test(tc, test_lint_pack_over_pack);
	tcase_add_test(tc, test_request_entries);
	tcase_add_test(tc, test_request_canonical);
	tcase_add_test(tc, test_request_forbidden_and_packs);
	tcase_add_test(tc, test_request_scope_trust);
	tcase_add_test(tc, test_request_lint);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_err_top_level);
	tcase_add_test(tc, test_err_types);
	tcase_add_test(tc, test_err_server);
	tcase_add_test(tc, test_err_keys_entries);
	tcase_add_test(tc, test_err_regex);
	tcase_add_test(tc, test_err_prefixes);
	tcase_add_test(tc, test_err_yaml);
	tcase_add_test(tc, test_err_request_entries);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_limit_list);
	tcase_add_test(tc, test_limit_string);
	tcase_add_test(tc, test_limit_max_calls);
	tcase_add_test(tc, test_limit_name);
	tcase_add_test(tc, test_limit_file);
	tcase_add_test(tc, test_limit_entries);
	tcase_add_test(tc, test_limit_files);
	tcase_add_test(tc, test_limit_dest);
	tcase_add_test(tc, test_limit_request_name);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr;
	int failed;

	sr = srunner_create(policy_suite());
	testdir_create("check_policy");
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	testdir_remove();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
