#!/usr/bin/env bash
#
# regress/consent-gated.sh - a consent-gated upstream tool (DESIGN 5, 7)
# through the real binaries: bouncer-issue-consent signs a comment for a
# T2 agent, the monitor shows the tool with a required consent_token,
# checks it, strips it and forwards the call exactly once with the
# approved text; every altered, misdirected, foreign, expired, forged or
# replayed attempt is refused with its own reason in the audit log, and
# none reaches the upstream.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd sha256sum
ISSUE=$top_builddir/monitor/bouncer-issue-consent
DB=$BOUNCER_STATE_DIR/audit.db
KEYDIR=$TESTDIR/consent.d
TOKEN=carrier-token-0123456789
mkdir -m 700 "$KEYDIR" "$TESTDIR/other"
"$ISSUE" -G -k "$TESTDIR/admin.key" 2>/dev/null || fail "-G failed"
cp "$TESTDIR/admin.key.pub" "$KEYDIR/"
"$ISSUE" -G -k "$TESTDIR/other/rogue.key" 2>/dev/null || fail "-G failed"

S='{"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},"issue_number":{"type":"integer"},"body":{"type":"string"}},"required":["owner","repo","issue_number","body"]}'
write_script gh <<JSON
{"tools":[{"name":"add_issue_comment","inputSchema":$S}]}
JSON
cat >"$TESTDIR/policy.yaml" <<'YAML'
add_issue_comment:
  consent: { text: body, target: [owner, repo, issue_number] }
YAML
: >"$TESTDIR/evals.yaml"
cat >"$TESTDIR/agents.yaml" <<YAML
agents:
  - id: carrier
    owner: ops
    tier: T2
    tools: [add_issue_comment]
    eval_suite: evals.yaml
    token_sha256: $(printf '%s' "$TOKEN" | sha256sum | cut -d' ' -f1)
YAML
write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
policy: $TESTDIR/policy.yaml
registry: $TESTDIR/agents.yaml
consent: { keys: $KEYDIR, max_ttl: 3600, skew: 0 }
upstreams:
  gh: { command: "$SCRIPT", args: [-s, "$TESTDIR/gh.json", -l, "$TESTDIR/gh.log"] }
YAML

# sign AGENT TEXT [ISSUE-ARGS...]: a token for add_issue_comment on
# corp/app#12 (extra arguments after TEXT go to bouncer-issue-consent)
sign() {
	local agent=$1 text=$2

	shift 2
	"$ISSUE" -y -k "$TESTDIR/admin.key" -f "$TESTDIR/bouncer.yaml" \
	    -a "$agent" -T add_issue_comment -t owner=corp -t repo=app \
	    -t issue_number=12 -m "$text" "$@" 2>>"$TESTDIR/issue.err" ||
	    fail "bouncer-issue-consent failed: $(tail -n 3 "$TESTDIR/issue.err")"
}
# comment ID TOKEN BODY [ISSUE_NUMBER]: the agent's call
comment() {
	call "$1" add_issue_comment "{\"owner\":\"corp\",\"repo\":\"app\",\"issue_number\":${4:-12},\"body\":\"$3\",\"consent_token\":\"$2\"}"
}
refused() {	# ID REASON
	expect_line "$(f_blocked "$1") and (.result.content[0].text |
	    contains(\"consent token refused: $2\"))"
}

GOOD=$(sign carrier 'Shipped in 1.4')
REPLAY=$GOOD
TAMPER=$(sign carrier 'Shipped in 1.4')
WRONGT=$(sign carrier 'Shipped in 1.4')
OTHERA=$(sign someone-else 'Shipped in 1.4')
OTHERT=$("$ISSUE" -y -k "$TESTDIR/admin.key" -f "$TESTDIR/bouncer.yaml" \
    -a carrier -T close_issue -t owner=corp -t repo=app -t issue_number=12 \
    -m 'Shipped in 1.4' 2>/dev/null)
ROGUE=$("$ISSUE" -y -k "$TESTDIR/other/rogue.key" -f "$TESTDIR/bouncer.yaml" \
    -a carrier -T add_issue_comment -t owner=corp -t repo=app \
    -t issue_number=12 -m 'Shipped in 1.4' 2>/dev/null)
SHORT=$(sign carrier 'Shipped in 1.4' -e 1s)
SPELL=$("$ISSUE" -y -k "$TESTDIR/admin.key" -f "$TESTDIR/bouncer.yaml" \
    -a carrier -T add_issue_comment -t owner=corp -t repo=app \
    -t 'issue_number="12"' -m 'Shipped in 1.4' 2>/dev/null)
# one character of the signature changed, still base64url: its first,
# whose six bits are all the signature's (the last one's low bits are
# padding, and a change there is a malformed token, not a bad signature)
SIGPART=${GOOD##*.}
case ${SIGPART:0:1} in A) c=B ;; *) c=A ;; esac
FORGED=${GOOD%.*}.$c${SIGPART:1}

BOUNCER_AGENT_TOKEN=$TOKEN start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
# the surface asks for the token
request 1 tools/list
expect_line "$(f_result 1) and (.result.tools | length) == 1 and
    (.result.tools[0].inputSchema.required | index(\"consent_token\")) != null and
    .result.tools[0].inputSchema.properties.consent_token.type == \"string\""

comment 2 "$GOOD" 'Shipped in 1.4'
expect_line "$(f_result 2) and (.result.isError | not) and
    (.result.content[0].text | startswith(\"add_issue_comment \"))"
comment 3 "$REPLAY" 'Shipped in 1.4'
refused 3 replayed
comment 4 "$TAMPER" 'Shipped in 1.5'
refused 4 "tampered text"
comment 5 "$WRONGT" 'Shipped in 1.4' 13
refused 5 "wrong target"
comment 6 "$OTHERA" 'Shipped in 1.4'
refused 6 "wrong agent"
comment 7 "$OTHERT" 'Shipped in 1.4'
refused 7 "wrong tool"
comment 8 "$ROGUE" 'Shipped in 1.4'
refused 8 "unknown key"
comment 9 "$FORGED" 'Shipped in 1.4'
refused 9 "bad signature"
comment 10 "${GOOD:0:40}" 'Shipped in 1.4'
refused 10 "malformed token"
comment 11 "$SPELL" 'Shipped in 1.4'
refused 11 "wrong target"
sleep 2
comment 12 "$SHORT" 'Shipped in 1.4'
refused 12 expired
call 13 add_issue_comment '{"owner":"corp","repo":"app","issue_number":12,"body":"Shipped in 1.4"}'
expect_line "$(f_blocked 13) and (.result.content[0].text |
    contains(\"needs a signed consent token\"))"
# the tampered token is still good for its own text, once
comment 14 "$TAMPER" 'Shipped in 1.4'
expect_line "$(f_result 14) and (.result.isError | not)"
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "the session exited $MON_STATUS"

# exactly the two good calls reached the upstream, with the approved
# text and without the token
got=$(script_calls gh | cut -d' ' -f3- | sort -u)
[ "$(script_calls gh | wc -l)" = 2 ] ||
    fail "the upstream got $(script_calls gh | wc -l) calls, want 2:
$(script_calls gh)"
[ "$got" = '{"body":"Shipped in 1.4","issue_number":12,"owner":"corp","repo":"app"}' ] ||
    [ "$(jq -S -c . <<<"$got")" = '{"body":"Shipped in 1.4","issue_number":12,"owner":"corp","repo":"app"}' ] ||
    fail "the upstream got: $got"
# every refusal has its own reason in the log, contract consent
for why in replayed "tampered text" "wrong target" "wrong agent" \
    "wrong tool" "unknown key" "bad signature" "malformed token" expired; do
	n=$("$AUDIT" -D "$DB" -j -a carrier -T add_issue_comment |
	    jq -s --arg w "$why" '[.[] | select(.verdict == "deny" and
	    .contract == "consent" and (.reason | contains($w)))] | length')
	[ "$n" -ge 1 ] || fail "no consent deny row saying \"$why\""
done
n=$("$AUDIT" -D "$DB" -j -a carrier -T add_issue_comment -r allow |
    jq -s 'length')
[ "$n" = 2 ] || fail "$n allow rows, want 2"
pass
