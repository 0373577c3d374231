/*
 * sandbox-seccomp.c - the system call allowlists of the sandboxed
 * children, and the libseccomp loader (DESIGN 2, STYLE "Sandbox tables").
 *
 * A profile is a table: one row per system call, or per allowed form of
 * it, each with the reason it is there.  A row may compare the call's
 * arguments (sandbox.h: SB_IF, in the manner of OpenSSH's
 * SC_ALLOW_ARG_MASK); the loader fills in what is known only at run time
 * (the process's own pid) and refuses a row it cannot put in the filter
 * exactly, as it refuses a row without a `why`.  Anything no row matches
 * kills the process (with --enable-sandbox-debug: traps, reports the
 * number, and the arguments of a call refused for them, on fd 2, and
 * still dies by SIGSYS).  A row may soft-deny (fail with an errno) a call
 * that libc makes on its own and copes with.  This file must never grant
 * a call that creates an fd, a process, a socket, a mapping of a file or
 * executable memory, and never a row without a `why`.
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

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/ucontext.h>

#include <linux/futex.h>

#include <errno.h>
#include <fcntl.h>
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
 * The fixed clocks, CLOCK_REALTIME (0) to CLOCK_TAI (11), fit in these
 * bits; an id with any other bit set is negative: a CPU clock made from
 * a pid, or a clock made from an fd.
 */
#define SB_CLOCKS_FIXED 0xf

/*
 * bouncer-worker, both sides: a single-threaded libevent (epoll) loop
 * that reads fd 0, writes fd 2, and exchanges SEQPACKET frames with the
 * monitor on fd 3.  Its fd 1 is /dev/null: the monitor writes the
 * client's stdout itself.  Everything it needs was opened before the
 * filter; it can create no fd, process or socket afterwards.
 *
 * A call whose arguments could reach past the worker (a signal, an fd's
 * owner, executable memory, a terminal, another process's clock) is
 * allowed only in the forms the worker makes; every other form meets the
 * default action, as an attacker alone makes it.  Landlock does not
 * replace these checks: ABI 6 scopes signals, but a kernel may be older,
 * and no ABI covers the others.
 */
static const struct sb_rule worker_rules[] = {
	/* I/O on the fds the worker holds */
	{ SCMP_SYS(read), SB_ANY, SB_ALLOW, 0,
	    "fd 0 (client stdin or upstream stdout), libevent signal pipe" },
	{ SCMP_SYS(write), SB_ANY, SB_ALLOW, 0,
	    "fd 2, libevent signal pipe" },
	{ SCMP_SYS(readv), SB_ANY, SB_ALLOW, 0, "libevent evbuffer reads" },
	{ SCMP_SYS(writev), SB_ANY, SB_ALLOW, 0,
	    "libevent evbuffer writes; libc's fatal messages" },
	{ SCMP_SYS(recvmsg), SB_ANY, SB_ALLOW, 0,
	    "frames from the monitor on fd 3" },
	{ SCMP_SYS(sendmsg), SB_ANY, SB_ALLOW, 0,
	    "frames to the monitor on fd 3" },
	{ SCMP_SYS(fstat), SB_ANY, SB_ALLOW, 0,
	    "fstat(fd) where libc does not route it through newfstatat; "
	    "takes no path" },
	{ SCMP_SYS(close), SB_ANY, SB_ALLOW, 0,
	    "dropping fds; libevent teardown" },

	/*
	 * fcntl: the O_NONBLOCK pair of set_nonblock() and libevent only.
	 * F_SETOWN, F_SETOWN_EX and F_SETSIG would aim SIGIO at another
	 * process, F_DUPFD makes an fd, F_SETLEASE, F_NOTIFY, F_SETPIPE_SZ
	 * and the locks act on objects the worker does not manage.
	 */
	{ SCMP_SYS(fcntl), SB_IF(SB_EQ(1, F_GETFL)), SB_ALLOW, 0,
	    "reading the O_NONBLOCK flag of fds 0 and 3" },
	{ SCMP_SYS(fcntl), SB_IF(SB_EQ(1, F_SETFL), SB_CLEAR(2, O_ASYNC)),
	    SB_ALLOW, 0,
	    "setting O_NONBLOCK on fds 0 and 3; never O_ASYNC, which "
	    "sends SIGIO to an fd's owner" },

	/* event loop */
	{ SCMP_SYS(epoll_wait), SB_ANY, SB_ALLOW, 0,
	    "libevent's epoll backend (the epoll fd predates the filter)" },
	{ SCMP_SYS(epoll_pwait), SB_ANY, SB_ALLOW, 0,
	    "libevent's epoll backend where libc maps epoll_wait to it" },
	{ SCMP_SYS(epoll_ctl), SB_ANY, SB_ALLOW, 0,
	    "adding and removing events on held fds" },
	{ SCMP_SYS(poll), SB_ANY, SB_ALLOW, 0,
	    "waiting for POLLOUT on fd 3 when a send would block" },
	{ SCMP_SYS(ppoll), SB_ANY, SB_ALLOW, 0,
	    "poll() where libc maps it to ppoll" },

	/*
	 * memory: fresh anonymous memory, never executable (no mprotect,
	 * pkey_mprotect or PROT_EXEC), never placed over a mapping that
	 * exists (no MAP_FIXED, MREMAP_FIXED), never a file's.
	 */
	{ SCMP_SYS(brk), SB_ANY, SB_ALLOW, 0, "malloc's main arena" },
	{ SCMP_SYS(mmap),
	    SB_IF(SB_CLEAR(2, PROT_EXEC),
		SB_MASK(3, MAP_ANONYMOUS | MAP_FIXED, MAP_ANONYMOUS)),
	    SB_ALLOW, 0,
	    "malloc of large blocks: anonymous, not executable, at an "
	    "address of the kernel's choice" },
	{ SCMP_SYS(munmap), SB_ANY, SB_ALLOW, 0, "free of large blocks" },
	{ SCMP_SYS(mremap), SB_IF(SB_ONLY(3, MREMAP_MAYMOVE)), SB_ALLOW, 0,
	    "realloc of large blocks; not MREMAP_FIXED or MREMAP_DONTUNMAP, "
	    "which place or copy a mapping where the caller says" },
	{ SCMP_SYS(madvise), SB_IF(SB_EQ(2, MADV_DONTNEED)), SB_ALLOW, 0,
	    "malloc returning freed pages; no other advice (KSM merging, "
	    "fork or dump flags) is needed" },

	/* time and small facts */
	{ SCMP_SYS(clock_gettime), SB_IF(SB_ONLY(0, SB_CLOCKS_FIXED)),
	    SB_ALLOW, 0,
	    "libevent timeouts, log time stamps (vDSO fallback); not "
	    "another process's CPU clock" },
	{ SCMP_SYS(gettimeofday), SB_ANY, SB_ALLOW, 0,
	    "libevent's wall clock (vDSO fallback)" },
	{ SCMP_SYS(getrandom), SB_ANY, SB_ALLOW, 0,
	    "malloc's tcache key on first use, libc arc4random" },
	{ SCMP_SYS(sysinfo), SB_ANY, SB_ALLOW, 0,
	    "libc qsort() sizes its buffer from _SC_PHYS_PAGES" },

	/* signals */
	{ SCMP_SYS(rt_sigreturn), SB_ANY, SB_ALLOW, 0,
	    "return from libevent's signal handler" },
	{ SCMP_SYS(rt_sigprocmask), SB_ANY, SB_ALLOW, 0,
	    "libc blocks signals in abort() and around handlers" },
	{ SCMP_SYS(rt_sigaction), SB_ANY, SB_ALLOW, 0,
	    "libevent restores handlers on evsignal_del; abort() resets "
	    "SIGABRT" },
	{ SCMP_SYS(restart_syscall), SB_ANY, SB_ALLOW, 0,
	    "the kernel restarting a poll() interrupted by a signal" },

	/* process */
	{ SCMP_SYS(getpid), SB_ANY, SB_ALLOW, 0,
	    "abort() and raise() name this process" },
	{ SCMP_SYS(gettid), SB_ANY, SB_ALLOW, 0,
	    "abort() and raise() name this thread" },
	{ SCMP_SYS(tgkill), SB_IF(SB_OWN_PID(0)), SB_ALLOW, 0,
	    "abort() raises SIGABRT on itself, so a failed assertion is "
	    "reported as one; this process only (the loader fills in its "
	    "pid), as Landlock scopes signals only from ABI 6" },
	{ SCMP_SYS(exit), SB_ANY, SB_ALLOW, 0, "thread exit" },
	{ SCMP_SYS(exit_group), SB_ANY, SB_ALLOW, 0, "process exit" },

	/* libc probes that must fail politely */
	{ SCMP_SYS(openat), SB_ANY, SB_ERRNO, EACCES,
	    "locale and timezone probes (Landlock denies them too)" },
	{ SCMP_SYS(newfstatat), SB_ANY, SB_ERRNO, EACCES,
	    "stdio's fstat(fd) goes through newfstatat, which also takes a "
	    "path Landlock cannot hide; stdio falls back to BUFSIZ" },
	/* any other ioctl (TIOCSTI types into a terminal) kills */
	{ SCMP_SYS(ioctl), SB_IF(SB_EQ(1, TCGETS)), SB_ERRNO, ENOTTY,
	    "isatty() in stdio" },
	{ SCMP_SYS(ioctl), SB_IF(SB_EQ(1, FIONREAD)), SB_ERRNO, ENOTTY,
	    "FIONREAD in libevent evbuffer_read, which then reads a fixed "
	    "amount" },
};

/*
 * bouncer-carrier-*: a single-threaded loop that takes frames from the
 * monitor on fd 3 and, for each call, runs HTTP (and TLS, in OpenSSL)
 * through libcurl over the connected TCP socket the frame brought.  It
 * holds fds 0-3, libcurl's wake-up pair and that socket; the
 * credential, the CA bundle and the request-line patterns were loaded
 * before the filter.  It can create no socket and connect nowhere (the
 * monitor connects: seccomp cannot see connect()'s address; the
 * connect() libcurl calls on the given socket is answered in the
 * process, carrier/http.c), open no file, start no process.
 *
 * As in the worker's table, a call that could reach past the process
 * (a signal, an fd's owner, executable memory, another process's clock)
 * is allowed only in the forms the carrier makes.
 */
static const struct sb_rule carrier_rules[] = {
	/* I/O on the fds the carrier holds */
	{ SCMP_SYS(read), SB_ANY, SB_ALLOW, 0,
	    "libcurl draining its wake-up socket" },
	{ SCMP_SYS(write), SB_ANY, SB_ALLOW, 0,
	    "fd 2 (libc's fatal messages; the debug build's SIGSYS report)" },
	{ SCMP_SYS(recvmsg), SB_ANY, SB_ALLOW, 0,
	    "frames from the monitor on fd 3, with a call's socket" },
	{ SCMP_SYS(sendmsg), SB_ANY, SB_ALLOW, 0,
	    "frames to the monitor on fd 3" },
	/* recv() and send() on the connected socket: never an address,
	 * which on a socket that is not connected would aim a datagram */
	{ SCMP_SYS(recvfrom), SB_IF(SB_EQ(4, 0)), SB_ALLOW, 0,
	    "libcurl and OpenSSL reading the vendor's answer (recv)" },
	{ SCMP_SYS(sendto), SB_IF(SB_EQ(4, 0)), SB_ALLOW, 0,
	    "libcurl and OpenSSL sending the request (send, MSG_NOSIGNAL)" },
	{ SCMP_SYS(close), SB_ANY, SB_ALLOW, 0,
	    "closing a call's socket when it ends" },
	{ SCMP_SYS(fcntl), SB_IF(SB_EQ(1, F_GETFL)), SB_ALLOW, 0,
	    "libcurl reading a socket's O_NONBLOCK" },
	{ SCMP_SYS(fcntl), SB_IF(SB_EQ(1, F_SETFL), SB_CLEAR(2, O_ASYNC)),
	    SB_ALLOW, 0,
	    "libcurl making a call's socket non-blocking; never O_ASYNC, "
	    "which sends SIGIO to an fd's owner" },
	{ SCMP_SYS(poll), SB_ANY, SB_ALLOW, 0,
	    "waiting for fd 3, and libcurl waiting for its socket" },
	{ SCMP_SYS(ppoll), SB_ANY, SB_ALLOW, 0,
	    "poll() where libc maps it to ppoll" },
	{ SCMP_SYS(getsockopt),
	    SB_IF(SB_EQ(1, SOL_SOCKET), SB_EQ(2, SO_ERROR)), SB_ALLOW, 0,
	    "libcurl asking whether the socket is connected (SO_ERROR)" },
	{ SCMP_SYS(getpeername), SB_ANY, SB_ALLOW, 0,
	    "the address libcurl is told the vendor's host has, and its "
	    "connection info" },
	{ SCMP_SYS(getsockname), SB_ANY, SB_ALLOW, 0,
	    "libcurl's connection info (the local address)" },

	/*
	 * memory: fresh anonymous memory, never executable (no mprotect,
	 * pkey_mprotect or PROT_EXEC), never placed over a mapping that
	 * exists (no MAP_FIXED, MREMAP_FIXED), never a file's.
	 */
	{ SCMP_SYS(brk), SB_ANY, SB_ALLOW, 0, "malloc's main arena" },
	{ SCMP_SYS(mmap),
	    SB_IF(SB_CLEAR(2, PROT_EXEC),
		SB_MASK(3, MAP_ANONYMOUS | MAP_FIXED, MAP_ANONYMOUS)),
	    SB_ALLOW, 0,
	    "malloc of large blocks (an answer of up to 8 MiB): anonymous, "
	    "not executable, at an address of the kernel's choice" },
	{ SCMP_SYS(munmap), SB_ANY, SB_ALLOW, 0, "free of large blocks" },
	{ SCMP_SYS(mremap), SB_IF(SB_ONLY(3, MREMAP_MAYMOVE)), SB_ALLOW, 0,
	    "realloc of large blocks; not MREMAP_FIXED or MREMAP_DONTUNMAP, "
	    "which place or copy a mapping where the caller says" },
	{ SCMP_SYS(madvise), SB_IF(SB_EQ(2, MADV_DONTNEED)), SB_ALLOW, 0,
	    "malloc returning freed pages; no other advice (KSM merging, "
	    "fork or dump flags) is needed" },

	/*
	 * glibc's pthread_once() wakes waiters once a one-time set-up has
	 * run (OpenSSL's lazy ones, on the first TLS connection); in a
	 * process of one thread nobody waits, and nothing else is allowed.
	 */
	{ SCMP_SYS(futex),
	    SB_IF(SB_EQ(1, FUTEX_WAKE | FUTEX_PRIVATE_FLAG)), SB_ALLOW, 0,
	    "pthread_once() in OpenSSL's lazy set-up: FUTEX_WAKE_PRIVATE "
	    "only" },

	/* time and randomness */
	{ SCMP_SYS(clock_gettime), SB_IF(SB_ONLY(0, SB_CLOCKS_FIXED)),
	    SB_ALLOW, 0,
	    "libcurl's timeouts, OpenSSL's certificate times (vDSO "
	    "fallback); not another process's CPU clock" },
	{ SCMP_SYS(gettimeofday), SB_ANY, SB_ALLOW, 0,
	    "the wall clock (vDSO fallback)" },
	{ SCMP_SYS(getrandom), SB_ANY, SB_ALLOW, 0,
	    "OpenSSL's DRBG (TLS randoms and keys), malloc's tcache key" },

	/* signals */
	{ SCMP_SYS(rt_sigprocmask), SB_ANY, SB_ALLOW, 0,
	    "libc blocks signals in abort()" },
	{ SCMP_SYS(rt_sigaction), SB_ANY, SB_ALLOW, 0,
	    "abort() resets SIGABRT" },
	{ SCMP_SYS(restart_syscall), SB_ANY, SB_ALLOW, 0,
	    "the kernel restarting a poll() interrupted by a signal" },

	/* process */
	{ SCMP_SYS(getpid), SB_ANY, SB_ALLOW, 0,
	    "abort() and raise() name this process; OpenSSL's fork check" },
	{ SCMP_SYS(gettid), SB_ANY, SB_ALLOW, 0,
	    "abort() and raise() name this thread" },
	{ SCMP_SYS(tgkill), SB_IF(SB_OWN_PID(0)), SB_ALLOW, 0,
	    "abort() raises SIGABRT on itself; this process only (the "
	    "loader fills in its pid)" },
	{ SCMP_SYS(exit), SB_ANY, SB_ALLOW, 0, "thread exit" },
	{ SCMP_SYS(exit_group), SB_ANY, SB_ALLOW, 0, "process exit" },

};

static const struct sb_profile_tab {
	enum sb_profile profile;
	const struct sb_rule *rules;
	size_t nrules;
} profiles[] = {
	{ SB_PROFILE_WORKER, worker_rules,
	    sizeof(worker_rules) / sizeof(worker_rules[0]) },
	{ SB_PROFILE_CARRIER, carrier_rules,
	    sizeof(carrier_rules) / sizeof(carrier_rules[0]) },
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

/* Arguments of a system call, seccomp_data.args[0..5]. */
#define SB_SYSCALL_ARGS 6

/* Largest errno a filter may return (the kernel's MAX_ERRNO). */
#define SB_ERRNO_MAX 4095

static int
sb_has_args(const struct sb_rule *rule)
{
	return rule->args[0].cmp != SB_CMP_NONE;
}

/* Same call, same conditions in the same order. */
static int
sb_same_args(const struct sb_rule *a, const struct sb_rule *b)
{
	size_t k;

	for (k = 0; k < BNC_SB_ARGS_MAX; k++)
		if (a->args[k].cmp != b->args[k].cmp ||
		    a->args[k].arg != b->args[k].arg ||
		    a->args[k].mask != b->args[k].mask ||
		    a->args[k].val != b->args[k].val)
			return 0;
	return 1;
}

/*
 * One condition: says why it cannot be put in a filter exactly, or
 * returns NULL.  A mask or value wider than a register would be cut by
 * libseccomp on a 32-bit architecture; a condition that always or never
 * holds is a mistake in the table, not a rule.
 */
static const char *
sb_arg_problem(const struct sb_arg *a)
{
	if (a->arg >= SB_SYSCALL_ARGS)
		return "no such argument";
	if (sizeof(unsigned long) < sizeof(uint64_t) &&
	    (a->mask | a->val) > UINT32_MAX)
		return "wider than a register";
	switch (a->cmp) {
	case SB_CMP_EQ:
		return a->mask != 0 ? "a mask on an equality" : NULL;
	case SB_CMP_MASKED_EQ:
		if (a->mask == 0)
			return "an empty mask (always true)";
		if ((a->val & ~a->mask) != 0)
			return "a value outside its mask (never true)";
		return NULL;
	case SB_CMP_OWN_PID:
		return a->mask != 0 || a->val != 0 ?
		    "a constant on a run-time value" : NULL;
	default:
		return "unknown comparison";
	}
}

int
sandbox_rules_check(const struct sb_rule *rules, size_t n)
{
	const struct sb_rule *rule;
	const char *what;
	size_t i, j, k;
	int r = -BNC_ERR_INTERNAL;

	for (i = 0; i < n; i++) {
		rule = &rules[i];
		if (rule->why == NULL || *rule->why == '\0') {
			error_f("rule %zu (syscall %d) has no why", i,
			    rule->nr);
			goto out;
		}
		if (!(rule->action == SB_ALLOW && rule->err == 0) &&
		    !(rule->action == SB_ERRNO && rule->err > 0 &&
		    rule->err <= SB_ERRNO_MAX)) {
			error_f("rule %zu (syscall %d): action %d, errno %d",
			    i, rule->nr, (int)rule->action, rule->err);
			goto out;
		}
		for (k = 0; k < BNC_SB_ARGS_MAX; k++) {
			if (rule->args[k].cmp == SB_CMP_NONE) {
				/* used slots come first: none is skipped */
				for (j = k + 1; j < BNC_SB_ARGS_MAX; j++)
					if (rule->args[j].cmp != SB_CMP_NONE)
						break;
				if (j < BNC_SB_ARGS_MAX) {
					error_f("rule %zu (syscall %d): "
					    "condition %zu after an empty slot",
					    i, rule->nr, j);
					goto out;
				}
				break;
			}
			if ((what = sb_arg_problem(&rule->args[k])) != NULL) {
				error_f("rule %zu (syscall %d), arg %u: %s",
				    i, rule->nr, rule->args[k].arg, what);
				goto out;
			}
			/* libseccomp takes one comparison per argument */
			for (j = 0; j < k; j++)
				if (rule->args[j].arg == rule->args[k].arg)
					break;
			if (j < k) {
				error_f("rule %zu (syscall %d): argument %u "
				    "compared twice", i, rule->nr,
				    rule->args[k].arg);
				goto out;
			}
		}
		/*
		 * Which of two overlapping rows would win is libseccomp's
		 * choice, not the table's: a call is unconditional in one
		 * row or conditional in all of its rows.
		 */
		for (j = 0; j < i; j++) {
			if (rules[j].nr != rule->nr)
				continue;
			if (!sb_has_args(&rules[j]) || !sb_has_args(rule) ||
			    sb_same_args(&rules[j], rule)) {
				error_f("rules %zu and %zu (syscall %d) "
				    "overlap", j, i, rule->nr);
				goto out;
			}
		}
	}
	r = 0;
out:
	return r;
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
/* The table loaded, so the handler can tell an argument refusal. */
static const struct sb_rule *trap_rules;
static size_t trap_nrules;

static void
sb_put_str(char *msg, size_t *len, size_t sz, const char *s)
{
	while (*s != '\0' && *len < sz)
		msg[(*len)++] = *s++;
}

static void
sb_put_num(char *msg, size_t *len, size_t sz, uint64_t v, unsigned int base)
{
	static const char xdigits[] = "0123456789abcdef";
	char digits[24];
	size_t n = 0;

	do {
		digits[n++] = xdigits[v % base];
		v /= base;
	} while (v != 0 && n < sizeof(digits));
	while (n > 0 && *len < sz)
		msg[(*len)++] = digits[--n];
}

/* The refused call's arguments, where we know this machine's registers. */
static int
sb_trap_args(const void *uctx, uint64_t args[SB_SYSCALL_ARGS])
{
	const ucontext_t *uc = uctx;

#if defined(__x86_64__)
	args[0] = (uint64_t)uc->uc_mcontext.gregs[REG_RDI];
	args[1] = (uint64_t)uc->uc_mcontext.gregs[REG_RSI];
	args[2] = (uint64_t)uc->uc_mcontext.gregs[REG_RDX];
	args[3] = (uint64_t)uc->uc_mcontext.gregs[REG_R10];
	args[4] = (uint64_t)uc->uc_mcontext.gregs[REG_R8];
	args[5] = (uint64_t)uc->uc_mcontext.gregs[REG_R9];
	return 1;
#elif defined(__aarch64__)
	size_t i;

	for (i = 0; i < SB_SYSCALL_ARGS; i++)
		args[i] = (uint64_t)uc->uc_mcontext.regs[i];
	return 1;
#else
	(void)uc;
	(void)args;
	return 0;
#endif
}

/*
 * SIGSYS handler of the debug build: says which call was refused, and
 * for a call the table allows only with some arguments, which arguments
 * it had, using write(2) only; then dies by SIGSYS as the enforcing
 * build would.
 */
static void
sb_sigsys(int sig, siginfo_t *info, void *uctx)
{
	char msg[192];
	uint64_t args[SB_SYSCALL_ARGS];
	size_t len = 0, i;
	int nr, filtered = 0;

	(void)sig;
	nr = info->si_syscall;
	for (i = 0; i < trap_nrules; i++)
		if (trap_rules[i].nr == nr && sb_has_args(&trap_rules[i]))
			filtered = 1;
	sb_put_str(msg, &len, sizeof(msg), "sandbox: syscall ");
	sb_put_num(msg, &len, sizeof(msg), (uint64_t)(unsigned int)nr, 10);
	if (filtered && sb_trap_args(uctx, args)) {
		sb_put_str(msg, &len, sizeof(msg), " denied: arguments");
		for (i = 0; i < SB_SYSCALL_ARGS; i++) {
			sb_put_str(msg, &len, sizeof(msg), " 0x");
			sb_put_num(msg, &len, sizeof(msg), args[i], 16);
		}
		sb_put_str(msg, &len, sizeof(msg), " outside its rules\n");
	} else if (filtered)
		sb_put_str(msg, &len, sizeof(msg),
		    " denied: arguments outside its rules\n");
	else
		sb_put_str(msg, &len, sizeof(msg), " denied\n");
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
	trap_rules = rules;
	trap_nrules = n;
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
 * A row's conditions as libseccomp comparisons; SB_CMP_OWN_PID becomes
 * an equality with self.  The row was checked by sandbox_rules_check().
 */
static unsigned int
sb_row_cmps(const struct sb_rule *rule, pid_t self,
    struct scmp_arg_cmp cmp[BNC_SB_ARGS_MAX])
{
	unsigned int k;

	for (k = 0; k < BNC_SB_ARGS_MAX; k++) {
		if (rule->args[k].cmp == SB_CMP_NONE)
			break;
		memset(&cmp[k], 0, sizeof(cmp[k]));
		cmp[k].arg = rule->args[k].arg;
		switch (rule->args[k].cmp) {
		case SB_CMP_MASKED_EQ:
			cmp[k].op = SCMP_CMP_MASKED_EQ;
			cmp[k].datum_a = rule->args[k].mask;
			cmp[k].datum_b = rule->args[k].val;
			break;
		case SB_CMP_OWN_PID:
			cmp[k].op = SCMP_CMP_EQ;
			cmp[k].datum_a = (scmp_datum_t)self;
			break;
		default:
			cmp[k].op = SCMP_CMP_EQ;
			cmp[k].datum_a = rule->args[k].val;
			break;
		}
	}
	return k;
}

/*
 * Loads a table's filter.  Its default action kills the process (or
 * traps, in the debug build).  Nothing is loaded unless every row passes
 * sandbox_rules_check().  Returns 0 or -BNC_ERR_*.
 */
static int
sb_load(const struct sb_rule *rules, size_t n)
{
	struct scmp_arg_cmp cmp[BNC_SB_ARGS_MAX];
	scmp_filter_ctx ctx = NULL;
	size_t i;
	unsigned int ncmp;
	uint32_t act;
	pid_t self;
	int r = -BNC_ERR_INTERNAL, rc;

	if ((r = sandbox_rules_check(rules, n)) != 0)
		goto out;
	r = -BNC_ERR_INTERNAL;
	/* fork is refused from here on: the pid stays ours */
	self = getpid();
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
		act = rules[i].action == SB_ALLOW ? SCMP_ACT_ALLOW :
		    SCMP_ACT_ERRNO((uint32_t)rules[i].err);
		/*
		 * _exact: a rule with conditions goes in as written or not
		 * at all; libseccomp may otherwise rewrite a multiplexed
		 * call (socketcall, ipc) and its arguments.
		 */
		if ((ncmp = sb_row_cmps(&rules[i], self, cmp)) == 0)
			rc = seccomp_rule_add(ctx, act, rules[i].nr, 0);
		else
			rc = seccomp_rule_add_exact_array(ctx, act,
			    rules[i].nr, ncmp, cmp);
		if (rc != 0) {
			error_f("seccomp_rule_add(rule %zu, syscall %d, "
			    "%u conditions): %s", i, rules[i].nr, ncmp,
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

int
sandbox_seccomp_load(enum sb_profile profile)
{
	const struct sb_rule *rules;
	size_t n;
	int r = -BNC_ERR_INTERNAL;

	if ((rules = sandbox_rules(profile, &n)) == NULL) {
		error_f("no rule table for profile %d", (int)profile);
		goto out;
	}
	r = sb_load(rules, n);
out:
	return r;
}

#ifdef SANDBOX_TEST
int
sandbox_test_seccomp_load(const struct sb_rule *rules, size_t n)
{
	return sb_load(rules, n);
}
#endif
