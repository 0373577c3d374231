/*
 * xmalloc.c - allocators that never return NULL.
 *
 * Failure is fatal (see xmalloc.h).  Overflowing multiplications are
 * caught here, never passed to the allocator.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "xmalloc.h"

void *
xmalloc(size_t n)
{
	void *p;

	if (n == 0)
		n = 1;
	if ((p = malloc(n)) == NULL)
		fatal_f("out of memory allocating %zu bytes", n);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	if (SIZE_MAX / nmemb < size)
		fatal_f("overflow: %zu * %zu", nmemb, size);
	if ((p = calloc(nmemb, size)) == NULL)
		fatal_f("out of memory allocating %zu * %zu bytes", nmemb, size);
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void *p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	if (SIZE_MAX / nmemb < size)
		fatal_f("overflow: %zu * %zu", nmemb, size);
	if ((p = realloc(ptr, nmemb * size)) == NULL)
		fatal_f("out of memory allocating %zu * %zu bytes", nmemb, size);
	return p;
}

void *
xrecallocarray(void *ptr, size_t oldnmemb, size_t nmemb, size_t size)
{
	uint8_t *p;

	p = xreallocarray(ptr, nmemb, size);
	if (nmemb > oldnmemb)
		memset(p + oldnmemb * size, 0, (nmemb - oldnmemb) * size);
	return p;
}

char *
xstrdup(const char *s)
{
	return xmemdup(s, strlen(s) + 1);
}

char *
xstrndup(const char *s, size_t n)
{
	char *p;
	size_t len;

	len = strnlen(s, n);
	p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void *
xmemdup(const void *s, size_t n)
{
	void *p;

	p = xmalloc(n);
	if (n > 0)
		memcpy(p, s, n);
	return p;
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list ap;
	int i;

	va_start(ap, fmt);
	i = vasprintf(ret, fmt, ap);
	va_end(ap);
	if (i < 0 || *ret == NULL)
		fatal_f("could not allocate memory");
	return i;
}

void
freezero(void *p, size_t n)
{
	if (p == NULL)
		return;
	explicit_bzero(p, n);
	free(p);
}
