/*
 * mcpconfig.c - read the upstream bouncer-init stashed in an MCP client
 * config (bouncer-monitor -c FILE -u NAME).
 *
 * The file is JSON, which libyaml reads as YAML flow syntax through
 * yaml-tree.c, so the monitor keeps its rule of never calling a JSON
 * parser.  The few JSON spellings libyaml refuses or reads differently
 * are rewritten first to the YAML spelling of the same value (see
 * json_for_yaml()).  This file must never act on what it reads: it only
 * fills a struct upstream_cfg for the monitor to start.
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
#include <unistd.h>

#include "bounds.h"
#include "buf.h"
#include "conffile.h"
#include "err.h"
#include "mcpconfig.h"
#include "xmalloc.h"
#include "yaml-tree.h"

#define STASH_KEY	"x-bouncer-upstream"

struct mc_ctx {
	const char	*path;		/* named in messages */
	char		*err;
	size_t		 errlen;
};

static int __attribute__((format(printf, 4, 5)))
mfail(struct mc_ctx *x, const struct ynode *n, const char *key,
    const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n != NULL)
		snprintf(x->err, x->errlen, "%s:%lu: %s: %s", x->path,
		    n->line, key, msg);
	else
		snprintf(x->err, x->errlen, "%s: %s: %s", x->path, key, msg);
	return -BNC_ERR_CONFIG;
}

/* What a node is, in JSON's words. */
static const char *
jtype(const struct ynode *n)
{
	if (n == NULL)
		return "nothing";
	if (n->type == YNODE_MAPPING)
		return "an object";
	if (n->type == YNODE_SEQUENCE)
		return "an array";
	if (n->quoted)
		return "a string";
	if (strcmp(n->scalar, "null") == 0)
		return "null";
	if (strcmp(n->scalar, "true") == 0 || strcmp(n->scalar, "false") == 0)
		return "a boolean";
	return "a number";
}

static int
hex4(const char *s, size_t left, unsigned int *vp)
{
	unsigned int v = 0;
	size_t i;

	if (left < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		v <<= 4;
		if (s[i] >= '0' && s[i] <= '9')
			v |= (unsigned int)(s[i] - '0');
		else if (s[i] >= 'a' && s[i] <= 'f')
			v |= (unsigned int)(s[i] - 'a' + 10);
		else if (s[i] >= 'A' && s[i] <= 'F')
			v |= (unsigned int)(s[i] - 'A' + 10);
		else
			return -1;
	}
	*vp = v;
	return 0;
}

/*
 * JSON that libyaml refuses or reads differently, rewritten to the YAML
 * spelling of the same value.  Inside strings: a \uD83D\uDE00 surrogate
 * pair becomes \U0001F600; a lone surrogate or \u0000 (which no C string
 * can carry) becomes \uFFFD; raw DEL, C1 controls, U+2028, U+2029,
 * U+FFFE and U+FFFF (not printable in YAML 1.1, or line breaks in it)
 * become escapes.  Outside strings a tab becomes a space (JSON
 * whitespace; YAML refuses a tab where a block token may start).  No line
 * is added or removed, so line numbers stay right.  Returns 1 if the
 * text changed, 0 if not, or a negative code.
 */
static int
json_for_yaml(const char *in, size_t len, struct buf *out)
{
	const unsigned char *s = (const unsigned char *)in;
	unsigned int hi, lo;
	char esc[16];
	size_t i = 0, run = 0;
	int instr = 0, changed = 0, r;

#define FLUSH()	do {							\
		if ((r = buf_put(out, s + run, i - run)) != 0)		\
			return r;					\
	} while (0)
#define EMIT(str, skip)	do {						\
		FLUSH();						\
		if ((r = buf_put(out, (str), strlen(str))) != 0)	\
			return r;					\
		i += (skip);						\
		run = i;						\
		changed = 1;						\
	} while (0)

	while (i < len) {
		if (!instr) {
			if (s[i] == '"')
				instr = 1;
			if (s[i] == '\t')
				EMIT(" ", 1);
			else
				i++;
			continue;
		}
		if (s[i] == '"') {
			instr = 0;
			i++;
		} else if (s[i] == '\\' && i + 1 < len && s[i + 1] == 'u' &&
		    hex4(in + i + 2, len - i - 2, &hi) == 0) {
			if (hi >= 0xd800 && hi <= 0xdbff && i + 11 < len &&
			    s[i + 6] == '\\' && s[i + 7] == 'u' &&
			    hex4(in + i + 8, len - i - 8, &lo) == 0 &&
			    lo >= 0xdc00 && lo <= 0xdfff) {
				snprintf(esc, sizeof(esc), "\\U%08X",
				    0x10000 + ((hi - 0xd800) << 10) +
				    (lo - 0xdc00));
				EMIT(esc, 12);
			} else if ((hi >= 0xd800 && hi <= 0xdfff) || hi == 0)
				EMIT("\\uFFFD", 6);
			else
				i += 6;
		} else if (s[i] == '\\')
			i += i + 1 < len ? 2 : 1;
		else if (s[i] == 0x7f)
			EMIT("\\x7F", 1);
		else if (s[i] == 0xc2 && i + 1 < len && s[i + 1] >= 0x80 &&
		    s[i + 1] <= 0x9f) {
			snprintf(esc, sizeof(esc), "\\x%02X", s[i + 1]);
			EMIT(esc, 2);
		} else if (s[i] == 0xe2 && i + 2 < len && s[i + 1] == 0x80 &&
		    (s[i + 2] == 0xa8 || s[i + 2] == 0xa9))
			EMIT(s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", 3);
		else if (s[i] == 0xef && i + 2 < len && s[i + 1] == 0xbf &&
		    (s[i + 2] == 0xbe || s[i + 2] == 0xbf))
			EMIT(s[i + 2] == 0xbe ? "\\uFFFE" : "\\uFFFF", 3);
		else
			i++;
	}
	FLUSH();
#undef EMIT
#undef FLUSH
	return changed;
}

static int
read_file(struct mc_ctx *x, char **datap, size_t *lenp)
{
	struct stat st;
	char *data = NULL;
	size_t len = 0;
	ssize_t n;
	int fd, r = -BNC_ERR_CONFIG;

	*datap = NULL;
	if ((fd = open(x->path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(x->err, x->errlen, "%s: %s", x->path,
		    strerror(errno));
		return r;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(x->err, x->errlen, "%s: not a regular file", x->path);
		goto out;
	}
	data = xmalloc(BNC_MCPCONFIG_MAX + 1);
	for (;;) {
		n = read(fd, data + len, BNC_MCPCONFIG_MAX + 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			snprintf(x->err, x->errlen, "%s: %s", x->path,
			    strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > BNC_MCPCONFIG_MAX) {
			snprintf(x->err, x->errlen, "%s: larger than %d bytes",
			    x->path, BNC_MCPCONFIG_MAX);
			goto out;
		}
	}
	*datap = data;
	*lenp = len;
	data = NULL;
	r = 0;
 out:
	free(data);
	close(fd);
	return r;
}

static int
load_tree(struct mc_ctx *x, struct ynode **rootp)
{
	struct buf *text = NULL;
	char *data = NULL;
	size_t len = 0;
	int r;

	*rootp = NULL;
	if ((r = read_file(x, &data, &len)) != 0)
		return r;
	text = buf_new();
	if ((r = json_for_yaml(data, len, text)) < 0) {
		snprintf(x->err, x->errlen, "%s: %s", x->path, bnc_err(r));
		r = -BNC_ERR_CONFIG;
	} else if (r == 0)
		r = yaml_load_file(x->path, BNC_MCPCONFIG_MAX, rootp, x->err,
		    x->errlen);
	else
		r = yaml_load_buf(x->path, (const char *)buf_ptr(text),
		    buf_len(text), rootp, x->err, x->errlen);
	free(data);
	buf_free(text);
	return r;
}

/* The value of key in mapping m, or NULL. */
static const struct ynode *
map_get(const struct ynode *m, const char *key, const struct ynode **kp)
{
	size_t i;

	for (i = 0; i + 1 < m->n; i += 2)
		if (strcmp(m->items[i]->scalar, key) == 0) {
			if (kp != NULL)
				*kp = m->items[i];
			return m->items[i + 1];
		}
	return NULL;
}

static int
get_string(struct mc_ctx *x, const struct ynode *v, const char *key,
    size_t max, const char **sp)
{
	if (v->type != YNODE_SCALAR || !v->quoted)
		return mfail(x, v, key, "must be a string, not %s", jtype(v));
	if (strlen(v->scalar) > max)
		return mfail(x, v, key, "longer than %zu bytes", max);
	*sp = v->scalar;
	return 0;
}

/*
 * Claude Code's expansion: ${VAR} is VAR's value, ${VAR:-default} the
 * value or, if VAR is unset, default; an unset ${VAR} stays as written.
 * One level only: a value that holds ${...} is not expanded again.
 */
static int
expand(struct mc_ctx *x, const struct ynode *v, const char *key, size_t max,
    char **out)
{
	const char *s = v->scalar, *end, *val;
	char *name, *def;
	struct buf *b;
	int r = 0;

	*out = NULL;
	b = buf_new();
	while (*s != '\0' && r == 0) {
		if (s[0] != '$' || s[1] != '{' ||
		    (end = strchr(s + 2, '}')) == NULL || end == s + 2) {
			r = buf_put(b, s++, 1);
			continue;
		}
		name = xstrndup(s + 2, (size_t)(end - s - 2));
		if ((def = strstr(name, ":-")) != NULL) {
			*def = '\0';
			def += 2;
		}
		val = strchr(name, '=') == NULL ? getenv(name) : NULL;
		if (val == NULL)
			val = def;
		if (val != NULL)
			r = buf_put(b, val, strlen(val));
		else
			r = buf_put(b, s, (size_t)(end + 1 - s));
		free(name);
		s = end + 1;
		if (r == 0 && buf_len(b) > max)
			break;
	}
	if (r == 0 && buf_len(b) > max)
		r = mfail(x, v, key, "longer than %zu bytes after ${...} "
		    "expansion", max);
	else if (r == 0)
		*out = xstrndup((const char *)buf_ptr(b), buf_len(b));
	else
		r = mfail(x, v, key, "%s", bnc_err(r));
	buf_free(b);
	return r;
}

static int
stash_args(struct mc_ctx *x, const struct ynode *v, const char *key,
    struct upstream_cfg *u)
{
	const char *s;
	size_t i;
	int r;

	if (v->type != YNODE_SEQUENCE)
		return mfail(x, v, key, "must be an array, not %s", jtype(v));
	if (v->n > BNC_ARGV_MAX - 2)
		return mfail(x, v, key, "more than %d arguments",
		    BNC_ARGV_MAX - 2);
	u->args = xcalloc(v->n + 1, sizeof(*u->args));
	for (i = 0; i < v->n; i++) {
		if ((r = get_string(x, v->items[i], key, BNC_ARG_LEN_MAX,
		    &s)) != 0 ||
		    (r = expand(x, v->items[i], key, BNC_ARG_LEN_MAX,
		    &u->args[i])) != 0)
			return r;
		u->nargs++;
	}
	return 0;
}

static int
stash_env(struct mc_ctx *x, const struct ynode *v, const char *key,
    struct upstream_cfg *u)
{
	const struct ynode *ek, *ev;
	const char *s;
	char *val = NULL;
	size_t i;
	int r;

	if (v->type != YNODE_MAPPING)
		return mfail(x, v, key, "must be an object, not %s", jtype(v));
	if (v->n / 2 > BNC_ENV_MAX)
		return mfail(x, v, key, "more than %d variables", BNC_ENV_MAX);
	u->env = xcalloc(v->n / 2 + 1, sizeof(*u->env));
	for (i = 0; i + 1 < v->n; i += 2) {
		ek = v->items[i];
		ev = v->items[i + 1];
		if (ek->scalar[0] == '\0' || strchr(ek->scalar, '=') != NULL)
			return mfail(x, ek, key, "bad variable name \"%.64s\"",
			    ek->scalar);
		if ((r = get_string(x, ev, key, BNC_ARG_LEN_MAX, &s)) != 0 ||
		    (r = expand(x, ev, key, BNC_ARG_LEN_MAX, &val)) != 0)
			return r;
		if (strlen(ek->scalar) + 1 + strlen(val) > BNC_ARG_LEN_MAX) {
			free(val);
			return mfail(x, ev, key, "%.64s: longer than %d bytes",
			    ek->scalar, BNC_ARG_LEN_MAX);
		}
		xasprintf(&u->env[u->nenv++], "%s=%s", ek->scalar, val);
		free(val);
	}
	return 0;
}

/* One stashed entry: the launch keys, checked; the client's own ignored. */
static int
stash_fill(struct mc_ctx *x, const struct ynode *st, const char *base,
    struct upstream_cfg *u)
{
	const struct ynode *k, *v;
	const char *s;
	char key[BNC_UPSTREAM_NAME_MAX + 128];
	size_t i;
	int r;

	for (i = 0; i + 1 < st->n; i += 2) {
		k = st->items[i];
		v = st->items[i + 1];
		snprintf(key, sizeof(key), "%s.%.32s", base, k->scalar);
		if (strcmp(k->scalar, "command") == 0) {
			if ((r = get_string(x, v, key, BNC_PATH_MAX, &s)) != 0)
				return r;
			if (*s == '\0')
				return mfail(x, v, key, "is empty");
			if ((r = expand(x, v, key, BNC_PATH_MAX,
			    &u->command)) != 0)
				return r;
		} else if (strcmp(k->scalar, "args") == 0) {
			if ((r = stash_args(x, v, key, u)) != 0)
				return r;
		} else if (strcmp(k->scalar, "env") == 0) {
			if ((r = stash_env(x, v, key, u)) != 0)
				return r;
		} else if (strcmp(k->scalar, "cwd") == 0) {
			if ((r = get_string(x, v, key, BNC_PATH_MAX, &s)) != 0)
				return r;
			u->cwd = xstrdup(s);
		} else if (strcmp(k->scalar, "type") == 0) {
			if ((r = get_string(x, v, key, 64, &s)) != 0)
				return r;
			if (strcmp(s, "stdio") != 0)
				return mfail(x, v, key, "\"%s\" is not a stdio "
				    "server", s);
		} else if (strcmp(k->scalar, "url") == 0)
			return mfail(x, v, key, "a server with a url is not "
			    "a stdio server");
		else if (strcmp(k->scalar, "envFile") == 0)
			return mfail(x, v, key, "not supported by "
			    "bouncer-monitor: move the variables into env");
	}
	if (u->command == NULL)
		return mfail(x, st, base, "has no command");
	return 0;
}

int
mcpconfig_load(const char *path, const char *name, struct upstream_cfg *u,
    char *err, size_t errlen)
{
	struct mc_ctx x = { path, err, errlen };
	struct ynode *root = NULL;
	const struct ynode *servers, *entry, *stash;
	char key[BNC_UPSTREAM_NAME_MAX + 64];
	int r;

	if (!config_upstream_name_ok(name)) {
		snprintf(err, errlen, "%s: bad server name \"%.80s\" (1 to 64 "
		    "of A-Z a-z 0-9 _ -)", path, name);
		return -BNC_ERR_CONFIG;
	}
	if ((r = load_tree(&x, &root)) != 0)
		goto out;
	if (root == NULL || root->type != YNODE_MAPPING) {
		r = mfail(&x, root, "(top level)", "must be an object, not %s",
		    jtype(root));
		goto out;
	}
	if ((servers = map_get(root, "mcpServers", NULL)) == NULL) {
		r = mfail(&x, root, "mcpServers", "no such key");
		goto out;
	}
	if (servers->type != YNODE_MAPPING) {
		r = mfail(&x, servers, "mcpServers", "must be an object, not "
		    "%s", jtype(servers));
		goto out;
	}
	snprintf(key, sizeof(key), "mcpServers.%s", name);
	if ((entry = map_get(servers, name, NULL)) == NULL) {
		r = mfail(&x, servers, key, "no such server");
		goto out;
	}
	if (entry->type != YNODE_MAPPING) {
		r = mfail(&x, entry, key, "must be an object, not %s",
		    jtype(entry));
		goto out;
	}
	if ((stash = map_get(entry, STASH_KEY, NULL)) == NULL) {
		r = mfail(&x, entry, key, "not wrapped (no %s): run "
		    "bouncer-init -c %s", STASH_KEY, path);
		goto out;
	}
	snprintf(key, sizeof(key), "mcpServers.%s.%s", name, STASH_KEY);
	if (stash->type != YNODE_MAPPING) {
		r = mfail(&x, stash, key, "must be an object, not %s",
		    jtype(stash));
		goto out;
	}
	u->name = xstrdup(name);
	r = stash_fill(&x, stash, key, u);
 out:
	if (r != 0)
		config_upstream_free(u);
	ynode_free(root);
	return r;
}
