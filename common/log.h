/*
 * log.h - operator logging in OpenSSH's shape.
 *
 * Logs go to stderr, never stdout (stdout carries MCP only).  A sandboxed
 * child installs a hook with log_set_sink() so its lines travel to the
 * monitor in MSG_LOG frames; the monitor escapes control characters and
 * tags them with the child's role.  No secret is ever logged at any level.
 */
#ifndef BNC_LOG_H
#define BNC_LOG_H

#include <stdarg.h>

enum bnc_loglevel {
	LOG_LEVEL_QUIET = 0,
	LOG_LEVEL_FATAL,
	LOG_LEVEL_ERROR,
	LOG_LEVEL_INFO,
	LOG_LEVEL_VERBOSE,
	LOG_LEVEL_DEBUG1,
	LOG_LEVEL_DEBUG2,
	LOG_LEVEL_DEBUG3
};

/* A sink receives each formatted line (no newline) at or below the level. */
typedef void (*log_sink_fn)(enum bnc_loglevel, const char *, void *);

void	 log_init(const char *tag, enum bnc_loglevel);
void	 log_set_level(enum bnc_loglevel);
enum bnc_loglevel log_get_level(void);
void	 log_set_tag(const char *);
void	 log_set_sink(log_sink_fn, void *);
const char *log_level_name(enum bnc_loglevel);
/* Copies s to dst escaping control bytes as \xNN; always NUL-terminates. */
void	 log_escape(char *dst, size_t dstsz, const char *s, size_t len);

void	 do_log(enum bnc_loglevel, const char *func, int errcode,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void	 do_logv(enum bnc_loglevel, const char *func, int errcode,
	    const char *fmt, va_list) __attribute__((format(printf, 4, 0)));
void	 do_fatal(const char *func, int errcode, const char *fmt, ...)
	    __attribute__((noreturn, format(printf, 3, 4)));

/*
 * Called by fatal() before exit; the monitor installs one that reaps its
 * children and closes the audit transaction.  Must not return.
 */
void	 log_set_cleanup(void (*)(int));
/* The message of the fatal() in progress, for the cleanup to record. */
const char *log_last_fatal(void);

#define fatal(...)	do_fatal(NULL, 0, __VA_ARGS__)
#define fatal_f(...)	do_fatal(__func__, 0, __VA_ARGS__)
#define fatal_r(r, ...)	do_fatal(NULL, (r), __VA_ARGS__)
#define fatal_fr(r, ...) do_fatal(__func__, (r), __VA_ARGS__)
#define error(...)	do_log(LOG_LEVEL_ERROR, NULL, 0, __VA_ARGS__)
#define error_f(...)	do_log(LOG_LEVEL_ERROR, __func__, 0, __VA_ARGS__)
#define error_r(r, ...)	do_log(LOG_LEVEL_ERROR, NULL, (r), __VA_ARGS__)
#define error_fr(r, ...) do_log(LOG_LEVEL_ERROR, __func__, (r), __VA_ARGS__)
#define logit(...)	do_log(LOG_LEVEL_INFO, NULL, 0, __VA_ARGS__)
#define logit_f(...)	do_log(LOG_LEVEL_INFO, __func__, 0, __VA_ARGS__)
#define verbose(...)	do_log(LOG_LEVEL_VERBOSE, NULL, 0, __VA_ARGS__)
#define verbose_f(...)	do_log(LOG_LEVEL_VERBOSE, __func__, 0, __VA_ARGS__)
#define debug(...)	do_log(LOG_LEVEL_DEBUG1, NULL, 0, __VA_ARGS__)
#define debug_f(...)	do_log(LOG_LEVEL_DEBUG1, __func__, 0, __VA_ARGS__)
#define debug2(...)	do_log(LOG_LEVEL_DEBUG2, NULL, 0, __VA_ARGS__)
#define debug2_f(...)	do_log(LOG_LEVEL_DEBUG2, __func__, 0, __VA_ARGS__)
#define debug3(...)	do_log(LOG_LEVEL_DEBUG3, NULL, 0, __VA_ARGS__)
#define debug3_f(...)	do_log(LOG_LEVEL_DEBUG3, __func__, 0, __VA_ARGS__)

#endif /* BNC_LOG_H */
