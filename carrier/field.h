/*
 * field.h - strings from a vendor's answer made fit for a typed field:
 * valid UTF-8, capped, and, for a one-line field, without control or
 * format characters.
 */
#ifndef BNC_FIELD_H
#define BNC_FIELD_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct http_resp;
struct value;

enum field_mode {
	FIELD_TEXT = 0,		/* keeps newlines and tabs */
	FIELD_LINE = 1		/* drops every control and format char */
};

/*
 * s[0..len) cleaned into a new string of at most max bytes (the caller
 * frees it): a byte that is not UTF-8 becomes U+FFFD, a NUL is dropped,
 * and so, with FIELD_LINE, is every C0 or C1 control, DEL and bidi or
 * zero-width format character; a FIELD_TEXT keeps \t and \n only.  The
 * cut never splits a character.  *outlen may be NULL.
 */
char	*field_clean(const char *s, size_t len, size_t max, enum field_mode,
	    size_t *outlen);
/* A string value cleaned as above. */
struct value *field_value(const char *s, size_t max, enum field_mode);
/* The answer's body and its length; "" when there is none. */
const char *field_body(const struct http_resp *, size_t *lenp);
/* The body parsed as JSON (cJSON_Delete it), or NULL. */
cJSON	*field_json(const struct http_resp *);
/* o[key] when it is a string, else NULL (borrowed). */
const char *field_str(const cJSON *o, const char *key);
/* o[key] as a cleaned string value, or a null value when it is absent,
 * null or not a string. */
struct value *field_value_or_null(const cJSON *o, const char *key,
	    size_t max, enum field_mode);

#endif /* BNC_FIELD_H */
