/*
 * monitor.c - bouncer-monitor: start-up, supervision and shutdown.
 *
 * The monitor holds the session's state and every decision; it parses
 * no JSON from a client, an upstream or a web API (DESIGN 2).  It execs
 * a sandboxed worker for the client's stdin and one for each upstream's
 * stdout, writes the client's stdout and the upstreams' stdin itself,
 * and ends the session — children reaped, exit non-zero — when a child
 * breaks protocol.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <sodium.h>

#include "approvals.h"
#include "audit.h"
#include "bounds.h"
#include "buf.h"
#include "carriers.h"
#include "checkpoint.h"
#include "child.h"
#include "client.h"
#include "conffile.h"
#include "consent.h"
#include "credaudit.h"
#include "err.h"
#include "gate.h"
#include "log.h"
#include "mcpconfig.h"
#include "monitor.h"
#include "msg.h"
#include "policy.h"
#include "registry.h"
#include "session.h"
#include "spawn.h"
#include "surface.h"
#include "taint.h"
#include "upstream.h"
#include "xmalloc.h"

static struct session *the_session;

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: bouncer-monitor [-dtvC] [-f config] "
	    "[-P policy] [-n name] [-c mcp-config -u name]\n"
	    "                       [-- command [arg ...]]\n");
	exit(1);
}

/* fatal() ends here: children are killed and reaped, never orphaned. */
void
cleanup_exit(int code)
{
	struct session *s = the_session;
	int i;

	if (s != NULL) {
		if (s->audit != NULL) {
			gate_audit_event(s, "fatal", log_last_fatal());
			audit_close(s->audit);
			s->audit = NULL;
		}
		session_event(s, SEV_FATAL);
		child_kill_all(SIGTERM);
		for (i = 0; i < 100 && !child_all_exited(); i++) {
			usleep(10000);
			child_reap_quiet();
		}
		child_kill_all(SIGKILL);
		while (!child_all_exited())
			child_reap_wait();
		child_stderr_close();
		/* the answers it still owes the client, if it reads them */
		client_flush(s);
	}
	_exit(code);
}

static void
log_cleanup(int code)
{
	cleanup_exit(code);
}

/* Environment overrides of paths count only when we are not setgid. */
static const char *
env_path(const char *name)
{
	const char *v;

	if (getuid() != geteuid() || getgid() != getegid())
		return NULL;
	if ((v = getenv(name)) == NULL || *v == '\0')
		return NULL;
	return v;
}

/* Helpers only from a directory nobody else can write (DESIGN 2). */
static const char *
libexec_dir(void)
{
	const char *dir = BNC_LIBEXECDIR, *env;
	struct stat st;

	if ((env = env_path("BOUNCER_LIBEXEC")) != NULL)
		dir = env;
	if (stat(dir, &st) == -1)
		fatal("helper directory %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode) || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		fatal("helper directory %s is not a directory or is "
		    "writable by others", dir);
	return dir;
}

static void
stdio_to_devnull(void)
{
	int fd;

	if ((fd = open("/dev/null", O_RDWR)) == -1)
		fatal("/dev/null: %s", strerror(errno));
	if (dup2(fd, STDIN_FILENO) == -1 || dup2(fd, STDOUT_FILENO) == -1)
		fatal("dup2: %s", strerror(errno));
	if (fd > STDERR_FILENO)
		close(fd);
}

static void
lint_warning(const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "bouncer-monitor: warning: %s\n", msg);
}

/*
 * Policy layers: the shipped packs, the config's extra pack directories,
 * then the user policy (-P, else policy: in the config), which wins.
 */
static struct policy *
load_policy(const struct config *cfg, const char *upath, int lint)
{
	struct policy *p;
	const char *packs;
	char err[1024];
	size_t i;

	p = policy_new();
	if ((packs = env_path("BOUNCER_PACKS")) == NULL)
		packs = BNC_PKGDATADIR "/packs";
	if (policy_load_dir(p, packs, 1, err, sizeof(err)) != 0)
		goto fail;
	for (i = 0; i < cfg->npacks; i++)
		if (policy_load_dir(p, cfg->packs[i], 1, err,
		    sizeof(err)) != 0)
			goto fail;
	for (i = 0; i < cfg->nforbidden; i++)
		policy_add_forbidden(p, cfg->forbidden[i]);
	if (upath == NULL)
		upath = cfg->policy;
	if (upath != NULL && policy_load_file(p, upath, 0, err,
	    sizeof(err)) != 0)
		goto fail;
	/* the upstreams: their servers and tools follow once pinned */
	for (i = 0; i < cfg->nups; i++)
		policy_scope_upstream(p, cfg->ups[i].name, NULL);
	/* -t: a warning is a problem too (DESIGN 1.1: 0 only if clean). */
	if (lint && policy_lint(p, lint_warning, NULL) > 0)
		exit(1);
	return p;
 fail:
	fprintf(stderr, "bouncer-monitor: %s\n", err);
	exit(1);
}

/* One line per problem of the registry: FILE:LINE: agent ID: KEY: ... */
static void
registry_problem(void *arg, const char *file, unsigned long line,
    const char *agent, const char *msg)
{
	int *n = arg;

	(*n)++;
	if (line == 0)
		fprintf(stderr, "bouncer-monitor: %s: %s\n", file, msg);
	else if (agent != NULL)
		fprintf(stderr, "bouncer-monitor: %s:%lu: agent %s: %s\n",
		    file, line, agent, msg);
	else
		fprintf(stderr, "bouncer-monitor: %s:%lu: %s\n", file, line,
		    msg);
}

/*
 * The registry (registry: in the config), checked whole: with -t every
 * problem is printed and the exit status says if there was one; without
 * it, a registry with a problem starts no session.
 */
static struct registry *
load_registry(const struct config *cfg, struct policy *pol)
{
	struct registry *reg = NULL;
	int n = 0, r;

	if (cfg->registry == NULL)
		return NULL;
	r = registry_load(cfg->registry, pol, cfg->forbidden,
	    cfg->nforbidden, registry_problem, &n, &reg);
	if (r != 0) {
		fprintf(stderr, "bouncer-monitor: %s: %d problem%s; it is "
		    "not used\n", cfg->registry, n > 0 ? n : 1, n == 1 ? "" :
		    "s");
		exit(1);
	}
	return reg;
}

/*
 * -t: can each upstream's command be found and run, looked for as
 * spawn_child will (its cwd, the PATH of its env or ours)?  One line per
 * problem; their number.
 */
static int
check_commands(const struct config *cfg)
{
	static const char *const why_slash = "does not exist",
	    *const why_path = "is not found in PATH";
	const struct upstream_cfg *u;
	struct spawn_spec sp;
	char path[PATH_MAX];
	const char *why;
	size_t i, j;
	int bad = 0, r;

	for (i = 0; i < cfg->nups; i++) {
		u = &cfg->ups[i];
		spawn_spec_init(&sp);
		sp.path = u->command;
		sp.cwd = u->cwd;
		for (j = 0; j < u->nenv; j++)
			if (strncmp(u->env[j], "PATH=", 5) == 0)
				sp.envp = u->env;
		if ((r = spawn_resolve(&sp, path, sizeof(path))) == 0)
			continue;
		if (r == -BNC_ERR_NOT_FOUND)
			why = strchr(u->command, '/') != NULL ? why_slash :
			    why_path;
		else if (r == -BNC_ERR_SYS)
			why = "is not an executable file";
		else
			why = "is too long a path";
		fprintf(stderr, "bouncer-monitor: upstream %s: command "
		    "\"%s\" %s\n", u->name, u->command, why);
		bad++;
	}
	return bad;
}

/*
 * Are built-in work tools offered: a carrier configured, and a registry
 * to grant them (builtin.c offers them to registered agents only)?
 */
static int
any_work(const struct session *s)
{
	int k;

	for (k = 0; k < WORK_KINDS && s->registry != NULL; k++)
		if (carriers_configured(s, k))
			return 1;
	return 0;
}

/*
 * Who the client is (DESIGN 6): the agent whose bearer token the MCP
 * client put in this server's environment.  The token leaves the
 * environment before any child starts (an upstream must never learn
 * it) and is wiped; only its hash was compared.  No registry: the one
 * implicit agent.  A registry and no known token: the session runs, and
 * refuses every request with the reason (client.c), audited once.
 */
static void
identify(struct session *s)
{
	const struct registry_agent *a = NULL;
	char *tok = getenv("BOUNCER_AGENT_TOKEN");
	size_t len = tok != NULL ? strlen(tok) : 0;

	s->agent = "-";
	if (s->registry != NULL && len == 0) {
		s->agent = "unknown";
		s->identity_error = "no agent token: a registry is "
		    "configured, and the MCP client set no "
		    "BOUNCER_AGENT_TOKEN in this server's environment";
	} else if (s->registry != NULL &&
	    (a = registry_find_token(s->registry, tok, len)) == NULL) {
		s->agent = "unknown";
		s->identity_error = "unknown agent: the token in "
		    "BOUNCER_AGENT_TOKEN is not in the registry";
	} else if (a != NULL) {
		s->grant = a;
		s->agent = a->id;
	}
	if (tok != NULL)
		sodium_memzero(tok, len);
	if (unsetenv("BOUNCER_AGENT_TOKEN") == -1)
		fatal("unsetenv: %s", strerror(errno));
	if (s->identity_error != NULL)
		error("%s", s->identity_error);
	else if (s->grant != NULL)
		verbose("agent %s (tier %s)", s->grant->id,
		    registry_tier_name(s->grant->tier));
}

int
main(int argc, char **argv)
{
	struct config cfg;
	struct session sess;
	enum bnc_loglevel level = LOG_LEVEL_INFO;
	const char *cfgpath = NULL, *name = "upstream";
	const char *upolicy = NULL, *mcpfile = NULL, *mcpname = NULL;
	struct audit *audit = NULL;
	struct child_env cenv;
	uint8_t rnd[16];
	char err[1024], *defpath = NULL, cwd[BNC_PATH_MAX];
	int ch, test = 0, credaudit = 0, r, out, ckpt;
	size_t i, tcap;

	log_init("bouncer-monitor", level);
	/*
	 * Before anything is read: upstream servers run unconfined as the
	 * same user, and a dumpable monitor would let them ptrace it or
	 * read /proc/PID/mem, where its policy, approvals and (later)
	 * consent keys are.  This also means no core dump.
	 */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1)
		fatal("prctl(PR_SET_DUMPABLE): %s", strerror(errno));
	memset(&sess, 0, sizeof(sess));
	sess.out_fd = -1;
	while ((ch = getopt(argc, argv, "+dtvCc:f:P:n:u:")) != -1) {
		switch (ch) {
		case 'd':
			if (level < LOG_LEVEL_DEBUG1)
				level = LOG_LEVEL_DEBUG1;
			else if (level < LOG_LEVEL_DEBUG3)
				level++;
			break;
		case 'v':
			if (level < LOG_LEVEL_VERBOSE)
				level = LOG_LEVEL_VERBOSE;
			break;
		case 't':
			test = 1;
			break;
		case 'C':
			credaudit = 1;
			break;
		case 'f':
			cfgpath = optarg;
			break;
		case 'P':
			upolicy = optarg;
			break;
		case 'c':
			mcpfile = optarg;
			break;
		case 'u':
			mcpname = optarg;
			break;
		case 'n':
			name = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	log_set_level(level);

	config_defaults(&cfg);
	if (cfgpath == NULL)
		cfgpath = defpath = config_default_path();
	if (cfgpath != NULL && (r = config_load(&cfg, cfgpath, err,
	    sizeof(err))) != 0) {
		fprintf(stderr, "bouncer-monitor: %s\n", err);
		exit(1);
	}
	config_env_state_dir(&cfg);
	if ((mcpfile == NULL) != (mcpname == NULL)) {
		fprintf(stderr, "bouncer-monitor: -c and -u go together\n");
		exit(1);
	}
	if (mcpfile != NULL && argc > 0) {
		fprintf(stderr, "bouncer-monitor: -c/-u and -- exclude each "
		    "other\n");
		exit(1);
	}
	if (mcpfile != NULL) {
		struct upstream_cfg u;

		memset(&u, 0, sizeof(u));
		if (!config_upstream_name_ok(mcpname)) {
			fprintf(stderr, "bouncer-monitor: -u: bad upstream "
			    "name \"%s\"\n", mcpname);
			exit(1);
		}
		if (mcpconfig_load(mcpfile, mcpname, &u, err,
		    sizeof(err)) != 0) {
			fprintf(stderr, "bouncer-monitor: %s\n", err);
			exit(1);
		}
		config_set_upstream(&cfg, &u);
	}
	if (argc > 0) {
		if (!config_upstream_name_ok(name)) {
			fprintf(stderr, "bouncer-monitor: -n: bad upstream "
			    "name \"%s\"\n", name);
			exit(1);
		}
		config_set_command(&cfg, name, argv);
	}
	if (test && credaudit) {
		fprintf(stderr, "bouncer-monitor: -t and -C exclude each "
		    "other\n");
		exit(1);
	}
	if (sodium_init() < 0)
		fatal("libsodium cannot start");
	sess.policy = load_policy(&cfg, upolicy, test);
	sess.registry = load_registry(&cfg, sess.policy);
	/* the public keys consent tokens may be signed with (DESIGN 7) */
	if (cfg.consent_keys != NULL && consent_keys_load(cfg.consent_keys,
	    &sess.consent_keys, err, sizeof(err)) != 0) {
		fprintf(stderr, "bouncer-monitor: consent.keys: %s\n", err);
		exit(1);
	}
	/* a directory named and empty or absent trusts no key: every
	 * token is refused, which -t reports and a session logs */
	if (cfg.consent_keys != NULL &&
	    consent_keys_count(sess.consent_keys) == 0) {
		fprintf(stderr, "bouncer-monitor: %sconsent.keys: no key "
		    "in %s: every consent token will be refused\n",
		    test ? "" : "warning: ", cfg.consent_keys);
		if (test)
			exit(1);
	}
	/*
	 * The credential files are opened now, before any untrusted input
	 * (and in packaged mode with the monitor's group); their bytes are
	 * read only to hand them to a carrier (carriers.c).
	 */
	if (carriers_open(&sess, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "bouncer-monitor: work: %s\n", err);
		exit(1);
	}
	/*
	 * A session gates upstreams, built-in work tools, or both
	 * (DESIGN 1); with neither it would offer nothing.  -t checks
	 * what it is given (the upstream may come at run time); -C
	 * needs none.
	 */
	if (cfg.nups == 0 && !any_work(&sess) && !test && !credaudit) {
		fprintf(stderr, "bouncer-monitor: nothing to gate: no "
		    "upstream configured (give one after -- or in %s) and "
		    "no work tools (they need a registry)\n",
		    cfgpath != NULL ? cfgpath : "bouncer.yaml");
		exit(1);
	}
	if (credaudit) {
		/* no client, no upstream: the carriers alone (DESIGN 8) */
		signal(SIGPIPE, SIG_IGN);
		sess.cfg = &cfg;
		sess.libexec = libexec_dir();
		mem_init(&sess.mem, cfg.max_session_memory);
		the_session = &sess;
		log_set_cleanup(log_cleanup);
		exit(credaudit_run(&sess, &cfg, stdout));
	}
	if (test) {
		if (check_commands(&cfg) > 0)
			exit(1);
		consent_keys_free(sess.consent_keys);
		registry_free(sess.registry);
		policy_free(sess.policy);
		config_free(&cfg);
		free(defpath);
		exit(0);
	}
	/* forked before any SQLite connection is open (checkpoint.c) */
	ckpt = checkpoint_start(cfg.state_dir);
	/* Nothing is forwarded without its audit row: no log, no session. */
	if (audit_open(cfg.state_dir, cfg.audit_sync_full ? AUDIT_SYNC_FULL :
	    AUDIT_SYNC_NORMAL, cfg.audit_record_full, &audit, err,
	    sizeof(err)) != 0) {
		fprintf(stderr, "bouncer-monitor: audit log: %s\n", err);
		exit(1);
	}
	audit_checkpoint_via(audit, ckpt);
	sess.audit = audit;
	/*
	 * The taint index has its share of max_session_memory set aside
	 * whole; everything else the session holds shares the rest.
	 */
	tcap = taint_cap_for(cfg.max_session_memory / 100 *
	    BNC_TAINT_SHARE_PCT);
	sess.taint = taint_new(tcap);
	mem_init(&sess.mem, cfg.max_session_memory -
	    taint_memory_bound(tcap));
	debug("session memory %zu bytes: taint index cap %zu (at most %zu "
	    "bytes), %zu for the rest", cfg.max_session_memory, tcap,
	    taint_memory_bound(tcap), sess.mem.cap);
	sess.approvals = approvals_new();
	identify(&sess);
	randombytes_buf(rnd, sizeof(rnd));
	sodium_bin2hex(sess.id, sizeof(sess.id), rnd, sizeof(rnd));
	sess.cwd = xstrdup(getcwd(cwd, sizeof(cwd)) != NULL ? cwd : "/");
	/* the contract engine sees these, and nothing else of the session */
	sess.dc.policy = sess.policy;
	sess.dc.taint = sess.taint;
	sess.dc.approvals = sess.approvals;
	sess.dc.budgets = &sess.budgets;
	sess.dc.cwd = sess.cwd;
	sess.dc.agent = sess.grant;
	sess.dc.agent_id = sess.agent;
	sess.dc.consent_keys = sess.consent_keys;
	sess.dc.consent_skew = cfg.consent_skew;
	sess.dc.consent_max_ttl = cfg.consent_max_ttl;
	sess.dc.sid = sess.id;
#ifdef SANDBOX_DISABLED
	error("THIS BUILD HAS NO SANDBOX (--disable-sandbox): for sanitizer "
	    "builds only; parsers run unconfined");
#endif

	signal(SIGPIPE, SIG_IGN);
	sess.cfg = &cfg;
	sess.libexec = libexec_dir();
	sess.next_sid = 0;
	if ((sess.base = event_base_new()) == NULL)
		fatal("event_base_new");
	the_session = &sess;
	log_set_cleanup(log_cleanup);
	session_setup(&sess);

	cenv.base = sess.base;
	cenv.libexec = sess.libexec;
	cenv.max_message = cfg.max_message;
	cenv.mem = &sess.mem;
	child_setup(&cenv);
	client_worker_init(&sess);
	/*
	 * The client's stdout is ours to write (client.c), on a descriptor
	 * of its own that no child inherits; fd 1 becomes /dev/null, so
	 * nothing but the lines client.c renders can reach the client.
	 */
	if ((out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC,
	    BNC_CHILD_FD_FIRST_FREE)) == -1)
		fatal("client stdout: %s", strerror(errno));
	client_output_init(&sess, out);
	/* the worker reads the client; its fd 1 is /dev/null, as an
	 * upstream worker's is */
	if ((r = child_spawn_worker(&sess.client, ROLE_WORKER_CLIENT, NULL,
	    STDIN_FILENO, SPAWN_DEVNULL)) != 0)
		fatal_r(r, "cannot start the client worker");
	stdio_to_devnull();

	sess.nups = cfg.nups;
	sess.ups = xcalloc(cfg.nups, sizeof(*sess.ups));
	for (i = 0; i < cfg.nups; i++) {
		struct upstream *up = &sess.ups[i];

		up->s = &sess;
		up->cfg = &cfg.ups[i];
		up->name = cfg.ups[i].name;
		up->in_fd = -1;
		up->next_id = 1;
		upstream_children_init(up);
		if ((r = child_spawn_server(&up->proc, &up->worker, up->cfg,
		    up->name, &up->in_fd)) != 0)
			fatal("upstream %s: cannot start", up->name);
		upstream_setup_io(up);
	}
	verbose("started %zu upstream(s)", sess.nups);

	event_base_dispatch(sess.base);
	verbose("session memory: at most %zu of %zu bytes held, besides the "
	    "taint index", sess.mem.peak, sess.mem.cap);
	child_stderr_close();
	/* calls still waiting for a human are denied, and told so */
	gate_cancel_all(&sess);
	client_flush(&sess);
	gate_audit_event(&sess, "shutdown", sess.exit_code == 0 ?
	    "orderly shutdown" : "session ended on an error");
	audit_close(sess.audit);
	sess.audit = NULL;
	surface_free(&sess);
	taint_free(sess.taint);
	approvals_free(sess.approvals);
	budgets_clear(&sess.budgets);
	registry_free(sess.registry);
	consent_keys_free(sess.consent_keys);
	policy_free(sess.policy);
	debug("exit %d", sess.exit_code);
	exit(sess.exit_code);
}
