/*
 * err.c - the text of each negative error code.
 *
 * The table is indexed by code; a test checks that every code has text.
 */
#include <stddef.h>

#include "err.h"

static const char *const err_str[BNC_ERR_MAX] = {
	[BNC_OK] = "success",
	[BNC_ERR_INTERNAL] = "internal error",
	[BNC_ERR_ALLOC] = "out of memory",
	[BNC_ERR_TRUNCATED] = "truncated input",
	[BNC_ERR_TRAILING] = "trailing bytes after message",
	[BNC_ERR_TOO_LARGE] = "length or count over limit",
	[BNC_ERR_TOO_DEEP] = "nesting over limit",
	[BNC_ERR_BAD_FORMAT] = "invalid format",
	[BNC_ERR_BAD_UTF8] = "invalid UTF-8",
	[BNC_ERR_NUL] = "embedded NUL character",
	[BNC_ERR_BAD_VERSION] = "wrong protocol version",
	[BNC_ERR_BAD_TYPE] = "unexpected message type",
	[BNC_ERR_BAD_FD] = "unexpected or missing file descriptor",
	[BNC_ERR_SYS] = "system error",
	[BNC_ERR_EOF] = "connection closed",
	[BNC_ERR_AGAIN] = "operation would block",
	[BNC_ERR_DUP_KEY] = "duplicate object key",
	[BNC_ERR_JSON] = "invalid JSON",
	[BNC_ERR_CONFIG] = "configuration error",
	[BNC_ERR_NOT_FOUND] = "not found",
	[BNC_ERR_STATE] = "message out of state",
	[BNC_ERR_USED] = "used before",
};

const char *
bnc_err(int r)
{
	if (r < 0)
		r = -r;
	if (r >= BNC_ERR_MAX || err_str[r] == NULL)
		return "unknown error";
	return err_str[r];
}
