/*
 * fuzz.h - what the libFuzzer harnesses of regress/fuzz/ share.
 *
 * An assertion that aborts (libFuzzer and the replay driver both report
 * an abort as a crash, with the input that caused it), and the equality
 * of two JSON-RPC messages.  Test code only: nothing here may ever be
 * linked into a bouncer binary.
 */
#ifndef BNC_FUZZ_H
#define BNC_FUZZ_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounds.h"
#include "msg.h"
#include "value.h"

#define FUZZ_UNUSED	__attribute__((unused))

/* Every harness's entry point (libFuzzer's, and replay.c's). */
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FUZZ_CHECK(cond) do {						\
	if (!(cond))							\
		fuzz_fail(__FILE__, __LINE__, #cond);			\
} while (0)

/* fuzz_scratch_open()'s file, "" if none (see below). */
static char fuzz_scratch[256];

static void __attribute__((noreturn)) FUZZ_UNUSED
fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	/* abort() skips atexit: the input is kept by the fuzzer, not here */
	if (fuzz_scratch[0] != '\0')
		(void)unlink(fuzz_scratch);
	abort();
}

static int FUZZ_UNUSED
fuzz_str_equal(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Every field of two messages, trees compared with value_equal. */
static int FUZZ_UNUSED
fuzz_rpc_equal(const struct rpc *a, const struct rpc *b)
{
	return a->kind == b->kind && rpc_id_equal(&a->id, &b->id) &&
	    fuzz_str_equal(a->method, b->method) &&
	    value_equal(a->params, b->params) &&
	    value_equal(a->result, b->result) && a->code == b->code &&
	    fuzz_str_equal(a->message, b->message) &&
	    value_equal(a->data, b->data);
}

/*
 * Would the worker's parser produce this tree, nested `depth' containers
 * deep in a line?  It turns an integral double of at most 2^53 into an
 * integer (-0.0 too), and refuses more than BNC_VALUE_DEPTH_MAX levels.
 */
static int FUZZ_UNUSED
fuzz_parser_shaped(const struct value *v, int depth)
{
	size_t i;
	double d;

	if (v == NULL)
		return 1;
	switch (v->type) {
	case V_DOUBLE:
		d = v->u.d;
		return !(d >= -9007199254740992.0 && d <= 9007199254740992.0 &&
		    (double)(int64_t)d == d);
	case V_ARRAY:
		if (depth + 1 > BNC_VALUE_DEPTH_MAX)
			return 0;
		for (i = 0; i < v->u.a.n; i++)
			if (!fuzz_parser_shaped(v->u.a.v[i], depth + 1))
				return 0;
		return 1;
	case V_OBJECT:
		if (depth + 1 > BNC_VALUE_DEPTH_MAX)
			return 0;
		for (i = 0; i < v->u.o.n; i++)
			if (!fuzz_parser_shaped(v->u.o.m[i].val, depth + 1))
				return 0;
		return 1;
	default:
		return 1;
	}
}

#define FUZZ_INT_EXACT	((int64_t)1 << 53)

/*
 * Would a line rendered from m parse back to m?  Not when it holds a
 * number the parser reads otherwise (an id at or beyond 2^53, which
 * parse.c refuses since 2^53 + 1 reads as 2^53 too; an error code beyond
 * 2^53; an integral double), params that are not an object, or trees
 * too deep once inside the envelope.
 */
static int FUZZ_UNUSED
fuzz_rpc_parser_shaped(const struct rpc *m)
{
	if (m->id.type == RPC_ID_INT &&
	    (m->id.n >= FUZZ_INT_EXACT || m->id.n <= -FUZZ_INT_EXACT))
		return 0;
	switch (m->kind) {
	case RPC_REQUEST:
	case RPC_NOTIFICATION:
		return m->params == NULL || (m->params->type == V_OBJECT &&
		    fuzz_parser_shaped(m->params, 1));
	case RPC_RESULT:
		return fuzz_parser_shaped(m->result, 1);
	case RPC_ERROR:
		return m->code <= FUZZ_INT_EXACT &&
		    m->code >= -FUZZ_INT_EXACT &&
		    fuzz_parser_shaped(m->data, 2);
	}
	return 0;
}


/*
 * A scratch file for harnesses whose code under test reads by path:
 * under /dev/shm when writable (no disk I/O per run), removed at exit
 * and by fuzz_fail().
 */
static void
fuzz_scratch_remove(void)
{
	if (fuzz_scratch[0] != '\0')
		(void)unlink(fuzz_scratch);
}

static void FUZZ_UNUSED
fuzz_scratch_open(const char *name)
{
	const char *dir = "/dev/shm", *t;
	int fd;

	if (access(dir, W_OK) != 0)
		dir = (t = getenv("TMPDIR")) != NULL && *t == '/' ? t : "/tmp";
	FUZZ_CHECK((size_t)snprintf(fuzz_scratch, sizeof(fuzz_scratch),
	    "%s/%s.XXXXXX", dir, name) < sizeof(fuzz_scratch));
	FUZZ_CHECK((fd = mkstemp(fuzz_scratch)) != -1);
	close(fd);
	atexit(fuzz_scratch_remove);
}

static void FUZZ_UNUSED
fuzz_scratch_write(const uint8_t *data, size_t size)
{
	ssize_t w;
	size_t off = 0;
	int fd;

	FUZZ_CHECK((fd = open(fuzz_scratch, O_WRONLY | O_TRUNC)) != -1);
	while (off < size) {
		w = write(fd, data + off, size - off);
		if (w == -1 && errno == EINTR)
			continue;
		FUZZ_CHECK(w > 0);
		off += (size_t)w;
	}
	close(fd);
}

#endif /* BNC_FUZZ_H */
