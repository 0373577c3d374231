/*
 * limits.h - every bound bouncer enforces, in one place.
 *
 * A length, depth, count or time that is checked anywhere is named here,
 * so an auditor can read the whole envelope at a glance and every bound
 * has a test at the limit and one past it.
 */
#ifndef BNC_LIMITS_H
#define BNC_LIMITS_H

/* IPC frames (DESIGN 3) */
#define BNC_FRAME_HDR		12		/* u32 len, u8 ver, u8 flags, u16 type, u32 id */
#define BNC_FRAME_MAX		65536		/* one SEQPACKET record, header included */
#define BNC_FRAME_PAYLOAD	(BNC_FRAME_MAX - BNC_FRAME_HDR)
#define BNC_FRAME_VERSION	1

/* JSON-RPC messages, each direction */
#define BNC_MSG_MAX_DEFAULT	(16 * 1024 * 1024)	/* max_message default */
#define BNC_MSG_MAX_LOWEST	4096			/* smallest max_message accepted */
#define BNC_MSG_MAX_HIGHEST	(256 * 1024 * 1024)	/* largest max_message accepted */
/* growth cap of a struct buf with no max set: a tree of the largest
 * message, whose nodes cost up to 16 bytes each beyond its text */
#define BNC_BUF_MAX		(2 * BNC_MSG_MAX_HIGHEST)
#define BNC_READ_CHUNK		65536		/* bytes read from a pipe at once */

/* value trees (DESIGN 3) */
#define BNC_VALUE_DEPTH_MAX	64		/* nesting of arrays and objects */
#define BNC_VALUE_NODES_MAX	(1024 * 1024)	/* nodes in one tree */

/* JSON-RPC envelope fields */
#define BNC_METHOD_MAX		256		/* bytes of a method name */
#define BNC_ID_STR_MAX		256		/* bytes of a string request id */
#define BNC_ERRMSG_MAX		65536		/* bytes of an error message */

/* small control messages */
#define BNC_CTRL_MSG_MAX	(64 * 1024)	/* total of a hello, log, bad-line */
#define BNC_LOG_LINE_MAX	2048		/* bytes of one log line */
#define BNC_REASON_MAX		1024		/* bytes of a decision reason */

/* configuration */
#define BNC_CONFIG_MAX		(1024 * 1024)	/* bytes of bouncer.yaml */
#define BNC_UPSTREAMS_MAX	32		/* upstream servers per session */
#define BNC_UPSTREAM_NAME_MAX	64		/* bytes of an upstream name */
#define BNC_ARGV_MAX		256		/* arguments of an upstream command */
#define BNC_ENV_MAX		256		/* env entries of an upstream */
#define BNC_ARG_LEN_MAX		4096		/* bytes of one argument or env value */
#define BNC_PATH_MAX		4096		/* bytes of a configured path */

/* MCP */
#define BNC_TOOLS_MAX		4096		/* tools of one upstream */
#define BNC_TOOL_NAME_MAX	128		/* bytes of a tool name (spec: 1..128) */
#define BNC_LIST_PAGES_MAX	64		/* tools/list pages read from an upstream */
#define BNC_TOOLS_PAGE		128		/* tools per tools/list page to the client */
#define BNC_CURSOR_MAX		64		/* bytes of a cursor we issue */
#define BNC_PENDING_MAX		1024		/* requests in flight per direction */
#define BNC_VERSION_MAX		32		/* bytes of a protocol version string */

/* processes and time */
#define BNC_START_TIMEOUT_S	30		/* upstream handshake and pinning */
#define BNC_KILL_GRACE_MS	2000		/* EOF/SIGTERM grace before SIGKILL */
#define BNC_HELLO_TIMEOUT_S	10		/* a child must report "sandboxed" */
#define BNC_CHILD_FD		3		/* the monitor socket in every child */
#define BNC_CHILD_FD_EXTRA	4		/* a carrier's credential */
#define BNC_CHILD_FD_FIRST_FREE	5		/* closefrom() starts here */

#endif /* BNC_LIMITS_H */
