/*
 * approvals.h - what a human vouched for in this session (DESIGN 5).
 *
 * One approval is exactly (tool, parameter, canonical value): approving
 * alice under "to" approves her neither under "cc", nor for another tool.
 */
#ifndef BNC_APPROVALS_H
#define BNC_APPROVALS_H

#include <stddef.h>

struct approvals;

struct approvals *approvals_new(void);
void	approvals_free(struct approvals *);
/* 0, or -BNC_ERR_TOO_LARGE when the session's bound is reached, or
 * -BNC_ERR_BAD_FORMAT for a value that has no key (approvals_key). */
int	approvals_add(struct approvals *, const char *tool, const char *param,
	    const char *value, size_t len);
int	approvals_has(const struct approvals *, const char *tool,
	    const char *param, const char *value, size_t len);
/* The same for an identity already canonical (canon.h): form, and the
 * other reading or NULL. */
int	approvals_has_id(const struct approvals *, const char *tool,
	    const char *param, const char *form, const char *alt);
size_t	approvals_count(const struct approvals *);

/*
 * The key a value is remembered under (approvals.c): the canonical form
 * of the one destination it names (both readings if servers read it two
 * ways), else its exact bytes.  Appends to out (NUL-terminated); returns
 * 0 or a negative code (a value that cannot be canonicalised, a NUL):
 * such a value is never approved.
 */
struct buf;
int	approvals_key(struct buf *out, const char *s, size_t len);

#endif /* BNC_APPROVALS_H */
