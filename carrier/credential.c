/*
 * credential.c - the credential on fd 4, read once into guarded memory.
 *
 * The bytes go from the pipe straight into one sodium_malloc region
 * (guard pages, locked, excluded from core dumps), behind the prefix
 * "Authorization: Bearer " so that the header is built in place, and
 * the region is made read-only before anything else happens.  A Slack
 * carrier's lines are split in place; only pointers into the region are
 * kept elsewhere.  Nothing here may copy the credential into the stack
 * or the heap, print it, or put it in an error message, and the region
 * is never freed: sodium_free() would need mprotect(PROT_WRITE) after
 * the sandbox is on, and the pages go with the process.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "bounds.h"
#include "credential.h"
#include "validate.h"
#include "work.h"

#define CRED_AUTH_PREFIX	"Authorization: Bearer "
#define CRED_WEBHOOK_PREFIX	"https://" WORK_SLACK_HOST

static char	*cred_mem;		/* the region */
static size_t	 cred_len;		/* bytes read */

static struct webhook {
	const char	*channel;	/* in cred_mem */
	size_t		 clen;
	const char	*path;		/* in cred_mem */
	size_t		 plen;
} hooks[BNC_WORK_CHANNELS_MAX];
static size_t	 nhooks;

/* Reads fd 4 into p[0..max]; more than max bytes is an error. */
static int
read_all(char *p, size_t max, size_t *lenp, char *err, size_t errlen)
{
	size_t len = 0;
	ssize_t n;

	for (;;) {
		/* one byte past max, to tell "exactly max" from "more" */
		n = read(BNC_CHILD_FD_EXTRA, p + len, max + 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			snprintf(err, errlen, "read fd %d: %s",
			    BNC_CHILD_FD_EXTRA, strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			snprintf(err, errlen, "credential on fd %d is over "
			    "%d bytes", BNC_CHILD_FD_EXTRA,
			    BNC_CARRIER_CREDENTIAL_MAX);
			return -1;
		}
	}
	*lenp = len;
	return 0;
}

/* A token goes into a header: printable ASCII, no space, not empty. */
static int
token_ok(const char *t, size_t len)
{
	size_t i;

	if (len == 0)
		return 0;
	for (i = 0; i < len; i++)
		if (t[i] <= ' ' || t[i] > '~')
			return 0;
	return 1;
}

/* Splits the region's lines in place into hooks[]. */
static int
parse_webhooks(char *p, size_t len, char *err, size_t errlen)
{
	const char *why;
	char *line, *end, *tab;
	size_t n, lineno = 0, i;

	while (len > 0) {
		lineno++;
		line = p;
		if ((end = memchr(p, '\n', len)) == NULL) {
			snprintf(err, errlen, "webhooks: line %zu does not "
			    "end in a newline", lineno);
			return -1;
		}
		n = (size_t)(end - line);
		*end = '\0';
		p = end + 1;
		len -= n + 1;
		if (nhooks == BNC_WORK_CHANNELS_MAX) {
			snprintf(err, errlen, "webhooks: more than %d",
			    BNC_WORK_CHANNELS_MAX);
			return -1;
		}
		if ((tab = memchr(line, '\t', n)) == NULL) {
			snprintf(err, errlen, "webhooks: line %zu has no tab",
			    lineno);
			return -1;
		}
		*tab = '\0';
		hooks[nhooks].channel = line;
		hooks[nhooks].clen = (size_t)(tab - line);
		if (valid_channel_name(line, hooks[nhooks].clen, &why) != 0) {
			snprintf(err, errlen, "webhooks: line %zu: channel: "
			    "%s", lineno, why);
			return -1;
		}
		/* the URL: the vendor's host, then a path we check */
		line = tab + 1;
		n -= hooks[nhooks].clen + 1;
		if (n < strlen(CRED_WEBHOOK_PREFIX) ||
		    memcmp(line, CRED_WEBHOOK_PREFIX,
		    strlen(CRED_WEBHOOK_PREFIX)) != 0) {
			snprintf(err, errlen, "webhooks: line %zu: not a "
			    "%s URL", lineno, CRED_WEBHOOK_PREFIX);
			return -1;
		}
		hooks[nhooks].path = line + strlen(CRED_WEBHOOK_PREFIX);
		hooks[nhooks].plen = n - strlen(CRED_WEBHOOK_PREFIX);
		if (valid_webhook_path(hooks[nhooks].path,
		    hooks[nhooks].plen, &why) != 0) {
			snprintf(err, errlen, "webhooks: line %zu (channel "
			    "%s): path: %s", lineno, hooks[nhooks].channel,
			    why);
			return -1;
		}
		for (i = 0; i < nhooks; i++)
			if (hooks[i].clen == hooks[nhooks].clen &&
			    memcmp(hooks[i].channel, hooks[nhooks].channel,
			    hooks[i].clen) == 0) {
				snprintf(err, errlen, "webhooks: channel %s "
				    "twice", hooks[i].channel);
				return -1;
			}
		nhooks++;
	}
	if (nhooks == 0) {
		snprintf(err, errlen, "webhooks: none on fd %d",
		    BNC_CHILD_FD_EXTRA);
		return -1;
	}
	return 0;
}

int
credential_load(enum carrier_cred kind, char *err, size_t errlen)
{
	struct stat sb;
	size_t pre = kind == CRED_TOKEN ? strlen(CRED_AUTH_PREFIX) : 0;
	char *p;
	int r = -1;

	if (fstat(BNC_CHILD_FD_EXTRA, &sb) == -1) {
		snprintf(err, errlen, "no credential on fd %d: %s",
		    BNC_CHILD_FD_EXTRA, strerror(errno));
		return -1;
	}
	/* the prefix, the credential, one byte to tell it is too long,
	 * and its NUL */
	if ((cred_mem = sodium_malloc(pre + BNC_CARRIER_CREDENTIAL_MAX +
	    2)) == NULL) {
		snprintf(err, errlen, "sodium_malloc failed");
		goto out;
	}
	sodium_memzero(cred_mem, pre + BNC_CARRIER_CREDENTIAL_MAX + 2);
	memcpy(cred_mem, CRED_AUTH_PREFIX, pre);
	p = cred_mem + pre;
	if (read_all(p, BNC_CARRIER_CREDENTIAL_MAX, &cred_len, err,
	    errlen) != 0)
		goto out;
	switch (kind) {
	case CRED_TOKEN:
		if (cred_len > 0 && p[cred_len - 1] == '\n')
			p[--cred_len] = '\0';
		if (!token_ok(p, cred_len)) {
			snprintf(err, errlen, "the token on fd %d is empty or "
			    "not printable ASCII without spaces (%zu bytes)",
			    BNC_CHILD_FD_EXTRA, cred_len);
			goto out;
		}
		break;
	case CRED_WEBHOOKS:
		if (parse_webhooks(p, cred_len, err, errlen) != 0)
			goto out;
		break;
	default:
		snprintf(err, errlen, "unknown credential kind %d", (int)kind);
		goto out;
	}
	if (sodium_mprotect_readonly(cred_mem) != 0) {
		snprintf(err, errlen, "sodium_mprotect_readonly: %s",
		    strerror(errno));
		goto out;
	}
	r = 0;
 out:
	close(BNC_CHILD_FD_EXTRA);
	if (r != 0 && cred_mem != NULL) {
		sodium_free(cred_mem);	/* zeroes it */
		cred_mem = NULL;
		nhooks = 0;
	}
	return r;
}

const char *
credential_auth_header(void)
{
	return cred_mem;
}

const char *
credential_webhook(const char *channel, size_t len, size_t *lenp)
{
	size_t i;

	for (i = 0; i < nhooks; i++)
		if (hooks[i].clen == len &&
		    memcmp(hooks[i].channel, channel, len) == 0) {
			*lenp = hooks[i].plen;
			return hooks[i].path;
		}
	return NULL;
}

int
credential_webhook_known(const char *s, size_t len)
{
	size_t i;
	int found = 0;

	for (i = 0; i < nhooks; i++)
		if (hooks[i].plen == len &&
		    sodium_memcmp(hooks[i].path, s, len) == 0)
			found = 1;
	return found;
}
