/*
 * spawn.c - fork and exec a child with the fixed fd layout (DESIGN 3).
 *
 * The child gets exactly fds 0-4 as specified; nothing else of the
 * parent's survives exec.  The layout is built with dup() onto high
 * numbers first so that a source fd that happens to be 0..4 is not
 * clobbered before it is moved.  A child never keeps a setgid monitor's
 * group: it runs with the invoking user's gid, or not at all.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "bounds.h"
#include "log.h"
#include "spawn.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

void
spawn_spec_init(struct spawn_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->fd_in = s->fd_out = s->fd_err = SPAWN_INHERIT;
	s->fd_chan = s->fd_extra = -1;
}

static void
child_closefrom(int lowfd)
{
	long maxfd;
	int fd;

	if (close_range((unsigned)lowfd, ~0U, 0) == 0)
		return;
	maxfd = sysconf(_SC_OPEN_MAX);
	if (maxfd < 0 || maxfd > 65536)
		maxfd = 65536;
	for (fd = lowfd; fd < maxfd; fd++)
		close(fd);
}

/* In the child: fatal errors are reported on stderr and exit 127. */
static void __attribute__((noreturn))
child_fail(const char *what, const char *path)
{
	dprintf(STDERR_FILENO, "bouncer: %s %s: %s\n", what,
	    path != NULL ? path : "", strerror(errno));
	_exit(127);
}

/*
 * A setgid monitor (packaged mode) runs with the _bouncer group, which
 * owns the audit log and, later, the consent keys.  No child gets it:
 * an upstream is the user's own program, and a worker parses hostile
 * bytes.  Real, effective and saved gid all become the real gid, and,
 * as OpenSSH's permanently_set_uid() does, the result is read back: a
 * child that still holds the group never reaches exec.
 */
static void
child_drop_gid(void)
{
	gid_t r, e, sv;

	if (getresgid(&r, &e, &sv) == -1)
		child_fail("getresgid", NULL);
	if (e == r && sv == r)
		return;
	if (setresgid(r, r, r) == -1)
		child_fail("setresgid", NULL);
	if (getresgid(&r, &e, &sv) == -1)
		child_fail("getresgid", NULL);
	if (e != r || sv != r) {
		errno = EPERM;
		child_fail("setresgid", "(a group stayed)");
	}
}

static void
child_setup(const struct spawn_spec *s)
{
	int src[5], tmp[5], i, nullfd = -1;
	sigset_t set;

	src[0] = s->fd_in;
	src[1] = s->fd_out;
	src[2] = s->fd_err;
	src[3] = s->fd_chan;
	src[4] = s->fd_extra;
	/* Park every source above the target range first. */
	for (i = 0; i < 5; i++) {
		tmp[i] = -1;
		if (i < 3 && src[i] == SPAWN_INHERIT) {
			/* A closed stdio fd stays closed. */
			if ((tmp[i] = fcntl(i, F_DUPFD, 16)) == -1 &&
			    errno != EBADF)
				child_fail("dup", NULL);
			continue;
		}
		if (i < 3 && src[i] == SPAWN_DEVNULL) {
			if (nullfd == -1 &&
			    (nullfd = open("/dev/null", O_RDWR)) == -1)
				child_fail("open", "/dev/null");
			src[i] = nullfd;
		}
		if (src[i] >= 0 &&
		    (tmp[i] = fcntl(src[i], F_DUPFD, 16)) == -1)
			child_fail("dup", NULL);
	}
	for (i = 0; i < 5; i++) {
		if (tmp[i] == -1) {
			close(i);
			continue;
		}
		if (dup2(tmp[i], i) == -1)
			child_fail("dup2", NULL);
	}
	child_closefrom(BNC_CHILD_FD_FIRST_FREE);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	for (i = 1; i < NSIG; i++)
		if (i != SIGKILL && i != SIGSTOP)
			signal(i, SIG_DFL);
	/* after the layout, so that a failure reaches the child's stderr */
	child_drop_gid();
	if (s->new_session)
		setsid();
	if (s->cwd != NULL && chdir(s->cwd) == -1)
		child_fail("chdir", s->cwd);
}

int
spawn_child(const struct spawn_spec *s, pid_t *pidp)
{
	extern char **environ;
	pid_t pid;

	if (s->path == NULL || s->argv == NULL || s->argv[0] == NULL)
		return -BNC_ERR_INTERNAL;
	if ((pid = fork()) == -1)
		return -BNC_ERR_SYS;
	if (pid == 0) {
		child_setup(s);
		if (s->envp != NULL)
			environ = (char **)(uintptr_t)s->envp;
		if (strchr(s->path, '/') != NULL)
			execv(s->path, s->argv);
		else
			execvp(s->path, s->argv);
		child_fail("exec", s->path);
	}
	*pidp = pid;
	return 0;
}

/* dir/name (dir relative to cwd when it is), if it fits */
static int
candidate(const char *cwd, const char *dir, size_t dlen, const char *name,
    char *out, size_t outlen)
{
	int n;

	if (dlen == 0) {
		dir = ".";
		dlen = 1;
	}
	if (dir[0] != '/' && cwd != NULL)
		n = snprintf(out, outlen, "%s/%.*s/%s", cwd, (int)dlen, dir,
		    name);
	else
		n = snprintf(out, outlen, "%.*s/%s", (int)dlen, dir, name);
	return n < 0 || (size_t)n >= outlen ? -BNC_ERR_TOO_LARGE : 0;
}

/* 1: an executable regular file; 0: there, but not that; -1: absent */
static int
runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st) == -1)
		return -1;
	return S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int
spawn_resolve(const struct spawn_spec *s, char *out, size_t outlen)
{
	extern char **environ;
	char *const *e = s->envp != NULL ? s->envp : environ;
	const char *path = NULL, *p, *end;
	int r, seen = 0;

	if (s->path == NULL || *s->path == '\0')
		return -BNC_ERR_NOT_FOUND;
	if (strchr(s->path, '/') != NULL) {
		if (s->path[0] == '/' || s->cwd == NULL) {
			if (strlen(s->path) >= outlen)
				return -BNC_ERR_TOO_LARGE;
			memcpy(out, s->path, strlen(s->path) + 1);
		} else if ((r = candidate(s->cwd, ".", 1, s->path, out,
		    outlen)) != 0)
			return r;
		if ((r = runnable(out)) == 1)
			return 0;
		errno = EACCES;
		return r == 0 ? -BNC_ERR_SYS : -BNC_ERR_NOT_FOUND;
	}
	for (; e != NULL && *e != NULL && path == NULL; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			path = *e + 5;
	if (path == NULL)
		path = "/bin:/usr/bin";		/* glibc's, when unset */
	for (p = path;; p = end + 1) {
		end = strchr(p, ':');
		if (end == NULL)
			end = p + strlen(p);
		if (candidate(s->cwd, p, (size_t)(end - p), s->path, out,
		    outlen) == 0) {
			if ((r = runnable(out)) == 1)
				return 0;
			seen |= r == 0;
		}
		if (*end == '\0')
			break;
	}
	errno = EACCES;
	return seen ? -BNC_ERR_SYS : -BNC_ERR_NOT_FOUND;
}
