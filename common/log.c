/*
 * log.c - operator logging to stderr, or to a sink in sandboxed children.
 *
 * Never writes stdout.  Lines are escaped before they reach a terminal so
 * a peer cannot inject control sequences through an error message.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "bounds.h"
#include "log.h"
#include "utf8.h"

static const char *log_tag = "bouncer";
static enum bnc_loglevel log_level = LOG_LEVEL_INFO;
static log_sink_fn log_sink;
static void *log_sink_ctx;
static void (*log_cleanup)(int);
static char last_fatal[BNC_LOG_LINE_MAX];

static const char *const level_names[] = {
	[LOG_LEVEL_QUIET] = "quiet",
	[LOG_LEVEL_FATAL] = "fatal",
	[LOG_LEVEL_ERROR] = "error",
	[LOG_LEVEL_INFO] = "info",
	[LOG_LEVEL_VERBOSE] = "verbose",
	[LOG_LEVEL_DEBUG1] = "debug1",
	[LOG_LEVEL_DEBUG2] = "debug2",
	[LOG_LEVEL_DEBUG3] = "debug3",
};

void
log_init(const char *tag, enum bnc_loglevel level)
{
	log_tag = tag;
	log_level = level;
}

void
log_set_level(enum bnc_loglevel level)
{
	log_level = level;
}

enum bnc_loglevel
log_get_level(void)
{
	return log_level;
}

void
log_set_tag(const char *tag)
{
	log_tag = tag;
}

void
log_set_sink(log_sink_fn fn, void *ctx)
{
	log_sink = fn;
	log_sink_ctx = ctx;
}

void
log_set_cleanup(void (*fn)(int))
{
	log_cleanup = fn;
}

const char *
log_last_fatal(void)
{
	return last_fatal;
}

const char *
log_level_name(enum bnc_loglevel level)
{
	if ((unsigned)level >= sizeof(level_names) / sizeof(level_names[0]))
		return "unknown";
	return level_names[level];
}

void
log_escape(char *dst, size_t dstsz, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0, n;
	unsigned char c;
	uint32_t cp;

	if (dstsz == 0)
		return;
	for (i = 0; i < len && o + 1 < dstsz; i++) {
		c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f) {
			dst[o++] = (char)c;
			continue;
		}
		/*
		 * Whole characters pass, but not the C1 controls (U+0080 to
		 * U+009F: U+009B is a terminal's CSI as ESC [ is) nor a byte
		 * that is no UTF-8: both are shown byte by byte.
		 */
		if (c >= 0x80 && (n = utf8_decode(s + i, len - i, &cp)) > 0 &&
		    cp > 0x9f) {
			if (o + n >= dstsz)
				break;
			memcpy(dst + o, s + i, n);
			o += n;
			i += n - 1;
			continue;
		}
		if (o + 4 >= dstsz)
			break;
		dst[o++] = '\\';
		dst[o++] = 'x';
		dst[o++] = hex[c >> 4];
		dst[o++] = hex[c & 0xf];
	}
	dst[o] = '\0';
}

void
do_logv(enum bnc_loglevel level, const char *func, int r, const char *fmt,
    va_list ap)
{
	char msg[BNC_LOG_LINE_MAX], line[BNC_LOG_LINE_MAX];
	int saved_errno = errno;
	size_t n;

	if (level > log_level)
		return;
	n = 0;
	if (func != NULL)
		n = (size_t)snprintf(msg, sizeof(msg), "%s: ", func);
	if (n < sizeof(msg))
		vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	n = strlen(msg);
	if (r != 0 && n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, ": %s", bnc_err(r));
	if (level == LOG_LEVEL_FATAL)
		snprintf(last_fatal, sizeof(last_fatal), "%s", msg);
	if (log_sink != NULL) {
		log_sink(level, msg, log_sink_ctx);
	} else {
		log_escape(line, sizeof(line), msg, strlen(msg));
		dprintf(STDERR_FILENO, "%s: %s%s\n", log_tag,
		    level == LOG_LEVEL_FATAL ? "fatal: " : "", line);
	}
	errno = saved_errno;
}

void
do_log(enum bnc_loglevel level, const char *func, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	do_logv(level, func, r, fmt, ap);
	va_end(ap);
}

void
do_fatal(const char *func, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	do_logv(LOG_LEVEL_FATAL, func, r, fmt, ap);
	va_end(ap);
	if (log_cleanup != NULL)
		log_cleanup(1);
	_exit(1);
}
