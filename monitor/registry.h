/*
 * registry.h - the agent registry, agents.yaml (DESIGN 6,
 * bouncer-agents(5)).
 *
 * registry.c owns the loaded registry: who each agent is (id, owner,
 * tier), what it may call (its grant, its budgets) and how it proves
 * itself (the SHA-256 of its bearer token).  It loads and validates the
 * file and answers lookups; it never decides a call, and it never holds
 * a token, only hashes.
 */
#ifndef BNC_REGISTRY_H
#define BNC_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

struct policy;
struct registry;

/* The tiers of DESIGN 6: each grants what the one below it does, and more. */
#define REGISTRY_T0	0	/* read-only internal */
#define REGISTRY_T1	1	/* draft producer */
#define REGISTRY_T2	2	/* carries a human update */
#define REGISTRY_T3	3	/* external output */

struct registry_budget {
	const char	*tool;		/* one of the agent's tools */
	long long	 max;		/* calls per session, >= 1 */
};

/* One agent.  Everything it points to belongs to its registry. */
struct registry_agent {
	const char		 *id;
	const char		 *owner;
	int			  tier;		/* REGISTRY_T0..REGISTRY_T3 */
	const char *const	 *tools;	/* the grant, in file order */
	size_t			  ntools;
	const struct registry_budget *budgets;	/* in file order */
	size_t			  nbudgets;
	const char		 *eval_suite;	/* made relative to the
						 * registry's directory, or
						 * NULL (none, tier T0) */
	uint8_t			  token_sha256[32];
	unsigned long		  line;		/* of the agent's entry */
};

/*
 * Loads and validates the registry at path, and calls report once for
 * every problem, not only the first: msg is one line, "KEY: what is
 * wrong", valid during the call only; line is 0 when the problem is the
 * whole file's (it cannot be read); agent is the id of the agent the
 * problem is in when that id is valid, else NULL.  pol (may be NULL)
 * says which upstream tools are read-only (policy_marks_read_only) and
 * which are forbidden (policy_forbidden); forbidden_extra (nforbidden
 * names, maybe "upstream:tool": the config's forbidden_tools) adds to
 * the forbidden write set.  Returns 0 and sets *out (the caller's; free
 * with registry_free) if the file is clean; else *out is NULL and it
 * returns the number of problems (> 0), or a negative -BNC_ERR_* when the
 * file cannot be read, which is reported too: -BNC_ERR_SYS (errno set),
 * -BNC_ERR_BAD_FORMAT (not a regular file), -BNC_ERR_TOO_LARGE (past
 * BNC_REGISTRY_MAX bytes); or -BNC_ERR_INTERNAL, unreported, when
 * libsodium cannot start.
 */
int	registry_load(const char *path, struct policy *pol,
	    char *const *forbidden_extra, size_t nforbidden,
	    void (*report)(void *arg, const char *file, unsigned long line,
	    const char *agent, const char *msg),
	    void *arg, struct registry **out);
void	registry_free(struct registry *);

/*
 * The agent whose token_sha256 is the SHA-256 of token[0..len): the hash
 * is computed once and compared with every agent's in constant time, all
 * of them whatever matched, so the time depends only on the number of
 * agents.  NULL for none, and for an empty token.  The pointer is valid
 * until registry_free.
 */
const struct registry_agent *registry_find_token(const struct registry *,
	    const char *token, size_t len);
/* The agent of that id, or NULL. */
const struct registry_agent *registry_find_id(const struct registry *,
	    const char *id);
size_t	registry_nagents(const struct registry *);
/* The i-th agent in file order, or NULL past the last. */
const struct registry_agent *registry_agent(const struct registry *,
	    size_t i);

/* 1 if tool (the name the client sees) is in the agent's grant, else 0. */
int	registry_grants(const struct registry_agent *, const char *tool);
/* The agent's budget for tool, in calls per session; -1 for none. */
long long registry_budget(const struct registry_agent *, const char *tool);
/*
 * The lowest tier that may call bouncer's own tool of that name (DESIGN
 * 7: read_tasks ... send_external_message), or -1: not one of them.
 * This table is the one list of the built-in names.
 */
int	registry_builtin_tier(const char *tool);
/* "T0".."T3"; NULL for any other number. */
const char *registry_tier_name(int tier);

#endif /* BNC_REGISTRY_H */
