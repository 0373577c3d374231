/*
 * sandbox.c - confine a child after its set-up (DESIGN 2).
 *
 * sandbox_apply() runs the steps in a fixed order: non-dumpable, no
 * READ_IMPLIES_EXEC personality, rlimits (no processes, no file growth,
 * no core), no_new_privs, Landlock (sandbox-landlock.c), the fd limit (no
 * new fd past the ones held: after Landlock, whose ruleset needs one),
 * then the seccomp filter (sandbox-seccomp.c).  On any failure the caller must exit: this file
 * must never return success for a process that is not confined, except
 * in a --disable-sandbox build, which says so loudly every time.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif


#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "log.h"
#include "msg.h"
#include "sandbox.h"

/* In sandbox-landlock.c and sandbox-seccomp.c; used here only. */
int sandbox_landlock_apply(int *abip);
int sandbox_seccomp_load(enum sb_profile);

#ifndef SANDBOX_DISABLED
/* Set to zero, soft and hard; the filter refuses setrlimit afterwards. */
static const struct {
	int resource;
	const char *name;
} zero_limits[] = {
	{ RLIMIT_NPROC, "RLIMIT_NPROC" }, /* no fork if seccomp slips */
	{ RLIMIT_FSIZE, "RLIMIT_FSIZE" }, /* no write to a regular file */
	{ RLIMIT_CORE, "RLIMIT_CORE" },	  /* no core with session data */
};
#endif

int
sandbox_apply(enum sb_profile profile, int nfds, struct sb_status *st)
{
#ifndef SANDBOX_DISABLED
	struct rlimit rl;
	size_t i;
	int pers;
#endif
	int r = -BNC_ERR_INTERNAL;

	memset(st, 0, sizeof(*st));
	st->seccomp = SB_STATE_OFF;
	if (nfds < 0 || sandbox_rules(profile, NULL) == NULL) {
		error_f("bad arguments: profile %d, nfds %d", (int)profile,
		    nfds);
		goto out;
	}
#ifdef SANDBOX_DISABLED
	error("SANDBOX DISABLED (--disable-sandbox build): this process runs "
	      "WITHOUT seccomp, Landlock, no_new_privs or rlimits; "
	      "sanitizer builds only, never ship this");
	r = 0;
#else
	r = -BNC_ERR_SYS;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1) {
		error_f("prctl(PR_SET_DUMPABLE): %s", strerror(errno));
		goto out;
	}
	/*
	 * READ_IMPLIES_EXEC (setarch -X; it survives exec) makes every
	 * readable mapping executable, and the filter sees no PROT_EXEC to
	 * refuse.  personality() is refused once the filter is on.
	 */
	if ((pers = personality(0xffffffff)) == -1 ||
	    ((pers & READ_IMPLIES_EXEC) != 0 &&
	    personality((unsigned long)pers & ~READ_IMPLIES_EXEC) == -1)) {
		error_f("personality: %s", strerror(errno));
		goto out;
	}
	/*
	 * RLIMIT_FSIZE 0 whatever fd 1 is: no child writes a file, not even
	 * the client's answers (bouncer-monitor > out.json), which the
	 * monitor writes itself.
	 */
	for (i = 0; i < sizeof(zero_limits) / sizeof(zero_limits[0]); i++) {
		rl.rlim_cur = rl.rlim_max = 0;
		if (setrlimit(zero_limits[i].resource, &rl) == -1) {
			error_f("setrlimit(%s): %s", zero_limits[i].name,
			    strerror(errno));
			goto out;
		}
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		error_f("prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(errno));
		goto out;
	}
	st->nnp = 1;
	if ((r = sandbox_landlock_apply(&st->landlock_abi)) != 0)
		goto out;
	/*
	 * RLIMIT_NOFILE last: Landlock needs one more fd for its ruleset,
	 * and after the filter setrlimit is no longer allowed.
	 */
	r = -BNC_ERR_SYS;
	rl.rlim_cur = rl.rlim_max = (rlim_t)nfds;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1) {
		error_f("setrlimit(RLIMIT_NOFILE, %d): %s", nfds,
		    strerror(errno));
		goto out;
	}
	if ((r = sandbox_seccomp_load(profile)) != 0)
		goto out;
#ifdef SANDBOX_DEBUG
	st->seccomp = SB_STATE_DEBUG;
#else
	st->seccomp = SB_STATE_ON;
#endif
	r = 0;
#endif /* SANDBOX_DISABLED */
out:
	return r;
}
