/*
 * audit.h - the append-only, hash-chained decision log (DESIGN 9).
 *
 * One SQLite database, <state_dir>/audit.db, shared by every monitor of
 * an installation.  A row is committed before the call it records is
 * forwarded; a failure to commit is a denial.  Rows are chained:
 * hash = SHA-256(prev_hash || canonical encoding of the row), so an edit
 * of any row breaks every later link and audit_verify() finds it.
 * Nothing here ever parses JSON: arguments arrive as value trees.
 */
#ifndef BNC_AUDIT_H
#define BNC_AUDIT_H

#include <stddef.h>
#include <stdint.h>

struct audit;
struct sqlite3;
struct value;

enum audit_sync {
	AUDIT_SYNC_NORMAL = 0,	/* WAL, no fsync per commit */
	AUDIT_SYNC_FULL = 1	/* WAL, fsync per commit */
};

/* The chain's hashes, in lowercase hex. */
#define AUDIT_HASH_HEX		64
/* prev_hash of the first row: 64 '0' characters. */
#define AUDIT_GENESIS \
	"0000000000000000000000000000000000000000000000000000000000000000"
/* Version of the schema and of the row encoding (PRAGMA user_version). */
#define AUDIT_SCHEMA_VERSION	1

struct audit_row {
	const char	 *session;	/* session id, hex */
	const char	 *agent;	/* agent id; "-": the implicit agent */
	const char	 *upstream;	/* upstream name or NULL */
	const char	 *tool;		/* tool as the client called it, or an
					 * event name */
	const char	 *verdict;	/* "allow" "deny" "ask" or "event" */
	const char	 *contract;	/* identity grant pinning budget
					 * constraint sink_gate consent default,
					 * or "event" */
	const char	 *reason;	/* or NULL; cut at BNC_REASON_MAX */
	const struct value *args;	/* the call's arguments or NULL */
	const char *const *sinks;	/* names of sink parameters recorded in
					 * clear; may be NULL */
	size_t		  nsinks;
	const char	 *nonce;	/* consent nonce hex or NULL: consumed
					 * with the row (audit_append) */
};

/*
 * Opens or creates <state_dir>/audit.db: the directory is created 0700
 * (with its parents) if missing, a new database file 0600; WAL journal,
 * synchronous NORMAL or FULL, schema and append-only triggers.  With
 * record_full the whole argument object is stored as JSON as well.
 * *out receives a handle the caller closes with audit_close().  Returns
 * 0, or a negative code with a message in err.
 */
int	audit_open(const char *state_dir, enum audit_sync, int record_full,
	    struct audit **out, char *err, size_t errlen);

/* The database's name in the state directory. */
#define AUDIT_DB_NAME		"audit.db"

/*
 * Hands the log's checkpoints to a checkpointer (checkpoint.c) that
 * reads one byte from fd per request: past every BNC_AUDIT_WAL_PAGES
 * pages of WAL a commit sends one instead of checkpointing itself, as
 * SQLite would.  Should fd fail, or the WAL pass BNC_AUDIT_WAL_PAGES_MAX
 * (a checkpointer that does not keep up), the commit checkpoints again.
 * The handle owns fd from then on.
 */
void	audit_checkpoint_via(struct audit *, int fd);

/*
 * Appends one row and commits it before returning; *seqp (may be NULL)
 * receives its seq.  The next seq and prev_hash are read inside the same
 * BEGIN IMMEDIATE transaction as the insert, so monitors sharing one
 * database keep one chain.  Any failure (a field missing, too long or not
 * UTF-8, an unknown verdict or contract, the database locked past
 * BNC_AUDIT_BUSY_MS, disk full, ...) returns a negative code and leaves
 * the log as it was: the caller then denies the call.
 */
int	audit_append(struct audit *, const struct audit_row *, int64_t *seqp);

/* Last error text of the handle's database (for the operator's log). */
const char *audit_errmsg(struct audit *);

/*
 * Why the last audit_append() failed, as SQLite said it ("database or
 * disk is full", "database is locked", ...) before the rollback, for
 * the operator's log; the handle owns the text until the next append.
 */
const char *audit_append_error(const struct audit *);

/* Checkpoints the WAL and closes; accepts NULL. */
void	audit_close(struct audit *);

/*
 * Verifies the chain of a database file, opened read-only.  Returns 0 if
 * intact (an empty log is intact); -BNC_ERR_BAD_FORMAT with *bad_seq set
 * to the first bad row; -BNC_ERR_NOT_FOUND if the file or its decisions
 * table is missing; other negative codes for I/O errors.
 */
int	audit_verify(const char *dbpath, int64_t *bad_seq);

/*
 * As audit_verify(); also *nrows (may be NULL): rows checked, and a
 * description of the fault (or of the I/O error) in why.
 */
int	audit_verify_detail(const char *dbpath, int64_t *bad_seq,
	    int64_t *nrows, char *why, size_t whylen);

/*
 * Opens dbpath read-only for queries, with the same hardening as the
 * writer (no symlink, defensive, untrusted schema).  *out receives a
 * handle the caller closes with sqlite3_close().  Returns 0,
 * -BNC_ERR_NOT_FOUND if the file does not exist, or another negative
 * code, with a message in err.
 */
int	audit_open_readonly(const char *dbpath, struct sqlite3 **out,
	    char *err, size_t errlen);

/*
 * Drafts (create_draft, DESIGN 7): text an agent wrote for a target,
 * kept in the database beside the log so that an admin can sign it as
 * written (bouncer-issue-consent -D).  Never sent anywhere.
 */
struct audit_draft {
	int64_t		 id;
	char		*time;
	char		*agent;
	char		*target;
	char		*text;		/* exactly as the agent wrote it */
	size_t		 len;
	char		*text_sha256;	/* hex */
};
/* Stores a draft allowed by row seq: 0 and *idp, or a negative code. */
int	audit_draft_add(struct audit *, int64_t seq, const char *session,
	    const char *agent, const char *target, const char *text,
	    size_t len, int64_t *idp);
/* On a read-only handle: draft id (-BNC_ERR_NOT_FOUND), or each draft
 * (of agent, or all) in id order until fn returns non-zero. */
int	audit_draft_get(struct sqlite3 *, int64_t id, struct audit_draft *);
int	audit_drafts_each(struct sqlite3 *, const char *agent,
	    int (*fn)(const struct audit_draft *, void *), void *arg);
void	audit_draft_clear(struct audit_draft *);

/*
 * Out-of-band asks (DESIGN 5, 7): a call that waits for the admin is
 * registered in oob_asks (its canonical arguments without the consent
 * token, their SHA-256, why it asks, and when the wait ends); the admin
 * answers in oob_answers with bouncer-issue-consent.  Both tables are
 * append-only, an ask has at most one answer, and an answer is only a
 * claim: the monitor believes an approval for its signature alone.
 */
struct audit_oob_ask {
	int64_t		 id;
	char		*session;
	char		*agent;
	char		*tool;
	char		*args;		/* canonical JSON */
	size_t		 args_len;
	char		*args_sha256;	/* hex */
	char		*reason;	/* why it asks */
	int64_t		 created;	/* seconds since the epoch */
	int64_t		 expires;
	char		*answer;	/* "approve", "deny", "withdrawn", or
					 * NULL: no answer yet */
};
struct audit_oob_answer {
	char		*verdict;	/* each NULL if absent or not text */
	char		*signature;	/* hex */
	char		*key_id;	/* hex */
};
/*
 * The monitor registers a waiting call: 0 with its id in *idp and
 * SHA-256(args) in sha, or a negative code (the call is then denied).
 */
int	audit_oob_ask_add(struct audit *, const char *session,
	    const char *agent, const char *tool, const char *args, size_t len,
	    const char *reason, int64_t created, int64_t expires,
	    int64_t *idp, uint8_t sha[32]);
/* The answer to ask id: 0, -BNC_ERR_NOT_FOUND while there is none. */
int	audit_oob_answer_get(struct audit *, int64_t id,
	    struct audit_oob_answer *);
void	audit_oob_answer_clear(struct audit_oob_answer *);
/* Says that nobody waits for ask id any more (its call was cancelled
 * or its session ended). */
int	audit_oob_withdraw(struct audit *, int64_t id);
/*
 * bouncer-issue-consent's side.  audit_open_answerer opens an existing
 * database read-write (never creating it) with the writer's hardening,
 * WAL and busy timeout.  audit_oob_get (-BNC_ERR_NOT_FOUND) and
 * audit_oob_pending_each (unanswered, expires > now, in id order,
 * until fn returns non-zero) read asks; audit_oob_answer_put inserts
 * the answer, -BNC_ERR_USED if the ask has one.
 */
int	audit_open_answerer(const char *dbpath, struct sqlite3 **out,
	    char *err, size_t errlen);
int	audit_oob_get(struct sqlite3 *, int64_t id, struct audit_oob_ask *);
int	audit_oob_pending_each(struct sqlite3 *, int64_t now,
	    int (*fn)(const struct audit_oob_ask *, void *), void *arg);
int	audit_oob_answer_put(struct sqlite3 *, int64_t id, const char *verdict,
	    const char *sig, const char *key_id);
void	audit_oob_ask_clear(struct audit_oob_ask *);

/* Formats a time as the log stores it: RFC 3339 UTC with microseconds,
 * "YYYY-MM-DDTHH:MM:SS.uuuuuuZ" (27 bytes and a NUL). */
#define AUDIT_TIME_LEN		27
void	audit_format_time(int64_t sec, long usec, char out[AUDIT_TIME_LEN + 1]);

#endif /* BNC_AUDIT_H */
