/*
 * check_child.c - monitor/child.c, when a child's end of the socket is
 * closed before the monitor knows it died: a send to it is no error of
 * the session's (a killed carrier's call must fail alone, a worker's
 * death must be recorded as what killed it), it is sent nothing more,
 * a child that closed its socket and lives on is made to exit, and the
 * exit status of one already dead stays its own.  The children are a
 * shell script in place of bouncer-worker, started as the monitor
 * starts a worker.
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
#include "memory.h"
#include "msg.h"
#include "spawn.h"
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

/* Sends ch one message, as the monitor answers the client. */
static int
send_one(struct child *ch)
{
	struct buf *b = buf_new();
	int r;

	ck_assert_int_eq(buf_put(b, "x", 1), 0);
	r = child_send(ch, MSG_RPC_OUT, b);
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
}
END_TEST

static Suite *
child_suite(void)
{
	Suite *su = suite_create("child");
	TCase *tc = tcase_create("errors");

	tcase_add_test(tc, test_closed_alive);
	tcase_add_test(tc, test_closed_dead);
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
