#!/usr/bin/env bash
#
# regress/eof.sh - client EOF ends the session cleanly: the upstream is
# sent EOF (and exits on it), stdout closes with nothing more on it, the
# monitor exits 0 and every child is reaped.  Also before initialize.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

# gone PIDS...: none of PIDS is still running (zombies of init aside).
gone() {
	local pid st

	for pid in "$@"; do
		st=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
		[ -z "$st" ] || [ "$st" = Z ] || return 1
	done
	return 0
}

start_monitor -n eoftest -- "$MOCK" -n eoftest -l "$TESTDIR/up.log"
handshake
call 1 echo '{"message":"last words"}'
expect_line "$(f_text 1 "last words")"
pids=$(monitor_children)
[ "$(echo "$pids" | grep -c .)" -ge 3 ] || fail "too few children: $pids"
MON_CHILDREN=$pids

close_stdin
expect_eof 8
wait_monitor 8
[ "$MON_STATUS" = 0 ] || fail "exit status $MON_STATUS on client EOF, want 0"
# shellcheck disable=SC2086
gone $pids || { sleep 0.5; gone $pids; } ||
    fail "children left running after exit: $pids"
grep -q 'mock-upstream\[eoftest\]: stdin closed' "$MONLOG" ||
    fail "the upstream was not sent EOF (no note from the mock in $MONLOG)"

# EOF before initialize.
start_monitor -- "$MOCK"
close_stdin
expect_eof 8
wait_monitor 8
[ "$MON_STATUS" = 0 ] || fail "EOF before initialize: exit $MON_STATUS"

# EOF in the middle of a pending call: no answer is owed any more.
start_monitor -- "$MOCK"
handshake
call 1 slow '{"ms":5000}'
close_stdin
expect_eof 8
wait_monitor 8
[ "$MON_STATUS" = 0 ] || fail "EOF with a call pending: exit $MON_STATUS"
pass
