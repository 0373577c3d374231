/*
 * validate.c - the carriers' argument validators (DESIGN 8), the first of
 * a request's two checks.
 *
 * Every argument a carrier puts into a path, a query or a body passes
 * one of these.  Each accepts only the vendor's own spelling: a byte
 * that a URL parser, a proxy or the vendor could read as something else
 * (a '%', a '/', a '.' segment, a space, a sign, a digit of another
 * script) is refused, never escaped or repaired.  They must never
 * allocate, never consult the locale (isdigit() may say yes to more
 * than ASCII), and never share a pattern with reqline.c, the second
 * check, so that one mistake does not pass both.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "bounds.h"
#include "utf8.h"
#include "validate.h"

/*
 * The byte alphabets of the vendors' forms: pairs of first and last byte
 * allowed, so a class reads like the regex in the vendor's rule.
 */
struct charset {
	size_t		 min, max;	/* bytes */
	const char	*ranges;
	const char	*why;
};

enum {
	CS_OWNER,
	CS_REPO,
	CS_DIGITS,
	CS_CURSOR,
	CS_CHANNEL,
	CS_HEX,
	CS_WEBHOOK_ID,
	CS_WEBHOOK_SECRET
};

static const struct charset charsets[] = {
	[CS_OWNER] = { 1, BNC_GITHUB_OWNER_MAX, "AZaz09--",
	    "not a GitHub owner" },
	[CS_REPO] = { 1, BNC_GITHUB_REPO_MAX, "AZaz09..__--",
	    "not a GitHub repository name" },
	[CS_DIGITS] = { 1, BNC_ISSUE_DIGITS_MAX, "09",
	    "not an issue number" },
	[CS_CURSOR] = { 1, BNC_NOTION_CURSOR_MAX, "AZaz09__--",
	    "not a cursor" },
	[CS_CHANNEL] = { 1, BNC_SLACK_CHANNEL_MAX, "az09__--",
	    "not a channel name" },
	/* a digit of a Notion id, whose length is its own */
	[CS_HEX] = { 1, 1, "09afAF", "not a Notion id" },
	/* after a segment's lead byte; the path's length bounds them */
	[CS_WEBHOOK_ID] = { 1, BNC_SLACK_WEBHOOK_PATH_MAX, "AZ09",
	    "not a Slack webhook path" },
	[CS_WEBHOOK_SECRET] = { 1, BNC_SLACK_WEBHOOK_PATH_MAX, "AZaz09",
	    "not a Slack webhook path" },
};

/* The dashed form of a Notion id: 'x' a hex digit, '-' a dash. */
static const char notion_form[VALID_NOTION_ID_LEN + 1] =
    "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
#define NOTION_HEX_DIGITS	32

/*
 * A webhook path after "/services/": its segments in order, each a lead
 * byte (or none) and at least one byte of its class after it.
 */
static const struct webhook_segment {
	char	lead;
	int	cs;
} webhook_segments[] = {
	{ 'T', CS_WEBHOOK_ID },		/* the workspace */
	{ 'B', CS_WEBHOOK_ID },		/* the webhook */
	{ '\0', CS_WEBHOOK_SECRET },	/* its secret */
};
#define WEBHOOK_PREFIX		"/services/"

/*
 * Code points a status name may not hold, and why.  The status name is
 * matched by Notion against an option's name and shown to people: an
 * invisible or reordering character would let two names that look
 * alike differ, and a quote or backslash is the one thing that changes
 * the meaning of a JSON string around it.
 */
static const struct cprange {
	uint32_t	lo, hi;
} status_refused[] = {
	{ 0x0000, 0x001f },	/* C0 controls: line breaks, escapes */
	{ 0x0022, 0x0022 },	/* '"' */
	{ 0x005c, 0x005c },	/* '\\' */
	{ 0x007f, 0x009f },	/* DEL and the C1 controls */
	/* Unicode's format characters (Cf), all of them: invisible, and
	 * the bidi ones reorder what is shown around them */
	{ 0x00ad, 0x00ad },	/* soft hyphen */
	{ 0x0600, 0x0605 },	/* Arabic number signs */
	{ 0x061c, 0x061c },	/* Arabic letter mark (bidi) */
	{ 0x06dd, 0x06dd },
	{ 0x070f, 0x070f },
	{ 0x0890, 0x0891 },
	{ 0x08e2, 0x08e2 },
	{ 0x180e, 0x180e },	/* Mongolian vowel separator */
	{ 0x200b, 0x200f },	/* zero-width space, ZWNJ, ZWJ, LRM, RLM */
	{ 0x2028, 0x2029 },	/* line and paragraph separators (not Cf,
				 * but line breaks to JavaScript) */
	{ 0x202a, 0x202e },	/* bidi embeddings and overrides */
	{ 0x2060, 0x2064 },	/* word joiner, invisible operators */
	{ 0x2066, 0x206f },	/* bidi isolates, deprecated format */
	{ 0xfeff, 0xfeff },	/* zero-width no-break space (BOM) */
	{ 0xfff9, 0xfffb },	/* interlinear annotation */
	{ 0x110bd, 0x110bd },
	{ 0x110cd, 0x110cd },
	{ 0x13430, 0x1343f },	/* Egyptian hieroglyph format controls */
	{ 0x1bca0, 0x1bca3 },	/* shorthand format controls */
	{ 0x1d173, 0x1d17a },	/* musical symbol format controls */
	{ 0xe0001, 0xe0001 },	/* language tag */
	{ 0xe0020, 0xe007f },	/* tag characters */
};

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

static int
refuse(const char **why, const char *reason)
{
	if (why != NULL)
		*why = reason;
	return -1;
}

/* Whether s[0..len) is there and holds no NUL: a C string cut at a NUL
 * would say less than the bytes checked. */
static int
bytes_ok(const char *s, size_t len, const char **why)
{
	if (s == NULL)
		return refuse(why, "missing");
	if (memchr(s, '\0', len) != NULL)
		return refuse(why, "embedded NUL");
	return 0;
}

static int
in_class(unsigned char c, const char *ranges)
{
	for (; ranges[0] != '\0' && ranges[1] != '\0'; ranges += 2)
		if (c >= (unsigned char)ranges[0] &&
		    c <= (unsigned char)ranges[1])
			return 1;
	return 0;
}

/* The length first, so that an overlong input is never read through. */
static int
charset_ok(const char *s, size_t len, int which, const char **why)
{
	const struct charset *cs = &charsets[which];
	size_t i;

	if (bytes_ok(s, len, why) != 0)
		return -1;
	if (len < cs->min || len > cs->max)
		return refuse(why, cs->why);
	for (i = 0; i < len; i++)
		if (!in_class((unsigned char)s[i], cs->ranges))
			return refuse(why, cs->why);
	return 0;
}

int
valid_notion_id(const char *s, size_t len,
    char out[VALID_NOTION_ID_LEN + 1], const char **why)
{
	char id[VALID_NOTION_ID_LEN + 1];
	const char *hex = charsets[CS_HEX].ranges;
	size_t i, j;
	int dashed;

	if (bytes_ok(s, len, why) != 0)
		return -1;
	/* both dashes in place, or none: 8-4-4-4-12 or 32 in a row */
	if (len == VALID_NOTION_ID_LEN)
		dashed = 1;
	else if (len == NOTION_HEX_DIGITS)
		dashed = 0;
	else
		return refuse(why, "not a Notion id");
	for (i = j = 0; notion_form[j] != '\0'; j++) {
		if (notion_form[j] == '-') {
			if (dashed && s[i++] != '-')
				return refuse(why, "not a Notion id");
			id[j] = '-';
			continue;
		}
		if (!in_class((unsigned char)s[i], hex))
			return refuse(why, "not a Notion id");
		/* hex letters only: setting 0x20 lowers A-F, digits have it */
		id[j] = (char)((unsigned char)s[i++] | 0x20);
	}
	id[j] = '\0';
	memcpy(out, id, sizeof(id));
	return 0;
}

int
valid_github_owner(const char *s, size_t len, const char **why)
{
	if (charset_ok(s, len, CS_OWNER, why) != 0)
		return -1;
	/* GitHub's sign-up rule: hyphens only single and inside */
	if (s[0] == '-' || s[len - 1] == '-' ||
	    memmem(s, len, "--", 2) != NULL)
		return refuse(why, charsets[CS_OWNER].why);
	return 0;
}

int
valid_github_repo(const char *s, size_t len, const char **why)
{
	if (charset_ok(s, len, CS_REPO, why) != 0)
		return -1;
	/* the two names a path segment cannot carry */
	if ((len == 1 && s[0] == '.') ||
	    (len == 2 && s[0] == '.' && s[1] == '.'))
		return refuse(why, "a dot segment");
	/* GitHub reads foo.git as foo: one repository, one spelling */
	if (len >= 4 && strncasecmp(s + len - 4, ".git", 4) == 0)
		return refuse(why, "a repository name ending in .git");
	return 0;
}

int
valid_issue_number(const char *s, size_t len, uint32_t *out,
    const char **why)
{
	uint64_t n = 0;
	size_t i;

	/* at most BNC_ISSUE_DIGITS_MAX digits: n cannot overflow */
	if (charset_ok(s, len, CS_DIGITS, why) != 0)
		return -1;
	if (s[0] == '0')
		return refuse(why, "not an issue number (zero or a leading "
		    "zero)");
	for (i = 0; i < len; i++)
		n = n * 10 + (uint64_t)(s[i] - '0');
	if (n > BNC_ISSUE_NUMBER_MAX)
		return refuse(why, "issue number too large");
	*out = (uint32_t)n;
	return 0;
}

int
valid_webhook_path(const char *s, size_t len, const char **why)
{
	const struct webhook_segment *sg;
	const char *reason = "not a Slack webhook path";
	size_t i, k, end = 0, plen = strlen(WEBHOOK_PREFIX);

	if (bytes_ok(s, len, why) != 0)
		return -1;
	if (len > BNC_SLACK_WEBHOOK_PATH_MAX)
		return refuse(why, "Slack webhook path too long");
	if (len < plen || memcmp(s, WEBHOOK_PREFIX, plen) != 0)
		return refuse(why, reason);
	for (i = plen, k = 0; k < nitems(webhook_segments); k++) {
		sg = &webhook_segments[k];
		for (end = i; end < len && s[end] != '/'; end++)
			;
		if (sg->lead != '\0' && (end == i || s[i++] != sg->lead))
			return refuse(why, reason);
		if (charset_ok(s + i, end - i, sg->cs, why) != 0)
			return -1;
		/* a '/' after each but the last; nothing after the last */
		if (k + 1 < nitems(webhook_segments) && end == len)
			return refuse(why, reason);
		i = end + 1;
	}
	if (end != len)
		return refuse(why, reason);
	return 0;
}

int
valid_cursor(const char *s, size_t len, const char **why)
{
	return charset_ok(s, len, CS_CURSOR, why);
}

int
valid_status_name(const char *s, size_t len, const char **why)
{
	uint32_t cp;
	size_t i, n, k;

	if (bytes_ok(s, len, why) != 0)
		return -1;
	if (len < 1 || len > BNC_NOTION_STATUS_MAX)
		return refuse(why, "status name empty or too long");
	if (!utf8_valid(s, len))
		return refuse(why, "status name not UTF-8");
	for (i = 0; i < len; i += n) {
		if ((n = utf8_decode(s + i, len - i, &cp)) == 0)
			return refuse(why, "status name not UTF-8");
		for (k = 0; k < nitems(status_refused); k++)
			if (cp >= status_refused[k].lo &&
			    cp <= status_refused[k].hi)
				return refuse(why, "status name holds a "
				    "control, format or quote character");
	}
	return 0;
}

int
valid_channel_name(const char *s, size_t len, const char **why)
{
	return charset_ok(s, len, CS_CHANNEL, why);
}

int
valid_text(const char *s, size_t len, size_t max_chars, int utf16,
    const char **why)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, n = 0;

	if (bytes_ok(s, len, why) != 0)
		return -1;
	if (len == 0)
		return refuse(why, "empty text");
	if (!utf8_valid(s, len))
		return refuse(why, "text not UTF-8");
	/*
	 * Valid UTF-8: each byte that is no continuation starts a
	 * character, and a 4-byte lead one above U+FFFF, which UTF-16
	 * (Notion's count) spells with two units.
	 */
	for (i = 0; i < len; i++) {
		if ((p[i] & 0xc0) == 0x80)
			continue;
		n += utf16 && p[i] >= 0xf0 ? 2 : 1;
		if (n > max_chars)
			return refuse(why, "text too long");
	}
	return 0;
}
