/*
 * fuzz_uritemplate.c - libFuzzer harness for RFC 6570 template matching
 * (monitor/uritemplate.c): an upstream chooses the template, the agent
 * the URI, and neither may crash it, outrun its bounds or make it
 * contradict itself.
 *
 * Input: the template, a NUL byte, the URI (any bytes, NULs too).
 * Checked: compiling answers 0, -BNC_ERR_BAD_FORMAT or
 * -BNC_ERR_TOO_LARGE, and a template over BNC_URITEMPLATE_LEN_MAX bytes
 * never compiles; a compiled template has at most
 * BNC_URITEMPLATE_PROG_MAX instructions; a match answers 0, 1 or
 * -BNC_ERR_TOO_LARGE, the same twice, spends at most the URI's length
 * times the template's size, and is -BNC_ERR_TOO_LARGE for a URI over
 * BNC_URI_MAX bytes; the template's literal text with every expression
 * left out (all variables undefined) always matches, and a template
 * without expressions matches exactly its own text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "err.h"
#include "fuzz.h"
#include "uritemplate.h"

/* The template with every {...} removed: its expansion with nothing
 * defined.  Returns its length; *exprs: how many there were. */
static size_t
literal_text(const char *t, char *out, int *exprs)
{
	size_t n = 0;

	*exprs = 0;
	while (*t != '\0') {
		if (*t == '{') {
			(*exprs)++;
			while (*t != '\0' && *t != '}')
				t++;
			if (*t == '}')
				t++;
			continue;
		}
		out[n++] = *t++;
	}
	out[n] = '\0';
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uritemplate *t = NULL;
	const uint8_t *nul;
	char *tmpl, *lit;
	const char *uri;
	size_t tlen, ulen, work, used, llen;
	int r, r2, exprs;

	if ((nul = memchr(data, '\0', size)) == NULL)
		return 0;
	tlen = (size_t)(nul - data);
	uri = (const char *)nul + 1;
	ulen = size - tlen - 1;
	tmpl = malloc(tlen + 1);
	lit = malloc(tlen + 1);
	FUZZ_CHECK(tmpl != NULL && lit != NULL);
	memcpy(tmpl, data, tlen);
	tmpl[tlen] = '\0';

	r = uritemplate_compile(tmpl, &t);
	FUZZ_CHECK(r == 0 || r == -BNC_ERR_BAD_FORMAT ||
	    r == -BNC_ERR_TOO_LARGE);
	FUZZ_CHECK((r == 0) == (t != NULL));
	if (tlen > BNC_URITEMPLATE_LEN_MAX)
		FUZZ_CHECK(r == -BNC_ERR_TOO_LARGE);
	if (r != 0)
		goto out;
	FUZZ_CHECK(uritemplate_size(t) <= BNC_URITEMPLATE_PROG_MAX);

	work = (size_t)-1;
	r = uritemplate_match(t, uri, ulen, &work);
	used = (size_t)-1 - work;
	FUZZ_CHECK(r == 0 || r == 1 || r == -BNC_ERR_TOO_LARGE);
	FUZZ_CHECK((r == -BNC_ERR_TOO_LARGE) == (ulen > BNC_URI_MAX));
	FUZZ_CHECK(used <= ulen * uritemplate_size(t));
	work = used;
	r2 = uritemplate_match(t, uri, ulen, &work);
	FUZZ_CHECK(r2 == r);
	if (used > 0) {
		work = used - 1;
		FUZZ_CHECK(uritemplate_match(t, uri, ulen, &work) ==
		    -BNC_ERR_TOO_LARGE);
	}

	llen = literal_text(tmpl, lit, &exprs);
	work = (size_t)-1;
	FUZZ_CHECK(uritemplate_match(t, lit, llen, &work) == 1);
	if (exprs == 0 && ulen <= BNC_URI_MAX)
		FUZZ_CHECK(r == (ulen == llen && memcmp(uri, lit, llen) == 0));
 out:
	uritemplate_free(t);
	free(tmpl);
	free(lit);
	return 0;
}
