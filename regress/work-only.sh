#!/usr/bin/env bash
#
# regress/work-only.sh - a session with built-in work tools and no
# upstream (DESIGN 1: bouncer gates work tools and/or upstreams): it
# starts, lists the agent's work tools, posts a consented comment
# through the GitHub carrier to the loopback mock, answers ping, and ends
# with status 0 when the client closes; a client worker that never says
# hello ends such a session at the hello timeout, as it would one with
# upstreams (regress/evil-worker.sh); a configuration with neither an
# upstream nor a work tool (work tools need a registry) is refused
# before anything starts, saying why.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd jq sha256sum
ISSUE=$top_builddir/monitor/bouncer-issue-consent
DB=$BOUNCER_STATE_DIR/audit.db
sha() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
PTOK=poster-token-0123456789
GHTOK=ghp_fake_000000000000000000000003

work_libexec "$TESTDIR/lib"
export BOUNCER_LIBEXEC=$TESTDIR/lib
mkdir -m 700 "$TESTDIR/keys" "$TESTDIR/cred"
"$ISSUE" -G -k "$TESTDIR/admin.key" 2>/dev/null || fail "-G failed"
cp "$TESTDIR/admin.key.pub" "$TESTDIR/keys/"
printf '%s\n' "$GHTOK" >"$TESTDIR/cred/github"
chmod 600 "$TESTDIR/cred/github"
start_work_mock github -s github -T "$GHTOK"
GPORT=$PORT

: >"$TESTDIR/evals.yaml"
cat >"$TESTDIR/agents.yaml" <<YAML
agents:
  - id: poster
    owner: ops
    tier: T2
    tools: [create_draft, post_human_authored_comment]
    eval_suite: evals.yaml
    token_sha256: $(sha "$PTOK")
YAML
: >"$TESTDIR/policy.yaml"
write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
policy: $TESTDIR/policy.yaml
registry: $TESTDIR/agents.yaml
consent: { keys: $TESTDIR/keys }
work:
  github:
    token_file: $TESTDIR/cred/github
    repos: [octocat/Hello-World]
    api_base: http://127.0.0.1:$GPORT
YAML

"$MONITOR" -t -f "$TESTDIR/bouncer.yaml" >"$TESTDIR/t.out" 2>&1 ||
    fail "-t refused the work-only configuration: $(cat "$TESTDIR/t.out")"

TARGET='github:octocat/Hello-World#1347'
TEXT='Reproduced on 1.4; a fix is in review.'
TOKEN=$("$ISSUE" -y -k "$TESTDIR/admin.key" -f "$TESTDIR/bouncer.yaml" \
    -a poster -t "$TARGET" -m "$TEXT" 2>"$TESTDIR/err") ||
    fail "bouncer-issue-consent failed: $(cat "$TESTDIR/err")"

BOUNCER_AGENT_TOKEN=$PTOK start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
# the monitor holds the credential file open for its carrier; its audit
# checkpointer, a fork, holds no descriptor of it (SECURITY.md)
# (both are non-dumpable: only root may look)
if [ "$(id -u)" = 0 ]; then
	ckpt=$(pgrep -P "$MON_PID" -x bouncer-ckpt) ||
	    fail "no bouncer-ckpt child of the monitor"
	fds=$(ls -l "/proc/$MON_PID/fd") || fail "cannot list the monitor's fds"
	grep -q "$TESTDIR/cred/github" <<<"$fds" ||
	    fail "the monitor does not hold the credential: the check is void"
	fds=$(ls -l "/proc/$ckpt/fd") || fail "cannot list bouncer-ckpt's fds"
	grep "$TESTDIR/cred" <<<"$fds" &&
	    fail "bouncer-ckpt holds a credential file (above)"
else
	log "bouncer-ckpt's descriptors not checked: needs root"
fi
request 1 tools/list
expect_line "$(f_result 1) and ([.result.tools[].name] | sort) ==
    [\"create_draft\", \"post_human_authored_comment\"]"
call 2 post_human_authored_comment "$(jq -cn --arg t "$TARGET" \
    --arg x "$TEXT" --arg k "$TOKEN" \
    '{target: $t, text: $x, consent_token: $k}')"
expect_line "$(f_result 2) and (.result.isError | not)"
call 3 no_such_tool '{}'
expect_line "$(f_blocked 3)"
ping_ok 4
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "the work-only session exited $MON_STATUS"
jq -e -s --arg x "$TEXT" '[.[] | select(.method == "POST" and
    (.body | fromjson | .body == $x))] | length == 1' \
    "$TESTDIR/github.log" >/dev/null ||
    fail "the GitHub mock did not get the comment once: $(cat "$TESTDIR/github.log")"
"$AUDIT" -D "$DB" -j -a poster -T post_human_authored_comment | jq -e -s '
    length == 1 and .[0].verdict == "allow"' >/dev/null ||
    fail "the post's audit row is not one allow"

# ---- a client worker that never says hello: the start timer ends it --
# With no upstream, the client's worker is the only worker whose hello
# the start timer awaits (BNC_HELLO_TIMEOUT_S, 10 s).
SILENT=$TESTDIR/silent
work_libexec "$SILENT"
rm -f "$SILENT/bouncer-worker"
ln -s "$WORKER" "$SILENT/real-worker"
printf '#!/bin/sh\nexec "%s" silent "%s" client "$@"\n' \
    "$top_builddir/regress/mocks/evil-worker" "$SILENT/real-worker" \
    >"$SILENT/bouncer-worker"
chmod 755 "$SILENT/bouncer-worker"
BOUNCER_LIBEXEC=$SILENT BOUNCER_AGENT_TOKEN=$PTOK \
    start_monitor -f "$TESTDIR/bouncer.yaml"
try_send '{"jsonrpc":"2.0","id":0,"method":"ping"}' || true
wait_monitor 20
[ "$MON_STATUS" = 1 ] ||
    fail "a session whose worker never said hello exited $MON_STATUS"
tail -n 3 "$MONLOG" | grep -q 'worker:client: no hello within 10 s' ||
    fail "the monitor did not say which worker was silent"
pgrep -af "$SILENT/" && fail "a child outlived the session (above)"
"$AUDIT" -D "$DB" -j -n 1 | jq -e '.tool == "fatal" and
    (.reason | contains("worker:client: no hello"))' >/dev/null ||
    fail "the last audit row is not the fatal one"

# ---- neither an upstream nor a work tool: refused, saying why -------
write_config "$TESTDIR/empty.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
YAML
if "$MONITOR" -f "$TESTDIR/empty.yaml" </dev/null >"$TESTDIR/out" \
    2>"$TESTDIR/err"; then
	fail "a configuration with nothing to gate ran"
fi
grep -q 'nothing to gate' "$TESTDIR/err" ||
    fail "the refusal did not say why: $(cat "$TESTDIR/err")"
[ ! -s "$TESTDIR/out" ] || fail "the refused monitor wrote: $(cat "$TESTDIR/out")"
# work tools without a registry are offered to nobody: nothing to gate
grep -v '^registry:' "$TESTDIR/bouncer.yaml" >"$TESTDIR/noreg.yaml"
if "$MONITOR" -f "$TESTDIR/noreg.yaml" </dev/null >"$TESTDIR/out" \
    2>"$TESTDIR/err"; then
	fail "work tools without a registry ran"
fi
grep -q 'nothing to gate.*they need a registry' "$TESTDIR/err" ||
    fail "the refusal without a registry did not say why: $(cat "$TESTDIR/err")"
pass
