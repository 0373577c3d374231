#!/usr/bin/env bash
#
# regress/pinning.sh - a call to a name that is not on the pinned surface
# gets bouncer's blocked result, and the upstream's log proves that
# nothing of it was forwarded.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

up=$TESTDIR/up.log
start_monitor -n mock -- "$MOCK" -l "$up"
handshake

# The mock would answer each of these ("Unknown tool"), so a result
# that is bouncer's proves the call stopped at bouncer.
call 1 delete_everything '{"really":true}'
expect_line "$(f_blocked 1) and .result.content[0].text ==
    \"[bouncer blocked] unknown tool (not pinned at startup)\""
call 2 ECHO '{"message":"case matters"}'
expect_line "$(f_blocked 2)"
call 3 mock__echo '{"message":"not namespaced"}'
expect_line "$(f_blocked 3)"
call 4 'echo ' '{"message":"trailing space"}'
expect_line "$(f_blocked 4)"
# an empty name: blocked, or refused as bad params; never forwarded
call 5 ''
expect_line "($(f_blocked 5)) or ($(f_error 5 -32602))"
call '"blocked-6"' tool_0
expect_line "$(f_blocked '"blocked-6"')"

# A pinned tool still works, and as the upstream handles lines in order,
# once its answer is here the log holds everything bouncer forwarded.
call 7 echo '{"message":"allowed"}'
expect_line "$(f_text 7 allowed)"
got=$(mock_calls "$up" | awk '{print $2}' | tr '\n' ' ')
[ "$got" = "echo " ] ||
    fail "blocked calls reached the upstream; it received: $got"
grep -q 'delete_everything' "$up" &&
    fail "the blocked tool's name reached the upstream"
pass
