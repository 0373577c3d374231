/*
 * audit-rehash.c - the hash a row of an audit log should have, computed
 * from the documented encoding, for regress/audit-forge.sh.
 *
 *   audit-rehash DB SEQ
 *
 * Prints the lowercase hex of SHA-256(P || E) for row SEQ, where P is
 * the 32 bytes of the row's stored prev_hash and E the canonical
 * encoding of its 14 columns, as bouncer-audit(8) describes it: NULL is
 * 0x00; TEXT is 0x01, a 32-bit big-endian length and the bytes; INTEGER
 * is 0x02 and 8 big-endian bytes.  It deliberately does not link
 * monitor/audit.c: a forger works from the manual page, and the
 * scenario checks that this reading of it gives the hashes the real
 * writer stored.  Exits 1 if the row is missing or malformed.
 *
 * Test code, never installed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>
#include <sqlite3.h>

#define NCOLS	14

static const char *const cols =
    "seq, time, session, agent, upstream, tool, verdict, contract, "
    "reason, sinks, args_sha256, args_len, args, nonce, prev_hash";

static void
put_be(crypto_hash_sha256_state *st, uint64_t v, int n)
{
	uint8_t b[8];
	int i;

	for (i = n - 1; i >= 0; i--) {
		b[i] = (uint8_t)v;
		v >>= 8;
	}
	crypto_hash_sha256_update(st, b, (unsigned long long)n);
}

int
main(int argc, char **argv)
{
	crypto_hash_sha256_state st;
	uint8_t prev[crypto_hash_sha256_BYTES], h[crypto_hash_sha256_BYTES];
	char hex[2 * crypto_hash_sha256_BYTES + 1], sql[256];
	const unsigned char *t;
	const char *ph;
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	size_t n;
	uint8_t tag;
	int i, rc = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: audit-rehash DB SEQ\n");
		return 1;
	}
	if (sodium_init() == -1)
		return 1;
	snprintf(sql, sizeof(sql), "SELECT %s FROM decisions WHERE seq = ?",
	    cols);
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK || sqlite3_prepare_v2(db, sql, -1, &q, NULL) !=
	    SQLITE_OK || sqlite3_bind_int64(q, 1, strtoll(argv[2], NULL,
	    10)) != SQLITE_OK) {
		fprintf(stderr, "audit-rehash: %s\n", sqlite3_errmsg(db));
		goto out;
	}
	if (sqlite3_step(q) != SQLITE_ROW) {
		fprintf(stderr, "audit-rehash: no row %s\n", argv[2]);
		goto out;
	}
	ph = (const char *)sqlite3_column_text(q, NCOLS);
	if (ph == NULL || sodium_hex2bin(prev, sizeof(prev), ph, strlen(ph),
	    NULL, &n, NULL) != 0 || n != sizeof(prev)) {
		fprintf(stderr, "audit-rehash: bad prev_hash\n");
		goto out;
	}
	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, prev, sizeof(prev));
	for (i = 0; i < NCOLS; i++) {
		switch (sqlite3_column_type(q, i)) {
		case SQLITE_NULL:
			tag = 0x00;
			crypto_hash_sha256_update(&st, &tag, 1);
			break;
		case SQLITE_TEXT:
			tag = 0x01;
			t = sqlite3_column_text(q, i);
			n = (size_t)sqlite3_column_bytes(q, i);
			crypto_hash_sha256_update(&st, &tag, 1);
			put_be(&st, n, 4);
			crypto_hash_sha256_update(&st, t, n);
			break;
		case SQLITE_INTEGER:
			tag = 0x02;
			crypto_hash_sha256_update(&st, &tag, 1);
			put_be(&st, (uint64_t)sqlite3_column_int64(q, i), 8);
			break;
		default:
			fprintf(stderr, "audit-rehash: column %d is neither "
			    "NULL, TEXT nor INTEGER\n", i + 1);
			goto out;
		}
	}
	crypto_hash_sha256_final(&st, h);
	sodium_bin2hex(hex, sizeof(hex), h, sizeof(h));
	puts(hex);
	rc = 0;
 out:
	sqlite3_finalize(q);
	sqlite3_close(db);
	return rc;
}
