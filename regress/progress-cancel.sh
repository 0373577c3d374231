#!/usr/bin/env bash
#
# regress/progress-cancel.sh - notifications/progress of a live request
# reaches the client with the client's own token, before the result;
# notifications/cancelled is forwarded to the upstream under bouncer's id
# for that request, and the upstream's late progress and answer are
# dropped.  A slow call does not hold up other requests.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

up=$TESTDIR/up.log
start_monitor -- "$MOCK" -l "$up"
handshake

# slow_call ID MS TOKEN-JSON
slow_call() {
	request "$1" tools/call "{\"name\":\"slow\",\"arguments\":{\"ms\":$2},\"_meta\":{\"progressToken\":$3}}"
}

# Progress with a string token, then the result.
slow_call 1 300 '"tok-1"'
for k in 1 2 3; do
	expect_line ".method == \"notifications/progress\" and
	    (has(\"id\") | not) and .params.progressToken == \"tok-1\" and
	    .params.progress == $k and .params.total == 3"
done
expect_line "$(f_text 1 "slept 300 ms")"

# An integer token stays an integer.
slow_call 2 0 42
for k in 1 2 3; do
	expect_line ".method == \"notifications/progress\" and
	    .params.progressToken == 42 and .params.progress == $k"
done
expect_line "$(f_text 2 "slept 0 ms")"

# Cancel a slow call at once: the mock ignores cancellation on purpose
# and would send progress at 150/300/450 ms and the answer at 600 ms;
# none of it may reach the client.
slow_call 3 600 '"tok-3"'
send '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"regress"}}'
ping_ok 4
expect_silence 1
ping_ok 5
# The upstream was told, under the id bouncer had given the call.
jq -se '(map(select(.method == "tools/call" and
	.params.arguments.ms == 600))[0].id) as $id |
    $id != null and any(.[]; .method == "notifications/cancelled" and
	.params.requestId == $id)' "$up" >/dev/null ||
    fail "the cancellation did not reach the upstream under bouncer's id:
$(cat "$up")"

# Cancelling something unknown or finished: ignored, no answer.
send '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}'
send '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}'
ping_ok 6

# A slow call does not block a later one.
call 7 slow '{"ms":1500}'
call 8 echo '{"message":"overtakes"}'
expect_line "$(f_text 8 overtakes)" 1.2
expect_line "$(f_text 7 "slept 1500 ms")"
pass
