/*
 * spawn.h - start a child with the fixed fd layout (DESIGN 3).
 *
 * fd 0, 1, 2 as given (or /dev/null), fd 3 the monitor socket, fd 4 an
 * optional extra (a carrier's credential); everything from fd 5 up is
 * closed before exec.  Signals are reset to default in the child, and a
 * setgid parent's group is dropped: the child's real, effective and
 * saved gid are all the parent's real gid, or the child exits 127.
 */
#ifndef BNC_SPAWN_H
#define BNC_SPAWN_H

#include <sys/types.h>

#define SPAWN_DEVNULL	(-1)	/* connect this stdio fd to /dev/null */
#define SPAWN_INHERIT	(-2)	/* keep the parent's fd */

struct spawn_spec {
	const char	 *path;		/* executable; PATH searched if no '/' */
	char *const	 *argv;
	char *const	 *envp;		/* NULL: inherit the environment */
	const char	 *cwd;		/* NULL: inherit */
	int		  fd_in, fd_out, fd_err;
	int		  fd_chan;	/* placed on fd 3, or -1 */
	int		  fd_extra;	/* placed on fd 4, or -1 */
	int		  new_session;	/* setsid() in the child */
};

void	spawn_spec_init(struct spawn_spec *);
/* Returns 0 with *pidp set, or a negative code; a failure in the child
 * (exec, the fd layout, the group drop) is reported by the child exiting
 * 127 with a message on its stderr (fd_err). */
int	spawn_child(const struct spawn_spec *, pid_t *pidp);
/*
 * The file spawn_child would execute for s->path, found as execv(p)
 * finds it: a path with '/' as it is, else each directory of the PATH in
 * s->envp (or in ours when envp is NULL; "/bin:/usr/bin" when unset),
 * relative ones from s->cwd.  Returns 0 with the file's path in out, or
 * -BNC_ERR_NOT_FOUND (no such file), -BNC_ERR_SYS with errno EACCES
 * (found, but not an executable regular file) or -BNC_ERR_TOO_LARGE (a
 * path longer than outlen).  For `bouncer-monitor -t': the exec may
 * still fail later.
 */
int	spawn_resolve(const struct spawn_spec *s, char *out, size_t outlen);

#endif /* BNC_SPAWN_H */
