/*
 * conffile.c - load and check bouncer.yaml.
 *
 * Keys are tables: each known key has a handler that checks its type
 * and value; anything else is an error naming file, line and key.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conffile.h"
#include "../carrier/validate.h"
#include "err.h"
#include "bounds.h"
#include "xmalloc.h"
#include "yaml-tree.h"

struct cfg_ctx {
	struct config	*c;
	const char	*path;
	char		*err;
	size_t		 errlen;
};

static int __attribute__((format(printf, 4, 5)))
cfail(struct cfg_ctx *x, const struct ynode *n, const char *key,
    const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = ynode_vfail(x->err, x->errlen, x->path, n, key, fmt, ap);
	va_end(ap);
	return r;
}

int
config_upstream_name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > BNC_UPSTREAM_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '-')
			return 0;
	return 1;
}

static int
get_string(struct cfg_ctx *x, const struct ynode *v, const char *key,
    size_t max, char **out)
{
	const char *s;

	if (ynode_string(v, &s) != 0)
		return cfail(x, v, key, "must be a string, not %s",
		    ynode_type_name(v));
	if (strlen(s) > max)
		return cfail(x, v, key, "longer than %zu bytes",
		    max);
	free(*out);
	*out = xstrdup(s);
	return 0;
}

/*
 * A relative path in the file is relative to the file's directory, not
 * to the monitor's working directory: an MCP client starts its servers
 * wherever it likes.
 */
static char *
file_relative(const struct cfg_ctx *x, const char *s)
{
	const char *slash;
	char *p;

	if (s[0] == '/' || (slash = strrchr(x->path, '/')) == NULL)
		return xstrdup(s);
	xasprintf(&p, "%.*s/%s", (int)(slash - x->path), x->path, s);
	return p;
}

/* A path: a string, made relative to the file (file_relative). */
static int
get_path(struct cfg_ctx *x, const struct ynode *v, const char *key,
    char **out)
{
	char *s = NULL;
	int r;

	if ((r = get_string(x, v, key, BNC_PATH_MAX, &s)) != 0)
		return r;
	free(*out);
	*out = file_relative(x, s);
	free(s);
	return 0;
}

static int
key_state_dir(struct cfg_ctx *x, const struct ynode *v, const char *key)
{
	return get_path(x, v, key, &x->c->state_dir);
}

static int
key_max_message(struct cfg_ctx *x, const struct ynode *v, const char *key)
{
	long long n;

	if (ynode_int(v, BNC_MSG_MAX_LOWEST, BNC_MSG_MAX_HIGHEST, &n) != 0)
		return cfail(x, v, key, "must be an integer from 4096 to "
		    "268435456");
	x->c->max_message = (size_t)n;
	return 0;
}

static int
key_max_session_memory(struct cfg_ctx *x, const struct ynode *v,
    const char *key)
{
	long long n;

	if (ynode_int(v, BNC_SESSION_MEMORY_MIN, BNC_SESSION_MEMORY_MAX,
	    &n) != 0)
		return cfail(x, v, key, "must be an integer from 4194304 to "
		    "68719476736");
	x->c->max_session_memory = (size_t)n;
	return 0;
}

static int
check_type(struct cfg_ctx *x, const struct ynode *v, const char *key,
    enum ynode_type t)
{
	static const char *const names[] = {
		[YNODE_SCALAR] = "a scalar",
		[YNODE_SEQUENCE] = "a list",
		[YNODE_MAPPING] = "a mapping",
	};

	if (v == NULL || v->type != t)
		return cfail(x, v, key, "must be %s", names[t]);
	return 0;
}

static int
check_string_list(struct cfg_ctx *x, const struct ynode *v, const char *key)
{
	size_t i;
	int r;

	if ((r = check_type(x, v, key, YNODE_SEQUENCE)) != 0)
		return r;
	for (i = 0; i < v->n; i++)
		if (v->items[i]->type != YNODE_SCALAR)
			return cfail(x, v->items[i], key,
			    "entries must be strings");
	return 0;
}

static int
key_policy(struct cfg_ctx *x, const struct ynode *v, const char *key)
{
	return get_path(x, v, key, &x->c->policy);
}

static int
key_registry(struct cfg_ctx *x, const struct ynode *v, const char *key)
{
	return get_path(x, v, key, &x->c->registry);
}

static char **string_vec(const struct ynode *, size_t *);

static int
key_packs(struct cfg_ctx *x, const struct ynode *v, const char *key)
{
	size_t i;
	int r;

	if ((r = check_string_list(x, v, key)) != 0)
		return r;
	for (i = 0; i < v->n; i++)
		if (strlen(v->items[i]->scalar) > BNC_PATH_MAX)
			return cfail(x, v->items[i], key, "path too long");
	x->c->packs = string_vec(v, &x->c->npacks);
	for (i = 0; i < x->c->npacks; i++) {
		char *p = file_relative(x, x->c->packs[i]);

		free(x->c->packs[i]);
		x->c->packs[i] = p;
	}
	return 0;
}

/* audit: { sync: normal|full, record_args: digest|full } */
static int
key_audit(struct cfg_ctx *x, const struct ynode *v, const char *key)
{
	const struct ynode *k, *val;
	const char *s;
	size_t i;
	int r;

	if ((r = check_type(x, v, key, YNODE_MAPPING)) != 0)
		return r;
	for (i = 0; i < v->n; i += 2) {
		k = v->items[i];
		val = v->items[i + 1];
		if (ynode_string(val, &s) != 0)
			return cfail(x, val, "audit", "%s must be a string",
			    k->scalar);
		if (strcmp(k->scalar, "sync") == 0) {
			if (strcmp(s, "normal") != 0 && strcmp(s, "full") != 0)
				return cfail(x, val, "audit.sync",
				    "must be normal or full");
			x->c->audit_sync_full = strcmp(s, "full") == 0;
		} else if (strcmp(k->scalar, "record_args") == 0) {
			if (strcmp(s, "digest") != 0 && strcmp(s, "full") != 0)
				return cfail(x, val, "audit.record_args",
				    "must be digest or full");
			x->c->audit_record_full = strcmp(s, "full") == 0;
		} else
			return cfail(x, k, "audit", "unknown key \"%s\"",
			    k->scalar);
	}
	return 0;
}

static int
key_forbidden(struct cfg_ctx *x, const struct ynode *v, const char *key)
{
	int r;

	if ((r = check_string_list(x, v, key)) != 0)
		return r;
	x->c->forbidden = string_vec(v, &x->c->nforbidden);
	return 0;
}

/* asks: { timeout: SECONDS } */
static int
key_asks(struct cfg_ctx *x, const struct ynode *v, const char *key)
{
	long long n;
	size_t i;
	int r;

	if ((r = check_type(x, v, key, YNODE_MAPPING)) != 0)
		return r;
	for (i = 0; i < v->n; i += 2) {
		if (strcmp(v->items[i]->scalar, "timeout") != 0)
			return cfail(x, v->items[i], "asks",
			    "unknown key \"%s\"", v->items[i]->scalar);
		if (ynode_int(v->items[i + 1], 1, BNC_ASK_TIMEOUT_MAX,
		    &n) != 0)
			return cfail(x, v->items[i + 1], "asks.timeout",
			    "must be an integer from 1 to %d",
			    BNC_ASK_TIMEOUT_MAX);
		x->c->ask_timeout = (int)n;
	}
	return 0;
}

/* consent: { keys: DIR, max_ttl: SECONDS, skew: SECONDS } */
static int
key_consent(struct cfg_ctx *x, const struct ynode *v, const char *key)
{
	const struct ynode *k, *val;
	long long n;
	size_t i;
	int r;

	if ((r = check_type(x, v, key, YNODE_MAPPING)) != 0)
		return r;
	for (i = 0; i < v->n; i += 2) {
		k = v->items[i];
		val = v->items[i + 1];
		if (strcmp(k->scalar, "keys") == 0) {
			if ((r = get_path(x, val, "consent.keys",
			    &x->c->consent_keys)) != 0)
				return r;
		} else if (strcmp(k->scalar, "max_ttl") == 0) {
			if (ynode_int(val, 1, BNC_CONSENT_TTL_MAX, &n) != 0)
				return cfail(x, val, "consent.max_ttl",
				    "must be an integer from 1 to %d "
				    "(seconds)", BNC_CONSENT_TTL_MAX);
			x->c->consent_max_ttl = (int)n;
		} else if (strcmp(k->scalar, "skew") == 0) {
			if (ynode_int(val, 0, BNC_CONSENT_SKEW_MAX, &n) != 0)
				return cfail(x, val, "consent.skew",
				    "must be an integer from 0 to %d "
				    "(seconds)", BNC_CONSENT_SKEW_MAX);
			x->c->consent_skew = (int)n;
		} else
			return cfail(x, k, "consent", "unknown key \"%s\"",
			    k->scalar);
	}
	return 0;
}

static char **
string_vec(const struct ynode *v, size_t *np)
{
	char **vec;
	size_t i;

	vec = xcalloc(v->n + 1, sizeof(*vec));
	for (i = 0; i < v->n; i++)
		vec[i] = xstrdup(v->items[i]->scalar);
	*np = v->n;
	return vec;
}

static int
upstream_one(struct cfg_ctx *x, const struct ynode *k, const struct ynode *v,
    struct upstream_cfg *u)
{
	const struct ynode *uk, *uv;
	char key[BNC_UPSTREAM_NAME_MAX + 64];
	size_t i, j;
	int r;

	u->name = xstrdup(k->scalar);
	if (!config_upstream_name_ok(u->name))
		return cfail(x, k, "upstreams", "bad upstream name \"%s\" "
		    "(1 to 64 of A-Z a-z 0-9 _ -)", u->name);
	if (v->type != YNODE_MAPPING)
		return cfail(x, v, "upstreams", "\"%s\" must be a mapping",
		    u->name);
	for (i = 0; i < v->n; i += 2) {
		uk = v->items[i];
		uv = v->items[i + 1];
		snprintf(key, sizeof(key), "upstreams.%s.%s", u->name,
		    uk->scalar);
		if (strcmp(uk->scalar, "command") == 0) {
			if ((r = get_string(x, uv, key, BNC_PATH_MAX,
			    &u->command)) != 0)
				return r;
			if (u->command[0] == '\0')
				return cfail(x, uv, key, "is empty");
		} else if (strcmp(uk->scalar, "args") == 0) {
			if ((r = check_string_list(x, uv, key)) != 0)
				return r;
			if (uv->n > BNC_ARGV_MAX - 2)
				return cfail(x, uv, key, "too many");
			for (j = 0; j < uv->n; j++)
				if (strlen(uv->items[j]->scalar) >
				    BNC_ARG_LEN_MAX)
					return cfail(x, uv->items[j], key,
					    "argument too long");
			u->args = string_vec(uv, &u->nargs);
		} else if (strcmp(uk->scalar, "env") == 0) {
			if ((r = check_type(x, uv, key, YNODE_MAPPING)) != 0)
				return r;
			if (uv->n / 2 > BNC_ENV_MAX)
				return cfail(x, uv, key, "too many");
			u->env = xcalloc(uv->n / 2 + 1, sizeof(*u->env));
			for (j = 0; j < uv->n; j += 2) {
				const struct ynode *ek = uv->items[j];
				const struct ynode *ev = uv->items[j + 1];

				if (ev->type != YNODE_SCALAR)
					return cfail(x, ev, key, "value of "
					    "%s must be a string", ek->scalar);
				if (ek->scalar[0] == '\0' ||
				    strchr(ek->scalar, '=') != NULL)
					return cfail(x, ek, key, "bad "
					    "variable name \"%s\"", ek->scalar);
				if (strlen(ek->scalar) + strlen(ev->scalar) >
				    BNC_ARG_LEN_MAX)
					return cfail(x, ev, key, "value of "
					    "%s too long", ek->scalar);
				xasprintf(&u->env[u->nenv++], "%s=%s",
				    ek->scalar, ev->scalar);
			}
		} else if (strcmp(uk->scalar, "cwd") == 0) {
			if ((r = get_path(x, uv, key, &u->cwd)) != 0)
				return r;
		} else if (strcmp(uk->scalar, "namespace") == 0) {
			if (ynode_bool(uv, &u->namespace) != 0)
				return cfail(x, uv, key, "must be true or "
				    "false");
		} else
			return cfail(x, uk, key, "unknown key");
	}
	if (u->command == NULL)
		return cfail(x, k, "upstreams", "\"%s\" has no command",
		    u->name);
	return 0;
}

static int
key_upstreams(struct cfg_ctx *x, const struct ynode *v, const char *key)
{
	struct config *c = x->c;
	size_t i;
	int r;

	if ((r = check_type(x, v, key, YNODE_MAPPING)) != 0)
		return r;
	if (v->n / 2 > BNC_UPSTREAMS_MAX)
		return cfail(x, v, key, "more than 32 upstreams");
	c->ups = xcalloc(v->n / 2 + 1, sizeof(*c->ups));
	for (i = 0; i < v->n; i += 2) {
		r = upstream_one(x, v->items[i], v->items[i + 1],
		    &c->ups[c->nups++]);
		if (r != 0)
			return r;
	}
	return 0;
}

/* ---- work: ----------------------------------------------------------- */

static void
free_strvec(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int
config_api_base_ok(const char *url)
{
	static const char *const hosts[] = {
		"http://127.0.0.1:", "http://[::1]:", "http://localhost:"
	};
	const char *p = NULL;
	char *end;
	unsigned long port;
	size_t i;

	for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++)
		if (strncmp(url, hosts[i], strlen(hosts[i])) == 0) {
			p = url + strlen(hosts[i]);
			break;
		}
	if (p == NULL || *p < '1' || *p > '9')
		return 0;
	errno = 0;
	port = strtoul(p, &end, 10);
	if (errno != 0 || port == 0 || port > 65535 || end - p > 5)
		return 0;
	return *end == '\0' || (end[0] == '/' && end[1] == '\0');
}

static int
work_api_base(struct cfg_ctx *x, const struct ynode *v, const char *key,
    char **out)
{
	int r;

	if ((r = get_string(x, v, key, BNC_PATH_MAX, out)) != 0)
		return r;
	if (!config_api_base_ok(*out))
		return cfail(x, v, key, "\"%.64s\" is not a loopback "
		    "address: only http://127.0.0.1:PORT, http://[::1]:PORT "
		    "or http://localhost:PORT may replace a vendor's API",
		    *out);
	return 0;
}

/*
 * The carriers' own validators (carrier/validate.c) judge the work:
 * section too, so that -t refuses what a carrier would refuse later.
 */
static int
notion_id_ok(const char *s)
{
	char out[VALID_NOTION_ID_LEN + 1];
	const char *why;

	return valid_notion_id(s, strlen(s), out, &why) == 0;
}

/* owner/repo as GitHub spells them */
static int
repo_ok(const char *s)
{
	const char *slash = strchr(s, '/'), *why;

	return slash != NULL &&
	    valid_github_owner(s, (size_t)(slash - s), &why) == 0 &&
	    valid_github_repo(slash + 1, strlen(slash + 1), &why) == 0;
}

static int
work_notion(struct cfg_ctx *x, const struct ynode *v)
{
	struct work_notion *w = &x->c->notion;
	const struct ynode *k, *val;
	char *id = NULL;
	size_t i;
	int r = 0;

	if ((r = check_type(x, v, "work.notion", YNODE_MAPPING)) != 0)
		return r;
	w->set = 1;
	for (i = 0; i < v->n && r == 0; i += 2) {
		k = v->items[i];
		val = v->items[i + 1];
		if (strcmp(k->scalar, "read_token_file") == 0)
			r = get_path(x, val, "work.notion.read_token_file",
			    &w->read_token_file);
		else if (strcmp(k->scalar, "comment_token_file") == 0)
			r = get_path(x, val, "work.notion.comment_token_file",
			    &w->comment_token_file);
		else if (strcmp(k->scalar, "api_base") == 0)
			r = work_api_base(x, val, "work.notion.api_base",
			    &w->api_base);
		else if (strcmp(k->scalar, "database_id") == 0) {
			if ((r = get_string(x, val, "work.notion.database_id",
			    64, &id)) == 0 && !notion_id_ok(id))
				r = cfail(x, val, "work.notion.database_id",
				    "not a Notion id (32 hex digits)");
			free(w->database_id);
			w->database_id = id;
			id = NULL;
		} else
			r = cfail(x, k, "work.notion", "unknown key \"%s\"",
			    k->scalar);
	}
	return r;
}

static int
work_github(struct cfg_ctx *x, const struct ynode *v)
{
	struct work_github *w = &x->c->github;
	const struct ynode *k, *val;
	size_t i, j;
	int r = 0;

	if ((r = check_type(x, v, "work.github", YNODE_MAPPING)) != 0)
		return r;
	w->set = 1;
	for (i = 0; i < v->n && r == 0; i += 2) {
		k = v->items[i];
		val = v->items[i + 1];
		if (strcmp(k->scalar, "token_file") == 0)
			r = get_path(x, val, "work.github.token_file",
			    &w->token_file);
		else if (strcmp(k->scalar, "api_base") == 0)
			r = work_api_base(x, val, "work.github.api_base",
			    &w->api_base);
		else if (strcmp(k->scalar, "repos") == 0) {
			if ((r = check_string_list(x, val,
			    "work.github.repos")) != 0)
				break;
			if (val->n > BNC_WORK_REPOS_MAX) {
				r = cfail(x, val, "work.github.repos",
				    "more than %d repositories",
				    BNC_WORK_REPOS_MAX);
				break;
			}
			for (j = 0; j < val->n && r == 0; j++)
				if (!repo_ok(val->items[j]->scalar))
					r = cfail(x, val->items[j],
					    "work.github.repos", "\"%.64s\" is "
					    "not owner/repo",
					    val->items[j]->scalar);
			if (r == 0) {
				free_strvec(w->repos, w->nrepos);
				w->repos = string_vec(val, &w->nrepos);
			}
		} else
			r = cfail(x, k, "work.github", "unknown key \"%s\"",
			    k->scalar);
	}
	return r;
}

static int
work_slack(struct cfg_ctx *x, const struct ynode *v)
{
	struct work_slack *w = &x->c->slack;
	const struct ynode *k, *val, *ch, *ck;
	struct work_channel *c;
	const char *why;
	size_t i, j;
	int r = 0;

	if ((r = check_type(x, v, "work.slack", YNODE_MAPPING)) != 0)
		return r;
	w->set = 1;
	for (i = 0; i < v->n && r == 0; i += 2) {
		k = v->items[i];
		val = v->items[i + 1];
		if (strcmp(k->scalar, "api_base") == 0) {
			r = work_api_base(x, val, "work.slack.api_base",
			    &w->api_base);
			continue;
		}
		if (strcmp(k->scalar, "channels") != 0) {
			r = cfail(x, k, "work.slack", "unknown key \"%s\"",
			    k->scalar);
			break;
		}
		if ((r = check_type(x, val, "work.slack.channels",
		    YNODE_MAPPING)) != 0)
			break;
		for (j = 0; j < val->n && r == 0; j += 2) {
			ck = val->items[j];
			ch = val->items[j + 1];
			if (valid_channel_name(ck->scalar,
			    strlen(ck->scalar), &why) != 0) {
				r = cfail(x, ck, "work.slack.channels",
				    "\"%.80s\": a channel's name is 1 to 80 of "
				    "a-z 0-9 _ -", ck->scalar);
				break;
			}
			if (w->nchannels >= BNC_WORK_CHANNELS_MAX) {
				r = cfail(x, ck, "work.slack.channels",
				    "more than %d channels",
				    BNC_WORK_CHANNELS_MAX);
				break;
			}
			if ((r = check_type(x, ch, "work.slack.channels",
			    YNODE_MAPPING)) != 0)
				break;
			if (ch->n != 2 ||
			    strcmp(ch->items[0]->scalar, "webhook_file") != 0) {
				r = cfail(x, ch, "work.slack.channels",
				    "%s: exactly {webhook_file: FILE}",
				    ck->scalar);
				break;
			}
			w->channels = xreallocarray(w->channels,
			    w->nchannels + 1, sizeof(*w->channels));
			c = &w->channels[w->nchannels];
			memset(c, 0, sizeof(*c));
			if ((r = get_path(x, ch->items[1],
			    "work.slack.channels.webhook_file",
			    &c->webhook_file)) != 0)
				break;
			c->name = xstrdup(ck->scalar);
			w->nchannels++;
		}
	}
	return r;
}

/* work: { notion: ..., github: ..., slack: ... } */
static int
key_work(struct cfg_ctx *x, const struct ynode *v, const char *key)
{
	const struct ynode *k;
	size_t i;
	int r;

	if ((r = check_type(x, v, key, YNODE_MAPPING)) != 0)
		return r;
	for (i = 0; i < v->n; i += 2) {
		k = v->items[i];
		if (strcmp(k->scalar, "notion") == 0)
			r = work_notion(x, v->items[i + 1]);
		else if (strcmp(k->scalar, "github") == 0)
			r = work_github(x, v->items[i + 1]);
		else if (strcmp(k->scalar, "slack") == 0)
			r = work_slack(x, v->items[i + 1]);
		else
			r = cfail(x, k, key, "unknown key \"%s\" (notion, "
			    "github, slack)", k->scalar);
		if (r != 0)
			return r;
	}
	return 0;
}

static void
work_free(struct config *c)
{
	size_t i;

	free(c->notion.read_token_file);
	free(c->notion.comment_token_file);
	free(c->notion.database_id);
	free(c->notion.api_base);
	free(c->github.token_file);
	free_strvec(c->github.repos, c->github.nrepos);
	free(c->github.api_base);
	for (i = 0; i < c->slack.nchannels; i++) {
		free(c->slack.channels[i].name);
		free(c->slack.channels[i].webhook_file);
	}
	free(c->slack.channels);
	free(c->slack.api_base);
	memset(&c->notion, 0, sizeof(c->notion));
	memset(&c->github, 0, sizeof(c->github));
	memset(&c->slack, 0, sizeof(c->slack));
}

struct cfg_key {
	const char	*name;
	int		(*fn)(struct cfg_ctx *, const struct ynode *,
			    const char *);
};

static const struct cfg_key cfg_keys[] = {
	{ "state_dir",		key_state_dir },
	{ "max_message",	key_max_message },
	{ "max_session_memory",	key_max_session_memory },
	{ "upstreams",		key_upstreams },
	{ "audit",		key_audit },
	{ "policy",		key_policy },
	{ "packs",		key_packs },
	{ "asks",		key_asks },
	{ "registry",		key_registry },
	{ "consent",		key_consent },
	{ "forbidden_tools",	key_forbidden },
	{ "work",		key_work },
};

/*
 * The file read without -f: $XDG_CONFIG_HOME/bouncer/bouncer.yaml (or
 * ~/.config/...), else /etc/bouncer/bouncer.yaml (DESIGN 1.1, whatever
 * the prefix), else the one under the configured sysconfdir when that
 * is not /etc, else none (NULL: defaults).  The caller frees the path.
 */
char *
config_default_path(void)
{
	const char *xdg, *home;
	struct stat st;
	char *p = NULL;

	if ((xdg = getenv("XDG_CONFIG_HOME")) != NULL && *xdg == '/')
		xasprintf(&p, "%s/bouncer/bouncer.yaml", xdg);
	else if ((home = getenv("HOME")) != NULL && *home == '/')
		xasprintf(&p, "%s/.config/bouncer/bouncer.yaml", home);
	if (p != NULL && stat(p, &st) == 0)
		return p;
	free(p);
	p = xstrdup("/etc/bouncer/bouncer.yaml");
	if (stat(p, &st) == 0)
		return p;
	free(p);
	xasprintf(&p, "%s/bouncer/bouncer.yaml", BNC_SYSCONFDIR);
	if (strcmp(BNC_SYSCONFDIR, "/etc") != 0 && stat(p, &st) == 0)
		return p;
	free(p);
	return NULL;
}

void
config_defaults(struct config *c)
{
	const char *xdg, *home;

	memset(c, 0, sizeof(*c));
	c->max_message = BNC_MSG_MAX_DEFAULT;
	c->max_session_memory = BNC_SESSION_MEMORY_DEFAULT;
	c->ask_timeout = BNC_ASK_TIMEOUT_DEFAULT;
	c->consent_max_ttl = BNC_CONSENT_TTL_DEFAULT;
	c->consent_skew = BNC_CONSENT_SKEW_DEFAULT;
	if ((xdg = getenv("XDG_STATE_HOME")) != NULL && *xdg == '/')
		xasprintf(&c->state_dir, "%s/bouncer", xdg);
	else if ((home = getenv("HOME")) != NULL && *home == '/')
		xasprintf(&c->state_dir, "%s/.local/state/bouncer", home);
	else
		c->state_dir = xstrdup("/var/lib/bouncer");
}

int
config_load(struct config *c, const char *path, char *errbuf, size_t errlen)
{
	struct cfg_ctx x = { c, path, errbuf, errlen };
	struct ynode *root = NULL;
	const struct ynode *k;
	size_t i, j;
	int r;

	if ((r = yaml_load_file(path, BNC_CONFIG_MAX, &root, errbuf,
	    errlen)) != 0)
		goto out;
	free(c->path);
	c->path = xstrdup(path);
	if (root == NULL)
		goto out;		/* an empty file: defaults */
	if (root->type != YNODE_MAPPING) {
		r = cfail(&x, root, "(top level)", "must be a mapping, not %s",
		    ynode_type_name(root));
		goto out;
	}
	for (i = 0; i < root->n; i += 2) {
		k = root->items[i];
		for (j = 0; j < sizeof(cfg_keys) / sizeof(cfg_keys[0]); j++)
			if (strcmp(k->scalar, cfg_keys[j].name) == 0)
				break;
		if (j == sizeof(cfg_keys) / sizeof(cfg_keys[0])) {
			r = cfail(&x, k, k->scalar, "unknown key");
			goto out;
		}
		if ((r = cfg_keys[j].fn(&x, root->items[i + 1],
		    k->scalar)) != 0)
			goto out;
	}
 out:
	ynode_free(root);
	return r;
}

void
config_upstream_free(struct upstream_cfg *u)
{
	size_t i;

	free(u->name);
	free(u->command);
	for (i = 0; i < u->nargs; i++)
		free(u->args[i]);
	free(u->args);
	for (i = 0; i < u->nenv; i++)
		free(u->env[i]);
	free(u->env);
	free(u->cwd);
	memset(u, 0, sizeof(*u));
}

void
config_set_upstream(struct config *c, struct upstream_cfg *u)
{
	size_t i;

	for (i = 0; i < c->nups; i++)
		config_upstream_free(&c->ups[i]);
	free(c->ups);
	c->ups = xcalloc(1, sizeof(*c->ups));
	c->ups[0] = *u;
	c->nups = 1;
	memset(u, 0, sizeof(*u));
}

void
config_set_command(struct config *c, const char *name, char **argv)
{
	struct upstream_cfg *u;
	size_t i, n;

	for (i = 0; i < c->nups; i++)
		config_upstream_free(&c->ups[i]);
	free(c->ups);
	c->ups = xcalloc(1, sizeof(*c->ups));
	c->nups = 1;
	u = &c->ups[0];
	u->name = xstrdup(name);
	u->command = xstrdup(argv[0]);
	for (n = 0; argv[n + 1] != NULL; n++)
		;
	u->args = xcalloc(n + 1, sizeof(*u->args));
	for (i = 0; i < n; i++)
		u->args[i] = xstrdup(argv[i + 1]);
	u->nargs = n;
}

int
config_find(struct config *c, const char *path, char *err, size_t errlen)
{
	char *defpath = NULL;
	int r = 0;

	config_defaults(c);
	if (path == NULL)
		path = defpath = config_default_path();
	if (path != NULL && (r = config_load(c, path, err, errlen)) != 0)
		config_free(c);
	else
		config_env_state_dir(c);
	free(defpath);
	return r;
}

void
config_env_state_dir(struct config *c)
{
	const char *env;

	if ((env = getenv("BOUNCER_STATE_DIR")) != NULL && *env != '\0' &&
	    getuid() == geteuid() && getgid() == getegid()) {
		free(c->state_dir);
		c->state_dir = xstrdup(env);
	}
}

void
config_free(struct config *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nups; i++)
		config_upstream_free(&c->ups[i]);
	free(c->ups);
	for (i = 0; i < c->npacks; i++)
		free(c->packs[i]);
	free(c->packs);
	free_strvec(c->forbidden, c->nforbidden);
	free(c->policy);
	free(c->registry);
	work_free(c);
	free(c->consent_keys);
	free(c->state_dir);
	free(c->path);
	memset(c, 0, sizeof(*c));
}
