#!/usr/bin/env bash
#
# regress/work-memory.sh - what a work-system read gathers over pages is
# charged to the session's memory (max_session_memory): a task with
# more comments than the session may hold is read up to the bound and
# said to be cut (truncated), the session goes on, and once the call is
# over its memory is free again for the next one.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd jq sha256sum
sha() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
ATOK=agent-token-0123456789
PAGE=be633bf1-dfa0-436d-b259-571129a590e5
DBID=668d797c-76fa-4934-9b05-ad288df2d136
NREAD=ntn_fake_read_0000000000000001

# 120 comments of 30000 bytes: 3.6 MB, over the 1.6 MiB a 4 MiB session
# keeps besides its taint index
jq -n --arg page "$PAGE" --arg db "$DBID" '
{notion: {
  databases: [{id: $db, title: "Tasks", data_sources: [
    {id: "6c4240a9-a3ce-413e-9fd0-8a51a4d0a49b", name: "Tasks"}]}],
  pages: [{id: $page, title: "Long thread", status: "Open",
    due: "2026-09-15", owner: "c2f20311-9e54-4d11-8c79-7398424ae41e"}],
  comments: [range(120) | {id: ("94cc56ab-9f02-409d-9f99-" +
    (. + 100000000000 | tostring)), page_id: $page,
    text: ("comment \(.) " + ("x" * 30000))}]},
 github: {repos: []}}' >"$TESTDIR/seed.json" || fail "seed"

work_libexec "$TESTDIR/lib"
export BOUNCER_LIBEXEC=$TESTDIR/lib
mkdir -m 700 "$TESTDIR/cred"
printf '%s\n' "$NREAD" >"$TESTDIR/cred/notion-read"
chmod 600 "$TESTDIR/cred/notion-read"
start_work_mock notion -s notion -d "$TESTDIR/seed.json" \
    -T "$NREAD:read_content,read_comments"
NPORT=$PORT
E='{"type":"object","properties":{}}'
write_script up <<JSON
{"tools":[{"name":"ping_me","inputSchema":$E}]}
JSON
cat >"$TESTDIR/agents.yaml" <<YAML
agents:
  - id: agent
    owner: ops
    tier: T0
    tools: [read_comments, read_task]
    token_sha256: $(sha "$ATOK")
YAML
write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
max_session_memory: 4194304
registry: $TESTDIR/agents.yaml
work:
  notion:
    read_token_file: $TESTDIR/cred/notion-read
    database_id: $DBID
    api_base: http://127.0.0.1:$NPORT
upstreams:
  up: { command: "$SCRIPT", args: [-s, "$TESTDIR/up.json"] }
YAML

BOUNCER_AGENT_TOKEN=$ATOK start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
# each answer is megabytes, and the only one in flight: read in blocks
for id in 1 2; do
	call $id read_comments "{\"task_id\":\"$PAGE\"}"
	RECV_BLOCKS=1 expect_line "$(f_result $id) and (.result.isError | not) and
	    .result.structuredContent.truncated == true and
	    (.result.structuredContent.comments | length) > 10 and
	    (.result.structuredContent.comments | length) < 100 and
	    (.result.structuredContent.comments[0].text |
	    startswith(\"comment 0 \"))" 20
done
call 3 read_task "{\"task_id\":\"$PAGE\"}"
expect_line "$(f_result 3) and .result.structuredContent.title == \"Long thread\""
pass
