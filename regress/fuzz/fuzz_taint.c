/*
 * fuzz_taint.c - libFuzzer harness for the taint index (monitor/taint.c)
 * against a naive model.
 *
 * The model keeps what taint.h promises the index keeps: each recorded
 * output, normalised with taint_normalise, followed by a NUL when it is
 * at least TAINT_MIN_LEN bytes long (shorter ones are dropped), then
 * each canonical form (canon.h) of an identity in it that normalises to
 * other bytes than its spelling, as an output of its own, and of all
 * that only the newest `cap' bytes.  A value occurs when its
 * normalised form is a substring (memmem) of what is kept.  Checked, for
 * every lookup: a value that occurs is never TAINT_ABSENT (TAINT_UNSURE
 * is allowed: it fails closed); a value shorter than TAINT_MIN_LEN is
 * TAINT_ABSENT; TAINT_FOUND for a value that does not occur needs a
 * destination identity inside it (so an '@' or a ':', and a gram of it
 * that occurs); taint_check agrees with taint_lookup; and the counters
 * (retained, recorded, strict) agree with the model.
 *
 * Input: one byte of set-up (bits 0-1: cap = 4096 << n; bit 2 set
 * instead: 128 KiB, where the index's links are 3 bytes wide, not 2),
 * then operations, each an opcode byte (bits 0-1: kind, bits 2-7: arg):
 *	0 add:   u8 n, n bytes; recorded as one output repeated arg + 1
 *	         times (up to 16 KB: several normalisation chunks)
 *	1 check: u8 n, n bytes
 *	2 check a piece of an earlier output as recorded (raw bytes):
 *	         u8 which, u16 offset, u8 length - 1
 *	3 check a piece of the kept normalised text: u16 offset,
 *	         u8 length (6 + n % 64); arg bit 0 upper-cases its first
 *	         letter, bit 1 puts a zero-width space in its middle
 * It must never test anything but the public APIs of taint.h and canon.h.
 *
 * It also says how much output its executions recorded (at each power
 * of two of executions from 2^16, and at exit; replay.sh checks it): one
 * execution records up to 256 KB, far more than another harness's input,
 * so BENCHMARKS.md gives this harness's depth in bytes as well.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* memmem */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "canon.h"
#include "fuzz.h"
#include "taint.h"

#define FT_RAW		8		/* earlier outputs kept raw */
#define FT_ZWSP		"\xe2\x80\x8b"	/* U+200B, removed by normalising */
#define FT_WIDE		5		/* set-up bit 2: cap 4096 << 5 */
#define FT_REPORT_MIN	65536		/* first execution count reported */

static unsigned long long ft_execs, ft_bytes;	/* run so far */

struct model {
	unsigned char	*kept;		/* every kept output + NUL */
	size_t		 len, alloc;
	size_t		 cap;		/* the index's cap */
	uint64_t	 recorded;
	char		*raw[FT_RAW];
	size_t		 rawlen[FT_RAW];
	size_t		 nraw;		/* recorded so far (mod FT_RAW) */
	int		 scan_failed;	/* canon_scan failed: strict */
};

struct input {
	const uint8_t	*p;
	size_t		 left;
};

static int
next_u8(struct input *in, unsigned *v)
{
	if (in->left < 1)
		return 0;
	*v = in->p[0];
	in->p++;
	in->left--;
	return 1;
}

static int
next_u16(struct input *in, unsigned *v)
{
	if (in->left < 2)
		return 0;
	*v = (unsigned)in->p[0] << 8 | in->p[1];
	in->p += 2;
	in->left -= 2;
	return 1;
}

/* Up to n bytes of input; *lenp says how many there were. */
static const uint8_t *
next_bytes(struct input *in, size_t n, size_t *lenp)
{
	const uint8_t *p = in->p;

	if (n > in->left)
		n = in->left;
	in->p += n;
	in->left -= n;
	*lenp = n;
	return p;
}

/* What is retained: the newest cap bytes of everything kept. */
static const unsigned char *
retained(const struct model *m, size_t *lenp)
{
	size_t n = m->len < m->cap ? m->len : m->cap;

	*lenp = n;
	return n == 0 ? (const unsigned char *)"" : m->kept + (m->len - n);
}

/* One output, normalised, kept as taint.h says. */
static void
model_keep(struct model *m, const char *s, size_t len)
{
	char *norm;
	size_t n;

	norm = malloc(len + 1);
	FUZZ_CHECK(norm != NULL);
	n = taint_normalise(s, len, norm);
	FUZZ_CHECK(n <= len && memchr(norm, '\0', n) == NULL);
	if (n >= TAINT_MIN_LEN) {
		if (m->len + n + 1 > m->alloc) {
			m->alloc = (m->len + n + 1) * 2;
			FUZZ_CHECK((m->kept = realloc(m->kept, m->alloc)) !=
			    NULL);
		}
		memcpy(m->kept + m->len, norm, n);
		m->kept[m->len + n] = '\0';
		m->len += n + 1;
		m->recorded += n;
	}
	free(norm);
}

/* Does a form normalise to other bytes than its spelling, and keep? */
static int
form_differs(const char *span, size_t slen, const char *form)
{
	char *a, *b;
	size_t na, nb, fl = strlen(form);
	int r;

	FUZZ_CHECK((a = malloc(slen + 1)) != NULL);
	FUZZ_CHECK((b = malloc(fl + 1)) != NULL);
	na = taint_normalise(span, slen, a);
	nb = taint_normalise(form, fl, b);
	r = (na != nb || memcmp(a, b, na) != 0) && nb >= TAINT_MIN_LEN;
	free(a);
	free(b);
	return r;
}

/*
 * An output, then each canonical form of an identity in it whose
 * normalised bytes differ from its spelling, as an output of its own
 * (taint.h).  The harness's outputs (at most 16 KB) are one scan, well
 * under BNC_TAINT_FORMS_MAX of forms; a scan that fails makes the index
 * strict, and the model then asks no more of strictness than the cap.
 */
static void
model_add(struct model *m, const char *s, size_t len)
{
	struct canon_id *ids = NULL;
	size_t i, nids = 0, slot;
	int r;

	FUZZ_CHECK(len <= BNC_TAINT_FORMS_WINDOW);
	model_keep(m, s, len);
	r = canon_scan(s, len, BNC_CANON_IDS_MAX, &ids, &nids);
	if (r < 0)
		m->scan_failed = 1;
	for (i = 0; i < nids; i++) {
		if (form_differs(s + ids[i].off, ids[i].len, ids[i].form))
			model_keep(m, ids[i].form, strlen(ids[i].form));
		if (ids[i].alt != NULL && form_differs(s + ids[i].off,
		    ids[i].len, ids[i].alt))
			model_keep(m, ids[i].alt, strlen(ids[i].alt));
	}
	canon_ids_free(ids, nids);
	slot = m->nraw++ % FT_RAW;
	free(m->raw[slot]);
	FUZZ_CHECK((m->raw[slot] = malloc(len + 1)) != NULL);
	memcpy(m->raw[slot], s, len);
	m->rawlen[slot] = len;
}

static void
check(const struct taint *t, const struct model *m, const char *s,
    size_t len)
{
	const unsigned char *kept;
	enum taint_found res;
	char *nv;
	size_t nlen, klen, i;
	int occurs, gram = 0;

	res = taint_lookup(t, s, len);
	FUZZ_CHECK(res == TAINT_ABSENT || res == TAINT_FOUND ||
	    res == TAINT_UNSURE);
	FUZZ_CHECK(taint_check(t, s, len) == (res != TAINT_ABSENT));
	FUZZ_CHECK((nv = malloc(len + 1)) != NULL);
	nlen = taint_normalise(s, len, nv);
	if (nlen < TAINT_MIN_LEN) {
		FUZZ_CHECK(res == TAINT_ABSENT);
		goto out;
	}
	kept = retained(m, &klen);
	occurs = memmem(kept, klen, nv, nlen) != NULL;
	if (occurs)
		FUZZ_CHECK(res != TAINT_ABSENT);
	if (res == TAINT_FOUND && !occurs) {
		/* only a destination identity inside the value occurs */
		FUZZ_CHECK(memchr(nv, '@', nlen) != NULL ||
		    memchr(nv, ':', nlen) != NULL);
		for (i = 0; i + TAINT_MIN_LEN <= nlen && !gram; i++)
			gram = memmem(kept, klen, nv + i,
			    TAINT_MIN_LEN) != NULL;
		FUZZ_CHECK(gram);
	}
 out:
	free(nv);
}

static void
check_counters(const struct taint *t, const struct model *m)
{
	size_t klen;

	(void)retained(m, &klen);
	FUZZ_CHECK(taint_recorded(t) == m->recorded);
	FUZZ_CHECK(taint_retained(t) == klen);
	FUZZ_CHECK(taint_strict(t) == (m->len > m->cap) ||
	    (m->scan_failed && taint_strict(t)));
}

/* op 0: one output, its text repeated */
static void
op_add(struct taint *t, struct model *m, struct input *in, unsigned arg)
{
	const uint8_t *p;
	unsigned n;
	size_t len, i;
	char *doc;

	if (!next_u8(in, &n))
		return;
	p = next_bytes(in, n, &len);
	FUZZ_CHECK((doc = malloc(len * (arg + 1) + 1)) != NULL);
	for (i = 0; i <= arg; i++)
		memcpy(doc + i * len, p, len);
	taint_add_text(t, doc, len * (arg + 1));
	ft_bytes += len * (arg + 1);
	model_add(m, doc, len * (arg + 1));
	free(doc);
	check_counters(t, m);
}

/* op 2: a piece of an earlier output, raw */
static void
op_raw_piece(const struct taint *t, const struct model *m,
    struct input *in)
{
	unsigned which, off, n;
	size_t slot, have;

	if (!next_u8(in, &which) || !next_u16(in, &off) || !next_u8(in, &n))
		return;
	if (m->nraw == 0)
		return;
	have = m->nraw < FT_RAW ? m->nraw : FT_RAW;
	slot = which % have;
	if (m->rawlen[slot] == 0)
		return;
	off %= m->rawlen[slot];
	if (n + 1 > m->rawlen[slot] - off)
		n = m->rawlen[slot] - off - 1;
	check(t, m, m->raw[slot] + off, n + 1);
}

/* op 3: a piece of the kept normalised text, maybe disguised */
static void
op_kept_piece(const struct taint *t, const struct model *m,
    struct input *in, unsigned arg)
{
	const unsigned char *kept, *nul;
	char v[6 + 64 + sizeof(FT_ZWSP)];
	unsigned off, n;
	size_t klen, len, half;

	if (!next_u16(in, &off) || !next_u8(in, &n))
		return;
	kept = retained(m, &klen);
	if (klen == 0)
		return;
	off %= klen;
	len = 6 + n % 64;
	if (len > klen - off)
		len = klen - off;
	if ((nul = memchr(kept + off, '\0', len)) != NULL)
		len = (size_t)(nul - (kept + off));
	memcpy(v, kept + off, len);
	if ((arg & 1) && len > 0 && v[0] >= 'a' && v[0] <= 'z')
		v[0] -= 'a' - 'A';
	if (arg & 2) {
		half = len / 2;
		memmove(v + half + 3, v + half, len - half);
		memcpy(v + half, FT_ZWSP, 3);
		len += 3;
	}
	check(t, m, v, len);
}

static void
report(void)
{
	fprintf(stderr, "fuzz_taint: %llu executions recorded %llu bytes\n",
	    ft_execs, ft_bytes);
}

/* Called once, by libFuzzer or by replay.c. */
int	LLVMFuzzerInitialize(int *, char ***);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	atexit(report);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct model m;
	struct taint *t;
	const uint8_t *p;
	unsigned op, setup, n;
	size_t len, i;

	if (++ft_execs >= FT_REPORT_MIN && (ft_execs & (ft_execs - 1)) == 0)
		report();
	if (!next_u8(&in, &setup))
		return 0;
	memset(&m, 0, sizeof(m));
	m.cap = (size_t)BNC_TAINT_CAP_MIN << (setup & 4 ? FT_WIDE : setup & 3);
	t = taint_new_keyed(m.cap, UINT64_C(0x0123456789abcdef));
	while (next_u8(&in, &op)) {
		switch (op & 3) {
		case 0:
			op_add(t, &m, &in, op >> 2);
			break;
		case 1:
			if (!next_u8(&in, &n))
				break;
			p = next_bytes(&in, n, &len);
			check(t, &m, (const char *)p, len);
			break;
		case 2:
			op_raw_piece(t, &m, &in);
			break;
		case 3:
			op_kept_piece(t, &m, &in, op >> 2);
			break;
		}
	}
	check_counters(t, &m);
	taint_free(t);
	free(m.kept);
	for (i = 0; i < FT_RAW; i++)
		free(m.raw[i]);
	return 0;
}
