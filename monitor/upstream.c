/*
 * upstream.c - the monitor as an MCP client of each upstream server.
 *
 * The monitor writes the upstream's stdin itself (JSON it builds with
 * cJSON print, never parses) and hears its stdout only through the
 * upstream worker's typed frames.  Ids toward an upstream are the
 * monitor's own integers, so nothing the client or the upstream chose
 * can collide with them.  Start-up: initialize, notifications/initialized,
 * every tools/list page, pin.  Afterwards: forward, relay, re-list.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "bounds.h"
#include "buf.h"
#include "client.h"
#include "conffile.h"
#include "decide.h"
#include "err.h"
#include "gate.h"
#include "log.h"
#include "monitor.h"
#include "msg.h"
#include "relay.h"
#include "surface.h"
#include "upstream.h"
#include "value-json.h"
#include "value.h"
#include "xmalloc.h"

/* An upstream that stops reading its stdin is cut off past this. */
#define UPSTREAM_OUTBUF_FACTOR	4

static struct buf *render_buf;

static void	start_listing(struct upstream *, const char *cursor);
static void	on_initialize(struct upstream *, struct rpc *);
static void	on_tools_list(struct upstream *, struct rpc *);
static void	list_done(struct upstream *, const struct pending *,
	    enum pend_end, struct rpc *);

/* The account follows what the queue toward its stdin holds. */
static void
out_account(struct upstream *up)
{
	size_t now = evbuffer_get_length(up->out);

	if (now < up->out_mem) {
		mem_release(&up->s->mem, up->out_mem - now);
		up->out_mem = now;
	}
}

static void
upstream_writable(evutil_socket_t fd, short what, void *arg)
{
	struct upstream *up = arg;

	(void)what;
	while (evbuffer_get_length(up->out) > 0) {
		if (evbuffer_write(up->out, fd) == -1) {
			if (errno == EAGAIN || errno == EINTR) {
				out_account(up);
				return;
			}
			error("upstream %s: stdin: %s", up->name,
			    strerror(errno));
			evbuffer_drain(up->out, evbuffer_get_length(up->out));
			break;
		}
	}
	out_account(up);
	event_del(up->wev);
	if (up->in_closed && up->in_fd != -1) {
		close(up->in_fd);
		up->in_fd = -1;
	}
}

void
upstream_close_input(struct upstream *up)
{
	if (up->in_closed)
		return;
	up->in_closed = 1;
	if (up->in_fd != -1 && evbuffer_get_length(up->out) == 0) {
		close(up->in_fd);
		up->in_fd = -1;
	}
}

/*
 * Writes m to the upstream's stdin, or queues it.  Returns 0, or a
 * negative code if m was not sent: its input is closed, or its JSON
 * would be over BNC_RENDER_FACTOR times max_message.  An honest worker's
 * values render no larger than the JSON they came from (give or take a
 * number's spelling); a lying one's control bytes render six times
 * larger, and that fails one message, not the session.
 */
int
upstream_send(struct upstream *up, const struct rpc_out *m)
{
	ssize_t w = 0;
	size_t len;
	int r;

	if (up->in_closed || up->in_fd == -1)
		return -BNC_ERR_EOF;
	if (render_buf == NULL)
		render_buf = buf_new();
	buf_reset(render_buf);
	buf_set_max(render_buf, BNC_RENDER_FACTOR * up->s->cfg->max_message);
	if ((r = rpc_out_render(render_buf, m)) != 0) {
		error_r(r, "upstream %s: %s not sent", up->name,
		    m->method != NULL ? m->method : "answer");
		return r;
	}
	len = buf_len(render_buf);
	/* Fast path: nothing queued, write straight away. */
	if (evbuffer_get_length(up->out) == 0) {
		w = write(up->in_fd, buf_ptr(render_buf), len);
		if (w == -1) {
			if (errno != EAGAIN && errno != EINTR) {
				error("upstream %s: stdin: %s", up->name,
				    strerror(errno));
				upstream_close_input(up);
				return -BNC_ERR_SYS;
			}
			w = 0;
		}
	}
	if ((size_t)w == len)
		return 0;
	if (evbuffer_get_length(up->out) + len - (size_t)w >
	    UPSTREAM_OUTBUF_FACTOR * up->s->cfg->max_message) {
		error("upstream %s: not reading its input; cut off", up->name);
		evbuffer_drain(up->out, evbuffer_get_length(up->out));
		out_account(up);
		upstream_close_input(up);
		return -BNC_ERR_EOF;
	}
	/* what waits is the session's; part of a line must follow, though */
	if (w == 0 && mem_charge(&up->s->mem, len) != 0) {
		error("upstream %s: %s not sent: %s", up->name,
		    m->method != NULL ? m->method : "answer", MEM_FULL_REASON);
		return -BNC_ERR_TOO_LARGE;
	}
	if (w > 0)
		mem_force(&up->s->mem, len - (size_t)w);
	up->out_mem += len - (size_t)(w > 0 ? w : 0);
	evbuffer_add(up->out, buf_ptr(render_buf) + w, len - (size_t)w);
	event_add(up->wev, NULL);
	return 0;
}

static struct pending *
pend_find(struct upstream *up, int64_t uid)
{
	size_t i;

	for (i = 0; i < up->npend; i++)
		if (up->pend[i].uid == uid)
			return &up->pend[i];
	return NULL;
}

struct pending *
upstream_find_cid(struct upstream *up, const struct rpc_id *cid)
{
	size_t i;

	for (i = 0; i < up->npend; i++)
		if (up->pend[i].cid.type != RPC_ID_NONE &&
		    rpc_id_equal(&up->pend[i].cid, cid))
			return &up->pend[i];
	return NULL;
}

/*
 * Takes p out of the table, its memory released: what it holds is the
 * caller's to end with pend_free().  Whatever runs next may add entries
 * and move the table, so nothing keeps a pointer into it.
 */
static struct pending
pend_take(struct upstream *up, struct pending *p)
{
	struct pending t = *p;

	mem_release(&up->s->mem, t.mem);
	t.mem = 0;
	*p = up->pend[--up->npend];
	return t;
}

static void
pend_free(struct pending *t)
{
	rpc_id_clear(&t->cid);
	value_free(t->progress);
	free(t->method);
	free(t->arg);
}

/* The request p ended (how, m): its requester's done callback runs. */
static void
pend_end(struct upstream *up, struct pending *p, enum pend_end how,
    struct rpc *m)
{
	struct pending t = pend_take(up, p);

	if (t.done != NULL)
		t.done(up, &t, how, m);
	pend_free(&t);
}

void
upstream_drop_pending(struct upstream *up, struct pending *p)
{
	struct pending t = pend_take(up, p);

	pend_free(&t);
}

/*
 * The usual end of a request forwarded for the client: its answer goes
 * back with the client's own id, and everything the upstream said in it
 * is untrusted from now on (a result's recording is the requester's, as
 * it knows what the result is of).  An unusable answer is an error of
 * ours; a request whose upstream went away is answered with an error
 * too, unless the client's input ended: then no answer is owed.
 */
void
upstream_to_client(struct upstream *up, const struct pending *p,
    enum pend_end how, const struct rpc *m)
{
	struct session *s = up->s;
	struct rpc_out out;
	char code[32], msg[BNC_REASON_MAX];

	switch (how) {
	case PEND_GONE:
		if (child_at_eof(&s->client))
			return;
		snprintf(msg, sizeof(msg), "Internal error: upstream \"%s\" "
		    "exited", up->name);
		client_send_error(s, &p->cid, -32603, msg);
		return;
	case PEND_UNUSABLE:
		client_send_error(s, &p->cid, -32603, m->message);
		return;
	case PEND_ANSWER:
		break;
	}
	memset(&out, 0, sizeof(out));
	out.kind = m->kind;
	out.id = p->cid;
	if (m->kind == RPC_RESULT)
		out.result = m->result;
	else {
		/* its code too: a number it chose, as the client sees it */
		snprintf(code, sizeof(code), "%lld", (long long)m->code);
		decide_error_text(&s->dc, code);
		decide_error_text(&s->dc, m->message);
		if (m->data != NULL)
			decide_result(&s->dc, NULL, m->data);
		out.code = m->code;
		out.message = m->message;
		out.data = m->data;
	}
	client_send(s, &out);
}

/*
 * What the entry of a request sent with params holds until its answer,
 * from above: the entry, its method, the client's id and progress token,
 * and the name of the tool, prompt or resource it is for.
 */
size_t
upstream_pending_need(const struct value *params)
{
	const struct value *tok;

	tok = value_get(value_get(params, "_meta"), "progressToken");
	return mem_alloc(sizeof(struct pending)) +
	    mem_alloc(BNC_METHOD_MAX + 1) + mem_alloc(BNC_ID_STR_MAX + 1) +
	    mem_value(tok) + 2 * mem_string(value_get_str(params, "name")) +
	    mem_string(value_get_str(params, "uri")) +
	    mem_alloc(BNC_UPSTREAM_NAME_MAX + 3);
}

int64_t
upstream_request(struct upstream *up, const char *method,
    struct value *params, const struct pending_req *req)
{
	struct rpc_out m;
	struct pending *p;
	size_t need;

	need = mem_alloc(sizeof(*p)) + mem_string(method) +
	    mem_string(req->cid != NULL ? req->cid->s : NULL) +
	    mem_value(req->progress) + req->arg_mem;
	if (up->npend >= BNC_PENDING_MAX || up->in_closed ||
	    mem_charge(&up->s->mem, need) != 0) {
		value_free(params);
		free(req->arg);
		return -1;
	}
	memset(&m, 0, sizeof(m));
	m.kind = RPC_REQUEST;
	m.id.type = RPC_ID_INT;
	m.id.n = up->next_id++;
	m.method = method;
	m.params = params;
	if (upstream_send(up, &m) != 0) {
		mem_release(&up->s->mem, need);
		value_free(params);
		free(req->arg);
		return -1;
	}
	up->pend = xreallocarray(up->pend, up->npend + 1, sizeof(*up->pend));
	p = &up->pend[up->npend++];
	memset(p, 0, sizeof(*p));
	p->uid = m.id.n;
	p->done = req->done;
	p->arg = req->arg;
	p->mem = need;
	p->method = xstrdup(method);
	if (req->cid != NULL)
		rpc_id_copy(&p->cid, req->cid);
	/* progress may point into params: copy it before they go. */
	if (req->progress != NULL)
		p->progress = value_dup(req->progress);
	value_free(params);
	return m.id.n;
}

void
upstream_notify(struct upstream *up, const char *method, struct value *params)
{
	struct rpc_out m;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_NOTIFICATION;
	m.method = method;
	m.params = params;
	upstream_send(up, &m);
	value_free(params);
}

void
upstream_reply(struct upstream *up, const struct rpc_id *id,
    struct value *result)
{
	struct rpc_out m;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_RESULT;
	m.id = *id;
	m.result = result;
	upstream_send(up, &m);
	value_free(result);
}

void
upstream_reply_error(struct upstream *up, const struct rpc_id *id,
    int64_t code, const char *msg)
{
	struct rpc_out m;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_ERROR;
	m.id = *id;
	m.code = code;
	m.message = msg;
	upstream_send(up, &m);
}

int
upstream_has_cap(const struct upstream *up, const char *cap)
{
	return up->state == UP_READY && value_get(up->caps, cap) != NULL;
}

void
upstream_fail(struct upstream *up, const char *reason)
{
	if (up->state == UP_FAILED || up->state == UP_DEAD)
		return;
	error("upstream %s: %s", up->name, reason);
	free(up->fail_reason);
	up->fail_reason = xstrdup(reason);
	if (up->state == UP_READY) {
		up->state = UP_DEAD;
		return;
	}
	up->state = UP_FAILED;
	client_upstream_ready(up->s);
}

/* The client's capabilities that an upstream may use through us. */
static struct value *
relayed_caps(const struct value *client)
{
	static const char *const relayed[] = {
		"elicitation", "roots", "sampling"
	};
	struct value *caps, *v;
	size_t i;

	caps = value_object();
	for (i = 0; i < sizeof(relayed) / sizeof(relayed[0]); i++)
		if ((v = value_get(client, relayed[i])) != NULL)
			value_object_put(caps, relayed[i], value_dup(v));
	return caps;
}

/* Its own requests end in on_initialize and on_tools_list; an upstream
 * that went away has failed already (upstream_gone). */
static void
init_done(struct upstream *up, const struct pending *p, enum pend_end how,
    struct rpc *m)
{
	(void)p;
	if (how != PEND_GONE)
		on_initialize(up, m);
}

static void
list_done(struct upstream *up, const struct pending *p, enum pend_end how,
    struct rpc *m)
{
	(void)p;
	if (how != PEND_GONE)
		on_tools_list(up, m);
}

void
upstream_start(struct upstream *up)
{
	struct session *s = up->s;
	struct pending_req req;
	struct value *params, *info;

	memset(&req, 0, sizeof(req));
	if (up->state != UP_STARTED || !child_said_hello(&up->worker))
		return;
	params = value_object();
	value_object_put(params, "protocolVersion", value_string(s->version));
	value_object_put(params, "capabilities", relayed_caps(s->client_caps));
	if (s->client_info != NULL)
		info = value_dup(s->client_info);
	else {
		info = value_object();
		value_object_put(info, "name", value_string("bouncer"));
		value_object_put(info, "version",
		    value_string(PACKAGE_VERSION));
	}
	value_object_put(params, "clientInfo", info);
	req.done = init_done;
	if (upstream_request(up, "initialize", params, &req) == -1) {
		upstream_fail(up, "cannot send initialize");
		return;
	}
	up->state = UP_INIT_SENT;
}

static void
on_initialize(struct upstream *up, struct rpc *m)
{
	const char *ver, *instr;
	struct value *res = m->result;
	char msg[256];

	if (m->kind == RPC_ERROR) {
		snprintf(msg, sizeof(msg), "initialize failed: %.200s",
		    m->message);
		upstream_fail(up, msg);
		return;
	}
	if (!value_is(res, V_OBJECT) ||
	    (ver = value_get_str(res, "protocolVersion")) == NULL) {
		upstream_fail(up, "initialize answer has no protocolVersion");
		return;
	}
	if (!client_version_supported(ver)) {
		snprintf(msg, sizeof(msg), "unsupported protocol version "
		    "\"%.32s\"", ver);
		upstream_fail(up, msg);
		return;
	}
	up->version = xstrdup(ver);
	up->caps = value_object_take(res, "capabilities");
	if (!value_is(up->caps, V_OBJECT)) {
		value_free(up->caps);
		up->caps = value_object();
	}
	up->info = value_object_take(res, "serverInfo");
	if ((instr = value_get_str(res, "instructions")) != NULL) {
		/* they reach the model: untrusted output like any other */
		decide_record_output(&up->s->dc,
		    value_get(res, "instructions"));
		up->instructions = xstrdup(instr);
	}
	verbose("upstream %s: protocol %s", up->name, ver);
	upstream_notify(up, "notifications/initialized", NULL);
	up->state = UP_LISTING;
	if (value_get(up->caps, "tools") == NULL) {
		char err[256];

		if (surface_pin(up, value_array(), err, sizeof(err)) != 0)
			fatal("upstream %s: %s", up->name, err);
		up->state = UP_READY;
		client_upstream_ready(up->s);
		return;
	}
	start_listing(up, NULL);
}

static void
start_listing(struct upstream *up, const char *cursor)
{
	struct pending_req req;
	struct value *params = NULL;

	memset(&req, 0, sizeof(req));
	req.done = list_done;
	if (cursor == NULL) {
		value_free(up->listing);
		mem_release(&up->s->mem, up->listing_mem);
		up->listing_mem = 0;
		up->listing = value_array();
		up->pages = 0;
	} else {
		params = value_object();
		value_object_put(params, "cursor", value_string(cursor));
	}
	if (upstream_request(up, "tools/list", params, &req) == -1)
		upstream_fail(up, "cannot send tools/list");
}

/*
 * The listing's charge moves to what keeps it: the pins and the
 * surface's copy of each (twice the listing: a second charge), or the
 * current list, which replaces the last one.
 */
static int
listing_keep(struct upstream *up)
{
	struct session *s = up->s;
	size_t n = up->listing_mem;

	up->listing_mem = 0;
	if (!up->pinned) {
		if (mem_charge(&s->mem, n) != 0) {
			mem_release(&s->mem, n);
			return -1;
		}
		up->pins_mem = 2 * n;
		return 0;
	}
	mem_release(&s->mem, up->current_mem);
	up->current_mem = n;
	return 0;
}

static void
listing_done(struct upstream *up, struct value *tools)
{
	struct session *s = up->s;
	char err[256];

	/* names, descriptions and schemas reach the model: untrusted */
	decide_record_output(&s->dc, tools);
	if (!up->pinned) {
		if (listing_keep(up) != 0) {
			value_free(tools);
			upstream_fail(up, "its tools do not fit in the "
			    "session's memory (max_session_memory)");
			return;
		}
		if (surface_pin(up, tools, err, sizeof(err)) != 0) {
			upstream_fail(up, err);
			return;
		}
		up->state = UP_READY;
		client_upstream_ready(s);
	} else if (listing_keep(up), surface_update(up, tools)) {
		surface_build(s);
		if (s->state == SESSION_READY || s->state == SESSION_DRAIN)
			client_notify(s, "notifications/tools/list_changed",
			    NULL);
	}
	if (up->relist && up->state == UP_READY) {
		up->relist = 0;
		start_listing(up, NULL);
		return;
	}
	up->unsettled = 0;
	gate_release_held(up);
}

/* Fail closed: a list we cannot read or keep shows nothing. */
static void
listing_withhold(struct upstream *up, const char *why)
{
	error("upstream %s: %s; withholding its tools", up->name, why);
	value_free(up->listing);
	up->listing = NULL;
	mem_release(&up->s->mem, up->listing_mem);
	up->listing_mem = 0;
	listing_done(up, value_array());
}

static void
on_tools_list(struct upstream *up, struct rpc *m)
{
	struct value *tools, *next;
	char msg[256];
	size_t i, need;

	if (m->kind == RPC_ERROR || !value_is(m->result, V_OBJECT) ||
	    !value_is(tools = value_get(m->result, "tools"), V_ARRAY)) {
		if (m->kind == RPC_ERROR)
			snprintf(msg, sizeof(msg), "tools/list failed: %.200s",
			    m->message);
		else
			snprintf(msg, sizeof(msg), "tools/list failed: the "
			    "answer has no tools array");
		if (!up->pinned) {
			upstream_fail(up, msg);
			return;
		}
		listing_withhold(up, msg);
		return;
	}
	if (up->listing->u.a.n + tools->u.a.n > BNC_TOOLS_MAX) {
		upstream_fail(up, "too many tools");
		return;
	}
	/* the list is kept until it is complete, and then some of it */
	need = 0;
	for (i = 0; i < tools->u.a.n; i++)
		need += mem_value(tools->u.a.v[i]) + sizeof(struct value *);
	if (mem_charge(&up->s->mem, need) != 0) {
		snprintf(msg, sizeof(msg), "its tools do not fit in the "
		    "session's memory (max_session_memory)");
		if (!up->pinned) {
			upstream_fail(up, msg);
			return;
		}
		listing_withhold(up, msg);
		return;
	}
	up->listing_mem += need;
	for (i = 0; i < tools->u.a.n; i++)
		value_array_append(up->listing, tools->u.a.v[i]);
	tools->u.a.n = 0;
	next = value_get(m->result, "nextCursor");
	if (value_is(next, V_STRING) && next->u.s.len > 0) {
		if (++up->pages >= BNC_LIST_PAGES_MAX) {
			upstream_fail(up, "too many tools/list pages");
			return;
		}
		start_listing(up, next->u.s.p);
		return;
	}
	tools = up->listing;
	up->listing = NULL;
	listing_done(up, tools);
}

/* p's answer came but cannot be used: p fails with our error, saying why. */
static void
pend_unusable(struct upstream *up, struct pending *p, const char *why)
{
	struct rpc m;
	char *msg;

	xasprintf(&msg, "upstream %s sent an answer bouncer cannot use (%s)",
	    up->name, why);
	/* an error answer of ours: it quotes nothing new */
	memset(&m, 0, sizeof(m));
	m.kind = RPC_ERROR;
	m.id.type = RPC_ID_INT;
	m.id.n = p->uid;
	m.code = -32603;	/* internal error */
	m.message = msg;
	pend_end(up, p, PEND_UNUSABLE, &m);
	session_event(up->s, SEV_SETTLED);
	free(msg);
}

static void
on_response(struct upstream *up, struct rpc *m)
{
	struct pending *p;

	if (m->id.type != RPC_ID_INT || (p = pend_find(up, m->id.n)) == NULL) {
		debug("upstream %s: answer to unknown id dropped", up->name);
		return;
	}
	/*
	 * Every MCP result is an object (Result in the schema, of every
	 * revision); JSON-RPC alone would allow any value.
	 */
	if (m->kind == RPC_RESULT && !value_is(m->result, V_OBJECT)) {
		error("upstream %s: unusable output line dropped: result is "
		    "not an object", up->name);
		pend_unusable(up, p, "result is not an object");
		return;
	}
	pend_end(up, p, PEND_ANSWER, m);
	session_event(up->s, SEV_SETTLED);
}

static void
on_request(struct upstream *up, struct rpc *m)
{
	if (strcmp(m->method, "ping") == 0) {
		upstream_reply(up, &m->id, value_object());
		return;
	}
	if (strcmp(m->method, "elicitation/create") == 0 ||
	    strcmp(m->method, "roots/list") == 0 ||
	    strcmp(m->method, "sampling/createMessage") == 0) {
		/* its question or prompt reaches the client: untrusted */
		decide_record_output(&up->s->dc, m->params);
		relay_request(up->s, up, m);
		return;
	}
	upstream_reply_error(up, &m->id, -32601, "Method not found");
}

static void
on_progress(struct upstream *up, struct rpc *m)
{
	const struct value *tok;
	size_t i;

	tok = value_get(m->params, "progressToken");
	if (tok == NULL)
		return;
	for (i = 0; i < up->npend; i++)
		if (up->pend[i].progress != NULL &&
		    value_equal(up->pend[i].progress, tok)) {
			decide_record_output(&up->s->dc, m->params);
			client_notify(up->s, m->method, m->params);
			m->params = NULL;
			return;
		}
	debug("upstream %s: progress for no live request dropped", up->name);
}

static const char *const forwarded_notes[] = {
	"notifications/message",
	"notifications/resources/updated",
	"notifications/resources/list_changed",
	"notifications/prompts/list_changed",
};

static void
on_notification(struct upstream *up, struct rpc *m)
{
	struct session *s = up->s;
	size_t i;

	if (strcmp(m->method, "notifications/progress") == 0) {
		on_progress(up, m);
		return;
	}
	if (strcmp(m->method, "notifications/cancelled") == 0) {
		relay_cancel(s, up, m->params);
		return;
	}
	if (strcmp(m->method, "notifications/tools/list_changed") == 0) {
		size_t j;

		/* Before pinning, the pending list answers it. */
		if (up->state != UP_READY)
			return;
		up->unsettled = 1;
		for (j = 0; j < up->npend; j++)
			if (up->pend[j].done == list_done) {
				up->relist = 1;	/* it may predate the change */
				return;
			}
		start_listing(up, NULL);
		return;
	}
	for (i = 0; i < sizeof(forwarded_notes) / sizeof(*forwarded_notes);
	    i++)
		if (strcmp(m->method, forwarded_notes[i]) == 0) {
			if (s->state == SESSION_READY ||
			    s->state == SESSION_DRAIN) {
				decide_record_output(&s->dc, m->params);
				client_notify(s, m->method, m->params);
				m->params = NULL;
			}
			return;
		}
	debug("upstream %s: notification %s dropped", up->name, m->method);
}

/*
 * An answer the worker could not use (too large, malformed) whose id it
 * could still tell: the request it answers fails with an error saying
 * why, rather than waiting for an answer that will not come.
 */
static void
on_bad_response(struct upstream *up, const struct msg_rpc_bad *bad)
{
	struct pending *p;

	if (!bad->was_response || bad->id.type != RPC_ID_INT ||
	    (p = pend_find(up, bad->id.n)) == NULL)
		return;
	/*
	 * The worker's reason quotes the upstream (the duplicate key it
	 * chose): untrusted, whether it reaches the client here or as the
	 * reason its start-up failed.
	 */
	decide_error_text(&up->s->dc, bad->message);
	pend_unusable(up, p, bad->message);
}

/* An upstream worker's frames (child.c dispatches by this table). */

static void
up_hello(struct child *ch, struct frame_msg *fm)
{
	struct upstream *up = ch->owner;

	child_hello(ch, fm, ROLE_WORKER_UPSTREAM);
	session_event(up->s, SEV_HELLO);
	if (up->s->state == SESSION_INIT)
		upstream_start(up);
}

static void
up_rpc_in(struct child *ch, struct frame_msg *fm)
{
	struct upstream *up = ch->owner;
	struct rpc m;
	int r;

	if ((r = msg_rpc_get(fm->payload, &m, up->s->cfg->max_message)) != 0)
		fatal_r(r, "%s: bad rpc frame", ch->tag);
	if (up->state == UP_FAILED) {
		msg_rpc_free(&m);
		return;
	}
	switch (m.kind) {
	case RPC_RESULT:
	case RPC_ERROR:
		on_response(up, &m);
		break;
	case RPC_REQUEST:
		on_request(up, &m);
		break;
	case RPC_NOTIFICATION:
		on_notification(up, &m);
		break;
	}
	msg_rpc_free(&m);
}

static void
up_rpc_bad(struct child *ch, struct frame_msg *fm)
{
	struct upstream *up = ch->owner;
	struct msg_rpc_bad bad;
	char esc[BNC_LOG_LINE_MAX];
	int r;

	if ((r = msg_rpc_bad_get(fm->payload, &bad)) != 0)
		fatal_r(r, "%s: bad frame", ch->tag);
	log_escape(esc, sizeof(esc), bad.message, strlen(bad.message));
	error("upstream %s: unusable output line dropped: %s", up->name, esc);
	if (up->state != UP_FAILED)
		on_bad_response(up, &bad);
	msg_rpc_bad_free(&bad);
}

/*
 * Its output ended: it is gone.  What it owes the client is answered
 * with an error, held calls are denied, its relayed requests forgotten.
 */
static void
upstream_gone(struct upstream *up)
{
	struct session *s = up->s;
	upstream_close_input(up);
	if (up->state != UP_READY) {
		if (s->state != SESSION_CLOSING)
			upstream_fail(up, "exited during start-up");
	} else {
		if (s->state != SESSION_CLOSING)
			error("upstream %s exited", up->name);
		up->state = UP_DEAD;
	}
	while (up->npend > 0)
		pend_end(up, &up->pend[up->npend - 1], PEND_GONE, NULL);
	/* Calls held for its re-listing are decided now: denied. */
	up->unsettled = 0;
	gate_release_held(up);
	relay_drop(s, up);
	session_event(s, SEV_SETTLED);
}

static void
up_input_eof(struct child *ch, struct frame_msg *fm)
{
	struct upstream *up = ch->owner;

	if (msg_empty_get(fm->payload) != 0)
		fatal("%s: bad input-eof", ch->tag);
	child_input_ended(ch);
	upstream_gone(up);
	session_event(up->s, SEV_CHILD_GONE);
}

static const struct child_frame up_frames[] = {
	{ MSG_HELLO,	 CHILD_P_HELLO,			up_hello },
	{ MSG_LOG,	 CHILD_P_RUN | CHILD_P_EOF,	child_log },
	{ MSG_RPC_IN,	 CHILD_P_RUN,			up_rpc_in },
	{ MSG_RPC_BAD,	 CHILD_P_RUN,			up_rpc_bad },
	{ MSG_INPUT_EOF, CHILD_P_RUN,			up_input_eof },
};

static void
up_worker_exited(struct child *ch, int status)
{
	struct upstream *up = ch->owner;

	session_worker_exited(up->s, ch, status);
}

/* The server itself may exit when it likes: its worker says EOF too. */
static void
up_server_exited(struct child *ch, int status)
{
	struct upstream *up = ch->owner;
	char desc[128];

	child_describe(status, desc, sizeof(desc));
	if (up->s->state == SESSION_CLOSING)
		debug("%s %s", ch->tag, desc);
	else {
		logit("%s %s", ch->tag, desc);
		gate_audit_event(up->s, "upstream-exit", desc);
	}
}

void
upstream_children_init(struct upstream *up)
{
	up->proc.kind = CHILD_UPSTREAM;
	up->proc.sock = -1;
	up->proc.owner = up;
	up->proc.exited = up_server_exited;
	xasprintf(&up->proc.tag, "upstream:%s", up->name);
	up->worker.kind = CHILD_WORKER_UPSTREAM;
	up->worker.sock = -1;
	up->worker.owner = up;
	up->worker.frames = up_frames;
	up->worker.nframes = sizeof(up_frames) / sizeof(up_frames[0]);
	up->worker.exited = up_worker_exited;
	xasprintf(&up->worker.tag, "worker:upstream:%s", up->name);
}

void
upstream_setup_io(struct upstream *up)
{
	up->out = evbuffer_new();
	up->wev = event_new(up->s->base, up->in_fd, EV_WRITE | EV_PERSIST,
	    upstream_writable, up);
	if (up->out == NULL || up->wev == NULL)
		fatal("upstream %s: event set-up", up->name);
}
