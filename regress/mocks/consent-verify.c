/*
 * consent-verify.c - checks a consent token as the monitor would
 * (test-only; regress/issue-consent.sh).
 *
 *	consent-verify [-l] [-n now] [-s skew] [-m max_ttl]
 *	    token keydir agent tool target textfile
 *
 * Loads keydir's *.pub keys, hashes the exact bytes of textfile and runs
 * consent_check(): prints "ok", or the reason the token is refused (one
 * of consent.h's), on one line.  With -l an accepted token's lifetime
 * follows on a second line, "ttl SECONDS".  Exit 0 for ok, 1 for a
 * refusal, 2 when it could not check at all.  It never checks or
 * records the nonce: that is the audit log's (regress covers it there).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "bounds.h"
#include "consent.h"

#define TEXT_MAX	(1024 * 1024)

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: consent-verify [-l] [-n now] [-s skew] "
	    "[-m max_ttl] token keydir agent tool target textfile\n");
	exit(2);
}

static int64_t
number(const char *s)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || n < 0)
		usage();
	return (int64_t)n;
}

int
main(int argc, char **argv)
{
	struct consent_want want;
	struct consent_keys *keys = NULL;
	struct consent out;
	uint8_t hash[crypto_hash_sha256_BYTES];
	static uint8_t text[TEXT_MAX];
	const char *why = NULL, *token;
	char err[1024];
	size_t len;
	FILE *f;
	int ch, lifetime = 0;

	memset(&want, 0, sizeof(want));
	want.now = (int64_t)time(NULL);
	want.skew = BNC_CONSENT_SKEW_DEFAULT;
	want.max_ttl = BNC_CONSENT_TTL_MAX;
	while ((ch = getopt(argc, argv, "ln:s:m:")) != -1) {
		switch (ch) {
		case 'l':
			lifetime = 1;
			break;
		case 'n':
			want.now = number(optarg);
			break;
		case 's':
			want.skew = number(optarg);
			break;
		case 'm':
			want.max_ttl = number(optarg);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 6)
		usage();
	if (sodium_init() < 0) {
		fprintf(stderr, "consent-verify: sodium_init failed\n");
		return 2;
	}
	token = argv[0];
	if (consent_keys_load(argv[1], &keys, err, sizeof(err)) != 0) {
		fprintf(stderr, "consent-verify: %s\n", err);
		return 2;
	}
	if ((f = fopen(argv[5], "rb")) == NULL) {
		fprintf(stderr, "consent-verify: %s: %s\n", argv[5],
		    strerror(errno));
		return 2;
	}
	len = fread(text, 1, sizeof(text), f);
	if (ferror(f) || !feof(f)) {
		fprintf(stderr, "consent-verify: %s: unreadable or too "
		    "long\n", argv[5]);
		return 2;
	}
	fclose(f);
	crypto_hash_sha256(hash, text, len);
	want.agent = argv[2];
	want.tool = argv[3];
	want.target = argv[4];
	want.text_sha256 = hash;
	if (consent_check(token, strlen(token), keys, &want, &out,
	    &why) != 0) {
		printf("%s\n", why);
		consent_keys_free(keys);
		return 1;
	}
	printf("ok\n");
	if (lifetime)
		printf("ttl %lld\n", (long long)(out.expires - out.issued));
	consent_keys_free(keys);
	return 0;
}
