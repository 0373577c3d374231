/*
 * sandbox-landlock.c - the Landlock half of the sandbox (DESIGN 2).
 *
 * Restricts the calling process to no filesystem access at all and, where
 * the kernel knows them, no TCP bind/connect (ABI 4), no abstract unix
 * socket connection and no signal outside the domain (ABI 6).  It uses the
 * raw system calls, so an old <linux/landlock.h> still builds: constants
 * it lacks are defined here.  It must never add a rule (every handled
 * right stays denied), and it must never fail open except where the kernel
 * has no Landlock at all; the seccomp filter still refuses open then.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/syscall.h>

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#if !defined(HAVE_CONFIG_H) || defined(HAVE_LINUX_LANDLOCK_H)
#include <linux/landlock.h>
#endif

#include "err.h"
#include "log.h"
#include "sandbox.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

/* ABI 1 */
#ifndef LANDLOCK_ACCESS_FS_EXECUTE
#define LANDLOCK_ACCESS_FS_EXECUTE     (1ULL << 0)
#define LANDLOCK_ACCESS_FS_WRITE_FILE  (1ULL << 1)
#define LANDLOCK_ACCESS_FS_READ_FILE   (1ULL << 2)
#define LANDLOCK_ACCESS_FS_READ_DIR    (1ULL << 3)
#define LANDLOCK_ACCESS_FS_REMOVE_DIR  (1ULL << 4)
#define LANDLOCK_ACCESS_FS_REMOVE_FILE (1ULL << 5)
#define LANDLOCK_ACCESS_FS_MAKE_CHAR   (1ULL << 6)
#define LANDLOCK_ACCESS_FS_MAKE_DIR    (1ULL << 7)
#define LANDLOCK_ACCESS_FS_MAKE_REG    (1ULL << 8)
#define LANDLOCK_ACCESS_FS_MAKE_SOCK   (1ULL << 9)
#define LANDLOCK_ACCESS_FS_MAKE_FIFO   (1ULL << 10)
#define LANDLOCK_ACCESS_FS_MAKE_BLOCK  (1ULL << 11)
#define LANDLOCK_ACCESS_FS_MAKE_SYM    (1ULL << 12)
#endif
/* ABI 2 */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
/* ABI 3 */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
/* ABI 4 */
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP	(1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
/* ABI 5 */
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
/* ABI 6 */
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL		    (1ULL << 1)
#endif

#define LL_FS_V1                                                               \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |          \
	    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |       \
	    LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |   \
	    LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |       \
	    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |       \
	    LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |     \
	    LANDLOCK_ACCESS_FS_MAKE_SYM)
#define LL_FS_V2 (LL_FS_V1 | LANDLOCK_ACCESS_FS_REFER)
#define LL_FS_V3 (LL_FS_V2 | LANDLOCK_ACCESS_FS_TRUNCATE)
#define LL_FS_V5 (LL_FS_V3 | LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define LL_NET_V4                                                              \
	(LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP)
#define LL_SCOPE_V6                                                            \
	(LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL)

/*
 * struct landlock_ruleset_attr as of ABI 6; older headers stop after
 * handled_access_fs.  The size passed to the kernel is the part the
 * running ABI knows, so an older kernel never sees a field it rejects.
 */
struct sb_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;	     /* ABI 6 */
};

/*
 * What each ABI lets us deny, newest last.  A kernel newer than the last
 * row gets the last row: it accepts every right an older ABI defined.
 * ABI 7 only added audit logging flags, so it has no row of its own.
 */
static const struct ll_abi {
	int abi;
	uint64_t fs;
	uint64_t net;
	uint64_t scoped;
	size_t attrsz;
} ll_abis[] = {
	{ 1, LL_FS_V1, 0, 0,
	    offsetof(struct sb_ruleset_attr, handled_access_net) },
	{ 2, LL_FS_V2, 0, 0,
	    offsetof(struct sb_ruleset_attr, handled_access_net) },
	{ 3, LL_FS_V3, 0, 0,
	    offsetof(struct sb_ruleset_attr, handled_access_net) },
	{ 4, LL_FS_V3, LL_NET_V4, 0, offsetof(struct sb_ruleset_attr, scoped) },
	{ 5, LL_FS_V5, LL_NET_V4, 0, offsetof(struct sb_ruleset_attr, scoped) },
	{ 6, LL_FS_V5, LL_NET_V4, LL_SCOPE_V6, sizeof(struct sb_ruleset_attr) },
};

/* Shared with sandbox.c only; keep in step with the prototype there. */
int sandbox_landlock_apply(int *abip);

#ifdef SANDBOX_TEST
/*
 * Tests only: the highest ABI to use, -1 for the kernel's own (sandbox.h).
 * A process's only way to set it is to call the function, which exists
 * only in a build with SANDBOX_TEST, never from the environment.  It can
 * only lower what is applied: an older ruleset denies less, and the
 * tests use that to show the seccomp filter holds without it.
 */
static int ll_test_cap = -1;

void
sandbox_test_landlock_cap(int abi)
{
	ll_test_cap = abi;
}
#endif

/*
 * Applies the deny-all ruleset.  *abip is the kernel's ABI (at most the
 * test cap, in a SANDBOX_TEST build), 0 when it has no Landlock (not
 * built, or disabled at boot); that is not an error.
 */
int
sandbox_landlock_apply(int *abip)
{
	struct sb_ruleset_attr attr;
	const struct ll_abi *row = NULL;
	size_t i;
	long abi;
	int fd = -1, r = -BNC_ERR_SYS;

	*abip = 0;
	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi == -1 && (errno == ENOSYS || errno == EOPNOTSUPP)) {
		verbose_f("no Landlock in this kernel: seccomp alone "
			  "denies the filesystem");
		r = 0;
		goto out;
	}
	if (abi == -1) {
		error_f("landlock_create_ruleset(VERSION): %s",
		    strerror(errno));
		goto out;
	}
#ifdef SANDBOX_TEST
	if (ll_test_cap >= 0 && abi > ll_test_cap)
		abi = ll_test_cap;
#endif
	if (abi < 1) {
		r = 0;
		goto out;
	}
	for (i = 0; i < sizeof(ll_abis) / sizeof(ll_abis[0]); i++)
		if (ll_abis[i].abi <= abi)
			row = &ll_abis[i];

	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = row->fs;
	attr.handled_access_net = row->net;
	attr.scoped = row->scoped;
	if ((fd = (int)syscall(SYS_landlock_create_ruleset, &attr, row->attrsz,
		 0)) == -1) {
		error_f("landlock_create_ruleset(ABI %ld): %s", abi,
		    strerror(errno));
		goto out;
	}
	if (syscall(SYS_landlock_restrict_self, fd, 0) == -1) {
		error_f("landlock_restrict_self: %s", strerror(errno));
		goto out;
	}
	*abip = (int)abi;
	r = 0;
out:
	if (fd != -1)
		close(fd);
	return r;
}
