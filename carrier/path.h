/*
 * path.h - a row's path template, expanded for a call and matched for a
 * probe (carrier.h says how templates are written).
 */
#ifndef BNC_PATH_H
#define BNC_PATH_H

#include <stddef.h>

#include "carrier.h"

/*
 * The row's path with each {name} replaced by the argument's canonical
 * form (a channel's webhook path), each [...] kept only when all of its
 * arguments are there.  out holds BNC_CARRIER_PATH_MAX + 1 bytes.
 * Returns 0, or -1 when the row names an argument it lacks or the path
 * is too long (a table mistake).
 */
int	path_expand(const struct carrier_endpoint *,
	    const struct carrier_args *, char *out);
/*
 * Would the row build exactly this path for some arguments its
 * validators accept?  A placeholder's text runs to the template's next
 * literal character, or to the end; a row with two placeholders side by
 * side never matches.  Returns 1 or 0.
 */
int	path_match(const struct carrier_endpoint *, const char *path);

#endif /* BNC_PATH_H */
