/*
 * pathcheck.c - is a path inside the allowed prefixes?
 *
 * A path is judged at every place a server may take it for, and passes
 * only if each of them lies inside some allowed prefix:
 *
 *  - a leading "~" or "~/" is the server's home; "~user" is that user's
 *    home to a shell but a relative name to a server that expands only
 *    "~" (the official filesystem server), so it is judged both ways;
 *    a home bouncer cannot know denies;
 *  - each reading must be inside lexically, with no file system (so
 *    "./out/../../etc" and "./outside" never pass for "./out", and a
 *    leading ".." is outside whatever the prefix, even "." or "":
 *    seed-semantics 19.1), and inside the resolved prefix once resolved
 *    through symbolic links both after lexical normalisation (what a
 *    server that cleans the path first acts on) and as the kernel walks
 *    it, where the ".." after a link climbs from the link's target;
 *  - a resolution follows every link, a dangling one too, to where a
 *    write would land, and is also made stopping at a link in last
 *    position, the object that unlink() or rename() would act on.
 *
 * Any doubt (too long, a link loop, a directory that cannot be searched,
 * a home bouncer cannot know) answers "outside".  It must never change
 * the file system: it only looks (lstat, readlink, getpwnam).
 */
#include <sys/stat.h>

#include <errno.h>
#include <pwd.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "bounds.h"
#include "pathcheck.h"

#define NREAD	4		/* resolutions: lexical or kernel, followed or
				 * with the last link kept */

static const char why_home[] =
    "'~' cannot be expanded: the server's home is unknown";
static const char why_user[] =
    "'~' cannot be expanded: no such user";
static const char why_long[] = "the path is too long";
static const char why_loop[] = "too many symbolic links";
static const char why_sys[] = "the path cannot be resolved";

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

/* head and tail, as they are, into out. */
static int
concat(const char *head, const char *sep, const char *tail, char *out,
    size_t outlen)
{
	size_t hl = strlen(head), sl = strlen(sep), tl = strlen(tail);

	if (hl + sl + tl >= outlen)
		return -BNC_ERR_TOO_LARGE;
	memcpy(out, head, hl);
	memcpy(out + hl, sep, sl);
	memcpy(out + hl + sl, tail, tl + 1);
	return 0;
}

/*
 * path made absolute against base, not normalised: the kernel's reading
 * needs every ".." where it was.
 */
static int
join(const char *path, const char *base, char *out, size_t outlen)
{
	if (path[0] == '/')
		return concat(path, "", "", out, outlen);
	if (base == NULL || base[0] != '/')
		return -BNC_ERR_BAD_FORMAT;
	return concat(base, "/", path, out, outlen);
}

/* base/path made absolute and normalised into out. */
static int
absolute(const char *path, const char *base, char *out, size_t outlen)
{
	char tmp[BNC_PATH_WORK_MAX];
	int r;

	if ((r = join(path, base, tmp, sizeof(tmp))) != 0)
		return r;
	return path_normalize(tmp, out, outlen);
}

/* Appends "/seg" to the resolved path res of length *rl. */
static int
append(char *res, size_t reslen, size_t *rl, const char *seg, size_t n)
{
	size_t sep = *rl > 1;

	if (*rl + sep + n >= reslen)
		return -BNC_ERR_TOO_LARGE;
	if (sep)
		res[(*rl)++] = '/';
	memcpy(res + *rl, seg, n);
	*rl += n;
	res[*rl] = '\0';
	return 0;
}

/* Drops the last component of the resolved path res; "/" stays. */
static void
parent(char *res, size_t *rl)
{
	while (*rl > 1 && res[*rl - 1] != '/')
		(*rl)--;
	if (*rl > 1)
		(*rl)--;
	res[*rl] = '\0';
}

/*
 * The kernel's walk of an absolute path, component by component: ".."
 * climbs from the directory reached so far (which holds no link, so its
 * lexical parent is its real one), a link is replaced by its target read
 * from the link's own directory, dangling or not, and the components
 * that do not exist are appended as they are (the ".." of a missing
 * directory is its parent, as once mkdir -p has made it).  With
 * follow_last 0 a link in last position is not followed.  Returns 0,
 * -BNC_ERR_TOO_LARGE, -BNC_ERR_TOO_DEEP (more than BNC_PATH_LINKS_MAX
 * links: a loop) or -BNC_ERR_SYS (lstat or readlink failed otherwise
 * than ENOENT: EACCES, ENOTDIR, ENAMETOOLONG...).
 */
static int
walk(const char *abspath, int follow_last, char *res, size_t reslen)
{
	char todo[BNC_PATH_WORK_MAX], next[BNC_PATH_WORK_MAX];
	char target[BNC_PATH_MAX];
	const char *p, *seg;
	size_t n, rl = 1, dir, missing = 0, pl;
	struct stat st;
	ssize_t tl;
	int links = 0, r = 0;

	if (abspath[0] != '/' || reslen < 2) {
		r = -BNC_ERR_BAD_FORMAT;
		goto out;
	}
	if ((r = concat(abspath, "", "", todo, sizeof(todo))) != 0)
		goto out;
	res[0] = '/';
	res[1] = '\0';
	p = todo;
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
			parent(res, &rl);
			if (missing > 0)
				missing--;
			continue;
		}
		dir = rl;
		if ((r = append(res, reslen, &rl, seg, n)) != 0)
			goto out;
		/* Under a missing directory nothing else exists. */
		if (missing > 0) {
			missing++;
			continue;
		}
		if (lstat(res, &st) == -1) {
			if (errno != ENOENT) {
				r = -BNC_ERR_SYS;
				goto out;
			}
			missing = 1;
			continue;
		}
		if (!S_ISLNK(st.st_mode))
			continue;
		if (!follow_last && p[strspn(p, "/")] == '\0')
			break;
		if (++links > BNC_PATH_LINKS_MAX) {
			r = -BNC_ERR_TOO_DEEP;
			goto out;
		}
		if ((tl = readlink(res, target, sizeof(target))) == -1) {
			r = -BNC_ERR_SYS;
			goto out;
		}
		/* An empty target is ENOENT to the kernel: never a place. */
		if (tl == 0 || (size_t)tl >= sizeof(target)) {
			r = tl == 0 ? -BNC_ERR_SYS : -BNC_ERR_TOO_LARGE;
			goto out;
		}
		target[tl] = '\0';
		rl = target[0] == '/' ? 1 : dir;
		res[rl] = '\0';
		pl = strlen(p);
		if ((size_t)tl + 1 + pl >= sizeof(next)) {
			r = -BNC_ERR_TOO_LARGE;
			goto out;
		}
		memcpy(next, target, (size_t)tl);
		next[tl] = '/';
		memcpy(next + tl + 1, p, pl + 1);
		memcpy(todo, next, (size_t)tl + 1 + pl + 1);
		p = todo;
	}
 out:
	return r;
}

static const char *
why_walk(int r)
{
	if (r == -BNC_ERR_TOO_LARGE)
		return why_long;
	if (r == -BNC_ERR_TOO_DEEP)
		return why_loop;
	return why_sys;
}

/*
 * One reading of the path, "~" already expanded: some prefix must hold
 * it lexically and, resolved, hold every resolution of it.
 */
static int
reading_inside(const char *s, char *const *prefixes, size_t nprefixes,
    const char *base, const char **why)
{
	char np[BNC_PATH_WORK_MAX], lex[BNC_PATH_WORK_MAX];
	char raw[BNC_PATH_WORK_MAX], got[NREAD][BNC_PATH_WORK_MAX];
	char npre[BNC_PATH_MAX], apre[BNC_PATH_WORK_MAX];
	char rpre[BNC_PATH_WORK_MAX], lpre[BNC_PATH_WORK_MAX];
	size_t i, j;
	int r, inside = 0;

	if (path_normalize(s, np, sizeof(np)) != 0) {
		*why = why_long;
		goto out;
	}
	if (climbs(np))
		goto out;
	if ((r = absolute(np, base, lex, sizeof(lex))) != 0 ||
	    (r = join(s, base, raw, sizeof(raw))) != 0) {
		if (r == -BNC_ERR_TOO_LARGE)
			*why = why_long;
		goto out;
	}
	for (i = 0; i < NREAD; i++) {
		if ((r = walk(i < 2 ? lex : raw, i % 2, got[i],
		    sizeof(got[i]))) != 0) {
			*why = why_walk(r);
			goto out;
		}
	}
	for (j = 0; j < nprefixes && !inside; j++) {
		/* A prefix that itself climbs confines nothing sensible. */
		if (strlen(prefixes[j]) >= BNC_PATH_MAX ||
		    path_normalize(prefixes[j], npre, sizeof(npre)) != 0 ||
		    climbs(npre) || !path_lexically_under(np, npre))
			continue;
		/*
		 * The prefix resolved, and also its own last link, so that
		 * a prefix that is a link still holds the link itself.
		 */
		if (absolute(npre, base, apre, sizeof(apre)) != 0 ||
		    walk(apre, 1, rpre, sizeof(rpre)) != 0 ||
		    walk(apre, 0, lpre, sizeof(lpre)) != 0)
			continue;
		for (i = 0; i < NREAD; i++)
			if (!path_lexically_under(got[i], rpre) &&
			    !path_lexically_under(got[i], lpre))
				break;
		inside = i == NREAD;
	}
 out:
	return inside;
}

int
path_confined(const char *path, char *const *prefixes, size_t nprefixes,
    const char *base, const char *home, const char **why)
{
	char exp[BNC_PATH_WORK_MAX], user[BNC_PATH_MAX];
	const char *rest, *ignored;
	struct passwd *pw;
	size_t n;
	int inside = 0;

	if (why == NULL)
		why = &ignored;
	*why = NULL;
	if (strlen(path) >= BNC_PATH_MAX) {
		*why = why_long;
		goto out;
	}
	if (path[0] != '~') {
		inside = reading_inside(path, prefixes, nprefixes, base, why);
		goto out;
	}
	rest = path + 1 + strcspn(path + 1, "/");
	if ((n = (size_t)(rest - path - 1)) == 0) {
		/* The server's HOME; without one it guesses, we cannot. */
		if (home == NULL || home[0] != '/' ||
		    strlen(home) >= BNC_PATH_MAX) {
			*why = why_home;
			goto out;
		}
		if (concat(home, "", rest, exp, sizeof(exp)) != 0) {
			*why = why_long;
			goto out;
		}
		inside = reading_inside(exp, prefixes, nprefixes, base, why);
		goto out;
	}
	memcpy(user, path + 1, n);
	user[n] = '\0';
	if ((pw = getpwnam(user)) == NULL || pw->pw_dir == NULL ||
	    pw->pw_dir[0] != '/' || strlen(pw->pw_dir) >= BNC_PATH_MAX) {
		*why = why_user;
		goto out;
	}
	if (concat(pw->pw_dir, "", rest, exp, sizeof(exp)) != 0) {
		*why = why_long;
		goto out;
	}
	/* A shell's reading, then a server's that expands only "~". */
	inside = reading_inside(exp, prefixes, nprefixes, base, why) &&
	    reading_inside(path, prefixes, nprefixes, base, why);
 out:
	return inside;
}
