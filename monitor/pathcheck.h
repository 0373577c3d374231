/*
 * pathcheck.h - path confinement for write parameters (DESIGN 5, 4).
 *
 * A path is inside the allowed prefixes only if every place a server may
 * take it for is inside one: lexically, and once resolved through
 * symbolic links (dangling ones included) both after lexical
 * normalisation and as the kernel walks it.  A leading "~" is expanded
 * as the server would.  Relative paths are taken relative to base (the
 * upstream's working directory).
 */
#ifndef BNC_PATHCHECK_H
#define BNC_PATHCHECK_H

#include <stddef.h>

/*
 * Lexical normalisation: collapses "//", "." and "..".  A ".." that
 * would climb above the start of a relative path is kept as a leading
 * "..".  An absolute path never climbs above "/".  Writes at most outlen
 * bytes; returns 0, or -BNC_ERR_TOO_LARGE.  "" normalises to ".".
 */
int	path_normalize(const char *path, char *out, size_t outlen);

/* Component-wise containment of two normalised paths (no I/O). */
int	path_lexically_under(const char *path, const char *prefix);

/*
 * 1 if path lies under one of the nprefixes prefixes, 0 if not, and 0 on
 * any doubt (too long, a link loop, a failed lookup, no absolute base for
 * a relative path).  home is the server's HOME, NULL when unknown: a path
 * "~" or "~/..." is then outside.  "~user/..." must be inside both as
 * that user's home (getpwnam) and as a relative name.  When the answer is
 * 0 for a reason other than the path's place, *why (if why is not NULL)
 * is set to a static string that says it ("'~' cannot be expanded: the
 * server's home is unknown"), else to NULL.
 */
int	path_confined(const char *path, char *const *prefixes,
	    size_t nprefixes, const char *base, const char *home,
	    const char **why);

#endif /* BNC_PATHCHECK_H */
