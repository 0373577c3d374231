/*
 * approvals.c - the session's memory of human approvals.
 *
 * Keys are tool \x1f param \x1f normalised value, kept in a sorted array
 * (a session approves a handful of destinations; the bound is in
 * bounds.h).  Nothing is persisted: approvals die with the session.
 */
#include <stdlib.h>
#include <string.h>

#include "approvals.h"
#include "bounds.h"
#include "buf.h"
#include "err.h"
#include "taint.h"
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

/* The same normalisation as the taint index: one notion of "same". */
int
approvals_normalize(struct buf *out, const char *s, size_t len)
{
	char *tmp;
	size_t n;
	int r;

	tmp = xmalloc(len + 1);
	n = taint_normalise(s, len, tmp);
	if ((r = buf_put(out, tmp, n)) == 0)
		r = buf_put_u8(out, '\0');
	free(tmp);
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
	    approvals_normalize(b, value, len) == 0)
		key = xstrdup((const char *)buf_ptr(b));
	buf_free(b);
	return key;
}

static int
key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
approvals_has(const struct approvals *a, const char *tool, const char *param,
    const char *value, size_t len)
{
	char *key;
	int found;

	if ((key = make_key(tool, param, value, len)) == NULL)
		return 0;
	found = a->n > 0 && bsearch(&key, a->keys, a->n, sizeof(*a->keys),
	    key_cmp) != NULL;
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
		return -BNC_ERR_INTERNAL;
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
