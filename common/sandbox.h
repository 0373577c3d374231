/*
 * sandbox.h - confine a child after set-up (DESIGN 2, STYLE "Sandbox tables").
 *
 * Order: non-dumpable, no READ_IMPLIES_EXEC, rlimits (NPROC 0, FSIZE 0,
 * CORE 0, NOFILE = what the process holds), no_new_privs, Landlock (no
 * filesystem access; with ABI >= 4 no TCP bind/connect), then a
 * libseccomp allowlist whose default action kills the process.  Rules
 * are data, each with a `why`; a rule may compare the call's arguments.
 */
#ifndef BNC_SANDBOX_H
#define BNC_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

enum sb_profile {
	SB_PROFILE_WORKER = 1,		/* bouncer-worker, either side */
	SB_PROFILE_CARRIER = 2		/* bouncer-carrier-*: HTTP and TLS on a
					 * socket it was given */
};

enum sb_action {
	SB_ALLOW = 1,			/* permitted */
	SB_ERRNO = 2			/* fails with the rule's errno */
};

/*
 * How a rule looks at one argument of the call (OpenSSH's SC_ALLOW_ARG
 * and SC_ALLOW_ARG_MASK, as data).  Comparisons are on the whole
 * register: a value the kernel would truncate to an allowed one does not
 * match, so it meets the default action.
 */
enum sb_cmp {
	SB_CMP_NONE = 0,		/* unused slot */
	SB_CMP_EQ = 1,			/* arg == val */
	SB_CMP_MASKED_EQ = 2,		/* (arg & mask) == val */
	SB_CMP_OWN_PID = 3		/* arg == the pid of the process that
					 * loads the filter (filled in then) */
};

struct sb_arg {
	enum sb_cmp	 cmp;
	unsigned int	 arg;		/* 0 to 5 */
	uint64_t	 mask;		/* SB_CMP_MASKED_EQ */
	uint64_t	 val;		/* SB_CMP_EQ, SB_CMP_MASKED_EQ */
};

/*
 * One row of a profile.  The rule applies when every used slot of args
 * holds; with none, to every call of nr.  Rows of one call must not
 * overlap: a call is either unconditional (one row) or has only
 * conditional rows, and what no row matches meets the default action.
 */
struct sb_rule {
	int		 nr;		/* SCMP_SYS(...) */
	struct sb_arg	 args[BNC_SB_ARGS_MAX];
	enum sb_action	 action;
	int		 err;		/* for SB_ERRNO */
	const char	*why;		/* mandatory */
};

/* The args column of a row: SB_ANY, or SB_IF() of the conditions below. */
#define SB_ANY		{ { SB_CMP_NONE, 0, 0, 0 } }
#define SB_IF(...)	{ __VA_ARGS__ }
#define SB_EQ(i, v)	{ SB_CMP_EQ, (i), 0, (uint64_t)(v) }
#define SB_MASK(i, m, v) { SB_CMP_MASKED_EQ, (i), (uint64_t)(m), (uint64_t)(v) }
/* these bits clear */
#define SB_CLEAR(i, bits) SB_MASK(i, bits, 0)
/* no bit outside bits (a register's width: unsigned long) */
#define SB_ONLY(i, bits) SB_MASK(i, ~(unsigned long)(bits), 0)
#define SB_OWN_PID(i)	{ SB_CMP_OWN_PID, (i), 0, 0 }

struct sb_status {
	int		 seccomp;	/* enum bnc_sandbox_state (msg.h) */
	int		 landlock_abi;	/* 0 if the kernel has none */
	int		 nnp;		/* no_new_privs set */
};

/* The rule table of a profile, for the filter and for tests. */
const struct sb_rule *sandbox_rules(enum sb_profile, size_t *np);

/*
 * Checks a rule table as the loader does before it builds a filter: a
 * why on every row, a known action and errno, argument conditions the
 * filter can express exactly, no overlap between the rows of one call.
 * Returns 0 or -BNC_ERR_INTERNAL (and logs the first bad row).
 */
int	sandbox_rules_check(const struct sb_rule *, size_t n);

/*
 * Apply a profile to the calling process.  nfds is the number of fds the
 * process keeps (RLIMIT_NOFILE = nfds).  Returns 0 or -BNC_ERR_*; on an
 * error the caller must exit, never continue unconfined.
 */
int	sandbox_apply(enum sb_profile, int nfds, struct sb_status *);

#ifdef SANDBOX_TEST
/*
 * Tests only: regress/sandbox compiles the sandbox with SANDBOX_TEST, and
 * no shipped binary has these.  Caps the Landlock ABI that
 * sandbox_apply() uses (0: as if the kernel had none; -1: no cap), so
 * one kernel can show that the seccomp filter alone holds on older ones.
 */
void	sandbox_test_landlock_cap(int abi);
/* Loads a table as sandbox_apply() loads a profile's. */
int	sandbox_test_seccomp_load(const struct sb_rule *, size_t n);
#endif

#endif /* BNC_SANDBOX_H */
