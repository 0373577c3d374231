/*
 * reqline.c - the second check of a carrier's request (DESIGN 8): the
 * finished "METHOD PATH" must match one of the set's anchored patterns.
 *
 * The endpoint table and validate.c are the first check.  The patterns
 * here spell the vendors' forms again, by hand, from the vendors' rules
 * rather than from validate.c or its bounds, so that a mistake in one is
 * not a mistake in both.  This file must never build or repair a
 * request, never compile a pattern after reqline_init (the carrier is
 * sandboxed by then), and never JIT-compile one: the sandbox forbids
 * executable mappings, and the interpreter is fast enough for one line.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "bounds.h"
#include "reqline.h"

/* A Notion id as the carrier writes it: dashed and lower-case only. */
#define RL_UUID								\
	"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
/* A GitHub login: 1..39 bytes (the look-ahead), hyphens single and
 * inside (the body). */
#define RL_OWNER							\
	"(?=[A-Za-z0-9-]{1,39}/)[A-Za-z0-9](?:-?[A-Za-z0-9])*"
/* A repository name: 1..100 bytes, never the segment "." or "..", and
 * not ending in ".git" (which GitHub reads as the name without it). */
#define RL_REPO								\
	"(?!\\.{1,2}/)(?![A-Za-z0-9._-]*\\.[Gg][Ii][Tt]/)"		\
	"[A-Za-z0-9._-]{1,100}"
/* 1..2147483647 (2^31-1), digit by digit, without a leading zero. */
#define RL_ISSUE							\
	"(?:[1-9][0-9]{0,8}"	/* 1..999999999 */			\
	"|1[0-9]{9}"		/* 1000000000..1999999999 */		\
	"|20[0-9]{8}"		/* 2000000000..2099999999 */		\
	"|21[0-3][0-9]{7}"	/* ..2139999999 */			\
	"|214[0-6][0-9]{6}"	/* ..2146999999 */			\
	"|2147[0-3][0-9]{5}"	/* ..2147399999 */			\
	"|21474[0-7][0-9]{4}"	/* ..2147479999 */			\
	"|214748[0-2][0-9]{3}"	/* ..2147482999 */			\
	"|2147483[0-5][0-9]{2}"	/* ..2147483599 */			\
	"|21474836[0-3][0-9]"	/* ..2147483639 */			\
	"|214748364[0-7])"	/* ..2147483647 */
/* Notion's list-comments query: the parameters the carrier may add, in
 * the order it adds them. */
#define RL_COMMENTS_QUERY						\
	"\\?block_id=" RL_UUID						\
	"(?:&start_cursor=[A-Za-z0-9_-]{1,128})?"			\
	"(?:&page_size=(?:100|[1-9][0-9]?))?"

static const struct rl_pattern {
	enum reqline_set	 set;
	const char		*re;
} rl_patterns[] = {
	{ RL_NOTION_READ,	"GET /v1/databases/" RL_UUID },
	{ RL_NOTION_READ,	"POST /v1/data_sources/" RL_UUID "/query" },
	{ RL_NOTION_READ,	"GET /v1/pages/" RL_UUID },
	{ RL_NOTION_READ,	"GET /v1/comments" RL_COMMENTS_QUERY },

	{ RL_NOTION_COMMENT,	"POST /v1/comments" },

	/* bouncer-monitor -C: read a page, and send it the no-op update
	 * that Notion must refuse the token */
	{ RL_NOTION_AUDIT,	"GET /v1/pages/" RL_UUID },
	{ RL_NOTION_AUDIT,	"PATCH /v1/pages/" RL_UUID },

	{ RL_GITHUB,		"POST /repos/" RL_OWNER "/" RL_REPO
				"/issues/" RL_ISSUE "/comments" },

	/* the look-ahead bounds the path to 256 bytes */
	{ RL_SLACK,		"POST (?=/[!-~]{0,255}\\z)/services/"
				"T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+" },
};

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Whole-subject matches, by options rather than by ^...$ ('$' would
 * also match before a final newline); bytes, never UTF-8 or Unicode
 * properties, whatever a pattern might say about itself.
 */
#define RL_COMPILE_OPTS							\
	(PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_NEVER_UTF |		\
	PCRE2_NEVER_UCP | PCRE2_NEVER_BACKSLASH_C | PCRE2_NO_AUTO_CAPTURE)

/* The compiled set; npat == 0 until reqline_init succeeds. */
static struct {
	pcre2_code		*code[BNC_REQLINE_PATTERNS_MAX];
	size_t			 npat;
	pcre2_match_data	*md;
	pcre2_match_context	*mc;
} rl;

static int
rl_fail(char *err, size_t errlen, const char *msg, int ecode, size_t off)
{
	PCRE2_UCHAR emsg[128];

	if (err == NULL || errlen == 0)
		return -1;
	if (ecode == 0)
		snprintf(err, errlen, "%s", msg);
	else {
		if (pcre2_get_error_message(ecode, emsg, sizeof(emsg)) < 0)
			snprintf((char *)emsg, sizeof(emsg), "error %d",
			    ecode);
		snprintf(err, errlen, "%s: %s at offset %zu", msg,
		    (char *)emsg, off);
	}
	return -1;
}

int
reqline_init(enum reqline_set set, char *err, size_t errlen)
{
	pcre2_code *code;
	PCRE2_SIZE eoff;
	size_t i;
	int ecode;

	/* one set per process: a second init could only widen it */
	if (rl.npat != 0)
		return rl_fail(err, errlen, "request-line check already set",
		    0, 0);
	for (i = 0; i < nitems(rl_patterns); i++) {
		if (rl_patterns[i].set != set)
			continue;
		if (rl.npat == BNC_REQLINE_PATTERNS_MAX) {
			reqline_free();
			return rl_fail(err, errlen, "too many patterns", 0, 0);
		}
		code = pcre2_compile((PCRE2_SPTR)rl_patterns[i].re,
		    PCRE2_ZERO_TERMINATED, RL_COMPILE_OPTS, &ecode, &eoff,
		    NULL);
		if (code == NULL) {
			reqline_free();
			return rl_fail(err, errlen, "request-line pattern",
			    ecode, (size_t)eoff);
		}
		rl.code[rl.npat++] = code;
	}
	if (rl.npat == 0)
		return rl_fail(err, errlen, "no such request-line set", 0, 0);
	/* no capture is read: one pair is what a match reports */
	if ((rl.md = pcre2_match_data_create(1, NULL)) == NULL ||
	    (rl.mc = pcre2_match_context_create(NULL)) == NULL) {
		reqline_free();
		return rl_fail(err, errlen, "out of memory", 0, 0);
	}
	pcre2_set_match_limit(rl.mc, BNC_REQLINE_MATCH_LIMIT);
	pcre2_set_depth_limit(rl.mc, BNC_REQLINE_DEPTH_LIMIT);
	pcre2_set_heap_limit(rl.mc, BNC_REQLINE_HEAP_LIMIT);
	return 0;
}

/*
 * Printable ASCII other than the space, and not empty.  No pattern
 * admits anything else either; checked here as well so that a pattern
 * written later with a '.' or a negated class cannot let a CR, an LF, a
 * space (a second request line, a header) or a byte above 0x7e through.
 */
static int
rl_token(const char *s, size_t max, size_t *len)
{
	size_t i, n;

	if ((n = strnlen(s, max + 1)) == 0 || n > max)
		return -1;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return -1;
	*len = n;
	return 0;
}

int
reqline_check(const char *method, const char *path)
{
	char line[BNC_CARRIER_METHOD_MAX + 1 + BNC_CARRIER_PATH_MAX + 1];
	size_t i, ml, pl;
	int rc;

	if (rl.npat == 0 || rl.md == NULL || rl.mc == NULL ||
	    method == NULL || path == NULL)
		return -1;
	if (rl_token(method, BNC_CARRIER_METHOD_MAX, &ml) != 0 ||
	    rl_token(path, BNC_CARRIER_PATH_MAX, &pl) != 0)
		return -1;
	memcpy(line, method, ml);
	line[ml] = ' ';
	memcpy(line + ml + 1, path, pl);
	line[ml + 1 + pl] = '\0';
	for (i = 0; i < rl.npat; i++) {
		rc = pcre2_match(rl.code[i], (PCRE2_SPTR)line, ml + 1 + pl, 0,
		    PCRE2_NO_JIT, rl.md, rl.mc);
		if (rc >= 0)
			return 0;
		/* a limit reached is a refusal, never a reason to go on */
		if (rc != PCRE2_ERROR_NOMATCH)
			return -1;
	}
	return -1;
}

void
reqline_free(void)
{
	size_t i;

	for (i = 0; i < rl.npat; i++)
		pcre2_code_free(rl.code[i]);
	pcre2_match_data_free(rl.md);
	pcre2_match_context_free(rl.mc);
	memset(&rl, 0, sizeof(rl));
}
