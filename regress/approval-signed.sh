#!/usr/bin/env bash
#
# regress/approval-signed.sh - approval: signed (issue 9, item 1): an
# elicitation answer is only as trustworthy as the client worker that
# parses it and the client application together, so a tool whose policy
# says approval: signed is never asked about through the client.  Its
# asks wait out of band (regress/oob-asks.sh) and, unanswered, are denied
# "needs a signed approval (no answer in N s)", even with a client that
# would accept every question, and the call never reaches the upstream;
# with no consent key configured nobody could sign, and they are denied
# at once; tools with approval: elicit (the default) are still asked.
# (Until issue 10, item 7 these asks were denied at once.)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

write_script pay <<'JSON'
{"tools":[
 {"name":"wire","inputSchema":{"type":"object","properties":{
   "iban":{"type":"string"},"amount":{"type":"number"}}}},
 {"name":"refund","inputSchema":{"type":"object","properties":{
   "order":{"type":"string"}}}},
 {"name":"notify","inputSchema":{"type":"object","properties":{
   "to":{"type":"string"},"text":{"type":"string"}}}}],
 "results":{"wire":{"content":[{"type":"text","text":"wired"}]},
  "refund":{"content":[{"type":"text","text":"refunded"}]},
  "notify":{"content":[{"type":"text","text":"sent"}]}}}
JSON
mkdir -m 700 "$TESTDIR/keys"
"$top_builddir/monitor/bouncer-issue-consent" -G -k "$TESTDIR/admin.key" \
    2>/dev/null || fail "-G failed"
cp "$TESTDIR/admin.key.pub" "$TESTDIR/keys/"
write_config "$TESTDIR/bouncer.yaml" <<YAML
consent: { keys: $TESTDIR/keys }
asks: { timeout: 2 }
YAML
start_script pay -f "$TESTDIR/bouncer.yaml" <<'YAML'
wire:
  exfiltrating: true
  sink_params: [iban]
  trusted_destinations: [CH9300762011623852957]
  approval: signed
refund:
  confirm: true
  approval: signed
notify:
  exfiltrating: true
  sink_params: [to]
YAML
handshake '{"elicitation":{}}'

# unproven destination, and a confirmation: no question to the client;
# they wait out of band, and nobody answers
call 1 wire '{"iban":"DE89370400440532013000","amount":900}'
expect_line "$(f_blocked 1) and .result.content[0].text ==
    \"[bouncer blocked] destination iban='DE89370400440532013000' is not a vouched recipient; needs a signed approval (no answer in 2 s)\"" 8
call 2 refund '{"order":"A-17"}'
expect_line "$(f_blocked 2) and (.result.content[0].text | endswith(\"; needs a signed approval (no answer in 2 s)\"))" 8
# what needs no ask is unaffected
call 3 wire '{"iban":"CH93 0076 2011 6238 5295 7","amount":1}'
expect_line "$(f_text 3 wired)"
# approval: elicit (the default) still asks, and the answer counts
call 4 notify '{"to":"ops@new.example","text":"hi"}'
expect_line '.method == "elicitation/create" and (.params.message | contains("ops@new.example"))'
answer "$(jget .id)" accept
expect_line "$(f_text 4 sent)"
# an answer the client sends unasked approves nothing, before the ask
# or while it waits, whatever id it names
answer 7 accept
call 5 wire '{"iban":"DE89370400440532013000","amount":900}'
for i in 0 1 2 3 4 5 6 7 8 9; do
	answer "$i" accept
done
expect_line "$(f_blocked 5) and (.result.content[0].text | endswith(\"; needs a signed approval (no answer in 2 s)\"))" 8
ping_ok 99
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"
script_calls pay >"$TESTDIR/calls.txt"
grep -E 'DE89|A-17' "$TESTDIR/calls.txt" && fail "a signed-only call reached the server"
[ "$(wc -l <"$TESTDIR/calls.txt")" = 2 ] ||
    fail "want 2 calls upstream, have: $(cat "$TESTDIR/calls.txt")"
"$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" -j -T wire | jq -e -s '
    [.[].verdict] == ["ask","deny","allow","ask","deny"] and
    (.[0].reason | endswith("needs a signed approval")) and
    (.[1].reason | endswith("needs a signed approval (no answer in 2 s)"))' \
    >/dev/null ||
    fail "the audit rows of wire are wrong"

# A client worker hijacked by the bytes it parses: it declares
# elicitation itself and accepts every question, with no client behind
# it.  What approval: elicit asks is approved by the lie; what approval:
# signed needs never reaches the upstream.  (A worker never sees what
# the monitor writes to the client: it reads the questions from a copy
# of the monitor's stdout, as a colluding client application could.)
EVIL=$top_builddir/regress/mocks/evil-worker
lib=$TESTDIR/libexec-liar
mkdir -m 755 "$lib"
: >"$TESTDIR/liar.out"
printf '#!/bin/sh\nEVIL_ANSWERS="%s" EVIL_CALLS="%s" exec "%s" approve "%s" client "$@"\n' \
    "$TESTDIR/liar.out" \
    'wire:iban=DE89370400440532013000,notify:to=spy@new.example' \
    "$EVIL" "$WORKER" >"$lib/bouncer-worker"
chmod 755 "$lib/bouncer-worker"
rm -f "$TESTDIR/pay.log"
write_config "$TESTDIR/policy.yaml" <<'YAML'
wire:
  exfiltrating: true
  sink_params: [iban]
  approval: signed
notify:
  exfiltrating: true
  sink_params: [to]
YAML
BOUNCER_LIBEXEC=$lib start_monitor -P "$TESTDIR/policy.yaml" \
    -f "$TESTDIR/bouncer.yaml" -n pay -- \
    "$SCRIPT" -s "$TESTDIR/pay.json" -l "$TESTDIR/pay.log"
cat <&"$MON_OUT" >>"$TESTDIR/liar.out" &
wait_monitor 20
[ "$MON_STATUS" = 0 ] || fail "the session with a lying worker exited $MON_STATUS"
script_calls pay >"$TESTDIR/calls2.txt"
grep -q ' notify .*spy@new.example' "$TESTDIR/calls2.txt" ||
    fail "the lie did not approve notify: the test proves nothing"
grep -q ' wire ' "$TESTDIR/calls2.txt" &&
    fail "a lying worker's accept let approval: signed through"
"$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" -j -T wire | jq -e -s '
    .[-1].verdict == "deny" and
    (.[-1].reason | contains("needs a signed approval ("))' >/dev/null ||
    fail "the lying session's wire row is wrong"

# No consent key: nobody could sign an approval, so nothing waits.
rm -f "$TESTDIR/pay.log"
start_monitor -P "$TESTDIR/policy.yaml" -n pay -- \
    "$SCRIPT" -s "$TESTDIR/pay.json" -l "$TESTDIR/pay.log"
handshake '{"elicitation":{}}'
call 1 wire '{"iban":"DE89370400440532013000","amount":900}'
expect_line "$(f_blocked 1) and .result.content[0].text ==
    \"[bouncer blocked] destination iban='DE89370400440532013000' is not a vouched recipient; needs a signed approval, and no consent key is configured to sign one\""
stop_monitor
[ -z "$(script_calls pay)" ] || fail "a signed-only call reached the server"
pass
