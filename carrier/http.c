/*
 * http.c - HTTP and TLS for a carrier, with libcurl, over a socket the
 * monitor connected (DESIGN 2, "Network for carriers").
 *
 * The carrier may not connect (seccomp refuses socket() and connect()),
 * so libcurl is given the call's socket through its open-socket hook,
 * told it is connected already, and given an address for the host from
 * CURLOPT_RESOLVE so that no resolver ever runs.  TLS is checked against
 * the vendor's compiled-in host name with a CA bundle read into memory
 * before the sandbox.  The socket serves one call: a second connection
 * (a redirect, a retry on a dropped keep-alive) finds no socket and
 * fails, so libcurl can never send a request twice on its own.
 *
 * libcurl's allocations are zeroed when freed: the Authorization header
 * and a Slack webhook path (the URL is the credential) pass through
 * them.  This file must never log a URL, a header or a body.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <curl/curl.h>
#include <sodium.h>

#include "bounds.h"
#include "buf.h"
#include "credential.h"
#include "http.h"
#include "log.h"

_Static_assert(HTTP_ERRBUF_SIZE >= CURL_ERROR_SIZE,
    "struct http_resp's errbuf is smaller than libcurl's");

#define HTTP_USER_AGENT	"bouncer-carrier/" PACKAGE_VERSION

static struct {
	const struct carrier_service *svc;
	struct carrier_base	 base;
	CURLM			*multi;
	char			*ca;	/* the CA bundle, PEM */
	size_t			 calen;
	struct http_conn	*conn;	/* the call's, during an exchange */
} http;

/*
 * connect(2) as libcurl sees it: this definition comes before libc's for
 * every library the program loads.  libcurl 7.88 calls connect() on the
 * socket its open-socket hook returned even when told that socket is
 * connected already (curl issue 10626, fixed in 8.0).  A carrier never
 * connects: the socket of the exchange under way, which the monitor
 * connected, is answered "connected", and anything else fails with
 * EACCES, in both cases without the system call, which the sandbox
 * kills.  (Its name is libc's, not this file's prefix, by necessity.)
 */
int
connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	(void)addr;
	(void)len;
	if (http.conn != NULL && fd == http.conn->fd && http.conn->handed &&
	    !http.conn->closed)
		return 0;
	errno = EACCES;
	return -1;
}

/* libcurl's memory, zeroed when it goes back. */

static void *
z_malloc(size_t n)
{
	return malloc(n);
}

static void
z_free(void *p)
{
	if (p == NULL)
		return;
	sodium_memzero(p, malloc_usable_size(p));
	free(p);
}

/* Never realloc(): it would free the old block without zeroing it. */
static void *
z_realloc(void *p, size_t n)
{
	size_t old;
	void *q;

	if (p == NULL)
		return malloc(n);
	if ((q = malloc(n > 0 ? n : 1)) == NULL)
		return NULL;
	old = malloc_usable_size(p);
	memcpy(q, p, old < n ? old : n);
	z_free(p);
	return q;
}

static char *
z_strdup(const char *s)
{
	return strdup(s);
}

static void *
z_calloc(size_t n, size_t size)
{
	return calloc(n, size);
}

/* The CA bundle, whole, into memory (before the sandbox). */
static int
load_ca(const char *path, char *err, size_t errlen)
{
	struct stat sb;
	ssize_t n;
	size_t len = 0;
	int fd, r = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path,
		    strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_size <= 0 || sb.st_size > BNC_CARRIER_CA_MAX) {
		snprintf(err, errlen, "%s: not a regular file of 1 to %d "
		    "bytes", path, BNC_CARRIER_CA_MAX);
		goto out;
	}
	if ((http.ca = malloc((size_t)sb.st_size)) == NULL) {
		snprintf(err, errlen, "out of memory for the CA bundle");
		goto out;
	}
	while (len < (size_t)sb.st_size) {
		n = read(fd, http.ca + len, (size_t)sb.st_size - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "%s: %s", path,
			    n == 0 ? "shorter than it said" : strerror(errno));
			goto out;
		}
		len += (size_t)n;
	}
	http.calen = len;
	r = 0;
 out:
	close(fd);
	return r;
}

int
http_init(const struct carrier_service *svc, const struct carrier_base *base,
    char *err, size_t errlen)
{
	CURLcode rc;

	http.svc = svc;
	http.base = *base;
	if (!base->loopback && load_ca(base->ca, err, errlen) != 0)
		return -1;
	if ((rc = curl_global_init_mem(CURL_GLOBAL_DEFAULT, z_malloc, z_free,
	    z_realloc, z_strdup, z_calloc)) != CURLE_OK) {
		snprintf(err, errlen, "curl_global_init: %s",
		    curl_easy_strerror(rc));
		return -1;
	}
	if ((http.multi = curl_multi_init()) == NULL) {
		snprintf(err, errlen, "curl_multi_init failed");
		return -1;
	}
	return 0;
}

/* The socket hooks: the call's socket, once, already connected. */

static curl_socket_t
open_cb(void *arg, curlsocktype purpose, struct curl_sockaddr *addr)
{
	struct http_conn *c = arg;

	(void)addr;
	if (purpose != CURLSOCKTYPE_IPCXN || c->handed || c->fd < 0) {
		debug_f("libcurl asked for a second connection: refused");
		return CURL_SOCKET_BAD;
	}
	c->handed = 1;
	return c->fd;
}

static int
sockopt_cb(void *arg, curl_socket_t fd, curlsocktype purpose)
{
	(void)arg;
	(void)fd;
	(void)purpose;
	return CURL_SOCKOPT_ALREADY_CONNECTED;
}

static int
close_cb(void *arg, curl_socket_t fd)
{
	struct http_conn *c = arg;

	if (fd != c->fd || c->closed) {
		error_f("libcurl closes fd %d, not the call's", (int)fd);
		return 0;
	}
	c->closed = 1;
	return close(fd);
}

/* The answer's body, up to the row's cap. */
static size_t
write_cb(char *p, size_t size, size_t n, void *arg)
{
	struct http_resp *resp = arg;
	size_t len = size * n;

	if (buf_len(resp->body) + len > resp->body->max) {
		resp->over_cap = 1;
		return 0;	/* libcurl stops: CURLE_WRITE_ERROR */
	}
	if (buf_put(resp->body, p, len) != 0) {
		resp->over_cap = 1;
		return 0;
	}
	return len;
}

/* Retry-After in whole seconds; an HTTP date or anything else is -1. */
static size_t
header_cb(char *p, size_t size, size_t n, void *arg)
{
	static const char name[] = "retry-after:";
	struct http_resp *resp = arg;
	size_t len = size * n, i;
	long v = 0;

	if (len < sizeof(name) - 1 ||
	    strncasecmp(p, name, sizeof(name) - 1) != 0)
		return len;
	i = sizeof(name) - 1;
	while (i < len && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (i == len || p[i] < '0' || p[i] > '9') {
		resp->retry_after = -1;
		return len;
	}
	for (; i < len && p[i] >= '0' && p[i] <= '9'; i++)
		if ((v = v * 10 + (p[i] - '0')) > BNC_CARRIER_RETRY_AFTER_MAX)
			v = BNC_CARRIER_RETRY_AFTER_MAX + 1;
	while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' ||
	    p[i] == '\n'))
		i++;
	resp->retry_after = i == len ? v : -1;
	return len;
}

/*
 * libcurl's errors that leave nothing of the request sent: the
 * connection or TLS was never set up.  Any other failure may have sent
 * some of it, and for a write that means its outcome is unknown.
 */
static const CURLcode unsent_errors[] = {
	CURLE_UNSUPPORTED_PROTOCOL, CURLE_FAILED_INIT, CURLE_URL_MALFORMAT,
	CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT,
	CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION,
	CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
	CURLE_SSL_ISSUER_ERROR, CURLE_UNKNOWN_OPTION,
};

static int
nothing_sent(CURLcode rc)
{
	size_t i;

	for (i = 0; i < sizeof(unsent_errors) / sizeof(unsent_errors[0]); i++)
		if (unsent_errors[i] == rc)
			return 1;
	return 0;
}

/* "HOST:PORT:ADDRESS" for CURLOPT_RESOLVE: the socket's own peer. */
static int
resolve_entry(int fd, char *out, size_t outsz)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char addr[INET6_ADDRSTRLEN];
	int n;

	memset(&ss, 0, sizeof(ss));
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    ss.ss_family == AF_INET6 && inet_ntop(AF_INET6,
	    &((struct sockaddr_in6 *)&ss)->sin6_addr, addr,
	    sizeof(addr)) != NULL)
		n = snprintf(out, outsz, "%s:%u:[%s]", http.base.host,
		    http.base.port, addr);
	else if (ss.ss_family == AF_INET && inet_ntop(AF_INET,
	    &((struct sockaddr_in *)&ss)->sin_addr, addr,
	    sizeof(addr)) != NULL)
		n = snprintf(out, outsz, "%s:%u:%s", http.base.host,
		    http.base.port, addr);
	else	/* not an inet socket: any address, it is never used */
		n = snprintf(out, outsz, "%s:%u:127.0.0.1", http.base.host,
		    http.base.port);
	return n > 0 && (size_t)n < outsz ? 0 : -1;
}

/* The request's headers: the service's, the token, the body's type. */
static struct curl_slist *
make_headers(const struct http_req *req)
{
	const char *const *h;
	struct curl_slist *l = NULL, *t;
	size_t i;

	for (h = http.svc->headers, i = 0; h != NULL && *h != NULL &&
	    i < BNC_CARRIER_HEADERS_MAX; h++, i++) {
		if ((t = curl_slist_append(l, *h)) == NULL)
			goto fail;
		l = t;
	}
	if (http.svc->cred == CRED_TOKEN) {
		if ((t = curl_slist_append(l, credential_auth_header())) ==
		    NULL)
			goto fail;
		l = t;
	}
	/* a body is JSON, sent at once: no 100-continue round trip */
	if (req->body != NULL) {
		if ((t = curl_slist_append(l,
		    "Content-Type: application/json")) == NULL)
			goto fail;
		l = t;
	}
	if ((t = curl_slist_append(l, "Expect:")) == NULL)
		goto fail;
	return t;
 fail:
	curl_slist_free_all(l);
	return NULL;
}

#define HTTP_SETOPT(rc, e, opt, val) do {				\
	if ((rc) == CURLE_OK)						\
		(rc) = curl_easy_setopt((e), (opt), (val));		\
} while (0)

void
http_exchange(struct http_conn *conn, const struct http_req *req,
    struct http_resp *resp)
{
	char url[BNC_CARRIER_BASE_MAX + BNC_CARRIER_PATH_MAX + 1];
	char resolve[BNC_CARRIER_BASE_MAX + INET6_ADDRSTRLEN + 16];
	struct curl_slist *headers = NULL, *resolves = NULL;
	struct curl_blob blob;
	CURLcode rc = CURLE_OK;
	CURLMcode mc;
	CURLMsg *m;
	CURL *e = NULL;
	int running, left, added = 0;
	long status = 0;

	memset(resp, 0, sizeof(*resp));
	resp->retry_after = -1;
	resp->body = buf_new();
	buf_set_max(resp->body, req->cap);
	resp->curl_err = CURLE_FAILED_INIT;

	if ((size_t)snprintf(url, sizeof(url), "%s%s", http.base.origin,
	    req->path) >= sizeof(url)) {
		snprintf(resp->errbuf, sizeof(resp->errbuf), "URL too long");
		goto out;
	}
	if ((e = curl_easy_init()) == NULL ||
	    (headers = make_headers(req)) == NULL) {
		snprintf(resp->errbuf, sizeof(resp->errbuf),
		    "libcurl: out of memory");
		goto out;
	}
	if (http.base.host[0] != '\0') {
		if (resolve_entry(conn->fd, resolve, sizeof(resolve)) != 0 ||
		    (resolves = curl_slist_append(NULL, resolve)) == NULL) {
			snprintf(resp->errbuf, sizeof(resp->errbuf),
			    "libcurl: cannot name the host's address");
			goto out;
		}
	}

	HTTP_SETOPT(rc, e, CURLOPT_ERRORBUFFER, resp->errbuf);
	HTTP_SETOPT(rc, e, CURLOPT_URL, url);
	HTTP_SETOPT(rc, e, CURLOPT_PROTOCOLS_STR,
	    http.base.loopback ? "http" : "https");
	HTTP_SETOPT(rc, e, CURLOPT_REDIR_PROTOCOLS_STR,
	    http.base.loopback ? "http" : "https");
	HTTP_SETOPT(rc, e, CURLOPT_FOLLOWLOCATION, 0L);
	HTTP_SETOPT(rc, e, CURLOPT_MAXREDIRS, 0L);
	HTTP_SETOPT(rc, e, CURLOPT_PATH_AS_IS, 1L);
	/* an environment proxy would get the request, and our socket */
	HTTP_SETOPT(rc, e, CURLOPT_PROXY, "");
	HTTP_SETOPT(rc, e, CURLOPT_NOSIGNAL, 1L);
	/* one setsockopt() fewer in the sandbox; a request is one write */
	HTTP_SETOPT(rc, e, CURLOPT_TCP_NODELAY, 0L);
	HTTP_SETOPT(rc, e, CURLOPT_HTTP_VERSION,
	    (long)CURL_HTTP_VERSION_1_1);
	HTTP_SETOPT(rc, e, CURLOPT_TIMEOUT, (long)BNC_CARRIER_HTTP_TIMEOUT_S);
	HTTP_SETOPT(rc, e, CURLOPT_FORBID_REUSE, req->keep ? 0L : 1L);
	HTTP_SETOPT(rc, e, CURLOPT_OPENSOCKETFUNCTION, open_cb);
	HTTP_SETOPT(rc, e, CURLOPT_OPENSOCKETDATA, conn);
	HTTP_SETOPT(rc, e, CURLOPT_SOCKOPTFUNCTION, sockopt_cb);
	HTTP_SETOPT(rc, e, CURLOPT_CLOSESOCKETFUNCTION, close_cb);
	HTTP_SETOPT(rc, e, CURLOPT_CLOSESOCKETDATA, conn);
	if (resolves != NULL)
		HTTP_SETOPT(rc, e, CURLOPT_RESOLVE, resolves);
	HTTP_SETOPT(rc, e, CURLOPT_CUSTOMREQUEST, req->method);
	if (req->body != NULL) {
		HTTP_SETOPT(rc, e, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)req->bodylen);
		HTTP_SETOPT(rc, e, CURLOPT_POSTFIELDS, req->body);
	} else
		HTTP_SETOPT(rc, e, CURLOPT_HTTPGET, 1L);
	HTTP_SETOPT(rc, e, CURLOPT_HTTPHEADER, headers);
	HTTP_SETOPT(rc, e, CURLOPT_USERAGENT, HTTP_USER_AGENT);
	HTTP_SETOPT(rc, e, CURLOPT_WRITEFUNCTION, write_cb);
	HTTP_SETOPT(rc, e, CURLOPT_WRITEDATA, resp);
	HTTP_SETOPT(rc, e, CURLOPT_HEADERFUNCTION, header_cb);
	HTTP_SETOPT(rc, e, CURLOPT_HEADERDATA, resp);
	HTTP_SETOPT(rc, e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)req->cap);
	if (!http.base.loopback) {
		blob.data = http.ca;
		blob.len = http.calen;
		blob.flags = CURL_BLOB_NOCOPY;
		HTTP_SETOPT(rc, e, CURLOPT_CAINFO_BLOB, &blob);
		/* a directory would be read lazily, under the filter */
		HTTP_SETOPT(rc, e, CURLOPT_CAPATH, (char *)NULL);
		HTTP_SETOPT(rc, e, CURLOPT_SSL_VERIFYPEER, 1L);
		HTTP_SETOPT(rc, e, CURLOPT_SSL_VERIFYHOST, 2L);
		HTTP_SETOPT(rc, e, CURLOPT_SSLVERSION,
		    (long)CURL_SSLVERSION_TLSv1_2);
		HTTP_SETOPT(rc, e, CURLOPT_SSL_SESSIONID_CACHE, 0L);
	}
	if (rc != CURLE_OK) {
		resp->curl_err = rc;
		snprintf(resp->errbuf, sizeof(resp->errbuf), "libcurl "
		    "refused an option: %s", curl_easy_strerror(rc));
		goto out;
	}

	http.conn = conn;
	if ((mc = curl_multi_add_handle(http.multi, e)) != CURLM_OK) {
		snprintf(resp->errbuf, sizeof(resp->errbuf), "libcurl: %s",
		    curl_multi_strerror(mc));
		goto out;
	}
	added = 1;
	rc = CURLE_FAILED_INIT;
	for (;;) {
		if ((mc = curl_multi_perform(http.multi, &running)) !=
		    CURLM_OK || running == 0)
			break;
		if ((mc = curl_multi_poll(http.multi, NULL, 0,
		    BNC_CARRIER_POLL_MS, NULL)) != CURLM_OK)
			break;
	}
	if (mc != CURLM_OK)
		snprintf(resp->errbuf, sizeof(resp->errbuf), "libcurl: %s",
		    curl_multi_strerror(mc));
	while ((m = curl_multi_info_read(http.multi, &left)) != NULL)
		if (m->msg == CURLMSG_DONE && m->easy_handle == e)
			rc = m->data.result;
	resp->curl_err = rc;
	if (curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status) ==
	    CURLE_OK && status >= 100 && status <= 999)
		resp->status = status;
	if (rc != CURLE_OK && resp->errbuf[0] == '\0')
		snprintf(resp->errbuf, sizeof(resp->errbuf), "%s",
		    curl_easy_strerror(rc));
 out:
	http.conn = NULL;
	resp->sent = added && (resp->status != 0 ||
	    !nothing_sent(resp->curl_err));
	if (added)
		curl_multi_remove_handle(http.multi, e);
	if (e != NULL)
		curl_easy_cleanup(e);
	curl_slist_free_all(headers);
	curl_slist_free_all(resolves);
	sodium_memzero(url, sizeof(url));
}

void
http_resp_clear(struct http_resp *resp)
{
	buf_free(resp->body);
	memset(resp, 0, sizeof(*resp));
}

void
http_conn_done(struct http_conn *conn)
{
	if (conn->fd < 0)
		return;
	if (conn->handed && !conn->closed)
		fatal("libcurl kept the call's connection open");
	if (!conn->handed)
		close(conn->fd);
	conn->fd = -1;
}
