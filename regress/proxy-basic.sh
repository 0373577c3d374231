#!/usr/bin/env bash
#
# regress/proxy-basic.sh - one upstream behind bouncer: the handshake and
# version negotiation, tools/list showing the upstream's definitions
# unchanged, tool calls round-tripping (text, structuredContent, string
# ids), and ping answered by bouncer itself.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

# Each supported version is echoed; an unknown one gets the latest.  The
# upstream is initialized with the negotiated version, the client's
# capabilities and clientInfo, then notified and listed.
for v in 2024-11-05 2025-03-26 2025-06-18 2025-11-25 1999-01-01; do
	want=$v
	[ "$v" = 1999-01-01 ] && want=2025-11-25
	up=$TESTDIR/up-$v.log
	start_monitor -- "$MOCK" -l "$up"
	initialize_req 0 "$v" '{"elicitation":{},"roots":{"listChanged":true}}'
	expect_line ".id == 0 and .result.protocolVersion == \"$want\" and
	    .result.serverInfo.name == \"bouncer\" and
	    .result.capabilities.tools.listChanged == true" \
	    "$TEST_START_TIMEOUT"
	send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	ping_ok 1
	stop_monitor
	[ "$MON_STATUS" = 0 ] || fail "version $v: exit status $MON_STATUS"
	jq -se --arg v "$want" '
	    (map(select(.method == "initialize")) | length) == 1 and
	    (map(select(.method == "initialize"))[0].params |
		.protocolVersion == $v and
		.clientInfo.name == "bouncer-regress" and
		(.capabilities | has("elicitation") and has("roots"))) and
	    any(.[]; .method == "notifications/initialized") and
	    any(.[]; .method == "tools/list")' "$up" >/dev/null ||
	    fail "version $v: the upstream was not initialized as expected:
$(cat "$up")"
	# bouncer answers ping itself.
	mock_methods "$up" | grep -qx ping &&
	    fail "version $v: ping reached the upstream"
done

# An upstream that downgrades (2024-11-05, like server-github) still
# serves a 2025-11-25 client, which keeps its own version.
start_monitor -- "$MOCK" -v 2024-11-05
handshake
call 1 echo '{"message":"through a downgraded upstream"}'
expect_line "$(f_text 1 "through a downgraded upstream")"
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "downgrade: exit status $MON_STATUS"

# A full session.
up=$TESTDIR/up.log
start_monitor -- "$MOCK" -l "$up"
handshake
ping_ok 1

# tools/list: the mock's tools with their definitions unchanged.
want=$(mock_tools)
request 2 tools/list
expect_line "$(f_result 2) and (.result.nextCursor == null)"
got=$(jget '.result.tools')
jq -ne --argjson w "$want" --argjson g "$got" \
    '($w | sort_by(.name)) == ($g | sort_by(.name))' >/dev/null ||
    fail "tools/list differs from the upstream's own list:
  upstream: $want
  bouncer:  $got"

# Calls round-trip with the client's ids, integer and string.
call 4 echo '{"message":"héllo, wörld ✓ \"quoted\" \\ back"}'
expect_line "$(f_text 4 'héllo, wörld ✓ "quoted" \ back')"
call '"req-five"' echo '{"message":"string id"}'
expect_line "$(f_text '"req-five"' 'string id')"
call 6 add '{"a":2,"b":3}'
expect_line "$(f_text 6 5) and .result.structuredContent == {\"sum\":5}"
call 7 env '{"name":"BOUNCER_REGRESS_UNSET_VARIABLE"}'
expect_line "$(f_text 7 '(unset)')"
# an upstream's own error result comes back unchanged
call 8 echo '{"message":42}'
expect_line "$(f_result 8) and .result.isError == true and
    .result.content[0].text == \"message must be a string\""
# no arguments at all is a valid call
request 9 tools/call '{"name":"env"}'
expect_line "$(f_result 9) and .result.isError == true and
    .result.content[0].text == \"name must be a string\""

# server/discover is a 2026 method bouncer does not serve yet.
request 10 server/discover '{}'
expect_line "$(f_error 10 -32601)"
ping_ok 11

# The upstream saw the calls under bouncer's ids, with its own names.
[ "$(mock_calls "$up" | awk '{print $2}' | tr '\n' ' ')" = \
    "echo echo add env echo env " ] ||
    fail "the upstream received other calls than expected:
$(mock_calls "$up")"
pass
