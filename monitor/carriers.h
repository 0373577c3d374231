/*
 * carriers.h - the monitor's side of the carriers (DESIGN 2, 8).
 *
 * carriers.c owns the carrier processes of a session: the credential files
 * it opened at start-up (the only thing of a credential the monitor
 * keeps between hand-offs is an open file), the carriers it started with
 * one credential each on fd 4, the sockets it connects for them, the
 * calls waiting for each, and their restarts.  It reads a carrier's
 * answer only as a typed frame; what the fields mean is builtin.c's.
 */
#ifndef BNC_CARRIERS_H
#define BNC_CARRIERS_H

#include <stdint.h>

struct config;
struct msg_carrier_result;
struct session;
struct value;

enum work_kind {
	WORK_NOTION_READ = 0,
	WORK_NOTION_COMMENT,
	WORK_GITHUB,
	WORK_SLACK,
	/* bouncer-monitor -C only: the Notion tokens in carriers whose
	 * table holds the no-op update (CEP_NOTION_NOOP) */
	WORK_NOTION_READ_AUDIT,
	WORK_NOTION_COMMENT_AUDIT,
	WORK_KINDS
};

/*
 * The end of a call: res is the carrier's answer (any status), or NULL
 * with err saying why there is none (not configured, the carrier died or
 * timed out, no connection).  Both are borrowed for the call's length.
 */
typedef void (*work_done_fn)(struct session *, void *arg,
    const struct msg_carrier_result *res, const char *err);

/*
 * Opens the credential files of cf's work: section (before any
 * untrusted input, with the monitor's group in packaged mode).  0, or -1
 * with "FILE: reason" in err.
 */
int	 carriers_open(struct session *, const struct config *cf, char *err,
	    size_t errlen);
/* 1 if the session has the carrier of kind (its credential is set). */
int	 carriers_configured(const struct session *, enum work_kind);
/*
 * Queues a call of endpoint ep (CEP_*) with args (taken) on the carrier
 * of kind, starting it if need be; done runs exactly once, perhaps
 * before this returns.
 */
void	 carriers_call(struct session *, enum work_kind, uint16_t ep,
	    struct value *args, work_done_fn done, void *arg);
/*
 * Asks the carrier of kind whether its table and its request-line check
 * would send "METHOD PATH" (MSG_CARRIER_PROBE; nothing is connected and
 * nothing reaches the network); done as for a call.
 */
void	 carriers_probe(struct session *, enum work_kind, const char *method,
	    const char *path, work_done_fn done, void *arg);
/* The name of kind's carrier ("notion-read", ...). */
const char *carriers_name(enum work_kind);
/* 1 while a call is in flight or waiting (the drain waits for it). */
int	 carriers_busy(const struct session *);
/* Every call waiting ends with err; the carriers are told to go. */
void	 carriers_close(struct session *);

#endif /* BNC_CARRIERS_H */
