/*
 * builtin.h - bouncer's own tools, offered to registered agents (DESIGN
 * 7): create_draft, and the work-system tools of worktools.c.
 *
 * builtin.c owns the table of built-in tools (name, tier, schema) and
 * what each one does once gate.c has decided and recorded the call.
 * Their names are bouncer's when a registry is configured: an upstream
 * tool of such a name is withheld (surface.c).
 */
#ifndef BNC_BUILTIN_H
#define BNC_BUILTIN_H

#include <stdint.h>

#include "msg.h"

struct decision;
struct session;
struct value;

/*
 * A call being carried out: it ends, exactly once, in builtin_finish(),
 * now or when its carrier answers.
 */
struct bjob;
typedef void (*builtin_done_fn)(struct session *, const struct rpc_id *cid,
    const char *tool, struct value *res, const char *why);

struct bjob {
	struct session	*s;
	const char	*tool;		/* the table's */
	struct value	*args;		/* a copy */
	int64_t		 seq;		/* its allow row */
	struct rpc_id	 cid;
	builtin_done_fn	 done;
	/* the tool's own state across carrier calls */
	struct value	*items;		/* what pages gathered */
	size_t		 mem;		/* charged to the session for them */
	int		 pages;
};

/*
 * The end of job: res (taken) for the client, or NULL and why (the call
 * failed after its row).  job is freed.
 */
void	 builtin_finish(struct bjob *job, struct value *res, const char *why);
/* A tool result: text, and the structured fields (taken, may be NULL). */
struct value *builtin_result(const char *text, struct value *sc);

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
 * Carries out an allowed call that row seq recorded; done gets its
 * result, or NULL and why, now or later.
 */
void	 builtin_run(struct session *, const char *name,
	    const struct value *args, int64_t seq, const struct rpc_id *cid,
	    builtin_done_fn done);

#endif /* BNC_BUILTIN_H */
