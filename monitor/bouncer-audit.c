/*
 * bouncer-audit.c - query, export and verify the audit log (bouncer-audit(8)).
 *
 * An administrator's tool: it opens audit.db read-only, prints rows as
 * aligned text or JSON lines, re-computes the hash chain (-V) and prints
 * the head hash for anchoring (--head).  It must never write to the log,
 * and never print a byte from the log that could forge a line of its own
 * output: control bytes are escaped in text, and a stored JSON fragment
 * that is not well-formed is printed as a string, never spliced in raw.
 * It builds JSON with cJSON and never parses JSON with it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "audit.h"
#include "bounds.h"
#include "conffile.h"
#include "err.h"
#include "log.h"
#include "utf8.h"
#include "xmalloc.h"

#ifndef BNC_SYSCONFDIR
#define BNC_SYSCONFDIR "/etc"
#endif

/* Columns of a query, in SELECT order. */
enum qcol {
	Q_SEQ, Q_TIME, Q_SESSION, Q_AGENT, Q_UPSTREAM, Q_TOOL, Q_VERDICT,
	Q_CONTRACT, Q_REASON, Q_SINKS, Q_ARGS_SHA256, Q_ARGS_LEN, Q_ARGS,
	Q_NONCE, Q_PREV_HASH, Q_HASH, Q_NCOLS
};

/* How each column appears in -j output. */
enum jkind { J_INT, J_TEXT, J_JSON };

static const struct {
	const char	*name;
	enum jkind	 kind;
} qcols[Q_NCOLS] = {
	[Q_SEQ] =		{ "seq",		J_INT },
	[Q_TIME] =		{ "time",		J_TEXT },
	[Q_SESSION] =		{ "session",		J_TEXT },
	[Q_AGENT] =		{ "agent",		J_TEXT },
	[Q_UPSTREAM] =		{ "upstream",		J_TEXT },
	[Q_TOOL] =		{ "tool",		J_TEXT },
	[Q_VERDICT] =		{ "verdict",		J_TEXT },
	[Q_CONTRACT] =		{ "contract",		J_TEXT },
	[Q_REASON] =		{ "reason",		J_TEXT },
	[Q_SINKS] =		{ "sinks",		J_JSON },
	[Q_ARGS_SHA256] =	{ "args_sha256",	J_TEXT },
	[Q_ARGS_LEN] =		{ "args_len",		J_INT },
	[Q_ARGS] =		{ "args",		J_JSON },
	[Q_NONCE] =		{ "nonce",		J_TEXT },
	[Q_PREV_HASH] =		{ "prev_hash",		J_TEXT },
	[Q_HASH] =		{ "hash",		J_TEXT },
};

static const char query_sql[] =
	"SELECT * FROM (SELECT seq, time, session, agent, upstream, tool, "
	"verdict, contract, reason, sinks, args_sha256, args_len, args, nonce, "
	"prev_hash, hash FROM decisions"
	" WHERE (?1 IS NULL OR agent = ?1) AND (?2 IS NULL OR tool = ?2)"
	" AND (?3 IS NULL OR verdict = ?3) AND (?4 IS NULL OR time >= ?4)"
	" ORDER BY seq DESC LIMIT ?5) ORDER BY seq";

static const char *const verdict_names[] = { "allow", "deny", "ask", "event" };

/* Duration units of -s. */
static const struct {
	char	unit;
	int64_t	seconds;
} units[] = {
	{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
	{ 'w', 7 * 86400 },
};

static const struct option longopts[] = {
	{ "head",	no_argument,	NULL,	'H' },
	{ NULL,		0,		NULL,	0 }
};

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: bouncer-audit [-f config | -D dbfile] "
	    "[-a agent] [-s since] [-T tool] [-r verdict]\n"
	    "                     [-n limit] [-j] [-V] [--head]\n");
	exit(1);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fputs("bouncer-audit: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The database the monitor would write, found as the monitor finds it. */
static char *
default_db(const char *cfgpath)
{
	struct config cfg;
	char err[1024], *db = NULL;

	if (config_find(&cfg, cfgpath, err, sizeof(err)) != 0)
		die("%s", err);
	xasprintf(&db, "%s/audit.db", cfg.state_dir);
	config_free(&cfg);
	return db;
}

/*
 * -s: an RFC 3339 time ("2026-01-02T03:04:05Z", with an optional
 * fraction and a numeric offset), a date (midnight UTC), or a duration
 * back from now: digits and one of s m h d w (seconds without a unit).
 * out receives the bound in the log's own time format.
 */
static int
parse_since(const char *s, char out[AUDIT_TIME_LEN + 1])
{
	struct tm tm;
	struct timespec now;
	const char *p, *rest;
	char *end;
	long long n, off;
	long usec = 0, scale = 100000;
	int64_t t, mult = 1;
	size_t i;

	if (*s >= '0' && *s <= '9' && strchr(s, '-') == NULL &&
	    strchr(s, ':') == NULL) {
		errno = 0;
		n = strtoll(s, &end, 10);
		if (errno != 0 || end == s)
			return -1;
		if (*end != '\0') {
			for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
				if (*end == units[i].unit)
					break;
			if (i == sizeof(units) / sizeof(units[0]) ||
			    end[1] != '\0')
				return -1;
			mult = units[i].seconds;
		}
		if (n > BNC_AUDIT_SINCE_MAX_S / mult)
			return -1;
		if (clock_gettime(CLOCK_REALTIME, &now) == -1)
			return -1;
		audit_format_time((int64_t)now.tv_sec - n * mult,
		    now.tv_nsec / 1000, out);
		return 0;
	}

	memset(&tm, 0, sizeof(tm));
	if ((rest = strptime(s, "%Y-%m-%d", &tm)) == NULL)
		return -1;
	if (*rest == '\0') {
		t = (int64_t)timegm(&tm);
		audit_format_time(t, 0, out);
		return 0;
	}
	if ((*rest != 'T' && *rest != 't' && *rest != ' ') ||
	    (p = strptime(rest + 1, "%H:%M:%S", &tm)) == NULL)
		return -1;
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return -1;
		for (p++; *p >= '0' && *p <= '9'; p++) {
			usec += (*p - '0') * scale;
			scale /= 10;
		}
	}
	off = 0;
	if (*p == 'Z' || *p == 'z')
		p++;
	else if (*p == '+' || *p == '-') {
		if (!(p[1] >= '0' && p[1] <= '2' && p[2] >= '0' &&
		    p[2] <= '9' && p[3] == ':' && p[4] >= '0' && p[4] <= '5' &&
		    p[5] >= '0' && p[5] <= '9'))
			return -1;
		off = ((p[1] - '0') * 10 + (p[2] - '0')) * 3600 +
		    ((p[4] - '0') * 10 + (p[5] - '0')) * 60;
		if (*p == '+')
			off = -off;
		p += 6;
	} else
		return -1;
	if (*p != '\0')
		return -1;
	t = (int64_t)timegm(&tm) + off;
	audit_format_time(t, usec, out);
	return 0;
}

/* A copy of p (len bytes) with invalid UTF-8 and NUL bytes as U+FFFD. */
static char *
utf8_sanitize(const char *p, size_t len)
{
	static const char repl[] = "\xef\xbf\xbd";
	char *out, *o;
	size_t i, n;
	unsigned char c;

	out = o = xmalloc(len * 3 + 1);
	for (i = 0; i < len; ) {
		c = (unsigned char)p[i];
		n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 :
		    (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
		if (c != 0 && n != 0 && i + n <= len && utf8_valid(p + i, n)) {
			memcpy(o, p + i, n);
			o += n;
			i += n;
		} else {
			memcpy(o, repl, 3);
			o += 3;
			i++;
		}
	}
	*o = '\0';
	return out;
}

/*
 * A strict JSON syntax check (RFC 8259), no tree built: a stored JSON
 * fragment is spliced into the output only if it passes.
 */
struct jscan {
	const char	*p, *end;
};

static void
js_ws(struct jscan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' ||
	    *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static int
js_lit(struct jscan *s, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, lit, n) != 0)
		return -1;
	s->p += n;
	return 0;
}

static int
js_digits(struct jscan *s)
{
	const char *start = s->p;

	while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
		s->p++;
	return s->p > start ? 0 : -1;
}

static int
js_number(struct jscan *s)
{
	if (s->p < s->end && *s->p == '-')
		s->p++;
	if (s->p < s->end && *s->p == '0')
		s->p++;
	else if (js_digits(s) != 0)
		return -1;
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (js_digits(s) != 0)
			return -1;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (js_digits(s) != 0)
			return -1;
	}
	return 0;
}

static int
js_string(struct jscan *s)
{
	int i;

	if (s->p >= s->end || *s->p++ != '"')
		return -1;
	while (s->p < s->end) {
		unsigned char c = (unsigned char)*s->p++;

		if (c == '"')
			return 0;
		if (c < 0x20)
			return -1;
		if (c != '\\')
			continue;
		if (s->p >= s->end)
			return -1;
		c = (unsigned char)*s->p++;
		if (c == 'u') {
			for (i = 0; i < 4; i++, s->p++)
				if (s->p >= s->end ||
				    strchr("0123456789abcdefABCDEF",
				    *s->p) == NULL || *s->p == '\0')
					return -1;
		} else if (strchr("\"\\/bfnrt", c) == NULL || c == '\0')
			return -1;
	}
	return -1;
}

static int
js_value(struct jscan *s, int depth)
{
	char close;

	js_ws(s);
	if (s->p >= s->end)
		return -1;
	switch (*s->p) {
	case '{':
	case '[':
		if (depth >= BNC_VALUE_DEPTH_MAX)
			return -1;
		close = *s->p == '{' ? '}' : ']';
		s->p++;
		js_ws(s);
		if (s->p < s->end && *s->p == close) {
			s->p++;
			return 0;
		}
		for (;;) {
			if (close == '}') {
				js_ws(s);
				if (js_string(s) != 0)
					return -1;
				js_ws(s);
				if (s->p >= s->end || *s->p++ != ':')
					return -1;
			}
			if (js_value(s, depth + 1) != 0)
				return -1;
			js_ws(s);
			if (s->p >= s->end)
				return -1;
			if (*s->p == close) {
				s->p++;
				return 0;
			}
			if (*s->p++ != ',')
				return -1;
		}
	case '"':
		return js_string(s);
	case 't':
		return js_lit(s, "true");
	case 'f':
		return js_lit(s, "false");
	case 'n':
		return js_lit(s, "null");
	default:
		return js_number(s);
	}
}

static int
json_ok(const char *p, size_t len)
{
	struct jscan s = { p, p + len };

	if (memchr(p, '\0', len) != NULL || !utf8_valid(p, len))
		return 0;
	if (js_value(&s, 0) != 0)
		return 0;
	js_ws(&s);
	return s.p == s.end;
}

static cJSON *
json_text(sqlite3_stmt *st, int i)
{
	const char *p = (const char *)sqlite3_column_text(st, i);
	size_t len = (size_t)sqlite3_column_bytes(st, i);
	cJSON *j;
	char *s;

	if (p == NULL)
		die("out of memory");
	s = utf8_sanitize(p, len);
	j = cJSON_CreateString(s);
	free(s);
	return j;
}

static void
print_json(sqlite3_stmt *st)
{
	cJSON *o, *j;
	const char *p;
	char *line, *raw;
	size_t len;
	int i;

	if ((o = cJSON_CreateObject()) == NULL)
		die("out of memory");
	for (i = 0; i < Q_NCOLS; i++) {
		j = NULL;
		if (sqlite3_column_type(st, i) == SQLITE_NULL)
			j = cJSON_CreateNull();
		else if (qcols[i].kind == J_INT &&
		    sqlite3_column_type(st, i) == SQLITE_INTEGER)
			j = cJSON_CreateNumber(
			    (double)sqlite3_column_int64(st, i));
		else if (qcols[i].kind == J_JSON) {
			p = (const char *)sqlite3_column_text(st, i);
			len = (size_t)sqlite3_column_bytes(st, i);
			if (p != NULL && json_ok(p, len)) {
				raw = xstrndup(p, len);
				j = cJSON_CreateRaw(raw);
				free(raw);
			} else
				j = json_text(st, i);
		} else
			j = json_text(st, i);
		if (j == NULL || !cJSON_AddItemToObject(o, qcols[i].name, j))
			die("out of memory");
	}
	if ((line = cJSON_PrintUnformatted(o)) == NULL)
		die("out of memory");
	printf("%s\n", line);
	cJSON_free(line);
	cJSON_Delete(o);
}

/* Column i as display text: control bytes escaped, NULL as "-". */
static void
text_col(sqlite3_stmt *st, int i, char *out, size_t outlen)
{
	const char *p = (const char *)sqlite3_column_text(st, i);

	if (p == NULL) {
		snprintf(out, outlen, "-");
		return;
	}
	log_escape(out, outlen, p, (size_t)sqlite3_column_bytes(st, i));
}

static void
print_plain(sqlite3_stmt *st)
{
	char t[AUDIT_TIME_LEN * 4 + 1], agent[BNC_AUDIT_FIELD_MAX * 4 + 1];
	char tool[BNC_AUDIT_FIELD_MAX * 4 + 1], verdict[32], contract[64];
	char reason[BNC_REASON_MAX * 4 + 1];

	text_col(st, Q_TIME, t, sizeof(t));
	text_col(st, Q_AGENT, agent, sizeof(agent));
	text_col(st, Q_TOOL, tool, sizeof(tool));
	text_col(st, Q_VERDICT, verdict, sizeof(verdict));
	text_col(st, Q_CONTRACT, contract, sizeof(contract));
	if (sqlite3_column_type(st, Q_REASON) == SQLITE_NULL)
		reason[0] = '\0';
	else
		text_col(st, Q_REASON, reason, sizeof(reason));
	printf("%6lld  %-27s  %-12s  %-24s  %-5s  %-10s  %s\n",
	    (long long)sqlite3_column_int64(st, Q_SEQ), t, agent, tool,
	    verdict, contract, reason);
}

static sqlite3 *
open_db(const char *dbpath)
{
	sqlite3 *db = NULL;
	char err[1024];
	int r;

	if ((r = audit_open_readonly(dbpath, &db, err, sizeof(err))) != 0) {
		if (r == -BNC_ERR_NOT_FOUND)
			die("no audit database at %s", dbpath);
		die("%s", err);
	}
	return db;
}

static sqlite3_stmt *
prepare_or_die(sqlite3 *db, const char *dbpath, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		die("%s: not an audit log: %s", dbpath, sqlite3_errmsg(db));
	return st;
}

static int
do_query(const char *dbpath, const char *agent, const char *tool,
    const char *verdict, const char *since, long long limit, int json)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int rc;

	db = open_db(dbpath);
	st = prepare_or_die(db, dbpath, query_sql);
	if (sqlite3_bind_text(st, 1, agent, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(st, 2, tool, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(st, 3, verdict, -1, SQLITE_STATIC) !=
	    SQLITE_OK ||
	    sqlite3_bind_text(st, 4, since, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_int64(st, 5, limit) != SQLITE_OK)
		die("%s: %s", dbpath, sqlite3_errmsg(db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (json)
			print_json(st);
		else
			print_plain(st);
	}
	if (rc != SQLITE_DONE)
		die("%s: %s", dbpath, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("standard output: %s", strerror(errno));
	return 0;
}

static int
do_head(const char *dbpath)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	const char *h = AUDIT_GENESIS;
	size_t i;
	int rc;

	db = open_db(dbpath);
	st = prepare_or_die(db, dbpath,
	    "SELECT hash FROM decisions ORDER BY seq DESC LIMIT 1");
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		h = (const char *)sqlite3_column_text(st, 0);
		if (h == NULL || sqlite3_column_bytes(st, 0) != AUDIT_HASH_HEX)
			die("%s: the last row's hash is malformed (run -V)",
			    dbpath);
		for (i = 0; i < AUDIT_HASH_HEX; i++)
			if (strchr("0123456789abcdef", h[i]) == NULL)
				die("%s: the last row's hash is malformed "
				    "(run -V)", dbpath);
	} else if (rc != SQLITE_DONE)
		die("%s: %s", dbpath, sqlite3_errmsg(db));
	printf("%s\n", h);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return 0;
}

static int
do_verify(const char *dbpath)
{
	struct stat st;
	char why[1024];
	int64_t bad, n;
	int r;

	r = audit_verify_detail(dbpath, &bad, &n, why, sizeof(why));
	if (r == 0) {
		printf("chain intact: %lld rows\n", (long long)n);
		return 0;
	}
	if (r == -BNC_ERR_BAD_FORMAT) {
		printf("bad row at seq %lld: %s\n", (long long)bad, why);
		return 1;
	}
	if (r == -BNC_ERR_NOT_FOUND && stat(dbpath, &st) != 0)
		die("no audit database at %s", dbpath);
	die("%s", why[0] != '\0' ? why : bnc_err(r));
}

int
main(int argc, char **argv)
{
	const char *cfgpath = NULL, *dbarg = NULL, *agent = NULL;
	const char *tool = NULL, *verdict = NULL, *sincearg = NULL;
	char since[AUDIT_TIME_LEN + 1], *dbpath = NULL, *end;
	long long limit = -1;
	int ch, json = 0, verify = 0, head = 0, filters = 0, rc = 0;
	size_t i;

	log_init("bouncer-audit", LOG_LEVEL_INFO);
	while ((ch = getopt_long(argc, argv, "f:D:a:s:T:r:n:jV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'f':
			cfgpath = optarg;
			break;
		case 'D':
			dbarg = optarg;
			break;
		case 'a':
			agent = optarg;
			filters = 1;
			break;
		case 's':
			sincearg = optarg;
			filters = 1;
			break;
		case 'T':
			tool = optarg;
			filters = 1;
			break;
		case 'r':
			verdict = optarg;
			filters = 1;
			break;
		case 'n':
			errno = 0;
			limit = strtoll(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    limit < 1)
				die("-n: not a positive number: %s", optarg);
			filters = 1;
			break;
		case 'j':
			json = 1;
			filters = 1;
			break;
		case 'V':
			verify = 1;
			break;
		case 'H':
			head = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (cfgpath != NULL && dbarg != NULL)
		die("-f and -D exclude each other");
	if ((verify || head) && filters)
		die("-V and --head take no query options");
	if (verdict != NULL) {
		for (i = 0; i < sizeof(verdict_names) /
		    sizeof(verdict_names[0]); i++)
			if (strcmp(verdict, verdict_names[i]) == 0)
				break;
		if (i == sizeof(verdict_names) / sizeof(verdict_names[0]))
			die("-r: verdict must be allow, deny, ask or event");
	}
	if (sincearg != NULL && parse_since(sincearg, since) != 0)
		die("-s: not an RFC 3339 time or a duration (30s, 10m, 2h, "
		    "7d): %s", sincearg);

	dbpath = dbarg != NULL ? xstrdup(dbarg) : default_db(cfgpath);
	if (verify)
		rc = do_verify(dbpath);
	if (head && rc == 0)
		rc = do_head(dbpath);
	if (!verify && !head)
		rc = do_query(dbpath, agent, tool, verdict,
		    sincearg != NULL ? since : NULL, limit, json);
	free(dbpath);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("standard output: %s", strerror(errno));
	return rc;
}
