/*
 * yaml-tree.c - libyaml events into a node tree with line numbers.
 *
 * Never used on bytes from a client, an upstream or a web API (DESIGN 2).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "bounds.h"
#include "buf.h"
#include "err.h"
#include "xmalloc.h"
#include "yaml-tree.h"

#define YAML_DEPTH_MAX	32

static struct ynode *
ynode_new(enum ynode_type t, unsigned long line)
{
	struct ynode *n;

	n = xcalloc(1, sizeof(*n));
	n->type = t;
	n->line = line;
	return n;
}

void
ynode_free(struct ynode *n)
{
	size_t i;

	if (n == NULL)
		return;
	for (i = 0; i < n->n; i++)
		ynode_free(n->items[i]);
	free(n->items);
	free(n->scalar);
	free(n);
}

static void
ynode_add(struct ynode *parent, struct ynode *child)
{
	parent->items = xreallocarray(parent->items, parent->n + 1,
	    sizeof(*parent->items));
	parent->items[parent->n++] = child;
}

struct yload {
	yaml_parser_t	 parser;
	const char	*path;
	char		*err;
	size_t		 errlen;
};

static int
yfail(struct yload *y, unsigned long line, const char *msg)
{
	snprintf(y->err, y->errlen, "%s:%lu: %s", y->path, line, msg);
	return -BNC_ERR_CONFIG;
}

/* Builds the node that begins with ev (already taken). */
static int
build(struct yload *y, yaml_event_t *ev, int depth, struct ynode **out)
{
	yaml_event_t child;
	struct ynode *n = NULL, *c = NULL;
	unsigned long line = ev->start_mark.line + 1;
	int r = 0;

	*out = NULL;
	if (depth > YAML_DEPTH_MAX)
		return yfail(y, line, "nesting too deep");
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		return yfail(y, line, "aliases are not allowed");
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.anchor != NULL)
			return yfail(y, line, "anchors are not allowed");
		n = ynode_new(YNODE_SCALAR, line);
		n->scalar = xstrndup((const char *)ev->data.scalar.value,
		    ev->data.scalar.length);
		if (strlen(n->scalar) != ev->data.scalar.length) {
			ynode_free(n);
			return yfail(y, line, "NUL character in scalar");
		}
		n->quoted = ev->data.scalar.style !=
		    YAML_PLAIN_SCALAR_STYLE;
		*out = n;
		return 0;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if ((ev->type == YAML_SEQUENCE_START_EVENT ?
		    ev->data.sequence_start.anchor :
		    ev->data.mapping_start.anchor) != NULL)
			return yfail(y, line, "anchors are not allowed");
		n = ynode_new(ev->type == YAML_SEQUENCE_START_EVENT ?
		    YNODE_SEQUENCE : YNODE_MAPPING, line);
		for (;;) {
			if (!yaml_parser_parse(&y->parser, &child)) {
				r = yfail(y, y->parser.problem_mark.line + 1,
				    y->parser.problem != NULL ?
				    y->parser.problem : "syntax error");
				goto out;
			}
			if (child.type == YAML_SEQUENCE_END_EVENT ||
			    child.type == YAML_MAPPING_END_EVENT) {
				yaml_event_delete(&child);
				break;
			}
			r = build(y, &child, depth + 1, &c);
			yaml_event_delete(&child);
			if (r != 0)
				goto out;
			if (n->type == YNODE_MAPPING && n->n % 2 == 0 &&
			    c->type != YNODE_SCALAR) {
				r = yfail(y, c->line,
				    "mapping keys must be scalars");
				ynode_free(c);
				goto out;
			}
			if (n->type == YNODE_MAPPING && n->n % 2 == 0) {
				size_t i;

				for (i = 0; i < n->n; i += 2)
					if (strcmp(n->items[i]->scalar,
					    c->scalar) == 0) {
						char msg[300];

						snprintf(msg, sizeof(msg),
						    "duplicate key \"%.200s\"",
						    c->scalar);
						r = yfail(y, c->line, msg);
						ynode_free(c);
						goto out;
					}
			}
			ynode_add(n, c);
			c = NULL;
		}
		*out = n;
		n = NULL;
		break;
	default:
		return yfail(y, line, "unexpected YAML event");
	}
 out:
	ynode_free(n);
	return r;
}

int
yaml_load_buf(const char *name, const char *data, size_t len,
    struct ynode **rootp, char *errbuf, size_t errlen)
{
	struct yload y;
	yaml_event_t ev;
	struct ynode *root = NULL;
	int r = -BNC_ERR_CONFIG, done = 0;
	char msg[256];

	*rootp = NULL;
	memset(&y, 0, sizeof(y));
	y.path = name;
	y.err = errbuf;
	y.errlen = errlen;
	if (!yaml_parser_initialize(&y.parser)) {
		snprintf(errbuf, errlen, "%s: cannot initialise parser", name);
		return -BNC_ERR_CONFIG;
	}
	yaml_parser_set_input_string(&y.parser, (const unsigned char *)data,
	    len);
	while (!done) {
		if (!yaml_parser_parse(&y.parser, &ev)) {
			r = yfail(&y, y.parser.problem_mark.line + 1,
			    y.parser.problem != NULL ? y.parser.problem :
			    "syntax error");
			goto out;
		}
		switch (ev.type) {
		case YAML_STREAM_START_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (root != NULL) {
				r = yfail(&y, ev.start_mark.line + 1,
				    "more than one document");
				yaml_event_delete(&ev);
				goto out;
			}
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			if (root != NULL) {
				snprintf(msg, sizeof(msg), "unexpected content");
				r = yfail(&y, ev.start_mark.line + 1, msg);
				yaml_event_delete(&ev);
				goto out;
			}
			r = build(&y, &ev, 0, &root);
			if (r != 0) {
				yaml_event_delete(&ev);
				goto out;
			}
			break;
		}
		yaml_event_delete(&ev);
	}
	/* A document holding only an empty plain scalar is an empty file. */
	if (root != NULL && root->type == YNODE_SCALAR && !root->quoted &&
	    root->scalar[0] == '\0') {
		ynode_free(root);
		root = NULL;
	}
	*rootp = root;
	root = NULL;
	r = 0;
 out:
	yaml_parser_delete(&y.parser);
	ynode_free(root);
	return r;
}

int
yaml_load_file(const char *path, size_t maxbytes, struct ynode **rootp,
    char *errbuf, size_t errlen)
{
	struct buf *data = buf_new();
	char chunk[8192];
	size_t n;
	FILE *f = NULL;
	int r = -BNC_ERR_CONFIG;

	*rootp = NULL;
	if ((f = fopen(path, "r")) == NULL) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	/* as much memory as the file holds, not the bound: a policy's
	 * packs are loaded one after the other */
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (n > maxbytes - buf_len(data)) {
			snprintf(errbuf, errlen, "%s: larger than %zu bytes",
			    path, maxbytes);
			goto out;
		}
		if (buf_put(data, chunk, n) != 0) {
			snprintf(errbuf, errlen, "%s: out of memory", path);
			goto out;
		}
	}
	if (ferror(f)) {
		snprintf(errbuf, errlen, "%s: read error", path);
		goto out;
	}
	r = yaml_load_buf(path, (const char *)buf_ptr(data), buf_len(data),
	    rootp, errbuf, errlen);
 out:
	buf_free(data);
	if (f != NULL)
		fclose(f);
	return r;
}

int
ynode_vfail(char *err, size_t errlen, const char *path, const struct ynode *n,
    const char *key, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	snprintf(err, errlen, "%s:%lu: %s: %s", path,
	    n != NULL ? n->line : 1, key, msg);
	return -BNC_ERR_CONFIG;
}

int
ynode_fail(char *err, size_t errlen, const char *path, const struct ynode *n,
    const char *key, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = ynode_vfail(err, errlen, path, n, key, fmt, ap);
	va_end(ap);
	return r;
}

const char *
ynode_type_name(const struct ynode *n)
{
	if (n == NULL)
		return "nothing";
	switch (n->type) {
	case YNODE_SCALAR:
		return "a scalar";
	case YNODE_SEQUENCE:
		return "a list";
	case YNODE_MAPPING:
		return "a mapping";
	}
	return "unknown";
}

int
ynode_bool(const struct ynode *n, int *bp)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes" };
	static const char *const no[] = { "false", "False", "FALSE", "no" };
	size_t i;

	if (n == NULL || n->type != YNODE_SCALAR || n->quoted)
		return -BNC_ERR_CONFIG;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(n->scalar, yes[i]) == 0) {
			*bp = 1;
			return 0;
		}
		if (strcmp(n->scalar, no[i]) == 0) {
			*bp = 0;
			return 0;
		}
	}
	return -BNC_ERR_CONFIG;
}

int
ynode_int(const struct ynode *n, long long min, long long max, long long *vp)
{
	char *end;
	long long v;

	if (n == NULL || n->type != YNODE_SCALAR || n->quoted ||
	    n->scalar[0] == '\0')
		return -BNC_ERR_CONFIG;
	errno = 0;
	v = strtoll(n->scalar, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -BNC_ERR_CONFIG;
	*vp = v;
	return 0;
}

int
ynode_string(const struct ynode *n, const char **sp)
{
	if (n == NULL || n->type != YNODE_SCALAR)
		return -BNC_ERR_CONFIG;
	*sp = n->scalar;
	return 0;
}
