/*
 * decide.c - the gauntlet every tools/call runs (DESIGN 5).
 *
 * First hit wins; any doubt is a deny.  It must never forward, write or
 * answer anything itself: it only decides, so that every caller records
 * and enforces the same verdict.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "decide.h"
#include "monitor.h"

static const char *const verdict_names[] = {
	[VERDICT_ALLOW] = "allow",
	[VERDICT_DENY] = "deny",
	[VERDICT_ASK] = "ask",
};

const char *
verdict_name(enum verdict v)
{
	if (v < VERDICT_ALLOW || v > VERDICT_ASK)
		return "unknown";
	return verdict_names[v];
}

static void __attribute__((format(printf, 3, 4)))
deny(struct decision *d, const char *contract, const char *fmt, ...)
{
	va_list ap;

	d->verdict = VERDICT_DENY;
	d->contract = contract;
	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
}

void
decide_call(struct session *s, const char *name,
    const struct tool_entry *entry, const struct value *args,
    struct decision *d)
{
	(void)s;
	(void)args;
	memset(d, 0, sizeof(*d));

	/* 2. pinning: only tools recorded at start-up, unchanged since */
	if (entry == NULL) {
		deny(d, "pinning", "unknown tool (not pinned at startup)");
		return;
	}
	if (!entry->visible) {
		deny(d, "pinning", "tool '%.128s' changed since it was "
		    "pinned; withheld until re-pinned", name);
		return;
	}
	if (entry->up->state != UP_READY) {
		deny(d, "default", "upstream \"%.64s\" is not running",
		    entry->up->name);
		return;
	}
	/* 3-5: budgets, constraints and the sink gate come here. */
	d->verdict = VERDICT_ALLOW;
	d->contract = "default";
	snprintf(d->reason, sizeof(d->reason), "allowed");
}

void
decide_result(struct session *s, const struct tool_entry *entry,
    const struct value *result)
{
	(void)s;
	(void)entry;
	(void)result;
	/* The taint recorder hooks in here. */
}
