#!/usr/bin/env bash
#
# regress/drafts.sh - create_draft (DESIGN 7), bouncer's own tool for
# agents of tier T1 and up: a registered agent granted it sees it in
# tools/list, its call is decided and recorded like any call and stores
# the text, exactly, in the monitor's database, sending nothing; a bad
# target, an undeclared argument or a missing text is denied; an agent
# not granted it is denied by its grant; an upstream tool of that name is
# withheld.  bouncer-issue-consent --drafts lists the drafts, text made
# visible, and -D signs one exactly as the agent wrote it, for its own
# agent and target only.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd sha256sum
ISSUE=$top_builddir/monitor/bouncer-issue-consent
VERIFY=$top_builddir/regress/mocks/consent-verify
DB=$BOUNCER_STATE_DIR/audit.db
sha() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
DTOK=drafter-token-0123456789
OTOK=other-token-0123456789
mkdir -m 700 "$TESTDIR/keys"
"$ISSUE" -G -k "$TESTDIR/admin.key" 2>/dev/null || fail "-G failed"
cp "$TESTDIR/admin.key.pub" "$TESTDIR/keys/"
: >"$TESTDIR/evals.yaml"
E='{"type":"object","properties":{}}'
write_script up <<JSON
{"tools":[{"name":"create_draft","inputSchema":$E},
          {"name":"ping_me","inputSchema":$E}]}
JSON
cat >"$TESTDIR/agents.yaml" <<YAML
agents:
  - id: drafter
    owner: ops
    tier: T1
    tools: [create_draft, ping_me]
    eval_suite: evals.yaml
    token_sha256: $(sha "$DTOK")
  - id: other
    owner: ops
    tier: T1
    tools: [ping_me]
    eval_suite: evals.yaml
    token_sha256: $(sha "$OTOK")
YAML
: >"$TESTDIR/policy.yaml"
write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
policy: $TESTDIR/policy.yaml
registry: $TESTDIR/agents.yaml
consent: { keys: $TESTDIR/keys }
upstreams:
  up: { command: "$SCRIPT", args: [-s, "$TESTDIR/up.json", -l, "$TESTDIR/up.log"] }
YAML

# ---- the drafter ------------------------------------------------------
BOUNCER_AGENT_TOKEN=$DTOK start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
request 1 tools/list
expect_line "$(f_result 1) and ([.result.tools[].name] | sort) ==
    [\"create_draft\", \"ping_me\"] and (.result.tools[] |
    select(.name == \"create_draft\") | .inputSchema.required) ==
    [\"target\", \"text\"]"
# the text as written: a newline, a quote, a bidi override
call 2 create_draft '{"target":"github:corp/app#12","text":"Shipped in 1.4.\nSee \"notes\" \u202e."}'
expect_line "$(f_result 2) and (.result.isError | not) and
    .result.structuredContent.draft_id == 1 and
    .result.structuredContent.target == \"github:corp/app#12\""
call 3 create_draft '{"target":"github:corp/app","text":"x"}'
expect_line "$(f_blocked 3) and (.result.content[0].text |
    contains(\"target must be\"))"
call 4 create_draft '{"target":"notion:0a1b","text":"x","owner":"bob"}'
expect_line "$(f_blocked 4) and (.result.content[0].text |
    contains(\"'owner' is not in the tool's input schema\"))"
call 5 create_draft '{"target":"notion:0a1b"}'
expect_line "$(f_blocked 5) and (.result.content[0].text |
    contains(\"'text' is required\"))"
call 6 create_draft '{"target":"notion:0a1b","text":"second"}'
expect_line "$(f_result 6) and .result.structuredContent.draft_id == 2"
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "the drafter's session exited $MON_STATUS"
# the upstream's own create_draft is withheld: nothing reached it
[ -z "$(script_calls up)" ] || fail "a call reached the upstream: $(script_calls up)"
grep -q "create_draft.*one of bouncer's own tools" "$MONLOG" ||
    fail "the upstream's create_draft was not withheld, or not said"
"$AUDIT" -D "$DB" -j -a drafter -T create_draft | jq -e -s '
    ([.[] | select(.verdict == "allow")] | length) == 2 and
    ([.[] | select(.verdict == "deny" and .contract == "constraint")] |
    length) == 3' >/dev/null || fail "create_draft rows are not 2 allow, 3 deny"

# ---- an agent not granted it --------------------------------------------
BOUNCER_AGENT_TOKEN=$OTOK start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
list_tools
[ "$(cat "$TESTDIR/tools.txt")" = ping_me ] ||
    fail "the other agent sees: $(tr '\n' ' ' <"$TESTDIR/tools.txt")"
call 1 create_draft '{"target":"notion:0a1b","text":"mine"}'
expect_line "$(f_blocked 1) and (.result.content[0].text |
    contains(\"not in the grant of agent other\"))"
stop_monitor

# ---- the admin's side -------------------------------------------------
OUT=$TESTDIR/out
BOUNCER_STATE_DIR=$BOUNCER_STATE_DIR "$ISSUE" --drafts -f "$TESTDIR/bouncer.yaml" \
    >"$OUT" 2>"$TESTDIR/err" || fail "--drafts failed: $(cat "$TESTDIR/err")"
grep -q '^draft 1 .* agent drafter  target github:corp/app#12$' "$OUT" ||
    fail "--drafts does not list draft 1: $(cat "$OUT")"
grep -qF 'See "notes" \u202E.' "$OUT" ||
    fail "--drafts does not show the bidi override: $(cat "$OUT")"
[ "$(grep -c '^draft ' "$OUT")" = 2 ] || fail "--drafts lists $(grep -c '^draft ' "$OUT") drafts"
"$ISSUE" --drafts -a other -f "$TESTDIR/bouncer.yaml" >"$OUT" 2>&1
! grep -q '^draft ' "$OUT" || fail "--drafts -a other lists a draft"

sign() {
	"$ISSUE" -y -k "$TESTDIR/admin.key" -f "$TESTDIR/bouncer.yaml" "$@" \
	    2>"$TESTDIR/err"
}
TOKEN=$(sign -a drafter -t 'github:corp/app#12' -D 1) ||
    fail "-D 1 failed: $(cat "$TESTDIR/err")"
printf 'Shipped in 1.4.\nSee "notes" \342\200\256.' >"$TESTDIR/text"
got=$("$VERIFY" "$TOKEN" "$TESTDIR/keys" drafter \
    post_human_authored_comment 'github:corp/app#12' "$TESTDIR/text")
[ "$got" = ok ] || fail "the -D token does not bind the draft's text: $got"
for bad in "-a other -t github:corp/app#12 -D 1|agent drafter's" \
    "-a drafter -t github:corp/app#13 -D 1|not github:corp/app#13" \
    "-a drafter -t github:corp/app#12 -D 99|no such draft" \
    "-a drafter -t github:corp/app#12 -D 1 -m x|usage"; do
	args=${bad%%|*}
	want=${bad#*|}
	# shellcheck disable=SC2086
	if sign $args >"$OUT"; then
		fail "bouncer-issue-consent $args signed"
	fi
	[ ! -s "$OUT" ] || fail "bouncer-issue-consent $args wrote a token"
	grep -qF "$want" "$TESTDIR/err" ||
	    fail "bouncer-issue-consent $args did not say \"$want\": $(cat "$TESTDIR/err")"
done
pass
