/*
 * upstream.c - the fake MCP server of the AgentDojo replay: it serves a
 * suite's recorded tool surface and answers each tools/call with the
 * recorded result of one call of one trace.
 *
 *   upstream -t TOOLS.json -T TRACE.json -c CURSOR [-l SERVED]
 *
 * TOOLS.json is {"tools": [...]}, served whole by tools/list.  TRACE.json
 * is one trace record (bench/agentdojo/data/README.md).  CURSOR is a file
 * that bench/agentdojo/replay rewrites before each call with the index i
 * of the call it is about to send: a call that bouncer blocks never
 * reaches this server, so the index cannot be counted here.  A tools/call
 * must then be calls[i] exactly (the same name, arguments equal as JSON
 * values); it is answered with calls[i].output as one text block, or with
 * calls[i].error as an isError result, and i is appended to SERVED.  Any
 * other call is a broken replay: it gets the JSON-RPC error -32000 with a
 * message starting "replay:", which the replay treats as fatal.
 *
 * This is benchmark code.  It parses JSON with cJSON directly, and it must
 * never be linked into, or installed with, any bouncer binary.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#define UP_PROTOCOL	"2025-11-25"
#define UP_FILE_MAX	(64L * 1024 * 1024)	/* a tools or trace file */

static cJSON		*tools;		/* the tools/list result */
static cJSON		*calls;		/* the trace's calls array */
static const char	*cursor_path;
static FILE		*served;

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "agentdojo upstream: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* The file's bytes, NUL-terminated; the caller frees them. */
static char *
slurp(const char *path)
{
	FILE *f;
	char *buf;
	long n;

	if ((f = fopen(path, "rb")) == NULL)
		die("%s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0)
		die("%s: cannot size it", path);
	if (n > UP_FILE_MAX)
		die("%s: over %ld bytes", path, UP_FILE_MAX);
	if ((buf = malloc((size_t)n + 1)) == NULL)
		die("out of memory");
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		die("%s: short read", path);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static cJSON *
load_json(const char *path)
{
	char *text = slurp(path);
	cJSON *v;

	if ((v = cJSON_Parse(text)) == NULL)
		die("%s: not JSON", path);
	free(text);
	return v;
}

/* Sends {"jsonrpc":"2.0","id":ID,KEY:VALUE}; value is consumed. */
static void
send_msg(const cJSON *id, const char *key, cJSON *value)
{
	cJSON *m = cJSON_CreateObject();
	char *s;

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1));
	cJSON_AddItemToObject(m, key, value);
	if ((s = cJSON_PrintUnformatted(m)) == NULL)
		die("cannot print an answer");
	if (puts(s) == EOF || fflush(stdout) == EOF)
		die("stdout: %s", strerror(errno));
	free(s);
	cJSON_Delete(m);
}

static void
send_error(const cJSON *id, int code, const char *msg)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	send_msg(id, "error", e);
}

/* The index the replay wrote to the cursor file, or -1. */
static long
cursor(void)
{
	char buf[32], *end;
	FILE *f;
	long i;

	if ((f = fopen(cursor_path, "r")) == NULL)
		return -1;
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	fclose(f);
	errno = 0;
	i = strtol(buf, &end, 10);
	if (errno != 0 || end == buf || (*end != '\n' && *end != '\0') ||
	    i < 0)
		return -1;
	return i;
}

static void
m_initialize(const cJSON *id, const cJSON *params)
{
	const char *v;
	cJSON *r = cJSON_CreateObject(), *caps = cJSON_CreateObject();

	v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params,
	    "protocolVersion"));
	cJSON_AddStringToObject(r, "protocolVersion", v != NULL ? v :
	    UP_PROTOCOL);
	cJSON_AddItemToObject(caps, "tools", cJSON_CreateObject());
	cJSON_AddItemToObject(r, "capabilities", caps);
	cJSON_AddItemToObject(r, "serverInfo", cJSON_Parse(
	    "{\"name\":\"agentdojo-replay\",\"version\":\"1\"}"));
	send_msg(id, "result", r);
}

static void
m_tools_call(const cJSON *id, const cJSON *params)
{
	const cJSON *c, *args, *want, *out, *err;
	cJSON *r, *content, *block, *none = NULL;
	const char *name, *tool, *text;
	char msg[256];
	long i;

	name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params,
	    "name"));
	if ((args = cJSON_GetObjectItemCaseSensitive(params,
	    "arguments")) == NULL)
		args = none = cJSON_CreateObject();
	if ((i = cursor()) < 0 || i >= cJSON_GetArraySize(calls)) {
		snprintf(msg, sizeof(msg), "replay: no call at the cursor "
		    "(%ld) for %s", i, name != NULL ? name : "(no name)");
		goto bad;
	}
	c = cJSON_GetArrayItem(calls, (int)i);
	tool = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c,
	    "tool"));
	want = cJSON_GetObjectItemCaseSensitive(c, "args");
	if (name == NULL || tool == NULL || strcmp(name, tool) != 0) {
		snprintf(msg, sizeof(msg), "replay: call %ld is %s, got %s",
		    i, tool != NULL ? tool : "?", name != NULL ? name : "?");
		goto bad;
	}
	if (want == NULL || !cJSON_Compare(want, args, 1)) {
		snprintf(msg, sizeof(msg), "replay: call %ld (%s): the "
		    "arguments differ from the trace's", i, tool);
		goto bad;
	}
	out = cJSON_GetObjectItemCaseSensitive(c, "output");
	err = cJSON_GetObjectItemCaseSensitive(c, "error");
	text = cJSON_IsString(err) ? err->valuestring :
	    cJSON_IsString(out) ? out->valuestring : "";
	r = cJSON_CreateObject();
	content = cJSON_AddArrayToObject(r, "content");
	block = cJSON_CreateObject();
	cJSON_AddStringToObject(block, "type", "text");
	cJSON_AddStringToObject(block, "text", text);
	cJSON_AddItemToArray(content, block);
	if (cJSON_IsString(err))
		cJSON_AddTrueToObject(r, "isError");
	if (served != NULL && (fprintf(served, "%ld\n", i) < 0 ||
	    fflush(served) == EOF))
		die("the served log: %s", strerror(errno));
	send_msg(id, "result", r);
	cJSON_Delete(none);
	return;
 bad:
	fprintf(stderr, "agentdojo upstream: %s\n", msg);
	send_error(id, -32000, msg);
	cJSON_Delete(none);
}

static void
handle(const cJSON *m)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(m, "params");
	const char *method;

	method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m,
	    "method"));
	if (id == NULL || method == NULL)
		return;		/* a notification or an answer */
	if (strcmp(method, "initialize") == 0)
		m_initialize(id, params);
	else if (strcmp(method, "tools/list") == 0)
		send_msg(id, "result", cJSON_Duplicate(tools, 1));
	else if (strcmp(method, "tools/call") == 0)
		m_tools_call(id, params);
	else if (strcmp(method, "ping") == 0)
		send_msg(id, "result", cJSON_CreateObject());
	else
		send_error(id, -32601, "method not found");
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: upstream -t TOOLS.json -T TRACE.json "
	    "-c CURSOR [-l SERVED]\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	const char *tools_path = NULL, *trace_path = NULL;
	cJSON *trace, *m;
	char *line = NULL;
	size_t cap = 0;
	int ch;

	while ((ch = getopt(argc, argv, "c:l:T:t:")) != -1) {
		switch (ch) {
		case 'c':
			cursor_path = optarg;
			break;
		case 'l':
			if ((served = fopen(optarg, "a")) == NULL)
				die("%s: %s", optarg, strerror(errno));
			break;
		case 'T':
			trace_path = optarg;
			break;
		case 't':
			tools_path = optarg;
			break;
		default:
			usage();
		}
	}
	if (tools_path == NULL || trace_path == NULL || cursor_path == NULL ||
	    optind != argc)
		usage();
	tools = load_json(tools_path);
	if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(tools, "tools")))
		die("%s: no tools array", tools_path);
	trace = load_json(trace_path);
	calls = cJSON_GetObjectItemCaseSensitive(trace, "calls");
	if (!cJSON_IsArray(calls))
		die("%s: no calls array", trace_path);
	while (getline(&line, &cap, stdin) > 0) {
		if ((m = cJSON_Parse(line)) == NULL)
			continue;
		handle(m);
		cJSON_Delete(m);
	}
	free(line);
	cJSON_Delete(trace);
	cJSON_Delete(tools);
	if (served != NULL)
		fclose(served);
	return 0;
}
