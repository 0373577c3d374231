/*
 * check_consent.c - consent tokens (monitor/consent.c): a token signed
 * for one agent, tool, target and text passes; every attack of DESIGN 7
 * is refused with its own reason (tampered text, wrong target, wrong
 * agent, wrong tool, expired, not yet valid, lifetime too long, forged
 * signature, unknown key, truncated or respelled token); key files are
 * written once, 0600, and read back strictly.
 */
#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <sodium.h>

#include "bounds.h"
#include "consent.h"
#include "testdir.h"

static char keydir[512], keypath[600];
static uint8_t sk[64];
static struct consent_keys *keys;
static uint8_t texthash[32];

#define NOW	1800000000LL

static void
setup(void)
{
	char err[512];

	ck_assert_int_ge(sodium_init(), 0);
	/* its own directory: a failed test leaves its keys behind */
	snprintf(keydir, sizeof(keydir), "%s/keys.XXXXXX", testdir_path());
	ck_assert_ptr_nonnull(mkdtemp(keydir));
	snprintf(keypath, sizeof(keypath), "%s/admin", keydir);
	ck_assert_msg(consent_keygen(keypath, err, sizeof(err)) == 0, "%s",
	    err);
	ck_assert_msg(consent_secret_load(keypath, sk, err, sizeof(err)) == 0,
	    "%s", err);
	/* the secret key file beside them is no *.pub: never read */
	ck_assert_msg(consent_keys_load(keydir, &keys, err, sizeof(err)) == 0,
	    "%s", err);
	crypto_hash_sha256(texthash, (const uint8_t *)"Shipped in 1.4", 14);
}

static void
teardown(void)
{
	consent_keys_free(keys);
	keys = NULL;
	testdir_rmtree(keydir);
}

/* A token for agent ci-bot, tool post, target notion:abc, the text. */
static char *
token(const char *agent, const char *tool, const char *target,
    const char *text, int64_t issued, int64_t ttl)
{
	struct consent c;
	char *t;

	memset(&c, 0, sizeof(c));
	snprintf(c.agent, sizeof(c.agent), "%s", agent);
	snprintf(c.tool, sizeof(c.tool), "%s", tool);
	snprintf(c.target, sizeof(c.target), "%s", target);
	crypto_hash_sha256(c.text_sha256, (const uint8_t *)text,
	    strlen(text));
	randombytes_buf(c.nonce, sizeof(c.nonce));
	c.issued = issued;
	c.expires = issued + ttl;
	ck_assert_int_eq(consent_sign(&c, sk, &t), 0);
	return t;
}

/* The reason token t is refused for the standard call, or NULL. */
static const char *
check(const char *t)
{
	struct consent_want w = { "ci-bot", "post", "notion:abc", texthash,
	    NOW, 30, 3600 };
	struct consent out;
	const char *why = NULL;

	if (consent_check(t, strlen(t), keys, &w, &out, &why) == 0)
		return NULL;
	ck_assert_ptr_nonnull(why);
	return why;
}

static void
expect(char *t, const char *why)
{
	const char *got = check(t);

	ck_assert_msg(got != NULL && strcmp(got, why) == 0,
	    "want \"%s\", got \"%s\" for %s", why, got != NULL ? got :
	    "(accepted)", t);
	free(t);
}

START_TEST(test_good)
{
	char *t = token("ci-bot", "post", "notion:abc", "Shipped in 1.4",
	    NOW - 60, 600);
	struct consent c;

	ck_assert_msg(strncmp(t, "bct1.", 5) == 0, "%s", t);
	/* printable and pasteable: base64url and dots only */
	ck_assert_uint_eq(strspn(t, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."), strlen(t));
	ck_assert_msg(strlen(t) < 300, "%zu characters", strlen(t));
	ck_assert_ptr_null(check(t));
	ck_assert_int_eq(consent_decode(t, strlen(t), &c), 0);
	ck_assert_str_eq(c.agent, "ci-bot");
	ck_assert_int_eq(c.expires - c.issued, 600);
	free(t);
}
END_TEST

START_TEST(test_bound_fields)
{
	expect(token("ci-bot", "post", "notion:abc", "Shipped in 1.5",
	    NOW, 600), CONSENT_TAMPERED);
	expect(token("ci-bot", "post", "notion:abd", "Shipped in 1.4",
	    NOW, 600), CONSENT_WRONG_TARGET);
	/* another spelling of the same target is another target: the
	 * caller compares canonical forms */
	expect(token("ci-bot", "post", "notion:ABC", "Shipped in 1.4",
	    NOW, 600), CONSENT_WRONG_TARGET);
	expect(token("other", "post", "notion:abc", "Shipped in 1.4",
	    NOW, 600), CONSENT_WRONG_AGENT);
	expect(token("ci-bot", "send", "notion:abc", "Shipped in 1.4",
	    NOW, 600), CONSENT_WRONG_TOOL);
}
END_TEST

START_TEST(test_times)
{
	char *t;

	/* expired, beyond the 30 s skew; within it, still good */
	expect(token("ci-bot", "post", "notion:abc", "Shipped in 1.4",
	    NOW - 700, 600), CONSENT_EXPIRED);
	t = token("ci-bot", "post", "notion:abc", "Shipped in 1.4",
	    NOW - 620, 600);
	ck_assert_ptr_null(check(t));
	free(t);
	expect(token("ci-bot", "post", "notion:abc", "Shipped in 1.4",
	    NOW + 120, 600), CONSENT_NOT_YET);
	expect(token("ci-bot", "post", "notion:abc", "Shipped in 1.4",
	    NOW - 10, 7200), CONSENT_TOO_LONG);
	expect(token("ci-bot", "post", "notion:abc", "Shipped in 1.4",
	    NOW, -5), CONSENT_TOO_LONG);
	/* a signed time near the end of int64: no overflow, refused */
	expect(token("ci-bot", "post", "notion:abc", "Shipped in 1.4",
	    NOW, INT64_MAX - NOW), CONSENT_TOO_LONG);
}
END_TEST

START_TEST(test_forged)
{
	char *t = token("ci-bot", "post", "notion:abc", "Shipped in 1.4",
	    NOW, 600), *dot = strrchr(t, '.');
	uint8_t othersk[64], otherpk[32];
	struct consent c;
	char *u;

	/* one character of the signature changed */
	dot[5] = dot[5] == 'A' ? 'B' : 'A';
	expect(t, CONSENT_BAD_SIGNATURE);
	/* a payload re-signed by a key nobody trusts, under our key id */
	crypto_sign_keypair(otherpk, othersk);
	memset(&c, 0, sizeof(c));
	snprintf(c.agent, sizeof(c.agent), "ci-bot");
	snprintf(c.tool, sizeof(c.tool), "post");
	snprintf(c.target, sizeof(c.target), "notion:abc");
	memcpy(c.text_sha256, texthash, 32);
	c.issued = NOW;
	c.expires = NOW + 600;
	ck_assert_int_eq(consent_sign(&c, othersk, &u), 0);
	expect(u, CONSENT_UNKNOWN_KEY);
}
END_TEST

START_TEST(test_malformed)
{
	char *t = token("ci-bot", "post", "notion:abc", "Shipped in 1.4",
	    NOW, 600), *u;
	size_t n = strlen(t);
	int i;

	/* truncated anywhere */
	u = strndup(t, n - 1);
	ck_assert_str_eq(check(u), CONSENT_MALFORMED);
	free(u);
	u = strndup(t, n - 3);
	ck_assert_str_eq(check(u), CONSENT_MALFORMED);
	free(u);
	u = strndup(t, 20);
	ck_assert_str_eq(check(u), CONSENT_MALFORMED);
	free(u);
	ck_assert_str_eq(check("bct1."), CONSENT_MALFORMED);
	ck_assert_str_eq(check(""), CONSENT_MALFORMED);
	/* another prefix, a third part, padding, the standard alphabet */
	u = strdup(t);
	u[3] = '2';
	ck_assert_str_eq(check(u), CONSENT_MALFORMED);
	free(u);
	if (asprintf(&u, "%s.AAAA", t) == -1)
		ck_abort();
	ck_assert_str_eq(check(u), CONSENT_MALFORMED);
	free(u);
	if (asprintf(&u, "%s==", t) == -1)
		ck_abort();
	ck_assert_str_eq(check(u), CONSENT_MALFORMED);
	free(u);
	u = strdup(t);
	for (n = 5; u[n] != '\0'; n++)
		if (u[n] == '-' || u[n] == '_') {
			u[n] = u[n] == '-' ? '+' : '/';
			ck_assert_str_eq(check(u), CONSENT_MALFORMED);
			break;
		}
	free(u);
	/* a byte outside the alphabet (libsodium 1.0.18 reads 0x80 and
	 * above as '_'), in the signature: malformed, never "bad signature"
	 * (nor accepted, where the byte replaced a '_') */
	u = strdup(t);
	n = strlen(u);
	for (i = 0x80; i <= 0xff; i++) {
		u[n - 2] = (char)i;
		ck_assert_str_eq(check(u), CONSENT_MALFORMED);
	}
	free(u);
	free(t);
}
END_TEST

START_TEST(test_keyfiles)
{
	char err[512], path[700];
	struct consent_keys *ks;
	struct stat st;
	uint8_t k[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/second", keydir);
	ck_assert_int_eq(consent_keygen(path, err, sizeof(err)), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	/* never overwritten, neither half */
	ck_assert_int_ne(consent_keygen(path, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "never overwritten"));
	unlink(path);
	ck_assert_int_ne(consent_keygen(path, err, sizeof(err)), 0);
	ck_assert_int_ne(access(path, F_OK), 0);
	/* a secret key behind a symbolic link is refused, and says so */
	snprintf(path, sizeof(path), "%s/link", keydir);
	ck_assert_int_eq(symlink(keypath, path), 0);
	ck_assert_int_ne(consent_secret_load(path, k, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "symbolic link"));
	unlink(path);
	/* a key file others can read is refused */
	snprintf(path, sizeof(path), "%s/third", keydir);
	ck_assert_int_eq(consent_keygen(path, err, sizeof(err)), 0);
	chmod(path, 0644);
	ck_assert_int_ne(consent_secret_load(path, k, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "chmod 600"));
	unlink(path);
	/* two keys now: both load; a broken .pub fails the whole dir */
	ck_assert_int_eq(consent_keys_load(keydir, &ks, err, sizeof(err)), 0);
	ck_assert_uint_eq(consent_keys_count(ks), 3);
	consent_keys_free(ks);
	snprintf(path, sizeof(path), "%s/broken.pub", keydir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs("ed25519 AAAA\n", f);
	fclose(f);
	ck_assert_int_ne(consent_keys_load(keydir, &ks, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "broken.pub"));
	unlink(path);
	/* an absent directory holds no key: every token is unknown */
	ck_assert_int_eq(consent_keys_load("/nonexistent/keys", &ks, err,
	    sizeof(err)), 0);
	ck_assert_uint_eq(consent_keys_count(ks), 0);
	consent_keys_free(ks);
}
END_TEST

/*
 * Out-of-band approvals: a signature releases the one ask it names;
 * another id, agent, tool, argument hash or expiry, a consent token's
 * signature, an unknown key, a flipped bit, bad hex or a late check are
 * each refused with their reason.
 */
START_TEST(test_approval)
{
	struct consent_approval ap, other;
	char sig[CONSENT_SIG_HEX + 1], kid[CONSENT_KEY_ID_HEX + 1];
	char bad[CONSENT_SIG_HEX + 1];
	const char *why;
	char *tok, *dot;
	uint8_t raw[64];
	size_t n;

	memset(&ap, 0, sizeof(ap));
	ap.id = 17;
	ap.agent = "ci-bot";
	ap.tool = "wire";
	memcpy(ap.args_sha256, texthash, 32);
	ap.expires = NOW + 60;
	ck_assert_int_eq(consent_approval_sign(&ap, sk, sig, kid), 0);
	ck_assert_uint_eq(strlen(sig), CONSENT_SIG_HEX);
	ck_assert_uint_eq(strlen(kid), CONSENT_KEY_ID_HEX);
	ck_assert_int_eq(consent_approval_check(&ap, kid, sig, keys, NOW,
	    &why), 0);
	/* each field is bound */
	other = ap;
	other.id = 18;
	ck_assert_int_ne(consent_approval_check(&other, kid, sig, keys, NOW,
	    &why), 0);
	ck_assert_str_eq(why, CONSENT_BAD_SIGNATURE);
	other = ap;
	other.agent = "ci-bot2";
	ck_assert_int_ne(consent_approval_check(&other, kid, sig, keys, NOW,
	    &why), 0);
	other = ap;
	other.tool = "wires";
	ck_assert_int_ne(consent_approval_check(&other, kid, sig, keys, NOW,
	    &why), 0);
	other = ap;
	other.args_sha256[31] ^= 1;
	ck_assert_int_ne(consent_approval_check(&other, kid, sig, keys, NOW,
	    &why), 0);
	other = ap;
	other.expires++;
	ck_assert_int_ne(consent_approval_check(&other, kid, sig, keys, NOW,
	    &why), 0);
	ck_assert_str_eq(why, CONSENT_BAD_SIGNATURE);
	/* too late */
	ck_assert_int_ne(consent_approval_check(&ap, kid, sig, keys,
	    NOW + 61, &why), 0);
	ck_assert_str_eq(why, CONSENT_EXPIRED);
	/* a flipped bit, bad hex, nothing */
	memcpy(bad, sig, sizeof(bad));
	bad[10] = bad[10] == '0' ? '1' : '0';
	ck_assert_int_ne(consent_approval_check(&ap, kid, bad, keys, NOW,
	    &why), 0);
	ck_assert_str_eq(why, CONSENT_BAD_SIGNATURE);
	bad[10] = 'g';
	ck_assert_int_ne(consent_approval_check(&ap, kid, bad, keys, NOW,
	    &why), 0);
	ck_assert_str_eq(why, CONSENT_MALFORMED);
	ck_assert_int_ne(consent_approval_check(&ap, kid, NULL, keys, NOW,
	    &why), 0);
	ck_assert_int_ne(consent_approval_check(&ap, NULL, sig, keys, NOW,
	    &why), 0);
	/* a key nobody trusts */
	ck_assert_int_ne(consent_approval_check(&ap, "0011223344556677",
	    sig, keys, NOW, &why), 0);
	ck_assert_str_eq(why, CONSENT_UNKNOWN_KEY);
	/* a consent token's signature, by the same key, is no approval */
	tok = token("ci-bot", "wire", "notion:abc", "Shipped in 1.4", NOW,
	    600);
	dot = strrchr(tok, '.');
	ck_assert_int_eq(sodium_base642bin(raw, sizeof(raw), dot + 1,
	    strlen(dot + 1), NULL, &n, NULL,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING), 0);
	ck_assert_uint_eq(n, 64);
	sodium_bin2hex(bad, sizeof(bad), raw, sizeof(raw));
	ck_assert_int_ne(consent_approval_check(&ap, kid, bad, keys, NOW,
	    &why), 0);
	ck_assert_str_eq(why, CONSENT_BAD_SIGNATURE);
	free(tok);
}
END_TEST

static Suite *
consent_suite(void)
{
	Suite *s = suite_create("consent");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_good);
	tcase_add_test(tc, test_bound_fields);
	tcase_add_test(tc, test_times);
	tcase_add_test(tc, test_forged);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_keyfiles);
	tcase_add_test(tc, test_approval);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(consent_suite());
	int failed;

	testdir_create("check_consent");
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	testdir_remove();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
