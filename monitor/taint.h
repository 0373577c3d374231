/*
 * taint.h - the session's record of untrusted output (DESIGN 5, "Taint").
 *
 * Everything upstreams and carriers return goes in; the sink gate asks
 * whether a destination occurs in it.  Both sides are normalised the same
 * way (taint_normalise); a value is tainted when it, or a destination
 * identity inside it (an e-mail address, a URL's host, a mailto:/tel:/
 * slack:-style address), occurs as a substring of one recorded output.
 * Values shorter than TAINT_MIN_LEN bytes after normalisation are never
 * tainted.  A lookup costs time proportional to the value's length, not to
 * how much output was recorded; memory is bounded by the cap (see taint.c
 * for the structure, its memory bound and its eviction rule).
 */
#ifndef BNC_TAINT_H
#define BNC_TAINT_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

#define TAINT_MIN_LEN	BNC_TAINT_MIN_LEN

struct taint;
struct value;

/* What one lookup found. */
enum taint_found {
	TAINT_ABSENT = 0,	/* provably not in retained output */
	TAINT_FOUND = 1,	/* occurs in one retained output */
	TAINT_UNSURE = 2,	/* the lookup's work bound ran out first */
	TAINT_DROPPED = 3	/* not retained, but output was dropped
				 * (taint_lookup_idents only) */
};

/*
 * cap_bytes: most normalised output kept (0: BNC_TAINT_CAP; clamped to
 * [BNC_TAINT_CAP_MIN, BNC_TAINT_CAP_MAX] and rounded down to a power of
 * two).  Memory stays below 5.875
 * times the cap up to a cap of 16 MiB, 6.875 times above (taint.c).
 * Returns a new index the caller owns.
 */
struct taint	*taint_new(size_t cap_bytes);
/*
 * The most memory an index of cap bytes holds, its constant part and
 * the canonical forms of one output included; and the cap (as
 * taint_new rounds it) of the largest index held within memory bytes,
 * or 0 if not even the smallest is.
 */
size_t		 taint_memory_bound(size_t cap_bytes);
size_t		 taint_cap_for(size_t memory);
/* As taint_new with a fixed hash key: reproducible layouts for tests and
 * benchmarks.  The monitor uses taint_new (a random key). */
struct taint	*taint_new_keyed(size_t cap_bytes, uint64_t key);
void		 taint_free(struct taint *);

/*
 * Recording.  Each call records one output (one document): a value must
 * occur inside one output to be tainted, never across two.
 */
/* Records untrusted text; it is normalised inside (any bytes). */
void	taint_add_text(struct taint *, const char *s, size_t len);
/* Records every string of a value tree, recursively: object keys and
 * string values (each its own output, decoded, never as JSON text), and
 * numbers as their decimal text.  A base64 payload (a "blob", or the
 * "data" beside "type": "image" or "audio", at any depth) is recorded
 * as is and, when it is base64 of UTF-8 text, decoded as well: taint.c
 * says what counts as base64.  Accepts NULL. */
void	taint_add_value(struct taint *, const struct value *);
/* Records an MCP result (CallToolResult, ReadResourceResult, ...) or an
 * error's data: the text blocks of "content" joined as one output, and
 * everything else (the blocks' types and keys, structuredContent,
 * payloads) as by taint_add_value.  Accepts NULL. */
void	taint_add_result(struct taint *, const struct value *);

/*
 * Lookups.  taint_check: 1 if the value, or a destination identity inside
 * it, occurs in recorded output (also when the lookup could not rule it
 * out: TAINT_UNSURE fails closed); else 0.  taint_lookup says which.
 */
int	taint_check(const struct taint *, const char *s, size_t len);
enum taint_found taint_lookup(const struct taint *, const char *s,
	    size_t len);
/*
 * The destination identities inside s only (its e-mail addresses, URL
 * hosts, scheme addresses), not s as a whole: for text that is content,
 * whose words may well occur in output, but whose addresses must not
 * come from it.  An identity for which pass(arg, ident, len) returns 1
 * (a trusted one) is passed over.  Each identity spends one unit of
 * *budget, shared by the caller's lookups; when none is left the answer
 * is TAINT_UNSURE.  Once the index is strict (taint_strict), an identity
 * looked up and not found may have been in the output that was dropped:
 * the answer is then TAINT_DROPPED unless another identity is FOUND or
 * UNSURE.  The identity that decided a FOUND, UNSURE or DROPPED answer
 * (normalised; empty if the budget ran out before any identity was
 * found or could not be ruled out) is put in found, whole when foundlen
 * is at least BNC_TAINT_IDENT_LEN + 1.
 */
enum taint_found taint_lookup_idents(const struct taint *, const char *s,
	    size_t len, int (*pass)(void *, const char *, size_t), void *arg,
	    size_t *budget, char *found, size_t foundlen);

/* 1 once the cap was hit and old output dropped: the gate must then ask
 * for values it would have found unmatched (DESIGN 5). */
int	taint_strict(const struct taint *);
/* Bytes of memory the index holds (text, links and table). */
size_t	taint_bytes(const struct taint *);
/* Normalised bytes retained now, and recorded since taint_new. */
size_t	taint_retained(const struct taint *);
uint64_t taint_recorded(const struct taint *);

/*
 * The normalisation both sides go through (also the key of a remembered
 * approval): invisible characters removed, whitespace runs collapsed to
 * one space and trimmed, case folded (taint.c lists what is folded).
 * out must hold len bytes (the result is never longer); returns the
 * normalised length.  The result never contains a NUL.
 */
size_t	taint_normalise(const char *s, size_t len, char *out);

#endif /* BNC_TAINT_H */
