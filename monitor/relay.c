/*
 * relay.c - requests an upstream makes of the client, relayed under an
 * id of ours (DESIGN 4).
 *
 * Only what the client offered is relayed (its capabilities at
 * initialize), only once the session is ready, and at most
 * BNC_PENDING_MAX at a time, each charged to the session's memory.
 * What the upstream asks may quote untrusted text: the upstream worker
 * parsed it, and the taint index recorded it before it got here.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "bounds.h"
#include "client.h"
#include "decide.h"
#include "log.h"
#include "memory.h"
#include "monitor.h"
#include "msg.h"
#include "relay.h"
#include "upstream.h"
#include "value.h"
#include "xmalloc.h"

/* A request an upstream sent to the client, relayed with our id. */
struct relay {
	int64_t		 sid;		/* id we gave the client */
	struct upstream	*up;
	struct rpc_id	 uid;		/* the upstream's own id */
	size_t		 mem;		/* charged to the session */
};

/* The methods an upstream may ask of a client that offered them. */
static const struct {
	const char	*method;
	const char	*cap;
} needs[] = {
	{ "elicitation/create",		"elicitation" },
	{ "roots/list",			"roots" },
	{ "sampling/createMessage",	"sampling" },
};

static void
relay_remove(struct session *s, size_t i)
{
	rpc_id_clear(&s->relays[i].uid);
	mem_release(&s->mem, s->relays[i].mem);
	s->relays[i] = s->relays[--s->nrelays];
}

void
relay_request(struct session *s, struct upstream *up, const struct rpc *m)
{
	struct relay *r;
	struct rpc_out out;
	size_t i, need;

	for (i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if (strcmp(needs[i].method, m->method) == 0)
			break;
	/* A client that did not offer it has no handler either. */
	if (i == sizeof(needs) / sizeof(needs[0]) ||
	    value_get(s->client_caps, needs[i].cap) == NULL ||
	    s->state != SESSION_READY || s->nrelays >= BNC_PENDING_MAX) {
		upstream_reply_error(up, &m->id, -32601, "Method not found");
		return;
	}
	need = sizeof(*r) + mem_string(m->id.s);
	if (mem_charge(&s->mem, need) != 0) {
		upstream_reply_error(up, &m->id, -32603, MEM_FULL_ERROR);
		return;
	}
	s->relays = xreallocarray(s->relays, s->nrelays + 1,
	    sizeof(*s->relays));
	r = &s->relays[s->nrelays++];
	r->mem = need;
	r->sid = s->next_sid++;
	r->up = up;
	rpc_id_copy(&r->uid, &m->id);
	memset(&out, 0, sizeof(out));
	out.kind = RPC_REQUEST;
	out.id.type = RPC_ID_INT;
	out.id.n = r->sid;
	out.method = m->method;
	out.params = m->params;
	client_send(s, &out);
}

void
relay_cancel(struct session *s, struct upstream *up,
    const struct value *params)
{
	const struct value *rid, *reason;
	struct rpc_id uid;
	struct value *np;
	size_t i;

	memset(&uid, 0, sizeof(uid));
	rid = value_get(params, "requestId");
	if (value_is(rid, V_INT)) {
		uid.type = RPC_ID_INT;
		uid.n = rid->u.i;
	} else if (value_is(rid, V_STRING)) {
		uid.type = RPC_ID_STR;
		uid.s = rid->u.s.p;
	} else
		return;
	/* its reason reaches the client: untrusted */
	decide_record_output(&s->dc, value_get(params, "reason"));
	for (i = 0; i < s->nrelays; i++) {
		if (s->relays[i].up != up ||
		    !rpc_id_equal(&s->relays[i].uid, &uid))
			continue;
		np = value_object();
		value_object_put(np, "requestId",
		    value_int(s->relays[i].sid));
		if ((reason = value_get(params, "reason")) != NULL &&
		    value_is(reason, V_STRING))
			value_object_put(np, "reason", value_dup(reason));
		client_notify(s, "notifications/cancelled", np);
		relay_remove(s, i);
		return;
	}
}

int
relay_answer(struct session *s, struct rpc *m)
{
	struct relay *r = NULL;
	struct rpc_out out;
	size_t i;

	if (m->id.type != RPC_ID_INT)
		return 0;
	for (i = 0; i < s->nrelays; i++)
		if (s->relays[i].sid == m->id.n) {
			r = &s->relays[i];
			break;
		}
	if (r == NULL)
		return 0;
	memset(&out, 0, sizeof(out));
	out.kind = m->kind;
	out.id = r->uid;
	out.result = m->result;
	out.code = m->code;
	out.message = m->message;
	out.data = m->data;
	/* an answer that cannot go is still owed one */
	if (upstream_send(r->up, &out) != 0 && out.kind == RPC_RESULT)
		upstream_reply_error(r->up, &r->uid, -32603, "Internal error: "
		    "the client's answer is too large to forward");
	relay_remove(s, i);
	return 1;
}

void
relay_drop(struct session *s, const struct upstream *up)
{
	size_t i;

	for (i = 0; i < s->nrelays;) {
		if (s->relays[i].up == up)
			relay_remove(s, i);
		else
			i++;
	}
}
