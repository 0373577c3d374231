/*
 * check_pathcheck.c - path confinement (monitor/pathcheck.c).
 *
 * The reference design's containment table (seed-semantics 6.1), its
 * dot-prefix traversal bug (19.1) turned into a deny, the symlink escape
 * it documented as a limit, and the gaps an adversarial review found
 * after it: dangling links judged by their own place, "~" taken for a
 * relative name, and ".." after a link resolved lexically only.  Every
 * file the tests need lives in one temporary directory that the parent
 * process removes, whatever the tests' outcome.
 */
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/capability.h>

#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "bounds.h"
#include "err.h"
#include "pathcheck.h"
#include "testdir.h"

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

/*
 * The tree, made once by the parent (an unchecked fixture, so that a
 * failing test, which exits its child, still leaves it to be removed):
 *
 *   allowed/ sub/ sub/deeper/ file.txt locked/ (mode 0)
 *   secret/ secret/deep/  home/ home/out/
 *   and the links of links[] below.
 */
static char dir[PATH_MAX];
static char home[PATH_MAX + 64];

/* name -> target; "@" at the start of a target stands for dir. */
static const char *const links[][2] = {
	/* the seed's escape, and a link that stays inside */
	{ "allowed/escape", "../secret" },
	{ "allowed/inner", "sub" },
	{ "allowed/abs-in", "@/allowed/sub" },
	/* dangling in last position */
	{ "allowed/dangle-abs", "@/secret/new.txt" },
	{ "allowed/dangle-rel", "../secret/new.txt" },
	{ "allowed/dangle-far", "@/secret/nodir/deeper/x" },
	{ "allowed/dangle-in", "sub/new.txt" },
	{ "allowed/dangle-in-abs", "@/allowed/sub/new2.txt" },
	/* dangling in the middle */
	{ "allowed/mid", "../secret/newdir" },
	{ "allowed/mid-abs", "@/secret/newdir2" },
	{ "allowed/mid-in", "sub/newdir" },
	/* chains, and loops */
	{ "allowed/c1", "c2" },
	{ "allowed/c2", "c3" },
	{ "allowed/c3", "../secret/c" },
	{ "allowed/i1", "i2" },
	{ "allowed/i2", "@/allowed/sub" },
	{ "allowed/out-in", "../secret/back" },
	{ "secret/back", "../allowed/sub" },
	{ "allowed/in-out", "sub/hop" },
	{ "allowed/sub/hop", "../../secret" },
	{ "allowed/loop1", "loop2" },
	{ "allowed/loop2", "loop1" },
	{ "allowed/self", "self" },
	/* ".." after a link */
	{ "allowed/sub/dn", "../../secret/deep" },
	{ "allowed/low", "sub/deeper" },
	/* a prefix that is a link */
	{ "plink", "allowed" },
};

static void
path_of(char *out, size_t outlen, const char *rel)
{
	ck_assert_int_lt(snprintf(out, outlen, "%s/%s", dir, rel),
	    (int)outlen);
}

static void
setup(void)
{
	static const char *const dirs[] = {
		"allowed", "allowed/sub", "allowed/sub/deeper",
		"allowed/locked", "secret", "secret/deep", "home",
		"home/out",
	};
	char p[PATH_MAX + 64], t[PATH_MAX + 64];
	size_t i;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/tree.XXXXXX", testdir_path());
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		path_of(p, sizeof(p), dirs[i]);
		ck_assert_int_eq(mkdir(p, 0700), 0);
	}
	path_of(p, sizeof(p), "allowed/file.txt");
	ck_assert_ptr_nonnull(f = fopen(p, "w"));
	fclose(f);
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		if (links[i][1][0] == '@')
			path_of(t, sizeof(t), links[i][1] + 2);
		else
			snprintf(t, sizeof(t), "%s", links[i][1]);
		path_of(p, sizeof(p), links[i][0]);
		ck_assert_int_eq(symlink(t, p), 0);
	}
	path_of(p, sizeof(p), "allowed/locked");
	ck_assert_int_eq(chmod(p, 0), 0);
	path_of(home, sizeof(home), "home");
}

static void
teardown(void)
{
	if (testdir_rmtree(dir) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* path under the one prefix, relative names taken against dir. */
static int
in(const char *path, const char *prefix)
{
	char *pre[1];

	pre[0] = (char *)prefix;
	return path_confined(path, pre, 1, dir, home, NULL);
}

/* The same with the path and the prefix absolute, from "/". */
static int
in_abs(const char *rel, const char *prefix_rel)
{
	char p[PATH_MAX + 64], pre[PATH_MAX + 64];
	char *pres[1];

	path_of(p, sizeof(p), rel);
	path_of(pre, sizeof(pre), prefix_rel);
	pres[0] = pre;
	return path_confined(p, pres, 1, "/", home, NULL);
}

#define YES(path)	ck_assert_msg(in(path, "allowed") == 1, \
			    "%s should be inside", path)
#define NO(path)	ck_assert_msg(in(path, "allowed") == 0, \
			    "%s should be outside", path)

START_TEST(test_symlinks)
{
	ck_assert_int_eq(in_abs("allowed/sub/new.txt", "allowed"), 1);
	ck_assert_int_eq(in_abs("allowed/inner/new.txt", "allowed"), 1);
	/* The link's target is outside: denied, existing or not. */
	ck_assert_int_eq(in_abs("allowed/escape/key", "allowed"), 0);
	ck_assert_int_eq(in_abs("allowed/escape/deep/new/file", "allowed"),
	    0);
	ck_assert_int_eq(in_abs("allowed/escape", "allowed"), 0);
	/* Relative paths resolve against the base. */
	YES("allowed/sub/x");
	YES("allowed/abs-in/x");
	NO("allowed/escape/x");
	NO("secret/x");
	ck_assert_int_eq(in("../x", "."), 0);
	/* A prefix that is a link holds its target, and itself. */
	ck_assert_int_eq(in("plink/sub/x", "plink"), 1);
	ck_assert_int_eq(in("plink", "plink"), 1);
	ck_assert_int_eq(in("allowed/x", "plink"), 0);
}
END_TEST

START_TEST(test_dangling)
{
	/* Last component: judged by the target, created where it points. */
	NO("allowed/dangle-abs");
	NO("allowed/dangle-rel");
	NO("allowed/dangle-far");
	NO("allowed/./dangle-rel");
	NO("allowed/sub/../dangle-abs");
	ck_assert_int_eq(in_abs("allowed/dangle-abs", "allowed"), 0);
	ck_assert_int_eq(in_abs("allowed/dangle-rel", "allowed"), 0);
	YES("allowed/dangle-in");
	YES("allowed/dangle-in-abs");
	/* Middle component: the missing rest hangs off the target. */
	NO("allowed/mid/file");
	NO("allowed/mid/a/b/c");
	NO("allowed/mid-abs/x");
	NO("allowed/mid/");
	ck_assert_int_eq(in_abs("allowed/mid/file", "allowed"), 0);
	YES("allowed/mid-in/x");
	YES("allowed/mid-in/x/y");
}
END_TEST

START_TEST(test_chains)
{
	const char *why;
	char *pre[1] = { (char *)"allowed" };

	NO("allowed/c1");
	NO("allowed/c1/x");
	NO("allowed/c2/x/y");
	YES("allowed/i1/x");
	YES("allowed/i1");
	/* Only where a chain ends matters for the target... */
	YES("allowed/out-in/x");
	NO("allowed/in-out/x");
	NO("allowed/in-out");
	/* ...and a loop is never resolved. */
	NO("allowed/loop1");
	NO("allowed/loop1/x");
	NO("allowed/self");
	NO("allowed/self/x");
	ck_assert_int_eq(path_confined("allowed/loop2/x", pre, 1, dir, home,
	    &why), 0);
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, "too many symbolic links");
	/* An ordinary outside path says no more than that. */
	ck_assert_int_eq(path_confined("secret/x", pre, 1, dir, home, &why),
	    0);
	ck_assert_ptr_null(why);
}
END_TEST

START_TEST(test_dotdot)
{
	/* The kernel climbs from the target: outside. */
	NO("allowed/escape/../x");
	NO("allowed/escape/../allowed/../x");
	NO("allowed/sub/dn/../x");
	NO("allowed/sub/dn/../../x");
	ck_assert_int_eq(in_abs("allowed/escape/../x", "allowed"), 0);
	NO("allowed/new/../escape/x");
	NO("allowed/mid/../x");
	/* The lexical reading is outside, the kernel's inside: outside. */
	NO("allowed/low/../../x");
	/* Both readings inside. */
	YES("allowed/inner/../x");
	YES("allowed/escape/deep/../../allowed/x");
	YES("allowed/low/../x");
	YES("allowed/new/../x");
	YES("allowed/new/a/../../sub/x");
	NO("allowed/new/../../secret/x");
}
END_TEST

START_TEST(test_home)
{
	char pre[PATH_MAX + 64], h[PATH_MAX + 128], *pres[1];
	const char *why;

	path_of(pre, sizeof(pre), "home/out");
	pres[0] = pre;
	ck_assert_int_eq(path_confined("~/out/x", pres, 1, dir, home, NULL),
	    1);
	ck_assert_int_eq(path_confined("~/out", pres, 1, dir, home, NULL), 1);
	ck_assert_int_eq(path_confined("~/out/", pres, 1, dir, home, NULL),
	    1);
	ck_assert_int_eq(path_confined("~/x", pres, 1, dir, home, NULL), 0);
	ck_assert_int_eq(path_confined("~", pres, 1, dir, home, NULL), 0);
	ck_assert_int_eq(path_confined("~/out/../x", pres, 1, dir, home,
	    NULL), 0);
	ck_assert_int_eq(path_confined("~/../secret/x", pres, 1, dir, home,
	    NULL), 0);
	/* A home written with a trailing slash. */
	snprintf(h, sizeof(h), "%s/", home);
	ck_assert_int_eq(path_confined("~/out/x", pres, 1, dir, h, NULL), 1);
	/* No home, or one that is no absolute path: denied, and why. */
	ck_assert_int_eq(path_confined("~/out/x", pres, 1, dir, NULL, &why),
	    0);
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why,
	    "'~' cannot be expanded: the server's home is unknown");
	ck_assert_int_eq(path_confined("~", pres, 1, dir, NULL, NULL), 0);
	ck_assert_int_eq(path_confined("~/out/x", pres, 1, dir, "", NULL),
	    0);
	ck_assert_int_eq(path_confined("~/out/x", pres, 1, dir, "home",
	    NULL), 0);
	/* "~" is no relative name: "~/x" is not in "." of the base. */
	ck_assert_int_eq(in("~/x", "."), 0);
	ck_assert_int_eq(in("~", "."), 0);
	ck_assert_int_eq(in("~/", "."), 0);
	/* The home is resolved like any path. */
	path_of(h, sizeof(h), "allowed/escape");
	path_of(pre, sizeof(pre), "allowed");
	ck_assert_int_eq(path_confined("~/x", pres, 1, dir, h, NULL), 0);
	/* Only a leading "~" means a home. */
	YES("allowed/~/x");
	YES("allowed/~root/x");
}
END_TEST

START_TEST(test_user)
{
	char name[256], udir[PATH_MAX], p[PATH_MAX + 300];
	char *both[2], *dot[1], *hers[1];
	struct passwd *pw;
	const char *why;

	/* The user running the test, whose home the system knows. */
	ck_assert_ptr_nonnull(pw = getpwuid(geteuid()));
	ck_assert_int_lt(strlen(pw->pw_name), sizeof(name));
	ck_assert_int_lt(strlen(pw->pw_dir), sizeof(udir));
	strcpy(name, pw->pw_name);
	strcpy(udir, pw->pw_dir);
	both[0] = (char *)".";
	both[1] = udir;
	dot[0] = (char *)".";
	hers[0] = udir;

	/* Both readings inside: the user's home and base/~name. */
	snprintf(p, sizeof(p), "~%s/x", name);
	ck_assert_int_eq(path_confined(p, both, 2, dir, home, NULL), 1);
	ck_assert_int_eq(path_confined(p, both, 2, dir, NULL, NULL), 1);
	snprintf(p, sizeof(p), "~%s", name);
	ck_assert_int_eq(path_confined(p, both, 2, dir, home, NULL), 1);
	/* Only the relative reading inside. */
	snprintf(p, sizeof(p), "~%s/x", name);
	ck_assert_int_eq(path_confined(p, dot, 1, dir, home, NULL), 0);
	snprintf(p, sizeof(p), "~%s/../x", name);
	ck_assert_int_eq(path_confined(p, dot, 1, dir, home, NULL), 0);
	/* Only the home reading inside. */
	snprintf(p, sizeof(p), "~%s/x", name);
	ck_assert_int_eq(path_confined(p, hers, 1, dir, home, NULL), 0);
	/* The relative reading climbs out of the base. */
	snprintf(p, sizeof(p), "~%s/../../x", name);
	ck_assert_int_eq(path_confined(p, both, 2, dir, home, NULL), 0);
	/* No such user: denied, and why. */
	ck_assert_int_eq(path_confined("~no-such-user.bouncer/x", dot, 1,
	    dir, home, &why), 0);
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, "'~' cannot be expanded: no such user");
	ck_assert_int_eq(path_confined("~no-such-user.bouncer", dot, 1, dir,
	    home, NULL), 0);
	ck_assert_int_eq(path_confined("~+/x", dot, 1, dir, home, NULL), 0);
	ck_assert_int_eq(path_confined("~../x", dot, 1, dir, home, NULL), 0);
}
END_TEST

/*
 * Root searches any directory: in a test that needs EACCES, give up
 * CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (and take them back after,
 * should the test run in this very process, CK_FORK=no).
 */
static struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];

static void
dac_drop(void)
{
	struct __user_cap_header_struct h;
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(&h, 0, sizeof(h));
	h.version = _LINUX_CAPABILITY_VERSION_3;
	ck_assert_int_eq(syscall(SYS_capget, &h, caps), 0);
	memcpy(d, caps, sizeof(d));
	d[0].effective &= ~((1U << CAP_DAC_OVERRIDE) |
	    (1U << CAP_DAC_READ_SEARCH));
	ck_assert_int_eq(syscall(SYS_capset, &h, d), 0);
}

static void
dac_restore(void)
{
	struct __user_cap_header_struct h;

	memset(&h, 0, sizeof(h));
	h.version = _LINUX_CAPABILITY_VERSION_3;
	ck_assert_int_eq(syscall(SYS_capset, &h, caps), 0);
}

START_TEST(test_errors)
{
	char big[300 + 16];
	char *pre[1] = { (char *)"allowed" };
	const char *why;

	/* A file is no directory: nothing lies below it (ENOTDIR). */
	NO("allowed/file.txt/x");
	NO("allowed/file.txt/x/y");
	YES("allowed/file.txt");
	/* A name longer than NAME_MAX (ENAMETOOLONG). */
	strcpy(big, "allowed/");
	memset(big + 8, 'a', 300);
	strcpy(big + 308, "/x");
	NO(big);
	/* A directory that cannot be searched (EACCES). */
	dac_drop();
	ck_assert_int_eq(path_confined("allowed/locked/x", pre, 1, dir, home,
	    &why), 0);
	dac_restore();
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, "the path cannot be resolved");
	/* A relative path with no absolute base is refused. */
	ck_assert_int_eq(path_confined("allowed/x", pre, 1, NULL, home,
	    NULL), 0);
	ck_assert_int_eq(path_confined("allowed/x", pre, 1, "rel", home,
	    NULL), 0);
	/* No prefix holds nothing. */
	ck_assert_int_eq(path_confined("allowed/x", pre, 0, dir, home,
	    NULL), 0);
}
END_TEST

/* Fills out with "/" + names of 100 bytes and ends it at len bytes. */
static void
fill(char *out, size_t len, const char *start)
{
	size_t i;

	ck_assert_int_lt(strlen(start), len);
	strcpy(out, start);
	for (i = strlen(start); i < len; i++)
		out[i] = i % 101 == 0 ? '/' : 'f';
	out[len - 1] = 'f';
	out[len] = '\0';
}

START_TEST(test_limits)
{
	char big[BNC_PATH_MAX + 8], out[16];
	char p[BNC_PATH_MAX + 8], pre[BNC_PATH_MAX + 8], h[BNC_PATH_MAX + 8];
	char start[PATH_MAX + 64], *pres[1] = { pre };
	const char *why;

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(in(big, "/"), 0);
	ck_assert_int_eq(path_normalize("abcdefghijklmnopqrstuvwxyz", out,
	    sizeof(out)), -BNC_ERR_TOO_LARGE);
	/* 15 bytes and the NUL fit in 16; 16 bytes do not. */
	ck_assert_int_eq(path_normalize("abcdefghijklmno", out, sizeof(out)),
	    0);
	ck_assert_int_eq(path_normalize("abcdefghijklmnop", out,
	    sizeof(out)), -BNC_ERR_TOO_LARGE);

	/* A path of BNC_PATH_MAX - 1 bytes is judged, one more is not. */
	path_of(start, sizeof(start), "allowed/new/");
	path_of(pre, sizeof(pre), "allowed");
	fill(p, BNC_PATH_MAX - 1, start);
	ck_assert_int_eq(path_confined(p, pres, 1, "/", home, &why), 1);
	fill(p, BNC_PATH_MAX, start);
	ck_assert_int_eq(path_confined(p, pres, 1, "/", home, &why), 0);
	ck_assert_str_eq(why, "the path is too long");

	/* The same for a prefix (the path is the prefix itself). */
	fill(p, BNC_PATH_MAX - 1, start);
	strcpy(pre, p);
	ck_assert_int_eq(path_confined(p, pres, 1, "/", home, NULL), 1);
	strcat(pre, "/");
	ck_assert_int_eq(path_confined(p, pres, 1, "/", home, NULL), 0);

	/* And for a home. */
	path_of(start, sizeof(start), "home/new/");
	path_of(pre, sizeof(pre), "home");
	fill(h, BNC_PATH_MAX - 1, start);
	ck_assert_int_eq(path_confined("~/x", pres, 1, "/", h, NULL), 1);
	fill(h, BNC_PATH_MAX, start);
	ck_assert_int_eq(path_confined("~/x", pres, 1, "/", h, &why), 0);
	ck_assert_str_eq(why,
	    "'~' cannot be expanded: the server's home is unknown");

	/* The longest base and relative path join within the bound. */
	fill(h, BNC_PATH_MAX - 1, start);
	fill(p, BNC_PATH_MAX - 1, "x");
	pres[0] = (char *)".";
	ck_assert_int_eq(path_confined(p, pres, 1, h, home, NULL), 1);
}
END_TEST

/* A chain of n links ending in allowed/sub: "allowed/n<n>". */
static void
chain(int n)
{
	char p[PATH_MAX + 64], t[64], name[64];
	int i;

	for (i = 1; i <= n; i++) {
		snprintf(name, sizeof(name), "allowed/n%d", i);
		if (i == 1)
			snprintf(t, sizeof(t), "sub");
		else
			snprintf(t, sizeof(t), "n%d", i - 1);
		path_of(p, sizeof(p), name);
		ck_assert_int_eq(symlink(t, p), 0);
	}
}

START_TEST(test_links_max)
{
	char p[64];
	char *pre[1] = { (char *)"allowed" };
	const char *why;

	chain(BNC_PATH_LINKS_MAX + 1);
	snprintf(p, sizeof(p), "allowed/n%d/x", BNC_PATH_LINKS_MAX);
	YES(p);
	snprintf(p, sizeof(p), "allowed/n%d/x", BNC_PATH_LINKS_MAX + 1);
	ck_assert_int_eq(path_confined(p, pre, 1, dir, home, &why), 0);
	ck_assert_str_eq(why, "too many symbolic links");
}
END_TEST

/*
 * What is left to walk once two long link targets are spliced in:
 * "allowed/w1/Y", w1 -> "w2/X", w2 -> "T2" leaves T2 "//" X "//" Y,
 * which must stay under BNC_PATH_WORK_MAX bytes with its NUL.
 */
START_TEST(test_work_max)
{
	char t2[BNC_PATH_MAX], t1[BNC_PATH_MAX], p[BNC_PATH_MAX];
	char l[PATH_MAX + 64];
	char *pre[1] = { (char *)"allowed" };
	const char *why;
	size_t x = 2000, y, i;

	/* T2 = "./" x 1999 "sub", X = "./" x 1000 */
	for (i = 0; i < 3998; i++)
		t2[i] = i % 2 == 0 ? '.' : '/';
	strcpy(t2 + 3998, "sub");
	strcpy(t1, "w2/");
	for (i = 0; i < x; i++)
		t1[3 + i] = i % 2 == 0 ? '.' : '/';
	t1[3 + x] = '\0';
	path_of(l, sizeof(l), "allowed/w1");
	ck_assert_int_eq(symlink(t1, l), 0);
	path_of(l, sizeof(l), "allowed/w2");
	ck_assert_int_eq(symlink(t2, l), 0);

	y = BNC_PATH_WORK_MAX - 1 - 4 - strlen(t2) - x;
	for (i = 0; i < 2; i++, y++) {
		strcpy(p, "allowed/w1/");
		memset(p + 11, '/', y);
		memcpy(p + 11 + y - 1, "x", 2);
		ck_assert_int_eq(strlen(p), 11 + y);
		ck_assert_int_eq(path_confined(p, pre, 1, dir, home, &why),
		    i == 0);
		if (i == 1)
			ck_assert_str_eq(why, "the path is too long");
	}
}
END_TEST

static Suite *
pathcheck_suite(void)
{
	Suite *s = suite_create("pathcheck");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_lexical);
	tcase_add_test(tc, test_normalize);
	tcase_add_test(tc, test_symlinks);
	tcase_add_test(tc, test_dangling);
	tcase_add_test(tc, test_chains);
	tcase_add_test(tc, test_dotdot);
	tcase_add_test(tc, test_home);
	tcase_add_test(tc, test_user);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("limits");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_links_max);
	tcase_add_test(tc, test_work_max);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(pathcheck_suite());
	int failed;

	testdir_create("check_pathcheck");
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	testdir_remove();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
