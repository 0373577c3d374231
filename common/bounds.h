/*
 * bounds.h - every bound bouncer enforces, in one place.
 *
 * A length, depth, count or time that is checked anywhere is named here,
 * so an auditor can read the whole envelope at a glance and every bound
 * has a test at the limit and one past it.  (It is not called limits.h:
 * GCC's own <limits.h> reaches the next limits.h on the include path
 * with #include_next, and would find this one.)
 */
#ifndef BNC_BOUNDS_H
#define BNC_BOUNDS_H

/* IPC frames (DESIGN 3) */
#define BNC_FRAME_HDR		12		/* u32 len, u8 ver, u8 flags, u16 type, u32 id */
#define BNC_FRAME_MAX		65536		/* one SEQPACKET record, header included */
#define BNC_FRAME_PAYLOAD	(BNC_FRAME_MAX - BNC_FRAME_HDR)
#define BNC_FRAME_VERSION	1

/* JSON-RPC messages, each direction */
#define BNC_MSG_MAX_DEFAULT	(16 * 1024 * 1024)	/* max_message default */
#define BNC_MSG_MAX_LOWEST	4096			/* smallest max_message accepted */
#define BNC_MSG_MAX_HIGHEST	(256 * 1024 * 1024)	/* largest max_message accepted */
/* growth cap of a struct buf with no max set: a tree of the largest
 * message, whose nodes cost up to 16 bytes each beyond its text */
#define BNC_BUF_MAX		(2 * BNC_MSG_MAX_HIGHEST)
#define BNC_READ_CHUNK		65536		/* bytes read from a pipe at once */
#define BNC_RENDER_FACTOR	2		/* JSON the monitor writes to an upstream:
						 * at most this many times max_message */

/* value trees (DESIGN 3) */
#define BNC_VALUE_DEPTH_MAX	64		/* nesting of arrays and objects */
#define BNC_VALUE_NODES_MAX	(1024 * 1024)	/* nodes in one tree */

/* JSON-RPC envelope fields */
#define BNC_METHOD_MAX		256		/* bytes of a method name */
#define BNC_ID_STR_MAX		256		/* bytes of a string request id */
#define BNC_ERRMSG_MAX		65536		/* bytes of an error message */

/* small control messages */
#define BNC_CTRL_MSG_MAX	(64 * 1024)	/* total of a hello, log, bad-line */
#define BNC_LOG_LINE_MAX	2048		/* bytes of one log line */
#define BNC_REASON_MAX		1024		/* bytes of a decision reason */

/* configuration */
#define BNC_CONFIG_MAX		(1024 * 1024)	/* bytes of bouncer.yaml */
#define BNC_UPSTREAMS_MAX	32		/* upstream servers per session */
#define BNC_CHILDREN_MAX	(2 * BNC_UPSTREAMS_MAX + 16)	/* processes of one
						 * monitor: the client worker, each
						 * upstream and its worker, carriers */
#define BNC_UPSTREAM_NAME_MAX	64		/* bytes of an upstream name */
#define BNC_ARGV_MAX		256		/* arguments of an upstream command */
#define BNC_ENV_MAX		256		/* env entries of an upstream */
#define BNC_ARG_LEN_MAX		4096		/* bytes of one argument or env value */
#define BNC_PATH_MAX		4096		/* bytes of a configured path */

/* consent tokens and their keys (DESIGN 7; monitor/consent.c) */
#define BNC_CONSENT_AGENT_MAX	64		/* bytes of an agent id in a token */
#define BNC_CONSENT_TARGET_MAX	1024		/* bytes of a target (canonical JSON
						 * of an upstream tool's target
						 * parameters, or notion:/github:) */
#define BNC_CONSENT_TOKEN_MAX	4096		/* bytes of a token as pasted */
#define BNC_CONSENT_TEXT_MAX	65536		/* bytes of a consented text (GitHub's
						 * comment limit) */
#define BNC_CONSENT_TTL_MAX	(24 * 3600)	/* longest lifetime, whatever the
						 * configuration says */
#define BNC_CONSENT_TTL_DEFAULT	3600		/* consent.max_ttl default */
#define BNC_CONSENT_TTL_ISSUE	600		/* bouncer-issue-consent -e default */
#define BNC_CONSENT_SKEW_MAX	300		/* consent.skew, seconds */
#define BNC_CONSENT_SKEW_DEFAULT 30
#define BNC_CONSENT_KEYS_MAX	64		/* public keys in consent.keys */
#define BNC_CONSENT_KEYFILE_MAX	1024		/* bytes of one key file */

/* MCP */
#define BNC_TOOLS_MAX		4096		/* tools of one upstream */
#define BNC_TOOL_NAME_MAX	128		/* bytes of a tool name (spec: 1..128) */
#define BNC_LIST_PAGES_MAX	64		/* tools/list pages read from an upstream */
#define BNC_TOOLS_PAGE		128		/* tools per tools/list page to the client */
#define BNC_CURSOR_MAX		64		/* bytes of a cursor we issue */
#define BNC_PENDING_MAX		1024		/* requests in flight per direction */
#define BNC_VERSION_MAX		32		/* bytes of a protocol version string */

/* processes and time */
#define BNC_START_TIMEOUT_S	30		/* upstream handshake and pinning */
#define BNC_KILL_GRACE_MS	2000		/* EOF/SIGTERM grace before SIGKILL */
#define BNC_HELLO_TIMEOUT_S	10		/* a child must report "sandboxed" */
#define BNC_CHILD_FD		3		/* the monitor socket in every child */
#define BNC_CHILD_FD_EXTRA	4		/* a carrier's credential */
#define BNC_CHILD_FD_FIRST_FREE	5		/* closefrom() starts here */

/* the client's stdout, which the monitor writes itself (monitor/client.c) */
#define BNC_CLIENT_OUT_HIGH	2		/* answers waiting for the client, in
						 * max_message: past this mark the monitor
						 * reads no frame of the client worker,
						 * until the queue is under half of it */
#define BNC_CLIENT_OUT_MEM_PCT	25		/* the mark is never above this share of
						 * the session's memory account, so the
						 * flow stops before answers are refused */
#define BNC_CLIENT_FLUSH_MS	2000		/* at exit, answers still queued wait this
						 * long for the client to read them */

/* a worker's stderr, a pipe the monitor reads (monitor/errpipe.c); a line
 * is cut to what fits in one BNC_LOG_LINE_MAX log line */
#define BNC_CHILD_STDERR_LINES	20		/* lines logged per worker and window */
#define BNC_CHILD_STDERR_PERIOD_S 1		/* seconds of a window; lines past
						 * the bound are counted, and the
						 * count logged once per window */
#define BNC_CHILD_LOG_LINES	100		/* log frames of a worker logged per
						 * window of BNC_CHILD_STDERR_PERIOD_S;
						 * past it, counted as on stderr */
#define BNC_CHILD_FRAMES_PER_READ 32		/* frames taken from one child before
						 * the event loop turns: a child that
						 * sends without pause cannot keep the
						 * monitor from the others (an
						 * upstream's answers, the client's
						 * stdout and its flow control) */
#define BNC_CHILD_STDERR_DRAIN	(1024 * 1024)	/* bytes read at once from a dead
						 * worker's pipe (Linux's largest
						 * pipe by default) */

/* carriers (DESIGN 8; carrier/, monitor/carrier.c) */
#define BNC_CARRIER_ARGS_MAX	8		/* arguments of one endpoint call */
#define BNC_CARRIER_ARG_NAME_MAX 32		/* bytes of an argument's name */
#define BNC_CARRIER_ARG_MAX	1024		/* bytes of an argument but the text */
#define BNC_CARRIER_CALL_MAX	(BNC_CONSENT_TEXT_MAX * 4 + 16384)	/* a call
						 * frame: the text may be 4 bytes a
						 * character, plus the other arguments */
#define BNC_CARRIER_RESULT_MAX	(4 * 1024 * 1024)	/* typed fields of one answer */
#define BNC_CARRIER_RESPONSE_MAX (8 * 1024 * 1024)	/* bytes of a vendor's body a
						 * carrier reads; a row may say less */
#define BNC_CARRIER_METHOD_MAX	16		/* bytes of an HTTP method in a probe */
#define BNC_CARRIER_PATH_MAX	2048		/* bytes of a request path and query */
#define BNC_CARRIER_CODE_MAX	64		/* bytes of an error code */
#define BNC_CARRIER_STATUS_MAX	5		/* highest enum carrier_status */
#define BNC_CARRIER_RETRY_AFTER_MAX 60		/* seconds of Retry-After reported */
#define BNC_CARRIER_WAIT_MAX_S	10		/* longest Retry-After the monitor waits
						 * before trying a call again */
#define BNC_CARRIER_RETRIES_MAX	2		/* tries again after a 429, per call */
#define BNC_CARRIER_HTTP_TIMEOUT_S 20		/* one HTTP exchange, in the carrier */
#define BNC_CARRIER_CALL_TIMEOUT_S 30		/* one call, in the monitor: then the
						 * carrier is killed and the call fails */
#define BNC_CARRIER_RESTARTS_MAX 3		/* restarts of one carrier per session */
#define BNC_CARRIER_QUEUE_MAX	64		/* calls waiting for one carrier */
#define BNC_CARRIER_CREDENTIAL_MAX 8192		/* bytes of a credential on fd 4 */
#define BNC_CARRIER_CA_MAX	(4 * 1024 * 1024)	/* bytes of the CA bundle */
#define BNC_CARRIER_BASE_MAX	64		/* bytes of a -b loopback base */
#define BNC_CARRIER_HEADERS_MAX	8		/* header lines of a service's table */
#define BNC_CARRIER_POLL_MS	1000		/* longest wait in libcurl's loop before
						 * it looks at its timers again */
#define BNC_CARRIER_PATH_GROUPS_MAX 4		/* optional [...] parts of a path
						 * template (carrier/path.c) */
#define BNC_CARRIER_RESPONSE_ONE (1024 * 1024)	/* a vendor's body holding one
						 * object (a page, a comment) */
#define BNC_CARRIER_RESPONSE_TEXT 65536		/* a plain-text body (Slack's) */
/* typed fields of an answer: a long list of long fields still fits
 * BNC_CARRIER_RESULT_MAX (100 comments of 32 KiB, 100 tasks of 14 KiB) */
#define BNC_CARRIER_LIST_MAX	100		/* items of a list in an answer */
#define BNC_CARRIER_OWNERS_MAX	25		/* people of one task (Notion's
						 * own response cap) */
#define BNC_CARRIER_ID_MAX	128		/* bytes of an id, a time or a date */
#define BNC_CARRIER_NAME_MAX	256		/* bytes of a status, data source or
						 * property name */
#define BNC_CARRIER_URL_MAX	2048		/* bytes of a URL (Notion's limit: 2000
						 * characters) */
#define BNC_CARRIER_TITLE_MAX	8192		/* bytes of a task's title */
#define BNC_CARRIER_TEXT_OUT_MAX 32768		/* bytes of a comment's text read */
#define BNC_CARRIER_MESSAGE_MAX	256		/* bytes of a vendor's error message
						 * passed on (<= BNC_REASON_MAX) */
#define BNC_NOTION_CHUNK_UNITS	2000		/* UTF-16 units of one rich-text item */
#define BNC_NOTION_CHUNKS_MAX	100		/* rich-text items of one comment */
#define BNC_GITHUB_TEXT_MAX	65536		/* characters of an issue comment */
#define BNC_SLACK_TEXT_MAX	4000		/* characters of a Slack message: well
						 * below where Slack truncates */
#define BNC_WORK_PAGES_MAX	10		/* pages of a Notion list read for one call */
#define BNC_WORK_CHANNELS_MAX	32		/* Slack channels configured */
#define BNC_WORK_REPOS_MAX	256		/* GitHub repos in work.github.repos */
#define BNC_SLACK_MESSAGES_DEFAULT 20		/* send_external_message calls per session
						 * when the registry names no budget */

/* a carrier's arguments, as each vendor spells them (DESIGN 8;
 * carrier/validate.c): longer input is refused before it is read */
#define BNC_GITHUB_OWNER_MAX	39		/* bytes of a user or organisation login */
#define BNC_GITHUB_REPO_MAX	100		/* bytes of a repository name */
#define BNC_ISSUE_NUMBER_MAX	2147483647	/* 2^31-1: GitHub's integer path
						 * parameter */
#define BNC_ISSUE_DIGITS_MAX	10		/* digits of BNC_ISSUE_NUMBER_MAX; more
						 * are refused before conversion */
#define BNC_SLACK_WEBHOOK_PATH_MAX 256		/* bytes of /services/T../B../secret */
#define BNC_SLACK_CHANNEL_MAX	80		/* bytes of a Slack channel name */
#define BNC_NOTION_CURSOR_MAX	128		/* bytes of a start_cursor handed back */
#define BNC_NOTION_STATUS_MAX	100		/* bytes of a status name filtered on */

/* the request-line check (DESIGN 8; carrier/reqline.c): its patterns
 * are anchored and linear, so a few times the line's length in steps
 * is plenty; a match that needs more is a refusal */
#define BNC_REQLINE_MATCH_LIMIT	100000		/* PCRE2 match limit (steps) */
#define BNC_REQLINE_DEPTH_LIMIT	1000		/* PCRE2 backtracking depth */
#define BNC_REQLINE_HEAP_LIMIT	256		/* KiB of PCRE2 heap for one match */
#define BNC_REQLINE_PATTERNS_MAX 8		/* patterns of one set */

/* sandbox rules (DESIGN 2; common/sandbox-seccomp.c) */
#define BNC_SB_ARGS_MAX		2		/* conditions on one seccomp rule */

/* a session's memory (max_session_memory; monitor/memory.c) */
#define BNC_SESSION_MEMORY_DEFAULT (64 * 1024 * 1024)	/* bytes held for one session */
#define BNC_SESSION_MEMORY_MIN	(4 * 1024 * 1024)
#define BNC_SESSION_MEMORY_MAX	(64LL * 1024 * 1024 * 1024)
#define BNC_TAINT_SHARE_PCT	60		/* of it the taint index may take; the
						 * rest is for queues, holds and lists */

/* the contract engine */
#define BNC_APPROVALS_MAX	4096		/* approvals remembered per session */
#define BNC_BUDGETS_MAX		4096		/* tools with a counted budget */
#define BNC_ASKS_MAX		64		/* calls waiting for a human at once */
#define BNC_ASK_DESTS_MAX	256		/* destinations asked about in one call */
#define BNC_ASK_SHOW_MAX	512		/* bytes of a value shown whole in a question */
#define BNC_SINK_VALUES_MAX	4096		/* scalar destinations judged per call */
#define BNC_SWEPT_VALUES_MAX	65536		/* swept content scalars checked for taint per call */
#define BNC_SWEPT_IDENTS_MAX	1024		/* addresses in swept content looked up per call */
#define BNC_SWEEP_ARGS_MAX	1024		/* arguments a sweeping call may have */
#define BNC_ASK_TIMEOUT_DEFAULT	120		/* asks.timeout: seconds a human may take */
#define BNC_ASK_TIMEOUT_MAX	3600
#define BNC_OOB_POLL_MS		200		/* ms between looks for out-of-
						 * band answers (gate.c) */
#define BNC_OOB_ARGS_MAX	(1024 * 1024)	/* bytes of canonical arguments
						 * an out-of-band ask binds */
#define BNC_ROUTES_MAX		65536		/* resource URIs and prompt names remembered */

/* resource templates (RFC 6570; monitor/uritemplate.c, route.c) */
#define BNC_URITEMPLATE_LEN_MAX	1024		/* bytes of a template bouncer matches */
#define BNC_URITEMPLATE_PROG_MAX 4096		/* instructions of one compiled template */
#define BNC_URI_MAX		8192		/* bytes of a URI matched against templates */
#define BNC_TEMPLATES_MAX	256		/* templates remembered per session */
#define BNC_URITEMPLATE_WORK_MAX (4 * 1024 * 1024)	/* automaton steps for one URI,
						 * every template together */
#define BNC_PROMPT_ARGS_MAX	256		/* declared arguments remembered per prompt */

/* path confinement (DESIGN 5, 4; monitor/pathcheck.c) */
#define BNC_PATH_LINKS_MAX	40		/* links followed in one walk:
						 * Linux's MAXSYMLINKS */
#define BNC_PATH_WORK_MAX	(2 * BNC_PATH_MAX)	/* bytes of a path
						 * joined to its base or home,
						 * or of what is left to walk */

/* the audit log (DESIGN 9; monitor/audit.c, bouncer-audit) */
#define BNC_AUDIT_BUSY_MS	1000		/* wait for another writer's lock, then deny */
#define BNC_AUDIT_FIELD_MAX	1024		/* bytes of session, agent, upstream, tool,
						 * verdict, contract or nonce in a row */
#define BNC_AUDIT_SINCE_MAX_S	(100LL * 366 * 86400)	/* longest bouncer-audit -s duration */
#define BNC_AUDIT_WAL_PAGES	1000		/* WAL pages per checkpoint (SQLite's
						 * default), done by the checkpointer */
#define BNC_AUDIT_WAL_PAGES_MAX	4000		/* WAL pages past which the monitor
						 * checkpoints in the commit itself */

/* MCP client configs: bouncer-init(1) and bouncer-monitor -c */
#define BNC_MCPCONFIG_MAX	(64 * 1024 * 1024)	/* bytes of an MCP client config */
#define BNC_MCPCONFIG_SERVERS_MAX 4096		/* -s options of bouncer-init */
#define BNC_BACKUPS_MAX		100		/* numbered backups of one file */

/* the agent registry (DESIGN 6; monitor/registry.c, bouncer-agents(5)):
 * agents.yaml is the administrator's, read before any untrusted input,
 * but a fleet of agents is still a few hundred lines, not megabytes */
#define BNC_REGISTRY_MAX	(1024 * 1024)	/* bytes of agents.yaml */
#define BNC_AGENTS_MAX		1024		/* agents in one registry */
#define BNC_AGENT_ID_MAX	64		/* bytes of an agent id */
#define BNC_AGENT_OWNER_MAX	256		/* bytes of an agent's owner */
#define BNC_GRANT_TOOLS_MAX	256		/* tools (budgets) of one grant */

/* policy files, packs and heuristics (monitor/policy.c, heuristics.c) */
#define BNC_POLICY_FILE_MAX	(1024 * 1024)	/* bytes of one policy or pack file */
#define BNC_POLICY_FILES_MAX	256		/* *.yaml files read from one pack directory */
#define BNC_POLICY_ENTRIES_MAX	8192		/* tool entries in one file */
#define BNC_POLICY_LIST_MAX	256		/* items of one list or arg_patterns mapping */
#define BNC_POLICY_STRING_MAX	4096		/* bytes of one name, destination, prefix or regex */
#define BNC_POLICY_MAX_CALLS_MAX 1000000000LL	/* largest max_calls */
#define BNC_POLICY_MATCH_LIMIT	10000000	/* PCRE2 match limit (backtracking steps) */
#define BNC_POLICY_DEPTH_LIMIT	100000		/* PCRE2 backtracking depth */
#define BNC_POLICY_HEAP_LIMIT	(64 * 1024)	/* KiB of PCRE2 heap for one match */
#define BNC_POLICY_DEST_MAX	4096		/* bytes of a value matched against a pattern */
#define BNC_POLICY_CACHE_MAX	(BNC_UPSTREAMS_MAX * BNC_TOOLS_MAX)	/* heuristic results kept */
#define BNC_URI_DECODE_ROUNDS	3		/* percent-decodings of a template URI judged */
#define BNC_POLICY_IDENTS_MAX	256		/* identity_patterns matches in one value */
#define BNC_SCHEMA_DEPTH_MAX	16		/* $ref/allOf/anyOf/oneOf nesting read */
#define BNC_SCHEMA_NODES_MAX	256		/* subschemas read for one tool's names */

/* the taint index (DESIGN 5, 11; monitor/taint.c) */
#define BNC_TAINT_MIN_LEN	6		/* shortest value ever tainted (normalised bytes) */
#define BNC_TAINT_CAP		(8 * 1024 * 1024)	/* default normalised output kept per
						 * session: ~2M tokens, many context
						 * windows; index memory <= 5.875x */
#define BNC_TAINT_CAP_MIN	4096		/* smallest cap accepted */
#define BNC_TAINT_CAP_MAX	(1024 * 1024 * 1024)	/* chain links are 32-bit distances */
#define BNC_TAINT_PROBE_GRAMS	8		/* q-gram chains walked per lookup */
#define BNC_TAINT_VERIFY_MAX	256		/* chain steps per walk of a lookup, then unsure */
#define BNC_TAINT_IDENT_MAX	512		/* bytes an identity scan reads on either side
						 * (addresses and hosts are shorter) */
#define BNC_TAINT_IDENT_LEN	(2 * BNC_TAINT_IDENT_MAX)	/* longest identity found: an
						 * address reads IDENT_MAX each side of '@' */
#define BNC_TAINT_FORMS_WINDOW	(256 * 1024)	/* bytes of output scanned for identities
						 * at once (windows overlap) */
#define BNC_TAINT_FORMS_MAX	(1024 * 1024)	/* bytes of canonical forms recorded
						 * for one output; then strict */
#define BNC_TAINT_IDENTS_MAX	256		/* identities looked up per lookup, then unsure */
#define BNC_TAINT_DECODE_CHUNK	3072		/* bytes of a base64 payload decoded at once
						 * (on the stack; a payload is up to the
						 * message cap) */

/* canonical forms of destination identities (DESIGN 5, "Canonical
 * forms"; monitor/canon.c) */
#define BNC_CANON_IDENT_MAX	8192	/* bytes of one identity as written
					 * (a URL: RFC 9110 asks for 8000) */
#define BNC_CANON_LOCAL_MAX	BNC_TAINT_IDENT_MAX	/* bytes of a local
					 * part's content (RFC 5321: 64) */
#define BNC_CANON_HOST_MAX	253	/* bytes of a host's A-label form */
#define BNC_CANON_LABEL_MAX	63	/* bytes of one A-label (DNS) */
#define BNC_CANON_LABELS_MAX	((BNC_CANON_HOST_MAX + 1) / 2)
					/* labels of one host */
#define BNC_CANON_COMMENT_DEPTH	8	/* nesting of RFC 5322 comments */
#define BNC_CANON_SCHEME_MAX	32	/* bytes of a URI scheme */
#define BNC_CANON_IDS_MAX	4096	/* identities of one scan or list */
#define BNC_CANON_PUNY_MAX	256	/* code points canon_punycode_*
					 * take or give */
#define BNC_CANON_PHONE_MIN	8	/* digits of +E.164, '+' not counted */
#define BNC_CANON_PHONE_MAX	15
#define BNC_CANON_IBAN_MAX	34	/* characters of an IBAN (ISO 13616;
					 * the registry's longest: 33) */

#endif /* BNC_BOUNDS_H */
