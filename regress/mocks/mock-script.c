/*
 * mock-script.c - an MCP stdio server whose surface and answers come from
 * a JSON script, for the scenarios that need tools, prompts or resources
 * of a given shape (schemas with reply_to or headers, look-alike names,
 * poisoned outputs in any part of a result).
 *
 *   mock-script -s SCRIPT.json [-l LOG]
 *
 * SCRIPT is one JSON object; every key is optional:
 *
 *   serverInfo         initialize's serverInfo
 *   instructions       initialize's instructions
 *   capabilities       added to (or replacing) the capabilities that
 *                      initialize declares for what the script has
 *   tools              the tools/list array, served in one page
 *   results            tool name -> its CallToolResult; a string is sent
 *                      as raw JSON text (to send what cJSON would not
 *                      build, such as a duplicate key)
 *   cases              tool name -> a list of {"arguments": {...},
 *                      "result": ...}: the first case whose arguments
 *                      all equal the call's same-named arguments answers
 *                      (a result as in results), before results and
 *                      errors; so one tool returns one text per message
 *                      id or path
 *   rugpull            tool name -> a tools array: a call of that tool
 *                      replaces the tools/list array with it and
 *                      announces notifications/tools/list_changed
 *                      before its answer (a rug pull after pinning)
 *   errors             tool name -> a JSON-RPC error object for it
 *   prompts            the prompts/list array
 *   prompt_results     prompt name -> its GetPromptResult
 *   resources          the resources/list array
 *   templates          the resources/templates/list array
 *   contents           uri -> its ReadResourceResult
 *   completion         the completion/complete result
 *   emit               tool name -> true: a call of that tool first
 *                      writes the bytes of the file its argument "file"
 *                      names to stdout, as they are, each "@ID@" in them
 *                      replaced by the call's id (to send what no JSON
 *                      library would: broken encodings, bad frames,
 *                      answers to that very call); then it answers
 *
 * A tool without a scripted result answers with one text block
 * "NAME ARGUMENTS-JSON", so a scenario sees exactly what was forwarded;
 * a resource URI without scripted contents answers one text content
 * "read URI"; a prompt without a scripted result one user message
 * "prompt NAME ARGUMENTS-JSON".  Capabilities are declared for what the
 * script has.  Every line received is appended to LOG.
 *
 * This is test code.  It parses JSON with cJSON directly, and it must
 * never be linked into, or installed with, any bouncer binary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

static FILE	*logfp;
static cJSON	*script;
static cJSON	*tools_now;	/* the tools/list array, after any rug pull */

static void
die(const char *msg)
{
	fprintf(stderr, "mock-script: %s\n", msg);
	exit(2);
}

static void
put_line(const char *s)
{
	fputs(s, stdout);
	fputc('\n', stdout);
	fflush(stdout);
}

/* {"jsonrpc":"2.0","id":ID,"result":RESULT}; result is consumed. */
static void
reply(const cJSON *id, cJSON *result)
{
	cJSON *m = cJSON_CreateObject();
	char *s;

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1));
	cJSON_AddItemToObject(m, "result", result);
	if ((s = cJSON_PrintUnformatted(m)) == NULL)
		die("cannot print");
	put_line(s);
	free(s);
	cJSON_Delete(m);
}

/* The result as raw JSON text, byte for byte as the script wrote it. */
static void
reply_raw(const cJSON *id, const char *raw)
{
	char *ids;

	if ((ids = cJSON_PrintUnformatted(id)) == NULL)
		die("cannot print");
	printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n", ids, raw);
	fflush(stdout);
	free(ids);
}

static void
reply_error(const cJSON *id, const cJSON *err)
{
	cJSON *m = cJSON_CreateObject();
	char *s;

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1));
	cJSON_AddItemToObject(m, "error", cJSON_Duplicate(err, 1));
	if ((s = cJSON_PrintUnformatted(m)) == NULL)
		die("cannot print");
	put_line(s);
	free(s);
	cJSON_Delete(m);
}

/* script[section][name], or NULL. */
static const cJSON *
scripted(const char *section, const char *name)
{
	const cJSON *sec = cJSON_GetObjectItemCaseSensitive(script, section);

	if (name == NULL || !cJSON_IsObject(sec))
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(sec, name);
}

/* Answers with a scripted value (raw if a string), else with dflt. */
static void
answer(const cJSON *id, const cJSON *v, cJSON *dflt)
{
	if (cJSON_IsString(v)) {
		reply_raw(id, v->valuestring);
		cJSON_Delete(dflt);
	} else if (v != NULL) {
		reply(id, cJSON_Duplicate(v, 1));
		cJSON_Delete(dflt);
	} else
		reply(id, dflt);
}

/* {"content":[{"type":"text","text":TEXT}]} */
static cJSON *
text_result(const char *text)
{
	cJSON *r = cJSON_CreateObject(), *c = cJSON_CreateArray();
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	cJSON_AddItemToArray(c, b);
	cJSON_AddItemToObject(r, "content", c);
	return r;
}

/* "WHAT NAME ARGS-JSON" */
static char *
echo_text(const char *what, const char *name, const cJSON *args)
{
	char *a = NULL, *t;
	size_t n;

	if (args != NULL && (a = cJSON_PrintUnformatted(args)) == NULL)
		die("cannot print");
	n = strlen(what) + strlen(name) + (a != NULL ? strlen(a) : 2) + 3;
	if ((t = malloc(n)) == NULL)
		die("out of memory");
	snprintf(t, n, "%s%s%s %s", what, *what != '\0' ? " " : "", name,
	    a != NULL ? a : "{}");
	free(a);
	return t;
}

static void
m_initialize(const cJSON *id, const cJSON *params)
{
	cJSON *r = cJSON_CreateObject(), *caps = cJSON_CreateObject();
	const cJSON *v, *c;

	(void)params;
	cJSON_AddStringToObject(r, "protocolVersion", "2025-11-25");
	cJSON_AddItemToObject(caps, "tools",
	    cJSON_Parse("{\"listChanged\":true}"));
	if (cJSON_GetObjectItem(script, "prompts") != NULL)
		cJSON_AddItemToObject(caps, "prompts", cJSON_CreateObject());
	if (cJSON_GetObjectItem(script, "resources") != NULL ||
	    cJSON_GetObjectItem(script, "templates") != NULL)
		cJSON_AddItemToObject(caps, "resources",
		    cJSON_Parse("{\"subscribe\":true}"));
	if (cJSON_GetObjectItem(script, "completion") != NULL)
		cJSON_AddItemToObject(caps, "completions",
		    cJSON_CreateObject());
	v = cJSON_GetObjectItem(script, "capabilities");
	cJSON_ArrayForEach(c, v) {
		cJSON_DeleteItemFromObjectCaseSensitive(caps, c->string);
		cJSON_AddItemToObject(caps, c->string, cJSON_Duplicate(c, 1));
	}
	cJSON_AddItemToObject(r, "capabilities", caps);
	if ((v = cJSON_GetObjectItem(script, "serverInfo")) != NULL)
		cJSON_AddItemToObject(r, "serverInfo", cJSON_Duplicate(v, 1));
	else
		cJSON_AddItemToObject(r, "serverInfo", cJSON_Parse(
		    "{\"name\":\"mock-script\",\"version\":\"1.0\"}"));
	if ((v = cJSON_GetObjectItem(script, "instructions")) != NULL)
		cJSON_AddItemToObject(r, "instructions",
		    cJSON_Duplicate(v, 1));
	reply(id, r);
}

/* {KEY: script[section] or []} */
static void
list(const cJSON *id, const char *section, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(script, section);
	cJSON *r = cJSON_CreateObject();

	cJSON_AddItemToObject(r, key, v != NULL ? cJSON_Duplicate(v, 1) :
	    cJSON_CreateArray());
	reply(id, r);
}

/* The first case of tool NAME whose "arguments" all match ARGS, or NULL. */
static const cJSON *
scripted_case(const char *name, const cJSON *args)
{
	const cJSON *c, *want, *w;
	int ok;

	cJSON_ArrayForEach(c, scripted("cases", name)) {
		want = cJSON_GetObjectItemCaseSensitive(c, "arguments");
		ok = 1;
		cJSON_ArrayForEach(w, want) {
			if (!cJSON_Compare(w, cJSON_GetObjectItemCaseSensitive(
			    args, w->string), 1)) {
				ok = 0;
				break;
			}
		}
		if (ok)
			return cJSON_GetObjectItemCaseSensitive(c, "result");
	}
	return NULL;
}

/* Announces a notification without params. */
static void
notify(const char *method)
{
	printf("{\"jsonrpc\":\"2.0\",\"method\":\"%s\"}\n", method);
	fflush(stdout);
}

/* The bytes of path to stdout, each "@ID@" the call's id as JSON. */
static void
emit(const cJSON *id, const char *path)
{
	static const char mark[] = "@ID@";
	char *ids, *buf, *p, *end, *at;
	FILE *f;
	long n;

	if (path == NULL || (ids = cJSON_PrintUnformatted(id)) == NULL)
		die("emit: no file, or an id that does not print");
	if ((f = fopen(path, "rb")) == NULL || fseek(f, 0, SEEK_END) != 0 ||
	    (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    (buf = malloc((size_t)n + 1)) == NULL ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n)
		die("emit: cannot read the file");
	fclose(f);
	end = buf + n;
	/* memmem, not strstr: the bytes may hold a NUL */
	for (p = buf; p < end; p = at + sizeof(mark) - 1) {
		if ((at = memmem(p, (size_t)(end - p), mark,
		    sizeof(mark) - 1)) == NULL) {
			fwrite(p, 1, (size_t)(end - p), stdout);
			break;
		}
		fwrite(p, 1, (size_t)(at - p), stdout);
		fputs(ids, stdout);
	}
	fflush(stdout);
	free(buf);
	free(ids);
}

static void
m_tools_call(const cJSON *id, const cJSON *params)
{
	const char *name;
	const cJSON *err, *c, *pull, *args;
	char *t;

	name = cJSON_GetStringValue(cJSON_GetObjectItem(params, "name"));
	if (name == NULL)
		name = "";
	args = cJSON_GetObjectItem(params, "arguments");
	if (cJSON_IsTrue(scripted("emit", name)))
		emit(id, cJSON_GetStringValue(cJSON_GetObjectItem(args,
		    "file")));
	if ((pull = scripted("rugpull", name)) != NULL) {
		/* announced before the answer, as mock-upstream's rugpull */
		cJSON_Delete(tools_now);
		tools_now = cJSON_Duplicate(pull, 1);
		notify("notifications/tools/list_changed");
	}
	if ((c = scripted_case(name, args)) != NULL) {
		answer(id, c, NULL);
		return;
	}
	if ((err = scripted("errors", name)) != NULL) {
		reply_error(id, err);
		return;
	}
	t = echo_text("", name, args);
	answer(id, scripted("results", name), text_result(t));
	free(t);
}

static void
m_prompts_get(const cJSON *id, const cJSON *params)
{
	const char *name;
	cJSON *r, *msgs, *msg, *content;
	char *t;

	name = cJSON_GetStringValue(cJSON_GetObjectItem(params, "name"));
	if (name == NULL)
		name = "";
	t = echo_text("prompt", name, cJSON_GetObjectItem(params,
	    "arguments"));
	content = cJSON_CreateObject();
	cJSON_AddStringToObject(content, "type", "text");
	cJSON_AddStringToObject(content, "text", t);
	msg = cJSON_CreateObject();
	cJSON_AddStringToObject(msg, "role", "user");
	cJSON_AddItemToObject(msg, "content", content);
	msgs = cJSON_CreateArray();
	cJSON_AddItemToArray(msgs, msg);
	r = cJSON_CreateObject();
	cJSON_AddItemToObject(r, "messages", msgs);
	free(t);
	answer(id, scripted("prompt_results", name), r);
}

static void
m_resources_read(const cJSON *id, const cJSON *params)
{
	const char *uri;
	cJSON *r, *arr, *c;
	char *t;
	size_t n;

	uri = cJSON_GetStringValue(cJSON_GetObjectItem(params, "uri"));
	if (uri == NULL)
		uri = "";
	n = strlen(uri) + sizeof("read ");
	if ((t = malloc(n)) == NULL)
		die("out of memory");
	snprintf(t, n, "read %s", uri);
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "uri", uri);
	cJSON_AddStringToObject(c, "mimeType", "text/plain");
	cJSON_AddStringToObject(c, "text", t);
	arr = cJSON_CreateArray();
	cJSON_AddItemToArray(arr, c);
	r = cJSON_CreateObject();
	cJSON_AddItemToObject(r, "contents", arr);
	free(t);
	answer(id, scripted("contents", uri), r);
}

static void
m_completion(const cJSON *id, const cJSON *params)
{
	(void)params;
	answer(id, cJSON_GetObjectItem(script, "completion"), cJSON_Parse(
	    "{\"completion\":{\"values\":[],\"hasMore\":false}}"));
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
		m_initialize(id, params);
	else if (strcmp(method, "tools/list") == 0) {
		if (tools_now != NULL) {
			cJSON *r = cJSON_CreateObject();

			cJSON_AddItemToObject(r, "tools",
			    cJSON_Duplicate(tools_now, 1));
			reply(id, r);
		} else
			list(id, "tools", "tools");
	}
	else if (strcmp(method, "tools/call") == 0)
		m_tools_call(id, params);
	else if (strcmp(method, "prompts/list") == 0)
		list(id, "prompts", "prompts");
	else if (strcmp(method, "prompts/get") == 0)
		m_prompts_get(id, params);
	else if (strcmp(method, "resources/list") == 0)
		list(id, "resources", "resources");
	else if (strcmp(method, "resources/templates/list") == 0)
		list(id, "templates", "resourceTemplates");
	else if (strcmp(method, "resources/read") == 0)
		m_resources_read(id, params);
	else if (strcmp(method, "completion/complete") == 0)
		m_completion(id, params);
	else
		reply(id, cJSON_CreateObject());
}

static char *
slurp(const char *path)
{
	FILE *f;
	char *buf;
	long n;

	if ((f = fopen(path, "rb")) == NULL || fseek(f, 0, SEEK_END) != 0 ||
	    (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		die("cannot read the script");
	if ((buf = malloc((size_t)n + 1)) == NULL)
		die("out of memory");
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		die("cannot read the script");
	buf[n] = '\0';
	fclose(f);
	return buf;
}

int
main(int argc, char *argv[])
{
	char *line = NULL, *text;
	size_t cap = 0;
	ssize_t n;
	cJSON *m;
	int ch;

	while ((ch = getopt(argc, argv, "l:s:")) != -1) {
		switch (ch) {
		case 'l':
			if ((logfp = fopen(optarg, "a")) == NULL)
				die("cannot open the log");
			break;
		case 's':
			text = slurp(optarg);
			if ((script = cJSON_Parse(text)) == NULL ||
			    !cJSON_IsObject(script))
				die("the script is not a JSON object");
			free(text);
			break;
		default:
			fprintf(stderr, "usage: mock-script -s SCRIPT.json "
			    "[-l LOG]\n");
			return 2;
		}
	}
	if (script == NULL)
		die("no script (-s)");
	while ((n = getline(&line, &cap, stdin)) > 0) {
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
	cJSON_Delete(tools_now);
	cJSON_Delete(script);
	return 0;
}
