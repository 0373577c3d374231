/*
 * taint.c - the taint index: the session's untrusted output, normalised,
 * and a q-gram index over it (DESIGN 5, "Taint").
 *
 * Structure.  Normalised output lives in one ring of at most `cap' bytes
 * (the cap, a power of two: a slot is a position's low bits, and the
 * lookup path divides nothing); every byte has an absolute position, and
 * positions [lo, hi) are retained.  Each recorded output (a document) is
 * followed by a NUL, which normalised text never contains, so no match
 * can cross from one output into the next; outputs shorter than
 * BNC_TAINT_MIN_LEN after normalisation cannot contain a taintable
 * value and are not kept.
 *
 * Two chained hash indexes point into the ring, as zlib's deflate chains
 * its window: head[] maps a keyed hash of a gram (multiply-shift with a
 * per-index random odd key: universal, so output cannot be crafted to
 * collide) to its bucket's newest position, link[] holds per indexed
 * position the distance back to the previous one of the same bucket.
 * A dense link is as narrow as a distance below the cap allows (2 bytes
 * up to 64 KiB, 3 up to 16 MiB, else 4), and a dense head holds its
 * position in 32 bits above a base that moves up to lo once two caps
 * were recorded past it (a head it leaves below lo named evicted output
 * and is cleared).
 * The dense index has every position that starts a whole GRAM-byte gram
 * inside a document (q = GRAM = BNC_TAINT_MIN_LEN: a value of any
 * taintable length contains a whole gram at each of its occurrences).
 * The sampled index has the LGRAM-byte (16) grams at every 8th position:
 * a value of LVAL_MIN (23) bytes or more has, at each occurrence, one of
 * its first 8 long grams at a sampled position; long grams are rare even
 * where every short one is common.  Its bucket is the top bits of the
 * gram's hash, and the 16 bits below are the gram's tag: a sampled head
 * holds the tag of the position it names (with the position in 48 bits),
 * a sampled link the top 5 bits of the tag of the position it leads to
 * (with the distance in units of 8 in 27), so a walk compares text only
 * where the tags agree.  A tag that differs is another gram, never a
 * miss.  Positions stay below 2^48 (256 TiB recorded: a session that
 * reaches it ends, see doc_begin).
 *
 * A lookup of a value of length m reads, in one wait on memory, its
 * token set (below) and the dense buckets of BNC_TAINT_PROBE_GRAMS grams
 * spread over it: a token hit proves presence, an empty or evicted
 * bucket absence.  Otherwise a long value reads the sampled buckets of
 * its long grams, LCLASS_MAX for each offset class modulo 8 (an
 * occurrence of class j has its grams at j, j + 8, ... sampled), and
 * walks those chains; a shorter one (or a long one whose long grams are
 * all common) walks the dense chains.  The chains are walked in
 * lockstep, newest first, one wait on memory per round, comparing the
 * whole value with each candidate whose tag agrees (memcmp): a
 * comparison that succeeds proves presence; a chain that runs out below
 * the retained window rules out its class (in the dense index every
 * occurrence is in every chain: one class), and absence needs every
 * class ruled out.  So a class is decided by its rarest chain.  The walk
 * stops after BNC_TAINT_VERIFY_MAX steps; the lookup then reads the
 * dense buckets of all the value's other grams (one absent proves
 * absence) and else answers TAINT_UNSURE, which taint_check reports as
 * tainted.  So the work of a lookup is bounded by a constant
 * times m whatever the history, and a value that occurs is never missed:
 * it is found, or the lookup is unsure.  Unsure needs every gram of the
 * value to be common and no newer candidate to be the value itself.
 *
 * Tokens.  A value found in output is usually a whole address or host
 * as the output spelt it.  The identities of each recorded output (see
 * below) are also noted in a token cache: sets of TOK_WAYS (fingerprint,
 * position) pairs, one cache line each, the fingerprint a 64-bit SipHash
 * under a per-index random key whose top bits pick the set.  A value
 * whose fingerprint is in its set at a retained position is found
 * without reading the ring: one cache line, where the chains need two
 * dependent reads of memory.  A false match needs another string with
 * the same keyed SipHash in the same set (the set's ways times 2 to the
 * minus the bits the set index leaves: about 2^-41 per probe at the
 * largest cap, 2^-48 at the default) and errs towards tainted.  The cache
 * is lossy (the oldest way of a full set is overwritten; a token split
 * between two normalisation runs is not noted) and never decides
 * absence: a miss takes the q-gram path.
 *
 * Memory, per byte of cap: ring 1, dense links 2, 3 or 4 (their width),
 * dense heads at most 1 (4 bytes per bucket, at most cap / 4 buckets),
 * sampled links 0.5 and heads 0.25, token sets 0.125: at most 5.875 *
 * cap plus a constant for a cap up to 16 MiB (47 MiB for the default
 * 8 MiB), 6.875 * cap above it, 4.875 * cap up to 64 KiB.  Not less
 * while short values are decided: only the dense index finds a value of
 * fewer than LVAL_MIN bytes wherever it starts, and a chain through
 * every position of its bucket needs per position a link that spans the
 * retained text and a share of a head; an index of every k-th position
 * serves only values of GRAM + k - 1 bytes or more.  The ring and its
 * links are reserved as address space at the first output (mmap,
 * MAP_NORESERVE) and backed by the kernel only as they are written, so
 * a session pays for what it recorded; each table starts small and
 * doubles (rebuilt in O(retained), or refilled from the fingerprints)
 * while more than LOAD_MAX grams share a bucket or TOK_SHARE retained
 * bytes a token set.
 * Past their first HUGE_FROM bytes the arrays ask for transparent huge
 * pages: lookups read them at random, and TLB misses would otherwise
 * make a lookup in a big history slower than in a small one.
 *
 * Eviction.  When the ring is full, recording a byte drops the oldest
 * byte (so exactly the newest cap bytes are kept; an output partly
 * dropped keeps its newer part), and the index turns strict for the rest
 * of the session: taint_strict() says so, and the gate must then ask for
 * values it would have found unmatched.  Evicted positions need no
 * clean-up: buckets and chains are read only down to lo (the dense
 * heads' rebase clears the evicted ones it passes, so that the others
 * keep fitting 32 bits).
 *
 * Normalisation (both sides, taint_normalise): UTF-8 is decoded strictly;
 * a byte that starts no valid sequence stands for itself.  Removed
 * (invisible): C0 and C1 controls that are not whitespace, DEL, and the
 * ranges of `invisible' below (zero-width space and joiners, soft hyphen,
 * word joiner, bidi controls, BOM, variation selectors, fillers, tag
 * controls).  Whitespace (Unicode White_Space, plus U+001C..001F as
 * Python's str.split counts them) runs become one space, trimmed at both
 * ends.  Folded: ASCII, Latin-1, Latin Extended-A, basic Greek and
 * Cyrillic letters to lower case, by Unicode's simple case folding (and
 * U+0130 to i); compatibility forms that render as ASCII to ASCII: the
 * fullwidth forms U+FF01..FF5E, circled letters, the mathematical
 * alphanumeric letters and digits, Kelvin, Ohm and Angstrom signs, and
 * the tag characters U+E0020..E007E (hidden "ASCII smuggling" becomes
 * the visible ASCII it encodes).  Nothing folds to a longer encoding, so
 * the result is never longer than the input.  Not folded: other scripts'
 * cases, homoglyphs across scripts, decomposition and accents.
 *
 * Destination identities (the value side only): an e-mail address
 * (local@domain), a URL's host (scheme://[userinfo@]host[:port]...), and
 * the address of a scheme of `addr_schemes' (mailto:, tel:, slack:, ...).
 * Each is a substring of the normalised value, so the value occurs only
 * if each of its identities does.  The same scanners find the tokens of
 * recorded output.
 *
 * This file records and answers.  It never decides (decide.c does), never
 * logs what it holds, and never scans the history for a lookup.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/mman.h>

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "bounds.h"
#include "buf.h"
#include "canon.h"
#include "err.h"
#include "log.h"
#include "taint.h"
#include "utf8.h"
#include "value.h"
#include "xmalloc.h"

#define GRAM		BNC_TAINT_MIN_LEN	/* q of the dense index */
#define IDENT_MAX	BNC_TAINT_IDENT_MAX	/* an identity scan's reach */
#define SCHEME_MAX	32		/* a scheme's letters before its ':' */
#define GRAM_MASK	((UINT64_C(1) << (8 * GRAM)) - 1)
#define LGRAM		16		/* q of the sampled index */
#define LSTEP		3		/* it samples every 8th position */
#define LVAL_MIN	(LGRAM + (1 << LSTEP) - 1)	/* values it serves */
#define TABLE_MIN	1024		/* buckets of a fresh table */
#define LOAD_MAX	4		/* bytes per bucket before growth */
#define QUEUE		32		/* inserts kept in flight (prefetch) */
#define CHUNK		4096		/* input normalised at once */
#define TOK_WAYS	4		/* tokens per set: one cache line */
#define TOK_SHARE	512		/* cap bytes per token set */
#define TOK_MIN		64		/* fewest token sets */
#define HUGE_FROM	(4 * 1024 * 1024)	/* then huge pages */
#define HUGE_PAGE	(2 * 1024 * 1024)
#define LCLASS_MAX	2		/* sampled grams walked per offset class */
#define CHAINS_MAX	((1 << LSTEP) * LCLASS_MAX)	/* chains of one walk */
#define POS_BITS	48		/* a sampled head: tag, position + 1 */
#define POS_LIMIT	(UINT64_C(1) << POS_BITS)	/* positions below */
#define POS_MASK	((UINT64_C(1) << POS_BITS) - 1)
#define HTAG_BITS	16		/* a sampled head's tag */
#define DIST_BITS	27		/* a sampled link: tag, distance / 8 */
#define DIST_MASK	((UINT32_C(1) << DIST_BITS) - 1)
#define LTAG_BITS	(32 - DIST_BITS)	/* a sampled link's tag */
#define LINK_PAD	sizeof(uint32_t)	/* after a link array */
#define REBASE_CAPS	2		/* dense heads: caps recorded past
					 * their base, then rebase */

#if GRAM > 8
#error "a gram must fit in 64 bits"
#endif

/* The ring's slot of position p: the ring is a power of two (no divide
 * on the lookup path, where a walk would do two per candidate). */
#define SLOT(t, p)	((size_t)((p) & ((t)->size - 1)))
_Static_assert((BNC_TAINT_CAP_MIN & (BNC_TAINT_CAP_MIN - 1)) == 0 &&
    (BNC_TAINT_CAP_MAX & (BNC_TAINT_CAP_MAX - 1)) == 0,
    "the cap's bounds are powers of two");
_Static_assert(((uint64_t)BNC_TAINT_CAP_MAX >> LSTEP) - 1 <= DIST_MASK,
    "a sampled link's distance fits beside its tag");
_Static_assert(BNC_MSG_MAX_HIGHEST <= BNC_TAINT_CAP_MAX,
    "one output fits in doc_begin's margin below the position bound");
_Static_assert(REBASE_CAPS > 1 && (uint64_t)REBASE_CAPS * BNC_TAINT_CAP_MAX +
    CHUNK + GRAM < (UINT64_C(1) << 32),
    "a dense head fits 32 bits between two checks for a rebase");

/* A set of the token cache: the newest tokens of one hash, by print. */
struct tok {
	struct {
		uint64_t	 fp;		/* keyed fingerprint */
		uint64_t	 pos1;		/* position + 1, 0: empty */
	} w[TOK_WAYS];
};
_Static_assert(sizeof(struct tok) == 64, "a token set is a cache line");

struct norm {
	int	space;		/* whitespace seen since the last character */
	int	any;		/* a character was written */
};

/*
 * A chained hash index over positions, as zlib's deflate chains its
 * window: head[] has the newest position of each bucket, link[] per
 * indexed slot the distance back to the previous one of its bucket.
 */
struct chains {
	uint64_t	*head;		/* sampled: tag, newest position + 1 */
	uint32_t	*rhead;		/* dense: newest position + 1 - base */
	uint64_t	 base;		/* dense: what rhead[] is relative to */
	unsigned char	*link;		/* slot (p % size) >> step, lw bytes
					 * each, little-endian */
	unsigned	 lw;		/* bytes of a link */
	size_t		 n;		/* buckets, a power of two */
	size_t		 max;		/* most buckets */
	unsigned	 shift;		/* 64 - log2(n) */
	unsigned	 step;		/* positions indexed: multiples of
					 * 1 << step */
	/* inserts waiting for their bucket to arrive in cache */
	uint64_t	 qpos[QUEUE];
	size_t		 qidx[QUEUE];
	uint64_t	 qbkt[QUEUE];	/* bucket, or sampled hash */
	unsigned	 qhead, qlen;
};

struct taint {
	uint64_t	 key;		/* odd multipliers of the hashes */
	uint64_t	 key2;
	unsigned char	 tkey[crypto_shorthash_KEYBYTES];
	size_t		 cap;		/* most normalised bytes kept */
	size_t		 size;		/* ring bytes reserved: cap, or 0 */
	unsigned char	*text;		/* position p at text[p % size] */
	struct chains	 d;		/* dense: every GRAM-byte gram */
	struct chains	 l;		/* sampled: LGRAM-byte grams */
	struct tok	*tok;		/* the token cache, ntok sets */
	size_t		 ntok;		/* a power of two */
	size_t		 tmax;		/* most sets */
	unsigned	 tshift;	/* 64 - log2(ntok) */
	uint64_t	 lo, hi;	/* retained positions */
	size_t		 widx;		/* hi % size */
	int		 strict;
	uint64_t	 recorded;	/* normalised bytes ever recorded */

	/* canonical forms of the identities of the output being recorded
	 * (record_forms), NUL-separated, recorded after it */
	struct buf	*forms;
	int		 in_forms;	/* recording them: no new scan */

	/* the output being recorded */
	struct norm	 n;
	unsigned char	 pend[GRAM];	/* its first bytes, until GRAM */
	uint64_t	 dlen;		/* its normalised length so far */
	uint64_t	 gram;		/* its last GRAM bytes */
	uint64_t	 lw0, lw1;	/* its last LGRAM bytes */
};

/*
 * Normalisation.
 */

enum nclass {
	N_DROP = 0,
	N_SPACE,
	N_CHAR
};

/* Default-ignorable and invisible characters (and why each goes). */
static const struct {
	uint32_t	 lo, hi;
	const char	*why;
} invisible[] = {
	{ 0x0080, 0x0084, "C1 controls" },
	{ 0x0086, 0x009f, "C1 controls (U+0085 is whitespace)" },
	{ 0x00ad, 0x00ad, "soft hyphen" },
	{ 0x034f, 0x034f, "combining grapheme joiner" },
	{ 0x061c, 0x061c, "Arabic letter mark" },
	{ 0x115f, 0x1160, "Hangul choseong and jungseong fillers" },
	{ 0x17b4, 0x17b5, "Khmer inherent vowels" },
	{ 0x180b, 0x180f, "Mongolian variation selectors, vowel separator" },
	{ 0x200b, 0x200f, "zero-width space, non-joiner, joiner; LRM, RLM" },
	{ 0x202a, 0x202e, "bidi embeddings and overrides" },
	{ 0x2060, 0x206f, "word joiner, invisible operators, bidi isolates" },
	{ 0x3164, 0x3164, "Hangul filler" },
	{ 0xfe00, 0xfe0f, "variation selectors" },
	{ 0xfeff, 0xfeff, "BOM, zero-width no-break space" },
	{ 0xffa0, 0xffa0, "halfwidth Hangul filler" },
	{ 0xfff0, 0xfffb, "unassigned specials, interlinear annotation" },
	{ 0x1bca0, 0x1bca3, "shorthand format controls" },
	{ 0x1d173, 0x1d17a, "musical symbol format controls" },
	{ 0xe0000, 0xe001f, "language tag and unassigned tags" },
	{ 0xe007f, 0xe0fff, "cancel tag, variation selectors supplement" },
};

static int
is_invisible(uint32_t c)
{
	size_t lo = 0, hi = sizeof(invisible) / sizeof(invisible[0]), mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (c < invisible[mid].lo)
			hi = mid;
		else if (c > invisible[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

static enum nclass
ascii_class(uint32_t c, uint32_t *out)
{
	if (c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f))
		return N_SPACE;
	if (c < 0x20 || c == 0x7f)
		return N_DROP;
	*out = (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
	return N_CHAR;
}

/* Compatibility forms that render as ASCII; 0 if c is none. */
static uint32_t
compat_ascii(uint32_t c)
{
	if (c >= 0xff01 && c <= 0xff5e)		/* fullwidth forms */
		return c - 0xfee0;
	if (c >= 0x24b6 && c <= 0x24cf)		/* circled capitals */
		return 'a' + (c - 0x24b6);
	if (c >= 0x24d0 && c <= 0x24e9)		/* circled small letters */
		return 'a' + (c - 0x24d0);
	if (c >= 0x1d400 && c <= 0x1d6a3)	/* mathematical letters */
		return 'a' + (c - 0x1d400) % 52 % 26;
	if (c >= 0x1d7ce && c <= 0x1d7ff)	/* mathematical digits */
		return '0' + (c - 0x1d7ce) % 10;
	if (c >= 0xe0020 && c <= 0xe007e)	/* tag characters */
		return c - 0xe0000;
	if (c == 0x212a)			/* Kelvin sign */
		return 'k';
	return 0;
}

/* Simple case folding of the blocks we fold; c itself otherwise. */
static uint32_t
fold_case(uint32_t c)
{
	if (c < 0x100) {
		if (c >= 0xc0 && c <= 0xde && c != 0xd7)
			return c + 0x20;
		if (c == 0xb5)				/* micro sign */
			return 0x3bc;
		return c;
	}
	if (c <= 0x17f) {				/* Latin Extended-A */
		if (c == 0x130)
			return 'i';
		if (c == 0x178)
			return 0xff;
		if (c == 0x17f)				/* long s */
			return 's';
		if ((c <= 0x12f || (c >= 0x132 && c <= 0x137) ||
		    (c >= 0x14a && c <= 0x177)) && c % 2 == 0)
			return c + 1;
		if (((c >= 0x139 && c <= 0x148) ||
		    (c >= 0x179 && c <= 0x17e)) && c % 2 == 1)
			return c + 1;
		return c;
	}
	if (c >= 0x386 && c <= 0x3ab) {			/* Greek */
		if (c == 0x386)
			return 0x3ac;
		if (c >= 0x388 && c <= 0x38a)
			return c + 0x25;
		if (c == 0x38c)
			return 0x3cc;
		if (c == 0x38e || c == 0x38f)
			return c + 0x3f;
		if (c >= 0x391 && c != 0x3a2)
			return c + 0x20;
		return c;
	}
	if (c == 0x3c2)					/* final sigma */
		return 0x3c3;
	if (c >= 0x400 && c <= 0x40f)			/* Cyrillic */
		return c + 0x50;
	if (c >= 0x410 && c <= 0x42f)
		return c + 0x20;
	if (c == 0x1e9e)				/* capital sharp s */
		return 0xdf;
	if (c == 0x2126)				/* Ohm sign */
		return 0x3c9;
	if (c == 0x212b)				/* Angstrom sign */
		return 0xe5;
	return c;
}

static enum nclass
classify(uint32_t c, uint32_t *out)
{
	uint32_t a;

	if (c < 0x80)
		return ascii_class(c, out);
	if (c == 0x85 || c == 0xa0 || c == 0x1680 ||
	    (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
	    c == 0x202f || c == 0x205f || c == 0x3000)
		return N_SPACE;
	if ((a = compat_ascii(c)) != 0)
		return ascii_class(a, out);
	if (is_invisible(c))
		return N_DROP;
	*out = fold_case(c);
	return N_CHAR;
}

static size_t
utf8_enc(uint32_t c, unsigned char *o)
{
	if (c < 0x80) {
		o[0] = c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = 0xc0 | (c >> 6);
		o[1] = 0x80 | (c & 0x3f);
		return 2;
	}
	if (c < 0x10000) {
		o[0] = 0xe0 | (c >> 12);
		o[1] = 0x80 | ((c >> 6) & 0x3f);
		o[2] = 0x80 | (c & 0x3f);
		return 3;
	}
	o[0] = 0xf0 | (c >> 18);
	o[1] = 0x80 | ((c >> 12) & 0x3f);
	o[2] = 0x80 | ((c >> 6) & 0x3f);
	o[3] = 0x80 | (c & 0x3f);
	return 4;
}

/*
 * Normalises all of s into out, continuing st.  A space still pending at
 * the end stays in st (trimmed unless more text follows).  Writes at most
 * len bytes, plus one for a space pending on entry.
 */
static size_t
norm_run(struct norm *st, const unsigned char *s, size_t len,
    unsigned char *out)
{
	size_t i = 0, o = 0, n;
	uint32_t c, f = 0;
	enum nclass k;
	int raw;

	while (i < len) {
		raw = 0;
		if (s[i] > ' ' && s[i] < 0x7f) {
			/* the common case: printable ASCII */
			if (st->space && st->any)
				out[o++] = ' ';
			st->space = 0;
			st->any = 1;
			out[o++] = s[i] >= 'A' && s[i] <= 'Z' ?
			    s[i] + 'a' - 'A' : s[i];
			i++;
			continue;
		}
		if (s[i] < 0x80) {
			k = ascii_class(s[i], &f);
			i++;
		} else if ((n = utf8_decode(s + i, len - i, &c)) == 0) {
			/* not UTF-8: the byte stands for itself */
			k = N_CHAR;
			f = s[i];
			raw = 1;
			i++;
		} else {
			k = classify(c, &f);
			i += n;
		}
		if (k == N_DROP)
			continue;
		if (k == N_SPACE) {
			st->space = 1;
			continue;
		}
		if (st->space && st->any)
			out[o++] = ' ';
		st->space = 0;
		st->any = 1;
		if (f < 0x80 || raw)
			out[o++] = f;
		else
			o += utf8_enc(f, out + o);
	}
	return o;
}

size_t
taint_normalise(const char *s, size_t len, char *out)
{
	struct norm st = { 0, 0 };

	return norm_run(&st, (const unsigned char *)s, len,
	    (unsigned char *)out);
}

/*
 * Destination identities.
 */

/* Schemes whose address (after "scheme:") names a destination. */
static const char *const addr_schemes[] = {
	"callto", "discord", "facetime", "im", "matrix", "mms", "msteams",
	"mailto", "signal", "sip", "sips", "skype", "slack", "sms", "tel",
	"telegram", "whatsapp", "xmpp",
};

/* What a byte of normalised text can be part of (bits of `cls'). */
#define C_LOCAL		0x01	/* the local part of an e-mail address */
#define C_DOMAIN	0x02	/* its domain */
#define C_SCHEME	0x04	/* a URI scheme */
#define C_STOP		0x08	/* ends an authority or an address */
#define C_OPEN		0x10	/* may precede a scheme */
#define C_WORD		(C_LOCAL | C_DOMAIN | C_SCHEME)

static const unsigned char cls[256] = {
	['a' ... 'z'] = C_WORD, ['0' ... '9'] = C_WORD,
	['.'] = C_WORD, ['-'] = C_WORD,
	['+'] = C_LOCAL | C_SCHEME, ['_'] = C_LOCAL, ['%'] = C_LOCAL,
	[0x80 ... 0xff] = C_LOCAL | C_DOMAIN,
	[' '] = C_STOP | C_OPEN, ['"'] = C_STOP | C_OPEN,
	['\''] = C_STOP | C_OPEN, ['<'] = C_STOP | C_OPEN,
	['('] = C_STOP | C_OPEN, [','] = C_STOP | C_OPEN,
	[';'] = C_STOP | C_OPEN, ['='] = C_OPEN, ['['] = C_OPEN,
	['/'] = C_STOP, ['?'] = C_STOP, ['#'] = C_STOP, ['\\'] = C_STOP,
	['>'] = C_STOP, ['`'] = C_STOP, [')'] = C_STOP, ['{'] = C_STOP,
	['}'] = C_STOP, ['|'] = C_STOP, ['^'] = C_STOP,
};

/* local@domain around the '@' at a. */
static int
ident_email(const unsigned char *n, size_t m, size_t a, size_t *o, size_t *l)
{
	size_t b = a, e = a + 1;

	while (b > 0 && a - b < IDENT_MAX && (cls[n[b - 1]] & C_LOCAL))
		b--;
	while (b < a && n[b] == '.')
		b++;
	while (e < m && e - a < IDENT_MAX && (cls[n[e]] & C_DOMAIN))
		e++;
	while (e > a + 1 && (n[e - 1] == '.' || n[e - 1] == '-'))
		e--;
	if (b == a || e == a + 1)
		return 0;
	*o = b;
	*l = e - b;
	return 1;
}

/* The host of the URL whose "://" is at c. */
static int
ident_host(const unsigned char *n, size_t m, size_t c, size_t *o, size_t *l)
{
	size_t b = c, s, e, i;

	while (b > 0 && c - b < SCHEME_MAX && (cls[n[b - 1]] & C_SCHEME))
		b--;
	while (b < c && !(n[b] >= 'a' && n[b] <= 'z'))
		b++;
	if (b == c)
		return 0;
	s = c + 3;
	for (e = s; e < m && e - s < IDENT_MAX && !(cls[n[e]] & C_STOP); e++)
		;
	for (i = s; i < e; i++)		/* after any userinfo */
		if (n[i] == '@')
			s = i + 1;
	if (s < e && n[s] == '[') {		/* IPv6 literal */
		for (i = s + 1; i < e && n[i] != ']'; i++)
			;
		e = i;
		s++;
	} else
		for (i = s; i < e; i++)
			if (n[i] == ':') {
				e = i;
				break;
			}
	while (e > s && n[e - 1] == '.')
		e--;
	if (e == s)
		return 0;
	*o = s;
	*l = e - s;
	return 1;
}

/* The address after "scheme:" when a known scheme ends at the ':' at c. */
static int
ident_addr(const unsigned char *n, size_t m, size_t c, size_t *o, size_t *l)
{
	size_t b = c, e, i;

	while (b > 0 && c - b < SCHEME_MAX && (cls[n[b - 1]] & C_SCHEME))
		b--;
	/* a scheme starts a value or follows a space or an opening mark */
	if (b > 0 && !(cls[n[b - 1]] & C_OPEN))
		return 0;
	for (i = 0; i < sizeof(addr_schemes) / sizeof(addr_schemes[0]); i++)
		if (strlen(addr_schemes[i]) == c - b &&
		    memcmp(addr_schemes[i], n + b, c - b) == 0)
			break;
	if (i == sizeof(addr_schemes) / sizeof(addr_schemes[0]))
		return 0;
	/* a channel's leading '#' (slack:#general) is part of it */
	e = c + 1;
	if (e < m && n[e] == '#')
		e++;
	while (e < m && e - (c + 1) < IDENT_MAX && !(cls[n[e]] & C_STOP))
		e++;
	if (e == c + 1)
		return 0;
	*o = c + 1;
	*l = e - (c + 1);
	return 1;
}

/*
 * The next identity at or after *i in n[0..m): its span in *o, *l.
 * Each scan reads at most IDENT_MAX bytes on either side of the mark
 * that starts it (SCHEME_MAX before a scheme's ':'), so a pass over n is
 * linear whatever n holds; a longer identity is cut to IDENT_MAX bytes
 * on each side, a substring of it, which occurs wherever the whole does.
 * So an identity is at most BNC_TAINT_IDENT_LEN bytes (an address: its
 * mark, the '@', has IDENT_MAX on either side).
 */
static int
ident_next(const unsigned char *n, size_t m, size_t *i, size_t *o, size_t *l)
{
	size_t j;
	int found;

	for (; *i < m; (*i)++) {
		j = *i;
		if (n[j] == '@')
			found = ident_email(n, m, j, o, l);
		else if (n[j] == ':' && j + 2 < m && n[j + 1] == '/' &&
		    n[j + 2] == '/')
			found = ident_host(n, m, j, o, l);
		else if (n[j] == ':')
			found = ident_addr(n, m, j, o, l);
		else
			continue;
		if (found) {
			(*i)++;
			return 1;
		}
	}
	return 0;
}

/*
 * The ring and the index.
 */

/*
 * Random reads over big arrays miss the TLB: ask for transparent huge
 * pages past the first HUGE_FROM bytes (a small session stays in small
 * pages).  Advice only; its failure changes nothing but speed.
 */
static void
huge(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
	uintptr_t a = ((uintptr_t)p + HUGE_FROM + HUGE_PAGE - 1) &
	    ~(uintptr_t)(HUGE_PAGE - 1);
	uintptr_t e = ((uintptr_t)p + len) & ~(uintptr_t)(HUGE_PAGE - 1);

	if (e > a)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#endif
}

/* Address space for len bytes; pages are backed only once written. */
static void *
reserve(size_t len)
{
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		fatal_f("mmap %zu bytes: %s", len, strerror(errno));
	huge(p, len);
	return p;
}

static inline size_t
bucket(const struct taint *t, uint64_t g)
{
	return (size_t)((g * t->key) >> t->d.shift);
}

static inline uint64_t
be64(const unsigned char *p)
{
	uint64_t g;

	memcpy(&g, p, sizeof(g));
	return be64toh(g);
}

/* The sampled index's hash of the LGRAM bytes w0, w1 (big-endian). */
static inline uint64_t
lhash(const struct taint *t, uint64_t w0, uint64_t w1)
{
	return (w0 ^ (w1 * t->key2)) * t->key;
}

/* A sampled hash's bucket and its tag (the bits below the bucket's). */
static inline size_t
hbkt(const struct chains *c, uint64_t h)
{
	return (size_t)(h >> c->shift);
}

static inline uint64_t
htag(const struct chains *c, uint64_t h)
{
	return (h >> (c->shift - HTAG_BITS)) & ((1 << HTAG_BITS) - 1);
}

static uint64_t
gram_of(const unsigned char *p)
{
	uint64_t g = 0;
	int i;

	for (i = 0; i < GRAM; i++)
		g = (g << 8) | p[i];
	return g;
}

/*
 * A token's fingerprint: SipHash under a per-index random key, so output
 * cannot be crafted to collide.  Its top bits pick the set, so a bigger
 * cache can be filled from the fingerprints alone.
 */
static uint64_t
tok_fp(const struct taint *t, const unsigned char *s, size_t len)
{
	unsigned char h[crypto_shorthash_BYTES];
	uint64_t fp;

	crypto_shorthash(h, s, len, t->tkey);
	memcpy(&fp, h, sizeof(fp));
	return fp;
}

static inline struct tok *
tok_set(const struct taint *t, uint64_t fp)
{
	return &t->tok[fp >> t->tshift];
}

/* Notes a token at pos1 - 1: in its own way, else in the oldest. */
static void
tok_put(struct taint *t, uint64_t fp, uint64_t pos1)
{
	struct tok *x = tok_set(t, fp);
	int i, w = 0;

	for (i = 0; i < TOK_WAYS; i++) {
		if (x->w[i].fp == fp && x->w[i].pos1 != 0) {
			w = i;
			break;
		}
		if (x->w[i].pos1 < x->w[w].pos1)
			w = i;
	}
	if (x->w[w].pos1 > pos1)	/* refilling: keep the newer */
		return;
	x->w[w].fp = fp;
	x->w[w].pos1 = pos1;
}

/* n zeroed sets, each on one cache line. */
static void
tok_alloc(struct taint *t, size_t n)
{
	unsigned bits = 0;

	while (((size_t)1 << bits) < n)
		bits++;
	if ((t->tok = aligned_alloc(sizeof(*t->tok), n * sizeof(*t->tok))) ==
	    NULL)
		fatal_f("aligned_alloc %zu token sets", n);
	memset(t->tok, 0, n * sizeof(*t->tok));
	huge(t->tok, n * sizeof(*t->tok));
	t->ntok = n;
	t->tshift = 64 - bits;
}

/* A twice bigger token cache, keeping the tokens still retained. */
static void
tok_grow(struct taint *t)
{
	struct tok *old = t->tok;
	size_t n = t->ntok, i;
	int w;

	tok_alloc(t, n * 2);
	for (i = 0; i < n; i++)
		for (w = 0; w < TOK_WAYS; w++)
			if (old[i].w[w].pos1 > t->lo)
				tok_put(t, old[i].w[w].fp, old[i].w[w].pos1);
	free(old);
}

/*
 * Caches the tokens (addresses, hosts) of normalised output out[0..k),
 * which the ring holds from position pos.  A set keeps the newest tokens
 * that hashed to it: losing one costs only speed.
 */
static void
tok_scan(struct taint *t, const unsigned char *out, size_t k, uint64_t pos)
{
	size_t i = 0, o, l;

	while ((t->hi - t->lo) / TOK_SHARE > t->ntok && t->ntok < t->tmax)
		tok_grow(t);
	while (ident_next(out, k, &i, &o, &l))
		if (l >= TAINT_MIN_LEN)
			tok_put(t, tok_fp(t, out + o, l), pos + o + 1);
}

/*
 * A link is the distance back to the previous position of its bucket,
 * in lw bytes (little-endian): the dense index's distances are below
 * the cap, so a small cap has narrow links (link_width); the sampled
 * index's hold a tag beside the distance in 4.  Each link array has
 * LINK_PAD bytes after its last link, so any link is read as 32 bits.
 */
static inline uint32_t
link_get(const struct chains *c, size_t idx)
{
	uint32_t v;

	memcpy(&v, c->link + idx * c->lw, sizeof(v));
	v = le32toh(v);
	return c->lw == sizeof(v) ? v : v & ((UINT32_C(1) << (8 * c->lw)) - 1);
}

static inline void
link_set(struct chains *c, size_t idx, uint32_t d)
{
	unsigned char *p = c->link + idx * c->lw;
	uint32_t v = htole32(d);

	if (c->lw == sizeof(v))
		memcpy(p, &v, sizeof(v));
	else {
		memcpy(p, &v, 2);
		if (c->lw == 3)
			p[2] = (unsigned char)(d >> 16);
	}
}

static inline const void *
link_at(const struct chains *c, size_t idx)
{
	return c->link + idx * c->lw;
}

/*
 * A dense head holds its position + 1 less base in 32 bits (0: none);
 * chains_rebase moves base up to lo before that could overflow.  The
 * base is never above lo, and positions indexed are never below it.
 */
static inline uint64_t
dhead_get(const struct chains *c, size_t b)
{
	uint32_t h = c->rhead[b];

	return h == 0 ? 0 : c->base + h;
}

static inline void
dhead_set(struct chains *c, size_t b, uint64_t pos1)
{
	c->rhead[b] = (uint32_t)(pos1 - c->base);
}

/*
 * Moves the dense heads' base up to lo: a head below lo names evicted
 * output, and becomes none.  O(buckets), at most cap / 4, once per
 * cap bytes recorded or more (doc_put): a sequential pass of at most
 * a byte per byte recorded, where indexing a byte costs random reads.
 */
static void
chains_rebase(struct chains *c, uint64_t lo)
{
	size_t b;
	uint64_t p1;

	for (b = 0; b < c->n; b++) {
		if ((p1 = dhead_get(c, b)) == 0)
			continue;
		c->rhead[b] = p1 - 1 < lo ? 0 : (uint32_t)(p1 - lo);
	}
	c->base = lo;
}

/*
 * Links pos (slot idx) into its chain.  key is the dense bucket, or the
 * sampled gram's hash: a sampled head holds the tag of the position it
 * names beside it, and a sampled link the top LTAG_BITS of the tag of
 * the position it leads to, so a walk reads text only where the tags
 * agree (a gram whose tag differs is another gram).
 */
static void
chains_link(struct chains *c, uint64_t lo, uint64_t pos, size_t idx,
    uint64_t key)
{
	uint64_t h, p1;
	size_t b;

	if (c->step == 0) {
		h = dhead_get(c, key);
		link_set(c, idx, (h != 0 && h - 1 >= lo) ?
		    (uint32_t)(pos - (h - 1)) : 0);
		dhead_set(c, key, pos + 1);
		return;
	}
	b = hbkt(c, key);
	h = c->head[b];
	p1 = h & POS_MASK;
	link_set(c, idx, (p1 != 0 && p1 - 1 >= lo) ?
	    (uint32_t)((pos - (p1 - 1)) >> c->step) |
	    (uint32_t)(h >> (POS_BITS + HTAG_BITS - LTAG_BITS)) << DIST_BITS :
	    0);
	c->head[b] = htag(c, key) << POS_BITS | (pos + 1);
}

static void
chains_flush(struct chains *c, uint64_t lo)
{
	unsigned i;

	while (c->qlen > 0) {
		i = c->qhead;
		chains_link(c, lo, c->qpos[i], c->qidx[i], c->qbkt[i]);
		c->qhead = (c->qhead + 1) % QUEUE;
		c->qlen--;
	}
}

/* Indexes pos (slot idx) in bucket b, fetched meanwhile. */
static inline void
chains_insert(struct chains *c, uint64_t lo, uint64_t pos, size_t idx,
    uint64_t b)
{
	unsigned i;

	if (c->step == 0)
		__builtin_prefetch(&c->rhead[b], 1);
	else
		__builtin_prefetch(&c->head[hbkt(c, b)], 1);
	if (c->qlen == QUEUE) {
		i = c->qhead;
		chains_link(c, lo, c->qpos[i], c->qidx[i], c->qbkt[i]);
		c->qhead = (c->qhead + 1) % QUEUE;
		c->qlen--;
	}
	i = (c->qhead + c->qlen) % QUEUE;
	c->qpos[i] = pos;
	c->qidx[i] = idx;
	c->qbkt[i] = b;
	c->qlen++;
}

static void
chains_alloc(struct chains *c, size_t n)
{
	unsigned bits = 0;

	while (((size_t)1 << bits) < n)
		bits++;
	if (c->step == 0) {
		free(c->rhead);
		c->rhead = xcalloc(n, sizeof(*c->rhead));
		huge(c->rhead, n * sizeof(*c->rhead));
	} else {
		free(c->head);
		c->head = xcalloc(n, sizeof(*c->head));
		huge(c->head, n * sizeof(*c->head));
	}
	c->n = n;
	c->shift = 64 - bits;
}

/*
 * A twice bigger table for c: every retained gram it indexes is
 * inserted again, oldest first.
 */
static void
chains_grow(struct taint *t, struct chains *c)
{
	size_t idx, run = 0;
	uint64_t p, s, g = 0, w0 = 0, w1 = 0;
	unsigned char ch;

	chains_flush(c, t->lo);
	chains_alloc(c, c->n * 2 < c->max ? c->n * 2 : c->max);
	idx = SLOT(t, t->lo);
	for (p = t->lo; p < t->hi; p++) {
		ch = t->text[idx];
		if (++idx == t->size)
			idx = 0;
		if (ch == '\0') {
			run = 0;
			continue;
		}
		run++;
		if (c == &t->d) {
			g = ((g << 8) | ch) & GRAM_MASK;
			if (run >= GRAM) {
				s = p + 1 - GRAM;
				chains_insert(c, t->lo, s, SLOT(t, s),
				    bucket(t, g));
			}
			continue;
		}
		w0 = (w0 << 8) | (w1 >> 56);
		w1 = (w1 << 8) | ch;
		s = p + 1 - LGRAM;
		if (run >= LGRAM && (s & ((1 << LSTEP) - 1)) == 0)
			chains_insert(c, t->lo, s, SLOT(t, s) >> LSTEP,
			    lhash(t, w0, w1));
	}
	chains_flush(c, t->lo);
}

/* Appends one byte, dropping the oldest one when the ring is full. */
static inline void
ring_put(struct taint *t, unsigned char c)
{
	if (t->hi - t->lo == t->size) {
		t->lo++;
		t->strict = 1;
	}
	t->text[t->widx] = c;
	link_set(&t->d, t->widx, 0);
	if ((t->widx & ((1 << LSTEP) - 1)) == 0)
		link_set(&t->l, t->widx >> LSTEP, 0);
	if (++t->widx == t->size)
		t->widx = 0;
	t->hi++;
}

/* The largest power of two <= n, at least least. */
static size_t
pow2_floor(size_t n, size_t least)
{
	size_t b;

	for (b = least; b * 2 <= n; b *= 2)
		;
	return b;
}

/* Bytes of n links of c, and the pad that lets each be read whole. */
static size_t
links_len(const struct chains *c, size_t n)
{
	return n * c->lw + LINK_PAD;
}

/* Reserves the ring and its links at the first output kept. */
static void
ring_open(struct taint *t)
{
	t->text = reserve(t->cap);
	t->d.link = reserve(links_len(&t->d, t->cap));
	t->l.link = reserve(links_len(&t->l, t->cap >> LSTEP));
	tok_alloc(t, TOK_MIN);
	t->size = t->cap;
}

/* Appends a byte of the current output and indexes the grams it ends. */
static inline void
doc_byte(struct taint *t, unsigned char c)
{
	uint64_t s;
	size_t i, idx;

	t->gram = ((t->gram << 8) | c) & GRAM_MASK;
	t->lw0 = (t->lw0 << 8) | (t->lw1 >> 56);
	t->lw1 = (t->lw1 << 8) | c;
	if (t->dlen < GRAM - 1) {
		t->pend[t->dlen++] = c;
		return;
	}
	if (t->dlen == GRAM - 1) {
		/* long enough to hold a value: keep it */
		if (t->size == 0)
			ring_open(t);
		for (i = 0; i < GRAM - 1; i++)
			ring_put(t, t->pend[i]);
	}
	ring_put(t, c);
	t->dlen++;
	s = t->hi - GRAM;
	idx = t->widx >= GRAM ? t->widx - GRAM : t->widx + t->size - GRAM;
	chains_insert(&t->d, t->lo, s, idx, bucket(t, t->gram));
	s = t->hi - LGRAM;
	if (t->dlen >= LGRAM && (s & ((1 << LSTEP) - 1)) == 0) {
		idx = t->widx >= LGRAM ? t->widx - LGRAM :
		    t->widx + t->size - LGRAM;
		chains_insert(&t->l, t->lo, s, idx >> LSTEP,
		    lhash(t, t->lw0, t->lw1));
	}
	if (t->hi - t->lo > LOAD_MAX * t->d.n && t->d.n < t->d.max)
		chains_grow(t, &t->d);
	if ((t->hi - t->lo) >> LSTEP > LOAD_MAX * t->l.n &&
	    t->l.n < t->l.max)
		chains_grow(t, &t->l);
}

static void
doc_begin(struct taint *t)
{
	/* A sampled head keeps a position in POS_BITS bits: 256 TiB of
	 * output, days at any rate a session sees.  Past it, end the
	 * session rather than record output the index cannot find. */
	if (t->hi >= POS_LIMIT - BNC_TAINT_CAP_MAX)
		fatal_f("taint index: %llu bytes recorded, its position "
		    "bound", (unsigned long long)t->hi);
	t->n.space = t->n.any = 0;
	t->dlen = 0;
	t->gram = t->lw0 = t->lw1 = 0;
}

static void	scan_forms(struct taint *, const char *, size_t);

static void
doc_put(struct taint *t, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char out[CHUNK + 1];
	size_t n, k, i;

	if (!t->in_forms)
		scan_forms(t, s, len);

	while (len > 0) {
		n = len < CHUNK ? len : CHUNK;
		/* never split a UTF-8 sequence between two runs */
		if (n < len) {
			/* the last byte before the cut that is no
			 * continuation byte: if it leads a sequence that
			 * crosses the cut, cut before it */
			for (i = 1; i < 4 && i < n &&
			    (p[n - i] & 0xc0) == 0x80; i++)
				;
			if ((p[n - i] & 0xc0) == 0xc0 &&
			    (p[n - i] >= 0xf0 ? 4 : p[n - i] >= 0xe0 ? 3 : 2) >
			    (int)i)
				n -= i;
		}
		/* a dense head's position less base stays below
		 * REBASE_CAPS caps and this chunk: it fits 32 bits */
		if (t->hi - t->d.base >= (uint64_t)REBASE_CAPS * t->cap) {
			chains_flush(&t->d, t->lo);
			chains_rebase(&t->d, t->lo);
		}
		k = norm_run(&t->n, p, n, out);
		for (i = 0; i < k; i++)
			doc_byte(t, out[i]);
		/* once kept, the run's bytes are the ring's newest k */
		if (t->dlen >= GRAM && k >= TAINT_MIN_LEN)
			tok_scan(t, out, k, t->hi - k);
		p += n;
		len -= n;
	}
}

/* Whitespace between two parts of one output (text blocks). */
static void
doc_sep(struct taint *t)
{
	t->n.space = 1;
}

static void	add_forms(struct taint *);

static void
doc_end(struct taint *t)
{
	if (t->dlen >= GRAM) {
		ring_put(t, '\0');
		t->recorded += t->dlen;
	}
	chains_flush(&t->d, t->lo);
	chains_flush(&t->l, t->lo);
	if (!t->in_forms && buf_len(t->forms) > 0)
		add_forms(t);
}

/*
 * Canonical forms (canon.h).  A destination in output may be spelt so
 * that the form a call names does not occur in it: "\"attacker\"@evil.
 * example", "Name <a@b>" with a comment, an IBAN in groups, "+1 (555)
 * 123-4567", a host in Unicode where the call has its A-label.  The
 * identities of every recorded text are found (canon_scan, in windows
 * that overlap by more than an identity's length, so each is seen whole
 * once), and a form (and other reading) that normalises to other bytes
 * than the spelling is recorded too, as an output of its own after the
 * one it came from.  Past BNC_TAINT_FORMS_MAX bytes of forms for one
 * output the rest are not recorded, and the index turns strict, as on
 * eviction: the gate then asks where it would have found nothing.
 */
static void
note_form(struct taint *t, const char *span, size_t slen, const char *form)
{
	char *a, *b;
	size_t na, nb, fl = strlen(form);

	a = xmalloc(slen + 1);
	b = xmalloc(fl + 1);
	na = taint_normalise(span, slen, a);
	nb = taint_normalise(form, fl, b);
	if ((na != nb || memcmp(a, b, na) != 0) && nb >= TAINT_MIN_LEN) {
		if (buf_len(t->forms) + fl + 1 > BNC_TAINT_FORMS_MAX)
			t->strict = 1;
		else if (buf_put(t->forms, form, fl) != 0 ||
		    buf_put_u8(t->forms, '\0') != 0)
			t->strict = 1;
	}
	free(a);
	free(b);
}

static void
scan_forms(struct taint *t, const char *s, size_t len)
{
	struct canon_id *ids;
	size_t a = 0, end, next, nids, i, last;
	int r;

	while (a < len) {
		end = len - a > BNC_TAINT_FORMS_WINDOW ?
		    a + BNC_TAINT_FORMS_WINDOW : len;
		/* identities that start before next end inside the window */
		next = end == len ? len : end - 2 * BNC_CANON_IDENT_MAX;
		ids = NULL;
		nids = 0;
		r = canon_scan(s + a, end - a, BNC_CANON_IDS_MAX, &ids, &nids);
		for (i = 0; i < nids && a + ids[i].off < next; i++) {
			note_form(t, s + a + ids[i].off, ids[i].len,
			    ids[i].form);
			if (ids[i].alt != NULL)
				note_form(t, s + a + ids[i].off, ids[i].len,
				    ids[i].alt);
		}
		if (r == -BNC_ERR_TOO_LARGE && nids > 0) {
			/* more than one scan holds: go on after the last */
			last = a + ids[nids - 1].off + ids[nids - 1].len;
			if (last < next)
				next = last;
		} else if (r < 0)
			t->strict = 1;	/* a part not scanned: stricter */
		canon_ids_free(ids, nids);
		a = next > a ? next : a + 1;
	}
}

/* Each form noted for the output just recorded, an output of its own. */
static void
add_forms(struct taint *t)
{
	const char *p = (const char *)buf_ptr(t->forms);
	size_t n = buf_len(t->forms), l;

	t->in_forms = 1;
	while (n > 0) {
		l = strnlen(p, n);
		doc_begin(t);
		doc_put(t, p, l);
		doc_end(t);
		if (l == n)
			break;
		p += l + 1;
		n -= l + 1;
	}
	t->in_forms = 0;
	buf_reset(t->forms);
}

/* Bytes of a dense link: its distances are below the cap. */
static unsigned
link_width(size_t cap)
{
	if (cap <= (1 << 16))
		return 2;
	if (cap <= (1 << 24))
		return 3;
	return 4;
}

struct taint *
taint_new_keyed(size_t cap, uint64_t key)
{
	struct taint *t;

	if (cap == 0)
		cap = BNC_TAINT_CAP;
	if (cap < BNC_TAINT_CAP_MIN)
		cap = BNC_TAINT_CAP_MIN;
	if (cap > BNC_TAINT_CAP_MAX)
		cap = BNC_TAINT_CAP_MAX;
	t = xcalloc(1, sizeof(*t));
	/* a power of two: slots are masks, and whole sampling strides */
	t->cap = pow2_floor(cap, BNC_TAINT_CAP_MIN);
	t->key = key | 1;
	t->key2 = (key * UINT64_C(0x9e3779b97f4a7c15)) | 1;
	memcpy(t->tkey, &t->key, sizeof(t->key));
	memcpy(t->tkey + sizeof(t->key), &t->key2, sizeof(t->key2));
	t->d.max = pow2_floor(t->cap / LOAD_MAX, TABLE_MIN);
	t->l.max = pow2_floor((t->cap >> LSTEP) / LOAD_MAX, TABLE_MIN);
	t->l.step = LSTEP;
	t->d.lw = link_width(t->cap);
	t->l.lw = sizeof(uint32_t);
	t->tmax = pow2_floor(t->cap / TOK_SHARE, TOK_MIN);
	t->forms = buf_new();
	chains_alloc(&t->d, TABLE_MIN);
	chains_alloc(&t->l, TABLE_MIN);
	return t;
}

/* Tables at their floor, the key and the struct: far below this. */
#define TAINT_MEM_CONST	(1024 * 1024)

size_t
taint_memory_bound(size_t cap)
{
	/* per byte of cap (above): the ring, dense links and heads, the
	 * sampled links and heads, the token sets; and one output's forms */
	return cap * (1 + link_width(cap)) +
	    cap / LOAD_MAX * sizeof(uint32_t) +
	    (cap >> LSTEP) * sizeof(uint32_t) +
	    (cap >> LSTEP) / LOAD_MAX * sizeof(uint64_t) +
	    cap / TOK_SHARE * sizeof(struct tok) +
	    BNC_TAINT_FORMS_MAX + TAINT_MEM_CONST;
}

size_t
taint_cap_for(size_t memory)
{
	size_t cap;

	for (cap = BNC_TAINT_CAP_MAX; cap >= BNC_TAINT_CAP_MIN; cap /= 2)
		if (taint_memory_bound(cap) <= memory)
			return cap;
	return 0;
}

struct taint *
taint_new(size_t cap)
{
	struct taint *t;
	uint64_t key;

	arc4random_buf(&key, sizeof(key));
	t = taint_new_keyed(cap, key);
	arc4random_buf(t->tkey, sizeof(t->tkey));
	return t;
}

void
taint_free(struct taint *t)
{
	if (t == NULL)
		return;
	if (t->size != 0) {
		(void)munmap(t->text, t->size);
		(void)munmap(t->d.link, links_len(&t->d, t->size));
		(void)munmap(t->l.link, links_len(&t->l, t->size >> LSTEP));
	}
	free(t->tok);
	buf_free(t->forms);
	explicit_bzero(t->tkey, sizeof(t->tkey));
	free(t->d.rhead);
	free(t->l.head);
	free(t);
}

void
taint_add_text(struct taint *t, const char *s, size_t len)
{
	if (t == NULL)
		return;
	doc_begin(t);
	doc_put(t, s, len);
	doc_end(t);
}

static void
add_number(struct taint *t, const struct value *v)
{
	char buf[64];
	int n;

	if (v->type == V_INT)
		n = snprintf(buf, sizeof(buf), "%lld", (long long)v->u.i);
	else
		n = snprintf(buf, sizeof(buf), "%.17g", v->u.d);
	if (n > 0 && (size_t)n < sizeof(buf))
		taint_add_text(t, buf, (size_t)n);
}

static int
str_is(const struct value *v, const char *s)
{
	return v != NULL && v->type == V_STRING && strcmp(v->u.s.p, s) == 0;
}

/*
 * Base64 payloads: a resource's blob, the data of an image or audio
 * block.  They reach the agent like any string, and an agent may read
 * one decoded, so a payload is recorded as is and, when it is base64 of
 * UTF-8 text, decoded as well (DESIGN 5).  It is decoded only when it
 * is base64 in one alphabet, standard or URL-safe (RFC 4648 sections 4
 * and 5), never the two mixed; '=' padding only at its end, at most two
 * of them, and then to a multiple of four characters; unpadded, any
 * length but one past a multiple of four.  Line breaks (CR, LF) are
 * passed over, as MIME wraps base64; bits left over in the last
 * character are ignored.  A payload is up to the message cap: it is
 * decoded twice, once to prove the bytes UTF-8 and once to record them,
 * each pass linear and through BNC_TAINT_DECODE_CHUNK bytes on the
 * stack, never a copy of the whole.
 */
#define B64_STD		0x40		/* only in the standard alphabet */
#define B64_URL		0x80		/* only in the URL-safe one */
#define B64_BAD		0xff

/* A character's six bits, with the alphabet it belongs to alone. */
static unsigned
b64_val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	switch (c) {
	case '+':
		return 62 | B64_STD;
	case '/':
		return 63 | B64_STD;
	case '-':
		return 62 | B64_URL;
	case '_':
		return 63 | B64_URL;
	}
	return B64_BAD;
}

/* 1 if the padding of s[0..len) is right; *end: where its data ends. */
static int
b64_shape(const unsigned char *s, size_t len, size_t *end)
{
	size_t i, data = 0, pad = 0;

	for (i = 0; i < len && s[i] != '='; i++)
		if (s[i] != '\r' && s[i] != '\n')
			data++;
	*end = i;
	for (; i < len; i++) {
		if (s[i] == '=')
			pad++;
		else if (s[i] != '\r' && s[i] != '\n')
			return 0;
	}
	if (data == 0 || pad > 2)
		return 0;
	return pad > 0 ? (data + pad) % 4 == 0 : data % 4 != 1;
}

/* n less an unfinished UTF-8 sequence at the end of s[0..n). */
static size_t
utf8_whole(const unsigned char *s, size_t n)
{
	size_t i;

	for (i = 1; i <= 3 && i <= n; i++) {
		if ((s[n - i] & 0xc0) == 0x80)
			continue;
		if (s[n - i] >= 0xc0 &&
		    (s[n - i] >= 0xf0 ? 4 : s[n - i] >= 0xe0 ? 3 : 2) > i)
			return n - i;
		break;
	}
	return n;
}

/* Decoded bytes, whole characters: checked (t NULL) or recorded. */
static int
b64_emit(struct taint *t, const unsigned char *s, size_t n)
{
	if (t == NULL)
		return utf8_valid(s, n);
	doc_put(t, (const char *)s, n);
	return 1;
}

/*
 * One pass over the data s[0..end) of a payload b64_shape accepted.
 * With t NULL: 1 if it is base64 of UTF-8 text, else 0.  Else it was,
 * and its bytes go to t's open output, cut between characters only (a
 * cut inside one would keep it from being normalised as itself).
 */
static int
b64_pass(struct taint *t, const unsigned char *s, size_t end)
{
	unsigned char out[BNC_TAINT_DECODE_CHUNK];
	unsigned v, bits = 0, alpha = 0;
	uint32_t acc = 0;
	size_t i, n = 0, k;

	for (i = 0; i < end; i++) {
		if (s[i] == '\r' || s[i] == '\n')
			continue;
		if ((v = b64_val(s[i])) == B64_BAD)
			return 0;
		alpha |= v & (B64_STD | B64_URL);
		if (alpha == (B64_STD | B64_URL))
			return 0;
		acc = acc << 6 | (v & 0x3f);
		if ((bits += 6) < 8)
			continue;
		bits -= 8;
		out[n++] = (unsigned char)(acc >> bits);
		acc &= (UINT32_C(1) << bits) - 1;
		if (n < sizeof(out))
			continue;
		/* an unfinished character waits for the next chunk */
		k = utf8_whole(out, n);
		if (!b64_emit(t, out, k))
			return 0;
		memmove(out, out + k, n - k);
		n -= k;
	}
	return b64_emit(t, out, n);
}

/* A base64 payload: a resource's blob, an image or audio block's data,
 * wherever in a tree (structuredContent and error data may hold one). */
static int
is_payload(const struct value *o, const struct member *m)
{
	const struct value *type;

	if (m->val->type != V_STRING)
		return 0;
	if (strcmp(m->key, "blob") == 0)
		return 1;
	if (strcmp(m->key, "data") != 0)
		return 0;
	type = value_get(o, "type");
	return str_is(type, "image") || str_is(type, "audio");
}

/* Records a payload as is, and decoded too when it is UTF-8 text. */
static void
add_payload(struct taint *t, const struct value *v)
{
	const unsigned char *s = (const unsigned char *)v->u.s.p;
	size_t end;

	taint_add_text(t, v->u.s.p, v->u.s.len);
	if (!b64_shape(s, v->u.s.len, &end) || !b64_pass(NULL, s, end))
		return;
	/* the decoded text last: under eviction the newest is kept */
	doc_begin(t);
	(void)b64_pass(t, s, end);
	doc_end(t);
}

/*
 * Records a tree without recursion (a tree built in-process is not bound
 * by the decoder's depth cap): each key and string its own output,
 * numbers as their decimal text, payloads as add_payload says.
 */
static void
add_tree(struct taint *t, const struct value *root)
{
	const struct value **stack = NULL, *v;
	const struct member *m;
	size_t n = 0, cap = 0, i;

	if (t == NULL || root == NULL)
		return;
	stack = xreallocarray(NULL, (cap = 16), sizeof(*stack));
	stack[n++] = root;
	while (n > 0) {
		v = stack[--n];
		switch (v->type) {
		case V_STRING:
			taint_add_text(t, v->u.s.p, v->u.s.len);
			break;
		case V_INT:
		case V_DOUBLE:
			add_number(t, v);
			break;
		case V_ARRAY:
		case V_OBJECT:
			i = v->type == V_ARRAY ? v->u.a.n : v->u.o.n;
			if (n + i > cap) {
				cap = n + i + 16;
				stack = xreallocarray(stack, cap,
				    sizeof(*stack));
			}
			/* pushed in reverse: recorded in document order */
			while (i-- > 0) {
				if (v->type == V_ARRAY) {
					stack[n++] = v->u.a.v[i];
					continue;
				}
				if (!is_payload(v, &v->u.o.m[i]))
					stack[n++] = v->u.o.m[i].val;
			}
			if (v->type != V_OBJECT)
				break;
			for (i = 0; i < v->u.o.n; i++) {
				m = &v->u.o.m[i];
				taint_add_text(t, m->key, m->klen);
				if (is_payload(v, m))
					add_payload(t, m->val);
			}
			break;
		default:
			break;
		}
	}
	free(stack);
}

void
taint_add_value(struct taint *t, const struct value *v)
{
	add_tree(t, v);
}

/* A member of object o: its key, then its value. */
static void
add_member(struct taint *t, const struct value *o, const struct member *m)
{
	taint_add_text(t, m->key, m->klen);
	if (is_payload(o, m))
		add_payload(t, m->val);
	else
		add_tree(t, m->val);
}

/* A block of a result's content, but for the text of a text block. */
static void
add_block(struct taint *t, const struct value *blk)
{
	const struct member *m;
	size_t i;
	int text;

	if (blk->type != V_OBJECT) {
		add_tree(t, blk);
		return;
	}
	text = str_is(value_get(blk, "type"), "text");
	for (i = 0; i < blk->u.o.n; i++) {
		m = &blk->u.o.m[i];
		/* in the joined output already */
		if (text && m->val->type == V_STRING &&
		    strcmp(m->key, "text") == 0)
			continue;
		add_member(t, blk, m);
	}
}

void
taint_add_result(struct taint *t, const struct value *r)
{
	const struct value *content, *blk;
	const struct member *m;
	size_t i, j;
	int any = 0;

	if (t == NULL || r == NULL)
		return;
	content = value_get(r, "content");
	if (!value_is(content, V_ARRAY)) {
		add_tree(t, r);
		return;
	}
	/* The text blocks are one output, as the agent reads them. */
	doc_begin(t);
	for (i = 0; i < content->u.a.n; i++) {
		blk = content->u.a.v[i];
		if (!str_is(value_get(blk, "type"), "text") ||
		    value_get_str(blk, "text") == NULL)
			continue;
		if (any++)
			doc_sep(t);
		doc_put(t, value_get_str(blk, "text"),
		    value_get(blk, "text")->u.s.len);
	}
	doc_end(t);
	/* Everything else, the blocks' types and keys too: all of it
	 * reaches the agent. */
	for (i = 0; i < r->u.o.n; i++) {
		m = &r->u.o.m[i];
		if (m->val != content) {
			add_member(t, r, m);
			continue;
		}
		taint_add_text(t, m->key, m->klen);
		for (j = 0; j < content->u.a.n; j++)
			add_block(t, content->u.a.v[j]);
	}
}

/*
 * Lookups.
 */

/* 1 if retained text at position s equals n[0..m). */
static int
ring_eq(const struct taint *t, uint64_t s, const unsigned char *n, size_t m)
{
	size_t i = SLOT(t, s), k;

	if (i + m <= t->size)
		return memcmp(t->text + i, n, m) == 0;
	k = t->size - i;
	return memcmp(t->text + i, n, k) == 0 &&
	    memcmp(t->text, n + k, m - k) == 0;
}

/* Is the bucket of gram g empty below position lo + off? */
static int
gram_absent(const struct taint *t, const unsigned char *g, size_t off,
    uint64_t *newest)
{
	uint64_t h = dhead_get(&t->d, bucket(t, gram_of(g)));

	if (h == 0 || h - 1 < t->lo + off)
		return 1;
	if (newest != NULL)
		*newest = h - 1;
	return 0;
}

/* One lookup between the requests for its memory and their use. */
struct grams {
	const struct chains	*c;		/* the index asked */
	size_t			 k;		/* grams probed */
	size_t			 off[CHAINS_MAX];
	uint64_t		 b[CHAINS_MAX];	/* bucket, or hash */
	unsigned		 cls[CHAINS_MAX];	/* occurrences it stands for */
};

struct probe {
	const unsigned char	*n;
	size_t			 m;
	const struct tok	*x;		/* its token set */
	uint64_t		 fp;		/* its fingerprint there */
	struct grams		 d;		/* in the dense index */
	struct grams		 l;		/* in the sampled one, or k 0 */
};

#if BNC_TAINT_PROBE_GRAMS > CHAINS_MAX
#error "a walk holds every probed dense gram"
#endif

/*
 * Asks for the buckets of a long value's grams, LCLASS_MAX per offset
 * class modulo the stride: an occurrence at s has its grams at offsets
 * j, j + 8, ... sampled, where s + j is a multiple of the stride, so
 * every chain of class j holds every occurrence of class j.  One common
 * gram (a header that many outputs repeat) then does not make the walk
 * run long: the class is found or ruled out in its rarest chain.  The
 * grams of a class are spread from its first to its last, not packed at
 * the start: a value cut out of output often begins inside something
 * many outputs repeat (an address, a host) and ends in words that are
 * rare.
 */
static void
probe_long(const struct taint *t, struct probe *p)
{
	size_t i, c, o, strides;

	p->l.c = &t->l;
	p->l.k = 0;
	for (i = 0; i < (1 << LSTEP); i++) {
		/* class i has grams at i + 8 * (0 .. strides) */
		strides = (p->m - LGRAM - i) >> LSTEP;
		for (c = 0; c < LCLASS_MAX && c <= strides; c++) {
			o = i + ((LCLASS_MAX == 1 ? 0 : c * strides /
			    (LCLASS_MAX - 1)) << LSTEP);
			p->l.off[p->l.k] = o;
			p->l.cls[p->l.k] = (unsigned)i;
			p->l.b[p->l.k] = lhash(t, be64(p->n + o),
			    be64(p->n + o + 8));
			__builtin_prefetch(&t->l.head[hbkt(&t->l,
			    p->l.b[p->l.k])]);
			p->l.k++;
		}
	}
}

/*
 * Computes where n[0..m) is to be looked for and asks for those lines at
 * once (its token slot and the dense index's buckets of grams spread
 * over it: every occurrence has all of them): the lookup then waits on
 * memory once, and its caller can do other work meanwhile.
 */
static void
probe_start(const struct taint *t, struct probe *p, const unsigned char *n,
    size_t m)
{
	size_t i, ng;

	p->n = n;
	p->m = m;
	p->x = NULL;
	p->d.k = p->l.k = 0;
	if (m < GRAM || t->size == 0 || m > t->hi - t->lo)
		return;
	p->fp = tok_fp(t, n, m);
	p->x = tok_set(t, p->fp);
	__builtin_prefetch(p->x);
	p->d.c = &t->d;
	ng = m - GRAM + 1;
	p->d.k = ng < BNC_TAINT_PROBE_GRAMS ? ng : BNC_TAINT_PROBE_GRAMS;
	for (i = 0; i < p->d.k; i++) {
		p->d.off[i] = p->d.k == 1 ? 0 : i * (ng - 1) / (p->d.k - 1);
		p->d.cls[i] = 0;
		p->d.b[i] = bucket(t, gram_of(n + p->d.off[i]));
		__builtin_prefetch(&t->d.rhead[p->d.b[i]]);
	}
}

/*
 * Walks the probed chains of one index in lockstep, newest first.  Each
 * chain holds every retained position of its bucket, so an occurrence
 * at s puts s + off[i] in chain i if the occurrence is of the chain's
 * class (cls[i]): the dense index has one class, every occurrence; the
 * sampled one a class per offset modulo the stride.  A chain that runs
 * out below lo + off[i] rules out its whole class, and the value is
 * absent once every class is.  A round compares all current candidates
 * before any chain moves on; their text and their links back are
 * fetched together, so a round waits on memory once.
 */
static enum taint_found
walk(const struct taint *t, const struct probe *p, const struct grams *q)
{
	const struct chains *c = q->c;
	const unsigned char *n = p->n;
	const size_t m = p->m, k = q->k, *off = q->off;
	const int sampled = c->step != 0;
	uint64_t cur[CHAINS_MAX], want[CHAINS_MAX], s, h;
	size_t i, j, live = 0, budget;
	int on[CHAINS_MAX], hit[CHAINS_MAX];
	uint32_t d;

	for (i = 0; i < k; i++) {
		if (sampled) {
			want[i] = htag(c, q->b[i]);
			h = c->head[hbkt(c, q->b[i])];
			hit[i] = (h >> POS_BITS) == want[i];
			want[i] >>= HTAG_BITS - LTAG_BITS;
			h &= POS_MASK;
		} else {
			h = dhead_get(c, q->b[i]);
			hit[i] = 1;
		}
		on[i] = h != 0 && h - 1 >= t->lo + off[i];
		cur[i] = h - 1;
	}
	/* a chain that is empty rules its whole class out */
	for (i = 0; i < k; i++)
		if (!on[i])
			for (j = 0; j < k; j++)
				if (q->cls[j] == q->cls[i])
					on[j] = 0;
	for (i = 0; i < k; i++)
		live += on[i];
	for (budget = BNC_TAINT_VERIFY_MAX; live > 0;) {
		for (i = 0; i < k; i++) {
			if (!on[i])
				continue;
			if (hit[i])
				__builtin_prefetch(&t->text[SLOT(t,
				    cur[i] - off[i])]);
			__builtin_prefetch(link_at(c, SLOT(t, cur[i]) >>
			    c->step));
		}
		for (i = 0; i < k; i++) {
			if (!on[i])
				continue;
			if (budget == 0)
				return TAINT_UNSURE;
			budget--;
			s = cur[i] - off[i];
			if (hit[i] && s + m <= t->hi && ring_eq(t, s, n, m))
				return TAINT_FOUND;
		}
		for (i = 0; i < k; i++) {
			if (!on[i])
				continue;
			d = link_get(c, SLOT(t, cur[i]) >> c->step);
			if (sampled) {
				hit[i] = (d >> DIST_BITS) == want[i];
				d = (d & DIST_MASK) << c->step;
			}
			if (d == 0 || cur[i] - d < t->lo + off[i]) {
				for (j = 0; j < k; j++)
					if (on[j] && q->cls[j] == q->cls[i]) {
						on[j] = 0;
						live--;
					}
			} else
				cur[i] -= d;
		}
	}
	return TAINT_ABSENT;
}

/* Is the probed value a token of retained output (its fingerprint)? */
static int
probe_token(const struct taint *t, const struct probe *p)
{
	size_t i;

	if (p->d.k == 0)
		return 0;
	for (i = 0; i < TOK_WAYS; i++)
		if (p->x->w[i].fp == p->fp && p->x->w[i].pos1 > t->lo)
			return 1;
	return 0;
}

/* Does the probed value occur in one retained output? */
static enum taint_found
probe_finish(const struct taint *t, struct probe *p)
{
	const unsigned char *n = p->n;
	const size_t m = p->m;
	enum taint_found r;
	size_t i, j, ng;

	if (p->d.k == 0)
		return TAINT_ABSENT;
	if (probe_token(t, p))
		return TAINT_FOUND;
	/* a gram no retained output has: absent */
	for (i = 0; i < p->d.k; i++)
		if (gram_absent(t, n + p->d.off[i], p->d.off[i], NULL))
			return TAINT_ABSENT;
	/*
	 * Every probed gram occurs.  A long value's 16-byte grams are
	 * rare, their chains short: they decide, unless common too.
	 */
	if (m >= LVAL_MIN) {
		if (p->l.k == 0)
			probe_long(t, p);
		if ((r = walk(t, p, &p->l)) != TAINT_UNSURE)
			return r;
	}
	if ((r = walk(t, p, &p->d)) != TAINT_UNSURE)
		return r;
	/* Every probed gram is common; a missing one still decides. */
	ng = m - GRAM + 1;
	for (j = 0, i = 0; j < ng; j++) {
		if (i < p->d.k && p->d.off[i] == j) {
			i++;
			continue;
		}
		if (gram_absent(t, n + j, j, NULL))
			return TAINT_ABSENT;
	}
	return TAINT_UNSURE;
}

enum taint_found
taint_lookup(const struct taint *t, const char *s, size_t len)
{
	unsigned char stackbuf[256], *n;
	struct probe whole, id;
	size_t m, i, o, l, po = 0, pl = 0, nid = 0;
	enum taint_found r, res = TAINT_ABSENT;
	int absent = 0;

	if (t == NULL || len == 0)
		return TAINT_ABSENT;
	n = len <= sizeof(stackbuf) ? stackbuf : xmalloc(len);
	m = taint_normalise(s, len, (char *)n);
	if (m < TAINT_MIN_LEN)
		goto out;
	/* the whole value's memory is on its way while identities go */
	probe_start(t, &whole, n, m);
	/* most values found are a whole token of some output: answer
	 * those after one wait, before scanning for identities */
	if (probe_token(t, &whole)) {
		res = TAINT_FOUND;
		goto out;
	}
	/*
	 * Identities first: each is a substring of the value, so one that
	 * is absent proves the whole value absent as well.
	 */
	for (i = 0; ident_next(n, m, &i, &o, &l);) {
		if (l < TAINT_MIN_LEN || l == m || (o == po && l == pl))
			continue;
		if (++nid > BNC_TAINT_IDENTS_MAX) {
			/* more than a value holds: bounded work, fail closed */
			res = TAINT_UNSURE;
			goto out;
		}
		po = o;
		pl = l;
		probe_start(t, &id, n + o, l);
		if ((r = probe_finish(t, &id)) == TAINT_FOUND) {
			res = r;
			goto out;
		}
		if (r == TAINT_UNSURE)
			res = r;
		else
			absent = 1;
	}
	if (!absent && (r = probe_finish(t, &whole)) != TAINT_ABSENT)
		res = r;
 out:
	if (n != stackbuf)
		free(n);
	return res;
}

enum taint_found
taint_lookup_idents(const struct taint *t, const char *s, size_t len,
    int (*pass)(void *, const char *, size_t), void *arg, size_t *budget,
    char *found, size_t foundlen)
{
	/* which answer wins over which */
	static const int rank[] = {
		[TAINT_ABSENT] = 0, [TAINT_DROPPED] = 1, [TAINT_UNSURE] = 2,
		[TAINT_FOUND] = 3
	};
	unsigned char stackbuf[256], *n;
	struct probe id;
	size_t m, i, o, l, po = 0, pl = 0;
	enum taint_found r, res = TAINT_ABSENT;

	if (found != NULL && foundlen > 0)
		found[0] = '\0';
	if (t == NULL || len == 0)
		return TAINT_ABSENT;
	n = len <= sizeof(stackbuf) ? stackbuf : xmalloc(len + 1);
	m = taint_normalise(s, len, (char *)n);
	for (i = 0; ident_next(n, m, &i, &o, &l);) {
		if (l < TAINT_MIN_LEN || (o == po && l == pl))
			continue;
		po = o;
		pl = l;
		if (*budget == 0) {
			/* bounded work per call: what is left is unknown */
			if (res != TAINT_UNSURE && found != NULL &&
			    foundlen > 0)
				found[0] = '\0';
			res = TAINT_UNSURE;
			break;
		}
		(*budget)--;
		if (pass != NULL && pass(arg, (const char *)n + o, l))
			continue;
		probe_start(t, &id, n + o, l);
		if ((r = probe_finish(t, &id)) == TAINT_ABSENT) {
			if (!t->strict)
				continue;
			r = TAINT_DROPPED;
		}
		/* the deciding identity, as normalised: the one found, else
		 * the first the lookup could not rule out, else the first
		 * that may have been dropped */
		if (rank[r] <= rank[res])
			continue;
		if (found != NULL && foundlen > 0)
			snprintf(found, foundlen, "%.*s", (int)l,
			    (const char *)n + o);
		res = r;
		if (r == TAINT_FOUND)
			break;
	}
	if (n != stackbuf)
		free(n);
	return res;
}

int
taint_check(const struct taint *t, const char *s, size_t len)
{
	return taint_lookup(t, s, len) != TAINT_ABSENT;
}

int
taint_strict(const struct taint *t)
{
	return t != NULL && t->strict;
}

size_t
taint_bytes(const struct taint *t)
{
	uint64_t used;

	if (t == NULL)
		return 0;
	/* the ring's pages that were ever written */
	used = t->hi < t->size ? t->hi : t->size;
	return sizeof(*t) + (size_t)used * (1 + t->d.lw) +
	    (size_t)(used >> LSTEP) * t->l.lw +
	    t->d.n * sizeof(*t->d.rhead) + t->l.n * sizeof(*t->l.head) +
	    t->ntok * sizeof(*t->tok);
}

size_t
taint_retained(const struct taint *t)
{
	return t == NULL ? 0 : (size_t)(t->hi - t->lo);
}

uint64_t
taint_recorded(const struct taint *t)
{
	return t == NULL ? 0 : t->recorded;
}
