/*
 * audit.c - the append-only, hash-chained decision log (DESIGN 9).
 *
 * Writes and verifies <state_dir>/audit.db.  Every row is committed
 * before the monitor acts on it; any failure here is a denial there, so
 * every path returns a code and none is fatal.  Sink parameters are kept
 * in clear, everything else of a call's arguments only as SHA-256 and
 * length unless audit.record_args is full.
 *
 * It must never parse JSON (arguments arrive as value trees and leave as
 * rendered text), never follow a symlink to the database, and never
 * change or delete a row: the triggers it installs refuse that to
 * everybody else too.
 *
 * The canonical row encoding (documented in bouncer-audit(8) as well):
 *
 *   hash = SHA-256(P || E)
 *   P    = the 32 bytes whose hex is prev_hash (the first row's prev_hash
 *          is AUDIT_GENESIS, 64 '0' characters)
 *   E    = the 14 columns seq, time, session, agent, upstream, tool,
 *          verdict, contract, reason, sinks, args_sha256, args_len, args,
 *          nonce, in that order, each encoded as
 *            NULL     one byte 0x00
 *            TEXT     one byte 0x01, its length in bytes as a 32-bit
 *                     big-endian integer, then its UTF-8 bytes (no NUL)
 *            INTEGER  one byte 0x02, then 8 bytes big-endian two's
 *                     complement
 *          seq and args_len are INTEGER, the others TEXT; an empty string
 *          is 0x01 00 00 00 00, never confused with NULL.
 *
 * prev_hash and hash are stored as lowercase hex.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>
#include <sqlite3.h>

#include "audit.h"
#include "bounds.h"
#include "buf.h"
#include "err.h"
#include "log.h"
#include "utf8.h"
#include "value.h"
#include "value-json.h"
#include "xmalloc.h"

#define HASH_LEN	crypto_hash_sha256_BYTES

enum field_type {
	F_NULL = 0x00,
	F_TEXT = 0x01,
	F_INT = 0x02
};

/* One column of the chained part of a row. */
struct field {
	enum field_type	 type;
	const char	*p;		/* F_TEXT */
	size_t		 len;
	int64_t		 i;		/* F_INT */
};

/* The chained columns, in encoding order (the order of SQL_COLUMNS). */
enum col {
	C_SEQ, C_TIME, C_SESSION, C_AGENT, C_UPSTREAM, C_TOOL, C_VERDICT,
	C_CONTRACT, C_REASON, C_SINKS, C_ARGS_SHA256, C_ARGS_LEN, C_ARGS,
	C_NONCE, C_NCOLS
};

#define SQL_COLUMNS \
	"seq, time, session, agent, upstream, tool, verdict, contract, " \
	"reason, sinks, args_sha256, args_len, args, nonce"

static const char *const verdicts[] = { "allow", "deny", "ask", "event" };
static const char *const contracts[] = {
	"identity", "grant", "pinning", "budget", "constraint", "sink_gate",
	"consent", "default",
	"event"		/* events in logs written before they used "default" */
};

/*
 * The schema.  The INSERT triggers refuse INSERT OR REPLACE, which would
 * otherwise delete the old row without firing a DELETE trigger, and any
 * seq but the next one.
 */
static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS decisions ("
	" seq INTEGER PRIMARY KEY,"
	" time TEXT NOT NULL,"
	" session TEXT NOT NULL,"
	" agent TEXT NOT NULL,"
	" upstream TEXT,"
	" tool TEXT NOT NULL,"
	" verdict TEXT NOT NULL,"
	" contract TEXT NOT NULL,"
	" reason TEXT,"
	" sinks TEXT,"
	" args_sha256 TEXT,"
	" args_len INTEGER,"
	" args TEXT,"
	" nonce TEXT,"
	" prev_hash TEXT NOT NULL,"
	" hash TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS consent_nonces ("
	" nonce TEXT PRIMARY KEY,"
	" seq INTEGER,"
	" time TEXT);"
	"CREATE TRIGGER IF NOT EXISTS decisions_no_update"
	" BEFORE UPDATE ON decisions"
	" BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;"
	"CREATE TRIGGER IF NOT EXISTS decisions_no_delete"
	" BEFORE DELETE ON decisions"
	" BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;"
	"CREATE TRIGGER IF NOT EXISTS decisions_append_only"
	" BEFORE INSERT ON decisions"
	" WHEN NEW.seq IS NOT (SELECT coalesce(max(seq), 0) + 1"
	" FROM decisions)"
	" BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;"
	"CREATE TRIGGER IF NOT EXISTS consent_nonces_no_update"
	" BEFORE UPDATE ON consent_nonces"
	" BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;"
	"CREATE TRIGGER IF NOT EXISTS consent_nonces_no_delete"
	" BEFORE DELETE ON consent_nonces"
	" BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;"
	"CREATE TRIGGER IF NOT EXISTS consent_nonces_no_replace"
	" BEFORE INSERT ON consent_nonces"
	" WHEN EXISTS (SELECT 1 FROM consent_nonces WHERE nonce = NEW.nonce)"
	" BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;"
	/* drafts agents stored (create_draft); seq: the row that allowed it */
	"CREATE TABLE IF NOT EXISTS drafts ("
	" id INTEGER PRIMARY KEY,"
	" seq INTEGER NOT NULL,"
	" time TEXT NOT NULL,"
	" session TEXT NOT NULL,"
	" agent TEXT NOT NULL,"
	" target TEXT NOT NULL,"
	" text TEXT NOT NULL,"
	" text_sha256 TEXT NOT NULL);"
	"CREATE TRIGGER IF NOT EXISTS drafts_no_update"
	" BEFORE UPDATE ON drafts"
	" BEGIN SELECT RAISE(ABORT, 'drafts are append-only'); END;"
	"CREATE TRIGGER IF NOT EXISTS drafts_no_delete"
	" BEFORE DELETE ON drafts"
	" BEGIN SELECT RAISE(ABORT, 'drafts are append-only'); END;"
	/*
	 * Out-of-band asks (DESIGN 5, 7): calls waiting for the admin, and
	 * the admin's answers.  The database is the one channel every
	 * monitor and bouncer-issue-consent share; what an answer is worth
	 * is its signature, which the monitor checks, never the row.  An id
	 * is never reused (no row leaves), and an ask has one answer.
	 */
	"CREATE TABLE IF NOT EXISTS oob_asks ("
	" id INTEGER PRIMARY KEY,"
	" session TEXT NOT NULL,"
	" agent TEXT NOT NULL,"
	" tool TEXT NOT NULL,"
	" args TEXT NOT NULL,"
	" args_sha256 TEXT NOT NULL,"
	" reason TEXT NOT NULL,"
	" created INTEGER NOT NULL,"
	" expires INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS oob_answers ("
	" ask_id INTEGER NOT NULL UNIQUE,"
	" verdict TEXT NOT NULL CHECK (verdict IN ('approve', 'deny',"
	" 'withdrawn')),"
	" signature TEXT,"
	" key_id TEXT,"
	" time TEXT NOT NULL);"
	"CREATE TRIGGER IF NOT EXISTS oob_asks_no_update"
	" BEFORE UPDATE ON oob_asks"
	" BEGIN SELECT RAISE(ABORT, 'asks are append-only'); END;"
	"CREATE TRIGGER IF NOT EXISTS oob_asks_no_delete"
	" BEFORE DELETE ON oob_asks"
	" BEGIN SELECT RAISE(ABORT, 'asks are append-only'); END;"
	"CREATE TRIGGER IF NOT EXISTS oob_asks_no_replace"
	" BEFORE INSERT ON oob_asks"
	" WHEN EXISTS (SELECT 1 FROM oob_asks WHERE id = NEW.id)"
	" BEGIN SELECT RAISE(ABORT, 'asks are append-only'); END;"
	"CREATE TRIGGER IF NOT EXISTS oob_answers_no_update"
	" BEFORE UPDATE ON oob_answers"
	" BEGIN SELECT RAISE(ABORT, 'answers are append-only'); END;"
	"CREATE TRIGGER IF NOT EXISTS oob_answers_no_delete"
	" BEFORE DELETE ON oob_answers"
	" BEGIN SELECT RAISE(ABORT, 'answers are append-only'); END;"
	"CREATE TRIGGER IF NOT EXISTS oob_answers_no_replace"
	" BEFORE INSERT ON oob_answers"
	" WHEN EXISTS (SELECT 1 FROM oob_answers WHERE ask_id = NEW.ask_id)"
	" BEGIN SELECT RAISE(ABORT, 'answers are append-only'); END;";

static int	draft_row(sqlite3_stmt *, struct audit_draft *);
static char	*column_text(sqlite3_stmt *, int, size_t *);
static int	harden(sqlite3 *);
static int	pragma_text(sqlite3 *, const char *, char *, size_t);

struct audit {
	sqlite3		*db;
	sqlite3_stmt	*begin;
	sqlite3_stmt	*last;
	sqlite3_stmt	*insert;
	sqlite3_stmt	*commit;
	sqlite3_stmt	*rollback;
	sqlite3_stmt	*nonce_used;
	sqlite3_stmt	*nonce_insert;
	sqlite3_stmt	*draft_insert;
	sqlite3_stmt	*oob_insert;
	sqlite3_stmt	*oob_answer;
	int		 record_full;
	struct buf	*canon;		/* the args' canonical JSON */
	struct buf	*sinks;		/* rendered sinks object */
	char		 why[256];	/* why the last append failed, taken
					 * before its rollback overwrote it */
	int		 ckpt_fd;	/* to the checkpointer, or -1 */
	int		 ckpt_step;	/* WAL pages / BNC_AUDIT_WAL_PAGES at
					 * the last request */
};

static void __attribute__((format(printf, 3, 4)))
seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Maps an SQLite result to ours: busy and locked are "try later". */
static int
sqlite_err(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return 0;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -BNC_ERR_AGAIN;
	case SQLITE_NOMEM:
		return -BNC_ERR_ALLOC;
	case SQLITE_TOOBIG:
		return -BNC_ERR_TOO_LARGE;
	case SQLITE_CANTOPEN:
		return -BNC_ERR_NOT_FOUND;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
	case SQLITE_SCHEMA:
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
		return -BNC_ERR_BAD_FORMAT;
	default:
		return -BNC_ERR_SYS;
	}
}

void
audit_format_time(int64_t sec, long usec, char out[AUDIT_TIME_LEN + 1])
{
	struct tm tm;
	time_t t = (time_t)sec;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(out, AUDIT_TIME_LEN + 1, "%Y-%m-%dT%H:%M:%S", &tm) !=
	    AUDIT_TIME_LEN - 8) {
		/* out of strftime's four-digit years: the epoch, visibly */
		snprintf(out, AUDIT_TIME_LEN + 1,
		    "1970-01-01T00:00:00.000000Z");
		return;
	}
	snprintf(out + AUDIT_TIME_LEN - 8, 9, ".%06uZ",
	    (unsigned)(usec < 0 ? 0 : usec) % 1000000U);
}

static void
now_time(char out[AUDIT_TIME_LEN + 1])
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) == -1)
		ts.tv_sec = ts.tv_nsec = 0;
	audit_format_time((int64_t)ts.tv_sec, ts.tv_nsec / 1000, out);
}

static void
put_be(uint8_t *p, uint64_t v, int n)
{
	while (n-- > 0) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
}

/* hash = SHA-256(prev || E); see the top of the file. */
static int
row_hash(const uint8_t prev[HASH_LEN], const struct field *f,
    uint8_t out[HASH_LEN])
{
	crypto_hash_sha256_state st;
	uint8_t hdr[9];
	size_t i;

	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, prev, HASH_LEN);
	for (i = 0; i < C_NCOLS; i++) {
		hdr[0] = (uint8_t)f[i].type;
		switch (f[i].type) {
		case F_NULL:
			crypto_hash_sha256_update(&st, hdr, 1);
			break;
		case F_TEXT:
			if (f[i].len > UINT32_MAX)
				return -BNC_ERR_TOO_LARGE;
			put_be(hdr + 1, f[i].len, 4);
			crypto_hash_sha256_update(&st, hdr, 5);
			crypto_hash_sha256_update(&st,
			    (const uint8_t *)f[i].p, f[i].len);
			break;
		case F_INT:
			put_be(hdr + 1, (uint64_t)f[i].i, 8);
			crypto_hash_sha256_update(&st, hdr, 9);
			break;
		default:
			return -BNC_ERR_INTERNAL;
		}
	}
	crypto_hash_sha256_final(&st, out);
	return 0;
}

static int
hex_to_hash(const char *hex, size_t len, uint8_t out[HASH_LEN])
{
	size_t n, i;

	if (hex == NULL || len != AUDIT_HASH_HEX)
		return -BNC_ERR_BAD_FORMAT;
	/* only the lowercase hex we write; sodium_hex2bin takes both cases */
	for (i = 0; i < len; i++)
		if (!((hex[i] >= '0' && hex[i] <= '9') ||
		    (hex[i] >= 'a' && hex[i] <= 'f')))
			return -BNC_ERR_BAD_FORMAT;
	if (sodium_hex2bin(out, HASH_LEN, hex, len, NULL, &n, NULL) != 0 ||
	    n != HASH_LEN)
		return -BNC_ERR_BAD_FORMAT;
	return 0;
}

static void
text_field(struct field *f, const char *s)
{
	if (s == NULL) {
		f->type = F_NULL;
		return;
	}
	f->type = F_TEXT;
	f->p = s;
	f->len = strlen(s);
}

static int
in_table(const char *s, const char *const *tab, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(s, tab[i]) == 0)
			return 1;
	return 0;
}

/* A short field: required or not, capped, UTF-8. */
static int
check_text(const char *s, int required)
{
	size_t n;

	if (s == NULL)
		return required ? -BNC_ERR_BAD_FORMAT : 0;
	if ((n = strlen(s)) > BNC_AUDIT_FIELD_MAX)
		return -BNC_ERR_TOO_LARGE;
	if (!utf8_valid(s, n))
		return -BNC_ERR_BAD_UTF8;
	return 0;
}

static int
check_row(const struct audit_row *row)
{
	int r;

	if (row == NULL)
		return -BNC_ERR_INTERNAL;
	if ((r = check_text(row->session, 1)) != 0 ||
	    (r = check_text(row->agent, 1)) != 0 ||
	    (r = check_text(row->upstream, 0)) != 0 ||
	    (r = check_text(row->tool, 1)) != 0 ||
	    (r = check_text(row->verdict, 1)) != 0 ||
	    (r = check_text(row->contract, 1)) != 0 ||
	    (r = check_text(row->nonce, 0)) != 0)
		return r;
	if (!in_table(row->verdict, verdicts,
	    sizeof(verdicts) / sizeof(verdicts[0])) ||
	    !in_table(row->contract, contracts,
	    sizeof(contracts) / sizeof(contracts[0])))
		return -BNC_ERR_BAD_FORMAT;
	if (row->nsinks > 0 && row->sinks == NULL)
		return -BNC_ERR_INTERNAL;
	if (row->reason != NULL &&
	    !utf8_valid(row->reason, strlen(row->reason)))
		return -BNC_ERR_BAD_UTF8;
	return 0;
}

/* {name: value} of the sink parameters present in args, in clear. */
static int
render_sinks(struct buf *out, const struct audit_row *row)
{
	struct value *o = value_object(), *v;
	size_t i;
	int r;

	for (i = 0; row->args != NULL && i < row->nsinks; i++) {
		if (row->sinks[i] == NULL ||
		    (v = value_get(row->args, row->sinks[i])) == NULL ||
		    value_get(o, row->sinks[i]) != NULL)
			continue;
		if ((r = value_object_set(o, row->sinks[i],
		    value_dup(v))) != 0)
			goto out;
	}
	r = value_render(out, o);
 out:
	value_free(o);
	return r;
}

static int
bind_field(sqlite3_stmt *st, int idx, const struct field *f)
{
	switch (f->type) {
	case F_NULL:
		return sqlite3_bind_null(st, idx);
	case F_TEXT:
		return sqlite3_bind_text64(st, idx, f->p, f->len,
		    SQLITE_STATIC, SQLITE_UTF8);
	case F_INT:
		return sqlite3_bind_int64(st, idx, f->i);
	}
	return SQLITE_MISUSE;
}

/* Runs a statement that returns no rows and resets it. */
static int
step_done(sqlite3_stmt *st)
{
	int rc;

	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/*
 * In the open transaction: records nonce as used by row seq, or
 * -BNC_ERR_USED if any monitor on this database used it before.
 */
static int
consume_nonce(struct audit *a, const char *nonce, int64_t seq,
    const char *time)
{
	int rc;

	if ((rc = sqlite3_bind_text(a->nonce_used, 1, nonce, -1,
	    SQLITE_STATIC)) != SQLITE_OK)
		return sqlite_err(rc);
	rc = sqlite3_step(a->nonce_used);
	sqlite3_reset(a->nonce_used);
	sqlite3_clear_bindings(a->nonce_used);
	if (rc == SQLITE_ROW)
		return -BNC_ERR_USED;
	if (rc != SQLITE_DONE)
		return sqlite_err(rc);
	if ((rc = sqlite3_bind_text(a->nonce_insert, 1, nonce, -1,
	    SQLITE_STATIC)) != SQLITE_OK ||
	    (rc = sqlite3_bind_int64(a->nonce_insert, 2, seq)) != SQLITE_OK ||
	    (rc = sqlite3_bind_text(a->nonce_insert, 3, time, -1,
	    SQLITE_STATIC)) != SQLITE_OK)
		rc = sqlite_err(rc);
	else
		rc = sqlite_err(step_done(a->nonce_insert));
	sqlite3_clear_bindings(a->nonce_insert);
	return rc;
}

/*
 * After each commit, with the WAL's length in pages: asks the
 * checkpointer once per BNC_AUDIT_WAL_PAGES more, and checkpoints here
 * when there is none (any more), or it does not keep up.  A PASSIVE
 * checkpoint never waits for another connection; the WAL starts over at
 * the first commit after one that copied it all.
 */
static int
wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct audit *a = arg;
	int step = pages / BNC_AUDIT_WAL_PAGES;

	if (a->ckpt_fd != -1 && step > a->ckpt_step &&
	    write(a->ckpt_fd, "c", 1) == -1 && errno != EAGAIN &&
	    errno != EINTR) {
		error("audit: the checkpointer is gone (%s); commits "
		    "checkpoint the log again", strerror(errno));
		close(a->ckpt_fd);
		a->ckpt_fd = -1;
	}
	a->ckpt_step = step;
	if ((a->ckpt_fd == -1 && pages >= BNC_AUDIT_WAL_PAGES) ||
	    pages >= BNC_AUDIT_WAL_PAGES_MAX)
		(void)sqlite3_wal_checkpoint_v2(db, name,
		    SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return SQLITE_OK;
}

void
audit_checkpoint_via(struct audit *a, int fd)
{
	int fl;

	if (a == NULL || fd == -1)
		return;
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1) {
		close(fd);
		return;
	}
	a->ckpt_fd = fd;
	a->ckpt_step = 0;
	/* replaces SQLite's own hook, its autocheckpoint */
	(void)sqlite3_wal_hook(a->db, wal_hook, a);
}

int
audit_append(struct audit *a, const struct audit_row *row, int64_t *seqp)
{
	struct field f[C_NCOLS];
	char tbuf[AUDIT_TIME_LEN + 1], args_hex[AUDIT_HASH_HEX + 1];
	char prev_hex[AUDIT_HASH_HEX + 1], hash_hex[AUDIT_HASH_HEX + 1];
	uint8_t prev[HASH_LEN], hash[HASH_LEN], digest[HASH_LEN];
	const unsigned char *lasthex;
	int64_t seq;
	size_t i;
	int rc = SQLITE_OK, r, intx = 0;

	if (a == NULL)
		return -BNC_ERR_INTERNAL;
	a->why[0] = '\0';
	if ((r = check_row(row)) != 0) {
		snprintf(a->why, sizeof(a->why), "%s", bnc_err(r));
		return r;
	}
	memset(f, 0, sizeof(f));

	/* Everything that does not depend on the chain, outside the lock. */
	buf_reset(a->canon);
	buf_reset(a->sinks);
	if ((r = render_sinks(a->sinks, row)) != 0)
		goto out;
	f[C_SINKS].type = F_TEXT;
	f[C_SINKS].p = (const char *)buf_ptr(a->sinks);
	f[C_SINKS].len = buf_len(a->sinks);
	/*
	 * The arguments' digest is of their canonical JSON (DESIGN 7, keys
	 * sorted, no whitespace), the form anyone can recompute from the
	 * call; recorded in full, they are that same text.
	 */
	if (row->args != NULL) {
		if ((r = value_render_canonical(a->canon, row->args)) != 0)
			goto out;
		crypto_hash_sha256(digest, buf_ptr(a->canon),
		    buf_len(a->canon));
		sodium_bin2hex(args_hex, sizeof(args_hex), digest,
		    sizeof(digest));
		text_field(&f[C_ARGS_SHA256], args_hex);
		f[C_ARGS_LEN].type = F_INT;
		f[C_ARGS_LEN].i = (int64_t)buf_len(a->canon);
		if (a->record_full) {
			f[C_ARGS].type = F_TEXT;
			f[C_ARGS].p = (const char *)buf_ptr(a->canon);
			f[C_ARGS].len = buf_len(a->canon);
		}
	}
	text_field(&f[C_SESSION], row->session);
	text_field(&f[C_AGENT], row->agent);
	text_field(&f[C_UPSTREAM], row->upstream);
	text_field(&f[C_TOOL], row->tool);
	text_field(&f[C_VERDICT], row->verdict);
	text_field(&f[C_CONTRACT], row->contract);
	text_field(&f[C_REASON], row->reason);
	if (row->reason != NULL)
		f[C_REASON].len = utf8_cut(row->reason, f[C_REASON].len,
		    BNC_REASON_MAX);
	text_field(&f[C_NONCE], row->nonce);

	/* The chain: read the head and write the next row in one lock. */
	if ((rc = step_done(a->begin)) != SQLITE_OK) {
		r = sqlite_err(rc);
		goto out;
	}
	intx = 1;
	rc = sqlite3_step(a->last);
	if (rc == SQLITE_ROW) {
		seq = sqlite3_column_int64(a->last, 0);
		lasthex = sqlite3_column_text(a->last, 1);
		r = hex_to_hash((const char *)lasthex,
		    lasthex == NULL ? 0 : (size_t)sqlite3_column_bytes(a->last,
		    1), prev);
		if (r == 0)
			memcpy(prev_hex, lasthex, AUDIT_HASH_HEX + 1);
		sqlite3_reset(a->last);
		/* a broken head: refuse to chain on it */
		if (r != 0)
			goto out;
		if (seq < 0 || seq == INT64_MAX) {
			r = -BNC_ERR_TOO_LARGE;
			goto out;
		}
		seq++;
	} else if (rc == SQLITE_DONE) {
		sqlite3_reset(a->last);
		seq = 1;
		memset(prev, 0, sizeof(prev));
		memcpy(prev_hex, AUDIT_GENESIS, sizeof(prev_hex));
	} else {
		sqlite3_reset(a->last);
		r = sqlite_err(rc);
		goto out;
	}
	now_time(tbuf);
	f[C_SEQ].type = F_INT;
	f[C_SEQ].i = seq;
	text_field(&f[C_TIME], tbuf);
	if ((r = row_hash(prev, f, hash)) != 0)
		goto out;
	sodium_bin2hex(hash_hex, sizeof(hash_hex), hash, sizeof(hash));
	/*
	 * A consent nonce is consumed by the transaction that records its
	 * decision, under the same write lock: of two monitors racing on
	 * one nonce, the second sees the first's and writes nothing.
	 */
	if (row->nonce != NULL && (r = consume_nonce(a, row->nonce, seq,
	    tbuf)) != 0)
		goto out;

	for (i = 0; i < C_NCOLS; i++)
		if ((rc = bind_field(a->insert, (int)i + 1, &f[i])) !=
		    SQLITE_OK)
			break;
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(a->insert, C_NCOLS + 1, prev_hex,
		    AUDIT_HASH_HEX, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(a->insert, C_NCOLS + 2, hash_hex,
		    AUDIT_HASH_HEX, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = step_done(a->insert);
	sqlite3_clear_bindings(a->insert);
	if (rc != SQLITE_OK) {
		r = sqlite_err(rc);
		goto out;
	}
	if ((rc = step_done(a->commit)) != SQLITE_OK) {
		r = sqlite_err(rc);
		goto out;
	}
	intx = 0;
	if (seqp != NULL)
		*seqp = seq;
	r = 0;
 out:
	if (r == 0 && rc != SQLITE_OK)
		r = -BNC_ERR_INTERNAL;
	if (r != 0)
		snprintf(a->why, sizeof(a->why), "%s", rc != SQLITE_OK ?
		    sqlite3_errmsg(a->db) : bnc_err(r));
	if (intx && !sqlite3_get_autocommit(a->db))
		(void)step_done(a->rollback);
	return r;
}

int
audit_draft_add(struct audit *a, int64_t seq, const char *session,
    const char *agent, const char *target, const char *text, size_t len,
    int64_t *idp)
{
	char tbuf[AUDIT_TIME_LEN + 1], hex[AUDIT_HASH_HEX + 1];
	uint8_t h[HASH_LEN];
	int rc;

	if (a == NULL || len > INT_MAX || !utf8_valid(text, len) ||
	    memchr(text, '\0', len) != NULL)
		return -BNC_ERR_BAD_FORMAT;
	crypto_hash_sha256(h, (const uint8_t *)text, len);
	sodium_bin2hex(hex, sizeof(hex), h, sizeof(h));
	now_time(tbuf);
	if ((rc = sqlite3_bind_int64(a->draft_insert, 1, seq)) != SQLITE_OK ||
	    (rc = sqlite3_bind_text(a->draft_insert, 2, tbuf, -1,
	    SQLITE_STATIC)) != SQLITE_OK ||
	    (rc = sqlite3_bind_text(a->draft_insert, 3, session, -1,
	    SQLITE_STATIC)) != SQLITE_OK ||
	    (rc = sqlite3_bind_text(a->draft_insert, 4, agent, -1,
	    SQLITE_STATIC)) != SQLITE_OK ||
	    (rc = sqlite3_bind_text(a->draft_insert, 5, target, -1,
	    SQLITE_STATIC)) != SQLITE_OK ||
	    (rc = sqlite3_bind_text(a->draft_insert, 6, text, (int)len,
	    SQLITE_STATIC)) != SQLITE_OK ||
	    (rc = sqlite3_bind_text(a->draft_insert, 7, hex, -1,
	    SQLITE_STATIC)) != SQLITE_OK)
		goto out;
	rc = step_done(a->draft_insert);
	if (rc == SQLITE_OK && idp != NULL)
		*idp = sqlite3_last_insert_rowid(a->db);
 out:
	sqlite3_clear_bindings(a->draft_insert);
	return sqlite_err(rc);
}

int
audit_draft_get(struct sqlite3 *db, int64_t id, struct audit_draft *d)
{
	sqlite3_stmt *st = NULL;
	int rc, r;

	memset(d, 0, sizeof(*d));
	if ((rc = sqlite3_prepare_v2(db, "SELECT id, time, agent, target, "
	    "text, text_sha256 FROM drafts WHERE id = ?1", -1, &st,
	    NULL)) != SQLITE_OK ||
	    (rc = sqlite3_bind_int64(st, 1, id)) != SQLITE_OK) {
		sqlite3_finalize(st);
		return sqlite_err(rc);
	}
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		r = draft_row(st, d);
	else
		r = rc == SQLITE_DONE ? -BNC_ERR_NOT_FOUND : sqlite_err(rc);
	sqlite3_finalize(st);
	return r;
}

int
audit_drafts_each(struct sqlite3 *db, const char *agent,
    int (*fn)(const struct audit_draft *, void *), void *arg)
{
	struct audit_draft d;
	sqlite3_stmt *st = NULL;
	int rc, r = 0;

	if ((rc = sqlite3_prepare_v2(db, agent != NULL ?
	    "SELECT id, time, agent, target, text, text_sha256 FROM drafts "
	    "WHERE agent = ?1 ORDER BY id" :
	    "SELECT id, time, agent, target, text, text_sha256 FROM drafts "
	    "ORDER BY id", -1, &st, NULL)) != SQLITE_OK ||
	    (agent != NULL && (rc = sqlite3_bind_text(st, 1, agent, -1,
	    SQLITE_STATIC)) != SQLITE_OK)) {
		sqlite3_finalize(st);
		return sqlite_err(rc);
	}
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((r = draft_row(st, &d)) == 0)
			r = fn(&d, arg);
		audit_draft_clear(&d);
	}
	if (r == 0 && rc != SQLITE_DONE && rc != SQLITE_ROW)
		r = sqlite_err(rc);
	sqlite3_finalize(st);
	return r;
}

void
audit_draft_clear(struct audit_draft *d)
{
	free(d->time);
	free(d->agent);
	free(d->target);
	free(d->text);
	free(d->text_sha256);
	memset(d, 0, sizeof(*d));
}

/* ---- out-of-band asks ---------------------------------------------- */

int
audit_oob_ask_add(struct audit *a, const char *session, const char *agent,
    const char *tool, const char *args, size_t len, const char *reason,
    int64_t created, int64_t expires, int64_t *idp, uint8_t sha[32])
{
	char hex[AUDIT_HASH_HEX + 1];
	int rc;

	if (a == NULL || len > BNC_OOB_ARGS_MAX || !utf8_valid(args, len) ||
	    memchr(args, '\0', len) != NULL || check_text(session, 1) != 0 ||
	    check_text(agent, 1) != 0 || check_text(tool, 1) != 0 ||
	    reason == NULL || !utf8_valid(reason, strlen(reason)))
		return -BNC_ERR_BAD_FORMAT;
	crypto_hash_sha256(sha, (const uint8_t *)args, len);
	sodium_bin2hex(hex, sizeof(hex), sha, HASH_LEN);
	if ((rc = sqlite3_bind_text(a->oob_insert, 1, session, -1,
	    SQLITE_STATIC)) != SQLITE_OK ||
	    (rc = sqlite3_bind_text(a->oob_insert, 2, agent, -1,
	    SQLITE_STATIC)) != SQLITE_OK ||
	    (rc = sqlite3_bind_text(a->oob_insert, 3, tool, -1,
	    SQLITE_STATIC)) != SQLITE_OK ||
	    (rc = sqlite3_bind_text(a->oob_insert, 4, args, (int)len,
	    SQLITE_STATIC)) != SQLITE_OK ||
	    (rc = sqlite3_bind_text(a->oob_insert, 5, hex, -1,
	    SQLITE_STATIC)) != SQLITE_OK ||
	    (rc = sqlite3_bind_text(a->oob_insert, 6, reason, -1,
	    SQLITE_STATIC)) != SQLITE_OK ||
	    (rc = sqlite3_bind_int64(a->oob_insert, 7, created)) != SQLITE_OK ||
	    (rc = sqlite3_bind_int64(a->oob_insert, 8, expires)) != SQLITE_OK)
		goto out;
	rc = step_done(a->oob_insert);
	if (rc == SQLITE_OK)
		*idp = sqlite3_last_insert_rowid(a->db);
 out:
	sqlite3_clear_bindings(a->oob_insert);
	return sqlite_err(rc);
}

int
audit_oob_answer_get(struct audit *a, int64_t id, struct audit_oob_answer *ans)
{
	int rc, r;

	memset(ans, 0, sizeof(*ans));
	if (a == NULL)
		return -BNC_ERR_INTERNAL;
	if ((rc = sqlite3_bind_int64(a->oob_answer, 1, id)) != SQLITE_OK)
		return sqlite_err(rc);
	if ((rc = sqlite3_step(a->oob_answer)) == SQLITE_ROW) {
		/* a column that is not text is no answer of ours: NULL */
		ans->verdict = column_text(a->oob_answer, 0, NULL);
		ans->signature = column_text(a->oob_answer, 1, NULL);
		ans->key_id = column_text(a->oob_answer, 2, NULL);
		r = 0;
	} else
		r = rc == SQLITE_DONE ? -BNC_ERR_NOT_FOUND : sqlite_err(rc);
	sqlite3_reset(a->oob_answer);
	sqlite3_clear_bindings(a->oob_answer);
	return r;
}

void
audit_oob_answer_clear(struct audit_oob_answer *ans)
{
	free(ans->verdict);
	free(ans->signature);
	free(ans->key_id);
	memset(ans, 0, sizeof(*ans));
}

#define OOB_SELECT \
	"SELECT a.id, a.session, a.agent, a.tool, a.args, a.args_sha256, " \
	"a.reason, a.created, a.expires, w.verdict FROM oob_asks a " \
	"LEFT JOIN oob_answers w ON w.ask_id = a.id "

static int
oob_row(sqlite3_stmt *st, struct audit_oob_ask *k)
{
	memset(k, 0, sizeof(*k));
	k->id = sqlite3_column_int64(st, 0);
	k->created = sqlite3_column_int64(st, 7);
	k->expires = sqlite3_column_int64(st, 8);
	if ((k->session = column_text(st, 1, NULL)) == NULL ||
	    (k->agent = column_text(st, 2, NULL)) == NULL ||
	    (k->tool = column_text(st, 3, NULL)) == NULL ||
	    (k->args = column_text(st, 4, &k->args_len)) == NULL ||
	    (k->args_sha256 = column_text(st, 5, NULL)) == NULL ||
	    (k->reason = column_text(st, 6, NULL)) == NULL ||
	    (sqlite3_column_type(st, 9) != SQLITE_NULL &&
	    (k->answer = column_text(st, 9, NULL)) == NULL)) {
		audit_oob_ask_clear(k);
		return -BNC_ERR_BAD_FORMAT;
	}
	return 0;
}

int
audit_oob_get(struct sqlite3 *db, int64_t id, struct audit_oob_ask *k)
{
	sqlite3_stmt *st = NULL;
	int rc, r;

	memset(k, 0, sizeof(*k));
	if ((rc = sqlite3_prepare_v2(db, OOB_SELECT "WHERE a.id = ?1", -1,
	    &st, NULL)) != SQLITE_OK ||
	    (rc = sqlite3_bind_int64(st, 1, id)) != SQLITE_OK) {
		sqlite3_finalize(st);
		return sqlite_err(rc);
	}
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		r = oob_row(st, k);
	else
		r = rc == SQLITE_DONE ? -BNC_ERR_NOT_FOUND : sqlite_err(rc);
	sqlite3_finalize(st);
	return r;
}

int
audit_oob_pending_each(struct sqlite3 *db, int64_t now,
    int (*fn)(const struct audit_oob_ask *, void *), void *arg)
{
	struct audit_oob_ask k;
	sqlite3_stmt *st = NULL;
	int rc, r = 0;

	if ((rc = sqlite3_prepare_v2(db, OOB_SELECT "WHERE w.ask_id IS NULL "
	    "AND a.expires > ?1 ORDER BY a.id", -1, &st, NULL)) !=
	    SQLITE_OK ||
	    (rc = sqlite3_bind_int64(st, 1, now)) != SQLITE_OK) {
		sqlite3_finalize(st);
		return sqlite_err(rc);
	}
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((r = oob_row(st, &k)) == 0)
			r = fn(&k, arg);
		audit_oob_ask_clear(&k);
	}
	if (r == 0 && rc != SQLITE_DONE && rc != SQLITE_ROW)
		r = sqlite_err(rc);
	sqlite3_finalize(st);
	return r;
}

void
audit_oob_ask_clear(struct audit_oob_ask *k)
{
	free(k->session);
	free(k->agent);
	free(k->tool);
	free(k->args);
	free(k->args_sha256);
	free(k->reason);
	free(k->answer);
	memset(k, 0, sizeof(*k));
}

static int
oob_answer_put(sqlite3 *db, int64_t id, const char *verdict, const char *sig,
    const char *key_id)
{
	char tbuf[AUDIT_TIME_LEN + 1];
	sqlite3_stmt *st = NULL;
	int rc;

	now_time(tbuf);
	if ((rc = sqlite3_prepare_v2(db, "INSERT INTO oob_answers (ask_id, "
	    "verdict, signature, key_id, time) VALUES (?1, ?2, ?3, ?4, ?5)",
	    -1, &st, NULL)) != SQLITE_OK ||
	    (rc = sqlite3_bind_int64(st, 1, id)) != SQLITE_OK ||
	    (rc = sqlite3_bind_text(st, 2, verdict, -1,
	    SQLITE_STATIC)) != SQLITE_OK ||
	    (rc = sig != NULL ? sqlite3_bind_text(st, 3, sig, -1,
	    SQLITE_STATIC) : sqlite3_bind_null(st, 3)) != SQLITE_OK ||
	    (rc = key_id != NULL ? sqlite3_bind_text(st, 4, key_id, -1,
	    SQLITE_STATIC) : sqlite3_bind_null(st, 4)) != SQLITE_OK ||
	    (rc = sqlite3_bind_text(st, 5, tbuf, -1, SQLITE_STATIC)) !=
	    SQLITE_OK)
		goto out;
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		rc = SQLITE_OK;
 out:
	sqlite3_finalize(st);
	/* the UNIQUE column or the trigger: it has its answer already */
	if ((rc & 0xff) == SQLITE_CONSTRAINT)
		return -BNC_ERR_USED;
	return sqlite_err(rc);
}

int
audit_oob_answer_put(struct sqlite3 *db, int64_t id, const char *verdict,
    const char *sig, const char *key_id)
{
	return oob_answer_put(db, id, verdict, sig, key_id);
}

/* A call that stopped waiting (cancelled, its session ended): the admin
 * is told so, rather than approving what nobody waits for. */
int
audit_oob_withdraw(struct audit *a, int64_t id)
{
	if (a == NULL)
		return -BNC_ERR_INTERNAL;
	return oob_answer_put(a->db, id, "withdrawn", NULL, NULL);
}

const char *
audit_errmsg(struct audit *a)
{
	if (a == NULL || a->db == NULL)
		return "no database";
	return sqlite3_errmsg(a->db);
}

const char *
audit_append_error(const struct audit *a)
{
	if (a == NULL)
		return "no database";
	return a->why[0] != '\0' ? a->why : "no error";
}

/* mkdir -p with mode 0700 for every directory it creates. */
static int
make_dirs(const char *path, char *err, size_t errlen)
{
	struct stat st;
	char *p = NULL, *s;
	int r = -BNC_ERR_SYS;

	p = xstrdup(path);
	for (s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		if (s[-1] != '/') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0700) == -1 && errno != EEXIST) {
				seterr(err, errlen, "cannot create %s: %s", p,
				    strerror(errno));
				goto out;
			}
			*s = c;
		}
		if (*s == '\0')
			break;
	}
	if (stat(path, &st) == -1) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISDIR(st.st_mode)) {
		seterr(err, errlen, "%s is not a directory", path);
		r = -BNC_ERR_CONFIG;
		goto out;
	}
	r = 0;
 out:
	free(p);
	return r;
}

static int
prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
	return sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st,
	    NULL);
}

/* Connection settings both the writer and the readers get. */
static int
harden(sqlite3 *db)
{
	int rc;

	sqlite3_extended_result_codes(db, 1);
	if ((rc = sqlite3_busy_timeout(db, BNC_AUDIT_BUSY_MS)) != SQLITE_OK ||
	    (rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1,
	    NULL)) != SQLITE_OK ||
	    (rc = sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0,
	    NULL)) != SQLITE_OK ||
	    (rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION,
	    0, NULL)) != SQLITE_OK)
		return rc;
	return SQLITE_OK;
}

/* The value of a one-row PRAGMA, as text, into out. */
static int
pragma_text(sqlite3 *db, const char *sql, char *out, size_t outlen)
{
	sqlite3_stmt *st = NULL;
	const unsigned char *t;
	int rc;

	out[0] = '\0';
	if ((rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL)) != SQLITE_OK)
		return rc;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((t = sqlite3_column_text(st, 0)) != NULL)
			snprintf(out, outlen, "%s", (const char *)t);
		rc = SQLITE_OK;
	} else if (rc == SQLITE_DONE)
		rc = SQLITE_OK;
	sqlite3_finalize(st);
	return rc;
}

/*
 * PRAGMA journal_mode = WAL, waiting as the busy timeout would: while
 * another process creates the same new database, SQLite fails the
 * switch at once with SQLITE_BUSY rather than calling the busy handler,
 * and monitors that start together must all start.
 */
static int
wal_mode(sqlite3 *db, char *mode, size_t len)
{
	int rc, waited;

	for (waited = 0; ; waited += 10) {
		rc = pragma_text(db, "PRAGMA journal_mode = WAL", mode, len);
		if ((rc & 0xff) != SQLITE_BUSY || waited >= BNC_AUDIT_BUSY_MS)
			return rc;
		usleep(10 * 1000);
	}
}

/* Creates the schema, or checks that an existing one is ours. */
static int
setup_schema(sqlite3 *db, char *err, size_t errlen)
{
	char v[32], *sql = NULL;
	long ver;
	int rc;

	if ((rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) !=
	    SQLITE_OK)
		goto fail;
	if ((rc = pragma_text(db, "PRAGMA user_version", v, sizeof(v))) !=
	    SQLITE_OK)
		goto fail;
	ver = strtol(v, NULL, 10);
	if (ver > AUDIT_SCHEMA_VERSION || ver < 0) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		seterr(err, errlen, "schema version %ld; this bouncer knows "
		    "%d", ver, AUDIT_SCHEMA_VERSION);
		return -BNC_ERR_BAD_VERSION;
	}
	xasprintf(&sql, "%s PRAGMA user_version = %d;", schema_sql,
	    AUDIT_SCHEMA_VERSION);
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	free(sql);
	if (rc != SQLITE_OK ||
	    (rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
		goto fail;
	return 0;
 fail:
	seterr(err, errlen, "schema: %s", sqlite3_errmsg(db));
	if (!sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return sqlite_err(rc);
}

int
audit_open(const char *state_dir, enum audit_sync sync, int record_full,
    struct audit **out, char *err, size_t errlen)
{
	struct audit *a = NULL;
	struct stat st;
	char *path = NULL, mode[32], pragma[64];
	int fd = -1, rc, r = -BNC_ERR_INTERNAL;

	*out = NULL;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (sodium_init() == -1) {
		seterr(err, errlen, "libsodium did not initialise");
		goto out;
	}
	if (state_dir == NULL || *state_dir == '\0') {
		seterr(err, errlen, "no state directory");
		r = -BNC_ERR_CONFIG;
		goto out;
	}
	if (strlen(state_dir) + sizeof("/" AUDIT_DB_NAME) > BNC_PATH_MAX) {
		seterr(err, errlen, "state directory path too long");
		r = -BNC_ERR_TOO_LARGE;
		goto out;
	}
	if (sync != AUDIT_SYNC_NORMAL && sync != AUDIT_SYNC_FULL) {
		seterr(err, errlen, "bad audit.sync");
		goto out;
	}
	if ((r = make_dirs(state_dir, err, errlen)) != 0)
		goto out;
	xasprintf(&path, "%s/" AUDIT_DB_NAME, state_dir);

	/* The file first, so it is 0600 (SQLite gives -wal/-shm its mode). */
	if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600)) == -1 || fstat(fd, &st) == -1) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		r = -BNC_ERR_SYS;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		seterr(err, errlen, "%s is not a regular file", path);
		r = -BNC_ERR_BAD_FORMAT;
		goto out;
	}
	close(fd);
	fd = -1;

	a = xcalloc(1, sizeof(*a));
	a->ckpt_fd = -1;
	a->record_full = record_full != 0;
	a->canon = buf_new();
	a->sinks = buf_new();
	rc = sqlite3_open_v2(path, &a->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_PRIVATECACHE, NULL);
	if (rc != SQLITE_OK || (rc = harden(a->db)) != SQLITE_OK)
		goto sqlfail;
	if (sqlite3_db_readonly(a->db, "main") != 0) {
		seterr(err, errlen, "%s is read-only", path);
		r = -BNC_ERR_SYS;
		goto out;
	}
	if ((rc = wal_mode(a->db, mode, sizeof(mode))) != SQLITE_OK)
		goto sqlfail;
	if (strcmp(mode, "wal") != 0) {
		seterr(err, errlen, "%s: cannot use WAL (journal mode %s)",
		    path, mode);
		r = -BNC_ERR_SYS;
		goto out;
	}
	snprintf(pragma, sizeof(pragma), "PRAGMA synchronous = %s",
	    sync == AUDIT_SYNC_FULL ? "FULL" : "NORMAL");
	if ((rc = sqlite3_exec(a->db, pragma, NULL, NULL, NULL)) != SQLITE_OK)
		goto sqlfail;
	if ((r = setup_schema(a->db, err, errlen)) != 0)
		goto out;
	if ((rc = prepare(a->db, "BEGIN IMMEDIATE", &a->begin)) !=
	    SQLITE_OK ||
	    (rc = prepare(a->db, "SELECT seq, hash FROM decisions "
	    "ORDER BY seq DESC LIMIT 1", &a->last)) != SQLITE_OK ||
	    (rc = prepare(a->db, "INSERT INTO decisions (" SQL_COLUMNS
	    ", prev_hash, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
	    "?10, ?11, ?12, ?13, ?14, ?15, ?16)", &a->insert)) != SQLITE_OK ||
	    (rc = prepare(a->db, "COMMIT", &a->commit)) != SQLITE_OK ||
	    (rc = prepare(a->db, "ROLLBACK", &a->rollback)) != SQLITE_OK ||
	    (rc = prepare(a->db, "SELECT 1 FROM consent_nonces WHERE "
	    "nonce = ?1", &a->nonce_used)) != SQLITE_OK ||
	    (rc = prepare(a->db, "INSERT INTO consent_nonces (nonce, seq, "
	    "time) VALUES (?1, ?2, ?3)", &a->nonce_insert)) != SQLITE_OK ||
	    (rc = prepare(a->db, "INSERT INTO drafts (seq, time, session, "
	    "agent, target, text, text_sha256) VALUES (?1, ?2, ?3, ?4, ?5, "
	    "?6, ?7)", &a->draft_insert)) != SQLITE_OK ||
	    (rc = prepare(a->db, "INSERT INTO oob_asks (session, agent, tool, "
	    "args, args_sha256, reason, created, expires) VALUES (?1, ?2, ?3, "
	    "?4, ?5, ?6, ?7, ?8)", &a->oob_insert)) != SQLITE_OK ||
	    (rc = prepare(a->db, "SELECT verdict, signature, key_id FROM "
	    "oob_answers WHERE ask_id = ?1", &a->oob_answer)) != SQLITE_OK)
		goto sqlfail;
	*out = a;
	a = NULL;
	r = 0;
	goto out;
 sqlfail:
	seterr(err, errlen, "%s: %s", path, a->db != NULL ?
	    sqlite3_errmsg(a->db) : sqlite3_errstr(rc));
	r = sqlite_err(rc);
	if (r == 0)
		r = -BNC_ERR_INTERNAL;
 out:
	if (fd != -1)
		close(fd);
	free(path);
	audit_close(a);
	return r;
}

void
audit_close(struct audit *a)
{
	if (a == NULL)
		return;
	sqlite3_finalize(a->begin);
	sqlite3_finalize(a->last);
	sqlite3_finalize(a->insert);
	sqlite3_finalize(a->commit);
	sqlite3_finalize(a->rollback);
	sqlite3_finalize(a->nonce_used);
	sqlite3_finalize(a->nonce_insert);
	sqlite3_finalize(a->draft_insert);
	sqlite3_finalize(a->oob_insert);
	sqlite3_finalize(a->oob_answer);
	if (a->db != NULL) {
		if (!sqlite3_get_autocommit(a->db))
			sqlite3_exec(a->db, "ROLLBACK", NULL, NULL, NULL);
		/* Passive: another monitor may still be writing. */
		(void)sqlite3_wal_checkpoint_v2(a->db, NULL,
		    SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		sqlite3_close(a->db);
	}
	/* the checkpointer reads its end of the pipe and exits */
	if (a->ckpt_fd != -1)
		close(a->ckpt_fd);
	buf_free(a->canon);
	buf_free(a->sinks);
	free(a);
}

int
audit_open_readonly(const char *dbpath, struct sqlite3 **out, char *err,
    size_t errlen)
{
	sqlite3 *db = NULL;
	struct stat st;
	int rc, r;

	*out = NULL;
	if (lstat(dbpath, &st) == -1) {
		seterr(err, errlen, "%s: %s", dbpath, strerror(errno));
		return errno == ENOENT ? -BNC_ERR_NOT_FOUND : -BNC_ERR_SYS;
	}
	if (!S_ISREG(st.st_mode)) {
		seterr(err, errlen, "%s is not a regular file", dbpath);
		return -BNC_ERR_BAD_FORMAT;
	}
	rc = sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY |
	    SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_PRIVATECACHE, NULL);
	if (rc != SQLITE_OK || (rc = harden(db)) != SQLITE_OK ||
	    (rc = sqlite3_exec(db, "PRAGMA query_only = 1", NULL, NULL,
	    NULL)) != SQLITE_OK) {
		seterr(err, errlen, "%s: %s", dbpath, db != NULL ?
		    sqlite3_errmsg(db) : sqlite3_errstr(rc));
		r = sqlite_err(rc);
		sqlite3_close(db);
		return r != 0 ? r : -BNC_ERR_INTERNAL;
	}
	*out = db;
	return 0;
}

int
audit_open_answerer(const char *dbpath, struct sqlite3 **out, char *err,
    size_t errlen)
{
	sqlite3 *db = NULL;
	struct stat st;
	char mode[32];
	int rc, r;

	*out = NULL;
	if (lstat(dbpath, &st) == -1) {
		seterr(err, errlen, "%s: %s", dbpath, strerror(errno));
		return errno == ENOENT ? -BNC_ERR_NOT_FOUND : -BNC_ERR_SYS;
	}
	if (!S_ISREG(st.st_mode)) {
		seterr(err, errlen, "%s is not a regular file", dbpath);
		return -BNC_ERR_BAD_FORMAT;
	}
	/* never created here: only a monitor makes the database */
	rc = sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_PRIVATECACHE, NULL);
	if (rc == SQLITE_OK && (rc = harden(db)) == SQLITE_OK &&
	    (rc = pragma_text(db, "PRAGMA journal_mode = WAL", mode,
	    sizeof(mode))) == SQLITE_OK && strcmp(mode, "wal") != 0) {
		seterr(err, errlen, "%s: cannot use WAL (journal mode %s)",
		    dbpath, mode);
		sqlite3_close(db);
		return -BNC_ERR_SYS;
	}
	if (rc == SQLITE_OK && sqlite3_db_readonly(db, "main") != 0) {
		seterr(err, errlen, "%s is read-only to this user", dbpath);
		sqlite3_close(db);
		return -BNC_ERR_SYS;
	}
	if (rc != SQLITE_OK) {
		seterr(err, errlen, "%s: %s", dbpath, db != NULL ?
		    sqlite3_errmsg(db) : sqlite3_errstr(rc));
		r = sqlite_err(rc);
		sqlite3_close(db);
		return r != 0 ? r : -BNC_ERR_INTERNAL;
	}
	*out = db;
	return 0;
}

/*
 * A draft as the table holds it; a column that is not text is refused
 * (the file may have been edited), and so is text that is not UTF-8.
 */
static char *
column_text(sqlite3_stmt *st, int i, size_t *lenp)
{
	const unsigned char *p;
	size_t n;
	char *s;

	if (sqlite3_column_type(st, i) != SQLITE_TEXT)
		return NULL;
	p = sqlite3_column_text(st, i);
	n = (size_t)sqlite3_column_bytes(st, i);
	if (p == NULL || !utf8_valid((const char *)p, n) ||
	    memchr(p, '\0', n) != NULL)
		return NULL;
	s = xmalloc(n + 1);
	memcpy(s, p, n);
	s[n] = '\0';
	if (lenp != NULL)
		*lenp = n;
	return s;
}

static int
draft_row(sqlite3_stmt *st, struct audit_draft *d)
{
	memset(d, 0, sizeof(*d));
	d->id = sqlite3_column_int64(st, 0);
	if ((d->time = column_text(st, 1, NULL)) == NULL ||
	    (d->agent = column_text(st, 2, NULL)) == NULL ||
	    (d->target = column_text(st, 3, NULL)) == NULL ||
	    (d->text = column_text(st, 4, &d->len)) == NULL ||
	    (d->text_sha256 = column_text(st, 5, NULL)) == NULL) {
		audit_draft_clear(d);
		return -BNC_ERR_BAD_FORMAT;
	}
	return 0;
}

/* Loads column i of the verifier's row into f, by storage class. */
static int
column_field(sqlite3_stmt *st, int i, struct field *f)
{
	int want = (i == C_SEQ || i == C_ARGS_LEN) ? SQLITE_INTEGER :
	    SQLITE_TEXT;

	memset(f, 0, sizeof(*f));
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		f->type = F_NULL;
		return 0;
	case SQLITE_INTEGER:
		if (want != SQLITE_INTEGER)
			return -BNC_ERR_BAD_FORMAT;
		f->type = F_INT;
		f->i = sqlite3_column_int64(st, i);
		return 0;
	case SQLITE_TEXT:
		if (want != SQLITE_TEXT)
			return -BNC_ERR_BAD_FORMAT;
		f->type = F_TEXT;
		f->p = (const char *)sqlite3_column_text(st, i);
		f->len = (size_t)sqlite3_column_bytes(st, i);
		if (f->p == NULL)
			return -BNC_ERR_ALLOC;
		return 0;
	}
	return -BNC_ERR_BAD_FORMAT;	/* REAL or BLOB: we never write them */
}

int
audit_verify_detail(const char *dbpath, int64_t *bad_seq, int64_t *nrows,
    char *why, size_t whylen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct field f[C_NCOLS];
	uint8_t prev[HASH_LEN], got[HASH_LEN], want[HASH_LEN];
	const char *ph, *h;
	int64_t seq = 0, expect = 1, n = 0;
	char ver[32];
	int i, rc, r;

	if (bad_seq != NULL)
		*bad_seq = 0;
	if (nrows != NULL)
		*nrows = 0;
	if (why != NULL && whylen > 0)
		why[0] = '\0';
	if (sodium_init() == -1) {
		seterr(why, whylen, "libsodium did not initialise");
		return -BNC_ERR_INTERNAL;
	}
	if ((r = audit_open_readonly(dbpath, &db, why, whylen)) != 0)
		return r;
	if ((rc = pragma_text(db, "PRAGMA user_version", ver,
	    sizeof(ver))) != SQLITE_OK)
		goto sqlfail;
	if (strtol(ver, NULL, 10) > AUDIT_SCHEMA_VERSION) {
		seterr(why, whylen, "%s: schema version %s; this bouncer "
		    "knows %d", dbpath, ver, AUDIT_SCHEMA_VERSION);
		r = -BNC_ERR_BAD_VERSION;
		goto out;
	}
	rc = sqlite3_prepare_v2(db, "SELECT " SQL_COLUMNS ", prev_hash, hash "
	    "FROM decisions ORDER BY seq", -1, &st, NULL);
	if (rc != SQLITE_OK) {
		seterr(why, whylen, "%s: not an audit log: %s", dbpath,
		    sqlite3_errmsg(db));
		r = -BNC_ERR_NOT_FOUND;
		goto out;
	}
	memset(prev, 0, sizeof(prev));
	r = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		seq = sqlite3_column_int64(st, C_SEQ);
		n++;
		for (i = 0; i < C_NCOLS; i++)
			if ((r = column_field(st, i, &f[i])) != 0)
				break;
		if (r == -BNC_ERR_ALLOC)
			goto out;
		if (r != 0) {
			seterr(why, whylen, "column %d has a type the log "
			    "never writes", i + 1);
			goto bad;
		}
		if (seq != expect) {
			seterr(why, whylen, "seq %lld where %lld was expected "
			    "(rows missing)", (long long)seq,
			    (long long)expect);
			goto bad;
		}
		ph = (const char *)sqlite3_column_text(st, C_NCOLS);
		if (ph == NULL || (size_t)sqlite3_column_bytes(st, C_NCOLS) !=
		    AUDIT_HASH_HEX ||
		    hex_to_hash(ph, AUDIT_HASH_HEX, got) != 0 ||
		    sodium_memcmp(got, prev, HASH_LEN) != 0) {
			seterr(why, whylen, "prev_hash is not the hash of "
			    "the row before");
			goto bad;
		}
		if ((r = row_hash(prev, f, want)) != 0)
			goto bad;
		h = (const char *)sqlite3_column_text(st, C_NCOLS + 1);
		if (h == NULL || (size_t)sqlite3_column_bytes(st,
		    C_NCOLS + 1) != AUDIT_HASH_HEX ||
		    hex_to_hash(h, AUDIT_HASH_HEX, got) != 0 ||
		    sodium_memcmp(got, want, HASH_LEN) != 0) {
			seterr(why, whylen, "hash does not match the row");
			goto bad;
		}
		memcpy(prev, want, HASH_LEN);
		expect = seq + 1;
		if (nrows != NULL)
			*nrows = n;
	}
	if (rc != SQLITE_DONE)
		goto sqlfail;
	r = 0;
	goto out;
 bad:
	if (bad_seq != NULL)
		*bad_seq = seq;
	r = -BNC_ERR_BAD_FORMAT;
	goto out;
 sqlfail:
	seterr(why, whylen, "%s: %s", dbpath, sqlite3_errmsg(db));
	r = sqlite_err(rc);
	if (r == 0)
		r = -BNC_ERR_INTERNAL;
 out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return r;
}

int
audit_verify(const char *dbpath, int64_t *bad_seq)
{
	return audit_verify_detail(dbpath, bad_seq, NULL, NULL, 0);
}
