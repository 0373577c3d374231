/*
 * check_uritemplate.c - RFC 6570 templates read backwards
 * (monitor/uritemplate.c): every expansion example of RFC 6570 section
 * 3.2 must match its template, near misses must not, malformed templates
 * must not compile, and each bound (template bytes, instructions, URI
 * bytes, work) holds at its limit and fails one past it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "bounds.h"
#include "err.h"
#include "uritemplate.h"

static const struct {
	const char	*tmpl, *uri;
} rfc_examples[] = {
	/* level 1 */
	{ "{var}", "value" },
	{ "{hello}", "Hello%20World%21" },
	/* level 2 */
	{ "{+var}", "value" },
	{ "{+hello}", "Hello%20World!" },
	{ "{+path}/here", "/foo/bar/here" },
	{ "here?ref={+path}", "here?ref=/foo/bar" },
	{ "X{#var}", "X#value" },
	{ "X{#hello}", "X#Hello%20World!" },
	/* level 3 */
	{ "map?{x,y}", "map?1024,768" },
	{ "{x,hello,y}", "1024,Hello%20World%21,768" },
	{ "{+x,hello,y}", "1024,Hello%20World!,768" },
	{ "{+path,x}/here", "/foo/bar,1024/here" },
	{ "{#x,hello,y}", "#1024,Hello%20World!,768" },
	{ "{#path,x}/here", "#/foo/bar,1024/here" },
	{ "X{.var}", "X.value" },
	{ "X{.x,y}", "X.1024.768" },
	{ "{/var}", "/value" },
	{ "{/var,x}/here", "/value/1024/here" },
	{ "{;x,y}", ";x=1024;y=768" },
	{ "{;x,y,empty}", ";x=1024;y=768;empty" },
	{ "{?x,y}", "?x=1024&y=768" },
	{ "{?x,y,empty}", "?x=1024&y=768&empty=" },
	{ "?fixed=yes{&x}", "?fixed=yes&x=1024" },
	{ "{&x,y,empty}", "&x=1024&y=768&empty=" },
	/* level 4 */
	{ "{var:3}", "val" },
	{ "{var:30}", "value" },
	{ "{list}", "red,green,blue" },
	{ "{list*}", "red,green,blue" },
	{ "{keys}", "semi,%3B,dot,.,comma,%2C" },
	{ "{keys*}", "semi=%3B,dot=.,comma=%2C" },
	{ "{+path:6}/here", "/foo/b/here" },
	{ "{+list}", "red,green,blue" },
	{ "{+keys*}", "semi=;,dot=.,comma=," },
	{ "{#path:6}/here", "#/foo/b/here" },
	{ "{#keys*}", "#semi=;,dot=.,comma=," },
	{ "X{.var:3}", "X.val" },
	{ "X{.list*}", "X.red.green.blue" },
	{ "X{.keys*}", "X.semi=%3B.dot=..comma=%2C" },
	{ "{/var:1,var}", "/v/value" },
	{ "{/list*}", "/red/green/blue" },
	{ "{/list*,path:4}", "/red/green/blue/%2Ffoo" },
	{ "{/keys*}", "/semi=%3B/dot=./comma=%2C" },
	{ "{;hello:5}", ";hello=Hello" },
	{ "{;list*}", ";list=red;list=green;list=blue" },
	{ "{;keys*}", ";semi=%3B;dot=.;comma=%2C" },
	{ "{?var:3}", "?var=val" },
	{ "{?list*}", "?list=red&list=green&list=blue" },
	{ "{?keys*}", "?semi=%3B&dot=.&comma=%2C" },
	{ "{&var:3}", "&var=val" },
	{ "{&list*}", "&list=red&list=green&list=blue" },
	/* undefined variables expand to nothing */
	{ "{var}", "" },
	{ "X{.var}", "X" },
	{ "{?x,y}", "?y=768" },
	{ "{?x,y}", "" },
	{ "{#x}", "" },
	/* templates real servers list */
	{ "test://static/resource/{id}", "test://static/resource/42" },
	{ "file:///{+path}", "file:///home/ada/notes.txt" },
	{ "github://repos/{owner}/{repo}/issues{?state,labels}",
	    "github://repos/corp/app/issues?state=open" },
	{ "https://api.example.com/search{?q,page}",
	    "https://api.example.com/search?q=mcp%20spec&page=2" },
	{ "mail://{user}@{domain}/inbox", "mail://ada@corp.example/inbox" },
};

static const struct {
	const char	*tmpl, *uri;
} near_misses[] = {
	/* a simple value has no '/', '?', '#', ':' or '@' unencoded */
	{ "{var}", "a/b" },
	{ "{var}", "a?b" },
	{ "{var}", "a@b" },
	{ "file:///{path}", "file:///etc/passwd" },
	{ "{/var}", "/a/b" },
	{ "{.var}", ".a/b" },
	/* a percent sign only as a whole triplet */
	{ "{var}", "a%2" },
	{ "{var}", "a%zz" },
	{ "{+var}", "100%" },
	/* literal text byte for byte */
	{ "test://static/resource/{id}", "test://static/other/1" },
	{ "test://static/resource/{id}", "TEST://static/resource/1" },
	{ "test://static/resource/{id}", "test://static/resource" },
	{ "a{x}", "" },
	{ "{x}b", "xa" },
	/* names in their order, each once unless exploded */
	{ "{?x,y}", "?y=1&x=2" },
	{ "{?x}", "?z=1" },
	{ "{?x}", "?x=1&x=2" },
	{ "{?x}", "x=1" },
	{ "{&x}", "?x=1" },
	{ "{;x}", ";y" },
	{ "{?x,y}", "?x=1?y=2" },
	/* the operator's first character, then its separator */
	{ "{?x,y}", "&x=1" },
	{ "{?x,y}", "?x=1,y=2" },
	{ "{/x}", "//a" },
	{ "{;x,y}", ";x=1&y=2" },
	/* nothing a template cannot produce */
	{ "{var}", "a b" },
	{ "{var}", "caf\xc3\xa9" },
	{ "{+var}", "a\nb" },
	{ "{var}", "a\"b" },
};

START_TEST(test_rfc_examples)
{
	struct uritemplate *t;
	size_t i, work;
	int r;

	for (i = 0; i < sizeof(rfc_examples) / sizeof(rfc_examples[0]); i++) {
		ck_assert_msg(uritemplate_compile(rfc_examples[i].tmpl,
		    &t) == 0, "%s does not compile", rfc_examples[i].tmpl);
		work = BNC_URITEMPLATE_WORK_MAX;
		r = uritemplate_match(t, rfc_examples[i].uri,
		    strlen(rfc_examples[i].uri), &work);
		ck_assert_msg(r == 1, "%s does not match %s (%d)",
		    rfc_examples[i].tmpl, rfc_examples[i].uri, r);
		uritemplate_free(t);
	}
}
END_TEST

START_TEST(test_near_misses)
{
	struct uritemplate *t;
	size_t i, work;
	int r;

	for (i = 0; i < sizeof(near_misses) / sizeof(near_misses[0]); i++) {
		ck_assert_msg(uritemplate_compile(near_misses[i].tmpl, &t) == 0,
		    "%s does not compile", near_misses[i].tmpl);
		work = BNC_URITEMPLATE_WORK_MAX;
		r = uritemplate_match(t, near_misses[i].uri,
		    strlen(near_misses[i].uri), &work);
		ck_assert_msg(r == 0, "%s matches %s (%d)",
		    near_misses[i].tmpl, near_misses[i].uri, r);
		uritemplate_free(t);
	}
}
END_TEST

/* A URI with a NUL inside is not the C string before it. */
START_TEST(test_embedded_nul)
{
	struct uritemplate *t;
	size_t work = BNC_URITEMPLATE_WORK_MAX;

	ck_assert_int_eq(uritemplate_compile("a{+x}", &t), 0);
	ck_assert_int_eq(uritemplate_match(t, "ab\0c", 4, &work), 0);
	ck_assert_int_eq(uritemplate_match(t, "ab\0c", 2, &work), 1);
	uritemplate_free(t);
}
END_TEST

START_TEST(test_malformed)
{
	static const char *const bad[] = {
		"{", "}", "a}", "{}", "{var", "{a{b}", "{=x}", "{,x}", "{x,}",
		"{!x}", "{@x}", "{|x}", "{x:0}", "{x:10000}", "{x:}", "{x:1a}",
		"{x*:3}", "{x.}", "{.x..y}", "{.}", "{x-y}", "{x%2}", "{x%zz}",
		"a b{x}", "a\"{x}", "a<{x}", "a|{x}", "a\\{x}", "a^{x}",
		"a`{x}", "a'{x}", "a%zz{x}", "a%2", "x\ny", "{x}{",
	};
	struct uritemplate *t = NULL;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(uritemplate_compile(bad[i], &t) ==
		    -BNC_ERR_BAD_FORMAT, "%s compiles", bad[i]);
		ck_assert_ptr_null(t);
	}
	/* and what looks odd but is allowed */
	ck_assert_int_eq(uritemplate_compile("{x:9999}", &t), 0);
	uritemplate_free(t);
	ck_assert_int_eq(uritemplate_compile("{a.b_c%41}", &t), 0);
	uritemplate_free(t);
	ck_assert_int_eq(uritemplate_compile("caf\xc3\xa9/{x}", &t), 0);
	uritemplate_free(t);
	ck_assert_int_eq(uritemplate_compile("", &t), 0);
	uritemplate_free(t);
}
END_TEST

/* Template bytes: BNC_URITEMPLATE_LEN_MAX compiles, one more does not. */
START_TEST(test_len_max)
{
	struct uritemplate *t;
	char *s;

	s = malloc(BNC_URITEMPLATE_LEN_MAX + 2);
	memset(s, 'a', BNC_URITEMPLATE_LEN_MAX);
	s[BNC_URITEMPLATE_LEN_MAX] = '\0';
	ck_assert_int_eq(uritemplate_compile(s, &t), 0);
	uritemplate_free(t);
	s[BNC_URITEMPLATE_LEN_MAX] = 'a';
	s[BNC_URITEMPLATE_LEN_MAX + 1] = '\0';
	ck_assert_int_eq(uritemplate_compile(s, &t), -BNC_ERR_TOO_LARGE);
	free(s);
}
END_TEST

/*
 * Instructions: a template of exactly BNC_URITEMPLATE_PROG_MAX compiles
 * and one more literal byte does not.  Variables cost a fixed number of
 * instructions each, measured here, literal bytes one each.
 */
START_TEST(test_prog_max)
{
	struct uritemplate *t;
	size_t base, per, nvars, nlit, i;
	char *s, *p;

	ck_assert_int_eq(uritemplate_compile("", &t), 0);
	base = uritemplate_size(t);
	uritemplate_free(t);
	ck_assert_int_eq(uritemplate_compile("{?x*}", &t), 0);
	per = uritemplate_size(t) - base;
	uritemplate_free(t);
	nvars = (BNC_URITEMPLATE_PROG_MAX - base) / per;
	nlit = BNC_URITEMPLATE_PROG_MAX - base - nvars * per;
	ck_assert_uint_le(nvars * 5 + nlit + 1, BNC_URITEMPLATE_LEN_MAX);
	s = p = malloc(nvars * 5 + nlit + 2);
	for (i = 0; i < nlit; i++)
		*p++ = 'a';
	for (i = 0; i < nvars; i++) {
		memcpy(p, "{?x*}", 5);
		p += 5;
	}
	*p = '\0';
	ck_assert_int_eq(uritemplate_compile(s, &t), 0);
	ck_assert_uint_eq(uritemplate_size(t), BNC_URITEMPLATE_PROG_MAX);
	uritemplate_free(t);
	p[0] = 'a';
	p[1] = '\0';
	ck_assert_int_eq(uritemplate_compile(s, &t), -BNC_ERR_TOO_LARGE);
	free(s);
}
END_TEST

/* URI bytes: BNC_URI_MAX is matched, one more is refused. */
START_TEST(test_uri_max)
{
	struct uritemplate *t;
	size_t work;
	char *u;

	ck_assert_int_eq(uritemplate_compile("x:{+rest}", &t), 0);
	u = malloc(BNC_URI_MAX + 1);
	memcpy(u, "x:", 2);
	memset(u + 2, 'a', BNC_URI_MAX - 1);
	work = BNC_URITEMPLATE_WORK_MAX;
	ck_assert_int_eq(uritemplate_match(t, u, BNC_URI_MAX, &work), 1);
	work = BNC_URITEMPLATE_WORK_MAX;
	ck_assert_int_eq(uritemplate_match(t, u, BNC_URI_MAX + 1, &work),
	    -BNC_ERR_TOO_LARGE);
	free(u);
	uritemplate_free(t);
}
END_TEST

/*
 * Work: a match costs a number of steps; exactly that many suffice, one
 * fewer is "too large" (never a guess), and the cost of a URI grows with
 * its length, not with anything else.
 */
START_TEST(test_work_max)
{
	static const char uri[] = "?a=1&b=2,3&c=%41";
	struct uritemplate *t;
	size_t work, used;

	ck_assert_int_eq(uritemplate_compile("{?a,b,c}", &t), 0);
	work = BNC_URITEMPLATE_WORK_MAX;
	ck_assert_int_eq(uritemplate_match(t, uri, sizeof(uri) - 1, &work), 1);
	used = BNC_URITEMPLATE_WORK_MAX - work;
	ck_assert_uint_gt(used, 0);
	ck_assert_uint_le(used, (sizeof(uri) - 1) * uritemplate_size(t));
	work = used;
	ck_assert_int_eq(uritemplate_match(t, uri, sizeof(uri) - 1, &work), 1);
	ck_assert_uint_eq(work, 0);
	work = used - 1;
	ck_assert_int_eq(uritemplate_match(t, uri, sizeof(uri) - 1, &work),
	    -BNC_ERR_TOO_LARGE);
	work = 0;
	ck_assert_int_eq(uritemplate_match(t, uri, sizeof(uri) - 1, &work),
	    -BNC_ERR_TOO_LARGE);
	/* an empty URI costs no step */
	work = 0;
	ck_assert_int_eq(uritemplate_match(t, "", 0, &work), 1);
	uritemplate_free(t);
}
END_TEST

/*
 * The worst templates an upstream can list ({+a}{+b}... keeps every
 * state alive) stay within URI length times template size, and the work
 * budget still cuts them off.
 */
START_TEST(test_work_bound_adversarial)
{
	struct uritemplate *t;
	size_t work, used, i;
	char tmpl[4 * 64 + 1], *u;

	for (i = 0; i < 64; i++)
		memcpy(tmpl + 4 * i, "{+x}", 4);
	tmpl[4 * 64] = '\0';
	ck_assert_int_eq(uritemplate_compile(tmpl, &t), 0);
	u = malloc(BNC_URI_MAX);
	memset(u, 'a', BNC_URI_MAX);
	u[BNC_URI_MAX - 1] = ' ';	/* no match at the very end */
	work = (size_t)-1;
	ck_assert_int_eq(uritemplate_match(t, u, BNC_URI_MAX, &work), 0);
	used = (size_t)-1 - work;
	ck_assert_uint_le(used, (size_t)BNC_URI_MAX * uritemplate_size(t));
	work = used - 1;
	ck_assert_int_eq(uritemplate_match(t, u, BNC_URI_MAX, &work),
	    -BNC_ERR_TOO_LARGE);
	free(u);
	uritemplate_free(t);
}
END_TEST

static Suite *
uritemplate_suite(void)
{
	Suite *s = suite_create("uritemplate");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_test(tc, test_rfc_examples);
	tcase_add_test(tc, test_near_misses);
	tcase_add_test(tc, test_embedded_nul);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, test_malformed);
	suite_add_tcase(s, tc);
	tc = tcase_create("limits");
	tcase_add_test(tc, test_len_max);
	tcase_add_test(tc, test_prog_max);
	tcase_add_test(tc, test_uri_max);
	tcase_add_test(tc, test_work_max);
	tcase_add_test(tc, test_work_bound_adversarial);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(uritemplate_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
