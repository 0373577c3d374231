#!/usr/bin/env bash
#
# regress/core-limits.sh - the monitor's own bounds fail one call, with
# its audit row, and never the session:
#  * a tool name longer than the log's field is recorded cut and marked,
#    not dropped from the log;
#  * with BNC_PENDING_MAX (1024) calls in flight to an upstream, the next
#    is denied before it is decided, with a deny row and no allow row;
#  * a lying client worker's call whose JSON toward the upstream would be
#    six times its frame is not sent, the log says so, and the session
#    goes on.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

DB=$BOUNCER_STATE_DIR/audit.db

# --- a tool name of 2000 bytes ---------------------------------------
up=$TESTDIR/up.log
start_monitor -- "$MOCK" -l "$up"
handshake
long=$(printf 'x%.0s' $(seq 2000))
call 1 "$long"
expect_line "$(f_blocked 1) and (.result.content[0].text |
    contains(\"unknown tool\"))"
row=$("$AUDIT" -D "$DB" -j -r deny | tail -n 1)
jq_one --arg p "${long:0:900}" '(.tool | startswith($p)) and
    (.tool | endswith("... (cut: 2000 bytes)")) and
    (.tool | utf8bytelength) <= 1024 and .contract == "pinning" and
    (.reason | contains("unknown tool"))' <<<"$row" ||
    fail "the long name's deny row: $row"

# --- 1025 calls in flight ---------------------------------------------
# mock-upstream holds up to 1024 slow calls; each waits 10 minutes.
{
	for i in $(seq 100 1124); do
		printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow","arguments":{"ms":600000}}}\n' "$i"
	done
} >"$TESTDIR/calls.jsonl"
cat "$TESTDIR/calls.jsonl" >&"$MON_IN"
expect_line "$(f_blocked 1124) and .result.content[0].text ==
    \"[bouncer blocked] upstream \\\"upstream\\\" has too many requests in flight\"" 20
ping_ok 2
for i in $(seq 100); do
	[ "$(mock_calls "$up" | grep -c ' slow$')" = 1024 ] && break
	sleep 0.1
done
n=$(mock_calls "$up" | grep -c ' slow$')
[ "$n" = 1024 ] || fail "the upstream got $n slow calls, want 1024"
"$AUDIT" -D "$DB" -j -T slow | jq -e -s '
    ([.[] | select(.verdict == "allow")] | length) == 1024 and
    ([.[] | select(.verdict == "deny")] | length) == 1 and
    (.[-1] | .verdict == "deny" and .contract == "default" and
     (.reason | contains("too many requests in flight")))' >/dev/null ||
    fail "audit rows for slow: $("$AUDIT" -D "$DB" -j -T slow | jq -c -s \
    '[group_by(.verdict)[] | {(.[0].verdict): length}]')"
# The cancelled ones make room again.
send '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":100}}'
call 3 echo '{"message":"room again"}'
expect_line "$(f_text 3 "room again")"
kill -TERM "$MON_PID"
wait_monitor 10

# --- control bytes a lying worker sends --------------------------------
EVIL=$top_builddir/regress/mocks/evil-worker
lib=$TESTDIR/libexec-liar
mkdir -m 755 "$lib"
# 30 000 bytes of U+0001 fit a 64 KiB frame; as JSON they are 180 000,
# over twice max_message: no honest worker could have sent them.
# It reads the answers, which only the client sees, from a copy.
: >"$TESTDIR/client.out"
printf '#!/bin/sh\nEVIL_ANSWERS="%s" EVIL_CTRL=30000 exec "%s" ctrlbytes "%s" client "$@"\n' \
    "$TESTDIR/client.out" "$EVIL" "$WORKER" >"$lib/bouncer-worker"
chmod 755 "$lib/bouncer-worker"
write_config "$TESTDIR/bouncer.yaml" <<YAML
max_message: 65536
upstreams:
  up2: { command: "$MOCK", args: [-l, "$TESTDIR/up2.log"] }
YAML
BOUNCER_LIBEXEC=$lib start_monitor -f "$TESTDIR/bouncer.yaml"
exec {copy}< <(exec tee -a "$TESTDIR/client.out" <&"$MON_OUT")
exec {MON_OUT}<&- {MON_OUT}<&"$copy" {copy}<&-
expect_line '.id == 0 and .result.serverInfo.name == "bouncer"' \
    "$TEST_START_TIMEOUT"
expect_line "$(f_error 1 -32603) and (.error.message |
    contains(\"could not be sent\"))" 10
expect_line '.id == 2 and .result == {}'
wait_monitor 10
[ "$MON_STATUS" = 0 ] || fail "the session exited $MON_STATUS"
[ -z "$(mock_calls "$TESTDIR/up2.log")" ] ||
    fail "the upstream got: $(mock_calls "$TESTDIR/up2.log")"
"$AUDIT" -D "$DB" -j -n 6 | jq -e -s '
    any(.[]; .tool == "echo" and .verdict == "allow") and
    any(.[]; .tool == "not-sent" and .verdict == "event" and
    (.reason | contains("nothing was sent")))' >/dev/null ||
    fail "the log does not say the call was not sent:
$("$AUDIT" -D "$DB" -j -n 6)"
pass
