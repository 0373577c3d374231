/*
 * validate.h - the carriers' argument validators (DESIGN 8).
 *
 * A carrier builds every request path itself from typed arguments, and
 * each argument passes one of these first.  They accept exactly the
 * vendor's form and nothing that a URL parser, a proxy or the vendor
 * might read differently: no percent-encoding, no dot segments, no
 * slashes where one segment is meant, ASCII digits only, no leading
 * zeros, no overlong numbers.  Each returns 0, or -1 with *why a short
 * constant reason ("not a Notion id", ...).  len is the byte length; an
 * embedded NUL is refused.
 */
#ifndef BNC_VALIDATE_H
#define BNC_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#define VALID_NOTION_ID_LEN	36	/* dashed form, without the NUL */

/* A Notion id: 32 hex digits, with or without the four dashes of the
 * 8-4-4-4-12 form (either case); out gets the dashed lower-case form. */
int	valid_notion_id(const char *s, size_t len,
	    char out[VALID_NOTION_ID_LEN + 1], const char **why);
/* A GitHub owner: 1..39 of [A-Za-z0-9-], not starting or ending with
 * '-' and without "--". */
int	valid_github_owner(const char *s, size_t len, const char **why);
/* A GitHub repository name: 1..100 of [A-Za-z0-9._-], not "." or "..". */
int	valid_github_repo(const char *s, size_t len, const char **why);
/* An issue or pull request number: ASCII decimal, no sign, no leading
 * zero, 1..2^31-1. */
int	valid_issue_number(const char *s, size_t len, uint32_t *out,
	    const char **why);
/* A Slack incoming-webhook path:
 * ^/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+$, at most 256 bytes. */
int	valid_webhook_path(const char *s, size_t len, const char **why);
/* A pagination cursor handed back to the vendor: 1..128 of
 * [A-Za-z0-9_-]. */
int	valid_cursor(const char *s, size_t len, const char **why);
/* A Notion status name to filter on: valid UTF-8, 1..100 bytes, no
 * control, format (bidi, zero-width) or quote characters. */
int	valid_status_name(const char *s, size_t len, const char **why);
/* A Slack channel name as the admin configured it: 1..80 of
 * [a-z0-9_-]. */
int	valid_channel_name(const char *s, size_t len, const char **why);
/*
 * A comment or message: valid UTF-8, no NUL, not empty and at most
 * max_chars characters, counted as code points (utf16 0) or as UTF-16
 * code units (utf16 1, as Notion counts).
 */
int	valid_text(const char *s, size_t len, size_t max_chars, int utf16,
	    const char **why);

#endif /* BNC_VALIDATE_H */
