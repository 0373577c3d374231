/*
 * testdir.h - one scratch directory per unit suite, gone after the run
 * whatever became of the tests.
 *
 * Check runs each test in a forked child, and a failed assertion ends
 * that child at once: a checked fixture's teardown never runs, and what
 * the test wrote would stay in /tmp.  So the suite's own process makes
 * the directory before srunner_run_all(), tests create files only under
 * it, and the same process removes it once every child is gone.
 */
#ifndef BNC_TESTDIR_H
#define BNC_TESTDIR_H

/*
 * Makes $TMPDIR/<suite>.XXXXXX (/tmp without an absolute TMPDIR), mode
 * 0700, and returns its real path; exits 99 (a hard error) if it cannot.
 * It is removed at exit of the calling process, never of a child.
 */
const char	*testdir_create(const char *suite);
/* The path testdir_create() returned. */
const char	*testdir_path(void);
/* Removes the directory and all in it (see testdir_rmtree). */
void		 testdir_remove(void);
/*
 * Removes path and, if it is a directory, everything under it, without
 * following symlinks and after making each directory searchable (a test
 * may have locked one).  Returns 0, or -1 if anything stayed.
 */
int		 testdir_rmtree(const char *path);

#endif /* BNC_TESTDIR_H */
