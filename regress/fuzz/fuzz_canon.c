/*
 * fuzz_canon.c - libFuzzer harness for the canonical forms of
 * destination identities (monitor/canon.c).
 *
 * Input: one byte of set-up (bits 0-1: the scan's max, 0, 1, 8 or
 * BNC_CANON_IDS_MAX; bits 2-3: canon_visible's max, 0, 16, 256 or 1 MiB),
 * then the text.  Checked, on the text:
 *  - canon_scan: identities in order, inside the text, not overlapping,
 *    at most max of them, each of its kind's shape, an alt exactly when
 *    ambiguous and never equal to the form;
 *  - a canonical form is a fixed point: read again as a whole value (or
 *    by its own canon_* function) it is the same form, of the same kind;
 *  - canon_whole, canon_addrlist and each canon_* on the whole text agree
 *    with those rules, and leave their buffers as they were on error;
 *  - canon_visible shows no control, invisible or bidi character and no
 *    byte that is not UTF-8, never exceeds its max, and on
 *    -BNC_ERR_TOO_LARGE leaves the buffer as it was;
 *  - punycode decodes what it encoded, and encodes what it decoded.
 * It must never test anything but the public API of canon.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* strcasestr */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bounds.h"
#include "buf.h"
#include "canon.h"
#include "err.h"
#include "fuzz.h"
#include "utf8.h"

static const size_t scan_max[4] = { 0, 1, 8, BNC_CANON_IDS_MAX };
static const size_t vis_max[4] = { 0, 16, 256, 1024 * 1024 };

static int
all_in(const char *s, const char *set)
{
	return s[strspn(s, set)] == '\0';
}

#define DIGITS	"0123456789"
#define UPPER	"ABCDEFGHIJKLMNOPQRSTUVWXYZ"

/* Is form the shape of its kind? */
static void
check_shape(enum canon_kind kind, const char *form)
{
	size_t n = strlen(form);

	FUZZ_CHECK(n > 0);
	switch (kind) {
	case CANON_MAILBOX:
		FUZZ_CHECK(strchr(form, '@') != NULL);
		break;
	case CANON_URL:
		FUZZ_CHECK(strstr(form, "://") != NULL);
		break;
	case CANON_ADDR:
		FUZZ_CHECK(strchr(form, ':') != NULL);
		break;
	case CANON_HOST:
		FUZZ_CHECK(strchr(form, '@') == NULL);
		break;
	case CANON_PHONE:
		FUZZ_CHECK(form[0] == '+' && all_in(form + 1, DIGITS));
		FUZZ_CHECK(n - 1 >= BNC_CANON_PHONE_MIN &&
		    n - 1 <= BNC_CANON_PHONE_MAX);
		break;
	case CANON_IBAN:
		FUZZ_CHECK(all_in(form, UPPER DIGITS));
		FUZZ_CHECK(n >= 15 && n <= BNC_CANON_IBAN_MAX);
		FUZZ_CHECK(strchr(DIGITS, form[2]) != NULL &&
		    strchr(DIGITS, form[3]) != NULL);
		break;
	default:
		FUZZ_CHECK(0);
	}
}

/*
 * Does s hold a '/' percent-encoded once or more ("%2F", "%252F", ...),
 * that decoding BNC_URI_DECODE_ROUNDS times, as canon_whole reads a
 * URL's rest, brings back?
 */
static int
encoded_slash(const char *s)
{
	const char *p;
	int k;

	for (p = strchr(s, '%'); p != NULL; p = strchr(p + 1, '%')) {
		for (k = 0; strncmp(p + 1 + 2 * k, "25", 2) == 0; k++)
			;
		if (k < BNC_URI_DECODE_ROUNDS &&
		    strncasecmp(p + 1 + 2 * k, "2f", 2) == 0)
			return 1;
	}
	return 0;
}

/* One identity, found or whole: its shape, and its form a fixed point. */
static void
check_id(const struct canon_id *id, size_t textlen)
{
	struct canon_id again;
	const char *p;
	int r;

	check_shape(id->kind, id->form);
	FUZZ_CHECK(id->off + id->len <= textlen && id->len > 0);
	FUZZ_CHECK((id->flags == CANON_AMBIGUOUS) == (id->alt != NULL));
	FUZZ_CHECK(id->flags == 0 || id->flags == CANON_AMBIGUOUS);
	if (id->alt != NULL)
		FUZZ_CHECK(strcmp(id->alt, id->form) != 0);
	if (strlen(id->form) > BNC_CANON_IDENT_MAX)
		return;
	r = canon_whole(id->form, strlen(id->form), &again);
	/*
	 * A URL that holds another is no single identity (canon_whole):
	 * "://" again, or a redirect target, "//" plain or with its '/'
	 * percent-encoded (once or more, up to BNC_URI_DECODE_ROUNDS).  A
	 * form writes a backslash of a path as "%5C", which a server may
	 * decode to a slash: read again, "s:\\host" in a path is
	 * "s:%5C%5Chost", a target as well.
	 */
	if (r == 0 && id->kind == CANON_URL &&
	    (p = strstr(id->form, "://")) != NULL &&
	    (strstr(p + 3, "//") != NULL || encoded_slash(p + 3) ||
	    strcasestr(p + 3, "%5c") != NULL))
		return;
	/* a mailbox that is a scheme-relative URL too is none whole */
	if (r == 0 && id->kind == CANON_MAILBOX &&
	    strncmp(id->form, "//", 2) == 0)
		return;
	FUZZ_CHECK(r == 1);
	FUZZ_CHECK(again.kind == id->kind);
	FUZZ_CHECK(strcmp(again.form, id->form) == 0);
	canon_id_clear(&again);
}

/* A canon_* function: 0 and a NUL-terminated form that it maps to
 * itself, or < 0 and the buffer as it was. */
static void
check_form_fn(int (*fn)(const char *, size_t, struct buf *),
    const char *s, size_t len)
{
	struct buf *o = buf_new(), *p = buf_new();
	const char *f;
	int r;

	FUZZ_CHECK(buf_put(o, "x", 1) == 0);
	r = fn(s, len, o);
	if (r != 0) {
		FUZZ_CHECK(r < 0 && buf_len(o) == 1);
		goto out;
	}
	f = (const char *)buf_ptr(o) + 1;
	FUZZ_CHECK(buf_len(o) == 1 + strlen(f) + 1);
	if (strlen(f) <= BNC_CANON_IDENT_MAX) {
		FUZZ_CHECK(fn(f, strlen(f), p) == 0);
		FUZZ_CHECK(strcmp((const char *)buf_ptr(p), f) == 0);
	}
 out:
	buf_free(o);
	buf_free(p);
}

static int
url_fn(const char *s, size_t len, struct buf *out)
{
	struct buf *alt = buf_new();
	int flags = -1, r;

	r = canon_url(s, len, out, alt, &flags);
	if (r == 0)
		FUZZ_CHECK((flags == CANON_AMBIGUOUS) == (buf_len(alt) > 0));
	else
		FUZZ_CHECK(buf_len(alt) == 0);
	buf_free(alt);
	return r;
}

static int
host_fn(const char *s, size_t len, struct buf *out)
{
	return canon_host(s, len, out, NULL);
}

static void
check_scan(const char *s, size_t len, size_t max)
{
	struct canon_id *ids;
	size_t n, i;
	int r;

	r = canon_scan(s, len, max, &ids, &n);
	FUZZ_CHECK(r <= 0 && r > -BNC_ERR_MAX);
	FUZZ_CHECK(n <= max && n <= BNC_CANON_IDS_MAX);
	FUZZ_CHECK((n == 0) == (ids == NULL));
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(ids[i].kind != CANON_HOST);
		check_id(&ids[i], len);
		if (i > 0)
			FUZZ_CHECK(ids[i].off >= ids[i - 1].off +
			    ids[i - 1].len);
	}
	canon_ids_free(ids, n);
}

static void
check_whole(const char *s, size_t len)
{
	struct canon_id id, *ids;
	size_t n, i;
	int r;

	r = canon_whole(s, len, &id);
	FUZZ_CHECK(r <= 1 && r > -BNC_ERR_MAX);
	if (r == 1)
		check_id(&id, len);
	else
		FUZZ_CHECK(id.form == NULL && id.alt == NULL);
	canon_id_clear(&id);
	r = canon_addrlist(s, len, 8, &ids, &n);
	FUZZ_CHECK(r <= 8 && r > -BNC_ERR_MAX);
	FUZZ_CHECK(r > 0 ? (size_t)r == n && ids != NULL :
	    n == 0 && ids == NULL);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(ids[i].kind == CANON_MAILBOX);
		check_id(&ids[i], len);
	}
	canon_ids_free(ids, n);
}

/* No code point canon_visible must show is left in its output. */
static void
check_visible(const char *s, size_t len, size_t max)
{
	struct buf *o = buf_new();
	const unsigned char *v;
	size_t i, n;
	int r;

	FUZZ_CHECK(buf_put(o, "x", 1) == 0);
	r = canon_visible(s, len, max, o);
	if (r != 0) {
		FUZZ_CHECK(r == -BNC_ERR_TOO_LARGE && buf_len(o) == 1);
		goto out;
	}
	v = buf_ptr(o) + 1;
	n = buf_len(o) - 2;
	FUZZ_CHECK(n <= max && v[n] == '\0');
	FUZZ_CHECK(utf8_valid(v, n));
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(v[i] >= 0x20 && v[i] != 0x7f);
		/* C1 controls, U+00A0, U+00AD */
		FUZZ_CHECK(!(v[i] == 0xc2 && (v[i + 1] < 0xa0 ||
		    v[i + 1] == 0xa0 || v[i + 1] == 0xad)));
		/* U+200B..200F, U+202A..202E, U+2060..206F */
		FUZZ_CHECK(!(v[i] == 0xe2 && v[i + 1] == 0x80 &&
		    ((v[i + 2] >= 0x8b && v[i + 2] <= 0x8f) ||
		    (v[i + 2] >= 0xaa && v[i + 2] <= 0xae))));
		FUZZ_CHECK(!(v[i] == 0xe2 && v[i + 1] == 0x81 &&
		    v[i + 2] >= 0xa0 && v[i + 2] <= 0xaf));
		/* U+FEFF, and the tag characters U+E0000..E007F */
		FUZZ_CHECK(!(v[i] == 0xef && v[i + 1] == 0xbb &&
		    v[i + 2] == 0xbf));
		FUZZ_CHECK(!(v[i] == 0xf3 && v[i + 1] == 0xa0 &&
		    v[i + 2] >= 0x80 && v[i + 2] <= 0x81));
	}
 out:
	buf_free(o);
}

static void
check_punycode(const char *s, size_t len)
{
	uint32_t cp[BNC_CANON_PUNY_MAX], back[BNC_CANON_PUNY_MAX];
	struct buf *o = buf_new();
	size_t n, m, i;

	/* what decodes, encodes to something that decodes to it again */
	if (canon_punycode_decode(s, len, cp, &n, BNC_CANON_PUNY_MAX) == 0) {
		FUZZ_CHECK(n <= BNC_CANON_PUNY_MAX);
		FUZZ_CHECK(canon_punycode_encode(cp, n, o) == 0);
		FUZZ_CHECK(canon_punycode_decode((const char *)buf_ptr(o),
		    buf_len(o) - 1, back, &m, BNC_CANON_PUNY_MAX) == 0);
		FUZZ_CHECK(m == n && memcmp(cp, back, n * sizeof(*cp)) == 0);
	}
	/* code points made of the input's bytes round-trip */
	for (n = 0, i = 0; i + 2 < len && n < BNC_CANON_PUNY_MAX; i += 3) {
		cp[n] = ((uint32_t)(unsigned char)s[i] << 16 |
		    (uint32_t)(unsigned char)s[i + 1] << 8 |
		    (unsigned char)s[i + 2]) % 0x110000;
		if (cp[n] < 0xd800 || cp[n] > 0xdfff)
			n++;
	}
	buf_reset(o);
	FUZZ_CHECK(canon_punycode_encode(cp, n, o) == 0);
	FUZZ_CHECK(canon_punycode_decode((const char *)buf_ptr(o),
	    buf_len(o) - 1, back, &m, BNC_CANON_PUNY_MAX) == 0);
	FUZZ_CHECK(m == n && memcmp(cp, back, n * sizeof(*cp)) == 0);
	buf_free(o);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s;
	size_t len;

	if (size < 1)
		return 0;
	s = (const char *)data + 1;
	len = size - 1;
	check_scan(s, len, scan_max[data[0] & 3]);
	check_whole(s, len);
	check_visible(s, len, vis_max[(data[0] >> 2) & 3]);
	check_form_fn(canon_mailbox, s, len);
	check_form_fn(url_fn, s, len);
	check_form_fn(host_fn, s, len);
	check_form_fn(canon_phone, s, len);
	check_form_fn(canon_iban, s, len);
	check_punycode(s, len);
	return 0;
}
