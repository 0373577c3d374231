#!/usr/bin/env bash
#
# regress/work-ratelimit.sh - a vendor's 429 through the monitor (DESIGN
# 8): a read refused with Retry-After is tried again after the wait, on
# a new connection, and succeeds; a comment refused with 429 was not
# made, so it is tried again too, and is posted exactly once; a vendor
# that keeps refusing fails the call after BNC_CARRIER_RETRIES_MAX more
# tries, saying it is rate limiting and that nothing was done.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd jq sha256sum
ISSUE=$top_builddir/monitor/bouncer-issue-consent
sha() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
ATOK=agent-token-0123456789
PAGE=be633bf1-dfa0-436d-b259-571129a590e5
DBID=668d797c-76fa-4934-9b05-ad288df2d136
NREAD=ntn_fake_read_0000000000000001
NCOMM=ntn_fake_comment_000000000000002

work_libexec "$TESTDIR/lib"
export BOUNCER_LIBEXEC=$TESTDIR/lib
mkdir -m 700 "$TESTDIR/keys" "$TESTDIR/cred"
"$ISSUE" -G -k "$TESTDIR/admin.key" 2>/dev/null || fail "-G failed"
cp "$TESTDIR/admin.key.pub" "$TESTDIR/keys/"
printf '%s\n' "$NREAD" >"$TESTDIR/cred/notion-read"
printf '%s\n' "$NCOMM" >"$TESTDIR/cred/notion-comment"
chmod 600 "$TESTDIR"/cred/*
# every second request is refused with 429 and Retry-After: 1
start_work_mock notion -s notion -R 2 \
    -T "$NREAD:read_content,read_comments" \
    -T "$NCOMM:insert_comments,read_comments"
NPORT=$PORT
# every request is refused
start_work_mock busy -s notion -R 1 -T "$NREAD:read_content,read_comments"
BPORT=$PORT

: >"$TESTDIR/evals.yaml"
E='{"type":"object","properties":{}}'
write_script up <<JSON
{"tools":[{"name":"ping_me","inputSchema":$E}]}
JSON
cat >"$TESTDIR/agents.yaml" <<YAML
agents:
  - id: agent
    owner: ops
    tier: T2
    tools: [read_tasks, read_task, post_human_authored_comment]
    eval_suite: evals.yaml
    token_sha256: $(sha "$ATOK")
YAML
config() {	# PORT
	write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
registry: $TESTDIR/agents.yaml
consent: { keys: $TESTDIR/keys }
work:
  notion:
    read_token_file: $TESTDIR/cred/notion-read
    comment_token_file: $TESTDIR/cred/notion-comment
    database_id: $DBID
    api_base: http://127.0.0.1:$1
upstreams:
  up: { command: "$SCRIPT", args: [-s, "$TESTDIR/up.json"] }
YAML
}
TEXT='Both crashes fixed.'

config "$NPORT"
TOKEN=$("$ISSUE" -y -k "$TESTDIR/admin.key" -f "$TESTDIR/bouncer.yaml" \
    -a agent -t "notion:$PAGE" -m "$TEXT" 2>"$TESTDIR/err") ||
    fail "bouncer-issue-consent: $(cat "$TESTDIR/err")"
BOUNCER_AGENT_TOKEN=$ATOK start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
# request 1 (the database) passes, 2 (the query) is refused, 3 passes
call 1 read_tasks '{}'
expect_line "$(f_result 1) and (.result.isError | not) and
    (.result.structuredContent.tasks | length) == 3" 10
# 4 (the comment) is refused, 5 posts it
call 2 post_human_authored_comment "$(jq -cn --arg t "$TEXT" --arg k "$TOKEN" \
    '{target: "notion:'$PAGE'", text: $t, consent_token: $k}')"
expect_line "$(f_result 2) and (.result.isError | not) and
    .result.structuredContent.posted == true" 10
stop_monitor
[ "$(jq -c 'select(.method == "POST" and .path == "/v1/comments")' \
    "$TESTDIR/notion.log" | wc -l)" = 2 ] ||
    fail "the comment was not sent twice (429, then once): $(cat "$TESTDIR/notion.log")"
grep -q 'rate limited; trying again in 1 s' "$MONLOG" ||
    fail "the wait is not logged"

config "$BPORT"
BOUNCER_AGENT_TOKEN=$ATOK start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
call 1 read_task "{\"task_id\":\"$PAGE\"}"
expect_line "$(f_result 1) and .result.isError and
    (.result.content[0].text | contains(\"notion is rate limiting\") and
    contains(\"nothing was done\"))" 15
stop_monitor
# the first try and BNC_CARRIER_RETRIES_MAX (2) more
[ "$(wc -l <"$TESTDIR/busy.log")" = 3 ] ||
    fail "the busy vendor got $(wc -l <"$TESTDIR/busy.log") requests, want 3"
pass
