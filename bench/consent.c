/*
 * consent.c - time of consent verification, with and without the nonce
 * transaction (DESIGN 11: consent verification <= 200 us including the
 * nonce transaction with audit.sync normal).
 *
 * It signs N tokens beforehand (one key from a fixed seed, each with a
 * fresh random nonce, all for the same agent, tool, target and text),
 * loads the public key as a monitor does (a .pub in a scratch directory,
 * consent_keys_load), and times per token:
 *
 *	check	SHA-256 of the text and consent_check() (monitor/consent.c);
 *	normal	the same, then audit_append() of the decision row carrying
 *		the token's nonce in hex (monitor/audit.c consumes it in the
 *		transaction that commits the row), audit.sync normal;
 *	full	the same into another log with audit.sync full.
 *
 * The row is what the monitor commits for an allowed consent call:
 * verdict allow, contract consent, the call's arguments (target, text,
 * consent_token) as a value tree, no sinks in clear, record_full off.
 * Then every token is presented again to each log (replay): each must
 * be refused with -BNC_ERR_USED; those are counted, and timed too.  The
 * first W tokens of each pass warm up and are not counted.  Figures are
 * the median, p90, p99, maximum and mean in microseconds, and one final
 * JSON line.  With sync normal the maximum and the mean show the rows
 * that run SQLite's WAL auto-checkpoint, which syncs the database: a few
 * hundred rows apart, each tens of milliseconds on a VM's disk.
 *
 * The logs go to a scratch directory under -d DIR (default TMPDIR or
 * /tmp), removed at the end; its file system is printed, since fsync on
 * a tmpfs costs nothing.  It is a benchmark, not a test: it never judges
 * a time, and exits non-zero only when a fresh token is refused, a
 * replayed one is accepted (a correctness failure), or something fails.
 */
#include <sys/stat.h>
#include <sys/vfs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "audit.h"
#include "bounds.h"
#include "consent.h"
#include "err.h"
#include "value.h"

/* This program's own bounds; bouncer's are in common/bounds.h. */
#define CB_TOKENS_DEF	2000
#define CB_TOKENS_MAX	1000000
#define CB_WARMUP_DEF	200
#define CB_TTL		600
#define CB_REFUSED	1	/* verify(): consent_check said no */

static const char cb_agent[] = "agent-7";
static const char cb_tool[] = "post_human_authored_comment";
static const char cb_target[] = "notion:0123456789abcdef0123456789abcdef";
static const char cb_text[] = "Shipped in 1.4: the export no longer "
    "drops rows with an empty owner; thanks to everyone who reported it.";
static const char cb_session[] = "5e55105e55105e55105e55105e55105e";

struct tok {
	char		*s;
	size_t		 len;
	char		 nonce[CONSENT_NONCE_LEN * 2 + 1];
	struct value	*args;
};

struct stats {
	double		 p50, p90, p99, max, mean;
};

static char scratch[512];

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

/* Sorts v (n > 0). */
static struct stats
summarise(double *v, size_t n)
{
	struct stats s;
	double sum = 0;
	size_t i;

	qsort(v, n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	s.p50 = v[n / 2];
	s.p90 = v[n * 90 / 100 < n ? n * 90 / 100 : n - 1];
	s.p99 = v[n * 99 / 100 < n ? n * 99 / 100 : n - 1];
	s.max = v[n - 1];
	s.mean = sum / (double)n;
	return s;
}

static void
print_stats(const char *what, const struct stats *s)
{
	printf("%-31s p50 %6.1f  p90 %6.1f  p99 %7.1f  max %7.1f  "
	    "mean %6.1f us\n", what, s->p50, s->p90, s->p99, s->max,
	    s->mean);
}

static void
json_stats(const char *name, const struct stats *s)
{
	printf(",\"%s\":{\"p50_us\":%.1f,\"p90_us\":%.1f,\"p99_us\":%.1f,"
	    "\"max_us\":%.1f,\"mean_us\":%.1f}", name, s->p50, s->p90,
	    s->p99, s->max, s->mean);
}

/* Removes the files of dir, then dir: it holds no subdirectory. */
static void
remove_dir(const char *dir)
{
	char path[1024];
	struct dirent *de;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		(void)unlink(path);
	}
	closedir(d);
	(void)rmdir(dir);
}

static void
cleanup(void)
{
	char path[1024];

	if (scratch[0] == '\0')
		return;
	snprintf(path, sizeof(path), "%s/keys", scratch);
	remove_dir(path);
	snprintf(path, sizeof(path), "%s/normal", scratch);
	remove_dir(path);
	snprintf(path, sizeof(path), "%s/full", scratch);
	remove_dir(path);
	(void)rmdir(scratch);
	scratch[0] = '\0';
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "bench/consent: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	cleanup();
	exit(2);
}

static const char *
fs_name(const char *dir)
{
	static char buf[32];
	struct statfs sf;

	if (statfs(dir, &sf) == -1)
		return "unknown";
	switch ((unsigned long)sf.f_type) {
	case 0xef53UL:
		return "ext4";
	case 0x01021994UL:
		return "tmpfs";
	case 0x58465342UL:
		return "xfs";
	case 0x9123683eUL:
		return "btrfs";
	case 0x794c7630UL:
		return "overlayfs";
	case 0x2fc12fc1UL:
		return "zfs";
	}
	snprintf(buf, sizeof(buf), "0x%lx", (unsigned long)sf.f_type);
	return buf;
}

/* The public half of pk in keys/k.pub, loaded as a monitor loads it. */
static struct consent_keys *
load_key(const uint8_t pk[32])
{
	struct consent_keys *ks;
	char dir[1024], path[1100], line[128], err[1024];
	size_t n;
	int fd;

	snprintf(dir, sizeof(dir), "%s/keys", scratch);
	snprintf(path, sizeof(path), "%s/k.pub", dir);
	if (mkdir(dir, 0700) == -1)
		die("%s: %s", dir, strerror(errno));
	n = (size_t)snprintf(line, sizeof(line), "ed25519 ");
	sodium_bin2base64(line + n, sizeof(line) - n - 1, pk, 32,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	n = strlen(line);
	line[n++] = '\n';
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600)) == -1 ||
	    write(fd, line, n) != (ssize_t)n || close(fd) == -1)
		die("%s: %s", path, strerror(errno));
	if (consent_keys_load(dir, &ks, err, sizeof(err)) != 0)
		die("%s", err);
	if (consent_keys_count(ks) != 1)
		die("%s: %zu keys loaded, not 1", dir, consent_keys_count(ks));
	return ks;
}

/*
 * One verification: the text's hash, consent_check, and with a (not
 * NULL) the decision row with the nonce.  0, -BNC_ERR_USED for a nonce
 * used before, another negative code, or CB_REFUSED for a token
 * consent_check refused (*why set).
 */
static int
verify(const struct tok *t, const struct consent_keys *ks,
    struct audit *a, const char **why)
{
	struct consent_want want;
	struct consent c;
	struct audit_row row;
	uint8_t h[crypto_hash_sha256_BYTES];
	char nonce[CONSENT_NONCE_LEN * 2 + 1];

	crypto_hash_sha256(h, (const uint8_t *)cb_text, sizeof(cb_text) - 1);
	memset(&want, 0, sizeof(want));
	want.agent = cb_agent;
	want.tool = cb_tool;
	want.target = cb_target;
	want.text_sha256 = h;
	want.now = (int64_t)time(NULL);
	want.skew = BNC_CONSENT_SKEW_DEFAULT;
	want.max_ttl = BNC_CONSENT_TTL_DEFAULT;
	*why = NULL;
	if (consent_check(t->s, t->len, ks, &want, &c, why) != 0)
		return CB_REFUSED;
	if (a == NULL)
		return 0;
	sodium_bin2hex(nonce, sizeof(nonce), c.nonce, sizeof(c.nonce));
	memset(&row, 0, sizeof(row));
	row.session = cb_session;
	row.agent = c.agent;
	row.tool = cb_tool;
	row.verdict = "allow";
	row.contract = "consent";
	row.args = t->args;
	row.nonce = nonce;
	return audit_append(a, &row, NULL);
}

/*
 * Times verify() over tokens [warm, n) after [0, warm) untimed; each
 * must give `expect'.  Returns how many did not; v gets the times.
 */
static size_t
run(struct tok *toks, size_t n, size_t warm, const struct consent_keys *ks,
    struct audit *a, int expect, double *v, size_t *accepted)
{
	const char *why;
	size_t i, bad = 0;
	uint64_t t0;
	int r;

	for (i = 0; i < n; i++) {
		t0 = now_ns();
		r = verify(&toks[i], ks, a, &why);
		if (i >= warm)
			v[i - warm] = (double)(now_ns() - t0) / 1000.0;
		if (r == 0 && accepted != NULL)
			(*accepted)++;
		if (r != expect) {
			if (bad++ == 0)
				fprintf(stderr, "bench/consent: token %zu: "
				    "%s (%d), not %d%s%s\n", i, r ==
				    CB_REFUSED ? "refused" : r == 0 ?
				    "accepted" : bnc_err(r), r, expect,
				    why != NULL ? ": " : "",
				    why != NULL ? why : "");
		}
	}
	return bad;
}

static struct audit *
open_log(const char *name, enum audit_sync sync)
{
	struct audit *a;
	char dir[1024], err[1024];

	snprintf(dir, sizeof(dir), "%s/%s", scratch, name);
	if (audit_open(dir, sync, 0, &a, err, sizeof(err)) != 0)
		die("%s", err);
	return a;
}

static void
usage(void)
{
	fprintf(stderr, "usage: consent [-d dir] [-n tokens] "
	    "[-w warmup]\n");
	exit(1);
}

int
main(int argc, char **argv)
{
	uint8_t pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	uint8_t seed[crypto_sign_SEEDBYTES];
	struct consent_keys *ks;
	struct audit *an, *af;
	struct consent c;
	struct tok *toks;
	struct stats s_check, s_normal, s_full, s_rn, s_rf;
	const char *parent, *t, *fs;
	double *v;
	size_t n = CB_TOKENS_DEF, warm = CB_WARMUP_DEF, total, i, m;
	size_t bad = 0, used_n, used_f, acc_n = 0, acc_f = 0;
	int64_t now;
	char *ep;
	long long x;
	int ch;

	parent = (t = getenv("TMPDIR")) != NULL && *t == '/' ? t : "/tmp";
	while ((ch = getopt(argc, argv, "d:n:w:")) != -1) {
		switch (ch) {
		case 'd':
			parent = optarg;
			break;
		case 'n':
		case 'w':
			errno = 0;
			x = strtoll(optarg, &ep, 10);
			if (errno || *ep || x < (ch == 'n' ? 1 : 0) ||
			    x > CB_TOKENS_MAX)
				usage();
			if (ch == 'n')
				n = (size_t)x;
			else
				warm = (size_t)x;
			break;
		default:
			usage();
		}
	}
	if (sodium_init() < 0)
		die("sodium_init failed");
	if ((size_t)snprintf(scratch, sizeof(scratch),
	    "%s/bouncer-bench-consent.XXXXXX", parent) >= sizeof(scratch))
		die("%s: path too long", parent);
	if (mkdtemp(scratch) == NULL) {
		fprintf(stderr, "bench/consent: %s: %s\n", scratch,
		    strerror(errno));
		return 2;
	}
	fs = fs_name(scratch);

	for (i = 0; i < sizeof(seed); i++)
		seed[i] = (uint8_t)(i + 1);
	crypto_sign_seed_keypair(pk, sk, seed);
	ks = load_key(pk);

	/* every token signed beforehand, each with its own nonce */
	total = warm + n;
	if ((toks = calloc(total, sizeof(*toks))) == NULL ||
	    (v = calloc(n, sizeof(*v))) == NULL)
		die("out of memory");
	now = (int64_t)time(NULL);
	for (i = 0; i < total; i++) {
		memset(&c, 0, sizeof(c));
		snprintf(c.agent, sizeof(c.agent), "%s", cb_agent);
		snprintf(c.tool, sizeof(c.tool), "%s", cb_tool);
		snprintf(c.target, sizeof(c.target), "%s", cb_target);
		crypto_hash_sha256(c.text_sha256, (const uint8_t *)cb_text,
		    sizeof(cb_text) - 1);
		randombytes_buf(c.nonce, sizeof(c.nonce));
		c.issued = now;
		c.expires = now + CB_TTL;
		if (consent_sign(&c, sk, &toks[i].s) != 0)
			die("consent_sign failed");
		toks[i].len = strlen(toks[i].s);
		toks[i].args = value_object();
		if (value_object_set(toks[i].args, "target",
		    value_string(cb_target)) != 0 ||
		    value_object_set(toks[i].args, "text",
		    value_string(cb_text)) != 0 ||
		    value_object_set(toks[i].args, "consent_token",
		    value_string(toks[i].s)) != 0)
			die("value_object_set failed");
	}
	sodium_memzero(sk, sizeof(sk));
	printf("%zu tokens of %zu bytes (and %zu to warm up), logs on %s "
	    "(%s)\n", n, toks[0].len, warm, scratch, fs);
	fflush(stdout);

	an = open_log("normal", AUDIT_SYNC_NORMAL);
	af = open_log("full", AUDIT_SYNC_FULL);

	bad += run(toks, total, warm, ks, NULL, 0, v, NULL);
	s_check = summarise(v, n);
	print_stats("consent_check", &s_check);
	fflush(stdout);
	bad += run(toks, total, warm, ks, an, 0, v, NULL);
	s_normal = summarise(v, n);
	print_stats("check + nonce row, sync normal", &s_normal);
	fflush(stdout);
	bad += run(toks, total, warm, ks, af, 0, v, NULL);
	s_full = summarise(v, n);
	print_stats("check + nonce row, sync full", &s_full);
	fflush(stdout);

	/* every token again: each nonce must be refused as used */
	m = run(toks, total, warm, ks, an, -BNC_ERR_USED, v, &acc_n);
	used_n = total - m;
	s_rn = summarise(v, n);
	print_stats("replay refused, sync normal", &s_rn);
	m = run(toks, total, warm, ks, af, -BNC_ERR_USED, v, &acc_f);
	used_f = total - m;
	s_rf = summarise(v, n);
	print_stats("replay refused, sync full", &s_rf);
	printf("replays refused as used: %zu of %zu (normal), %zu of %zu "
	    "(full); accepted: %zu, %zu\n", used_n, total, used_f, total,
	    acc_n, acc_f);
	printf("DESIGN 11 budget: consent verification <= 200 us including "
	    "the nonce transaction, sync normal (p50 above: %.1f us)\n",
	    s_normal.p50);

	printf("{\"bench\":\"consent\",\"tokens\":%zu,\"warmup\":%zu,"
	    "\"token_bytes\":%zu,\"fs\":\"%s\"", n, warm, toks[0].len, fs);
	json_stats("check", &s_check);
	json_stats("normal", &s_normal);
	json_stats("full", &s_full);
	json_stats("replay_normal", &s_rn);
	json_stats("replay_full", &s_rf);
	printf(",\"replays\":%zu,\"replays_refused\":%zu,"
	    "\"replays_accepted\":%zu,\"failures\":%zu}\n", 2 * total,
	    used_n + used_f, acc_n + acc_f, bad + (2 * total - used_n -
	    used_f - acc_n - acc_f));

	audit_close(an);
	audit_close(af);
	consent_keys_free(ks);
	for (i = 0; i < total; i++) {
		free(toks[i].s);
		value_free(toks[i].args);
	}
	free(toks);
	free(v);
	cleanup();
	if (acc_n + acc_f > 0) {
		fprintf(stderr, "bench/consent: %zu replayed tokens were "
		    "accepted\n", acc_n + acc_f);
		return 1;
	}
	return bad > 0 || used_n != total || used_f != total ? 1 : 0;
}
