/*
 * checkpoint.c - the audit log's checkpointer: a child of the monitor
 * that copies the WAL into the database while the monitor serves calls.
 *
 * SQLite checkpoints a WAL database in the commit that takes the WAL
 * past 1000 pages.  With audit.sync normal that commit also syncs the
 * WAL and the database: milliseconds in the middle of one call, every
 * few hundred calls (BENCHMARKS.md, "The audit log's checkpoints").
 * The checkpointer does it instead, on a connection of its own, in
 * PASSIVE mode: it never waits for the monitor's commits, nor they for
 * it, and nothing about when a row is committed changes.
 *
 * It is forked before the monitor opens any SQLite connection, keeps no
 * descriptor but its request pipe and stderr (none of the credential
 * files the monitor holds for its carriers), and reads nothing but
 * bytes from the monitor, each a request to checkpoint.  It exits when
 * the pipe closes (the monitor closed the log, or died) or, through
 * PR_SET_PDEATHSIG, with the monitor.  If it dies, the monitor's
 * commits checkpoint again (audit.c, wal_hook).
 */
#include "config.h"

#include <sys/prctl.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "audit.h"
#include "bounds.h"
#include "checkpoint.h"
#include "log.h"

/* The descriptor the child keeps its end of the pipe on. */
#define CKPT_FD		3
/* Between passes while frames are left to copy. */
#define CKPT_RETRY_MS	20

/*
 * The log, read once: a connection learns that a database is in WAL
 * mode when it first reads it, and until then checkpoints nothing.
 */
static sqlite3 *
open_wal(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	const char *mode;
	int rc;

	if ((rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOFOLLOW, NULL)) == SQLITE_OK &&
	    (rc = sqlite3_busy_timeout(db, BNC_AUDIT_BUSY_MS)) == SQLITE_OK &&
	    (rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st,
	    NULL)) == SQLITE_OK) {
		rc = sqlite3_step(st);
		mode = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st,
		    0) : NULL;
		if (mode != NULL && strcmp(mode, "wal") == 0)
			rc = SQLITE_OK;
		else if (rc == SQLITE_ROW)
			rc = SQLITE_NOTADB;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_OK)
		return db;
	fprintf(stderr, "bouncer-ckpt: %s: %s\n", path, db != NULL &&
	    rc != SQLITE_NOTADB ? sqlite3_errmsg(db) : rc == SQLITE_NOTADB ?
	    "not in WAL mode" : sqlite3_errstr(rc));
	sqlite3_close(db);
	return NULL;
}

/*
 * One PASSIVE pass.  1 if the WAL changed since the last pass (commits
 * go on: frames may be added after this pass), 0 once a pass finds it
 * as it was, or another connection checkpoints, or the pass failed (the
 * next request tries again).
 */
static int
pass(sqlite3 *db, const char *path, int *lastlog)
{
	int rc, nlog = -1, ncopied = -1, changed;

	rc = sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE,
	    &nlog, &ncopied);
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		return 0;
	if (rc != SQLITE_OK) {
		fprintf(stderr, "bouncer-ckpt: %s: checkpoint: %s\n", path,
		    sqlite3_errmsg(db));
		return 0;
	}
	changed = nlog != *lastlog || ncopied < nlog;
	*lastlog = nlog;
	return changed;
}

/*
 * The WAL starts over only at a commit that finds every frame copied.
 * So after a request, passes go on, CKPT_RETRY_MS apart, until one finds
 * the WAL as the last left it: in a session's pauses (an agent thinks
 * between calls) the WAL is then wholly copied, and the next commit
 * starts it over.  Under calls without a pause that may never be, and
 * the monitor's commit checkpoints the few frames left once the WAL
 * passes BNC_AUDIT_WAL_PAGES_MAX.
 */
static void __attribute__((noreturn))
checkpointer_main(const char *path, pid_t parent)
{
	struct pollfd pfd;
	sqlite3 *db = NULL;
	char req[256];
	ssize_t n;
	int status = 0, behind = 0, lastlog = -1, r;

	(void)prctl(PR_SET_NAME, "bouncer-ckpt");
	(void)prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1 || getppid() != parent)
		_exit(0);
	/* a terminal's ^C is the monitor's to act on; EOF ends this */
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_DFL);
	pfd.fd = CKPT_FD;
	pfd.events = POLLIN;
	for (;;) {
		if ((r = poll(&pfd, 1, behind ? CKPT_RETRY_MS : -1)) == -1) {
			if (errno == EINTR)
				continue;
			status = 1;
			break;
		}
		if (r == 1) {
			if ((n = read(CKPT_FD, req, sizeof(req))) == -1) {
				if (errno == EINTR)
					continue;
				status = 1;
				break;
			}
			if (n == 0)
				break;
		}
		/* the monitor created the database before its first ask */
		if (db == NULL && (db = open_wal(path)) == NULL) {
			status = 1;
			break;
		}
		behind = pass(db, path, &lastlog);
	}
	if (db != NULL)
		sqlite3_close(db);
	_exit(status);
}

int
checkpoint_start(const char *state_dir)
{
	char path[BNC_PATH_MAX + 1];
	pid_t parent = getpid(), pid;
	int p[2], nul;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", state_dir,
	    AUDIT_DB_NAME) >= sizeof(path)) {
		error("audit checkpointer: state_dir too long");
		return -1;
	}
	if (pipe2(p, O_CLOEXEC) == -1) {
		error("audit checkpointer: pipe: %s", strerror(errno));
		return -1;
	}
	fflush(stderr);
	if ((pid = fork()) == -1) {
		error("audit checkpointer: fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		/* nothing of the client's: its stdin and stdout are the
		 * monitor's to read and write */
		if (dup2(p[0], CKPT_FD) == -1 ||
		    (nul = open("/dev/null", O_RDWR)) == -1 ||
		    dup2(nul, STDIN_FILENO) == -1 ||
		    dup2(nul, STDOUT_FILENO) == -1)
			_exit(1);
		closefrom(CKPT_FD + 1);
		checkpointer_main(path, parent);
	}
	close(p[0]);
	return p[1];
}
