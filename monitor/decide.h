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
#include "consent.h"

struct approvals;
struct budget;
struct policy;
struct taint;
struct consent_keys;
struct registry_agent;
struct tool_entry;
struct upstream;
struct value;

enum verdict {
	VERDICT_ALLOW = 1,
	VERDICT_DENY,
	VERDICT_ASK
};

/*
 * The calls counted against each max_calls, by tool name (a prompt's
 * key, a resource entry's name).  Its owner keeps it for as long as
 * the counts must last (a session) and frees it with budgets_clear;
 * decide.c alone reads and grows it.  Starts zeroed.
 */
struct budgets {
	struct budget	*v;
	size_t		 n;
};
void	budgets_clear(struct budgets *);

/*
 * What a decision reads and the state it keeps: all the engine knows of
 * a session.  Every pointer is borrowed: the session owns the policy,
 * the taint index, the approvals, the budgets and both strings, and
 * they must outlive the context.  taint_dropped is the context's own.
 */
struct decide_ctx {
	struct policy		*policy;	/* the contracts */
	struct taint		*taint;		/* untrusted output recorded */
	const struct approvals	*approvals;	/* what humans approved */
	struct budgets		*budgets;	/* calls counted, per name */
	const char		*cwd;		/* base of relative paths */
	const struct registry_agent *agent;	/* the caller's grant and
						 * budgets; NULL: no registry,
						 * the implicit agent */
	const char		*agent_id;	/* what a consent token must
						 * name: agent's id, or "-" */
	const struct consent_keys *consent_keys; /* trusted to sign */
	int64_t			 consent_skew;	/* seconds */
	int64_t			 consent_max_ttl; /* seconds */
	const char		*sid;		/* session id, for log lines */
	int			 taint_dropped;	/* logged once: the index
						 * dropped output */
};

#define DECIDE_COUNT_BUDGET	0x01	/* a new call, not a re-evaluation */
#define DECIDE_CONFIRMED	0x02	/* a human confirmed this very call */
#define DECIDE_SIGNED_CALL	0x04	/* the admin signed an approval of this
					 * exact call (out of band): what would
					 * ask is allowed; a deny stays one */

struct decision {
	enum verdict	 verdict;
	const char	*contract;	/* pinning, grant, budget, ... */
	char		 reason[BNC_REASON_MAX];
	/* ASK: what a human is asked to vouch for */
	int		 ask_once;	/* confirm this call; nothing to remember */
	int		 ask_signed;	/* approval: signed: only a signed
					 * out-of-band approval answers it */
	char		*ask_param;	/* owned */
	char		*ask_value;	/* owned, NUL-terminated */
	size_t		 ask_len;
	size_t		 dests;		/* destinations judged (bounds asks) */
	char		**sinks;	/* owned: the arguments judged as
					 * destinations, declared or swept
					 * (the audit row has them in clear) */
	size_t		 nsinks;
	/* a consent-gated call with a good token: its nonce (hex), which
	 * the allow row consumes, and its token to strip before sending */
	char		 nonce[2 * CONSENT_NONCE_LEN + 1];
	int		 strip_consent;
};

/*
 * entry is NULL when the name is not on the surface; args may be NULL.
 */
void	decide_call(struct decide_ctx *, const char *name,
	    const struct tool_entry *entry, const struct value *args,
	    int flags, struct decision *);
void	decision_clear(struct decision *);
/*
 * Spends one of name's max calls this session (-1: no bound) if flags
 * say it is a new call: 0, or 1 with d a budget deny.  (decide_call's
 * step 3, for the calls of bouncer's own tools too.)
 */
int	decide_budget(struct decide_ctx *, const char *name, long long max,
	    int flags, struct decision *);
/*
 * The consent check of DESIGN 7 for a call of tool whose text (a string
 * value) and target (canonical form) a token must bind: 0 with
 * d->nonce set for the allow row to consume, or 1 with d a consent deny
 * whose reason is the check that failed.
 */
int	decide_consent(struct decide_ctx *, const char *tool,
	    const char *target, const struct value *text, const char *token,
	    size_t toklen, struct decision *);
/* Records what a forwarded request returned as untrusted (taint). */
void	decide_result(struct decide_ctx *, const struct tool_entry *,
	    const struct value *result);
/* Records the text of an upstream's error answer as untrusted. */
void	decide_error_text(struct decide_ctx *, const char *text);
/* Record other upstream output the client sees (notifications, ...). */
void	decide_record_output(struct decide_ctx *, const struct value *);
const char *verdict_name(enum verdict);
/*
 * Why up cannot take a request now (not running, its input closed,
 * BNC_PENDING_MAX in flight), or NULL if it can.  Asked before a
 * decision is recorded, so that an allowed request is one that is sent.
 */
const char *decide_unreachable(const struct upstream *);

/*
 * Requests that name a prompt or a resource rather than a tool (DESIGN 5,
 * "Not only tools/call").  route.c says what a request names and who
 * listed it (route_resolve); decide_request judges it with the same
 * gauntlet as a tool call, for the entries bouncer-policy(5) describes
 * in PROMPTS AND RESOURCES.
 */
enum request_kind {
	REQ_RESOURCE = 1,	/* resources/read, subscribe, unsubscribe */
	REQ_PROMPT,		/* prompts/get */
	REQ_COMPLETE_PROMPT,	/* completion/complete of a ref/prompt */
	REQ_COMPLETE_RESOURCE	/* completion/complete of a ref/resource */
};

/* How the name came to be known, if it did. */
enum request_listed {
	LISTED_NONE = 0,	/* no upstream listed it */
	LISTED_EXACT,		/* a list, or a link in a result, named it */
	LISTED_TEMPLATE,	/* its owner's resource templates produce it */
	LISTED_CONTESTED,	/* two upstreams claim it: up and other */
	LISTED_UNSURE		/* the templates could not be matched in time */
};

struct request {
	const char	*method;
	enum request_kind kind;
	const char	*name;		/* prompt name, URI, or a completion's
					 * ref (a URI or a template) */
	enum request_listed listed;
	struct upstream	*up;		/* the owner; NULL if none */
	struct upstream	*other;		/* LISTED_CONTESTED: the other one */
	const char	**templates;	/* LISTED_TEMPLATE: the owner's
					 * templates that produce the URI */
	size_t		 ntemplates;
	char *const	*declared;	/* prompts: the arguments prompts/list
					 * declared (borrowed) */
	size_t		 ndeclared;
	struct value	*args;		/* owned: what is judged: a prompt's
					 * arguments, {"uri": URI}, or a
					 * completion's argument values */
	char		*key;		/* owned: what approvals and the
					 * sink gate call it: "prompt/NAME" or
					 * "resource/" */
};

/*
 * Judges a request route_resolve described, first hit wins: listed at
 * all and by one upstream (pinning, grant), forbidden (grant), budget,
 * constraints (declared prompt arguments, arg_patterns), the sink gate
 * (the full gate with exfiltrating: true, else its scanning mode; a URI
 * an upstream listed exactly is not judged for taint), confirmation.
 * flags as for decide_call.  A completion spends no budget and is never
 * asked about: what would ask is denied.
 */
void	decide_request(struct decide_ctx *, const struct request *, int flags,
	    struct decision *);
/* Frees what a request owns; accepts one that route_resolve left empty. */
void	request_clear(struct request *);
/*
 * Records what a forwarded read or get (kind POLICY_RESOURCE with its
 * URI, or POLICY_PROMPT with its name) returned as untrusted, unless its
 * entry says taint_source: false.
 */
void	decide_request_result(struct decide_ctx *, const struct upstream *,
	    int kind, const char *name, const struct value *result);

#endif /* BNC_DECIDE_H */
