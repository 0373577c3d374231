#!/usr/bin/env bash
#
# regress/audit-unavailable.sh - a failing audit log denies (DESIGN 9,
# 10: a call is never forwarded without its audit row).  While the
# session runs, inserts into the log start to fail, first through a
# trigger that refuses every new row, then through another writer that
# keeps the write lock past bouncer's busy timeout: a tools/call, a
# resources/read and a prompts/get that would be allowed are each denied
# with the audit reason and never reach the upstream, the session stays
# up, and once the log takes rows again the same requests go through.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd sqlite3
DB=$BOUNCER_STATE_DIR/audit.db
E='{"type":"object","properties":{"text":{"type":"string"}}}'
BLOCKED='[bouncer blocked] the audit log is unavailable; nothing is'
BLOCKED="$BLOCKED forwarded without its record"

write_script docs <<JSON
{"tools":[{"name":"note","inputSchema":$E}],
 "resources":[{"uri":"doc://readme","name":"readme"}],
 "prompts":[{"name":"summarize","arguments":[{"name":"topic"}]}]}
JSON
start_script docs </dev/null
handshake '{}'
request 1 resources/list '{}'
expect_line "$(f_result 1) and .result.resources[0].uri == \"doc://readme\""
request 2 prompts/list '{}'
expect_line "$(f_result 2) and .result.prompts[0].name == \"summarize\""

id=10
# works WHEN: a call, a read and a prompt, each answered by the upstream
works() {
	call "$id" note "{\"text\":\"$1\"}"
	expect_line "$(f_text "$id" "note {\"text\":\"$1\"}")"
	request $((id + 1)) resources/read '{"uri":"doc://readme"}'
	expect_line "$(f_result $((id + 1))) and
	    .result.contents[0].text == \"read doc://readme\""
	request $((id + 2)) prompts/get \
	    "{\"name\":\"summarize\",\"arguments\":{\"topic\":\"$1\"}}"
	expect_line "$(f_result $((id + 2))) and
	    (.result.messages[0].content.text | startswith(\"prompt \"))"
	id=$((id + 3))
}
# refused WHEN [TIMEOUT]: the same three, each denied for the audit log
refused() {
	call "$id" note "{\"text\":\"$1\"}"
	expect_line "$(f_blocked "$id") and
	    .result.content[0].text == \"$BLOCKED\"" "${2:-}"
	request $((id + 1)) resources/read '{"uri":"doc://readme"}'
	expect_line "$(f_error $((id + 1)) -32602) and
	    .error.message == \"$BLOCKED\"" "${2:-}"
	request $((id + 2)) prompts/get \
	    "{\"name\":\"summarize\",\"arguments\":{\"topic\":\"$1\"}}"
	expect_line "$(f_error $((id + 2)) -32602) and
	    .error.message == \"$BLOCKED\"" "${2:-}"
	id=$((id + 3))
}

works before

# ---- inserts refused by a trigger -------------------------------------
sqlite3 "$DB" "CREATE TRIGGER regress_refuse BEFORE INSERT ON decisions
    BEGIN SELECT RAISE(ABORT, 'regress: no more rows'); END;" ||
    fail "cannot add the trigger"
refused refused-by-trigger
ping_ok 50
sqlite3 "$DB" 'DROP TRIGGER regress_refuse' || fail "cannot drop the trigger"
works after-trigger

# ---- the write lock held past the busy timeout (1 s) -----------------
{
	printf '.timeout 5000\nBEGIN IMMEDIATE;\n'
	sleep 6
	printf 'COMMIT;\n'
} | sqlite3 "$DB" >"$TESTDIR/locker.log" 2>&1 &
locker=$!
for i in $(seq 200); do
	sqlite3 "$DB" 'BEGIN IMMEDIATE; ROLLBACK;' >/dev/null 2>&1 || break
	sleep 0.01
done
[ "$i" -lt 200 ] || fail "the other writer never took the lock"
# each waits the busy timeout, then is denied
refused refused-by-lock 3
ping_ok 51
wait "$locker" || fail "the other writer failed: $(cat "$TESTDIR/locker.log")"
works after-lock
ping_ok 52
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"

# Nothing refused reached the upstream; everything else did.
grep 'refused-by' "$TESTDIR/docs.log" &&
    fail "a refused request reached the upstream (above)"
for m in tools/call resources/read prompts/get; do
	n=$(jq -s --arg m "$m" '[.[] | select(.method == $m)] | length' \
	    "$TESTDIR/docs.log")
	[ "$n" = 3 ] || fail "the upstream got $n $m, want 3"
done
# and the operator's log says why: SQLite's reason, not "system error"
for why in 'regress: no more rows' 'database is locked'; do
	for m in note resources/read prompts/get; do
		grep -qxF "bouncer-monitor: audit: cannot record allow of $m: $why" \
		    "$MONLOG" || fail "the log does not say '$why' for $m"
	done
done
# The refused requests left no row, and the chain is whole.
"$AUDIT" -D "$DB" -V >/dev/null || fail "bouncer-audit -V: chain broken"
"$AUDIT" -D "$DB" -j >"$TESTDIR/audit.json"
for m in note resources/read prompts/get; do
	jq -e -s --arg m "$m" '[.[] | select(.tool == $m)] |
	    length == 3 and all(.verdict == "allow")' "$TESTDIR/audit.json" \
	    >/dev/null || fail "want 3 allow rows for $m:
$(jq -c --arg m "$m" 'select(.tool == $m)' "$TESTDIR/audit.json")"
done
pass
