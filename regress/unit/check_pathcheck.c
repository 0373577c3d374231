/*
 * check_pathcheck.c - path confinement (monitor/pathcheck.c).
 *
 * The reference design's containment table (seed-semantics 6.1), its
 * dot-prefix traversal bug (19.1) turned into a deny, and the symlink
 * escape it documented as a limit.
 */
#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "bounds.h"
#include "err.h"
#include "pathcheck.h"

static const struct {
	const char	*path, *prefix;
	int		 want;
} lexical[] = {
	{ "out", "./out", 1 },
	{ "./out/", "./out", 1 },
	{ "./out/./a/../b", "out", 1 },
	{ "./out/../../etc/passwd", "./out", 0 },
	{ "./outside/x", "./out", 0 },
	{ "/abs/out/x", "./out", 0 },
	{ "/a/b/../../c", "/a", 0 },
	{ "/srv/out", "/srv/out/", 1 },
	{ "OUT/x", "out", 0 },
	{ "//etc/x", "/", 1 },
	/* seed 19.1: the traversal bug must not come back */
	{ "../../etc/passwd", ".", 0 },
	{ "../../etc/passwd", "./", 0 },
	{ "../../etc/passwd", "", 0 },
	{ "a/../../x", ".", 0 },
	{ "..", ".", 0 },
	{ "x/y", ".", 1 },
	{ "/../etc/x", "/etc", 1 },
};

START_TEST(test_lexical)
{
	char a[BNC_PATH_MAX], b[BNC_PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(lexical) / sizeof(lexical[0]); i++) {
		ck_assert_int_eq(path_normalize(lexical[i].path, a,
		    sizeof(a)), 0);
		ck_assert_int_eq(path_normalize(lexical[i].prefix, b,
		    sizeof(b)), 0);
		ck_assert_msg(path_lexically_under(a, b) == lexical[i].want,
		    "%s under %s: want %d", lexical[i].path,
		    lexical[i].prefix, lexical[i].want);
	}
}
END_TEST

START_TEST(test_normalize)
{
	static const char *const cases[][2] = {
		{ "", "." }, { ".", "." }, { "./", "." }, { "a//b/", "a/b" },
		{ "a/b/../../../x", "../x" }, { "/a/../../x", "/x" },
		{ "/", "/" }, { "///", "/" }, { "a/./b/.", "a/b" },
	};
	char out[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(path_normalize(cases[i][0], out,
		    sizeof(out)), 0);
		ck_assert_str_eq(out, cases[i][1]);
	}
}
END_TEST

static char dir[PATH_MAX];

static void
setup(void)
{
	char p[PATH_MAX + 64];

	strcpy(dir, "/tmp/check_pathcheck.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/allowed", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/secret", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/allowed/sub", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	/* allowed/escape -> ../secret: inside lexically, outside really */
	snprintf(p, sizeof(p), "%s/allowed/escape", dir);
	ck_assert_int_eq(symlink("../secret", p), 0);
	snprintf(p, sizeof(p), "%s/allowed/inner", dir);
	ck_assert_int_eq(symlink("sub", p), 0);
}

static void
teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

START_TEST(test_symlinks)
{
	char pre[PATH_MAX + 64], p[PATH_MAX + 64];

	snprintf(pre, sizeof(pre), "%s/allowed", dir);
	snprintf(p, sizeof(p), "%s/allowed/sub/new.txt", dir);
	ck_assert_int_eq(path_confined(p, pre, "/"), 1);
	snprintf(p, sizeof(p), "%s/allowed/inner/new.txt", dir);
	ck_assert_int_eq(path_confined(p, pre, "/"), 1);
	/* The link's target is outside: denied, existing or not. */
	snprintf(p, sizeof(p), "%s/allowed/escape/key", dir);
	ck_assert_int_eq(path_confined(p, pre, "/"), 0);
	snprintf(p, sizeof(p), "%s/allowed/escape/deep/new/file", dir);
	ck_assert_int_eq(path_confined(p, pre, "/"), 0);
	snprintf(p, sizeof(p), "%s/allowed/escape", dir);
	ck_assert_int_eq(path_confined(p, pre, "/"), 0);
	/* Relative paths resolve against the base. */
	ck_assert_int_eq(path_confined("allowed/sub/x", "allowed", dir), 1);
	ck_assert_int_eq(path_confined("allowed/escape/x", "allowed", dir),
	    0);
	ck_assert_int_eq(path_confined("secret/x", "allowed", dir), 0);
	ck_assert_int_eq(path_confined("../x", ".", dir), 0);
	/* A relative path with no absolute base is refused. */
	ck_assert_int_eq(path_confined("allowed/x", "allowed", NULL), 0);
}
END_TEST

START_TEST(test_limits)
{
	char big[BNC_PATH_MAX + 8], out[16];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(path_confined(big, "/", "/"), 0);
	ck_assert_int_eq(path_normalize("abcdefghijklmnopqrstuvwxyz", out,
	    sizeof(out)), -BNC_ERR_TOO_LARGE);
	/* 15 bytes and the NUL fit in 16; 16 bytes do not. */
	ck_assert_int_eq(path_normalize("abcdefghijklmno", out, sizeof(out)),
	    0);
	ck_assert_int_eq(path_normalize("abcdefghijklmnop", out,
	    sizeof(out)), -BNC_ERR_TOO_LARGE);
}
END_TEST

static Suite *
pathcheck_suite(void)
{
	Suite *s = suite_create("pathcheck");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_test(tc, test_lexical);
	tcase_add_test(tc, test_normalize);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_symlinks);
	suite_add_tcase(s, tc);
	tc = tcase_create("limits");
	tcase_add_test(tc, test_limits);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(pathcheck_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
