#!/usr/bin/env bash
#
# regress/credaudit.sh - bouncer-monitor -C, the credential audit
# (DESIGN 8): against the loopback mocks, every forbidden write of every
# configured credential is blocked, by Notion's 403 for the Notion
# tokens (a no-op update, the property's current value) and by the
# carrier's table before the network for GitHub and Slack, and the table
# says 100 %; the GitHub and Slack mocks receive nothing.  A Notion token
# that can update content is reported NOT BLOCKED and -C exits 1, and
# even then the updates it sent changed nothing: each set the value the
# page already had.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd jq sha256sum
sha() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
DBID=668d797c-76fa-4934-9b05-ad288df2d136
HOOK=/services/T0001/B0001/abcDEF123
NREAD=ntn_fake_read_0000000000000001
NCOMM=ntn_fake_comment_000000000000002
NBAD=ntn_fake_writer_00000000000000004
GHTOK=ghp_fake_000000000000000000000003

work_libexec "$TESTDIR/lib"
export BOUNCER_LIBEXEC=$TESTDIR/lib
mkdir -m 700 "$TESTDIR/cred"
printf '%s\n' "$NREAD" >"$TESTDIR/cred/notion-read"
printf '%s\n' "$NCOMM" >"$TESTDIR/cred/notion-comment"
printf '%s\n' "$NBAD" >"$TESTDIR/cred/notion-writer"
printf '%s\n' "$GHTOK" >"$TESTDIR/cred/github"
printf 'https://hooks.slack.com%s\n' "$HOOK" >"$TESTDIR/cred/team"
chmod 600 "$TESTDIR"/cred/*
start_work_mock notion -s notion \
    -T "$NREAD:read_content,read_comments" \
    -T "$NCOMM:insert_comments,read_comments" \
    -T "$NBAD:read_content,update_content,insert_comments,read_comments"
NPORT=$PORT
start_work_mock github -s github -T "$GHTOK"
GPORT=$PORT
start_work_mock slack -s slack -W "$HOOK"
SPORT=$PORT

: >"$TESTDIR/evals.yaml"
cat >"$TESTDIR/agents.yaml" <<YAML
agents:
  - id: reader
    owner: ops
    tier: T0
    tools: [read_tasks, read_task, read_comments]
    token_sha256: $(sha reader-token)
  - id: poster
    owner: ops
    tier: T2
    tools: [read_tasks, post_human_authored_comment]
    eval_suite: evals.yaml
    token_sha256: $(sha poster-token)
  - id: sender
    owner: ops
    tier: T3
    tools: [send_external_message]
    eval_suite: evals.yaml
    token_sha256: $(sha sender-token)
    budgets: { send_external_message: 3 }
YAML
config() {	# COMMENT-TOKEN-FILE
	write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
registry: $TESTDIR/agents.yaml
work:
  notion:
    read_token_file: $TESTDIR/cred/notion-read
    comment_token_file: $1
    database_id: $DBID
    api_base: http://127.0.0.1:$NPORT
  github:
    token_file: $TESTDIR/cred/github
    repos: [octocat/Hello-World]
    api_base: http://127.0.0.1:$GPORT
  slack:
    channels: { team: { webhook_file: $TESTDIR/cred/team } }
    api_base: http://127.0.0.1:$SPORT
YAML
}

config "$TESTDIR/cred/notion-comment"
"$MONITOR" -C -f "$TESTDIR/bouncer.yaml" >"$TESTDIR/out" 2>>"$MONLOG" ||
    fail "-C exited $?: $(cat "$TESTDIR/out")"
grep -q '^protection rate: 100.0% (24/24 blocked)$' "$TESTDIR/out" ||
    fail "-C: $(cat "$TESTDIR/out")"
for a in reader poster sender; do
	grep -qE "^$a .* \| 8/8\$" "$TESTDIR/out" ||
	    fail "-C: agent $a not 8/8: $(cat "$TESTDIR/out")"
done
[ "$(grep -c '^notion-read .* blocked: Notion refused it (403 restricted_resource)$' "$TESTDIR/out")" = 8 ] ||
    fail "-C: the read token's rows: $(cat "$TESTDIR/out")"
[ "$(grep -c "^github .* blocked: the carrier's table refused it before the network" "$TESTDIR/out")" = 8 ] ||
    fail "-C: the GitHub rows: $(cat "$TESTDIR/out")"
[ "$(grep -c "^slack .* blocked: the carrier's table refused it before the network" "$TESTDIR/out")" = 8 ] ||
    fail "-C: the Slack rows: $(cat "$TESTDIR/out")"
! grep -q 'NOT BLOCKED\|OPEN' "$TESTDIR/out" || fail "-C: something open"
[ ! -s "$TESTDIR/github.log" ] || fail "GitHub got: $(cat "$TESTDIR/github.log")"
[ ! -s "$TESTDIR/slack.log" ] || fail "Slack got: $(cat "$TESTDIR/slack.log")"
# every write Notion saw was a PATCH of a page, refused
[ "$(jq -c 'select(.method != "GET" and (.path | test("/query$") | not) and
    (.method != "PATCH" or (.path | startswith("/v1/pages/") | not)))' \
    "$TESTDIR/notion.log" | wc -l)" = 0 ] ||
    fail "Notion got other writes: $(cat "$TESTDIR/notion.log")"

# A comment token that can update content: not blocked, exit 1 - and
# what it sent set each property to the value it had.
: >"$TESTDIR/notion.log"
config "$TESTDIR/cred/notion-writer"
"$MONITOR" -C -f "$TESTDIR/bouncer.yaml" >"$TESTDIR/out" 2>>"$MONLOG" &&
    fail "-C exited 0 with a token that can write"
grep -q '^notion-comment .*NOT BLOCKED: Notion ACCEPTED' "$TESTDIR/out" ||
    fail "-C does not say the writer is open: $(cat "$TESTDIR/out")"
grep -qE '^poster .* \| [0-7]/8$' "$TESTDIR/out" ||
    fail "-C: the poster should not be 8/8: $(cat "$TESTDIR/out")"
grep -qE '^reader .* \| 8/8$' "$TESTDIR/out" ||
    fail "-C: the reader should be 8/8: $(cat "$TESTDIR/out")"
grep -qE '^protection rate: [0-9.]+% \(([0-9]|1[0-9]|2[0-3])/24 blocked\)$' \
    "$TESTDIR/out" || fail "-C: $(cat "$TESTDIR/out")"
jq -e -s '[.[] | select(.method == "PATCH")] | length > 0 and
    all(.body | fromjson | (.properties // {}) | to_entries |
    all(.key == "Owner" or .key == "Due date" or .key == "Status" or
        .key == "Name"))' "$TESTDIR/notion.log" >/dev/null ||
    fail "unexpected PATCH bodies: $(jq -c 'select(.method == "PATCH") | .body' "$TESTDIR/notion.log")"
jq -e -s '[.[] | select(.method == "PATCH") | .body | fromjson |
    select(.properties.Owner != null)] | length > 0 and
    all(.properties.Owner.people == [{"id":
    "c2f20311-9e54-4d11-8c79-7398424ae41e"}])' "$TESTDIR/notion.log" \
    >/dev/null || fail "the owner no-op is not the current owner: $(jq -c 'select(.method == "PATCH") | .body' "$TESTDIR/notion.log")"
pass
