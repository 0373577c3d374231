/*
 * child.h - the monitor's children: start them, queue frames toward
 * them, read their frames, reap them (DESIGN 2, 3).
 *
 * child.c knows processes, sockets and frames, never what a frame
 * means: every frame a child sends goes to the handler of its type in
 * the const table its owner gave it, if the child's permit state
 * allows that type; anything else ends the session.  A reaped child is
 * reported to its owner's exited callback, which decides what its exit
 * means.  (OpenBSD httpd's proc.c and OpenSSH's monitor_read() are the
 * models; the permit state lives in the child, not in a mutable table.)
 */
#ifndef BNC_CHILD_H
#define BNC_CHILD_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <event2/event.h>

#include "frame.h"

struct buf;
struct child;
struct errpipe;
struct memacct;
struct upstream_cfg;

enum child_kind {
	CHILD_WORKER_CLIENT = 1,
	CHILD_WORKER_UPSTREAM,
	CHILD_UPSTREAM,
	CHILD_CARRIER
};

/*
 * A worker's permit states, one bit each: a frame table row names the
 * states its type is accepted in.  A worker starts in CHILD_P_HELLO;
 * child_hello() moves it to CHILD_P_RUN, child_input_ended() to
 * CHILD_P_EOF, and nothing moves it back.
 */
#define CHILD_P_HELLO	0x01	/* nothing said yet: only its hello */
#define CHILD_P_RUN	0x02	/* sandboxed, input open */
#define CHILD_P_EOF	0x04	/* its input ended: logs only */

struct child_frame {
	uint16_t	 type;
	unsigned	 permit;	/* CHILD_P_* states it is accepted in */
	void		(*fn)(struct child *, struct frame_msg *);
};

/* A message waiting for room on a worker's socket. */
struct outmsg {
	struct outmsg	*next;
	uint16_t	 type;
	uint32_t	 id;		/* the frame id */
	int		 fd;		/* passed with the first record, or -1 */
	struct buf	*payload;
	size_t		 off;		/* payload bytes already sent */
};

/* A process the monitor started. */
struct child {
	enum child_kind	 kind;
	char		*tag;		/* log tag; the owner's */
	pid_t		 pid;		/* 0 once reaped */
	int		 status;	/* wait status once reaped */
	/* set by the owner before the child is started */
	const struct child_frame *frames;	/* workers: its role's table */
	size_t		 nframes;
	void		(*exited)(struct child *, int status);
	void		*owner;		/* the owner's own struct */
	/* workers: the socket on its fd 3 */
	int		 sock;		/* -1: none, or closed */
	struct event	*ev;		/* readable */
	struct event	*wev;		/* writable, while queued */
	struct outmsg	*outq, **outq_tail;
	size_t		 outq_bytes;
	int		 send_closed;	/* its end is closed: send nothing */
	int		 held;		/* its frames are not read for now */
	struct frame_rx	 rx;
	unsigned	 permit;	/* CHILD_P_* it is in */
	int		 sandbox;	/* from its hello */
	unsigned	 landlock_abi;	/* from its hello; 0: none */
	struct errpipe	*err;		/* its stderr */
	/* its log frames, thinned (BNC_CHILD_LOG_LINES) */
	uint64_t	 log_window;	/* when the window opened (ms,
					 * CLOCK_MONOTONIC) */
	unsigned	 log_lines;	/* logged in it */
	unsigned long	 log_dropped;	/* dropped in it */
};

/* What every child of the session shares; set once, before any spawn. */
struct child_env {
	struct event_base *base;
	const char	*libexec;	/* where bouncer-worker is */
	size_t		 max_message;
	struct memacct	*mem;		/* queues are charged here */
};
void	 child_setup(const struct child_env *);

/*
 * Starts bouncer-worker in role (ROLE_WORKER_*) on ch, reading fd_in and
 * writing fd_out (or SPAWN_DEVNULL); upname names an upstream's.  Its
 * frames go to ch->frames from now on.  0 or a negative code.
 */
int	 child_spawn_worker(struct child *ch, int role, const char *upname,
	    int fd_in, int fd_out);
/*
 * Starts the server u describes on proc, with its stdout read by a
 * worker on worker; *in_fd receives its stdin, non-blocking.
 */
int	 child_spawn_server(struct child *proc, struct child *worker,
	    const struct upstream_cfg *u, const char *name, int *in_fd);

/*
 * Starts a carrier: argv[0] is its binary in the libexec directory,
 * fd_cred (which the caller still closes) its fd 4, and its frames come
 * from a carrier's direction.  0 or a negative code.
 */
int	 child_spawn_carrier(struct child *ch, char **argv, int fd_cred);

/*
 * Sends b, or queues what the socket does not take now.  0, or
 * -BNC_ERR_TOO_LARGE when the rest would have to wait and the session's
 * memory has no room: nothing of b was sent.
 */
int	 child_send(struct child *, uint16_t type, const struct buf *);
/* The same under frame id id, passing fd (or -1) with the first record:
 * the fd is taken, closed once sent or on any failure. */
int	 child_send_fd(struct child *, uint16_t type, uint32_t id,
	    const struct buf *, int fd);
/* Flushes the queue, waiting BNC_KILL_GRACE_MS at most: 0 or -1. */
int	 child_flush_blocking(struct child *);
/*
 * hold 1: no frame of ch is read until child_hold(ch, 0); what it sends
 * waits in its socket, and a worker that sends more waits for room
 * (client.c: the client does not read its answers).
 */
void	 child_hold(struct child *ch, int hold);
/* No more frames are read from it; its socket is closed and what was
 * queued for it dropped. */
void	 child_close(struct child *);
/* A reaped child to be started again: its socket, partial frame and
 * stderr go (its last words logged). */
void	 child_forget(struct child *);

/* The frames every worker sends, for the owners' tables. */
void	 child_hello(struct child *, struct frame_msg *, int role);
void	 child_log(struct child *, struct frame_msg *);
/* Its input ended (MSG_INPUT_EOF, which the owner's handler reads). */
void	 child_input_ended(struct child *);
int	 child_said_hello(const struct child *);
int	 child_at_eof(const struct child *);

/* Reaps what exited and reports each to its owner (exited). */
void	 child_reap(void);
/* For cleanup_exit(): reap without reporting; never calls fatal(). */
void	 child_reap_quiet(void);
void	 child_reap_wait(void);
void	 child_kill_all(int sig);
int	 child_all_exited(void);
/* What the workers wrote to stderr: read it now, or read it and close. */
void	 child_stderr_drain(void);
void	 child_stderr_close(void);
/* "exited with status 3", "was killed by SIGSYS: sandbox violation" */
const char *child_describe(int status, char *buf, size_t len);

#endif /* BNC_CHILD_H */
