/*
 * decide.h - the contract engine's entry points (DESIGN 5).
 *
 * Every tools/call runs decide_call() in the monitor, and nothing is
 * forwarded unless it says allow.  This release implements the pinning
 * contract; budgets, constraints and the sink gate plug in here, in the
 * order of DESIGN 5, and the audit row is written here before a call is
 * forwarded.  decide_result() sees everything an upstream returns: the
 * taint recorder hooks in there.
 */
#ifndef BNC_DECIDE_H
#define BNC_DECIDE_H

#include "limits.h"

struct session;
struct tool_entry;
struct value;

enum verdict {
	VERDICT_ALLOW = 1,
	VERDICT_DENY,
	VERDICT_ASK
};

struct decision {
	enum verdict	 verdict;
	const char	*contract;	/* identity, grant, pinning, ... */
	char		 reason[BNC_REASON_MAX];
};

/*
 * entry is NULL when the name is not on the surface.  name is the name
 * the client asked for; args the call's arguments (NULL: none).
 */
void	decide_call(struct session *, const char *name,
	    const struct tool_entry *entry, const struct value *args,
	    struct decision *);
/* Everything a forwarded request returned, before the client sees it. */
void	decide_result(struct session *, const struct tool_entry *,
	    const struct value *result);
const char *verdict_name(enum verdict);

#endif /* BNC_DECIDE_H */
