/*
 * fuzz_policy.c - libFuzzer harness for the administrator's YAML:
 * monitor/yaml-tree.c and the policy loader, monitor/policy.c.
 *
 * The input is a whole policy file.  yaml_load_buf reads it from memory;
 * policy.h has no loader for a buffer, so the same bytes are written to
 * a file under /dev/shm (or TMPDIR when /dev/shm is missing) and loaded
 * twice into one policy, as a pack and then as the user's policy, so
 * every entry is shadowed by its own copy.  Then every lookup a loaded
 * policy answers is asked: policy_for, policy_forbidden, the patterns
 * and trusted destinations of each entry against the entry's own
 * strings, and policy_lint.  Checked: a file yaml-tree refuses is
 * refused, a refusal names the file, the user layer wins, and a
 * forbidden mark is never lost: a tool's is policy_forbidden's, a
 * prompt's policy_request_forbidden's.  It must never write anywhere but its
 * one scratch file.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounds.h"
#include "err.h"
#include "fuzz.h"
#include "policy.h"
#include "yaml-tree.h"

static void
warn_cb(const char *msg, void *arg)
{
	FUZZ_CHECK(msg != NULL && *msg != '\0');
	++*(int *)arg;
}

/* The upstream of "upstream:tool", as policy.h defines qualifying. */
static char *
qualifier(const char *name, const char **tool)
{
	const char *c = strchr(name, ':');
	size_t i, n;

	*tool = name;
	if (c == NULL || c[1] == '\0' || (n = (size_t)(c - name)) == 0 ||
	    n > BNC_UPSTREAM_NAME_MAX)
		return NULL;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' &&
		    name[i] != '-')
			return NULL;
	*tool = c + 1;
	return strndup(name, n);
}

static void
ask(struct policy *p)
{
	const struct tool_policy *tp, *got;
	const char *tool, *s;
	size_t i, j, k, n;
	char *up;
	int kind, warnings = 0;

	n = policy_nentries(p);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK((tp = policy_entry(p, i)) != NULL);
		FUZZ_CHECK(tp->name != NULL && tp->file != NULL);
		up = qualifier(tp->name, &tool);
		got = policy_for(p, up, tool, NULL);
		/* loaded last, the user's copy shadows the pack's */
		FUZZ_CHECK(got != NULL && strcmp(got->name, tp->name) == 0);
		FUZZ_CHECK(strcmp(got->source, "user") == 0);
		/*
		 * A tool's mark is in the forbidden set; a prompt's is its
		 * entry's (no tool can have a name with '/').  A resource
		 * glob is matched against URIs, not itself: not asked.
		 */
		kind = policy_request_name(tp->name);
		if (tp->forbidden && kind == 0)
			FUZZ_CHECK(policy_forbidden(p, up, tool));
		else if (tp->forbidden && kind == POLICY_PROMPT)
			FUZZ_CHECK(policy_request_forbidden(p, up, kind,
			    tool + strlen("prompt/")));
		else
			(void)policy_forbidden(p, up, tool);
		for (j = 0; j < tp->npatterns; j++) {
			FUZZ_CHECK(tp->patterns[j].re != NULL);
			(void)policy_pattern_match(&tp->patterns[j], tp->name,
			    strlen(tp->name));
			for (k = 0; k < tp->ntrusted; k++)
				(void)policy_pattern_match(&tp->patterns[j],
				    tp->trusted[k], strlen(tp->trusted[k]));
		}
		for (j = 0; j < tp->ntrusted; j++) {
			s = tp->trusted[j];
			/* a non-blank entry without '*' matches itself */
			if (strchr(s, '*') == NULL &&
			    s[strspn(s, " \t\n\r\v\f")] != '\0')
				FUZZ_CHECK(policy_trusted_match(s, s,
				    strlen(s)) == 1);
			for (k = 0; k < tp->ntrusted; k++)
				(void)policy_trusted_match(s, tp->trusted[k],
				    strlen(tp->trusted[k]));
			(void)policy_trusted_match(s, tp->name,
			    strlen(tp->name));
		}
		/* heuristics for a name nobody listed */
		(void)policy_for(p, "fuzz", tp->name, NULL);
		free(up);
	}
	FUZZ_CHECK(policy_lint(p, warn_cb, &warnings) == warnings);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ynode *root = NULL;
	struct policy *p;
	char err[1024];
	int r, ry;

	if (fuzz_scratch[0] == '\0')
		fuzz_scratch_open("fuzz_policy");
	if (size > BNC_POLICY_FILE_MAX)
		return 0;
	err[0] = '\0';
	ry = yaml_load_buf(fuzz_scratch, (const char *)data, size, &root, err,
	    sizeof(err));
	FUZZ_CHECK(ry == 0 || (ry == -BNC_ERR_CONFIG && root == NULL &&
	    strncmp(err, fuzz_scratch, strlen(fuzz_scratch)) == 0));
	ynode_free(root);

	fuzz_scratch_write(data, size);
	p = policy_new();
	err[0] = '\0';
	r = policy_load_file(p, fuzz_scratch, 1, err, sizeof(err));
	if (ry != 0)
		FUZZ_CHECK(r != 0);
	if (r != 0) {
		FUZZ_CHECK(r == -BNC_ERR_CONFIG && policy_nentries(p) == 0);
		FUZZ_CHECK(strncmp(err, fuzz_scratch, strlen(fuzz_scratch)) == 0);
		goto out;
	}
	FUZZ_CHECK(policy_load_file(p, fuzz_scratch, 0, err, sizeof(err)) == 0);
	FUZZ_CHECK(policy_nentries(p) % 2 == 0);
	ask(p);
 out:
	policy_free(p);
	return 0;
}
