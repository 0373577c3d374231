/*
 * sandbox.h - confine a child after set-up (DESIGN 2, STYLE "Sandbox tables").
 *
 * Order: non-dumpable, rlimits (NPROC 0, FSIZE 0, CORE 0, NOFILE = what
 * the process holds), no_new_privs, Landlock (no filesystem access; with
 * ABI >= 4 no TCP bind/connect), then a libseccomp allowlist whose
 * default action kills the process.  Rules are data, each with a `why`.
 */
#ifndef BNC_SANDBOX_H
#define BNC_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

enum sb_profile {
	SB_PROFILE_WORKER = 1		/* bouncer-worker, either side */
};

enum sb_action {
	SB_ALLOW = 1,			/* permitted */
	SB_ERRNO = 2			/* fails with the rule's errno */
};

struct sb_rule {
	int		 nr;		/* SCMP_SYS(...) */
	enum sb_action	 action;
	int		 err;		/* for SB_ERRNO */
	const char	*why;		/* mandatory */
};

struct sb_status {
	int		 seccomp;	/* enum bnc_sandbox_state (msg.h) */
	int		 landlock_abi;	/* 0 if the kernel has none */
	int		 nnp;		/* no_new_privs set */
};

/* The rule table of a profile, for the filter and for tests. */
const struct sb_rule *sandbox_rules(enum sb_profile, size_t *np);

/*
 * Apply a profile to the calling process.  nfds is the number of fds the
 * process keeps (RLIMIT_NOFILE = nfds).  Returns 0 or -BNC_ERR_*; on an
 * error the caller must exit, never continue unconfined.
 */
int	sandbox_apply(enum sb_profile, int nfds, struct sb_status *);

#endif /* BNC_SANDBOX_H */
