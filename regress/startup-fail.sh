#!/usr/bin/env bash
#
# regress/startup-fail.sh - an upstream that fails its start-up (exits at
# once, refuses initialize, speaks an unsupported protocol version, sends
# an answer over max_message) makes the client's initialize fail with
# -32603 and a message naming it and saying why.  The session then
# serves nothing but says so (DESIGN 10): every later request gets the
# same error, ping is answered, and the monitor exits 1 when the client
# closes, not before; an upstream that did start is stopped meanwhile.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

# startup_fails NAME -- COMMAND...
startup_fails() {
	local name=$1 why

	shift
	start_monitor -n "$name" "$@"
	initialize_req 0 2025-11-25
	expect_line "$(f_error 0 -32603) and (.error.message |
	    contains(\"$name\"))" "$TEST_START_TIMEOUT"
	why=$LINE
	after_failure "$name"
	stop_monitor
	[ "$MON_STATUS" = 1 ] || fail "$name: the monitor exited $MON_STATUS"
	LINE=$why
}

# after_failure NAME: the failed session answers ping, and refuses the
# rest with the start's error
after_failure() {
	send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	request 1 tools/list
	expect_line "$(f_error 1 -32603) and (.error.message |
	    contains(\"upstream \\\"$1\\\" failed to start\"))"
	call 2 echo '{"message":"x"}'
	expect_line "$(f_error 2 -32603)"
	ping_ok 3
}

# Dies before answering.
startup_fails dead -- /bin/false

# Answers every request with an error (whatever bouncer asks first).
cat >"$TESTDIR/refuser.sh" <<'SH'
while IFS= read -r line; do
	id=$(printf '%s\n' "$line" | jq -c '.id // empty' 2>/dev/null)
	[ -n "$id" ] || continue
	printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"refused"}}\n' "$id"
done
SH
startup_fails refuser -- /bin/sh "$TESTDIR/refuser.sh"

# Answers initialize, then refuses tools/list, or answers it without a
# tools array: the message says which.
cat >"$TESTDIR/nolist.sh" <<'SH'
while IFS= read -r line; do
	id=$(printf '%s\n' "$line" | jq -c '.id // empty' 2>/dev/null)
	method=$(printf '%s\n' "$line" | jq -r '.method // empty' 2>/dev/null)
	[ -n "$id" ] || continue
	case $method in
	initialize)
		printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"n","version":"1"}}}\n' "$id" ;;
	tools/list)
		if [ "$1" = refuse ]; then
			printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no tools here"}}\n' "$id"
		else
			printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"
		fi ;;
	esac
done
SH
startup_fails lister -- /bin/sh "$TESTDIR/nolist.sh" refuse
jcheck '.error.message | test("tools/list failed: no tools here")' ||
    fail "lister: $LINE"
startup_fails toolless -- /bin/sh "$TESTDIR/nolist.sh" empty
jcheck '.error.message | test("tools/list failed: the answer has no tools array")' ||
    fail "toolless: $LINE"

# Answers initialize with a version bouncer does not speak.
startup_fails futurist -- "$MOCK" -v 2099-01-01

# Answers bouncer's own initialize, then its tools/list, with a line over
# max_message: the answer cannot be used, and the reason says why.
write_config "$TESTDIR/small.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
max_message: 4096
YAML
startup_fails wordy -f "$TESTDIR/small.yaml" -- "$MOCK" \
    -N "$(printf '%6000s' '' | tr ' ' x)"
jcheck '.error.message | test("initialize failed: upstream wordy sent an answer bouncer cannot use \\(message too large\\)")' ||
    fail "wordy: $LINE"
startup_fails many -f "$TESTDIR/small.yaml" -- "$MOCK" -t 300
jcheck '.error.message | test("tools/list failed: upstream many sent an answer bouncer cannot use \\(message too large\\)")' ||
    fail "many: $LINE"

# One upstream starts, another fails: the good one is stopped at once,
# and the session still waits for its client past every grace.
write_config "$TESTDIR/two.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
upstreams:
  good: { command: "$MOCK" }
  bad: { command: /bin/false }
YAML
start_monitor -f "$TESTDIR/two.yaml"
initialize_req 0 2025-11-25
expect_line "$(f_error 0 -32603) and (.error.message |
    contains(\"upstream \\\"bad\\\" failed\"))" "$TEST_START_TIMEOUT"
after_failure bad
for i in $(seq 50); do
	[ -z "$(pgrep -P "$MON_PID" -x mock-upstream)" ] && break
	sleep 0.1
done
[ -z "$(pgrep -P "$MON_PID" -x mock-upstream)" ] ||
    fail "the upstream that started was not stopped"
# past the 2 s + 2 s + 2 s of the upstreams' grace: still serving
sleep 7
monitor_alive || fail "the failed session ended before its client did"
ping_ok 4
stop_monitor
[ "$MON_STATUS" = 1 ] || fail "two: the monitor exited $MON_STATUS"
pass
