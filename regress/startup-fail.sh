#!/usr/bin/env bash
#
# regress/startup-fail.sh - an upstream that fails its start-up (exits at
# once, refuses initialize, speaks an unsupported protocol version) makes
# the client's initialize fail with -32603 and a message naming it.
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

# Answers initialize with a version bouncer does not speak.
startup_fails futurist -- "$MOCK" -v 2099-01-01
pass
