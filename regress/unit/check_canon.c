/*
 * check_canon.c - canonical forms of destination identities
 * (monitor/canon.c, DESIGN 5 "Canonical forms").
 *
 * Each rule of canon.h with its equivalent spellings (which must collapse
 * onto one form) and the attacker's look-alikes (which must not collapse
 * onto the real name); ambiguity, where receivers disagree; RFC 3492's
 * samples both ways; the scanner on prose, on text the taint index
 * normalised, and on attacker-shaped text; canon_visible on every class
 * it shows; and every bound of canon.c at its limit and one past it.
 * Expected forms were checked against independent implementations where
 * one exists (Python's punycode codec and idna 3 for UTS 46, Node's
 * WHATWG URL parser, the IBAN registry's examples).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "bounds.h"
#include "buf.h"
#include "canon.h"
#include "err.h"

/* Renders a form for messages: NULL as "(null)". */
#define S(p)	((p) != NULL ? (p) : "(null)")

/*
 * Helpers: each asserts one outcome, naming the input when it fails.
 */

static void
whole_is(const char *in, enum canon_kind kind, const char *form,
    const char *alt)
{
	struct canon_id id;
	int r;

	r = canon_whole(in, strlen(in), &id);
	ck_assert_msg(r == 1, "canon_whole(\"%s\") = %d, want 1", in, r);
	ck_assert_msg(id.kind == kind && strcmp(id.form, form) == 0,
	    "canon_whole(\"%s\") = kind %d \"%s\", want kind %d \"%s\"", in,
	    id.kind, id.form, kind, form);
	if (alt == NULL)
		ck_assert_msg(id.flags == 0 && id.alt == NULL,
		    "canon_whole(\"%s\"): ambiguous (alt \"%s\"), want not",
		    in, S(id.alt));
	else
		ck_assert_msg(id.flags == CANON_AMBIGUOUS && id.alt != NULL &&
		    strcmp(id.alt, alt) == 0,
		    "canon_whole(\"%s\"): alt \"%s\", want \"%s\"", in,
		    S(id.alt), alt);
	canon_id_clear(&id);
	ck_assert_ptr_null(id.form);
}

static void
whole_not(const char *in)
{
	struct canon_id id;
	int r;

	r = canon_whole(in, strlen(in), &id);
	ck_assert_msg(r == 0, "canon_whole(\"%s\") = %d (form \"%s\"), "
	    "want 0", in, r, r == 1 ? id.form : "");
	canon_id_clear(&id);
}

static void
whole_err(const char *in, int want)
{
	struct canon_id id;
	int r;

	r = canon_whole(in, strlen(in), &id);
	ck_assert_msg(r < 0 && (want == 0 || r == want),
	    "canon_whole(\"%.60s\") = %d, want %d", in, r, want);
	ck_assert_ptr_null(id.form);
}

/* a and b are one identity (same kind, form and alt) */
static void
same(const char *a, const char *b)
{
	struct canon_id x, y;

	ck_assert_msg(canon_whole(a, strlen(a), &x) == 1, "\"%s\" is none", a);
	ck_assert_msg(canon_whole(b, strlen(b), &y) == 1, "\"%s\" is none", b);
	ck_assert_msg(x.kind == y.kind && strcmp(x.form, y.form) == 0 &&
	    x.flags == y.flags,
	    "\"%s\" (\"%s\") and \"%s\" (\"%s\") must be one", a, x.form, b,
	    y.form);
	canon_id_clear(&x);
	canon_id_clear(&y);
}

/* a and b are two identities, neither reading of one being the other */
static void
apart(const char *a, const char *b)
{
	struct canon_id x, y;

	ck_assert_msg(canon_whole(a, strlen(a), &x) == 1, "\"%s\" is none", a);
	ck_assert_msg(canon_whole(b, strlen(b), &y) == 1, "\"%s\" is none", b);
	ck_assert_msg(strcmp(x.form, y.form) != 0 &&
	    (x.alt == NULL || strcmp(x.alt, y.form) != 0) &&
	    (y.alt == NULL || strcmp(y.alt, x.form) != 0),
	    "\"%s\" and \"%s\" must stay apart (\"%s\")", a, b, x.form);
	canon_id_clear(&x);
	canon_id_clear(&y);
}

static void
host_is(const char *in, const char *form, const char *alt)
{
	struct buf *o = buf_new(), *a = buf_new();
	int flags = -1, r;

	r = canon_host_alt(in, strlen(in), o, a, &flags);
	ck_assert_msg(r == 0, "canon_host(\"%s\") = %d", in, r);
	ck_assert_msg(strcmp((const char *)buf_ptr(o), form) == 0,
	    "canon_host(\"%s\") = \"%s\", want \"%s\"", in, buf_ptr(o), form);
	ck_assert_uint_eq(buf_len(o), strlen(form) + 1);	/* its NUL */
	if (alt == NULL) {
		ck_assert_msg(flags == 0 && buf_len(a) == 0,
		    "canon_host(\"%s\"): ambiguous, want not", in);
	} else {
		ck_assert_msg(flags == CANON_AMBIGUOUS && buf_len(a) > 0 &&
		    strcmp((const char *)buf_ptr(a), alt) == 0,
		    "canon_host(\"%s\"): alt \"%s\", want \"%s\"", in,
		    buf_len(a) > 0 ? (const char *)buf_ptr(a) : "", alt);
	}
	/* canon_host alone gives the form and the flag */
	buf_reset(o);
	flags = -1;
	ck_assert_int_eq(canon_host(in, strlen(in), o, &flags), 0);
	ck_assert_str_eq((const char *)buf_ptr(o), form);
	ck_assert_int_eq(flags, alt == NULL ? 0 : CANON_AMBIGUOUS);
	buf_free(o);
	buf_free(a);
}

static void
host_err(const char *in, size_t len)
{
	struct buf *o = buf_new();
	int r;

	r = canon_host(in, len, o, NULL);
	ck_assert_msg(r < 0, "canon_host(\"%.*s\") = %d (\"%s\"), want < 0",
	    (int)len, in, r, r == 0 ? (const char *)buf_ptr(o) : "");
	ck_assert_uint_eq(buf_len(o), 0);
	buf_free(o);
}

static void
url_is(const char *in, const char *form, const char *alt)
{
	struct buf *o = buf_new(), *a = buf_new();
	int flags = -1, r;

	r = canon_url(in, strlen(in), o, a, &flags);
	ck_assert_msg(r == 0, "canon_url(\"%s\") = %d", in, r);
	ck_assert_msg(strcmp((const char *)buf_ptr(o), form) == 0,
	    "canon_url(\"%s\") = \"%s\", want \"%s\"", in, buf_ptr(o), form);
	if (alt == NULL)
		ck_assert_msg(flags == 0 && buf_len(a) == 0,
		    "canon_url(\"%s\"): ambiguous (\"%s\"), want not", in,
		    buf_len(a) > 0 ? (const char *)buf_ptr(a) : "");
	else
		ck_assert_msg(flags == CANON_AMBIGUOUS && buf_len(a) > 0 &&
		    strcmp((const char *)buf_ptr(a), alt) == 0,
		    "canon_url(\"%s\"): alt \"%s\", want \"%s\"", in,
		    buf_len(a) > 0 ? (const char *)buf_ptr(a) : "", alt);
	buf_free(o);
	buf_free(a);
}

static void
url_err(const char *in, size_t len)
{
	struct buf *o = buf_new(), *a = buf_new();
	int r;

	r = canon_url(in, len, o, a, NULL);
	ck_assert_msg(r < 0, "canon_url(\"%.*s\") = %d (\"%s\"), want < 0",
	    (int)len, in, r, r == 0 ? (const char *)buf_ptr(o) : "");
	ck_assert_uint_eq(buf_len(o), 0);
	ck_assert_uint_eq(buf_len(a), 0);
	buf_free(o);
	buf_free(a);
}

static void
mbox_is(const char *in, const char *form)
{
	struct buf *o = buf_new();
	int r;

	r = canon_mailbox(in, strlen(in), o);
	ck_assert_msg(r == 0, "canon_mailbox(\"%s\") = %d", in, r);
	ck_assert_msg(strcmp((const char *)buf_ptr(o), form) == 0,
	    "canon_mailbox(\"%s\") = \"%s\", want \"%s\"", in, buf_ptr(o),
	    form);
	buf_free(o);
}

static void
mbox_err(const char *in, size_t len, int want)
{
	struct buf *o = buf_new();
	int r;

	r = canon_mailbox(in, len, o);
	ck_assert_msg(r < 0 && (want == 0 || r == want),
	    "canon_mailbox(\"%.*s\") = %d, want %d", (int)len, in, r, want);
	ck_assert_uint_eq(buf_len(o), 0);
	buf_free(o);
}

/*
 * The scanner: want is a list of "KIND form" strings (KIND one of M U A
 * P I; "|alt" appended for an ambiguous one), NULL-terminated.
 */
static const char kind_letter[] = "-MUAHPI";

static void
scan_is_v(const char *text, size_t len, const char *const *want)
{
	struct canon_id *ids;
	char got[1024];
	size_t n, i, w;
	int r;

	r = canon_scan(text, len, BNC_CANON_IDS_MAX, &ids, &n);
	ck_assert_msg(r == 0, "canon_scan(\"%s\") = %d", text, r);
	for (w = 0; want[w] != NULL; w++)
		;
	for (i = 0; i < n && i < w; i++) {
		snprintf(got, sizeof(got), "%c %s%s%s",
		    kind_letter[ids[i].kind], ids[i].form,
		    ids[i].alt != NULL ? "|" : "",
		    ids[i].alt != NULL ? ids[i].alt : "");
		ck_assert_msg(strcmp(got, want[i]) == 0,
		    "canon_scan(\"%s\") #%zu = \"%s\", want \"%s\"", text, i,
		    got, want[i]);
		/* spans are in the text, in order, and do not overlap */
		ck_assert(ids[i].off + ids[i].len <= len && ids[i].len > 0);
		if (i > 0)
			ck_assert(ids[i].off >= ids[i - 1].off +
			    ids[i - 1].len);
	}
	ck_assert_msg(n == w, "canon_scan(\"%s\") found %zu, want %zu "
	    "(first extra: \"%s\")", text, n, w, n > w ? ids[w].form : "");
	canon_ids_free(ids, n);
}

#define SCAN(text, ...) do {						\
	static const char *const want_[] = { __VA_ARGS__, NULL };	\
	scan_is_v((text), strlen(text), want_);				\
} while (0)
#define SCAN_NONE(text) do {						\
	static const char *const want_[] = { NULL };			\
	scan_is_v((text), strlen(text), want_);				\
} while (0)

/* The span of the only identity scan finds in text. */
static void
span_is(const char *text, const char *span)
{
	struct canon_id *ids;
	size_t n;

	ck_assert_int_eq(canon_scan(text, strlen(text), 8, &ids, &n), 0);
	ck_assert_msg(n == 1, "canon_scan(\"%s\") found %zu", text, n);
	ck_assert_msg(ids[0].len == strlen(span) &&
	    memcmp(text + ids[0].off, span, ids[0].len) == 0,
	    "canon_scan(\"%s\") span \"%.*s\", want \"%s\"", text,
	    (int)ids[0].len, text + ids[0].off, span);
	canon_ids_free(ids, n);
}

static void
vis_is(const char *in, size_t len, const char *want)
{
	struct buf *o = buf_new();
	int r;

	r = canon_visible(in, len, 4096, o);
	ck_assert_msg(r == 0, "canon_visible = %d", r);
	ck_assert_msg(strcmp((const char *)buf_ptr(o), want) == 0,
	    "canon_visible(\"%.*s\") = \"%s\", want \"%s\"", (int)len, in,
	    buf_ptr(o), want);
	ck_assert_uint_eq(buf_len(o), strlen(want) + 1);
	buf_free(o);
}

#define VIS(in, want)	vis_is((in), sizeof(in) - 1, (want))

/* A string of n copies of c, owned by the caller. */
static char *
rep(char c, size_t n)
{
	char *s = malloc(n + 1);

	ck_assert_ptr_nonnull(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/*
 * core: punycode
 */

/* RFC 3492 7.1, (A) to (S), and four of our own */
static const struct {
	const char	*name;
	uint32_t	 cp[64];
	size_t		 n;
	const char	*puny;
} rfc3492[] = {
	{ "(A) Arabic (Egyptian)", { 0x0644, 0x064a, 0x0647, 0x0645, 0x0627,
	    0x0628, 0x062a, 0x0643, 0x0644, 0x0645, 0x0648, 0x0634, 0x0639,
	    0x0631, 0x0628, 0x064a, 0x061f }, 17,
	    "egbpdaj6bu4bxfgehfvwxn" },
	{ "(B) Chinese (simplified)", { 0x4ed6, 0x4eec, 0x4e3a, 0x4ec0,
	    0x4e48, 0x4e0d, 0x8bf4, 0x4e2d, 0x6587 }, 9,
	    "ihqwcrb4cv8a8dqg056pqjye" },
	{ "(C) Chinese (traditional)", { 0x4ed6, 0x5011, 0x7232, 0x4ec0,
	    0x9ebd, 0x4e0d, 0x8aaa, 0x4e2d, 0x6587 }, 9,
	    "ihqwctvzc91f659drss3x8bo0yb" },
	{ "(D) Czech", { 'P', 'r', 'o', 0x010d, 'p', 'r', 'o', 's', 't',
	    0x011b, 'n', 'e', 'm', 'l', 'u', 'v', 0x00ed, 0x010d, 'e', 's',
	    'k', 'y' }, 22, "Proprostnemluvesky-uyb24dma41a" },
	{ "(E) Hebrew", { 0x05dc, 0x05de, 0x05d4, 0x05d4, 0x05dd, 0x05e4,
	    0x05e9, 0x05d5, 0x05d8, 0x05dc, 0x05d0, 0x05de, 0x05d3, 0x05d1,
	    0x05e8, 0x05d9, 0x05dd, 0x05e2, 0x05d1, 0x05e8, 0x05d9,
	    0x05ea }, 22, "4dbcagdahymbxekheh6e0a7fei0b" },
	{ "(F) Hindi (Devanagari)", { 0x092f, 0x0939, 0x0932, 0x094b, 0x0917,
	    0x0939, 0x093f, 0x0928, 0x094d, 0x0926, 0x0940, 0x0915, 0x094d,
	    0x092f, 0x094b, 0x0902, 0x0928, 0x0939, 0x0940, 0x0902, 0x092c,
	    0x094b, 0x0932, 0x0938, 0x0915, 0x0924, 0x0947, 0x0939, 0x0948,
	    0x0902 }, 30, "i1baa7eci9glrd9b2ae1bj0hfcgg6iyaf8o0a1dig0cd" },
	{ "(G) Japanese (kanji and hiragana)", { 0x306a, 0x305c, 0x307f,
	    0x3093, 0x306a, 0x65e5, 0x672c, 0x8a9e, 0x3092, 0x8a71, 0x3057,
	    0x3066, 0x304f, 0x308c, 0x306a, 0x3044, 0x306e, 0x304b }, 18,
	    "n8jok5ay5dzabd5bym9f0cm5685rrjetr6pdxa" },
	{ "(H) Korean (Hangul syllables)", { 0xc138, 0xacc4, 0xc758, 0xbaa8,
	    0xb4e0, 0xc0ac, 0xb78c, 0xb4e4, 0xc774, 0xd55c, 0xad6d, 0xc5b4,
	    0xb97c, 0xc774, 0xd574, 0xd55c, 0xb2e4, 0xba74, 0xc5bc, 0xb9c8,
	    0xb098, 0xc88b, 0xc744, 0xae4c }, 24,
	    "989aomsvi5e83db1d2a355cv1e0vak1dwrv93d5xbh15a0dt30a5jpsd879ccm6"
	    "fea98c" },
	/* the RFC's mixed-case annotation (an upper-case 'D') is not ours:
	 * we encode lower case and decode either */
	{ "(I) Russian (Cyrillic)", { 0x043f, 0x043e, 0x0447, 0x0435, 0x043c,
	    0x0443, 0x0436, 0x0435, 0x043e, 0x043d, 0x0438, 0x043d, 0x0435,
	    0x0433, 0x043e, 0x0432, 0x043e, 0x0440, 0x044f, 0x0442, 0x043f,
	    0x043e, 0x0440, 0x0443, 0x0441, 0x0441, 0x043a, 0x0438 }, 28,
	    "b1abfaaepdrnnbgefbadotcwatmq2g4l" },
	{ "(J) Spanish", { 'P', 'o', 'r', 'q', 'u', 0x00e9, 'n', 'o', 'p', 'u',
	    'e', 'd', 'e', 'n', 's', 'i', 'm', 'p', 'l', 'e', 'm', 'e', 'n',
	    't', 'e', 'h', 'a', 'b', 'l', 'a', 'r', 'e', 'n', 'E', 's', 'p',
	    'a', 0x00f1, 'o', 'l' }, 40,
	    "PorqunopuedensimplementehablarenEspaol-fmd56a" },
	{ "(K) Vietnamese", { 'T', 0x1ea1, 'i', 's', 'a', 'o', 'h', 0x1ecd,
	    'k', 'h', 0x00f4, 'n', 'g', 't', 'h', 0x1ec3, 'c', 'h', 0x1ec9,
	    'n', 0x00f3, 'i', 't', 'i', 0x1ebf, 'n', 'g', 'V', 'i', 0x1ec7,
	    't' }, 31, "TisaohkhngthchnitingVit-kjcr8268qyxafd2f1b9g" },
	{ "(L) 3<nen>B<gumi><kinpachi><sensei>", { '3', 0x5e74, 'B', 0x7d44,
	    0x91d1, 0x516b, 0x5148, 0x751f }, 8, "3B-ww4c5e180e575a65lsy2b" },
	{ "(M) <amuro><namie>-with-SUPER-MONKEYS", { 0x5b89, 0x5ba4, 0x5948,
	    0x7f8e, 0x6075, '-', 'w', 'i', 't', 'h', '-', 'S', 'U', 'P', 'E',
	    'R', '-', 'M', 'O', 'N', 'K', 'E', 'Y', 'S' }, 24,
	    "-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n" },
	{ "(N) Hello-Another-Way-<sorezore><no><basho>", { 'H', 'e', 'l', 'l',
	    'o', '-', 'A', 'n', 'o', 't', 'h', 'e', 'r', '-', 'W', 'a', 'y',
	    '-', 0x305d, 0x308c, 0x305e, 0x308c, 0x306e, 0x5834, 0x6240 }, 25,
	    "Hello-Another-Way--fc4qua05auwb3674vfr0b" },
	{ "(O) <hitotsu><yane><no><shita>2", { 0x3072, 0x3068, 0x3064,
	    0x5c4b, 0x6839, 0x306e, 0x4e0b, '2' }, 8, "2-u9tlzr9756bt3uc0v" },
	{ "(P) Maji<de>Koi<suru>5<byou><mae>", { 'M', 'a', 'j', 'i', 0x3067,
	    'K', 'o', 'i', 0x3059, 0x308b, '5', 0x79d2, 0x524d }, 13,
	    "MajiKoi5-783gue6qz075azm5e" },
	{ "(Q) <pafii>de<runba>", { 0x30d1, 0x30d5, 0x30a3, 0x30fc, 'd', 'e',
	    0x30eb, 0x30f3, 0x30d0 }, 9, "de-jg4avhby1noc0d" },
	{ "(R) <sono><supiido><de>", { 0x305d, 0x306e, 0x30b9, 0x30d4, 0x30fc,
	    0x30c9, 0x3067 }, 7, "d9juau41awczczp" },
	{ "(S) -> $1.00 <-", { '-', '>', ' ', '$', '1', '.', '0', '0', ' ',
	    '<', '-' }, 11, "-> $1.00 <--" },
	/* first deltas large enough for damping to matter (Python's codec) */
	{ "U+10FFFF", { 0x10ffff }, 1, "dn32g" },
	{ "a U+1F600 b", { 'a', 0x1f600, 'b' }, 3, "ab-no82a" },
	{ "U+1F600..1F602", { 0x1f600, 0x1f601, 0x1f602 }, 3, "e28hcd" },
	{ "U+E0100 x", { 0xe0100, 'x' }, 2, "x-eg21m" },
	{ "U+E0100 U+E0101", { 0xe0100, 0xe0101 }, 2, "cd36eca" },
	{ "U+10FFFD U+10FFFC U+E0100", { 0x10fffd, 0x10fffc, 0xe0100 }, 3,
	    "cd36e4s10cca" },
};

START_TEST(test_punycode_rfc3492_encode)
{
	struct buf *o = buf_new();
	size_t i;

	for (i = 0; i < sizeof(rfc3492) / sizeof(rfc3492[0]); i++) {
		buf_reset(o);
		ck_assert_int_eq(canon_punycode_encode(rfc3492[i].cp,
		    rfc3492[i].n, o), 0);
		ck_assert_msg(strcmp((const char *)buf_ptr(o),
		    rfc3492[i].puny) == 0, "%s: \"%s\", want \"%s\"",
		    rfc3492[i].name, buf_ptr(o), rfc3492[i].puny);
	}
	buf_free(o);
}
END_TEST

START_TEST(test_punycode_rfc3492_decode)
{
	uint32_t cp[64];
	size_t i, n;

	for (i = 0; i < sizeof(rfc3492) / sizeof(rfc3492[0]); i++) {
		ck_assert_int_eq(canon_punycode_decode(rfc3492[i].puny,
		    strlen(rfc3492[i].puny), cp, &n, 64), 0);
		ck_assert_msg(n == rfc3492[i].n && memcmp(cp, rfc3492[i].cp,
		    n * sizeof(*cp)) == 0, "%s decodes wrong", rfc3492[i].name);
	}
	/* (I) as the RFC prints it, with its upper-case annotation */
	ck_assert_int_eq(canon_punycode_decode(
	    "b1abfaaepdrnnbgefbaDotcwatmq2g4l", 32, cp, &n, 64), 0);
	ck_assert_uint_eq(n, 28);
	ck_assert_int_eq(memcmp(cp, rfc3492[8].cp, 28 * sizeof(*cp)), 0);
	ck_assert_str_eq(rfc3492[8].name, "(I) Russian (Cyrillic)");
}
END_TEST

START_TEST(test_punycode_bad)
{
	uint32_t cp[64];
	size_t n;

	/* basic code points and a delimiter with nothing after it: fine */
	ck_assert_int_eq(canon_punycode_decode("kva-", 4, cp, &n, 64), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(cp[2], 'a');
	/* a lone delimiter is read as a digit (RFC 3492 6.2; Python's
	 * codec reads it as empty), digits cut short, a character that
	 * is no digit, a non-ASCII basic code point */
	ck_assert_int_lt(canon_punycode_decode("-", 1, cp, &n, 64), 0);
	ck_assert_int_lt(canon_punycode_decode("bcher-kv", 8, cp, &n, 64), 0);
	ck_assert_int_lt(canon_punycode_decode("bcher-k!a", 9, cp, &n, 64), 0);
	ck_assert_int_lt(canon_punycode_decode("b\xc3\xbc-kva", 7, cp, &n, 64),
	    0);
	/* a code point past U+10FFFF ("9999a" is U+737B5, one digit more
	 * is past it), a value past 2^32 */
	ck_assert_int_eq(canon_punycode_decode("9999a", 5, cp, &n, 64), 0);
	ck_assert_uint_eq(cp[0], 0x737b5);
	ck_assert_int_lt(canon_punycode_decode("99999a", 6, cp, &n, 64), 0);
	ck_assert_int_lt(canon_punycode_decode("9999999999a", 11, cp, &n, 64),
	    0);
	/* a surrogate cannot be encoded */
	cp[0] = 0xd800;
	{
		struct buf *o = buf_new();

		ck_assert_int_lt(canon_punycode_encode(cp, 1, o), 0);
		ck_assert_uint_eq(buf_len(o), 0);
		buf_free(o);
	}
}
END_TEST

/*
 * core: hosts
 */

START_TEST(test_host_case_dots)
{
	host_is("Example.COM", "example.com", NULL);
	host_is("example.com.", "example.com", NULL);
	host_is("B\xc3\xbc" "cher.Example.", "xn--bcher-kva.example", NULL);
	host_is("xn--bcher-kva.example", "xn--bcher-kva.example", NULL);
	host_is("XN--BCHER-KVA.Example", "xn--bcher-kva.example", NULL);
	host_is("B\xc3\x9c" "CHER.example", "xn--bcher-kva.example", NULL);
	/* ideographic, fullwidth and halfwidth full stops */
	host_is("example\xe3\x80\x82" "com", "example.com", NULL);
	host_is("example\xef\xbc\x8e" "com", "example.com", NULL);
	host_is("example\xef\xbd\xa1" "com", "example.com", NULL);
	/* fullwidth ASCII */
	host_is("\xef\xbc\xa5\xef\xbd\x98\xef\xbd\x81mple.com", "example.com",
	    NULL);
	/* Japanese: RFC 3492 and the IANA test TLD */
	host_is("\xe4\xbe\x8b\xe3\x81\x88.\xe3\x83\x86\xe3\x82\xb9\xe3\x83\x88",
	    "xn--r8jz45g.xn--zckzah", NULL);
	/* Greek and Cyrillic capitals, lower-cased */
	host_is("\xce\x91\xce\x92\xce\x93.example", "xn--mxacd.example", NULL);
	host_is("\xce\xb1\xce\xb2\xce\xb3.example", "xn--mxacd.example", NULL);
	host_is("\xd0\x9f\xd0\xa0\xd0\x98\xd0\x9c\xd0\x95\xd0\xa0.example",
	    "xn--e1afmkfd.example", NULL);
	host_is("\xd0\xbf\xd1\x80\xd0\xb8\xd0\xbc\xd0\xb5\xd1\x80.example",
	    "xn--e1afmkfd.example", NULL);
	/* UTS 46's own mappings: I with dot is i and a combining dot */
	host_is("\xc4\xb0nstagram.example", "xn--instagram-5jf.example", NULL);
	host_is("\xe2\x84\xaa" "ey.example", "key.example", NULL);
	host_is("\xe2\x93\x94\xe2\x93\xa7.example", "ex.example", NULL);
	host_is("\xe2\x92\xba" "x.example", "ex.example", NULL);
	host_is("\xc2\xb5.example", "xn--xxa.example", NULL);
	host_is("\xc4\xb2" "sselmeer.example", "ijsselmeer.example", NULL);
	host_is("\xc5\xbf" "ite.example", "site.example", NULL);
	/* underscores (DNS service names) and what WHATWG allows */
	host_is("_dmarc.example.com", "_dmarc.example.com", NULL);
}
END_TEST

START_TEST(test_host_lookalikes)
{
	/* a Cyrillic a is another host, as it is for DNS */
	host_is("p\xd0\xb0ypal.example", "xn--pypal-4ve.example", NULL);
	apart("p\xd0\xb0ypal.example", "paypal.example");
	apart("\xd0\xa0\xd0\x90YPAL.example", "paypal.example");
	/* dotless i, Greek omicron, Latin alpha: never their ASCII twins */
	apart("g\xc4\xb1thub.example", "github.example");
	apart("g\xce\xbfogle.example", "google.example");
	apart("\xc9\x91pple.example", "apple.example");
	/* I with dot is not i */
	apart("\xc4\xb0nstagram.example", "instagram.example");
	/* a combining mark is not composed (no NFC): apart from u-umlaut,
	 * and from u */
	apart("bu\xcc\x88" "cher.example", "b\xc3\xbc" "cher.example");
	apart("bu\xcc\x88" "cher.example", "bucher.example");
	/* an xn-- label is kept as written, right or wrong */
	host_is("xn--pypal-4ve.example", "xn--pypal-4ve.example", NULL);
	host_is("xn--zz.example", "xn--zz.example", NULL);
}
END_TEST

START_TEST(test_host_ambiguous)
{
	/* invisible and bidi characters: form without, alt with */
	host_is("evil\xe2\x80\x8b.example", "evil.example",
	    "xn--evil-y76a.example");
	host_is("tru\xc2\xadsted.example", "trusted.example",
	    "xn--trusted-nka.example");
	host_is("a\xe2\x80\x8e" "b.example", "ab.example",
	    "xn--ab-p1t.example");
	host_is("a\xe2\x80\xae" "b.example", "ab.example",
	    "xn--ab-g4t.example");
	host_is("a\xef\xbb\xbf" "b.example", "ab.example",
	    "xn--ab-ot3n.example");
	host_is("a\xf3\xa0\x81\xb4" "b.example", "ab.example",
	    "xn--ab-h606t.example");
	/* sharp s and final sigma: IDNA 2008 keeps them, IDNA 2003 not */
	host_is("fa\xc3\x9f.de", "xn--fa-hia.de", "fass.de");
	host_is("\xcf\x83\xce\xbf\xcf\x82.example", "xn--0xagb.example",
	    "xn--0xahb.example");
	/* neither reading of one is the other's form */
	apart("fa\xc3\x9f.de", "xn--fa-hia.de.example");
}
END_TEST

START_TEST(test_host_ipv4)
{
	host_is("127.0.0.1", "127.0.0.1", NULL);
	host_is("2130706433", "127.0.0.1", NULL);
	host_is("0x7f.1", "127.0.0.1", NULL);
	host_is("0x7F000001", "127.0.0.1", NULL);
	host_is("0177.0.0.1", "127.0.0.1", NULL);
	host_is("127.1", "127.0.0.1", NULL);
	host_is("127.0.1", "127.0.0.1", NULL);
	host_is("127.0.0.1.", "127.0.0.1", NULL);
	host_is("0x", "0.0.0.0", NULL);
	host_is("1.2.3.0x4", "1.2.3.4", NULL);
	host_is("\xef\xbc\x91\xef\xbc\x92\xef\xbc\x97.1", "127.0.0.1", NULL);
	host_is("4294967295", "255.255.255.255", NULL);
	whole_is("127.1", CANON_HOST, "127.0.0.1", NULL);
	whole_is("0x7f.0.0.1", CANON_HOST, "127.0.0.1", NULL);
	/* not a number at the end: a name */
	host_is("1.example", "1.example", NULL);
	host_is("0xg.example", "0xg.example", NULL);
	host_is("example.0xg", "example.0xg", NULL);
}
END_TEST

START_TEST(test_host_ipv6)
{
	host_is("[::1]", "[::1]", NULL);
	host_is("[0:0:0:0:0:0:0:1]", "[::1]", NULL);
	host_is("[2001:DB8::1]", "[2001:db8::1]", NULL);
	host_is("[2001:db8:0:0:1:0:0:1]", "[2001:db8::1:0:0:1]", NULL);
	host_is("[::ffff:127.0.0.1]", "[::ffff:7f00:1]", NULL);
	host_is("[1::]", "[1::]", NULL);
	/* the longest run of zeros is "::", the first of two as long */
	host_is("[1:0:0:2:0:0:0:3]", "[1:0:0:2::3]", NULL);
	host_is("[1:0:0:2:0:0:3:4]", "[1::2:0:0:3:4]", NULL);
	host_is("[1:0:2:3:4:5:6:7]", "[1:0:2:3:4:5:6:7]", NULL);
	host_is("[::]", "[::]", NULL);
	same("[0:0::1]", "[::0:1]");
}
END_TEST

/*
 * core: URLs
 */

START_TEST(test_url_basic)
{
	url_is("HTTPS://H.EXAMPLE:443/a/./b/../c?Q=%7e#F",
	    "https://h.example/a/c?Q=%7E#F", NULL);
	url_is("https://example.com", "https://example.com/", NULL);
	url_is("http://example.com:80/", "http://example.com/", NULL);
	url_is("http://example.com:0080/x", "http://example.com/x", NULL);
	url_is("http://example.com:8080/", "http://example.com:8080/", NULL);
	url_is("ws://h.example:80/", "ws://h.example/", NULL);
	url_is("wss://h.example:443/", "wss://h.example/", NULL);
	url_is("ftp://h.example:21/", "ftp://h.example/", NULL);
	url_is("https://h.example:80/", "https://h.example:80/", NULL);
	url_is("foo://Example.COM:443/x", "foo://example.com:443/x", NULL);
	url_is("foo://h.example", "foo://h.example", NULL);
	url_is("https://h.example:/", "https://h.example/", NULL);
	/* escapes: unreserved decoded in the path, hex upper case */
	url_is("https://h/%41%7e%2d%5f/%3a%3A", "https://h/A~-_/%3A%3A", NULL);
	url_is("https://h/?a=%7e&b=%2f#%7e", "https://h/?a=%7E&b=%2F#%7E",
	    NULL);
	url_is("https://h/a b?c d#e f", "https://h/a%20b?c%20d#e%20f", NULL);
	url_is("https://h/\xc3\xbc?\xc3\xbc#\xc3\xbc",
	    "https://h/%C3%BC?%C3%BC#%C3%BC", NULL);
	url_is("https://h/50%", "https://h/50%", NULL);
	/* a decoded hex digit must not make an escape of a bare '%' (a
	 * fuzzer's find: "%2%61" would have become "%2a", which is '*') */
	url_is("https://h/%2%61", "https://h/%2%61", NULL);
	url_is("https://h/%%41%42", "https://h/%%41B", NULL);
	url_is("https://h/%%47", "https://h/%G", NULL);
	url_is("https://h/%x%61", "https://h/%xa", NULL);
	apart("https://h/%2%61", "https://h/%2a");
	url_is("https://h/?", "https://h/?", NULL);
	/* dot segments, %2e as '.' */
	url_is("https://h/a/b/..", "https://h/a/", NULL);
	url_is("https://h/a/.", "https://h/a/", NULL);
	url_is("https://h/../../x", "https://h/x", NULL);
	url_is("https://h/a/%2e%2E/b", "https://h/b", NULL);
	url_is("https://h/a/.%2e/b", "https://h/b", NULL);
	url_is("https://h//a//b", "https://h//a//b", NULL);
	/* the host, as a host */
	url_is("http://%65vil.example/", "http://evil.example/", NULL);
	url_is("http://evil%2Eexample/", "http://evil.example/", NULL);
	url_is("http://\xef\xbc\xa5XAMPLE\xef\xbc\x8e" "com/",
	    "http://example.com/", NULL);
	url_is("http://2130706433/", "http://127.0.0.1/", NULL);
	url_is("http://0x7f.1/", "http://127.0.0.1/", NULL);
	url_is("http://0177.0.0.1/", "http://127.0.0.1/", NULL);
	url_is("http://127.1", "http://127.0.0.1/", NULL);
	url_is("http://[0:0:0:0:0:0:0:1]:80/", "http://[::1]/", NULL);
	url_is("http://B\xc3\xbc" "cher.example/",
	    "http://xn--bcher-kva.example/", NULL);
	/* userinfo */
	url_is("https://user:pass@h.example/", "https://user:pass@h.example/",
	    NULL);
	url_is("https://a@b@h.example/", "https://a%40b@h.example/", NULL);
	url_is("https://us%65r@h.example/", "https://user@h.example/", NULL);
	url_is("https://user:@h.example/", "https://user@h.example/", NULL);
	url_is("https://:@h.example/", "https://h.example/", NULL);
	url_is("https://@h.example/", "https://h.example/", NULL);
	url_is("https://:pw@h.example/", "https://:pw@h.example/", NULL);
	url_is("https://u:p:q@h.example/", "https://u:p%3Aq@h.example/", NULL);
	url_is("https://trusted.example<@evil.example",
	    "https://trusted.example%3C@evil.example/", NULL);
	/* file */
	url_is("file:///etc/passwd", "file:///etc/passwd", NULL);
	url_is("file://localhost/etc/x", "file:///etc/x", NULL);
	url_is("FILE://Host.Example/x", "file://host.example/x", NULL);
	/* equivalent spellings collapse, look-alikes do not */
	same("https://Example.COM", "https://example.com:443/");
	same("https://example.com/a/../b", "HTTPS://EXAMPLE.COM/b");
	same("https://example.com/%7Euser", "https://example.com/~user");
	apart("https://example.com.evil.example/", "https://example.com/");
	apart("https://example.com@evil.example/", "https://example.com/");
	apart("https://ex\xd0\xb0mple.com/", "https://example.com/");
}
END_TEST

START_TEST(test_url_backslash)
{
	/* WHATWG reads '\' as '/' in special URLs, RFC 3986 does not */
	url_is("https://evil.example\\@trusted.example/",
	    "https://evil.example/@trusted.example/",
	    "https://evil.example%5C@trusted.example/");
	url_is("https://h.example/a\\b", "https://h.example/a/b",
	    "https://h.example/a%5Cb");
	url_is("https://h.example/attacker\\..\\shared/x",
	    "https://h.example/shared/x",
	    "https://h.example/attacker%5C..%5Cshared/x");
	/* a reading a parser refuses is no reading: '\' in its host */
	url_is("https://trusted.example\\evil", "https://trusted.example/evil",
	    NULL);
	/* in the query both read it alike */
	url_is("https://h.example/?a\\b", "https://h.example/?a%5Cb", NULL);
	/* not special: '\' is data for everyone */
	url_is("foo://h.example/a\\b", "foo://h.example/a%5Cb", NULL);
	/* WHATWG skips any run of slashes after a special scheme */
	url_is("https:evil.example", "https://evil.example/", NULL);
	url_is("https:/evil.example/x", "https://evil.example/x", NULL);
	url_is("https:///evil.example/x", "https://evil.example/x", NULL);
	url_is("https:\\\\evil.example\\path", "https://evil.example/path",
	    NULL);
	whole_is("https://evil.example\\@trusted.example/", CANON_URL,
	    "https://evil.example/@trusted.example/",
	    "https://evil.example%5C@trusted.example/");
}
END_TEST

START_TEST(test_url_encoded_slash)
{
	url_is("https://h/base/..%2fadmin", "https://h/base/..%2Fadmin",
	    "https://h/admin");
	url_is("https://h/base/..%5Cadmin", "https://h/base/..%5Cadmin",
	    "https://h/admin");
	url_is("https://h/a%2Fb", "https://h/a%2Fb", "https://h/a/b");
	url_is("https://h/a%2fb/%2e%2e%2fc", "https://h/a%2Fb/..%2Fc",
	    "https://h/a/c");
	/* an ambiguous host in a URL: the URL is ambiguous */
	url_is("https://tru\xe2\x80\x8bsted.example/",
	    "https://trusted.example/", "https://xn--trusted-2z6c.example/");
	url_is("http://fa\xc3\x9f.de/", "http://xn--fa-hia.de/",
	    "http://fass.de/");
}
END_TEST

/*
 * core: mailboxes
 */

START_TEST(test_mailbox_forms)
{
	mbox_is("attacker@evil.example", "attacker@evil.example");
	mbox_is("\"attacker\"@Evil.Example.", "attacker@evil.example");
	mbox_is("Attacker Name <attacker@evil.example>",
	    "attacker@evil.example");
	mbox_is("\"Attacker, Name\" <attacker@evil.example>",
	    "attacker@evil.example");
	mbox_is("attacker(comment)@evil.example", "attacker@evil.example");
	mbox_is("attacker@(comment)evil.example", "attacker@evil.example");
	mbox_is("(a (nested (comment))) attacker @ evil . example (c)",
	    "attacker@evil.example");
	mbox_is("john . doe @ example . com", "john.doe@example.com");
	mbox_is("\"john\".doe@example.com", "john.doe@example.com");
	mbox_is("\"john.doe\"@example.com", "john.doe@example.com");
	mbox_is("\"j\\ohn\"@example.com", "john@example.com");
	mbox_is("<a@b.example>", "a@b.example");
	mbox_is("John Q. Public <jqp@example.com>", "jqp@example.com");
	mbox_is("=?utf-8?q?J=C3=B6rg?= <j@example.com>", "j@example.com");
	mbox_is("J\xc3\xb6rg <j@example.com>", "j@example.com");
	/* quoted when it must be, with only '"' and '\' escaped */
	mbox_is("\"john doe\"@example.com", "\"john doe\"@example.com");
	mbox_is("\"a\\\"b\"@example.com", "\"a\\\"b\"@example.com");
	mbox_is("\"a\\\\b\"@example.com", "\"a\\\\b\"@example.com");
	mbox_is("\"a..b\"@example.com", "\"a..b\"@example.com");
	mbox_is("\"\"@example.com", "\"\"@example.com");
	mbox_is("\"a@b\"@example.com", "\"a@b\"@example.com");
	/* the local part's case is kept; the domain is a host */
	mbox_is("John.Doe@EXAMPLE.COM", "John.Doe@example.com");
	mbox_is("a@B\xc3\xbc" "cher.example.", "a@xn--bcher-kva.example");
	mbox_is("a@2130706433", "a@127.0.0.1");
	mbox_is("a@[1.2.3.4]", "a@[1.2.3.4]");
	mbox_is("a@[001.002.003.004]", "a@[1.2.3.4]");
	mbox_is("a@[IPv6:0::1]", "a@[IPv6:::1]");
	mbox_is("J\xc3\xb6rg@example.com", "J\xc3\xb6rg@example.com");
	mbox_is("+15551234567@sms.example", "+15551234567@sms.example");
	/* Gmail's dots and +tags are the receiver's business */
	apart("john.doe@gmail.example", "johndoe@gmail.example");
	apart("john+x@gmail.example", "john@gmail.example");
	/* equivalent spellings collapse */
	same("\"attacker\"@Evil.Example.", "attacker@evil.example");
	same("Attacker Name <attacker@evil.example>", "attacker@evil.example");
	same("attacker(comment)@evil.example", "attacker@evil.example");
	same("mailto:Attacker@EVIL.example", "Attacker@evil.example");
	same("a@\xef\xbd\x85vil.example", "a@evil.example");
	/* look-alikes and other local parts do not */
	apart("Attacker@evil.example", "attacker@evil.example");
	apart("attacker@\xd0\xb5vil.example", "attacker@evil.example");
	apart("attacker@evil.example.com", "attacker@evil.example");
	apart("\"attacker \"@evil.example", "attacker@evil.example");
}
END_TEST

START_TEST(test_mailbox_whole)
{
	whole_is("  attacker@evil.example\t", CANON_MAILBOX,
	    "attacker@evil.example", NULL);
	whole_is("mailto:attacker@evil.example", CANON_MAILBOX,
	    "attacker@evil.example", NULL);
	whole_is("MAILTO:Attacker@Evil.Example", CANON_MAILBOX,
	    "Attacker@evil.example", NULL);
	whole_is("mailto:%61ttacker@evil.example", CANON_MAILBOX,
	    "attacker@evil.example", NULL);
	whole_is("a@evil\xe2\x80\x8b.example", CANON_MAILBOX, "a@evil.example",
	    "a@xn--evil-y76a.example");
	/* not one identity: a query, a list, no mailbox */
	whole_not("mailto:a@x.example?cc=b@y.example");
	whole_not("mailto:a@x.example?subject=hi");
	whole_not("mailto:a@x.example,b@y.example");
	whole_not("a@x.example, b@y.example");
	whole_not("@handle");
	whole_not("a@b@c.example");
	whole_not("Smith, John <j@x.example>");
	whole_not("evil@x.example <victim@trusted.example>");
	whole_not("<a@b.example> <c@d.example>");
	whole_not("group: a@b.example;");
	whole_not("<@route.example:a@b.example>");
	whole_not("a@b.example\r\nBcc: c@d.example");
	/* what no mailto is */
	whole_err("mailto:nobody", -BNC_ERR_BAD_FORMAT);
	whole_err("mailto:%zz@x.example", -BNC_ERR_BAD_FORMAT);
}
END_TEST

START_TEST(test_addrlist)
{
	struct canon_id *ids;
	size_t n;
	const char *l;

	l = "a@x.example, \"B\" <b@y.example>; c(d)@z.example";
	ck_assert_int_eq(canon_addrlist(l, strlen(l), 8, &ids, &n), 3);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(ids[0].form, "a@x.example");
	ck_assert_str_eq(ids[1].form, "b@y.example");
	ck_assert_str_eq(ids[2].form, "c@z.example");
	ck_assert_int_eq(strncmp(l + ids[1].off, "\"B\" <b@y.example>",
	    ids[1].len), 0);
	canon_ids_free(ids, n);
	/* separators inside quotes, comments and angle brackets */
	l = "\"a,b\"@x.example, (c;d) <e@f.example>";
	ck_assert_int_eq(canon_addrlist(l, strlen(l), 8, &ids, &n), 2);
	ck_assert_str_eq(ids[0].form, "\"a,b\"@x.example");
	ck_assert_str_eq(ids[1].form, "e@f.example");
	canon_ids_free(ids, n);
	/* empty elements are skipped */
	l = "a@x.example,,b@y.example,";
	ck_assert_int_eq(canon_addrlist(l, strlen(l), 8, &ids, &n), 2);
	canon_ids_free(ids, n);
	/* one part that is not a mailbox: 0, nothing returned */
	l = "a@x.example, hello";
	ck_assert_int_eq(canon_addrlist(l, strlen(l), 8, &ids, &n), 0);
	ck_assert_ptr_null(ids);
	ck_assert_uint_eq(n, 0);
	l = "Smith, John <j@x.example>";
	ck_assert_int_eq(canon_addrlist(l, strlen(l), 8, &ids, &n), 0);
	l = "undisclosed-recipients:;";
	ck_assert_int_eq(canon_addrlist(l, strlen(l), 8, &ids, &n), 0);
	ck_assert_int_eq(canon_addrlist("", 0, 8, &ids, &n), 0);
	ck_assert_int_eq(canon_addrlist(" , ", 3, 8, &ids, &n), 0);
}
END_TEST

/*
 * core: phones, IBANs, scheme addresses
 */

START_TEST(test_phone)
{
	struct buf *o = buf_new();

	whole_is("+1 (555) 123-4567", CANON_PHONE, "+15551234567", NULL);
	whole_is("+15551234567", CANON_PHONE, "+15551234567", NULL);
	whole_is("+1-555-123-4567", CANON_PHONE, "+15551234567", NULL);
	whole_is("+1.555.123.4567", CANON_PHONE, "+15551234567", NULL);
	whole_is("+44 (0)20 7946 0958", CANON_PHONE, "+442079460958", NULL);
	whole_is("+44 20 7946 0958", CANON_PHONE, "+442079460958", NULL);
	whole_is("tel:+1-555-123-4567", CANON_PHONE, "+15551234567", NULL);
	whole_is("TEL:+15551234567", CANON_PHONE, "+15551234567", NULL);
	whole_is("sms:+15551234567", CANON_PHONE, "+15551234567", NULL);
	whole_is("whatsapp:+15551234567", CANON_PHONE, "+15551234567", NULL);
	same("+1 (555) 123-4567", "tel:+15551234567");
	apart("+1 555 123 4567", "+1 555 123 4568");
	/* a "(0)" that is not right after the country code is dialled */
	whole_is("+1 555 (0) 12 3456", CANON_PHONE, "+15550123456", NULL);
	/* two separators in a row, none after '+', no '+' */
	whole_not("+1  555 123 4567");
	whole_not("+1 -555 123 4567");
	whole_not("+ 1 555 123 4567");
	whole_not("+1 (555 123 4567");
	whole_not("+1 (555) (123) 4567");
	whole_not("+1 555 123 4567-");
	whole_not("15551234567");
	/* a phone once its escapes are read (a fuzzer's find) */
	whole_is("tel:+12345678901%3456", CANON_PHONE, "+12345678901456",
	    NULL);
	SCAN("[tel:+12345678901%3456]", "P +12345678901456");
	whole_is("tel:911", CANON_ADDR, "tel:911", NULL);
	whole_is("sms:12345", CANON_ADDR, "sms:12345", NULL);
	ck_assert_int_eq(canon_phone("tel:+1 (555) 123-4567", 21, o), 0);
	ck_assert_str_eq((const char *)buf_ptr(o), "+15551234567");
	ck_assert_int_lt(canon_phone("555-1234", 8, o), 0);
	buf_free(o);
}
END_TEST

START_TEST(test_iban)
{
	struct buf *o = buf_new();

	whole_is("DE89 3704 0044 0532 0130 00", CANON_IBAN,
	    "DE89370400440532013000", NULL);
	whole_is("DE89370400440532013000", CANON_IBAN,
	    "DE89370400440532013000", NULL);
	whole_is("de89 3704 0044 0532 0130 00", CANON_IBAN,
	    "DE89370400440532013000", NULL);
	whole_is("GB82 WEST 1234 5698 7654 32", CANON_IBAN,
	    "GB82WEST12345698765432", NULL);
	whole_is("FR14 2004 1010 0505 0001 3M02 606", CANON_IBAN,
	    "FR1420041010050500013M02606", NULL);
	whole_is("MT84 MALT 0110 0001 2345 MTLC AST0 01S", CANON_IBAN,
	    "MT84MALT011000012345MTLCAST001S", NULL);
	whole_is("BE68 5390 0754 7034", CANON_IBAN, "BE68539007547034", NULL);
	whole_is("CH93 0076 2011 6238 5295 7", CANON_IBAN,
	    "CH9300762011623852957", NULL);
	same("gb82west12345698765432", "GB82 WEST 1234 5698 7654 32");
	/* a wrong check digit, a wrong length, an unknown country */
	whole_not("DE89 3704 0044 0532 0130 01");
	whole_not("GB82 WEST 1234 5698 7654 33");
	whole_not("DE89 3704 0044 0532 0130 0");
	whole_not("DE89 3704 0044 0532 0130 000");
	whole_not("ZZ89 3704 0044 0532 0130 00");
	/* groups of four or none, one space between */
	whole_not("DE89 37040044 0532013000");
	whole_not("DE89  3704 0044 0532 0130 00");
	whole_not("DE 89 3704 0044 0532 0130 00");
	ck_assert_int_eq(canon_iban("DE89 3704 0044 0532 0130 00", 27, o), 0);
	ck_assert_str_eq((const char *)buf_ptr(o), "DE89370400440532013000");
	buf_reset(o);
	ck_assert_int_lt(canon_iban("DE89 3704 0044 0532 0130 00 ", 28, o),
	    0);
	ck_assert_uint_eq(buf_len(o), 0);
	buf_free(o);
}
END_TEST

START_TEST(test_scheme_addr)
{
	whole_is("slack:#general", CANON_ADDR, "slack:#general", NULL);
	whole_is("SLACK:#general", CANON_ADDR, "slack:#general", NULL);
	whole_is("xmpp:Alice@Example.COM", CANON_ADDR, "xmpp:Alice@example.com",
	    NULL);
	whole_is("sip:bob@Biloxi.Example;transport=tcp", CANON_ADDR,
	    "sip:bob@biloxi.example;transport=tcp", NULL);
	whole_is("skype:echo%31%32%33", CANON_ADDR, "skype:echo123", NULL);
	whole_is("matrix:u/alice:example.org", CANON_ADDR,
	    "matrix:u/alice:example.org", NULL);
	same("xmpp:alice@EXAMPLE.com.", "xmpp:alice@example.com");
	/* escapes are normalised before the domain is read (a fuzzer's
	 * find: the form must read as itself) */
	whole_is("xmpp:Alice@Exa%6Dple.COM", CANON_ADDR,
	    "xmpp:Alice@example.com", NULL);
	same("xmpp:Alice@Exao%31", "xmpp:Alice@exao1");
	apart("slack:#General", "slack:#general");
	whole_not("slack:");
	whole_not("nosuch:thing");
}
END_TEST

START_TEST(test_whole_misc)
{
	whole_is("example.com", CANON_HOST, "example.com", NULL);
	whole_is(" Example.COM. ", CANON_HOST, "example.com", NULL);
	whole_is("[::1]", CANON_HOST, "[::1]", NULL);
	whole_is("127.1", CANON_HOST, "127.0.0.1", NULL);
	whole_is("https://example.com", CANON_URL, "https://example.com/",
	    NULL);
	whole_is("foo://example.com/x", CANON_URL, "foo://example.com/x", NULL);
	/* "scheme://" is a URL whatever the scheme (a fuzzer's find) */
	whole_is("mailto://x.example?cc", CANON_URL, "mailto://x.example?cc",
	    NULL);
	SCAN("mailto://x.example?cc", "U mailto://x.example?cc");
	/* a word, a number, prose, a host with a port or a path */
	whole_not("");
	whole_not("   ");
	whole_not("hello");
	whole_not("localhost");
	whole_not("Hello.");
	whole_not("XN--BCHER-Kle.");	/* a fuzzer's find */
	whole_not("a.\xe2\x80\x8b");
	whole_is("\xe4\xbe\x8b\xe3\x81\x88\xe3\x80\x82\xe3\x83\x86"
	    "\xe3\x82\xb9\xe3\x83\x88", CANON_HOST, "xn--r8jz45g.xn--zckzah",
	    NULL);
	whole_not("2130706433");
	whole_not("hello world.example");
	whole_not("example.com:8080");
	whole_not("example.com/path");
	whole_not("nosuch:thing");
	/* a URL with white space inside is one place to a WHATWG parser,
	 * two to a receiver that splits on spaces: no single identity */
	whole_not("https://wiki.corp.example/x https://evil.example/");
	whole_not("slack:#general  slack:#random");
	/* another identity beside it (red team): no single one */
	whole_not("alice@corp.example (leak@evil.example)");
	whole_not("\"leak@evil.example\" <alice@corp.example>");
	whole_not("https://wiki.corp.example/x,https://new.example/");
	whole_not("https://a.example/?next=https://b.example/");
	/* the same target percent-encoded, once, twice or in part, as a
	 * redirect decodes it (red team: regress/redteam/) */
	whole_not("https://a.example/r?next=https%3A%2F%2Fb.example%2F");
	whole_not("https://a.example/r?next=https%3a%2f%2fb.example");
	whole_not("https://a.example/r?next=https%253A%252F%252Fb.example");
	whole_not("https://a.example/r?next=https:%2F%2Fb.example");
	whole_not("https://a.example/out/https%3A%2F%2Fb.example");
	whole_not("https://a.example/r#https%3A//b.example");
	whole_not("https://a.example/r?next=//b.example/");
	whole_not("https://a.example/r?a=1&next=%2F%2Fb.example");
	whole_is("https://a.example/a//b", CANON_URL, "https://a.example/a//b",
	    NULL);
	/* BNC_URI_DECODE_ROUNDS (3) rounds and not one more, and an
	 * escaped ':' or '/' alone is no target */
	whole_not("https://a.example/r?n=https%25253A%25252F%25252Fb.example");
	whole_is("https://a.example/r?n=https%2525253A%2525252F%2525252Fb.example",
	    CANON_URL,
	    "https://a.example/r?n=https%2525253A%2525252F%2525252Fb.example",
	    NULL);
	whole_is("https://a.example/r?q=a%3Ab%2Fc", CANON_URL,
	    "https://a.example/r?q=a%3Ab%2Fc", NULL);
	whole_is("Alice (at work) <alice@corp.example>", CANON_MAILBOX,
	    "alice@corp.example", NULL);
	whole_is("https://a.example/x%20y", CANON_URL,
	    "https://a.example/x%20y", NULL);
	/* it starts as a URL and is none: an error, never 0 */
	whole_err("https://exa mple.com/", -BNC_ERR_BAD_FORMAT);
	whole_err("https://", -BNC_ERR_BAD_FORMAT);
	whole_err("http://example.com:99999/", -BNC_ERR_BAD_FORMAT);
}
END_TEST

/*
 * core: the scanner
 */

START_TEST(test_scan_prose)
{
	SCAN("Mail attacker@evil.example. Then see https://docs.example/p.",
	    "M attacker@evil.example", "U https://docs.example/p");
	SCAN("write to \"john doe\"@x.example, or Name <bob@corp.example>; "
	    "attacker(comment)@evil.example",
	    "M \"john doe\"@x.example", "M bob@corp.example",
	    "M attacker@evil.example");
	SCAN("\"attacker\"@Evil.Example. Attacker Name "
	    "<attacker@evil.example>", "M attacker@evil.example",
	    "M attacker@evil.example");
	SCAN("(https://x.example/a_(b)) and [link](https://y.example/p), "
	    "<https://z.example/q>.", "U https://x.example/a_(b)",
	    "U https://y.example/p", "U https://z.example/q");
	SCAN("\"https://x.example/a\" 'https://y.example/b' "
	    "`https://z.example/c`", "U https://x.example/a",
	    "U https://y.example/b", "U https://z.example/c");
	SCAN("call +1 (555) 123-4567 or tel:+44-20-7946-0958, fax "
	    "+49 (0)30 1234567.", "P +15551234567", "P +442079460958",
	    "P +49301234567");
	SCAN("IBAN: DE89 3704 0044 0532 0130 00, and "
	    "gb82west12345698765432.", "I DE89370400440532013000",
	    "I GB82WEST12345698765432");
	SCAN("slack:#general, sms:12345 and xmpp:Alice@Example.COM",
	    "A slack:#general", "A sms:12345", "A xmpp:Alice@example.com");
	SCAN("(slack:#general) [sms:12345] \xe2\x80\x9cskype:echo\xe2\x80\x9d "
	    "=im:bob", "A slack:#general", "A sms:12345", "A skype:echo",
	    "A im:bob");
	SCAN("\xe2\x80\x9c" "a@b.example\xe2\x80\x9d\xe3\x80\x82",
	    "M a@b.example");
	SCAN("user@localhost and icon@2x.png", "M user@localhost",
	    "M icon@2x.png");
	/* bare hosts are file names in prose */
	SCAN_NONE("see README.md, app.py and example.com or www.example.org");
	SCAN_NONE("3+4 = 7, x+1, +12345, +1234567890123456, 1+5551234567");
	SCAN_NONE("the http: prefix, mailto: links, http:// alone");
	SCAN_NONE("DE89 3704 0044 0532 0130 01 is no IBAN");
	SCAN_NONE("");
}
END_TEST

START_TEST(test_scan_mailto)
{
	SCAN("mailto:a@x.example?cc=b@y.example&subject=hi&bcc=c@z.example",
	    "M a@x.example", "M b@y.example", "M c@z.example");
	SCAN("mailto:a@x.example,b@y.example", "M a@x.example",
	    "M b@y.example");
	SCAN("mailto:%61@x.example?To=d%40w.example", "M a@x.example",
	    "M d@w.example");
	/* a field that names no recipient is text, scanned as text */
	SCAN("mailto:a@x.example?body=ask%20e@v.example",
	    "M a@x.example", "M ask%20e@v.example");
	/* a part that is no mailbox list is scanned as text too */
	SCAN("mailto:a@x.example,junk%zz,b@y.example", "M a@x.example",
	    "M b@y.example");
	span_is("<mailto:a@x.example?cc=z>", "a@x.example");
	span_is("mailto:%61@x.example", "%61@x.example");
	/* a list that fails halfway leaves none of its mailboxes (a
	 * fuzzer's find) */
	{
		const char *t = "a@b.example mailto:c@d.example;e(((((((((("
		    "))))))))))@f.example";
		struct canon_id *ids;
		size_t n;

		ck_assert_int_eq(canon_scan(t, strlen(t), 8, &ids, &n),
		    -BNC_ERR_TOO_DEEP);
		ck_assert_uint_eq(n, 1);
		ck_assert_str_eq(ids[0].form, "a@b.example");
		canon_ids_free(ids, n);
	}
	/* mailboxes of one piece have their own spans (a fuzzer's find) */
	{
		const char *t = "mailto:a@x.example;b%40y.example";
		struct canon_id *ids;
		size_t n;

		ck_assert_int_eq(canon_scan(t, strlen(t), 8, &ids, &n), 0);
		ck_assert_uint_eq(n, 2);
		ck_assert_str_eq(ids[1].form, "b@y.example");
		ck_assert_uint_eq(ids[0].off, 7);
		ck_assert_uint_eq(ids[0].len, 11);
		ck_assert_uint_eq(ids[1].off, 19);
		ck_assert_uint_eq(ids[1].len, 13);
		canon_ids_free(ids, n);
	}
}
END_TEST

START_TEST(test_scan_attacks)
{
	/* the reading a receiver acts on, both when they differ */
	SCAN("https://evil.example\\@trusted.example/ hi",
	    "U https://evil.example/@trusted.example/|"
	    "https://evil.example%5C@trusted.example/");
	SCAN("https://trusted.example<@evil.example",
	    "U https://trusted.example%3C@evil.example/");
	SCAN("go to https://h.example/base/..%2fadmin now",
	    "U https://h.example/base/..%2Fadmin|https://h.example/admin");
	SCAN("https:\\\\evil.example\\x and https:/e2.example",
	    "U https://evil.example/x", "U https://e2.example/");
	SCAN("https://ev\xe2\x80\x8bil.example/ and a@ev\xe2\x80\x8bil.example",
	    "U https://evil.example/|https://xn--evil-w76a.example/",
	    "M a@evil.example|a@xn--evil-w76a.example");
	SCAN("http://\xe4\xbe\x8b\xe3\x81\x88\xe3\x80\x82\xe3\x83\x86\xe3\x82"
	    "\xb9\xe3\x83\x88/x", "U http://xn--r8jz45g.xn--zckzah/x");
	/* one inside another is the outer one's */
	SCAN("https://x.example/?to=a@b.example&n=+15551234567",
	    "U https://x.example/?to=a@b.example&n=+15551234567");
	/* a phone or IBAN inside a word is none; in a mailbox, the mailbox */
	SCAN("+15551234567@sms.example de89370400440532013000@x.example",
	    "M +15551234567@sms.example", "M de89370400440532013000@x.example");
	SCAN_NONE("x+15551234567 ADE89370400440532013000 +15551234567x");
	/* a scheme inside a word is no scheme (but a phone is a phone) */
	SCAN("hotel:+15551234567 xtel:1 xmailto:a (tel:+15551234567)",
	    "P +15551234567", "P +15551234567");
	span_is("hotel:+15551234567", "+15551234567");
	SCAN_NONE("xtel:1 xslack:#general");
}
END_TEST

/*
 * A scheme-relative URL ("//host/x") is fetched with the page's or the
 * mail client's scheme: it is read as https: (SECURITY.md, "Links in
 * what a message says").
 */
START_TEST(test_scan_relative)
{
	SCAN("<img src=\"//Evil.Example/t.gif?d=s3cret\">",
	    "U https://evil.example/t.gif?d=s3cret");
	SCAN("![x](//evil.example/p.png) and url(//cdn.example:8080/a) "
	    "src=//[::1]/x", "U https://evil.example/p.png",
	    "U https://cdn.example:8080/a", "U https://[::1]/x");
	SCAN("\t//ev\xe2\x80\x8bil.example/x",
	    "U https://evil.example/x|https://xn--evil-w76a.example/x");
	/* a backslash for either slash: WHATWG's reading, and UNC's */
	SCAN("<img src=\"/\\Evil.Example/t.gif\"> \\\\srv.corp\\s\\t.png "
	    "(\\/b.example/x)", "U https://evil.example/t.gif",
	    "U https://srv.corp/s/t.png", "U https://b.example/x");
	SCAN_NONE("C:\\Users\\a.b x\\\\y.example \\\\\\z.example");
	whole_is("\\\\evil.example\\share", CANON_URL,
	    "https://evil.example/share", NULL);
	span_is("see (//evil.example/a).", "//evil.example/a");
	span_is("'//evil.example?q=1'", "//evil.example?q=1");
	/* a comment, a path, a single label, "///" and slashes inside a
	 * word are none; "://" stays scan_colon's */
	SCAN_NONE("// note: x.y, //TODO fix, a//b.example, ///etc/x.conf");
	SCAN_NONE("x//evil.example //home/user/x.txt");
	SCAN("https://a.example//b.example/", "U https://a.example//b.example/");
	whole_is("//Evil.Example/t.gif", CANON_URL,
	    "https://evil.example/t.gif", NULL);
	whole_is(" //[::1]:8443 ", CANON_URL, "https://[::1]:8443/", NULL);
	whole_not("//home/user/x.txt");
	/* a mailbox to a mail server, a URL to a fetcher */
	whole_not("//corp.example?@evil.example");
	whole_is("//bob@evil.example/x", CANON_URL,
	    "https://bob@evil.example/x", NULL);
	whole_not("///evil.example/x");
	whole_err("//evil.example:99999/", -BNC_ERR_BAD_FORMAT);
}
END_TEST

START_TEST(test_scan_normalised)
{
	/* what taint_normalise leaves: lower case, one space */
	SCAN("mail attacker@evil.example. iban de89 3704 0044 0532 0130 00 "
	    "and https://docs.example/a. tel +1 (555) 123-4567.",
	    "M attacker@evil.example", "I DE89370400440532013000",
	    "U https://docs.example/a", "P +15551234567");
	SCAN("mailto:attacker@evil.com", "M attacker@evil.com");
}
END_TEST

START_TEST(test_scan_spans)
{
	span_is("x attacker(c)@evil.example. y", "attacker(c)@evil.example");
	span_is("x \"a b\"@evil.example y", "\"a b\"@evil.example");
	span_is("(see https://x.example/p)", "https://x.example/p");
	span_is("call +1 (555) 123-4567.", "+1 (555) 123-4567");
	span_is("tel:+15551234567;ext=1", "+15551234567");
	/* a scheme address ends at white space, its phone too (a fuzzer's
	 * find); a phone alone runs on over single spaces */
	span_is("tel:+44-20-7946-0958 1234567", "+44-20-7946-0958");
	span_is("+44 20 7946 0958 1", "+44 20 7946 0958 1");
	span_is("IBAN DE89 3704 0044 0532 0130 00.",
	    "DE89 3704 0044 0532 0130 00");
	span_is("to slack:#general.", "slack:#general");
}
END_TEST

START_TEST(test_scan_agrees_whole)
{
	static const char *const vals[] = {
		"\"attacker\"@Evil.Example.", "https://Evil.Example/a/../b",
		"+1 (555) 123-4567", "DE89 3704 0044 0532 0130 00",
		"slack:#general", "a@b\xc3\xbc" "cher.example",
		"https://evil.example\\@trusted.example/",
	};
	struct canon_id *ids, w;
	size_t i, n;

	/* an identity alone in text is what it is as a whole value */
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		ck_assert_int_eq(canon_scan(vals[i], strlen(vals[i]), 4,
		    &ids, &n), 0);
		ck_assert_msg(n == 1, "%s: %zu found", vals[i], n);
		ck_assert_int_eq(canon_whole(vals[i], strlen(vals[i]), &w), 1);
		ck_assert_int_eq(ids[0].kind, w.kind);
		ck_assert_str_eq(ids[0].form, w.form);
		ck_assert_str_eq(S(ids[0].alt), S(w.alt));
		canon_id_clear(&w);
		canon_ids_free(ids, n);
	}
}
END_TEST

/*
 * core: canon_visible
 */

START_TEST(test_visible)
{
	VIS("a@b.example", "a@b.example");
	VIS("Name <a@b.example>", "Name <a@b.example>");
	VIS("J\xc3\xb6rg \xe4\xbe\x8b", "J\xc3\xb6rg \xe4\xbe\x8b");
	/* C0, DEL, C1 */
	VIS("a\x01" "b\tc\nd\x7f" "e\xc2\x85" "f\xc2\x9f",
	    "a<U+0001>b<U+0009>c<U+000A>d<U+007F>e<U+0085>f<U+009F>");
	VIS("a\0b", "a<U+0000>b");
	/* white space that is not U+0020 */
	VIS("a\xc2\xa0" "b\xe3\x80\x80" "c\xe2\x80\xaf" "d",
	    "a<U+00A0>b<U+3000>c<U+202F>d");
	/* zero-width space, joiners, soft hyphen, word joiner, BOM */
	VIS("a\xe2\x80\x8b" "b\xe2\x80\x8c" "c\xe2\x80\x8d" "d\xc2\xad"
	    "e\xe2\x81\xa0" "f\xef\xbb\xbf" "g",
	    "a<U+200B>b<U+200C>c<U+200D>d<U+00AD>e<U+2060>f<U+FEFF>g");
	/* bidi: LRM, RLM, embeddings, overrides, isolates, ALM */
	VIS("\xe2\x80\x8e\xe2\x80\x8f\xe2\x80\xaa\xe2\x80\xae\xe2\x81\xa6"
	    "\xe2\x81\xa9\xd8\x9c",
	    "<U+200E><U+200F><U+202A><U+202E><U+2066><U+2069><U+061C>");
	/* variation selectors, tags, Hangul fillers, CGJ */
	VIS("\xef\xb8\x8f\xf3\xa0\x84\x80\xf3\xa0\x81\x81\xf3\xa0\x80\x81"
	    "\xe1\x85\x9f\xe3\x85\xa4\xef\xbe\xa0\xcd\x8f",
	    "<U+FE0F><U+E0100><U+E0041><U+E0001><U+115F><U+3164><U+FFA0>"
	    "<U+034F>");
	/* bytes that are not UTF-8 */
	VIS("a\xff" "b\xc3" "c\xed\xa0\x80",
	    "a<0xFF>b<0xC3>c<0xED><0xA0><0x80>");
	/* "<U+" and "<0x" in the text cannot pass for a shown character */
	VIS("<U+200B>", "<U+003C>U+200B>");
	VIS("<0xFF>", "<U+003C>0xFF>");
	VIS("<U", "<U");
}
END_TEST

/*
 * limits
 */

/* "https://h.example/" and a path of 'a' to n bytes in all */
static char *
long_url(size_t n)
{
	char *s = rep('a', n);

	memcpy(s, "https://h.example/", 18);
	return s;
}

START_TEST(test_limit_ident)
{
	struct buf *o = buf_new();
	struct canon_id *ids, id;
	size_t n;
	char *s;

	s = long_url(BNC_CANON_IDENT_MAX);
	ck_assert_int_eq(canon_url(s, strlen(s), o, NULL, NULL), 0);
	ck_assert_uint_eq(buf_len(o), BNC_CANON_IDENT_MAX + 1);
	ck_assert_int_eq(canon_whole(s, strlen(s), &id), 1);
	canon_id_clear(&id);
	ck_assert_int_eq(canon_scan(s, strlen(s), 4, &ids, &n), 0);
	ck_assert_uint_eq(n, 1);
	canon_ids_free(ids, n);
	free(s);
	s = long_url(BNC_CANON_IDENT_MAX + 1);
	buf_reset(o);
	ck_assert_int_eq(canon_url(s, strlen(s), o, NULL, NULL),
	    -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(o), 0);
	whole_err(s, -BNC_ERR_TOO_LARGE);
	/* in text: the scan stops, keeping what came before */
	{
		size_t tl = strlen(s) + 16;
		char *t = malloc(tl + 1);

		snprintf(t, tl + 1, "a@b.example %s", s);
		ck_assert_int_eq(canon_scan(t, strlen(t), 4, &ids, &n),
		    -BNC_ERR_TOO_LARGE);
		ck_assert_uint_eq(n, 1);
		ck_assert_str_eq(ids[0].form, "a@b.example");
		canon_ids_free(ids, n);
		free(t);
	}
	free(s);
	/* a whole value is judged only up to the bound */
	s = rep(' ', BNC_CANON_IDENT_MAX + 10);
	memcpy(s + 5, "a@b.example", 11);
	ck_assert_int_eq(canon_whole(s, strlen(s), &id), 1);
	ck_assert_str_eq(id.form, "a@b.example");
	ck_assert_uint_eq(id.off, 5);
	ck_assert_uint_eq(id.len, 11);
	canon_id_clear(&id);
	free(s);
	buf_free(o);
}
END_TEST

/* A local part of n 'a' (quoted when q) at "@b.example". */
static char *
local_of(size_t n, int q)
{
	char *s = malloc(n + 16);

	ck_assert_ptr_nonnull(s);
	memset(s, 'a', n + 2);
	if (q) {
		s[0] = '"';
		s[n + 1] = '"';
	}
	strcpy(s + n + (q ? 2 : 0), "@b.example");
	return s;
}

START_TEST(test_limit_local)
{
	struct canon_id *ids;
	struct buf *o = buf_new();
	size_t n;
	char *s, *want;

	/* BNC_CANON_LOCAL_MAX bytes: a mailbox, as written or quoted */
	s = local_of(BNC_CANON_LOCAL_MAX, 0);
	ck_assert_int_eq(canon_mailbox(s, strlen(s), o), 0);
	ck_assert_str_eq((const char *)buf_ptr(o), s);
	ck_assert_int_eq(canon_scan(s, strlen(s), 4, &ids, &n), 0);
	ck_assert_uint_eq(n, 1);
	canon_ids_free(ids, n);
	want = s;
	s = local_of(BNC_CANON_LOCAL_MAX, 1);
	mbox_is(s, want);
	{
		char w0[BNC_CANON_LOCAL_MAX + 16];
		const char *w[2] = { w0, NULL };

		snprintf(w0, sizeof(w0), "M %s", want);
		scan_is_v(s, strlen(s), w);
	}
	free(s);
	free(want);
	/* one more: too large as a value, no mailbox in text */
	s = local_of(BNC_CANON_LOCAL_MAX + 1, 0);
	mbox_err(s, strlen(s), -BNC_ERR_TOO_LARGE);
	whole_err(s, -BNC_ERR_TOO_LARGE);
	ck_assert_int_eq(canon_scan(s, strlen(s), 4, &ids, &n), 0);
	ck_assert_uint_eq(n, 0);
	free(s);
	s = local_of(BNC_CANON_LOCAL_MAX + 1, 1);
	mbox_err(s, strlen(s), -BNC_ERR_TOO_LARGE);
	ck_assert_int_eq(canon_scan(s, strlen(s), 4, &ids, &n), 0);
	ck_assert_uint_eq(n, 0);
	free(s);
	buf_free(o);
}
END_TEST

/* n labels "a.a...a", with a trailing dot when dot. */
static char *
labels_of(size_t n, int dot)
{
	char *s = rep('a', 2 * n);
	size_t i;

	for (i = 1; i < 2 * n; i += 2)
		s[i] = '.';
	if (!dot)
		s[2 * n - 1] = '\0';
	return s;
}

START_TEST(test_limit_host)
{
	char *s, *t;

	/* 127 labels, 253 bytes: both limits at once; a trailing dot does
	 * not count */
	s = labels_of(BNC_CANON_LABELS_MAX, 0);
	ck_assert_uint_eq(strlen(s), BNC_CANON_HOST_MAX);
	host_is(s, s, NULL);
	t = labels_of(BNC_CANON_LABELS_MAX, 1);
	host_is(t, s, NULL);
	free(t);
	free(s);
	/* one label more */
	s = labels_of(BNC_CANON_LABELS_MAX + 1, 0);
	host_err(s, strlen(s));
	free(s);
	/* one byte more, in 127 labels */
	s = labels_of(BNC_CANON_LABELS_MAX, 0);
	t = malloc(strlen(s) + 2);
	t[0] = 'b';
	strcpy(t + 1, s);
	host_err(t, strlen(t));
	free(t);
	free(s);
	/* as written, 60 letters of two bytes each; as an A-label, far more
	 * than a label may hold */
	s = malloc(2 * 60 + 16);
	for (t = s; t < s + 2 * 60; t += 2)
		memcpy(t, "\xc3\xbc", 2);
	strcpy(t, ".example");
	host_err(s, strlen(s));
	free(s);
}
END_TEST

START_TEST(test_limit_label)
{
	char *s, *want;

	/* 63 bytes: the limit, as written or as an A-label */
	s = rep('a', BNC_CANON_LABEL_MAX + 8);
	memcpy(s + BNC_CANON_LABEL_MAX, ".example", 8);
	s[BNC_CANON_LABEL_MAX + 8] = '\0';
	host_is(s, s, NULL);
	free(s);
	s = rep('a', BNC_CANON_LABEL_MAX + 9);
	memcpy(s + BNC_CANON_LABEL_MAX + 1, ".example", 8);
	host_err(s, strlen(s));
	free(s);
	/* 55 letters and a u-umlaut make an A-label of 63 bytes, 56 of 64 */
	s = rep('a', 55 + 2 + 8);
	strcpy(s + 55, "\xc3\xbc.example");
	want = rep('a', 4 + 55 + 12);
	memcpy(want, "xn--", 4);
	strcpy(want + 4 + 55, "-8yf.example");
	ck_assert_uint_eq(strlen(want) - 8, BNC_CANON_LABEL_MAX);
	host_is(s, want, NULL);
	free(want);
	free(s);
	s = rep('a', 56 + 2 + 8);
	strcpy(s + 56, "\xc3\xbc.example");
	host_err(s, strlen(s));
	free(s);
}
END_TEST

START_TEST(test_limit_comments)
{
	char in[256];
	size_t i, n;
	struct canon_id *ids, id;

	/* BNC_CANON_COMMENT_DEPTH nested: fine; one more: too deep */
	n = 0;
	n += (size_t)snprintf(in + n, sizeof(in) - n, "a");
	for (i = 0; i < BNC_CANON_COMMENT_DEPTH; i++)
		in[n++] = '(';
	for (i = 0; i < BNC_CANON_COMMENT_DEPTH; i++)
		in[n++] = ')';
	n += (size_t)snprintf(in + n, sizeof(in) - n, "@b.example");
	mbox_is(in, "a@b.example");
	ck_assert_int_eq(canon_scan(in, n, 4, &ids, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(ids[0].form, "a@b.example");
	canon_ids_free(ids, n);
	n = 0;
	n += (size_t)snprintf(in + n, sizeof(in) - n, "a");
	for (i = 0; i <= BNC_CANON_COMMENT_DEPTH; i++)
		in[n++] = '(';
	for (i = 0; i <= BNC_CANON_COMMENT_DEPTH; i++)
		in[n++] = ')';
	n += (size_t)snprintf(in + n, sizeof(in) - n, "@b.example");
	mbox_err(in, n, -BNC_ERR_TOO_DEEP);
	ck_assert_int_eq(canon_whole(in, n, &id), -BNC_ERR_TOO_DEEP);
	ck_assert_int_eq(canon_scan(in, n, 4, &ids, &i), -BNC_ERR_TOO_DEEP);
	ck_assert_uint_eq(i, 0);
}
END_TEST

START_TEST(test_limit_scheme)
{
	char in[128], *s;

	s = rep('s', BNC_CANON_SCHEME_MAX);
	snprintf(in, sizeof(in), "%s://h.example/", s);
	free(s);
	url_is(in, in, NULL);
	{
		char want[140];
		const char *w[2] = { want, NULL };

		snprintf(want, sizeof(want), "U %s", in);
		scan_is_v(in, strlen(in), w);
	}
	s = rep('s', BNC_CANON_SCHEME_MAX + 1);
	snprintf(in, sizeof(in), "%s://h.example/", s);
	free(s);
	url_err(in, strlen(in));
	SCAN_NONE(in);
}
END_TEST

START_TEST(test_limit_ids)
{
	struct canon_id *ids;
	size_t n, i, len = 0;
	char *t;

	t = malloc((BNC_CANON_IDS_MAX + 1) * 8 + 1);
	ck_assert_ptr_nonnull(t);
	for (i = 0; i < BNC_CANON_IDS_MAX + 1; i++)
		len += (size_t)sprintf(t + len, "a@b.cc, ");
	/* at the limit: all of them */
	ck_assert_int_eq(canon_scan(t, len - 8, BNC_CANON_IDS_MAX, &ids, &n),
	    0);
	ck_assert_uint_eq(n, BNC_CANON_IDS_MAX);
	canon_ids_free(ids, n);
	/* one more: the first max, and the error */
	ck_assert_int_eq(canon_scan(t, len, BNC_CANON_IDS_MAX, &ids, &n),
	    -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(n, BNC_CANON_IDS_MAX);
	ck_assert_str_eq(ids[n - 1].form, "a@b.cc");
	canon_ids_free(ids, n);
	/* a larger max is capped */
	ck_assert_int_eq(canon_scan(t, len, BNC_CANON_IDS_MAX * 2, &ids, &n),
	    -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(n, BNC_CANON_IDS_MAX);
	canon_ids_free(ids, n);
	/* the caller's max: 2 of 3 */
	ck_assert_int_eq(canon_scan(t, 24, 2, &ids, &n), -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(n, 2);
	canon_ids_free(ids, n);
	ck_assert_int_eq(canon_scan(t, 16, 2, &ids, &n), 0);
	ck_assert_uint_eq(n, 2);
	canon_ids_free(ids, n);
	ck_assert_int_eq(canon_scan(t, 8, 0, &ids, &n), -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(ids);
	/* the same for an address list */
	ck_assert_int_eq(canon_addrlist(t, len - 8, BNC_CANON_IDS_MAX, &ids,
	    &n), BNC_CANON_IDS_MAX);
	canon_ids_free(ids, n);
	ck_assert_int_eq(canon_addrlist(t, len, BNC_CANON_IDS_MAX, &ids, &n),
	    -BNC_ERR_TOO_LARGE);
	ck_assert_ptr_null(ids);
	ck_assert_int_eq(canon_addrlist(t, 24, 2, &ids, &n),
	    -BNC_ERR_TOO_LARGE);
	free(t);
}
END_TEST

START_TEST(test_limit_punycode)
{
	uint32_t cp[BNC_CANON_PUNY_MAX + 1], back[BNC_CANON_PUNY_MAX + 1];
	struct buf *o = buf_new();
	size_t i, n;

	for (i = 0; i <= BNC_CANON_PUNY_MAX; i++)
		cp[i] = 0x4e00 + (i * 7919) % 20000;
	ck_assert_int_eq(canon_punycode_encode(cp, BNC_CANON_PUNY_MAX, o), 0);
	ck_assert_int_eq(canon_punycode_decode((const char *)buf_ptr(o),
	    buf_len(o) - 1, back, &n, BNC_CANON_PUNY_MAX), 0);
	ck_assert_uint_eq(n, BNC_CANON_PUNY_MAX);
	ck_assert_int_eq(memcmp(cp, back, n * sizeof(*cp)), 0);
	/* decoding into one fewer than it holds */
	ck_assert_int_eq(canon_punycode_decode((const char *)buf_ptr(o),
	    buf_len(o) - 1, back, &n, BNC_CANON_PUNY_MAX - 1),
	    -BNC_ERR_TOO_LARGE);
	buf_reset(o);
	ck_assert_int_eq(canon_punycode_encode(cp, BNC_CANON_PUNY_MAX + 1, o),
	    -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(o), 0);
	buf_free(o);
}
END_TEST

START_TEST(test_limit_phone)
{
	/* 8 and 15 digits: phones; 7 and 16: not */
	whole_is("+12345678", CANON_PHONE, "+12345678", NULL);
	whole_not("+1234567");
	whole_is("+123456789012345", CANON_PHONE, "+123456789012345", NULL);
	whole_not("+1234567890123456");
	whole_is("+1 234 567 890 123 45", CANON_PHONE, "+123456789012345",
	    NULL);
	whole_not("+1 234 567 890 123 456");
	SCAN("+12345678 +1234567 +123456789012345 +1234567890123456",
	    "P +12345678", "P +123456789012345");
}
END_TEST

START_TEST(test_limit_iban)
{
	/* the shortest (Norway, 15) and longest (Russia, 33) registered */
	whole_is("NO93 8601 1117 947", CANON_IBAN, "NO9386011117947", NULL);
	whole_is("RU02 0445 2560 0407 0281 0412 3456 7890 1", CANON_IBAN,
	    "RU0204452560040702810412345678901", NULL);
	whole_is("LC55 HEMM 0001 0001 0012 0012 0002 3015", CANON_IBAN,
	    "LC55HEMM000100010012001200023015", NULL);
	/* a character more or less than the country's length: none */
	whole_not("NO93 8601 1117 9470");
	whole_not("NO93 8601 1117 94");
	whole_not("RU02 0445 2560 0407 0281 0412 3456 7890 10");
	SCAN("NO9386011117947 NO93860111179470", "I NO9386011117947");
}
END_TEST

START_TEST(test_limit_visible)
{
	struct buf *o = buf_new();
	const char *in = "a\xe2\x80\x8b" "b";	/* "a<U+200B>b": 10 bytes */

	ck_assert_int_eq(canon_visible(in, strlen(in), 10, o), 0);
	ck_assert_str_eq((const char *)buf_ptr(o), "a<U+200B>b");
	buf_reset(o);
	ck_assert_int_eq(canon_visible(in, strlen(in), 9, o),
	    -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(o), 0);
	/* what the buffer held before stays, and does not count */
	ck_assert_int_eq(buf_put(o, "xyz", 3), 0);
	ck_assert_int_eq(canon_visible(in, strlen(in), 9, o),
	    -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(o), 3);
	ck_assert_int_eq(canon_visible(in, strlen(in), 10, o), 0);
	ck_assert_uint_eq(buf_len(o), 3 + 11);
	/* a buffer whose first bytes were consumed: restored as it was */
	buf_reset(o);
	ck_assert_int_eq(buf_put(o, "abcdef", 6), 0);
	ck_assert_int_eq(buf_consume(o, 4), 0);
	ck_assert_int_eq(canon_visible(in, strlen(in), 9, o),
	    -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(buf_len(o), 2);
	ck_assert_int_eq(memcmp(buf_ptr(o), "ef", 2), 0);
	/* an empty value fits in nothing */
	buf_reset(o);
	ck_assert_int_eq(canon_visible("", 0, 0, o), 0);
	ck_assert_uint_eq(buf_len(o), 1);
	buf_free(o);
}
END_TEST

/*
 * errors
 */

START_TEST(test_err_hosts)
{
	host_err("", 0);
	host_err(".", 1);
	host_err("a..b", 4);
	host_err(".a", 2);
	host_err("a.b..", 5);
	host_err("a b.example", 11);
	host_err("a\tb.example", 11);
	host_err("a\0b.example", 11);
	host_err("a\xc2\xa0" "b.example", 12);
	host_err("a\xe3\x80\x80" "b.example", 13);
	host_err("a\xc2\x85" "b.example", 12);
	/* what WHATWG forbids in a domain, fullwidth or not */
	host_err("a/b.example", 11);
	host_err("a%41.example", 12);
	host_err("a:80", 4);
	host_err("a@b.example", 11);
	host_err("a\\b.example", 11);
	host_err("a|b.example", 11);
	host_err("a\xef\xbc\x8f" "b.example", 13);
	host_err("a\xef\xbc\xa0" "b.example", 13);
	/* not UTF-8, a noncharacter */
	host_err("a\xff.example", 10);
	host_err("a\xed\xa0\x80.example", 12);
	host_err("a\xef\xbf\xbe.example", 12);
	/* a name that ends in a number and is no address */
	host_err("1.2.3.4.5", 9);
	host_err("999.1.1.1", 9);
	host_err("1.2.3.256", 9);
	host_err("1.2.65536", 9);
	host_err("4294967296", 10);
	host_err("example.123", 11);
	host_err("08.1.1.1", 8);
	host_err("0x100000000", 11);
	host_err("1.0x1000000", 11);
	/* IPv6 that is not */
	host_err("[::1", 4);
	host_err("[1:2:3:4:5:6:7:8:9]", 19);
	host_err("[1::2::3]", 9);
	host_err("[:1]", 4);
	host_err("[1:2:3:4:5:6:7]", 15);
	host_err("[::1.2.3]", 9);
	host_err("[::01.2.3.4]", 12);
	host_err("[::1%25eth0]", 12);
	host_err("[g::1]", 6);
	/* two kinds of ambiguity: more readings than form and alt */
	host_err("fa\xc3\x9f\xe2\x80\x8b.de", 10);
}
END_TEST

START_TEST(test_err_urls)
{
	url_err("", 0);
	url_err("example.com", 11);
	url_err("//example.com/", 14);
	url_err("1http://example.com/", 20);
	url_err("https://", 8);
	url_err("https:///", 9);
	url_err("foo:bar", 7);
	url_err("foo:///bar", 10);
	url_err("https://exa mple.com/", 21);
	url_err("https://us er@example.com/", 26);
	url_err("https://example.com\t/", 21);
	url_err("https://example.com/\n", 21);
	url_err("https://ex\x01" "ample.com/", 21);
	url_err("https://example.com/\xff", 21);
	url_err("https://example.com:x/", 22);
	url_err("https://example.com:65536/", 26);
	url_err("https://example.com:-1/", 23);
	url_err("https://[::1]x/", 15);
	url_err("https://a%2fb.example/", 22);
	url_err("https://a%zz.example/", 21);
	url_err("file://user@host/x", 18);
	url_err("file://host:21/x", 16);
	/* too many readings: '\' and an escaped slash, a host read two
	 * ways in a URL read two ways */
	url_err("https://h.example/a\\b%2fc", 25);
	url_err("https://fa\xc3\x9f.de/a%2fb", 21);
	url_err("https://ev\xe2\x80\x8bil.example\\@t.example/", 33);
	whole_err("https://h.example/a\\b%2fc", -BNC_ERR_BAD_FORMAT);
	/* in text, that stops the scan */
	{
		struct canon_id *ids;
		size_t n;
		const char *t = "a@b.example https://h.example/a\\b%2fc";

		ck_assert_int_eq(canon_scan(t, strlen(t), 4, &ids, &n),
		    -BNC_ERR_BAD_FORMAT);
		ck_assert_uint_eq(n, 1);
		canon_ids_free(ids, n);
	}
}
END_TEST

START_TEST(test_err_mailboxes)
{
	mbox_err("", 0, 0);
	mbox_err("a", 1, 0);
	mbox_err("@b.example", 10, 0);
	mbox_err("a@", 2, 0);
	mbox_err("a@b@c.example", 13, 0);
	mbox_err(".a@b.example", 12, 0);
	mbox_err("a.@b.example", 12, 0);
	mbox_err("a..b@c.example", 14, 0);
	mbox_err("a@b..example", 12, 0);
	mbox_err("a@.b.example", 12, 0);
	mbox_err("a@b.example..", 13, 0);
	mbox_err("a b@c.example", 13, 0);
	mbox_err("\"a@b.example", 12, 0);
	mbox_err("a(b@c.example", 13, 0);
	mbox_err("a)b@c.example", 13, 0);
	mbox_err("a@b.example\r\n", 13, 0);
	mbox_err("a\0b@c.example", 13, 0);
	mbox_err("a@b/c.example", 13, 0);
	mbox_err("a@[1.2.3]", 9, 0);
	mbox_err("a@[1.2.3.4.5]", 13, 0);
	mbox_err("a@[256.1.1.1]", 13, 0);
	mbox_err("a@[IPv6:::g]", 12, 0);
	mbox_err("a@[general:literal]", 19, 0);
	mbox_err("<a@b.example", 12, 0);
	mbox_err("a@b.example>", 12, 0);
	mbox_err("Name <a@b.example> x", 20, 0);
	mbox_err("Name <<a@b.example>>", 20, 0);
	mbox_err("g: a@b.example;", 15, 0);
	mbox_err("<@r.example:a@b.example>", 24, 0);
	mbox_err("\xff@b.example", 11, 0);
	/* a domain whose host is no dot-atom (a fuzzer's find: a fullwidth
	 * '(' is a host's '(', which starts a comment) */
	mbox_err("c@ab\xef\xbc\x88.example", 15, 0);
	mbox_err("c@ab\xef\xbc\x8c" "cd.example", 17, 0);
	mbox_err("a@b\xff.example", 12, 0);
	/* not a mailbox, as a whole value: 0 (not an error) */
	whole_not("a..b@c.example");
	whole_not("a@b/c.example");
}
END_TEST

START_TEST(test_err_misc)
{
	struct canon_id id, *ids;
	struct buf *o = buf_new();
	size_t n;

	/* a zeroed identity and a NULL array are fine to clear */
	memset(&id, 0, sizeof(id));
	canon_id_clear(&id);
	canon_id_clear(NULL);
	canon_ids_free(NULL, 0);
	/* nothing in, nothing out */
	ck_assert_int_eq(canon_scan("", 0, 8, &ids, &n), 0);
	ck_assert_ptr_null(ids);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(canon_scan(NULL, 0, 8, &ids, &n), 0);
	ck_assert_int_lt(canon_phone("", 0, o), 0);
	ck_assert_int_lt(canon_phone("+", 1, o), 0);
	ck_assert_int_lt(canon_phone("tel:", 4, o), 0);
	ck_assert_int_lt(canon_iban("", 0, o), 0);
	ck_assert_int_lt(canon_iban("DE", 2, o), 0);
	ck_assert_uint_eq(buf_len(o), 0);
	/* bytes that are not UTF-8 or controls in text are passed over */
	SCAN("\xff\xfe a@b.example \x01 \xc3", "M a@b.example");
	SCAN_NONE("a\xff@b.example x@\xff" "b.example");
	buf_free(o);
}
END_TEST

static Suite *
canon_suite(void)
{
	Suite *su = suite_create("canon");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_test(tc, test_punycode_rfc3492_encode);
	tcase_add_test(tc, test_punycode_rfc3492_decode);
	tcase_add_test(tc, test_punycode_bad);
	tcase_add_test(tc, test_host_case_dots);
	tcase_add_test(tc, test_host_lookalikes);
	tcase_add_test(tc, test_host_ambiguous);
	tcase_add_test(tc, test_host_ipv4);
	tcase_add_test(tc, test_host_ipv6);
	tcase_add_test(tc, test_url_basic);
	tcase_add_test(tc, test_url_backslash);
	tcase_add_test(tc, test_url_encoded_slash);
	tcase_add_test(tc, test_mailbox_forms);
	tcase_add_test(tc, test_mailbox_whole);
	tcase_add_test(tc, test_addrlist);
	tcase_add_test(tc, test_phone);
	tcase_add_test(tc, test_iban);
	tcase_add_test(tc, test_scheme_addr);
	tcase_add_test(tc, test_whole_misc);
	tcase_add_test(tc, test_scan_prose);
	tcase_add_test(tc, test_scan_mailto);
	tcase_add_test(tc, test_scan_attacks);
	tcase_add_test(tc, test_scan_relative);
	tcase_add_test(tc, test_scan_normalised);
	tcase_add_test(tc, test_scan_spans);
	tcase_add_test(tc, test_scan_agrees_whole);
	tcase_add_test(tc, test_visible);
	suite_add_tcase(su, tc);
	tc = tcase_create("limits");
	tcase_add_test(tc, test_limit_ident);
	tcase_add_test(tc, test_limit_local);
	tcase_add_test(tc, test_limit_host);
	tcase_add_test(tc, test_limit_label);
	tcase_add_test(tc, test_limit_comments);
	tcase_add_test(tc, test_limit_scheme);
	tcase_add_test(tc, test_limit_ids);
	tcase_add_test(tc, test_limit_punycode);
	tcase_add_test(tc, test_limit_phone);
	tcase_add_test(tc, test_limit_iban);
	tcase_add_test(tc, test_limit_visible);
	suite_add_tcase(su, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, test_err_hosts);
	tcase_add_test(tc, test_err_urls);
	tcase_add_test(tc, test_err_mailboxes);
	tcase_add_test(tc, test_err_misc);
	suite_add_tcase(su, tc);
	return su;
}

int
main(void)
{
	SRunner *sr = srunner_create(canon_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
