/*
 * mcpconfig.h - the upstream bouncer-init stashed in an MCP client config.
 *
 * bouncer-monitor -c FILE -u NAME reads FILE's
 * mcpServers.NAME["x-bouncer-upstream"] (bouncer-init(1)) at start-up,
 * with libyaml, before any untrusted input.  It never calls a JSON parser.
 */
#ifndef BNC_MCPCONFIG_H
#define BNC_MCPCONFIG_H

#include <stddef.h>

struct upstream_cfg;

/*
 * Fills *u (zeroed by the caller) from FILE's
 * mcpServers.NAME["x-bouncer-upstream"]: command, args, env ("K=V") and
 * cwd, with ${VAR} and ${VAR:-default} in command, args and env values
 * expanded from the environment as Claude Code does.  Returns 0, or
 * -BNC_ERR_CONFIG with "FILE:LINE: KEY: message" in err; on error *u is
 * left empty.  The caller frees u's contents with config_upstream_free().
 */
int	mcpconfig_load(const char *path, const char *name,
	    struct upstream_cfg *u, char *err, size_t errlen);

#endif /* BNC_MCPCONFIG_H */
