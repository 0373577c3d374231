/*
 * check_audit.c - the audit log (monitor/audit.c).
 *
 * The chain must verify, and any edit of a row (even NULL to empty) must
 * be found at the right seq; the triggers must refuse changes; sinks are
 * kept in clear and every other argument only as SHA-256 and length;
 * monitors sharing one database keep one chain; every failure to commit
 * is an error the monitor turns into a denial.  It also prints what an
 * append costs (a figure, never asserted).
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <sodium.h>
#include <sqlite3.h>

#include "audit.h"
#include "bounds.h"
#include "buf.h"
#include "err.h"
#include "testdir.h"
#include "value.h"
#include "value-json.h"

static char dir[256];
static char dbpath[300];
static char err[1024];

static void
setup(void)
{
	snprintf(dir, sizeof(dir), "%s/log.XXXXXX", testdir_path());
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(dbpath, sizeof(dbpath), "%s/state/audit.db", dir);
	ck_assert_int_ne(sodium_init(), -1);
}

static void
teardown(void)
{
	if (dir[0] != '\0' && testdir_rmtree(dir) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	dir[0] = '\0';
}

static struct audit *
open_log(enum audit_sync sync, int full)
{
	struct audit *a = NULL;
	char sd[300];
	int r;

	snprintf(sd, sizeof(sd), "%s/state", dir);
	r = audit_open(sd, sync, full, &a, err, sizeof(err));
	ck_assert_msg(r == 0, "audit_open: %s: %s", bnc_err(r), err);
	ck_assert_ptr_nonnull(a);
	return a;
}

/* A plain row; callers change what they test. */
static struct audit_row
row_of(const char *tool, const char *verdict, const char *contract,
    const char *reason)
{
	struct audit_row row;

	memset(&row, 0, sizeof(row));
	row.session = "00112233445566778899aabbccddeeff";
	row.agent = "-";
	row.upstream = "mock";
	row.tool = tool;
	row.verdict = verdict;
	row.contract = contract;
	row.reason = reason;
	return row;
}

static int64_t
append_ok(struct audit *a, const struct audit_row *row)
{
	int64_t seq = -1;
	int r;

	r = audit_append(a, row, &seq);
	ck_assert_msg(r == 0, "audit_append: %s (%s)", bnc_err(r),
	    audit_append_error(a));
	return seq;
}

/* Milliseconds on the monotonic clock. */
static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Processes that share the log, as monitors do.  On a slow run (valgrind,
 * a sanitizer, a loaded machine) one can hold the write lock longer than
 * another waits for it (BNC_AUDIT_BUSY_MS): that one is refused with
 * -BNC_ERR_AGAIN, nothing of its row written, and may try again, as the
 * monitor's caller may.  Only a refusal that came after the whole wait
 * is tried again: one that came sooner did not wait, which is a fault
 * these tests exist to find, and it is returned, as is any other error.
 * The tries are bounded, so that a lock never given up fails the test
 * rather than hang it.
 */
#define BUSY_TRIES	60

static int busy_waited;		/* refusals waited out, tried again */

static int
busy_honest(int r, int64_t t0)
{
	if (r != -BNC_ERR_AGAIN || now_ms() - t0 < BNC_AUDIT_BUSY_MS)
		return 0;
	busy_waited++;
	return 1;
}

/* audit_open of the test's state directory, tried again while busy. */
static int
open_patient(const char *sd, struct audit **a)
{
	int64_t t0;
	int i, r;

	for (i = 0; i < BUSY_TRIES; i++) {
		t0 = now_ms();
		r = audit_open(sd, AUDIT_SYNC_NORMAL, 0, a, err, sizeof(err));
		if (!busy_honest(r, t0))
			break;
	}
	return r;
}

/* audit_append, tried again while busy. */
static int
append_patient(struct audit *a, const struct audit_row *row)
{
	int64_t t0;
	int i, r;

	for (i = 0; i < BUSY_TRIES; i++) {
		t0 = now_ms();
		r = audit_append(a, row, NULL);
		if (!busy_honest(r, t0))
			break;
	}
	return r;
}

static void
append_n(struct audit *a, int n)
{
	struct audit_row row;
	char reason[64];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(reason, sizeof(reason), "row %d", i);
		row = row_of(i % 2 ? "send_email" : "read_file",
		    i % 2 ? "deny" : "allow", i % 2 ? "sink_gate" : "default",
		    reason);
		append_ok(a, &row);
	}
}

static sqlite3 *
raw_open(void)
{
	sqlite3 *db = NULL;

	ck_assert_int_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	return db;
}

/* Runs sql on a raw connection; returns the SQLite code, message in err. */
static int
raw_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int rc;

	rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	snprintf(err, sizeof(err), "%s", msg != NULL ? msg : "");
	sqlite3_free(msg);
	return rc;
}

/* The text of the first column of the first row, or NULL; caller frees. */
static char *
raw_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	const unsigned char *t;
	char *s = NULL;

	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL),
	    SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    (t = sqlite3_column_text(st, 0)) != NULL)
		s = strdup((const char *)t);
	sqlite3_finalize(st);
	return s;
}

static int64_t
raw_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v = -1;

	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL),
	    SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void
expect_bad(int64_t seq)
{
	int64_t bad = -1;
	int r;

	r = audit_verify(dbpath, &bad);
	ck_assert_msg(r == -BNC_ERR_BAD_FORMAT, "verify: %s", bnc_err(r));
	ck_assert_int_eq(bad, seq);
}

static void
expect_intact(int64_t rows)
{
	int64_t bad = -1, n = -1;
	char why[256];
	int r;

	r = audit_verify_detail(dbpath, &bad, &n, why, sizeof(why));
	ck_assert_msg(r == 0, "verify: %s at %lld: %s", bnc_err(r),
	    (long long)bad, why);
	ck_assert_int_eq(n, rows);
}

/*
 * The documented encoding, re-implemented from bouncer-audit(8): the test
 * fails if the code and the page disagree.
 */
static void
enc_col(crypto_hash_sha256_state *h, sqlite3_stmt *st, int i)
{
	uint8_t b[9];
	uint64_t v;
	uint32_t n;
	int k;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		b[0] = 0;
		crypto_hash_sha256_update(h, b, 1);
		break;
	case SQLITE_TEXT:
		n = (uint32_t)sqlite3_column_bytes(st, i);
		b[0] = 1;
		b[1] = n >> 24;
		b[2] = n >> 16;
		b[3] = n >> 8;
		b[4] = n;
		crypto_hash_sha256_update(h, b, 5);
		crypto_hash_sha256_update(h, sqlite3_column_text(st, i), n);
		break;
	case SQLITE_INTEGER:
		v = (uint64_t)sqlite3_column_int64(st, i);
		b[0] = 2;
		for (k = 0; k < 8; k++)
			b[1 + k] = (uint8_t)(v >> (56 - 8 * k));
		crypto_hash_sha256_update(h, b, 9);
		break;
	default:
		ck_abort_msg("column %d has an unexpected type", i);
	}
}

START_TEST(test_chain)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	struct audit_row row;
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	crypto_hash_sha256_state h;
	uint8_t prev[32], out[32];
	char hex[65], *s;
	int64_t seq;
	int i, n = 0;

	expect_intact(0);
	for (i = 1; i <= 6; i++) {
		row = row_of("read_file", "allow", "default", "ok");
		if (i == 2)
			row.upstream = NULL;
		if (i == 3)
			row.reason = "";
		if (i == 4)
			row.nonce = "abcdef0123";
		seq = append_ok(a, &row);
		ck_assert_int_eq(seq, i);
	}
	expect_intact(6);

	db = raw_open();
	s = raw_text(db, "SELECT prev_hash FROM decisions WHERE seq = 1");
	ck_assert_str_eq(s, AUDIT_GENESIS);
	free(s);
	/* time: RFC 3339 UTC with microseconds */
	s = raw_text(db, "SELECT time FROM decisions WHERE seq = 1");
	ck_assert_uint_eq(strlen(s), AUDIT_TIME_LEN);
	ck_assert_int_eq(s[4], '-');
	ck_assert_int_eq(s[10], 'T');
	ck_assert_int_eq(s[19], '.');
	ck_assert_int_eq(s[26], 'Z');
	free(s);

	/* every hash from the documented encoding; every prev links */
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT seq, time, session, "
	    "agent, upstream, tool, verdict, contract, reason, sinks, "
	    "args_sha256, args_len, args, nonce, prev_hash, hash FROM "
	    "decisions ORDER BY seq", -1, &st, NULL), SQLITE_OK);
	memset(prev, 0, sizeof(prev));
	while (sqlite3_step(st) == SQLITE_ROW) {
		sodium_bin2hex(hex, sizeof(hex), prev, 32);
		ck_assert_str_eq((const char *)sqlite3_column_text(st, 14),
		    hex);
		crypto_hash_sha256_init(&h);
		crypto_hash_sha256_update(&h, prev, 32);
		for (i = 0; i < 14; i++)
			enc_col(&h, st, i);
		crypto_hash_sha256_final(&h, out);
		sodium_bin2hex(hex, sizeof(hex), out, 32);
		ck_assert_str_eq((const char *)sqlite3_column_text(st, 15),
		    hex);
		memcpy(prev, out, 32);
		n++;
	}
	ck_assert_int_eq(n, 6);
	sqlite3_finalize(st);
	ck_assert_int_eq(sqlite3_close(db), SQLITE_OK);
	audit_close(a);
}
END_TEST

START_TEST(test_reopen_modes)
{
	struct audit *a = open_log(AUDIT_SYNC_FULL, 0);
	struct stat st;
	char sd[300];

	append_n(a, 3);
	audit_close(a);
	snprintf(sd, sizeof(sd), "%s/state", dir);
	ck_assert_int_eq(stat(sd, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	ck_assert_int_eq(stat(dbpath, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	a = open_log(AUDIT_SYNC_NORMAL, 0);
	append_n(a, 2);
	expect_intact(5);
	audit_close(a);
	expect_intact(5);
}
END_TEST

START_TEST(test_tamper)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	sqlite3 *db;

	append_n(a, 5);
	audit_close(a);
	db = raw_open();
	ck_assert_int_eq(raw_exec(db, "DROP TRIGGER decisions_no_update"),
	    SQLITE_OK);
	ck_assert_int_eq(raw_exec(db, "UPDATE decisions SET reason = 'fine' "
	    "WHERE seq = 3"), SQLITE_OK);
	sqlite3_close(db);
	expect_bad(3);
}
END_TEST

/* An edit whose own hash is recomputed still breaks the next link. */
START_TEST(test_tamper_rehash)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	crypto_hash_sha256_state h;
	sqlite3_stmt *st = NULL;
	uint8_t prev[32], out[32];
	char hex[65], sql[200], *s;
	size_t n;
	sqlite3 *db;
	int i;

	append_n(a, 5);
	audit_close(a);
	db = raw_open();
	ck_assert_int_eq(raw_exec(db, "DROP TRIGGER decisions_no_update"),
	    SQLITE_OK);
	ck_assert_int_eq(raw_exec(db, "UPDATE decisions SET reason = 'fine' "
	    "WHERE seq = 3"), SQLITE_OK);
	s = raw_text(db, "SELECT hash FROM decisions WHERE seq = 2");
	ck_assert_int_eq(sodium_hex2bin(prev, 32, s, 64, NULL, &n, NULL), 0);
	free(s);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT seq, time, session, "
	    "agent, upstream, tool, verdict, contract, reason, sinks, "
	    "args_sha256, args_len, args, nonce FROM decisions WHERE seq = 3",
	    -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	crypto_hash_sha256_init(&h);
	crypto_hash_sha256_update(&h, prev, 32);
	for (i = 0; i < 14; i++)
		enc_col(&h, st, i);
	crypto_hash_sha256_final(&h, out);
	sqlite3_finalize(st);
	sodium_bin2hex(hex, sizeof(hex), out, 32);
	snprintf(sql, sizeof(sql), "UPDATE decisions SET hash = '%s' "
	    "WHERE seq = 3", hex);
	ck_assert_int_eq(raw_exec(db, sql), SQLITE_OK);
	sqlite3_close(db);
	expect_bad(4);
}
END_TEST

START_TEST(test_tamper_null_empty)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	struct audit_row row;
	sqlite3 *db;
	int64_t seq;

	row = row_of("t", "allow", "default", NULL);
	row.upstream = NULL;
	append_ok(a, &row);			/* 1: upstream NULL */
	row.upstream = "";
	row.reason = "";
	append_ok(a, &row);			/* 2: upstream "" */
	row.upstream = "x";
	seq = append_ok(a, &row);
	ck_assert_int_eq(seq, 3);
	audit_close(a);
	expect_intact(3);

	db = raw_open();
	ck_assert_int_eq(raw_exec(db, "DROP TRIGGER decisions_no_update"),
	    SQLITE_OK);
	ck_assert_int_eq(raw_exec(db, "UPDATE decisions SET upstream = '' "
	    "WHERE seq = 1"), SQLITE_OK);
	expect_bad(1);
	ck_assert_int_eq(raw_exec(db, "UPDATE decisions SET upstream = NULL "
	    "WHERE seq = 1"), SQLITE_OK);
	expect_intact(3);
	ck_assert_int_eq(raw_exec(db, "UPDATE decisions SET reason = NULL "
	    "WHERE seq = 2"), SQLITE_OK);
	expect_bad(2);
	ck_assert_int_eq(raw_exec(db, "UPDATE decisions SET reason = '' "
	    "WHERE seq = 2"), SQLITE_OK);
	expect_intact(3);
	/* a text '5' in an integer column is not the integer 5 */
	ck_assert_int_eq(raw_exec(db, "UPDATE decisions SET reason = 5 "
	    "WHERE seq = 2"), SQLITE_OK);
	expect_bad(2);
	sqlite3_close(db);
}
END_TEST

START_TEST(test_tamper_delete)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	sqlite3 *db;

	append_n(a, 5);
	audit_close(a);
	db = raw_open();
	ck_assert_int_eq(raw_exec(db, "DROP TRIGGER decisions_no_delete"),
	    SQLITE_OK);
	ck_assert_int_eq(raw_exec(db, "DELETE FROM decisions WHERE seq = 2"),
	    SQLITE_OK);
	expect_bad(3);
	ck_assert_int_eq(raw_exec(db, "DELETE FROM decisions WHERE seq = 1"),
	    SQLITE_OK);
	expect_bad(3);
	sqlite3_close(db);
}
END_TEST

START_TEST(test_triggers)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	sqlite3 *db;

	append_n(a, 3);
	db = raw_open();
	ck_assert_int_ne(raw_exec(db, "UPDATE decisions SET reason = 'x' "
	    "WHERE seq = 2"), SQLITE_OK);
	ck_assert_ptr_nonnull(strstr(err, "audit log is append-only"));
	ck_assert_int_ne(raw_exec(db, "DELETE FROM decisions WHERE seq = 3"),
	    SQLITE_OK);
	ck_assert_ptr_nonnull(strstr(err, "audit log is append-only"));
	ck_assert_int_ne(raw_exec(db, "DELETE FROM decisions"), SQLITE_OK);
	/* REPLACE deletes without a DELETE trigger: refused on INSERT */
	ck_assert_int_ne(raw_exec(db, "INSERT OR REPLACE INTO decisions "
	    "SELECT * FROM decisions WHERE seq = 2"), SQLITE_OK);
	ck_assert_ptr_nonnull(strstr(err, "audit log is append-only"));
	ck_assert_int_ne(raw_exec(db, "INSERT INTO decisions (seq, time, "
	    "session, agent, tool, verdict, contract, prev_hash, hash) VALUES "
	    "(100, 't', 's', 'a', 't', 'allow', 'default', 'p', 'h')"),
	    SQLITE_OK);
	ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM decisions"), 3);

	ck_assert_int_eq(raw_exec(db, "INSERT INTO consent_nonces VALUES "
	    "('n1', 1, 't')"), SQLITE_OK);
	ck_assert_int_ne(raw_exec(db, "UPDATE consent_nonces SET seq = 2"),
	    SQLITE_OK);
	ck_assert_ptr_nonnull(strstr(err, "audit log is append-only"));
	ck_assert_int_ne(raw_exec(db, "DELETE FROM consent_nonces"),
	    SQLITE_OK);
	ck_assert_ptr_nonnull(strstr(err, "audit log is append-only"));
	ck_assert_int_ne(raw_exec(db, "INSERT OR REPLACE INTO consent_nonces "
	    "VALUES ('n1', 5, 'u')"), SQLITE_OK);
	ck_assert_int_eq(raw_int(db, "SELECT seq FROM consent_nonces"), 1);
	sqlite3_close(db);

	/* reopening restores a dropped trigger */
	audit_close(a);
	db = raw_open();
	ck_assert_int_eq(raw_exec(db, "DROP TRIGGER decisions_no_update"),
	    SQLITE_OK);
	a = open_log(AUDIT_SYNC_NORMAL, 0);
	ck_assert_int_ne(raw_exec(db, "UPDATE decisions SET reason = 'x'"),
	    SQLITE_OK);
	sqlite3_close(db);
	audit_close(a);
	expect_intact(3);
}
END_TEST

/* mail_args() as canonical JSON: keys in byte order, no whitespace */
#define CANON_MAIL	"{\"body\":\"TOPSECRET payroll\",\"cc\":" \
			"[\"a@example.com\",7],\"n\":42," \
			"\"to\":\"evil@example.com\"}"

static struct value *
mail_args(void)
{
	struct value *args = value_object(), *cc = value_array();

	value_object_put(args, "to", value_string("evil@example.com"));
	value_object_put(args, "body", value_string("TOPSECRET payroll"));
	value_array_append(cc, value_string("a@example.com"));
	value_array_append(cc, value_int(7));
	value_object_put(args, "cc", cc);
	value_object_put(args, "n", value_int(42));
	return args;
}

START_TEST(test_sinks_digest)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	const char *sinks[] = { "to", "cc", "missing", "to" };
	struct audit_row row;
	struct value *args = mail_args();
	struct buf *b = buf_new();
	uint8_t d[32];
	char hex[65], *s;
	sqlite3 *db;

	row = row_of("send_email", "deny", "sink_gate", "tainted destination");
	row.args = args;
	row.sinks = sinks;
	row.nsinks = 4;
	append_ok(a, &row);
	audit_close(a);

	/* what anyone recomputes from the call: its canonical JSON */
	buf_put(b, CANON_MAIL, strlen(CANON_MAIL));
	crypto_hash_sha256(d, buf_ptr(b), buf_len(b));
	sodium_bin2hex(hex, sizeof(hex), d, 32);

	db = raw_open();
	s = raw_text(db, "SELECT sinks FROM decisions");
	ck_assert_str_eq(s, "{\"to\":\"evil@example.com\","
	    "\"cc\":[\"a@example.com\",7]}");
	free(s);
	s = raw_text(db, "SELECT args_sha256 FROM decisions");
	ck_assert_str_eq(s, hex);
	free(s);
	ck_assert_int_eq(raw_int(db, "SELECT args_len FROM decisions"),
	    (int64_t)buf_len(b));
	ck_assert_int_eq(raw_int(db, "SELECT args IS NULL FROM decisions"),
	    1);
	/* the non-sink argument is nowhere in the row */
	ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM decisions WHERE "
	    "instr(coalesce(time,'') || session || agent || "
	    "coalesce(upstream,'') || tool || verdict || contract || "
	    "coalesce(reason,'') || coalesce(sinks,'') || "
	    "coalesce(args,'') || coalesce(nonce,''), 'TOPSECRET') > 0"), 0);
	sqlite3_close(db);
	buf_free(b);
	value_free(args);
	expect_intact(1);
}
END_TEST

START_TEST(test_record_full)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 1);
	struct audit_row row;
	struct value *args = mail_args();
	char *s;
	sqlite3 *db;

	row = row_of("send_email", "allow", "default", NULL);
	row.args = args;
	append_ok(a, &row);
	audit_close(a);
	db = raw_open();
	/* the canonical JSON that args_sha256 is of, and its length */
	s = raw_text(db, "SELECT args FROM decisions");
	ck_assert_str_eq(s, CANON_MAIL);
	free(s);
	ck_assert_int_eq(raw_int(db, "SELECT args_len FROM decisions"),
	    (int64_t)strlen(CANON_MAIL));
	/* no sink names: an empty object, not NULL */
	s = raw_text(db, "SELECT sinks FROM decisions");
	ck_assert_str_eq(s, "{}");
	free(s);
	sqlite3_close(db);
	value_free(args);
	expect_intact(1);
}
END_TEST

START_TEST(test_no_args)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 1);
	struct audit_row row;
	sqlite3 *db;

	row = row_of("monitor_start", "event", "event", "sandbox on");
	row.upstream = NULL;
	append_ok(a, &row);
	audit_close(a);
	db = raw_open();
	ck_assert_int_eq(raw_int(db, "SELECT args_sha256 IS NULL AND "
	    "args_len IS NULL AND args IS NULL AND sinks = '{}' FROM "
	    "decisions"), 1);
	sqlite3_close(db);
	expect_intact(1);
}
END_TEST

START_TEST(test_two_handles)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	struct audit *b = open_log(AUDIT_SYNC_NORMAL, 0);
	struct audit_row row = row_of("t", "allow", "default", "r");
	int i;

	for (i = 1; i <= 10; i++)
		ck_assert_int_eq(append_ok(i % 2 ? a : b, &row), i);
	audit_close(a);
	ck_assert_int_eq(append_ok(b, &row), 11);
	audit_close(b);
	expect_intact(11);
}
END_TEST

/* Two processes appending at once: one chain, nothing lost. */
START_TEST(test_two_processes)
{
	struct audit *a;
	struct audit_row row;
	pid_t pid[2];
	int i, k, r, st;
	sqlite3 *db;

	/* create the schema first, so neither child races on it */
	audit_close(open_log(AUDIT_SYNC_NORMAL, 0));
	for (k = 0; k < 2; k++) {
		if ((pid[k] = fork()) == 0) {
			char sd[300];

			snprintf(sd, sizeof(sd), "%s/state", dir);
			if ((r = open_patient(sd, &a)) != 0) {
				fprintf(stderr, "writer %d: open: %s: %s\n", k,
				    bnc_err(r), err);
				_exit(2);
			}
			row = row_of(k ? "b" : "a", "allow", "default", "r");
			for (i = 0; i < 300; i++)
				if ((r = append_patient(a, &row)) != 0) {
					fprintf(stderr, "writer %d: row %d: "
					    "%s (%s)\n", k, i, bnc_err(r),
					    audit_errmsg(a));
					_exit(3);
				}
			audit_close(a);
			_exit(0);
		}
		ck_assert_int_ne(pid[k], -1);
	}
	for (k = 0; k < 2; k++) {
		ck_assert_int_eq(waitpid(pid[k], &st, 0), pid[k]);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "writer %d failed (status %d)", k, st);
	}
	expect_intact(600);
	db = raw_open();
	ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM decisions WHERE "
	    "tool = 'a'"), 300);
	ck_assert_int_eq(raw_int(db, "SELECT max(seq) FROM decisions"), 600);
	sqlite3_close(db);
}
END_TEST

/* A consent nonce is consumed with its row, once. */
START_TEST(test_nonce_once)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	struct audit_row row = row_of("post", "allow", "consent", "r");
	sqlite3 *db;

	row.nonce = "00112233445566778899aabbccddeeff";
	ck_assert_int_eq(append_ok(a, &row), 1);
	/* used: nothing of the second row is written */
	ck_assert_int_eq(audit_append(a, &row, NULL), -BNC_ERR_USED);
	row.nonce = "ffeeddccbbaa99887766554433221100";
	ck_assert_int_eq(append_ok(a, &row), 2);
	/* a row with no nonce is not one */
	row.nonce = NULL;
	ck_assert_int_eq(append_ok(a, &row), 3);
	audit_close(a);
	expect_intact(3);
	db = raw_open();
	ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM consent_nonces"),
	    2);
	ck_assert_int_eq(raw_int(db, "SELECT seq FROM consent_nonces WHERE "
	    "nonce = '00112233445566778899aabbccddeeff'"), 1);
	sqlite3_close(db);
}
END_TEST

/*
 * Two processes race for each of 1000 nonces on one database (DESIGN 7:
 * exactly one wins): each consumes every nonce it can, the other gets
 * -BNC_ERR_USED; one refused for being busy tries the same nonce again
 * (append_patient).  Every nonce has one row, and the chain is whole.
 */
#define RACE_NONCES	1000
START_TEST(test_nonce_race)
{
	struct audit *a;
	struct audit_row row;
	char nonce[33], sd[300], c;
	pid_t pid[2];
	int go[2], i, k, r, st;
	sqlite3 *db;

	audit_close(open_log(AUDIT_SYNC_NORMAL, 0));
	/* both open the log, then start together */
	ck_assert_int_eq(pipe(go), 0);
	for (k = 0; k < 2; k++) {
		if ((pid[k] = fork()) == 0) {
			snprintf(sd, sizeof(sd), "%s/state", dir);
			if ((r = open_patient(sd, &a)) != 0) {
				fprintf(stderr, "racer %d: open: %s: %s\n", k,
				    bnc_err(r), err);
				_exit(100);
			}
			row = row_of(k ? "b" : "a", "allow", "consent", "r");
			row.nonce = nonce;
			if (read(go[0], &c, 1) != 1)
				_exit(103);
			for (i = 0; i < RACE_NONCES; i++) {
				snprintf(nonce, sizeof(nonce), "%032x", i);
				/* refused as busy: the same nonce again */
				r = append_patient(a, &row);
				if (r != 0 && r != -BNC_ERR_USED) {
					fprintf(stderr, "racer %d: nonce %d: "
					    "%s (%s)\n", k, i, bnc_err(r),
					    audit_errmsg(a));
					_exit(101);
				}
			}
			if (busy_waited > 0)
				fprintf(stderr, "check_audit: nonce race: "
				    "racer %d was refused as busy %d times, "
				    "and tried again\n", k, busy_waited);
			audit_close(a);
			_exit(0);
		}
		ck_assert_int_ne(pid[k], -1);
	}
	ck_assert_int_eq(write(go[1], "gg", 2), 2);
	close(go[0]);
	close(go[1]);
	for (k = 0; k < 2; k++) {
		ck_assert_int_eq(waitpid(pid[k], &st, 0), pid[k]);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "racer %d failed (status %d)", k, st);
	}
	expect_intact(RACE_NONCES);
	db = raw_open();
	ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM decisions"),
	    RACE_NONCES);
	ck_assert_int_eq(raw_int(db, "SELECT count(DISTINCT nonce) FROM "
	    "decisions"), RACE_NONCES);
	ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM consent_nonces"),
	    RACE_NONCES);
	printf("check_audit: nonce race: %d of %d won by the first racer\n",
	    (int)raw_int(db, "SELECT count(*) FROM decisions WHERE tool = "
	    "'a'"), RACE_NONCES);
	sqlite3_close(db);
}
END_TEST

/*
 * Monitors that start together on a state directory with no log yet
 * all open it: the first creates it, the others wait for it (SQLite
 * does not always call the busy handler while the journal mode
 * changes).  Eight processes, twenty rounds, each on a fresh directory;
 * on a slow run one may wait out the whole bound and open again
 * (open_patient), but none may be refused without waiting.
 */
START_TEST(test_open_together)
{
	struct audit *a;
	char sd[400], c;
	pid_t pid[8];
	int go[2], round, k, st;

	for (round = 0; round < 20; round++) {
		snprintf(sd, sizeof(sd), "%s/fresh%d", dir, round);
		ck_assert_int_eq(pipe(go), 0);
		for (k = 0; k < 8; k++) {
			if ((pid[k] = fork()) == 0) {
				if (read(go[0], &c, 1) != 1)
					_exit(3);
				if (open_patient(sd, &a) != 0) {
					fprintf(stderr, "open %d: %s\n", k, err);
					_exit(2);
				}
				audit_close(a);
				_exit(0);
			}
			ck_assert_int_ne(pid[k], -1);
		}
		ck_assert_int_eq(write(go[1], "gggggggg", 8), 8);
		close(go[0]);
		close(go[1]);
		for (k = 0; k < 8; k++) {
			ck_assert_int_eq(waitpid(pid[k], &st, 0), pid[k]);
			ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			    "round %d: process %d could not open the log "
			    "(status %d)", round, k, st);
		}
	}
}
END_TEST

/* An out-of-band ask binds arguments up to BNC_OOB_ARGS_MAX bytes. */
START_TEST(test_oob_args_max)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	uint8_t sha[32];
	int64_t id = 0;
	char *args;

	args = malloc(BNC_OOB_ARGS_MAX + 2);
	ck_assert_ptr_nonnull(args);
	memset(args, 'a', BNC_OOB_ARGS_MAX + 1);
	args[BNC_OOB_ARGS_MAX + 1] = '\0';
	ck_assert_int_eq(audit_oob_ask_add(a, "s", "-", "wire", args,
	    BNC_OOB_ARGS_MAX, "why", 1, 2, &id, sha), 0);
	ck_assert_int_gt(id, 0);
	ck_assert_int_lt(audit_oob_ask_add(a, "s", "-", "wire", args,
	    BNC_OOB_ARGS_MAX + 1, "why", 1, 2, &id, sha), 0);
	free(args);
	audit_close(a);
}
END_TEST

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Prints the cost of one append (median, p90); never asserts a time. */
static void
bench(enum audit_sync sync, int n)
{
	struct audit *a = open_log(sync, 0);
	const char *sinks[] = { "to" };
	struct audit_row row = row_of("send_email", "allow", "default",
	    "no contract matched");
	struct value *args = mail_args();
	double *t, t0;
	int i;

	row.args = args;
	row.sinks = sinks;
	row.nsinks = 1;
	t = calloc(n, sizeof(*t));
	ck_assert_ptr_nonnull(t);
	for (i = 0; i < n; i++) {
		t0 = now_us();
		append_ok(a, &row);
		t[i] = now_us() - t0;
	}
	qsort(t, n, sizeof(*t), cmp_double);
	printf("check_audit: append, synchronous %s: median %.1f us, p90 "
	    "%.1f us, p99 %.1f us, max %.1f us (%d rows)\n",
	    sync == AUDIT_SYNC_FULL ? "FULL" : "NORMAL", t[n / 2],
	    t[n * 9 / 10], t[n * 99 / 100], t[n - 1], n);
	fflush(stdout);
	free(t);
	value_free(args);
	audit_close(a);
}

START_TEST(test_append_cost)
{
	bench(AUDIT_SYNC_NORMAL, 5000);
	bench(AUDIT_SYNC_FULL, 200);
	expect_intact(5200);
}
END_TEST

/* limits */

START_TEST(test_field_max)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	struct audit_row row;
	char *big = malloc(BNC_AUDIT_FIELD_MAX + 2);

	memset(big, 'x', BNC_AUDIT_FIELD_MAX + 1);
	big[BNC_AUDIT_FIELD_MAX] = '\0';
	row = row_of(big, "allow", "default", NULL);
	append_ok(a, &row);
	row.agent = big;
	row.nonce = big;
	append_ok(a, &row);
	big[BNC_AUDIT_FIELD_MAX] = 'x';
	big[BNC_AUDIT_FIELD_MAX + 1] = '\0';
	row = row_of(big, "allow", "default", NULL);
	ck_assert_int_eq(audit_append(a, &row, NULL), -BNC_ERR_TOO_LARGE);
	row = row_of("t", "allow", "default", NULL);
	row.session = big;
	ck_assert_int_eq(audit_append(a, &row, NULL), -BNC_ERR_TOO_LARGE);
	row = row_of("t", "allow", "default", NULL);
	row.upstream = big;
	ck_assert_int_eq(audit_append(a, &row, NULL), -BNC_ERR_TOO_LARGE);
	free(big);
	audit_close(a);
	expect_intact(2);
}
END_TEST

START_TEST(test_reason_max)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	struct audit_row row;
	char *big = malloc(BNC_REASON_MAX + 16), *s;
	sqlite3 *db;

	memset(big, 'r', BNC_REASON_MAX);
	big[BNC_REASON_MAX] = '\0';
	row = row_of("t", "deny", "default", big);
	append_ok(a, &row);			/* 1: exactly the cap */
	big[BNC_REASON_MAX] = 'r';
	big[BNC_REASON_MAX + 1] = '\0';
	append_ok(a, &row);			/* 2: one past: cut */
	/* 3: a character that starts at the cap is left out whole */
	memset(big, 'y', BNC_REASON_MAX);
	big[BNC_REASON_MAX] = '\xc3';
	big[BNC_REASON_MAX + 1] = '\xa9';
	big[BNC_REASON_MAX + 2] = '\0';
	append_ok(a, &row);
	/* 4: one that straddles the cap is not split */
	memset(big, 'y', BNC_REASON_MAX - 1);
	big[BNC_REASON_MAX - 1] = '\xc3';
	big[BNC_REASON_MAX] = '\xa9';
	big[BNC_REASON_MAX + 1] = '\0';
	append_ok(a, &row);
	audit_close(a);

	db = raw_open();
	ck_assert_int_eq(raw_int(db, "SELECT length(CAST(reason AS BLOB)) "
	    "FROM decisions WHERE seq = 1"), BNC_REASON_MAX);
	ck_assert_int_eq(raw_int(db, "SELECT length(CAST(reason AS BLOB)) "
	    "FROM decisions WHERE seq = 2"), BNC_REASON_MAX);
	ck_assert_int_eq(raw_int(db, "SELECT length(CAST(reason AS BLOB)) "
	    "FROM decisions WHERE seq = 3"), BNC_REASON_MAX);
	ck_assert_int_eq(raw_int(db, "SELECT length(CAST(reason AS BLOB)) "
	    "FROM decisions WHERE seq = 4"), BNC_REASON_MAX - 1);
	s = raw_text(db, "SELECT reason FROM decisions WHERE seq = 4");
	ck_assert_int_eq(s[BNC_REASON_MAX - 2], 'y');
	free(s);
	sqlite3_close(db);
	free(big);
	expect_intact(4);
}
END_TEST

START_TEST(test_path_max)
{
	struct audit *a = NULL;
	char *p = malloc(BNC_PATH_MAX + 2);

	memset(p, 'd', BNC_PATH_MAX + 1);
	p[0] = '/';
	p[BNC_PATH_MAX + 1] = '\0';
	ck_assert_int_eq(audit_open(p, AUDIT_SYNC_NORMAL, 0, &a, err,
	    sizeof(err)), -BNC_ERR_TOO_LARGE);
	ck_assert_ptr_null(a);
	free(p);
}
END_TEST

/* errors */

START_TEST(test_bad_rows)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	struct audit_row row;

	row = row_of("t", "maybe", "default", NULL);
	ck_assert_int_eq(audit_append(a, &row, NULL), -BNC_ERR_BAD_FORMAT);
	ck_assert_str_eq(audit_append_error(a), bnc_err(-BNC_ERR_BAD_FORMAT));
	row = row_of("t", "allow", "vibes", NULL);
	ck_assert_int_eq(audit_append(a, &row, NULL), -BNC_ERR_BAD_FORMAT);
	row = row_of(NULL, "allow", "default", NULL);
	ck_assert_int_eq(audit_append(a, &row, NULL), -BNC_ERR_BAD_FORMAT);
	row = row_of("t", "allow", "default", NULL);
	row.session = NULL;
	ck_assert_int_eq(audit_append(a, &row, NULL), -BNC_ERR_BAD_FORMAT);
	row = row_of("t", "allow", "default", NULL);
	row.agent = NULL;
	ck_assert_int_eq(audit_append(a, &row, NULL), -BNC_ERR_BAD_FORMAT);
	row = row_of("bad\xff", "allow", "default", NULL);
	ck_assert_int_eq(audit_append(a, &row, NULL), -BNC_ERR_BAD_UTF8);
	row = row_of("t", "allow", "default", "bad\xc3");
	ck_assert_int_eq(audit_append(a, &row, NULL), -BNC_ERR_BAD_UTF8);
	ck_assert_int_ne(audit_append(NULL, &row, NULL), 0);
	ck_assert_int_ne(audit_append(a, NULL, NULL), 0);
	/* nothing was written, and the chain still starts at 1 */
	row = row_of("t", "allow", "default", NULL);
	ck_assert_int_eq(append_ok(a, &row), 1);
	ck_assert_str_eq(audit_append_error(a), "no error");
	audit_close(a);
	expect_intact(1);
}
END_TEST

/* Another writer holds the lock past the bound: an error, then recovery. */
START_TEST(test_locked)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	struct audit_row row = row_of("t", "allow", "default", NULL);
	sqlite3 *db;
	double t0, dt;
	int r;

	append_ok(a, &row);
	db = raw_open();
	ck_assert_int_eq(raw_exec(db, "BEGIN IMMEDIATE"), SQLITE_OK);
	t0 = now_us();
	r = audit_append(a, &row, NULL);
	dt = (now_us() - t0) / 1000;
	ck_assert_int_eq(r, -BNC_ERR_AGAIN);
	/* SQLite's reason, not the rollback's "not an error" */
	ck_assert_str_eq(audit_append_error(a), "database is locked");
	ck_assert_msg(dt >= BNC_AUDIT_BUSY_MS * 0.9 &&
	    dt < BNC_AUDIT_BUSY_MS * 10, "gave up after %.0f ms", dt);
	ck_assert_int_eq(raw_exec(db, "ROLLBACK"), SQLITE_OK);
	sqlite3_close(db);
	ck_assert_int_eq(append_ok(a, &row), 2);
	audit_close(a);
	expect_intact(2);
}
END_TEST

/* A write that fails (file size limit, as a full disk) is an error. */
START_TEST(test_disk_full)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 1);
	struct audit_row row = row_of("t", "allow", "default", NULL);
	struct value *args = value_object();
	struct rlimit rl;
	char *blob, walpath[320];
	struct stat st;
	pid_t pid;
	int i, r = 0, status;

	append_ok(a, &row);
	blob = malloc(64 * 1024);
	memset(blob, 'z', 64 * 1024 - 1);
	blob[64 * 1024 - 1] = '\0';
	value_object_put(args, "blob", value_string(blob));
	free(blob);
	row.args = args;
	snprintf(walpath, sizeof(walpath), "%s-wal", dbpath);
	ck_assert_int_eq(stat(walpath, &st), 0);
	if ((pid = fork()) == 0) {
		signal(SIGXFSZ, SIG_IGN);
		rl.rlim_cur = rl.rlim_max = (rlim_t)st.st_size + 4096;
		if (setrlimit(RLIMIT_FSIZE, &rl) == -1)
			_exit(9);
		for (i = 0; i < 50 && r == 0; i++)
			r = audit_append(a, &row, NULL);
		_exit(r < 0 ? 0 : 1);
	}
	ck_assert_int_ne(pid, -1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "a write past the file size limit did not fail (status %d)",
	    status);
	/* nothing half-written: the chain holds and grows */
	row.args = NULL;
	ck_assert_int_ge(append_ok(a, &row), 2);
	value_free(args);
	audit_close(a);
	{
		int64_t bad = -1;

		ck_assert_int_eq(audit_verify(dbpath, &bad), 0);
	}
}
END_TEST

/* A database the monitor cannot write is refused at open. */
START_TEST(test_readonly)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	struct audit_row row = row_of("t", "allow", "default", NULL);
	char sd[300];
	pid_t pid;
	int status, r;

	append_ok(a, &row);
	audit_close(a);
	snprintf(sd, sizeof(sd), "%s/state", dir);
	ck_assert_int_eq(chmod(dbpath, 0400), 0);
	/* nobody, below, must get through the suite's directory to dir */
	ck_assert_int_eq(chmod(testdir_path(), 0711), 0);
	if ((pid = fork()) == 0) {
		/* root writes anything: test as nobody */
		if (geteuid() == 0) {
			if (chown(dir, 65534, 65534) == -1 ||
			    chown(sd, 65534, 65534) == -1 ||
			    chown(dbpath, 65534, 65534) == -1 ||
			    setgid(65534) == -1 || setuid(65534) == -1)
				_exit(9);
		}
		a = NULL;
		r = audit_open(sd, AUDIT_SYNC_NORMAL, 0, &a, err, sizeof(err));
		if (r == 0 || a != NULL)
			_exit(1);
		if (strstr(err, "audit.db") == NULL)
			_exit(2);
		_exit(0);
	}
	ck_assert_int_ne(pid, -1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "read-only database opened (status %d)", status);
	ck_assert_int_eq(chmod(testdir_path(), 0700), 0);
	ck_assert_int_eq(chmod(dbpath, 0600), 0);
}
END_TEST

START_TEST(test_open_errors)
{
	struct audit *a = NULL;
	char p[400];
	sqlite3 *db;
	int fd;

	/* the state directory is a file */
	snprintf(p, sizeof(p), "%s/file", dir);
	ck_assert_int_ge(fd = open(p, O_CREAT | O_WRONLY, 0600), 0);
	close(fd);
	ck_assert_int_lt(audit_open(p, AUDIT_SYNC_NORMAL, 0, &a, err,
	    sizeof(err)), 0);
	ck_assert_ptr_null(a);
	ck_assert_ptr_nonnull(strstr(err, p));
	snprintf(p, sizeof(p), "%s/file/sub", dir);
	ck_assert_int_lt(audit_open(p, AUDIT_SYNC_NORMAL, 0, &a, err,
	    sizeof(err)), 0);
	ck_assert_int_lt(audit_open("", AUDIT_SYNC_NORMAL, 0, &a, err,
	    sizeof(err)), 0);
	ck_assert_int_lt(audit_open(dir, 7, 0, &a, err, sizeof(err)), 0);

	/* audit.db is a symlink */
	snprintf(p, sizeof(p), "%s/link", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/link/audit.db", dir);
	ck_assert_int_eq(symlink("/tmp/elsewhere.db", p), 0);
	snprintf(p, sizeof(p), "%s/link", dir);
	ck_assert_int_lt(audit_open(p, AUDIT_SYNC_NORMAL, 0, &a, err,
	    sizeof(err)), 0);
	ck_assert_ptr_null(a);

	/* audit.db is not a database */
	snprintf(p, sizeof(p), "%s/junk", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/junk/audit.db", dir);
	ck_assert_int_ge(fd = open(p, O_CREAT | O_WRONLY, 0600), 0);
	ck_assert_int_eq(write(fd, "this is not an sqlite database, no, "
	    "not at all, not even close to one\n", 70), 70);
	close(fd);
	snprintf(p, sizeof(p), "%s/junk", dir);
	ck_assert_int_lt(audit_open(p, AUDIT_SYNC_NORMAL, 0, &a, err,
	    sizeof(err)), 0);
	ck_assert_ptr_null(a);

	/* a schema from the future */
	audit_close(open_log(AUDIT_SYNC_NORMAL, 0));
	db = raw_open();
	ck_assert_int_eq(raw_exec(db, "PRAGMA user_version = 2"), SQLITE_OK);
	sqlite3_close(db);
	snprintf(p, sizeof(p), "%s/state", dir);
	ck_assert_int_eq(audit_open(p, AUDIT_SYNC_NORMAL, 0, &a, err,
	    sizeof(err)), -BNC_ERR_BAD_VERSION);
	ck_assert_ptr_null(a);
}
END_TEST

/* A head whose hash is malformed is not chained on. */
START_TEST(test_bad_head)
{
	struct audit *a = open_log(AUDIT_SYNC_NORMAL, 0);
	struct audit_row row = row_of("t", "allow", "default", NULL);
	sqlite3 *db;

	append_n(a, 2);
	db = raw_open();
	ck_assert_int_eq(raw_exec(db, "DROP TRIGGER decisions_no_update"),
	    SQLITE_OK);
	ck_assert_int_eq(raw_exec(db, "UPDATE decisions SET hash = 'zz' "
	    "WHERE seq = 2"), SQLITE_OK);
	sqlite3_close(db);
	ck_assert_int_eq(audit_append(a, &row, NULL), -BNC_ERR_BAD_FORMAT);
	audit_close(a);
	expect_bad(2);
}
END_TEST

START_TEST(test_verify_errors)
{
	int64_t bad = -1;
	char p[400];
	sqlite3 *db = NULL;
	int fd;

	snprintf(p, sizeof(p), "%s/none.db", dir);
	ck_assert_int_eq(audit_verify(p, &bad), -BNC_ERR_NOT_FOUND);
	/* an SQLite database that is not an audit log */
	snprintf(p, sizeof(p), "%s/other.db", dir);
	ck_assert_int_eq(sqlite3_open(p, &db), SQLITE_OK);
	ck_assert_int_eq(raw_exec(db, "CREATE TABLE t (x)"), SQLITE_OK);
	sqlite3_close(db);
	ck_assert_int_eq(audit_verify(p, &bad), -BNC_ERR_NOT_FOUND);
	/* not a database at all */
	snprintf(p, sizeof(p), "%s/text.db", dir);
	ck_assert_int_ge(fd = open(p, O_CREAT | O_WRONLY, 0600), 0);
	ck_assert_int_eq(write(fd, "hello, this is not sqlite at all\n", 33),
	    33);
	close(fd);
	ck_assert_int_lt(audit_verify(p, &bad), 0);
	/* a directory */
	ck_assert_int_lt(audit_verify(dir, &bad), 0);
}
END_TEST

static Suite *
audit_suite(void)
{
	Suite *su = suite_create("audit");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_chain);
	tcase_add_test(tc, test_reopen_modes);
	tcase_add_test(tc, test_tamper);
	tcase_add_test(tc, test_tamper_rehash);
	tcase_add_test(tc, test_tamper_null_empty);
	tcase_add_test(tc, test_tamper_delete);
	tcase_add_test(tc, test_triggers);
	tcase_add_test(tc, test_sinks_digest);
	tcase_add_test(tc, test_record_full);
	tcase_add_test(tc, test_no_args);
	tcase_add_test(tc, test_two_handles);
	tcase_add_test(tc, test_two_processes);
	tcase_add_test(tc, test_nonce_once);
	tcase_add_test(tc, test_nonce_race);
	tcase_add_test(tc, test_open_together);
	tcase_add_test(tc, test_oob_args_max);
	tcase_add_test(tc, test_append_cost);
	suite_add_tcase(su, tc);
	tc = tcase_create("limits");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_field_max);
	tcase_add_test(tc, test_reason_max);
	tcase_add_test(tc, test_path_max);
	suite_add_tcase(su, tc);
	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_bad_rows);
	tcase_add_test(tc, test_locked);
	tcase_add_test(tc, test_disk_full);
	tcase_add_test(tc, test_readonly);
	tcase_add_test(tc, test_open_errors);
	tcase_add_test(tc, test_bad_head);
	tcase_add_test(tc, test_verify_errors);
	suite_add_tcase(su, tc);
	return su;
}

int
main(void)
{
	SRunner *sr = srunner_create(audit_suite());
	int failed;

	testdir_create("check_audit");
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	testdir_remove();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
