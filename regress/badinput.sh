#!/usr/bin/env bash
#
# regress/badinput.sh - every kind of malformed client input in the
# monitor spec's table is answered with the right code and id, nothing of
# it reaches the upstream, and the session goes on (ping after each).
# max_message is 4096 here, so the size limit is tested at and past it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

MAX=4096
up=$TESTDIR/up.log
write_config "$TESTDIR/bouncer.yaml" <<YAML
max_message: $MAX
YAML
start_monitor -f "$TESTDIR/bouncer.yaml" -- "$MOCK" -l "$up"
handshake

pid=1000
alive() {
	pid=$((pid + 1))
	ping_ok "$pid"
}

# bad LINE FILTER: LINE is answered by one line matching FILTER, then
# the session still answers ping.
bad() {
	send "$1"
	expect_line "$2"
	alive
}

# bad_raw FILTER PRINTF-FORMAT: the same with a byte-exact line.
bad_raw() {
	send_raw "$2"
	expect_line "$1"
	alive
}

err_null() {		# CODE
	echo ".jsonrpc == \"2.0\" and .id == null and .error.code == $1 and (.error.message | type) == \"string\""
}

# Not JSON, or not UTF-8: -32700, id null.
bad 'this is not json' "$(err_null -32700)"
bad '{"jsonrpc":"2.0","id":1,"method":"ping"' "$(err_null -32700)"
bad '{"jsonrpc":"2.0","id":1,"method":"ping"} trailing' "$(err_null -32700)"
bad "{'jsonrpc':'2.0','id':1,'method':'ping'}" "$(err_null -32700)"
bad_raw "$(err_null -32700)" \
    '{"jsonrpc":"2.0","id":2,"method":"ping","params":{"s":"\377\376"}}\n'
bad_raw "$(err_null -32700)" \
    '{"jsonrpc":"2.0","id":2,"method":"ping","params":{"s":"\300\257"}}\n'
bad_raw "$(err_null -32700)" \
    '{"jsonrpc":"2.0","id":2,"method":"ping","params":{"s":"\355\240\200"}}\n'
bad_raw "$(err_null -32700)" \
    '{"jsonrpc":"2.0","id":2,"method":"ping","params":{"s":"a\001b"}}\n'

# Batches: -32600, id null.
bad '[{"jsonrpc":"2.0","id":3,"method":"ping"}]' "$(err_null -32600)"
bad '[]' "$(err_null -32600)"

# Not an object: -32600, id null.
bad '"ping"' "$(err_null -32600)"
bad '42' "$(err_null -32600)"
bad 'null' "$(err_null -32600)"
bad 'true' "$(err_null -32600)"

# Ids that are not a string or an integer: -32600, id null.
bad '{"jsonrpc":"2.0","id":1.5,"method":"ping"}' "$(err_null -32600)"
bad '{"jsonrpc":"2.0","id":true,"method":"ping"}' "$(err_null -32600)"
bad '{"jsonrpc":"2.0","id":[1],"method":"ping"}' "$(err_null -32600)"
bad '{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}' "$(err_null -32600)"
bad '{"jsonrpc":"2.0","id":null,"method":"ping"}' "$(err_null -32600)"

# Envelope errors with a usable id: -32600 with that id.
bad '{"jsonrpc":"1.0","id":4,"method":"ping"}' "$(f_error 4 -32600)"
bad '{"id":5,"method":"ping"}' "$(f_error 5 -32600)"
bad '{"jsonrpc":2.0,"id":6,"method":"ping"}' "$(f_error 6 -32600)"
bad '{"jsonrpc":"2.0","id":7}' "$(f_error 7 -32600)"
bad '{"jsonrpc":"2.0","id":8,"method":7}' "$(f_error 8 -32600)"
bad '{"jsonrpc":"2.0","id":9,"method":null}' "$(f_error 9 -32600)"
bad '{"jsonrpc":"2.0","id":10,"method":"ping","params":[1,2]}' \
    "$(f_error 10 -32600)"
bad '{"jsonrpc":"2.0","id":11,"method":"ping","params":"x"}' \
    "$(f_error 11 -32600)"
bad '{"jsonrpc":"2.0","id":"s-12","method":"ping","params":7}' \
    "$(f_error '"s-12"' -32600)"

# Duplicate keys (cJSON would keep both: a parser differential).
bad '{"jsonrpc":"2.0","id":13,"method":"ping","method":"tools/list"}' \
    "$(f_error 13 -32600)"
bad '{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"echo","name":"add","arguments":{}}}' \
    "$(f_error 14 -32600)"
bad '{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a","message":"b"}}}' \
    "$(f_error 15 -32600)"

# NUL inside a string (escaped; a raw NUL byte is not JSON at all).
bad '{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a\u0000b"}}}' \
    "$(f_error 16 -32600)"
bad '{"jsonrpc":"2.0","id":17,"method":"ping","params":{"k\u0000":1}}' \
    "$(f_error 17 -32600)"

# Nesting: the message object plus params make 2 levels; 62 more arrays
# reach the limit of 64, 63 more go one past it.
nest() {		# N: N nested arrays
	local i o='' c=''

	for ((i = 0; i < $1; i++)); do
		o+='['
		c+=']'
	done
	printf '%s%s' "$o" "$c"
}
send "{\"jsonrpc\":\"2.0\",\"id\":18,\"method\":\"ping\",\"params\":{\"a\":$(nest 62)}}"
expect_line '.id == 18 and .result == {}'
bad "{\"jsonrpc\":\"2.0\",\"id\":19,\"method\":\"ping\",\"params\":{\"a\":$(nest 63)}}" \
    "$(f_error 19 -32600)"
# far deeper (still under max_message): refused without exhausting a
# stack; past a parser's own nesting limit the id may be unknown, or the
# line may count as not JSON
bad "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"ping\",\"params\":{\"a\":$(nest 1500)}}" \
    '(.error.code == -32600 and (.id == 20 or .id == null)) or
    (.error.code == -32700 and .id == null)'

# Size: a message of exactly max_message bytes is served, one byte more
# is "message too large" with the request's id (read from the bytes as
# they are dropped), and so is a 1 MiB line, whose rest is discarded
# (the next line is a fresh message).
padded() {		# ID LENGTH: a ping of exactly LENGTH bytes
	local head="{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"ping\",\"params\":{\"pad\":\""
	local tail='"}}' n

	n=$(($2 - ${#head} - ${#tail}))
	printf '%s%s%s' "$head" "$(head -c "$n" /dev/zero | tr '\0' x)" "$tail"
}
line=$(padded 21 "$MAX")
[ "${#line}" = "$MAX" ] || fail "test bug: padded line is ${#line} bytes"
send "$line"
expect_line '.id == 21 and .result == {}'
too_large() {		# ID: the request's id, found in the dropped bytes
	echo "$(f_error "$1" -32600) and .error.message == \"message too large\""
}
bad "$(padded 22 $((MAX + 1)))" "$(too_large 22)"
bad "$(padded 23 $((1024 * 1024)))" "$(too_large 23)"
# two messages over the limit in a row, then a good one
send "$(padded 24 $((MAX * 3)))"
send "$(padded 25 $((MAX * 2)))"
expect_line "$(too_large 24)"
expect_line "$(too_large 25)"
alive
# an id that cannot be told (none, or after an escape): id null
send "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":{\"pad\":\"$(head -c "$MAX" /dev/zero | tr '\0' x)\"}}"
expect_line "$(err_null -32600) and .error.message == \"message too large\""
send "{\"jsonrpc\":\"2.0\",\"id\":\"a\\\\u0041\",\"method\":\"ping\",\"params\":{\"pad\":\"$(head -c "$MAX" /dev/zero | tr '\0' x)\"}}"
expect_line "$(err_null -32600) and .error.message == \"message too large\""
alive

# Unknown methods: -32601 with the id.
bad '{"jsonrpc":"2.0","id":26,"method":"no/such/method"}' \
    "$(f_error 26 -32601)"
bad '{"jsonrpc":"2.0","id":27,"method":"tools/delete","params":{}}' \
    "$(f_error 27 -32601)"

# tools/call with bad params: -32602 with the id.
bad '{"jsonrpc":"2.0","id":28,"method":"tools/call"}' "$(f_error 28 -32602)"
bad '{"jsonrpc":"2.0","id":29,"method":"tools/call","params":{}}' \
    "$(f_error 29 -32602)"
bad '{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":5}}' \
    "$(f_error 30 -32602)"
bad '{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"echo","arguments":"message=x"}}' \
    "$(f_error 31 -32602)"
bad '{"jsonrpc":"2.0","id":32,"method":"tools/call","params":{"name":"echo","arguments":["x"]}}' \
    "$(f_error 32 -32602)"

# Responses with an unknown id and unknown notifications: no answer at
# all (the next line is the ping's).
send '{"jsonrpc":"2.0","id":777,"result":{}}'
alive
send '{"jsonrpc":"2.0","id":"srv-9","error":{"code":-32601,"message":"x"}}'
alive
send '{"jsonrpc":"2.0","method":"notifications/no-such-thing","params":{}}'
alive

# A negative integer id is still an id.
request -5 ping
expect_line '.id == -5 and .result == {}'

# None of it reached the upstream; a good call still does.
call 33 echo '{"message":"still here"}'
expect_line "$(f_text 33 "still here")"
got=$(mock_methods "$up" | sort -u | tr '\n' ' ')
[ "$got" = "initialize notifications/initialized tools/call tools/list " ] ||
    fail "the upstream received unexpected methods: $got"
n=$(mock_calls "$up" | wc -l)
[ "$n" = 1 ] || fail "the upstream received $n tools/call, want 1"
pass
