/*
 * latency.c - added latency and throughput of a tools/call through
 * bouncer-monitor, against the same upstream called directly.
 *
 * It spawns the upstream (an MCP stdio server with an `echo` tool taking
 * {message}, normally regress/mocks/mock-upstream) once directly and once
 * as `bouncer-monitor [ARGS] -- UPSTREAM`, does the MCP handshake with each
 * over its stdin/stdout, then times sequential echo calls in alternating
 * rounds (direct, bouncer, direct, ...) and, last, pipelined calls with
 * several requests in flight.  Last, it sums the memory of bouncer's own
 * processes (bouncer-monitor and its descendants, except the upstream's
 * executable) at the end of that session: resident (VmRSS, which counts
 * shared library pages once per process) and proportional (Pss).  It
 * prints figures, human-readable lines and one final JSON line.
 *
 * Placement (-p).  Both targets always run under the same placement, and
 * the figures say which.  split (the default): this program, the client,
 * on one CPU and the server side (the upstream called directly, or
 * bouncer-monitor, whose workers and upstream inherit its CPU) on
 * another, as a client and a server that are separate processes usually
 * run on a machine with several CPUs.  one: everything on one CPU, which
 * leaves only the work of the path.  free: the scheduler places them.
 * Free figures depend on where the scheduler happens to put each process
 * rather than on the path: a direct pair the scheduler keeps on one CPU
 * never pays a wake-up across CPUs, while bouncer's five processes are
 * spread over them, and on a VM whose idle CPUs halt each such wake-up
 * costs tens of microseconds.  Pinning both sides is how latency
 * benchmarks make the comparison one of paths, not of luck.
 *
 * Peer (-P).  A third target, another proxy started as `PEER UPSTREAM`
 * (make bench: the pinned @civic/passthrough-mcp-server), runs in the
 * same alternating rounds; its added latency is printed beside bouncer's,
 * and their ratio.  Absolute figures move by 3x between two VMs of the
 * same kind; a ratio measured side by side holds far better.
 *
 * It is a benchmark, not a test: it must never judge a time, and it exits
 * non-zero only when something broke.  It is not part of bouncer, is never
 * installed, and parses JSON with cJSON directly.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

/* This program's own bounds; bouncer's are in common/bounds.h. */
#define LAT_CALLS_DEFAULT	2000
#define LAT_WARMUP_DEFAULT	500
#define LAT_ROUNDS_DEFAULT	5
#define LAT_INFLIGHT_DEFAULT	8
#define LAT_MSGLEN_DEFAULT	16
#define LAT_TIMEOUT_DEFAULT	30		/* s, for any one answer */
#define LAT_CALLS_MAX		10000000
#define LAT_ROUNDS_MAX		1000
#define LAT_INFLIGHT_MAX	256	/* pipelined lines stay in one pipe buffer */
#define LAT_MSGLEN_MAX		4096	/* bytes of the echoed message */
#define LAT_TIMEOUT_MAX		3600
#define LAT_SAMPLES_MAX		10000000	/* calls x rounds kept in memory */
#define LAT_ARGS_MAX		256	/* monitor arguments */
#define LAT_LINE_MAX		(16 * 1024 * 1024)	/* an answer line */
#define LAT_READ_CHUNK		65536
#define LAT_REQ_MAX		(LAT_MSGLEN_MAX + 256)	/* a request line */
#define LAT_EXIT_GRACE_MS	2000	/* after stdin EOF, then after SIGTERM */
#define LAT_PROTOCOL		"2025-11-25"
#define LAT_TOOL		"echo"
#define LAT_BIG_TOOL		"big"	/* -b: {bytes} -> a text of that many */
#define LAT_BIG_MAX		(8 * 1024 * 1024)	/* -b bytes */
#define LAT_PROCS_MAX		4096	/* processes scanned in /proc */

enum target {
	T_DIRECT = 0,
	T_BOUNCER,
	T_PEER,			/* -P: another proxy, in the same rounds */
	T_COUNT
};

static const char *target_name[T_COUNT] = { "direct", "bouncer", "peer" };

enum placement {
	P_SPLIT = 0,		/* client on one CPU, server side on another */
	P_ONE,			/* everything on one CPU */
	P_FREE,			/* wherever the scheduler puts them */
	P_COUNT
};

static const char *placement_name[P_COUNT] = { "split", "one", "free" };

struct child {
	enum target	 target;
	pid_t		 pid;
	int		 in;		/* the child's stdin */
	int		 out;		/* the child's stdout */
	char		*buf;		/* bytes read, not yet returned */
	size_t		 len;
	size_t		 size;
	size_t		 off;		/* start of the unreturned bytes */
	long		 next_id;
};

struct stats {
	double		 p50;
	double		 p90;
	double		 p99;
};

static int	 opt_timeout = LAT_TIMEOUT_DEFAULT;
static int	 errfd = -1;		/* children's stderr, if not ours */
static pid_t	 live[T_COUNT];		/* children to end if we die */
static char	*message;		/* the echoed text */
static long	 opt_big = -1;		/* -b: call big for this many bytes */
static enum placement placement = P_SPLIT;
static cpu_set_t cpu_client;		/* this program's CPU */
static cpu_set_t cpu_server;		/* the children's, inherited by theirs */
static int	 cpu_of[2];		/* client's and server's CPU numbers */

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;
	int t;

	fflush(stdout);
	for (t = 0; t < T_COUNT; t++)
		if (live[t] > 0)
			kill(live[t], SIGTERM);
	fprintf(stderr, "latency: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static double
now_us(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		die("clock_gettime: %s", strerror(errno));
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void
write_all(struct child *c, const char *p, size_t len)
{
	ssize_t n;

	while (len > 0) {
		if ((n = write(c->in, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			die("%s: write to child: %s", target_name[c->target],
			    strerror(errno));
		}
		p += n;
		len -= (size_t)n;
	}
}

/*
 * Returns the next line of the child's stdout, NUL-terminated without its
 * newline; the pointer is valid until the next call.  Dies on EOF, on a
 * line over LAT_LINE_MAX or after opt_timeout seconds of silence.
 */
static char *
read_line(struct child *c)
{
	struct pollfd pfd;
	char *nl, *line, *p;
	size_t scanned = 0;
	ssize_t n;
	int r;

	for (;;) {
		/* nothing read yet: no buffer to search (memchr of NULL) */
		nl = c->len > c->off + scanned ? memchr(c->buf + c->off +
		    scanned, '\n', c->len - c->off - scanned) : NULL;
		if (nl != NULL) {
			*nl = '\0';
			line = c->buf + c->off;
			c->off = (size_t)(nl - c->buf) + 1;
			return line;
		}
		scanned = c->len - c->off;
		if (scanned > LAT_LINE_MAX)
			die("%s: answer line over %d bytes",
			    target_name[c->target], LAT_LINE_MAX);
		if (c->off > 0) {
			memmove(c->buf, c->buf + c->off, scanned);
			c->len = scanned;
			c->off = 0;
		}
		if (c->size - c->len < LAT_READ_CHUNK) {
			c->size = c->size ? c->size * 2 : 4 * LAT_READ_CHUNK;
			if ((p = realloc(c->buf, c->size)) == NULL)
				die("out of memory");
			c->buf = p;
		}
		pfd.fd = c->out;
		pfd.events = POLLIN;
		if ((r = poll(&pfd, 1, opt_timeout * 1000)) == -1) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		if (r == 0)
			die("%s: no answer within %d s",
			    target_name[c->target], opt_timeout);
		if ((n = read(c->out, c->buf + c->len,
		    c->size - c->len)) == -1) {
			if (errno == EINTR)
				continue;
			die("%s: read: %s", target_name[c->target],
			    strerror(errno));
		}
		if (n == 0)
			die("%s: the child closed its stdout",
			    target_name[c->target]);
		c->len += (size_t)n;
	}
}

static void
child_spawn(struct child *c, enum target t, char *const argv[])
{
	int in[2], out[2];

	memset(c, 0, sizeof(*c));
	c->target = t;
	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1)
		die("pipe2: %s", strerror(errno));
	switch (c->pid = fork()) {
	case -1:
		die("fork: %s", strerror(errno));
	case 0:
		if (placement != P_FREE && sched_setaffinity(0,
		    sizeof(cpu_server), &cpu_server) == -1) {
			fprintf(stderr, "latency: sched_setaffinity: %s\n",
			    strerror(errno));
			_exit(127);
		}
		if (dup2(in[0], STDIN_FILENO) == -1 ||
		    dup2(out[1], STDOUT_FILENO) == -1 ||
		    (errfd != -1 && dup2(errfd, STDERR_FILENO) == -1))
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "latency: exec %s: %s\n", argv[0],
		    strerror(errno));
		_exit(127);
	default:
		break;
	}
	live[t] = c->pid;
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	c->out = out[0];
}

/* Closes the child's stdin and reaps it, escalating if it lingers. */
static void
child_close(struct child *c)
{
	const int sigs[] = { 0, SIGTERM, SIGKILL };
	double until;
	size_t i;
	pid_t r;
	int status;

	close(c->in);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (sigs[i] != 0)
			kill(c->pid, sigs[i]);
		until = now_us() + LAT_EXIT_GRACE_MS * 1e3;
		do {
			if ((r = waitpid(c->pid, &status, WNOHANG)) == -1)
				die("waitpid: %s", strerror(errno));
			if (r == c->pid)
				goto out;
			usleep(1000);
		} while (now_us() < until);
	}
	die("%s: child %ld does not exit", target_name[c->target],
	    (long)c->pid);
 out:
	live[c->target] = 0;
	close(c->out);
	free(c->buf);
	c->buf = NULL;
	if (i > 0 && WIFSIGNALED(status) && WTERMSIG(status) == sigs[i])
		fprintf(stderr, "latency: %s: did not exit when its input "
		    "closed; ended with signal %d\n", target_name[c->target],
		    sigs[i]);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fprintf(stderr, "latency: %s: child ended with status %d%s\n",
		    target_name[c->target], WIFEXITED(status) ?
		    WEXITSTATUS(status) : WTERMSIG(status),
		    WIFEXITED(status) ? "" : " (signal)");
}

/*
 * Reads lines until the answer to request id; answers any request the
 * child makes with an error and skips notifications.  Returns the parsed
 * answer (the caller frees it); dies on a JSON-RPC error or isError.
 */
static cJSON *
await_answer(struct child *c, long id, long *got)
{
	cJSON *m, *mid, *method, *res, *err;
	char *line, *s;
	char reply[512];
	int n;

	for (;;) {
		line = read_line(c);
		if ((m = cJSON_Parse(line)) == NULL)
			die("%s: not JSON: %.200s", target_name[c->target],
			    line);
		mid = cJSON_GetObjectItemCaseSensitive(m, "id");
		method = cJSON_GetObjectItemCaseSensitive(m, "method");
		if (method != NULL) {
			/* A request to us: we offer nothing, say so. */
			if (mid != NULL &&
			    (s = cJSON_PrintUnformatted(mid)) != NULL) {
				n = snprintf(reply, sizeof(reply),
				    "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":"
				    "{\"code\":-32601,\"message\":"
				    "\"Method not found\"}}\n", s);
				cJSON_free(s);
				if (n > 0 && (size_t)n < sizeof(reply))
					write_all(c, reply, (size_t)n);
			}
			cJSON_Delete(m);
			continue;
		}
		if (!cJSON_IsNumber(mid) || (got == NULL &&
		    mid->valuedouble != (double)id))
			die("%s: answer with unexpected id: %.200s",
			    target_name[c->target], line);
		res = cJSON_GetObjectItemCaseSensitive(m, "result");
		err = cJSON_GetObjectItemCaseSensitive(m, "error");
		if (err != NULL || !cJSON_IsObject(res))
			die("%s: request %ld failed: %.300s",
			    target_name[c->target],
			    (long)mid->valuedouble, line);
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res,
		    "isError")))
			die("%s: tool error: %.300s", target_name[c->target],
			    line);
		if (got != NULL)
			*got = (long)mid->valuedouble;
		return m;
	}
}

static void
send_call(struct child *c, long id)
{
	char req[LAT_REQ_MAX];
	int n;

	if (opt_big >= 0)
		n = snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":"
		    "%ld,\"method\":\"tools/call\",\"params\":{\"name\":\""
		    LAT_BIG_TOOL "\",\"arguments\":{\"bytes\":%ld}}}\n", id,
		    opt_big);
	else
		n = snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":"
		    "%ld,\"method\":\"tools/call\",\"params\":{\"name\":\""
		    LAT_TOOL "\",\"arguments\":{\"message\":\"%s\"}}}\n", id,
		    message);
	if (n < 0 || (size_t)n >= sizeof(req))
		die("request too long");
	write_all(c, req, (size_t)n);
}

/* One sequential call, checked; returns its wall time in µs. */
static double
call_once(struct child *c)
{
	cJSON *m, *content, *text;
	double t0, t1;
	long id = c->next_id++;

	t0 = now_us();
	send_call(c, id);
	m = await_answer(c, id, NULL);
	t1 = now_us();
	content = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(m, "result"), "content");
	text = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetArrayItem(content, 0), "text");
	if (opt_big >= 0 ? !cJSON_IsString(text) ||
	    strlen(text->valuestring) != (size_t)opt_big :
	    !cJSON_IsString(text) || strcmp(text->valuestring, message) != 0)
		die("%s: %s did not answer as it should",
		    target_name[c->target], opt_big >= 0 ? LAT_BIG_TOOL :
		    LAT_TOOL);
	cJSON_Delete(m);
	return t1 - t0;
}

/*
 * Spawns the target and completes the handshake as a client does:
 * initialize, notifications/initialized, tools/list (echo must be there).
 * Returns the time from spawn to the initialize answer in µs.
 */
static double
session_open(struct child *c, enum target t, char *const argv[])
{
	static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":0,"
	    "\"method\":\"initialize\",\"params\":{\"protocolVersion\":\""
	    LAT_PROTOCOL "\",\"capabilities\":{},\"clientInfo\":{\"name\":"
	    "\"bouncer-bench\",\"version\":\"1.0.0\"}}}\n";
	static const char inited[] = "{\"jsonrpc\":\"2.0\","
	    "\"method\":\"notifications/initialized\"}\n";
	static const char list[] = "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"tools/list\"}\n";
	cJSON *m, *tools, *tool, *name;
	double t0, t1;
	int found = 0;

	t0 = now_us();
	child_spawn(c, t, argv);
	write_all(c, init, sizeof(init) - 1);
	m = await_answer(c, 0, NULL);
	t1 = now_us();
	cJSON_Delete(m);
	write_all(c, inited, sizeof(inited) - 1);
	write_all(c, list, sizeof(list) - 1);
	m = await_answer(c, 1, NULL);
	tools = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(m, "result"), "tools");
	cJSON_ArrayForEach(tool, tools) {
		name = cJSON_GetObjectItemCaseSensitive(tool, "name");
		if (cJSON_IsString(name) &&
		    strcmp(name->valuestring, opt_big >= 0 ? LAT_BIG_TOOL :
		    LAT_TOOL) == 0)
			found = 1;
	}
	cJSON_Delete(m);
	if (!found)
		die("%s: no \"%s\" tool listed", target_name[t],
		    opt_big >= 0 ? LAT_BIG_TOOL : LAT_TOOL);
	c->next_id = 2;
	return t1 - t0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile p (1..100) of sorted v[0..n-1]. */
static double
pct(const double *v, size_t n, size_t p)
{
	size_t k = (p * n + 99) / 100;

	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

static struct stats
stats_of(double *v, size_t n)
{
	struct stats s;

	qsort(v, n, sizeof(*v), cmp_double);
	s.p50 = pct(v, n, 50);
	s.p90 = pct(v, n, 90);
	s.p99 = pct(v, n, 99);
	return s;
}

static double
median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	if (n % 2 == 1)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* calls with up to inflight requests outstanding; returns calls/s. */
static double
throughput(struct child *c, long calls, long inflight)
{
	char *pending;
	cJSON *m;
	double t0, t1;
	long base = c->next_id, sent = 0, done = 0, got;

	if ((pending = calloc((size_t)calls, 1)) == NULL)
		die("out of memory");
	t0 = now_us();
	while (done < calls) {
		while (sent < calls && sent - done < inflight) {
			pending[sent] = 1;
			send_call(c, base + sent);
			sent++;
		}
		m = await_answer(c, -1, &got);
		cJSON_Delete(m);
		if (got < base || got >= base + sent || !pending[got - base])
			die("%s: answer to id %ld not pending",
			    target_name[c->target], got);
		pending[got - base] = 0;
		done++;
	}
	t1 = now_us();
	c->next_id = base + calls;
	free(pending);
	return (double)calls / ((t1 - t0) / 1e6);
}

static long
numarg(const char *s, long min, long max, int opt)
{
	char *ep;
	long v;

	errno = 0;
	v = strtol(s, &ep, 10);
	if (errno != 0 || *s == '\0' || *ep != '\0' || v < min || v > max)
		die("-%c: want a number from %ld to %ld, not \"%s\"", opt,
		    min, max, s);
	return v;
}

/*
 * Chooses the CPUs of -p among those this process may use and moves this
 * process, the client, to its own.
 */
static void
place(void)
{
	cpu_set_t allowed;
	int cpu, n = 0;

	if (placement == P_FREE)
		return;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) == -1)
		die("sched_getaffinity: %s", strerror(errno));
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &allowed))
			cpu_of[n++] = cpu;
	if (n == 0)
		die("no CPU to run on");
	if (placement == P_SPLIT && n < 2)
		die("-p split needs two CPUs and this process may use one; "
		    "use -p one");
	if (placement == P_ONE)
		cpu_of[1] = cpu_of[0];
	CPU_ZERO(&cpu_client);
	CPU_ZERO(&cpu_server);
	CPU_SET(cpu_of[0], &cpu_client);
	CPU_SET(cpu_of[1], &cpu_server);
	if (sched_setaffinity(0, sizeof(cpu_client), &cpu_client) == -1)
		die("sched_setaffinity: %s", strerror(errno));
}

static enum placement
placement_arg(const char *s)
{
	int p;

	for (p = 0; p < P_COUNT; p++)
		if (strcmp(s, placement_name[p]) == 0)
			return (enum placement)p;
	die("-p: want split, one or free, not \"%s\"", s);
}

/*
 * The kB value of the line starting with key in a /proc file, 0 if there
 * is none, or -1 if the file cannot be opened (smaps_rollup needs ptrace
 * access, which a non-dumpable process gives only to root).
 */
static long
proc_kib(pid_t pid, const char *file, const char *key)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, file);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, klen) == 0) {
			v = strtol(line + klen, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* The parent of pid, from /proc/pid/stat (after the command's ')'). */
static pid_t
proc_ppid(pid_t pid)
{
	char path[64], buf[512], *p;
	long ppid = -1;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %*c %ld", &ppid) != 1)
		return -1;
	return (pid_t)ppid;
}

/*
 * Sums VmRSS and Pss over root and its descendants whose executable is
 * not skip (the upstream).  Returns the number of processes summed; *pss
 * is -1 if the Pss of one of them could not be read.
 */
static int
proc_mem(pid_t root, const char *skip, long *rss, long *pss)
{
	static pid_t pids[LAT_PROCS_MAX], par[LAT_PROCS_MAX];
	static pid_t tree[LAT_PROCS_MAX];
	char path[64], exe[PATH_MAX];
	size_t np = 0, nt = 0, i, j;
	struct dirent *de;
	ssize_t n;
	DIR *d;
	long v;
	int count = 0, unknown = 0;

	*rss = *pss = 0;
	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL && np < LAT_PROCS_MAX) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pids[np] = (pid_t)strtol(de->d_name, NULL, 10);
		par[np] = proc_ppid(pids[np]);
		np++;
	}
	closedir(d);
	tree[nt++] = root;
	for (i = 0; i < nt; i++)	/* breadth first: children in turn */
		for (j = 0; j < np && nt < LAT_PROCS_MAX; j++)
			if (par[j] == tree[i])
				tree[nt++] = pids[j];
	for (i = 0; i < nt; i++) {
		snprintf(path, sizeof(path), "/proc/%ld/exe", (long)tree[i]);
		if ((n = readlink(path, exe, sizeof(exe) - 1)) > 0) {
			exe[n] = '\0';
			if (skip != NULL && strcmp(exe, skip) == 0)
				continue;
		}
		if ((v = proc_kib(tree[i], "status", "VmRSS:")) > 0)
			*rss += v;
		if ((v = proc_kib(tree[i], "smaps_rollup", "Pss:")) < 0)
			unknown = 1;
		else
			*pss += v;
		count++;
	}
	if (unknown)
		*pss = -1;
	return count;
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr,
	    "usage: latency [-n calls] [-w warmup] [-r rounds] [-j inflight]\n"
	    "               [-s msglen | -b bytes] [-t timeout] [-e errlog]\n"
	    "               [-u upstream-command]\n"
	    "               [-p split|one|free] [-P peer-command]\n"
	    "               -- bouncer-monitor [monitor-args ...]\n"
	    "  spawns UPSTREAM directly and as\n"
	    "  `bouncer-monitor monitor-args -- UPSTREAM`; UPSTREAM defaults\n"
	    "  to regress/mocks/mock-upstream and needs an `echo` tool (or,\n"
	    "  with -b, a `big` tool answering {bytes} with that much text).\n"
	    "  -u and -P take a command's words, split on blanks.\n"
	    "  -e appends the children's stderr to errlog.\n"
	    "  -p: client and server side on two CPUs (split, default), all\n"
	    "  on one CPU (one), or where the scheduler puts them (free).\n"
	    "  -P: also `peer-command UPSTREAM` (its words split on blanks),\n"
	    "  another proxy timed in the same rounds; prints the ratio of\n"
	    "  bouncer's added latency to the peer's.\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	struct child ch[T_COUNT];
	struct stats all[T_COUNT], rs;
	char *dargv[LAT_ARGS_MAX + 1], *bargv[2 * LAT_ARGS_MAX + 2];
	char *pargv[2 * LAT_ARGS_MAX + 1], *uwords = NULL;
	int nup = 0, j;
	char **targv[T_COUNT], *peer = NULL, *words = NULL, *w, *save;
	char *upstream = "regress/mocks/mock-upstream";
	double *samples[T_COUNT], *round_p50[T_COUNT], *round_p90[T_COUNT];
	double *add50, *add90, *start[T_COUNT], *tput[T_COUNT];
	double startup[T_COUNT], rate[T_COUNT], added50, added90;
	double *padd50, *padd90, peer50 = 0, peer90 = 0;
	long calls = LAT_CALLS_DEFAULT, warmup = LAT_WARMUP_DEFAULT;
	long rounds = LAT_ROUNDS_DEFAULT, inflight = LAT_INFLIGHT_DEFAULT;
	long msglen = LAT_MSGLEN_DEFAULT, i, r, rss, pss;
	char pssbuf[32];
	char upexe[PATH_MAX];
	int ch_opt, t, nargs, nproc, ntargets = T_PEER;

	while ((ch_opt = getopt(argc, argv, "+b:e:j:n:P:p:r:s:t:u:w:")) != -1) {
		switch (ch_opt) {
		case 'b':
			opt_big = numarg(optarg, 0, LAT_BIG_MAX, ch_opt);
			break;
		case 'e':
			if ((errfd = open(optarg, O_WRONLY | O_CREAT |
			    O_APPEND | O_CLOEXEC, 0600)) == -1)
				die("%s: %s", optarg, strerror(errno));
			break;
		case 'j':
			inflight = numarg(optarg, 1, LAT_INFLIGHT_MAX, ch_opt);
			break;
		case 'n':
			calls = numarg(optarg, 1, LAT_CALLS_MAX, ch_opt);
			break;
		case 'P':
			peer = optarg;
			break;
		case 'p':
			placement = placement_arg(optarg);
			break;
		case 'r':
			rounds = numarg(optarg, 1, LAT_ROUNDS_MAX, ch_opt);
			break;
		case 's':
			msglen = numarg(optarg, 1, LAT_MSGLEN_MAX, ch_opt);
			break;
		case 't':
			opt_timeout = (int)numarg(optarg, 1, LAT_TIMEOUT_MAX,
			    ch_opt);
			break;
		case 'u':
			upstream = optarg;
			break;
		case 'w':
			warmup = numarg(optarg, 0, LAT_CALLS_MAX, ch_opt);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || argc > LAT_ARGS_MAX)
		usage();
	if (calls * rounds > LAT_SAMPLES_MAX)
		die("-n times -r exceeds %d samples", LAT_SAMPLES_MAX);

	/* A child that dies is an EPIPE to report, not a silent exit. */
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if ((message = malloc((size_t)msglen + 1)) == NULL)
		die("out of memory");
	for (i = 0; i < msglen; i++)
		message[i] = (char)('a' + i % 26);
	message[msglen] = '\0';

	/* the upstream: its command's words (-u "mock-upstream -t 100") */
	if ((uwords = strdup(upstream)) == NULL)
		die("out of memory");
	for (w = strtok_r(uwords, " \t", &save); w != NULL;
	    w = strtok_r(NULL, " \t", &save)) {
		if (nup == LAT_ARGS_MAX)
			die("-u: more than %d words", LAT_ARGS_MAX);
		dargv[nup++] = w;
	}
	if (nup == 0)
		die("-u: an empty command");
	dargv[nup] = NULL;
	upstream = dargv[0];
	nargs = 0;
	for (i = 0; i < argc; i++)
		bargv[nargs++] = argv[i];
	bargv[nargs++] = "--";
	for (j = 0; j < nup; j++)
		bargv[nargs++] = dargv[j];
	bargv[nargs] = NULL;
	/* the peer: its command's words, then the upstream */
	if (peer != NULL) {
		if ((words = strdup(peer)) == NULL)
			die("out of memory");
		nargs = 0;
		for (w = strtok_r(words, " \t", &save); w != NULL;
		    w = strtok_r(NULL, " \t", &save)) {
			if (nargs == LAT_ARGS_MAX)
				die("-P: more than %d words", LAT_ARGS_MAX);
			pargv[nargs++] = w;
		}
		if (nargs == 0)
			die("-P: an empty command");
		for (j = 0; j < nup; j++)
			pargv[nargs++] = dargv[j];
		pargv[nargs] = NULL;
		ntargets = T_COUNT;
	}
	targv[T_DIRECT] = dargv;
	targv[T_BOUNCER] = bargv;
	targv[T_PEER] = pargv;

	for (t = 0; t < ntargets; t++) {
		if ((samples[t] = calloc((size_t)(calls * rounds),
		    sizeof(double))) == NULL ||
		    (round_p50[t] = calloc((size_t)rounds,
		    sizeof(double))) == NULL ||
		    (round_p90[t] = calloc((size_t)rounds,
		    sizeof(double))) == NULL ||
		    (start[t] = calloc((size_t)rounds,
		    sizeof(double))) == NULL ||
		    (tput[t] = calloc((size_t)rounds,
		    sizeof(double))) == NULL)
			die("out of memory");
	}
	if ((add50 = calloc((size_t)rounds, sizeof(double))) == NULL ||
	    (add90 = calloc((size_t)rounds, sizeof(double))) == NULL ||
	    (padd50 = calloc((size_t)rounds, sizeof(double))) == NULL ||
	    (padd90 = calloc((size_t)rounds, sizeof(double))) == NULL)
		die("out of memory");

	place();
	if (opt_big >= 0)
		printf("latency: upstream %s, tool %s, %ld-byte result\n",
		    upstream, LAT_BIG_TOOL, opt_big);
	else
		printf("latency: upstream %s, tool %s, %ld-byte message\n",
		    upstream, LAT_TOOL, msglen);
	if (placement == P_FREE)
		printf("latency: placement free (the scheduler's)\n");
	else
		printf("latency: placement %s: client on CPU %d, server side "
		    "on CPU %d\n", placement_name[placement], cpu_of[0],
		    cpu_of[1]);
	for (t = T_BOUNCER; t < ntargets; t++) {
		printf("latency: %s:", target_name[t]);
		for (i = 0; targv[t][i] != NULL; i++)
			printf(" %s", targv[t][i]);
		printf("\n");
	}
	printf("latency: %ld rounds x %ld sequential calls per target "
	    "(warm-up %ld), then %ld in flight\n", rounds, calls, warmup,
	    inflight);

	/* Start-up: spawn to the initialize answer, alternating. */
	for (r = 0; r < rounds; r++) {
		for (t = 0; t < ntargets; t++) {
			start[t][r] = session_open(&ch[t], t,
			    targv[t]);
			child_close(&ch[t]);
		}
	}
	for (t = 0; t < ntargets; t++) {
		startup[t] = median(start[t], (size_t)rounds);
		printf("startup   %-8s median %10.1f µs  (spawn to initialize "
		    "answer)\n", target_name[t], startup[t]);
	}

	/* The sessions the calls use; each warmed up once. */
	for (t = 0; t < ntargets; t++) {
		session_open(&ch[t], t, targv[t]);
		for (i = 0; i < warmup; i++)
			call_once(&ch[t]);
	}

	for (r = 0; r < rounds; r++) {
		for (t = 0; t < ntargets; t++) {
			double *v = samples[t] + r * calls, *tmp;

			for (i = 0; i < calls; i++)
				v[i] = call_once(&ch[t]);
			if ((tmp = malloc((size_t)calls *
			    sizeof(double))) == NULL)
				die("out of memory");
			memcpy(tmp, v, (size_t)calls * sizeof(double));
			rs = stats_of(tmp, (size_t)calls);
			free(tmp);
			round_p50[t][r] = rs.p50;
			round_p90[t][r] = rs.p90;
			printf("round %-3ld %-8s p50 %8.1f  p90 %8.1f  "
			    "p99 %8.1f µs\n", r + 1, target_name[t],
			    rs.p50, rs.p90, rs.p99);
		}
		add50[r] = round_p50[T_BOUNCER][r] - round_p50[T_DIRECT][r];
		add90[r] = round_p90[T_BOUNCER][r] - round_p90[T_DIRECT][r];
		if (ntargets == T_COUNT) {
			padd50[r] = round_p50[T_PEER][r] -
			    round_p50[T_DIRECT][r];
			padd90[r] = round_p90[T_PEER][r] -
			    round_p90[T_DIRECT][r];
		}
	}
	for (t = 0; t < ntargets; t++) {
		all[t] = stats_of(samples[t], (size_t)(calls * rounds));
		printf("all       %-8s p50 %8.1f  p90 %8.1f  p99 %8.1f µs  "
		    "(%ld calls)\n", target_name[t], all[t].p50, all[t].p90,
		    all[t].p99, calls * rounds);
	}
	added50 = median(add50, (size_t)rounds);
	added90 = median(add90, (size_t)rounds);
	printf("added     bouncer  p50 %8.1f  p90 %8.1f µs  (median over "
	    "rounds of bouncer - direct)\n", added50, added90);
	if (ntargets == T_COUNT) {
		peer50 = median(padd50, (size_t)rounds);
		peer90 = median(padd90, (size_t)rounds);
		printf("added     peer     p50 %8.1f  p90 %8.1f µs  (median over "
		    "rounds of peer - direct)\n", peer50, peer90);
		/* the figure that travels: both added in the same rounds */
		printf("ratio     bouncer/peer  p50 %6.2f  p90 %6.2f  (added "
		    "latency; below 1: bouncer adds less)\n",
		    peer50 > 0 ? added50 / peer50 : -1,
		    peer90 > 0 ? added90 / peer90 : -1);
	}

	for (r = 0; r < rounds; r++)
		for (t = 0; t < ntargets; t++)
			tput[t][r] = throughput(&ch[t], calls, inflight);
	for (t = 0; t < ntargets; t++) {
		rate[t] = median(tput[t], (size_t)rounds);
		printf("throughput %-8s %10.0f calls/s  (%ld in flight, "
		    "median of %ld rounds)\n", target_name[t], rate[t],
		    inflight, rounds);
	}

	if (realpath(upstream, upexe) == NULL)
		die("%s: %s", upstream, strerror(errno));
	nproc = proc_mem(ch[T_BOUNCER].pid, upexe, &rss, &pss);
	/* bouncer's processes are not dumpable: only root reads their Pss */
	snprintf(pssbuf, sizeof(pssbuf), "%ld", pss);
	printf("memory    bouncer  %ld KiB resident, %s%s "
	    "(%d processes, the upstream not counted, after %ld calls)\n",
	    rss, pss >= 0 ? pssbuf : "proportional unknown (needs root)",
	    pss >= 0 ? " KiB proportional" : "", nproc,
	    warmup + calls * rounds * 2);

	for (t = 0; t < ntargets; t++)
		child_close(&ch[t]);

	printf("{\"placement\":\"%s\",\"calls\":%ld,\"warmup\":%ld,"
	    "\"rounds\":%ld,\"inflight\":%ld,\"msglen\":%ld,"
	    "\"result_bytes\":%ld", placement_name[placement], calls, warmup,
	    rounds, inflight, msglen, opt_big >= 0 ? opt_big : msglen);
	for (t = 0; t < ntargets; t++)
		printf(",\"%s\":{\"p50_us\":%.1f,\"p90_us\":%.1f,"
		    "\"p99_us\":%.1f,\"startup_us\":%.1f,"
		    "\"calls_per_s\":%.0f}", target_name[t], all[t].p50,
		    all[t].p90, all[t].p99, startup[t], rate[t]);
	printf(",\"added_p50_us\":%.1f,\"added_p90_us\":%.1f,"
	    "\"added_startup_us\":%.1f,\"bouncer_rss_kib\":%ld,"
	    "\"bouncer_pss_kib\":%s,\"bouncer_procs\":%d", added50,
	    added90, startup[T_BOUNCER] - startup[T_DIRECT], rss,
	    pss >= 0 ? pssbuf : "null", nproc);
	if (ntargets == T_COUNT)
		printf(",\"peer_added_p50_us\":%.1f,\"peer_added_p90_us\":%.1f,"
		    "\"ratio_p50\":%.3f,\"ratio_p90\":%.3f", peer50, peer90,
		    peer50 > 0 ? added50 / peer50 : -1,
		    peer90 > 0 ? added90 / peer90 : -1);
	printf("}\n");

	for (t = 0; t < ntargets; t++) {
		free(samples[t]);
		free(round_p50[t]);
		free(round_p90[t]);
		free(start[t]);
		free(tput[t]);
	}
	free(add50);
	free(add90);
	free(padd50);
	free(padd90);
	free(words);
	free(uwords);
	free(message);
	return 0;
}
