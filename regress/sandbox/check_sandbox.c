/*
 * check_sandbox.c - the sandboxes applied for real (DESIGN 12).
 *
 * Each test applies SB_PROFILE_WORKER (or, in the carrier's tests at the
 * end, SB_PROFILE_CARRIER) in a forked child: forbidden calls must kill
 * it by SIGSYS, libc's probes must fail with their errno, and everything
 * bouncer-worker (or a carrier) does must keep working.  The rule table is
 * checked too: a `why` on every row, no overlapping rows, none of the
 * calls the worker must never make, argument conditions on the calls
 * that need them, and a loader that refuses a table it cannot express.
 * It must never apply a sandbox in the process that runs the suite.
 *
 * The argument rules (a signal to another process, an fd's owner,
 * executable memory, ...) are tried under every Landlock ABI, the
 * kernel's own and each lower one down to none: this file is built with
 * SANDBOX_TEST, whose sandbox_test_landlock_cap() lowers the ABI applied,
 * to show that the seccomp filter alone holds where Landlock (ABI 6
 * scopes signals) is older or absent.
 *
 * After sandbox_apply() a child cannot report through Check: Check's
 * result "pipe" is a temporary regular file and RLIMIT_FSIZE is 0 (and
 * stderr may be a log file).  So a test either dies on its first call
 * after the sandbox (the kill tests, which Check checks by signal), or
 * runs a probe in a grandchild that sends its findings down a pipe made
 * before the sandbox, and the Check child, unconfined, asserts on them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif


#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <linux/futex.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <check.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "bounds.h"
#include "msg.h"
#include "sandbox.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif

#ifdef SANDBOX_DEBUG
#define WANT_SECCOMP SB_STATE_DEBUG
#else
#define WANT_SECCOMP SB_STATE_ON
#endif

#define WORKER_NFDS (BNC_CHILD_FD + 1) /* fds 0..3 */
#define SURVIVED    99 /* exit code of a child that was not killed */
#define BIG_ALLOC   (64 * 1024 * 1024)
#define PAGE	    4096

/* The cap probe_enter() applies; set by the Check child before a probe. */
static int probe_abi = -1;
/* The profile probe_enter() applies; likewise. */
static enum sb_profile probe_profile = SB_PROFILE_WORKER;

extern char **environ;

/* What a probe child found; sent to the Check child through a pipe. */
struct probe_res {
	int applied; /* sandbox_apply() result */
	struct sb_status st;
	int line;	/* first failed PROBE(), 0 if none */
	int err;	/* errno there */
	char what[120]; /* its condition */
};

static void
probe_fail(struct probe_res *res, int line, int err, const char *what)
{
	size_t i;

	if (res->line != 0)
		return;
	res->line = line;
	res->err = err;
	for (i = 0; i < sizeof(res->what) - 1 && what[i] != '\0'; i++)
		res->what[i] = what[i];
	res->what[i] = '\0';
}

/* A check inside a sandboxed child: records the first failure. */
#define PROBE(res, cond)                                                       \
	do {                                                                   \
		errno = 0;                                                     \
		if (!(cond))                                                   \
			probe_fail((res), __LINE__, errno, #cond);             \
	} while (0)

/* Applies probe_profile; a probe returns at once if this failed. */
static int
probe_enter(struct probe_res *res, int nfds)
{
	int fd;

	/*
	 * Check's stdout may be a log file, and a regular file on fd 1
	 * keeps RLIMIT_FSIZE up (test_fsize_stdout_file): use /dev/null.
	 */
	if ((fd = open("/dev/null", O_WRONLY)) != -1) {
		dup2(fd, STDOUT_FILENO);
		if (fd != STDOUT_FILENO)
			close(fd);
	}
	sandbox_test_landlock_cap(probe_abi);
	res->applied = sandbox_apply(probe_profile, nfds, &res->st);
	return res->applied == 0;
}

static void
describe_status(int status, char *buf, size_t sz)
{
	if (WIFSIGNALED(status))
		snprintf(buf, sz, "killed by signal %d (%s)", WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status))
		snprintf(buf, sz, "exited %d", WEXITSTATUS(status));
	else
		snprintf(buf, sz, "status 0x%x", status);
}

/*
 * Runs fn in a child and returns its findings in *res.  The child sends
 * them, then waits until inspect(pid) has looked at it from outside.  It
 * must exit 0 (write and exit_group are allowed), and every PROBE must
 * have held.
 */
static void
run_probe(void (*fn)(struct probe_res *), void (*inspect)(pid_t),
    struct probe_res *res)
{
	struct probe_res got;
	char c, how[96];
	ssize_t n;
	pid_t pid;
	int rp[2], hp[2], status;

	ck_assert_int_eq(pipe(rp), 0);
	ck_assert_int_eq(pipe(hp), 0);
	ck_assert_int_ne(pid = fork(), -1);
	if (pid == 0) {
		close(rp[0]);
		close(hp[1]);
		memset(&got, 0, sizeof(got));
		fn(&got);
		if (write(rp[1], &got, sizeof(got)) != sizeof(got))
			_exit(SURVIVED + 1);
		(void)read(hp[0], &c, 1);
		_exit(0);
	}
	close(rp[1]);
	close(hp[0]);
	do {
		n = read(rp[0], &got, sizeof(got));
	} while (n == -1 && errno == EINTR);
	if (inspect != NULL && n == sizeof(got))
		inspect(pid);
	close(hp[1]);
	close(rp[0]);
	while (waitpid(pid, &status, 0) == -1)
		ck_assert_int_eq(errno, EINTR);
	describe_status(status, how, sizeof(how));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "probe child %s", how);
	ck_assert_msg(n == sizeof(got), "probe result: read %zd", n);
	ck_assert_msg(got.applied == 0, "sandbox_apply: %d (%s)", got.applied,
	    bnc_err(got.applied));
	ck_assert_msg(got.line == 0, "line %d: %s failed (errno %d, %s)",
	    got.line, got.what, got.err, strerror(got.err));
	if (res != NULL)
		*res = got;
}

/* Reads a /proc file of pid into buf, NUL-terminated. */
static void
read_proc(pid_t pid, const char *name, char *buf, size_t sz)
{
	char path[64];
	ssize_t n;
	size_t off = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, name);
	ck_assert_msg((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1,
	    "open %s: %s", path, strerror(errno));
	while (off < sz - 1 && (n = read(fd, buf + off, sz - 1 - off)) > 0)
		off += (size_t)n;
	buf[off] = '\0';
	close(fd);
	ck_assert_msg(off > 0, "%s is empty", path);
}

#ifndef SANDBOX_DISABLED
/* The kernel's Landlock ABI, asked by the unconfined Check child. */
static int
kernel_landlock_abi(void)
{
	long abi;

	abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);
	return abi < 0 ? 0 : (int)abi;
}

/* The lowest free fd: with nfds = it, every fd below nfds is held. */
static int
lowest_free_fd(void)
{
	int fd;

	ck_assert_int_ne(fd = open("/dev/null", O_RDONLY), -1);
	close(fd);
	return fd;
}
#endif

/* core: the rule table */

/* Calls bouncer-worker must never make; none may appear in the table. */
static const char *const never_allowed[] = {
	"execve",
	"execveat",
	"fork",
	"vfork",
	"clone",
	"clone3",
	"socket",
	"socketpair",
	"connect",
	"bind",
	"listen",
	"accept",
	"accept4",
	"sendto",
	"open",
	"creat",
	"openat2",
	"stat",
	"lstat",
	"statx",
	"ptrace",
	"kill",
	"tkill",
	"mount",
	"umount2",
	"unshare",
	"setns",
	"prctl",
	"setrlimit",
	"prlimit64",
	"pipe",
	"pipe2",
	"dup",
	"dup2",
	"dup3",
	"memfd_create",
	"mprotect",
	"seccomp",
	"bpf",
	"io_uring_setup",
	"userfaultfd",
	"process_vm_writev",
	"chdir",
	"unlink",
	"unlinkat",
	"rename",
	"renameat2",
	"link",
	"symlink",
	"chmod",
	"fchmod",
	"chown",
	"truncate",
	"ftruncate",
	"setuid",
	"setgid",
	"keyctl",
	"add_key",
	"perf_event_open",
	"pkey_mprotect",
	"pkey_alloc",
	"remap_file_pages",
	"shmat",
	"personality",
	"rt_sigqueueinfo",
	"rt_tgsigqueueinfo",
	"pidfd_open",
	"pidfd_send_signal",
	"process_madvise",
};

START_TEST(test_rules_why)
{
	const struct sb_rule *rules;
	char *name;
	size_t i, n;

	ck_assert_ptr_nonnull(rules = sandbox_rules(SB_PROFILE_WORKER, &n));
	ck_assert_uint_gt(n, 0);
	for (i = 0; i < n; i++) {
		/* a negative number: a call this architecture lacks */
		name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE,
		    rules[i].nr);
		ck_assert_msg(name != NULL || rules[i].nr < 0,
		    "row %zu: syscall %d unknown", i, rules[i].nr);
		if (name == NULL)
			name = strdup("(not on this arch)");
		ck_assert_msg(rules[i].why != NULL && rules[i].why[0] != '\0',
		    "row %zu (%s) has no why", i, name);
		ck_assert_msg(rules[i].action == SB_ALLOW ||
			rules[i].action == SB_ERRNO,
		    "row %zu (%s): action %d", i, name, (int)rules[i].action);
		if (rules[i].action == SB_ERRNO)
			ck_assert_msg(rules[i].err > 0 && rules[i].err < 4096,
			    "row %zu (%s): errno %d", i, name, rules[i].err);
		else
			ck_assert_msg(rules[i].err == 0,
			    "row %zu (%s): errno on an allow", i, name);
		free(name);
	}
	/* and the loader's own checks pass, without loading anything */
	ck_assert_int_eq(sandbox_rules_check(rules, n), 0);
}
END_TEST

/* A call appears once, or only in rows that each compare arguments. */
START_TEST(test_rules_unique)
{
	const struct sb_rule *rules;
	size_t i, j, n;

	ck_assert_ptr_nonnull(rules = sandbox_rules(SB_PROFILE_WORKER, &n));
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			ck_assert_msg(rules[i].nr != rules[j].nr ||
				(rules[i].args[0].cmp != SB_CMP_NONE &&
				    rules[j].args[0].cmp != SB_CMP_NONE &&
				    memcmp(rules[i].args, rules[j].args,
					sizeof(rules[i].args)) != 0),
			    "syscall %d in rows %zu and %zu", rules[i].nr, i,
			    j);
}
END_TEST

/* The condition of kind cmp on argument arg in a row, or NULL. */
static const struct sb_arg *
row_arg(const struct sb_rule *rule, enum sb_cmp cmp, unsigned int arg)
{
	size_t k;

	for (k = 0; k < BNC_SB_ARGS_MAX; k++)
		if (rule->args[k].cmp == cmp && rule->args[k].arg == arg)
			return &rule->args[k];
	return NULL;
}

/*
 * The argument policy at a glance: these calls are never allowed with
 * any arguments, signals go only to this process, no allowed mapping is
 * executable or a file's, fcntl only reads and sets the status flags.
 */
START_TEST(test_rules_args)
{
	static const char *const filtered[] = {
		"tgkill", "fcntl", "mmap", "mremap", "madvise",
		"clock_gettime", "ioctl",
	};
	const struct sb_rule *rules, *r;
	const struct sb_arg *a;
	size_t i, j, n, seen;
	int nr;

	ck_assert_ptr_nonnull(rules = sandbox_rules(SB_PROFILE_WORKER, &n));
	for (i = 0; i < sizeof(filtered) / sizeof(filtered[0]); i++) {
		nr = seccomp_syscall_resolve_name(filtered[i]);
		ck_assert_int_ge(nr, 0);
		for (j = 0, seen = 0; j < n; j++) {
			if (rules[j].nr != nr)
				continue;
			seen++;
			ck_assert_msg(rules[j].args[0].cmp != SB_CMP_NONE,
			    "%s (row %zu) allowed with any arguments",
			    filtered[i], j);
		}
		ck_assert_msg(seen > 0, "%s is not in the table", filtered[i]);
	}
	for (j = 0; j < n; j++) {
		r = &rules[j];
		if (r->nr == SCMP_SYS(tgkill))
			ck_assert_msg(row_arg(r, SB_CMP_OWN_PID, 0) != NULL,
			    "row %zu: tgkill not to its own pid", j);
		if (r->nr == SCMP_SYS(mmap) && r->action == SB_ALLOW) {
			a = row_arg(r, SB_CMP_MASKED_EQ, 2);
			ck_assert_msg(a != NULL && (a->mask & PROT_EXEC) &&
				!(a->val & PROT_EXEC),
			    "row %zu: mmap may be executable", j);
			a = row_arg(r, SB_CMP_MASKED_EQ, 3);
			ck_assert_msg(a != NULL &&
				(a->mask & a->val & MAP_ANONYMOUS) &&
				(a->mask & MAP_FIXED) && !(a->val & MAP_FIXED),
			    "row %zu: mmap of a file, or MAP_FIXED", j);
		}
		if (r->nr == SCMP_SYS(fcntl) && r->action == SB_ALLOW) {
			a = row_arg(r, SB_CMP_EQ, 1);
			ck_assert_msg(a != NULL &&
				(a->val == F_GETFL || a->val == F_SETFL),
			    "row %zu: fcntl command not F_GETFL/F_SETFL", j);
			if (a->val == F_SETFL) {
				a = row_arg(r, SB_CMP_MASKED_EQ, 2);
				ck_assert_msg(a != NULL &&
					(a->mask & O_ASYNC) != 0 &&
					(a->val & O_ASYNC) == 0,
				    "row %zu: F_SETFL may set O_ASYNC", j);
			}
		}
	}
}
END_TEST

/* Tables the loader must refuse, each with the mistake it makes. */
static const struct bad_table {
	const char *what;
	struct sb_rule rules[2];
	size_t n;
} bad_tables[] = {
	{ "no why",
	    { { SCMP_SYS(read), SB_ANY, SB_ALLOW, 0, NULL } }, 1 },
	{ "an empty why",
	    { { SCMP_SYS(read), SB_ANY, SB_ALLOW, 0, "" } }, 1 },
	{ "no action",
	    { { SCMP_SYS(read), SB_ANY, (enum sb_action)0, 0, "x" } }, 1 },
	{ "an unknown action",
	    { { SCMP_SYS(read), SB_ANY, (enum sb_action)7, 0, "x" } }, 1 },
	{ "an errno on an allow",
	    { { SCMP_SYS(read), SB_ANY, SB_ALLOW, EPERM, "x" } }, 1 },
	{ "a soft deny without errno",
	    { { SCMP_SYS(read), SB_ANY, SB_ERRNO, 0, "x" } }, 1 },
	{ "an errno past 4095",
	    { { SCMP_SYS(read), SB_ANY, SB_ERRNO, 4096, "x" } }, 1 },
	{ "argument 6",
	    { { SCMP_SYS(read), SB_IF(SB_EQ(6, 0)), SB_ALLOW, 0, "x" } },
	    1 },
	{ "an unknown comparison",
	    { { SCMP_SYS(read), SB_IF({ (enum sb_cmp)9, 0, 0, 0 }),
		SB_ALLOW, 0, "x" } },
	    1 },
	{ "an empty mask",
	    { { SCMP_SYS(read), SB_IF(SB_MASK(0, 0, 0)), SB_ALLOW, 0,
		"x" } },
	    1 },
	{ "a value outside its mask",
	    { { SCMP_SYS(read), SB_IF(SB_MASK(0, 1, 3)), SB_ALLOW, 0,
		"x" } },
	    1 },
	{ "a mask on an equality",
	    { { SCMP_SYS(read), SB_IF({ SB_CMP_EQ, 0, 1, 1 }), SB_ALLOW, 0,
		"x" } },
	    1 },
	{ "a constant on the own pid",
	    { { SCMP_SYS(tgkill), SB_IF({ SB_CMP_OWN_PID, 0, 0, 1 }),
		SB_ALLOW, 0, "x" } },
	    1 },
	{ "a condition after an empty slot",
	    { { SCMP_SYS(read), SB_IF({ SB_CMP_NONE, 0, 0, 0 }, SB_EQ(0, 0)),
		SB_ALLOW, 0, "x" } },
	    1 },
	{ "one argument compared twice",
	    { { SCMP_SYS(read), SB_IF(SB_EQ(0, 0), SB_CLEAR(0, 1)), SB_ALLOW,
		0, "x" } },
	    1 },
	{ "an unconditional row and a conditional one",
	    { { SCMP_SYS(read), SB_ANY, SB_ALLOW, 0, "x" },
		{ SCMP_SYS(read), SB_IF(SB_EQ(0, 0)), SB_ERRNO, EPERM, "y" } },
	    2 },
	{ "the same conditions twice",
	    { { SCMP_SYS(read), SB_IF(SB_EQ(0, 0)), SB_ALLOW, 0, "x" },
		{ SCMP_SYS(read), SB_IF(SB_EQ(0, 0)), SB_ERRNO, EPERM, "y" } },
	    2 },
};
#define NBAD ((int)(sizeof(bad_tables) / sizeof(bad_tables[0])))

/* Is a seccomp filter on this process?  (/proc: before any is.) */
static int
self_seccomp(void)
{
	char buf[8192], *p;

	read_proc(getpid(), "status", buf, sizeof(buf));
	ck_assert_ptr_nonnull(p = strstr(buf, "\nSeccomp:\t"));
	return p[strlen("\nSeccomp:\t")] - '0';
}

/* The checker and the loader refuse each, and nothing is loaded. */
START_TEST(test_rules_refused)
{
	const struct bad_table *t = &bad_tables[_i];

	ck_assert_msg(sandbox_rules_check(t->rules, t->n) == -BNC_ERR_INTERNAL,
	    "%s: accepted by the check", t->what);
	ck_assert_msg(sandbox_test_seccomp_load(t->rules, t->n) ==
		-BNC_ERR_INTERNAL,
	    "%s: loaded", t->what);
	ck_assert_msg(self_seccomp() == 0, "%s: a filter was loaded",
	    t->what);
}
END_TEST

/* At the bound: a row with BNC_SB_ARGS_MAX conditions is accepted. */
START_TEST(test_rules_args_max)
{
	static const struct sb_rule ok[] = {
		{ SCMP_SYS(read), SB_IF(SB_EQ(0, 0), SB_ONLY(2, 0xff)),
		    SB_ALLOW, 0, "x" },
		{ SCMP_SYS(read), SB_IF(SB_EQ(0, 1)), SB_ERRNO, EPERM, "y" },
		{ SCMP_SYS(tgkill), SB_IF(SB_OWN_PID(0)), SB_ALLOW, 0, "z" },
	};

	ck_assert_int_eq(sandbox_rules_check(ok, 3), 0);
}
END_TEST

START_TEST(test_rules_never)
{
	const struct sb_rule *rules;
	size_t i, j, n;
	int nr;

	ck_assert_ptr_nonnull(rules = sandbox_rules(SB_PROFILE_WORKER, &n));
	for (i = 0; i < sizeof(never_allowed) / sizeof(never_allowed[0]); i++) {
		nr = seccomp_syscall_resolve_name(never_allowed[i]);
		if (nr == __NR_SCMP_ERROR || nr < 0)
			continue; /* not on this architecture */
		for (j = 0; j < n; j++)
			ck_assert_msg(rules[j].nr != nr,
			    "%s is in the worker table (row %zu)",
			    never_allowed[i], j);
	}
}
END_TEST

/* Path probes fail with the errno libc copes with, never succeed. */
START_TEST(test_rules_soft)
{
	static const struct {
		const char *name;
		int err;
	} soft[] = {
		{ "openat", EACCES },
		{ "newfstatat", EACCES },
		{ "ioctl", ENOTTY },
	};
	const struct sb_rule *rules;
	size_t i, j, n;
	int nr, found;

	ck_assert_ptr_nonnull(rules = sandbox_rules(SB_PROFILE_WORKER, &n));
	for (i = 0; i < sizeof(soft) / sizeof(soft[0]); i++) {
		if ((nr = seccomp_syscall_resolve_name(soft[i].name)) < 0)
			continue;
		found = 0;
		for (j = 0; j < n; j++) {
			if (rules[j].nr != nr)
				continue;
			found = 1;
			ck_assert_msg(rules[j].action == SB_ERRNO &&
				rules[j].err == soft[i].err,
			    "%s: not errno %d", soft[i].name, soft[i].err);
		}
		ck_assert_msg(found, "%s missing", soft[i].name);
	}
}
END_TEST

START_TEST(test_rules_unknown_profile)
{
	size_t n = 42;

	ck_assert_ptr_null(sandbox_rules((enum sb_profile)0, &n));
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(sandbox_rules((enum sb_profile)99, NULL));
}
END_TEST

/* core: the status the child reports, and what the kernel says */

static void
probe_status(struct probe_res *res)
{
	probe_enter(res, WORKER_NFDS);
}

START_TEST(test_status)
{
	struct probe_res res;

	run_probe(probe_status, NULL, &res);
#ifdef SANDBOX_DISABLED
	ck_assert_int_eq(res.st.seccomp, SB_STATE_OFF);
	ck_assert_int_eq(res.st.nnp, 0);
	ck_assert_int_eq(res.st.landlock_abi, 0);
#else
	ck_assert_int_eq(res.st.seccomp, WANT_SECCOMP);
	ck_assert_int_eq(res.st.nnp, 1);
	ck_assert_int_eq(res.st.landlock_abi, kernel_landlock_abi());
#endif
}
END_TEST

#ifndef SANDBOX_DISABLED
static void
inspect_proc_status(pid_t pid)
{
	struct stat sb;
	char path[64], buf[8192];

	read_proc(pid, "status", buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "\nSeccomp:\t2\n") != NULL,
	    "no Seccomp:\\t2 in /proc/%ld/status", (long)pid);
	ck_assert_msg(strstr(buf, "\nNoNewPrivs:\t1\n") != NULL,
	    "no NoNewPrivs:\\t1 in /proc/%ld/status", (long)pid);
	/* A non-dumpable process's /proc files belong to root. */
	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	ck_assert_int_eq(stat(path, &sb), 0);
	if (getuid() != 0)
		ck_assert_uint_eq(sb.st_uid, 0);
}

START_TEST(test_proc_status)
{
	run_probe(probe_status, inspect_proc_status, NULL);
}
END_TEST
#endif

/* core: what the worker does keeps working */

static void
probe_pipe_io(struct probe_res *res)
{
	char buf[256];
	int p[2];

	PROBE(res, pipe(p) == 0);
	if (res->line != 0 || !probe_enter(res, WORKER_NFDS))
		return;
	PROBE(res, write(p[1], "line\n", 5) == 5);
	PROBE(res, read(p[0], buf, sizeof(buf)) == 5);
	PROBE(res, memcmp(buf, "line\n", 5) == 0);
	PROBE(res,
	    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK) == 0);
	PROBE(res, read(p[0], buf, sizeof(buf)) == -1 && errno == EAGAIN);
	PROBE(res, close(p[1]) == 0);
	PROBE(res, read(p[0], buf, sizeof(buf)) == 0);
	PROBE(res, close(p[0]) == 0);
}

START_TEST(test_pipe_io)
{
	run_probe(probe_pipe_io, NULL, NULL);
}
END_TEST

static void
probe_seqpacket(struct probe_res *res)
{
	static char frame[BNC_FRAME_MAX], back[BNC_FRAME_MAX];
	struct msghdr mh;
	struct iovec iov;
	struct pollfd pfd;
	int sv[2];

	PROBE(res, socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
	if (res->line != 0 || !probe_enter(res, WORKER_NFDS))
		return;
	memset(frame, 'f', sizeof(frame));
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = frame;
	iov.iov_len = sizeof(frame);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	pfd.fd = sv[0];
	pfd.events = POLLOUT;
	PROBE(res, poll(&pfd, 1, 1000) == 1 && (pfd.revents & POLLOUT));
	PROBE(res, sendmsg(sv[0], &mh, MSG_NOSIGNAL) == sizeof(frame));
	iov.iov_base = back;
	iov.iov_len = sizeof(back);
	PROBE(res, recvmsg(sv[1], &mh, 0) == sizeof(back));
	PROBE(res, (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) == 0);
	PROBE(res, memcmp(frame, back, sizeof(back)) == 0);
	PROBE(res, close(sv[1]) == 0);
	iov.iov_base = back;
	PROBE(res, recvmsg(sv[0], &mh, 0) == 0);
}

START_TEST(test_seqpacket)
{
	run_probe(probe_seqpacket, NULL, NULL);
}
END_TEST

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

static void
probe_memory(struct probe_res *res)
{
	static int ints[100000];
	char *big, *p, *small[1000];
	size_t i;

	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		ints[i] = (int)((i * 2654435761U) % 1000003);
	if (!probe_enter(res, WORKER_NFDS))
		return;
	PROBE(res, (big = malloc(BIG_ALLOC)) != NULL);
	if (big == NULL)
		return;
	memset(big, 0xa5, BIG_ALLOC);
	PROBE(res, (p = realloc(big, 2 * BIG_ALLOC)) != NULL);
	if (p != NULL)
		big = p;
	PROBE(res, (unsigned char)big[BIG_ALLOC - 1] == 0xa5);
	PROBE(res, (p = realloc(big, 4096)) != NULL);
	if (p != NULL)
		big = p;
	free(big);
	for (i = 0; i < 1000; i++) {
		PROBE(res, (small[i] = malloc(16 + i * 97)) != NULL);
		if (small[i] != NULL)
			memset(small[i], (int)i, 16 + i * 97);
	}
	for (i = 0; i < 1000; i++)
		free(small[i]);
	/* glibc's qsort() asks sysinfo() for the memory size */
	qsort(ints, sizeof(ints) / sizeof(ints[0]), sizeof(ints[0]), cmp_int);
	for (i = 1; i < sizeof(ints) / sizeof(ints[0]); i++)
		PROBE(res, ints[i - 1] <= ints[i]);
}

START_TEST(test_memory)
{
	run_probe(probe_memory, NULL, NULL);
}
END_TEST

static void
probe_clock(struct probe_res *res)
{
	struct timespec ts;
	struct timeval tv;

	if (!probe_enter(res, WORKER_NFDS))
		return;
	PROBE(res, clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
	PROBE(res,
	    clock_gettime(CLOCK_REALTIME, &ts) == 0 && ts.tv_sec > 1700000000);
	PROBE(res, clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0);
	PROBE(res, gettimeofday(&tv, NULL) == 0);
	PROBE(res, time(NULL) > 1700000000);
	/* the raw calls, as without a vDSO */
	PROBE(res, syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts) == 0);
	PROBE(res, syscall(SYS_gettimeofday, &tv, NULL) == 0);
}

START_TEST(test_clock)
{
	run_probe(probe_clock, NULL, NULL);
}
END_TEST

struct loop_state {
	struct event_base *base;
	int reads, timers, signals;
	char got[16];
};

static void
loop_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct loop_state *ls = arg;
	ssize_t n;

	if ((n = read(fd, ls->got, sizeof(ls->got) - 1)) > 0)
		ls->got[n] = '\0';
	ls->reads++;
	raise(SIGUSR1);
}

static void
loop_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct loop_state *ls = arg;

	ls->signals++;
	event_base_loopexit(ls->base, NULL);
}

static void
loop_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct loop_state *ls = arg;

	ls->timers++;
}

/* A libevent loop like the worker's: a read event, a timer, a signal. */
static void
probe_event_loop(struct probe_res *res)
{
	struct loop_state ls;
	struct event *ev_read = NULL, *ev_timer = NULL;
	struct event *ev_sig = NULL;
	struct timeval ms = { 0, 1000 }, guard = { 10, 0 };
	int p[2];

	memset(&ls, 0, sizeof(ls));
	PROBE(res, pipe(p) == 0);
	PROBE(res, (ls.base = event_base_new()) != NULL);
	if (res->line != 0)
		return;
	PROBE(res, strcmp(event_base_get_method(ls.base), "epoll") == 0);
	ev_read =
	    event_new(ls.base, p[0], EV_READ | EV_PERSIST, loop_read_cb, &ls);
	ev_timer = evtimer_new(ls.base, loop_timer_cb, &ls);
	ev_sig = evsignal_new(ls.base, SIGUSR1, loop_signal_cb, &ls);
	PROBE(res, ev_read != NULL && ev_timer != NULL && ev_sig != NULL);
	PROBE(res, evsignal_add(ev_sig, NULL) == 0);
	if (res->line != 0 || !probe_enter(res, WORKER_NFDS))
		return;
	/* after the filter: events come and go on held fds */
	PROBE(res, event_add(ev_read, NULL) == 0);
	PROBE(res, evtimer_add(ev_timer, &ms) == 0);
	PROBE(res, event_base_loopexit(ls.base, &guard) == 0);
	PROBE(res, write(p[1], "ping", 4) == 4);
	PROBE(res, event_base_dispatch(ls.base) == 0);
	PROBE(res, ls.reads == 1);
	PROBE(res, strcmp(ls.got, "ping") == 0);
	PROBE(res, ls.signals == 1);
	PROBE(res, event_del(ev_read) == 0);
	event_free(ev_read);
	event_free(ev_timer);
	event_free(ev_sig);
	event_base_free(ls.base);
}

START_TEST(test_event_loop)
{
	run_probe(probe_event_loop, NULL, NULL);
}
END_TEST

/* stdio on a pipe: its fstat is refused, it must still write whole lines */
static void
probe_stdio(struct probe_res *res)
{
	FILE *f = NULL;
	char buf[64];
	int p[2];

	PROBE(res, pipe(p) == 0);
	PROBE(res, (f = fdopen(p[1], "w")) != NULL);
	if (res->line != 0 || !probe_enter(res, WORKER_NFDS))
		return;
	PROBE(res, fprintf(f, "{\"id\":%d}\n", 7) == 9);
	PROBE(res, fflush(f) == 0);
	PROBE(res, read(p[0], buf, sizeof(buf)) == 9);
	PROBE(res, memcmp(buf, "{\"id\":7}\n", 9) == 0);
	PROBE(res, fclose(f) == 0);
}

START_TEST(test_stdio)
{
	run_probe(probe_stdio, NULL, NULL);
}
END_TEST

/* abort() still reports SIGABRT, not a sandbox violation. */
START_TEST(test_abort)
{
	struct sb_status st;
	struct rlimit rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl); /* also in a --disable-sandbox build */
	if (sandbox_apply(SB_PROFILE_WORKER, WORKER_NFDS, &st) != 0)
		_exit(SURVIVED);
	abort();
}
END_TEST

/* Check's own child ends cleanly once confined. */
START_TEST(test_exit)
{
	struct sb_status st;

	if (sandbox_apply(SB_PROFILE_WORKER, WORKER_NFDS, &st) != 0)
		_exit(SURVIVED);
	_exit(0);
}
END_TEST

#ifndef SANDBOX_DISABLED
/* limits */

static void
inspect_limits(pid_t pid)
{
	static const struct {
		const char *row;
		long want;
	} rows[] = {
		{ "Max processes", 0 },
		{ "Max file size", 0 },
		{ "Max core file size", 0 },
		{ "Max open files", WORKER_NFDS },
	};
	char buf[8192], *line;
	size_t i;
	long soft, hard;

	read_proc(pid, "limits", buf, sizeof(buf));
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_msg((line = strstr(buf, rows[i].row)) != NULL,
		    "no \"%s\" in /proc/%ld/limits", rows[i].row, (long)pid);
		line += strlen(rows[i].row);
		ck_assert_msg(sscanf(line, " %ld %ld", &soft, &hard) == 2,
		    "%s: cannot parse", rows[i].row);
		ck_assert_msg(soft == rows[i].want && hard == rows[i].want,
		    "%s: %ld %ld, want %ld", rows[i].row, soft, hard,
		    rows[i].want);
	}
}

START_TEST(test_rlimits)
{
	run_probe(probe_status, inspect_limits, NULL);
}
END_TEST

/* RLIMIT_FSIZE 0: a regular file opened before cannot grow. */
static void
probe_fsize(struct probe_res *res)
{
	FILE *tmp;

	signal(SIGXFSZ, SIG_IGN);
	PROBE(res, (tmp = tmpfile()) != NULL);
	if (res->line != 0 || !probe_enter(res, WORKER_NFDS))
		return;
	PROBE(res, write(fileno(tmp), "x", 1) == -1 && errno == EFBIG);
}

START_TEST(test_fsize)
{
	run_probe(probe_fsize, NULL, NULL);
}
END_TEST

/*
 * A worker's stdout is /dev/null in either role: the monitor writes the
 * client's answers itself, even to a regular file (bouncer-monitor >
 * out.json).  A file on fd 1 gets RLIMIT_FSIZE 0 like any other.
 */
static void
probe_fsize_stdout_file(struct probe_res *res)
{
	FILE *tmp;

	signal(SIGXFSZ, SIG_IGN);
	PROBE(res, (tmp = tmpfile()) != NULL);
	if (res->line != 0)
		return;
	res->applied = -1;
	if (dup2(fileno(tmp), STDOUT_FILENO) == -1) {
		PROBE(res, 0);
		return;
	}
	res->applied = sandbox_apply(SB_PROFILE_WORKER, WORKER_NFDS,
	    &res->st);
	if (res->applied != 0)
		return;
	PROBE(res, write(STDOUT_FILENO, "answer\n", 7) == -1 &&
	    errno == EFBIG);
}

START_TEST(test_fsize_stdout_file)
{
	run_probe(probe_fsize_stdout_file, NULL, NULL);
}
END_TEST

/* RLIMIT_NOFILE = nfds: an fd passed over the channel cannot land. */
static void
probe_nofile(struct probe_res *res)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct cmsghdr *cmsg;
	struct msghdr mh;
	struct iovec iov;
	char byte = 'x';
	int sv[2], nfds;

	PROBE(res, socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
	if (res->line != 0)
		return;
	memset(&mh, 0, sizeof(mh));
	memset(&cm, 0, sizeof(cm));
	iov.iov_base = &byte;
	iov.iov_len = 1;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	cmsg = CMSG_FIRSTHDR(&mh);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &sv[1], sizeof(int));
	PROBE(res, sendmsg(sv[1], &mh, 0) == 1);
	nfds = lowest_free_fd();
	if (res->line != 0 || !probe_enter(res, nfds))
		return;
	memset(&cm, 0, sizeof(cm));
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	mh.msg_flags = 0;
	PROBE(res, recvmsg(sv[0], &mh, 0) == 1);
	PROBE(res, (mh.msg_flags & MSG_CTRUNC) != 0);
}

START_TEST(test_nofile)
{
	run_probe(probe_nofile, NULL, NULL);
}
END_TEST

/* errors: forbidden calls kill the process */

static char *const true_argv[] = { "true", NULL };

static void
k_execve(void)
{
	execve("/bin/true", true_argv, environ);
}

static void
k_execveat(void)
{
	syscall(SYS_execveat, AT_FDCWD, "/bin/true", true_argv, environ, 0);
}

static void
k_fork(void)
{
	if (fork() == 0)
		_exit(SURVIVED);
}

static void
k_clone(void)
{
	if (syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) == 0)
		_exit(SURVIVED);
}

static void
k_clone3(void)
{
#ifdef SYS_clone3
	syscall(SYS_clone3, NULL, 0);
#else
	raise(SIGSYS);
#endif
}

static void
k_socket(void)
{
	socket(AF_INET, SOCK_STREAM, 0);
}

static void
k_socketpair(void)
{
	int sv[2];

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
}

static void
k_connect(void)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(9);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	connect(0, (struct sockaddr *)&sin, sizeof(sin));
}

static void
k_bind(void)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(0, (struct sockaddr *)&sin, sizeof(sin));
}

static void
k_listen(void)
{
	listen(0, 1);
}

static void
k_accept(void)
{
	accept(0, NULL, NULL);
}

static void
k_sendto(void)
{
	sendto(0, "x", 1, 0, NULL, 0);
}

static void
k_open(void)
{
#ifdef SYS_open
	syscall(SYS_open, "/etc/passwd", O_RDONLY);
#else
	raise(SIGSYS);
#endif
}

static void
k_openat2(void)
{
	uint64_t how[3] = { O_RDONLY, 0, 0 };

	syscall(SYS_openat2, AT_FDCWD, "/etc/passwd", how, sizeof(how));
}

static void
k_creat(void)
{
#ifdef SYS_creat
	syscall(SYS_creat, "/tmp/bouncer-sandbox-creat", 0600);
#else
	raise(SIGSYS);
#endif
}

static void
k_stat(void)
{
	char sb[256];

#ifdef SYS_stat
	syscall(SYS_stat, "/etc/passwd", sb);
#else
	syscall(SYS_statx, AT_FDCWD, "/etc/passwd", 0, 0x7ff, sb);
#endif
}

static void
k_statx(void)
{
	char sb[256];

	syscall(SYS_statx, AT_FDCWD, "/etc/passwd", 0, 0x7ff, sb);
}

static void
k_ptrace(void)
{
	ptrace(PTRACE_TRACEME, 0, NULL, NULL);
}

static pid_t kill_target; /* the Check runner, found before the sandbox */

static void
k_kill(void)
{
	kill(kill_target, 0);
}

static void
k_mount(void)
{
	mount("none", "/tmp", "tmpfs", 0, NULL);
}

static void
k_unshare(void)
{
	unshare(CLONE_NEWUSER);
}

static void
k_prctl(void)
{
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

static void
k_setrlimit(void)
{
	struct rlimit rl = { 1024, 1024 };

	setrlimit(RLIMIT_NOFILE, &rl);
}

static void
k_pipe(void)
{
	int p[2];

	pipe(p);
}

static void
k_dup(void)
{
	dup(0);
}

static void
k_memfd(void)
{
	syscall(SYS_memfd_create, "x", 0);
}

static void
k_mprotect(void)
{
	static char page[2 * 4096];
	uintptr_t a = ((uintptr_t)page + 4095) & ~(uintptr_t)4095;

	mprotect((void *)a, 4096, PROT_READ | PROT_EXEC);
}

static void
k_seccomp(void)
{
	syscall(SYS_seccomp, 0, 0, NULL);
}

static void
k_io_uring(void)
{
	char params[120];

	memset(params, 0, sizeof(params));
	syscall(SYS_io_uring_setup, 1, params);
}

/* Signals to another process by other roads than kill() and tgkill(). */
static void
k_sigqueue(void)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_code = SI_QUEUE;
	syscall(SYS_rt_sigqueueinfo, kill_target, 0, &si);
}

static void
k_pidfd_signal(void)
{
	syscall(SYS_pidfd_send_signal, 0, 0, NULL, 0);
}

#if defined(__x86_64__)
/* i386 getpid through int 0x80: the filter's arch check kills it. */
static void
k_i386(void)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
	(void)ret;
}

/* x32 getpid: the x32 bit must not smuggle an allowed number. */
static void
k_x32(void)
{
	syscall(0x40000000L | SYS_getpid);
}
#endif

static const struct kill_case {
	const char *name;
	void (*fn)(void);
} kill_cases[] = {
	{ "execve", k_execve }, { "execveat", k_execveat }, { "fork", k_fork },
	{ "clone", k_clone }, { "clone3", k_clone3 }, { "socket", k_socket },
	{ "socketpair", k_socketpair }, { "connect", k_connect },
	{ "bind", k_bind }, { "listen", k_listen }, { "accept", k_accept },
	{ "sendto", k_sendto }, { "open", k_open }, { "openat2", k_openat2 },
	{ "creat", k_creat }, { "stat", k_stat }, { "statx", k_statx },
	{ "ptrace", k_ptrace }, { "kill", k_kill }, { "mount", k_mount },
	{ "unshare", k_unshare }, { "prctl", k_prctl },
	{ "setrlimit", k_setrlimit }, { "pipe", k_pipe }, { "dup", k_dup },
	{ "memfd_create", k_memfd }, { "mprotect", k_mprotect },
	{ "seccomp", k_seccomp }, { "io_uring_setup", k_io_uring },
	{ "rt_sigqueueinfo", k_sigqueue },
	{ "pidfd_send_signal", k_pidfd_signal },
#if defined(__x86_64__)
	{ "x32", k_x32 },
	{ "i386 int 0x80", k_i386 }, /* last: see kill_count() */
#endif
};
#define NKILL ((int)(sizeof(kill_cases) / sizeof(kill_cases[0])))

/* The cases to run: the i386 one (last) only where the kernel has it. */
static int
kill_count(void)
{
#if defined(__x86_64__)
	pid_t pid;
	long ret;
	int status;

	if ((pid = fork()) == -1)
		return NKILL;
	if (pid == 0) {
		__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
		_exit(ret == (long)getpid() ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0)
		return NKILL;
	fprintf(stderr,
	    "check_sandbox: no i386 system calls here, that "
	    "case is skipped\n");
	return NKILL - 1;
#else
	return NKILL;
#endif
}

/*
 * Applied in Check's own child; the forbidden call is the first thing
 * after it.  Check names the failing case by its index (_i).
 */
START_TEST(test_kill)
{
	struct sb_status st;

	kill_target = getppid();
	if (sandbox_apply(SB_PROFILE_WORKER, WORKER_NFDS, &st) != 0)
		_exit(SURVIVED + 1);
	kill_cases[_i].fn();
	_exit(SURVIVED);
}
END_TEST

/* errors: libc's probes fail politely */

static void
probe_soft_deny(struct probe_res *res)
{
	struct stat sb;
	int fd, p[2], n;

	PROBE(res, pipe(p) == 0);
	if (res->line != 0 || !probe_enter(res, WORKER_NFDS))
		return;
	PROBE(res, open("/etc/passwd", O_RDONLY) == -1 && errno == EACCES);
	PROBE(res,
	    openat(AT_FDCWD, "/etc/passwd", O_RDONLY) == -1 && errno == EACCES);
	PROBE(res, fopen("/etc/localtime", "r") == NULL && errno == EACCES);
	PROBE(res, openat(p[0], "x", O_RDONLY) == -1 && errno == EACCES);
	PROBE(res, stat("/etc/passwd", &sb) == -1 && errno == EACCES);
	PROBE(res, fstatat(AT_FDCWD, "/", &sb, 0) == -1 && errno == EACCES);
	PROBE(res, isatty(0) == 0 && errno == ENOTTY);
	PROBE(res, ioctl(p[0], FIONREAD, &n) == -1 && errno == ENOTTY);
	/* never an fd */
	fd = open("/", O_RDONLY | O_DIRECTORY);
	PROBE(res, fd == -1);
}

START_TEST(test_soft_deny)
{
	run_probe(probe_soft_deny, NULL, NULL);
}
END_TEST

/*
 * errors: argument rules, under every Landlock ABI.  Each case makes one
 * call in a form the table does not allow: the process must die by
 * SIGSYS whatever Landlock the kernel has, the filter alone refusing it.
 * What a case needs that the sandbox forbids (a pipe, mappings, a file)
 * its set-up makes first.  Were a case let through, it must do no harm:
 * signals are 0, fds are the set-up's own.
 */

/* The Landlock ABIs every argument test runs under; -1: the kernel's. */
static const int test_abis[] = { -1, 0, 1, 2, 3, 4, 5, 6 };
#define NABIS ((int)(sizeof(test_abis) / sizeof(test_abis[0])))

static int arg_fd = -1;			   /* a pipe's read end */
static int arg_file = -1;		   /* a regular file of one page */
static unsigned char *arg_map, *arg_map2; /* anonymous pages, RW and R */

static void
s_pipe(void)
{
	int p[2];

	if (pipe(p) == -1)
		_exit(SURVIVED + 2);
	arg_fd = p[0];
}

static void
s_maps(void)
{
	arg_map = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	arg_map2 = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	if (arg_map == MAP_FAILED || arg_map2 == MAP_FAILED)
		_exit(SURVIVED + 2);
}

static void
s_file(void)
{
	static char page[PAGE];
	FILE *f;

	if ((f = tmpfile()) == NULL ||
	    write(fileno(f), page, sizeof(page)) != sizeof(page))
		_exit(SURVIVED + 2);
	arg_file = fileno(f);
}

static void
a_tgkill_parent(void)
{
	syscall(SYS_tgkill, kill_target, kill_target, 0);
}

static void
a_tkill_parent(void)
{
	syscall(SYS_tkill, kill_target, 0);
}

/* tkill is not in the table at all: libc's raise() uses tgkill. */
static void
a_tkill_self(void)
{
	syscall(SYS_tkill, syscall(SYS_gettid), 0);
}

static void
a_setown(void)
{
	fcntl(arg_fd, F_SETOWN, kill_target);
}

static void
a_setown_ex(void)
{
	struct f_owner_ex o = { F_OWNER_PID, 0 };

	o.pid = kill_target;
	fcntl(arg_fd, F_SETOWN_EX, &o);
}

static void
a_setsig(void)
{
	fcntl(arg_fd, F_SETSIG, SIGUSR1);
}

static void
a_setfl_async(void)
{
	fcntl(arg_fd, F_SETFL, O_NONBLOCK | O_ASYNC);
}

static void
a_setlease(void)
{
	fcntl(arg_fd, F_SETLEASE, F_RDLCK);
}

static void
a_notify(void)
{
	fcntl(arg_fd, F_NOTIFY, DN_CREATE);
}

static void
a_setpipe_sz(void)
{
	fcntl(arg_fd, F_SETPIPE_SZ, 2 * PAGE);
}

static void
a_dupfd(void)
{
	fcntl(arg_fd, F_DUPFD, 0);
}

static void
a_dupfd_cloexec(void)
{
	fcntl(arg_fd, F_DUPFD_CLOEXEC, 0);
}

static void
a_getfd(void)
{
	fcntl(arg_fd, F_GETFD);
}

static void
a_mmap_exec(void)
{
	mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
}

static void
a_mmap_rwx(void)
{
	mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static void
a_mmap_file(void)
{
	mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, arg_file, 0);
}

static void
a_mmap_fixed(void)
{
	mmap(arg_map2, PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

static void
a_mprotect_exec(void)
{
	mprotect(arg_map, PAGE, PROT_READ | PROT_EXEC);
}

/* mprotect is not in the table at all: it could unprotect RELRO too. */
static void
a_mprotect_rw(void)
{
	mprotect(arg_map2, PAGE, PROT_READ | PROT_WRITE);
}

static void
a_pkey_mprotect(void)
{
	syscall(SYS_pkey_mprotect, arg_map, PAGE, PROT_READ | PROT_EXEC, -1);
}

static void
a_mremap_fixed(void)
{
	mremap(arg_map, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, arg_map2);
}

static void
a_madvise_merge(void)
{
	madvise(arg_map, PAGE, MADV_MERGEABLE);
}

/* The parent's CPU clock: the kernel's MAKE_PROCESS_CPUCLOCK(pid, SCHED) */
static void
a_clock_parent(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, (clockid_t)((~kill_target << 3) | 2), &ts);
}

static void
a_tiocsti(void)
{
	char c = 'x';

	ioctl(arg_fd, TIOCSTI, &c);
}

static const struct arg_case {
	const char *name;
	void (*setup)(void);	/* before the sandbox, or NULL */
	void (*fn)(void);
} arg_cases[] = {
	{ "tgkill to the parent", NULL, a_tgkill_parent },
	{ "tkill to the parent", NULL, a_tkill_parent },
	{ "tkill to itself", NULL, a_tkill_self },
	{ "fcntl F_SETOWN", s_pipe, a_setown },
	{ "fcntl F_SETOWN_EX", s_pipe, a_setown_ex },
	{ "fcntl F_SETSIG", s_pipe, a_setsig },
	{ "fcntl F_SETFL O_ASYNC", s_pipe, a_setfl_async },
	{ "fcntl F_SETLEASE", s_pipe, a_setlease },
	{ "fcntl F_NOTIFY", s_pipe, a_notify },
	{ "fcntl F_SETPIPE_SZ", s_pipe, a_setpipe_sz },
	{ "fcntl F_DUPFD", s_pipe, a_dupfd },
	{ "fcntl F_DUPFD_CLOEXEC", s_pipe, a_dupfd_cloexec },
	{ "fcntl F_GETFD", s_pipe, a_getfd },
	{ "mmap PROT_EXEC", NULL, a_mmap_exec },
	{ "mmap PROT_READ|WRITE|EXEC", NULL, a_mmap_rwx },
	{ "mmap of a file", s_file, a_mmap_file },
	{ "mmap MAP_FIXED", s_maps, a_mmap_fixed },
	{ "mprotect PROT_EXEC", s_maps, a_mprotect_exec },
	{ "mprotect PROT_WRITE", s_maps, a_mprotect_rw },
	{ "pkey_mprotect PROT_EXEC", s_maps, a_pkey_mprotect },
	{ "mremap MREMAP_FIXED", s_maps, a_mremap_fixed },
	{ "madvise MADV_MERGEABLE", s_maps, a_madvise_merge },
	{ "clock_gettime of the parent's CPU clock", NULL, a_clock_parent },
	{ "ioctl TIOCSTI", s_pipe, a_tiocsti },
};
#define NARG ((int)(sizeof(arg_cases) / sizeof(arg_cases[0])))

/*
 * Case _i / NABIS under Landlock ABI test_abis[_i % NABIS]; Check names a
 * failure by _i.
 */
START_TEST(test_args_kill)
{
	const struct arg_case *c = &arg_cases[_i / NABIS];
	struct sb_status st;

	kill_target = getppid();
	if (c->setup != NULL)
		c->setup();
	sandbox_test_landlock_cap(test_abis[_i % NABIS]);
	if (sandbox_apply(SB_PROFILE_WORKER, WORKER_NFDS, &st) != 0)
		_exit(SURVIVED + 1);
	c->fn();
	_exit(SURVIVED);
}
END_TEST

/* The forms the worker makes, under the same ABIs: all work. */
static void
probe_args_allowed(struct probe_res *res)
{
	struct timespec ts;
	unsigned char *m, *m2;
	int p[2], fl, n;

	signal(SIGUSR1, SIG_IGN);
	PROBE(res, pipe(p) == 0);
	if (res->line != 0 || !probe_enter(res, WORKER_NFDS))
		return;
	/* signals to itself: abort() and raise() */
	PROBE(res, syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), 0) == 0);
	PROBE(res,
	    syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR1) == 0);
	PROBE(res, raise(SIGUSR1) == 0);
	/* the status flags */
	PROBE(res, (fl = fcntl(p[0], F_GETFL)) != -1);
	PROBE(res, fcntl(p[0], F_SETFL, fl | O_NONBLOCK) == 0);
	PROBE(res, (fcntl(p[0], F_GETFL) & O_NONBLOCK) != 0);
	/* anonymous memory, grown, advised and returned */
	m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	PROBE(res, m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	memset(m, 0xa5, PAGE);
	m2 = mremap(m, PAGE, 16 * PAGE, MREMAP_MAYMOVE);
	PROBE(res, m2 != MAP_FAILED);
	if (m2 == MAP_FAILED)
		return;
	PROBE(res, m2[PAGE - 1] == 0xa5);
	PROBE(res, madvise(m2, 16 * PAGE, MADV_DONTNEED) == 0);
	PROBE(res, m2[0] == 0);
	PROBE(res, munmap(m2, 16 * PAGE) == 0);
	/* the fixed clocks, as without a vDSO */
	PROBE(res, syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts) == 0);
	PROBE(res, syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts) == 0);
	PROBE(res, syscall(SYS_clock_gettime, CLOCK_MONOTONIC_COARSE, &ts) ==
	    0);
	PROBE(res, syscall(SYS_clock_gettime, CLOCK_BOOTTIME, &ts) == 0);
	PROBE(res,
	    syscall(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, &ts) == 0);
	/* the ioctls libc and libevent make fail politely */
	PROBE(res, isatty(p[0]) == 0 && errno == ENOTTY);
	PROBE(res, ioctl(p[0], FIONREAD, &n) == -1 && errno == ENOTTY);
}

START_TEST(test_args_allowed)
{
	struct probe_res res;
	int kabi = kernel_landlock_abi(), want;

	probe_abi = test_abis[_i];
	run_probe(probe_args_allowed, NULL, &res);
	/* the cap held: this is the ABI the probe ran under */
	want = probe_abi < 0 || probe_abi > kabi ? kabi : probe_abi;
	ck_assert_int_eq(res.st.landlock_abi, want);
}
END_TEST

#if defined(__x86_64__)
/*
 * READ_IMPLIES_EXEC (setarch -X, kept across exec) would make a readable
 * mapping executable with no PROT_EXEC for the filter to see: the sandbox
 * clears it, so running a `ret' in a fresh RW page faults.
 */
START_TEST(test_read_implies_exec)
{
	struct sb_status st;
	unsigned char *m;
	void (*fn)(void);

	if (personality(READ_IMPLIES_EXEC) == -1)
		_exit(SURVIVED + 1);
	if (sandbox_apply(SB_PROFILE_WORKER, WORKER_NFDS, &st) != 0)
		_exit(SURVIVED + 1);
	m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		_exit(SURVIVED + 1);
	m[0] = 0xc3; /* ret */
	memcpy(&fn, &m, sizeof(fn));
	fn();
	_exit(SURVIVED);
}
END_TEST
#endif

#ifdef SANDBOX_DEBUG
/*
 * --enable-sandbox-debug names the refused call on fd 2, and for a call
 * refused for its arguments, the arguments.
 */
static void
debug_report(void (*fn)(void), char *buf, size_t sz)
{
	struct sb_status st;
	size_t off = 0;
	ssize_t n;
	pid_t pid;
	int p[2], status;

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_ne(pid = fork(), -1);
	if (pid == 0) {
		kill_target = getppid();
		s_pipe();
		dup2(p[1], STDERR_FILENO);
		if (sandbox_apply(SB_PROFILE_WORKER, WORKER_NFDS, &st) != 0)
			_exit(SURVIVED + 1);
		fn();
		_exit(SURVIVED);
	}
	close(p[1]);
	while (off < sz - 1 && (n = read(p[0], buf + off, sz - 1 - off)) > 0)
		off += (size_t)n;
	buf[off] = '\0';
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
	    "not killed by SIGSYS: status 0x%x", status);
}

START_TEST(test_debug_report)
{
	char buf[512], want[128];

	debug_report(k_socket, buf, sizeof(buf));
	snprintf(want, sizeof(want), "sandbox: syscall %d denied\n",
	    (int)SYS_socket);
	ck_assert_str_eq(buf, want);
	debug_report(a_setown, buf, sizeof(buf));
#if defined(__x86_64__) || defined(__aarch64__)
	/* fcntl(the set-up's pipe, F_SETOWN, our pid) */
	snprintf(want, sizeof(want), "sandbox: syscall %d denied: arguments 0x",
	    (int)SYS_fcntl);
	ck_assert_msg(strncmp(buf, want, strlen(want)) == 0,
	    "got \"%s\", want it to start \"%s\"", buf, want);
	snprintf(want, sizeof(want), " 0x%x 0x%x 0x", F_SETOWN,
	    (unsigned int)getpid());
	ck_assert_msg(strstr(buf, want) != NULL, "got \"%s\", no \"%s\"",
	    buf, want);
	ck_assert_msg(strstr(buf, " outside its rules\n") != NULL, "got %s",
	    buf);
#else
	snprintf(want, sizeof(want),
	    "sandbox: syscall %d denied: arguments outside its rules\n",
	    (int)SYS_fcntl);
	ck_assert_str_eq(buf, want);
#endif
}
END_TEST
#endif /* SANDBOX_DEBUG */
#endif /* !SANDBOX_DISABLED */

/* errors: refused arguments confine nothing */

static int
self_nnp(void)
{
	char buf[8192], *p;

	read_proc(getpid(), "status", buf, sizeof(buf));
	ck_assert_ptr_nonnull(p = strstr(buf, "\nNoNewPrivs:\t"));
	return p[strlen("\nNoNewPrivs:\t")] - '0';
}

START_TEST(test_bad_args)
{
	struct sb_status st;
	int nnp;

	nnp = self_nnp();
	memset(&st, 0xff, sizeof(st));
	ck_assert_int_eq(sandbox_apply((enum sb_profile)0, WORKER_NFDS, &st),
	    -BNC_ERR_INTERNAL);
	ck_assert_int_eq(st.seccomp, SB_STATE_OFF);
	ck_assert_int_eq(sandbox_apply(SB_PROFILE_WORKER, -1, &st),
	    -BNC_ERR_INTERNAL);
	ck_assert_int_eq(st.seccomp, SB_STATE_OFF);
	ck_assert_int_eq(st.nnp, 0);
	/* still unconfined: /proc opens, no_new_privs unchanged */
	ck_assert_int_eq(self_nnp(), nnp);
}
END_TEST

/*
 * carrier: SB_PROFILE_CARRIER, the bouncer-carrier-* sandbox.  A carrier
 * speaks HTTP and TLS through libcurl on a TCP socket the monitor
 * connected and passed to it: it must create no socket, connect nowhere
 * (the connect() libcurl 7.88 calls on that socket is answered in the
 * process, never by the kernel), open no file, start nothing.
 */

#define CARRIER_NFDS (BNC_CHILD_FD + 1) /* fds 0..3 */

/* Calls no carrier makes: none may have a row that lets it through. */
static const char *const carrier_never[] = {
	"execve", "execveat", "fork", "vfork", "clone", "clone3", "socket",
	"socketpair", "connect", "bind", "listen", "accept", "accept4", "open",
	"openat", "creat", "openat2", "stat", "lstat", "statx",
	"newfstatat", "ptrace", "kill", "tkill", "mount", "umount2",
	"unshare", "setns", "prctl", "setrlimit", "prlimit64", "pipe",
	"pipe2", "dup", "dup2", "dup3", "memfd_create", "mprotect",
	"pkey_mprotect", "seccomp", "bpf", "io_uring_setup", "userfaultfd",
	"process_vm_writev", "chdir", "unlink", "unlinkat", "rename",
	"renameat2", "link", "symlink", "chmod", "chown", "truncate",
	"ftruncate", "setuid", "setgid", "keyctl", "add_key",
	"perf_event_open", "personality", "rt_sigqueueinfo",
	"pidfd_open", "pidfd_send_signal", "setsockopt", "ioctl", "mlock",
	"munlock", "sendmmsg", "recvmmsg", "shutdown", "sysinfo",
	"epoll_create1",
};

START_TEST(test_carrier_rules)
{
	const struct sb_rule *rules;
	size_t i, j, n;
	char *name;
	int nr;

	ck_assert_ptr_nonnull(rules = sandbox_rules(SB_PROFILE_CARRIER, &n));
	ck_assert_uint_gt(n, 0);
	for (i = 0; i < n; i++) {
		name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE,
		    rules[i].nr);
		ck_assert_msg(name != NULL, "row %zu: syscall %d unknown", i,
		    rules[i].nr);
		ck_assert_msg(rules[i].why != NULL && rules[i].why[0] != '\0',
		    "row %zu (%s) has no why", i, name);
		free(name);
	}
	ck_assert_int_eq(sandbox_rules_check(rules, n), 0);
	for (i = 0; i < sizeof(carrier_never) / sizeof(carrier_never[0]);
	    i++) {
		if ((nr = seccomp_syscall_resolve_name(carrier_never[i])) < 0)
			continue;
		for (j = 0; j < n; j++)
			ck_assert_msg(rules[j].nr != nr,
			    "%s is in the carrier table (row %zu)",
			    carrier_never[i], j);
	}
}
END_TEST

/* Each call a carrier makes with arguments is allowed only in its own
 * forms. */
START_TEST(test_carrier_rules_args)
{
	static const char *const filtered[] = {
		"sendto", "recvfrom", "getsockopt", "futex", "fcntl", "mmap",
		"mremap", "madvise", "clock_gettime", "tgkill",
	};
	const struct sb_rule *rules, *r;
	const struct sb_arg *a;
	size_t i, j, n, seen;
	int nr;

	ck_assert_ptr_nonnull(rules = sandbox_rules(SB_PROFILE_CARRIER, &n));
	for (j = 0; j < n; j++)
		ck_assert_msg(rules[j].action == SB_ALLOW,
		    "row %zu: a soft refusal in the carrier table", j);
	for (i = 0; i < sizeof(filtered) / sizeof(filtered[0]); i++) {
		nr = seccomp_syscall_resolve_name(filtered[i]);
		for (j = 0, seen = 0; j < n; j++) {
			if (rules[j].nr != nr)
				continue;
			seen++;
			ck_assert_msg(rules[j].args[0].cmp != SB_CMP_NONE,
			    "%s (row %zu) allowed with any arguments",
			    filtered[i], j);
		}
		ck_assert_msg(seen > 0, "%s is not in the table", filtered[i]);
	}
	for (j = 0; j < n; j++) {
		r = &rules[j];
		if (r->nr == SCMP_SYS(sendto) || r->nr == SCMP_SYS(recvfrom)) {
			a = row_arg(r, SB_CMP_EQ, 4);
			ck_assert_msg(a != NULL && a->val == 0,
			    "row %zu: an address allowed", j);
		}
		if (r->nr == SCMP_SYS(getsockopt)) {
			ck_assert_msg((a = row_arg(r, SB_CMP_EQ, 1)) != NULL &&
				a->val == SOL_SOCKET &&
				(a = row_arg(r, SB_CMP_EQ, 2)) != NULL &&
				a->val == SO_ERROR,
			    "row %zu: getsockopt beyond SO_ERROR", j);
		}
		if (r->nr == SCMP_SYS(futex))
			ck_assert_msg((a = row_arg(r, SB_CMP_EQ, 1)) != NULL &&
				a->val == (FUTEX_WAKE | FUTEX_PRIVATE_FLAG),
			    "row %zu: futex beyond FUTEX_WAKE_PRIVATE", j);
		if (r->nr == SCMP_SYS(mmap) && r->action == SB_ALLOW) {
			a = row_arg(r, SB_CMP_MASKED_EQ, 2);
			ck_assert_msg(a != NULL && (a->mask & PROT_EXEC) &&
				!(a->val & PROT_EXEC),
			    "row %zu: mmap may be executable", j);
			a = row_arg(r, SB_CMP_MASKED_EQ, 3);
			ck_assert_msg(a != NULL &&
				(a->mask & a->val & MAP_ANONYMOUS) &&
				(a->mask & MAP_FIXED) && !(a->val & MAP_FIXED),
			    "row %zu: mmap of a file, or MAP_FIXED", j);
		}
		if (r->nr == SCMP_SYS(tgkill))
			ck_assert_msg(row_arg(r, SB_CMP_OWN_PID, 0) != NULL,
			    "row %zu: tgkill not to its own pid", j);
	}
}
END_TEST

#ifndef SANDBOX_DISABLED
static void
probe_carrier_status(struct probe_res *res)
{
	probe_enter(res, CARRIER_NFDS);
}

START_TEST(test_carrier_proc_status)
{
	struct probe_res res;

	probe_profile = SB_PROFILE_CARRIER;
	run_probe(probe_carrier_status, inspect_proc_status, &res);
	ck_assert_int_eq(res.st.seccomp, WANT_SECCOMP);
	ck_assert_int_eq(res.st.nnp, 1);
}
END_TEST

/* A connected TCP pair for the kill cases, made before the sandbox. */
static int carrier_tcp[2] = { -1, -1 };

/* A connected loopback TCP pair, made before the sandbox. */
static int
tcp_pair(int sv[2])
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	int l;

	if ((l = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(l, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(l, 1) == -1 ||
	    getsockname(l, (struct sockaddr *)&sin, &sl) == -1 ||
	    (sv[0] = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    connect(sv[0], (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    (sv[1] = accept(l, NULL, NULL)) == -1)
		return -1;
	close(l);
	return 0;
}

/*
 * What a carrier does under its filter: takes a call's socket from a
 * frame, makes it non-blocking, learns its addresses, is told by
 * SO_ERROR that it is fine, sends and receives on it, closes it; and
 * OpenSSL's and malloc's own calls.
 */
static void
probe_carrier_io(struct probe_res *res)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct sockaddr_in sin;
	struct cmsghdr *cmsg;
	struct msghdr mh;
	struct iovec iov;
	struct pollfd pfd;
	struct timespec ts;
	socklen_t sl;
	char buf[64], *big;
	unsigned char rnd[32];
	int tcp[2] = { -1, -1 }, sv[2], fd = -1, err, nfds, fl;

	PROBE(res, tcp_pair(tcp) == 0);
	PROBE(res, socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
	if (res->line != 0)
		return;
	/* the call's socket in a frame; the test keeps no copy of it */
	memset(&mh, 0, sizeof(mh));
	memset(&cm, 0, sizeof(cm));
	iov.iov_base = buf;
	iov.iov_len = 1;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	cmsg = CMSG_FIRSTHDR(&mh);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &tcp[0], sizeof(int));
	PROBE(res, sendmsg(sv[1], &mh, 0) == 1);
	PROBE(res, close(tcp[0]) == 0);
	/* room for one more fd, as the carrier leaves */
	nfds = lowest_free_fd() + 1;
	if (res->line != 0 || !probe_enter(res, nfds))
		return;
	memset(&cm, 0, sizeof(cm));
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	mh.msg_flags = 0;
	PROBE(res, recvmsg(sv[0], &mh, MSG_CMSG_CLOEXEC) == 1);
	PROBE(res, (mh.msg_flags & MSG_CTRUNC) == 0);
	if (res->line != 0)
		return;
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(int));
	PROBE(res, (fl = fcntl(fd, F_GETFL)) != -1);
	PROBE(res, fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0);
	sl = sizeof(sin);
	PROBE(res, getsockname(fd, (struct sockaddr *)&sin, &sl) == 0);
	sl = sizeof(sin);
	PROBE(res, getpeername(fd, (struct sockaddr *)&sin, &sl) == 0);
	sl = sizeof(err);
	PROBE(res, getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) == 0 &&
	    err == 0);
	pfd.fd = fd;
	pfd.events = POLLOUT;
	PROBE(res, poll(&pfd, 1, 1000) == 1);
	PROBE(res, send(fd, "GET / HTTP/1.1\r\n", 16, MSG_NOSIGNAL) == 16);
	PROBE(res, recv(tcp[1], buf, sizeof(buf), 0) == 16);
	PROBE(res, send(tcp[1], "HTTP/1.1 200 OK\r\n", 17, 0) == 17);
	pfd.events = POLLIN;
	PROBE(res, ppoll(&pfd, 1, NULL, NULL) == 1);
	PROBE(res, recv(fd, buf, sizeof(buf), 0) == 17);
	PROBE(res, close(fd) == 0);
	/* OpenSSL: randomness, pthread_once's wake-up; malloc; clocks */
	PROBE(res, getrandom(rnd, sizeof(rnd), 0) == sizeof(rnd));
	PROBE(res, syscall(SYS_futex, &fl, FUTEX_WAKE_PRIVATE, 1, NULL, NULL,
	    0) == 0);
	PROBE(res, (big = malloc(BIG_ALLOC)) != NULL);
	if (big != NULL)
		memset(big, 1, BIG_ALLOC);
	free(big);
	PROBE(res, syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts) == 0);
	PROBE(res, syscall(SYS_gettimeofday, buf, NULL) == 0);
}

START_TEST(test_carrier_io)
{
	probe_profile = SB_PROFILE_CARRIER;
	run_probe(probe_carrier_io, NULL, NULL);
}
END_TEST

/* connect() on a connected TCP socket held, as libcurl 7.88 makes it */
static void
kc_connect(void)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);

	memset(&sin, 0, sizeof(sin));
	if (carrier_tcp[0] != -1)
		getpeername(carrier_tcp[0], (struct sockaddr *)&sin, &sl);
	connect(carrier_tcp[0], (struct sockaddr *)&sin, sizeof(sin));
}

static void
kc_openat(void)
{
	openat(AT_FDCWD, "/etc/ssl/certs/ca-certificates.crt", O_RDONLY);
}

static void
kc_newfstatat(void)
{
	struct stat sb;

	fstatat(AT_FDCWD, "/etc/passwd", &sb, 0);
}

static void
kc_setsockopt(void)
{
	int one = 1;

	setsockopt(0, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void
kc_getsockopt(void)
{
	int v;
	socklen_t sl = sizeof(v);

	getsockopt(0, SOL_SOCKET, SO_TYPE, &v, &sl);
}

static void
kc_sendto_addr(void)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(53);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sendto(0, "x", 1, 0, (struct sockaddr *)&sin, sizeof(sin));
}

static void
kc_recvfrom_addr(void)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	char c;

	recvfrom(0, &c, 1, MSG_DONTWAIT, (struct sockaddr *)&sin, &sl);
}

static void
kc_futex_wait(void)
{
	int word = 1;

	syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

static void
kc_mprotect_rw(void)
{
	static char page[2 * PAGE];
	uintptr_t a = ((uintptr_t)page + PAGE - 1) & ~(uintptr_t)(PAGE - 1);

	mprotect((void *)a, PAGE, PROT_READ | PROT_WRITE);
}

static void
kc_ioctl(void)
{
	int n;

	ioctl(0, FIONREAD, &n);
}

static void
kc_sysinfo(void)
{
	char si[256];

	syscall(SYS_sysinfo, si);
}

static void
kc_fcntl_dupfd(void)
{
	fcntl(0, F_DUPFD, 0);
}

static const struct kill_case carrier_kill_cases[] = {
	{ "socket", k_socket }, { "socketpair", k_socketpair },
	{ "connect", k_connect }, { "connect to a socket held", kc_connect },
	{ "bind", k_bind }, { "listen", k_listen }, { "accept", k_accept },
	{ "open", k_open }, { "openat", kc_openat }, { "openat2", k_openat2 },
	{ "creat", k_creat }, { "stat", k_stat },
	{ "newfstatat", kc_newfstatat }, { "execve", k_execve },
	{ "execveat", k_execveat }, { "fork", k_fork }, { "clone", k_clone },
	{ "clone3", k_clone3 }, { "ptrace", k_ptrace }, { "kill", k_kill },
	{ "prctl", k_prctl }, { "setrlimit", k_setrlimit },
	{ "pipe", k_pipe }, { "dup", k_dup }, { "memfd_create", k_memfd },
	{ "mprotect PROT_EXEC", k_mprotect },
	{ "mprotect PROT_WRITE", kc_mprotect_rw },
	{ "setsockopt", kc_setsockopt },
	{ "getsockopt SO_TYPE", kc_getsockopt },
	{ "sendto an address", kc_sendto_addr },
	{ "recvfrom an address", kc_recvfrom_addr },
	{ "futex FUTEX_WAIT", kc_futex_wait }, { "ioctl", kc_ioctl },
	{ "sysinfo", kc_sysinfo }, { "fcntl F_DUPFD", kc_fcntl_dupfd },
	{ "seccomp", k_seccomp }, { "io_uring_setup", k_io_uring },
	{ "pidfd_send_signal", k_pidfd_signal },
#if defined(__x86_64__)
	{ "x32", k_x32 },
#endif
};
#define NCKILL \
	((int)(sizeof(carrier_kill_cases) / sizeof(carrier_kill_cases[0])))

/*
 * Case _i / NABIS under Landlock ABI test_abis[_i % NABIS]: the filter
 * alone kills, whatever Landlock the kernel has.
 */
START_TEST(test_carrier_kill)
{
	struct sb_status st;

	kill_target = getppid();
	if (tcp_pair(carrier_tcp) != 0)
		_exit(SURVIVED + 2);
	sandbox_test_landlock_cap(test_abis[_i % NABIS]);
	if (sandbox_apply(SB_PROFILE_CARRIER, lowest_free_fd(), &st) != 0)
		_exit(SURVIVED + 1);
	carrier_kill_cases[_i / NABIS].fn();
	_exit(SURVIVED);
}
END_TEST
#endif /* !SANDBOX_DISABLED */

static Suite *
sandbox_suite(void)
{
	Suite *s;
	TCase *tc;

	s = suite_create("sandbox");

	tc = tcase_create("core");
	tcase_add_test(tc, test_rules_why);
	tcase_add_test(tc, test_rules_unique);
	tcase_add_test(tc, test_rules_args);
	tcase_add_test(tc, test_rules_args_max);
	tcase_add_test(tc, test_rules_never);
	tcase_add_test(tc, test_rules_soft);
	tcase_add_test(tc, test_rules_unknown_profile);
	tcase_add_test(tc, test_status);
	tcase_add_test(tc, test_pipe_io);
	tcase_add_test(tc, test_seqpacket);
	tcase_add_test(tc, test_memory);
	tcase_add_test(tc, test_clock);
	tcase_add_test(tc, test_event_loop);
	tcase_add_test(tc, test_stdio);
	tcase_add_test_raise_signal(tc, test_abort, SIGABRT);
	tcase_add_exit_test(tc, test_exit, 0);
#ifndef SANDBOX_DISABLED
	tcase_add_test(tc, test_proc_status);
#endif
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
#ifndef SANDBOX_DISABLED
	tcase_add_test(tc, test_rlimits);
	tcase_add_test(tc, test_fsize);
	tcase_add_test(tc, test_fsize_stdout_file);
	tcase_add_test(tc, test_nofile);
#endif
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_bad_args);
	tcase_add_loop_test(tc, test_rules_refused, 0, NBAD);
#ifndef SANDBOX_DISABLED
	tcase_add_loop_test_raise_signal(tc, test_kill, SIGSYS, 0,
	    kill_count());
	tcase_add_test(tc, test_soft_deny);
	tcase_add_loop_test_raise_signal(tc, test_args_kill, SIGSYS, 0,
	    NARG * NABIS);
	tcase_add_loop_test(tc, test_args_allowed, 0, NABIS);
#if defined(__x86_64__)
	tcase_add_test_raise_signal(tc, test_read_implies_exec, SIGSEGV);
#endif
#ifdef SANDBOX_DEBUG
	tcase_add_test(tc, test_debug_report);
#endif
#endif
	suite_add_tcase(s, tc);

	tc = tcase_create("carrier");
	tcase_add_test(tc, test_carrier_rules);
	tcase_add_test(tc, test_carrier_rules_args);
#ifndef SANDBOX_DISABLED
	tcase_add_test(tc, test_carrier_proc_status);
	tcase_add_test(tc, test_carrier_io);
	tcase_add_loop_test_raise_signal(tc, test_carrier_kill, SIGSYS, 0,
	    NCKILL * NABIS);
#endif
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	SRunner *sr;
	int nfailed;

#ifdef SANDBOX_DISABLED
	fprintf(stderr,
	    "check_sandbox: --disable-sandbox build: the kill, "
	    "limit and denial tests are skipped\n");
#endif
	sr = srunner_create(sandbox_suite());
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
