/*
 * memory.c - one account of the bytes the monitor holds for a session
 * (memory.h says what is charged and why).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stddef.h>
#include <string.h>

#include "err.h"
#include "log.h"
#include "memory.h"
#include "msg.h"
#include "value.h"

/* What malloc adds to each block (glibc: a size word, 16-byte chunks). */
#define MEM_HEADER	16

void
mem_init(struct memacct *m, size_t cap)
{
	memset(m, 0, sizeof(*m));
	m->cap = cap;
}

int
mem_fits(const struct memacct *m, size_t n)
{
	return m->used <= m->cap && n <= m->cap - m->used;
}

int
mem_charge(struct memacct *m, size_t n)
{
	if (!mem_fits(m, n))
		return -BNC_ERR_TOO_LARGE;
	m->used += n;
	if (m->used > m->peak)
		m->peak = m->used;
	return 0;
}

void
mem_force(struct memacct *m, size_t n)
{
	m->used += n;
	if (m->used > m->peak)
		m->peak = m->used;
}

void
mem_release(struct memacct *m, size_t n)
{
	/* more released than charged is a bug of ours: never wrap */
	if (n > m->used) {
		error("memory account: %zu bytes released, %zu held", n,
		    m->used);
		n = m->used;
	}
	m->used -= n;
}

size_t
mem_alloc(size_t n)
{
	return (n + MEM_HEADER + 15) & ~(size_t)15;
}

size_t
mem_string(const char *s)
{
	return s != NULL ? mem_alloc(strlen(s) + 1) : 0;
}

size_t
mem_value(const struct value *v)
{
	size_t i, n;

	if (v == NULL)
		return 0;
	n = mem_alloc(sizeof(*v));
	switch (v->type) {
	case V_STRING:
		n += mem_alloc(v->u.s.len + 1);
		break;
	case V_ARRAY:
		n += mem_alloc(v->u.a.cap * sizeof(*v->u.a.v));
		for (i = 0; i < v->u.a.n; i++)
			n += mem_value(v->u.a.v[i]);
		break;
	case V_OBJECT:
		n += mem_alloc(v->u.o.cap * sizeof(*v->u.o.m));
		for (i = 0; i < v->u.o.n; i++)
			n += mem_alloc(v->u.o.m[i].klen + 1) +
			    mem_value(v->u.o.m[i].val);
		break;
	default:
		break;
	}
	return n;
}

size_t
mem_rpc(const struct rpc *m)
{
	return sizeof(*m) + mem_string(m->id.s) + mem_string(m->method) +
	    mem_value(m->params) + mem_value(m->result) +
	    mem_string(m->message) + mem_value(m->data);
}
