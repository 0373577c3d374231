/*
 * consent.c - signed consent tokens and their keys (DESIGN 7).
 *
 * The payload is a fixed sequence of fields, big-endian, each read
 * once and bounded:
 *
 *	u8	version (1)
 *	8	key id: the first bytes of SHA-256 of the public key
 *	u8	length, then the agent id
 *	u8	length, then the tool name
 *	u16	length, then the target
 *	32	SHA-256 of the exact UTF-8 text
 *	16	nonce
 *	u64	issued-at, seconds since the epoch
 *	u64	expires-at
 *
 * and nothing after it.  The signature is Ed25519 (libsodium) over
 * CONSENT_DOMAIN, a NUL byte and the payload.  Both parts are base64url
 * without padding; any other spelling is malformed, so one token has one
 * spelling.
 *
 * The same keys sign out-of-band approvals (approval_bytes below), over
 * CONSENT_APPROVAL_DOMAIN instead: the two kinds of signed bytes start
 * differently, so neither signature can stand for the other.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "bounds.h"
#include "consent.h"
#include "err.h"
#include "xmalloc.h"

#define B64		sodium_base64_VARIANT_URLSAFE_NO_PADDING
#define PAYLOAD_MAX	(1 + CONSENT_KEY_ID_LEN + 1 + BNC_CONSENT_AGENT_MAX + \
			    1 + BNC_TOOL_NAME_MAX + 2 + BNC_CONSENT_TARGET_MAX + \
			    32 + CONSENT_NONCE_LEN + 8 + 8)
#define PUB_TAG		"ed25519 "
#define SECRET_TAG	"ed25519-secret "

struct consent_key {
	uint8_t		 id[CONSENT_KEY_ID_LEN];
	uint8_t		 pk[crypto_sign_PUBLICKEYBYTES];
};

struct consent_keys {
	struct consent_key *v;
	size_t		 n;
};

void
consent_key_id(const uint8_t pk[32], uint8_t id[CONSENT_KEY_ID_LEN])
{
	uint8_t h[crypto_hash_sha256_BYTES];

	crypto_hash_sha256(h, pk, crypto_sign_PUBLICKEYBYTES);
	memcpy(id, h, CONSENT_KEY_ID_LEN);
}

/* ---- the payload ---------------------------------------------------- */

struct wr {
	uint8_t		 b[PAYLOAD_MAX];
	size_t		 n;
};

static void
put(struct wr *w, const void *p, size_t n)
{
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void
put_u64(struct wr *w, uint64_t v)
{
	uint8_t b[8];
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		b[i] = (uint8_t)(v & 0xff);
	put(w, b, 8);
}

static int
encode(const struct consent *c, struct wr *w)
{
	size_t la = strlen(c->agent), lt = strlen(c->tool);
	size_t lg = strlen(c->target);
	uint8_t v = CONSENT_VERSION, l8, l16[2];

	if (la == 0 || la > BNC_CONSENT_AGENT_MAX || lt == 0 ||
	    lt > BNC_TOOL_NAME_MAX || lg == 0 || lg > BNC_CONSENT_TARGET_MAX)
		return -BNC_ERR_TOO_LARGE;
	w->n = 0;
	put(w, &v, 1);
	put(w, c->key_id, CONSENT_KEY_ID_LEN);
	l8 = (uint8_t)la;
	put(w, &l8, 1);
	put(w, c->agent, la);
	l8 = (uint8_t)lt;
	put(w, &l8, 1);
	put(w, c->tool, lt);
	l16[0] = (uint8_t)(lg >> 8);
	l16[1] = (uint8_t)(lg & 0xff);
	put(w, l16, 2);
	put(w, c->target, lg);
	put(w, c->text_sha256, 32);
	put(w, c->nonce, CONSENT_NONCE_LEN);
	put_u64(w, (uint64_t)c->issued);
	put_u64(w, (uint64_t)c->expires);
	return 0;
}

struct rd {
	const uint8_t	*p;
	size_t		 left;
};

static int
get(struct rd *r, void *out, size_t n)
{
	if (r->left < n)
		return -1;
	memcpy(out, r->p, n);
	r->p += n;
	r->left -= n;
	return 0;
}

/* A length-prefixed string of at most max bytes, with no NUL in it. */
static int
get_str(struct rd *r, size_t lenbytes, char *out, size_t max)
{
	uint8_t l[2];
	size_t n;

	if (get(r, l, lenbytes) != 0)
		return -1;
	n = lenbytes == 1 ? l[0] : ((size_t)l[0] << 8 | l[1]);
	if (n == 0 || n > max || get(r, out, n) != 0 ||
	    memchr(out, '\0', n) != NULL)
		return -1;
	out[n] = '\0';
	return 0;
}

static int
get_u64(struct rd *r, int64_t *out)
{
	uint8_t b[8];
	uint64_t v = 0;
	int i;

	if (get(r, b, 8) != 0)
		return -1;
	for (i = 0; i < 8; i++)
		v = v << 8 | b[i];
	if (v > INT64_MAX)
		return -1;
	*out = (int64_t)v;
	return 0;
}

static int
decode_payload(const uint8_t *p, size_t n, struct consent *c)
{
	struct rd r = { p, n };
	uint8_t v;

	memset(c, 0, sizeof(*c));
	if (get(&r, &v, 1) != 0 || v != CONSENT_VERSION ||
	    get(&r, c->key_id, CONSENT_KEY_ID_LEN) != 0 ||
	    get_str(&r, 1, c->agent, BNC_CONSENT_AGENT_MAX) != 0 ||
	    get_str(&r, 1, c->tool, BNC_TOOL_NAME_MAX) != 0 ||
	    get_str(&r, 2, c->target, BNC_CONSENT_TARGET_MAX) != 0 ||
	    get(&r, c->text_sha256, 32) != 0 ||
	    get(&r, c->nonce, CONSENT_NONCE_LEN) != 0 ||
	    get_u64(&r, &c->issued) != 0 || get_u64(&r, &c->expires) != 0)
		return -1;
	/* nothing after the last field: one token, one meaning */
	return r.left == 0 ? 0 : -1;
}

/* What the signature covers: the domain, a NUL, the payload. */
static size_t
signed_bytes(uint8_t *out, const uint8_t *payload, size_t n)
{
	size_t d = sizeof(CONSENT_DOMAIN);	/* with its NUL */

	memcpy(out, CONSENT_DOMAIN, d);
	memcpy(out + d, payload, n);
	return d + n;
}

/* ---- tokens --------------------------------------------------------- */

int
consent_sign(struct consent *c, const uint8_t sk[64], char **tokenp)
{
	uint8_t msg[sizeof(CONSENT_DOMAIN) + PAYLOAD_MAX];
	uint8_t sig[crypto_sign_BYTES];
	struct wr w;
	size_t mlen, plen, slen, n;
	char *t;
	int r;

	consent_key_id(sk + crypto_sign_SECRETKEYBYTES -
	    crypto_sign_PUBLICKEYBYTES, c->key_id);
	if ((r = encode(c, &w)) != 0)
		return r;
	mlen = signed_bytes(msg, w.b, w.n);
	crypto_sign_detached(sig, NULL, msg, mlen, sk);
	plen = sodium_base64_ENCODED_LEN(w.n, B64);
	slen = sodium_base64_ENCODED_LEN(sizeof(sig), B64);
	/* each ENCODED_LEN counts its NUL: room for the '.' and one NUL */
	t = xmalloc(sizeof(CONSENT_PREFIX) - 1 + plen + slen);
	memcpy(t, CONSENT_PREFIX, sizeof(CONSENT_PREFIX) - 1);
	sodium_bin2base64(t + sizeof(CONSENT_PREFIX) - 1, plen, w.b, w.n,
	    B64);
	n = strlen(t);
	t[n++] = '.';
	sodium_bin2base64(t + n, slen, sig, sizeof(sig), B64);
	*tokenp = t;
	return 0;
}

/*
 * base64url, no padding, the whole of [s, s + n): else -1.  Every byte
 * is checked against the alphabet first: libsodium 1.0.18 reads a byte
 * of 0x80 and above as '_' (63), which would give one token many
 * spellings (any '_' of a valid token replaced by any such byte, "__"
 * by a UTF-8 letter, and still accepted).
 */
static int
unb64(const char *s, size_t n, uint8_t *out, size_t max, size_t *outlen)
{
	const char *end;
	size_t i;
	char c;

	for (i = 0; i < n; i++) {
		c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_'))
			return -1;
	}
	if (n == 0 || sodium_base642bin(out, max, s, n, NULL, outlen, &end,
	    B64) != 0 || end != s + n)
		return -1;
	return 0;
}

/*
 * Splits and decodes a token: its payload bytes, its signature and what
 * the payload says.  -1 if anything about it is malformed.
 */
static int
split(const char *token, size_t len, uint8_t *payload, size_t *plen,
    uint8_t sig[crypto_sign_BYTES], struct consent *c)
{
	const char *p, *dot;
	size_t slen, n;

	if (len > BNC_CONSENT_TOKEN_MAX ||
	    len < sizeof(CONSENT_PREFIX) - 1 ||
	    memcmp(token, CONSENT_PREFIX, sizeof(CONSENT_PREFIX) - 1) != 0)
		return -1;
	p = token + sizeof(CONSENT_PREFIX) - 1;
	n = len - (size_t)(p - token);
	if ((dot = memchr(p, '.', n)) == NULL ||
	    memchr(dot + 1, '.', n - (size_t)(dot + 1 - p)) != NULL)
		return -1;
	if (unb64(p, (size_t)(dot - p), payload, PAYLOAD_MAX, plen) != 0 ||
	    unb64(dot + 1, n - (size_t)(dot + 1 - p), sig, crypto_sign_BYTES,
	    &slen) != 0 || slen != crypto_sign_BYTES)
		return -1;
	return decode_payload(payload, *plen, c);
}

int
consent_decode(const char *token, size_t len, struct consent *out)
{
	uint8_t payload[PAYLOAD_MAX], sig[crypto_sign_BYTES];
	size_t plen;

	return split(token, len, payload, &plen, sig, out);
}

int
consent_check(const char *token, size_t len, const struct consent_keys *ks,
    const struct consent_want *want, struct consent *out, const char **why)
{
	uint8_t payload[PAYLOAD_MAX], sig[crypto_sign_BYTES];
	uint8_t msg[sizeof(CONSENT_DOMAIN) + PAYLOAD_MAX];
	const struct consent_key *k = NULL;
	size_t plen, i;

	if (split(token, len, payload, &plen, sig, out) != 0) {
		*why = CONSENT_MALFORMED;
		return -1;
	}
	for (i = 0; ks != NULL && i < ks->n; i++)
		if (memcmp(ks->v[i].id, out->key_id, CONSENT_KEY_ID_LEN) == 0)
			k = &ks->v[i];
	if (k == NULL) {
		*why = CONSENT_UNKNOWN_KEY;
		return -1;
	}
	if (crypto_sign_verify_detached(sig, msg, signed_bytes(msg, payload,
	    plen), k->pk) != 0) {
		*why = CONSENT_BAD_SIGNATURE;
		return -1;
	}
	/* signed by a key we trust: from here on, what it says is so */
	if (strcmp(out->agent, want->agent) != 0)
		*why = CONSENT_WRONG_AGENT;
	else if (strcmp(out->tool, want->tool) != 0)
		*why = CONSENT_WRONG_TOOL;
	else if (strcmp(out->target, want->target) != 0)
		*why = CONSENT_WRONG_TARGET;
	else if (sodium_memcmp(out->text_sha256, want->text_sha256, 32) != 0)
		*why = CONSENT_TAMPERED;
	/* now +- skew, never expires + skew: a signed field may be huge */
	else if (out->issued > want->now + want->skew)
		*why = CONSENT_NOT_YET;
	else if (out->expires < want->now - want->skew)
		*why = CONSENT_EXPIRED;
	else if (out->expires < out->issued ||
	    out->expires - out->issued > want->max_ttl)
		*why = CONSENT_TOO_LONG;
	else
		return 0;
	return -1;
}

/* ---- out-of-band approvals ----------------------------------------- */

/*
 * What an approval's signature covers: CONSENT_APPROVAL_DOMAIN and its
 * NUL, then u64 ask id, u16 length and the agent, u16 length and the
 * tool, the 32 bytes of SHA-256 of the canonical arguments, u64 expiry,
 * all big-endian.  A token's bytes start with CONSENT_DOMAIN instead: a
 * signature of one kind is never a signature of the other.
 */
#define APPROVAL_MAX	(sizeof(CONSENT_APPROVAL_DOMAIN) + 8 + \
			    2 * (2 + BNC_AUDIT_FIELD_MAX) + 32 + 8)

/* v as n bytes big-endian at p; returns p + n. */
static uint8_t *
put_be(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)(v & 0xff);
	return p + n;
}

static int
approval_bytes(const struct consent_approval *ap, uint8_t *out, size_t *lenp)
{
	size_t la = strlen(ap->agent), lt = strlen(ap->tool);
	uint8_t *p = out;

	if (la > BNC_AUDIT_FIELD_MAX || lt > BNC_AUDIT_FIELD_MAX)
		return -BNC_ERR_TOO_LARGE;
	memcpy(p, CONSENT_APPROVAL_DOMAIN, sizeof(CONSENT_APPROVAL_DOMAIN));
	p += sizeof(CONSENT_APPROVAL_DOMAIN);
	p = put_be(p, (uint64_t)ap->id, 8);
	p = put_be(p, la, 2);
	memcpy(p, ap->agent, la);
	p = put_be(p + la, lt, 2);
	memcpy(p, ap->tool, lt);
	p += lt;
	memcpy(p, ap->args_sha256, 32);
	p = put_be(p + 32, (uint64_t)ap->expires, 8);
	*lenp = (size_t)(p - out);
	return 0;
}

int
consent_approval_sign(const struct consent_approval *ap, const uint8_t sk[64],
    char sig[CONSENT_SIG_HEX + 1], char key_id[CONSENT_KEY_ID_HEX + 1])
{
	uint8_t msg[APPROVAL_MAX], s[crypto_sign_BYTES];
	uint8_t id[CONSENT_KEY_ID_LEN];
	size_t n;
	int r;

	if ((r = approval_bytes(ap, msg, &n)) != 0)
		return r;
	crypto_sign_detached(s, NULL, msg, n, sk);
	consent_key_id(sk + crypto_sign_SECRETKEYBYTES -
	    crypto_sign_PUBLICKEYBYTES, id);
	sodium_bin2hex(sig, CONSENT_SIG_HEX + 1, s, sizeof(s));
	sodium_bin2hex(key_id, CONSENT_KEY_ID_HEX + 1, id, sizeof(id));
	return 0;
}

/* Exactly n bytes of lowercase hex into out: 0, else -1. */
static int
unhex(const char *s, uint8_t *out, size_t n)
{
	size_t i, got;

	if (s == NULL || strlen(s) != 2 * n)
		return -1;
	/* one spelling: sodium_hex2bin would take uppercase too */
	for (i = 0; i < 2 * n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return -1;
	if (sodium_hex2bin(out, n, s, 2 * n, NULL, &got, NULL) != 0 ||
	    got != n)
		return -1;
	return 0;
}

int
consent_approval_check(const struct consent_approval *ap, const char *key_id,
    const char *sig, const struct consent_keys *ks, int64_t now,
    const char **why)
{
	uint8_t msg[APPROVAL_MAX], s[crypto_sign_BYTES];
	uint8_t id[CONSENT_KEY_ID_LEN];
	const struct consent_key *k = NULL;
	size_t n, i;

	if (unhex(key_id, id, sizeof(id)) != 0 ||
	    unhex(sig, s, sizeof(s)) != 0 ||
	    approval_bytes(ap, msg, &n) != 0) {
		*why = CONSENT_MALFORMED;
		return -1;
	}
	for (i = 0; ks != NULL && i < ks->n; i++)
		if (memcmp(ks->v[i].id, id, CONSENT_KEY_ID_LEN) == 0)
			k = &ks->v[i];
	if (k == NULL) {
		*why = CONSENT_UNKNOWN_KEY;
		return -1;
	}
	if (crypto_sign_verify_detached(s, msg, n, k->pk) != 0) {
		*why = CONSENT_BAD_SIGNATURE;
		return -1;
	}
	/* the ask waits while now < expires; its monitor gives up then */
	if (now >= ap->expires) {
		*why = CONSENT_EXPIRED;
		return -1;
	}
	return 0;
}

/* notion:<page-id> or github:<owner>/<repo>#<number>, as the agent
 * will pass it: the monitor compares the bytes. */
int
consent_work_target(const char *t)
{
	const char *p;
	size_t n;

	if (strncmp(t, "notion:", 7) == 0) {
		p = t + 7;
		n = strspn(p, "0123456789abcdefABCDEF-");
		return n > 0 && p[n] == '\0' ? 0 : -1;
	}
	if (strncmp(t, "github:", 7) != 0)
		return -1;
	p = t + 7;
	if ((n = strspn(p, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")) == 0 || p[n] != '/')
		return -1;
	p += n + 1;
	if ((n = strspn(p, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")) == 0 || p[n] != '#')
		return -1;
	p += n + 1;
	if (*p < '1' || *p > '9' || p[strspn(p, "0123456789")] != '\0')
		return -1;
	return 0;
}

/* ---- key files ------------------------------------------------------ */

/*
 * The whole of a small file, NUL-terminated, and (st not NULL) what
 * fstat says of the file read, not of a name that may change: 0, or -1
 * with errno.  A symbolic link is refused.
 */
static int
read_small(const char *path, char *buf, size_t size, struct stat *st)
{
	ssize_t n;
	size_t got = 0;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -1;
	if (st != NULL && fstat(fd, st) == -1) {
		close(fd);
		return -1;
	}
	while ((n = read(fd, buf + got, size - 1 - got)) > 0)
		if ((got += (size_t)n) == size - 1)
			break;
	close(fd);
	if (n == -1)
		return -1;
	if (got == size - 1) {
		errno = EFBIG;
		return -1;
	}
	buf[got] = '\0';
	return 0;
}

/* "TAG BASE64URL\n" of exactly n bytes: 0, or -1 */
static int
parse_keyline(const char *buf, const char *tag, uint8_t *out, size_t n)
{
	size_t len, tl = strlen(tag), got;

	if (strncmp(buf, tag, tl) != 0)
		return -1;
	buf += tl;
	len = strcspn(buf, "\n");
	if (buf[len] == '\n' && buf[len + 1] != '\0')
		return -1;
	if (unb64(buf, len, out, n, &got) != 0 || got != n)
		return -1;
	return 0;
}

static int
pub_file(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 4 && strcmp(name + n - 4, ".pub") == 0;
}

int
consent_keys_load(const char *dir, struct consent_keys **out, char *err,
    size_t errlen)
{
	struct consent_keys *ks = xcalloc(1, sizeof(*ks));
	char buf[BNC_CONSENT_KEYFILE_MAX], path[BNC_PATH_MAX + 256];
	struct dirent *de;
	DIR *d;
	size_t i;
	int r = 0;

	*out = NULL;
	if ((d = opendir(dir)) == NULL) {
		if (errno == ENOENT) {
			*out = ks;	/* no keys: every token unknown */
			return 0;
		}
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		free(ks);
		return -BNC_ERR_CONFIG;
	}
	while ((de = readdir(d)) != NULL) {
		if (!pub_file(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (ks->n == BNC_CONSENT_KEYS_MAX) {
			snprintf(err, errlen, "%s: more than %d consent keys",
			    dir, BNC_CONSENT_KEYS_MAX);
			r = -BNC_ERR_CONFIG;
			break;
		}
		ks->v = xreallocarray(ks->v, ks->n + 1, sizeof(*ks->v));
		if (read_small(path, buf, sizeof(buf), NULL) != 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			r = -BNC_ERR_CONFIG;
			break;
		}
		if (parse_keyline(buf, PUB_TAG, ks->v[ks->n].pk,
		    crypto_sign_PUBLICKEYBYTES) != 0) {
			snprintf(err, errlen, "%s: not one line \"ed25519 "
			    "KEY\" of a 32-byte base64url key", path);
			r = -BNC_ERR_CONFIG;
			break;
		}
		consent_key_id(ks->v[ks->n].pk, ks->v[ks->n].id);
		for (i = 0; i < ks->n; i++)
			if (memcmp(ks->v[i].id, ks->v[ks->n].id,
			    CONSENT_KEY_ID_LEN) == 0)
				break;
		/* the same key under two names is one key */
		if (i == ks->n)
			ks->n++;
	}
	closedir(d);
	if (r != 0) {
		consent_keys_free(ks);
		return r;
	}
	*out = ks;
	return 0;
}

size_t
consent_keys_count(const struct consent_keys *ks)
{
	return ks != NULL ? ks->n : 0;
}

void
consent_keys_free(struct consent_keys *ks)
{
	if (ks == NULL)
		return;
	free(ks->v);
	free(ks);
}

/* Creates path with mode and writes "TAG BASE64URL\n" of n bytes. */
static int
write_key(const char *path, mode_t mode, const char *tag, const uint8_t *k,
    size_t n, char *err, size_t errlen)
{
	char line[BNC_CONSENT_KEYFILE_MAX];
	size_t len;
	int fd;

	snprintf(line, sizeof(line), "%s", tag);
	len = strlen(line);
	sodium_bin2base64(line + len, sizeof(line) - len - 1, k, n, B64);
	len = strlen(line);
	line[len++] = '\n';
	line[len] = '\0';
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, mode)) == -1) {
		snprintf(err, errlen, "%s: %s", path, errno == EEXIST ?
		    "exists; a key is never overwritten" : strerror(errno));
		return -BNC_ERR_SYS;
	}
	if (fchmod(fd, mode) == -1 || write(fd, line, len) != (ssize_t)len ||
	    fsync(fd) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return -BNC_ERR_SYS;
	}
	sodium_memzero(line, sizeof(line));
	if (close(fd) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		unlink(path);
		return -BNC_ERR_SYS;
	}
	return 0;
}

int
consent_keygen(const char *path, char *err, size_t errlen)
{
	uint8_t pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	char pub[BNC_PATH_MAX + 8];
	struct stat st;
	int r;

	if ((size_t)snprintf(pub, sizeof(pub), "%s.pub", path) >=
	    sizeof(pub)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -BNC_ERR_TOO_LARGE;
	}
	/* neither half may exist: checked before anything is written */
	if (lstat(pub, &st) == 0 || lstat(path, &st) == 0) {
		snprintf(err, errlen, "%s: exists; a key is never "
		    "overwritten", lstat(path, &st) == 0 ? path : pub);
		return -BNC_ERR_SYS;
	}
	crypto_sign_keypair(pk, sk);
	if ((r = write_key(path, 0600, SECRET_TAG, sk, sizeof(sk), err,
	    errlen)) == 0 && (r = write_key(pub, 0644, PUB_TAG, pk,
	    sizeof(pk), err, errlen)) != 0)
		unlink(path);
	sodium_memzero(sk, sizeof(sk));
	return r;
}

int
consent_secret_load(const char *path, uint8_t sk[64], char *err,
    size_t errlen)
{
	uint8_t pk[crypto_sign_PUBLICKEYBYTES], chk[crypto_sign_SECRETKEYBYTES];
	char buf[BNC_CONSENT_KEYFILE_MAX];
	struct stat st;
	int r = 0;

	if (read_small(path, buf, sizeof(buf), &st) != 0) {
		/* O_NOFOLLOW: ELOOP is the name being a link */
		snprintf(err, errlen, "%s: %s", path, errno == ELOOP ?
		    "a symbolic link (a key file must be a plain file)" :
		    strerror(errno));
		return -BNC_ERR_SYS;
	}
	if ((st.st_mode & 077) != 0) {
		snprintf(err, errlen, "%s: readable by others (mode %03o); "
		    "chmod 600 it", path, (unsigned)(st.st_mode & 0777));
		r = -BNC_ERR_CONFIG;
	} else if (parse_keyline(buf, SECRET_TAG, sk,
	    crypto_sign_SECRETKEYBYTES) != 0) {
		snprintf(err, errlen, "%s: not one line \"ed25519-secret "
		    "KEY\" of a 64-byte base64url key", path);
		r = -BNC_ERR_CONFIG;
	} else {
		/* its public half must be its seed's: a token names the key
		 * by that half, and a verifier checks against it */
		crypto_sign_seed_keypair(pk, chk, sk);
		if (sodium_memcmp(pk, sk + 32, sizeof(pk)) != 0) {
			snprintf(err, errlen, "%s: its public half does not "
			    "match its secret seed", path);
			r = -BNC_ERR_CONFIG;
		}
		sodium_memzero(chk, sizeof(chk));
	}
	sodium_memzero(buf, sizeof(buf));
	if (r != 0)
		sodium_memzero(sk, 64);
	return r;
}
