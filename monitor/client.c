/*
 * client.c - the monitor as an MCP server to its one client.
 *
 * Requests arrive from the client worker as typed frames and are
 * dispatched from a const table; the session state decides which
 * methods are permitted.  Nothing here trusts the worker: every field is
 * re-checked, and a worker that sends what the protocol does not allow
 * ends the session.  The client itself only ever gets JSON-RPC errors
 * for bad requests; the session goes on.
 *
 * The answers, and everything else the client reads, the monitor writes
 * to the client's stdout itself, as it writes an upstream's stdin: JSON
 * it renders from its own typed values (value-json.c), never parses.
 * The client worker only reads; its fd 1 is /dev/null.  What the pipe
 * does not take at once waits in a queue charged to the session's
 * memory; while that queue is past its mark the client worker's frames
 * are not read, so a client that sends and never reads is held at its
 * own pipe.  An answer is never dropped silently: one that cannot be
 * rendered or kept becomes a short error, and when not even that fits
 * the session ends.  A client that closed its stdout ends the session
 * in order (EPIPE is DESIGN 10's SIGPIPE); at exit what is queued gets
 * BNC_CLIENT_FLUSH_MS to be read.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/epoll.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "bounds.h"
#include "buf.h"
#include "builtin.h"
#include "client.h"
#include "conffile.h"
#include "decide.h"
#include "err.h"
#include "fd.h"
#include "gate.h"
#include "log.h"
#include "monitor.h"
#include "msg.h"
#include "policy.h"
#include "relay.h"
#include "route.h"
#include "surface.h"
#include "upstream.h"
#include "value-json.h"
#include "value.h"
#include "xmalloc.h"

/* Newest first; the first is what an unknown version is answered with. */
static const char *const mcp_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"
};

int
client_version_supported(const char *v)
{
	size_t i;

	for (i = 0; i < sizeof(mcp_versions) / sizeof(mcp_versions[0]); i++)
		if (strcmp(v, mcp_versions[i]) == 0)
			return 1;
	return 0;
}

static struct buf *render_buf;
static int shrinking;		/* client_send: sending the short error */

/* The account follows what the queue toward the client holds. */
static void
out_account(struct session *s)
{
	size_t now = evbuffer_get_length(s->out);

	if (now < s->out_mem) {
		mem_release(&s->mem, s->out_mem - now);
		s->out_mem = now;
	}
}

/*
 * Past the mark the client is not reading its answers: no more of its
 * requests are taken (the worker waits for room on its socket, and then
 * the client for room on its stdin) until the queue is under half of it.
 */
static void
out_flow(struct session *s)
{
	size_t q = evbuffer_get_length(s->out);

	if (!s->client.held && q > s->out_high) {
		verbose("client: %zu bytes of answers unread; its requests "
		    "wait", q);
		child_hold(&s->client, 1);
	} else if (s->client.held && q <= s->out_high / 2) {
		verbose("client: reading its answers again");
		child_hold(&s->client, 0);
	}
}

/* Said once it broke: the session ends in order, from the event loop. */
static void
out_gone(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	session_event(arg, SEV_END);
}

/*
 * Its stdout broke (EPIPE: the client closed it, as DESIGN 10 says of
 * SIGPIPE; or a file that cannot grow): nothing more can reach it, so
 * nothing more is taken from it, and the session ends in order.
 */
static void
out_broken(struct session *s, int err)
{
	struct timeval now = { 0, 0 };

	error("write to client: %s; %zu bytes of answers lost, ending the "
	    "session", strerror(err), evbuffer_get_length(s->out));
	evbuffer_drain(s->out, evbuffer_get_length(s->out));
	out_account(s);
	event_del(s->out_ev);
	close(s->out_fd);
	s->out_fd = -1;
	child_hold(&s->client, 1);
	if (event_base_once(s->base, -1, EV_TIMEOUT, out_gone, s, &now) == -1)
		fatal("event_base_once");
}

static void
client_writable(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;
	int n;

	(void)what;
	while (evbuffer_get_length(s->out) > 0) {
		if ((n = evbuffer_write(s->out, fd)) > 0)
			continue;
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno != EAGAIN) {
			out_broken(s, errno);
			return;
		}
		out_account(s);
		out_flow(s);
		return;
	}
	out_account(s);
	event_del(s->out_ev);
	out_flow(s);
}

/*
 * Writes the n bytes of one line, or queues what the pipe does not
 * take.  0, -BNC_ERR_TOO_LARGE when nothing was written and the session
 * has no room to keep it, -BNC_ERR_EOF when the client's stdout broke.
 */
static int
out_write(struct session *s, const uint8_t *p, size_t n)
{
	size_t done = 0;
	ssize_t w;

	/* A file takes everything or fails: it has no "later". */
	while (evbuffer_get_length(s->out) == 0 && done < n) {
		if ((w = write(s->out_fd, p + done, n - done)) > 0) {
			done += (size_t)w;
			continue;
		}
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1 && errno == EAGAIN && s->out_pollable)
			break;
		out_broken(s, w == -1 ? errno : EIO);
		return -BNC_ERR_EOF;
	}
	if (done == n)
		return 0;
	/* what waits is the session's; part of a line must follow, though */
	if (done == 0 && mem_charge(&s->mem, n) != 0)
		return -BNC_ERR_TOO_LARGE;
	if (done > 0)
		mem_force(&s->mem, n - done);
	s->out_mem += n - done;
	if (evbuffer_add(s->out, p + done, n - done) == -1)
		fatal("client: evbuffer_add");
	if (event_add(s->out_ev, NULL) == -1)
		fatal("client: event_add");
	out_flow(s);
	return 0;
}

void
client_send(struct session *s, const struct rpc_out *m)
{
	int r, answer = m->kind == RPC_RESULT || m->kind == RPC_ERROR;

	if (s->out_fd == -1)
		return;
	if (render_buf == NULL)
		render_buf = buf_new();
	buf_reset(render_buf);
	buf_set_max(render_buf, BNC_RENDER_FACTOR * s->cfg->max_message);
	if ((r = rpc_out_render_strict(render_buf, m)) != 0) {
		/* Too big or too deep for the client: say so, lose nothing. */
		if (answer) {
			error_r(r, "answer for the client cannot be encoded");
			client_send_error(s, &m->id, -32603,
			    "Internal error: answer too large or too deep");
		} else
			error_r(r, "%s for the client dropped", m->method);
		return;
	}
	if ((r = out_write(s, buf_ptr(render_buf), buf_len(render_buf))) !=
	    -BNC_ERR_TOO_LARGE)
		return;
	/*
	 * The client is behind and the session's memory has no room for
	 * this: an answer becomes a short error, which still owes it one;
	 * when not even that fits, the client is not reading.
	 */
	if (answer && shrinking) {
		/* nothing of it is owed a flush at exit */
		evbuffer_drain(s->out, evbuffer_get_length(s->out));
		out_account(s);
		fatal("the client is not reading its answers, and the "
		    "session's memory is full");
	}
	if (answer) {
		error("answer for the client dropped: %s", MEM_FULL_REASON);
		shrinking = 1;
		client_send_error(s, &m->id, -32603, "Internal error: the "
		    "answer does not fit in the session's memory "
		    "(max_session_memory)");
		shrinking = 0;
	} else
		error("%s for the client dropped: %s", m->method,
		    MEM_FULL_REASON);
}

void
client_output_init(struct session *s, int fd)
{
	int fl;

	s->out_fd = fd;
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
		fatal("client stdout: fcntl: %s", strerror(errno));
	s->out_pollable = fd_pollable(fd, EPOLLOUT);
	s->out_high = BNC_CLIENT_OUT_HIGH * s->cfg->max_message;
	if (s->out_high > s->mem.cap / 100 * BNC_CLIENT_OUT_MEM_PCT)
		s->out_high = s->mem.cap / 100 * BNC_CLIENT_OUT_MEM_PCT;
	s->out = evbuffer_new();
	s->out_ev = event_new(s->base, s->out_pollable ? fd : -1,
	    s->out_pollable ? EV_WRITE | EV_PERSIST : 0, client_writable, s);
	if (s->out == NULL || s->out_ev == NULL)
		fatal("client stdout: event set-up");
}

/*
 * At exit, on every path (cleanup_exit() too): what is still queued
 * gets BNC_CLIENT_FLUSH_MS to be read, so that a client that stops
 * reading cannot hold the exit; then the client's stdout is closed, and
 * nothing more is sent.  Never calls fatal().
 */
void
client_flush(struct session *s)
{
	struct timespec t0, t;
	struct pollfd pfd;
	long left;
	int n;

	if (s->out == NULL || s->out_fd == -1)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (evbuffer_get_length(s->out) > 0) {
		if ((n = evbuffer_write(s->out, s->out_fd)) > 0)
			continue;
		if (n == -1 && errno == EINTR)
			continue;
		if (n != -1 || errno != EAGAIN)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = BNC_CLIENT_FLUSH_MS - ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			break;
		pfd.fd = s->out_fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, (int)left) == -1 && errno != EINTR)
			break;
	}
	if (evbuffer_get_length(s->out) > 0)
		error("client: %zu bytes of answers not read in %d ms; lost",
		    evbuffer_get_length(s->out), BNC_CLIENT_FLUSH_MS);
	evbuffer_drain(s->out, evbuffer_get_length(s->out));
	out_account(s);
	/* the last word: nothing after it could be flushed */
	close(s->out_fd);
	s->out_fd = -1;
}

void
client_send_error(struct session *s, const struct rpc_id *id, int64_t code,
    const char *msg)
{
	struct rpc_out m;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_ERROR;
	m.id = *id;
	if (m.id.type == RPC_ID_NONE)
		m.id.type = RPC_ID_NULL;
	m.code = code;
	m.message = msg;
	client_send(s, &m);
}

void
client_send_result(struct session *s, const struct rpc_id *id,
    struct value *result)
{
	struct rpc_out m;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_RESULT;
	m.id = *id;
	m.result = result;
	client_send(s, &m);
	value_free(result);
}

void
client_notify(struct session *s, const char *method, struct value *params)
{
	struct rpc_out m;

	memset(&m, 0, sizeof(m));
	m.kind = RPC_NOTIFICATION;
	m.method = method;
	m.params = params;
	client_send(s, &m);
	value_free(params);
}

/* Method handlers */

#define M_REQUEST	0x01	/* handles requests */
#define M_NOTIFY	0x02	/* handles notifications */
#define M_PREINIT	0x04	/* permitted before initialize completes */

struct method_handler {
	const char	*method;
	unsigned	 flags;
	const char	*cap;		/* pass-through: upstream capability */
	void		(*fn)(struct session *, struct rpc *,
			    const struct method_handler *);
};

static void
invalid_params(struct session *s, struct rpc *m, const char *why)
{
	char msg[BNC_REASON_MAX];

	snprintf(msg, sizeof(msg), "Invalid params: %s", why);
	client_send_error(s, &m->id, -32602, msg);
}

/*
 * What is wrong with params._meta, or NULL: if present it is an object,
 * and its progressToken, if present, a string or a number (RequestParams
 * in the MCP schema).  It goes upstream with the request, and the token
 * is what the upstream's progress is matched by.
 */
static const char *
meta_fault(const struct value *params)
{
	const struct value *meta, *tok;

	if ((meta = value_get(params, "_meta")) == NULL)
		return NULL;
	if (!value_is(meta, V_OBJECT))
		return "_meta must be an object";
	if ((tok = value_get(meta, "progressToken")) != NULL &&
	    !value_is(tok, V_STRING) && !value_is(tok, V_INT) &&
	    !value_is(tok, V_DOUBLE))
		return "progressToken must be a string or a number";
	return NULL;
}

static void
c_ping(struct session *s, struct rpc *m, const struct method_handler *h)
{
	(void)h;
	client_send_result(s, &m->id, value_object());
}

static void
c_initialize(struct session *s, struct rpc *m, const struct method_handler *h)
{
	const char *ver;
	size_t i;

	(void)h;
	if (s->state != SESSION_START) {
		client_send_error(s, &m->id, -32600,
		    "Invalid Request: already initialized");
		return;
	}
	if (!value_is(m->params, V_OBJECT) ||
	    (ver = value_get_str(m->params, "protocolVersion")) == NULL) {
		invalid_params(s, m, "protocolVersion must be a string");
		return;
	}
	if (value_get(m->params, "capabilities") != NULL &&
	    !value_is(value_get(m->params, "capabilities"), V_OBJECT)) {
		invalid_params(s, m, "capabilities must be an object");
		return;
	}
	if (value_get(m->params, "clientInfo") != NULL &&
	    !value_is(value_get(m->params, "clientInfo"), V_OBJECT)) {
		invalid_params(s, m, "clientInfo must be an object");
		return;
	}
	snprintf(s->version, sizeof(s->version), "%s",
	    client_version_supported(ver) ? ver : mcp_versions[0]);
	s->client_caps = value_object_take(m->params, "capabilities");
	if (s->client_caps == NULL)
		s->client_caps = value_object();
	s->client_info = value_object_take(m->params, "clientInfo");
	rpc_id_copy(&s->init_id, &m->id);
	session_event(s, SEV_INITIALIZE);
	verbose("client asked for protocol %.32s; speaking %s", ver,
	    s->version);
	for (i = 0; i < s->nups; i++)
		upstream_start(&s->ups[i]);
	/* An upstream may have failed before the client arrived. */
	client_upstream_ready(s);
}

static void
c_initialized(struct session *s, struct rpc *m, const struct method_handler *h)
{
	(void)m;
	(void)h;
	s->client_initialized = 1;
}

static void
c_tools_list(struct session *s, struct rpc *m, const struct method_handler *h)
{
	const struct value *cur = NULL;
	struct value *res;
	const char *why;
	int bad;

	(void)h;
	if (m->params != NULL && !value_is(m->params, V_OBJECT)) {
		invalid_params(s, m, "params must be an object");
		return;
	}
	if (m->params != NULL && (cur = value_get(m->params, "cursor")) !=
	    NULL && !value_is(cur, V_STRING)) {
		invalid_params(s, m, "cursor must be a string");
		return;
	}
	if ((why = meta_fault(m->params)) != NULL) {
		invalid_params(s, m, why);
		return;
	}
	res = surface_page(s, cur != NULL ? cur->u.s.p : NULL, &bad);
	if (bad) {
		invalid_params(s, m, "unknown cursor");
		return;
	}
	/* bouncer's own tools the agent is granted, on the last page */
	if (value_get(res, "nextCursor") == NULL)
		builtin_list(s, value_get(res, "tools"));
	client_send_result(s, &m->id, res);
}

static void
c_tools_call(struct session *s, struct rpc *m, const struct method_handler *h)
{
	struct value *args;
	const char *why;

	(void)h;
	if (!value_is(m->params, V_OBJECT) ||
	    value_get_str(m->params, "name") == NULL) {
		invalid_params(s, m, "tools/call needs a string \"name\"");
		return;
	}
	args = value_get(m->params, "arguments");
	if (args != NULL && !value_is(args, V_OBJECT)) {
		invalid_params(s, m, "arguments must be an object");
		return;
	}
	if ((why = meta_fault(m->params)) != NULL) {
		invalid_params(s, m, why);
		return;
	}
	gate_tool_call(s, m);
}

/* Resources, prompts, completions: routed to the upstream that has them. */
static void
c_passthrough(struct session *s, struct rpc *m, const struct method_handler *h)
{
	const char *why;

	if (m->params != NULL && !value_is(m->params, V_OBJECT)) {
		invalid_params(s, m, "params must be an object");
		return;
	}
	if ((why = meta_fault(m->params)) != NULL) {
		invalid_params(s, m, why);
		return;
	}
	route_request(s, m, h->cap);
}

/* logging/setLevel: every upstream that logs hears it. */
static void
c_set_level(struct session *s, struct rpc *m, const struct method_handler *h)
{
	static const struct pending_req discard;
	const char *why;
	size_t i, n = 0, capable = 0;

	if (!value_is(m->params, V_OBJECT) ||
	    value_get_str(m->params, "level") == NULL) {
		invalid_params(s, m, "level must be a string");
		return;
	}
	if ((why = meta_fault(m->params)) != NULL) {
		invalid_params(s, m, why);
		return;
	}
	/* each one as a request of its own, recorded before it goes */
	for (i = 0; i < s->nups; i++) {
		if (!upstream_has_cap(&s->ups[i], h->cap))
			continue;
		capable++;
		if (gate_notice(s, &s->ups[i], m->method, m->params) != 0)
			continue;
		/* its answer is discarded: no done */
		if (upstream_request(&s->ups[i], m->method,
		    value_dup(m->params), &discard) != -1)
			n++;
	}
	if (capable == 0)
		client_send_error(s, &m->id, -32601, "Method not found");
	else if (n == 0)
		client_send_error(s, &m->id, -32603, "Internal error: the "
		    "request could not be recorded, so it was not sent");
	else
		client_send_result(s, &m->id, value_object());
}

static void
c_cancelled(struct session *s, struct rpc *m, const struct method_handler *h)
{
	const struct value *rid, *reason;
	struct rpc_id cid;
	struct pending *p;
	struct value *params;
	size_t i;

	(void)h;
	memset(&cid, 0, sizeof(cid));
	rid = value_get(m->params, "requestId");
	if (value_is(rid, V_INT)) {
		cid.type = RPC_ID_INT;
		cid.n = rid->u.i;
	} else if (value_is(rid, V_STRING)) {
		cid.type = RPC_ID_STR;
		cid.s = rid->u.s.p;
	} else
		return;
	if (gate_cancel(s, &cid))
		return;
	for (i = 0; i < s->nups; i++) {
		if ((p = upstream_find_cid(&s->ups[i], &cid)) == NULL)
			continue;
		params = value_object();
		value_object_put(params, "requestId", value_int(p->uid));
		if ((reason = value_get(m->params, "reason")) != NULL &&
		    value_is(reason, V_STRING))
			value_object_put(params, "reason", value_dup(reason));
		upstream_notify(&s->ups[i], "notifications/cancelled", params);
		/* No answer will be delivered for it. */
		upstream_drop_pending(&s->ups[i], p);
		session_event(s, SEV_SETTLED);
		return;
	}
}

static void
c_roots_changed(struct session *s, struct rpc *m, const struct method_handler *h)
{
	size_t i;

	(void)h;
	for (i = 0; i < s->nups; i++)
		if (s->ups[i].state == UP_READY)
			upstream_notify(&s->ups[i], m->method,
			    value_dup(m->params));
}

static const struct method_handler client_methods[] = {
	{ "initialize",		M_REQUEST | M_PREINIT, NULL, c_initialize },
	{ "ping",		M_REQUEST | M_PREINIT, NULL, c_ping },
	{ "tools/list",		M_REQUEST, NULL, c_tools_list },
	{ "tools/call",		M_REQUEST, NULL, c_tools_call },
	{ "resources/list",	M_REQUEST, "resources", c_passthrough },
	{ "resources/templates/list", M_REQUEST, "resources", c_passthrough },
	{ "resources/read",	M_REQUEST, "resources", c_passthrough },
	{ "resources/subscribe", M_REQUEST, "resources", c_passthrough },
	{ "resources/unsubscribe", M_REQUEST, "resources", c_passthrough },
	{ "prompts/list",	M_REQUEST, "prompts", c_passthrough },
	{ "prompts/get",	M_REQUEST, "prompts", c_passthrough },
	{ "completion/complete", M_REQUEST, "completions", c_passthrough },
	{ "logging/setLevel",	M_REQUEST, "logging", c_set_level },
	{ "notifications/initialized", M_NOTIFY | M_PREINIT, NULL,
	    c_initialized },
	{ "notifications/cancelled", M_NOTIFY, NULL, c_cancelled },
	{ "notifications/roots/list_changed", M_NOTIFY, NULL, c_roots_changed },
};

static const struct method_handler *
find_method(const char *method)
{
	size_t i;

	for (i = 0; i < sizeof(client_methods) / sizeof(client_methods[0]);
	    i++)
		if (strcmp(client_methods[i].method, method) == 0)
			return &client_methods[i];
	return NULL;
}

/* The client answers a request we or an upstream made through us. */
static void
client_response(struct session *s, struct rpc *m)
{
	if (gate_client_answer(s, m))
		return;
	if (relay_answer(s, m))
		return;
	debug("client answered an unknown id; dropped");
}

static struct value *
merged_caps(struct session *s)
{
	static const char *const passed[] = {
		"resources", "prompts", "logging", "completions"
	};
	struct value *caps, *tools, *v;
	size_t i, j;

	caps = value_object();
	tools = value_object();
	value_object_put(tools, "listChanged", value_bool(1));
	value_object_put(caps, "tools", tools);
	for (j = 0; j < sizeof(passed) / sizeof(passed[0]); j++)
		for (i = 0; i < s->nups; i++)
			if ((v = value_get(s->ups[i].caps, passed[j])) != NULL) {
				/* the upstream's words, to the client */
				decide_record_output(&s->dc, v);
				value_object_put(caps, passed[j],
				    value_dup(v));
				break;
			}
	return caps;
}

static char *
merged_instructions(struct session *s)
{
	struct buf *b;
	char *out = NULL;
	size_t i, n = 0;

	for (i = 0; i < s->nups; i++)
		if (s->ups[i].instructions != NULL)
			n++;
	if (n == 0)
		return NULL;
	b = buf_new();
	for (i = 0; i < s->nups; i++) {
		if (s->ups[i].instructions == NULL)
			continue;
		if (n > 1) {
			if (buf_len(b) > 0)
				buf_put(b, "\n\n", 2);
			buf_put(b, s->ups[i].name, strlen(s->ups[i].name));
			buf_put(b, ": ", 2);
		}
		buf_put(b, s->ups[i].instructions,
		    strlen(s->ups[i].instructions));
	}
	buf_put_u8(b, 0);
	out = xstrdup((const char *)buf_ptr(b));
	buf_free(b);
	return out;
}

/* A policy note (policy_explain), or a withheld name: logged, audited. */
static void
report_note(const char *event, const char *msg, void *arg)
{
	struct session *s = arg;

	logit("%s", msg);
	gate_audit_event(s, event, msg);
}

/*
 * Said once, when the surface is first built (DESIGN 5, Names;
 * bouncer-policy(5), SCOPE): every tool the surface withholds, and every
 * place the policy of a tool is narrower than its entries read (a pack
 * entry that does not apply, trust an unqualified entry cannot give).
 */
static void
report_surface(struct session *s)
{
	const struct tool_entry *e;
	size_t i;

	for (i = 0; i < s->ntools; i++) {
		e = &s->tools[i];
		if (e->withheld != NULL)
			report_note("name-withheld", e->withheld, s);
		else if (!e->forbidden && s->policy != NULL)
			policy_explain(s->policy, e->up->name, e->pin->name,
			    value_get(e->pin->def, "inputSchema"),
			    report_note, s);
	}
}

/* Called whenever an upstream becomes ready or fails during start-up. */
static void	replay_queued(struct session *, int);

void
client_upstream_ready(struct session *s)
{
	struct value *res, *info;
	char msg[BNC_REASON_MAX], *instr;
	size_t i;

	if (s->state != SESSION_INIT && s->state != SESSION_DRAIN)
		return;
	if (s->init_id.type == RPC_ID_NONE)
		return;
	for (i = 0; i < s->nups; i++) {
		if (s->ups[i].state == UP_FAILED) {
			/* it may quote the upstream (its error, its version,
			 * a tool name): untrusted like what it quotes */
			decide_error_text(&s->dc, s->ups[i].fail_reason);
			snprintf(msg, sizeof(msg), "Internal error: upstream "
			    "\"%s\" failed to start: %s", s->ups[i].name,
			    s->ups[i].fail_reason != NULL ?
			    s->ups[i].fail_reason : "unknown");
			/* said to the client for every request from now
			 * on, until it closes (DESIGN 10) */
			s->start_error = xstrdup(msg);
			s->wait_client = 1;
			client_send_error(s, &s->init_id, -32603, msg);
			rpc_id_clear(&s->init_id);
			replay_queued(s, 1);
			session_event(s, SEV_FAIL);
			return;
		}
		if (s->ups[i].state != UP_READY)
			return;
	}
	surface_build(s);
	report_surface(s);
	res = value_object();
	value_object_put(res, "protocolVersion", value_string(s->version));
	value_object_put(res, "capabilities", merged_caps(s));
	info = value_object();
	value_object_put(info, "name", value_string("bouncer"));
	value_object_put(info, "version", value_string(PACKAGE_VERSION));
	value_object_put(res, "serverInfo", info);
	if ((instr = merged_instructions(s)) != NULL) {
		value_object_put(res, "instructions", value_string(instr));
		free(instr);
	}
	session_event(s, SEV_READY);
	client_send_result(s, &s->init_id, res);
	rpc_id_clear(&s->init_id);
	replay_queued(s, 0);
	verbose("session ready: %zu tools from %zu upstreams", s->ntools,
	    s->nups);
	session_event(s, SEV_SETTLED);
}

static void
client_message(struct session *s, struct rpc *mp)
{
	const struct method_handler *h;
	struct rpc m = *mp;
	size_t need;

	if (m.kind == RPC_RESULT || m.kind == RPC_ERROR) {
		client_response(s, &m);
		msg_rpc_free(&m);
		return;
	}
	/* an agent the registry does not know gets nothing, not even a
	 * session: one error, the same for every request (DESIGN 6) */
	if (s->identity_error != NULL) {
		if (m.kind == RPC_REQUEST)
			client_send_error(s, &m.id, CLIENT_ERR_IDENTITY,
			    s->identity_error);
		msg_rpc_free(&m);
		return;
	}
	/* a failed start serves nothing, and says why, but ping */
	if (s->start_error != NULL) {
		if (m.kind == RPC_REQUEST && strcmp(m.method, "ping") == 0)
			client_send_result(s, &m.id, value_object());
		else if (m.kind == RPC_REQUEST)
			client_send_error(s, &m.id, -32603, s->start_error);
		msg_rpc_free(&m);
		return;
	}
	h = find_method(m.method);
	/*
	 * A client that pipelines requests behind initialize has them kept,
	 * in order, until the upstreams are pinned: nothing is lost.
	 */
	if (s->init_id.type != RPC_ID_NONE &&
	    (h == NULL || !(h->flags & M_PREINIT))) {
		need = mem_rpc(&m);
		if (s->nqueued >= BNC_PENDING_MAX ||
		    mem_charge(&s->mem, need) != 0) {
			if (m.kind == RPC_REQUEST)
				client_send_error(s, &m.id, -32603,
				    s->nqueued >= BNC_PENDING_MAX ?
				    "Internal error: too many requests "
				    "queued during start-up" : MEM_FULL_ERROR);
			else
				debug("client notification %s not queued: "
				    "no room", m.method);
			msg_rpc_free(&m);
			return;
		}
		s->queued_mem += need;
		s->queued = xreallocarray(s->queued, s->nqueued + 1,
		    sizeof(*s->queued));
		s->queued[s->nqueued++] = m;
		return;
	}
	if (m.kind == RPC_NOTIFICATION) {
		if (h != NULL && (h->flags & M_NOTIFY) &&
		    ((h->flags & M_PREINIT) || s->state >= SESSION_READY))
			h->fn(s, &m, h);
		else
			debug("client notification %s ignored", m.method);
	} else if (h == NULL || !(h->flags & M_REQUEST))
		client_send_error(s, &m.id, -32601, "Method not found");
	else if (!(h->flags & M_PREINIT) && s->state < SESSION_READY)
		client_send_error(s, &m.id, -32600,
		    "Invalid Request: session not initialized");
	else
		h->fn(s, &m, h);
	msg_rpc_free(&m);
}

/* Replays what arrived during start-up, or refuses it if start-up failed. */
static void
replay_queued(struct session *s, int failed)
{
	struct rpc *q = s->queued;
	size_t i, n = s->nqueued;

	s->queued = NULL;
	s->nqueued = 0;
	mem_release(&s->mem, s->queued_mem);
	s->queued_mem = 0;
	for (i = 0; i < n; i++) {
		if (failed) {
			if (q[i].kind == RPC_REQUEST)
				client_send_error(s, &q[i].id, -32603,
				    s->start_error);
			msg_rpc_free(&q[i]);
		} else
			client_message(s, &q[i]);
	}
	free(q);
}

/* The client worker's frames (child.c dispatches by this table). */

static void
client_hello(struct child *ch, struct frame_msg *fm)
{
	child_hello(ch, fm, ROLE_WORKER_CLIENT);
	session_event(ch->owner, SEV_HELLO);
}

static void
client_rpc_in(struct child *ch, struct frame_msg *fm)
{
	struct session *s = ch->owner;
	struct rpc m;
	int r;

	if ((r = msg_rpc_get(fm->payload, &m, s->cfg->max_message)) != 0)
		fatal_r(r, "%s: bad rpc frame", ch->tag);
	client_message(s, &m);
}

static void
client_rpc_bad(struct child *ch, struct frame_msg *fm)
{
	struct session *s = ch->owner;
	struct msg_rpc_bad bad;
	int r;

	if ((r = msg_rpc_bad_get(fm->payload, &bad)) != 0)
		fatal_r(r, "%s: bad frame", ch->tag);
	/* A broken response is never answered: it would loop. */
	if (bad.was_response)
		debug("client sent a broken response: %s", bad.message);
	else
		client_send_error(s, &bad.id, bad.code, bad.message);
	msg_rpc_bad_free(&bad);
}

static void
client_input_eof(struct child *ch, struct frame_msg *fm)
{
	struct session *s = ch->owner;

	if (msg_empty_get(fm->payload) != 0)
		fatal("%s: bad input-eof", ch->tag);
	child_input_ended(ch);
	debug("client closed its input");
	session_event(s, SEV_CLIENT_EOF);
}

static void
client_worker_exited(struct child *ch, int status)
{
	session_worker_exited(ch->owner, ch, status);
}

static const struct child_frame client_frames[] = {
	{ MSG_HELLO,	 CHILD_P_HELLO,			client_hello },
	{ MSG_LOG,	 CHILD_P_RUN | CHILD_P_EOF,	child_log },
	{ MSG_RPC_IN,	 CHILD_P_RUN,			client_rpc_in },
	{ MSG_RPC_BAD,	 CHILD_P_RUN,			client_rpc_bad },
	{ MSG_INPUT_EOF, CHILD_P_RUN,			client_input_eof },
};

void
client_worker_init(struct session *s)
{
	struct child *ch = &s->client;

	ch->kind = CHILD_WORKER_CLIENT;
	ch->tag = xstrdup("worker:client");
	ch->sock = -1;
	ch->frames = client_frames;
	ch->nframes = sizeof(client_frames) / sizeof(client_frames[0]);
	ch->exited = client_worker_exited;
	ch->owner = s;
}
