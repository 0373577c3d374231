#!/usr/bin/env bash
#
# regress/init-state.sh - the session's state machine toward the client:
# before initialize only ping is served (-32600 "session not initialized"
# for the rest, nothing forwarded); a second initialize is -32600.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

up=$TESTDIR/up.log
start_monitor -- "$MOCK" -l "$up"

not_init() {		# ID
	echo "$(f_error "$1" -32600) and (.error.message | test(\"not initialized\"))"
}
request 1 tools/list
expect_line "$(not_init 1)" "$TEST_START_TIMEOUT"
call 2 echo '{"message":"too early"}'
expect_line "$(not_init 2)"
request '"early-3"' resources/list '{}'
expect_line "$(not_init '"early-3"')"
ping_ok 4

handshake
# a repeated notifications/initialized is harmless
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
ping_ok 5

# a second initialize is refused and does not reset anything
initialize_req 6 2024-11-05
expect_line "$(f_error 6 -32600)"
call 7 echo '{"message":"still 2025-11-25"}'
expect_line "$(f_text 7 "still 2025-11-25")"

n=$(mock_methods "$up" | grep -cx initialize)
[ "$n" = 1 ] || fail "the upstream was initialized $n times, want 1"
got=$(mock_calls "$up" | awk '{print $2}' | tr '\n' ' ')
[ "$got" = "echo " ] || fail "the upstream received calls: $got"
pass
