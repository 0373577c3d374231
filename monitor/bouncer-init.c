/*
 * bouncer-init.c - wrap (and unwrap) the servers of an MCP client config
 * so that they run behind bouncer-monitor (bouncer-init(1)).
 *
 * A user tool over the user's own file: it parses it with cJSON, points
 * each selected stdio server at bouncer-monitor -c FILE -u NAME, and
 * stashes the whole original entry under "x-bouncer-upstream", where
 * bouncer-monitor reads it (monitor/mcpconfig.c).  It checks that
 * bouncer-monitor can read the result before it replaces the file, and
 * replaces it only by an atomic rename after a backup.  It must never run
 * a server, print an env value, or be linked into bouncer-monitor.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bounds.h"
#include "buf.h"
#include "conffile.h"
#include "err.h"
#include "mcpconfig.h"
#include "xmalloc.h"

#ifndef BNC_BINDIR
#define BNC_BINDIR	"/usr/local/bin"
#endif

#define STASH_KEY	"x-bouncer-upstream"
#define BACKUP_SUFFIX	".bouncer-bak"
#define MONITOR_NAME	"bouncer-monitor"

struct init_opts {
	char		*path;		/* the config, absolute, symlinks resolved */
	const char	*monitor;	/* absolute path of bouncer-monitor */
	char		**sel;		/* -s names, or none: every server */
	size_t		 nsel;
	int		 dryrun;
	int		 unwrap;
};

/* Files to remove if we die before the rename: the temp file, the backup. */
static char	*rm_tmp, *rm_bak;

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: bouncer-init -c mcp-config [-nU] "
	    "[-m monitor] [-s server] ...\n");
	exit(1);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bouncer-init: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (rm_tmp != NULL)
		unlink(rm_tmp);
	if (rm_bak != NULL)
		unlink(rm_bak);
	exit(1);
}

static void __attribute__((format(printf, 1, 2)))
note(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bouncer-init: note: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void *
jcheck(void *p)
{
	if (p == NULL)
		die("out of memory");
	return p;
}

static void
jadd(cJSON *obj, const char *key, cJSON *item)
{
	if (!cJSON_AddItemToObject(obj, key, item))
		die("out of memory");
}

static void
bput(struct buf *b, const void *p, size_t len)
{
	if (buf_put(b, p, len) != 0)
		die("output too large");
}

static void
bputs(struct buf *b, const char *s)
{
	bput(b, s, strlen(s));
}

static int
selected(const struct init_opts *o, const char *name)
{
	size_t i;

	if (o->nsel == 0)
		return 1;
	for (i = 0; i < o->nsel; i++)
		if (strcmp(o->sel[i], name) == 0)
			return 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Reading. */

static char *
read_config(const char *path, struct stat *st, size_t *lenp)
{
	char *data;
	size_t len = 0;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		die("%s: %s", path, strerror(errno));
	if (fstat(fd, st) == -1)
		die("%s: %s", path, strerror(errno));
	if (!S_ISREG(st->st_mode))
		die("%s: not a regular file", path);
	data = xmalloc(BNC_MCPCONFIG_MAX + 2);
	for (;;) {
		n = read(fd, data + len, BNC_MCPCONFIG_MAX + 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			die("%s: %s", path, strerror(errno));
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > BNC_MCPCONFIG_MAX)
			die("%s: larger than %d bytes", path,
			    BNC_MCPCONFIG_MAX);
	}
	close(fd);
	data[len] = '\0';
	*lenp = len;
	return data;
}

static cJSON *
parse_config(const char *path, const char *data, size_t len)
{
	const char *end = NULL, *p;
	unsigned long line = 1;
	cJSON *root;

	if (memchr(data, '\0', len) != NULL)
		die("%s: not JSON (a NUL byte)", path);
	root = cJSON_ParseWithLengthOpts(data, len + 1, &end, 1);
	if (root == NULL) {
		if (end == NULL)
			end = cJSON_GetErrorPtr();
		for (p = data; end != NULL && p < end && p < data + len; p++)
			if (*p == '\n')
				line++;
		die("%s:%lu: not valid JSON", path, line);
	}
	if (!cJSON_IsObject(root))
		die("%s: the top level is not a JSON object", path);
	return root;
}

/* ------------------------------------------------------------------ */
/* Printing JSON the way the clients write it: indented, keys in order. */

static void
put_jstring(struct buf *b, const char *s)
{
	char esc[8];

	bputs(b, "\"");
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '"':
			bputs(b, "\\\"");
			break;
		case '\\':
			bputs(b, "\\\\");
			break;
		case '\b':
			bputs(b, "\\b");
			break;
		case '\f':
			bputs(b, "\\f");
			break;
		case '\n':
			bputs(b, "\\n");
			break;
		case '\r':
			bputs(b, "\\r");
			break;
		case '\t':
			bputs(b, "\\t");
			break;
		default:
			if ((unsigned char)*s < 0x20) {
				snprintf(esc, sizeof(esc), "\\u%04x",
				    (unsigned char)*s);
				bputs(b, esc);
			} else
				bput(b, s, 1);
		}
	}
	bputs(b, "\"");
}

static void
put_indent(struct buf *b, const char *unit, int depth)
{
	while (depth-- > 0)
		bputs(b, unit);
}

static void
put_value(struct buf *b, const cJSON *v, const char *unit, int depth)
{
	const cJSON *c;
	char *num;
	int obj = cJSON_IsObject(v);

	if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		if (v->child == NULL) {
			bputs(b, obj ? "{}" : "[]");
			return;
		}
		bputs(b, obj ? "{\n" : "[\n");
		for (c = v->child; c != NULL; c = c->next) {
			put_indent(b, unit, depth + 1);
			if (obj) {
				put_jstring(b, c->string);
				bputs(b, ": ");
			}
			put_value(b, c, unit, depth + 1);
			bputs(b, c->next != NULL ? ",\n" : "\n");
		}
		put_indent(b, unit, depth);
		bputs(b, obj ? "}" : "]");
	} else if (cJSON_IsString(v))
		put_jstring(b, v->valuestring);
	else if (cJSON_IsTrue(v))
		bputs(b, "true");
	else if (cJSON_IsFalse(v))
		bputs(b, "false");
	else if (cJSON_IsNull(v))
		bputs(b, "null");
	else {
		num = jcheck(cJSON_PrintUnformatted(v));
		bputs(b, num);
		cJSON_free(num);
	}
}

/* The indentation of the file's first indented line; two spaces if none. */
static void
detect_indent(const char *data, size_t len, char *unit, size_t unitlen)
{
	size_t i, n;

	snprintf(unit, unitlen, "  ");
	for (i = 0; i < len; i++) {
		if (data[i] != '\n')
			continue;
		for (n = 0; i + 1 + n < len &&
		    (data[i + 1 + n] == ' ' || data[i + 1 + n] == '\t'); n++)
			;
		if (n == 0 || i + 1 + n >= len || data[i + 1 + n] == '\n' ||
		    data[i + 1 + n] == '\r')
			continue;
		if (n >= unitlen)
			n = unitlen - 1;
		memcpy(unit, data + i + 1, n);
		unit[n] = '\0';
		return;
	}
}

static struct buf *
render(const cJSON *root, const char *orig, size_t origlen)
{
	struct buf *b = buf_new();
	char unit[9];
	size_t i = origlen;

	detect_indent(orig, origlen, unit, sizeof(unit));
	put_value(b, root, unit, 0);
	/* The clients differ; keep the file's final newline, or none. */
	while (i > 0 && (orig[i - 1] == ' ' || orig[i - 1] == '\t' ||
	    orig[i - 1] == '\r'))
		i--;
	if (i > 0 && orig[i - 1] == '\n')
		bputs(b, "\n");
	return b;
}

/* ------------------------------------------------------------------ */
/* The summary: argv as a shell would read it, never an env value. */

static void
put_word(struct buf *b, const char *s)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-";
	const char *p;
	int quote = *s == '\0' || strspn(s, safe) != strlen(s);

	if (quote)
		bputs(b, "'");
	for (p = s; *p != '\0'; p++) {
		if (*p == '\'')
			bputs(b, "'\\''");
		else if ((unsigned char)*p < 0x20 || *p == 0x7f)
			bputs(b, "?");
		else
			bput(b, p, 1);
	}
	if (quote)
		bputs(b, "'");
}

static void
put_argv(struct buf *b, const cJSON *e)
{
	const cJSON *cmd, *args, *a, *env;

	cmd = cJSON_GetObjectItemCaseSensitive(e, "command");
	args = cJSON_GetObjectItemCaseSensitive(e, "args");
	env = cJSON_GetObjectItemCaseSensitive(e, "env");
	if (cJSON_IsString(cmd))
		put_word(b, cmd->valuestring);
	cJSON_ArrayForEach(a, args) {
		bputs(b, " ");
		if (cJSON_IsString(a))
			put_word(b, a->valuestring);
	}
	if (cJSON_IsObject(env) && env->child != NULL) {
		bputs(b, " (env:");
		cJSON_ArrayForEach(a, env) {
			bputs(b, " ");
			put_word(b, a->string);
		}
		bputs(b, ")");
	}
}

static void
summary(struct buf *b, const char *verb, const char *name, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));

static void
summary(struct buf *b, const char *verb, const char *name, const char *fmt,
    ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	bputs(b, verb);
	put_indent(b, " ", 8 - (int)strlen(verb));
	put_word(b, name);
	bputs(b, msg);
}

/* ------------------------------------------------------------------ */
/* Wrapping. */

/* Why bouncer-monitor could not run this entry, or NULL if it can. */
static const char *
not_wrappable(const cJSON *e, const char *name, char *why, size_t whylen)
{
	const cJSON *v, *a;
	const char *base;
	size_t n;

	if (!cJSON_IsObject(e))
		return "not an object";
	v = cJSON_GetObjectItemCaseSensitive(e, "type");
	if (v != NULL && !cJSON_IsString(v))
		return "its type is not a string";
	if (v != NULL && strcmp(v->valuestring, "stdio") != 0) {
		snprintf(why, whylen, "not a stdio server (type \"%.32s\")",
		    v->valuestring);
		return why;
	}
	if (cJSON_GetObjectItemCaseSensitive(e, "url") != NULL)
		return "not a stdio server (it has a url)";
	v = cJSON_GetObjectItemCaseSensitive(e, "command");
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
		return "it has no command";
	if (strlen(v->valuestring) > BNC_PATH_MAX)
		return "its command is too long";
	base = strrchr(v->valuestring, '/');
	if (strcmp(base != NULL ? base + 1 : v->valuestring,
	    MONITOR_NAME) == 0)
		return "it already runs " MONITOR_NAME;
	if (!config_upstream_name_ok(name))
		return "bouncer-monitor -u takes 1 to 64 of A-Z a-z 0-9 _ - "
		    "as a name";
	if (cJSON_GetObjectItemCaseSensitive(e, "envFile") != NULL)
		return "it uses envFile, which bouncer-monitor does not read";
	if ((v = cJSON_GetObjectItemCaseSensitive(e, "args")) != NULL) {
		if (!cJSON_IsArray(v))
			return "its args is not an array";
		n = 0;
		cJSON_ArrayForEach(a, v) {
			if (!cJSON_IsString(a))
				return "its args are not all strings";
			if (strlen(a->valuestring) > BNC_ARG_LEN_MAX)
				return "an argument is too long";
			n++;
		}
		if (n > BNC_ARGV_MAX - 2)
			return "too many arguments";
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(e, "env")) != NULL) {
		if (!cJSON_IsObject(v))
			return "its env is not an object";
		n = 0;
		cJSON_ArrayForEach(a, v) {
			if (!cJSON_IsString(a))
				return "its env values are not all strings";
			if (a->string[0] == '\0' ||
			    strchr(a->string, '=') != NULL)
				return "its env has a bad variable name";
			if (strlen(a->string) + 1 + strlen(a->valuestring) >
			    BNC_ARG_LEN_MAX)
				return "an env value is too long";
			n++;
		}
		if (n > BNC_ENV_MAX)
			return "too many env variables";
	}
	v = cJSON_GetObjectItemCaseSensitive(e, "cwd");
	if (v != NULL && (!cJSON_IsString(v) ||
	    strlen(v->valuestring) > BNC_PATH_MAX))
		return "its cwd is not a string";
	return NULL;
}

static cJSON *
monitor_args(const struct init_opts *o, const char *name)
{
	const char *argv[] = { "-c", o->path, "-u", name };

	return jcheck(cJSON_CreateStringArray(argv, 4));
}

/*
 * The wrapped entry: the client's own keys (type, disabled, timeout...)
 * stay where they were; command and args start the monitor; env and cwd
 * live only in the stash, so no secret is written twice.
 */
static cJSON *
wrap_entry(const struct init_opts *o, const cJSON *e, const char *name)
{
	cJSON *w, *c;
	int hasargs;

	hasargs = cJSON_GetObjectItemCaseSensitive(e, "args") != NULL;
	w = jcheck(cJSON_CreateObject());
	for (c = e->child; c != NULL; c = c->next) {
		if (strcmp(c->string, "command") == 0) {
			jcheck(cJSON_AddStringToObject(w, "command",
			    o->monitor));
			if (!hasargs)
				jadd(w, "args", monitor_args(o, name));
		} else if (strcmp(c->string, "args") == 0)
			jadd(w, "args", monitor_args(o, name));
		else if (strcmp(c->string, "env") != 0 &&
		    strcmp(c->string, "cwd") != 0)
			jadd(w, c->string, jcheck(cJSON_Duplicate(c, 1)));
	}
	jadd(w, STASH_KEY, jcheck(cJSON_Duplicate(e, 1)));
	return w;
}

/* Returns the number of entries changed; names them in *changedp. */
static size_t
apply(const struct init_opts *o, cJSON *servers, struct buf *sum,
    char ***changedp)
{
	cJSON *e, *next, *stash, *repl;
	const char *why;
	char whybuf[128];
	char **changed;
	size_t n = 0;

	changed = xcalloc((size_t)cJSON_GetArraySize(servers) + 1,
	    sizeof(*changed));
	for (e = servers->child; e != NULL; e = next) {
		next = e->next;
		if (!selected(o, e->string))
			continue;
		stash = cJSON_IsObject(e) ?
		    cJSON_GetObjectItemCaseSensitive(e, STASH_KEY) : NULL;
		if (o->unwrap) {
			if (stash == NULL) {
				summary(sum, "keep", e->string,
				    ": not wrapped\n");
				continue;
			}
			if (!cJSON_IsObject(stash))
				die("%s: mcpServers.%s.%s is not an object; "
				    "restore the entry by hand", o->path,
				    e->string, STASH_KEY);
			summary(sum, "unwrap", e->string, ": ");
			put_argv(sum, stash);
			bputs(sum, "\n");
			repl = jcheck(cJSON_Duplicate(stash, 1));
		} else {
			if (stash != NULL) {
				summary(sum, "keep", e->string,
				    ": already wrapped\n");
				continue;
			}
			if ((why = not_wrappable(e, e->string, whybuf,
			    sizeof(whybuf))) != NULL) {
				if (o->nsel > 0)
					die("%s: cannot wrap %s: %s", o->path,
					    e->string, why);
				summary(sum, "skip", e->string, ": %s\n", why);
				continue;
			}
			summary(sum, "wrap", e->string, ": ");
			put_argv(sum, e);
			bputs(sum, "\n        -> ");
			put_word(sum, o->monitor);
			bputs(sum, " -c ");
			put_word(sum, o->path);
			bputs(sum, " -u ");
			put_word(sum, e->string);
			bputs(sum, "\n");
			repl = wrap_entry(o, e, e->string);
		}
		changed[n++] = xstrdup(e->string);
		/* ReplaceItemViaPointer keeps the place, not the key. */
		cJSON_free(repl->string);
		repl->string = jcheck(strdup(e->string));
		if (!cJSON_ReplaceItemViaPointer(servers, e, repl))
			die("out of memory");
	}
	*changedp = changed;
	return n;
}

/* Servers in Claude Code's per-project (local scope) lists. */
static size_t
project_servers(const cJSON *root)
{
	const cJSON *projects, *p, *s;
	size_t n = 0;

	projects = cJSON_GetObjectItemCaseSensitive(root, "projects");
	cJSON_ArrayForEach(p, projects) {
		s = cJSON_GetObjectItemCaseSensitive(p, "mcpServers");
		if (cJSON_IsObject(s))
			n += (size_t)cJSON_GetArraySize(s);
	}
	return cJSON_IsObject(projects) ? n : 0;
}

/* ------------------------------------------------------------------ */
/* Checking and writing. */

static void
write_all(int fd, const void *p, size_t len, const char *what)
{
	const uint8_t *q = p;
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, q, len)) == -1) {
			if (errno == EINTR)
				continue;
			die("%s: write: %s", what, strerror(errno));
		}
		q += n;
		len -= (size_t)n;
	}
}

/* bouncer-monitor must be able to read every entry wrapped now. */
static void
verify(const struct init_opts *o, const struct buf *text, char **names)
{
	struct upstream_cfg u;
	char fdpath[64], err[1024];
	size_t i, plen;
	int fd;

	if ((fd = memfd_create("bouncer-init", MFD_CLOEXEC)) == -1)
		die("memfd_create: %s", strerror(errno));
	write_all(fd, buf_ptr(text), buf_len(text), "memfd");
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	plen = strlen(fdpath);
	for (i = 0; names[i] != NULL; i++) {
		memset(&u, 0, sizeof(u));
		if (mcpconfig_load(fdpath, names[i], &u, err,
		    sizeof(err)) != 0)
			die("bouncer-monitor could not read the result, so "
			    "nothing was written: %s (as rewritten)%s",
			    o->path, strncmp(err, fdpath, plen) == 0 ?
			    err + plen : err);
		config_upstream_free(&u);
	}
	close(fd);
}

/* A new backup file next to path, never replacing one; its name. */
static char *
backup(const char *path, const struct stat *st, const char *data,
    size_t len)
{
	char *name = NULL;
	int fd = -1, i;

	for (i = 0; i <= BNC_BACKUPS_MAX; i++) {
		free(name);
		if (i == 0)
			xasprintf(&name, "%s%s", path, BACKUP_SUFFIX);
		else
			xasprintf(&name, "%s%s.%d", path, BACKUP_SUFFIX, i);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
		    O_NOFOLLOW, 0600);
		if (fd != -1 || errno != EEXIST)
			break;
	}
	if (fd == -1 && i > BNC_BACKUPS_MAX)
		die("%s: %d backups exist already (%s%s.*): remove some",
		    path, BNC_BACKUPS_MAX + 1, path, BACKUP_SUFFIX);
	if (fd == -1)
		die("%s: %s", name, strerror(errno));
	rm_bak = name;
	if (fchmod(fd, st->st_mode & 07777) == -1)
		die("%s: fchmod: %s", name, strerror(errno));
	write_all(fd, data, len, name);
	if (fsync(fd) == -1 || close(fd) == -1)
		die("%s: %s", name, strerror(errno));
	return name;
}

static int
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/*
 * Temp file in the same directory with the original's mode, fsync,
 * backup, a last check that nobody rewrote the file meanwhile, rename,
 * fsync of the directory.  Returns the backup's name.
 */
static char *
replace_file(const struct init_opts *o, const struct stat *st,
    const char *orig, size_t origlen, const struct buf *text)
{
	struct stat now;
	char *tmp, *dir, *dcopy, *bcopy, *bak;
	int fd, dfd;

	dcopy = xstrdup(o->path);
	bcopy = xstrdup(o->path);
	dir = dirname(dcopy);
	xasprintf(&tmp, "%s/.%s.bouncer-init.XXXXXX", dir, basename(bcopy));
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1)
		die("%s: %s", tmp, strerror(errno));
	rm_tmp = tmp;
	if (fchmod(fd, st->st_mode & 07777) == -1)
		die("%s: fchmod: %s", tmp, strerror(errno));
	/* Root editing a user's file: keep the owner (an error is fine). */
	if (fchown(fd, st->st_uid, st->st_gid) == -1 && errno != EPERM)
		note("%s: fchown: %s", tmp, strerror(errno));
	write_all(fd, buf_ptr(text), buf_len(text), tmp);
	if (fsync(fd) == -1 || close(fd) == -1)
		die("%s: %s", tmp, strerror(errno));
	bak = backup(o->path, st, orig, origlen);
	rm_bak = bak;
	if (stat(o->path, &now) == -1 || !same_file(st, &now))
		die("%s changed while bouncer-init ran (is the client "
		    "running?); nothing was written", o->path);
	if (rename(tmp, o->path) == -1)
		die("rename %s: %s", o->path, strerror(errno));
	rm_tmp = rm_bak = NULL;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		if (fsync(dfd) == -1)
			note("%s: fsync: %s", dir, strerror(errno));
		close(dfd);
	}
	free(tmp);
	free(dcopy);
	free(bcopy);
	return bak;
}

/* ------------------------------------------------------------------ */

int
main(int argc, char **argv)
{
	struct init_opts o;
	struct stat st;
	struct buf *sum, *text = NULL;
	const char *cfgarg = NULL;
	char *data, *bak, **changed = NULL, *defmon = NULL;
	cJSON *root, *servers, *e, *f;
	size_t len, n = 0, i, np;
	int ch;

	memset(&o, 0, sizeof(o));
	while ((ch = getopt(argc, argv, "c:m:nUs:")) != -1) {
		switch (ch) {
		case 'c':
			cfgarg = optarg;
			break;
		case 'm':
			o.monitor = optarg;
			break;
		case 'n':
			o.dryrun = 1;
			break;
		case 'U':
			o.unwrap = 1;
			break;
		case 's':
			if (o.nsel >= BNC_MCPCONFIG_SERVERS_MAX)
				die("more than %d -s options",
				    BNC_MCPCONFIG_SERVERS_MAX);
			o.sel = xreallocarray(o.sel, o.nsel + 1,
			    sizeof(*o.sel));
			o.sel[o.nsel++] = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || cfgarg == NULL)
		usage();
	if (o.monitor == NULL)
		o.monitor = defmon = xstrdup(BNC_BINDIR "/" MONITOR_NAME);
	if (o.monitor[0] != '/' || strlen(o.monitor) > BNC_PATH_MAX)
		die("-m: the monitor's path must be absolute");
	if ((o.path = realpath(cfgarg, NULL)) == NULL)
		die("%s: %s", cfgarg, strerror(errno));

	data = read_config(o.path, &st, &len);
	root = parse_config(o.path, data, len);
	servers = cJSON_GetObjectItemCaseSensitive(root, "mcpServers");
	if (servers != NULL && !cJSON_IsObject(servers))
		die("%s: mcpServers is not an object", o.path);
	for (e = servers != NULL ? servers->child : NULL; e != NULL;
	    e = e->next)
		for (f = e->next; f != NULL; f = f->next)
			if (strcmp(e->string, f->string) == 0)
				die("%s: server %s appears twice in "
				    "mcpServers", o.path, e->string);
	for (i = 0; i < o.nsel; i++)
		if (cJSON_GetObjectItemCaseSensitive(servers,
		    o.sel[i]) == NULL)
			die("%s: no server %s in mcpServers", o.path,
			    o.sel[i]);
	if (!o.unwrap && (np = project_servers(root)) > 0)
		note("%zu server%s in projects.*.mcpServers (Claude Code's "
		    "local scope) left alone: bouncer-init wraps the top-level "
		    "mcpServers only", np, np == 1 ? "" : "s");

	sum = buf_new();
	if (servers != NULL)
		n = apply(&o, servers, sum, &changed);
	fwrite(buf_ptr(sum), 1, buf_len(sum), stdout);
	if (n == 0) {
		printf("%s: nothing to change\n", o.path);
		goto done;
	}
	text = render(root, data, len);
	if (!o.unwrap)
		verify(&o, text, changed);
	if (o.dryrun) {
		printf("%s: not written (-n): %zu server%s would be %s\n",
		    o.path, n, n == 1 ? "" : "s",
		    o.unwrap ? "unwrapped" : "wrapped");
		goto done;
	}
	if (!o.unwrap && access(o.monitor, X_OK) == -1)
		note("%s: %s (the wrapped servers need it)", o.monitor,
		    strerror(errno));
	bak = replace_file(&o, &st, data, len, text);
	printf("%s: %zu server%s %s; the original is in %s\n", o.path, n,
	    n == 1 ? "" : "s", o.unwrap ? "unwrapped" : "wrapped", bak);
	free(bak);
 done:
	if (fflush(stdout) == EOF || ferror(stdout))
		die("stdout: %s", strerror(errno));
	for (i = 0; changed != NULL && changed[i] != NULL; i++)
		free(changed[i]);
	free(changed);
	buf_free(text);
	buf_free(sum);
	cJSON_Delete(root);
	free(data);
	free(o.sel);
	free(o.path);
	free(defmon);
	return 0;
}
