#!/usr/bin/env bash
#
# regress/registry.sh - the agent registry (DESIGN 6) through the real
# binaries.  bouncer-monitor -t reports every problem of agents.yaml
# with its file, line and agent id, and fails; a session with a
# registry and no token, or a token it does not know, refuses every
# request with one error and writes one audit row; a T0 agent sees only
# the read-only tools its grant names and a call of anything else is
# denied by its grant; a T1 agent's budget in the registry bounds its
# calls; every row carries the agent's id; and the token never reaches
# an upstream.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd sha256sum
DB=$BOUNCER_STATE_DIR/audit.db
sha() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
T0TOK=reader-token-0123456789
T1TOK=drafter-token-abcdefghij

mkdir -p "$TESTDIR/evals"
: >"$TESTDIR/evals/drafter.yaml"
cat >"$TESTDIR/policy.yaml" <<YAML
echo: { read_only: true }
YAML
cat >"$TESTDIR/agents.yaml" <<YAML
agents:
  - id: reader
    owner: ops
    tier: T0
    tools: [echo]
    token_sha256: $(sha "$T0TOK")
  - id: drafter
    owner: ops
    tier: T1
    tools: [echo, add, env]
    budgets: { add: 2 }
    token_sha256: $(sha "$T1TOK")
    eval_suite: evals/drafter.yaml
YAML
config() {
	write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
policy: $TESTDIR/policy.yaml
registry: $TESTDIR/$1
upstreams:
  mock: { command: "$MOCK", args: [-l, "$TESTDIR/up.log"] }
YAML
}

# ---- -t: clean, then every problem with file, line and agent --------
config agents.yaml
"$MONITOR" -t -f "$TESTDIR/bouncer.yaml" </dev/null >"$TESTDIR/t.out" \
    2>"$TESTDIR/t.err" || fail "-t refused a clean registry: $(cat "$TESTDIR/t.err")"
cat >"$TESTDIR/bad.yaml" <<YAML
agents:
  - id: reader
    owner: ops
    tier: T0
    tools: [echo, add]
    token_sha256: $(sha "$T0TOK")
  - id: reader
    owner: ops
    tier: T1
    tools: [set_owner]
    token_sha256: $(sha "$T0TOK")
YAML
config bad.yaml
RC=0
"$MONITOR" -t -f "$TESTDIR/bouncer.yaml" </dev/null >"$TESTDIR/t.out" \
    2>"$TESTDIR/t.err" || RC=$?
[ "$RC" = 1 ] || fail "-t exited $RC on a bad registry, want 1"
f=$TESTDIR/bad.yaml
for want in "$f:5: agent reader: tools: add is not marked read-only" \
    "$f:7: agent reader: id: duplicate of line 2" \
    "$f:7: agent reader: eval_suite: required for tier T1" \
    "$f:10: agent reader: tools: set_owner is in the forbidden write set" \
    "$f:11: agent reader: token_sha256: same as agent reader" \
    "$f: 5 problems"; do
	grep -q -- "$want" "$TESTDIR/t.err" ||
	    fail "-t did not say \"$want\":
$(cat "$TESTDIR/t.err")"
done
# and the monitor refuses to start with it
RC=0
timeout 10 "$MONITOR" -f "$TESTDIR/bouncer.yaml" </dev/null \
    >"$TESTDIR/t.out" 2>"$TESTDIR/t.err" || RC=$?
[ "$RC" = 1 ] || fail "a session started on a bad registry (exit $RC)"
config agents.yaml

# ---- no token, an unknown token: every request refused, one row -----
refused() {	# WHY: the session refuses everything with WHY
	initialize_req 0 2025-11-25
	expect_line "$(f_error 0 -32001) and (.error.message | contains(\"$1\"))" \
	    "$TEST_START_TIMEOUT"
	request 1 tools/list
	expect_line "$(f_error 1 -32001)"
	call 2 echo '{"message":"hi"}'
	expect_line "$(f_error 2 -32001)"
	request 3 ping
	expect_line "$(f_error 3 -32001)"
	stop_monitor
	[ "$MON_STATUS" = 0 ] || fail "the refusing session exited $MON_STATUS"
	sid=$("$AUDIT" -D "$DB" -j -n 1 -a unknown | jq -r .session)
	[ -n "$sid" ] && [ "$sid" != null ] || fail "no row for the unknown agent"
	n=$("$AUDIT" -D "$DB" -j | jq -s --arg s "$sid" '[.[] |
	    select(.session == $s and .contract == "identity" and
	    .verdict == "deny" and .agent == "unknown")] | length')
	[ "$n" = 1 ] || fail "$n identity rows for the session, want 1"
	[ -z "$(mock_calls "$TESTDIR/up.log")" ] ||
	    fail "a refused session reached the upstream"
}
unset BOUNCER_AGENT_TOKEN
start_monitor -f "$TESTDIR/bouncer.yaml"
refused "no agent token"
BOUNCER_AGENT_TOKEN=not-a-known-token start_monitor -f "$TESTDIR/bouncer.yaml"
refused "unknown agent"

# ---- T0: its grant, read-only, and nothing else ----------------------
BOUNCER_AGENT_TOKEN=$T0TOK start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
list_tools
[ "$(cat "$TESTDIR/tools.txt")" = echo ] ||
    fail "the T0 agent sees: $(tr '\n' ' ' <"$TESTDIR/tools.txt")"
call 1 echo '{"message":"hello"}'
expect_line "$(f_text 1 hello)"
call 2 add '{"a":1,"b":2}'
expect_line "$(f_blocked 2) and (.result.content[0].text |
    contains(\"not in the grant of agent reader (tier T0)\"))"
# a name no upstream offers is outside the grant all the same (DESIGN 5:
# the grant comes before pinning)
call 3 no_such_tool '{}'
expect_line "$(f_blocked 3) and (.result.content[0].text |
    contains(\"not in the grant of agent reader (tier T0)\"))"
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "the T0 session exited $MON_STATUS"
"$AUDIT" -D "$DB" -j -a reader -T no_such_tool | jq -e -s 'length == 1 and
    .[0].verdict == "deny" and .[0].contract == "grant"' >/dev/null ||
    fail "no grant deny row for reader's no_such_tool"
"$AUDIT" -D "$DB" -j -a reader -T add | jq -e -s 'length == 1 and
    .[0].verdict == "deny" and .[0].contract == "grant"' >/dev/null ||
    fail "no grant deny row for reader's add"
"$AUDIT" -D "$DB" -j -a reader -T echo | jq -e -s 'length == 1 and
    .[0].verdict == "allow"' >/dev/null ||
    fail "no allow row for reader's echo"

# ---- T1: its grant, its budget, and no token upstream ----------------
: >"$TESTDIR/up.log"
BOUNCER_AGENT_TOKEN=$T1TOK start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
list_tools
[ "$(sort "$TESTDIR/tools.txt" | tr '\n' ' ')" = "add echo env " ] ||
    fail "the T1 agent sees: $(tr '\n' ' ' <"$TESTDIR/tools.txt")"
call 1 env '{"name":"BOUNCER_AGENT_TOKEN"}'
expect_line "$(f_text 1 "(unset)")"
# nor any other of bouncer's variables in the monitor's environment
# (test-lib.sh always sets BOUNCER_STATE_DIR; make check the others);
# the control: a variable the upstream does inherit is not "(unset)"
call 19 env '{"name":"PATH"}'
expect_line "$(f_result 19) and .result.content[0].text != \"(unset)\""
n=20
for v in BOUNCER_STATE_DIR BOUNCER_LIBEXEC BOUNCER_PACKS; do
	[ -n "${!v:-}" ] || continue
	call $n env "{\"name\":\"$v\"}"
	expect_line "$(f_text $n "(unset)")"
	n=$((n + 1))
done
call 2 add '{"a":1,"b":2}'
expect_line "$(f_text 2 3)"
call 3 add '{"a":2,"b":2}'
expect_line "$(f_text 3 4)"
call 4 add '{"a":3,"b":2}'
expect_line "$(f_blocked 4) and (.result.content[0].text |
    contains(\"call budget 2\"))"
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "the T1 session exited $MON_STATUS"
n=$("$AUDIT" -D "$DB" -j -a drafter | jq -s 'length')
[ "$n" -ge 4 ] || fail "$n rows carry the agent drafter, want 4 or more"
pass
