/*
 * xmalloc.h - allocators that never return NULL.
 *
 * Allocation failure is fatal: bouncer's processes are small and their
 * caps are fixed, so running out of memory is a broken invariant, not an
 * input error.  Input is bounded before anything is allocated for it.
 */
#ifndef BNC_XMALLOC_H
#define BNC_XMALLOC_H

#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
void	*xrecallocarray(void *, size_t, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
void	*xmemdup(const void *, size_t);
int	 xasprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* Zero then free; accepts NULL. */
void	 freezero(void *, size_t);

#endif /* BNC_XMALLOC_H */
