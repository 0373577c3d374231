/*
 * taint.c - lookup time of the taint index against how much output a
 * session has recorded (DESIGN 11: checking a 40-byte value after 100 MB
 * costs no more than 2x checking it after 1 KB).
 *
 * It records generated, realistic tool output (sentences of a fixed
 * vocabulary, a recurring set of contacts' addresses and URLs, and in
 * each output one unique 40-byte address) into one monitor/taint.c index,
 * and after 1 KB, 1 MB and 100 MB of output times taint_check() on
 * 40-byte values: present (unique addresses recorded so far, old and
 * new), absent (the same shape, never recorded), near misses (a recorded
 * address with one letter changed), and pieces (40 bytes cut anywhere
 * out of recorded output: present, but rarely a whole token, so they
 * take the index's q-gram path rather than its token cache).  Each
 * figure is the median over batches of distinct values of the time per
 * lookup, in ns: TB_POOL values of each kind, or as many as the recorded
 * output holds.  Pieces are cut one per output when there are enough
 * outputs, else at evenly spread offsets of every output (after 1 KB,
 * all of its 40-byte windows): a pool of two values would let the
 * branch predictor learn both lookups, and time a path no real lookup
 * takes.  Present values after 1 KB are the two addresses it holds.  It
 * prints the ratios 100MB/1KB, the index's memory (taint_bytes: the ring
 * and everything that indexes it) and that per byte of text retained,
 * the process's RSS, and one final JSON line.  By default the cap keeps
 * all 100 MB (the index at its biggest); -c sets another cap (bouncer's
 * default is BNC_TAINT_CAP), and present values are then drawn from the
 * output still retained (pieces one per retained output when those were
 * not among the first TB_KEEP bytes, so fewer than TB_POOL may be cut).
 *
 * It is a benchmark, not a test: it never judges a time, and exits
 * non-zero only when a recorded value was not found (a broken index) or
 * an option is bad; absent values answered tainted are counted.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bounds.h"
#include "taint.h"

/* This program's own bounds; bouncer's are in common/bounds.h. */
#define TB_VALUE_LEN	40		/* bytes of a looked-up value */
#define TB_WORDS	4096		/* vocabulary */
#define TB_CONTACTS	256		/* recurring addresses */
#define TB_DOC_MIN	256		/* bytes of one generated output */
#define TB_DOC_MAX	8192
#define TB_POOL		4096		/* distinct values per kind and stage */
#define TB_BATCH	64		/* lookups timed together */
#define TB_BATCHES_DEF	400		/* batches per kind and stage */
#define TB_BATCHES_MAX	100000
#define TB_CAP_DEF	(128 * 1024 * 1024)	/* keeps all 100 MB */
#define TB_KEEP		(4 * 1024 * 1024)	/* output text kept for pieces */
#define TB_STAGES	3

static const size_t stage_bytes[TB_STAGES] = {
	1024, 1024 * 1024, 100 * 1024 * 1024
};
static const char *const stage_name[TB_STAGES] = { "1KB", "1MB", "100MB" };

enum kind {
	K_PRESENT = 0,		/* a recorded address */
	K_ABSENT,		/* an address never recorded */
	K_NEAR,			/* a recorded address, one letter changed */
	K_PIECE,		/* 40 recorded bytes, not a whole token */
	K_COUNT
};

static uint64_t rs = 0x2545f4914f6cdd1dULL;

static uint32_t
rnd(uint32_t n)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (uint32_t)((rs >> 11) % n);
}

static char *words[TB_WORDS];
static char *contacts[TB_CONTACTS];

static char *
make_word(void)
{
	static const char *const syl[] = {
		"ka", "lo", "ri", "ten", "mar", "sel", "po", "dan", "vi", "ro",
		"ber", "na", "tis", "cu", "gen", "fa", "mo", "li", "str", "ex",
		"or", "al", "in", "ve", "qu", "shi", "pra", "do", "me", "nt",
	};
	char buf[64];
	size_t n = 0;
	uint32_t i, k = 1 + rnd(4);

	for (i = 0; i < k; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s",
		    syl[rnd(sizeof(syl) / sizeof(syl[0]))]);
	return strdup(buf);
}

static void
vocabulary(void)
{
	char buf[256];
	int i;

	for (i = 0; i < TB_WORDS; i++)
		if ((words[i] = make_word()) == NULL)
			exit(2);
	for (i = 0; i < TB_CONTACTS; i++) {
		snprintf(buf, sizeof(buf), "%s.%s@%s.example.com",
		    words[rnd(TB_WORDS)], words[rnd(TB_WORDS)],
		    words[rnd(64)]);
		if ((contacts[i] = strdup(buf)) == NULL)
			exit(2);
	}
}

/* A unique-looking 40-byte address: name.name.digits@word-word.example */
static void
make_value(char out[TB_VALUE_LEN + 1])
{
	char dom[64], loc[64];
	size_t dl, ll, n;

	snprintf(dom, sizeof(dom), "@%s-%s.example", words[rnd(256)],
	    words[rnd(256)]);
	if ((dl = strlen(dom)) > 24)
		dl = 24;
	ll = TB_VALUE_LEN - dl;
	n = (size_t)snprintf(loc, sizeof(loc), "%s.%s.", words[rnd(TB_WORDS)],
	    words[rnd(TB_WORDS)]);
	if (n > ll - 6)
		n = ll - 6;
	while (n < ll)
		loc[n++] = "0123456789abcdefghijklmnopqrstuvwxyz"[rnd(36)];
	memcpy(out, loc, ll);
	memcpy(out + ll, dom, dl);
	out[TB_VALUE_LEN] = '\0';
}

struct gen {
	char	*buf;
	size_t	 len, cap;
};

static void
put(struct gen *g, const char *s)
{
	size_t n = strlen(s);

	if (g->len + n + 1 > g->cap) {
		g->cap = (g->len + n + 1) * 2;
		if ((g->buf = realloc(g->buf, g->cap)) == NULL)
			exit(2);
	}
	memcpy(g->buf + g->len, s, n);
	g->len += n;
}

/* One output of about `want' bytes holding the unique value v. */
static void
make_doc(struct gen *g, size_t want, const char *v)
{
	static const char *const intro[] = {
		"From: ", "To: ", "Cc: ", "Owner: ", "Reply to ", "Shared by ",
	};
	char buf[256];
	size_t at = rnd((uint32_t)want);
	int put_v = 0, first = 1;

	g->len = 0;
	while (g->len < want) {
		if (!put_v && g->len >= at) {
			snprintf(buf, sizeof(buf), "%s%s\n",
			    intro[rnd(6)], v);
			put(g, buf);
			put_v = 1;
			continue;
		}
		switch (rnd(12)) {
		case 0:
			snprintf(buf, sizeof(buf), "%s%s ", intro[rnd(6)],
			    contacts[rnd(TB_CONTACTS)]);
			break;
		case 1:
			snprintf(buf, sizeof(buf), "https://%s.%s.example/%s/"
			    "%s?id=%u ", words[rnd(64)], words[rnd(256)],
			    words[rnd(TB_WORDS)], words[rnd(TB_WORDS)],
			    rnd(100000));
			break;
		case 2:
			snprintf(buf, sizeof(buf), ".\n");
			first = 1;
			break;
		default:
			snprintf(buf, sizeof(buf), "%s ", words[rnd(TB_WORDS)]);
			if (first)	/* sentence case */
				buf[0] -= 'a' - 'A';
			first = 0;
			break;
		}
		put(g, buf);
	}
	if (!put_v) {
		snprintf(buf, sizeof(buf), "\nTo: %s", v);
		put(g, buf);
	}
}

/*
 * The texts of the first outputs, up to TB_KEEP bytes: the pieces of a
 * stage with fewer than TB_POOL outputs are cut from them.
 */
struct kept {
	char	*buf;
	size_t	 len;
	size_t	*off, *dlen;		/* per output; dlen 0: not kept */
	size_t	 n, cap;
};

static void
keep(struct kept *k, size_t idx, const char *s, size_t len)
{
	if (idx >= k->cap) {
		k->cap = idx + 1024;
		if ((k->off = realloc(k->off, k->cap * sizeof(*k->off))) ==
		    NULL || (k->dlen = realloc(k->dlen, k->cap *
		    sizeof(*k->dlen))) == NULL)
			exit(2);
	}
	k->n = idx + 1;
	k->dlen[idx] = 0;
	if (k->len + len > TB_KEEP)
		return;
	if (k->buf == NULL && (k->buf = malloc(TB_KEEP)) == NULL)
		exit(2);
	memcpy(k->buf + k->len, s, len);
	k->off[idx] = k->len;
	k->dlen[idx] = len;
	k->len += len;
}

/*
 * Up to TB_POOL distinct pieces of outputs [first, n), evenly spread over
 * all their 40-byte windows; 0 if one of them was not kept.
 */
static size_t
cut_windows(const struct kept *k, size_t first,
    char (*pool)[TB_VALUE_LEN + 1])
{
	size_t i, j, w = 0, want, at, np = 0;

	for (i = first; i < k->n; i++) {
		if (k->dlen[i] < TB_VALUE_LEN)
			return 0;
		w += k->dlen[i] - TB_VALUE_LEN + 1;
	}
	want = w < TB_POOL ? w : TB_POOL;
	for (j = 0; j < want; j++) {
		at = (size_t)((uint64_t)j * w / want);	/* window index */
		for (i = first; at > k->dlen[i] - TB_VALUE_LEN; i++)
			at -= k->dlen[i] - TB_VALUE_LEN + 1;
		memcpy(pool[np], k->buf + k->off[i] + at, TB_VALUE_LEN);
		pool[np++][TB_VALUE_LEN] = '\0';
	}
	return np;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static long
rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "VmRSS:", 6) == 0)
			v = strtol(line + 6, NULL, 10);
	fclose(f);
	return v;
}

/*
 * Median over batches of the ns per lookup, each batch TB_BATCH distinct
 * values of the pool in a shuffled order.  *wrong counts lookups whose
 * answer differs from want.
 */
static double
time_kind(const struct taint *t, char (*pool)[TB_VALUE_LEN + 1], size_t n,
    int want, int batches, unsigned long *wrong)
{
	double *med = calloc((size_t)batches, sizeof(*med)), r;
	size_t *ord = calloc(n, sizeof(*ord)), i, j, k, tmp, at = 0;
	uint64_t t0;
	int b, sum;

	if (med == NULL || ord == NULL)
		exit(2);
	for (i = 0; i < n; i++)
		ord[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = rnd((uint32_t)i + 1);
		tmp = ord[i];
		ord[i] = ord[j];
		ord[j] = tmp;
	}
	for (b = 0; b < batches; b++) {
		sum = 0;
		t0 = now_ns();
		for (k = 0; k < TB_BATCH; k++) {
			sum += taint_check(t, pool[ord[at]], TB_VALUE_LEN) ==
			    want ? 0 : 1;
			if (++at == n)
				at = 0;
		}
		med[b] = (double)(now_ns() - t0) / TB_BATCH;
		*wrong += (unsigned long)sum;
	}
	qsort(med, (size_t)batches, sizeof(*med), cmp_double);
	r = med[batches / 2];
	free(med);
	free(ord);
	return r;
}

/* Bytes of index per byte of text retained (the ring is one of them). */
static double
per_byte(size_t mem, size_t retained)
{
	return retained > 0 ? (double)mem / (double)retained : 0.0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: taint [-b batches] [-c cap_bytes]\n");
	exit(1);
}

int
main(int argc, char **argv)
{
	static char (*recorded)[TB_VALUE_LEN + 1];
	static uint64_t *at;		/* stream offset of each output */
	static char (*piece)[TB_VALUE_LEN + 1];	/* a cut of each output */
	static char pools[K_COUNT][TB_POOL][TB_VALUE_LEN + 1];
	double res[TB_STAGES][K_COUNT], rec_s[TB_STAGES];
	size_t nrec = 0, arec = 0, total = 0, i, want, np[K_COUNT], first;
	uint64_t stream = 0;
	size_t mem[TB_STAGES], ret[TB_STAGES];
	long rss[TB_STAGES];
	int strict[TB_STAGES];
	unsigned long long cap = TB_CAP_DEF;
	unsigned long wrong = 0, wrong_present = 0;
	struct gen g = { NULL, 0, 0 };
	struct kept kp = { NULL, 0, NULL, NULL, 0, 0 };
	struct taint *t;
	uint64_t t0, rec_ns = 0;
	int ch, batches = TB_BATCHES_DEF, st, k;
	char *ep;

	while ((ch = getopt(argc, argv, "b:c:")) != -1) {
		switch (ch) {
		case 'b':
			errno = 0;
			batches = (int)strtol(optarg, &ep, 10);
			if (errno || *ep || batches < 1 ||
			    batches > TB_BATCHES_MAX)
				usage();
			break;
		case 'c':
			errno = 0;
			cap = strtoull(optarg, &ep, 10);
			if (errno || *ep || cap < BNC_TAINT_CAP_MIN ||
			    cap > BNC_TAINT_CAP_MAX)
				usage();
			break;
		default:
			usage();
		}
	}
	vocabulary();
	t = taint_new_keyed((size_t)cap, 0x9e3779b97f4a7c15ULL);

	for (st = 0; st < TB_STAGES; st++) {
		/* record until this stage's amount of output */
		while (total < stage_bytes[st]) {
			want = TB_DOC_MIN + rnd(TB_DOC_MAX - TB_DOC_MIN);
			if (want > stage_bytes[st] - total)
				want = stage_bytes[st] - total;
			if (want < 64)
				want = 64;
			if (nrec == arec) {
				arec = arec ? arec * 2 : 1024;
				recorded = realloc(recorded, arec *
				    sizeof(*recorded));
				at = realloc(at, arec * sizeof(*at));
				piece = realloc(piece, arec * sizeof(*piece));
				if (recorded == NULL || at == NULL ||
				    piece == NULL)
					exit(2);
			}
			make_value(recorded[nrec]);
			make_doc(&g, want, recorded[nrec]);
			keep(&kp, nrec, g.buf, g.len);
			i = rnd((uint32_t)(g.len - TB_VALUE_LEN));
			memcpy(piece[nrec], g.buf + i, TB_VALUE_LEN);
			piece[nrec][TB_VALUE_LEN] = '\0';
			/* the index's stream: each output normalised, a NUL */
			at[nrec] = stream;
			t0 = now_ns();
			taint_add_text(t, g.buf, g.len);
			rec_ns += now_ns() - t0;
			stream = taint_recorded(t) + nrec + 1;
			nrec++;
			total += g.len;
		}
		rec_s[st] = (double)rec_ns / 1e9;

		/* pools: distinct values of each kind; present ones from
		 * the outputs still retained (all of them unless -c) */
		for (first = 0; at[first] < stream - taint_retained(t);
		    first++)
			;
		np[K_PRESENT] = nrec - first < TB_POOL ? nrec - first :
		    TB_POOL;
		for (i = 0; i < np[K_PRESENT]; i++)
			memcpy(pools[K_PRESENT][i], recorded[first +
			    (nrec - first <= TB_POOL ? i :
			    rnd((uint32_t)(nrec - first)))], TB_VALUE_LEN + 1);
		np[K_PIECE] = nrec - first < TB_POOL ?
		    cut_windows(&kp, first, pools[K_PIECE]) : 0;
		if (np[K_PIECE] == 0) {
			np[K_PIECE] = np[K_PRESENT];
			for (i = 0; i < np[K_PIECE]; i++)
				memcpy(pools[K_PIECE][i], piece[first +
				    (nrec - first <= TB_POOL ? i :
				    rnd((uint32_t)(nrec - first)))],
				    TB_VALUE_LEN + 1);
		}
		np[K_ABSENT] = np[K_NEAR] = TB_POOL;
		for (i = 0; i < TB_POOL; i++) {
			make_value(pools[K_ABSENT][i]);
			memcpy(pools[K_NEAR][i], recorded[rnd((uint32_t)nrec)],
			    TB_VALUE_LEN + 1);
			/* one letter of the local part changed */
			k = (int)rnd(20);
			pools[K_NEAR][i][k] = pools[K_NEAR][i][k] == 'q' ?
			    'x' : 'q';
		}

		for (k = 0; k < K_COUNT; k++) {
			unsigned long w = 0;

			res[st][k] = time_kind(t, pools[k], np[k],
			    k == K_PRESENT || k == K_PIECE ? 1 : 0, batches,
			    &w);
			wrong += w;
			if (k == K_PRESENT || k == K_PIECE)
				wrong_present += w;
		}
		mem[st] = taint_bytes(t);
		ret[st] = taint_retained(t);
		rss[st] = rss_kib();
		strict[st] = taint_strict(t);
		printf("after %-5s (%zu bytes, %zu outputs): present %.0f ns, "
		    "absent %.0f ns, near-miss %.0f ns, piece %.0f ns; "
		    "index %.1f MiB, retained %.1f MiB%s, "
		    "%.2f bytes of index per byte of text, RSS %.1f MiB, "
		    "recording %.0f MB/s\n",
		    stage_name[st], total, nrec, res[st][K_PRESENT],
		    res[st][K_ABSENT], res[st][K_NEAR], res[st][K_PIECE],
		    mem[st] / 1048576.0, ret[st] / 1048576.0,
		    strict[st] ? " (strict: output dropped)" : "",
		    per_byte(mem[st], ret[st]), rss[st] / 1024.0, rec_s[st] > 0 ? total / 1e6 /
		    rec_s[st] : 0.0);
		fflush(stdout);
	}
	printf("ratio 100MB/1KB: present %.2f, absent %.2f, near-miss %.2f, "
	    "piece %.2f (DESIGN 11 budget: <= 2)\n",
	    res[2][K_PRESENT] / res[0][K_PRESENT],
	    res[2][K_ABSENT] / res[0][K_ABSENT],
	    res[2][K_NEAR] / res[0][K_NEAR],
	    res[2][K_PIECE] / res[0][K_PIECE]);
	if (wrong > 0)
		printf("answers differing from the truth: %lu (present values "
		    "missed: %lu; the rest are near misses or absent values "
		    "answered tainted)\n", wrong, wrong_present);
	printf("{\"bench\":\"taint\",\"value_len\":%d,\"cap\":%llu,"
	    "\"batch\":%d,\"batches\":%d", TB_VALUE_LEN, cap, TB_BATCH,
	    batches);
	for (st = 0; st < TB_STAGES; st++)
		printf(",\"%s\":{\"present_ns\":%.1f,\"absent_ns\":%.1f,"
		    "\"near_ns\":%.1f,\"piece_ns\":%.1f,\"index_bytes\":%zu,"
		    "\"retained\":%zu,\"index_per_byte\":%.3f,"
		    "\"rss_kib\":%ld,\"strict\":%d}",
		    stage_name[st], res[st][K_PRESENT], res[st][K_ABSENT],
		    res[st][K_NEAR], res[st][K_PIECE], mem[st], ret[st],
		    per_byte(mem[st], ret[st]), rss[st], strict[st]);
	printf(",\"ratio_present\":%.3f,\"ratio_absent\":%.3f,"
	    "\"ratio_near\":%.3f,\"ratio_piece\":%.3f,\"wrong\":%lu}\n",
	    res[2][K_PRESENT] / res[0][K_PRESENT],
	    res[2][K_ABSENT] / res[0][K_ABSENT],
	    res[2][K_NEAR] / res[0][K_NEAR],
	    res[2][K_PIECE] / res[0][K_PIECE], wrong);
	taint_free(t);
	free(recorded);
	free(at);
	free(piece);
	free(g.buf);
	free(kp.buf);
	free(kp.off);
	free(kp.dlen);
	/* a present value missed is a broken index; the rest are figures */
	return wrong_present > 0 ? 1 : 0;
}
