/*
 * replay.c - runs a libFuzzer harness over files, without libFuzzer.
 *
 * Linked with one harness (regress/fuzz/fuzz_*.c) into a plain program
 * that `make check' runs over the committed corpus (replay.sh), so every
 * harness builds and passes its seeds even where clang is missing.  Each
 * argument is a file, read whole and handed to LLVMFuzzerTestOneInput;
 * a failed check aborts, as under libFuzzer.  A harness's
 * LLVMFuzzerInitialize, if it has one, runs first, as under libFuzzer.
 * It must never be linked into anything but these test programs.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* Defined by the harnesses that set something up (fuzz_taint). */
int	LLVMFuzzerInitialize(int *, char ***) __attribute__((weak));

/* The whole file in a buffer of exactly its size, for ASan-like bounds. */
static uint8_t *
slurp(const char *path, size_t *lenp)
{
	uint8_t *d = NULL, *t;
	size_t len = 0, alloc = 0, n;
	FILE *f;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	for (;;) {
		if (len == alloc) {
			alloc = alloc == 0 ? 4096 : alloc * 2;
			if ((t = realloc(d, alloc)) == NULL)
				goto fail;
			d = t;
		}
		n = fread(d + len, 1, alloc - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f))
		goto fail;
	fclose(f);
	/* exactly len bytes: an overread runs off the allocation */
	if ((t = malloc(len > 0 ? len : 1)) == NULL) {
		free(d);
		return NULL;
	}
	memcpy(t, d, len);
	free(d);
	*lenp = len;
	return t;
 fail:
	free(d);
	fclose(f);
	return NULL;
}

int
main(int argc, char **argv)
{
	uint8_t *d;
	size_t len;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s file ...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize != NULL)
		(void)LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		if ((d = slurp(argv[i], &len)) == NULL) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		(void)LLVMFuzzerTestOneInput(d, len);
		free(d);
	}
	return 0;
}
