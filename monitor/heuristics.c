/*
 * heuristics.c - a policy guessed from a tool's name and input schema,
 * for tools no user entry and no pack covers (DESIGN 5, seed 11).
 *
 * Destination-shaped parameter names make a tool exfiltrating; delete-like
 * verbs in the tool name give it a budget of 2; write-like verbs declare
 * its path parameters.  Names are split into words (on anything that is
 * not a letter or digit, and at camel-case humps) and matched word by
 * word, never as substrings: "confirm_order" holds no "rm".  It must
 * never widen what a user entry or a pack says: it runs only when neither
 * has an entry for the tool.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "schema.h"
#include "value.h"
#include "xmalloc.h"

#define WORDS_MAX	64	/* words of a name we look at */
#define WORD_MAX	32	/* bytes of a word; longer ones never match */

struct words {
	size_t	n;
	int	overflow;		/* more than WORDS_MAX words */
	char	w[WORDS_MAX][WORD_MAX];
};

/*
 * Destination-shaped names (DESIGN 5).  A name is split into words and
 * matched by its words, never by substrings: "tochannel" is one word.
 * The heuristics' names make an unknown tool exfiltrating; the gate's
 * names add the sender and reply fields and raw headers, which a server
 * acts on when it sends, but which also name filters of tools that only
 * read (search_emails(sender)), so they make no tool exfiltrating alone.
 */

/* A parameter whose whole name (words joined by '_') is one of these, */
static const char *const dest_exact[] = {
	"to", "cc", "bcc", "recipient", "recipients", "url", "urls", "uri",
	"uris", "email", "emails", "address", "addresses", "channel",
	"channels", "share_with", "shared_with", "send_to", "reply_to",
	"forward_to", "to_number", "webhook", "webhooks", "endpoint", "host",
	"hostname", "participants", "attendees", "invitees", "phone",
	"destination", "destinations", "target", "targets", "link", "links",
	"mailto",
};

/* ... or whose last word is one of these (to_email, webhookUrl), ... */
static const char *const dest_last[] = {
	"recipient", "recipients", "email", "emails", "url", "urls", "uri",
	"uris", "address", "addresses", "webhook", "webhooks", "channel",
	"channels", "host", "hostname", "endpoint", "endpoints", "destination",
	"destinations", "link", "links", "phone", "phones",
};

/* ... or whose last two words are one of these (channelId, emailTo), ... */
static const char *const dest_last2[] = {
	"channel_id", "channel_ids", "channel_name", "channel_names",
	"recipient_id", "recipient_ids", "chat_id", "phone_number",
	"phone_numbers", "email_to", "mail_to", "send_to", "forward_to",
	"reply_to", "copy_to", "share_to", "deliver_to", "post_to",
	"message_to", "notify_to", "sms_to", "text_to", "push_target",
};

/* ... or whose first word is one of these (to_phone, webhook_endpoint), */
static const char *const dest_first[] = {
	"to", "cc", "bcc", "recipient", "recipients", "destination",
	"webhook", "callback", "redirect",
};

/* ... unless its first word names the sender, or a message replied to
 * (in_reply_to is a Message-ID), not a destination. */
static const char *const dest_not_first[] = {
	"from", "sender", "in",
};

/* The gate's sinks beyond those (whole names, words joined by '_'). */
static const char *const gate_exact[] = {
	"from", "sender", "reply_to", "webhook",
	"callback", "redirect", "return_path", "sender_email",
	"from_email", "from_address", "sender_address",
};

/* ... and last words (on_callback, success_redirect). */
static const char *const gate_last[] = {
	"callback", "callbacks", "redirect", "redirects",
};

/* Header-like: raw headers, and the subject a mail's headers carry. */
static const char *const header_exact[] = {
	"headers", "header", "subject",
};
static const char *const header_last[] = {
	"headers", "header",
};

/* Verbs in a tool name (seed 11 lists, plus a few synonyms). */
static const char *const write_verbs[] = {
	"write", "create", "save", "put", "upload", "edit", "append", "move",
	"copy", "rename", "mkdir",
};
static const char *const delete_verbs[] = {
	"delete", "remove", "rm", "rmdir", "drop", "erase", "purge",
	"destroy", "trash", "wipe", "unlink",
};

/* Path parameters of a write-like tool (whole name, words joined). */
static const char *const path_params[] = {
	"path", "file_path", "filepath", "filename", "file_name", "dest",
	"destination", "dest_path", "destination_path", "target_path",
	"output_path",
};

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static int
in_table(const char *s, const char *const *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(s, t[i]) == 0)
			return 1;
	return 0;
}

static int
is_upper(unsigned char c)
{
	return c >= 'A' && c <= 'Z';
}

static int
is_lower(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || c >= 0x80;
}

static int
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Words of a name, lower-cased: "deleteFile" and "delete-file" are both
 * delete, file; "HTTPServer" is http, server; "API-patch-page" is api,
 * patch, page; "s3put" is s, 3, put.  Bytes >= 0x80 belong to words and
 * never match a table.
 */
static void
split_words(const char *name, struct words *ws)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t i, len = 0;
	int in = 0;

	memset(ws, 0, sizeof(*ws));
	for (i = 0; s[i] != '\0'; i++) {
		unsigned char c = s[i];
		int start = 0;

		if (!is_upper(c) && !is_lower(c) && !is_digit(c)) {
			in = 0;
			continue;
		}
		if (!in)
			start = 1;
		else if (is_digit(c) != is_digit(s[i - 1]))
			start = 1;
		else if (is_upper(c) && is_lower(s[i - 1]))
			start = 1;
		else if (is_upper(c) && is_upper(s[i - 1]) &&
		    is_lower(s[i + 1]) && s[i + 1] < 0x80)
			start = 1;
		if (start) {
			if (ws->n == WORDS_MAX) {
				ws->overflow = 1;
				return;
			}
			ws->n++;
			len = 0;
			in = 1;
		}
		if (len + 1 < WORD_MAX) {
			ws->w[ws->n - 1][len++] = is_upper(c) ? c - 'A' + 'a' :
			    (char)c;
			ws->w[ws->n - 1][len] = '\0';
		} else
			ws->w[ws->n - 1][0] = '\x01';	/* matches nothing */
	}
}

/* The words from index first on, joined by '_', if they fit. */
static int
join_words(const struct words *ws, size_t first, char *out, size_t outlen)
{
	size_t i, o = 0, l;

	out[0] = '\0';
	for (i = first; i < ws->n; i++) {
		l = strlen(ws->w[i]);
		if (o + l + 2 > outlen)
			return -1;
		if (i > first)
			out[o++] = '_';
		memcpy(out + o, ws->w[i], l + 1);
		o += l;
	}
	return 0;
}

/* The words of a name, and the name joined by '_'; 0 if none fit. */
static int
name_words(const char *param, struct words *ws, char *joined, size_t len)
{
	if (param == NULL)
		return 0;
	split_words(param, ws);
	return ws->n > 0 && !ws->overflow &&
	    join_words(ws, 0, joined, len) == 0;
}

static int
dest_words(const struct words *ws, const char *joined)
{
	char last2[2 * WORD_MAX + 2];

	if (in_table(ws->w[0], dest_not_first, NELEM(dest_not_first)))
		return 0;
	if (in_table(joined, dest_exact, NELEM(dest_exact)) ||
	    in_table(ws->w[ws->n - 1], dest_last, NELEM(dest_last)) ||
	    (ws->n >= 2 && in_table(ws->w[0], dest_first, NELEM(dest_first))))
		return 1;
	return ws->n >= 2 && join_words(ws, ws->n - 2, last2,
	    sizeof(last2)) == 0 && in_table(last2, dest_last2,
	    NELEM(dest_last2));
}

int
heuristics_dest_name(const char *param)
{
	struct words ws;
	char joined[WORDS_MAX * WORD_MAX];

	if (!name_words(param, &ws, joined, sizeof(joined)))
		return 0;
	return dest_words(&ws, joined);
}

int
heuristics_name_class(const char *param)
{
	struct words ws;
	char joined[WORDS_MAX * WORD_MAX];
	int c = 0;

	if (!name_words(param, &ws, joined, sizeof(joined)))
		return 0;
	if (dest_words(&ws, joined))
		c |= NAME_DEST | NAME_SINK;
	if (in_table(joined, gate_exact, NELEM(gate_exact)) ||
	    in_table(ws.w[ws.n - 1], gate_last, NELEM(gate_last)))
		c |= NAME_SINK;
	if (in_table(joined, header_exact, NELEM(header_exact)) ||
	    in_table(ws.w[ws.n - 1], header_last, NELEM(header_last)))
		c |= NAME_HEADER;
	/* a set of raw headers: a server passes on whatever it holds */
	if ((c & NAME_HEADER) && strcmp(ws.w[ws.n - 1], "subject") != 0)
		c |= NAME_HEADERS;
	return c;
}

static int
has_verb(const struct words *ws, const char *const *verbs, size_t n)
{
	size_t i;

	for (i = 0; i < ws->n; i++)
		if (in_table(ws->w[i], verbs, n))
			return 1;
	return 0;
}

static int
is_path_param(const char *param)
{
	struct words ws;
	char joined[WORDS_MAX * WORD_MAX];

	return name_words(param, &ws, joined, sizeof(joined)) &&
	    in_table(joined, path_params, NELEM(path_params));
}

static void
push(char ***vec, size_t *n, const char *s)
{
	*vec = xreallocarray(*vec, *n + 1, sizeof(**vec));
	(*vec)[(*n)++] = xstrdup(s);
}

int
heuristics_derive(struct tool_policy *tp, const char *tool,
    const struct value *schema)
{
	struct schema_props props;
	struct words ws;
	size_t i;
	int writes;

	/* through $ref and allOf/anyOf/oneOf, as servers write them */
	schema_props_get(schema, &props);
	split_words(tool != NULL ? tool : "", &ws);
	writes = has_verb(&ws, write_verbs, NELEM(write_verbs));
	for (i = 0; i < props.n; i++) {
		if (heuristics_dest_name(props.names[i]))
			push(&tp->sink_params, &tp->nsink, props.names[i]);
		if (writes && is_path_param(props.names[i]))
			push(&tp->write_params, &tp->nwrite, props.names[i]);
	}
	schema_props_free(&props);
	tp->exfiltrating = tp->nsink > 0;
	if (has_verb(&ws, delete_verbs, NELEM(delete_verbs)))
		tp->max_calls = 2;
	return tp->exfiltrating || tp->nwrite > 0 || tp->max_calls >= 0;
}
