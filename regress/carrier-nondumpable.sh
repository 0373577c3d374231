#!/usr/bin/env bash
#
# regress/carrier-nondumpable.sh - a carrier is not dumpable from its
# first statement, before its credential is read: another process of the
# same user (an upstream server runs unconfined as that user) cannot open
# its /proc/PID/environ or /proc/PID/fd/4, where the credential waits.
# carrier-call -H holds fd 4 open and empty, so the carrier waits in
# that read, before its sandbox would make it non-dumpable anyway.  The
# control: the same user opens /proc/PID/environ of carrier-call, a
# dumpable process of its own.  Needs root, to run both as an
# unprivileged user (uid and gid 65534).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

[ "$(id -u)" = 0 ] ||
    skip "needs root to run a carrier and its reader as uid 65534"
require_cmd setpriv jq
U=65534
CC=$top_builddir/regress/mocks/carrier-call

as_user() {
	setpriv --reuid=$U --regid=$U --clear-groups -- "$@"
}
# readable PID FILE: true if uid 65534 can open /proc/PID/FILE
readable() {
	as_user sh -c 'exec 3<"/proc/$1/$2"' sh "$1" "$2" 2>/dev/null
}

chown -R "$U:$U" "$TESTDIR"
for b in notion github slack; do
	as_user test -x "$top_builddir/carrier/bouncer-carrier-$b" ||
	    skip "uid $U cannot execute the carriers (the build tree is not open to it)"
done
as_user test -x "$CC" || skip "uid $U cannot execute $CC"

for b in notion github slack; do
	out=$TESTDIR/hold-$b.out
	mode=
	[ $b = notion ] && mode="-m comment"
	# not as_user, a function: $! must be carrier-call itself
	# shellcheck disable=SC2086
	setpriv --reuid=$U --regid=$U --clear-groups -- "$CC" -H -- \
	    "$top_builddir/carrier/bouncer-carrier-$b" $mode \
	    >"$out" 2>"$TESTDIR/hold-$b.err" &
	cc=$!
	WORK_MOCK_PIDS="$WORK_MOCK_PIDS $cc"	# killed at the test's exit
	i=0
	while [ ! -s "$out" ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	pid=$(head -n 1 "$out" | jq -r '.pid // empty')
	[ -n "$pid" ] || fail "$b: carrier-call -H printed no pid: $(cat "$out" "$TESTDIR/hold-$b.err")"
	WORK_MOCK_PIDS="$WORK_MOCK_PIDS $pid"
	# it waits in the read of fd 4, the credential's pipe
	i=0
	until [ "$(readlink "/proc/$pid/fd/4" 2>/dev/null)" != "" ] &&
	    grep -q '^State:[[:space:]]*S' "/proc/$pid/status" 2>/dev/null &&
	    [ "$(readlink "/proc/$pid/exe")" = \
	    "$(readlink -f "$top_builddir/carrier/bouncer-carrier-$b")" ]; do
		[ $i -lt 200 ] || fail "$b: the carrier is not waiting on fd 4"
		sleep 0.05
		i=$((i + 1))
	done
	case $(readlink "/proc/$pid/fd/4") in
	pipe:*) ;;
	*) fail "$b: fd 4 is not the credential's pipe: $(readlink "/proc/$pid/fd/4")";;
	esac
	readable "$cc" environ ||
	    fail "$b: uid $U cannot open /proc/$cc/environ of its own process: the control failed"
	for f in environ fd/4; do
		readable "$pid" "$f" &&
		    fail "$b: uid $U can open the waiting carrier's /proc/$pid/$f: it is dumpable"
	done
	log "$b: carrier $pid, waiting for its credential, refuses environ and fd/4 to uid $U"
	kill "$pid"
	wait "$cc" || fail "$b: carrier-call -H failed: $(cat "$TESTDIR/hold-$b.err")"
	tail -n 1 "$out" | jq -e '.signal == 15' >/dev/null ||
	    fail "$b: the carrier did not end by the test's signal: $(cat "$out")"
done
pass
