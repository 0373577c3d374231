#!/usr/bin/env bash
#
# regress/upstream-death.sh - an upstream that exits: every request
# pending on it gets a -32603 error that says it exited, its tools then
# answer with the blocked result "upstream NAME is not running", the
# session goes on, and client EOF still ends the monitor with status 0.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

start_monitor -n flaky -- "$MOCK" -l "$TESTDIR/up.log"
handshake
call 1 echo '{"message":"alive"}'
expect_line "$(f_text 1 alive)"

# One call pending (slow), then one that kills the upstream.
call 2 slow '{"ms":3000}'
call 3 crash
seen=
for i in 1 2; do
	expect_line "($(f_error 2 -32603) or $(f_error 3 -32603)) and
	    .error.message == \"Internal error: upstream \\\"flaky\\\" exited\""
	seen="$seen $(jget .id)"
done
case $seen in
" 2 3" | " 3 2") ;;
*) fail "pending requests answered as$seen, want 2 and 3" ;;
esac

# The monitor is still there, its tools are blocked with the reason.
monitor_alive || fail "the monitor exited with its upstream"
ping_ok 4
call 5 echo '{"message":"anyone?"}'
# the name may be quoted
expect_line "$(f_blocked 5) and (.result.content[0].text |
    test(\"upstream \\\"?flaky\\\"? is not running\"))"
call 6 slow '{"ms":1}'
expect_line "$(f_blocked 6)"
# and the 3 s answer never comes
expect_silence 0.5
ping_ok 7
pass
