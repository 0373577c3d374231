#!/usr/bin/env bash
#
# regress/oob-asks.sh - out-of-band asks (issue 10, item 7; DESIGN 5, 7):
# a call of an approval: signed tool, or of a client that cannot elicit,
# waits, registered in the monitor's database; bouncer-issue-consent
# --pending shows it with its exact arguments, --approve -y signs it and
# the call reaches the upstream, --deny denies it, and no answer in
# asks.timeout denies it.  An approval covers its one call: nothing of
# it is remembered for the session.  A prompts/get that must be
# confirmed waits and is released the same way.  An approval is only its signature: one copied
# from another ask, or made up, is refused as a bad signature; an
# expired, answered or unknown id is refused by bouncer-issue-consent.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd sqlite3 od
ISSUE=$top_builddir/monitor/bouncer-issue-consent
DB=$BOUNCER_STATE_DIR/audit.db
CFG=$TESTDIR/bouncer.yaml
KEY=$TESTDIR/admin.key
OUT=$TESTDIR/out
ERR=$TESTDIR/err
mkdir -m 700 "$TESTDIR/keys"
"$ISSUE" -G -k "$KEY" 2>/dev/null || fail "-G failed"
cp "$KEY.pub" "$TESTDIR/keys/"

# issue ARGS...: bouncer-issue-consent ARGS without a terminal; RC.
issue() {
	timeout 20 setsid -w "$ISSUE" "$@" </dev/null >"$OUT" 2>"$ERR"
	RC=$?
	[ "$RC" != 124 ] || fail "bouncer-issue-consent $* hung"
}

# wait_ask N: waits for the N-th out-of-band ask of the database and
# leaves its id in ASK.
wait_ask() {
	local i n

	for i in $(seq 200); do
		n=$(sqlite3 "$DB" 'SELECT count(*) FROM oob_asks' 2>/dev/null)
		if [ "${n:-0}" -ge "$1" ]; then
			ASK=$(sqlite3 "$DB" "SELECT id FROM oob_asks ORDER BY id
			    LIMIT 1 OFFSET $(($1 - 1))")
			return 0
		fi
		sleep 0.05
	done
	fail "out-of-band ask $1 never appeared"
}

# answer_row ID VERDICT SIG KEYID: an answer written by hand, as anybody
# who can write the database could.
answer_row() {
	sqlite3 "$DB" "INSERT INTO oob_answers (ask_id, verdict, signature,
	    key_id, time) VALUES ($1, '$2', '$3', '$4', 'now')" ||
	    fail "cannot insert an answer row for ask $1"
}

write_script pay <<'JSON'
{"tools":[
 {"name":"wire","inputSchema":{"type":"object","properties":{
   "iban":{"type":"string"},"amount":{"type":"number"}}}},
 {"name":"refund","inputSchema":{"type":"object","properties":{
   "order":{"type":"string"}}}},
 {"name":"purge","inputSchema":{"type":"object","properties":{
   "what":{"type":"string"}}}},
 {"name":"notify","inputSchema":{"type":"object","properties":{
   "to":{"type":"string"},"text":{"type":"string"}}}}],
 "prompts":[{"name":"greet","arguments":[{"name":"who"}]}],
 "results":{"wire":{"content":[{"type":"text","text":"wired"}]},
  "refund":{"content":[{"type":"text","text":"refunded"}]},
  "purge":{"content":[{"type":"text","text":"purged"}]},
  "notify":{"content":[{"type":"text","text":"sent"}]}}}
JSON
cat >"$TESTDIR/pay-policy.yaml" <<'YAML'
wire:
  exfiltrating: true
  sink_params: [iban]
  approval: signed
refund:
  confirm: true
  approval: signed
purge:
  confirm: true
notify:
  exfiltrating: true
  sink_params: [to]
prompt/greet:
  confirm: true
  approval: signed
YAML
write_config "$CFG" <<YAML
consent: { keys: $TESTDIR/keys }
asks: { timeout: 30 }
YAML

# ---- a client that elicits: approval: signed still waits out of band --
start_script pay -f "$CFG" <"$TESTDIR/pay-policy.yaml"
handshake '{"elicitation":{}}'
call 1 wire '{"iban":"DE89370400440532013000","amount":900}'
wait_ask 1
A=$ASK
# no question to the client, and no answer yet
expect_silence 0.5
issue --pending -f "$CFG"
[ "$RC" = 0 ] || fail "--pending exited $RC: $(cat "$ERR")"
grep -q "^ask $A\$" "$OUT" || fail "--pending does not list ask $A: $(cat "$OUT")"
grep -q '^  tool     wire$' "$OUT" || fail "--pending does not show the tool"
grep -qF '    | {"amount":900,"iban":"DE89370400440532013000"}' "$OUT" ||
    fail "--pending does not show the exact arguments: $(cat "$OUT")"
grep -qF "iban='DE89370400440532013000' is not a vouched recipient; needs a signed approval" "$OUT" ||
    fail "--pending does not say why it asks"
grep -q '^  expires ' "$OUT" || fail "--pending does not show the expiry"
issue --approve "$A" -k "$KEY" -f "$CFG" -y
[ "$RC" = 0 ] || fail "--approve exited $RC: $(cat "$ERR")"
grep -qF '{"amount":900,"iban":"DE89370400440532013000"}' "$ERR" ||
    fail "--approve -y did not show what it signed"
expect_line "$(f_text 1 wired)"
# answered: no longer pending, and not approved twice
issue --pending -f "$CFG"
grep -q "^ask $A\$" "$OUT" && fail "an answered ask is still pending"
issue --approve "$A" -k "$KEY" -f "$CFG" -y
[ "$RC" = 1 ] && grep -q "ask $A: answered already (approve)" "$ERR" ||
    fail "--approve of an answered ask: rc $RC, $(cat "$ERR")"

# --deny
call 2 wire '{"iban":"GB82WEST12345698765432","amount":5}'
wait_ask 2
B=$ASK
issue --deny "$B" -f "$CFG"
[ "$RC" = 0 ] || fail "--deny exited $RC: $(cat "$ERR")"
expect_line "$(f_blocked 2) and (.result.content[0].text | endswith(\"needs a signed approval (denied out of band)\"))"
issue --approve "$B" -k "$KEY" -f "$CFG" -y
[ "$RC" = 1 ] && grep -q "answered already (deny)" "$ERR" ||
    fail "--approve of a denied ask: rc $RC, $(cat "$ERR")"

# A's approval replayed onto C: it signs A's id and arguments, not C's
call 3 wire '{"iban":"FR1420041010050500013M02606","amount":7}'
wait_ask 3
C=$ASK
sig=$(sqlite3 "$DB" "SELECT signature FROM oob_answers WHERE ask_id = $A")
kid=$(sqlite3 "$DB" "SELECT key_id FROM oob_answers WHERE ask_id = $A")
[ "${#sig}" = 128 ] && [ "${#kid}" = 16 ] ||
    fail "ask $A's answer holds no signature: '$sig' '$kid'"
answer_row "$C" approve "$sig" "$kid"
expect_line "$(f_blocked 3) and (.result.content[0].text | endswith(\"(out-of-band approval refused: bad signature)\"))"

# a signature made up, under the trusted key's id
call 4 wire '{"iban":"NL91ABNA0417164300","amount":8}'
wait_ask 4
D=$ASK
answer_row "$D" approve "$(od -An -tx1 -N64 /dev/urandom | tr -d ' \n')" "$kid"
expect_line "$(f_blocked 4) and (.result.content[0].text | endswith(\"(out-of-band approval refused: bad signature)\"))"
issue --approve 999 -k "$KEY" -f "$CFG" -y
[ "$RC" = 1 ] && grep -q "ask 999: no such ask" "$ERR" ||
    fail "--approve of an unknown id: rc $RC, $(cat "$ERR")"
ping_ok 99
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"
script_calls pay | cut -d' ' -f2- >"$TESTDIR/calls.txt"
[ "$(cat "$TESTDIR/calls.txt")" = \
    'wire {"iban":"DE89370400440532013000","amount":900}' ] ||
    fail "want the approved call alone upstream, have: $(cat "$TESTDIR/calls.txt")"
"$AUDIT" -D "$DB" -j -T wire | jq -e -s --arg k "$kid" --arg a "$A" '
    [.[].verdict] == ["ask","allow","ask","deny","ask","deny","ask","deny"]
    and .[1].reason == "approved out of band by key \($k) (ask \($a))"
    and (.[3].reason | endswith("(denied out of band)"))
    and (.[5].reason | endswith("(out-of-band approval refused: bad signature)"))
    and .[3].contract == "sink_gate"' >/dev/null ||
    fail "the audit rows of wire are wrong: $("$AUDIT" -D "$DB" -j -T wire)"

# ---- a client that cannot elicit: every ask waits out of band --------
rm -f "$TESTDIR/pay.log"
start_script pay -f "$CFG" <"$TESTDIR/pay-policy.yaml"
handshake '{}'
call 1 notify '{"to":"ops@new.example","text":"hi"}'
wait_ask 5
issue --approve "$ASK" -k "$KEY" -f "$CFG" -y
[ "$RC" = 0 ] || fail "--approve exited $RC: $(cat "$ERR")"
expect_line "$(f_text 1 sent)"
# the signature covered that call only: nothing was remembered, and the
# same address with another text asks again
call 3 notify '{"to":"ops@new.example","text":"and again"}'
wait_ask 6
issue --deny "$ASK" -f "$CFG"
[ "$RC" = 0 ] || fail "--deny exited $RC: $(cat "$ERR")"
expect_line "$(f_blocked 3) and (.result.content[0].text |
    endswith(\"(denied out of band)\"))"
call 2 purge '{"what":"cache"}'
wait_ask 7
grep -q . <(sqlite3 "$DB" "SELECT reason FROM oob_asks WHERE id = $ASK" |
    grep -F "tool 'purge' needs a human's confirmation for every call") ||
    fail "ask $ASK does not say why it asks"
issue --approve "$ASK" -k "$KEY" -f "$CFG" -y
[ "$RC" = 0 ] || fail "--approve exited $RC: $(cat "$ERR")"
expect_line "$(f_text 2 purged)"
# a request that names a prompt (listed first) waits out of band too
request 5 prompts/list
expect_line "$(f_result 5) and .result.prompts[0].name == \"greet\""
request 4 prompts/get '{"name":"greet","arguments":{"who":"Ada"}}'
wait_ask 8
grep -q . <(sqlite3 "$DB" "SELECT args FROM oob_asks WHERE id = $ASK" |
    grep -F '"who":"Ada"') || fail "ask $ASK does not bind the prompt's arguments"
expect_silence 0.3
issue --approve "$ASK" -k "$KEY" -f "$CFG" -y
[ "$RC" = 0 ] || fail "--approve exited $RC: $(cat "$ERR")"
expect_line "$(f_result 4) and (.result.messages | length) >= 1"
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"
[ "$(script_calls pay | wc -l)" = 2 ] ||
    fail "want notify and purge upstream, have: $(script_calls pay)"
grep -q '"method":"prompts/get"' "$TESTDIR/pay.log" ||
    fail "the approved prompts/get did not reach the upstream"

# ---- no answer in asks.timeout --------------------------------------
write_config "$CFG" <<YAML
consent: { keys: $TESTDIR/keys }
asks: { timeout: 2 }
YAML
rm -f "$TESTDIR/pay.log"
start_script pay -f "$CFG" <"$TESTDIR/pay-policy.yaml"
handshake '{"elicitation":{}}'
call 1 refund '{"order":"A-17"}'
wait_ask 9
E=$ASK
expect_line "$(f_blocked 1) and (.result.content[0].text | endswith(\"needs a signed approval (no answer in 2 s)\"))" 8
issue --approve "$E" -k "$KEY" -f "$CFG" -y
[ "$RC" = 1 ] && grep -q "ask $E: expired at" "$ERR" ||
    fail "--approve of an expired ask: rc $RC, $(cat "$ERR")"
issue --pending -f "$CFG"
grep -q '^ask ' "$OUT" && fail "--pending lists an expired or answered ask: $(cat "$OUT")"
stop_monitor
[ -z "$(script_calls pay)" ] || fail "a call that timed out reached the server"
pass
