/*
 * worktools.h - the work-system tools (DESIGN 7): what each checks
 * before the decision is recorded, and how each is carried out through
 * its carrier (carriers.c).  builtin.c's table names these.
 */
#ifndef BNC_WORKTOOLS_H
#define BNC_WORKTOOLS_H

struct bjob;
struct decision;
struct session;
struct value;

/* 1 if the session has the carrier the tools need. */
int	worktools_can_read(const struct session *);
int	worktools_can_post(const struct session *);
int	worktools_can_message(const struct session *);

/* The checks of the decision: 0, or 1 with d a deny. */
int	worktools_read_check(struct session *, const char *tool,
	    const struct value *args, struct decision *);
int	worktools_post_check(struct session *, const char *tool,
	    const struct value *args, struct decision *);
int	worktools_message_check(struct session *, const char *tool,
	    const struct value *args, struct decision *);

/* Carry out an allowed, recorded call. */
void	worktools_read_tasks(struct bjob *);
void	worktools_read_task(struct bjob *);
void	worktools_read_comments(struct bjob *);
void	worktools_post(struct bjob *);
void	worktools_message(struct bjob *);

#endif /* BNC_WORKTOOLS_H */
