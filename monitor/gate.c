/*
 * gate.c - the path of one tools/call, and of one request for a prompt,
 * a resource or a completion: decide, record, ask, forward.
 *
 * Nothing reaches an upstream unless decide_call() said allow AND its
 * audit row is committed (DESIGN 9, 10: a call is never forwarded
 * without its audit row; a failing audit denies).  An ask goes to the
 * human through MCP elicitation when the client declared it; only
 * "accept" approves, each unproven destination is asked about once, the
 * number of questions for one call is bounded by its destinations, and
 * an answer is accepted only for a question bouncer asked, once.
 * A call whose tool says approval: signed, or of a client that cannot
 * elicit, waits out of band instead (DESIGN 5, 7): it is registered in
 * the database, where bouncer-issue-consent --pending shows it, and only
 * an approval that a consent key signed for exactly this ask, agent,
 * tool and arguments releases it; nothing the client sends does.  With
 * no consent key configured nobody could sign one, and it is denied.
 * A request other than a tool call is resolved by route.c, decided by
 * decide_request() and forwarded by route_forward(); a list is recorded
 * and allowed.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "approvals.h"
#include "audit.h"
#include "bounds.h"
#include "buf.h"
#include "builtin.h"
#include "client.h"
#include "conffile.h"
#include "consent.h"
#include "decide.h"
#include "err.h"
#include "gate.h"
#include "log.h"
#include "monitor.h"
#include "policy.h"
#include "route.h"
#include "surface.h"
#include "upstream.h"
#include "utf8.h"
#include "value.h"
#include "value-json.h"
#include "xmalloc.h"

/* A call waiting for a human's answer to an elicitation/create. */
struct ask {
	int64_t		 sid;		/* id of our elicitation request */
	struct rpc_id	 cid;		/* the client's tools/call id */
	char		*tool;		/* the name the client called */
	struct value	*params;	/* the call, to forward once allowed */
	char		*param;		/* what is asked about, or NULL */
	char		*value;
	size_t		 len;
	int		 once;		/* a confirmation, not remembered */
	int		 confirmed;	/* a human confirmed this call */
	char		*method;	/* NULL: a tools/call; else the method
					 * of a request route.c forwards */
	char		*key;		/* requests: what approvals call it */
	char		*upname;	/* requests: its owner (the audit) */
	int		 rounds;	/* questions left for this call */
	char		*reason;	/* the question's reason */
	const char	*contract;	/* the contract that asked (static) */
	char		**sinks;	/* its destination arguments (audit) */
	size_t		 nsinks;
	struct event	*timer;
	struct session	*s;
	size_t		 mem;		/* charged to the session */
	/* the out-of-band channel: the client never answers these */
	int		 oob;		/* this question waits out of band */
	int64_t		 oob_id;	/* its id in oob_asks while it waits;
					 * 0 once answered or given up */
	int64_t		 oob_expires;	/* what the approval must sign */
	uint8_t		 oob_sha[32];	/* of the canonical arguments */
	char		*approved_by;	/* the allow row's reason, after a
					 * signed approval */
};

/*
 * A call that waits for its upstream's changed tool list: the client's
 * request, or a call a human approved (ask), to be decided again with
 * flags once the list is in.  The session keeps them in arrival order
 * (s->held); only this file reads them.
 */
struct held_call {
	struct upstream	*up;
	struct rpc	 m;		/* unused when ask is set */
	struct ask	*ask;
	int		 flags;
	size_t		 mem;		/* charged to the session */
};

/* The result every denied call gets (DESIGN 1.1). */
static struct value *
blocked_result(const char *reason)
{
	struct value *res, *content, *block;
	char *text;

	xasprintf(&text, "[bouncer blocked] %s", reason);
	block = value_object();
	value_object_put(block, "type", value_string("text"));
	value_object_put(block, "text", value_string(text));
	free(text);
	content = value_array();
	value_array_append(content, block);
	res = value_object();
	value_object_put(res, "content", content);
	value_object_put(res, "isError", value_bool(1));
	return res;
}

/*
 * A name the client chose may be longer than the log's field: it is
 * recorded cut, on a whole character, and marked with its length, so
 * the decision is never lost for its name.
 */
static const char *
field_cut(const char *name, char *buf, size_t buflen)
{
	size_t n = strlen(name), keep;

	if (n <= BNC_AUDIT_FIELD_MAX)
		return name;
	keep = utf8_cut(name, n, buflen - 64);
	snprintf(buf, buflen, "%.*s... (cut: %zu bytes)", (int)keep, name,
	    n);
	return buf;
}

/* One row; with nonce, the consent nonce it consumes (audit_append). */
static int
record_nonce(struct session *s, const char *tool, const char *upstream,
    const struct value *args, const char *verdict, const char *contract,
    const char *reason, const char *const *sinks, size_t nsinks,
    const char *nonce, int64_t *seqp)
{
	struct audit_row row;
	char cut[BNC_AUDIT_FIELD_MAX + 1];
	int64_t seq;
	int r;

	memset(&row, 0, sizeof(row));
	row.session = s->id;
	row.agent = s->agent;
	row.upstream = upstream;
	row.tool = field_cut(tool, cut, sizeof(cut));
	row.verdict = verdict;
	row.contract = contract;
	row.reason = reason;
	row.args = args;
	row.sinks = sinks;
	row.nsinks = nsinks;
	row.nonce = nonce;
	if ((r = audit_append(s->audit, &row, &seq)) != 0) {
		if (r != -BNC_ERR_USED)
			error("audit: cannot record %s of %s: %s", verdict,
			    tool, audit_append_error(s->audit));
		return r;
	}
	if (seqp != NULL)
		*seqp = seq;
	return 0;
}

static int
record(struct session *s, const char *tool, const char *upstream,
    const struct value *args, const char *verdict, const char *contract,
    const char *reason, const char *const *sinks, size_t nsinks)
{
	return record_nonce(s, tool, upstream, args, verdict, contract, reason,
	    sinks, nsinks, NULL, NULL);
}

void
gate_audit_event(struct session *s, const char *event, const char *reason)
{
	if (s->audit != NULL)
		/* no contract decided it: "default", of DESIGN 1.1's names */
		record(s, event, NULL, NULL, "event", "default", reason, NULL,
		    0);
}

/*
 * The session's agent is unknown (a registry, and no token of it): the
 * one row that says every request of the session is refused, and why.
 */
void
gate_audit_identity(struct session *s)
{
	if (s->audit != NULL)
		record(s, "*", NULL, NULL, "deny", "identity",
		    s->identity_error, NULL, 0);
}

/* Records the decision; an unrecordable decision becomes a deny. */
static void
record_decision(struct session *s, const char *tool, const char *upstream,
    const struct value *args, struct decision *d, int64_t *seqp)
{
	int r;

	/*
	 * An allowed consent-gated call consumes its token's nonce in the
	 * transaction of its row, before anything is sent: used before,
	 * by any monitor on this database, it is a replay (DESIGN 7).
	 */
	r = record_nonce(s, tool, upstream, args, verdict_name(d->verdict),
	    d->contract, d->reason, (const char *const *)d->sinks, d->nsinks,
	    d->verdict == VERDICT_ALLOW && d->nonce[0] != '\0' ? d->nonce :
	    NULL, seqp);
	if (r == 0)
		return;
	if (r == -BNC_ERR_USED) {
		d->verdict = VERDICT_DENY;
		d->contract = "consent";
		snprintf(d->reason, sizeof(d->reason), "consent token "
		    "refused: %s (its nonce was used before)",
		    CONSENT_REPLAYED);
		if (record(s, tool, upstream, args, "deny", d->contract,
		    d->reason, (const char *const *)d->sinks, d->nsinks) == 0)
			return;
	}
	if (d->verdict != VERDICT_DENY) {
		d->verdict = VERDICT_DENY;
		d->contract = "default";
		snprintf(d->reason, sizeof(d->reason), "the audit log is "
		    "unavailable; nothing is forwarded without its record");
	}
}

/*
 * An allowed request that could not be written to up after all: the log
 * says so after its allow row, and the client gets an error.  Either its
 * JSON was too large, or found no room, or up's input closed as it was
 * written (it exited between the decision and the write): each says so.
 */
void
gate_not_sent(struct session *s, const struct upstream *up,
    const struct rpc_id *cid, const char *what)
{
	char reason[BNC_REASON_MAX];

	if (up->in_closed || up->in_fd == -1) {
		snprintf(reason, sizeof(reason), "the allowed %s above could "
		    "not be written to upstream \"%.64s\": its input closed "
		    "(it exited, or stopped reading); nothing was sent", what,
		    up->name);
		gate_audit_event(s, "not-sent", reason);
		snprintf(reason, sizeof(reason), "Internal error: the %s could "
		    "not be sent: upstream \"%.64s\" no longer reads its input",
		    what, up->name);
	} else {
		snprintf(reason, sizeof(reason), "the allowed %s above could "
		    "not be written to its upstream (too large as JSON, or no "
		    "room for it in the session's memory); nothing was sent",
		    what);
		gate_audit_event(s, "not-sent", reason);
		snprintf(reason, sizeof(reason), "Internal error: the %s could "
		    "not be sent to its upstream (too large, or the session's "
		    "memory is full)", what);
	}
	client_send_error(s, cid, -32603, reason);
}

/*
 * A forwarded call's answer: its result is recorded as untrusted under
 * its tool's policy (arg: the name the client called), and the resource
 * links in it are remembered, before it goes back to the client.
 */
static void
call_done(struct upstream *up, const struct pending *p, enum pend_end how,
    struct rpc *m)
{
	struct session *s = up->s;

	if (how == PEND_ANSWER && m->kind == RPC_RESULT) {
		decide_result(&s->dc, surface_find(s, p->arg), m->result);
		route_result(up, 0, -1, m->result);
	}
	upstream_to_client(up, p, how, m);
}

void
gate_forward(struct session *s, const struct tool_entry *e,
    const struct rpc_id *cid, const struct value *params, int strip_consent)
{
	struct pending_req req;
	struct value *p, *meta, *tok;

	p = value_dup(params);
	value_object_put(p, "name", value_string(e->pin->name));
	/* the consent token is bouncer's: the upstream never sees it */
	if (strip_consent)
		value_free(value_object_take(value_get(p, "arguments"),
		    POLICY_CONSENT_PARAM));
	meta = value_get(p, "_meta");
	tok = value_get(meta, "progressToken");
	/*
	 * The decision asked whether the upstream takes a request now and
	 * whether its entry has room, so this fails only for a call whose
	 * JSON is too large (a lying worker's), or that finds the queue
	 * toward a slow upstream's stdin full: the log says so.
	 */
	memset(&req, 0, sizeof(req));
	req.done = call_done;
	req.arg = xstrdup(e->exposed);
	req.arg_mem = mem_string(e->exposed);
	req.cid = cid;
	req.progress = tok;
	if (upstream_request(e->up, "tools/call", p, &req) == -1)
		gate_not_sent(s, e->up, cid, "call");
}

static void
deny_call(struct session *s, const struct rpc_id *cid, const char *tool,
    const char *contract, const char *reason)
{
	logit("deny %s: %s: %s", tool, contract, reason);
	client_send_result(s, cid, blocked_result(reason));
}

/*
 * A denied request that is no tool call (resources/read, prompts/get,
 * completion/complete, ...) has no result shape to carry the reason: it
 * gets a JSON-RPC error, Invalid params (as the spec answers a resource
 * nobody has), whose message starts as a blocked call's text does.
 */
#define GATE_BLOCKED_CODE	(-32602)

static void
deny_request(struct session *s, const struct rpc_id *cid, const char *method,
    const char *contract, const char *reason)
{
	char *msg;

	logit("deny %s: %s: %s", method, contract, reason);
	xasprintf(&msg, "[bouncer blocked] %s", reason);
	client_send_error(s, cid, GATE_BLOCKED_CODE, msg);
	free(msg);
}

/* May this client be asked through elicitation/create (form mode)? */
static int
client_can_elicit(const struct session *s)
{
	const struct value *el;

	el = value_get(s->client_caps, "elicitation");
	if (!value_is(el, V_OBJECT))
		return 0;
	/* {} means form only; with modes listed, form must be one. */
	return el->u.o.n == 0 || value_get(el, "form") != NULL;
}

static void
ask_free(struct ask *a)
{
	size_t i;

	if (a == NULL)
		return;
	if (a->timer != NULL)
		event_free(a->timer);
	for (i = 0; i < a->nsinks; i++)
		free(a->sinks[i]);
	free(a->sinks);
	rpc_id_clear(&a->cid);
	free(a->tool);
	value_free(a->params);
	free(a->param);
	free(a->value);
	free(a->reason);
	free(a->method);
	free(a->key);
	free(a->upname);
	free(a->approved_by);
	mem_release(&a->s->mem, a->mem);
	free(a);
}

/* Drops held call i; the others keep their order. */
static void
held_drop(struct session *s, size_t i)
{
	mem_release(&s->mem, s->held[i].mem);
	msg_rpc_free(&s->held[i].m);
	memmove(&s->held[i], &s->held[i + 1],
	    (s->nheld - i - 1) * sizeof(*s->held));
	s->nheld--;
}

static void
ask_remove(struct session *s, struct ask *a)
{
	size_t i;

	/* nobody waits for it now: --approve says so, rather than sign */
	if (a->oob_id != 0 && audit_oob_withdraw(s->audit, a->oob_id) != 0)
		debug("ask %lld: cannot record its withdrawal",
		    (long long)a->oob_id);
	a->oob_id = 0;
	for (i = 0; i < s->nasks; i++)
		if (s->asks[i] == a) {
			s->asks[i] = s->asks[--s->nasks];
			break;
		}
	/* an approved call may wait for its upstream's list */
	for (i = 0; i < s->nheld; i++)
		if (s->held[i].ask == a) {
			held_drop(s, i);
			break;
		}
	ask_free(a);
}

/*
 * Holds a call while its upstream's tools are re-read: the client's
 * request m, or the call of a (approved by a human), to be decided with
 * flags.  Returns 0, or -1 with the reason it was not held in why.
 */
static int
hold(struct upstream *up, const struct rpc *m, struct ask *a, int flags,
    const char **why)
{
	struct session *s = up->s;
	struct held_call *h;
	size_t i, n, need = sizeof(*h) + (m != NULL ? mem_rpc(m) : 0);

	for (i = n = 0; i < s->nheld; i++)
		if (s->held[i].up == up)
			n++;
	if (n >= BNC_PENDING_MAX) {
		*why = "too many calls wait for the upstream's changed tool "
		    "list";
		return -1;
	}
	if (mem_charge(&s->mem, need) != 0) {
		*why = MEM_FULL_REASON;
		return -1;
	}
	s->held = xreallocarray(s->held, s->nheld + 1, sizeof(*s->held));
	h = &s->held[s->nheld++];
	memset(h, 0, sizeof(*h));
	h->up = up;
	h->ask = a;
	h->flags = flags;
	h->mem = need;
	if (m != NULL) {
		h->m.kind = RPC_REQUEST;
		rpc_id_copy(&h->m.id, &m->id);
		h->m.method = xstrdup(m->method);
		h->m.params = value_dup(m->params);
	}
	return 0;
}

/* The upstream of a call to tool, if its tools are being re-read. */
static struct upstream *
unsettled(struct session *s, const char *tool)
{
	const struct tool_entry *e;

	if ((e = surface_find(s, tool)) != NULL && e->up->unsettled &&
	    e->up->state == UP_READY)
		return e->up;
	return NULL;
}

static void ask_timeout(evutil_socket_t, short, void *);
static void oob_poll(evutil_socket_t, short, void *);

/* May the call of d wait for an approval out of band? */
static int
oob_wanted(const struct session *s, const struct decision *d)
{
	return d->ask_signed || !client_can_elicit(s);
}

/* Can anybody answer it there: a database, and a key to sign with. */
static int
oob_possible(const struct session *s)
{
	return s->audit != NULL && consent_keys_count(s->consent_keys) > 0;
}

/* Sends the question for d about the call a through the client. */
static void
ask_elicit(struct session *s, struct ask *a, const struct decision *d)
{
	struct value *params, *schema;
	struct rpc_out out;
	char *msg;

	a->sid = s->next_sid++;
	xasprintf(&msg, "bouncer: the call of %s needs your approval: %s. "
	    "Accept to allow it%s.", a->tool, d->reason, a->once ? " once" :
	    " (and remember this destination for this session)");
	schema = value_object();
	value_object_put(schema, "type", value_string("object"));
	value_object_put(schema, "properties", value_object());
	params = value_object();
	value_object_put(params, "message", value_string(msg));
	value_object_put(params, "requestedSchema", schema);
	free(msg);
	memset(&out, 0, sizeof(out));
	out.kind = RPC_REQUEST;
	out.id.type = RPC_ID_INT;
	out.id.n = a->sid;
	out.method = "elicitation/create";
	out.params = params;
	client_send(s, &out);
	value_free(params);
}

/*
 * Registers the call of a in the database, where bouncer-issue-consent
 * --pending shows it to the admin, and waits for its answer there.  The
 * arguments are bound in canonical form without the consent token
 * (DESIGN 7), exactly the bytes the admin is shown.  0, or -1 with why.
 */
static int
ask_oob(struct session *s, struct ask *a, const char **why)
{
	struct timeval tv = { 0, BNC_OOB_POLL_MS * 1000 };
	struct value *args;
	struct buf *b = buf_new();
	int64_t now = (int64_t)time(NULL);
	int r = -1;

	args = value_dup(a->method != NULL ? a->params :
	    value_get(a->params, "arguments"));
	if (args == NULL)
		args = value_object();
	value_free(value_object_take(args, POLICY_CONSENT_PARAM));
	if (value_render_canonical(b, args) != 0 ||
	    buf_len(b) > BNC_OOB_ARGS_MAX) {
		*why = "its arguments are too large to show for an "
		    "out-of-band approval";
		goto out;
	}
	a->oob_expires = now + s->cfg->ask_timeout;
	if (audit_oob_ask_add(s->audit, s->id, s->agent, a->tool,
	    (const char *)buf_ptr(b), buf_len(b), a->reason, now,
	    a->oob_expires, &a->oob_id, a->oob_sha) != 0) {
		error("audit: cannot record the out-of-band ask for %s: %s",
		    a->tool, audit_errmsg(s->audit));
		a->oob_id = 0;
		*why = "the out-of-band ask cannot be recorded";
		goto out;
	}
	logit("%s waits for an out-of-band approval: ask %lld "
	    "(bouncer-issue-consent --pending)", a->tool,
	    (long long)a->oob_id);
	/*
	 * Polled, not told: the database is the one channel that every
	 * monitor on the machine and bouncer-issue-consent share, and an
	 * answer needs no socket, no listener and no new privilege.
	 */
	if (s->oob_poll == NULL)
		s->oob_poll = evtimer_new(s->base, oob_poll, s);
	if (!evtimer_pending(s->oob_poll, NULL))
		evtimer_add(s->oob_poll, &tv);
	r = 0;
 out:
	value_free(args);
	buf_free(b);
	return r;
}

/*
 * Asks about the call a for d, through the client or out of band:
 * 0, or -1 with why (the caller denies it).
 */
static int
ask_send(struct session *s, struct ask *a, const struct decision *d,
    const char **why)
{
	struct timeval tv = { s->cfg->ask_timeout, 0 };
	size_t i;

	free(a->param);
	free(a->value);
	free(a->reason);
	a->param = d->ask_param != NULL ? xstrdup(d->ask_param) : NULL;
	a->value = d->ask_value != NULL ? xmemdup(d->ask_value,
	    d->ask_len + 1) : NULL;
	a->len = d->ask_len;
	a->once = d->ask_once;
	a->reason = xstrdup(d->reason);
	a->contract = d->contract;
	/* what its deny row shows in clear, should it come to that */
	for (i = 0; i < a->nsinks; i++)
		free(a->sinks[i]);
	free(a->sinks);
	a->sinks = xcalloc(d->nsinks + 1, sizeof(*a->sinks));
	for (i = 0; i < d->nsinks; i++)
		a->sinks[i] = xstrdup(d->sinks[i]);
	a->nsinks = d->nsinks;
	/* ask_bound saw that oob_possible() if it is wanted */
	a->oob = oob_wanted(s, d);
	if (a->oob && ask_oob(s, a, why) != 0)
		return -1;
	if (!a->oob)
		ask_elicit(s, a, d);
	if (a->timer == NULL)
		a->timer = evtimer_new(s->base, ask_timeout, a);
	evtimer_add(a->timer, &tv);
	return 0;
}

/*
 * What a call waiting for a human holds: the call, its names, and the
 * question's reason, value and destinations (each at most this large).
 */
static size_t
ask_need(const char *name, const struct value *params,
    const struct decision *d)
{
	size_t i, n;

	n = mem_alloc(sizeof(struct ask)) + 4 * mem_string(name) +
	    mem_value(params) + mem_alloc(2 * BNC_REASON_MAX) +
	    mem_alloc(d->ask_len + 1) + mem_string(d->ask_param) +
	    mem_alloc((d->nsinks + 1) * sizeof(char *));
	for (i = 0; i < d->nsinks; i++)
		n += mem_string(d->sinks[i]);
	return n;
}

/*
 * An ask nobody can answer (out of band without a key to sign with), or
 * one past the bounds (calls waiting, the
 * session's memory for a new one, whose size is need, and questions for
 * one call, a), becomes a deny, and is recorded as one.
 */
static void
ask_bound(struct session *s, const struct ask *a, struct decision *d,
    size_t need)
{
	char reason[BNC_REASON_MAX + 128];

	if (d->verdict == VERDICT_ASK && oob_wanted(s, d) &&
	    !oob_possible(s)) {
		snprintf(reason, sizeof(reason), d->ask_signed ? "%.*s, and "
		    "no consent key is configured to sign one" : "%.*s; no "
		    "human could be asked (the client does not support "
		    "elicitation)", (int)utf8_cut(d->reason,
		    strlen(d->reason), 900), d->reason);
		d->verdict = VERDICT_DENY;
		memcpy(d->reason, reason, sizeof(d->reason) - 1);
		d->reason[sizeof(d->reason) - 1] = '\0';
		utf8_trim(d->reason);
	} else if (d->verdict == VERDICT_ASK && a == NULL &&
	    s->nasks >= BNC_ASKS_MAX) {
		d->verdict = VERDICT_DENY;
		snprintf(d->reason, sizeof(d->reason), "too many calls are "
		    "waiting for a human");
	} else if (d->verdict == VERDICT_ASK && a == NULL &&
	    !mem_fits(&s->mem, need)) {
		d->verdict = VERDICT_DENY;
		snprintf(d->reason, sizeof(d->reason), "no room to wait for "
		    "a human: " MEM_FULL_REASON);
	} else if (d->verdict == VERDICT_ASK && a != NULL && a->rounds <= 1) {
		snprintf(reason, sizeof(reason), "%.*s; too many questions "
		    "for one call", (int)utf8_cut(d->reason,
		    strlen(d->reason), 900), d->reason);
		d->verdict = VERDICT_DENY;
		memcpy(d->reason, reason, sizeof(d->reason) - 1);
		d->reason[sizeof(d->reason) - 1] = '\0';
		utf8_trim(d->reason);
	}
}

/*
 * An allowed request is sent at once, and its entry among the requests
 * in flight holds its progress token and names until the answer: no
 * room for that, and it is denied, before its row, as when the upstream
 * cannot take it (decide_unreachable).
 */
static void
room_to_send(struct session *s, const struct value *params,
    struct decision *d)
{
	if (mem_fits(&s->mem, upstream_pending_need(params)))
		return;
	d->verdict = VERDICT_DENY;
	d->contract = "default";
	snprintf(d->reason, sizeof(d->reason), "%s", MEM_FULL_REASON);
}

static void ask_deny(struct session *, struct ask *, const char *);

/*
 * The allow row of a call the admin approved out of band says who did
 * (a decision that allows says nothing else).
 */
static void
approved_reason(const struct ask *a, struct decision *d)
{
	if (a != NULL && a->approved_by != NULL &&
	    d->verdict == VERDICT_ALLOW && d->reason[0] == '\0')
		snprintf(d->reason, sizeof(d->reason), "%s", a->approved_by);
}

/* Runs the decision for a call and acts on it (first time or again). */
static void
gate_run(struct session *s, struct ask *a, const struct rpc_id *cid,
    const char *tool, const struct value *params, int flags)
{
	const struct tool_entry *e;
	const struct value *args;
	struct decision d;
	const char *why;

	e = surface_find(s, tool);
	args = value_get(params, "arguments");
	decide_call(&s->dc, tool, e, args, flags, &d);
	ask_bound(s, a, &d, d.verdict == VERDICT_ASK && a == NULL ?
	    ask_need(tool, params, &d) : 0);
	if (d.verdict == VERDICT_ALLOW)
		room_to_send(s, params, &d);
	approved_reason(a, &d);
	record_decision(s, tool, e != NULL ? e->up->name : NULL, args, &d, NULL);
	switch (d.verdict) {
	case VERDICT_ALLOW:
		gate_forward(s, e, cid, params, d.strip_consent);
		if (a != NULL)
			ask_remove(s, a);
		break;
	case VERDICT_DENY:
		deny_call(s, cid, tool, d.contract, d.reason);
		if (a != NULL)
			ask_remove(s, a);
		break;
	case VERDICT_ASK:
		if (a == NULL) {
			a = xcalloc(1, sizeof(*a));
			a->s = s;
			a->mem = ask_need(tool, params, &d);
			/* ask_bound saw it fit */
			if (mem_charge(&s->mem, a->mem) != 0)
				fatal_f("memory account");
			rpc_id_copy(&a->cid, cid);
			a->tool = xstrdup(tool);
			a->params = value_dup(params);
			/* One question per destination, and one to confirm. */
			a->rounds = (int)(d.dests < BNC_ASK_DESTS_MAX ?
			    d.dests : BNC_ASK_DESTS_MAX) + 1;
			s->asks[s->nasks++] = a;
		} else
			a->rounds--;
		if (ask_send(s, a, &d, &why) != 0)
			ask_deny(s, a, why);
		break;
	}
	decision_clear(&d);
}

/*
 * The end of a call of one of bouncer's own tools: its result, or why it
 * failed after its allow row, which the log then says too.
 */
static void
builtin_done(struct session *s, const struct rpc_id *cid, const char *tool,
    struct value *res, const char *why)
{
	char *text;

	if (res != NULL) {
		client_send_result(s, cid, res);
		return;
	}
	xasprintf(&text, "%s failed: %s", tool, why);
	gate_audit_event(s, "not-done", text);
	res = builtin_result(text, NULL);
	value_object_put(res, "isError", value_bool(1));
	client_send_result(s, cid, res);
	free(text);
}

/*
 * A call of one of bouncer's own tools: decided and recorded like any
 * call, then carried out by builtin.c; nothing reaches an upstream.
 */
static void
builtin_call(struct session *s, struct rpc *m, const char *name)
{
	const struct value *args = value_get(m->params, "arguments");
	struct decision d;
	int64_t seq = 0;

	builtin_decide(s, name, args, DECIDE_COUNT_BUDGET, &d);
	record_decision(s, name, NULL, args, &d, &seq);
	if (d.verdict != VERDICT_ALLOW)
		deny_call(s, &m->id, name, d.contract, d.reason);
	else
		builtin_run(s, name, args, seq, &m->id, builtin_done);
	decision_clear(&d);
}

void
gate_tool_call(struct session *s, struct rpc *m)
{
	const char *name = value_get_str(m->params, "name"), *why;
	struct upstream *up;
	struct decision d;

	if (builtin_offered(s, name)) {
		builtin_call(s, m, name);
		return;
	}
	if ((up = unsettled(s, name)) != NULL) {
		if (hold(up, m, NULL, 0, &why) == 0) {
			debug("%s: held until %s's tools are re-read", name,
			    up->name);
			return;
		}
		memset(&d, 0, sizeof(d));
		d.verdict = VERDICT_DENY;
		d.contract = "pinning";
		snprintf(d.reason, sizeof(d.reason), "%s", why);
		record_decision(s, name, up->name,
		    value_get(m->params, "arguments"), &d, NULL);
		deny_call(s, &m->id, name, d.contract, d.reason);
		return;
	}
	gate_run(s, NULL, &m->id, name, m->params, DECIDE_COUNT_BUDGET);
}

/*
 * The re-listing is done (or the upstream is gone): decide what waited,
 * in order, a call a human approved as well (against the new list).
 */
void
gate_release_held(struct upstream *up)
{
	struct session *s = up->s;
	struct held_call *h;
	struct ask *a;
	size_t i, n, kept;

	/* up's calls leave the list before any is decided: a decision
	 * may hold a call again, or drop another */
	h = xcalloc(s->nheld > 0 ? s->nheld : 1, sizeof(*h));
	for (i = n = kept = 0; i < s->nheld; i++) {
		if (s->held[i].up == up)
			h[n++] = s->held[i];
		else
			s->held[kept++] = s->held[i];
	}
	s->nheld = kept;
	for (i = 0; i < n; i++) {
		mem_release(&s->mem, h[i].mem);
		if ((a = h[i].ask) != NULL)
			gate_run(s, a, &a->cid, a->tool, a->params,
			    h[i].flags);
		else
			gate_tool_call(s, &h[i].m);
		msg_rpc_free(&h[i].m);
	}
	free(h);
}

/*
 * Runs the decision for a request that names a prompt, a resource or a
 * completion, and acts on it as gate_run does for a call: allowed, it
 * goes to its owner through route_forward.
 */
static void
request_run(struct session *s, struct ask *a, const struct rpc_id *cid,
    const char *method, const struct value *params, int flags)
{
	struct request req;
	struct decision d;
	char why[BNC_REASON_MAX], msg[BNC_REASON_MAX + 32];
	const char *notasked;

	if (route_resolve(s, method, params, &req, why, sizeof(why)) != 0) {
		/* malformed, not judged: nothing to record (as tools/call) */
		snprintf(msg, sizeof(msg), "Invalid params: %s", why);
		client_send_error(s, cid, -32602, msg);
		if (a != NULL)
			ask_remove(s, a);
		request_clear(&req);
		return;
	}
	decide_request(&s->dc, &req, flags, &d);
	ask_bound(s, a, &d, d.verdict == VERDICT_ASK && a == NULL ?
	    ask_need(method, params, &d) : 0);
	if (d.verdict == VERDICT_ALLOW)
		room_to_send(s, params, &d);
	approved_reason(a, &d);
	record_decision(s, method, req.up != NULL && req.listed !=
	    LISTED_CONTESTED ? req.up->name : NULL, params, &d, NULL);
	switch (d.verdict) {
	case VERDICT_ALLOW:
		route_forward(s, req.up, method, cid, params);
		if (a != NULL)
			ask_remove(s, a);
		break;
	case VERDICT_DENY:
		deny_request(s, cid, method, d.contract, d.reason);
		if (a != NULL)
			ask_remove(s, a);
		break;
	case VERDICT_ASK:
		if (a == NULL) {
			a = xcalloc(1, sizeof(*a));
			a->s = s;
			a->mem = ask_need(method, params, &d);
			if (mem_charge(&s->mem, a->mem) != 0)
				fatal_f("memory account");
			rpc_id_copy(&a->cid, cid);
			a->tool = xstrdup(method);
			a->method = xstrdup(method);
			a->key = xstrdup(req.key);
			a->upname = xstrdup(req.up->name);
			a->params = params != NULL ? value_dup(params) :
			    value_object();
			a->rounds = (int)(d.dests < BNC_ASK_DESTS_MAX ?
			    d.dests : BNC_ASK_DESTS_MAX) + 1;
			s->asks[s->nasks++] = a;
		} else
			a->rounds--;
		if (ask_send(s, a, &d, &notasked) != 0)
			ask_deny(s, a, notasked);
		break;
	}
	decision_clear(&d);
	request_clear(&req);
}

void
gate_request(struct session *s, struct rpc *m)
{
	request_run(s, NULL, &m->id, m->method, m->params,
	    DECIDE_COUNT_BUDGET);
}

/*
 * A request that names nothing (a list, logging/setLevel) is allowed
 * (contract default) and recorded like any request before it reaches
 * the upstream, which must be running.  Returns 0 if it may go; else
 * the decision's reason is in why[BNC_REASON_MAX].
 */
static int
gate_note(struct session *s, struct upstream *up, const char *method,
    const struct value *params, const char **contract, char *why)
{
	struct decision d;
	const char *refused;

	memset(&d, 0, sizeof(d));
	d.verdict = VERDICT_ALLOW;
	d.contract = "default";
	if ((refused = decide_unreachable(up)) != NULL) {
		d.verdict = VERDICT_DENY;
		snprintf(d.reason, sizeof(d.reason), "upstream \"%.64s\" %s",
		    up->name, refused);
	} else
		room_to_send(s, params, &d);
	record_decision(s, method, up->name, params, &d, NULL);
	*contract = d.contract;
	memcpy(why, d.reason, sizeof(d.reason));
	return d.verdict == VERDICT_ALLOW ? 0 : -1;
}

int
gate_list(struct session *s, struct upstream *up, const struct rpc *m,
    const struct value *params)
{
	const char *contract;
	char why[BNC_REASON_MAX];

	if (gate_note(s, up, m->method, params, &contract, why) == 0)
		return 0;
	deny_request(s, &m->id, m->method, contract, why);
	return -1;
}

/* A request bouncer sends to an upstream for the client, unanswered. */
int
gate_notice(struct session *s, struct upstream *up, const char *method,
    const struct value *params)
{
	const char *contract;
	char why[BNC_REASON_MAX];

	if (gate_note(s, up, method, params, &contract, why) == 0)
		return 0;
	logit("deny %s to %s: %s: %s", method, up->name, contract, why);
	return -1;
}

/* Records the call an ask was for as denied, for why; the reason in
 * reason[BNC_REASON_MAX + 64]. */
static void
ask_record_deny(struct session *s, struct ask *a, const char *why,
    char *reason)
{
	const struct tool_entry *e = NULL;

	snprintf(reason, BNC_REASON_MAX + 64, "%s (%s)", a->reason, why);
	utf8_trim(reason);
	if (a->method == NULL)
		e = surface_find(s, a->tool);
	if (record(s, a->tool, a->method != NULL ? a->upname : e != NULL ?
	    e->up->name : NULL, a->method != NULL ? a->params :
	    value_get(a->params, "arguments"), "deny", a->contract, reason,
	    (const char *const *)a->sinks, a->nsinks) != 0)
		error("audit: cannot record the denied ask");
}

static void
ask_deny(struct session *s, struct ask *a, const char *why)
{
	char reason[BNC_REASON_MAX + 64];

	ask_record_deny(s, a, why, reason);
	if (a->method != NULL)
		deny_request(s, &a->cid, a->tool, a->contract, reason);
	else
		deny_call(s, &a->cid, a->tool, a->contract, reason);
	ask_remove(s, a);
}

static void
ask_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct ask *a = arg;

	char why[64];

	(void)fd;
	(void)what;
	if (!a->oob) {
		ask_deny(a->s, a, "no answer in time");
		return;
	}
	/* expired: --approve refuses it as such, nothing to withdraw */
	a->oob_id = 0;
	snprintf(why, sizeof(why), "no answer in %d s",
	    a->s->cfg->ask_timeout);
	ask_deny(a->s, a, why);
}

/*
 * A human approved the call of a: through the client (an elicitation
 * "accept"), where a confirmation counts for this call and an approved
 * destination is remembered for the session; or out of band
 * (signed_call), where the admin's signature covers this exact call and
 * nothing else: every question it would ask is answered, and nothing is
 * remembered.  The call is decided again, against the upstream's new
 * tool list if one is being read.
 */
static void
ask_accepted(struct session *s, struct ask *a, int signed_call)
{
	const char *why;
	struct upstream *up;
	size_t need;
	int flags = 0, r;

	if (signed_call)
		flags |= DECIDE_SIGNED_CALL | DECIDE_CONFIRMED;
	else if (a->once)
		a->confirmed = 1;
	else if (a->param != NULL && !approvals_has(s->approvals,
	    a->key != NULL ? a->key : a->tool, a->param, a->value, a->len)) {
		/* its key, in a sorted array: kept for the session */
		need = mem_alloc(strlen(a->key != NULL ? a->key : a->tool) +
		    strlen(a->param) + 2 * a->len + 8) + sizeof(char *);
		if (mem_charge(&s->mem, need) != 0) {
			ask_deny(s, a, "the approval cannot be remembered: "
			    MEM_FULL_REASON);
			return;
		}
		if ((r = approvals_add(s->approvals, a->key != NULL ? a->key :
		    a->tool, a->param, a->value, a->len)) != 0) {
			mem_release(&s->mem, need);
			ask_deny(s, a, r == -BNC_ERR_TOO_LARGE ? "too many "
			    "approvals in this session" : "the value cannot be "
			    "remembered");
			return;
		}
	}
	if (a->confirmed)
		flags |= DECIDE_CONFIRMED;
	verbose("ask for %s accepted", a->tool);
	if (a->method != NULL)
		request_run(s, a, &a->cid, a->method, a->params, flags);
	else if ((up = unsettled(s, a->tool)) == NULL)
		gate_run(s, a, &a->cid, a->tool, a->params, flags);
	else if (hold(up, NULL, a, flags, &why) != 0)
		ask_deny(s, a, why);
	else
		/* approved against the old list: decided against the new */
		debug("%s: approved; held until %s's tools are re-read",
		    a->tool, up->name);
}

/*
 * The client answered one of our questions.  Returns 0 if the id is not
 * one of ours.  Only an "accept" result approves; the approval covers
 * exactly what was asked.  A question asked out of band is not the
 * client's to answer: its id is no id of ours.
 */
int
gate_client_answer(struct session *s, struct rpc *m)
{
	const char *action = NULL;
	struct ask *a = NULL;
	size_t i;

	if (m->id.type != RPC_ID_INT)
		return 0;
	for (i = 0; i < s->nasks; i++)
		if (!s->asks[i]->oob && s->asks[i]->sid == m->id.n) {
			a = s->asks[i];
			break;
		}
	if (a == NULL)
		return 0;
	evtimer_del(a->timer);
	if (m->kind == RPC_RESULT)
		action = value_get_str(m->result, "action");
	if (action == NULL || strcmp(action, "accept") != 0) {
		ask_deny(s, a, action != NULL && strcmp(action, "decline") == 0 ?
		    "the human declined" : action != NULL &&
		    strcmp(action, "cancel") == 0 ? "the human cancelled" :
		    "no valid answer");
		return 1;
	}
	ask_accepted(s, a, 0);
	return 1;
}

/*
 * The admin answered ask a out of band.  An approval counts only if a
 * trusted consent key signed exactly this ask id, agent, tool, argument
 * hash and expiry (a row anybody could have written is worth nothing
 * else); a deny, a bad signature or anything else denies the call.
 */
static void
oob_answered(struct session *s, struct ask *a,
    const struct audit_oob_answer *ans)
{
	struct consent_approval ap;
	const char *why;
	char reason[BNC_REASON_MAX];

	evtimer_del(a->timer);
	memset(&ap, 0, sizeof(ap));
	ap.id = a->oob_id;
	ap.agent = s->agent;
	ap.tool = a->tool;
	memcpy(ap.args_sha256, a->oob_sha, sizeof(ap.args_sha256));
	ap.expires = a->oob_expires;
	/* answered: nothing to withdraw */
	a->oob_id = 0;
	if (ans->verdict != NULL && strcmp(ans->verdict, "deny") == 0) {
		ask_deny(s, a, "denied out of band");
		return;
	}
	if (ans->verdict == NULL || strcmp(ans->verdict, "approve") != 0) {
		ask_deny(s, a, "no valid answer out of band");
		return;
	}
	if (consent_approval_check(&ap, ans->key_id, ans->signature,
	    s->consent_keys, (int64_t)time(NULL), &why) != 0) {
		snprintf(reason, sizeof(reason), "out-of-band approval "
		    "refused: %s", why);
		logit("ask %lld for %s: %s", (long long)ap.id, a->tool,
		    reason);
		ask_deny(s, a, reason);
		return;
	}
	free(a->approved_by);
	xasprintf(&a->approved_by, "approved out of band by key %s (ask "
	    "%lld)", ans->key_id, (long long)ap.id);
	logit("%s: %s", a->tool, a->approved_by);
	ask_accepted(s, a, 1);
}

/*
 * Every BNC_OOB_POLL_MS while a call waits out of band: has the admin
 * answered?  The asks are gathered first, as answering one may end or
 * re-ask others; one that is gone or asks anew by then is skipped.
 */
static void
oob_poll(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;
	struct timeval tv = { 0, BNC_OOB_POLL_MS * 1000 };
	struct audit_oob_answer ans;
	struct ask *w[BNC_ASKS_MAX];
	int64_t ids[BNC_ASKS_MAX];
	size_t i, j, n = 0;
	int r;

	(void)fd;
	(void)what;
	for (i = 0; i < s->nasks; i++)
		if (s->asks[i]->oob_id != 0) {
			w[n] = s->asks[i];
			ids[n++] = s->asks[i]->oob_id;
		}
	for (i = 0; i < n; i++) {
		for (j = 0; j < s->nasks; j++)
			if (s->asks[j] == w[i] && w[i]->oob_id == ids[i])
				break;
		if (j == s->nasks)
			continue;
		if ((r = audit_oob_answer_get(s->audit, ids[i], &ans)) == 0)
			oob_answered(s, w[i], &ans);
		else if (r != -BNC_ERR_NOT_FOUND)
			/* busy, say: asked again at the next tick */
			debug("ask %lld: its answer cannot be read: %s",
			    (long long)ids[i], audit_errmsg(s->audit));
		audit_oob_answer_clear(&ans);
	}
	for (i = 0; i < s->nasks; i++)
		if (s->asks[i]->oob_id != 0) {
			evtimer_add(s->oob_poll, &tv);
			break;
		}
}

/*
 * The client cancelled the call: it is not forwarded, and as MCP asks
 * of a cancelled request, not answered.  A call waiting for a human is
 * recorded as denied, and the question is withdrawn from the client; a
 * call held while its upstream's tools are re-read was never decided
 * and is only dropped.
 */
int
gate_cancel(struct session *s, const struct rpc_id *cid)
{
	struct value *params;
	struct ask *a;
	char reason[BNC_REASON_MAX + 64];
	size_t i;

	for (i = 0; i < s->nasks; i++) {
		a = s->asks[i];
		if (!rpc_id_equal(&a->cid, cid))
			continue;
		ask_record_deny(s, a, "the client cancelled the call", reason);
		logit("deny %s: %s: %s", a->tool, a->contract, reason);
		if (!a->oob) {
			/* the question the client was asked is withdrawn */
			params = value_object();
			value_object_put(params, "requestId",
			    value_int(a->sid));
			value_object_put(params, "reason", value_string("the "
			    "call was cancelled"));
			client_notify(s, "notifications/cancelled", params);
		}
		ask_remove(s, a);
		session_event(s, SEV_SETTLED);
		return 1;
	}
	for (i = 0; i < s->nheld; i++) {
		/* an approved one was found among the asks above */
		if (s->held[i].ask != NULL ||
		    !rpc_id_equal(&s->held[i].m.id, cid))
			continue;
		verbose("%s: cancelled while held",
		    value_get_str(s->held[i].m.params, "name"));
		held_drop(s, i);
		return 1;
	}
	return 0;
}

/*
 * The session ends: calls still waiting for a human are denied; calls
 * held for a changed tool list were never decided, so, as when the
 * client cancels one, they are dropped without a row.
 */
void
gate_cancel_all(struct session *s)
{
	while (s->nasks > 0)
		ask_deny(s, s->asks[s->nasks - 1], "the session ended");
	while (s->nheld > 0) {
		verbose("%s: dropped while held: the session ended",
		    value_get_str(s->held[s->nheld - 1].m.params, "name"));
		held_drop(s, s->nheld - 1);
	}
	free(s->held);
	s->held = NULL;
	if (s->oob_poll != NULL)
		event_free(s->oob_poll);
	s->oob_poll = NULL;
}
