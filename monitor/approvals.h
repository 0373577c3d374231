/*
 * approvals.h - what a human vouched for in this session (DESIGN 5).
 *
 * One approval is exactly (tool, parameter, normalised value): approving
 * alice under "to" approves her neither under "cc", nor for another tool.
 */
#ifndef BNC_APPROVALS_H
#define BNC_APPROVALS_H

#include <stddef.h>

struct approvals;

struct approvals *approvals_new(void);
void	approvals_free(struct approvals *);
/* 0, or -BNC_ERR_TOO_LARGE when the session's bound is reached. */
int	approvals_add(struct approvals *, const char *tool, const char *param,
	    const char *value, size_t len);
int	approvals_has(const struct approvals *, const char *tool,
	    const char *param, const char *value, size_t len);
size_t	approvals_count(const struct approvals *);

/*
 * The taint index's normalisation (taint_normalise): invisible
 * characters removed, whitespace collapsed and trimmed, case folded.
 * Appends to out (NUL-terminated); returns 0 or a negative code.
 */
struct buf;
int	approvals_normalize(struct buf *out, const char *s, size_t len);

#endif /* BNC_APPROVALS_H */
