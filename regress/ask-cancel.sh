#!/usr/bin/env bash
#
# regress/ask-cancel.sh - a call the client cancels while it waits for a
# human is never forwarded, even if the human then accepts: bouncer
# withdraws its question (notifications/cancelled), does not answer the
# cancelled call, and records it as denied with its destination in
# clear.  A refused ask's deny row shows the destination too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

up=$TESTDIR/mail.log
start_mail <<'YAML'
send_email:
  exfiltrating: true
  sink_params: [to, cc]
YAML
handshake '{"elicitation":{}}'


call 1 send_email '{"to":"dave@newco.example","body":"hi"}'
expect_line '.method == "elicitation/create" and (.params.message | contains("dave@newco.example"))'
q=$(jget .id)
send '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user stopped"}}'
expect_line ".method == \"notifications/cancelled\" and .params.requestId == $q"
# the human accepts anyway: nothing is forwarded, nothing answered
answer "$q" accept
ping_ok 2
expect_silence 1

# a declined ask: its deny row names the destination in clear
call 3 send_email '{"to":"erin@newco.example","body":"x"}'
expect_line '.method == "elicitation/create"'
answer "$(jget .id)" decline
expect_line "$(f_blocked 3)"
ping_ok 4
[ -z "$(mock_calls "$up")" ] || fail "the mail server got: $(mock_calls "$up")"
stop_monitor

rows=$("$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" -j -T send_email) ||
    fail "bouncer-audit failed"
echo "$rows" | jq -e -s 'map(select(.verdict == "deny" and
    (.reason | endswith("(the client cancelled the call)")) and
    .sinks.to == "dave@newco.example")) | length == 1' >/dev/null ||
    fail "no deny row for the cancelled call: $rows"
echo "$rows" | jq -e -s 'map(select(.verdict == "deny" and
    (.reason | endswith("(the human declined)")) and
    .sinks.to == "erin@newco.example")) | length == 1' >/dev/null ||
    fail "the declined ask's row lacks its destination: $rows"
pass
