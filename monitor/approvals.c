/*
 * approvals.c - the session's memory of human approvals.
 *
 * Keys are tool \x1f param \x1f the value's key, kept in a sorted array
 * (a session approves a handful of destinations; the bound is in
 * bounds.h).  A value's key is the exact canonical form of the one
 * destination it names (canon.h: so a mailbox's display name, comments
 * or domain case, a URL's default port or dot segments make no new
 * approval), both readings when servers read it two ways, and else the
 * value's exact bytes.  Never the taint index's folded form: folding
 * would let an approval of one mailbox cover another whose domain
 * differs after IDNA, or whose local part differs in case.  Nothing is
 * persisted: approvals die with the session.
 */
#include <stdlib.h>
#include <string.h>

#include "approvals.h"
#include "bounds.h"
#include "buf.h"
#include "canon.h"
#include "err.h"
#include "xmalloc.h"

struct approvals {
	char	**keys;
	size_t	  n;
};

struct approvals *
approvals_new(void)
{
	return xcalloc(1, sizeof(struct approvals));
}

void
approvals_free(struct approvals *a)
{
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; i < a->n; i++)
		free(a->keys[i]);
	free(a->keys);
	free(a);
}

int
approvals_key(struct buf *out, const char *s, size_t len)
{
	struct canon_id id;
	int r;

	memset(&id, 0, sizeof(id));
	if ((r = canon_whole(s, len, &id)) < 0)
		goto out;
	if (r == 1) {
		/* \x1e keeps "a" + "b" and "a\x1eb" + "" apart */
		if ((r = buf_put(out, id.form, strlen(id.form))) == 0 &&
		    id.alt != NULL && (r = buf_put_u8(out, 0x1e)) == 0)
			r = buf_put(out, id.alt, strlen(id.alt));
	} else if (memchr(s, '\0', len) != NULL)
		r = -BNC_ERR_NUL;
	else
		r = buf_put(out, s, len);
	if (r == 0)
		r = buf_put_u8(out, '\0');
 out:
	canon_id_clear(&id);
	return r;
}

static char *
make_key(const char *tool, const char *param, const char *value, size_t len)
{
	struct buf *b = buf_new();
	char *key = NULL;

	if (buf_put(b, tool, strlen(tool)) == 0 &&
	    buf_put_u8(b, 0x1f) == 0 &&
	    buf_put(b, param, strlen(param)) == 0 &&
	    buf_put_u8(b, 0x1f) == 0 &&
	    approvals_key(b, value, len) == 0)
		key = xstrdup((const char *)buf_ptr(b));
	buf_free(b);
	return key;
}

static int
key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
has_key(const struct approvals *a, char *key)
{
	return a->n > 0 && bsearch(&key, a->keys, a->n, sizeof(*a->keys),
	    key_cmp) != NULL;
}

int
approvals_has(const struct approvals *a, const char *tool, const char *param,
    const char *value, size_t len)
{
	char *key;
	int found;

	if ((key = make_key(tool, param, value, len)) == NULL)
		return 0;
	found = has_key(a, key);
	free(key);
	return found;
}

int
approvals_has_id(const struct approvals *a, const char *tool,
    const char *param, const char *form, const char *alt)
{
	char *key;
	int found;

	xasprintf(&key, "%s\x1f%s\x1f%s%s%s", tool, param, form,
	    alt != NULL ? "\x1e" : "", alt != NULL ? alt : "");
	found = has_key(a, key);
	free(key);
	return found;
}

int
approvals_add(struct approvals *a, const char *tool, const char *param,
    const char *value, size_t len)
{
	char *key;

	if (approvals_has(a, tool, param, value, len))
		return 0;
	if (a->n >= BNC_APPROVALS_MAX)
		return -BNC_ERR_TOO_LARGE;
	if ((key = make_key(tool, param, value, len)) == NULL)
		return -BNC_ERR_BAD_FORMAT;
	a->keys = xreallocarray(a->keys, a->n + 1, sizeof(*a->keys));
	a->keys[a->n++] = key;
	qsort(a->keys, a->n, sizeof(*a->keys), key_cmp);
	return 0;
}

size_t
approvals_count(const struct approvals *a)
{
	return a->n;
}
