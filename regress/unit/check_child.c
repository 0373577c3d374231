/*
 * check_child.c - monitor/child.c, when a child's end of the socket is
 * closed before the monitor knows it died: a send to it is no error of
 * the session's (a killed carrier's call must fail alone, a worker's
 * death must be recorded as what killed it), it is sent nothing more,
 * a child that closed its socket and lives on is made to exit, and the
 * exit status of one already dead stays its own.  The children are a
 * shell script in place of bouncer-worker, started as the monitor
 * starts a worker.  And the real bouncer-worker (BOUNCER_LIBEXEC), in
 * either role: MSG_RPC_OUT, which the monitor no longer sends (it writes
 * the client's stdout itself), ends it; MSG_SHUTDOWN lets it go.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "buf.h"
#include "child.h"
#include "frame.h"
#include "memory.h"
#include "err.h"
#include "msg.h"
#include "spawn.h"
#include "value.h"
#include "testdir.h"

static struct event_base *base;
static struct memacct mem;

/* The suite's bouncer-worker: a shell script with body. */
static void
helper(const char *body)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/bouncer-worker", testdir_path());
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, 0700), 0);
}

static void
setup(void)
{
	struct child_env e;

	signal(SIGPIPE, SIG_IGN);
	base = event_base_new();
	ck_assert_ptr_nonnull(base);
	mem_init(&mem, 1024 * 1024);
	memset(&e, 0, sizeof(e));
	e.base = base;
	e.libexec = testdir_path();
	e.max_message = 65536;
	e.mem = &mem;
	child_setup(&e);
}

/* Starts the helper as a client worker; returns once its end is closed. */
static void
start(struct child *ch)
{
	struct pollfd pfd;
	char c;

	memset(ch, 0, sizeof(*ch));
	ch->kind = CHILD_WORKER_CLIENT;
	ch->tag = "worker:client";
	ch->sock = -1;
	ck_assert_int_eq(child_spawn_worker(ch, ROLE_WORKER_CLIENT, NULL,
	    SPAWN_DEVNULL, SPAWN_DEVNULL), 0);
	pfd.fd = ch->sock;
	pfd.events = POLLIN;
	ck_assert_int_eq(poll(&pfd, 1, 10000), 1);
	ck_assert_int_eq(recv(ch->sock, &c, 1, 0), 0);
}

/*
 * The end of a test's child, reaped: what the monitor keeps of a child
 * until it exits (its events, its stderr pipe, its partial frame) goes,
 * and the test's event base, so that memcheck sees no loss (make
 * check-valgrind).
 */
static void
finish(struct child *ch)
{
	child_forget(ch);
	event_free(ch->ev);
	event_free(ch->wev);
	ch->ev = ch->wev = NULL;
	event_base_free(base);
	base = NULL;
}

/* Sends ch one message, as the monitor tells a worker to go. */
static int
send_one(struct child *ch)
{
	struct buf *b = buf_new();
	int r;

	ck_assert_int_eq(buf_put(b, "x", 1), 0);
	r = child_send(ch, MSG_SHUTDOWN, b);
	buf_free(b);
	return r;
}

/* A child that closed its socket and lives on: made to exit. */
START_TEST(test_closed_alive)
{
	struct child ch;
	int st;

	setup();
	helper("exec 3>&-\nexec /bin/sleep 30");
	start(&ch);
	ck_assert_int_eq(send_one(&ch), 0);
	ck_assert_int_eq(ch.send_closed, 1);
	ck_assert_ptr_null(ch.outq);
	/* sent nothing more, without an error */
	ck_assert_int_eq(send_one(&ch), 0);
	ck_assert_int_eq(waitpid(ch.pid, &st, 0), ch.pid);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	finish(&ch);
}
END_TEST

/* A child that died of its own signal: its status stays that signal. */
START_TEST(test_closed_dead)
{
	struct child ch;
	siginfo_t si;
	int st;

	setup();
	helper("kill -USR1 $$");
	start(&ch);
	/* dead, not yet reaped: what the monitor has not heard of yet */
	memset(&si, 0, sizeof(si));
	ck_assert_int_eq(waitid(P_PID, (id_t)ch.pid, &si,
	    WEXITED | WNOWAIT), 0);
	ck_assert_int_eq(send_one(&ch), 0);
	ck_assert_int_eq(ch.send_closed, 1);
	ck_assert_int_eq(waitpid(ch.pid, &st, 0), ch.pid);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR1);
	finish(&ch);
}
END_TEST

/*
 * The real worker in role, sent one frame of type (an answer for the
 * client, as the monitor sent them before, or a shutdown) after its
 * hello.  Returns its wait status; *said is set if one of the log lines
 * it sent before it ended holds what.
 */
static int
real_worker(int role, uint16_t type, const char *what, int *said)
{
	struct child_env e;
	struct frame_msg fm;
	struct msg_log l;
	struct pollfd pfd;
	struct child ch;
	struct rpc_out o;
	struct buf *b;
	int r, st, hello = 0;

	*said = 0;
	setup();
	memset(&e, 0, sizeof(e));
	e.base = base;
	ck_assert_ptr_nonnull(e.libexec = getenv("BOUNCER_LIBEXEC"));
	e.max_message = 65536;
	e.mem = &mem;
	child_setup(&e);
	memset(&ch, 0, sizeof(ch));
	ch.kind = CHILD_WORKER_CLIENT;
	ch.tag = "worker";
	ch.sock = -1;
	ck_assert_int_eq(child_spawn_worker(&ch, role, role ==
	    ROLE_WORKER_UPSTREAM ? "up" : NULL, SPAWN_DEVNULL,
	    SPAWN_DEVNULL), 0);
	b = buf_new();
	memset(&o, 0, sizeof(o));
	o.kind = RPC_RESULT;
	o.id.type = RPC_ID_INT;
	o.id.n = 1;
	o.result = value_object();
	if (type == MSG_RPC_OUT)
		ck_assert_int_eq(msg_rpc_out_put(b, &o), 0);
	else
		ck_assert_int_eq(msg_empty_put(b), 0);
	value_free((struct value *)(uintptr_t)o.result);
	for (;;) {
		pfd.fd = ch.sock;
		pfd.events = POLLIN;
		ck_assert_int_eq(poll(&pfd, 1, 10000), 1);
		memset(&fm, 0, sizeof(fm));
		fm.fd = -1;
		if ((r = frame_recv(ch.sock, &ch.rx, &fm)) == -BNC_ERR_AGAIN ||
		    r == 0)
			continue;
		if (r == -BNC_ERR_EOF || r == -BNC_ERR_SYS)
			break;
		ck_assert_int_eq(r, 1);
		if (fm.type == MSG_HELLO && !hello) {
			hello = 1;
			ck_assert_int_eq(child_send(&ch, type, b), 0);
		} else if (fm.type == MSG_LOG &&
		    msg_log_get(fm.payload, &l) == 0) {
			if (strstr(l.line, what) != NULL)
				*said = 1;
			msg_log_free(&l);
		}
		frame_msg_clear(&fm);
	}
	ck_assert_int_eq(hello, 1);
	ck_assert_int_eq(waitpid(ch.pid, &st, 0), ch.pid);
	finish(&ch);
	buf_free(b);
	return st;
}

/* MSG_RPC_OUT to either worker: fatal, saying so. */
START_TEST(test_rpc_out_fatal)
{
	static const int roles[] = { ROLE_WORKER_CLIENT, ROLE_WORKER_UPSTREAM };
	int said, st;

	st = real_worker(roles[_i], MSG_RPC_OUT, "rpc-out", &said);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) != 0,
	    "the worker took rpc-out (status 0x%x)", st);
	ck_assert_msg(said, "the worker did not say why it stopped");
}
END_TEST

/* MSG_SHUTDOWN: it goes at once, status 0. */
START_TEST(test_shutdown)
{
	static const int roles[] = { ROLE_WORKER_CLIENT, ROLE_WORKER_UPSTREAM };
	int said, st;

	st = real_worker(roles[_i], MSG_SHUTDOWN, "shutdown", &said);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "status 0x%x", st);
}
END_TEST

static Suite *
child_suite(void)
{
	Suite *su = suite_create("child");
	TCase *tc = tcase_create("errors");

	tcase_add_test(tc, test_closed_alive);
	tcase_add_test(tc, test_closed_dead);
	tcase_add_loop_test(tc, test_rpc_out_fatal, 0, 2);
	suite_add_tcase(su, tc);
	tc = tcase_create("core");
	tcase_add_loop_test(tc, test_shutdown, 0, 2);
	suite_add_tcase(su, tc);
	return su;
}

int
main(void)
{
	SRunner *sr;
	int failed;

	testdir_create("check_child");
	sr = srunner_create(child_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	testdir_remove();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
