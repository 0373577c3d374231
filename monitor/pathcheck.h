/*
 * pathcheck.h - path confinement for write parameters (DESIGN 5, 4).
 *
 * A path is inside a prefix only if it is inside after lexical
 * normalisation AND once resolved through symbolic links, dangling ones
 * included.  Relative paths are taken relative to base (the upstream's
 * working directory).
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
 * 1 if path lies under prefix both lexically and once symlinks are
 * resolved, 0 if not, and 0 on any doubt (too long, a link loop, a
 * failed lookup, no absolute base for a relative path).
 */
int	path_confined(const char *path, const char *prefix, const char *base);

#endif /* BNC_PATHCHECK_H */
