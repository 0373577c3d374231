/*
 * http-req.c - the smallest HTTP/1.1 client the mocks' scenarios need.
 *
 *	http-req [-H 'Name: value']... [-d BODY | -f BODYFILE]
 *	    [-D HEADERFILE] METHOD HOST PORT PATH
 *
 * HOST is an IPv4 literal.  It sends one request with Connection: close
 * and Content-Length (when there is a body), reads the answer to EOF,
 * writes the status line and headers (CRs removed) to HEADERFILE and
 * the body, as received, to stdout.  Exit 0 on any HTTP answer, 1 if no
 * connection or no answer.
 *
 * Plain sockets rather than libcurl: the answers it reads come from our
 * own mocks, which send a Content-Length and close, and a test client
 * needing no library keeps the build's dependencies where they were.
 * Test code only.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HR_HEADERS_MAX	16

static void
usage(void)
{
	fprintf(stderr, "usage: http-req [-H header]... [-d body | -f file] "
	    "[-D headerfile] method host port path\n");
	exit(2);
}

static char *
slurp(const char *path, size_t *lenp)
{
	FILE *f;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if ((f = fopen(path, "r")) == NULL) {
		perror(path);
		exit(1);
	}
	for (;;) {
		if (len + 65536 > cap) {
			cap = (len + 65536) * 2;
			if ((buf = realloc(buf, cap)) == NULL) {
				perror("realloc");
				exit(1);
			}
		}
		if ((n = fread(buf + len, 1, cap - len, f)) == 0)
			break;
		len += n;
	}
	fclose(f);
	*lenp = len;
	return buf;
}

static void
writeall(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			perror("write");
			exit(1);
		}
		p += w;
		n -= w;
	}
}

int
main(int argc, char *argv[])
{
	const char *headers[HR_HEADERS_MAX], *hfile = NULL;
	char *body = NULL, *resp = NULL, *sep, *p, *start;
	size_t bodylen = 0, len = 0, cap = 0;
	struct sockaddr_in sin;
	int ch, nh = 0, fd, i;
	ssize_t n;
	FILE *req, *hf;
	char *reqbuf = NULL;
	size_t reqlen = 0;

	while ((ch = getopt(argc, argv, "d:D:f:H:")) != -1) {
		switch (ch) {
		case 'd':
			body = optarg;
			bodylen = strlen(optarg);
			break;
		case 'D':
			hfile = optarg;
			break;
		case 'f':
			body = slurp(optarg, &bodylen);
			break;
		case 'H':
			if (nh == HR_HEADERS_MAX)
				usage();
			headers[nh++] = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 4)
		usage();

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)atoi(argv[2]));
	if (inet_pton(AF_INET, argv[1], &sin.sin_addr) != 1)
		usage();
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		fprintf(stderr, "http-req: %s:%s: %s\n", argv[1], argv[2],
		    strerror(errno));
		return 1;
	}

	if ((req = open_memstream(&reqbuf, &reqlen)) == NULL) {
		perror("open_memstream");
		return 1;
	}
	fprintf(req, "%s %s HTTP/1.1\r\nHost: %s:%s\r\n"
	    "Connection: close\r\n", argv[0], argv[3], argv[1], argv[2]);
	for (i = 0; i < nh; i++)
		fprintf(req, "%s\r\n", headers[i]);
	if (body != NULL)
		fprintf(req, "Content-Length: %zu\r\n", bodylen);
	fprintf(req, "\r\n");
	fclose(req);
	writeall(fd, reqbuf, reqlen);
	if (body != NULL)
		writeall(fd, body, bodylen);

	for (;;) {
		if (len + 65536 > cap) {
			cap = (len + 65536) * 2;
			if ((resp = realloc(resp, cap)) == NULL) {
				perror("realloc");
				return 1;
			}
		}
		if ((n = read(fd, resp + len, cap - len - 1)) == -1) {
			if (errno == EINTR)
				continue;
			perror("read");
			return 1;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	if (len == 0) {
		fprintf(stderr, "http-req: no answer\n");
		return 1;
	}
	resp[len] = '\0';
	if ((sep = strstr(resp, "\r\n\r\n")) == NULL) {
		fprintf(stderr, "http-req: no end of headers\n");
		return 1;
	}
	if (hfile != NULL) {
		if ((hf = fopen(hfile, "w")) == NULL) {
			perror(hfile);
			return 1;
		}
		for (p = resp; p < sep + 2; p++)
			if (*p != '\r')
				fputc(*p, hf);
		fclose(hf);
	}
	start = sep + 4;
	writeall(STDOUT_FILENO, start, len - (start - resp));
	return 0;
}
