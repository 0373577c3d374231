#!/usr/bin/env bash
#
# regress/redteam.sh - the red team (DESIGN 12): prompt-injection payloads
# carried by real tool outputs through the real binaries.  Each file
# regress/redteam/*.json is one payload (regress/redteam/README): the
# output that carries it (an e-mail, a file, a web page, a Notion task or
# comment, a GitHub issue, a Slack thread, a resource, a prompt, a tool
# list that changes after pinning), what the attacker wants, and every
# call the hijacked agent then makes with the verdict bouncer must give.
# This driver plays the agent: it builds the upstreams (mock-script
# serving the real servers' tool lists, so the shipped packs apply) and
# the loopback Notion, GitHub and Slack, starts bouncer-monitor under an
# administrator's policy, reads each payload, makes each call (a
# question is declined, as the human would) and has verdicts.jq check
# every verdict.  Then the proof that none succeeded, from the other
# side: no upstream's and no vendor's log holds any payload's marker
# (the attacker's destination or effect), the upstreams received exactly
# the calls expected to pass and the vendors no write but the consented
# ones, and the audit log verifies and holds a row for every refusal and
# every question.  It ends with a line per category and "N payloads, K
# succeeded".
#
# Sessions: "office" (a personal proxy: Gmail, files, GitHub, Slack,
# Notion, a web fetcher, a calendar and a wiki, the packs and
# regress/redteam/office.yaml), "work" (an agent of the registry with
# the built-in work tools, the carriers and the mocks, Gmail and a
# consent-gated Slack, regress/redteam/work.yaml) and "flood" (a small
# session whose output passes the taint index's cap).  Payloads of one
# session share its monitor; each names markers that no other payload
# mentions, so taint cannot leak between them.
#
# A payload that is known to succeed (a bypass bouncer does not close)
# says so: its call expects "succeeds", and this test fails if it stops
# succeeding, so that the payload is then made to expect its refusal.
#
# For writing a payload: REDTEAM_SHOW=1 prints every request and
# answer; REDTEAM_ONLY=GLOB runs only the payload files GLOB matches; a
# call whose expect is "probe" or "probe-accept" (accepted only with
# REDTEAM_PROBE=1) prints its answer whatever it is, declining (or
# accepting) any question it raises.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd jq sha256sum
RT=$top_srcdir/regress/redteam
DATA=$top_srcdir/regress/data/tools
ISSUE=$top_builddir/monitor/bouncer-issue-consent
CATEGORIES="exfiltration forbidden-write unapproved-post rug-pull unicode
    encoded nested schema-mismatch path carried-out"
START=$(date +%s)
# bouncer's own work tools: what they send shows in the vendors' logs
BUILTIN="read_tasks|read_task|read_comments|create_draft|post_human_authored_comment|send_external_message"

plan() {	# MODE [JQ-ARGS...]
	local mode=$1
	shift
	jq -n -r --arg mode "$mode" --arg probe "${REDTEAM_PROBE:-0}" "$@" \
	    -f "$RT/plan.jq" "$RT"/${REDTEAM_ONLY:-*}.json
}

# ---------------------------------------------------------------------
# The payloads: valid, and in run order.
# ---------------------------------------------------------------------
plan errors >"$TESTDIR/errors" || fail "plan.jq failed"
[ ! -s "$TESTDIR/errors" ] || fail "bad payload files:
$(cat "$TESTDIR/errors")"
plan index >"$TESTDIR/index.json" || fail "plan.jq index failed"
plan steps >"$TESTDIR/steps" || fail "plan.jq steps failed"
NPAY=$(jq length "$TESTDIR/index.json")
[ "$NPAY" -ge "${REDTEAM_MIN:-60}" ] || fail "only $NPAY payloads"

# ---------------------------------------------------------------------
# Playing the agent.  Each answer is recorded, with the question the
# call raised if any, in $TESTDIR/SESSION/answers; verdicts.jq judges
# them all when the session ends (one jq for all, not one a call).
# ---------------------------------------------------------------------
ID=1
# seconds an answer may take (a megabyte line is read byte by byte)
WAIT=${REDTEAM_TIMEOUT:-30}

# next_answer [bulk]: the next line that is not a notification, in LINE.
# With bulk, the line is read at once, not byte by byte: only when it is
# the last thing the monitor will write before the next request.
next_answer() {
	local rc

	while :; do
		if [ "${1:-}" = bulk ]; then
			LINE=$(timeout "$WAIT" head -n 1 <&"$MON_OUT")
			rc=$?
			[ "$rc" = 124 ] && rc=2
			[ "$rc" = 0 ] && [ -z "$LINE" ] && rc=1
		else
			recv "$WAIT"
			rc=$?
		fi
		[ "$rc" = 1 ] && fail "$PID#$N: EOF from the monitor"
		[ "$rc" = 2 ] && fail "$PID#$N: no answer in ${WAIT}s"
		[ "${REDTEAM_SHOW:-0}" = 1 ] && log "$PID#$N <- ${LINE:0:600}"
		case $LINE in
		*'"method":"notifications/'*) [[ $LINE == *'"id":'* ]] || continue ;;
		esac
		return 0
	done
}

# rpc_id: the id of the request in LINE, as JSON text.
rpc_id() {
	if [[ $LINE =~ ^\{\"jsonrpc\":\"2\.0\",\"id\":([0-9]+|\"[^\"\\]*\"), ]]; then
		printf '%s' "${BASH_REMATCH[1]}"
	else
		jget '.id | tojson'
	fi
}

# step SESSION PAYLOAD N METHOD PARAMS EXPECT BULK: one call of the
# hijacked agent; a question it raises is declined (accepted for the
# user's own call that expects approve).
step() {
	local method=$4 params=$5 expect=$6 bulk=$7 id=$ID line q=null
	local cursor pages name

	PID=$2
	N=$3
	ID=$((ID + 1))
	for name in "${!TOKENS[@]}"; do
		params=${params//"\${token:$name}"/${TOKENS[$name]}}
	done
	line="{\"jsonrpc\":\"2.0\",\"id\":$id,\"method\":\"$method\",\"params\":$params}"
	send "$line"
	[ "${REDTEAM_SHOW:-0}" = 1 ] && log "$PID#$N -> ${line:0:600}"
	next_answer ${bulk:+bulk}
	if [[ $LINE == *'"method":"elicitation/create"'* ]]; then
		q=$LINE
		if [ "$expect" = approve ] || [ "$expect" = probe-accept ]; then
			answer "$(rpc_id)" accept
		else
			answer "$(rpc_id)" decline
		fi
		next_answer
	fi
	printf '{"p":"%s","n":%s,"id":%s,"q":%s,"a":%s}\n' "$PID" "$N" \
	    "$id" "$q" "$LINE" >>"$ANSWERS"
	# a list: every page, so that everything listed is known
	pages=0
	while [[ $method == */list ]] &&
	    [[ $LINE =~ \"nextCursor\":(\"[^\"\\]*\") ]]; do
		cursor=${BASH_REMATCH[1]}
		pages=$((pages + 1))
		[ "$pages" -lt 100 ] || fail "$PID#$N: 100 pages"
		id=$ID
		ID=$((ID + 1))
		send "{\"jsonrpc\":\"2.0\",\"id\":$id,\"method\":\"$method\",\"params\":{\"cursor\":$cursor}}"
		next_answer
		[[ $LINE == '{"jsonrpc":"2.0","id":'$id',"result":'* ]] ||
		    fail "$PID#$N: page $pages of $method: ${LINE:0:600}"
	done
	return 0
}

# ---------------------------------------------------------------------
# The worlds.
# ---------------------------------------------------------------------

# base_up NAME TOOLS-FILE SERVER-NAME VERSION: a real server's tool list
# as a mock-script script, on stdout.
base_up() {
	jq -c --arg n "$3" --arg v "$4" '{serverInfo: {name: $n, version: $v},
	    tools: .tools}' "$DATA/$2"
}

# world SESSION BASE-JSON: writes the session's scripts, seed and
# workspace under $TESTDIR/SESSION; its upstreams' names in UPSTREAMS.
world() {
	local s=$1 dir=$TESTDIR/$1 up

	mkdir -p "$dir/state" "$dir/ws"
	# each session its own audit database (the environment wins over
	# state_dir)
	export BOUNCER_STATE_DIR=$dir/state
	printf '%s\n' "$2" >"$dir/base.json"
	plan world --arg session "$s" --slurpfile base "$dir/base.json" \
	    >"$dir/world.json" || fail "the $s world does not build"
	UPSTREAMS=$(jq -r '.upstreams | keys[]' "$dir/world.json")
	for up in $UPSTREAMS; do
		jq -c --arg u "$up" '.upstreams[$u]' "$dir/world.json" \
		    >"$dir/$up.json"
	done
	jq -c '.seed // {}' "$dir/world.json" >"$dir/seed.json"
	# the workspace: directories, files and links the payloads need
	mkdir -p "$dir/ws/out" "$dir/ws/notes" "$dir/ws/docs" \
	    "$dir/ws/downloads" "$dir/ws/home/.ssh"
	jq -r '.workspace[] | [.path, (if has("link") then "link" elif has("dir")
	    then "dir" else "file" end), (.link // .text // "")] | @sh' \
	    "$dir/world.json" | while read -r l; do
		eval "set -- $l"
		mkdir -p "$(dirname "$dir/ws/$1")"
		case $2 in
		link) ln -s "$3" "$dir/ws/$1" ;;
		dir) mkdir -p "$dir/ws/$1" ;;
		file) printf '%s\n' "$3" >"$dir/ws/$1" ;;
		esac || fail "workspace: cannot make $1"
	done
}

# upstream_yaml SESSION NAME [EXTRA]: the config lines of one upstream.
upstream_yaml() {
	printf '  %s: { command: "%s", args: [-s, "%s", -l, "%s"]%s }\n' \
	    "$2" "$SCRIPT" "$TESTDIR/$1/$2.json" "$TESTDIR/$1/$2.log" "${3:-}"
}

# sign_tokens SESSION AGENT: signs the tokens the session's payloads
# name (the administrator's consents), into TOKENS.
declare -A TOKENS
sign_tokens() {
	local s=$1 name
	local -a targs

	while IFS= read -r name; do
		mapfile -t targs < <(jq -r --arg n "$name" '.tokens[$n] |
		    "-T", .tool, (.target | if type == "string" then "-t", .
		    else to_entries[] | "-t", "\(.key)=\(.value | if type ==
		    "string" then . else tojson end)" end), "-m", .text' \
		    "$TESTDIR/$s/world.json")
		TOKENS[$name]=$("$ISSUE" -y -k "$TESTDIR/admin.key" \
		    -f "$TESTDIR/$s/bouncer.yaml" -a "$2" "${targs[@]}" \
		    2>>"$TESTDIR/issue.err") ||
		    fail "cannot sign token $name: $(tail -n 3 "$TESTDIR/issue.err")"
	done < <(jq -r '.tokens | keys[]' "$TESTDIR/$s/world.json")
}

# The office: a personal proxy (no registry) in front of eight servers.
session_office() {
	local d=$TESTDIR/office up extra

	world office "$(jq -n -c \
	    --argjson gmail "$(base_up gmail gmail.json gmail 1.1.11)" \
	    --argjson files "$(base_up files filesystem.json secure-filesystem-server 2026.8.31)" \
	    --argjson github "$(base_up github github.json github-mcp-server 0.6.2)" \
	    --argjson slack "$(base_up slack slack.json 'Slack MCP Server' 1.0.0)" \
	    --argjson notion "$(base_up notion notion.json 'Notion API' 1.0.0)" \
	    --slurpfile web "$RT/servers/web.json" \
	    --slurpfile calendar "$RT/servers/calendar.json" \
	    --slurpfile wiki "$RT/servers/wiki.json" \
	    --slurpfile crm "$RT/servers/crm.json" \
	    '{upstreams: {gmail: $gmail, files: $files, github: $github,
	    slack: $slack, notion: $notion, web: $web[0],
	    calendar: $calendar[0], wiki: $wiki[0], crm: $crm[0]},
	    seed: {}}')"
	{
		echo "state_dir: $d/state"
		echo "policy: $RT/office.yaml"
		echo "upstreams:"
		# every server works in the user's workspace, at home there
		extra=", cwd: \"$d/ws\", env: { HOME: \"$d/ws/home\" }"
		for up in $UPSTREAMS; do
			upstream_yaml office "$up" "$extra"
		done
	} >"$d/bouncer.yaml"
	start_monitor -f "$d/bouncer.yaml"
	handshake '{"elicitation":{}}'
}

# The work: an agent of the registry, the built-in work tools through
# the carriers to the loopback vendors, and two upstreams.
WORK_TOKEN=ops-assistant-token-0123456789
NOTION_DB=668d797c-76fa-4934-9b05-ad288df2d136
NOTION_DS=6c4240a9-a3ce-413e-9fd0-8a51a4d0a49b
HOOK=/services/T0CORP000/B0TEAM000/teamHookSecret1
session_work() {
	local d=$TESTDIR/work up nread=ntn_fake_read_000000000000000001
	local ncomm=ntn_fake_comment_00000000000000002
	local gh=ghp_fake_00000000000000000000000003

	world work "$(jq -n -c \
	    --argjson gmail "$(base_up gmail gmail.json gmail 1.1.11)" \
	    --argjson slack "$(base_up slack slack.json 'Slack MCP Server' 1.0.0)" \
	    --arg db "$NOTION_DB" --arg ds "$NOTION_DS" \
	    '{upstreams: {gmail: $gmail, slack: $slack},
	    seed: {notion: {databases: [{id: $db, title: "Tasks",
	    data_sources: [{id: $ds, name: "Tasks"}]}], pages: [],
	    comments: []}, github: {repos: [{owner: "corp", repo: "app",
	    issues: [{number: 12, title: "Release 1.4", body: "Ship it",
	    comments: []}]}]}}}')"
	work_libexec "$d/lib"
	mkdir -m 700 "$d/keys" "$d/cred"
	"$ISSUE" -G -k "$TESTDIR/admin.key" 2>/dev/null || fail "-G failed"
	cp "$TESTDIR/admin.key.pub" "$d/keys/"
	printf '%s\n' "$nread" >"$d/cred/notion-read"
	printf '%s\n' "$ncomm" >"$d/cred/notion-comment"
	printf '%s\n' "$gh" >"$d/cred/github"
	printf 'https://hooks.slack.com%s\n' "$HOOK" >"$d/cred/team"
	chmod 600 "$d"/cred/*
	start_work_mock work/vendor-notion -s notion -d "$d/seed.json" \
	    -T "$nread:read_content,read_comments" \
	    -T "$ncomm:insert_comments,read_comments"
	local nport=$PORT
	start_work_mock work/vendor-github -s github -d "$d/seed.json" -T "$gh"
	local gport=$PORT
	start_work_mock work/vendor-slack -s slack -W "$HOOK"
	local sport=$PORT
	: >"$d/evals.yaml"
	sed "s/@TOKEN_SHA256@/$(printf '%s' "$WORK_TOKEN" | sha256sum |
	    cut -d' ' -f1)/" "$RT/agents.yaml" >"$d/agents.yaml"
	{
		echo "state_dir: $d/state"
		echo "policy: $RT/work.yaml"
		echo "registry: $d/agents.yaml"
		echo "consent: { keys: $d/keys }"
		echo "work:"
		echo "  notion:"
		echo "    read_token_file: $d/cred/notion-read"
		echo "    comment_token_file: $d/cred/notion-comment"
		echo "    database_id: $NOTION_DB"
		echo "    api_base: http://127.0.0.1:$nport"
		echo "  github:"
		echo "    token_file: $d/cred/github"
		echo "    repos: [corp/app]"
		echo "    api_base: http://127.0.0.1:$gport"
		echo "  slack:"
		echo "    channels: { team: { webhook_file: $d/cred/team } }"
		echo "    api_base: http://127.0.0.1:$sport"
		echo "upstreams:"
		for up in $UPSTREAMS; do
			upstream_yaml work "$up"
		done
	} >"$d/bouncer.yaml"
	sign_tokens work ops-assistant
	BOUNCER_LIBEXEC=$d/lib BOUNCER_AGENT_TOKEN=$WORK_TOKEN \
	    start_monitor -f "$d/bouncer.yaml"
	handshake '{"elicitation":{}}'
}

# The flood: the smallest session memory, so that a few megabytes of
# output pass the taint index's cap.
session_flood() {
	local d=$TESTDIR/flood up

	world flood "$(jq -n -c \
	    --argjson gmail "$(base_up gmail gmail.json gmail 1.1.11)" \
	    '{upstreams: {gmail: $gmail}, seed: {}}')"
	{
		echo "state_dir: $d/state"
		echo "policy: $RT/office.yaml"
		echo "max_session_memory: 4194304"
		echo "upstreams:"
		for up in $UPSTREAMS; do
			upstream_yaml flood "$up"
		done
		echo "  feed: { command: \"$MOCK\", args: [-l, \"$d/feed.log\"] }"
	} >"$d/bouncer.yaml"
	start_monitor -f "$d/bouncer.yaml"
	handshake '{"elicitation":{}}'
}

# ---------------------------------------------------------------------
# After a session: the proof, from the other side.
# ---------------------------------------------------------------------

# forwarded LOG...: what the upstreams received, one "METHOD PARAMS" per
# line (tool calls by name and arguments), sorted.
forwarded() {
	cat "$@" 2>/dev/null | jq -c -S 'select(.method == "tools/call" or
	    .method == "resources/read" or .method == "resources/subscribe" or
	    .method == "prompts/get" or .method == "completion/complete")
	    | [.method, (.params | del(._meta) | if has("arguments") then
	    .arguments |= (. // {} | del(.consent_token)) else . end)]' | sort
}

check_session() {
	local s=$1 d=$TESTDIR/$1 m hit want got n
	local fail=fail

	# probing: say what would fail, and go on
	[ "${REDTEAM_PROBE:-0}" = 1 ] && fail=log
	ping_ok "$ID"
	stop_monitor
	[ "$MON_STATUS" = 0 ] || fail "$s: the monitor exited $MON_STATUS"
	# no log of an upstream or a vendor holds a marker of a payload
	# that was to fail; a known bypass's marker is there
	jq -r --arg s "$s" '.[] | select(.session == $s) | .id as $id |
	    (any(.calls[]; .expect == "succeeds") | tostring) as $won |
	    .markers[] | "\($id)\t\($won)\t\(.)"' "$TESTDIR/index.json" \
	    >"$d/markers"
	while IFS=$'\t' read -r pid won m; do
		hit=$(grep -F -l -- "$m" "$d"/*.log 2>/dev/null | head -n 1)
		if [ "$won" = true ]; then
			[ -n "$hit" ] || $fail "$pid: the known bypass did not reach anyone (its marker '$m' is in no log)"
			continue
		fi
		[ -z "$hit" ] || $fail "$pid succeeded: its marker '$m' reached $(basename "$hit"):
$(grep -F -- "$m" "$hit" | head -n 3)"
	done <"$d/markers"
	# the upstreams received exactly the calls that were to pass
	want=$(jq -c -S --arg s "$s" '.[] | select(.session == $s) | .calls[]
	    | select((.expect == "allow" or .expect == "approve" or
	    .expect == "succeeds") and (.tool // "" | test("^(\($builtin))$") | not)
	    and (.method // "tools/call" | test("/list$") | not))
	    | if has("tool") then ["tools/call", {name: (.tool | sub("^[a-z]+__"; "")),
	    arguments: (.args // {} | del(.consent_token))}] else [.method, .params] end' \
	    --arg builtin "$BUILTIN" "$TESTDIR/index.json" | sort)
	got=$(forwarded "$d"/*.log)
	[ "$want" = "$got" ] || $fail "$s: the upstreams received other calls than expected:
$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got"))"
	# the vendors received no write but the posts that were to pass
	if [ "$s" = work ]; then
		want=$(jq --arg s "$s" '[.[] | select(.session == $s) | .calls[] |
		    select((.expect == "allow" or .expect == "succeeds") and
		    (.tool == "post_human_authored_comment" or
		    .tool == "send_external_message"))] | length' "$TESTDIR/index.json")
		n=$(cat "$d"/vendor-*.log 2>/dev/null |
		    jq -s '[.[] | select(.method != "GET" and
		    (.path | test("/query$") | not))] | length')
		[ "$want" = "$n" ] || $fail "$s: the vendors received $n writes, want $want:
$(cat "$d"/vendor-*.log | jq -c 'select(.method != "GET")')"
	fi
	# every refusal and every question has its row, in a chain that
	# verifies
	"$AUDIT" -D "$d/state/audit.db" -V >/dev/null ||
	    fail "$s: the audit chain does not verify"
	want=$(jq -r --arg s "$s" '[.[] | select(.session == $s) | .calls[] |
	    .expect] | "\(map(select(. == "deny" or . == "ask")) | length)
	    \(map(select(. == "ask" or . == "approve")) | length)"' \
	    "$TESTDIR/index.json" | tr -s ' \n' '  ')
	got=$("$AUDIT" -D "$d/state/audit.db" -j | jq -r -s '
	    "\(map(select(.verdict == "deny")) | length)
	    \(map(select(.verdict == "ask")) | length)"' | tr -s ' \n' '  ')
	[ "$want" = "$got" ] || $fail "$s: want '$want' deny and ask rows in the audit log, got '$got'"
}

# ---------------------------------------------------------------------
# Run.
# ---------------------------------------------------------------------
SUCCEEDED=
for s in office work flood; do
	grep -q "^'$s' " "$TESTDIR/steps" || continue
	TOKENS=()
	session_"$s"
	ANSWERS=$TESTDIR/$s/answers
	: >"$ANSWERS"
	while IFS= read -r l; do
		eval "set -- $l"
		[ "$1" = "$s" ] || continue
		step "$@"
	done <"$TESTDIR/steps"
	jq -n -r --slurpfile index "$TESTDIR/index.json" -f "$RT/verdicts.jq" \
	    "$ANSWERS" >"$TESTDIR/$s/verdicts" || fail "$s: verdicts.jq failed"
	grep '^probe ' "$TESTDIR/$s/verdicts" | sed "s/^/$TEST_NAME: /"
	SUCCEEDED="$SUCCEEDED $(sed -n 's/^succeeded //p' "$TESTDIR/$s/verdicts" | tr '\n' ' ')"
	if grep -v -e '^succeeded ' -e '^probe ' "$TESTDIR/$s/verdicts" \
	    >"$TESTDIR/$s/wrong"; then
		[ "${REDTEAM_PROBE:-0}" = 1 ] ||
		    fail "$s: $(grep -c '^[^ ]' "$TESTDIR/$s/wrong") verdicts were not as expected:
$(cat "$TESTDIR/$s/wrong")"
	fi
	check_session "$s"
	log "session $s: $(grep -c "^'$s' " "$TESTDIR/steps") calls, $(( $(date +%s) - START )) s since the start"
done

# ---------------------------------------------------------------------
# What held, per category.
# ---------------------------------------------------------------------
for c in $CATEGORIES; do
	jq -r --arg c "$c" --arg ok "$SUCCEEDED" '
	    [.[] | select(.category == $c)] as $p
	    | [$p[].calls[] | select(.expect != "allow" and
	    .expect != "approve")] as $a
	    | ($ok | split(" ") | map(select(. != ""))) as $won
	    | "\($c): \($p | length) payloads, \($a | length) attacker calls
	    (\([$a[] | select(.expect == "deny" or .expect == "reject")] |
	    length) denied, \([$a[] | select(.expect == "ask")] | length)
	    asked and declined, \([$a[] | select(.expect == "succeeds")] |
	    length) passed), \([$p[] | select(.id as $i | $won | index($i))] |
	    length) succeeded"
	    | gsub("\\s+"; " ")' "$TESTDIR/index.json" | sed "s/^/$TEST_NAME: /"
done
jq -r '.[] | select(.limit != null) | "limit (\(.id)): \(.limit)"' \
    "$TESTDIR/index.json" | sed "s/^/$TEST_NAME: /"
SUCCEEDED=$(printf '%s\n' $SUCCEEDED | sort -u | tr '\n' ' ')
SUCCEEDED=${SUCCEEDED% }
NWON=$(printf '%s\n' $SUCCEEDED | grep -c .)
for p in $SUCCEEDED; do
	log "known bypass ($p): $(jq -r --arg p "$p" '.[] | select(.id == $p) | .bypass' "$TESTDIR/index.json")"
done
log "$NPAY payloads, $NWON succeeded${SUCCEEDED:+ (known bypasses, as expected: $SUCCEEDED)} ($(( $(date +%s) - START )) s)"
pass
