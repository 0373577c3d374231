/*
 * policy.h - policy files, packs and schema heuristics (DESIGN 5,
 * bouncer-policy(5)).
 *
 * Read by the monitor at start-up, before any untrusted input; the files
 * are the administrator's.  Layering, first match wins: the user policy
 * (an entry qualified "upstream:tool" before an unqualified one), then
 * the packs, then heuristics derived from the pinned input schema.  A later
 * file's entry replaces an earlier one of the same name wholesale.  Any
 * malformed file is an error naming file, line and key.
 *
 * Scope (bouncer-policy(5), SCOPE): a pack entry applies to a tool only
 * where it describes that tool (its pack names the server, or the entry
 * fits the tool's schema), and an unqualified user entry's trust-granting
 * keys only where one upstream lists the name.  The monitor tells the
 * policy its upstreams and their tools (policy_scope_*) before it asks.
 */
#ifndef BNC_POLICY_H
#define BNC_POLICY_H

#include <stddef.h>

struct policy;
struct value;

struct arg_pattern {
	char	*param;
	char	*src;		/* the regex as written */
	void	*re;		/* pcre2_code *, anchored at both ends */
};

enum tainted_action {
	TAINTED_DENY = 0,
	TAINTED_ASK = 1
};

/* Who may answer this tool's asks (DESIGN 5, "approval"). */
enum approval_channel {
	APPROVAL_ELICIT = 0,	/* the client, through elicitation */
	APPROVAL_SIGNED = 1	/* only a signed out-of-band approval */
};

/* One entry.  Lists are in file order; the policy owns everything. */
struct tool_policy {
	char		 *name;		/* as written (maybe upstream:tool) */
	const char	 *source;	/* user, pack, heuristics, none */
	char		 *file;		/* NULL: heuristics, none */
	unsigned long	  line;
	int		  exfiltrating;
	char		**sink_params;
	size_t		  nsink;
	char		**trusted;	/* exact values or glob patterns */
	size_t		  ntrusted;
	char		**write_params;
	size_t		  nwrite;
	char		**prefixes;	/* allowed_path_prefixes */
	size_t		  nprefixes;
	struct arg_pattern *patterns;
	size_t		  npatterns;
	struct arg_pattern *idpats;	/* identity_patterns (no param) */
	size_t		  nidpats;
	long long	  max_calls;	/* -1: none */
	enum tainted_action tainted;
	enum approval_channel approval;
	int		  confirm;
	int		  taint_source;	/* default 1 */
	int		  extra_args;	/* arguments the pinned schema does
					 * not declare are allowed */
	int		  forbidden;	/* never listed, always denied */
	int		  read_only;	/* changes nothing (T0 grants) */
	/* consent: {text: PARAM, target: [PARAM, ...]}: every call needs a
	 * signed consent token for that text and target (DESIGN 5, 7) */
	char		 *consent_text;	/* NULL: not consent-gated */
	char		**consent_target;
	size_t		  nconsent_target;
};

/* The argument a consent-gated tool's surface adds, and bouncer strips. */
#define POLICY_CONSENT_PARAM	"consent_token"

/* A new, empty policy; the caller owns it.  policy_free accepts NULL. */
struct policy	*policy_new(void);
void		 policy_free(struct policy *);

/*
 * Load one file into the user layer (is_pack 0) or the pack layer.  All
 * or nothing: on error nothing of the file is kept, and errbuf holds
 * "FILE:LINE: KEY: message".  Returns 0 or -BNC_ERR_CONFIG.
 */
int	policy_load_file(struct policy *, const char *path, int is_pack,
	    char *errbuf, size_t errlen);
/* Every *.yaml file of dir (not dot files), in strcmp order. */
int	policy_load_dir(struct policy *, const char *dir, int is_pack,
	    char *errbuf, size_t errlen);

/*
 * The effective policy for a tool of an upstream (upstream may be NULL
 * for bouncer's own tools): user entry, else pack entry, else heuristics
 * from input_schema (the pinned tool's inputSchema; may be NULL), else an
 * empty policy (source "none").  A pack entry counts only where it
 * applies to the tool (pack_applies in policy.c); an unqualified user
 * entry's trust-granting keys only while fewer than two upstreams list
 * the name.  Never NULL; the pointer stays valid until policy_free.
 * Results are cached per (upstream, tool) until the scope changes: the
 * first schema seen for a tool decides.
 */
const struct tool_policy *policy_for(struct policy *, const char *upstream,
	    const char *tool, const struct value *input_schema);

/*
 * Prompts and resources (bouncer-policy(5), PROMPTS AND RESOURCES):
 * entries named "prompt/NAME" and "resource/GLOB", maybe qualified
 * "upstream:".  policy_for_request gives the entry for a prompt name or
 * a resource URI of upstream (for a completion, maybe the template it
 * names): the user's (for a prompt the qualified one first, for a
 * resource the first in file order whose glob matches), else the first
 * pack entry that applies (its pack names upstream's server), else an
 * empty policy (source "none").  Globs and URIs are compared in a
 * canonical form (scheme and authority in lower case, percent-encoding
 * and dot segments resolved); a '*' matches any run of characters.  An
 * unqualified user resource entry's trust-granting keys apply only
 * while one upstream is configured.  Never NULL; valid until
 * policy_free.
 */
#define POLICY_PROMPT	'p'
#define POLICY_RESOURCE	'r'
const struct tool_policy *policy_for_request(struct policy *,
	    const char *upstream, int kind, const char *name);
/* Does any entry that applies mark it forbidden: true (a forbidden mark
 * cannot be lifted by an earlier or later entry)?  1 for a NULL name. */
int	policy_request_forbidden(struct policy *, const char *upstream,
	    int kind, const char *name);
/*
 * 1 if servers read the resource URI two ways (canon.h: a backslash, an
 * escaped slash) and the two readings would not take the same entry:
 * the caller denies rather than pick one.
 */
int	policy_request_ambiguous(struct policy *, const char *upstream,
	    const char *uri);
/* POLICY_PROMPT or POLICY_RESOURCE for an entry name such as
 * "mail:prompt/greet", else 0 (a tool's). */
int	policy_request_name(const char *name);

/*
 * The session's surface, for the scope rules: an upstream of the
 * configuration and the serverInfo.name its server answered initialize
 * with (NULL: none, or not yet known); a tool an upstream pinned.  -t
 * knows the upstreams only.  Any change forgets what policy_for resolved
 * (its pointers stay valid).  Upstreams past BNC_UPSTREAMS_MAX are
 * ignored.
 */
void	policy_scope_upstream(struct policy *, const char *upstream,
	    const char *server);
void	policy_scope_tool(struct policy *, const char *upstream,
	    const char *tool);

/*
 * Why the policy of upstream's tool is not simply its entry: calls note
 * once for each pack entry of the tool's name that does not apply to it
 * ("pack-not-applied", with the reason), and once per entry for an
 * unqualified user entry whose trust-granting keys are ignored because
 * two or more upstreams list the name ("trust-ignored").  For the
 * monitor's start-up log and audit; msg is valid during the call.
 */
void	policy_explain(struct policy *, const char *upstream,
	    const char *tool, const struct value *input_schema,
	    void (*note)(const char *event, const char *msg, void *arg),
	    void *arg);

/*
 * Full match of an arg_patterns regex against a subject of len bytes
 * (non-strings are matched on their canonical JSON text by the caller).
 * 1 match, 0 no match, < 0 error (bad UTF-8, match limit): deny.
 */
int	policy_pattern_match(const struct arg_pattern *, const char *s,
	    size_t len);

/*
 * The identities the entry's identity_patterns find in s (account
 * numbers and other destinations a pack names): fn(arg, match, len) for
 * each non-empty match, pattern by pattern, left to right.  Stops at
 * the first non-zero fn result and returns it; -BNC_ERR_TOO_LARGE past
 * BNC_POLICY_IDENTS_MAX matches, -BNC_ERR_INTERNAL when a match fails
 * (bad UTF-8, match limit): callers fail closed.  0 otherwise.
 */
int	policy_identities(const struct tool_policy *, const char *s,
	    size_t len, int (*fn)(void *, const char *, size_t), void *arg);

/*
 * Does a destination match one of the entry's trusted_destinations?
 * Both sides are compared in their canonical forms (canon.h): a value
 * that is one identity (a mailbox in any RFC 5322 spelling, a URL, a
 * host, a phone, an IBAN, a scheme address) by its form, and both of its
 * readings must match when servers read it two ways; a value that names
 * no identity (a channel name) as written; a value that is malformed
 * never.  Entries are canonicalised keeping their '*' (pattern_canon in
 * policy.c).  Then both sides are trimmed, runs of ASCII white space
 * become one space and ASCII letters are compared case-insensitively.  An
 * entry without '*' must then be equal.  In an entry, a '*' that ends it
 * right after a '/' matches any run of characters but white space and
 * controls; any other '*' matches a run of ASCII letters, digits, '.',
 * '_', '+' and '-' only, so it never crosses '@', '/', ':', ',' or a
 * space.  So a trusted "https://host/base/" + "*" does not admit a URL whose
 * path resolves outside base, nor one whose host differs after IDNA.
 * 1 or 0.
 */
int	policy_trusted_value(const struct tool_policy *, const char *value,
	    size_t len);
/* The same for an identity already canonical: form, and alt or NULL. */
int	policy_trusted_id(const struct tool_policy *, const char *form,
	    const char *alt);
/* One entry against one value (tests). */
int	policy_trusted_match(const char *pattern, const char *value,
	    size_t len);

/*
 * bouncer-monitor -t: one call of warn per problem that is legal but
 * probably a mistake (a user entry that drops a pack's exfiltrating or
 * sink parameters, keys without effect, over-broad patterns, with two or
 * more upstreams in scope an unqualified entry that grants trust).
 * Returns the number of warnings.
 */
int	policy_lint(struct policy *, void (*warn)(const char *msg, void *),
	    void *arg);

/*
 * Is this tool in the forbidden write set: DESIGN 6's built-in names,
 * names added with policy_add_forbidden (the config's forbidden_tools)
 * and every entry of any layer marked forbidden: true?  Names compare
 * case-insensitively and ignoring '-', '_', '.' and spaces, so that
 * SetOwner and set-owner are set_owner.  A forbidden mark cannot be
 * lifted by a later entry.
 */
int	policy_forbidden(const struct policy *, const char *upstream,
	    const char *tool);
/* Adds a name (maybe "upstream:tool") to the forbidden set. */
void	policy_add_forbidden(struct policy *, const char *name);

/*
 * For the agent registry (registry.c): does the policy mark the tool a
 * client sees as name read_only: true, judged by name alone?  name is
 * read as an unqualified tool, and at each "__" whose left side is an
 * upstream name as that upstream's tool (the namespaced form
 * "upstream__tool").  For each reading, the entry that would decide by
 * name is the user's ("upstream:tool" before "tool"), else the latest
 * pack file's (the same order); 1 if one such entry says read_only:
 * true and is not forbidden.  What only a session knows (whether a pack
 * names the server, the schema, two upstreams listing the name) is not
 * judged: policy_for may still withhold the mark.  0 for a NULL policy.
 */
int	policy_marks_read_only(const struct policy *, const char *name);

/* Entries loaded from files, in load order (for -t and tests). */
size_t	policy_nentries(const struct policy *);
const struct tool_policy *policy_entry(const struct policy *, size_t);

/*
 * heuristics.c.  Is a parameter name destination-shaped (to, cc, bcc,
 * recipient(s), url, email, address, channel, share_with, destination,
 * target, link, ...: see bouncer-policy(5))?  Words are split on
 * non-alphanumerics and camel case, and compared case-insensitively.
 * These names make a tool without an entry exfiltrating.
 */
int	heuristics_dest_name(const char *param);
/*
 * What a name is to the sink gate, at any depth of an exfiltrating
 * tool's arguments: NAME_DEST, one of the names above; NAME_SINK, its
 * value is a destination (the names above, and the sender, reply and
 * callback fields and raw headers: from, sender, reply_to, headers,
 * webhook, callback, redirect, ...); NAME_HEADER, header-like (headers,
 * subject): a CR or LF inside its value makes each line a destination;
 * NAME_HEADERS, raw headers (headers, header, extra_headers): every
 * address in its value, whatever the header's name, is a destination.
 */
#define NAME_DEST	0x01
#define NAME_SINK	0x02
#define NAME_HEADER	0x04
#define NAME_HEADERS	0x08	/* raw headers: every address a destination */
int	heuristics_name_class(const char *param);
/*
 * Fills tp (zeroed by the caller, max_calls -1, taint_source 1) from the
 * tool name and its input schema.  Returns 1 if anything was derived,
 * else 0.  The lists it sets are the caller's to free.
 */
int	heuristics_derive(struct tool_policy *tp, const char *tool,
	    const struct value *input_schema);

#endif /* BNC_POLICY_H */
