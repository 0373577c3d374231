/*
 * audit-append.c - appends rows to an audit log through monitor/audit.c.
 *
 * Test code for regress/audit.sh: the rows a scenario inspects must be
 * made by the real writer, never by hand.  It parses JSON with cJSON,
 * which the monitor never may; it is never installed.
 *
 *   audit-append -d STATE_DIR [-F] [-S] [-n N]
 *
 * Without -n, each line of stdin is one row as a JSON object with the
 * keys of struct audit_row (session, agent, upstream, tool, verdict,
 * contract, reason, args, sinks, nonce; a missing key is NULL).  With
 * -n, N synthetic rows cycle through three agents, tools and verdicts.
 * Prints the seq of each row appended; exits 1 at the first failure.
 * -F records full arguments, -S uses synchronous FULL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "audit.h"
#include "err.h"
#include "log.h"
#include "value.h"

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

static const char *
str(const cJSON *o, const char *k)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(j) ? j->valuestring : NULL;
}

static int
append_line(struct audit *a, const char *line)
{
	struct audit_row row;
	const cJSON *s, *j;
	const char *sinks[64];
	struct value *args = NULL;
	cJSON *o;
	int64_t seq;
	int r;

	if ((o = cJSON_Parse(line)) == NULL || !cJSON_IsObject(o)) {
		fprintf(stderr, "audit-append: not a JSON object: %s\n", line);
		cJSON_Delete(o);
		return -1;
	}
	memset(&row, 0, sizeof(row));
	row.session = str(o, "session");
	row.agent = str(o, "agent");
	row.upstream = str(o, "upstream");
	row.tool = str(o, "tool");
	row.verdict = str(o, "verdict");
	row.contract = str(o, "contract");
	row.reason = str(o, "reason");
	row.nonce = str(o, "nonce");
	if ((j = cJSON_GetObjectItemCaseSensitive(o, "args")) != NULL)
		row.args = args = from_cjson(j);
	s = cJSON_GetObjectItemCaseSensitive(o, "sinks");
	cJSON_ArrayForEach(j, s) {
		if (cJSON_IsString(j) && row.nsinks < 64)
			sinks[row.nsinks++] = j->valuestring;
	}
	row.sinks = sinks;
	if ((r = audit_append(a, &row, &seq)) != 0)
		fprintf(stderr, "audit-append: %s (%s)\n", bnc_err(r),
		    audit_errmsg(a));
	else
		printf("%lld\n", (long long)seq);
	value_free(args);
	cJSON_Delete(o);
	return r;
}

static int
append_synthetic(struct audit *a, int i)
{
	static const char *const agents[] = { "alice", "bob", "-" };
	static const char *const tools[] = { "read_file", "send_email",
	    "delete_file" };
	static const char *const verdicts[] = { "allow", "deny", "ask" };
	static const char *const contracts[] = { "default", "sink_gate",
	    "budget" };
	const char *sinks[] = { "to" };
	struct audit_row row;
	struct value *args;
	char buf[64];
	int64_t seq;
	int r;

	args = value_object();
	snprintf(buf, sizeof(buf), "user%d@example.com", i);
	value_object_put(args, "to", value_string(buf));
	snprintf(buf, sizeof(buf), "secret body %d", i);
	value_object_put(args, "body", value_string(buf));
	value_object_put(args, "n", value_int(i));
	memset(&row, 0, sizeof(row));
	row.session = "0123456789abcdef";
	row.agent = agents[i % 3];
	row.upstream = "mock";
	row.tool = tools[i % 3];
	row.verdict = verdicts[i % 3];
	row.contract = contracts[i % 3];
	snprintf(buf, sizeof(buf), "synthetic row %d", i);
	row.reason = buf;
	row.args = args;
	row.sinks = sinks;
	row.nsinks = 1;
	if ((r = audit_append(a, &row, &seq)) != 0)
		fprintf(stderr, "audit-append: %s (%s)\n", bnc_err(r),
		    audit_errmsg(a));
	else
		printf("%lld\n", (long long)seq);
	value_free(args);
	return r;
}

int
main(int argc, char **argv)
{
	struct audit *a = NULL;
	const char *dir = NULL;
	char err[1024], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ch, full = 0, n = -1, i, r = 0;
	enum audit_sync sync = AUDIT_SYNC_NORMAL;

	log_init("audit-append", LOG_LEVEL_INFO);
	while ((ch = getopt(argc, argv, "d:FSn:")) != -1) {
		switch (ch) {
		case 'd':
			dir = optarg;
			break;
		case 'F':
			full = 1;
			break;
		case 'S':
			sync = AUDIT_SYNC_FULL;
			break;
		case 'n':
			n = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (dir == NULL || optind != argc)
		goto usage;
	if ((r = audit_open(dir, sync, full, &a, err, sizeof(err))) != 0) {
		fprintf(stderr, "audit-append: %s\n", err);
		return 1;
	}
	if (n >= 0) {
		for (i = 1; i <= n && r == 0; i++)
			r = append_synthetic(a, i);
	} else {
		while (r == 0 && (len = getline(&line, &cap, stdin)) != -1) {
			if (len > 0 && line[len - 1] == '\n')
				line[--len] = '\0';
			if (len > 0)
				r = append_line(a, line);
		}
	}
	free(line);
	audit_close(a);
	return r == 0 ? 0 : 1;
 usage:
	fprintf(stderr, "usage: audit-append -d state_dir [-FS] [-n N]\n");
	return 1;
}
