/*
 * bouncer-issue-consent.c - the consent signing key pair, and consent
 * tokens signed with it (bouncer-issue-consent(8), DESIGN 7).
 *
 * An administrator's tool.  -G writes a new key pair; otherwise it signs
 * one token for one agent, tool, target and exact text, after showing
 * all of them to the human who answers.  It must never sign what it has
 * not shown: the display is made from the very bytes whose hash is
 * signed, with every character that could hide, reorder or overwrite
 * text made visible; the answer is read from the terminal, never from
 * standard input (which may carry the text); and standard output carries
 * the token and nothing else.  It parses the admin's own -t values with
 * cJSON and is never linked into bouncer-monitor.
 *
 * --pending, --approve and --deny answer the calls that wait out of band
 * (DESIGN 5, 7) through the monitor's database: an approval is signed
 * over the arguments exactly as shown, so an ask whose row was altered
 * after it was written is refused by the monitor, not approved.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/prctl.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <sodium.h>
#include <sqlite3.h>

#include "audit.h"
#include "bounds.h"
#include "buf.h"
#include "conffile.h"
#include "consent.h"
#include "err.h"
#include "utf8.h"
#include "value.h"
#include "value-json.h"
#include "xmalloc.h"

/*
 * Bytes of a consented text: GitHub's limit on a comment body, in
 * characters, is 65536; Notion's and Slack's are lower.  A text no
 * work system would take is refused before a human reads it.
 */
#define DEFAULT_TOOL		"post_human_authored_comment"
/* under $XDG_CONFIG_HOME or ~/.config, beside bouncer.yaml */
#define KEYFILE_NAME		"bouncer/consent.key"
/* the longest answer read from the terminal; longer is no "yes" */
#define ANSWER_MAX		16
#define SHOW_INDENT		"    | "

/* What a built-in tool takes as its target (DESIGN 7). */
enum target_form {
	FORM_NONE,		/* takes no consent token */
	FORM_WORK,		/* notion:<page>, github:<owner>/<repo>#<n> */
	FORM_CHANNEL		/* a channel name from the config */
};

static const struct {
	const char		*name;
	enum target_form	 form;
} builtins[] = {
	{ "read_tasks",			FORM_NONE },
	{ "read_task",			FORM_NONE },
	{ "read_comments",		FORM_NONE },
	{ "create_draft",		FORM_NONE },
	{ "post_human_authored_comment", FORM_WORK },
	{ "send_external_message",	FORM_CHANNEL },
};

/* -e units: DESIGN 1.1 names s, m and h. */
static const struct {
	char	 unit;
	int64_t	 seconds;
} ttl_units[] = {
	{ 's', 1 }, { 'm', 60 }, { 'h', 3600 },
};

/*
 * Characters shown as \uXXXX, though they are valid UTF-8: each can
 * hide, reorder or overwrite what the human reads, so that the text
 * signed is not the text seen.
 */
static const struct {
	uint32_t	 lo, hi;
	const char	*why;
} hidden[] = {
	{ 0x0080, 0x009f, "C1 controls: a terminal obeys some (CSI)" },
	{ 0x00ad, 0x00ad, "soft hyphen: invisible" },
	{ 0x034f, 0x034f, "combining grapheme joiner: invisible" },
	{ 0x061c, 0x061c, "Arabic letter mark: a bidi control" },
	{ 0x180e, 0x180e, "Mongolian vowel separator: invisible" },
	{ 0x200b, 0x200f, "zero-width space and joiners, LRM, RLM" },
	{ 0x2028, 0x2029, "line and paragraph separators: unseen breaks" },
	{ 0x202a, 0x202e, "bidi embeddings and overrides" },
	{ 0x2060, 0x206f, "word joiner, invisible operators, bidi "
	    "isolates, deprecated format controls" },
	{ 0xfeff, 0xfeff, "zero-width no-break space (BOM)" },
	{ 0xfff9, 0xfffb, "interlinear annotations: hide text" },
	{ 0xe0000, 0xe007f, "tag characters: invisible ASCII" },
};

#define OPT_DRAFTS	0x100
#define OPT_PENDING	0x101
#define OPT_APPROVE	0x102
#define OPT_DENY	0x103
static const struct option longopts[] = {
	{ "drafts",	no_argument,		NULL,	OPT_DRAFTS },
	{ "pending",	no_argument,		NULL,	OPT_PENDING },
	{ "approve",	required_argument,	NULL,	OPT_APPROVE },
	{ "deny",	required_argument,	NULL,	OPT_DENY },
	{ NULL,		0,			NULL,	0 }
};

struct issue {
	const char	*agent;
	const char	*tool;
	const char	**targets;	/* each -t, in order */
	size_t		 ntargets;
	const char	*text_arg;	/* -m */
	const char	*text_file;	/* -F */
	const char	*draft;		/* -D */
	const char	*ttl_arg;	/* -e */
	const char	*cfgpath;	/* -f */
	int		 yes;		/* -y */
};

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: bouncer-issue-consent -G [-k keyfile]\n"
	    "       bouncer-issue-consent -a agent -t target [-T tool] "
	    "(-m text | -F file | -D draft)\n"
	    "                             [-e ttl] [-k keyfile] [-f config] "
	    "[-y]\n"
	    "       bouncer-issue-consent --drafts [-a agent] [-f config]\n"
	    "       bouncer-issue-consent --pending [-f config]\n"
	    "       bouncer-issue-consent --approve id [-k keyfile] "
	    "[-f config] [-y]\n"
	    "       bouncer-issue-consent --deny id [-f config]\n");
	exit(1);
}

static void
vwarnmsg(const char *fmt, va_list ap)
{
	fputs("bouncer-issue-consent: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void __attribute__((format(printf, 1, 2)))
warnmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarnmsg(fmt, ap);
	va_end(ap);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarnmsg(fmt, ap);
	va_end(ap);
	exit(1);
}

/* An option given twice is a mistake, never "the last one wins". */
static void
once(const char **var, int ch)
{
	if (*var != NULL)
		die("-%c given twice", ch);
	*var = optarg;
}

/* ---- keys ----------------------------------------------------------- */

/*
 * The key file when -k is not given: $XDG_CONFIG_HOME/bouncer/
 * consent.key, else ~/.config/bouncer/consent.key, the directory where
 * bouncer-monitor looks for bouncer.yaml first.  NULL if neither
 * variable holds an absolute path.  The caller owns the string.
 */
static char *
default_keyfile(void)
{
	const char *xdg, *home;
	char *p = NULL;

	if ((xdg = getenv("XDG_CONFIG_HOME")) != NULL && *xdg == '/')
		xasprintf(&p, "%s/%s", xdg, KEYFILE_NAME);
	else if ((home = getenv("HOME")) != NULL && *home == '/')
		xasprintf(&p, "%s/.config/%s", home, KEYFILE_NAME);
	return p;
}

/* mkdir -p of path's directory, mode 0700: the default's, not -k's. */
static void
make_parents(const char *path)
{
	char *p = xstrdup(path), *s;

	for (s = p + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(p, 0700) == -1 && errno != EEXIST)
			die("%s: %s", p, strerror(errno));
		*s = '/';
	}
	free(p);
}

static int
do_keygen(const char *keyfile, int is_default)
{
	char err[BNC_PATH_MAX + 256];

	if (is_default)
		make_parents(keyfile);
	if (consent_keygen(keyfile, err, sizeof(err)) != 0)
		die("%s", err);
	fprintf(stderr, "bouncer-issue-consent: wrote the secret key %s "
	    "(mode 0600) and the public key %s.pub (mode 0644)\n"
	    "Copy %s.pub into the consent.keys directory of each "
	    "bouncer-monitor\nthat is to accept tokens signed with this key "
	    "(bouncer.yaml(5)).\n", keyfile, keyfile, keyfile);
	return 0;
}

/* ---- what is signed ------------------------------------------------- */

/* 0 if s is UTF-8 without control characters, else -1. */
static int
plain(const char *s)
{
	size_t i, n = strlen(s);

	if (!utf8_valid(s, n))
		return -1;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return -1;
	return 0;
}

/* -e: digits, and one unit of ttl_units or none (seconds). */
static int
parse_ttl(const char *s, int64_t *out)
{
	char *end;
	long long n;
	int64_t mult = 1;
	size_t i;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno != 0 || n <= 0)
		return -1;
	if (*end != '\0') {
		for (i = 0; i < sizeof(ttl_units) / sizeof(ttl_units[0]); i++)
			if (*end == ttl_units[i].unit)
				break;
		if (i == sizeof(ttl_units) / sizeof(ttl_units[0]) ||
		    end[1] != '\0')
			return -1;
		mult = ttl_units[i].seconds;
	}
	/* past any bound: refused by the caller as too long */
	*out = n > INT32_MAX ? INT64_MAX : (int64_t)n * mult;
	return 0;
}

/* The lifetime -e asks for, within consent.max_ttl and 24 hours. */
static int64_t
issue_ttl(const char *arg, const char *cfgpath)
{
	struct config cfg;
	char err[1024], what[64];
	int64_t ttl = BNC_CONSENT_TTL_ISSUE;

	if (arg != NULL && parse_ttl(arg, &ttl) != 0)
		die("-e %s: not a lifetime: seconds, or a number with s, m "
		    "or h (30s, 10m, 1h)", arg);
	if (arg != NULL)
		snprintf(what, sizeof(what), "-e %s", arg);
	else
		snprintf(what, sizeof(what), "the default lifetime (no -e)");
	if (ttl > BNC_CONSENT_TTL_MAX)
		die("%s: longer than 24 hours (%d seconds), the longest a "
		    "token may live", what, BNC_CONSENT_TTL_MAX);
	/* the monitor's own limit, its config found as it finds it */
	if (config_find(&cfg, cfgpath, err, sizeof(err)) != 0)
		die("%s", err);
	if (ttl > cfg.consent_max_ttl)
		die("%s: %lld seconds, longer than consent.max_ttl, %d "
		    "seconds (%s)", what, (long long)ttl, cfg.consent_max_ttl,
		    cfg.path != NULL ? cfg.path : "the built-in default");
	config_free(&cfg);
	return ttl;
}

/*
 * The exact bytes of -F FILE ("-": standard input), at most
 * BNC_CONSENT_TEXT_MAX.  Nothing is stripped: the hash binds these bytes.
 */
static uint8_t *
read_text(const char *path, size_t *lenp)
{
	uint8_t *p = xmalloc(BNC_CONSENT_TEXT_MAX + 1);
	size_t got = 0;
	ssize_t n;
	int fd;

	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		die("%s: %s", path, strerror(errno));
	while (got <= BNC_CONSENT_TEXT_MAX && (n = read(fd, p + got,
	    BNC_CONSENT_TEXT_MAX + 1 - got)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			die("%s: %s", path, strerror(errno));
		}
		got += (size_t)n;
	}
	if (fd != STDIN_FILENO)
		close(fd);
	if (got > BNC_CONSENT_TEXT_MAX)
		die("%s: the text is longer than %d bytes", path,
		    BNC_CONSENT_TEXT_MAX);
	*lenp = got;
	return p;
}

/* A text a tool can carry: UTF-8, non-empty, no NUL, within bounds. */
static void
check_text(const uint8_t *p, size_t n)
{
	uint32_t cp;
	size_t i, l;

	if (n == 0)
		die("the text is empty");
	if (n > BNC_CONSENT_TEXT_MAX)
		die("the text is longer than %d bytes", BNC_CONSENT_TEXT_MAX);
	for (i = 0; i < n; i += l) {
		if ((l = utf8_decode(p + i, n - i, &cp)) == 0)
			die("the text is not valid UTF-8 (byte %zu is 0x%02x)",
			    i, p[i]);
		/* a JSON string cannot carry it: no call could match */
		if (cp == 0)
			die("the text holds a NUL byte (byte %zu)", i);
	}
}

/*
 * A \u0000 escape outside a string's other escapes: cJSON would cut the
 * string there, and no call's argument can hold a NUL (value.h).
 */
static int
has_nul_escape(const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s != '\\')
			continue;
		if (s[1] == 'u' && strncmp(s + 2, "0000", 4) == 0)
			return 1;
		if (s[1] != '\0')
			s++;
	}
	return 0;
}

/*
 * it as a value tree, numbers as the worker reads a call's arguments
 * (integral within 2^53: an integer, else a double), so the canonical
 * form here is the monitor's for the same call.  NULL with *why.
 */
static struct value *
from_json(const cJSON *it, int depth, const char **why)
{
	struct value *v = NULL, *child;
	const cJSON *c;
	double d;

	switch (it->type & 0xff) {
	case cJSON_NULL:
		return value_null();
	case cJSON_False:
	case cJSON_True:
		return value_bool((it->type & 0xff) == cJSON_True);
	case cJSON_Number:
		d = it->valuedouble;
		if (!isfinite(d)) {
			*why = "a number out of range";
			return NULL;
		}
		if (d >= -9007199254740992.0 && d <= 9007199254740992.0 &&
		    (double)(int64_t)d == d)
			return value_int((int64_t)d);
		return value_double(d);
	case cJSON_String:
		if (!utf8_valid(it->valuestring, strlen(it->valuestring))) {
			*why = "a string that is not UTF-8";
			return NULL;
		}
		return value_string(it->valuestring);
	case cJSON_Array:
	case cJSON_Object:
		if (depth + 1 > BNC_VALUE_DEPTH_MAX) {
			*why = "nested too deep";
			return NULL;
		}
		v = (it->type & 0xff) == cJSON_Array ? value_array() :
		    value_object();
		for (c = it->child; c != NULL; c = c->next) {
			if ((child = from_json(c, depth + 1, why)) == NULL)
				goto fail;
			if ((it->type & 0xff) == cJSON_Array)
				value_array_append(v, child);
			else if (!utf8_valid(c->string, strlen(c->string))) {
				value_free(child);
				*why = "a key that is not UTF-8";
				goto fail;
			} else if (value_object_set(v, c->string,
			    child) != 0) {
				*why = "a duplicate key";
				goto fail;
			}
		}
		return v;
	}
	*why = "not a JSON value";
 fail:
	value_free(v);
	return NULL;
}

/*
 * An upstream tool's target: the canonical JSON of {PARAM: VALUE, ...}
 * from each -t PARAM=VALUE, VALUE read as JSON when it parses as JSON,
 * else as a string (DESIGN 7).  The caller owns the string.
 */
static char *
upstream_target(const char **targets, size_t n)
{
	struct value *obj = value_object(), *v;
	struct buf *b = buf_new();
	const char *eq, *why = NULL;
	char *param, *t;
	cJSON *j;
	size_t i;

	for (i = 0; i < n; i++) {
		if ((eq = strchr(targets[i], '=')) == NULL ||
		    eq == targets[i])
			die("-t %s: an upstream tool's target is given as "
			    "-t PARAM=VALUE", targets[i]);
		param = xstrndup(targets[i], (size_t)(eq - targets[i]));
		if (plain(param) != 0 || plain(eq + 1) != 0)
			die("-t %s: not UTF-8, or holds a control character",
			    targets[i]);
		if (has_nul_escape(eq + 1))
			die("-t %s: a \\u0000 in a string", targets[i]);
		j = cJSON_ParseWithOpts(eq + 1, NULL, 1);
		if (j == NULL)
			v = value_string(eq + 1);
		else if ((v = from_json(j, 0, &why)) == NULL)
			die("-t %s: %s", targets[i], why);
		cJSON_Delete(j);
		if (value_object_set(obj, param, v) != 0)
			die("-t %s: %s given twice", targets[i], param);
		free(param);
	}
	if (value_render_canonical(b, obj) != 0 ||
	    buf_len(b) > BNC_CONSENT_TARGET_MAX)
		die("the target is longer than %d bytes as canonical JSON",
		    BNC_CONSENT_TARGET_MAX);
	t = xstrndup((const char *)buf_ptr(b), buf_len(b));
	buf_free(b);
	value_free(obj);
	return t;
}

/* The target the token binds, as the monitor will compare it. */
static char *
issue_target(const struct issue *is)
{
	const char *t;
	size_t i;

	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strcmp(is->tool, builtins[i].name) == 0)
			break;
	if (i == sizeof(builtins) / sizeof(builtins[0]))
		return upstream_target(is->targets, is->ntargets);
	if (builtins[i].form == FORM_NONE)
		die("-T %s: this tool takes no consent token", is->tool);
	if (is->ntargets != 1)
		die("-T %s takes one -t", is->tool);
	t = is->targets[0];
	if (strlen(t) > BNC_CONSENT_TARGET_MAX)
		die("-t: longer than %d bytes", BNC_CONSENT_TARGET_MAX);
	if (*t == '\0' || plain(t) != 0)
		die("-t: empty, not UTF-8, or holds a control character");
	if (builtins[i].form == FORM_WORK && consent_work_target(t) != 0)
		die("-t %s: not notion:<page-id> or "
		    "github:<owner>/<repo>#<number>", t);
	return xstrdup(t);
}

/* ---- the display ---------------------------------------------------- */

static int
is_hidden(uint32_t cp)
{
	size_t i;

	for (i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++)
		if (cp >= hidden[i].lo && cp <= hidden[i].hi)
			return 1;
	return 0;
}

/*
 * p[0..n) so that every byte of it can be seen: printable characters as
 * themselves; a backslash as \\, so that every other backslash starts an
 * escape; \n, \t and \r; other control bytes and bytes that are not
 * UTF-8 as \xNN; the characters of hidden[] as \uXXXX or \UXXXXXXXX.
 * With lines, a newline also breaks the line shown, after SHOW_INDENT.
 */
static void
show(FILE *f, const uint8_t *p, size_t n, int lines)
{
	uint32_t cp;
	size_t i, l;

	for (i = 0; i < n; i += l) {
		l = 1;
		if (p[i] == '\\')
			fputs("\\\\", f);
		else if (p[i] == '\n') {
			fputs("\\n", f);
			if (lines && i + 1 < n)
				fputs("\n" SHOW_INDENT, f);
		} else if (p[i] == '\t')
			fputs("\\t", f);
		else if (p[i] == '\r')
			fputs("\\r", f);
		else if (p[i] < 0x20 || p[i] == 0x7f)
			fprintf(f, "\\x%02x", p[i]);
		else if (p[i] < 0x80)
			fputc(p[i], f);
		else if ((l = utf8_decode(p + i, n - i, &cp)) == 0) {
			fprintf(f, "\\x%02x", p[i]);
			l = 1;
		} else if (is_hidden(cp))
			fprintf(f, cp > 0xffff ? "\\U%08X" : "\\u%04X",
			    (unsigned)cp);
		else
			fwrite(p + i, 1, l, f);
	}
}

static void
show_field(FILE *f, const char *name, const char *s)
{
	fprintf(f, "  %-8s ", name);
	show(f, (const uint8_t *)s, strlen(s), 0);
	fputc('\n', f);
}

static void
display(FILE *f, const struct consent *c, const char *keyfile,
    const uint8_t *text, size_t len)
{
	char when[64], hex[65];
	struct tm tm;
	time_t t = (time_t)c->expires;
	size_t i;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(when, sizeof(when), "%lld", (long long)c->expires);
	fputs("Consent to be signed:\n", f);
	show_field(f, "agent", c->agent);
	show_field(f, "tool", c->tool);
	show_field(f, "target", c->target);
	fprintf(f, "  %-8s %s (in %lld seconds)\n", "expires", when,
	    (long long)(c->expires - c->issued));
	fprintf(f, "  %-8s ", "key");
	show(f, (const uint8_t *)keyfile, strlen(keyfile), 0);
	fputs(" (id ", f);
	for (i = 0; i < CONSENT_KEY_ID_LEN; i++)
		fprintf(f, "%02x", c->key_id[i]);
	fputs(")\n", f);
	fprintf(f, "  %-8s %zu bytes, exactly (\\ starts an escape):\n",
	    "text", len);
	fputs(SHOW_INDENT, f);
	show(f, text, len, 1);
	fputc('\n', f);
	sodium_bin2hex(hex, sizeof(hex), c->text_sha256, 32);
	fprintf(f, "  %-8s %s\n", "sha256", hex);
	fflush(f);
}

/*
 * Opens the terminal to show and ask on: NULL (said why) without one.
 * *fdp is its descriptor, for tcflush.
 */
static FILE *
tty_open(int *fdp)
{
	FILE *tty;
	int fd;

	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1) {
		warnmsg("no terminal to ask on (/dev/tty: %s): run it on a "
		    "terminal, or pass -y to sign without asking",
		    strerror(errno));
		return NULL;
	}
	if ((tty = fdopen(fd, "r+")) == NULL) {
		warnmsg("/dev/tty: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	*fdp = fd;
	return tty;
}

/* Asks question on tty, then closes it: 1 for y or yes, else 0. */
static int
tty_yes(FILE *tty, int fd, const char *question)
{
	char answer[ANSWER_MAX + 2];
	size_t n;
	int yes = 0;

	/* an answer typed before the question was shown is no answer */
	(void)tcflush(fd, TCIFLUSH);
	fputs(question, tty);
	fflush(tty);
	if (fgets(answer, sizeof(answer), tty) != NULL) {
		n = strcspn(answer, "\r\n");
		if (answer[n] != '\0') {
			answer[n] = '\0';
			yes = strcasecmp(answer, "y") == 0 ||
			    strcasecmp(answer, "yes") == 0;
		}
	}
	fclose(tty);
	return yes;
}

/*
 * Shows the consent on the terminal and asks: 1 for y or yes, 0 for
 * anything else, -1 (said why) without a terminal to ask on.
 */
static int
ask(const struct consent *c, const char *keyfile, const uint8_t *text,
    size_t len)
{
	FILE *tty;
	int fd;

	if ((tty = tty_open(&fd)) == NULL)
		return -1;
	display(tty, c, keyfile, text, len);
	return tty_yes(tty, fd, "Sign? [y/N] ");
}

/*
 * The secret key of keyfile, in memory libsodium guards (sodium_free
 * it), or NULL when it cannot be used (said on stderr).
 */
static uint8_t *
secret_key(const char *keyfile)
{
	char err[BNC_PATH_MAX + 256];
	uint8_t *sk;

	if (access(keyfile, F_OK) == -1 && errno == ENOENT)
		die("%s: no such key; bouncer-issue-consent -G [-k keyfile] "
		    "makes one", keyfile);
	if ((sk = sodium_malloc(crypto_sign_SECRETKEYBYTES)) == NULL)
		die("sodium_malloc: %s", strerror(errno));
	if (consent_secret_load(keyfile, sk, err, sizeof(err)) != 0) {
		warnmsg("%s", err);
		sodium_free(sk);
		return NULL;
	}
	return sk;
}

/* ---- drafts --------------------------------------------------------- */

/* The monitor's database file, found as the monitor finds it. */
static char *
db_path(const char *cfgpath)
{
	struct config cfg;
	char err[1024], *path = NULL;

	if (config_find(&cfg, cfgpath, err, sizeof(err)) != 0)
		die("%s", err);
	xasprintf(&path, "%s/audit.db", cfg.state_dir);
	config_free(&cfg);
	return path;
}

/* The monitor's database, read-only. */
static struct sqlite3 *
open_db(const char *cfgpath)
{
	struct sqlite3 *db = NULL;
	char err[1024], *path = db_path(cfgpath);

	if (audit_open_readonly(path, &db, err, sizeof(err)) != 0)
		die("%s", err);
	free(path);
	return db;
}

/*
 * For the listings: the database, or NULL when no monitor has made one
 * yet, so that a fresh installation lists nothing instead of failing;
 * the note names the file, in case the configuration meant another.
 */
static struct sqlite3 *
open_db_listing(const char *cfgpath, const char *what)
{
	struct stat st;
	char *path = db_path(cfgpath);

	if (stat(path, &st) == -1 && errno == ENOENT) {
		warnmsg("%s (no audit database at %s yet)", what, path);
		free(path);
		return NULL;
	}
	free(path);
	return open_db(cfgpath);
}

/*
 * -D: the text of a draft exactly as the agent stored it; it must be
 * the agent's that -a names, for the target that -t names: a consent
 * is to one text, for one agent and one target.
 */
static uint8_t *
draft_text(const struct issue *is, const char *target, size_t *lenp)
{
	struct audit_draft d;
	struct sqlite3 *db;
	uint8_t *text;
	long long id;
	char *end;
	int r;

	errno = 0;
	id = strtoll(is->draft, &end, 10);
	if (*is->draft < '1' || *is->draft > '9' || *end != '\0' ||
	    errno != 0)
		die("-D %s: not a draft id (a positive number)", is->draft);
	db = open_db(is->cfgpath);
	if ((r = audit_draft_get(db, id, &d)) != 0)
		die("-D %lld: %s", id, r == -BNC_ERR_NOT_FOUND ?
		    "no such draft (bouncer-issue-consent --drafts lists them)" :
		    "the draft cannot be read");
	sqlite3_close(db);
	if (strcmp(d.agent, is->agent) != 0)
		die("-D %lld: the draft is agent %s's, not %s's", id, d.agent,
		    is->agent);
	if (strcmp(d.target, target) != 0)
		die("-D %lld: the draft is for %s, not %s", id, d.target,
		    target);
	text = xmalloc(d.len + 1);
	memcpy(text, d.text, d.len);
	*lenp = d.len;
	warnmsg("draft %lld, written by agent %s at %s", id, d.agent, d.time);
	audit_draft_clear(&d);
	return text;
}

/* One draft: its header line, then its text made visible. */
static int
list_one(const struct audit_draft *d, void *arg)
{
	int *n = arg;

	printf("draft %lld  %s  agent ", (long long)d->id, d->time);
	show(stdout, (const uint8_t *)d->agent, strlen(d->agent), 0);
	fputs("  target ", stdout);
	show(stdout, (const uint8_t *)d->target, strlen(d->target), 0);
	printf("\n  sha256 %s, %zu bytes:\n" SHOW_INDENT, d->text_sha256,
	    d->len);
	show(stdout, (const uint8_t *)d->text, d->len, 1);
	fputs("\n", stdout);
	(*n)++;
	return 0;
}

/* --drafts: every draft (of -a's agent), oldest first, shown whole. */
static int
do_drafts(const struct issue *is)
{
	struct sqlite3 *db = open_db_listing(is->cfgpath, "no drafts");
	int n = 0, r;

	if (db == NULL)
		return 0;
	r = audit_drafts_each(db, is->agent, list_one, &n);
	sqlite3_close(db);
	if (r != 0)
		die("the drafts cannot be read (%s)", bnc_err(r));
	if (fflush(stdout) != 0 || ferror(stdout))
		die("standard output: %s", strerror(errno));
	if (n == 0)
		warnmsg("no drafts%s%s", is->agent != NULL ? " of agent " : "",
		    is->agent != NULL ? is->agent : "");
	return 0;
}

/* ---- out-of-band asks ----------------------------------------------- */

/* t as "YYYY-MM-DD HH:MM:SS UTC" into when[64]. */
static void
utc(int64_t t, char when[64])
{
	struct tm tm;
	time_t tt = (time_t)t;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(when, 64, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(when, 64, "%lld", (long long)t);
}

/*
 * One ask, every field made visible, and its arguments whole: they are
 * what an approval signs (their SHA-256), so nothing of them is cut.
 */
static void
show_ask(FILE *f, const struct audit_oob_ask *k, int64_t now)
{
	char when[64];

	utc(k->expires, when);
	fprintf(f, "ask %lld\n", (long long)k->id);
	show_field(f, "agent", k->agent);
	show_field(f, "tool", k->tool);
	show_field(f, "why", k->reason);
	fprintf(f, "  %-8s %s (in %lld seconds)\n", "expires", when,
	    (long long)(k->expires - now));
	show_field(f, "session", k->session);
	fprintf(f, "  %-8s %zu bytes of canonical JSON, exactly (\\ starts "
	    "an escape):\n" SHOW_INDENT, "args", k->args_len);
	show(f, (const uint8_t *)k->args, k->args_len, 1);
	fputc('\n', f);
	show_field(f, "sha256", k->args_sha256);
	fflush(f);
}

static int
pending_one(const struct audit_oob_ask *k, void *arg)
{
	int *n = arg;

	show_ask(stdout, k, (int64_t)time(NULL));
	(*n)++;
	return 0;
}

/* --pending: the asks of every monitor on this database still waiting. */
static int
do_pending(const char *cfgpath)
{
	struct sqlite3 *db = open_db_listing(cfgpath, "no calls are waiting "
	    "for an out-of-band approval");
	int n = 0, r;

	if (db == NULL)
		return 0;
	r = audit_oob_pending_each(db, (int64_t)time(NULL), pending_one, &n);
	sqlite3_close(db);
	if (r != 0)
		die("the asks cannot be read (%s)", bnc_err(r));
	if (fflush(stdout) != 0 || ferror(stdout))
		die("standard output: %s", strerror(errno));
	if (n == 0)
		warnmsg("no calls are waiting for an out-of-band approval");
	return 0;
}

/*
 * The ask that --approve or --deny names, if it still waits: one the
 * admin could act on.  Anything else is refused, saying why.
 */
static void
waiting_ask(struct sqlite3 *db, const char *arg, struct audit_oob_ask *k)
{
	char when[64];
	long long id;
	char *end;
	int r;

	errno = 0;
	id = strtoll(arg, &end, 10);
	if (*arg < '1' || *arg > '9' || *end != '\0' || errno != 0)
		die("%s: not an ask id (a positive number)", arg);
	if ((r = audit_oob_get(db, id, k)) != 0)
		die("ask %lld: %s", id, r == -BNC_ERR_NOT_FOUND ? "no such ask "
		    "(bouncer-issue-consent --pending lists them)" :
		    "the ask cannot be read");
	if (k->answer != NULL && strcmp(k->answer, "withdrawn") == 0)
		die("ask %lld: nobody waits for it any more (the call was "
		    "cancelled, or its session ended)", id);
	if (k->answer != NULL)
		die("ask %lld: answered already (%s)", id, k->answer);
	/* as the monitor has it: waiting while now < expires */
	if (k->expires <= (int64_t)time(NULL)) {
		utc(k->expires, when);
		die("ask %lld: expired at %s; its call was denied", id, when);
	}
}

/* --deny: the call is denied when its monitor next looks (no key). */
static int
do_deny(const char *arg, const char *cfgpath)
{
	struct audit_oob_ask k;
	struct sqlite3 *db = NULL;
	char err[1024], *path = db_path(cfgpath);
	int r;

	if (audit_open_answerer(path, &db, err, sizeof(err)) != 0)
		die("%s", err);
	waiting_ask(db, arg, &k);
	if ((r = audit_oob_answer_put(db, k.id, "deny", NULL, NULL)) != 0)
		die("ask %lld: %s", (long long)k.id, r == -BNC_ERR_USED ?
		    "answered already" : sqlite3_errmsg(db));
	warnmsg("ask %lld denied", (long long)k.id);
	audit_oob_ask_clear(&k);
	sqlite3_close(db);
	free(path);
	return 0;
}

/*
 * --approve: shows the ask and asks (unless -y), then signs it with the
 * key and stores the approval.  The hash signed is of the arguments as
 * shown, not the row's column: what the admin saw is what is approved.
 */
static int
do_approve(const char *arg, const char *keyfile, const char *cfgpath,
    int yes)
{
	struct audit_oob_ask k;
	struct consent_approval ap;
	struct sqlite3 *db = NULL;
	char err[BNC_PATH_MAX + 1024], *path = db_path(cfgpath);
	char sig[CONSENT_SIG_HEX + 1], kid[CONSENT_KEY_ID_HEX + 1];
	char hex[2 * 32 + 1];
	uint8_t *sk = NULL;
	FILE *tty;
	int fd, r, rc = 1;

	if (audit_open_answerer(path, &db, err, sizeof(err)) != 0)
		die("%s", err);
	waiting_ask(db, arg, &k);
	memset(&ap, 0, sizeof(ap));
	ap.id = k.id;
	ap.agent = k.agent;
	ap.tool = k.tool;
	ap.expires = k.expires;
	crypto_hash_sha256(ap.args_sha256, (const uint8_t *)k.args,
	    k.args_len);
	sodium_bin2hex(hex, sizeof(hex), ap.args_sha256, 32);
	if (strcmp(hex, k.args_sha256) != 0)
		die("ask %lld: its arguments do not match their hash; the row "
		    "was altered, and nothing is signed", (long long)k.id);
	if ((sk = secret_key(keyfile)) == NULL)
		goto out;
	if (yes) {
		fputs("Out-of-band approval to be signed:\n", stderr);
		show_ask(stderr, &k, (int64_t)time(NULL));
	} else {
		if ((tty = tty_open(&fd)) == NULL)
			goto out;
		fputs("Out-of-band approval to be signed:\n", tty);
		show_ask(tty, &k, (int64_t)time(NULL));
		if (tty_yes(tty, fd, "Approve this call? [y/N] ") != 1) {
			warnmsg("not approved");
			goto out;
		}
	}
	if (consent_approval_sign(&ap, sk, sig, kid) != 0) {
		warnmsg("a field is over its bound; nothing signed");
		goto out;
	}
	if ((r = audit_oob_answer_put(db, k.id, "approve", sig, kid)) != 0) {
		warnmsg("ask %lld: %s", (long long)k.id, r == -BNC_ERR_USED ?
		    "answered already" : sqlite3_errmsg(db));
		goto out;
	}
	warnmsg("ask %lld approved with key %s", (long long)k.id, kid);
	rc = 0;
 out:
	if (sk != NULL)
		sodium_free(sk);
	audit_oob_ask_clear(&k);
	sqlite3_close(db);
	free(path);
	return rc;
}

/* ---- signing -------------------------------------------------------- */

static int
do_sign(const struct issue *is, const char *keyfile)
{
	struct consent c;
	char *target = NULL, *token = NULL;
	uint8_t *text = NULL, *sk = NULL;
	size_t len;
	int64_t ttl;
	int rc = 1;

	if (strlen(is->agent) > BNC_CONSENT_AGENT_MAX)
		die("-a: longer than %d bytes", BNC_CONSENT_AGENT_MAX);
	if (*is->agent == '\0' || plain(is->agent) != 0)
		die("-a: empty, not UTF-8, or holds a control character");
	if (strlen(is->tool) > BNC_TOOL_NAME_MAX)
		die("-T: longer than %d bytes", BNC_TOOL_NAME_MAX);
	if (*is->tool == '\0' || plain(is->tool) != 0)
		die("-T: empty, not UTF-8, or holds a control character");
	target = issue_target(is);
	if (is->draft != NULL)
		text = draft_text(is, target, &len);
	else if (is->text_file != NULL)
		text = read_text(is->text_file, &len);
	else {
		len = strlen(is->text_arg);
		text = xmalloc(len + 1);
		memcpy(text, is->text_arg, len);
	}
	check_text(text, len);
	ttl = issue_ttl(is->ttl_arg, is->cfgpath);

	if ((sk = secret_key(keyfile)) == NULL)
		goto out;
	memset(&c, 0, sizeof(c));
	snprintf(c.agent, sizeof(c.agent), "%s", is->agent);
	snprintf(c.tool, sizeof(c.tool), "%s", is->tool);
	snprintf(c.target, sizeof(c.target), "%s", target);
	crypto_hash_sha256(c.text_sha256, text, len);
	randombytes_buf(c.nonce, sizeof(c.nonce));
	c.issued = (int64_t)time(NULL);
	c.expires = c.issued + ttl;
	/* shown with the key id the signature will carry */
	consent_key_id(sk + crypto_sign_SECRETKEYBYTES -
	    crypto_sign_PUBLICKEYBYTES, c.key_id);

	if (is->yes)
		display(stderr, &c, keyfile, text, len);
	else if (ask(&c, keyfile, text, len) != 1) {
		warnmsg("not signed");
		goto out;
	}
	if (consent_sign(&c, sk, &token) != 0) {
		warnmsg("a field is over its bound; nothing signed");
		goto out;
	}
	printf("%s\n", token);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		warnmsg("standard output: %s", strerror(errno));
		goto out;
	}
	rc = 0;
 out:
	if (sk != NULL)
		sodium_free(sk);
	free(token);
	free(text);
	free(target);
	return rc;
}

int
main(int argc, char **argv)
{
	struct issue is;
	const char *keyarg = NULL, *approve = NULL, *deny = NULL;
	char *keyfile = NULL;
	int ch, gen = 0, drafts = 0, pending = 0, rc;

	memset(&is, 0, sizeof(is));
	/* it holds a secret key: no core file, no ptrace by our uid */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1)
		die("prctl(PR_SET_DUMPABLE): %s", strerror(errno));
	if (sodium_init() < 0)
		die("libsodium failed to initialise");
	while ((ch = getopt_long(argc, argv, "Ga:t:T:m:F:D:e:k:f:y", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'G':
			gen = 1;
			break;
		case OPT_DRAFTS:
			drafts = 1;
			break;
		case OPT_PENDING:
			pending = 1;
			break;
		case OPT_APPROVE:
			if (approve != NULL)
				die("--approve given twice");
			approve = optarg;
			break;
		case OPT_DENY:
			if (deny != NULL)
				die("--deny given twice");
			deny = optarg;
			break;
		case 'D':
			once(&is.draft, ch);
			break;
		case 'a':
			once(&is.agent, ch);
			break;
		case 't':
			is.targets = xreallocarray(is.targets,
			    is.ntargets + 1, sizeof(*is.targets));
			is.targets[is.ntargets++] = optarg;
			break;
		case 'T':
			once(&is.tool, ch);
			break;
		case 'm':
			once(&is.text_arg, ch);
			break;
		case 'F':
			once(&is.text_file, ch);
			break;
		case 'e':
			once(&is.ttl_arg, ch);
			break;
		case 'k':
			once(&keyarg, ch);
			break;
		case 'f':
			once(&is.cfgpath, ch);
			break;
		case 'y':
			is.yes = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (pending + (approve != NULL) + (deny != NULL) + drafts > 1)
		usage();
	if (pending || approve != NULL || deny != NULL) {
		/* an ask's answer: the config, and for --approve the key */
		if (gen || is.agent != NULL || is.ntargets != 0 ||
		    is.tool != NULL || is.text_arg != NULL ||
		    is.text_file != NULL || is.draft != NULL ||
		    is.ttl_arg != NULL || (approve == NULL && (keyarg != NULL ||
		    is.yes)))
			usage();
		if (pending)
			return do_pending(is.cfgpath);
		if (deny != NULL)
			return do_deny(deny, is.cfgpath);
		if (keyarg != NULL)
			keyfile = xstrdup(keyarg);
		else if ((keyfile = default_keyfile()) == NULL)
			die("no -k, and neither XDG_CONFIG_HOME nor HOME is an "
			    "absolute path");
		rc = do_approve(approve, keyfile, is.cfgpath, is.yes);
		free(keyfile);
		return rc;
	}
	if (drafts) {
		/* a listing: the agent to list, and the config */
		if (gen || is.ntargets != 0 || is.tool != NULL ||
		    is.text_arg != NULL || is.text_file != NULL ||
		    is.draft != NULL || is.ttl_arg != NULL || keyarg != NULL ||
		    is.yes)
			usage();
		return do_drafts(&is);
	}
	if (gen && (is.agent != NULL || is.ntargets != 0 || is.tool != NULL ||
	    is.text_arg != NULL || is.text_file != NULL ||
	    is.draft != NULL || is.ttl_arg != NULL || is.cfgpath != NULL ||
	    is.yes))
		usage();
	if (!gen && (is.agent == NULL || is.ntargets == 0 ||
	    (is.text_arg != NULL) + (is.text_file != NULL) +
	    (is.draft != NULL) != 1))
		usage();
	if (is.tool == NULL)
		is.tool = DEFAULT_TOOL;

	if (keyarg != NULL)
		keyfile = xstrdup(keyarg);
	else if ((keyfile = default_keyfile()) == NULL)
		die("no -k, and neither XDG_CONFIG_HOME nor HOME is an "
		    "absolute path");
	if (gen)
		rc = do_keygen(keyfile, keyarg == NULL);
	else
		rc = do_sign(&is, keyfile);
	free(keyfile);
	free(is.targets);
	return rc;
}
