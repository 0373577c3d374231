/*
 * canon.c - the canonical forms of destination identities (DESIGN 5,
 * "Canonical forms"; the rules are in canon.h).
 *
 * What it is for: one form per place a receiver will act on, so the sink
 * gate compares places, not spellings.  What it must never do: collapse
 * two spellings that some receiver sends to different places (a wrong
 * "same" trusts an attacker; a wrong "different" only asks), trust its
 * input, do more than linear work, or guess when it cannot tell.
 *
 * Work.  Every function reads its input a bounded number of times.
 * canon_scan runs one pass over the text and stops at anchors ('@', ':',
 * '"', '+', a letter starting a word); each anchor's scanner reads a
 * region that no other anchor's scanner of the same kind reads (the
 * region between two '@' belongs to them, an authority ends at the '/'
 * of any later "://", a quoted string at the next quote), or a bounded
 * one (a phone, an IBAN, a scheme), and a found identity is skipped
 * whole.  So a pass is linear in the text whatever it holds.
 *
 * Sections: byte and code point tables; helpers; punycode (RFC 3492);
 * hosts; URLs; mailboxes (RFC 5322); phones and IBANs; scheme addresses;
 * the public functions; the scanner; canon_visible.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "buf.h"
#include "canon.h"
#include "err.h"
#include "utf8.h"
#include "xmalloc.h"

#define IDENT_MAX	BNC_CANON_IDENT_MAX
#define LOCAL_MAX	BNC_CANON_LOCAL_MAX
#define SCHEME_MAX	BNC_CANON_SCHEME_MAX
/* Internal: more readings than form and alt can hold.  It leaves this
 * file as -BNC_ERR_BAD_FORMAT; inside, the scanner must not mistake it
 * for "not an identity" and pass over it. */
#define E_READINGS	(-BNC_ERR_MAX - 1)
#define PUBLIC(r)	((r) == E_READINGS ? -BNC_ERR_BAD_FORMAT : (r))

/*
 * ASCII classes.
 */
#define A_ALPHA		0x0001
#define A_DIGIT		0x0002
#define A_HEX		0x0004
#define A_UNRES		0x0008	/* RFC 3986 unreserved */
#define A_ATEXT		0x0010	/* RFC 5322 atext */
#define A_SCHEME	0x0020	/* a scheme, after its first letter */
#define A_HOST		0x0040	/* may stand in a host (not a WHATWG
				 * forbidden domain code point) */
#define A_ENC		0x0080	/* never raw in a canonical URL part */
#define A_LOCAL		0x0100	/* a local part, in free text */
#define A_DOMAIN	0x0200	/* a domain, in free text */
#define A_SPACE		0x0400	/* ASCII white space */
#define A_TRAIL		0x0800	/* ends a sentence, not a URL */
#define A_JOIN		0x1000	/* a phone or IBAN touching it is no one */
#define A_ASTOP		0x2000	/* ends a scheme address in free text */
#define A_OPEN		0x4000	/* may stand before a scheme address */

#define A_AN	(A_ALPHA | A_ATEXT | A_SCHEME | A_HOST | A_UNRES | \
	    A_LOCAL | A_DOMAIN | A_JOIN)
#define A_DG	(A_DIGIT | A_HEX | A_ATEXT | A_SCHEME | A_HOST | A_UNRES | \
	    A_LOCAL | A_DOMAIN | A_JOIN)

static const uint16_t acls[128] = {
	[0x00 ... 0x08] = A_ENC | A_ASTOP,
	[0x09 ... 0x0d] = A_ENC | A_SPACE | A_ASTOP | A_OPEN,
	[0x0e ... 0x1f] = A_ENC | A_ASTOP,
	[' '] = A_ENC | A_SPACE | A_ASTOP | A_OPEN,
	['!'] = A_ATEXT | A_HOST | A_TRAIL,
	['"'] = A_ENC | A_HOST | A_TRAIL | A_ASTOP | A_OPEN,
	['#'] = A_ATEXT,
	['$'] = A_ATEXT | A_HOST,
	['%'] = A_ATEXT | A_LOCAL | A_JOIN,
	['&'] = A_ATEXT | A_HOST | A_JOIN,
	['\''] = A_ATEXT | A_HOST | A_TRAIL | A_ASTOP | A_OPEN,
	['('] = A_HOST | A_ASTOP | A_OPEN,
	[')'] = A_HOST | A_TRAIL | A_ASTOP,
	['*'] = A_ATEXT | A_HOST | A_TRAIL,
	['+'] = A_ATEXT | A_SCHEME | A_HOST | A_LOCAL | A_JOIN,
	[','] = A_HOST | A_TRAIL | A_ASTOP | A_OPEN,
	['-'] = A_ATEXT | A_SCHEME | A_HOST | A_UNRES | A_LOCAL | A_DOMAIN,
	['.'] = A_SCHEME | A_UNRES | A_LOCAL | A_DOMAIN | A_TRAIL,
	['/'] = A_ATEXT | A_JOIN,
	['0' ... '9'] = A_DG,
	[':'] = A_TRAIL,
	[';'] = A_HOST | A_TRAIL | A_OPEN,
	['<'] = A_ENC | A_ASTOP | A_OPEN,
	['='] = A_ATEXT | A_HOST | A_JOIN | A_OPEN,
	['>'] = A_ENC | A_TRAIL | A_ASTOP,
	['?'] = A_ATEXT | A_TRAIL,
	['@'] = A_JOIN,
	['A' ... 'F'] = A_AN | A_HEX,
	['G' ... 'Z'] = A_AN,
	['['] = A_ASTOP | A_OPEN,
	['\\'] = A_ENC | A_ASTOP,
	[']'] = A_TRAIL | A_ASTOP,
	['^'] = A_ATEXT | A_ENC | A_ASTOP,
	['_'] = A_ATEXT | A_HOST | A_UNRES | A_LOCAL | A_DOMAIN | A_JOIN,
	['`'] = A_ATEXT | A_ENC | A_HOST | A_ASTOP,
	['a' ... 'f'] = A_AN | A_HEX,
	['g' ... 'z'] = A_AN,
	['{'] = A_ATEXT | A_ENC | A_HOST | A_ASTOP,
	['|'] = A_ATEXT | A_ENC | A_ASTOP,
	['}'] = A_ATEXT | A_ENC | A_HOST | A_TRAIL | A_ASTOP,
	['~'] = A_ATEXT | A_HOST | A_UNRES,
	[0x7f] = A_ENC | A_ASTOP,
};

#define IS(c, k)	((c) < 0x80 && (acls[(c)] & (k)) != 0)

/*
 * How a host reads a code point (canon.h, "Hosts").  Sorted, disjoint;
 * a code point in no row is kept as it is.  canon_visible shows the
 * rows that are HC_INVISIBLE, HC_SPACE or HC_CONTROL.
 */
enum hcls {
	HC_TO,		/* the code points of the row's `to' */
	HC_DELTA,	/* itself plus the row's delta */
	HC_ASCII,	/* fullwidth: itself less 0xfee0, then as ASCII */
	HC_INVISIBLE,	/* dropped by some receivers, kept by others */
	HC_DEVIATION,	/* kept by IDNA 2008, `to' in IDNA 2003 */
	HC_SPACE,	/* white space: in no host */
	HC_CONTROL	/* a control or noncharacter: in no host */
};

struct hrow {
	uint32_t	 lo, hi;
	enum hcls	 cls;
	int32_t		 delta;
	uint8_t		 step;		/* 2: every other code point from lo */
	uint32_t	 to[2];		/* 0 ends it */
	const char	*why;
};

static const struct hrow hrows[] = {
	{ 0x0000, 0x001f, HC_CONTROL, 0, 1, { 0 }, "C0 controls" },
	{ 0x007f, 0x009f, HC_CONTROL, 0, 1, { 0 }, "DEL, C1 controls" },
	{ 0x00a0, 0x00a0, HC_SPACE, 0, 1, { 0 }, "no-break space" },
	{ 0x00aa, 0x00aa, HC_TO, 0, 1, { 'a' }, "feminine ordinal" },
	{ 0x00ad, 0x00ad, HC_INVISIBLE, 0, 1, { 0 }, "soft hyphen" },
	{ 0x00b2, 0x00b3, HC_DELTA, '2' - 0xb2, 1, { 0 },
	    "superscript two and three" },
	{ 0x00b5, 0x00b5, HC_TO, 0, 1, { 0x3bc }, "micro sign: Greek mu" },
	{ 0x00b9, 0x00b9, HC_TO, 0, 1, { '1' }, "superscript one" },
	{ 0x00ba, 0x00ba, HC_TO, 0, 1, { 'o' }, "masculine ordinal" },
	{ 0x00c0, 0x00d6, HC_DELTA, 0x20, 1, { 0 }, "Latin-1 capitals" },
	{ 0x00d8, 0x00de, HC_DELTA, 0x20, 1, { 0 }, "Latin-1 capitals" },
	{ 0x00df, 0x00df, HC_DEVIATION, 0, 1, { 's', 's' }, "sharp s" },
	{ 0x0100, 0x012f, HC_DELTA, 1, 2, { 0 }, "Latin Extended-A pairs" },
	{ 0x0130, 0x0130, HC_TO, 0, 1, { 'i', 0x307 },
	    "capital I with dot: i and a dot above, never a plain i" },
	{ 0x0132, 0x0133, HC_TO, 0, 1, { 'i', 'j' }, "ligature ij" },
	{ 0x0134, 0x0137, HC_DELTA, 1, 2, { 0 }, "Latin Extended-A pairs" },
	{ 0x0139, 0x013e, HC_DELTA, 1, 2, { 0 }, "Latin Extended-A pairs" },
	{ 0x013f, 0x0140, HC_TO, 0, 1, { 'l', 0xb7 }, "l with middle dot" },
	{ 0x0141, 0x0148, HC_DELTA, 1, 2, { 0 }, "Latin Extended-A pairs" },
	{ 0x0149, 0x0149, HC_TO, 0, 1, { 0x2bc, 'n' },
	    "n preceded by apostrophe" },
	{ 0x014a, 0x0177, HC_DELTA, 1, 2, { 0 }, "Latin Extended-A pairs" },
	{ 0x0178, 0x0178, HC_TO, 0, 1, { 0xff }, "capital Y with diaeresis" },
	{ 0x0179, 0x017e, HC_DELTA, 1, 2, { 0 }, "Latin Extended-A pairs" },
	{ 0x017f, 0x017f, HC_TO, 0, 1, { 's' }, "long s" },
	{ 0x034f, 0x034f, HC_INVISIBLE, 0, 1, { 0 },
	    "combining grapheme joiner" },
	{ 0x0386, 0x0386, HC_TO, 0, 1, { 0x3ac }, "Greek capitals" },
	{ 0x0388, 0x038a, HC_DELTA, 0x25, 1, { 0 }, "Greek capitals" },
	{ 0x038c, 0x038c, HC_TO, 0, 1, { 0x3cc }, "Greek capitals" },
	{ 0x038e, 0x038f, HC_DELTA, 0x3f, 1, { 0 }, "Greek capitals" },
	{ 0x0391, 0x03a1, HC_DELTA, 0x20, 1, { 0 }, "Greek capitals" },
	{ 0x03a3, 0x03ab, HC_DELTA, 0x20, 1, { 0 }, "Greek capitals" },
	{ 0x03c2, 0x03c2, HC_DEVIATION, 0, 1, { 0x3c3 }, "final sigma" },
	{ 0x0400, 0x040f, HC_DELTA, 0x50, 1, { 0 }, "Cyrillic capitals" },
	{ 0x0410, 0x042f, HC_DELTA, 0x20, 1, { 0 }, "Cyrillic capitals" },
	{ 0x061c, 0x061c, HC_INVISIBLE, 0, 1, { 0 }, "Arabic letter mark" },
	{ 0x115f, 0x1160, HC_INVISIBLE, 0, 1, { 0 }, "Hangul fillers" },
	{ 0x1680, 0x1680, HC_SPACE, 0, 1, { 0 }, "Ogham space mark" },
	{ 0x17b4, 0x17b5, HC_INVISIBLE, 0, 1, { 0 }, "Khmer inherent vowels" },
	{ 0x180b, 0x180f, HC_INVISIBLE, 0, 1, { 0 },
	    "Mongolian variation selectors, vowel separator" },
	{ 0x2000, 0x200a, HC_SPACE, 0, 1, { 0 }, "spaces" },
	{ 0x200b, 0x200f, HC_INVISIBLE, 0, 1, { 0 },
	    "zero-width space, non-joiner, joiner; LRM, RLM" },
	{ 0x2028, 0x2029, HC_SPACE, 0, 1, { 0 },
	    "line and paragraph separators" },
	{ 0x202a, 0x202e, HC_INVISIBLE, 0, 1, { 0 },
	    "bidi embeddings and overrides" },
	{ 0x202f, 0x202f, HC_SPACE, 0, 1, { 0 }, "narrow no-break space" },
	{ 0x205f, 0x205f, HC_SPACE, 0, 1, { 0 }, "medium mathematical space" },
	{ 0x2060, 0x206f, HC_INVISIBLE, 0, 1, { 0 },
	    "word joiner, invisible operators, bidi isolates" },
	{ 0x2126, 0x2126, HC_TO, 0, 1, { 0x3c9 }, "Ohm sign" },
	{ 0x212a, 0x212a, HC_TO, 0, 1, { 'k' }, "Kelvin sign" },
	{ 0x212b, 0x212b, HC_TO, 0, 1, { 0xe5 }, "Angstrom sign" },
	{ 0x24b6, 0x24cf, HC_DELTA, 'a' - 0x24b6, 1, { 0 },
	    "circled capitals" },
	{ 0x24d0, 0x24e9, HC_DELTA, 'a' - 0x24d0, 1, { 0 },
	    "circled small letters" },
	{ 0x2800, 0x2800, HC_INVISIBLE, 0, 1, { 0 }, "Braille pattern blank" },
	{ 0x3000, 0x3000, HC_SPACE, 0, 1, { 0 }, "ideographic space" },
	{ 0x3002, 0x3002, HC_TO, 0, 1, { '.' }, "ideographic full stop" },
	{ 0x3164, 0x3164, HC_INVISIBLE, 0, 1, { 0 }, "Hangul filler" },
	{ 0xfe00, 0xfe0f, HC_INVISIBLE, 0, 1, { 0 }, "variation selectors" },
	{ 0xfeff, 0xfeff, HC_INVISIBLE, 0, 1, { 0 },
	    "BOM, zero-width no-break space" },
	{ 0xff01, 0xff5e, HC_ASCII, 0, 1, { 0 }, "fullwidth ASCII" },
	{ 0xff61, 0xff61, HC_TO, 0, 1, { '.' },
	    "halfwidth ideographic full stop" },
	{ 0xffa0, 0xffa0, HC_INVISIBLE, 0, 1, { 0 },
	    "halfwidth Hangul filler" },
	{ 0xfff0, 0xfffb, HC_INVISIBLE, 0, 1, { 0 },
	    "specials, interlinear annotation" },
	{ 0xfffe, 0xffff, HC_CONTROL, 0, 1, { 0 }, "noncharacters" },
	{ 0x1bca0, 0x1bca3, HC_INVISIBLE, 0, 1, { 0 },
	    "shorthand format controls" },
	{ 0x1d173, 0x1d17a, HC_INVISIBLE, 0, 1, { 0 },
	    "musical symbol format controls" },
	{ 0xe0000, 0xe0fff, HC_INVISIBLE, 0, 1, { 0 },
	    "tag characters, variation selectors supplement" },
};

/*
 * Non-ASCII punctuation that ends a mailbox, an address or a URL in free
 * text (quotation marks, brackets, full stops of other scripts); an
 * approximation, since we have no General_Category table.  The label
 * separators U+3002 and U+FF61 are here: in a domain, the scanner reads
 * them as dots first.
 */
static const struct {
	uint32_t	 lo, hi;
} tpunct[] = {
	{ 0x00a1, 0x00bf }, { 0x00d7, 0x00d7 }, { 0x00f7, 0x00f7 },
	{ 0x037e, 0x037e }, { 0x0387, 0x0387 }, { 0x055a, 0x055f },
	{ 0x0589, 0x058a }, { 0x05be, 0x05be }, { 0x05c0, 0x05c0 },
	{ 0x05c3, 0x05c3 }, { 0x05f3, 0x05f4 }, { 0x060c, 0x060d },
	{ 0x061b, 0x061b }, { 0x061d, 0x061f }, { 0x066a, 0x066d },
	{ 0x06d4, 0x06d4 }, { 0x0964, 0x0965 }, { 0x0e4f, 0x0e4f },
	{ 0x0e5a, 0x0e5b }, { 0x2010, 0x2027 }, { 0x2030, 0x205e },
	{ 0x2e00, 0x2e7f }, { 0x3001, 0x3003 }, { 0x3008, 0x3011 },
	{ 0x3014, 0x301f }, { 0xfe10, 0xfe19 }, { 0xfe30, 0xfe6b },
	{ 0xff61, 0xff65 },
};

/* Schemes whose address names a destination (monitor/taint.c's list). */
static const char *const addr_schemes[] = {
	"callto", "discord", "facetime", "im", "mailto", "matrix", "mms",
	"msteams", "signal", "sip", "sips", "skype", "slack", "sms", "tel",
	"telegram", "whatsapp", "xmpp",
};

/* WHATWG's special schemes and their default ports (0: none). */
static const struct special {
	const char	*name;
	unsigned	 port;
} specials[] = {
	{ "file", 0 }, { "ftp", 21 }, { "http", 80 }, { "https", 443 },
	{ "ws", 80 }, { "wss", 443 },
};

/* IBAN lengths by country: the SWIFT IBAN registry. */
static const struct {
	char		 cc[3];
	uint8_t		 len;
} iban_lens[] = {
	{ "AD", 24 }, { "AE", 23 }, { "AL", 28 }, { "AT", 20 }, { "AZ", 28 },
	{ "BA", 20 }, { "BE", 16 }, { "BG", 22 }, { "BH", 22 }, { "BI", 27 },
	{ "BR", 29 }, { "BY", 28 }, { "CH", 21 }, { "CR", 22 }, { "CY", 28 },
	{ "CZ", 24 }, { "DE", 22 }, { "DJ", 27 }, { "DK", 18 }, { "DO", 28 },
	{ "EE", 20 }, { "EG", 29 }, { "ES", 24 }, { "FI", 18 }, { "FK", 18 },
	{ "FO", 18 }, { "FR", 27 }, { "GB", 22 }, { "GE", 22 }, { "GI", 23 },
	{ "GL", 18 }, { "GR", 27 }, { "GT", 28 }, { "HN", 28 }, { "HR", 21 },
	{ "HU", 28 }, { "IE", 22 }, { "IL", 23 }, { "IQ", 23 }, { "IS", 26 },
	{ "IT", 27 }, { "JO", 30 }, { "KW", 30 }, { "KZ", 20 }, { "LB", 28 },
	{ "LC", 32 }, { "LI", 21 }, { "LT", 20 }, { "LU", 20 }, { "LV", 21 },
	{ "LY", 25 }, { "MC", 27 }, { "MD", 24 }, { "ME", 22 }, { "MK", 19 },
	{ "MN", 20 }, { "MR", 27 }, { "MT", 31 }, { "MU", 30 }, { "NI", 28 },
	{ "NL", 18 }, { "NO", 15 }, { "OM", 23 }, { "PK", 24 }, { "PL", 28 },
	{ "PS", 29 }, { "PT", 25 }, { "QA", 29 }, { "RO", 24 }, { "RS", 22 },
	{ "RU", 33 }, { "SA", 24 }, { "SC", 31 }, { "SD", 18 }, { "SE", 24 },
	{ "SI", 19 }, { "SK", 24 }, { "SM", 27 }, { "SO", 23 }, { "ST", 25 },
	{ "SV", 28 }, { "TL", 23 }, { "TN", 24 }, { "TR", 26 }, { "UA", 29 },
	{ "VA", 22 }, { "VG", 24 }, { "XK", 20 }, { "YE", 30 },
};

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Helpers.
 */

static const char hexdig[] = "0123456789ABCDEF";

static int
hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static unsigned char
lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static unsigned char
upper(unsigned char c)
{
	return c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c;
}

/* Is s[0..n) the NUL-terminated lower-case word w, in any case? */
static int
word_is(const unsigned char *s, size_t n, const char *w)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (w[i] == '\0' || lower(s[i]) != (unsigned char)w[i])
			return 0;
	return w[n] == '\0';
}

/* Does s[0..n) start with the lower-case word w, in any case? */
static int
starts(const unsigned char *s, size_t n, const char *w)
{
	size_t k = strlen(w);

	return n >= k && word_is(s, k, w);
}

static void
sb_free(struct buf *b)
{
	free(b->d);
	memset(b, 0, sizeof(*b));
}

/* Our buffers are written only; their length is where the next byte
 * goes, so cutting one back is setting it. */
static void
sb_cut(struct buf *b, size_t len)
{
	b->len = len;
}

/* A caller's buffer may hold bytes it consumed, which a put may move
 * away (buf_reserve compacts): mark and restore its unread length. */
static void
sb_back(struct buf *b, size_t mark)
{
	b->len = b->off + mark;
}

static int
sb_putc(struct buf *b, unsigned char c)
{
	return buf_put_u8(b, c);
}

static int
sb_pct(struct buf *b, unsigned char c)
{
	unsigned char e[3] = { '%', hexdig[c >> 4], hexdig[c & 15] };

	return buf_put(b, e, sizeof(e));
}

static int
sb_eq(const struct buf *a, const struct buf *b)
{
	return a->len == b->len && (a->len == 0 ||
	    memcmp(a->d, b->d, a->len) == 0);
}

/* Appends what src holds, then a NUL, to dst (the public contract). */
static int
sb_emit(struct buf *dst, const struct buf *src)
{
	int r;

	if ((r = buf_put(dst, src->d, src->len)) != 0 ||
	    (r = buf_put_u8(dst, '\0')) != 0)
		return r;
	return 0;
}

/* The well-formed sequence that ends at s[i], not before lo; 0 if none. */
static size_t
u8_prev(const unsigned char *s, size_t lo, size_t i, uint32_t *cp)
{
	size_t n;

	for (n = 1; n <= 4 && n <= i - lo; n++) {
		if (n < 4 && n < i - lo && (s[i - n] & 0xc0) == 0x80)
			continue;
		return utf8_decode(s + i - n, n, cp) == n ? n : 0;
	}
	return 0;
}

/* Is s[0..n) valid UTF-8 without C0 controls or DEL? */
static int
clean_text(const unsigned char *s, size_t n)
{
	size_t i = 0, k;
	uint32_t c;

	while (i < n) {
		if ((k = utf8_decode(s + i, n - i, &c)) == 0 || c < 0x20 ||
		    c == 0x7f)
			return 0;
		i += k;
	}
	return 1;
}

static const struct hrow *
hrow_find(uint32_t c)
{
	size_t lo = 0, hi = NELEM(hrows), mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (c < hrows[mid].lo)
			hi = mid;
		else if (c > hrows[mid].hi)
			lo = mid + 1;
		else
			return &hrows[mid];
	}
	return NULL;
}

static int
in_tpunct(uint32_t c)
{
	size_t lo = 0, hi = NELEM(tpunct), mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (c < tpunct[mid].lo)
			hi = mid;
		else if (c > tpunct[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/* A label separator other than '.' (canon.h, "Hosts"). */
static int
is_dot(uint32_t c)
{
	return c == 0x3002 || c == 0xff0e || c == 0xff61;
}

/*
 * Is the non-ASCII code point c part of a word in free text (a letter,
 * a digit, a mark, an invisible character) rather than white space or
 * punctuation?
 */
static int
cp_word(uint32_t c)
{
	const struct hrow *r = hrow_find(c);

	if (r != NULL && (r->cls == HC_SPACE || r->cls == HC_CONTROL))
		return 0;
	if (r != NULL && r->cls == HC_ASCII)
		return IS(c - 0xfee0, A_ALPHA | A_DIGIT);
	return !in_tpunct(c);
}

/*
 * Punycode (RFC 3492).
 */

#define PUNY_BASE	36
#define PUNY_TMIN	1
#define PUNY_TMAX	26
#define PUNY_SKEW	38
#define PUNY_DAMP	700
#define PUNY_BIAS	72
#define PUNY_N		128

static uint32_t
puny_adapt(uint32_t delta, uint32_t npoints, int first)
{
	uint32_t k = 0;

	delta = first ? delta / PUNY_DAMP : delta / 2;
	delta += delta / npoints;
	while (delta > ((PUNY_BASE - PUNY_TMIN) * PUNY_TMAX) / 2) {
		delta /= PUNY_BASE - PUNY_TMIN;
		k += PUNY_BASE;
	}
	return k + (PUNY_BASE - PUNY_TMIN + 1) * delta / (delta + PUNY_SKEW);
}

static unsigned char
puny_digit(uint32_t d)
{
	return d < 26 ? 'a' + d : '0' + (d - 26);
}

static uint32_t
puny_thresh(uint32_t k, uint32_t bias)
{
	if (k <= bias)
		return PUNY_TMIN;
	if (k >= bias + PUNY_TMAX)
		return PUNY_TMAX;
	return k - bias;
}

/* Appends the punycode of cp[0..n), no prefix, no NUL (RFC 3492 6.3). */
static int
puny_enc(const uint32_t *cp, size_t n, struct buf *out)
{
	uint32_t m, q, t, k, delta = 0, bias = PUNY_BIAS, nn = PUNY_N;
	size_t h, b = 0, j;
	int r;

	if (n > BNC_CANON_PUNY_MAX)
		return -BNC_ERR_TOO_LARGE;
	for (j = 0; j < n; j++) {
		if (cp[j] > 0x10ffff || (cp[j] >= 0xd800 && cp[j] <= 0xdfff))
			return -BNC_ERR_BAD_FORMAT;
		if (cp[j] < 0x80) {
			if ((r = sb_putc(out, cp[j])) != 0)
				return r;
			b++;
		}
	}
	if (b > 0 && (r = sb_putc(out, '-')) != 0)
		return r;
	for (h = b; h < n; nn++, delta++) {
		for (m = UINT32_MAX, j = 0; j < n; j++)
			if (cp[j] >= nn && cp[j] < m)
				m = cp[j];
		if (m - nn > (UINT32_MAX - delta) / (h + 1))
			return -BNC_ERR_TOO_LARGE;
		delta += (m - nn) * (h + 1);
		nn = m;
		for (j = 0; j < n; j++) {
			if (cp[j] < nn && ++delta == 0)
				return -BNC_ERR_TOO_LARGE;
			if (cp[j] != nn)
				continue;
			for (q = delta, k = PUNY_BASE;; k += PUNY_BASE) {
				t = puny_thresh(k, bias);
				if (q < t)
					break;
				if ((r = sb_putc(out, puny_digit(t +
				    (q - t) % (PUNY_BASE - t)))) != 0)
					return r;
				q = (q - t) / (PUNY_BASE - t);
			}
			if ((r = sb_putc(out, puny_digit(q))) != 0)
				return r;
			bias = puny_adapt(delta, h + 1, h == b);
			delta = 0;
			h++;
		}
	}
	return 0;
}

/* Decodes punycode s[0..len) into at most max code points (RFC 3492
 * 6.2); basic code points keep their case. */
static int
puny_dec(const unsigned char *s, size_t len, uint32_t *cp, size_t *np,
    size_t max)
{
	uint32_t i = 0, nn = PUNY_N, bias = PUNY_BIAS, oldi, w, k, t, d;
	size_t b = 0, j, in, out = 0;

	if (len > BNC_CANON_PUNY_MAX * 8 || max > BNC_CANON_PUNY_MAX)
		return -BNC_ERR_TOO_LARGE;
	for (j = 0; j < len; j++)
		if (s[j] == '-')
			b = j;
	for (j = 0; j < b; j++) {
		if (s[j] >= 0x80)
			return -BNC_ERR_BAD_FORMAT;
		if (out == max)
			return -BNC_ERR_TOO_LARGE;
		cp[out++] = s[j];
	}
	for (in = b > 0 ? b + 1 : 0; in < len; out++) {
		for (oldi = i, w = 1, k = PUNY_BASE;; k += PUNY_BASE) {
			if (in >= len)
				return -BNC_ERR_BAD_FORMAT;
			d = s[in] >= '0' && s[in] <= '9' ? s[in] - '0' + 26 :
			    s[in] >= 'a' && s[in] <= 'z' ? s[in] - 'a' :
			    s[in] >= 'A' && s[in] <= 'Z' ? s[in] - 'A' :
			    PUNY_BASE;
			in++;
			if (d >= PUNY_BASE || d > (UINT32_MAX - i) / w)
				return -BNC_ERR_BAD_FORMAT;
			i += d * w;
			t = puny_thresh(k, bias);
			if (d < t)
				break;
			if (w > UINT32_MAX / (PUNY_BASE - t))
				return -BNC_ERR_BAD_FORMAT;
			w *= PUNY_BASE - t;
		}
		bias = puny_adapt(i - oldi, out + 1, oldi == 0);
		if (i / (out + 1) > UINT32_MAX - nn)
			return -BNC_ERR_BAD_FORMAT;
		nn += i / (out + 1);
		i %= out + 1;
		if (nn > 0x10ffff || (nn >= 0xd800 && nn <= 0xdfff))
			return -BNC_ERR_BAD_FORMAT;
		if (out == max)
			return -BNC_ERR_TOO_LARGE;
		memmove(cp + i + 1, cp + i, (out - i) * sizeof(*cp));
		cp[i++] = nn;
	}
	*np = out;
	return 0;
}

/*
 * Hosts.
 */

/*
 * How a host reads code point c: its code points (at most 2) in to[],
 * their number in *nto; the class of the row that decided, or -1 for a
 * code point kept as it is.
 */
static int
host_map(uint32_t c, uint32_t *to, size_t *nto)
{
	const struct hrow *r;

	*nto = 1;
	to[0] = c;
	if (c < 0x80) {
		to[0] = lower(c);
		return c < 0x20 || c == 0x7f ? HC_CONTROL : -1;
	}
	if ((r = hrow_find(c)) == NULL)
		return -1;
	switch (r->cls) {
	case HC_TO:
	case HC_DEVIATION:
		to[0] = r->to[0];
		to[1] = r->to[1];
		*nto = r->to[1] != 0 ? 2 : 1;
		break;
	case HC_DELTA:
		if ((c - r->lo) % r->step == 0)
			to[0] = (uint32_t)((int32_t)c + r->delta);
		break;
	case HC_ASCII:
		to[0] = lower(c - 0xfee0);
		break;
	default:
		break;
	}
	return r->cls;
}

/* Appends the IPv4 address a in dotted decimal. */
static int
ipv4_write(uint32_t a, struct buf *out)
{
	char t[16];
	int n;

	n = snprintf(t, sizeof(t), "%u.%u.%u.%u", a >> 24, (a >> 16) & 255,
	    (a >> 8) & 255, a & 255);
	return buf_put(out, t, (size_t)n);
}

/* One part of a WHATWG IPv4 address: decimal, 0x hex, 0 octal. */
static int
ipv4_number(const unsigned char *s, size_t n, uint64_t *v)
{
	unsigned radix = 10;
	size_t i;
	int d;

	if (n == 0)
		return -1;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		radix = 16;
		s += 2;
		n -= 2;
	} else if (n >= 2 && s[0] == '0') {
		radix = 8;
		s++;
		n--;
	}
	for (*v = 0, i = 0; i < n; i++) {
		if ((d = hexval(s[i])) < 0 || (unsigned)d >= radix)
			return -1;
		/* saturate: any value past 2^32 fails the same way */
		if (*v < (UINT64_C(1) << 40))
			*v = *v * radix + (unsigned)d;
	}
	return 0;
}

/*
 * The host h[0..n) (ASCII, lower case, no trailing dot) as WHATWG reads
 * a name that ends in a number: 1 and *addr if it is an IPv4 address,
 * 0 if its last label is not a number, -BNC_ERR_BAD_FORMAT if it ends in
 * a number but is no address (WHATWG fails it).
 */
static int
ipv4_read(const unsigned char *h, size_t n, uint32_t *addr)
{
	size_t b, i, np = 0, start[4], end[4];
	uint64_t v[4], all = 0;

	for (b = n; b > 0 && h[b - 1] != '.'; b--)
		;
	for (i = b; i < n && IS(h[i], A_DIGIT); i++)
		;
	if (b == n || (i < n && ipv4_number(h + b, n - b, &v[0]) != 0))
		return 0;
	for (b = 0, i = 0; i <= n; i++) {
		if (i < n && h[i] != '.')
			continue;
		if (np == 4)
			return -BNC_ERR_BAD_FORMAT;
		start[np] = b;
		end[np++] = i;
		b = i + 1;
	}
	for (i = 0; i < np; i++) {
		if (ipv4_number(h + start[i], end[i] - start[i], &v[i]) != 0)
			return -BNC_ERR_BAD_FORMAT;
		if (i + 1 < np && v[i] > 255)
			return -BNC_ERR_BAD_FORMAT;
		if (i + 1 < np)
			all |= v[i] << (8 * (3 - i));
	}
	if (v[np - 1] >= (UINT64_C(1) << (8 * (5 - np))))
		return -BNC_ERR_BAD_FORMAT;
	*addr = (uint32_t)(all + v[np - 1]);
	return 1;
}

/* An IPv6 address as WHATWG parses one (the text inside "[...]"). */
static int
ipv6_read(const unsigned char *s, size_t n, uint16_t a[8])
{
	size_t p = 0, len, seen;
	int piece = 0, compress = -1, swaps, v, d, num;

	memset(a, 0, 8 * sizeof(*a));
	if (p < n && s[p] == ':') {
		if (p + 1 >= n || s[p + 1] != ':')
			return -BNC_ERR_BAD_FORMAT;
		p += 2;
		compress = ++piece;
	}
	while (p < n) {
		if (piece == 8)
			return -BNC_ERR_BAD_FORMAT;
		if (s[p] == ':') {
			if (compress != -1)
				return -BNC_ERR_BAD_FORMAT;
			p++;
			compress = ++piece;
			continue;
		}
		for (v = 0, len = 0; len < 4 && p < n &&
		    (d = hexval(s[p])) >= 0; len++, p++)
			v = v * 16 + d;
		if (p < n && s[p] == '.') {
			if (len == 0 || piece > 6)
				return -BNC_ERR_BAD_FORMAT;
			p -= len;
			for (seen = 0; p < n; seen++) {
				if (seen > 0) {
					if (s[p] != '.' || seen >= 4)
						return -BNC_ERR_BAD_FORMAT;
					p++;
				}
				if (p >= n || !IS(s[p], A_DIGIT))
					return -BNC_ERR_BAD_FORMAT;
				for (num = -1; p < n && IS(s[p], A_DIGIT);
				    p++) {
					if (num == 0)
						return -BNC_ERR_BAD_FORMAT;
					num = (num < 0 ? 0 : num * 10) +
					    (s[p] - '0');
					if (num > 255)
						return -BNC_ERR_BAD_FORMAT;
				}
				a[piece] = a[piece] * 0x100 + num;
				if (seen == 1 || seen == 3)
					piece++;
			}
			if (seen != 4)
				return -BNC_ERR_BAD_FORMAT;
			break;
		}
		if (p < n && s[p] == ':') {
			if (++p == n)
				return -BNC_ERR_BAD_FORMAT;
		} else if (p < n)
			return -BNC_ERR_BAD_FORMAT;
		a[piece++] = v;
	}
	if (compress != -1) {
		for (swaps = piece - compress, piece = 7;
		    piece != 0 && swaps > 0; piece--, swaps--) {
			v = a[piece];
			a[piece] = a[compress + swaps - 1];
			a[compress + swaps - 1] = v;
		}
	} else if (piece != 8)
		return -BNC_ERR_BAD_FORMAT;
	return 0;
}

/* Writes an IPv6 address as WHATWG serialises it (RFC 5952). */
static int
ipv6_write(const uint16_t a[8], struct buf *out)
{
	char t[8];
	int i, j, best = -1, blen = 1, n, r;

	for (i = 0; i < 8; i = j + 1) {
		for (j = i; j < 8 && a[j] == 0; j++)
			;
		if (j - i > blen) {
			best = i;
			blen = j - i;
		}
	}
	for (i = 0; i < 8; i++) {
		if (i == best) {
			if ((r = buf_put(out, i == 0 ? "::" : ":",
			    i == 0 ? 2 : 1)) != 0)
				return r;
			i += blen - 1;
			continue;
		}
		n = snprintf(t, sizeof(t), "%x", a[i]);
		if ((r = buf_put(out, t, (size_t)n)) != 0 ||
		    (i < 7 && (r = sb_putc(out, ':')) != 0))
			return r;
	}
	return 0;
}

/*
 * Writes the host whose mapped code points are cp[0..n): labels split at
 * '.', one trailing '.' dropped, each non-ASCII label as its A-label,
 * then a name ending in a number as an IPv4 address.
 */
static int
labels_write(const uint32_t *cp, size_t n, struct buf *out)
{
	size_t base = out->len, b, e, j, labels = 0;
	uint32_t addr;
	size_t lb;
	int ascii, r;

	if (n > 0 && cp[n - 1] == '.')
		n--;
	if (n == 0)
		return -BNC_ERR_BAD_FORMAT;
	for (b = 0; b <= n; b = e + 1) {
		for (e = b; e < n && cp[e] != '.'; e++)
			;
		if (e == b)
			return -BNC_ERR_BAD_FORMAT;
		/* implied by HOST_MAX; counted first, so that no label past
		 * it is encoded */
		if (++labels > BNC_CANON_LABELS_MAX)
			return -BNC_ERR_BAD_FORMAT;
		if (b > 0 && (r = sb_putc(out, '.')) != 0)
			return r;
		for (ascii = 1, j = b; j < e; j++) {
			if (cp[j] < 0x80 && !IS(cp[j], A_HOST))
				return -BNC_ERR_BAD_FORMAT;
			if (cp[j] >= 0x80)
				ascii = 0;
		}
		lb = out->len;
		if (ascii) {
			/* an "xn--" label too: see canon.h */
			for (j = b; j < e; j++)
				if ((r = sb_putc(out, cp[j])) != 0)
					return r;
		} else {
			if (e - b > BNC_CANON_LABEL_MAX)
				return -BNC_ERR_BAD_FORMAT;
			if ((r = buf_put(out, "xn--", 4)) != 0 ||
			    (r = puny_enc(cp + b, e - b, out)) != 0)
				return r;
		}
		if (out->len - lb > BNC_CANON_LABEL_MAX)
			return -BNC_ERR_BAD_FORMAT;
		if (out->len - base > BNC_CANON_HOST_MAX)
			return -BNC_ERR_BAD_FORMAT;
	}
	if ((r = ipv4_read(out->d + base, out->len - base, &addr)) < 0)
		return r;
	if (r == 1) {
		sb_cut(out, base);
		return ipv4_write(addr, out);
	}
	return 0;
}

/*
 * Reads host h[0..n), percent-decoded first when pct (a URL's): form
 * gets its canonical form; when receivers read it two ways, alt gets the
 * other and *amb is 1.  form and alt start empty; no NUL.
 */
static int
host_read(const unsigned char *h, size_t n, int pct, struct buf *form,
    struct buf *alt, int *amb)
{
	struct buf raw = { 0 };
	const unsigned char *s = h;
	uint32_t *pv = NULL, *av = NULL, c, to[2];
	size_t i, k, np = 0, na = 0, nto;
	uint16_t a6[8];
	int cls, inv = 0, dev = 0, r;

	*amb = 0;
	if (n == 0)
		return -BNC_ERR_BAD_FORMAT;
	if (n > IDENT_MAX)
		return -BNC_ERR_TOO_LARGE;
	if (h[0] == '[') {
		if (n < 2 || h[n - 1] != ']' ||
		    (r = ipv6_read(h + 1, n - 2, a6)) != 0)
			return -BNC_ERR_BAD_FORMAT;
		if ((r = sb_putc(form, '[')) != 0 ||
		    (r = ipv6_write(a6, form)) != 0)
			return r;
		return sb_putc(form, ']');
	}
	if (pct) {
		for (i = 0; i < n; i++) {
			if (h[i] != '%') {
				r = sb_putc(&raw, h[i]);
			} else if (i + 2 < n && hexval(h[i + 1]) >= 0 &&
			    hexval(h[i + 2]) >= 0) {
				r = sb_putc(&raw, hexval(h[i + 1]) << 4 |
				    hexval(h[i + 2]));
				i += 2;
			} else
				r = -BNC_ERR_BAD_FORMAT;
			if (r != 0)
				goto out;
		}
		s = raw.d;
		n = raw.len;
	}
	/* each code point maps to at most two */
	pv = xreallocarray(NULL, 2 * n + 1, sizeof(*pv));
	av = xreallocarray(NULL, 2 * n + 1, sizeof(*av));
	for (i = 0; i < n; i += k) {
		if ((k = utf8_decode(s + i, n - i, &c)) == 0) {
			r = -BNC_ERR_BAD_UTF8;
			goto out;
		}
		cls = host_map(c, to, &nto);
		if (cls == HC_SPACE || cls == HC_CONTROL) {
			r = -BNC_ERR_BAD_FORMAT;
			goto out;
		}
		if (cls == HC_INVISIBLE) {
			inv = 1;
			av[na++] = c;
			continue;
		}
		if (cls == HC_DEVIATION) {
			dev = 1;
			pv[np++] = c;
			memcpy(av + na, to, nto * sizeof(*to));
			na += nto;
			continue;
		}
		memcpy(pv + np, to, nto * sizeof(*to));
		memcpy(av + na, to, nto * sizeof(*to));
		np += nto;
		na += nto;
	}
	if (inv && dev) {
		r = E_READINGS;
		goto out;
	}
	if ((r = labels_write(pv, np, form)) != 0)
		goto out;
	if (inv || dev) {
		/* a reading that is no host is no reading */
		r = labels_write(av, na, alt);
		if (r != 0 && r != -BNC_ERR_BAD_FORMAT)
			goto out;
		*amb = r == 0 && !sb_eq(alt, form);
		if (!*amb)
			sb_cut(alt, 0);
	}
	r = 0;
 out:
	free(pv);
	free(av);
	sb_free(&raw);
	return r;
}

/*
 * URLs.
 */

/* Where one reading puts the parts of a URL (offsets into it). */
struct parts {
	size_t			 slen;		/* scheme, before ':' */
	const struct special	*sp;		/* NULL: not special */
	int			 user;		/* userinfo present */
	size_t			 ub, ue;
	size_t			 hb, he;	/* host */
	int			 port;		/* ':' after the host */
	size_t			 pb, pe;	/* its digits */
	size_t			 path_b, path_e;
	int			 query, frag;
	size_t			 qb, qe, fb, fe;	/* after '?', '#' */
};

static const struct special *
special_find(const unsigned char *s, size_t n)
{
	size_t i;

	for (i = 0; i < NELEM(specials); i++)
		if (word_is(s, n, specials[i].name))
			return &specials[i];
	return NULL;
}

/* The length of the scheme that s starts with, before its ':'; 0 if
 * none. */
static size_t
scheme_len(const unsigned char *s, size_t n)
{
	size_t i;

	if (n == 0 || !IS(s[0], A_ALPHA))
		return 0;
	for (i = 1; i < n && i <= SCHEME_MAX && IS(s[i], A_SCHEME); i++)
		;
	return i < n && i <= SCHEME_MAX && s[i] == ':' ? i : 0;
}

/*
 * Splits URL s[0..n) as WHATWG does (whatwg: '\' is '/' in a special
 * URL, any run of slashes may follow "scheme:") or as RFC 3986 does
 * ("//" must follow, '\' is data).
 */
static int
url_split(const unsigned char *s, size_t n, int whatwg, struct parts *p)
{
	size_t i, ae, at, j;
	int bs;

	memset(p, 0, sizeof(*p));
	if ((p->slen = scheme_len(s, n)) == 0)
		return -BNC_ERR_BAD_FORMAT;
	p->sp = special_find(s, p->slen);
	bs = whatwg && p->sp != NULL;
	i = p->slen + 1;
	if (bs && p->sp->port == 0) {
		/* file: "file:" then two slashes and a host, or a path */
		if (i + 1 < n && (s[i] == '/' || s[i] == '\\') &&
		    (s[i + 1] == '/' || s[i + 1] == '\\'))
			i += 2;
		else {
			p->hb = p->he = i;
			goto path;
		}
	} else if (bs) {
		while (i < n && (s[i] == '/' || s[i] == '\\'))
			i++;
	} else {
		if (i + 1 >= n || s[i] != '/' || s[i + 1] != '/')
			return -BNC_ERR_BAD_FORMAT;
		i += 2;
	}
	for (ae = i; ae < n && s[ae] != '/' && s[ae] != '?' &&
	    s[ae] != '#' && !(bs && s[ae] == '\\'); ae++)
		;
	for (at = ae; at > i && s[at - 1] != '@'; at--)
		;
	if (at > i) {
		p->user = 1;
		p->ub = i;
		p->ue = at - 1;
		i = at;
	}
	p->hb = i;
	if (i < ae && s[i] == '[') {
		for (j = i; j < ae && s[j] != ']'; j++)
			;
		if (j == ae)
			return -BNC_ERR_BAD_FORMAT;
		p->he = j + 1;
		if (p->he < ae && s[p->he] != ':')
			return -BNC_ERR_BAD_FORMAT;
	} else
		for (p->he = i; p->he < ae && s[p->he] != ':'; p->he++)
			;
	if (p->he < ae) {
		p->port = 1;
		p->pb = p->he + 1;
		p->pe = ae;
	}
	i = ae;
 path:
	p->path_b = i;
	while (i < n && s[i] != '?' && s[i] != '#')
		i++;
	p->path_e = i;
	if (i < n && s[i] == '?') {
		p->query = 1;
		p->qb = ++i;
		while (i < n && s[i] != '#')
			i++;
		p->qe = i;
	}
	if (i < n && s[i] == '#') {
		p->frag = 1;
		p->fb = i + 1;
		p->fe = n;
	}
	return 0;
}

/*
 * Appends a URL part c[0..n) with its escapes normalised: an escape of
 * an unreserved character decoded (if unres), other escapes' hex upper
 * case, a byte no URL holds raw (A_ENC, non-ASCII, and the bytes of
 * `more') escaped.  A '%' that starts no escape stays; an escaped hex
 * digit just after it stays escaped, since decoding it would make an
 * escape ("%2%61" is not "%2a", which a server reads as '*').
 */
static int
comp_write(struct buf *out, const unsigned char *c, size_t n, int unres,
    const char *more)
{
	size_t i, bare = SIZE_MAX;
	int hi, lo, v, r;

	for (i = 0; i < n; i++) {
		if (c[i] == '%' && i + 2 < n &&
		    (hi = hexval(c[i + 1])) >= 0 &&
		    (lo = hexval(c[i + 2])) >= 0) {
			v = hi << 4 | lo;
			if (unres && IS(v, A_UNRES) && !(IS(v, A_HEX) &&
			    bare != SIZE_MAX && (out->len - bare == 1 ||
			    (out->len - bare == 2 &&
			    IS(out->d[bare + 1], A_HEX)))))
				r = sb_putc(out, v);
			else
				r = sb_pct(out, v);
			i += 2;
		} else if (c[i] >= 0x80 || IS(c[i], A_ENC) ||
		    (c[i] != '\0' && strchr(more, c[i]) != NULL))
			r = sb_pct(out, c[i]);
		else {
			if (c[i] == '%')
				bare = out->len;
			r = sb_putc(out, c[i]);
		}
		if (r != 0)
			return r;
	}
	return 0;
}

/* Is p[i..) an escaped slash or backslash? */
static int
enc_slash(const unsigned char *p, size_t n, size_t i)
{
	return i + 2 < n && p[i] == '%' && (p[i + 1] == '2' ||
	    p[i + 1] == '5') && (lower(p[i + 2]) == (p[i + 1] == '2' ?
	    'f' : 'c'));
}

/*
 * Appends path p[0..n) in canonical form, dot segments removed (RFC 3986
 * 5.2.4, as WHATWG does).  Separators: '/', '\' when bs, "%2F" and "%5C"
 * when dec.  root: an empty path is "/".
 */
static int
path_write(struct buf *out, const unsigned char *p, size_t n, int bs,
    int dec, int root)
{
	struct buf seg = { 0 };
	size_t *segs = NULL, ns = 0, i = 0, b, e, skip;
	int last, r = 0;

	if (n == 0)
		return root ? sb_putc(out, '/') : 0;
	segs = xreallocarray(NULL, n + 1, sizeof(*segs));
	/* the path starts at a separator (or is file's "file:x") */
	if (p[0] == '/' || (bs && p[0] == '\\'))
		i = 1;
	else if (dec && enc_slash(p, n, 0))
		i = 3;
	for (;;) {
		for (e = b = i; e < n; e++)
			if (p[e] == '/' || (bs && p[e] == '\\') ||
			    (dec && enc_slash(p, n, e)))
				break;
		last = e == n;
		skip = last ? 0 : p[e] == '%' ? 3 : 1;
		sb_cut(&seg, 0);
		if ((r = comp_write(&seg, p + b, e - b, 1, "")) != 0)
			goto out;
		if (seg.len == 2 && seg.d[0] == '.' && seg.d[1] == '.') {
			if (ns > 0)
				sb_cut(out, segs[--ns]);
			if (last) {
				segs[ns++] = out->len;
				r = sb_putc(out, '/');
			}
		} else if (seg.len == 1 && seg.d[0] == '.') {
			if (last) {
				segs[ns++] = out->len;
				r = sb_putc(out, '/');
			}
		} else {
			segs[ns++] = out->len;
			if ((r = sb_putc(out, '/')) == 0)
				r = buf_put(out, seg.d, seg.len);
		}
		if (r != 0 || last)
			break;
		i = e + skip;
	}
 out:
	sb_free(&seg);
	free(segs);
	return r;
}

/* Does the path hold an escaped slash or backslash? */
static int
path_has_enc(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i + 2 < n; i++)
		if (enc_slash(p, n, i))
			return 1;
	return 0;
}

/* The port of p: 0 and *port (-1: none), or an error. */
static int
port_read(const unsigned char *s, const struct parts *p, long *port)
{
	size_t i;
	long v = 0;

	*port = -1;
	if (!p->port || p->pb == p->pe)
		return 0;
	for (i = p->pb; i < p->pe; i++) {
		if (!IS(s[i], A_DIGIT))
			return -BNC_ERR_BAD_FORMAT;
		v = v * 10 + (s[i] - '0');
		if (v > 65535)
			return -BNC_ERR_BAD_FORMAT;
	}
	if (p->sp != NULL && v == (long)p->sp->port)
		return 0;
	*port = v;
	return 0;
}

/* Checks the authority of p and reads its host (both readings). */
static int
auth_read(const unsigned char *s, const struct parts *p, struct buf *host,
    struct buf *halt, int *hamb, long *port)
{
	size_t i, ae = p->port ? p->pe : p->he;
	int r;

	for (i = p->user ? p->ub : p->hb; i < ae; i++)
		if (s[i] == ' ')
			return -BNC_ERR_BAD_FORMAT;
	if ((r = port_read(s, p, port)) != 0)
		return r;
	*hamb = 0;
	if (p->sp != NULL && p->sp->port == 0) {
		/* file: no userinfo, no port, maybe no host */
		if (p->user || p->port)
			return -BNC_ERR_BAD_FORMAT;
		if (p->hb == p->he)
			return 0;
		if ((r = host_read(s + p->hb, p->he - p->hb, 1, host, halt,
		    hamb)) != 0)
			return r;
		if (host->len == 9 && memcmp(host->d, "localhost", 9) == 0)
			sb_cut(host, 0);
		return 0;
	}
	return host_read(s + p->hb, p->he - p->hb, 1, host, halt, hamb);
}

/* Writes one reading of URL s: its host (already read), dec: escaped
 * slashes read as '/'. */
static int
url_write(const unsigned char *s, const struct parts *p, int bs,
    const struct buf *host, long port, int dec, struct buf *out)
{
	size_t i, colon;
	char t[24];
	int pass, r;

	for (i = 0; i < p->slen; i++)
		if ((r = sb_putc(out, lower(s[i]))) != 0)
			return r;
	if ((r = buf_put(out, "://", 3)) != 0)
		return r;
	if (p->user) {
		for (colon = p->ub; colon < p->ue && s[colon] != ':'; colon++)
			;
		/* WHATWG writes no empty password, nor an empty userinfo */
		pass = colon + 1 < p->ue;
		if ((colon > p->ub || pass) &&
		    ((r = comp_write(out, s + p->ub, colon - p->ub, 1,
		    "@")) != 0 ||
		    (pass && ((r = sb_putc(out, ':')) != 0 ||
		    (r = comp_write(out, s + colon + 1, p->ue - colon - 1, 1,
		    "@:")) != 0)) ||
		    (r = sb_putc(out, '@')) != 0))
			return r;
	}
	if ((r = buf_put(out, host->d, host->len)) != 0)
		return r;
	if (port >= 0) {
		snprintf(t, sizeof(t), ":%ld", port);
		if ((r = buf_put(out, t, strlen(t))) != 0)
			return r;
	}
	if (p->sp != NULL && p->sp->port == 0 && p->path_b < p->path_e &&
	    s[p->path_b] != '/' && s[p->path_b] != '\\' &&
	    (r = sb_putc(out, '/')) != 0)
		return r;
	if ((r = path_write(out, s + p->path_b, p->path_e - p->path_b, bs,
	    dec, p->sp != NULL)) != 0)
		return r;
	if (p->query && ((r = sb_putc(out, '?')) != 0 ||
	    (r = comp_write(out, s + p->qb, p->qe - p->qb, 0, "")) != 0))
		return r;
	if (p->frag && ((r = sb_putc(out, '#')) != 0 ||
	    (r = comp_write(out, s + p->fb, p->fe - p->fb, 0, "")) != 0))
		return r;
	return 0;
}

/*
 * The canonical URL s[0..n): form is WHATWG's reading; when another
 * reading differs (RFC 3986's authority or '\', a host read two ways,
 * escaped slashes decoded) alt gets it and *amb is 1; a third distinct
 * reading is E_READINGS.  No NUL.
 */
static int
url_read(const unsigned char *s, size_t n, struct buf *form,
    struct buf *alt, int *amb)
{
	struct parts pp[2];
	struct buf host[2][2], cand = { 0 }, got[2];
	long port[2];
	int nr = 1, hamb[2] = { 0, 0 }, enc, a, h, d, ngot = 0, i, r;
	size_t j;

	*amb = 0;
	memset(host, 0, sizeof(host));
	memset(got, 0, sizeof(got));
	if (n > IDENT_MAX)
		return -BNC_ERR_TOO_LARGE;
	if (!clean_text(s, n))
		return -BNC_ERR_BAD_FORMAT;
	if ((r = url_split(s, n, 1, &pp[0])) != 0 ||
	    (r = auth_read(s, &pp[0], &host[0][0], &host[0][1], &hamb[0],
	    &port[0])) != 0)
		goto out;
	/* RFC 3986's reading, where a backslash makes one */
	if (pp[0].sp != NULL && memchr(s, '\\', pp[0].path_e) != NULL &&
	    url_split(s, n, 0, &pp[1]) == 0 && pp[1].hb < pp[1].he) {
		r = auth_read(s, &pp[1], &host[1][0], &host[1][1], &hamb[1],
		    &port[1]);
		if (r == E_READINGS || r == -BNC_ERR_TOO_LARGE)
			goto out;
		if (r == 0)
			nr = 2;
	}
	enc = path_has_enc(s + pp[0].path_b, pp[0].path_e - pp[0].path_b);
	for (a = 0; a < nr; a++)
		for (h = 0; h <= hamb[a]; h++)
			for (d = 0; d <= enc; d++) {
				sb_cut(&cand, 0);
				if ((r = url_write(s, &pp[a], a == 0 &&
				    pp[0].sp != NULL, &host[a][h], port[a], d,
				    &cand)) != 0)
					goto out;
				for (i = 0; i < ngot; i++)
					if (sb_eq(&got[i], &cand))
						break;
				if (i < ngot)
					continue;
				if (ngot == 2) {
					r = E_READINGS;
					goto out;
				}
				got[ngot++] = cand;
				memset(&cand, 0, sizeof(cand));
			}
	if ((r = buf_put(form, got[0].d, got[0].len)) != 0)
		goto out;
	if (ngot == 2) {
		*amb = 1;
		if (alt != NULL && (r = buf_put(alt, got[1].d,
		    got[1].len)) != 0)
			goto out;
	}
	r = 0;
 out:
	for (j = 0; j < 2; j++) {
		sb_free(&host[j][0]);
		sb_free(&host[j][1]);
		sb_free(&got[j]);
	}
	sb_free(&cand);
	return r;
}

/*
 * Mailboxes (RFC 5322 3.4, RFC 6532).
 */

enum tk {
	TK_END,
	TK_ATOM,
	TK_QUOTED,
	TK_LITERAL,
	TK_SPECIAL
};

struct tok {
	enum tk		 k;
	size_t		 b, e;		/* its bytes, quotes included */
};

struct lex {
	const unsigned char	*s;
	size_t			 len, i;
};

/* A character that may follow '\' or stand in a quoted string or a
 * comment: printable ASCII, tab, or a UTF-8 sequence; its length. */
static size_t
lex_char(const struct lex *lx, size_t i)
{
	uint32_t c;

	if (lx->s[i] == '\t' || (lx->s[i] >= ' ' && lx->s[i] < 0x7f))
		return 1;
	if (lx->s[i] < 0x80)
		return 0;
	return utf8_decode(lx->s + i, lx->len - i, &c);
}

/* Skips white space and comments (nested at most COMMENT_DEPTH). */
static int
lex_cfws(struct lex *lx)
{
	size_t k;
	int depth = 0;

	while (lx->i < lx->len) {
		if (depth == 0 && (lx->s[lx->i] == ' ' ||
		    lx->s[lx->i] == '\t')) {
			lx->i++;
			continue;
		}
		if (depth == 0 && lx->s[lx->i] != '(')
			return 0;
		if (lx->s[lx->i] == '(') {
			if (++depth > BNC_CANON_COMMENT_DEPTH)
				return -BNC_ERR_TOO_DEEP;
			lx->i++;
			continue;
		}
		if (lx->s[lx->i] == ')') {
			depth--;
			lx->i++;
			continue;
		}
		if (lx->s[lx->i] == '\\' && lx->i + 1 < lx->len)
			lx->i++;
		if ((k = lex_char(lx, lx->i)) == 0)
			return -BNC_ERR_BAD_FORMAT;
		lx->i += k;
	}
	return depth == 0 ? 0 : -BNC_ERR_BAD_FORMAT;
}

static int
lex_next(struct lex *lx, struct tok *t)
{
	unsigned char c;
	uint32_t cp;
	size_t k;
	int r;

	if ((r = lex_cfws(lx)) != 0)
		return r;
	t->b = lx->i;
	if (lx->i == lx->len) {
		t->k = TK_END;
		t->e = lx->i;
		return 0;
	}
	c = lx->s[lx->i];
	if (c == '"' || c == '[') {
		t->k = c == '"' ? TK_QUOTED : TK_LITERAL;
		for (lx->i++; lx->i < lx->len; lx->i += k) {
			if (lx->s[lx->i] == (c == '"' ? '"' : ']'))
				break;
			if (c == '[' && (lx->s[lx->i] == '[' ||
			    lx->s[lx->i] == '\\'))
				return -BNC_ERR_BAD_FORMAT;
			if (lx->s[lx->i] == '\\' && lx->i + 1 < lx->len)
				lx->i++;
			if ((k = lex_char(lx, lx->i)) == 0)
				return -BNC_ERR_BAD_FORMAT;
		}
		if (lx->i == lx->len)
			return -BNC_ERR_BAD_FORMAT;
		t->e = ++lx->i;
		return 0;
	}
	if (strchr(".@<>,;:", c) != NULL) {
		t->k = TK_SPECIAL;
		t->e = ++lx->i;
		return 0;
	}
	t->k = TK_ATOM;
	while (lx->i < lx->len) {
		c = lx->s[lx->i];
		if (IS(c, A_ATEXT))
			k = 1;
		else if (c >= 0x80 &&
		    (k = utf8_decode(lx->s + lx->i, lx->len - lx->i, &cp)) > 0)
			;
		else
			break;
		lx->i += k;
	}
	if (lx->i == t->b)
		return -BNC_ERR_BAD_FORMAT;
	t->e = lx->i;
	return 0;
}

static int
tok_is(const unsigned char *s, const struct tok *t, unsigned char c)
{
	return t->k == TK_SPECIAL && s[t->b] == c;
}

/* Appends the content of a quoted string token, unescaped. */
static int
quoted_put(struct buf *out, const unsigned char *s, const struct tok *t)
{
	size_t i;
	int r;

	for (i = t->b + 1; i + 1 < t->e; i++) {
		if (s[i] == '\\')
			i++;
		if ((r = sb_putc(out, s[i])) != 0)
			return r;
	}
	return 0;
}

/* Is s[0..n) a dot-atom (RFC 5322, RFC 6532)? */
static int
dot_atom(const unsigned char *s, size_t n)
{
	size_t i, k;
	uint32_t c;
	int prev_dot = 1;

	for (i = 0; i < n; i += k) {
		k = 1;
		if (s[i] == '.') {
			if (prev_dot)
				return 0;
			prev_dot = 1;
			continue;
		}
		if (!IS(s[i], A_ATEXT) &&
		    (s[i] < 0x80 || (k = utf8_decode(s + i, n - i, &c)) == 0))
			return 0;
		prev_dot = 0;
	}
	return n > 0 && !prev_dot;
}

/* A domain literal's canonical form: "[a.b.c.d]" or "[IPv6:...]". */
static int
literal_write(const unsigned char *s, size_t n, struct buf *out)
{
	uint16_t a6[8];
	size_t i, parts = 0, digits = 0;
	unsigned v = 0;
	char t[16];
	int r;

	if (n >= 5 && starts(s, n, "ipv6:")) {
		if (ipv6_read(s + 5, n - 5, a6) != 0)
			return -BNC_ERR_BAD_FORMAT;
		if ((r = buf_put(out, "[IPv6:", 6)) != 0 ||
		    (r = ipv6_write(a6, out)) != 0)
			return r;
		return sb_putc(out, ']');
	}
	if ((r = sb_putc(out, '[')) != 0)
		return r;
	for (i = 0; i <= n; i++) {
		if (i < n && IS(s[i], A_DIGIT) && digits < 3) {
			v = v * 10 + (s[i] - '0');
			digits++;
			continue;
		}
		if (digits == 0 || v > 255 || (i < n && s[i] != '.') ||
		    ++parts > 4)
			return -BNC_ERR_BAD_FORMAT;
		snprintf(t, sizeof(t), "%u%s", v, i < n ? "." : "");
		if ((r = buf_put(out, t, strlen(t))) != 0)
			return r;
		v = 0;
		digits = 0;
	}
	if (parts != 4)
		return -BNC_ERR_BAD_FORMAT;
	return sb_putc(out, ']');
}

/*
 * The addr-spec t[0..n) of s: local part (words joined by '.'), '@',
 * domain (atoms joined by '.', one trailing '.' allowed, or a literal).
 */
static int
addr_spec(const unsigned char *s, const struct tok *t, size_t n,
    struct buf *form, struct buf *alt, int *amb)
{
	struct buf local = { 0 }, dom = { 0 }, host = { 0 }, halt = { 0 };
	size_t i = 0, j;
	int r;

	*amb = 0;
	for (;;) {
		if (i == n || (t[i].k != TK_ATOM && t[i].k != TK_QUOTED)) {
			r = -BNC_ERR_BAD_FORMAT;
			goto out;
		}
		r = t[i].k == TK_ATOM ? buf_put(&local, s + t[i].b,
		    t[i].e - t[i].b) : quoted_put(&local, s, &t[i]);
		if (r != 0)
			goto out;
		if (++i < n && tok_is(s, &t[i], '.')) {
			if ((r = sb_putc(&local, '.')) != 0)
				goto out;
			i++;
			continue;
		}
		break;
	}
	if (local.len > LOCAL_MAX) {
		r = -BNC_ERR_TOO_LARGE;
		goto out;
	}
	if (i == n || !tok_is(s, &t[i], '@') || ++i == n) {
		r = -BNC_ERR_BAD_FORMAT;
		goto out;
	}
	if (t[i].k == TK_LITERAL) {
		if (i + 1 != n) {
			r = -BNC_ERR_BAD_FORMAT;
			goto out;
		}
		if ((r = literal_write(s + t[i].b + 1, t[i].e - t[i].b - 2,
		    &host)) != 0)
			goto out;
	} else {
		for (;;) {
			if (t[i].k != TK_ATOM) {
				r = -BNC_ERR_BAD_FORMAT;
				goto out;
			}
			if ((r = buf_put(&dom, s + t[i].b,
			    t[i].e - t[i].b)) != 0)
				goto out;
			if (++i == n)
				break;
			if (!tok_is(s, &t[i], '.')) {
				r = -BNC_ERR_BAD_FORMAT;
				goto out;
			}
			if ((r = sb_putc(&dom, '.')) != 0)
				goto out;
			if (++i == n)
				break;	/* the one trailing dot */
		}
		if ((r = host_read(dom.d, dom.len, 0, &host, &halt,
		    amb)) != 0)
			goto out;
		/* a host may hold what a mail domain may not (fullwidth
		 * brackets read as '(') */
		if (!dot_atom(host.d, host.len) ||
		    (*amb && !dot_atom(halt.d, halt.len))) {
			r = -BNC_ERR_BAD_FORMAT;
			goto out;
		}
	}
	for (j = 0; j < 1 + (*amb != 0); j++) {
		struct buf *o = j == 0 ? form : alt;

		if (o == NULL)
			continue;
		if (dot_atom(local.d, local.len))
			r = buf_put(o, local.d, local.len);
		else {
			size_t k;

			r = sb_putc(o, '"');
			for (k = 0; r == 0 && k < local.len; k++) {
				if (local.d[k] == '"' || local.d[k] == '\\')
					r = sb_putc(o, '\\');
				if (r == 0)
					r = sb_putc(o, local.d[k]);
			}
			if (r == 0)
				r = sb_putc(o, '"');
		}
		if (r != 0 || (r = sb_putc(o, '@')) != 0)
			goto out;
		r = j == 0 ? buf_put(o, host.d, host.len) :
		    buf_put(o, halt.d, halt.len);
		if (r != 0)
			goto out;
	}
	r = 0;
 out:
	sb_free(&local);
	sb_free(&dom);
	sb_free(&host);
	sb_free(&halt);
	return r;
}

/* The mailbox t[0..n): an addr-spec, or a name-addr. */
static int
mailbox_toks(const unsigned char *s, const struct tok *t, size_t n,
    struct buf *form, struct buf *alt, int *amb)
{
	size_t lt, gt, i;

	for (lt = 0; lt < n && !tok_is(s, &t[lt], '<'); lt++)
		;
	if (lt == n)
		return addr_spec(s, t, n, form, alt, amb);
	/* the display name: words and (obsolete) dots */
	for (i = 0; i < lt; i++)
		if (t[i].k != TK_ATOM && t[i].k != TK_QUOTED &&
		    !(i > 0 && tok_is(s, &t[i], '.')))
			return -BNC_ERR_BAD_FORMAT;
	gt = n - 1;
	if (n < lt + 3 || !tok_is(s, &t[gt], '>'))
		return -BNC_ERR_BAD_FORMAT;
	for (i = lt + 1; i < gt; i++)
		if (tok_is(s, &t[i], '<') || tok_is(s, &t[i], '>'))
			return -BNC_ERR_BAD_FORMAT;
	return addr_spec(s, t + lt + 1, gt - lt - 1, form, alt, amb);
}

/* One identity found: where it goes. */
struct idlist {
	struct canon_id	*v;
	size_t		 n, cap, max;
};

static int
idl_add(struct idlist *l, enum canon_kind kind, const struct buf *form,
    const struct buf *alt, int amb, size_t off, size_t len)
{
	struct canon_id *id;

	if (l->n == l->max)
		return -BNC_ERR_TOO_LARGE;
	if (l->n == l->cap) {
		l->cap = l->cap == 0 ? 8 : l->cap * 2;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	id = &l->v[l->n++];
	memset(id, 0, sizeof(*id));
	id->kind = kind;
	id->form = xstrndup(form->len > 0 ? (const char *)form->d : "",
	    form->len);
	if (amb) {
		id->flags = CANON_AMBIGUOUS;
		id->alt = xstrndup(alt->len > 0 ? (const char *)alt->d : "",
		    alt->len);
	}
	id->off = off;
	id->len = len;
	return 0;
}

/* Drops the identities from n on (a list read that failed halfway). */
static void
idl_cut(struct idlist *l, size_t n)
{
	while (l->n > n)
		canon_id_clear(&l->v[--l->n]);
}

static void
idl_free(struct idlist *l)
{
	canon_ids_free(l->v, l->n);
	memset(l, 0, sizeof(*l));
}

/*
 * The address list s[0..n) (base: its offset in the caller's input):
 * every part a mailbox, added to l; 1 if so, 0 if a part is not a
 * mailbox, < 0 on error.  Empty parts are skipped.
 */
static int
list_read(const unsigned char *s, size_t n, size_t base, struct idlist *l)
{
	struct lex lx = { s, n, 0 };
	struct tok *t = NULL, cur;
	struct buf form = { 0 }, alt = { 0 };
	size_t nt = 0, cap = 0, found = 0;
	int depth = 0, amb, r;

	for (;;) {
		if ((r = lex_next(&lx, &cur)) != 0)
			goto bad;
		if (cur.k == TK_END || (depth == 0 && (tok_is(s, &cur, ',') ||
		    tok_is(s, &cur, ';')))) {
			if (nt > 0) {
				if (t[nt - 1].e - t[0].b > IDENT_MAX) {
					r = -BNC_ERR_TOO_LARGE;
					goto out;
				}
				sb_cut(&form, 0);
				sb_cut(&alt, 0);
				if ((r = mailbox_toks(s, t, nt, &form, &alt,
				    &amb)) != 0)
					goto bad;
				if ((r = idl_add(l, CANON_MAILBOX, &form, &alt,
				    amb, base + t[0].b,
				    t[nt - 1].e - t[0].b)) != 0)
					goto out;
				found++;
			}
			nt = 0;
			if (cur.k == TK_END)
				break;
			continue;
		}
		if (tok_is(s, &cur, '<'))
			depth++;
		else if (tok_is(s, &cur, '>') && depth > 0)
			depth--;
		if (nt == cap) {
			cap = cap == 0 ? 16 : cap * 2;
			t = xreallocarray(t, cap, sizeof(*t));
		}
		t[nt++] = cur;
	}
	r = found > 0 ? 1 : 0;
	goto out;
 bad:
	/* not a mailbox; our own bounds and ambiguity stay errors */
	if (r == -BNC_ERR_BAD_FORMAT || r == -BNC_ERR_BAD_UTF8)
		r = 0;
 out:
	free(t);
	sb_free(&form);
	sb_free(&alt);
	return r;
}

/* The one mailbox s[0..n). */
static int
mbox_read(const unsigned char *s, size_t n, struct buf *form,
    struct buf *alt, int *amb)
{
	struct lex lx = { s, n, 0 };
	struct tok *t = NULL;
	size_t nt = 0, cap = 0;
	int r;

	*amb = 0;
	if (n > IDENT_MAX)
		return -BNC_ERR_TOO_LARGE;
	for (;;) {
		if (nt == cap) {
			cap = cap == 0 ? 16 : cap * 2;
			t = xreallocarray(t, cap, sizeof(*t));
		}
		if ((r = lex_next(&lx, &t[nt])) != 0)
			goto out;
		if (t[nt].k == TK_END)
			break;
		nt++;
	}
	r = mailbox_toks(s, t, nt, form, alt, amb);
 out:
	free(t);
	return r;
}

/*
 * Phones and IBANs.
 */

/* Is c one of the separators a phone number may hold between digits? */
static int
phone_sep(unsigned char c)
{
	return c == ' ' || c == '-' || c == '.';
}

/*
 * The phone number at s[i] ('+'): digits with, between two of them,
 * nothing, one of " -.", or one group "(...)" (opened by '(' or " (",
 * closed by ')' or ") "...).  Its canonical form ('+' and the digits,
 * NUL-terminated; d holds BNC_CANON_PHONE_MAX + 2) goes to d and *end is
 * after its last digit or the ')' after it.  1 if it is one, else 0.
 */
static int
phone_read(const unsigned char *s, size_t len, size_t i, size_t *end,
    char *d)
{
	size_t p = i + 1, q, nd = 0, g0 = 0, stop;
	int open = 0, grouped = 0, closing;

	if (p >= len || !IS(s[p], A_DIGIT))
		return 0;
	d[0] = '+';
	for (;;) {
		for (; p < len && IS(s[p], A_DIGIT); p++) {
			if (nd == BNC_CANON_PHONE_MAX)
				return 0;
			d[1 + nd++] = s[p];
		}
		stop = p;
		q = p;
		closing = 0;
		if (q < len && s[q] == ')' && open) {
			closing = 1;
			stop = ++q;
			if (q < len && phone_sep(s[q]))
				q++;
		} else {
			if (q < len && phone_sep(s[q]))
				q++;
			if (q < len && s[q] == '(' && !grouped)
				q++;
		}
		if (closing) {
			open = 0;
			/* "(0)" after the country code is never dialled */
			if (nd - g0 == 1 && d[nd] == '0' && g0 <= 3 && g0 > 0)
				nd--;
		}
		if (q == p || q >= len || !IS(s[q], A_DIGIT)) {
			*end = stop;
			break;
		}
		if (!closing && s[q - 1] == '(') {
			open = grouped = 1;
			g0 = nd;
		}
		p = q;
	}
	if (open || nd < BNC_CANON_PHONE_MIN)
		return 0;
	d[1 + nd] = '\0';
	return 1;
}

static unsigned
iban_len(unsigned char a, unsigned char b)
{
	size_t i;

	for (i = 0; i < NELEM(iban_lens); i++)
		if (iban_lens[i].cc[0] == upper(a) &&
		    iban_lens[i].cc[1] == upper(b))
			return iban_lens[i].len;
	return 0;
}

/* ISO 7064 mod 97-10 of the IBAN iban[0..n), rearranged. */
static unsigned
iban_mod97(const char *iban, size_t n)
{
	unsigned r = 0;
	size_t i;
	char c;

	for (i = 0; i < n; i++) {
		c = iban[(i + 4) % n];
		if (c >= '0' && c <= '9')
			r = (r * 10 + (unsigned)(c - '0')) % 97;
		else
			r = (r * 100 + (unsigned)(c - 'A' + 10)) % 97;
	}
	return r;
}

/*
 * The IBAN at s[i]: its country's length of letters and digits, compact
 * or in groups of four separated by single spaces.  Its canonical form
 * (out holds BNC_CANON_IBAN_MAX + 1) and *end after it; 1 if it is one
 * (the checksum holds), else 0.
 */
static int
iban_read(const unsigned char *s, size_t len, size_t i, size_t *end,
    char *out)
{
	size_t p = i, k = 0, want;
	int spaced = -1;

	if (len - i < 4 || !IS(s[i], A_ALPHA) || !IS(s[i + 1], A_ALPHA) ||
	    !IS(s[i + 2], A_DIGIT) || !IS(s[i + 3], A_DIGIT))
		return 0;
	if ((want = iban_len(s[i], s[i + 1])) == 0)
		return 0;
	while (k < want) {
		if (k > 0 && k % 4 == 0 && spaced != 0) {
			if (p + 1 < len && s[p] == ' ' &&
			    IS(s[p + 1], A_ALPHA | A_DIGIT)) {
				spaced = 1;
				p++;
			} else if (spaced == 1)
				return 0;
			else
				spaced = 0;
		}
		if (p >= len || !IS(s[p], A_ALPHA | A_DIGIT))
			return 0;
		out[k++] = upper(s[p++]);
	}
	out[k] = '\0';
	*end = p;
	return iban_mod97(out, k) == 1;
}

/*
 * Scheme addresses.
 */

static int
addr_scheme(const unsigned char *s, size_t n)
{
	size_t i;

	for (i = 0; i < NELEM(addr_schemes); i++)
		if (word_is(s, n, addr_schemes[i]))
			return (int)i;
	return -1;
}

/*
 * The canonical form of the scheme address s[0..n) (its ':' at c): its
 * address's escapes normalised as a path's; then a phone (*kind
 * CANON_PHONE) if that is one, else "scheme:address" (CANON_ADDR) with
 * the scheme in lower case and the domain after its last '@' (before any
 * "?;/#") read as a host, left as written if it is none.  Escapes first,
 * so the form reads as itself.
 */
static int
addr_write(const unsigned char *s, size_t n, size_t c, struct buf *form,
    struct buf *alt, int *amb, enum canon_kind *kind)
{
	struct buf a = { 0 }, host = { 0 }, halt = { 0 };
	char d[BNC_CANON_PHONE_MAX + 2];
	size_t i, at = 0, de;
	int j, r;

	*amb = 0;
	*kind = CANON_ADDR;
	if (n > IDENT_MAX)
		return -BNC_ERR_TOO_LARGE;
	if (c + 1 == n || !clean_text(s, n))
		return -BNC_ERR_BAD_FORMAT;
	if ((r = comp_write(&a, s + c + 1, n - c - 1, 1, "")) != 0)
		goto out;
	if (a.d[0] == '+' && phone_read(a.d, a.len, 0, &de, d) &&
	    de == a.len) {
		*kind = CANON_PHONE;
		r = buf_put(form, d, strlen(d));
		goto out;
	}
	for (i = 0; i < a.len && !strchr("?;/#", a.d[i]); i++)
		if (a.d[i] == '@')
			at = i + 1;
	de = i;
	if (at > 1 && at < de) {
		r = host_read(a.d + at, de - at, 0, &host, &halt, amb);
		if (r == E_READINGS)
			goto out;
		if (r != 0) {
			*amb = 0;
			at = 0;
		}
	} else
		at = 0;
	for (j = 0; j < 1 + (*amb != 0); j++) {
		struct buf *o = j == 0 ? form : alt;
		const struct buf *h = j == 0 ? &host : &halt;

		for (i = 0; i < c; i++)
			if ((r = sb_putc(o, lower(s[i]))) != 0)
				goto out;
		if ((r = sb_putc(o, ':')) != 0)
			goto out;
		if (at == 0)
			r = buf_put(o, a.d, a.len);
		else if ((r = buf_put(o, a.d, at)) == 0 &&
		    (r = buf_put(o, h->d, h->len)) == 0)
			r = buf_put(o, a.d + de, a.len - de);
		if (r != 0)
			goto out;
	}
	r = 0;
 out:
	sb_free(&a);
	sb_free(&host);
	sb_free(&halt);
	return r;
}

/*
 * Percent-decodes s[0..n) into out; a '%' that starts no escape is an
 * error (RFC 6068), and so is what does not decode to clean UTF-8.  If
 * map is not NULL, *map gets where each decoded byte was in s (the
 * caller frees it).
 */
static int
pct_decode(const unsigned char *s, size_t n, struct buf *out, size_t **map)
{
	size_t i, *m = NULL;
	int r;

	if (map != NULL)
		m = xreallocarray(NULL, n + 1, sizeof(*m));
	for (i = 0; i < n; i++) {
		if (m != NULL)
			m[out->len] = i;
		if (s[i] != '%')
			r = sb_putc(out, s[i]);
		else if (i + 2 < n && hexval(s[i + 1]) >= 0 &&
		    hexval(s[i + 2]) >= 0) {
			r = sb_putc(out, hexval(s[i + 1]) << 4 |
			    hexval(s[i + 2]));
			i += 2;
		} else
			r = -BNC_ERR_BAD_FORMAT;
		if (r != 0)
			goto bad;
	}
	if (!clean_text(out->d, out->len)) {
		r = -BNC_ERR_BAD_FORMAT;
		goto bad;
	}
	if (map != NULL) {
		m[out->len] = n;
		*map = m;
	}
	return 0;
 bad:
	free(m);
	return r;
}

/*
 * Public: the forms alone.
 */

void
canon_id_clear(struct canon_id *id)
{
	if (id == NULL)
		return;
	free(id->form);
	free(id->alt);
	memset(id, 0, sizeof(*id));
}

void
canon_ids_free(struct canon_id *ids, size_t n)
{
	size_t i;

	if (ids == NULL)
		return;
	for (i = 0; i < n; i++)
		canon_id_clear(&ids[i]);
	free(ids);
}

/* Hands a form (and its alt) to the caller's buffers, with NULs. */
static int
emit2(struct buf *out, struct buf *alt, int *flags, const struct buf *f,
    const struct buf *a, int amb)
{
	size_t om = buf_len(out), am = alt != NULL ? buf_len(alt) : 0;
	int r;

	if ((r = sb_emit(out, f)) != 0 ||
	    (amb && alt != NULL && (r = sb_emit(alt, a)) != 0)) {
		sb_back(out, om);
		if (alt != NULL)
			sb_back(alt, am);
		return r;
	}
	if (flags != NULL)
		*flags = amb ? CANON_AMBIGUOUS : 0;
	return 0;
}

int
canon_mailbox_alt(const char *s, size_t len, struct buf *out,
    struct buf *alt, int *flags)
{
	struct buf f = { 0 }, a = { 0 };
	int amb, r;

	if ((r = mbox_read((const unsigned char *)s, len, &f, &a,
	    &amb)) == 0)
		r = emit2(out, alt, flags, &f, &a, amb);
	sb_free(&f);
	sb_free(&a);
	return PUBLIC(r);
}

int
canon_mailbox(const char *s, size_t len, struct buf *out)
{
	return canon_mailbox_alt(s, len, out, NULL, NULL);
}

int
canon_url(const char *s, size_t len, struct buf *out, struct buf *alt,
    int *flags)
{
	struct buf f = { 0 }, a = { 0 };
	int amb, r;

	if ((r = url_read((const unsigned char *)s, len, &f, &a, &amb)) == 0)
		r = emit2(out, alt, flags, &f, &a, amb);
	sb_free(&f);
	sb_free(&a);
	return PUBLIC(r);
}

int
canon_host_alt(const char *s, size_t len, struct buf *out, struct buf *alt,
    int *flags)
{
	struct buf f = { 0 }, a = { 0 };
	int amb, r;

	if ((r = host_read((const unsigned char *)s, len, 0, &f, &a,
	    &amb)) == 0)
		r = emit2(out, alt, flags, &f, &a, amb);
	sb_free(&f);
	sb_free(&a);
	return PUBLIC(r);
}

int
canon_host(const char *s, size_t len, struct buf *out, int *flags)
{
	return canon_host_alt(s, len, out, NULL, flags);
}

/* Skips a "tel:" or "sms:" prefix, in any case. */
static size_t
phone_prefix(const unsigned char *s, size_t n)
{
	if (starts(s, n, "tel:") || starts(s, n, "sms:"))
		return 4;
	return 0;
}

int
canon_phone(const char *s, size_t len, struct buf *out)
{
	const unsigned char *u = (const unsigned char *)s;
	char d[BNC_CANON_PHONE_MAX + 2];
	size_t i = phone_prefix(u, len), end;

	if (i >= len || u[i] != '+' || !phone_read(u, len, i, &end, d) ||
	    end != len)
		return -BNC_ERR_BAD_FORMAT;
	return buf_put(out, d, strlen(d) + 1);
}

int
canon_iban(const char *s, size_t len, struct buf *out)
{
	char v[BNC_CANON_IBAN_MAX + 1];
	size_t end;

	if (!iban_read((const unsigned char *)s, len, 0, &end, v) ||
	    end != len)
		return -BNC_ERR_BAD_FORMAT;
	return buf_put(out, v, strlen(v) + 1);
}

int
canon_punycode_encode(const uint32_t *cp, size_t n, struct buf *out)
{
	size_t mark = buf_len(out);
	int r;

	if ((r = puny_enc(cp, n, out)) != 0 || (r = sb_putc(out, 0)) != 0)
		sb_back(out, mark);
	return r;
}

int
canon_punycode_decode(const char *s, size_t len, uint32_t *cp, size_t *n,
    size_t max)
{
	*n = 0;
	return puny_dec((const unsigned char *)s, len, cp, n, max);
}

/*
 * Public: whole values and address lists.
 */

/* A mailto: URI s[0..n): its mailboxes (to-part, to/cc/bcc) added to l;
 * *query says whether it had a query. */
static int
mailto_read(const unsigned char *s, size_t n, size_t base,
    struct idlist *l, int *query)
{
	struct buf dec = { 0 };
	size_t q, a, e, eq;
	int r;

	for (q = 7; q < n && s[q] != '?'; q++)
		;
	*query = q < n;
	if (q > 7) {
		if ((r = pct_decode(s + 7, q - 7, &dec, NULL)) != 0 ||
		    (r = list_read(dec.d, dec.len, base + 7, l)) < 0)
			goto out;
		if (r == 0) {
			r = -BNC_ERR_BAD_FORMAT;
			goto out;
		}
	}
	for (a = q + 1; a < n; a = e + 1) {
		for (e = a; e < n && s[e] != '&'; e++)
			;
		for (eq = a; eq < e && s[eq] != '='; eq++)
			;
		if (!(word_is(s + a, eq - a, "to") ||
		    word_is(s + a, eq - a, "cc") ||
		    word_is(s + a, eq - a, "bcc")) || eq + 1 >= e)
			continue;
		sb_cut(&dec, 0);
		if ((r = pct_decode(s + eq + 1, e - eq - 1, &dec, NULL)) != 0 ||
		    (r = list_read(dec.d, dec.len, base + eq + 1, l)) < 0)
			goto out;
		if (r == 0) {
			r = -BNC_ERR_BAD_FORMAT;
			goto out;
		}
	}
	r = 0;
 out:
	sb_free(&dec);
	return r;
}

/* Does s[0..n) hold a label separator? */
static int
has_dot(const unsigned char *s, size_t n)
{
	size_t i, k;
	uint32_t c;

	for (i = 0; i < n; i += k)
		if ((k = utf8_decode(s + i, n - i, &c)) == 0)
			k = 1;
		else if (c == '.' || is_dot(c))
			return 1;
	return 0;
}

/*
 * Is s[a..e) the authority of a scheme-relative URL: a host with a dot
 * (or an IP literal), so that "//TODO", "// note" and a path's
 * "//home/x" are none?
 */
static int
relative_host(const unsigned char *s, size_t a, size_t e)
{
	return a < e && (s[a] == '[' || has_dot(s + a, e - a));
}

/* '/' or '\\', which WHATWG reads alike in an http(s) URL. */
static int
is_slash(unsigned char c)
{
	return c == '/' || c == '\\';
}

/* The end of the authority of the URL "//host..." at s[0..n). */
static size_t
relative_end(const unsigned char *s, size_t n)
{
	size_t e;

	for (e = 2; e < n && s[e] != '/' && s[e] != '?' && s[e] != '#' &&
	    s[e] != '\\'; e++)
		;
	return e;
}

/*
 * The URL "//host..." at s[0..n) read as an https: one, the scheme a
 * page or a mail client fetches it with (<img src="//host/t.gif"> in a
 * mail, "//host/x" as a link's target): its host is judged as any
 * URL's.  -BNC_ERR_BAD_FORMAT if it is none.
 */
static int
relative_read(const unsigned char *s, size_t n, struct buf *form,
    struct buf *alt, int *amb)
{
	struct buf u = { 0 };
	int r;

	if (n > IDENT_MAX)
		return -BNC_ERR_TOO_LARGE;
	if ((r = buf_put(&u, "https:", 6)) == 0 &&
	    (r = buf_put(&u, (const char *)s, n)) == 0)
		r = url_read((const unsigned char *)u.d, u.len, form, alt,
		    amb);
	sb_free(&u);
	return r;
}

static int
whole_read(const unsigned char *s, size_t n, size_t base,
    struct canon_id *out)
{
	struct idlist l = { NULL, 0, 0, BNC_CANON_IDS_MAX };
	struct buf f = { 0 }, a = { 0 };
	char d[BNC_CANON_IBAN_MAX + 2];
	size_t sl, end;
	enum canon_kind kind = CANON_NONE;
	int amb = 0, query, r;

	sl = scheme_len(s, n);
	/* "scheme://" is a URL whatever the scheme, as canon_scan reads it
	 * and WHATWG does ("mailto://host" too) */
	if (sl > 0 && (special_find(s, sl) != NULL ||
	    (sl + 2 < n && s[sl + 1] == '/' && s[sl + 2] == '/'))) {
		if ((r = url_read(s, n, &f, &a, &amb)) != 0)
			goto out;
		kind = CANON_URL;
	} else if (sl == 6 && word_is(s, 6, "mailto")) {
		if ((r = mailto_read(s, n, base, &l, &query)) != 0)
			goto out;
		if (query || l.n != 1) {
			r = 0;
			goto out;
		}
		*out = l.v[0];
		l.n = 0;
		out->off = base;
		out->len = n;
		r = 1;
		goto out;
	} else if (sl > 0 && addr_scheme(s, sl) >= 0) {
		r = addr_write(s, n, sl, &f, &a, &amb, &kind);
		if (r == -BNC_ERR_BAD_FORMAT) {
			r = 0;
			goto out;
		}
		if (r != 0)
			goto out;
	} else if (n > 2 && is_slash(s[0]) && is_slash(s[1]) &&
	    !is_slash(s[2]) && relative_host(s, 2, relative_end(s, n))) {
		/*
		 * "//corp.example?@evil.example" is a mailbox to a mail
		 * server and a URL to a fetcher: no single identity.
		 */
		if (memchr(s, '@', n) != NULL &&
		    mbox_read(s, n, &f, &a, &amb) == 0) {
			r = 0;
			goto out;
		}
		sb_cut(&f, 0);
		sb_cut(&a, 0);
		if ((r = relative_read(s, n, &f, &a, &amb)) != 0)
			goto out;
		kind = CANON_URL;
	} else if (memchr(s, '@', n) != NULL) {
		r = mbox_read(s, n, &f, &a, &amb);
		if (r == -BNC_ERR_BAD_FORMAT || r == -BNC_ERR_BAD_UTF8) {
			r = 0;
			goto out;
		}
		if (r != 0)
			goto out;
		kind = CANON_MAILBOX;
	} else if (s[0] == '+') {
		if (!phone_read(s, n, 0, &end, d) || end != n) {
			r = 0;
			goto out;
		}
		kind = CANON_PHONE;
		if ((r = buf_put(&f, d, strlen(d))) != 0)
			goto out;
	} else if (iban_read(s, n, 0, &end, d) && end == n) {
		kind = CANON_IBAN;
		if ((r = buf_put(&f, d, strlen(d))) != 0)
			goto out;
	} else if (s[0] == '[' || has_dot(s, n)) {
		r = host_read(s, n, 0, &f, &a, &amb);
		if (r == -BNC_ERR_BAD_FORMAT || r == -BNC_ERR_BAD_UTF8) {
			r = 0;
			goto out;
		}
		if (r != 0)
			goto out;
		/* "Hello." is a word: a host has two labels, or is an
		 * address (and its form reads as itself) */
		if (f.d[0] != '[' && memchr(f.d, '.', f.len) == NULL) {
			r = 0;
			goto out;
		}
		kind = CANON_HOST;
	} else {
		r = 0;
		goto out;
	}
	if ((r = idl_add(&l, kind, &f, &a, amb, base, n)) != 0)
		goto out;
	*out = l.v[0];
	l.n = 0;
	r = 1;
 out:
	idl_free(&l);
	sb_free(&f);
	sb_free(&a);
	return r;
}

/* Another place's start: "://", or a parameter's value "//host" (a
 * redirect's target without its scheme). */
static int
names_target(const char *s)
{
	return strstr(s, "://") != NULL || strstr(s, "=//") != NULL;
}

/*
 * Does s, the rest of a URL after its "://", name another place, as
 * written or once its percent-escapes are decoded (up to
 * BNC_URI_DECODE_ROUNDS times, as a server that decodes a parameter
 * twice reads it)?
 */
static int
nested_target(const char *s)
{
	char *d, *w;
	const char *r;
	int i, changed = 1, hit;

	if (names_target(s))
		return 1;
	if (strchr(s, '%') == NULL)
		return 0;
	d = xstrdup(s);
	for (i = 0, hit = 0; i < BNC_URI_DECODE_ROUNDS && changed && !hit;
	    i++) {
		changed = 0;
		for (r = w = d; *r != '\0'; r++) {
			if (r[0] == '%' && hexval(r[1]) >= 0 &&
			    hexval(r[2]) >= 0 && (r[1] != '0' || r[2] != '0')) {
				*w++ = (char)(hexval(r[1]) << 4 | hexval(r[2]));
				r += 2;
				changed = 1;
			} else
				*w++ = *r;
		}
		*w = '\0';
		hit = names_target(d);
	}
	free(d);
	return hit;
}

/* A URL inside a URL (a list joined by a comma, a redirect's target,
 * percent-encoded or not, ?next=//host too): the request may go to
 * either. */
static int
url_in_url(const struct canon_id *id)
{
	const char *p;

	return id->kind == CANON_URL && (((p = strstr(id->form, "://")) !=
	    NULL && nested_target(p + 3)) || (id->alt != NULL &&
	    (p = strstr(id->alt, "://")) != NULL && nested_target(p + 3)));
}

/* Does s name another identity besides id? */
static int
names_another(const char *s, size_t n, const struct canon_id *id)
{
	struct canon_id *ids = NULL;
	size_t nids = 0, i;
	int other = 0;

	/* two identities the scanner tells apart: the value names both
	 * (one scanned identity is this one, spelt as prose ends it) */
	(void)canon_scan(s, n, BNC_CANON_IDS_MAX, &ids, &nids);
	for (i = 1; i < nids && !other; i++)
		other = strcmp(ids[i].form, ids[0].form) != 0;
	canon_ids_free(ids, nids);
	return other;
}

/* Any ASCII white space in s[0..n)? */
static int
has_space(const unsigned char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (IS(s[i], A_SPACE))
			return 1;
	return 0;
}

int
canon_whole(const char *s, size_t len, struct canon_id *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t b = 0, e = len;
	int r;

	memset(out, 0, sizeof(*out));
	while (b < e && IS(u[b], A_SPACE))
		b++;
	while (e > b && IS(u[e - 1], A_SPACE))
		e--;
	if (e - b > IDENT_MAX)
		return -BNC_ERR_TOO_LARGE;
	if (b == e)
		return 0;
	r = whole_read(u + b, e - b, b, out);
	/*
	 * A URL or host with white space inside is one place to a WHATWG
	 * parser (it escapes the space) and two to a receiver that splits
	 * its argument on spaces: no single identity.
	 */
	if (r == 1 && (out->kind == CANON_URL || out->kind == CANON_HOST ||
	    out->kind == CANON_ADDR) && has_space(u + b, e - b)) {
		canon_id_clear(out);
		r = 0;
	}
	/*
	 * A value that names another identity besides (a comment holding
	 * an address, two URLs joined by a comma) is no single one: a
	 * receiver that picks identities out of it may take either.  A
	 * value already in its canonical form holds no decoration to hide
	 * one in (and a form stays a fixed point).
	 */
	if (r == 1 && (url_in_url(out) || ((strlen(out->form) != e - b ||
	    memcmp(out->form, s + b, e - b) != 0) &&
	    names_another(s + b, e - b, out)))) {
		canon_id_clear(out);
		r = 0;
	}
	return PUBLIC(r);
}

int
canon_addrlist(const char *s, size_t len, size_t max, struct canon_id **ids,
    size_t *nids)
{
	struct idlist l = { NULL, 0, 0, 0 };
	int r;

	*ids = NULL;
	*nids = 0;
	l.max = max < BNC_CANON_IDS_MAX ? max : BNC_CANON_IDS_MAX;
	r = list_read((const unsigned char *)s, len, 0, &l);
	if (r == 1 && l.n > 0) {
		*ids = l.v;
		*nids = l.n;
		return l.n > INT32_MAX ? -BNC_ERR_TOO_LARGE : (int)l.n;
	}
	idl_free(&l);
	return PUBLIC(r);
}

/*
 * The scanner (canon_scan).  One pass over the text; at each anchor one
 * scanner looks for the identity the anchor can belong to.  A scanner
 * answers 1 (found and added: *next is after it), 0 (none here: the pass
 * goes on at *next), or < 0 (the scan stops).
 */

struct scan {
	const unsigned char	*s;
	size_t			 len;
	size_t			 floor;		/* end of the last identity */
	int			 no_mailto;	/* inside a mailto's fields */
	struct idlist		*ids;
};

/* Errors about the text, not about one would-be identity in it. */
static int
fatal(int r)
{
	return r == E_READINGS || r == -BNC_ERR_TOO_LARGE ||
	    r == -BNC_ERR_TOO_DEEP || r == -BNC_ERR_ALLOC ||
	    r == -BNC_ERR_INTERNAL;
}

static int	scan_text(struct scan *, size_t, size_t);

/* Does s[i] end a word of free text (white space, a control, other
 * scripts' punctuation, a byte that is not UTF-8)?  *k gets the length
 * of the character there. */
static int
text_stop(const struct scan *sc, size_t i, size_t *k)
{
	uint32_t c;

	*k = 1;
	if (sc->s[i] < 0x80)
		return IS(sc->s[i], A_SPACE) || sc->s[i] < 0x20 ||
		    sc->s[i] == 0x7f;
	if ((*k = utf8_decode(sc->s + i, sc->len - i, &c)) == 0) {
		*k = 1;
		return 1;
	}
	return !cp_word(c);
}

/* Does the character before s[b] end a word (or is there none)? */
static int
word_before(const struct scan *sc, size_t b, uint16_t join)
{
	uint32_t c;

	if (b == 0)
		return 1;
	if (sc->s[b - 1] < 0x80)
		return !IS(sc->s[b - 1], join);
	return u8_prev(sc->s, 0, b, &c) == 0 || !cp_word(c);
}

/* Can a phone or an IBAN start at s[b] (not inside a longer number,
 * word or address)? */
static int
word_start(const struct scan *sc, size_t b)
{
	return word_before(sc, b, A_JOIN) && !(b > 0 &&
	    (sc->s[b - 1] == '.' || sc->s[b - 1] == '-'));
}

/* Is a phone or an IBAN at s[b..e) a word of its own? */
static int
word_alone(const struct scan *sc, size_t b, size_t e)
{
	const unsigned char *s = sc->s;
	size_t k;

	if (!word_start(sc, b))
		return 0;
	if (e == sc->len)
		return 1;
	if (s[e] >= 0x80)
		return text_stop(sc, e, &k);
	if (IS(s[e], A_JOIN))
		return 0;
	return !((s[e] == '.' || s[e] == '-') && e + 1 < sc->len &&
	    IS(s[e + 1], A_ALPHA | A_DIGIT));
}

/* The closing mark of the mark before s[b]: '"', '\'', '`', '<'. */
static unsigned char
closer(const struct scan *sc, size_t b)
{
	unsigned char open = b > 0 ? sc->s[b - 1] : 0;

	if (open == '"' || open == '\'' || open == '`')
		return open;
	return open == '<' ? '>' : 0;
}

/* The first byte at or after from that ends a URL or an address begun
 * at b (astop: also the ASCII that ends an address); reads no further
 * than IDENT_MAX past b. */
static size_t
run_stop(const struct scan *sc, size_t b, size_t from, int astop)
{
	unsigned char close = closer(sc, b);
	size_t e, k;

	for (e = from; e < sc->len && e - b <= IDENT_MAX; e += k)
		if (text_stop(sc, e, &k) || (close != 0 &&
		    sc->s[e] == close) || (astop && IS(sc->s[e], A_ASTOP)))
			break;
	return e;
}

/* s[b..e) less the punctuation that ends a sentence after it, and
 * closing brackets that it does not open; not below lo. */
static size_t
run_trim(const struct scan *sc, size_t b, size_t lo, size_t e)
{
	const unsigned char *s = sc->s;
	long paren = 0, brack = 0, brace = 0;
	size_t i;

	for (i = b; i < e; i++) {
		paren += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
		brack += s[i] == '[' ? 1 : s[i] == ']' ? -1 : 0;
		brace += s[i] == '{' ? 1 : s[i] == '}' ? -1 : 0;
	}
	for (; e > lo; e--) {
		if (s[e - 1] == ')' && paren < 0)
			paren++;
		else if (s[e - 1] == ']' && brack < 0)
			brack++;
		else if (s[e - 1] == '}' && brace < 0)
			brace++;
		else if (!IS(s[e - 1], A_TRAIL) || s[e - 1] == ')' ||
		    s[e - 1] == ']' || s[e - 1] == '}')
			break;
	}
	return e;
}

/*
 * The domain of a mailbox whose '@' is just before d: a run of domain
 * characters (ASCII letters, digits, '-', '_', '.', other scripts'
 * letters and marks, invisible characters, label separators), less a
 * sentence's '.' after it.  Its end (d: none); past IDENT_MAX, the end
 * of what was read.
 */
static size_t
scan_domain(const struct scan *sc, size_t d)
{
	const unsigned char *s = sc->s;
	size_t e = d, k;
	uint32_t c;

	while (e < sc->len && e - d <= IDENT_MAX) {
		if (s[e] < 0x80) {
			if (!IS(s[e], A_DOMAIN))
				break;
			e++;
			continue;
		}
		if ((k = utf8_decode(s + e, sc->len - e, &c)) == 0 ||
		    (!is_dot(c) && !cp_word(c)))
			break;
		e += k;
	}
	if (e - d > IDENT_MAX)
		return e;
	for (;;) {
		if (e > d && (s[e - 1] == '.' || s[e - 1] == '-' ||
		    s[e - 1] == '_'))
			e--;
		else if (e >= d + 3 && u8_prev(s, d, e, &c) == 3 &&
		    is_dot(c))
			e -= 3;
		else
			break;
	}
	return e;
}

/* A comment that ends just before s[b] (")@"): where it starts in
 * *start, else b.  It does not reach back past a '@' or LOCAL_MAX. */
static int
comment_back(const struct scan *sc, size_t b, size_t *start)
{
	size_t p;
	int depth = 0;

	*start = b;
	if (b == sc->floor || sc->s[b - 1] != ')')
		return 0;
	for (p = b; p > sc->floor && b - p <= LOCAL_MAX; p--) {
		if (sc->s[p - 1] == '@')
			return 0;
		if (sc->s[p - 1] == ')' && ++depth > BNC_CANON_COMMENT_DEPTH)
			return -BNC_ERR_TOO_DEEP;
		if (sc->s[p - 1] == '(' && --depth == 0) {
			*start = p - 1;
			return 0;
		}
	}
	return 0;
}

/* Comments that start at s[d] ("@("): their end in *end, else d. */
static int
comment_fwd(const struct scan *sc, size_t d, size_t *end)
{
	struct lex lx;
	int r;

	*end = d;
	if (d >= sc->len || sc->s[d] != '(')
		return 0;
	lx.s = sc->s;
	lx.len = sc->len - d < LOCAL_MAX ? sc->len : d + LOCAL_MAX;
	lx.i = d;
	if ((r = lex_cfws(&lx)) == -BNC_ERR_TOO_DEEP)
		return r;
	if (r == 0)
		*end = lx.i;
	return 0;
}

/* s[lb..a) '@' and the domain after it, as one mailbox. */
static int
scan_mailbox(struct scan *sc, size_t lb, size_t a, size_t *next)
{
	struct buf f = { 0 }, alt = { 0 };
	size_t d, e;
	int amb, r;

	if ((r = comment_fwd(sc, a + 1, &d)) != 0)
		return r;
	if ((e = scan_domain(sc, d)) == d)
		return 0;
	if (e - d > IDENT_MAX)
		return -BNC_ERR_TOO_LARGE;
	r = mbox_read(sc->s + lb, e - lb, &f, &alt, &amb);
	if (r == 0)
		r = idl_add(sc->ids, CANON_MAILBOX, &f, &alt, amb, lb, e - lb);
	sb_free(&f);
	sb_free(&alt);
	if (r != 0)
		return fatal(r) ? r : 0;
	*next = e;
	return 1;
}

/* '@' at a: the local part before it (and a comment next to it).  A
 * local part longer than LOCAL_MAX is no mailbox's (none is delivered). */
static int
scan_at(struct scan *sc, size_t a, size_t *next)
{
	const unsigned char *s = sc->s;
	size_t b, lb, k;
	uint32_t c;
	int r;

	if ((r = comment_back(sc, a, &b)) != 0)
		return r;
	for (lb = b; lb > sc->floor; lb -= k) {
		if (s[lb - 1] < 0x80) {
			if (!IS(s[lb - 1], A_LOCAL))
				break;
			k = 1;
		} else if ((k = u8_prev(s, sc->floor, lb, &c)) == 0 ||
		    !cp_word(c))
			break;
		if (b - (lb - k) > LOCAL_MAX)
			return 0;
	}
	while (lb < b && s[lb] == '.')
		lb++;
	if (lb == b)
		return 0;
	return scan_mailbox(sc, lb, a, next);
}

/* '"' at q: a quoted local part, when a '@' follows it. */
static int
scan_quoted(struct scan *sc, size_t q, size_t *next)
{
	const unsigned char *s = sc->s;
	size_t p, a;
	int r;

	if (q > 0 && s[q - 1] == '\\')
		return 0;
	for (p = q + 1; p < sc->len && p - q <= LOCAL_MAX + 1; p++) {
		if (s[p] == '"')
			break;
		if (s[p] == '\\')
			p++;
		else if (s[p] < 0x20 && s[p] != '\t')
			return 0;
	}
	/* no local part that long is any mailbox's */
	if (p >= sc->len || s[p] != '"' || p - q > LOCAL_MAX + 1)
		return 0;
	if ((r = comment_fwd(sc, p + 1, &a)) != 0)
		return r;
	if (a >= sc->len || s[a] != '@')
		return 0;
	return scan_mailbox(sc, q, a, next);
}

/*
 * The end of the authority that starts at s[a], of a URL begun at s[b]:
 * its path, query or fragment (with special, a backslash too), the mark that
 * closes the one before b, or the end of the word; less the punctuation
 * that ends a sentence when no path follows.
 */
static int
auth_end(const struct scan *sc, size_t b, size_t a, int special,
    size_t *aep)
{
	const unsigned char *s = sc->s;
	unsigned char close = closer(sc, b);
	size_t ae, k;
	uint32_t cp;

	for (ae = a; ae < sc->len && ae - a <= IDENT_MAX; ae += k) {
		k = 1;
		if (s[ae] == '/' || s[ae] == '?' || s[ae] == '#' ||
		    (special && s[ae] == '\\') ||
		    (close != 0 && s[ae] == close))
			break;
		/* a label separator of another script stays in a host */
		if (s[ae] >= 0x80 && (k = utf8_decode(s + ae, sc->len - ae,
		    &cp)) != 0 && is_dot(cp))
			continue;
		if (text_stop(sc, ae, &k))
			break;
	}
	if (ae - a > IDENT_MAX)
		return -BNC_ERR_TOO_LARGE;
	if (ae == sc->len || !(s[ae] == '/' || s[ae] == '?' ||
	    s[ae] == '#' || s[ae] == '\\'))
		ae = run_trim(sc, b, a, ae);
	*aep = ae;
	return 0;
}

/*
 * The URL s[b..), its authority ending at ae, added to the scan's list
 * (relative: "//host...", read as https:); one that is no URL after all
 * is passed over whole.
 */
static int
url_add(struct scan *sc, size_t b, size_t ae, int relative, size_t *next)
{
	struct buf f = { 0 }, alt = { 0 };
	size_t e;
	int amb, r;

	e = run_trim(sc, b, ae, run_stop(sc, b, ae, 0));
	if (e - b > IDENT_MAX)
		return -BNC_ERR_TOO_LARGE;
	r = relative ? relative_read(sc->s + b, e - b, &f, &alt, &amb) :
	    url_read(sc->s + b, e - b, &f, &alt, &amb);
	if (r == 0)
		r = idl_add(sc->ids, CANON_URL, &f, &alt, amb, b, e - b);
	sb_free(&f);
	sb_free(&alt);
	if (r != 0 && fatal(r))
		return r;
	*next = e;
	return r == 0;
}

/*
 * A URL whose scheme is s[b..c) and ':' at c (special: WHATWG lets it go
 * without "//").  Its authority is checked first: a URL that is none
 * costs only its authority, which ends before the next URL's slashes.
 */
static int
scan_url(struct scan *sc, size_t b, size_t c, int special, size_t *next)
{
	const unsigned char *s = sc->s;
	struct parts p;
	struct buf h = { 0 }, ha = { 0 };
	size_t a = c + 1, ae;
	long port;
	int amb, r;

	if (special)
		while (a < sc->len && (s[a] == '/' || s[a] == '\\'))
			a++;
	else
		a += 2;
	if ((r = auth_end(sc, b, a, special, &ae)) != 0)
		return r;
	/* the authority alone, as WHATWG splits it */
	if ((r = url_split(s + b, ae - b, 1, &p)) == 0)
		r = auth_read(s + b, &p, &h, &ha, &amb, &port);
	sb_free(&h);
	sb_free(&ha);
	if (r != 0)
		return fatal(r) ? r : 0;
	return url_add(sc, b, ae, 0, next);
}

/*
 * "//" at i that no scheme stands before (or a backslash for either
 * slash: WHATWG reads one as a slash under an http(s) page, and a
 * Windows mail client fetches a UNC path over SMB): a scheme-relative
 * URL when it follows white space or an opening mark ('"', '(', '=',
 * ...) and its authority names a host.  Read as scan_url reads
 * "https://".
 */
static int
scan_slashes(struct scan *sc, size_t i, size_t *next)
{
	const unsigned char *s = sc->s;
	size_t a = i + 2, ae;
	int r;

	if (a >= sc->len || !is_slash(s[i + 1]) || is_slash(s[a]) ||
	    (i > 0 && !IS(s[i - 1], A_OPEN)))
		return 0;
	if ((r = auth_end(sc, i, a, 1, &ae)) != 0)
		return r;
	if (!relative_host(s, a, ae))
		return 0;
	return url_add(sc, i, ae, 1, next);
}

/*
 * One part of a mailto: (its to-part, or a field's value): when recip,
 * its comma-separated pieces are mailbox lists once percent-decoded,
 * each mailbox with its bytes as written as its span; a piece that is
 * not one, and a part that names no recipients, are scanned as free text
 * (with no mailto: inside, so this goes one level deep).
 */
static int
mailto_part(struct scan *sc, size_t pb, size_t fe, int recip)
{
	struct scan in = *sc;
	struct buf dec = { 0 };
	struct canon_id *id;
	size_t pe, i, before, *map = NULL;
	int r = 0;

	in.no_mailto = 1;
	for (; pb < fe; pb = pe + 1) {
		for (pe = pb; recip && pe < fe && sc->s[pe] != ','; pe++)
			;
		if (!recip)
			pe = fe;
		before = sc->ids->n;
		sb_cut(&dec, 0);
		free(map);
		map = NULL;
		r = 0;
		if (recip && pct_decode(sc->s + pb, pe - pb, &dec, &map) == 0)
			r = list_read(dec.d, dec.len, 0, sc->ids);
		/* a part or local part too long is no mailbox list, as in
		 * text; a full list of identities is the scan's end */
		if (r == -BNC_ERR_TOO_LARGE && sc->ids->n < sc->ids->max)
			r = 0;
		if (r < 0) {
			/* not one of a list read halfway is kept */
			idl_cut(sc->ids, before);
			break;
		}
		if (r == 1) {
			for (i = before; i < sc->ids->n; i++) {
				id = &sc->ids->v[i];
				id->len = map[id->off + id->len] - map[id->off];
				id->off = pb + map[id->off];
			}
			continue;
		}
		idl_cut(sc->ids, before);
		in.floor = pb;
		if ((r = scan_text(&in, pb, pe)) != 0)
			break;
	}
	free(map);
	sb_free(&dec);
	return r < 0 ? r : 0;
}

/* A mailto: at s[b..e): its to-part and its to, cc and bcc fields;
 * the other fields (subject, body) as free text. */
static int
scan_mailto(struct scan *sc, size_t b, size_t e, size_t *next)
{
	const unsigned char *s = sc->s;
	size_t q, a, fe, eq;
	int r;

	if (e - b > IDENT_MAX)
		return -BNC_ERR_TOO_LARGE;
	for (q = b + 7; q < e && s[q] != '?'; q++)
		;
	if ((r = mailto_part(sc, b + 7, q, 1)) != 0)
		return r;
	for (a = q + 1; a < e; a = fe + 1) {
		for (fe = a; fe < e && s[fe] != '&'; fe++)
			;
		for (eq = a; eq < fe && s[eq] != '='; eq++)
			;
		if (eq < fe && (r = mailto_part(sc, eq + 1, fe,
		    word_is(s + a, eq - a, "to") ||
		    word_is(s + a, eq - a, "cc") ||
		    word_is(s + a, eq - a, "bcc"))) != 0)
			return r;
	}
	*next = e;
	return 1;
}

/* A phone after "scheme:" at c (the scheme at b): inside the address,
 * which white space ends, as it does when the address is a whole value. */
static int
scan_addr_phone(struct scan *sc, size_t b, size_t c, size_t *next)
{
	struct buf f = { 0 };
	char d[BNC_CANON_PHONE_MAX + 2];
	size_t end;
	int r;

	if (c + 1 >= sc->len || sc->s[c + 1] != '+' ||
	    !phone_read(sc->s, run_stop(sc, b, c + 1, 1), c + 1, &end, d) ||
	    !word_alone(sc, c + 1, end))
		return 0;
	r = buf_put(&f, d, strlen(d));
	if (r == 0)
		r = idl_add(sc->ids, CANON_PHONE, &f, NULL, 0, c + 1,
		    end - c - 1);
	sb_free(&f);
	*next = end;
	return r < 0 ? r : 1;
}

/*
 * ':' at c: a URL or a scheme address, if a scheme ends here.  The
 * scheme starts at a letter: leading digits and signs of its run are not
 * part of it ("1https:" is "https:"), as the taint index reads it.
 */
static int
scan_colon(struct scan *sc, size_t c, size_t *next)
{
	const unsigned char *s = sc->s;
	struct buf f = { 0 }, alt = { 0 };
	enum canon_kind kind;
	size_t b, e;
	int special, amb, r;

	for (b = c; b > sc->floor && c - b <= SCHEME_MAX &&
	    IS(s[b - 1], A_SCHEME); b--)
		;
	if (c - b > SCHEME_MAX)
		return 0;
	while (b < c && !IS(s[b], A_ALPHA))
		b++;
	if (b == c)
		return 0;
	special = special_find(s + b, c - b) != NULL;
	if (c + 2 < sc->len && s[c + 1] == '/' && s[c + 2] == '/')
		return scan_url(sc, b, c, special, next);
	if (special && c + 1 < sc->len && (s[c + 1] == '/' ||
	    s[c + 1] == '\\'))
		return scan_url(sc, b, c, 1, next);
	/* an address's scheme follows white space or an opening mark */
	if (addr_scheme(s + b, c - b) < 0 || (b > 0 && (s[b - 1] < 0x80 ?
	    !IS(s[b - 1], A_OPEN) : !word_before(sc, b, 0))))
		return 0;
	if (word_is(s + b, c - b, "mailto"))
		return sc->no_mailto ? 0 :
		    scan_mailto(sc, b, run_stop(sc, b, c + 1, 0), next);
	if ((r = scan_addr_phone(sc, b, c, next)) != 0)
		return r;
	e = run_trim(sc, b, c + 1, run_stop(sc, b, c + 1, 1));
	if (e == c + 1 || (c + 2 == e && s[c + 1] == '#'))
		return 0;
	r = addr_write(s + b, e - b, c - b, &f, &alt, &amb, &kind);
	if (r == 0)
		r = idl_add(sc->ids, kind, &f, &alt, amb, b, e - b);
	sb_free(&f);
	sb_free(&alt);
	if (r != 0 && fatal(r))
		return r;
	*next = e;
	return r == 0;
}

/* '+' at i: a phone number standing alone. */
static int
scan_plus(struct scan *sc, size_t i, size_t *next)
{
	struct buf f = { 0 };
	char d[BNC_CANON_PHONE_MAX + 2];
	size_t end;
	int r;

	if (!phone_read(sc->s, sc->len, i, &end, d) ||
	    !word_alone(sc, i, end))
		return 0;
	r = buf_put(&f, d, strlen(d));
	if (r == 0)
		r = idl_add(sc->ids, CANON_PHONE, &f, NULL, 0, i, end - i);
	sb_free(&f);
	*next = end;
	return r < 0 ? r : 1;
}

/* A letter at i: an IBAN standing alone, if a word starts here. */
static int
scan_iban(struct scan *sc, size_t i, size_t *next)
{
	struct buf f = { 0 };
	char v[BNC_CANON_IBAN_MAX + 1];
	size_t end;
	int r;

	if (i + 4 > sc->len || !IS(sc->s[i + 1], A_ALPHA) ||
	    !IS(sc->s[i + 2], A_DIGIT) || !IS(sc->s[i + 3], A_DIGIT) ||
	    !word_start(sc, i) || !iban_read(sc->s, sc->len, i, &end, v) ||
	    !word_alone(sc, i, end))
		return 0;
	r = buf_put(&f, v, strlen(v));
	if (r == 0)
		r = idl_add(sc->ids, CANON_IBAN, &f, NULL, 0, i, end - i);
	sb_free(&f);
	*next = end;
	return r < 0 ? r : 1;
}

/* The pass over s[from..to). */
static int
scan_text(struct scan *sc, size_t from, size_t to)
{
	size_t i, next, len = sc->len;
	int r = 0;

	sc->len = to;
	for (i = from; i < to; i = next > i ? next : i + 1) {
		next = i + 1;
		switch (sc->s[i]) {
		case '@':
			r = scan_at(sc, i, &next);
			break;
		case ':':
			r = scan_colon(sc, i, &next);
			break;
		case '"':
			r = scan_quoted(sc, i, &next);
			break;
		case '+':
			r = scan_plus(sc, i, &next);
			break;
		case '/':
		case '\\':
			r = scan_slashes(sc, i, &next);
			break;
		default:
			r = IS(sc->s[i], A_ALPHA) ? scan_iban(sc, i, &next) : 0;
			break;
		}
		if (r < 0)
			break;
		if (r == 1)
			sc->floor = next;
		r = 0;
	}
	sc->len = len;
	return r;
}

int
canon_scan(const char *s, size_t len, size_t max, struct canon_id **ids,
    size_t *nids)
{
	struct idlist l = { NULL, 0, 0, 0 };
	struct scan sc;
	int r;

	l.max = max < BNC_CANON_IDS_MAX ? max : BNC_CANON_IDS_MAX;
	sc.s = (const unsigned char *)s;
	sc.len = len;
	sc.floor = 0;
	sc.no_mailto = 0;
	sc.ids = &l;
	r = scan_text(&sc, 0, len);
	if (l.n == 0) {
		free(l.v);
		l.v = NULL;
	}
	*ids = l.v;
	*nids = l.n;
	return PUBLIC(r);
}

/*
 * canon_visible.
 */

static int
vis_put(struct buf *out, size_t mark, size_t max, const void *p, size_t n)
{
	if (buf_len(out) - mark + n > max)
		return -BNC_ERR_TOO_LARGE;
	return buf_put(out, p, n);
}

int
canon_visible(const char *s, size_t len, size_t max, struct buf *out)
{
	const unsigned char *u = (const unsigned char *)s;
	const struct hrow *row;
	size_t i, k, mark = buf_len(out);
	uint32_t c;
	char t[16];
	int n, lt, r = 0;

	for (i = 0; i < len && r == 0; i += k) {
		if ((k = utf8_decode(u + i, len - i, &c)) == 0) {
			k = 1;
			n = snprintf(t, sizeof(t), "<0x%02X>", u[i]);
			r = vis_put(out, mark, max, t, (size_t)n);
			continue;
		}
		row = hrow_find(c);
		/* a '<' that could pass for the start of a shown one */
		lt = c == '<' && i + 2 < len && ((u[i + 1] == 'U' &&
		    u[i + 2] == '+') || (u[i + 1] == '0' && u[i + 2] == 'x'));
		if (lt || (row != NULL && (row->cls == HC_INVISIBLE ||
		    row->cls == HC_SPACE || row->cls == HC_CONTROL))) {
			n = snprintf(t, sizeof(t), "<U+%04X>", c);
			r = vis_put(out, mark, max, t, (size_t)n);
		} else
			r = vis_put(out, mark, max, u + i, k);
	}
	if (r == 0 && (r = buf_put_u8(out, '\0')) == 0)
		return 0;
	sb_back(out, mark);
	return r;
}
