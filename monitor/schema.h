/*
 * schema.h - the argument names a pinned inputSchema declares (DESIGN 5).
 *
 * Read through local "$ref"s ("#", "#/$defs/...", any JSON pointer into
 * the same schema) and the branches of "allOf", "anyOf" and "oneOf": a
 * name that any branch declares is declared.  What cannot be followed (a
 * "$ref" to another document, a pointer that names nothing, more nesting
 * or more nodes than the bounds allow) leaves the set incomplete, and
 * callers that deny undeclared names treat an incomplete set as
 * declaring what it found, no more.
 */
#ifndef BNC_SCHEMA_H
#define BNC_SCHEMA_H

#include <stddef.h>

struct value;

struct schema_props {
	char			**names;	/* owned, in first-seen order */
	const struct value	**defs;		/* each name's first subschema
						 * (borrowed from the schema) */
	size_t			  n;
	int			  complete;	/* every branch was read */
};

/*
 * Fills out (zeroed by the function) from schema, which may be NULL or
 * not an object (no names, complete).  Never fails; free with
 * schema_props_free, which accepts a zeroed struct.
 */
void	schema_props_get(const struct value *schema, struct schema_props *out);
void	schema_props_free(struct schema_props *);
/* 1 if name is declared. */
int	schema_props_has(const struct schema_props *, const char *name);

#endif /* BNC_SCHEMA_H */
