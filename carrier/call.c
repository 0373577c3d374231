/*
 * call.c - one call of an endpoint, end to end (DESIGN 8).
 *
 * The endpoint must be a row of this carrier's table; its arguments
 * must be the row's and pass their validators; the path is built from
 * their canonical forms; the finished request line must pass the
 * independent check of reqline.c; only then does a byte go out.  Each
 * refusal says which check refused, and nothing reached the network.
 * The socket the call came with is closed when the call ends, whatever
 * happened.  This file must never log a Slack path or any body.
 */
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "answer.h"
#include "args.h"
#include "buf.h"
#include "call.h"
#include "http.h"
#include "log.h"
#include "path.h"
#include "reqline.h"

/* The path as a log or a refusal may show it. */
static const char *
shown_path(const struct carrier_service *svc, const char *path)
{
	return svc->cred == CRED_WEBHOOKS ? "(the channel's webhook)" : path;
}

int
call_request(const struct carrier_service *svc, struct http_conn *conn,
    const struct http_req *req, struct http_resp *resp,
    struct msg_carrier_result *res)
{
	memset(resp, 0, sizeof(*resp));
	if (reqline_check(req->method, req->path) != 0) {
		answer_refused(res, REFUSE_REQUEST_LINE, "%s %s is not on "
		    "the %s allowlist", req->method, shown_path(svc, req->path),
		    svc->name);
		return -1;
	}
	debug("%s %s", req->method, shown_path(svc, req->path));
	http_exchange(conn, req, resp);
	debug("%s %s: HTTP %ld, %zu bytes%s%s%s", req->method,
	    shown_path(svc, req->path), resp->status, buf_len(resp->body),
	    resp->over_cap ? " (over the cap)" : "",
	    resp->status == 0 ? ": " : "",
	    resp->status == 0 ? resp->errbuf : "");
	return 0;
}

/* A row of one request: build it, send it, read the answer. */
static void
call_one(const struct carrier_service *svc, const struct carrier_endpoint *ep,
    const struct carrier_args *args, struct http_conn *conn,
    struct msg_carrier_result *res)
{
	char path[BNC_CARRIER_PATH_MAX + 1];
	struct http_resp resp;
	struct http_req req;
	struct buf *body = NULL;

	memset(&resp, 0, sizeof(resp));
	if (path_expand(ep, args, path) != 0) {
		answer_refused(res, REFUSE_NO_ENDPOINT, "the path of %s "
		    "endpoint %u cannot be built", svc->name, ep->id);
		goto out;
	}
	if (ep->body != NULL) {
		body = buf_new();
		if (ep->body(args, body) != 0) {
			answer_refused(res, REFUSE_ARGUMENT, "the body of %s "
			    "endpoint %u cannot be built from these "
			    "arguments", svc->name, ep->id);
			goto out;
		}
	}
	memset(&req, 0, sizeof(req));
	req.method = ep->method;
	req.path = path;
	req.body = body != NULL ? (const char *)buf_ptr(body) : NULL;
	req.bodylen = body != NULL ? buf_len(body) : 0;
	req.cap = ep->cap;
	if (call_request(svc, conn, &req, &resp, res) != 0)
		goto out;
	answer_http(svc, ep, args, &resp, res);
 out:
	http_resp_clear(&resp);
	buf_free(body);
	sodium_memzero(path, sizeof(path));
}

void
call_run(const struct carrier_service *svc, uint16_t endpoint,
    const struct value *in, int fd, struct msg_carrier_result *res)
{
	const struct carrier_endpoint *ep = NULL;
	struct carrier_args args;
	struct http_conn conn;
	char why[BNC_CARRIER_MESSAGE_MAX];
	size_t i;

	memset(&args, 0, sizeof(args));
	memset(&conn, 0, sizeof(conn));
	conn.fd = fd;
	for (i = 0; i < svc->nep; i++)
		if (svc->ep[i].id == endpoint)
			ep = &svc->ep[i];
	if (ep == NULL) {
		answer_refused(res, REFUSE_NO_ENDPOINT, "endpoint %u is not "
		    "in the %s table", (unsigned int)endpoint, svc->name);
		goto out;
	}
	if (args_check(ep, in, &args, why, sizeof(why)) != 0) {
		answer_refused(res, REFUSE_ARGUMENT, "%s", why);
		goto out;
	}
	if (ep->run != NULL)
		ep->run(svc, ep, &args, &conn, res);
	else
		call_one(svc, ep, &args, &conn, res);
 out:
	args_clear(&args);
	http_conn_done(&conn);
}
