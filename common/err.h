/*
 * err.h - negative error codes and their strings.
 *
 * int functions return 0 or -BNC_ERR_*; bnc_err() names the code.  The
 * table in err.c is the only place a code gets its text.
 */
#ifndef BNC_ERR_H
#define BNC_ERR_H

enum bnc_err {
	BNC_OK = 0,
	BNC_ERR_INTERNAL,	/* our own invariant broke */
	BNC_ERR_ALLOC,		/* out of memory */
	BNC_ERR_TRUNCATED,	/* input ended inside a field */
	BNC_ERR_TRAILING,	/* bytes left over after decoding */
	BNC_ERR_TOO_LARGE,	/* a length or count over its cap */
	BNC_ERR_TOO_DEEP,	/* nesting over its cap */
	BNC_ERR_BAD_FORMAT,	/* a field with an impossible value */
	BNC_ERR_BAD_UTF8,	/* string is not valid UTF-8 */
	BNC_ERR_NUL,		/* cstring with an embedded NUL */
	BNC_ERR_BAD_VERSION,	/* frame version mismatch */
	BNC_ERR_BAD_TYPE,	/* message type not allowed here */
	BNC_ERR_BAD_FD,		/* an fd where none belongs, or none */
	BNC_ERR_SYS,		/* a system call failed; see errno */
	BNC_ERR_EOF,		/* peer closed */
	BNC_ERR_AGAIN,		/* would block */
	BNC_ERR_DUP_KEY,	/* duplicate object key */
	BNC_ERR_JSON,		/* not JSON */
	BNC_ERR_CONFIG,		/* configuration error */
	BNC_ERR_NOT_FOUND,	/* no such thing */
	BNC_ERR_STATE,		/* message out of state */
	BNC_ERR_USED,		/* single-use, and used before */
	BNC_ERR_MAX
};

/* Returns a static string for a code, positive or negative. */
const char	*bnc_err(int);

#endif /* BNC_ERR_H */
