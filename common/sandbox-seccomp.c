/*
 * sandbox-seccomp.c - the system call allowlists of the sandboxed
 * children, and the libseccomp loader (DESIGN 2, STYLE "Sandbox tables").
 *
 * A profile is a table: one row per system call, each with the reason it
 * is there.  Anything not in the table kills the process (with
 * --enable-sandbox-debug: traps, reports the number on fd 2, and still
 * dies by SIGSYS).  A row may soft-deny (fail with an errno) a call that
 * libc makes on its own and copes with.  This file must never grant a
 * call that creates an fd, a process, a socket or a mapping of a file,
 * and never a row without a `why`.
 *
 * Architectures: seccomp_init() puts only the native architecture in the
 * filter.  The generated BPF first compares seccomp_data.arch with it and
 * sends every other architecture (i386 through int 0x80 on x86_64) to the
 * "bad arch" action; on x86_64 it also sends any number with the x32 bit
 * (0x40000000) there.  libseccomp's default bad-arch action is
 * SCMP_ACT_KILL, which is KILL_THREAD, so we set it to our default
 * action explicitly: a foreign-arch call kills the whole process, as any
 * other call outside the table does.  regress/sandbox tests both.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <seccomp.h>

#include "err.h"
#include "log.h"
#include "sandbox.h"

/*
 * bouncer-worker, both sides: a single-threaded libevent (epoll) loop
 * that reads fd 0, writes fd 1 and fd 2, and exchanges SEQPACKET frames
 * with the monitor on fd 3.  Everything it needs was opened before the
 * filter; it can create no fd, process or socket afterwards.
 */
static const struct sb_rule worker_rules[] = {
	/* I/O on the fds the worker holds */
	{ SCMP_SYS(read), SB_ALLOW, 0,
	    "fd 0 (client stdin or upstream stdout), libevent signal pipe" },
	{ SCMP_SYS(write), SB_ALLOW, 0,
	    "fd 1 (client stdout), fd 2, libevent signal pipe" },
	{ SCMP_SYS(readv), SB_ALLOW, 0, "libevent evbuffer reads" },
	{ SCMP_SYS(writev), SB_ALLOW, 0,
	    "libevent evbuffer writes; libc's fatal messages" },
	{ SCMP_SYS(recvmsg), SB_ALLOW, 0, "frames from the monitor on fd 3" },
	{ SCMP_SYS(sendmsg), SB_ALLOW, 0, "frames to the monitor on fd 3" },
	{ SCMP_SYS(fcntl), SB_ALLOW, 0, "O_NONBLOCK on fds 0, 1 and 3" },
	{ SCMP_SYS(fstat), SB_ALLOW, 0,
	    "fstat(fd) where libc does not route it through newfstatat; "
	    "takes no path" },
	{ SCMP_SYS(close), SB_ALLOW, 0, "dropping fds; libevent teardown" },

	/* event loop */
	{ SCMP_SYS(epoll_wait), SB_ALLOW, 0,
	    "libevent's epoll backend (the epoll fd predates the filter)" },
	{ SCMP_SYS(epoll_pwait), SB_ALLOW, 0,
	    "libevent's epoll backend where libc maps epoll_wait to it" },
	{ SCMP_SYS(epoll_ctl), SB_ALLOW, 0,
	    "adding and removing events on held fds" },
	{ SCMP_SYS(poll), SB_ALLOW, 0,
	    "waiting for POLLOUT on fd 3 when a send would block" },
	{ SCMP_SYS(ppoll), SB_ALLOW, 0, "poll() where libc maps it to ppoll" },

	/* memory */
	{ SCMP_SYS(brk), SB_ALLOW, 0, "malloc's main arena" },
	{ SCMP_SYS(mmap), SB_ALLOW, 0,
	    "malloc of large blocks (anonymous; no fd can be opened)" },
	{ SCMP_SYS(munmap), SB_ALLOW, 0, "free of large blocks" },
	{ SCMP_SYS(mremap), SB_ALLOW, 0, "realloc of large blocks" },
	{ SCMP_SYS(madvise), SB_ALLOW, 0, "malloc returning freed pages" },

	/* time and small facts */
	{ SCMP_SYS(clock_gettime), SB_ALLOW, 0,
	    "libevent timeouts, log time stamps (vDSO fallback)" },
	{ SCMP_SYS(gettimeofday), SB_ALLOW, 0,
	    "libevent's wall clock (vDSO fallback)" },
	{ SCMP_SYS(getrandom), SB_ALLOW, 0,
	    "malloc's tcache key on first use, libc arc4random" },
	{ SCMP_SYS(sysinfo), SB_ALLOW, 0,
	    "libc qsort() sizes its buffer from _SC_PHYS_PAGES" },

	/* signals */
	{ SCMP_SYS(rt_sigreturn), SB_ALLOW, 0,
	    "return from libevent's signal handler" },
	{ SCMP_SYS(rt_sigprocmask), SB_ALLOW, 0,
	    "libc blocks signals in abort() and around handlers" },
	{ SCMP_SYS(rt_sigaction), SB_ALLOW, 0,
	    "libevent restores handlers on evsignal_del; abort() resets "
	    "SIGABRT" },
	{ SCMP_SYS(restart_syscall), SB_ALLOW, 0,
	    "the kernel restarting a poll() interrupted by a signal" },

	/* process */
	{ SCMP_SYS(getpid), SB_ALLOW, 0,
	    "abort() and raise() name this process" },
	{ SCMP_SYS(gettid), SB_ALLOW, 0,
	    "abort() and raise() name this thread" },
	{ SCMP_SYS(tgkill), SB_ALLOW, 0,
	    "abort() raises SIGABRT on itself, so a failed assertion is "
	    "reported as one; Landlock ABI >= 6 scopes signals to this "
	    "process" },
	{ SCMP_SYS(exit), SB_ALLOW, 0, "thread exit" },
	{ SCMP_SYS(exit_group), SB_ALLOW, 0, "process exit" },

	/* libc probes that must fail politely */
	{ SCMP_SYS(openat), SB_ERRNO, EACCES,
	    "locale and timezone probes (Landlock denies them too)" },
	{ SCMP_SYS(newfstatat), SB_ERRNO, EACCES,
	    "stdio's fstat(fd) goes through newfstatat, which also takes a "
	    "path Landlock cannot hide; stdio falls back to BUFSIZ" },
	{ SCMP_SYS(ioctl), SB_ERRNO, ENOTTY,
	    "isatty() in stdio, FIONREAD in libevent evbuffer_read" },
};

static const struct sb_profile_tab {
	enum sb_profile profile;
	const struct sb_rule *rules;
	size_t nrules;
} profiles[] = {
	{ SB_PROFILE_WORKER, worker_rules,
	    sizeof(worker_rules) / sizeof(worker_rules[0]) },
};

#ifdef SANDBOX_DEBUG
#define SB_DEFAULT_ACTION SCMP_ACT_TRAP
#else
#define SB_DEFAULT_ACTION SCMP_ACT_KILL_PROCESS
#endif

/* Shared with sandbox.c only; keep in step with the prototype there. */
int sandbox_seccomp_load(enum sb_profile);

const struct sb_rule *
sandbox_rules(enum sb_profile profile, size_t *np)
{
	size_t i;

	for (i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		if (profiles[i].profile == profile) {
			if (np != NULL)
				*np = profiles[i].nrules;
			return profiles[i].rules;
		}
	}
	if (np != NULL)
		*np = 0;
	return NULL;
}

#ifdef SANDBOX_DEBUG
/* Harmless calls, one of which the profile refuses: see sb_sigsys(). */
static const int retrap_candidates[] = {
	SCMP_SYS(getppid),
	SCMP_SYS(getpgrp),
	SCMP_SYS(getsid),
	SCMP_SYS(getuid),
	SCMP_SYS(getgid),
};
static volatile sig_atomic_t retrap_nr = -1;

/*
 * SIGSYS handler of the debug build: says which call was refused, using
 * write(2) only, then dies by SIGSYS as the enforcing build would.
 */
static void
sb_sigsys(int sig, siginfo_t *info, void *uctx)
{
	static const char pre[] = "sandbox: syscall ";
	static const char post[] = " denied\n";
	char msg[sizeof(pre) + 12 + sizeof(post)], digits[12];
	size_t len = 0, n = 0;
	unsigned int nr;

	(void)sig;
	(void)uctx;
	nr = (unsigned int)info->si_syscall;
	do {
		digits[n++] = (char)('0' + nr % 10);
		nr /= 10;
	} while (nr != 0 && n < sizeof(digits));
	memcpy(msg, pre, sizeof(pre) - 1);
	len = sizeof(pre) - 1;
	while (n > 0)
		msg[len++] = digits[--n];
	memcpy(msg + len, post, sizeof(post) - 1);
	len += sizeof(post) - 1;
	(void)write(STDERR_FILENO, msg, len);

	/*
	 * Trap again: SIGSYS is blocked in here, so the kernel resets it to
	 * its default action and the process dies of it.
	 */
	if (retrap_nr >= 0)
		syscall(retrap_nr);
	_exit(128 + SIGSYS);
}

static int
sb_trap_install(const struct sb_rule *rules, size_t n)
{
	struct sigaction sa;
	size_t i, j;

	for (i = 0; retrap_nr < 0 &&
	     i < sizeof(retrap_candidates) / sizeof(retrap_candidates[0]);
	     i++) {
		for (j = 0; j < n; j++)
			if (rules[j].nr == retrap_candidates[i])
				break;
		if (j == n && retrap_candidates[i] >= 0)
			retrap_nr = retrap_candidates[i];
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sb_sigsys;
	sa.sa_flags = SA_SIGINFO;
	/*
	 * RLIMIT_FSIZE is 0: if fd 2 is a regular file the report fails
	 * with EFBIG; SIGXFSZ must not kill us before SIGSYS does.
	 */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGXFSZ);
	if (sigaction(SIGSYS, &sa, NULL) == -1) {
		error_f("sigaction(SIGSYS): %s", strerror(errno));
		return -BNC_ERR_SYS;
	}
	return 0;
}
#endif /* SANDBOX_DEBUG */

/*
 * Loads the profile's filter.  Its default action kills the process (or
 * traps, in the debug build).  Returns 0 or -BNC_ERR_*.
 */
int
sandbox_seccomp_load(enum sb_profile profile)
{
	scmp_filter_ctx ctx = NULL;
	const struct sb_rule *rules;
	size_t i, n;
	uint32_t act;
	int r = -BNC_ERR_INTERNAL, rc;

	if ((rules = sandbox_rules(profile, &n)) == NULL) {
		error_f("no rule table for profile %d", (int)profile);
		goto out;
	}
#ifdef SANDBOX_DEBUG
	if ((r = sb_trap_install(rules, n)) != 0)
		goto out;
	r = -BNC_ERR_INTERNAL;
#endif
	if ((ctx = seccomp_init(SB_DEFAULT_ACTION)) == NULL) {
		error_f("seccomp_init failed");
		goto out;
	}
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
		 SB_DEFAULT_ACTION)) != 0) {
		error_f("seccomp_attr_set(ACT_BADARCH): %s", strerror(-rc));
		goto out;
	}
	/* A binary tree instead of a linear scan; only a speed-up. */
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2)) != 0)
		debug_f("seccomp_attr_set(CTL_OPTIMIZE): %s", strerror(-rc));

	for (i = 0; i < n; i++) {
		if (rules[i].why == NULL || *rules[i].why == '\0') {
			error_f("rule %zu (syscall %d) has no why", i,
			    rules[i].nr);
			goto out;
		}
		switch (rules[i].action) {
		case SB_ALLOW:
			act = SCMP_ACT_ALLOW;
			break;
		case SB_ERRNO:
			act = SCMP_ACT_ERRNO((uint32_t)rules[i].err);
			break;
		default:
			error_f("rule %zu (syscall %d): bad action %d", i,
			    rules[i].nr, (int)rules[i].action);
			goto out;
		}
		if ((rc = seccomp_rule_add(ctx, act, rules[i].nr, 0)) != 0) {
			error_f("seccomp_rule_add(syscall %d): %s", rules[i].nr,
			    strerror(-rc));
			goto out;
		}
	}
	if ((rc = seccomp_load(ctx)) != 0) {
		error_f("seccomp_load: %s", strerror(-rc));
		r = -BNC_ERR_SYS;
		goto out;
	}
	r = 0;
out:
	if (ctx != NULL)
		seccomp_release(ctx);
	return r;
}
