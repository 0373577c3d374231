#!/usr/bin/env bash
#
# regress/upstream-toolarge.sh - an upstream answer over max_message is
# never buffered whole, and the call it answers fails with an error that
# says why (DESIGN 10: lose nothing, say why) instead of waiting for an
# answer that will not come; the session goes on.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
max_message: 4096
upstreams:
  up: { command: "$MOCK" }
YAML
start_monitor -f "$TESTDIR/bouncer.yaml"
handshake

call 1 big '{"bytes":3000}'
expect_line "$(f_result 1) and (.result.content[0].text | length) == 3000"
call 2 big '{"bytes":100000}'
expect_line "$(f_error 2 -32603) and (.error.message | test(\"upstream up sent an answer bouncer cannot use \\\\(message too large\\\\)\"))"
# two in flight: the small one is answered, the big one fails
call 3 big '{"bytes":20000}'
call 4 echo '{"message":"still here"}'
for i in 1 2; do
	expect_line '.id == 3 or .id == 4'
	if jcheck '.id == 3'; then
		jcheck "$(f_error 3 -32603)" || fail "call 3: $LINE"
	else
		jcheck "$(f_text 4 "still here")" || fail "call 4: $LINE"
	fi
done
ping_ok 5
pass
