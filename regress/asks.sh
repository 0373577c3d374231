#!/usr/bin/env bash
#
# regress/asks.sh - asking a human through MCP elicitation: an unproven
# destination is asked about once, only "accept" approves, the approval
# covers exactly (tool, parameter, value), a decline denies, each
# unproven list element is its own question, an approved ask spends
# one budget slot, not two, and a question left unanswered past
# asks.timeout denies, an accept after it approving nothing.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

up=$TESTDIR/mail.log
start_mail <<'YAML'
send_email:
  exfiltrating: true
  sink_params: [to, cc]
  max_calls: 6
YAML
handshake '{"elicitation":{}}'

call 1 send_email '{"to":"bob@newco.example","body":"hi"}'
expect_line '.method == "elicitation/create" and (.id | type) == "number" and
    (.params.message | contains("bob@newco.example")) and
    .params.requestedSchema.type == "object"'
q=$(jget .id)
answer "$q" accept
expect_line "$(f_text 1 'sent to bob@newco.example')"

# remembered: no second question for the same (tool, param, value), in
# canonical form: the domain's case, a trailing dot, a display name and a
# comment make no other mailbox (DESIGN 5)
call 2 send_email '{"to":"Bob Smith <bob(work)@NewCo.Example.> ","body":"again"}'
expect_line "$(f_text 2 'sent to Bob Smith <bob(work)@NewCo.Example.> ')"
# the local part's case does: another mailbox, never approved, and here
# tainted (the upstream's answer "sent to bob@..." mentioned it)
call 7 send_email '{"to":"Bob@newco.example","body":"again"}'
expect_line "$(f_blocked 7) and (.result.content[0].text | contains(\"to='Bob@newco.example' came from untrusted data\"))"
# not for another parameter: under cc, bob is just an address that the
# upstream's own answer ("sent to bob@...") mentioned, so it is tainted
call 3 send_email '{"to":"bob@newco.example","cc":["bob@newco.example"],"body":"x"}'
expect_line "$(f_blocked 3) and (.result.content[0].text | contains(\"cc='bob@newco.example' came from untrusted data\"))"
# a decline denies, and says so
call 9 send_email '{"to":"carol@newco.example","body":"x"}'
expect_line '.method == "elicitation/create" and (.params.message | contains("carol@newco.example"))'
answer "$(jget .id)" decline
expect_line "$(f_blocked 9) and (.result.content[0].text | endswith(\"(the human declined)\"))"

# an answer to a question bouncer never asked changes nothing
answer 424242 accept
# two unproven list elements: two questions, then allowed
call 4 send_email '{"to":"bob@newco.example","cc":["c1@x.example","c2@x.example"],"body":"x"}'
expect_line '.method == "elicitation/create" and (.params.message | contains("c1@x.example"))'
answer "$(jget .id)" accept
expect_line '.method == "elicitation/create" and (.params.message | contains("c2@x.example"))'
answer "$(jget .id)" accept
expect_line "$(f_text 4 'sent to bob@newco.example')"
# budget 6: calls 1, 2, 7, 3, 9, 4 spent 6 slots although three were
# asked
call 5 send_email '{"to":"bob@newco.example","body":"x"}'
expect_line "$(f_blocked 5) and .result.content[0].text ==
    \"[bouncer blocked] call budget 6 for 'send_email' exceeded\""
ping_ok 6
got=$(mock_calls "$up" | wc -l)
[ "$got" = 3 ] || fail "want 3 calls forwarded, the upstream got $got"
stop_monitor

# A question nobody answers denies the call when asks.timeout passes,
# and saying so; an accept that comes after it approves nothing: the
# same destination is asked about again.
up=$TESTDIR/mail2.log
write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
policy: $TESTDIR/policy.yaml
asks: { timeout: 2 }
upstreams:
  mail: { command: "$MAIL", args: [-l, "$up"] }
YAML
start_monitor -f "$TESTDIR/bouncer.yaml"
handshake '{"elicitation":{}}'
call 1 send_email '{"to":"dave@newco.example","body":"hi"}'
expect_line '.method == "elicitation/create" and
    (.params.message | contains("dave@newco.example"))'
q=$(jget .id)
expect_line "$(f_blocked 1) and (.result.content[0].text |
    contains(\"no answer in time\"))" 10
answer "$q" accept
call 2 send_email '{"to":"dave@newco.example","body":"hi"}'
expect_line '.method == "elicitation/create" and
    (.params.message | contains("dave@newco.example"))'
answer "$(jget .id)" decline
expect_line "$(f_blocked 2)"
ping_ok 3
[ "$(mock_calls "$up" | wc -l)" = 0 ] ||
    fail "a call whose question timed out reached the upstream"
"$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" -j -T send_email | jq -e -s '
    [.[] | select(.reason | contains("no answer in time"))] | length == 1' \
    >/dev/null || fail "no audit row says the question timed out"
pass
