/*
 * decide.h - the contract engine (DESIGN 5).
 *
 * Every tools/call runs decide_call() in the monitor, first hit wins:
 * pinning and the forbidden set, budget, constraints (paths, then
 * patterns), the sink gate, confirmation; otherwise allow.  It decides
 * only: recording (audit), asking and forwarding are the caller's
 * (gate.c), so every path enforces the same verdict.
 */
#ifndef BNC_DECIDE_H
#define BNC_DECIDE_H

#include <stddef.h>

#include "bounds.h"

struct session;
struct tool_entry;
struct value;

enum verdict {
	VERDICT_ALLOW = 1,
	VERDICT_DENY,
	VERDICT_ASK
};

#define DECIDE_COUNT_BUDGET	0x01	/* a new call, not a re-evaluation */
#define DECIDE_CONFIRMED	0x02	/* a human confirmed this very call */

struct decision {
	enum verdict	 verdict;
	const char	*contract;	/* pinning, grant, budget, ... */
	char		 reason[BNC_REASON_MAX];
	/* ASK: what a human is asked to vouch for */
	int		 ask_once;	/* confirm this call; nothing to remember */
	char		*ask_param;	/* owned */
	char		*ask_value;	/* owned, NUL-terminated */
	size_t		 ask_len;
	size_t		 dests;		/* destinations judged (bounds asks) */
	char		**sinks;	/* owned: the arguments judged as
					 * destinations, declared or swept
					 * (the audit row has them in clear) */
	size_t		 nsinks;
};

/*
 * entry is NULL when the name is not on the surface; args may be NULL.
 */
void	decide_call(struct session *, const char *name,
	    const struct tool_entry *entry, const struct value *args, int flags,
	    struct decision *);
void	decision_clear(struct decision *);
/* Records what a forwarded request returned as untrusted (taint). */
void	decide_result(struct session *, const struct tool_entry *,
	    const struct value *result);
/* Records the text of an upstream's error answer as untrusted. */
void	decide_error_text(struct session *, const char *text);
/* Record other upstream output the client sees (notifications, ...). */
void	decide_record_output(struct session *, const struct value *);
const char *verdict_name(enum verdict);

#endif /* BNC_DECIDE_H */
