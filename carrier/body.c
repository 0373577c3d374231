/*
 * body.c - request bodies, printed by cJSON from trees the service
 * files build (DESIGN 3: bouncer builds JSON, it never splices text).
 * Nothing here logs a body: a Slack message or a comment is the user's.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "body.h"
#include "buf.h"

int
body_put(struct buf *out, cJSON *o)
{
	char *s;
	int r = -1;

	if (o == NULL)
		return -1;
	if ((s = cJSON_PrintUnformatted(o)) == NULL)
		goto out;
	if (buf_put(out, s, strlen(s)) == 0)
		r = 0;
	free(s);
 out:
	cJSON_Delete(o);
	return r;
}
