#!/usr/bin/env bash
#
# regress/startup-fail.sh - an upstream that fails its start-up (exits at
# once, refuses initialize, speaks an unsupported protocol version, sends
# an answer over max_message) makes the client's initialize fail with
# -32603 and a message naming it and saying why.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

# startup_fails NAME -- COMMAND...
startup_fails() {
	local name=$1

	shift
	start_monitor -n "$name" "$@"
	initialize_req 0 2025-11-25
	expect_line "$(f_error 0 -32603) and (.error.message |
	    contains(\"$name\"))" "$TEST_START_TIMEOUT"
	stop_monitor
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
pass
