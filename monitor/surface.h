/*
 * surface.h - pins and the merged tool surface (DESIGN 4, 5).
 *
 * surface.c owns each upstream's pins (taken from its first complete
 * tools/list) and the session's merged surface (s->tools); the others
 * only read an entry, through surface_find().
 */
#ifndef BNC_SURFACE_H
#define BNC_SURFACE_H

#include <stddef.h>
#include <stdint.h>

struct session;
struct upstream;
struct value;

struct pin {
	char		*name;		/* the upstream's tool name */
	uint8_t		 hash[32];	/* SHA-256 of the canonical definition */
	struct value	*def;
};

/* One entry of the merged tool surface shown to the client. */
struct tool_entry {
	char		*exposed;	/* name the client sees */
	struct upstream	*up;
	const struct pin *pin;
	struct value	*listed;	/* definition with the exposed name */
	int		 visible;	/* unchanged since pinning */
	int		 forbidden;	/* in the forbidden write set */
	char		*withheld;	/* not listed, denied: why (DESIGN 5,
					 * Names), or NULL */
};

int	 surface_pin(struct upstream *, struct value *tools, char *err,
	    size_t errlen);
int	 surface_update(struct upstream *, struct value *tools);
void	 surface_build(struct session *);
/* The session is over: frees the merged surface, and each upstream's
 * pins and last listing (what they charged is not given back). */
void	 surface_free(struct session *);
/* The entry the client means by name: one that is not withheld, else a
 * withheld one (its reason), else NULL. */
const struct tool_entry *surface_find(const struct session *, const char *);
struct value *surface_page(const struct session *, const char *cursor,
	    int *bad);

#endif /* BNC_SURFACE_H */
