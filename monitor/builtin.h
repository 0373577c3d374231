/*
 * builtin.h - bouncer's own tools, offered to registered agents (DESIGN
 * 7): today create_draft; the work-system tools come with the carriers.
 *
 * builtin.c owns the table of built-in tools (name, tier, schema) and
 * what each one does once gate.c has decided and recorded the call.
 * Their names are bouncer's when a registry is configured: an upstream
 * tool of such a name is withheld (surface.c).
 */
#ifndef BNC_BUILTIN_H
#define BNC_BUILTIN_H

#include <stdint.h>

struct decision;
struct session;
struct value;

/* 1 if the session offers built-in tool name: a registry, and it is
 * implemented in this release. */
int	 builtin_offered(const struct session *, const char *name);
/* Appends the definitions of the built-in tools the agent is granted. */
void	 builtin_list(const struct session *, struct value *tools);
/*
 * Decides a call of built-in name (DESIGN 5's order: grant, budget is
 * the registry's, constraints on its arguments): the decision, for
 * gate.c to record.  args may be NULL.
 */
void	 builtin_decide(struct session *, const char *name,
	    const struct value *args, int flags, struct decision *);
/*
 * Carries out an allowed call that row seq recorded: a new result for
 * the client, or NULL with why set (the call failed after its row).
 */
struct value *builtin_run(struct session *, const char *name,
	    const struct value *args, int64_t seq, char *why, size_t whylen);

#endif /* BNC_BUILTIN_H */
