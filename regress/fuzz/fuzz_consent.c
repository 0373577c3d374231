/*
 * fuzz_consent.c - libFuzzer harness for consent tokens (monitor/
 * consent.c: consent_decode and consent_check).
 *
 * The input is a token as pasted.  The trusted keys are two fixed key
 * pairs made from fixed seeds at start-up (consent_keys_load reads only
 * files, so their .pub go to a scratch directory under /dev/shm or
 * TMPDIR, removed as soon as they are loaded); a third fixed pair is
 * known to no one.  The call wanted is fixed too.
 *
 * Checks: a token decode refuses, check refuses as malformed; one decode
 * takes is at most BNC_CONSENT_TOKEN_MAX bytes, starts "bct1." and holds
 * bounded fields, and check reads the same fields from it, whatever it
 * decides.  A token check accepts names a trusted key and says exactly
 * what is wanted, in its time window.  One token, one spelling: signing
 * the decoded fields again with the key the token names gives back its
 * payload byte for byte (Ed25519 is deterministic: an accepted token
 * comes back whole), a token that decodes to the same fields, and one
 * that check accepts exactly when the fields say what is wanted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "bounds.h"
#include "consent.h"
#include "fuzz.h"

#define FC_KEYS		3	/* [0] [1] trusted, [2] unknown */
#define FC_NOW		1767225600	/* 2026-01-01T00:00:00Z */
#define FC_SKEW		30
#define FC_MAX_TTL	3600

static const char fc_text[] = "Shipped in 1.4";

static struct consent_keys *keys;
static uint8_t fc_pk[FC_KEYS][crypto_sign_PUBLICKEYBYTES];
static uint8_t fc_sk[FC_KEYS][crypto_sign_SECRETKEYBYTES];
static uint8_t fc_id[FC_KEYS][CONSENT_KEY_ID_LEN];
static uint8_t fc_hash[32];
static struct consent_want want = {
	.agent = "agent-7",
	.tool = "post_human_authored_comment",
	.target = "notion:0123456789abcdef0123456789abcdef",
	.text_sha256 = fc_hash,
	.now = FC_NOW,
	.skew = FC_SKEW,
	.max_ttl = FC_MAX_TTL,
};

static const char *const reasons[] = {
	CONSENT_UNKNOWN_KEY, CONSENT_BAD_SIGNATURE, CONSENT_WRONG_AGENT,
	CONSENT_WRONG_TOOL, CONSENT_WRONG_TARGET, CONSENT_TAMPERED,
	CONSENT_EXPIRED, CONSENT_NOT_YET, CONSENT_TOO_LONG,
};

/* The fixed keys; the trusted ones loaded as a monitor loads them. */
static void
setup(void)
{
	char dir[256], path[300], line[128];
	const char *base = "/dev/shm", *t;
	uint8_t seed[crypto_sign_SEEDBYTES];
	size_t i, j, n;
	int fd, loaded;

	FUZZ_CHECK(sodium_init() >= 0);
	for (i = 0; i < FC_KEYS; i++) {
		for (j = 0; j < sizeof(seed); j++)
			seed[j] = (uint8_t)(i * 100 + j + 1);
		crypto_sign_seed_keypair(fc_pk[i], fc_sk[i], seed);
		consent_key_id(fc_pk[i], fc_id[i]);
	}
	crypto_hash_sha256(fc_hash, (const uint8_t *)fc_text,
	    strlen(fc_text));

	if (access(base, W_OK) != 0)
		base = (t = getenv("TMPDIR")) != NULL && *t == '/' ? t : "/tmp";
	FUZZ_CHECK((size_t)snprintf(dir, sizeof(dir),
	    "%s/fuzz_consent.XXXXXX", base) < sizeof(dir));
	FUZZ_CHECK(mkdtemp(dir) != NULL);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/k%zu.pub", dir, i);
		n = (size_t)snprintf(line, sizeof(line), "ed25519 ");
		sodium_bin2base64(line + n, sizeof(line) - n - 1, fc_pk[i],
		    sizeof(fc_pk[i]), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
		n = strlen(line);
		line[n++] = '\n';
		FUZZ_CHECK((fd = open(path, O_WRONLY | O_CREAT | O_EXCL,
		    0600)) != -1);
		FUZZ_CHECK(write(fd, line, n) == (ssize_t)n);
		close(fd);
	}
	loaded = consent_keys_load(dir, &keys, line, sizeof(line)) == 0;
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/k%zu.pub", dir, i);
		(void)unlink(path);
	}
	(void)rmdir(dir);
	FUZZ_CHECK(loaded && consent_keys_count(keys) == 2);
}

static int
field_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n >= 1 && n <= max;
}

static int
consent_equal(const struct consent *a, const struct consent *b)
{
	return memcmp(a->key_id, b->key_id, sizeof(a->key_id)) == 0 &&
	    strcmp(a->agent, b->agent) == 0 &&
	    strcmp(a->tool, b->tool) == 0 &&
	    strcmp(a->target, b->target) == 0 &&
	    memcmp(a->text_sha256, b->text_sha256, 32) == 0 &&
	    memcmp(a->nonce, b->nonce, sizeof(a->nonce)) == 0 &&
	    a->issued == b->issued && a->expires == b->expires;
}

/* Would a trusted key's signature over these fields be accepted? */
static int
says_wanted(const struct consent *c)
{
	return strcmp(c->agent, want.agent) == 0 &&
	    strcmp(c->tool, want.tool) == 0 &&
	    strcmp(c->target, want.target) == 0 &&
	    memcmp(c->text_sha256, want.text_sha256, 32) == 0 &&
	    c->issued <= want.now + want.skew &&
	    c->expires >= want.now - want.skew &&
	    c->expires >= c->issued &&
	    c->expires - c->issued <= want.max_ttl;
}

static int
key_index(const uint8_t id[CONSENT_KEY_ID_LEN])
{
	int i;

	for (i = 0; i < FC_KEYS; i++)
		if (memcmp(fc_id[i], id, CONSENT_KEY_ID_LEN) == 0)
			return i;
	return -1;
}

static int
is_reason(const char *why)
{
	size_t i;

	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (strcmp(why, reasons[i]) == 0)
			return 1;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct consent d, c, r, e;
	const char *why = NULL, *why2 = NULL, *dot;
	char *tok, *t = NULL;
	size_t tlen;
	int k, rd, rc, rc2;

	if (keys == NULL)
		setup();
	/* exactly size bytes, no NUL after them: an overread shows */
	tok = malloc(size > 0 ? size : 1);
	FUZZ_CHECK(tok != NULL);
	memcpy(tok, data, size);

	rd = consent_decode(tok, size, &d);
	rc = consent_check(tok, size, keys, &want, &c, &why);
	if (rd != 0) {
		FUZZ_CHECK(rc == -1 && fuzz_str_equal(why, CONSENT_MALFORMED));
		free(tok);
		return 0;
	}
	FUZZ_CHECK(size <= BNC_CONSENT_TOKEN_MAX);
	FUZZ_CHECK(size > sizeof(CONSENT_PREFIX) - 1 &&
	    memcmp(tok, CONSENT_PREFIX, sizeof(CONSENT_PREFIX) - 1) == 0);
	FUZZ_CHECK(field_ok(d.agent, BNC_CONSENT_AGENT_MAX) &&
	    field_ok(d.tool, BNC_TOOL_NAME_MAX) &&
	    field_ok(d.target, BNC_CONSENT_TARGET_MAX));
	FUZZ_CHECK(d.issued >= 0 && d.expires >= 0);
	/* check reads what decode reads, whatever it then decides */
	FUZZ_CHECK(consent_equal(&c, &d));
	k = key_index(d.key_id);
	if (rc == 0) {
		FUZZ_CHECK(k == 0 || k == 1);
		FUZZ_CHECK(says_wanted(&d));
	} else {
		FUZZ_CHECK(why != NULL && is_reason(why));
		FUZZ_CHECK(strcmp(why, CONSENT_UNKNOWN_KEY) != 0 || k < 0 ||
		    k == 2);
	}

	/* one token, one spelling: sign the same fields again */
	r = d;
	FUZZ_CHECK(consent_sign(&r, fc_sk[k >= 0 ? k : 0], &t) == 0);
	tlen = strlen(t);
	FUZZ_CHECK(tlen <= BNC_CONSENT_TOKEN_MAX);
	FUZZ_CHECK(consent_decode(t, tlen, &e) == 0 && consent_equal(&e, &r));
	FUZZ_CHECK(memcmp(r.key_id, fc_id[k >= 0 ? k : 0],
	    CONSENT_KEY_ID_LEN) == 0);
	if (k >= 0) {
		FUZZ_CHECK(consent_equal(&r, &d));
		/* "bct1.PAYLOAD." byte for byte */
		dot = memchr(tok + sizeof(CONSENT_PREFIX) - 1, '.',
		    size - (sizeof(CONSENT_PREFIX) - 1));
		FUZZ_CHECK(dot != NULL);
		FUZZ_CHECK(tlen > (size_t)(dot - tok) &&
		    memcmp(t, tok, (size_t)(dot - tok) + 1) == 0);
	}
	if (rc == 0)
		FUZZ_CHECK(tlen == size && memcmp(t, tok, size) == 0);
	rc2 = consent_check(t, tlen, keys, &want, &e, &why2);
	if (k == 2)
		FUZZ_CHECK(rc2 == -1 &&
		    fuzz_str_equal(why2, CONSENT_UNKNOWN_KEY));
	else
		FUZZ_CHECK((rc2 == 0) == says_wanted(&r));
	free(t);
	free(tok);
	return 0;
}
