/*
 * probe.h - would this carrier send a request line?  (MSG_CARRIER_PROBE,
 * for bouncer-monitor -C.)
 */
#ifndef BNC_PROBE_H
#define BNC_PROBE_H

#include "carrier.h"

struct msg_carrier_result;

/*
 * CARRIER_OK with {"would_send": true} only if a row's method and path
 * template take "method path", with the row's validators, and
 * reqline_check() takes it too; else CARRIER_REFUSED.  Touches no
 * network.
 */
void	probe_run(const struct carrier_service *, const char *method,
	    const char *path, struct msg_carrier_result *res);

#endif /* BNC_PROBE_H */
