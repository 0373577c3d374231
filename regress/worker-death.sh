#!/usr/bin/env bash
#
# regress/worker-death.sh - a worker that dies ends the session: killing
# the client worker, or an upstream's worker, with SIGKILL makes the
# monitor exit 1 and leave no process behind (its upstream included,
# which ignores EOF here, so the monitor has to kill it).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

# find_worker ROLE: the pid of the worker whose command line names ROLE
# (-r client / -r upstream; or a process title worker:ROLE).
find_worker() {
	local pid args

	for pid in $(worker_pids); do
		args=$(proc_args "$pid")
		case " $args " in
		*" -r $1 "* | *"worker:$1"*)
			echo "$pid"
			return 0 ;;
		esac
	done
	return 1
}

# kill_and_check ROLE
kill_and_check() {
	local role=$1 victim pids pid i

	# -I: the upstream ignores EOF, so only the monitor can end it
	start_monitor -- "$MOCK" -I -l "$TESTDIR/up-$role.log"
	handshake
	ping_ok 1
	victim=$(find_worker "$role") || fail "no $role worker found among:
$(for p in $(monitor_children); do echo "$p $(proc_args "$p")"; done)"
	pids=$(monitor_children)
	[ "$(echo "$pids" | grep -c .)" -ge 3 ] ||
	    fail "expected a client worker, an upstream and its worker: $pids"
	MON_CHILDREN=$pids	# the clean-up kills any left on failure
	kill -KILL "$victim"
	wait_monitor 5
	[ "$MON_STATUS" = 1 ] ||
	    fail "$role worker killed: monitor exited $MON_STATUS, want 1"
	# Everything it spawned is gone (give init a moment for zombies).
	for i in $(seq 20); do
		alive=
		for pid in $pids; do
			st=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null |
			    cut -d' ' -f1)
			[ -n "$st" ] && [ "$st" != Z ] && alive="$alive $pid"
		done
		[ -z "$alive" ] && break
		sleep 0.1
	done
	[ -z "$alive" ] ||
	    fail "$role worker killed: processes left behind:$alive"
	MON_CHILDREN=
}

kill_and_check client
kill_and_check upstream
pass
