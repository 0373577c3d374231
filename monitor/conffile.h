/*
 * conffile.h - bouncer.yaml (bouncer.yaml(5)).
 *
 * Read once at start-up by the monitor.  Every error names the file, the
 * line and the key, and the monitor refuses to start.
 */
#ifndef BNC_CONFFILE_H
#define BNC_CONFFILE_H

#include <stddef.h>

struct upstream_cfg {
	char		 *name;
	char		 *command;
	char		**args;		/* NULL-terminated argv[1..] */
	size_t		  nargs;
	char		**env;		/* "K=V", NULL-terminated */
	size_t		  nenv;
	char		 *cwd;
	int		  namespace;
};

/*
 * work: the work systems bouncer's own tools reach through its carriers
 * (DESIGN 7, 8).  Paths are made relative to the file; credentials are
 * read only when a carrier starts.  api_base NULL: the vendor's.
 */
struct work_notion {
	int		 set;
	char		*read_token_file;
	char		*comment_token_file;
	char		*database_id;
	char		*api_base;
};
struct work_github {
	int		 set;
	char		*token_file;
	char		**repos;	/* owner/repo */
	size_t		 nrepos;
	char		*api_base;
};
struct work_channel {
	char		*name;
	char		*webhook_file;
};
struct work_slack {
	int		 set;
	struct work_channel *channels;
	size_t		 nchannels;
	char		*api_base;
};

struct config {
	char			*path;		/* NULL: built-in defaults */
	char			*state_dir;
	size_t			 max_message;
	size_t			 max_session_memory;
	int			 audit_sync_full;	/* audit.sync: full */
	int			 audit_record_full;	/* audit.record_args: full */
	char			*policy;	/* user policy file */
	char			*registry;	/* agents.yaml, or NULL: one
						 * implicit agent */
	char			**packs;	/* extra pack directories */
	size_t			 npacks;
	int			 ask_timeout;	/* asks.timeout, seconds */
	char			*consent_keys;	/* consent.keys: the *.pub
						 * directory, or NULL: none */
	int			 consent_max_ttl; /* consent.max_ttl, seconds */
	int			 consent_skew;	/* consent.skew, seconds */
	char			**forbidden;	/* forbidden_tools */
	size_t			 nforbidden;
	struct upstream_cfg	*ups;
	size_t			 nups;
	struct work_notion	 notion;
	struct work_github	 github;
	struct work_slack	 slack;
};

/* Built-in defaults; state_dir from the environment (XDG). */
void	config_defaults(struct config *);
char	*config_default_path(void);
/*
 * Load path into c (after config_defaults).  Returns 0 or -BNC_ERR_CONFIG
 * with "FILE:LINE: message" in errbuf.
 */
int	config_load(struct config *, const char *path, char *errbuf,
	    size_t errlen);
/* Replace the upstreams with a single command-line one. */
void	config_set_command(struct config *, const char *name, char **argv);
/* Replace the upstreams with *u, taking its contents (u is zeroed). */
void	config_set_upstream(struct config *, struct upstream_cfg *u);
void	config_upstream_free(struct upstream_cfg *);
int	config_upstream_name_ok(const char *);
/*
 * 1 if url may be a carrier's api_base (DESIGN 2): http:// to a loopback
 * host -- 127.0.0.1, [::1] or localhost -- with a port from 1 to 65535
 * and nothing else but an optional final "/"; else 0.
 */
int	config_api_base_ok(const char *url);
void	config_free(struct config *);
/* BOUNCER_STATE_DIR, when set and the program is not setgid, replaces
 * state_dir (DESIGN 1.1): every program finds the monitor's database
 * the same way. */
void	config_env_state_dir(struct config *);
/*
 * What the tools beside the monitor read (bouncer-audit,
 * bouncer-issue-consent): path, else the file the monitor reads without
 * -f, else the built-in defaults; then BOUNCER_STATE_DIR.  0, or
 * -BNC_ERR_CONFIG with "FILE:LINE: message" in err (c is then freed).
 */
int	config_find(struct config *, const char *path, char *err,
	    size_t errlen);

#endif /* BNC_CONFFILE_H */
