/*
 * testdir.c - the unit suites' scratch directory (testdir.h).
 *
 * Test code: it removes only what testdir_create() made, or a path a
 * test names inside it, and never anything while a test child runs.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testdir.h"

static char	dir[PATH_MAX];
static pid_t	owner;

int
testdir_rmtree(const char *path)
{
	struct dirent *e;
	struct stat st;
	char sub[PATH_MAX];
	DIR *d;
	int r = 0;

	if (lstat(path, &st) == -1)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	(void)chmod(path, 0700);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path,
		    e->d_name) >= sizeof(sub) || testdir_rmtree(sub) != 0)
			r = -1;
	}
	closedir(d);
	if (rmdir(path) == -1)
		r = -1;
	return r;
}

void
testdir_remove(void)
{
	/* a forked test child exits too, and must leave the others' files */
	if (dir[0] == '\0' || getpid() != owner)
		return;
	if (testdir_rmtree(dir) != 0)
		fprintf(stderr, "cannot remove all of %s\n", dir);
	dir[0] = '\0';
}

const char *
testdir_create(const char *suite)
{
	const char *t = getenv("TMPDIR");
	char tmpl[PATH_MAX];

	if ((size_t)snprintf(tmpl, sizeof(tmpl), "%s/%s.XXXXXX",
	    t != NULL && *t == '/' ? t : "/tmp", suite) >= sizeof(tmpl) ||
	    mkdtemp(tmpl) == NULL)
		goto fail;
	/* the real path: tests compare paths the code under test made */
	if (realpath(tmpl, dir) == NULL) {
		(void)rmdir(tmpl);
		goto fail;
	}
	owner = getpid();
	atexit(testdir_remove);
	return dir;
 fail:
	fprintf(stderr, "%s: cannot make a scratch directory: %s\n", suite,
	    strerror(errno));
	exit(99);
}

const char *
testdir_path(void)
{
	return dir;
}
