/*
 * check_spawn.c - unit tests for common/spawn.c.
 *
 * A child starts with exactly the fds spawn.h promises (0-2 as given or
 * /dev/null, 3 the channel, 4 the extra, nothing above), in the working
 * directory and environment given, and never with a setgid parent's
 * group.  The children are real programs (/bin/sh, /bin/cat) that
 * report what they see through a pipe; nothing is written outside the
 * suite's scratch directory.
 *
 * The group tests need to change the effective and saved gid, which
 * only root can do: they run only as root (CI runs as root), and the
 * suite says so when it leaves them out.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "bounds.h"
#include "err.h"
#include "spawn.h"
#include "testdir.h"

#define OTHER_GID	65534		/* nogroup: any gid but root's */

/*
 * Runs the spawn, writes in (if any) to in_w, and collects the child's
 * fd 1 from out_r until EOF into out (NUL-terminated).  The write ends
 * the child holds are closed here first, so that EOF comes when the
 * child exits.  Returns the child's wait status.
 */
static int
run(const struct spawn_spec *sp, int in_w, const char *in, int out_r,
    char *out, size_t outsz, const int *close_fds, size_t nclose)
{
	size_t len = 0, i;
	ssize_t n;
	pid_t pid;
	int st;

	ck_assert_int_eq(spawn_child(sp, &pid), 0);
	for (i = 0; i < nclose; i++)
		close(close_fds[i]);
	if (in != NULL)
		ck_assert_int_eq(write(in_w, in, strlen(in)),
		    (ssize_t)strlen(in));
	if (in_w != -1)
		close(in_w);
	while (len + 1 < outsz &&
	    (n = read(out_r, out + len, outsz - 1 - len)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		ck_assert_int_gt(n, 0);
		len += (size_t)n;
	}
	out[len] = '\0';
	close(out_r);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return st;
}

static void
expect_exit0(int st)
{
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "child status 0x%x, want exit 0", st);
}

/* core: the fd layout */

/*
 * fds 0-3 as given; a descriptor the parent left open without CLOEXEC
 * (above the layout, where a leak would be) does not reach the child.
 */
START_TEST(test_layout)
{
	struct spawn_spec sp;
	char *argv[] = { "sh", "-c", "read l; echo \"in=$l\"; echo err >&2; "
	    "ls /proc/$$/fd; readlink /proc/$$/fd/3", NULL };
	char out[1024], err[64];
	int in[2], o[2], e[2], sv[2], leak, close_fds[4];
	ssize_t n;

	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(o), 0);
	ck_assert_int_eq(pipe(e), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	ck_assert_int_ne(leak = fcntl(in[0], F_DUPFD, 40), -1);
	spawn_spec_init(&sp);
	sp.path = "/bin/sh";
	sp.argv = argv;
	sp.fd_in = in[0];
	sp.fd_out = o[1];
	sp.fd_err = e[1];
	sp.fd_chan = sv[1];
	close_fds[0] = in[0];
	close_fds[1] = o[1];
	close_fds[2] = e[1];
	close_fds[3] = sv[1];
	expect_exit0(run(&sp, in[1], "ping\n", o[0], out, sizeof(out),
	    close_fds, 4));
	ck_assert_msg(strncmp(out, "in=ping\n0\n1\n2\n3\nsocket:[", 24) == 0,
	    "child saw: %s", out);
	ck_assert_int_eq(n = read(e[0], err, sizeof(err) - 1), 4);
	err[n] = '\0';
	ck_assert_str_eq(err, "err\n");
	close(e[0]);
	close(sv[0]);
	close(leak);
}
END_TEST

/* SPAWN_DEVNULL, no channel, and the extra on fd 4. */
START_TEST(test_devnull_extra)
{
	struct spawn_spec sp;
	char *argv[] = { "sh", "-c", "readlink /proc/$$/fd/0 /proc/$$/fd/2 "
	    "/proc/$$/fd/4; ls /proc/$$/fd", NULL };
	char out[1024], want[128];
	int o[2], x[2], close_fds[2];
	struct stat st;

	ck_assert_int_eq(pipe(o), 0);
	ck_assert_int_eq(pipe(x), 0);
	ck_assert_int_eq(fstat(x[0], &st), 0);
	spawn_spec_init(&sp);
	sp.path = "/bin/sh";
	sp.argv = argv;
	sp.fd_in = SPAWN_DEVNULL;
	sp.fd_out = o[1];
	sp.fd_err = SPAWN_DEVNULL;
	sp.fd_extra = x[0];
	close_fds[0] = o[1];
	close_fds[1] = x[0];
	expect_exit0(run(&sp, -1, NULL, o[0], out, sizeof(out), close_fds,
	    2));
	snprintf(want, sizeof(want), "/dev/null\n/dev/null\npipe:[%lu]\n"
	    "0\n1\n2\n4\n", (unsigned long)st.st_ino);
	ck_assert_str_eq(out, want);
	close(x[1]);
}
END_TEST

/* The working directory and the environment are the spec's. */
START_TEST(test_cwd_env)
{
	struct spawn_spec sp;
	char *argv[] = { "sh", "-c", "pwd; echo \"$SPAWN_TEST\"; "
	    "echo \"${HOME-unset}\"", NULL };
	char *envp[] = { "SPAWN_TEST=yes", NULL };
	char out[1024], want[1024];
	int o[2];

	ck_assert_int_eq(pipe(o), 0);
	spawn_spec_init(&sp);
	sp.path = "/bin/sh";
	sp.argv = argv;
	sp.envp = envp;
	sp.cwd = testdir_path();
	sp.fd_out = o[1];
	expect_exit0(run(&sp, -1, NULL, o[0], out, sizeof(out), &o[1], 1));
	snprintf(want, sizeof(want), "%s\nyes\nunset\n", testdir_path());
	ck_assert_str_eq(out, want);
}
END_TEST

/* core, as root: a setgid parent's group */

/* The "Gid:" line of /proc/self/status as a child spawned now sees it. */
static void
child_gids(char *line, size_t len)
{
	struct spawn_spec sp;
	/* not a shell: dash and bash drop a differing egid themselves */
	char *argv[] = { "cat", "/proc/self/status", NULL };
	char out[8192], *p, *q;
	int o[2];

	ck_assert_int_eq(pipe(o), 0);
	spawn_spec_init(&sp);
	sp.path = "/bin/cat";
	sp.argv = argv;
	sp.fd_out = o[1];
	expect_exit0(run(&sp, -1, NULL, o[0], out, sizeof(out), &o[1], 1));
	ck_assert_ptr_nonnull(p = strstr(out, "\nGid:\t"));
	p++;
	if ((q = strchr(p, '\n')) != NULL)
		*q = '\0';
	snprintf(line, len, "%s", p);
}

/*
 * Sets the effective and saved gid, runs a child, restores them.  (The
 * saved gid alone is no test: exec sets it to the effective one.)
 */
static void
expect_dropped(gid_t egid, gid_t sgid)
{
	char line[128], want[128];
	gid_t r, e, s;

	ck_assert_int_eq(getresgid(&r, &e, &s), 0);
	ck_assert_int_eq(setresgid(-1, egid, sgid), 0);
	child_gids(line, sizeof(line));
	ck_assert_int_eq(setresgid(-1, e, s), 0);
	/* real, effective, saved, file system */
	snprintf(want, sizeof(want), "Gid:\t%u\t%u\t%u\t%u", (unsigned)r,
	    (unsigned)r, (unsigned)r, (unsigned)r);
	ck_assert_str_eq(line, want);
}

START_TEST(test_setgid_dropped)
{
	expect_dropped(OTHER_GID, OTHER_GID);
}
END_TEST

/* The control: without a group to drop, nothing changes. */
START_TEST(test_plain_gid_kept)
{
	char line[128], want[128];
	unsigned g = (unsigned)getgid();

	child_gids(line, sizeof(line));
	snprintf(want, sizeof(want), "Gid:\t%u\t%u\t%u\t%u", g, g, g, g);
	ck_assert_str_eq(line, want);
}
END_TEST

/* limits: sources inside the target range */

/*
 * The source of fd 1 is the parent's fd 3 and the source of fd 3 the
 * parent's fd 1: each must be moved, not clobbered by the other.  Check
 * may use either fd itself, so both are put back before any assertion.
 */
START_TEST(test_sources_in_range)
{
	struct spawn_spec sp;
	char *argv[] = { "sh", "-c", "echo out; readlink /proc/$$/fd/3",
	    NULL };
	char out[1024];
	int o[2], sv[2], saved1, saved3, r, st;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe(o), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	ck_assert_int_ne(saved1 = fcntl(1, F_DUPFD_CLOEXEC, 16), -1);
	saved3 = fcntl(3, F_DUPFD_CLOEXEC, 16);
	if (dup2(o[1], 3) != 3 || dup2(sv[1], 1) != 1)
		r = -BNC_ERR_SYS;
	else {
		spawn_spec_init(&sp);
		sp.path = "/bin/sh";
		sp.argv = argv;
		sp.fd_out = 3;
		sp.fd_chan = 1;
		r = spawn_child(&sp, &pid);
	}
	dup2(saved1, 1);
	close(saved1);
	if (saved3 != -1) {
		dup2(saved3, 3);
		close(saved3);
	} else
		close(3);
	close(o[1]);
	close(sv[1]);
	ck_assert_int_eq(r, 0);
	while (len + 1 < sizeof(out) &&
	    (n = read(o[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	expect_exit0(st);
	ck_assert_msg(strncmp(out, "out\nsocket:[", 12) == 0,
	    "child saw: %s", out);
	close(o[0]);
	close(sv[0]);
}
END_TEST

/* errors */

/* A failed exec is the child's exit 127 with the reason on its fd 2. */
START_TEST(test_exec_fails)
{
	struct spawn_spec sp;
	char *argv[] = { "nothing", NULL };
	char out[1024];
	int e[2], st;

	ck_assert_int_eq(pipe(e), 0);
	spawn_spec_init(&sp);
	sp.path = "/nonexistent/bouncer-nothing";
	sp.argv = argv;
	sp.fd_err = e[1];
	st = run(&sp, -1, NULL, e[0], out, sizeof(out), &e[1], 1);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 127,
	    "child status 0x%x, want exit 127", st);
	ck_assert_str_eq(out, "bouncer: exec /nonexistent/bouncer-nothing: "
	    "No such file or directory\n");
}
END_TEST

/* A working directory that does not exist: no exec at all. */
START_TEST(test_chdir_fails)
{
	struct spawn_spec sp;
	char *argv[] = { "true", NULL };
	char out[1024], dir[1024];
	int e[2], st;

	snprintf(dir, sizeof(dir), "%s/missing", testdir_path());
	ck_assert_int_eq(pipe(e), 0);
	spawn_spec_init(&sp);
	sp.path = "/bin/true";
	sp.argv = argv;
	sp.cwd = dir;
	sp.fd_err = e[1];
	st = run(&sp, -1, NULL, e[0], out, sizeof(out), &e[1], 1);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 127,
	    "child status 0x%x, want exit 127", st);
	ck_assert_ptr_nonnull(strstr(out, "bouncer: chdir "));
	ck_assert_ptr_nonnull(strstr(out, dir));
}
END_TEST

START_TEST(test_bad_spec)
{
	struct spawn_spec sp;
	char *argv[] = { NULL };
	pid_t pid = 0;

	spawn_spec_init(&sp);
	ck_assert_int_eq(spawn_child(&sp, &pid), -BNC_ERR_INTERNAL);
	sp.path = "/bin/true";
	ck_assert_int_eq(spawn_child(&sp, &pid), -BNC_ERR_INTERNAL);
	sp.argv = argv;
	ck_assert_int_eq(spawn_child(&sp, &pid), -BNC_ERR_INTERNAL);
	ck_assert_int_eq(pid, 0);
}
END_TEST

static Suite *
spawn_suite(void)
{
	Suite *s = suite_create("spawn");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_devnull_extra);
	tcase_add_test(tc, test_cwd_env);
	tcase_add_test(tc, test_plain_gid_kept);
	if (geteuid() == 0) {
		tcase_add_test(tc, test_setgid_dropped);
	} else
		printf("check_spawn: not root: the setgid tests are left "
		    "out (only root can set another gid; CI runs as "
		    "root)\n");
	suite_add_tcase(s, tc);
	tc = tcase_create("limits");
	tcase_add_test(tc, test_sources_in_range);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, test_exec_fails);
	tcase_add_test(tc, test_chdir_fails);
	tcase_add_test(tc, test_bad_spec);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr;
	int failed;

	signal(SIGPIPE, SIG_IGN);
	testdir_create("check_spawn");
	sr = srunner_create(spawn_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	testdir_remove();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
