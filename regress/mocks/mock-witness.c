/*
 * mock-witness.c - an MCP stdio server that acts on a call only if its
 * audit row was committed first, for regress/audit-first.sh.
 *
 *   mock-witness -D AUDIT.DB [-l LOG]
 *
 * DESIGN 9: "the row is committed before the call is forwarded".  Seen
 * from the upstream, that means: when a call arrives, a new read-only
 * connection to the audit log already finds an allow row whose tool and
 * args_sha256 are the call's.  On every tools/call, prompts/get and
 * resources/read this server opens the log read-only and looks for that
 * row.  Found, it answers "row SEQ"; not found, it answers a tool error
 * (a call) or a JSON-RPC error (a request), "no committed audit row", so
 * the client sees a call that overtook its own record.
 *
 * The digest is computed as monitor/audit.c computes it: SHA-256 of the
 * canonical JSON (common/value-json.c) of the call's arguments, or of a
 * request's params; arguments that carry a fresh nonce make the row
 * unique.  The surface: one tool "stamp" (a string "nonce"), one prompt
 * "brief" (an argument "nonce") and one resource template
 * "witness://{nonce}".
 *
 * This is test code.  It parses JSON with cJSON and links SQLite; it
 * must never be linked into, or installed with, any bouncer binary.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <sodium.h>
#include <sqlite3.h>

#include "buf.h"
#include "value.h"
#include "value-json.h"

static FILE		*logfp;
static const char	*dbpath;

static const char surface_tools[] =
    "[{\"name\":\"stamp\",\"description\":\"witness an audit row\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":"
    "{\"nonce\":{\"type\":\"string\"}}}}]";
static const char surface_prompts[] =
    "[{\"name\":\"brief\",\"arguments\":[{\"name\":\"nonce\"}]}]";
static const char surface_templates[] =
    "[{\"uriTemplate\":\"witness://{nonce}\",\"name\":\"slot\"}]";

static void
die(const char *msg)
{
	fprintf(stderr, "mock-witness: %s\n", msg);
	exit(2);
}

/* The value tree the monitor decoded from the same JSON. */
static struct value *
from_cjson(const cJSON *j)
{
	struct value *v;
	const cJSON *c;

	if (cJSON_IsNull(j))
		return value_null();
	if (cJSON_IsBool(j))
		return value_bool(cJSON_IsTrue(j));
	if (cJSON_IsNumber(j)) {
		if (j->valuedouble == (double)(int64_t)j->valuedouble)
			return value_int((int64_t)j->valuedouble);
		return value_double(j->valuedouble);
	}
	if (cJSON_IsString(j))
		return value_string(j->valuestring);
	if (cJSON_IsArray(j)) {
		v = value_array();
		cJSON_ArrayForEach(c, j)
			value_array_append(v, from_cjson(c));
		return v;
	}
	v = value_object();
	cJSON_ArrayForEach(c, j)
		value_object_put(v, c->string, from_cjson(c));
	return v;
}

/*
 * The seq of the committed allow row of tool with these arguments, or 0
 * if there is none yet.  A fresh connection each time: the question is
 * what any reader can see now, not what this one saw before.
 */
static int64_t
committed_row(const char *tool, const cJSON *args)
{
	uint8_t digest[crypto_hash_sha256_BYTES];
	char hex[2 * crypto_hash_sha256_BYTES + 1];
	struct buf *canon = buf_new();
	struct value *v = NULL;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int64_t seq = 0;

	if (args == NULL)
		goto out;
	v = from_cjson(args);
	if (value_render_canonical(canon, v) != 0)
		die("cannot encode the arguments");
	crypto_hash_sha256(digest, buf_ptr(canon), buf_len(canon));
	sodium_bin2hex(hex, sizeof(hex), digest, sizeof(digest));
	if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK || sqlite3_busy_timeout(db, 2000) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT seq FROM decisions WHERE "
	    "verdict = 'allow' AND tool = ?1 AND args_sha256 = ?2 AND "
	    "args_len = ?3 ORDER BY seq DESC LIMIT 1", -1, &st, NULL) !=
	    SQLITE_OK ||
	    sqlite3_bind_text(st, 1, tool, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(st, 2, hex, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_int64(st, 3, (sqlite3_int64)buf_len(canon)) !=
	    SQLITE_OK) {
		fprintf(stderr, "mock-witness: %s: %s\n", dbpath,
		    db != NULL ? sqlite3_errmsg(db) : "cannot open");
		goto out;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		seq = sqlite3_column_int64(st, 0);
 out:
	if (seq == 0)
		fprintf(stderr, "mock-witness: no committed allow row for "
		    "%s\n", tool);
	sqlite3_finalize(st);
	sqlite3_close(db);
	value_free(v);
	buf_free(canon);
	return seq;
}

static void
send_msg(const cJSON *id, const char *key, cJSON *body)
{
	cJSON *m = cJSON_CreateObject();
	char *s;

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1));
	cJSON_AddItemToObject(m, key, body);
	if ((s = cJSON_PrintUnformatted(m)) == NULL)
		die("cannot print");
	puts(s);
	fflush(stdout);
	free(s);
	cJSON_Delete(m);
}

static void
reply_parsed(const cJSON *id, const char *json)
{
	cJSON *r;

	if ((r = cJSON_Parse(json)) == NULL)
		die("bad built-in JSON");
	send_msg(id, "result", r);
}

static void
reply_missing(const cJSON *id)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddNumberToObject(e, "code", -32603);
	cJSON_AddStringToObject(e, "message", "no committed audit row");
	send_msg(id, "error", e);
}

/* {"content":[{"type":"text","text":TEXT}]}, with isError if is_error. */
static cJSON *
text_result(const char *text, int is_error)
{
	cJSON *r = cJSON_CreateObject(), *c = cJSON_CreateArray();
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	cJSON_AddItemToArray(c, b);
	cJSON_AddItemToObject(r, "content", c);
	if (is_error)
		cJSON_AddBoolToObject(r, "isError", 1);
	return r;
}

static void
m_initialize(const cJSON *id)
{
	reply_parsed(id, "{\"protocolVersion\":\"2025-11-25\","
	    "\"capabilities\":{\"tools\":{},\"prompts\":{},\"resources\":{}},"
	    "\"serverInfo\":{\"name\":\"mock-witness\",\"version\":\"1.0\"}}");
}

static void
m_list(const cJSON *id, const char *key, const char *items)
{
	cJSON *r = cJSON_CreateObject(), *a;

	if ((a = cJSON_Parse(items)) == NULL)
		die("bad built-in JSON");
	cJSON_AddItemToObject(r, key, a);
	send_msg(id, "result", r);
}

static void
m_tools_call(const cJSON *id, const cJSON *params)
{
	const char *name;
	char text[64];
	int64_t seq;

	name = cJSON_GetStringValue(cJSON_GetObjectItem(params, "name"));
	seq = committed_row(name != NULL ? name : "",
	    cJSON_GetObjectItem(params, "arguments"));
	if (seq == 0) {
		send_msg(id, "result", text_result("no committed audit row",
		    1));
		return;
	}
	snprintf(text, sizeof(text), "row %lld", (long long)seq);
	send_msg(id, "result", text_result(text, 0));
}

/* prompts/get and resources/read: the row's args are the params. */
static void
m_request(const cJSON *id, const char *method, const cJSON *params)
{
	cJSON *r, *a, *c, *t;
	const char *uri;
	char text[64];
	int64_t seq;

	if ((seq = committed_row(method, params)) == 0) {
		reply_missing(id);
		return;
	}
	snprintf(text, sizeof(text), "row %lld", (long long)seq);
	r = cJSON_CreateObject();
	a = cJSON_CreateArray();
	c = cJSON_CreateObject();
	if (strcmp(method, "prompts/get") == 0) {
		t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "type", "text");
		cJSON_AddStringToObject(t, "text", text);
		cJSON_AddStringToObject(c, "role", "user");
		cJSON_AddItemToObject(c, "content", t);
		cJSON_AddItemToArray(a, c);
		cJSON_AddItemToObject(r, "messages", a);
	} else {
		if ((uri = cJSON_GetStringValue(cJSON_GetObjectItem(params,
		    "uri"))) == NULL)
			uri = "";
		cJSON_AddStringToObject(c, "uri", uri);
		cJSON_AddStringToObject(c, "text", text);
		cJSON_AddItemToArray(a, c);
		cJSON_AddItemToObject(r, "contents", a);
	}
	send_msg(id, "result", r);
}

static void
handle(const cJSON *m)
{
	const cJSON *id = cJSON_GetObjectItem(m, "id");
	const cJSON *params = cJSON_GetObjectItem(m, "params");
	const char *method;

	method = cJSON_GetStringValue(cJSON_GetObjectItem(m, "method"));
	if (id == NULL || method == NULL)
		return;		/* a notification or an answer */
	if (strcmp(method, "initialize") == 0)
		m_initialize(id);
	else if (strcmp(method, "tools/list") == 0)
		m_list(id, "tools", surface_tools);
	else if (strcmp(method, "prompts/list") == 0)
		m_list(id, "prompts", surface_prompts);
	else if (strcmp(method, "resources/list") == 0)
		m_list(id, "resources", "[]");
	else if (strcmp(method, "resources/templates/list") == 0)
		m_list(id, "resourceTemplates", surface_templates);
	else if (strcmp(method, "tools/call") == 0)
		m_tools_call(id, params);
	else if (strcmp(method, "prompts/get") == 0 ||
	    strcmp(method, "resources/read") == 0)
		m_request(id, method, params);
	else
		send_msg(id, "result", cJSON_CreateObject());
}

int
main(int argc, char *argv[])
{
	char *line = NULL;
	size_t cap = 0;
	cJSON *m;
	int ch;

	while ((ch = getopt(argc, argv, "D:l:")) != -1) {
		switch (ch) {
		case 'D':
			dbpath = optarg;
			break;
		case 'l':
			if ((logfp = fopen(optarg, "a")) == NULL)
				die("cannot open the log");
			break;
		default:
			fprintf(stderr, "usage: mock-witness -D AUDIT.DB "
			    "[-l LOG]\n");
			return 2;
		}
	}
	if (dbpath == NULL)
		die("no audit database (-D)");
	if (sodium_init() == -1)
		die("libsodium did not initialise");
	while (getline(&line, &cap, stdin) > 0) {
		if (logfp != NULL) {
			fputs(line, logfp);
			fflush(logfp);
		}
		if ((m = cJSON_Parse(line)) == NULL)
			continue;
		handle(m);
		cJSON_Delete(m);
	}
	free(line);
	return 0;
}
