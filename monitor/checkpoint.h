/*
 * checkpoint.h - the audit log's checkpointer, a child of the monitor.
 */
#ifndef BNC_CHECKPOINT_H
#define BNC_CHECKPOINT_H

/*
 * Forks the checkpointer of <state_dir>/audit.db, which must happen
 * before this process opens any SQLite connection (SQLite's state must
 * not cross a fork).  Returns the write end of its request pipe, for
 * audit_checkpoint_via(), or -1 (with the reason logged): the log is
 * then checkpointed as SQLite does, in the commit that fills the WAL.
 */
int	checkpoint_start(const char *state_dir);

#endif /* BNC_CHECKPOINT_H */
