/*
 * check_validate.c - a carrier's two checks (DESIGN 8): the argument
 * validators (carrier/validate.c) accept each vendor's form and refuse
 * every near miss a URL parser, a proxy or the vendor could read
 * differently, and the request-line check (carrier/reqline.c) lets
 * through exactly the lines of its set.  Every table row is one case;
 * every request line is tried against every set; and where the two
 * checks judge the same thing (an owner, a repository, an issue number,
 * a webhook path, a Notion id) they are made to agree on every string
 * of a small alphabet, so that a loosened pattern on either side fails
 * here.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "bounds.h"
#include "reqline.h"
#include "utf8.h"
#include "validate.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

/* A case: bytes with their length (a literal may hold a NUL). */
struct vcase {
	const char	*s;
	size_t		 len;
	int		 ok;
};
#define OK(lit)		{ lit, sizeof(lit) - 1, 1 }
#define NO(lit)		{ lit, sizeof(lit) - 1, 0 }

typedef int (*validator)(const char *, size_t, const char **);

/* printable form of a case for a failure message */
static const char *
show(const char *s, size_t len)
{
	static char buf[600];

	utf8_escape(buf, sizeof(buf), s, len);
	return buf;
}

static void
run_cases(const char *name, validator fn, const struct vcase *c, size_t n)
{
	const char *why;
	size_t i;
	int r;

	for (i = 0; i < n; i++) {
		why = NULL;
		r = fn(c[i].s, c[i].len, &why);
		ck_assert_msg(r == (c[i].ok ? 0 : -1),
		    "%s case %zu \"%s\": %d (%s)", name, i,
		    show(c[i].s, c[i].len), r, why ? why : "-");
		if (!c[i].ok)
			ck_assert_msg(why != NULL && *why != '\0',
			    "%s case %zu refused without a reason", name, i);
	}
}

/* A malloc'd string of n copies of unit, then tail. */
static char *
rep(const char *unit, size_t n, const char *tail)
{
	size_t ul = strlen(unit), tl = strlen(tail), i;
	char *s;

	s = malloc(ul * n + tl + 1);
	ck_assert_ptr_nonnull(s);
	for (i = 0; i < n; i++)
		memcpy(s + i * ul, unit, ul);
	memcpy(s + ul * n, tail, tl + 1);
	return s;
}

/* UTF-8 of one code point (no checks: tests feed valid ones). */
static size_t
enc(uint32_t cp, char *o)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* ------------------------------------------------------------------ */
/* Notion ids */

#define ID_DASHED	"be633bf1-dfa0-436d-b259-571129a590e5"
#define ID_PLAIN	"be633bf1dfa0436db259571129a590e5"
#define ID_UPPER	"BE633BF1-DFA0-436D-B259-571129A590E5"
#define ID_UPLAIN	"BE633BF1DFA0436DB259571129A590E5"

static const struct {
	const char	*s;
	size_t		 len;
	const char	*out;		/* NULL: refused */
} notion_ids[] = {
#define ID(lit, out)	{ lit, sizeof(lit) - 1, out }
	ID(ID_DASHED, ID_DASHED),
	ID(ID_PLAIN, ID_DASHED),
	ID(ID_UPPER, ID_DASHED),
	ID(ID_UPLAIN, ID_DASHED),
	ID("Be633Bf1-DfA0-436d-B259-571129a590E5", ID_DASHED),
	ID("00000000-0000-0000-0000-000000000000",
	    "00000000-0000-0000-0000-000000000000"),
	ID("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",
	    "ffffffff-ffff-ffff-ffff-ffffffffffff"),
	ID("0123456789abcdefABCDEF0123456789",
	    "01234567-89ab-cdef-abcd-ef0123456789"),
	/* 31 and 33 hex digits, dashed or not */
	ID("be633bf1dfa0436db259571129a590e", NULL),
	ID("be633bf1dfa0436db259571129a590e51", NULL),
	ID("be633bf1-dfa0-436d-b259-571129a590e", NULL),
	ID("be633bf1-dfa0-436d-b259-571129a590e51", NULL),
	/* dashes moved, some missing, extra */
	ID("be633bf-1dfa0-436d-b259-571129a590e5", NULL),
	ID("be633bf1d-fa0-436d-b259-571129a590e5", NULL),
	ID("be633bf1-dfa04-36d-b259-571129a590e5", NULL),
	ID("be633bf1-dfa0-436db-259-571129a590e5", NULL),
	ID("be633bf1-dfa0-436d-b2595-71129a590e5", NULL),
	ID("be633bf1dfa0-436d-b259-571129a590e5-", NULL),
	ID("-be633bf1dfa0-436d-b259-571129a590e5", NULL),
	ID("be633bf1-dfa0436d-b259-571129a590e5", NULL),
	ID("be633bf1-dfa0436db259571129a590e5", NULL),
	ID("be633bf1dfa0436db259571129a590e5-", NULL),
	ID("be633bf1--dfa0-436d-b259-571129a590e5", NULL),
	ID("be633bf1-dfa0-436d-b259-5711-29a590e5", NULL),
	ID("------------------------------------", NULL),
	/* not hex */
	ID("ge633bf1-dfa0-436d-b259-571129a590e5", NULL),
	ID("be633bf1dfa0436db259571129a590eg", NULL),
	ID("be633bf1-dfa0-436d-b259-571129a590e ", NULL),
	ID(" be633bf1dfa0436db259571129a590e5", NULL),
	ID("be633bf1dfa0436db259571129a590e5 ", NULL),
	ID("be633bf1dfa0436db259571129a590e\t", NULL),
	ID("be633bf1dfa0436db259571129a590e\n", NULL),
	ID("be633bf1dfa0436d\0b259571129a590e", NULL),
	ID("be633bf1dfa0436db259571129a590e5\0", NULL),
	ID("be633bf1-dfa0-436d-b259-571129a590e5\0", NULL),
	ID("be633bf1+dfa0+436d+b259+571129a590e5", NULL),
	ID("be633bf1_dfa0_436d_b259_571129a590e5", NULL),
	ID("be633bf1%2ddfa0-436d-b259-571129a59", NULL),
	ID("%2e%2e%2fbe633bf1dfa0436db259571129", NULL),
	ID("../../be633bf1dfa0436db259571129a5", NULL),
	ID("be633bf1/dfa0/436d/b259/571129a590e5", NULL),
	ID("{be633bf1-dfa0-436d-b259-571129a590e5}", NULL),
	ID("urn:uuid:be633bf1-dfa0-436d-b259-571129a590e5", NULL),
	ID("0xbe633bf1dfa0436db259571129a590", NULL),
	/* a full-width 'b' (U+FF42) and an Arabic-Indic zero (U+0660) */
	ID("\xef\xbd\x82" "e633bf1dfa0436db259571129a590", NULL),
	ID("\xd9\xa0" "e633bf1dfa0436db259571129a590e5", NULL),
	ID("", NULL),
	ID("-", NULL),
#undef ID
};

START_TEST(test_notion_id)
{
	char out[VALID_NOTION_ID_LEN + 1];
	const char *why;
	size_t i;
	int r;

	for (i = 0; i < nitems(notion_ids); i++) {
		memset(out, '#', sizeof(out));
		why = NULL;
		r = valid_notion_id(notion_ids[i].s, notion_ids[i].len, out,
		    &why);
		if (notion_ids[i].out == NULL) {
			ck_assert_msg(r == -1, "id %zu \"%s\" accepted", i,
			    show(notion_ids[i].s, notion_ids[i].len));
			ck_assert_ptr_nonnull(why);
			/* a refusal leaves out as it was */
			ck_assert_msg(out[0] == '#' &&
			    out[VALID_NOTION_ID_LEN] == '#',
			    "id %zu: out written on refusal", i);
		} else {
			ck_assert_msg(r == 0, "id %zu \"%s\" refused: %s", i,
			    show(notion_ids[i].s, notion_ids[i].len), why);
			ck_assert_str_eq(out, notion_ids[i].out);
		}
	}
}
END_TEST

/* Every placement of the four dashes but the right one is refused. */
START_TEST(test_notion_id_dashes)
{
	static const size_t right[4] = { 8, 12, 16, 20 };
	char s[VALID_NOTION_ID_LEN + 1], out[VALID_NOTION_ID_LEN + 1];
	const char *hex = ID_PLAIN, *why;
	size_t a, b, c, d, i, j, k, tried = 0, accepted = 0;
	size_t at[4];

	/* dashes before hex digit at[0] < at[1] < ... (1..31) */
	for (a = 1; a < 32; a++)
	for (b = a; b < 32; b++)
	for (c = b; c < 32; c++)
	for (d = c; d < 32; d++) {
		at[0] = a;
		at[1] = b;
		at[2] = c;
		at[3] = d;
		for (i = j = k = 0; i < 32; i++) {
			while (k < 4 && at[k] == i) {
				s[j++] = '-';
				k++;
			}
			s[j++] = hex[i];
		}
		s[j] = '\0';
		tried++;
		if (valid_notion_id(s, j, out, &why) == 0) {
			accepted++;
			ck_assert_msg(memcmp(at, right, sizeof(at)) == 0,
			    "misplaced dashes accepted: %s", s);
		}
	}
	ck_assert_uint_eq(accepted, 1);
	ck_assert_uint_gt(tried, 40000);
}
END_TEST

/* ------------------------------------------------------------------ */
/* GitHub owners and repositories */

static const struct vcase owners[] = {
	OK("octocat"), OK("a"), OK("A"), OK("0"), OK("a-b"), OK("a-b-c"),
	OK("Hello-World"), OK("123"), OK("x1-y2-z3"), OK("GitHub"),
	NO(""), NO("-"), NO("--"), NO("-a"), NO("a-"), NO("a--b"),
	NO("-a-"), NO("a---b"), NO("a_b"), NO("a.b"), NO("."), NO(".."),
	NO("%2e%2e"), NO("%2E%2E"), NO("%2e"), NO("a/b"), NO("a%2fb"),
	NO("a%2Fb"), NO("%2F"), NO("a\\b"), NO(" a"), NO("a "), NO("a b"),
	NO("\ta"), NO("a\t"), NO("a\r\n"), NO("a\n"), NO("a\r"),
	NO("a\0b"), NO("a\0"), NO("\0"), NO("a+b"), NO("~a"), NO("a@b"),
	NO("a:b"), NO("a?b"), NO("a#b"), NO("a;b"), NO("a%00"),
	NO("octocat/"), NO("/octocat"), NO("../octocat"),
	NO("\xef\xbd\x81"),		/* full-width 'a' */
	NO("octoc\xd0\xb0t"),		/* Cyrillic 'a' */
	NO("a\xc2\xa0"), NO("\xff"),
};

static const struct vcase repos[] = {
	OK("Hello-World"), OK("a"), OK(".github"), OK("a.b"), OK("a_b"),
	OK("a-b"), OK("..."), OK("a..b"), OK(".a"), OK("a."), OK("_"),
	OK("-"), OK("..a"), OK("a.."), OK("node.js"), OK("A_B-c.d"),
	NO(""), NO("."), NO(".."), NO("%2e%2e"), NO("%2E%2E"), NO("%2e"),
	NO(".%2e"), NO("a/b"), NO("a%2fb"), NO("a%2Fb"), NO("%2F"),
	NO("a\\b"), NO("./a"), NO("../a"), NO("a/.."), NO("/"), NO("//"),
	NO(" a"), NO("a "), NO("a b"), NO("a\tb"), NO("\ta"), NO("a\n"),
	NO("a\r\n"), NO("a\0b"), NO("..\0"), NO("a?b"), NO("a#b"),
	NO("a;b"), NO("a:b"), NO("a+b"), NO("a~b"), NO("a@b"), NO("a%b"),
	NO("r\xc3\xa9po"),		/* "répo" */
	NO("\xef\xbc\x8e\xef\xbc\x8e"),	/* full-width ".." */
	NO("\xe2\x80\xa4\xe2\x80\xa4"),	/* one-dot leaders */
	/* GitHub reads foo.git as foo */
	NO("Hello-World.git"), NO("a.GIT"), NO(".git"), OK("a.gitx"),
	OK("git"), OK("a-git"),
};

START_TEST(test_github_owner)
{
	run_cases("owner", valid_github_owner, owners, nitems(owners));
}
END_TEST

START_TEST(test_github_repo)
{
	run_cases("repo", valid_github_repo, repos, nitems(repos));
}
END_TEST

/* ------------------------------------------------------------------ */
/* issue numbers */

static const struct {
	const char	*s;
	size_t		 len;
	uint32_t	 n;		/* 0: refused */
} numbers[] = {
#define N(lit, n)	{ lit, sizeof(lit) - 1, n }
	N("1", 1), N("9", 9), N("10", 10), N("1347", 1347),
	N("999999999", 999999999), N("1000000000", 1000000000),
	N("2147483646", 2147483646), N("2147483647", 2147483647),
	N("", 0), N("0", 0), N("00", 0), N("01", 0), N("007", 0),
	N("0000000001", 0), N("+1", 0), N("-1", 0), N("-0", 0), N(" 1", 0),
	N("1 ", 0), N("\t1", 0), N("1\t", 0), N("1\n", 0), N("1\r\n", 0),
	N("1\0", 0), N("1\0" "2", 0), N("\0" "1", 0), N("0x1", 0),
	N("0x7fffffff", 0), N("1e3", 0), N("1.0", 0), N("1,000", 0),
	N("1_000", 0), N("1/2", 0), N("1/../2", 0), N("%31", 0), N("a", 0),
	N("1a", 0), N("2147483648", 0), N("2147483649", 0),
	N("2147483650", 0), N("3000000000", 0), N("4294967295", 0),
	N("4294967296", 0), N("4294967297", 0), N("9999999999", 0),
	N("10000000000", 0), N("18446744073709551617", 0),
	N("123456789012345678901234567890", 0),
	/* digits of other scripts: Arabic-Indic 0 and 1, extended
	 * Arabic-Indic 1, Devanagari 1, full-width 0 and 1, superscript
	 * 1, 2 and 4, subscript 1, mathematical bold 1, circled 1 */
	N("\xd9\xa0", 0), N("\xd9\xa1", 0), N("\xd9\xa1\xd9\xa2", 0),
	N("1\xd9\xa1", 0), N("\xdb\xb1", 0), N("\xe0\xa5\xa7", 0),
	N("\xef\xbc\x90", 0), N("\xef\xbc\x91", 0), N("1\xef\xbc\x90", 0),
	N("\xc2\xb9", 0), N("\xc2\xb2", 0), N("\xe2\x81\xb4", 0),
	N("\xe2\x82\x81", 0), N("\xf0\x9d\x9f\x8f", 0),
	N("\xe2\x91\xa0", 0),
#undef N
};

START_TEST(test_issue_number)
{
	const char *why;
	uint32_t n;
	size_t i;
	int r;

	for (i = 0; i < nitems(numbers); i++) {
		n = 0xdeadbeef;
		why = NULL;
		r = valid_issue_number(numbers[i].s, numbers[i].len, &n, &why);
		if (numbers[i].n == 0) {
			ck_assert_msg(r == -1, "number %zu \"%s\" accepted", i,
			    show(numbers[i].s, numbers[i].len));
			ck_assert_ptr_nonnull(why);
			ck_assert_uint_eq(n, 0xdeadbeef);
		} else {
			ck_assert_msg(r == 0, "number %zu \"%s\" refused: %s",
			    i, show(numbers[i].s, numbers[i].len), why);
			ck_assert_uint_eq(n, numbers[i].n);
		}
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* Slack: webhook paths and channel names */

#define HOOK	"/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"

static const struct vcase hooks[] = {
	OK(HOOK), OK("/services/TA/BB/c"), OK("/services/T1/B2/abcDEF123"),
	OK("/services/TT/BB/T"), OK("/services/T0A9Z/B0A9Z/aZ09"),
	NO(""), NO("/"), NO("/services/"), NO("/services/T0/B0/"),
	NO("/services/T0/B0"), NO("/services/T0"), NO("/services/T0/"),
	/* lower-case workspace or webhook part */
	NO("/services/t00000000/B00000000/x"),
	NO("/services/T00000000/b00000000/x"),
	NO("/services/T0000000a/B00000000/x"),
	NO("/services/T00000000/B0000000a/x"),
	NO("/services/T/B0/x"), NO("/services/T0/B/x"),
	NO("/services/B0/T0/x"), NO("/services/0/B0/x"),
	/* more or fewer segments, a query, a fragment, slashes */
	NO(HOOK "/extra"), NO(HOOK "/"), NO(HOOK "?x=1"), NO(HOOK "?"),
	NO(HOOK "#f"), NO(HOOK "//"), NO("/services//T0/B0/x"),
	NO("/services/T0//B0/x"), NO("/services/T0/B0//x"),
	NO("//services/T0/B0/x"), NO("services/T0/B0/x"),
	NO("/Services/T0/B0/x"), NO("/SERVICES/T0/B0/x"),
	NO("/service/T0/B0/x"), NO("/services/T0/B0/x/y/z"),
	/* dot segments, encoded bytes, separators */
	NO("/services/T0/B0/../x"), NO("/services/T0/../B0/x"),
	NO("/services/../services/T0/B0/x"), NO("/services/T0/B0/."),
	NO("/services/T0/B0/%2e%2e"), NO("/services/T0/B0/x%2F"),
	NO("/services/T0/B0/x%2fy"), NO("/services/T0%2FB0/x"),
	NO("/services/T0/B0/x-y"), NO("/services/T0/B0/x_y"),
	NO("/services/T0/B0/x.y"), NO("/services/T0\\B0\\x"),
	NO("/services/T0/B0/x\\"),
	/* blanks, controls, NUL, high bytes */
	NO(" /services/T0/B0/x"), NO("/services/T0/B0/x "),
	NO("/services/T0/B0/x y"), NO("/services/T0/B0/x\t"),
	NO("/services/T0/B0/x\n"), NO("/services/T0/B0/x\r\n"),
	NO("/services/T0/B0/x\0"), NO("/services/T0/B0/x\0y"),
	NO("/services/T0/B0/x\xc2\xa0"), NO("/services/T\xef\xbc\x90/B0/x"),
	/* a URL, not a path */
	NO("https://hooks.slack.com" HOOK), NO("//hooks.slack.com" HOOK),
};

static const struct vcase channels[] = {
	OK("general"), OK("dev-ops"), OK("team_a"), OK("a"), OK("0"),
	OK("-"), OK("_"), OK("release-2026_q3"),
	NO(""), NO("General"), NO("GENERAL"), NO("#general"), NO("@user"),
	NO("dev ops"), NO(" general"), NO("general "), NO("gen\teral"),
	NO("general\n"), NO("a.b"), NO("a/b"), NO("%2F"), NO(".."),
	NO("a\0b"), NO("a\\b"), NO("a:b"),
	NO("d\xc3\xa9v"),		/* "dév" */
	NO("\xef\xbd\x87"),		/* full-width 'g' */
};

START_TEST(test_webhook_path)
{
	run_cases("webhook", valid_webhook_path, hooks, nitems(hooks));
}
END_TEST

START_TEST(test_channel_name)
{
	run_cases("channel", valid_channel_name, channels, nitems(channels));
}
END_TEST

/* ------------------------------------------------------------------ */
/* Notion cursors and status names */

static const struct vcase cursors[] = {
	OK("abc"), OK("A-b_9"), OK("a"), OK("-"), OK("_"), OK(ID_DASHED),
	OK(ID_PLAIN),
	NO(""), NO("a=b"), NO("a&b"), NO("a&page_size=100"), NO("a+b"),
	NO("a/b"), NO("a%2Fb"), NO("%2e%2e"), NO(".."), NO("."), NO("a.b"),
	NO("a b"), NO(" a"), NO("a "), NO("a\tb"), NO("a\nb"),
	NO("a\r\nX: y"), NO("abc\0"), NO("a\0b"), NO("ab=="), NO("a?b"),
	NO("a#b"), NO("a\\b"), NO("a;b"),
	NO("\xd9\xa1"), NO("a\xc2\xa0"),
};

START_TEST(test_cursor)
{
	run_cases("cursor", valid_cursor, cursors, nitems(cursors));
}
END_TEST

static const struct vcase statuses[] = {
	OK("Done"), OK("In progress"), OK("Not started"), OK("a"),
	OK("It's done"), OK("50% done"), OK("a/b"), OK("<b>"),
	OK("\xc3\x80 faire"),			/* "À faire" */
	OK("\xe5\xae\x8c\xe4\xba\x86"),		/* Japanese "done" */
	OK("\xe2\x9c\x85 Done"),		/* U+2705 */
	OK("\xe2\x9c\x94\xef\xb8\x8f"),		/* U+2714 U+FE0F */
	OK("\xf0\x9f\x9a\x80 Shipped"),		/* U+1F680 */
	OK("\xd8\xaa\xd9\x85"),			/* Arabic letters */
	NO(""), NO("a\"b"), NO("\""), NO("a\\b"), NO("\\u0022"),
	NO("a\tb"), NO("a\nb"), NO("a\rb"), NO("Done\n"), NO("\x01"),
	NO("\x1b[31mDone"), NO("a\x7f"), NO("a\0b"), NO("Done\0"),
	NO("a\xc2\x80"), NO("a\xc2\x85"), NO("a\xc2\x9f"),
	/* not UTF-8: overlong, surrogate, cut short, stray bytes */
	NO("\xc0\xa2"), NO("\xe0\x80\xa2"), NO("\xed\xa0\x80"),
	NO("Done\xe2\x9c"), NO("\x80"), NO("\xff"), NO("\xf4\x90\x80\x80"),
};

/* Every format character the rule names, and some it does not. */
static const uint32_t status_format[] = {
	0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068,
	0x2069, 0x200e, 0x200f, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff,
	0x061c, 0x00ad, 0x2028, 0x2029, 0x2061, 0x206a, 0x180e, 0xfff9,
	0xe0001, 0xe0041, 0xe007f,
};
/* their neighbours, which are not */
static const uint32_t status_neighbours[] = {
	0x2010, 0x2027, 0x2030, 0x205f, 0x061b, 0x061d, 0x00ac, 0x00ae,
	0x00a0, 0xfefc, 0xfff8, 0xfffc, 0x180d, 0xe0000, 0xe0080,
};

START_TEST(test_status_name)
{
	char s[16];
	const char *why;
	size_t i, n;

	run_cases("status", valid_status_name, statuses, nitems(statuses));
	for (i = 0; i < nitems(status_format); i++) {
		/* alone, first, inside and last */
		n = enc(status_format[i], s);
		ck_assert_msg(valid_status_name(s, n, &why) == -1,
		    "U+%04X accepted alone", status_format[i]);
		memcpy(s + n, "ok", 2);
		ck_assert_int_eq(valid_status_name(s, n + 2, &why), -1);
		s[0] = 'o';
		n = 1 + enc(status_format[i], s + 1);
		ck_assert_int_eq(valid_status_name(s, n, &why), -1);
		s[n++] = 'k';
		ck_assert_msg(valid_status_name(s, n, &why) == -1,
		    "U+%04X accepted inside", status_format[i]);
	}
	for (i = 0; i < nitems(status_neighbours); i++) {
		s[0] = 'o';
		n = 1 + enc(status_neighbours[i], s + 1);
		s[n++] = 'k';
		ck_assert_msg(valid_status_name(s, n, &why) == 0,
		    "U+%04X refused: %s", status_neighbours[i], why);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* texts */

#define ASTRAL	"\xf0\x9f\x98\x80"	/* U+1F600: 1 code point, 2 units */
#define EURO	"\xe2\x82\xac"		/* U+20AC: 1 and 1 */

static const struct {
	const char	*s;
	size_t		 len;
	size_t		 max;
	int		 cp_ok, u16_ok;
} texts[] = {
#define T(lit, max, cp, u16)	{ lit, sizeof(lit) - 1, max, cp, u16 }
	T("a", 1, 1, 1), T("ab", 1, 0, 0), T("abc", 3, 1, 1),
	T("abcd", 3, 0, 0), T(EURO, 1, 1, 1), T(EURO EURO, 1, 0, 0),
	T("\xc3\xa9", 1, 1, 1),
	T(ASTRAL, 1, 1, 0), T(ASTRAL, 2, 1, 1),
	T(ASTRAL ASTRAL, 2, 1, 0), T(ASTRAL ASTRAL, 3, 1, 0),
	T(ASTRAL ASTRAL, 4, 1, 1),
	T("a" ASTRAL, 2, 1, 0), T("a" ASTRAL, 3, 1, 1),
	T(ASTRAL "a" EURO, 3, 1, 0), T(ASTRAL "a" EURO, 4, 1, 1),
	T("line one\nline two\r\n\ttab", 100, 1, 1),
	T("a", 0, 0, 0),
	/* empty, NUL, not UTF-8 */
	T("", 10, 0, 0), T("a\0b", 10, 0, 0), T("\0", 10, 0, 0),
	T("ab\0", 10, 0, 0),
	T("\xc0\xaf", 10, 0, 0), T("\xc1\xbf", 10, 0, 0),
	T("\xe0\x80\xaf", 10, 0, 0), T("\xf0\x80\x80\xaf", 10, 0, 0),
	T("\xed\xa0\x80", 10, 0, 0), T("\xed\xbf\xbf", 10, 0, 0),
	T("\xed\xa0\xbd\xed\xb8\x80", 10, 0, 0),	/* CESU-8 pair */
	T("\xe2\x82", 10, 0, 0), T("a\xf0\x9f\x98", 10, 0, 0),
	T("\x80", 10, 0, 0), T("a\xbf" "b", 10, 0, 0),
	T("\xf4\x90\x80\x80", 10, 0, 0), T("\xf8\x88\x80\x80\x80", 10, 0, 0),
	T("\xfe", 10, 0, 0), T("\xff", 10, 0, 0),
#undef T
};

START_TEST(test_text)
{
	const char *why;
	size_t i;
	int r;

	for (i = 0; i < nitems(texts); i++) {
		r = valid_text(texts[i].s, texts[i].len, texts[i].max, 0, &why);
		ck_assert_msg(r == (texts[i].cp_ok ? 0 : -1),
		    "text %zu \"%s\" max %zu, code points: %d", i,
		    show(texts[i].s, texts[i].len), texts[i].max, r);
		r = valid_text(texts[i].s, texts[i].len, texts[i].max, 1, &why);
		ck_assert_msg(r == (texts[i].u16_ok ? 0 : -1),
		    "text %zu \"%s\" max %zu, UTF-16: %d", i,
		    show(texts[i].s, texts[i].len), texts[i].max, r);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* request lines */

#define U	ID_DASHED
#define GH	"/repos/octocat/Hello-World/issues/"
#define M(s)	(1u << (s))
#define RD	M(RL_NOTION_READ)
#define CM	M(RL_NOTION_COMMENT)
#define AU	M(RL_NOTION_AUDIT)
#define GI	M(RL_GITHUB)
#define SL	M(RL_SLACK)

static const enum reqline_set sets[] = {
	RL_NOTION_READ, RL_NOTION_COMMENT, RL_NOTION_AUDIT, RL_GITHUB,
	RL_SLACK
};

/* Each line with the sets that must let it through (0: none). */
static const struct {
	const char	*method, *path;
	unsigned	 sets;
} lines[] = {
	/* every allowed line */
	{ "GET", "/v1/databases/" U, RD },
	{ "POST", "/v1/data_sources/" U "/query", RD },
	{ "GET", "/v1/pages/" U, RD | AU },
	{ "GET", "/v1/comments?block_id=" U, RD },
	{ "GET", "/v1/comments?block_id=" U "&start_cursor=abc-_9", RD },
	{ "GET", "/v1/comments?block_id=" U "&start_cursor=" U, RD },
	{ "GET", "/v1/comments?block_id=" U "&page_size=1", RD },
	{ "GET", "/v1/comments?block_id=" U "&page_size=100", RD },
	{ "GET", "/v1/comments?block_id=" U "&start_cursor=x&page_size=50",
	    RD },
	{ "POST", "/v1/comments", CM },
	{ "PATCH", "/v1/pages/" U, AU },
	{ "POST", GH "1347/comments", GI },
	{ "POST", GH "1/comments", GI },
	{ "POST", GH "2147483647/comments", GI },
	{ "POST", GH "1999999999/comments", GI },
	{ "POST", GH "2147483639/comments", GI },
	{ "POST", "/repos/a/.github/issues/1/comments", GI },
	{ "POST", "/repos/a-b-c/.../issues/1/comments", GI },
	{ "POST", "/repos/0/a..b/issues/10/comments", GI },
	{ "POST", "/repos/A/_/issues/1/comments", GI },
	{ "POST", HOOK, SL },
	{ "POST", "/services/TA/BB/c", SL },

	/* wrong method, or a lower-case one */
	{ "PUT", "/v1/pages/" U, 0 },
	{ "DELETE", "/v1/pages/" U, 0 },
	{ "POST", "/v1/pages/" U, 0 },
	{ "HEAD", "/v1/pages/" U, 0 },
	{ "GET", "/v1/comments", 0 },
	{ "PATCH", "/v1/comments", 0 },
	{ "DELETE", "/v1/comments", 0 },
	{ "GET", "/v1/data_sources/" U "/query", 0 },
	{ "PATCH", "/v1/databases/" U, 0 },
	{ "POST", "/v1/databases/" U, 0 },
	{ "GET", GH "1/comments", 0 },
	{ "PATCH", GH "1/comments", 0 },
	{ "PATCH", GH "1", 0 },
	{ "DELETE", GH "1/comments", 0 },
	{ "GET", HOOK, 0 },
	{ "PUT", HOOK, 0 },
	{ "get", "/v1/pages/" U, 0 },
	{ "Get", "/v1/pages/" U, 0 },
	{ "post", "/v1/comments", 0 },
	{ "Post", "/v1/comments", 0 },
	{ "patch", "/v1/pages/" U, 0 },
	{ "post", GH "1/comments", 0 },
	{ "post", HOOK, 0 },
	{ "GETX", "/v1/pages/" U, 0 },
	{ "XGET", "/v1/pages/" U, 0 },
	{ "POSTS", "/v1/comments", 0 },

	/* double slashes */
	{ "GET", "//v1/pages/" U, 0 },
	{ "GET", "/v1//pages/" U, 0 },
	{ "GET", "/v1/pages//" U, 0 },
	{ "POST", "//v1/comments", 0 },
	{ "POST", "/v1//comments", 0 },
	{ "POST", "/repos//octocat/Hello-World/issues/1/comments", 0 },
	{ "POST", "/repos/octocat//Hello-World/issues/1/comments", 0 },
	{ "POST", GH "/1/comments", 0 },
	{ "POST", GH "1//comments", 0 },
	{ "POST", "/services//T0/B0/x", 0 },
	{ "POST", "//services/T0/B0/x", 0 },

	/* trailing slash */
	{ "GET", "/v1/pages/" U "/", 0 },
	{ "GET", "/v1/databases/" U "/", 0 },
	{ "PATCH", "/v1/pages/" U "/", 0 },
	{ "POST", "/v1/comments/", 0 },
	{ "POST", "/v1/data_sources/" U "/query/", 0 },
	{ "POST", GH "1/comments/", 0 },
	{ "POST", HOOK "/", 0 },

	/* a query where none may be, or one out of form */
	{ "GET", "/v1/pages/" U "?x=1", 0 },
	{ "GET", "/v1/pages/" U "?", 0 },
	{ "PATCH", "/v1/pages/" U "?archived=true", 0 },
	{ "GET", "/v1/databases/" U "?filter_properties=x", 0 },
	{ "POST", "/v1/data_sources/" U "/query?x=1", 0 },
	{ "POST", "/v1/comments?block_id=" U, 0 },
	{ "POST", "/v1/comments?", 0 },
	{ "POST", GH "1/comments?x=1", 0 },
	{ "POST", HOOK "?x=1", 0 },
	{ "GET", "/v1/comments?", 0 },
	{ "GET", "/v1/comments?block_id=", 0 },
	{ "GET", "/v1/comments?block_id=" U "&", 0 },
	{ "GET", "/v1/comments?block_id=" U "&start_cursor=", 0 },
	{ "GET", "/v1/comments?block_id=" U "&page_size=", 0 },
	{ "GET", "/v1/comments?block_id=" U "&page_size=0", 0 },
	{ "GET", "/v1/comments?block_id=" U "&page_size=01", 0 },
	{ "GET", "/v1/comments?block_id=" U "&page_size=1000", 0 },
	{ "GET", "/v1/comments?block_id=" U "&page_size=101", 0 },
	{ "GET", "/v1/comments?block_id=" U "&page_size=999", 0 },
	{ "POST", "/repos/octocat/Hello-World.git/issues/1/comments", 0 },
	{ "POST", "/repos/octocat/a.GiT/issues/1/comments", 0 },
	{ "GET", "/v1/comments?block_id=" U "&page_size=-1", 0 },
	{ "GET", "/v1/comments?block_id=" U "&page_size=1&start_cursor=x",
	    0 },
	{ "GET", "/v1/comments?start_cursor=x&block_id=" U, 0 },
	{ "GET", "/v1/comments?block_id=" U "&block_id=" U, 0 },
	{ "GET", "/v1/comments?block_id=" U "&start_cursor=a&start_cursor=b",
	    0 },
	{ "GET", "/v1/comments?block_id=" U "&start_cursor=a%26b", 0 },
	{ "GET", "/v1/comments?block_id=" U "&start_cursor=a.b", 0 },
	{ "GET", "/v1/comments?block_id=" U "&start_cursor=a=b", 0 },
	{ "GET", "/v1/comments?block_id=" U "&x=1", 0 },
	{ "GET", "/v1/comments?block_id=" U "#x", 0 },
	{ "GET", "/v1/comments?Block_id=" U, 0 },
	{ "GET", "/v1/comments?block_id=" ID_PLAIN, 0 },
	{ "GET", "/v1/comments?block_id=" ID_UPPER, 0 },
	{ "GET", "/v1/comments?block_id=" U ";x", 0 },
	{ "GET", "/v1/comments/?block_id=" U, 0 },

	/* encoded and real dot segments, encoded slashes, backslashes */
	{ "GET", "/v1/pages/%2e%2e/" U, 0 },
	{ "GET", "/v1/pages/%2E%2E/pages/" U, 0 },
	{ "GET", "/v1/pages/" U "%2f..", 0 },
	{ "GET", "/v1/pages/" U "/%2e%2e", 0 },
	{ "GET", "/v1/pages/../pages/" U, 0 },
	{ "GET", "/v1/comments/../pages/" U, 0 },
	{ "GET", "/v1/./pages/" U, 0 },
	{ "PATCH", "/v1/pages/" U "/../" U, 0 },
	{ "GET", "/v1/pages/" U "/..", 0 },
	{ "GET", "/v1/pages\\" U, 0 },
	{ "POST", "/repos/%2e%2e/Hello-World/issues/1/comments", 0 },
	{ "POST", "/repos/octocat/%2e%2e/issues/1/comments", 0 },
	{ "POST", "/repos/octocat/../issues/1/comments", 0 },
	{ "POST", "/repos/octocat/./issues/1/comments", 0 },
	{ "POST", "/repos/../octocat/issues/1/comments", 0 },
	{ "POST", "/repos/./r/issues/1/comments", 0 },
	{ "POST", GH "1/../2/comments", 0 },
	{ "POST", GH "1/comments/..", 0 },
	{ "POST", "/repos/octocat/a%2Fb/issues/1/comments", 0 },
	{ "POST", "/repos/octocat/a\\b/issues/1/comments", 0 },
	{ "POST", "/services/T0/B0/../x", 0 },
	{ "POST", "/services/T0/B0/x%2F", 0 },

	/* Notion ids in another form than the carrier writes */
	{ "GET", "/v1/pages/" ID_UPPER, 0 },
	{ "GET", "/v1/pages/" ID_PLAIN, 0 },
	{ "GET", "/v1/pages/" ID_UPLAIN, 0 },
	{ "PATCH", "/v1/pages/" ID_UPPER, 0 },
	{ "GET", "/v1/databases/Be633bf1-dfa0-436d-b259-571129a590e5", 0 },
	{ "GET", "/v1/pages/be633bf1-dfa0-436d-b259-571129a590e", 0 },
	{ "GET", "/v1/pages/be633bf1-dfa0-436d-b259-571129a590e51", 0 },
	{ "GET", "/v1/pages/be633bf1d-fa0-436d-b259-571129a590e5", 0 },
	{ "GET", "/v1/pages/ge633bf1-dfa0-436d-b259-571129a590e5", 0 },
	{ "GET", "/v1/pages/{" U "}", 0 },

	/* an extra segment, or a route of the same vendor never allowed */
	{ "GET", "/v1/pages/" U "/properties/title", 0 },
	{ "PATCH", "/v1/pages/" U "/markdown", 0 },
	{ "POST", "/v1/pages/" U "/move", 0 },
	{ "POST", "/v1/pages", 0 },
	{ "POST", "/v1/comments/" U, 0 },
	{ "PATCH", "/v1/comments/" U, 0 },
	{ "DELETE", "/v1/comments/" U, 0 },
	{ "GET", "/v1/databases/" U "/query", 0 },
	{ "POST", "/v1/databases/" U "/query", 0 },
	{ "GET", "/v1/data_sources/" U, 0 },
	{ "PATCH", "/v1/data_sources/" U, 0 },
	{ "POST", "/v1/data_sources/" U "/query/x", 0 },
	{ "PATCH", "/v1/blocks/" U, 0 },
	{ "DELETE", "/v1/blocks/" U, 0 },
	{ "PATCH", "/v1/blocks/" U "/children", 0 },
	{ "POST", "/v1/search", 0 },
	{ "GET", "/v1/users", 0 },
	{ "GET", "/v2/pages/" U, 0 },
	{ "GET", "/pages/" U, 0 },
	{ "POST", GH "1/comments/2", 0 },
	{ "POST", GH "1/labels", 0 },
	{ "POST", GH "1/assignees", 0 },
	{ "PUT", GH "1/lock", 0 },
	{ "POST", "/repos/octocat/Hello-World/issues", 0 },
	{ "PATCH", "/repos/octocat/Hello-World/issues/comments/1", 0 },
	{ "POST", "/repos/octocat/Hello-World/pulls/1/comments", 0 },
	{ "POST", "/repos/octocat/Hello-World/x/issues/1/comments", 0 },
	{ "POST", "/repos/octocat/issues/1/comments", 0 },
	{ "POST", "/graphql", 0 },
	{ "POST", HOOK "/extra", 0 },
	{ "POST", "/services/T0/B0", 0 },

	/* request-line and header injection, NUL, blanks, high bytes */
	{ "GET", "/v1/pages/" U " HTTP/1.1\r\nX: y", 0 },
	{ "GET", "/v1/pages/" U " HTTP/1.1", 0 },
	{ "POST", "/v1/comments HTTP/1.1\r\nHost: evil", 0 },
	{ "POST", "/v1/comments\r\nX: y", 0 },
	{ "POST", "/v1/comments\n", 0 },
	{ "POST", "/v1/comments\r", 0 },
	{ "GET", "/v1/pages/" U "\n", 0 },
	{ "PATCH", "/v1/pages/" U "\r\n", 0 },
	{ "POST", GH "1/comments\n", 0 },
	{ "POST", HOOK "\n", 0 },
	{ "POST", HOOK " HTTP/1.1\r\nX:", 0 },
	{ "GET\r\n", "/v1/pages/" U, 0 },
	{ "GET ", "/v1/pages/" U, 0 },
	{ " GET", "/v1/pages/" U, 0 },
	{ "GET\t", "/v1/pages/" U, 0 },
	{ "GET", " /v1/pages/" U, 0 },
	{ "GET", "/v1/pages/" U " ", 0 },
	{ "GET", "/v1/pages/" U "\t", 0 },
	{ "GET", "/v1/pages/\t" U, 0 },
	{ "POST", "/v1/com ments", 0 },
	/* a C string ends at a NUL: what is before it is judged */
	{ "GET", "/v1/pages/be633bf1-dfa0\0-436d-b259-571129a590e5", 0 },
	{ "POST", "/v1/comm\0ents", 0 },
	{ "GE\0T", "/v1/pages/" U, 0 },
	{ "GET", "/v1/pages/" U "\xc2\xa0", 0 },
	{ "GET", "/v1/pages/" U "\x7f", 0 },
	{ "POST", "/repos/octoc\xd0\xb0t/Hello-World/issues/1/comments", 0 },
	{ "POST", GH "\xd9\xa1/comments", 0 },
	{ "POST", "/services/T0/B0/x\xff", 0 },
	{ "GET", "https://api.notion.com/v1/pages/" U, 0 },
	{ "POST", "http://hooks.slack.com" HOOK, 0 },
	{ "GET", "/v1/pages/" U "#frag", 0 },
	{ "", "/v1/comments", 0 },
	{ "POST", "", 0 },
	{ "", "", 0 },

	/* issue numbers */
	{ "POST", GH "2147483648/comments", 0 },
	{ "POST", GH "2147483649/comments", 0 },
	{ "POST", GH "2147483650/comments", 0 },
	{ "POST", GH "2147483700/comments", 0 },
	{ "POST", GH "2147490000/comments", 0 },
	{ "POST", GH "2148000000/comments", 0 },
	{ "POST", GH "2200000000/comments", 0 },
	{ "POST", GH "3000000000/comments", 0 },
	{ "POST", GH "4294967297/comments", 0 },
	{ "POST", GH "9999999999/comments", 0 },
	{ "POST", GH "10000000000/comments", 0 },
	{ "POST", GH "123456789012345678901234567890/comments", 0 },
	{ "POST", GH "0/comments", 0 },
	{ "POST", GH "00/comments", 0 },
	{ "POST", GH "01/comments", 0 },
	{ "POST", GH "0001347/comments", 0 },
	{ "POST", GH "-1/comments", 0 },
	{ "POST", GH "+1/comments", 0 },
	{ "POST", GH "1e3/comments", 0 },
	{ "POST", GH "0x10/comments", 0 },
	{ "POST", GH "%31/comments", 0 },
	{ "POST", GH "/comments", 0 },
	{ "POST", GH "1.0/comments", 0 },

	/* owners and repositories out of GitHub's rules */
	{ "POST", "/repos/-octocat/r/issues/1/comments", 0 },
	{ "POST", "/repos/octocat-/r/issues/1/comments", 0 },
	{ "POST", "/repos/octo--cat/r/issues/1/comments", 0 },
	{ "POST", "/repos/-/r/issues/1/comments", 0 },
	{ "POST", "/repos/octo_cat/r/issues/1/comments", 0 },
	{ "POST", "/repos/octo.cat/r/issues/1/comments", 0 },
	{ "POST", "/repos/octocat/r%20x/issues/1/comments", 0 },
	{ "POST", "/repos/octocat/r~x/issues/1/comments", 0 },

	/* Slack paths out of form */
	{ "POST", "/services/t0/B0/x", 0 },
	{ "POST", "/services/T0/b0/x", 0 },
	{ "POST", "/services/Ta/B0/x", 0 },
	{ "POST", "/services/T0/Ba/x", 0 },
	{ "POST", "/services/T/B0/x", 0 },
	{ "POST", "/services/T0/B/x", 0 },
	{ "POST", "/services/T0/B0/x-y", 0 },
	{ "POST", "/services/T0/B0/x_y", 0 },
	{ "POST", "/services/T0/B0/", 0 },
};

static void
check_lines(enum reqline_set set)
{
	char err[256];
	size_t i;
	int want;

	ck_assert_int_eq(reqline_init(set, err, sizeof(err)), 0);
	for (i = 0; i < nitems(lines); i++) {
		want = (lines[i].sets & M(set)) ? 0 : -1;
		ck_assert_msg(reqline_check(lines[i].method, lines[i].path) ==
		    want, "set %d, line %zu \"%s %s\": want %d", (int)set, i,
		    lines[i].method, show(lines[i].path, strlen(lines[i].path)),
		    want);
	}
	reqline_free();
}

START_TEST(test_reqline_sets)
{
	size_t i;

	for (i = 0; i < nitems(sets); i++)
		check_lines(sets[i]);
}
END_TEST

/* Every set lets at least one line through, and no line reaches a set
 * it is not listed for (checked in check_lines); here: the table has a
 * line for each set. */
START_TEST(test_reqline_table)
{
	unsigned seen = 0;
	size_t i;

	for (i = 0; i < nitems(lines); i++)
		seen |= lines[i].sets;
	for (i = 0; i < nitems(sets); i++)
		ck_assert_msg(seen & M(sets[i]), "no line for set %d",
		    (int)sets[i]);
}
END_TEST

/* ------------------------------------------------------------------ */
/* the two checks agree */

/* Whether s is a decimal 1..2^31-1 in GitHub's spelling, the slow way. */
static int
number_oracle(const char *s)
{
	uint64_t v = 0;
	size_t i, n = strlen(s);

	if (n == 0 || n > 19 || s[0] == '0')
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	return v >= 1 && v <= 2147483647ULL;
}

static int
number_line(const char *num)
{
	char path[128];

	snprintf(path, sizeof(path), "/repos/o/r/issues/%s/comments", num);
	return reqline_check("POST", path);
}

START_TEST(test_agree_numbers)
{
	static const char *const edges[] = {
		"1", "9", "10", "99", "100", "999999999", "1000000000",
		"1999999999", "2000000000", "2099999999", "2100000000",
		"2139999999", "2140000000", "2146999999", "2147000000",
		"2147399999", "2147400000", "2147479999", "2147480000",
		"2147482999", "2147483000", "2147483599", "2147483600",
		"2147483639", "2147483640", "2147483646", "2147483647",
		"2147483648", "2147483649", "2147483657", "2147483699",
		"2147483700", "2147484000", "2147490000", "2147500000",
		"2148000000", "2150000000", "2200000000", "2999999999",
		"3000000000", "9999999999", "10000000000", "0", "01", "",
	};
	char buf[32], err[128];
	const char *why;
	uint32_t n;
	uint64_t x = 88172645463325252ULL;	/* xorshift64 */
	size_t i, j, len;
	int want;

	ck_assert_int_eq(reqline_init(RL_GITHUB, err, sizeof(err)), 0);
	for (i = 0; i < nitems(edges); i++) {
		want = number_oracle(edges[i]);
		ck_assert_msg((valid_issue_number(edges[i], strlen(edges[i]),
		    &n, &why) == 0) == want, "validator on \"%s\"", edges[i]);
		ck_assert_msg((number_line(edges[i]) == 0) == want,
		    "reqline on \"%s\"", edges[i]);
	}
	/* 20000 strings of 1..12 digits, many of 10 */
	for (i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		len = i % 3 == 0 ? 10 : 1 + x % 12;
		for (j = 0; j < len; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* the first digit mostly 1 or 2, near the bound */
			buf[j] = (char)('0' + (j == 0 && (x & 1) ?
			    1 + (x >> 8) % 2 : (x >> 8) % 10));
		}
		buf[len] = '\0';
		want = number_oracle(buf);
		ck_assert_msg((valid_issue_number(buf, len, &n, &why) == 0) ==
		    want, "validator on \"%s\"", buf);
		ck_assert_msg((number_line(buf) == 0) == want,
		    "reqline on \"%s\"", buf);
	}
	reqline_free();
}
END_TEST

/*
 * Every string of up to `depth` bytes over the alphabet, put in place of
 * one argument: the validator (given the argument, or with whole the
 * whole path) and the request line say the same.
 */
static void
agree(enum reqline_set set, const char *alphabet, size_t depth,
    const char *before, const char *after, validator fn, int whole,
    size_t *nok)
{
	char s[16], path[128], err[128];
	const char *why;
	size_t na = strlen(alphabet), idx[16], len, i, total = 0;
	int v, l;

	ck_assert_int_eq(reqline_init(set, err, sizeof(err)), 0);
	*nok = 0;
	for (len = 0; len <= depth; len++) {
		memset(idx, 0, sizeof(idx));
		for (;;) {
			for (i = 0; i < len; i++)
				s[i] = alphabet[idx[i]];
			s[len] = '\0';
			snprintf(path, sizeof(path), "%s%s%s", before, s,
			    after);
			v = (whole ? fn(path, strlen(path), &why) :
			    fn(s, len, &why)) == 0;
			l = reqline_check("POST", path) == 0;
			ck_assert_msg(v == l, "\"%s\": validator %d, request "
			    "line %d", s, v, l);
			*nok += v;
			total++;
			/* the next string of this length */
			for (i = 0; i < len && ++idx[i] == na; i++)
				idx[i] = 0;
			if (i == len)
				break;
		}
	}
	reqline_free();
	ck_assert_uint_gt(total, 1000);
}

START_TEST(test_agree_owner)
{
	size_t nok;

	agree(RL_GITHUB, "aZ0-._%/\\ ", 4, "/repos/", "/r/issues/1/comments",
	    valid_github_owner, 0, &nok);
	ck_assert_uint_gt(nok, 100);
}
END_TEST

START_TEST(test_agree_repo)
{
	size_t nok;

	agree(RL_GITHUB, "a.-_%/\\?#", 4, "/repos/o/", "/issues/1/comments",
	    valid_github_repo, 0, &nok);
	ck_assert_uint_gt(nok, 100);
}
END_TEST

START_TEST(test_agree_webhook)
{
	size_t nok;

	/* the whole path after "/services/", then after its 'T' */
	agree(RL_SLACK, "TBa0/", 7, "/services/", "", valid_webhook_path,
	    1, &nok);
	ck_assert_uint_gt(nok, 10);
	agree(RL_SLACK, "B0a/.-%", 6, "/services/T", "", valid_webhook_path,
	    1, &nok);
	ck_assert_uint_gt(nok, 10);
}
END_TEST

/* A Notion id changed in one place: the validator's output is what the
 * request line takes, and the line takes the input itself only when it
 * is already that output. */
START_TEST(test_agree_notion_id)
{
	static const char subst[] = "0aAfFgG-_ %/.\\";
	static const char *const bases[] = { ID_DASHED, ID_PLAIN, ID_UPPER };
	char s[64], out[VALID_NOTION_ID_LEN + 1], path[128], err[128];
	const char *why;
	size_t b, i, k, len, n = 0;
	int v;

	ck_assert_int_eq(reqline_init(RL_NOTION_AUDIT, err, sizeof(err)), 0);
	for (b = 0; b < nitems(bases); b++) {
		len = strlen(bases[b]);
		for (i = 0; i <= len; i++) {
			for (k = 0; k < sizeof(subst) - 1; k++) {
				/* replace byte i, or insert before it */
				memcpy(s, bases[b], len + 1);
				if (i < len)
					s[i] = subst[k];
				else {
					s[len] = subst[k];
					s[len + 1] = '\0';
				}
				v = valid_notion_id(s, strlen(s), out,
				    &why) == 0;
				snprintf(path, sizeof(path), "/v1/pages/%s", s);
				ck_assert_msg((reqline_check("PATCH", path) ==
				    0) == (v && strcmp(s, out) == 0),
				    "\"%s\"", s);
				if (v) {
					snprintf(path, sizeof(path),
					    "/v1/pages/%s", out);
					ck_assert_int_eq(reqline_check("PATCH",
					    path), 0);
				}
				n++;
			}
		}
	}
	reqline_free();
	ck_assert_uint_gt(n, 1000);
}
END_TEST

/* ------------------------------------------------------------------ */
/* limits: each bound at its value and one past it */

static void
at_limit(const char *name, validator fn, const char *unit, size_t max,
    const char *head, const char *tail)
{
	char *s;
	size_t ul = strlen(unit), hl = strlen(head), tl = strlen(tail), n;
	const char *why;

	/* n units fill max bytes with the head and tail */
	n = (max - hl - tl) / ul;
	ck_assert_uint_eq(hl + n * ul + tl, max);
	s = rep(unit, n, tail);
	if (hl > 0) {
		s = realloc(s, hl + n * ul + tl + 1);
		ck_assert_ptr_nonnull(s);
		memmove(s + hl, s, n * ul + tl + 1);
		memcpy(s, head, hl);
	}
	ck_assert_msg(fn(s, max, &why) == 0, "%s of %zu bytes refused: %s",
	    name, max, why);
	free(s);
	s = rep(unit, n + 1, tail);
	if (hl > 0) {
		s = realloc(s, hl + (n + 1) * ul + tl + 1);
		ck_assert_ptr_nonnull(s);
		memmove(s + hl, s, (n + 1) * ul + tl + 1);
		memcpy(s, head, hl);
	}
	ck_assert_msg(fn(s, max + ul, &why) == -1, "%s of %zu bytes accepted",
	    name, max + ul);
	free(s);
}

START_TEST(test_limit_owner)
{
	at_limit("owner", valid_github_owner, "a", BNC_GITHUB_OWNER_MAX, "",
	    "");
	/* 39 with single hyphens, and 41 */
	at_limit("owner", valid_github_owner, "a-", BNC_GITHUB_OWNER_MAX,
	    "", "a");
	ck_assert_int_eq(BNC_GITHUB_OWNER_MAX, 39);
}
END_TEST

START_TEST(test_limit_repo)
{
	at_limit("repo", valid_github_repo, "a", BNC_GITHUB_REPO_MAX, "", "");
	at_limit("repo", valid_github_repo, ".", BNC_GITHUB_REPO_MAX, "", "");
	ck_assert_int_eq(BNC_GITHUB_REPO_MAX, 100);
}
END_TEST

START_TEST(test_limit_cursor)
{
	at_limit("cursor", valid_cursor, "a", BNC_NOTION_CURSOR_MAX, "", "");
	ck_assert_int_eq(BNC_NOTION_CURSOR_MAX, 128);
}
END_TEST

START_TEST(test_limit_channel)
{
	at_limit("channel", valid_channel_name, "a", BNC_SLACK_CHANNEL_MAX,
	    "", "");
	ck_assert_int_eq(BNC_SLACK_CHANNEL_MAX, 80);
}
END_TEST

START_TEST(test_limit_webhook)
{
	at_limit("webhook", valid_webhook_path, "X",
	    BNC_SLACK_WEBHOOK_PATH_MAX, "/services/T0/B0/", "");
	at_limit("webhook", valid_webhook_path, "0",
	    BNC_SLACK_WEBHOOK_PATH_MAX, "/services/T", "/B0/x");
	ck_assert_int_eq(BNC_SLACK_WEBHOOK_PATH_MAX, 256);
}
END_TEST

START_TEST(test_limit_status)
{
	char *s;
	const char *why;

	at_limit("status", valid_status_name, "a", BNC_NOTION_STATUS_MAX, "",
	    "");
	/* 33 three-byte characters and one byte: 100; one more: 102 */
	at_limit("status", valid_status_name, EURO, BNC_NOTION_STATUS_MAX, "",
	    "a");
	/* a character that would end past the bound is not cut */
	s = rep("a", BNC_NOTION_STATUS_MAX - 1, EURO);
	ck_assert_int_eq(valid_status_name(s, strlen(s), &why), -1);
	free(s);
	ck_assert_int_eq(BNC_NOTION_STATUS_MAX, 100);
}
END_TEST

START_TEST(test_limit_number)
{
	ck_assert_int_eq(BNC_ISSUE_NUMBER_MAX, 2147483647);
	ck_assert_int_eq(BNC_ISSUE_DIGITS_MAX, 10);
}
END_TEST

/* Texts at their limit and one past it, counted both ways. */
START_TEST(test_limit_text)
{
	static const size_t maxes[] = { 1, 2, 2000, 4000, 65536 };
	const char *why;
	char *s;
	size_t i, m;

	for (i = 0; i < nitems(maxes); i++) {
		m = maxes[i];
		/* ASCII: m fits either way, m + 1 does not */
		s = rep("a", m, "");
		ck_assert_int_eq(valid_text(s, m, m, 0, &why), 0);
		ck_assert_int_eq(valid_text(s, m, m, 1, &why), 0);
		free(s);
		s = rep("a", m + 1, "");
		ck_assert_int_eq(valid_text(s, m + 1, m, 0, &why), -1);
		ck_assert_int_eq(valid_text(s, m + 1, m, 1, &why), -1);
		free(s);
		/* m astral characters: m code points, 2m UTF-16 units */
		s = rep(ASTRAL, m, "");
		ck_assert_int_eq(valid_text(s, 4 * m, m, 0, &why), 0);
		ck_assert_int_eq(valid_text(s, 4 * m, m, 1, &why), -1);
		ck_assert_int_eq(valid_text(s, 4 * m, 2 * m, 1, &why), 0);
		ck_assert_int_eq(valid_text(s, 4 * m, 2 * m - 1, 1, &why), -1);
		free(s);
		s = rep(ASTRAL, m + 1, "");
		ck_assert_int_eq(valid_text(s, 4 * (m + 1), m, 0, &why), -1);
		free(s);
		/* m - 1 BMP characters and one astral: m code points,
		 * m + 1 units */
		s = rep(EURO, m - 1, ASTRAL);
		ck_assert_int_eq(valid_text(s, strlen(s), m, 0, &why), 0);
		ck_assert_int_eq(valid_text(s, strlen(s), m, 1, &why), -1);
		ck_assert_int_eq(valid_text(s, strlen(s), m + 1, 1, &why), 0);
		free(s);
	}
	/* a NUL past everything else is still refused */
	s = rep("a", 100, "");
	s[99] = '\0';
	ck_assert_int_eq(valid_text(s, 100, 1000, 0, &why), -1);
	free(s);
}
END_TEST

/* The longest lines each set allows still match: the match limits
 * are above what a real line needs. */
START_TEST(test_limit_reqline)
{
	char err[128], *path, *s, *o, *r, *c;
	size_t i;

	ck_assert_int_eq(reqline_init(RL_GITHUB, err, sizeof(err)), 0);
	o = rep("a-", 19, "a");
	r = rep("r", BNC_GITHUB_REPO_MAX, "");
	path = malloc(2 * strlen(r) + strlen(o) + 64);
	ck_assert_ptr_nonnull(path);
	sprintf(path, "/repos/%s/%s/issues/2147483647/comments", o, r);
	ck_assert_int_eq(reqline_check("POST", path), 0);
	/* 40 bytes of owner, 101 of repository */
	sprintf(path, "/repos/%sa/%s/issues/1/comments", o, r);
	ck_assert_int_eq(reqline_check("POST", path), -1);
	sprintf(path, "/repos/%s/%sr/issues/1/comments", o, r);
	ck_assert_int_eq(reqline_check("POST", path), -1);
	sprintf(path, "/repos/a/%s%s/issues/1/comments", r, r);
	ck_assert_int_eq(reqline_check("POST", path), -1);
	free(o);
	free(r);
	free(path);
	reqline_free();

	ck_assert_int_eq(reqline_init(RL_NOTION_READ, err, sizeof(err)), 0);
	c = rep("x", 128, "");
	s = malloc(512);
	ck_assert_ptr_nonnull(s);
	snprintf(s, 512, "/v1/comments?block_id=%s&start_cursor=%s"
	    "&page_size=100", U, c);
	ck_assert_int_eq(reqline_check("GET", s), 0);
	snprintf(s, 512, "/v1/comments?block_id=%s&start_cursor=%sx", U, c);
	ck_assert_int_eq(reqline_check("GET", s), -1);
	free(c);
	free(s);
	reqline_free();

	ck_assert_int_eq(reqline_init(RL_SLACK, err, sizeof(err)), 0);
	s = rep("X", BNC_SLACK_WEBHOOK_PATH_MAX - strlen("/services/T0/B0/"),
	    "");
	path = malloc(BNC_SLACK_WEBHOOK_PATH_MAX + 2);
	ck_assert_ptr_nonnull(path);
	snprintf(path, BNC_SLACK_WEBHOOK_PATH_MAX + 2, "/services/T0/B0/%s",
	    s);
	ck_assert_uint_eq(strlen(path), 256);
	ck_assert_int_eq(reqline_check("POST", path), 0);
	strcat(path, "X");
	ck_assert_int_eq(reqline_check("POST", path), -1);
	free(s);
	free(path);

	/* a method or a path past the carrier's bounds */
	s = rep("P", BNC_CARRIER_METHOD_MAX + 1, "");
	ck_assert_int_eq(reqline_check(s, HOOK), -1);
	free(s);
	path = rep("X", BNC_CARRIER_PATH_MAX + 1 - 16, "");
	path = realloc(path, BNC_CARRIER_PATH_MAX + 2);
	ck_assert_ptr_nonnull(path);
	memmove(path + 16, path, BNC_CARRIER_PATH_MAX + 1 - 16 + 1);
	memcpy(path, "/services/T0/B0/", 16);
	ck_assert_uint_eq(strlen(path), BNC_CARRIER_PATH_MAX + 1);
	ck_assert_int_eq(reqline_check("POST", path), -1);
	free(path);
	reqline_free();

	/* lines of the largest size that make the patterns work hardest
	 * (long runs before the part that fails): refused, and never an
	 * error taken for a match */
	ck_assert_int_eq(reqline_init(RL_GITHUB, err, sizeof(err)), 0);
	path = malloc(BNC_CARRIER_PATH_MAX + 1);
	ck_assert_ptr_nonnull(path);
	for (i = 0; i < 3; i++) {
		memset(path, i == 0 ? 'a' : i == 1 ? '1' : '-',
		    BNC_CARRIER_PATH_MAX);
		path[BNC_CARRIER_PATH_MAX] = '\0';
		memcpy(path, "/repos/o/r/issues/", 18);
		if (i == 0)
			memcpy(path, "/repos/", 7);
		ck_assert_int_eq(reqline_check("POST", path), -1);
	}
	free(path);
	reqline_free();
}
END_TEST

/* ------------------------------------------------------------------ */
/* errors */

START_TEST(test_reqline_state)
{
	char err[128];

	/* nothing matches before init, nor after free */
	ck_assert_int_eq(reqline_check("POST", "/v1/comments"), -1);
	ck_assert_int_eq(reqline_init(RL_NOTION_COMMENT, err, sizeof(err)),
	    0);
	ck_assert_int_eq(reqline_check("POST", "/v1/comments"), 0);
	ck_assert_int_eq(reqline_check(NULL, "/v1/comments"), -1);
	ck_assert_int_eq(reqline_check("POST", NULL), -1);
	/* a second set cannot be added to the first */
	err[0] = '\0';
	ck_assert_int_eq(reqline_init(RL_GITHUB, err, sizeof(err)), -1);
	ck_assert_str_ne(err, "");
	ck_assert_int_eq(reqline_check("POST", GH "1/comments"), -1);
	ck_assert_int_eq(reqline_check("POST", "/v1/comments"), 0);
	reqline_free();
	ck_assert_int_eq(reqline_check("POST", "/v1/comments"), -1);
	reqline_free();		/* twice is harmless */
	/* no such set */
	err[0] = '\0';
	ck_assert_int_eq(reqline_init((enum reqline_set)0, err, sizeof(err)),
	    -1);
	ck_assert_str_ne(err, "");
	ck_assert_int_eq(reqline_init((enum reqline_set)99, NULL, 0), -1);
	ck_assert_int_eq(reqline_check("POST", "/v1/comments"), -1);
	/* and a good set after a bad one */
	ck_assert_int_eq(reqline_init(RL_SLACK, NULL, 0), 0);
	ck_assert_int_eq(reqline_check("POST", HOOK), 0);
	reqline_free();
}
END_TEST

START_TEST(test_valid_errors)
{
	static const validator fns[] = {
		valid_github_owner, valid_github_repo, valid_webhook_path,
		valid_cursor, valid_status_name, valid_channel_name,
	};
	char out[VALID_NOTION_ID_LEN + 1];
	const char *why;
	uint32_t n;
	size_t i;

	for (i = 0; i < nitems(fns); i++) {
		/* no string, an empty one, a NUL only; why may be NULL */
		why = NULL;
		ck_assert_int_eq(fns[i](NULL, 0, &why), -1);
		ck_assert_ptr_nonnull(why);
		ck_assert_int_eq(fns[i]("", 0, &why), -1);
		ck_assert_int_eq(fns[i]("\0", 1, NULL), -1);
		/* len is the truth: a terminated prefix is not enough */
		ck_assert_int_eq(fns[i]("abc\0def", 7, &why), -1);
	}
	ck_assert_int_eq(valid_notion_id(NULL, 0, out, &why), -1);
	ck_assert_int_eq(valid_issue_number(NULL, 0, &n, &why), -1);
	ck_assert_int_eq(valid_issue_number("1", 1, &n, NULL), 0);
	ck_assert_int_eq(valid_issue_number("12\0", 3, &n, NULL), -1);
	ck_assert_int_eq(valid_text(NULL, 0, 10, 0, &why), -1);
	ck_assert_int_eq(valid_text("abc", 3, 10, 0, NULL), 0);
	/* a shorter len judges only its bytes */
	ck_assert_int_eq(valid_github_owner("ab-", 2, &why), 0);
	ck_assert_int_eq(valid_issue_number("12x", 2, &n, &why), 0);
	ck_assert_uint_eq(n, 12);
}
END_TEST

static Suite *
validate_suite(void)
{
	Suite *su = suite_create("validate");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_test(tc, test_notion_id);
	tcase_add_test(tc, test_notion_id_dashes);
	tcase_add_test(tc, test_github_owner);
	tcase_add_test(tc, test_github_repo);
	tcase_add_test(tc, test_issue_number);
	tcase_add_test(tc, test_webhook_path);
	tcase_add_test(tc, test_channel_name);
	tcase_add_test(tc, test_cursor);
	tcase_add_test(tc, test_status_name);
	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_reqline_sets);
	tcase_add_test(tc, test_reqline_table);
	tcase_add_test(tc, test_agree_numbers);
	tcase_add_test(tc, test_agree_owner);
	tcase_add_test(tc, test_agree_repo);
	tcase_add_test(tc, test_agree_webhook);
	tcase_add_test(tc, test_agree_notion_id);
	suite_add_tcase(su, tc);
	tc = tcase_create("limits");
	tcase_add_test(tc, test_limit_owner);
	tcase_add_test(tc, test_limit_repo);
	tcase_add_test(tc, test_limit_cursor);
	tcase_add_test(tc, test_limit_channel);
	tcase_add_test(tc, test_limit_webhook);
	tcase_add_test(tc, test_limit_status);
	tcase_add_test(tc, test_limit_number);
	tcase_add_test(tc, test_limit_text);
	tcase_add_test(tc, test_limit_reqline);
	suite_add_tcase(su, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, test_reqline_state);
	tcase_add_test(tc, test_valid_errors);
	suite_add_tcase(su, tc);
	return su;
}

int
main(void)
{
	SRunner *sr = srunner_create(validate_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
