/*
 * consent.h - signed consent tokens and their keys (DESIGN 7).
 *
 * A human consents to one exact text, for one agent, one tool and one
 * target, until a time; bouncer-issue-consent signs that with the
 * admin's Ed25519 secret key and prints a token:
 *
 *	bct1.<base64url(payload)>.<base64url(signature)>
 *
 * the signature covering CONSENT_DOMAIN and the payload.  The monitor
 * holds only public keys; consent_check() makes every check of DESIGN 7
 * but the nonce's, which the caller makes in the transaction that
 * records the decision (a nonce is used once, across all monitors).
 * Nothing here trusts the token: every length is bounded, every field
 * read once, and the payload must end where its last field does.
 */
#ifndef BNC_CONSENT_H
#define BNC_CONSENT_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

#define CONSENT_PREFIX		"bct1."
/* what the signature covers before the payload: no other signature of
 * the same key (an out-of-band approval, say) can pass for a token */
#define CONSENT_DOMAIN		"bouncer consent token v1"
#define CONSENT_VERSION		1
#define CONSENT_KEY_ID_LEN	8	/* first bytes of SHA-256(public key) */
#define CONSENT_NONCE_LEN	16

/* Why a token is refused: each failure has its own reason (DESIGN 7). */
#define CONSENT_MALFORMED	"malformed token"
#define CONSENT_UNKNOWN_KEY	"unknown key"
#define CONSENT_BAD_SIGNATURE	"bad signature"
#define CONSENT_WRONG_AGENT	"wrong agent"
#define CONSENT_WRONG_TOOL	"wrong tool"
#define CONSENT_WRONG_TARGET	"wrong target"
#define CONSENT_TAMPERED	"tampered text"
#define CONSENT_EXPIRED		"expired"
#define CONSENT_NOT_YET		"not yet valid"
#define CONSENT_TOO_LONG	"lifetime over the configured maximum"
#define CONSENT_REPLAYED	"replayed"

/* What a token says. */
struct consent {
	uint8_t		 key_id[CONSENT_KEY_ID_LEN];
	char		 agent[BNC_CONSENT_AGENT_MAX + 1];
	char		 tool[BNC_TOOL_NAME_MAX + 1];
	char		 target[BNC_CONSENT_TARGET_MAX + 1];
	uint8_t		 text_sha256[32];
	uint8_t		 nonce[CONSENT_NONCE_LEN];
	int64_t		 issued;	/* seconds since the epoch */
	int64_t		 expires;
};

/* The public keys a monitor trusts. */
struct consent_keys;

/*
 * Every *.pub file of dir (consent.keys): each holds one line
 * "ed25519 BASE64URL" of a 32-byte public key.  0, or -BNC_ERR_CONFIG
 * with "FILE: message" in err: a key file bouncer cannot read or
 * understand is an error, never skipped.  An absent dir holds no keys.
 */
int	 consent_keys_load(const char *dir, struct consent_keys **out,
	    char *err, size_t errlen);
size_t	 consent_keys_count(const struct consent_keys *);
void	 consent_keys_free(struct consent_keys *);

/*
 * Writes a new key pair: the secret key to path (mode 0600, "ed25519-
 * secret BASE64URL" of the 64-byte libsodium secret key) and the public
 * one to path.pub (0644).  Refuses to overwrite either: 0, or a
 * negative code with the reason in err.
 */
int	 consent_keygen(const char *path, char *err, size_t errlen);
/* Reads a secret key file: 0, or a negative code with err. */
int	 consent_secret_load(const char *path, uint8_t sk[64], char *err,
	    size_t errlen);
/* The id of a public key, as a token carries it. */
void	 consent_key_id(const uint8_t pk[32],
	    uint8_t id[CONSENT_KEY_ID_LEN]);

/*
 * Signs c with sk (its key id is set from sk's public half): *tokenp is
 * a new NUL-terminated token.  0, or -BNC_ERR_TOO_LARGE for a field
 * over its bound.
 */
int	 consent_sign(struct consent *c, const uint8_t sk[64],
	    char **tokenp);

/* What this call needs a token to say. */
struct consent_want {
	const char	*agent;
	const char	*tool;		/* the name the client calls */
	const char	*target;	/* in canonical form */
	const uint8_t	*text_sha256;	/* of the exact text */
	int64_t		 now;
	int64_t		 skew;		/* seconds of clock skew allowed */
	int64_t		 max_ttl;	/* longest lifetime accepted */
};

/*
 * Every check of DESIGN 7 but the nonce's, in this order: well formed,
 * known key, valid signature, agent, tool, target, text, issued not in
 * the future, not expired, lifetime within max_ttl.  0 (*out is the
 * token's, its nonce for the caller to consume), or -1 with *why one of
 * the CONSENT_* reasons above.
 */
int	 consent_check(const char *token, size_t len,
	    const struct consent_keys *, const struct consent_want *,
	    struct consent *out, const char **why);
/*
 * 0 if t is a work-system target as DESIGN 7 spells it:
 * notion:<page-id> (hex and dashes) or github:<owner>/<repo>#<number>;
 * else -1.  Targets are compared as bytes, so one spelling is allowed.
 */
int	 consent_work_target(const char *t);
/* Decodes a token without checking its signature (for display). */
int	 consent_decode(const char *token, size_t len, struct consent *out);

/*
 * Out-of-band approvals (DESIGN 7): the admin signs one waiting call,
 * known by its ask id, for its agent and tool, the SHA-256 of its
 * canonical arguments and the ask's expiry.  The signature covers
 * CONSENT_APPROVAL_DOMAIN, a NUL and those fields, so that no consent
 * token's signature passes for an approval, nor the reverse.  Signature
 * and key id travel through the database as lowercase hex.
 */
#define CONSENT_APPROVAL_DOMAIN	"bouncer out-of-band approval v1"
#define CONSENT_SIG_HEX		128	/* an Ed25519 signature, in hex */
#define CONSENT_KEY_ID_HEX	(2 * CONSENT_KEY_ID_LEN)

struct consent_approval {
	int64_t		 id;		/* the ask's id in oob_asks */
	const char	*agent;
	const char	*tool;		/* the name the client called */
	uint8_t		 args_sha256[32];
	int64_t		 expires;	/* the ask's, seconds since the epoch */
};

/*
 * Signs ap with sk: sig and key id in hex, NUL-terminated.  0, or
 * -BNC_ERR_TOO_LARGE for an agent or tool over BNC_AUDIT_FIELD_MAX.
 */
int	 consent_approval_sign(const struct consent_approval *ap,
	    const uint8_t sk[64], char sig[CONSENT_SIG_HEX + 1],
	    char key_id[CONSENT_KEY_ID_HEX + 1]);
/*
 * 0 if sig (hex) is a signature of ap by the key of key_id (hex) among
 * ks, and now is before ap->expires; else -1 with *why one of
 * CONSENT_MALFORMED, CONSENT_UNKNOWN_KEY, CONSENT_BAD_SIGNATURE or
 * CONSENT_EXPIRED.  Either string may be NULL (a row without one).
 */
int	 consent_approval_check(const struct consent_approval *ap,
	    const char *key_id, const char *sig, const struct consent_keys *ks,
	    int64_t now, const char **why);

#endif /* BNC_CONSENT_H */
