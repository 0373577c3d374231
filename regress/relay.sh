#!/usr/bin/env bash
#
# regress/relay.sh - requests from an upstream to the client
# (elicitation/create, roots/list) are relayed with ids from bouncer's own
# space and the client's answers go back under the upstream's original
# ids; a ping from an upstream is answered by bouncer; notifications/
# message is forwarded.  Two upstreams whose request ids collide (both
# start at 0) are kept apart.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

# expect_relayed METHOD: the next line is METHOD as a request; its id
# (JSON text) is left in RID.
expect_relayed() {
	expect_line ".method == \"$1\" and has(\"id\") and
	    ((.id | type) == \"string\" or (.id | type) == \"number\")"
	RID=$(jget '.id | tojson')
}

up=$TESTDIR/up.log
start_monitor -- "$MOCK" -n solo -l "$up"
handshake

# elicitation/create: relayed, answered, the tool sees the answer.
call 1 elicit
expect_relayed elicitation/create
jcheck '.params.message == "solo asks: may I proceed?" and
    .params.requestedSchema.properties.ok.type == "boolean"' ||
    fail "the elicitation was not relayed unchanged: $LINE"
reply "$RID" '{"action":"accept","content":{"ok":true}}'
expect_line "$(f_text 1 '{"action":"accept","content":{"ok":true}}')"
# the upstream got the answer under its own id 0
jq -se 'map(select(.method == null and has("result"))) | length == 1 and
    .[0].id == 0 and .[0].result.action == "accept"' "$up" >/dev/null ||
    fail "the upstream did not get the answer under its id 0:
$(cat "$up")"

# roots/list: the same, the upstream's id is now 1.
call 2 roots
expect_relayed roots/list
reply "$RID" '{"roots":[{"uri":"file:///tmp/regress-root","name":"r"}]}'
expect_line "$(f_result 2) and (.result.content[0].text |
    fromjson | .roots[0].uri == \"file:///tmp/regress-root\")"
jq -se 'map(select(.method == null and has("result"))) | .[1].id == 1' \
    "$up" >/dev/null || fail "roots answer not under the upstream's id 1"

# An error answer from the client goes back as an error.
call 3 elicit
expect_relayed elicitation/create
send "{\"jsonrpc\":\"2.0\",\"id\":$RID,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}"
expect_line "$(f_result 3) and .result.isError == true and
    (.result.content[0].text | startswith(\"client error -32601\"))"
# a second answer to the same request is dropped
reply "$RID" '{"action":"accept","content":{"ok":true}}'
ping_ok 4
n=$(jq -s 'map(select(.method == null)) | length' "$up")
[ "$n" = 3 ] || fail "the upstream got $n answers, want 3 (a duplicate?)"

# A ping from the upstream is answered by bouncer: the client sees only
# the tool's result.
call 5 pingback
expect_line "$(f_text 5 '{}')"

# notifications/message is forwarded before the result.
call 6 log '{"message":"hello from upstream"}'
expect_line '.method == "notifications/message" and (has("id") | not) and
    .params.level == "info" and .params.data == "hello from upstream"'
expect_line "$(f_text 6 logged)"
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "exit status $MON_STATUS"

# Two upstreams, both asking with their id 0 at the same time.
write_config "$TESTDIR/bouncer.yaml" <<YAML
upstreams:
  a:
    command: "$MOCK"
    args: ["-n", "alpha", "-l", "$TESTDIR/a.log"]
  b:
    command: "$MOCK"
    args: ["-n", "beta", "-l", "$TESTDIR/b.log"]
YAML
start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
call 10 a__elicit
call 11 b__elicit
ra='' rb=''
for i in 1 2; do
	expect_relayed elicitation/create
	case $(jget .params.message) in
	alpha*) ra=$RID ;;
	beta*) rb=$RID ;;
	*) fail "unexpected elicitation: $LINE" ;;
	esac
done
{ [ -n "$ra" ] && [ -n "$rb" ]; } || fail "did not get one elicitation from each"
[ "$ra" != "$rb" ] ||
    fail "two upstreams' requests were relayed with the same id $ra"
# answer in the other order, with different answers
reply "$rb" '{"action":"decline"}'
reply "$ra" '{"action":"accept","content":{"ok":false}}'
for i in 1 2; do
	expect_line "$(f_result 10) or $(f_result 11)"
	case $(jget .id) in
	10) jcheck "$(f_text 10 '{"action":"accept","content":{"ok":false}}')" ||
		fail "alpha got the wrong answer: $LINE" ;;
	11) jcheck "$(f_text 11 '{"action":"decline"}')" ||
		fail "beta got the wrong answer: $LINE" ;;
	esac
done
for l in a b; do
	jq -se 'map(select(.method == null)) | length == 1 and .[0].id == 0' \
	    "$TESTDIR/$l.log" >/dev/null ||
	    fail "upstream $l did not get its answer under id 0"
done
pass
