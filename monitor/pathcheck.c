/*
 * pathcheck.c - is a path inside an allowed prefix?
 *
 * Two independent checks, both must pass: a lexical one that needs no
 * file system (so "./out/../../etc" and "./outside" never pass for
 * "./out"), and a resolved one, so a symlink inside the prefix that
 * points outside is caught.  A path that climbs above the start of a
 * relative path (a leading "..") is outside whatever the prefix, even
 * "." or "" (seed-semantics 19.1).  Any doubt answers "outside".
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "bounds.h"
#include "pathcheck.h"

int
path_normalize(const char *path, char *out, size_t outlen)
{
	const char *p = path, *seg;
	size_t o = 0, n, depth = 0, up = 0;
	int abs = path[0] == '/';

	if (outlen < 2)
		return -BNC_ERR_TOO_LARGE;
	if (abs)
		out[o++] = '/';
	while (*p != '\0') {
		while (*p == '/')
			p++;
		seg = p;
		while (*p != '\0' && *p != '/')
			p++;
		n = (size_t)(p - seg);
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			if (depth > 0) {
				/* Drop the last real component. */
				while (o > 0 && out[o - 1] != '/')
					o--;
				if (o > (size_t)abs)
					o--;
				if (o == 0 && abs)
					o = 1;
				depth--;
			} else if (!abs) {
				/* Climbing above the start stays visible. */
				if (o > 0 && out[o - 1] != '/')
					out[o++] = '/';
				if (o + 2 >= outlen)
					return -BNC_ERR_TOO_LARGE;
				out[o++] = '.';
				out[o++] = '.';
				up++;
			}
			continue;
		}
		if (o > 0 && out[o - 1] != '/')
			out[o++] = '/';
		if (o + n >= outlen)
			return -BNC_ERR_TOO_LARGE;
		memcpy(out + o, seg, n);
		o += n;
		depth++;
	}
	if (o == 0)
		out[o++] = '.';
	out[o] = '\0';
	(void)up;
	return 0;
}

static int
climbs(const char *norm)
{
	return strcmp(norm, "..") == 0 || strncmp(norm, "../", 3) == 0;
}

int
path_lexically_under(const char *path, const char *prefix)
{
	size_t n;

	if ((path[0] == '/') != (prefix[0] == '/'))
		return 0;
	if (climbs(path))
		return 0;
	if (strcmp(prefix, ".") == 0)
		return 1;		/* every non-climbing relative path */
	if (strcmp(prefix, "/") == 0)
		return path[0] == '/';
	n = strlen(prefix);
	return strncmp(path, prefix, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

/* base/path made absolute and normalised into out. */
static int
absolute(const char *path, const char *base, char *out, size_t outlen)
{
	char tmp[BNC_PATH_MAX * 2 + 2];
	size_t bl;

	if (path[0] == '/')
		return path_normalize(path, out, outlen);
	if (base == NULL || base[0] != '/')
		return -BNC_ERR_BAD_FORMAT;
	bl = strlen(base);
	if (bl + 1 + strlen(path) + 1 > sizeof(tmp))
		return -BNC_ERR_TOO_LARGE;
	memcpy(tmp, base, bl);
	tmp[bl] = '/';
	strcpy(tmp + bl + 1, path);
	return path_normalize(tmp, out, outlen);
}

/*
 * Resolves the deepest existing ancestor of an absolute normalised path
 * through realpath() and appends the components that do not exist yet.
 */
static int
resolve(const char *abspath, char *out, size_t outlen)
{
	char head[PATH_MAX], real[PATH_MAX];
	const char *rest;
	size_t hl;

	if (strlen(abspath) >= sizeof(head))
		return -BNC_ERR_TOO_LARGE;
	strcpy(head, abspath);
	for (;;) {
		if (realpath(head, real) != NULL)
			break;
		if (errno != ENOENT && errno != ENOTDIR)
			return -BNC_ERR_SYS;
		/* Strip one component and try its parent. */
		hl = strlen(head);
		while (hl > 1 && head[hl - 1] != '/')
			hl--;
		if (hl <= 1) {
			strcpy(head, "/");
			if (realpath(head, real) == NULL)
				return -BNC_ERR_SYS;
			break;
		}
		head[hl - 1] = '\0';
	}
	hl = strlen(head);
	rest = abspath + (strcmp(head, "/") == 0 ? 1 : hl);
	while (*rest == '/')
		rest++;
	if (strlen(real) + 1 + strlen(rest) + 1 > outlen)
		return -BNC_ERR_TOO_LARGE;
	strcpy(out, real);
	if (*rest != '\0') {
		if (strcmp(out, "/") != 0)
			strcat(out, "/");
		strcat(out, rest);
	}
	return 0;
}

int
path_confined(const char *path, const char *prefix, const char *base)
{
	char np[BNC_PATH_MAX], npre[BNC_PATH_MAX];
	char ap[BNC_PATH_MAX * 2], apre[BNC_PATH_MAX * 2];
	char rp[PATH_MAX * 2], rpre[PATH_MAX * 2];

	if (strlen(path) >= BNC_PATH_MAX || strlen(prefix) >= BNC_PATH_MAX)
		return 0;
	if (path_normalize(path, np, sizeof(np)) != 0 ||
	    path_normalize(prefix, npre, sizeof(npre)) != 0)
		return 0;
	/* A prefix that itself climbs confines nothing sensible. */
	if (climbs(npre) || !path_lexically_under(np, npre))
		return 0;
	if (absolute(np, base, ap, sizeof(ap)) != 0 ||
	    absolute(npre, base, apre, sizeof(apre)) != 0)
		return 0;
	if (resolve(ap, rp, sizeof(rp)) != 0 ||
	    resolve(apre, rpre, sizeof(rpre)) != 0)
		return 0;
	return path_lexically_under(rp, rpre);
}
