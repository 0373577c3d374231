/*
 * probe.c - the table's two checks on a request line, without sending
 * it (bouncer-monitor -C shows that GitHub's and Slack's forbidden
 * operations are refused by the carrier before the network).
 *
 * The answer is the carrier's own: the same rows, validators and
 * request-line patterns a call goes through.  This file must never touch
 * a socket, and never log a Slack path (a webhook path is a credential).
 */
#include <string.h>

#include "answer.h"
#include "path.h"
#include "probe.h"
#include "reqline.h"
#include "value.h"

void
probe_run(const struct carrier_service *svc, const char *method,
    const char *path, struct msg_carrier_result *res)
{
	struct value *data;
	size_t i;

	for (i = 0; i < svc->nep; i++)
		if (strcmp(svc->ep[i].method, method) == 0 &&
		    path_match(&svc->ep[i], path))
			break;
	if (i == svc->nep) {
		answer_refused(res, REFUSE_NO_ENDPOINT, "no row of the %s "
		    "table sends this request", svc->name);
		return;
	}
	if (reqline_check(method, path) != 0) {
		answer_refused(res, REFUSE_REQUEST_LINE, "the request line "
		    "is not on the %s allowlist", svc->name);
		return;
	}
	data = value_object();
	value_object_put(data, "would_send", value_bool(1));
	answer_ok(res, data);
}
