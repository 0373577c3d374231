/*
 * canon.h - the canonical forms of destination identities (DESIGN 5,
 * "Canonical forms").
 *
 * The sink gate compares destinations with trusted lists, remembered
 * approvals and the taint index; it must compare the place a receiving
 * server will act on, not the spelling an attacker chose.  These are
 * pure functions on bytes (no I/O, no DNS, no locale): every input is
 * attacker-chosen, every function's work is linear in its input, and
 * every bound is in bounds.h.
 *
 * How a caller uses an identity.  Compare `form' (and `alt') with
 * trusted lists and approvals, byte for byte.  An identity with
 * CANON_AMBIGUOUS is read two ways by receivers in the field: it is
 * trusted only when both form and alt are, and tainted when either is.
 * Look the identity up in the taint index by its text as written
 * (s + off, len), and by its form: the index folds the text its own way
 * (taint_normalise), and a canonical form (an IPv4 address in dotted
 * decimal, an A-label) need not occur in the output it came from.
 *
 * The rule behind every mapping below: we map a spelling to another
 * only when every receiver we know of does (browsers and Node.js with
 * WHATWG URL parsing and UTS 46; curl and Python with RFC 3986 and
 * IDNA 2008 or 2003).  Where they disagree, the identity is ambiguous
 * and carries both readings; a third reading is an error.  Where we lack
 * the tables for a mapping that receivers make, two spellings of one
 * place stay apart: asked about, never trusted by mistake.
 *
 * Hosts (canon_host, and the host of a URL, a mail domain, a scheme
 * address's domain):
 *  - a URL's host is percent-decoded first (bytes, then UTF-8);
 *  - ASCII letters are lower-cased; one trailing '.' is removed;
 *  - U+3002, U+FF0E and U+FF61 are '.'; fullwidth ASCII U+FF01..FF5E is
 *    ASCII (so U+FF0F is '/', which no host may hold);
 *  - Latin-1, Latin Extended-A, basic Greek (U+0386..03AB) and Cyrillic
 *    (U+0400..042F) capitals are lower-cased as UnicodeData's simple
 *    lower case does, except where UTS 46 maps otherwise: U+0130 is
 *    "i" U+0307 (never plain "i"), U+0132/0133 "ij", U+013F/0140 "l"
 *    U+00B7, U+0149 U+02BC "n", U+017F "s", U+0178 U+00FF;
 *  - also as UTS 46 maps them: U+00AA "a", U+00BA "o", U+00B2, U+00B3,
 *    U+00B9 digits, U+00B5 U+03BC, Kelvin "k", Ohm U+03C9, Angstrom
 *    U+00E5, circled letters U+24B6..24E9 ASCII letters;
 *  - every label that then holds a non-ASCII code point becomes its
 *    A-label, "xn--" + RFC 3492 punycode; an "xn--" label of the input
 *    is checked by decoding it and kept as written (lower case) either
 *    way: a receiver that does not decode it sends it as written;
 *  - invisible and bidi characters (the canon_visible list) make the
 *    host CANON_AMBIGUOUS: form without them (UTS 46 ignores most),
 *    alt the A-labels with them (a naive encoder keeps them);
 *  - U+00DF (sharp s) and U+03C2 (final sigma) make it CANON_AMBIGUOUS:
 *    form keeps them (IDNA 2008, UTS 46 non-transitional: browsers,
 *    curl), alt maps them to "ss" and U+03C3 (IDNA 2003: Python's
 *    codec);
 *  - a host whose last label is a number (WHATWG: digits, or "0x" and
 *    hex) is an IPv4 address in the forms WHATWG accepts (decimal
 *    "2130706433", hex "0x7f.1", octal "0177.0.0.1", short "127.1")
 *    and becomes dotted decimal, or is an error;
 *  - "[...]" is an IPv6 literal, parsed and written as WHATWG does
 *    (RFC 5952: lower case, longest zero run "::");
 *  - an error: an empty label, a control, a space (ASCII or not), a
 *    noncharacter, a character WHATWG forbids in a domain
 *    (# % / : < > ? @ [ \ ] ^ |), invalid UTF-8, more than
 *    BNC_CANON_LABELS_MAX labels, an A-label over BNC_CANON_LABEL_MAX or
 *    a host over BNC_CANON_HOST_MAX bytes, both kinds of ambiguity.
 *  Not made (we have no UTS 46 tables): NFC (a letter and a combining
 *  mark stay two code points), other compatibility mappings (ligatures,
 *  mathematical alphanumerics, halfwidth kana, superscripts but three),
 *  case outside the blocks above (Latin Extended-B and Additional,
 *  Armenian, Georgian, ...), rejection of characters UTS 46 disallows
 *  (they are encoded; a browser refuses the host), the bidi, CONTEXTJ,
 *  CONTEXTO and hyphen rules, and any confusable folding: look-alikes
 *  ("p" U+0430 "ypal") are other hosts, as they are for DNS.
 *
 * URLs (canon_url): "scheme://[userinfo@]host[:port]path[?query][#frag]".
 *  - the scheme is lower-cased; for the special schemes (http, https,
 *    ws, wss, ftp, file) WHATWG reads '\' as '/' and skips any run of
 *    slashes after "scheme:" ("https:host", "https:\\host"), RFC 3986
 *    parsers do neither: when the two readings differ, the URL is
 *    CANON_AMBIGUOUS with form = WHATWG's reading, alt = RFC 3986's
 *    ("https://evil.example\@trusted.example/": host evil.example for
 *    one, trusted.example for the other); a reading a parser refuses
 *    is no reading;
 *  - userinfo is kept, escapes normalised (as a path's), '@' and a
 *    password's ':' escaped, an empty one dropped; default ports (http
 *    and ws 80, https and wss 443, ftp 21) dropped, leading zeros too;
 *  - the path: escapes of unreserved characters decoded ("%2e" is '.',
 *    "%41" 'A'), other escapes' hex upper-cased, characters no URL may
 *    hold raw (controls but for the errors below, space, " < > \ ^ ` {
 *    | }, non-ASCII) escaped as UTF-8, then dot segments removed (RFC
 *    3986 5.2.4, as WHATWG); an empty path of a special scheme is "/";
 *  - an escaped slash or backslash ("%2F", "%5C") in the path makes the
 *    URL CANON_AMBIGUOUS, alt = the path with them read as '/' and dot
 *    segments removed again ("https://h/base/..%2fadmin" has alt
 *    "https://h/admin");
 *  - query and fragment are kept: escapes' hex upper-cased, characters
 *    no URL may hold raw escaped;
 *  - an error: a control (tab and newlines too: WHATWG drops them, RFC
 *    3986 parsers do not) or invalid UTF-8 anywhere, a space or a
 *    character no host may hold in the authority, a bad port, no host
 *    (except for file), more than two readings in all (a host read two
 *    ways inside a URL read two ways), more than BNC_CANON_IDENT_MAX
 *    bytes.
 *
 * Mailboxes (canon_mailbox): an addr-spec "local@domain" or a name-addr
 * "Display Name <local@domain>" (the name quoted or not, RFC 6532
 * UTF-8 allowed); RFC 5322 comments (nested at most
 * BNC_CANON_COMMENT_DEPTH deep) and white space wherever CFWS may stand,
 * obsolete forms included ("john . doe @ example"); a quoted local part
 * is unquoted when its content is a dot-atom, else kept quoted with only
 * '"' and '\' escaped; the local part's case is kept; the domain is a
 * host as above (case, IDNA and a trailing dot do not make a new
 * mailbox) or a domain literal "[1.2.3.4]", "[IPv6:...]".  So
 * "\"attacker\"@Evil.Example.", "Attacker Name <attacker@evil.example>"
 * and "attacker(comment)@evil.example" are all "attacker@evil.example".
 * Not a mailbox: a group, a source route, CR or LF, an empty or doubled
 * '.' in a dot-atom; a local part over BNC_CANON_LOCAL_MAX bytes is an
 * error (-BNC_ERR_TOO_LARGE).  Gmail's dots and "+tag" are not folded.
 *
 * Phones: '+' and 8 to 15 digits, with one of space, '-', '.' between
 * digits, and one '(' ... ')' group ("+1 (555) 123-4567"); a "(0)" group
 * right after the country code ("+44 (0)20 ...") is dropped, as it is
 * never dialled.  Canonical: "+digits".  "tel:", "sms:" (and the other
 * scheme addresses) holding one are phones.  No '+': not E.164.  In
 * free text a number runs on over its separators ("+1 555 123 4567 8"
 * is +155512345678: we cannot tell where prose ends it), but one after
 * "tel:" ends with the address, at white space.
 *
 * IBANs: two letters, two check digits and the BBAN, 15 to 34 letters
 * and digits, compact or in groups of four separated by single spaces;
 * the length must be its country's (SWIFT IBAN registry) and the ISO
 * 7064 mod-97 checksum 1.  Canonical: upper case, no spaces.
 *
 * Scheme addresses (CANON_ADDR): "scheme:address" for the schemes of
 * monitor/taint.c's addr_schemes (callto, discord, facetime, im, matrix,
 * mms, msteams, signal, sip, sips, skype, slack, sms, tel, telegram,
 * whatsapp, xmpp) whose address is not a phone: scheme lower-cased,
 * escapes as in a path, the domain after a '@' as a host.
 */
#ifndef BNC_CANON_H
#define BNC_CANON_H

#include <stddef.h>
#include <stdint.h>

struct buf;

enum canon_kind {
	CANON_NONE = 0,
	CANON_MAILBOX,	/* local@domain */
	CANON_URL,	/* scheme://[userinfo@]host[:port]path[?query]
			 * [#fragment] */
	CANON_ADDR,	/* scheme:address of a non-hierarchical scheme
			 * (slack:, sms: without E.164, ...) */
	CANON_HOST,	/* a bare host name or IP literal (whole values only) */
	CANON_PHONE,	/* +E.164 */
	CANON_IBAN	/* compact, upper case */
};
#define CANON_AMBIGUOUS	0x01	/* receivers may read it two ways: alt holds
				 * the other */

struct canon_id {
	enum canon_kind	 kind;
	int		 flags;
	char		*form;	/* the exact canonical form, NUL-terminated,
				 * owned */
	char		*alt;	/* with CANON_AMBIGUOUS: the other reading,
				 * owned; else NULL */
	size_t		 off;	/* its span in the input */
	size_t		 len;
};

/* Frees what id owns and zeroes it; accepts a zeroed id. */
void	canon_id_clear(struct canon_id *);

/*
 * Is s[0..len), trimmed of ASCII white space, exactly one identity (any
 * of the forms above, "mailto:" and "tel:" prefixes included)?  1 and
 * *out filled (the caller clears it), 0 not one identity (text, an
 * address list, a mailto with a query, a single-label name), < 0 an
 * error: a value over BNC_CANON_IDENT_MAX bytes, a value that starts as
 * a URL ("scheme://", any scheme, "mailto://host" too, or a special
 * scheme and ':') or as "mailto:" but is not one, too many readings, too
 * deep comments, a local part over BNC_CANON_LOCAL_MAX.  A bare host is
 * two labels or more, or an IP address written with a '.' or in
 * brackets: a word ("Hello.") or a number alone is not a destination.
 * The span is the trimmed value.
 */
int	canon_whole(const char *s, size_t len, struct canon_id *out);

/*
 * Every identity inside free text, in order: mailboxes (addr-specs,
 * quoted local parts, comments next to the '@', inside "<...>"), URLs
 * (scheme://..., and "scheme:" + host for the special schemes), scheme
 * addresses (mailto: with all its to, cc and bcc recipients, tel:, sms:,
 * slack: and the others above), +E.164 phone numbers and checksum-valid
 * IBANs.  Not bare host names: inside prose they cannot be told from file
 * names (README.md, app.py).  Finds them in text the taint index
 * normalised too (lower case, white space collapsed); a '.' that ends a
 * sentence ends a domain.  Identities do not overlap: one inside a URL
 * is the URL's.  Something shaped like an identity that is not one is
 * passed over, and so is a local part over BNC_CANON_LOCAL_MAX (no server
 * delivers to one).  At most max (capped at BNC_CANON_IDS_MAX)
 * identities; more: -BNC_ERR_TOO_LARGE after filling max.  Also < 0,
 * with the identities before it kept in *ids: a URL, an address or a
 * domain over BNC_CANON_IDENT_MAX (-BNC_ERR_TOO_LARGE), comments nested
 * too deep next to a '@' (-BNC_ERR_TOO_DEEP), an identity with more
 * readings than two (-BNC_ERR_BAD_FORMAT).  *ids is an owned array (free
 * with canon_ids_free) of *nids entries, NULL when there are none.
 */
int	canon_scan(const char *s, size_t len, size_t max, struct canon_id **ids,
	    size_t *nids);
/* Clears and frees n identities; accepts NULL. */
void	canon_ids_free(struct canon_id *, size_t n);

/*
 * An RFC 5322 address list: one or more mailboxes separated by ',' or
 * ';' (outside quotes, comments and angle brackets; empty elements are
 * skipped).  Returns the count (>= 1) and the canonical mailboxes in
 * *ids when EVERY part is a mailbox, 0 when any part is not, < 0 on
 * error or more than max (capped at BNC_CANON_IDS_MAX); *ids is NULL
 * unless the count is returned.
 */
int	canon_addrlist(const char *s, size_t len, size_t max,
	    struct canon_id **ids, size_t *nids);

/*
 * The canonical forms alone: 0 and the form appended to out with a NUL,
 * or < 0 and out unchanged.  flags (may be NULL) gets CANON_AMBIGUOUS or
 * 0; an alt buffer (may be NULL) gets the other reading, with a NUL, when
 * there is one.  canon_phone and canon_iban take a whole value (tel: and
 * sms: prefixes allowed for phones), canon_host no percent-escapes.
 */
int	canon_mailbox(const char *s, size_t len, struct buf *out);
int	canon_mailbox_alt(const char *s, size_t len, struct buf *out,
	    struct buf *alt, int *flags);
int	canon_url(const char *s, size_t len, struct buf *out, struct buf *alt,
	    int *flags);
int	canon_host(const char *s, size_t len, struct buf *out, int *flags);
int	canon_host_alt(const char *s, size_t len, struct buf *out,
	    struct buf *alt, int *flags);
int	canon_phone(const char *s, size_t len, struct buf *out);
int	canon_iban(const char *s, size_t len, struct buf *out);

/*
 * For a question shown to a human: s with C0 and C1 controls, DEL, white
 * space other than U+0020, invisible characters (zero-width space and
 * joiners, soft hyphen, word joiner, BOM, variation selectors, tag
 * characters, Hangul fillers, ...) and bidi controls (U+200E/F,
 * U+202A..202E, U+2066..2069, U+061C) shown as "<U+XXXX>", bytes that are
 * not valid UTF-8 as "<0xNN>", and a '<' that starts "<U+" or "<0x" in s
 * as "<U+003C>", so no two inputs show alike.  -BNC_ERR_TOO_LARGE if the
 * result would exceed max bytes (the caller then denies rather than show
 * a cut value).  Appended to out with a NUL.
 */
int	canon_visible(const char *s, size_t len, size_t max, struct buf *out);

/*
 * RFC 3492, exported for tests: a label's code points <-> its punycode,
 * without the "xn--" prefix (an A-label is "xn--" and this).  Encoding
 * appends the punycode with a NUL; decoding fills cp with at most max
 * code points and says how many in *n.  At most BNC_CANON_PUNY_MAX code
 * points either way.
 */
int	canon_punycode_encode(const uint32_t *cp, size_t n, struct buf *out);
int	canon_punycode_decode(const char *s, size_t len, uint32_t *cp,
	    size_t *n, size_t max);

#endif /* BNC_CANON_H */
