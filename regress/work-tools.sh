#!/usr/bin/env bash
#
# regress/work-tools.sh - bouncer's work-system tools end to end (DESIGN
# 7, 8): the real monitor starts the real carriers, hands each its
# credential, connects to the loopback Notion, GitHub and Slack mocks
# and passes the sockets.  A T0 agent reads tasks and comments; a T2
# agent posts exactly the text a human consented to, once, to Notion and
# once to GitHub, and every altered, misdirected, expired or replayed
# attempt is refused with its reason in the audit log; the GitHub mock
# never sees a request that is not a comment POST; a T3 agent sends a
# consented message to a configured channel only, within its budget; a
# carrier killed in the middle of a call fails that call clearly and is
# started again for the next.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd jq sha256sum pgrep
ISSUE=$top_builddir/monitor/bouncer-issue-consent
DB=$BOUNCER_STATE_DIR/audit.db
sha() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
RTOK=reader-token-0123456789
PTOK=poster-token-0123456789
MTOK=messenger-token-0123456789
PAGE=be633bf1-dfa0-436d-b259-571129a590e5
DBID=668d797c-76fa-4934-9b05-ad288df2d136
HOOK=/services/T0001/B0001/abcDEF123
NREAD=ntn_fake_read_0000000000000001
NCOMM=ntn_fake_comment_000000000000002
GHTOK=ghp_fake_000000000000000000000003

work_libexec "$TESTDIR/lib"
export BOUNCER_LIBEXEC=$TESTDIR/lib
mkdir -m 700 "$TESTDIR/keys" "$TESTDIR/cred"
"$ISSUE" -G -k "$TESTDIR/admin.key" 2>/dev/null || fail "-G failed"
cp "$TESTDIR/admin.key.pub" "$TESTDIR/keys/"
printf '%s\n' "$NREAD" >"$TESTDIR/cred/notion-read"
printf '%s\n' "$NCOMM" >"$TESTDIR/cred/notion-comment"
printf '%s\n' "$GHTOK" >"$TESTDIR/cred/github"
printf 'https://hooks.slack.com%s\n' "$HOOK" >"$TESTDIR/cred/team"
chmod 600 "$TESTDIR"/cred/*

start_work_mock notion -s notion -S "$TESTDIR/stall" \
    -T "$NREAD:read_content,read_comments" \
    -T "$NCOMM:insert_comments,read_comments"
NPORT=$PORT
start_work_mock github -s github -T "$GHTOK"
GPORT=$PORT
start_work_mock slack -s slack -W "$HOOK"
SPORT=$PORT

: >"$TESTDIR/evals.yaml"
E='{"type":"object","properties":{}}'
write_script up <<JSON
{"tools":[{"name":"ping_me","inputSchema":$E}]}
JSON
cat >"$TESTDIR/agents.yaml" <<YAML
agents:
  - id: reader
    owner: ops
    tier: T0
    tools: [read_tasks, read_task, read_comments]
    token_sha256: $(sha "$RTOK")
  - id: poster
    owner: ops
    tier: T2
    tools: [read_tasks, read_task, create_draft, post_human_authored_comment]
    eval_suite: evals.yaml
    token_sha256: $(sha "$PTOK")
  - id: messenger
    owner: ops
    tier: T3
    tools: [send_external_message, ping_me]
    eval_suite: evals.yaml
    token_sha256: $(sha "$MTOK")
    budgets:
      send_external_message: 2
YAML
: >"$TESTDIR/policy.yaml"
write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
policy: $TESTDIR/policy.yaml
registry: $TESTDIR/agents.yaml
consent: { keys: $TESTDIR/keys, skew: 0 }
work:
  notion:
    read_token_file: $TESTDIR/cred/notion-read
    comment_token_file: $TESTDIR/cred/notion-comment
    database_id: $DBID
    api_base: http://127.0.0.1:$NPORT
  github:
    token_file: $TESTDIR/cred/github
    repos: [octocat/Hello-World]
    api_base: http://127.0.0.1:$GPORT
  slack:
    channels: { team: { webhook_file: $TESTDIR/cred/team } }
    api_base: http://127.0.0.1:$SPORT
upstreams:
  up: { command: "$SCRIPT", args: [-s, "$TESTDIR/up.json"] }
YAML

# sign AGENT TARGET TEXT [issue options]: a consent token on stdout
sign() {
	local a=$1 t=$2 m=$3
	shift 3
	"$ISSUE" -y -k "$TESTDIR/admin.key" -f "$TESTDIR/bouncer.yaml" \
	    -a "$a" -t "$t" -m "$m" "$@" 2>"$TESTDIR/err" ||
	    fail "bouncer-issue-consent failed: $(cat "$TESTDIR/err")"
}
# post ID TARGET TEXT TOKEN
post() {
	call "$1" post_human_authored_comment "$(jq -cn --arg t "$2" \
	    --arg x "$3" --arg k "$4" \
	    '{target: $t, text: $x, consent_token: $k}')"
}
# refused ID WORDS: a blocked result whose text says WORDS
refused() {
	expect_line "$(f_blocked "$1") and (.result.content[0].text |
	    contains($(jq -cn --arg w "$2" '$w')))"
}
# lines LOG JQ: how many lines of a mock's log FILTER selects
lines() {
	[ -f "$1" ] || { echo 0; return; }
	jq -c "select($2)" "$1" | wc -l | tr -d ' '
}

# ---- T0: reading -----------------------------------------------------
BOUNCER_AGENT_TOKEN=$RTOK start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
request 1 tools/list
expect_line "$(f_result 1) and ([.result.tools[].name] | sort) ==
    [\"read_comments\", \"read_task\", \"read_tasks\"] and
    ([.result.tools[] | .inputSchema.properties | keys[]] | map(select(
    test(\"owner|due|status_to|assignee\"))) | length) == 0"
call 2 read_tasks '{}'
expect_line "$(f_result 2) and (.result.isError | not) and
    ([.result.structuredContent.tasks[].title] | sort) ==
    [\"Bug bash\", \"Plan the offsite\", \"Write release notes\"] and
    .result.structuredContent.truncated == false"
call 3 read_tasks '{"status":"Done"}'
expect_line "$(f_result 3) and
    [.result.structuredContent.tasks[].title] == [\"Plan the offsite\"]"
call 4 read_task "{\"task_id\":\"${PAGE//-/}\"}"
expect_line "$(f_result 4) and .result.structuredContent.title ==
    \"Bug bash\" and .result.structuredContent.status == \"Not started\" and
    .result.structuredContent.id == \"$PAGE\""
call 5 read_comments "{\"task_id\":\"$PAGE\"}"
expect_line "$(f_result 5) and [.result.structuredContent.comments[].text]
    == [\"First pass done.\", \"Two crashes left.\", \"Fixed one.\"]"
call 6 read_task '{"task_id":"../../v1/users"}'
refused 6 "task_id must be a Notion page id"
call 7 post_human_authored_comment "{\"target\":\"notion:$PAGE\",\"text\":\"x\",\"consent_token\":\"x\"}"
refused 7 "not in the grant of agent reader"
call 8 read_task '{"task_id":"00000000-0000-4000-8000-000000000000"}'
expect_line "$(f_result 8) and .result.isError and
    (.result.content[0].text | contains(\"404 object_not_found\"))"
# the carrier the monitor started is sandboxed, and holds no other
# credential than its own
cpid=$(pgrep -P "$MON_PID" -f 'bouncer-carrier-notion -m read') ||
    fail "no notion-read carrier under the monitor"
if ! sandbox_disabled; then
	grep -q '^Seccomp:[[:space:]]*2$' "/proc/$cpid/status" ||
	    fail "the carrier has no seccomp filter"
	grep -q '^NoNewPrivs:[[:space:]]*1$' "/proc/$cpid/status" ||
	    fail "the carrier has no no_new_privs"
fi
[ -z "$(pgrep -P "$MON_PID" -f 'bouncer-carrier-(github|slack)')" ] ||
    fail "a carrier was started that no call needed"
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "the reader's session exited $MON_STATUS"
[ "$(lines "$TESTDIR/notion.log" '.method != "GET" and
    (.method != "POST" or (.path | test("/query$") | not))')" = 0 ] ||
    fail "the reader's carrier sent a write: $(cat "$TESTDIR/notion.log")"

# ---- T2: posting what a human consented to ---------------------------
NT="Fixed in 1.4.2 — see the release notes."
GT='Shipped in 1.4; "thanks" to everyone.'
NTOK=$(sign poster "notion:$PAGE" "$NT")
GTOK=$(sign poster "github:octocat/Hello-World#1347" "$GT")
OTHER=$(sign poster "github:octocat/Spoon-Knife#1" "$GT")
WRONGAGENT=$(sign messenger "notion:$PAGE" "$NT")
SHORT=$(sign poster "notion:$PAGE" "$NT" -e 1s)
sleep 2
BOUNCER_AGENT_TOKEN=$PTOK start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
post 1 "notion:$PAGE" "$NT" "$NTOK"
expect_line "$(f_result 1) and (.result.isError | not) and
    .result.structuredContent.posted == true"
post 2 "notion:$PAGE" "$NT" "$NTOK"
refused 2 "consent token refused: replayed"
post 3 "github:octocat/Hello-World#1347" "$GT" "$GTOK"
expect_line "$(f_result 3) and (.result.isError | not) and
    (.result.structuredContent.id | type) == \"number\""
post 4 "github:octocat/Hello-World#1347" "$GT!" "$GTOK"
refused 4 "tampered text"
post 5 "github:octocat/Hello-World#1348" "$GT" "$GTOK"
refused 5 "wrong target"
post 6 "notion:$PAGE" "$NT" "$WRONGAGENT"
refused 6 "wrong agent"
post 7 "notion:$PAGE" "$NT" "$SHORT"
refused 7 "expired"
post 8 "github:octocat/Spoon-Knife#1" "$GT" "$OTHER"
refused 8 "not in work.github.repos"
call 9 post_human_authored_comment "{\"target\":\"notion:$PAGE\",\"text\":\"$NT\"}"
refused 9 "'consent_token' is required"
call 10 post_human_authored_comment "{\"target\":\"notion:$PAGE\",\"text\":\"x\",\"consent_token\":\"$NTOK\",\"status\":\"Done\"}"
refused 10 "'status' is not in the tool's input schema"
post 11 "github:octocat/Hello-World#1347" "$GT" "$GTOK"
refused 11 "replayed"

# a carrier killed in the middle of a call
touch "$TESTDIR/stall"
call 12 read_tasks '{}'
for i in $(seq 50); do
	[ "$(lines "$TESTDIR/notion.log" '.path | test("/query$")')" -ge 3 ] &&
	    break
	sleep 0.1
done
cpid=$(pgrep -P "$MON_PID" -f 'bouncer-carrier-notion -m read') ||
    fail "no notion-read carrier under the monitor"
kill -KILL $cpid
expect_line "$(f_result 12) and .result.isError and
    (.result.content[0].text | contains(\"carrier was killed by signal 9 \" +
    \"during the call; whether it reached Notion is unknown\"))"
# a vendor that does not answer: the carrier gives up after 20 s and
# says the outcome is unknown
call 13 read_task "{\"task_id\":\"$PAGE\"}"
expect_line "$(f_result 13) and .result.isError and
    (.result.content[0].text | contains(\"no answer from notion\") and
    contains(\"whether it was done is unknown\"))" 30
rm -f "$TESTDIR/stall"
# a carrier that does not answer (stopped): after 30 s the call fails,
# the carrier is killed, and the next call has a new one
cpid=$(pgrep -P "$MON_PID" -f 'bouncer-carrier-notion -m read') ||
    fail "no notion-read carrier under the monitor"
kill -STOP $cpid
call 14 read_task "{\"task_id\":\"$PAGE\"}"
expect_line "$(f_result 14) and .result.isError and
    (.result.content[0].text | contains(\"did not answer within 30 s\"))" 40
call 15 read_task "{\"task_id\":\"$PAGE\"}"
expect_line "$(f_result 15) and .result.structuredContent.title == \"Bug bash\""
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "the poster's session exited $MON_STATUS"

# exactly one comment each, with exactly the consented text
[ "$(lines "$TESTDIR/notion.log" '.method == "POST" and .path == "/v1/comments"')" = 1 ] ||
    fail "Notion got $(lines "$TESTDIR/notion.log" '.method == "POST" and .path == "/v1/comments"') comment POSTs"
jq -e -s --arg t "$NT" '[.[] | select(.path == "/v1/comments" and .method == "POST")][0].body |
    fromjson | .parent.page_id == "'"$PAGE"'" and
    ([.rich_text[].text.content] | join("")) == $t' \
    "$TESTDIR/notion.log" >/dev/null || fail "Notion's comment is not the text"
[ "$(lines "$TESTDIR/github.log" 'true')" = 1 ] ||
    fail "GitHub got $(lines "$TESTDIR/github.log" 'true') requests"
jq -e -s --arg t "$GT" '.[0] | .method == "POST" and
    .path == "/repos/octocat/Hello-World/issues/1347/comments" and
    (.body | fromjson | .body == $t)' "$TESTDIR/github.log" >/dev/null ||
    fail "GitHub's request is not the comment: $(cat "$TESTDIR/github.log")"
"$AUDIT" -D "$DB" -j -a poster -T post_human_authored_comment |
    jq -e -s '([.[] | select(.verdict == "allow")] | length) == 2 and
    ([.[] | .reason] | map(select(test("replayed"))) | length) == 2 and
    ([.[] | .reason] | map(select(test("tampered text|wrong target|wrong agent|expired|work.github.repos"))) | length) == 5' \
    >/dev/null || fail "the poster's rows: $("$AUDIT" -D "$DB" -j -a poster)"
"$AUDIT" -D "$DB" -j -a poster | jq -e -s '[.[] | select(.tool ==
    "not-done")] | length == 3 and (.[0].reason |
    startswith("read_tasks failed: ") and contains("killed")) and
    (.[1].reason | contains("no answer from notion")) and
    (.[2].reason | contains("did not answer"))' \
    >/dev/null || fail "no not-done row for the killed call"

# ---- T3: a message to a configured channel ---------------------------
MT="The status page is back."
MTOKEN=$(sign messenger team "$MT" -T send_external_message)
MTOKEN3=$(sign messenger team "$MT thrice" -T send_external_message)
BOUNCER_AGENT_TOKEN=$MTOK start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
msg() {
	call "$1" send_external_message "$(jq -cn --arg c "$2" --arg x "$3" \
	    --arg k "$4" '{channel: $c, text: $x, consent_token: $k}')"
}
msg 1 attacker "$MT" "$MTOKEN"
refused 1 "channel 'attacker' is not one the administrator configured"
msg 2 team "$MT" "$MTOKEN"
expect_line "$(f_result 2) and (.result.isError | not) and
    .result.structuredContent.channel == \"team\""
msg 3 team "$MT thrice" "$MTOKEN3"
refused 3 "call budget 2 for 'send_external_message' exceeded"
stop_monitor
[ "$(lines "$TESTDIR/slack.log" 'true')" = 1 ] ||
    fail "Slack got $(lines "$TESTDIR/slack.log" 'true') requests"
jq -e -s --arg t "$MT" '.[0] | .method == "POST" and .path == "'"$HOOK"'" and
    (.body | fromjson | .text == $t)' "$TESTDIR/slack.log" >/dev/null ||
    fail "Slack's request is not the message: $(cat "$TESTDIR/slack.log")"

# no credential reached a log
for t in "$NREAD" "$NCOMM" "$GHTOK" abcDEF123; do
	! grep -rqF "$t" "$MONLOG" "$DB" || fail "a credential is in a log"
done
"$AUDIT" -D "$DB" -V >/dev/null || fail "the audit chain does not verify"
pass
