/*
 * path.c - path templates: the only way a carrier makes a request path,
 * and the way a probe asks whether a path is one it would make.
 *
 * Expansion puts in each placeholder the argument's canonical form,
 * which its validator made, and nothing else; it never encodes, decodes
 * or repairs.  Matching runs the same validators over the text a probe
 * gives, and accepts it only where expansion would have written exactly
 * that text.  Neither ever looks past the template's own characters.
 */
#include <string.h>

#include "args.h"
#include "bounds.h"
#include "path.h"

/* The template's argument definition called name[0..len), or NULL. */
static const struct carrier_argdef *
argdef(const struct carrier_endpoint *ep, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < BNC_CARRIER_ARGS_MAX && ep->args[i].name != NULL; i++)
		if (strlen(ep->args[i].name) == len &&
		    memcmp(ep->args[i].name, name, len) == 0)
			return &ep->args[i];
	return NULL;
}

/* The argument of a placeholder at t ("{name}..."), or NULL; *endp is
 * just past its '}'. */
static const struct carrier_arg *
placeholder_arg(const struct carrier_args *args, const char *t,
    const char **endp)
{
	const char *close;
	char name[BNC_CARRIER_ARG_NAME_MAX + 1];
	size_t n;

	if ((close = strchr(t, '}')) == NULL ||
	    (n = (size_t)(close - t - 1)) > BNC_CARRIER_ARG_NAME_MAX)
		return NULL;
	memcpy(name, t + 1, n);
	name[n] = '\0';
	*endp = close + 1;
	return args_get(args, name);
}

/* Are all of a group's placeholders there?  g points past its '['. */
static int
group_complete(const struct carrier_args *args, const char *g)
{
	const char *end;

	for (; *g != '\0' && *g != ']'; g++)
		if (*g == '{') {
			if (placeholder_arg(args, g, &end) == NULL)
				return 0;
			g = end - 1;
		}
	return 1;
}

int
path_expand(const struct carrier_endpoint *ep, const struct carrier_args *args,
    char *out)
{
	const struct carrier_arg *a;
	const char *t = ep->path, *end, *v;
	size_t o = 0, n;

	while (*t != '\0') {
		if (*t == '[') {
			if (group_complete(args, t + 1))
				t++;
			else if ((t = strchr(t, ']')) == NULL)
				return -1;
			else
				t++;
			continue;
		}
		if (*t == ']') {
			t++;
			continue;
		}
		if (*t == '{') {
			if ((a = placeholder_arg(args, t, &end)) == NULL)
				return -1;
			v = a->kind == ARG_CHANNEL ? a->path : a->val;
			n = a->kind == ARG_CHANNEL ? a->pathlen : a->len;
			if (v == NULL || o + n > BNC_CARRIER_PATH_MAX)
				return -1;
			memcpy(out + o, v, n);
			o += n;
			t = end;
			continue;
		}
		if (o + 1 > BNC_CARRIER_PATH_MAX)
			return -1;
		out[o++] = *t++;
	}
	out[o] = '\0';
	return 0;
}

/*
 * Matches one variant of a template (groups already chosen: tlen bytes
 * of t, without brackets) against p[0..plen).
 */
static int
match_plain(const struct carrier_endpoint *ep, const char *t, size_t tlen,
    const char *p, size_t plen)
{
	const struct carrier_argdef *d;
	const char *close, *stop;
	size_t n;

	while (tlen > 0) {
		if (*t != '{') {
			if (plen == 0 || *p != *t)
				return 0;
			t++, tlen--, p++, plen--;
			continue;
		}
		if ((close = memchr(t, '}', tlen)) == NULL ||
		    (d = argdef(ep, t + 1, (size_t)(close - t - 1))) == NULL)
			return 0;
		tlen -= (size_t)(close + 1 - t);
		t = close + 1;
		/* the text runs to the next literal character, or the end */
		if (tlen == 0)
			n = plen;
		else if (*t == '{')
			return 0;
		else if ((stop = memchr(p, *t, plen)) == NULL)
			return 0;
		else
			n = (size_t)(stop - p);
		if (n == 0 || !args_match(d->kind, p, n))
			return 0;
		p += n;
		plen -= n;
	}
	return plen == 0;
}

int
path_match(const struct carrier_endpoint *ep, const char *path)
{
	char variant[BNC_CARRIER_PATH_MAX + 1];
	const char *t;
	size_t ng = 0, o, plen = strlen(path);
	unsigned int mask, gi;
	int in;

	/* a template with g optional parts has 2^g variants */
	for (t = ep->path; *t != '\0'; t++)
		if (*t == '[' && ++ng > BNC_CARRIER_PATH_GROUPS_MAX)
			return 0;
	for (mask = 0; mask < (1U << ng); mask++) {
		o = 0;
		in = 1;
		gi = 0;
		for (t = ep->path; *t != '\0'; t++) {
			if (*t == '[')
				in = (mask >> gi++) & 1;
			else if (*t == ']')
				in = 1;
			else if (in && o < BNC_CARRIER_PATH_MAX)
				variant[o++] = *t;
		}
		if (match_plain(ep, variant, o, path, plen))
			return 1;
	}
	return 0;
}
