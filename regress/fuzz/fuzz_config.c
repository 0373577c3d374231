/*
 * fuzz_config.c - libFuzzer harness for bouncer.yaml (monitor/conffile.c
 * over monitor/yaml-tree.c).
 *
 * The input is a whole configuration file.  conffile.h only loads from a
 * path, so the bytes go to a file under /dev/shm (or TMPDIR when
 * /dev/shm is missing).  A refused file must name itself in the error;
 * an accepted one must hold only what bouncer.yaml(5) allows: every
 * bound of bounds.h, upstream names that config_upstream_name_ok takes,
 * NULL-terminated vectors of the counted length.  It must never write
 * anywhere but its one scratch file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounds.h"
#include "conffile.h"
#include "err.h"
#include "fuzz.h"

static void
check_vec(char **v, size_t n, size_t max)
{
	size_t i;

	FUZZ_CHECK(n == 0 || v != NULL);
	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		FUZZ_CHECK(v[i] != NULL && strlen(v[i]) <= max);
	FUZZ_CHECK(v[n] == NULL);
}

static void
check_config(const struct config *c)
{
	const struct upstream_cfg *u;
	size_t i, j;

	FUZZ_CHECK(c->max_message >= BNC_MSG_MAX_LOWEST &&
	    c->max_message <= BNC_MSG_MAX_HIGHEST);
	FUZZ_CHECK(c->ask_timeout >= 1 && c->ask_timeout <=
	    BNC_ASK_TIMEOUT_MAX);
	FUZZ_CHECK(c->policy == NULL || strlen(c->policy) <= BNC_PATH_MAX);
	check_vec(c->packs, c->npacks, BNC_PATH_MAX);
	check_vec(c->forbidden, c->nforbidden, SIZE_MAX);
	FUZZ_CHECK(c->nups <= BNC_UPSTREAMS_MAX);
	for (i = 0; i < c->nups; i++) {
		u = &c->ups[i];
		FUZZ_CHECK(u->name != NULL && config_upstream_name_ok(u->name));
		FUZZ_CHECK(u->command != NULL && u->command[0] != '\0');
		FUZZ_CHECK(u->nargs <= BNC_ARGV_MAX - 2);
		check_vec(u->args, u->nargs, BNC_ARG_LEN_MAX);
		FUZZ_CHECK(u->nenv <= BNC_ENV_MAX);
		check_vec(u->env, u->nenv, BNC_ARG_LEN_MAX + 1);
		for (j = 0; j < u->nenv; j++)
			FUZZ_CHECK(strchr(u->env[j], '=') != NULL &&
			    u->env[j][0] != '=');
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(c->ups[j].name, u->name) != 0);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c;
	char err[1024];
	int r;

	if (fuzz_scratch[0] == '\0')
		fuzz_scratch_open("fuzz_config");
	if (size > BNC_CONFIG_MAX)
		return 0;
	fuzz_scratch_write(data, size);
	memset(&c, 0, sizeof(c));
	config_defaults(&c);
	err[0] = '\0';
	r = config_load(&c, fuzz_scratch, err, sizeof(err));
	if (r != 0) {
		FUZZ_CHECK(r == -BNC_ERR_CONFIG);
		FUZZ_CHECK(strncmp(err, fuzz_scratch, strlen(fuzz_scratch)) == 0);
	} else
		check_config(&c);
	config_free(&c);
	return 0;
}
