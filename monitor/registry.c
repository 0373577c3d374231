/*
 * registry.c - load, validate and look up the agent registry (DESIGN 6,
 * bouncer-agents(5)).
 *
 * The file is checked key by key against a table, and every problem is
 * reported, not only the first: `bouncer-monitor -t' runs in CI, and whoever
 * fixes a fleet's registry should see all of it at once.  One problem
 * and nothing is kept: a half-read registry would grant what nobody
 * reviewed.  It must never see more of a token than the moment it takes
 * to hash it, and it compares hashes in constant time.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <sodium.h>

#include "bounds.h"
#include "err.h"
#include "policy.h"
#include "registry.h"
#include "utf8.h"
#include "xmalloc.h"
#include "yaml-tree.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))
#define HASH_LEN	crypto_hash_sha256_BYTES

/* One agent, and the storage its public view points into. */
struct ragent {
	struct registry_agent	 pub;
	char			*id;
	char			*owner;
	char			*eval_suite;
	char			**tools;
	const char		**tview;	/* pub.tools: those strings */
	struct registry_budget	*budgets;	/* each tool is one of tools */
	unsigned long		 id_line;
	int			 has_grant;	/* tools was a list */
	int			 has_token;
	const struct ynode	*budgets_node;
};

struct registry {
	struct ragent	*agents;
	size_t		 n;
};

static const char *const tier_names[] = {
	[REGISTRY_T0] = "T0",
	[REGISTRY_T1] = "T1",
	[REGISTRY_T2] = "T2",
	[REGISTRY_T3] = "T3",
};

/*
 * bouncer's own work-system tools (DESIGN 7) and the lowest tier whose
 * grant may name each.  Any other name is an upstream's tool: T1 and up,
 * or T0 where the policy marks it read-only.
 */
static const struct builtin_tool {
	const char	*name;
	int		 tier;
} builtin_tools[] = {
	{ "read_tasks",			REGISTRY_T0 },
	{ "read_task",			REGISTRY_T0 },
	{ "read_comments",		REGISTRY_T0 },
	{ "create_draft",		REGISTRY_T1 },
	{ "post_human_authored_comment", REGISTRY_T2 },
	{ "send_external_message",	REGISTRY_T3 },
};

/* The tool whose calls leave the organisation: a T3 grant budgets it. */
#define EXTERNAL_TOOL	"send_external_message"

/* Ids an audit row or a path would misread (audit.h: "-" is no agent). */
static const char *const reserved_ids[] = { "-", ".", ".." };

struct rctx {
	const char		*path;
	const struct policy	*pol;
	struct policy		*forb;		/* names only: see forb_new */
	void			(*report)(void *, const char *, unsigned long,
				    const char *, const char *);
	void			*arg;
	int			 nproblems;
	const char		*agent;		/* for reports: a valid id */
	struct registry		*reg;
};

static void __attribute__((format(printf, 4, 5)))
problem(struct rctx *x, const struct ynode *n, const char *key,
    const char *fmt, ...)
{
	char msg[BNC_REASON_MAX];
	va_list ap;
	int len, saved = errno;

	len = snprintf(msg, sizeof(msg), "%s: ", key);
	if (len >= 0 && (size_t)len < sizeof(msg)) {
		va_start(ap, fmt);
		vsnprintf(msg + len, sizeof(msg) - (size_t)len, fmt, ap);
		va_end(ap);
	}
	utf8_trim(msg);
	x->nproblems++;
	if (x->report != NULL)
		x->report(x->arg, x->path, n != NULL ? n->line : 0, x->agent,
		    msg);
	errno = saved;
}

/* Text from the file, shown in ASCII on one line. */
static const char *
shown(char *buf, size_t len, const char *s)
{
	utf8_escape(buf, len, s, strlen(s));
	return buf;
}

/* What a value is, for "must be X, not Y". */
static const char *
describe(const struct ynode *v)
{
	if (v != NULL && v->type == YNODE_SCALAR && !v->quoted &&
	    (v->scalar[0] == '\0' || strcmp(v->scalar, "~") == 0 ||
	    strcasecmp(v->scalar, "null") == 0))
		return "null";
	return ynode_type_name(v);
}

/* A scalar that YAML does not read as null. */
static int
get_string(struct rctx *x, const struct ynode *v, const char *key,
    const char *what, const char **sp)
{
	if (v == NULL || v->type != YNODE_SCALAR ||
	    strcmp(describe(v), "null") == 0) {
		problem(x, v, key, "must be %s, not %s", what, describe(v));
		return -BNC_ERR_CONFIG;
	}
	*sp = v->scalar;
	return 0;
}

static int
charset_ok(const char *s, size_t max, const char *extra)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > max)
		return 0;
	for (i = 0; i < n; i++)
		if (!(s[i] >= 'a' && s[i] <= 'z') &&
		    !(s[i] >= 'A' && s[i] <= 'Z') &&
		    !(s[i] >= '0' && s[i] <= '9') &&
		    strchr(extra, s[i]) == NULL)
			return 0;
	return 1;
}

/* What the MCP spec lets a tool be called, and so a client see. */
static int
tool_name_ok(const char *s)
{
	return charset_ok(s, BNC_TOOL_NAME_MAX, "_-.");
}

static const struct builtin_tool *
builtin(const char *tool)
{
	size_t i;

	for (i = 0; i < NELEM(builtin_tools); i++)
		if (strcmp(builtin_tools[i].name, tool) == 0)
			return &builtin_tools[i];
	return NULL;
}

int
registry_builtin_tier(const char *tool)
{
	const struct builtin_tool *b;

	return tool != NULL && (b = builtin(tool)) != NULL ? b->tier : -1;
}

/*
 * The forbidden set, beyond what policy_forbidden(pol) knows: the
 * caller's extra names, and for every qualified name ("upstream:tool")
 * the tool alone too.  A grant names a tool as the client sees it,
 * often without its upstream, so a name forbidden for one upstream is
 * refused in every grant: a registry check may be stricter than a
 * session, never looser.
 */
static struct policy *
forb_new(const struct policy *pol, char *const *extra, size_t nextra)
{
	const struct tool_policy *tp;
	struct policy *f;
	const char *c;
	size_t i;

	f = policy_new();
	for (i = 0; i < nextra; i++) {
		if (extra[i] == NULL)
			continue;
		policy_add_forbidden(f, extra[i]);
		if ((c = strchr(extra[i], ':')) != NULL && c[1] != '\0')
			policy_add_forbidden(f, c + 1);
	}
	for (i = 0; pol != NULL && i < policy_nentries(pol); i++) {
		tp = policy_entry(pol, i);
		if (tp->forbidden && (c = strchr(tp->name, ':')) != NULL &&
		    c[1] != '\0')
			policy_add_forbidden(f, c + 1);
	}
	return f;
}

/*
 * Is a granted name forbidden, read plain or, at any "__", as the tool
 * of the namespaced "upstream__tool"?  forb holds every qualified name
 * unqualified too, so the tool alone is asked; policy_forbidden(NULL,
 * ...) still knows DESIGN 6's built-in set.
 */
static int
forbidden_tool(const struct rctx *x, const char *tool)
{
	return tool[0] != '\0' && (policy_forbidden(x->forb, NULL, tool) ||
	    policy_forbidden(x->pol, NULL, tool));
}

static int
grant_forbidden(const struct rctx *x, const char *name)
{
	const char *sep;
	int hit;

	hit = forbidden_tool(x, name);
	for (sep = strstr(name, "__"); sep != NULL && !hit;
	    sep = strstr(sep + 1, "__"))
		hit = forbidden_tool(x, sep + 2);
	return hit;
}

/* ---- the keys of an agent ----------------------------------------- */

static void
key_id(struct rctx *x, struct ragent *a, const struct ynode *v)
{
	const struct ragent *b;
	const char *s;
	size_t i;

	if (get_string(x, v, "id", "a string", &s) != 0)
		return;
	if (!charset_ok(s, BNC_AGENT_ID_MAX, "._-")) {
		problem(x, v, "id", "must be 1 to %d of A-Z a-z 0-9 . _ -",
		    BNC_AGENT_ID_MAX);
		return;
	}
	for (i = 0; i < NELEM(reserved_ids); i++)
		if (strcmp(s, reserved_ids[i]) == 0) {
			problem(x, v, "id", "may not be \"-\", \".\" or "
			    "\"..\"");
			return;
		}
	a->id = xstrdup(s);
	a->pub.id = a->id;
	a->id_line = v->line;
	x->agent = a->id;
	for (b = x->reg->agents; b < a; b++)
		if (b->id != NULL && strcmp(b->id, s) == 0) {
			problem(x, v, "id", "duplicate of line %lu",
			    b->id_line);
			break;
		}
}

static void
key_owner(struct rctx *x, struct ragent *a, const struct ynode *v)
{
	const char *s;
	size_t i, n;

	if (get_string(x, v, "owner", "a person or team", &s) != 0)
		return;
	n = strlen(s);
	if (n == 0 || n > BNC_AGENT_OWNER_MAX) {
		problem(x, v, "owner", "must be 1 to %d bytes",
		    BNC_AGENT_OWNER_MAX);
		return;
	}
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < ' ' || s[i] == 0x7f)
			break;
	if (i < n || !utf8_valid(s, n)) {
		problem(x, v, "owner", "must be UTF-8 text without control "
		    "characters");
		return;
	}
	a->owner = xstrdup(s);
	a->pub.owner = a->owner;
}

static void
key_tier(struct rctx *x, struct ragent *a, const struct ynode *v)
{
	const char *s;
	size_t i;

	if (v->type == YNODE_SCALAR) {
		s = v->scalar;
		for (i = 0; i < NELEM(tier_names); i++)
			if (strcmp(s, tier_names[i]) == 0) {
				a->pub.tier = (int)i;
				return;
			}
	}
	problem(x, v, "tier", "must be T0, T1, T2 or T3");
}

/* One name of the grant, against the forbidden set and the tier. */
static void
check_tool(struct rctx *x, const struct ragent *a, const struct ynode *v)
{
	const struct builtin_tool *bt;
	const char *s = v->scalar;
	int tier = a->pub.tier;

	if (grant_forbidden(x, s)) {
		problem(x, v, "tools", "%s is in the forbidden write set", s);
		return;
	}
	if (tier < 0)
		return;			/* no tier: said already */
	if ((bt = builtin(s)) != NULL) {
		if (tier < bt->tier)
			problem(x, v, "tools", "%s needs tier %s or above "
			    "(this agent is %s)", s, tier_names[bt->tier],
			    tier_names[tier]);
	} else if (tier == REGISTRY_T0 && !policy_marks_read_only(x->pol, s))
		problem(x, v, "tools", "%s is not marked read-only by the "
		    "policy (a T0 grant may name only read-only tools)", s);
}

static void
key_tools(struct rctx *x, struct ragent *a, const struct ynode *v)
{
	const struct ynode *t;
	char d[2 * BNC_TOOL_NAME_MAX];
	size_t i, j, n = 0;

	if (v->type != YNODE_SEQUENCE) {
		problem(x, v, "tools", "must be a list of tool names, not %s",
		    describe(v));
		return;
	}
	a->has_grant = 1;
	if (v->n == 0) {
		problem(x, v, "tools", "must name at least one tool");
		return;
	}
	if (v->n > BNC_GRANT_TOOLS_MAX) {
		problem(x, v, "tools", "more than %d tools",
		    BNC_GRANT_TOOLS_MAX);
		return;
	}
	a->tools = xcalloc(v->n, sizeof(*a->tools));
	a->tview = xcalloc(v->n, sizeof(*a->tview));
	for (i = 0; i < v->n; i++) {
		t = v->items[i];
		if (t->type != YNODE_SCALAR || !tool_name_ok(t->scalar)) {
			problem(x, t, "tools", "%s is not a tool name (1 to %d "
			    "of A-Z a-z 0-9 _ - .)", t->type == YNODE_SCALAR ?
			    shown(d, sizeof(d), t->scalar) : describe(t),
			    BNC_TOOL_NAME_MAX);
			continue;
		}
		for (j = 0; j < n; j++)
			if (strcmp(a->tools[j], t->scalar) == 0)
				break;
		if (j < n) {
			problem(x, t, "tools", "%s is listed twice", t->scalar);
			continue;
		}
		check_tool(x, a, t);
		a->tools[n] = xstrdup(t->scalar);
		a->tview[n] = a->tools[n];
		n++;
	}
	a->pub.tools = a->tview;
	a->pub.ntools = n;
}

static void
key_token(struct rctx *x, struct ragent *a, const struct ynode *v)
{
	static const char msg[] = "must be 64 hexadecimal digits, the "
	    "SHA-256 of the agent's token";
	uint8_t empty[HASH_LEN];
	const struct ragent *b;
	const char *s;
	size_t len;

	if (get_string(x, v, "token_sha256", "a string", &s) != 0)
		return;
	/* without an ignore set, hex2bin fails on any other character */
	if (strlen(s) != 2 * HASH_LEN ||
	    sodium_hex2bin(a->pub.token_sha256, HASH_LEN, s, 2 * HASH_LEN,
	    NULL, &len, NULL) != 0 || len != HASH_LEN) {
		problem(x, v, "token_sha256", "%s", msg);
		return;
	}
	/* `printf "" | sha256sum': whoever presents no token would match */
	crypto_hash_sha256(empty, (const unsigned char *)"", 0);
	if (memcmp(empty, a->pub.token_sha256, HASH_LEN) == 0) {
		problem(x, v, "token_sha256", "is the SHA-256 of the empty "
		    "string, not of a token");
		return;
	}
	a->has_token = 1;
	for (b = x->reg->agents; b < a; b++) {
		if (!b->has_token ||
		    memcmp(b->pub.token_sha256, a->pub.token_sha256,
		    HASH_LEN) != 0)
			continue;
		if (b->id != NULL)
			problem(x, v, "token_sha256", "same as agent %s",
			    b->id);
		else
			problem(x, v, "token_sha256", "same as the agent at "
			    "line %lu", b->pub.line);
		break;
	}
}

/*
 * Relative to the registry's directory, not to the monitor's working
 * directory: an MCP client starts its servers wherever it likes.
 */
static void
key_eval_suite(struct rctx *x, struct ragent *a, const struct ynode *v)
{
	const char *s, *slash;
	struct stat st;
	char d[256], *p = NULL;

	if (get_string(x, v, "eval_suite", "a path", &s) != 0)
		return;
	if (strlen(s) > BNC_PATH_MAX) {
		problem(x, v, "eval_suite", "longer than %d bytes",
		    BNC_PATH_MAX);
		return;
	}
	if (s[0] == '/' || (slash = strrchr(x->path, '/')) == NULL)
		p = xstrdup(s);
	else
		xasprintf(&p, "%.*s/%s", (int)(slash - x->path), x->path, s);
	if (stat(p, &st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			problem(x, v, "eval_suite", "%s does not exist",
			    shown(d, sizeof(d), s));
		else
			problem(x, v, "eval_suite", "%s: %s",
			    shown(d, sizeof(d), s), strerror(errno));
		free(p);
		return;
	}
	a->eval_suite = p;
	a->pub.eval_suite = p;
}

static void
key_budgets(struct rctx *x, struct ragent *a, const struct ynode *v)
{
	const struct ynode *k;
	long long max;
	char d[128];
	size_t i, j;

	a->budgets_node = v;
	if (v->type != YNODE_MAPPING) {
		problem(x, v, "budgets", "must be a mapping of tool to calls "
		    "per session, not %s", describe(v));
		return;
	}
	if (v->n / 2 > BNC_GRANT_TOOLS_MAX) {
		problem(x, v, "budgets", "more than %d budgets",
		    BNC_GRANT_TOOLS_MAX);
		return;
	}
	a->budgets = xcalloc(v->n / 2 + 1, sizeof(*a->budgets));
	for (i = 0; i < v->n; i += 2) {
		k = v->items[i];
		for (j = 0; j < a->pub.ntools; j++)
			if (strcmp(a->tools[j], k->scalar) == 0)
				break;
		if (j == a->pub.ntools) {
			/* without a grant, the tools key said what is wrong */
			if (a->has_grant)
				problem(x, k, "budgets", "%s is not in the "
				    "grant", shown(d, sizeof(d), k->scalar));
			continue;
		}
		if (ynode_int(v->items[i + 1], 1, BNC_POLICY_MAX_CALLS_MAX,
		    &max) != 0) {
			problem(x, v->items[i + 1], "budgets", "%s must be an "
			    "integer from 1 to %lld", a->tools[j],
			    BNC_POLICY_MAX_CALLS_MAX);
			continue;
		}
		a->budgets[a->pub.nbudgets].tool = a->tools[j];
		a->budgets[a->pub.nbudgets].max = max;
		a->pub.nbudgets++;
	}
	a->pub.budgets = a->budgets;
}

/*
 * The keys of an agent, checked in this order whatever the file's: the
 * id first, so that every report names its agent; the tier before the
 * tools it limits; the tools before the budgets that must name them.
 */
enum agent_key_index {
	K_ID, K_OWNER, K_TIER, K_TOOLS, K_TOKEN, K_EVAL_SUITE, K_BUDGETS,
	K_NKEYS
};

static const struct agent_key {
	const char	*name;
	void		(*fn)(struct rctx *, struct ragent *,
			    const struct ynode *);
	int		 required;	/* eval_suite: per tier, agent_check */
} agent_keys[K_NKEYS] = {
	[K_ID] =		{ "id",			key_id,		1 },
	[K_OWNER] =		{ "owner",		key_owner,	1 },
	[K_TIER] =		{ "tier",		key_tier,	1 },
	[K_TOOLS] =		{ "tools",		key_tools,	1 },
	[K_TOKEN] =		{ "token_sha256",	key_token,	1 },
	[K_EVAL_SUITE] =	{ "eval_suite",		key_eval_suite,	0 },
	[K_BUDGETS] =		{ "budgets",		key_budgets,	0 },
};

/* What needs more than one key: DESIGN 6's per-tier requirements. */
static void
agent_check(struct rctx *x, const struct ragent *a, const struct ynode *v,
    const struct ynode *eval_suite)
{
	int tier = a->pub.tier;

	if (tier >= REGISTRY_T1 && eval_suite == NULL)
		problem(x, v, "eval_suite", "required for tier %s",
		    tier_names[tier]);
	if (tier == REGISTRY_T3 && registry_grants(&a->pub, EXTERNAL_TOOL) &&
	    registry_budget(&a->pub, EXTERNAL_TOOL) < 0)
		problem(x, a->budgets_node != NULL ? a->budgets_node : v,
		    "budgets", "%s needs a budget (T3)", EXTERNAL_TOOL);
}

static void
agent_load(struct rctx *x, const struct ynode *v)
{
	const struct ynode *val[K_NKEYS];
	struct ragent *a;
	char d[128];
	size_t i, j;

	a = &x->reg->agents[x->reg->n++];
	a->pub.tier = -1;
	a->pub.line = v->line;
	x->agent = NULL;
	if (v->type != YNODE_MAPPING) {
		problem(x, v, "agents", "an agent must be a mapping, not %s",
		    describe(v));
		return;
	}
	memset(val, 0, sizeof(val));
	for (i = 0; i < v->n; i += 2)
		for (j = 0; j < NELEM(agent_keys); j++)
			if (strcmp(v->items[i]->scalar,
			    agent_keys[j].name) == 0)
				val[j] = v->items[i + 1];
	if (val[K_ID] != NULL)
		agent_keys[K_ID].fn(x, a, val[K_ID]);
	for (i = 0; i < v->n; i += 2) {
		for (j = 0; j < NELEM(agent_keys); j++)
			if (strcmp(v->items[i]->scalar,
			    agent_keys[j].name) == 0)
				break;
		if (j == NELEM(agent_keys))
			problem(x, v->items[i], shown(d, sizeof(d),
			    v->items[i]->scalar), "unknown key");
	}
	for (j = 0; j < NELEM(agent_keys); j++) {
		if (val[j] == NULL) {
			if (agent_keys[j].required)
				problem(x, v, agent_keys[j].name, "missing");
		} else if (j != K_ID)
			agent_keys[j].fn(x, a, val[j]);
	}
	agent_check(x, a, v, val[K_EVAL_SUITE]);
	x->agent = NULL;
}

static void
load_root(struct rctx *x, const struct ynode *root)
{
	const struct ynode *k, *list = NULL;
	char d[128];
	size_t i;

	if (root == NULL) {
		problem(x, NULL, "agents", "missing: the file is empty");
		return;
	}
	if (root->type != YNODE_MAPPING) {
		problem(x, root, "(top level)", "must be a mapping with the "
		    "key agents, not %s", describe(root));
		return;
	}
	for (i = 0; i < root->n; i += 2) {
		k = root->items[i];
		if (strcmp(k->scalar, "agents") == 0)
			list = root->items[i + 1];
		else
			problem(x, k, shown(d, sizeof(d), k->scalar),
			    "unknown key");
	}
	if (list == NULL) {
		problem(x, root, "agents", "missing");
		return;
	}
	if (list->type != YNODE_SEQUENCE) {
		problem(x, list, "agents", "must be a list of agents, not %s",
		    describe(list));
		return;
	}
	if (list->n > BNC_AGENTS_MAX) {
		problem(x, list, "agents", "more than %d agents",
		    BNC_AGENTS_MAX);
		return;
	}
	x->reg->agents = xcalloc(list->n + 1, sizeof(*x->reg->agents));
	for (i = 0; i < list->n; i++)
		agent_load(x, list->items[i]);
}

/*
 * The whole file, or a negative code when it cannot be read (reported
 * as the file's problem, line 0).  O_NONBLOCK: a FIFO named by mistake
 * must not hang `bouncer-monitor -t'.
 */
static int
read_file(struct rctx *x, char **datap, size_t *lenp)
{
	struct stat st;
	char *data = NULL;
	size_t len = 0, cap;
	ssize_t n;
	int fd, r = -BNC_ERR_SYS;

	*datap = NULL;
	*lenp = 0;
	if ((fd = open(x->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		problem(x, NULL, "(file)", "%s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		problem(x, NULL, "(file)", "not a regular file");
		r = -BNC_ERR_BAD_FORMAT;
		goto out;
	}
	/* the file's size (and a byte to see it grew), not the bound */
	cap = st.st_size < BNC_REGISTRY_MAX ? (size_t)st.st_size + 1 :
	    BNC_REGISTRY_MAX + 1;
	data = xmalloc(cap);
	while (len < BNC_REGISTRY_MAX + 1) {
		if (len == cap) {
			cap = cap > (BNC_REGISTRY_MAX + 1) / 2 ?
			    BNC_REGISTRY_MAX + 1 : cap * 2;
			data = xreallocarray(data, cap, 1);
		}
		n = read(fd, data + len, cap - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			problem(x, NULL, "(file)", "%s", strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > BNC_REGISTRY_MAX) {
		problem(x, NULL, "(file)", "larger than %d bytes",
		    BNC_REGISTRY_MAX);
		r = -BNC_ERR_TOO_LARGE;
		goto out;
	}
	*datap = data;
	*lenp = len;
	data = NULL;
	r = 0;
 out:
	free(data);
	if (fd != -1)
		close(fd);
	return r;
}

/* yaml-tree's "FILE:LINE: message", as a report with its line. */
static void
yaml_problem(struct rctx *x, const char *err)
{
	struct ynode at;
	size_t plen = strlen(x->path);
	const char *msg = err;
	char *end;

	memset(&at, 0, sizeof(at));
	if (strncmp(err, x->path, plen) == 0 && err[plen] == ':') {
		at.line = strtoul(err + plen + 1, &end, 10);
		if (end > err + plen + 1 && strncmp(end, ": ", 2) == 0)
			msg = end + 2;
		else
			at.line = 0;
	}
	problem(x, &at, "(syntax)", "%s", msg);
}

int
registry_load(const char *path, struct policy *pol,
    char *const *forbidden_extra, size_t nforbidden,
    void (*report)(void *, const char *, unsigned long, const char *,
    const char *), void *arg, struct registry **out)
{
	struct rctx x;
	struct ynode *root = NULL;
	char *data = NULL, err[BNC_REASON_MAX];
	size_t len;
	int r;

	*out = NULL;
	memset(&x, 0, sizeof(x));
	x.path = path;
	x.pol = pol;
	x.report = report;
	x.arg = arg;
	x.reg = xcalloc(1, sizeof(*x.reg));
	if (sodium_init() < 0) {
		r = -BNC_ERR_INTERNAL;
		goto out;
	}
	if ((r = read_file(&x, &data, &len)) != 0)
		goto out;
	x.forb = forb_new(pol, forbidden_extra, nforbidden);
	if (yaml_load_buf(path, data, len, &root, err, sizeof(err)) != 0)
		yaml_problem(&x, err);
	else
		load_root(&x, root);
	r = x.nproblems;
	if (r == 0) {
		*out = x.reg;
		x.reg = NULL;
	}
 out:
	ynode_free(root);
	free(data);
	policy_free(x.forb);
	registry_free(x.reg);
	return r;
}

void
registry_free(struct registry *reg)
{
	struct ragent *a;
	size_t i;

	if (reg == NULL)
		return;
	for (a = reg->agents; a != NULL && a < reg->agents + reg->n; a++) {
		free(a->id);
		free(a->owner);
		free(a->eval_suite);
		for (i = 0; i < a->pub.ntools; i++)
			free(a->tools[i]);
		free(a->tools);
		free(a->tview);
		free(a->budgets);
	}
	free(reg->agents);
	free(reg);
}

/* ---- lookups ------------------------------------------------------ */

const struct registry_agent *
registry_find_token(const struct registry *reg, const char *token,
    size_t len)
{
	uint8_t h[HASH_LEN];
	size_t i, hit = 0, eq;

	if (reg == NULL || token == NULL || len == 0)
		return NULL;
	crypto_hash_sha256(h, (const unsigned char *)token, len);
	/*
	 * sodium_memcmp is 0 or -1 and takes the same time either way;
	 * remember the match (there is at most one) without a branch and
	 * look at every agent, so the time says nothing of which one.
	 */
	for (i = 0; i < reg->n; i++) {
		eq = (size_t)(1 + sodium_memcmp(h,
		    reg->agents[i].pub.token_sha256, HASH_LEN));
		hit |= (0 - eq) & (i + 1);
	}
	sodium_memzero(h, sizeof(h));
	return hit == 0 ? NULL : &reg->agents[hit - 1].pub;
}

const struct registry_agent *
registry_find_id(const struct registry *reg, const char *id)
{
	size_t i;

	for (i = 0; reg != NULL && id != NULL && i < reg->n; i++)
		if (reg->agents[i].id != NULL &&
		    strcmp(reg->agents[i].id, id) == 0)
			return &reg->agents[i].pub;
	return NULL;
}

size_t
registry_nagents(const struct registry *reg)
{
	return reg != NULL ? reg->n : 0;
}

const struct registry_agent *
registry_agent(const struct registry *reg, size_t i)
{
	return reg != NULL && i < reg->n ? &reg->agents[i].pub : NULL;
}

int
registry_grants(const struct registry_agent *a, const char *tool)
{
	size_t i;

	for (i = 0; a != NULL && tool != NULL && i < a->ntools; i++)
		if (strcmp(a->tools[i], tool) == 0)
			return 1;
	return 0;
}

long long
registry_budget(const struct registry_agent *a, const char *tool)
{
	size_t i;

	for (i = 0; a != NULL && tool != NULL && i < a->nbudgets; i++)
		if (strcmp(a->budgets[i].tool, tool) == 0)
			return a->budgets[i].max;
	return -1;
}

const char *
registry_tier_name(int tier)
{
	if (tier < 0 || (size_t)tier >= NELEM(tier_names))
		return NULL;
	return tier_names[tier];
}
