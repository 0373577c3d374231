/*
 * credaudit.h - bouncer-monitor -C: what stops each configured
 * credential from each forbidden write (DESIGN 8).
 */
#ifndef BNC_CREDAUDIT_H
#define BNC_CREDAUDIT_H

#include <stdio.h>

struct config;
struct session;

/*
 * Runs the audit with the carriers of s (carriers_open() done) and
 * prints its table to out.  0 if every operation was blocked for every
 * agent, else 1.
 */
int	credaudit_run(struct session *, const struct config *, FILE *out);

#endif /* BNC_CREDAUDIT_H */
