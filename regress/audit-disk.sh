#!/usr/bin/env bash
#
# regress/audit-disk.sh - the audit log's disk full, or its files made
# read-only, while a session runs (DESIGN 9, 10: a call is never
# forwarded without its audit row; audit-unavailable.sh has the log
# refusing rows and locked past the busy timeout).  A tools/call, a
# resources/read and a prompts/get that would be allowed are each
# denied with the audit reason and never reach the upstream, the
# session stays up, and once there is room again, or the files are
# writable again, the same requests go through; the chain verifies.
# A monitor whose state directory is on a read-only filesystem does not
# start at all.
#
# The state directory is a small ext2 filesystem of the test's own,
# loop-mounted in a private mount namespace that ends with the test
# (ext2, not tmpfs: an immutable file there refuses writes through the
# descriptors already open, as SQLite's are).  Root only; skipped
# otherwise.  SQLite's max_page_count would not do: it is a setting of
# one connection, not of the file, so no other process can impose it
# on the monitor's.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
if [ -z "${BNC_AUDIT_DISK_NS:-}" ]; then
	if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null ||
	    ! unshare -m true 2>/dev/null; then
		echo "audit-disk: SKIP: needs root and a mount namespace" >&2
		exit 77
	fi
	BNC_AUDIT_DISK_NS=1 exec unshare -m --propagation private \
	    bash "$0" "$@"
fi
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd sqlite3 mkfs.ext2 chattr mount umount
DB=$BOUNCER_STATE_DIR/audit.db
IMG=$TESTDIR/state.img
E='{"type":"object","properties":{"text":{"type":"string"}}}'
BLOCKED='[bouncer blocked] the audit log is unavailable; nothing is'
BLOCKED="$BLOCKED forwarded without its record"

# Unmounted (and writable) before the directory goes, whatever happens.
unmount_state() {
	chattr -i "$DB" "$DB-wal" 2>/dev/null
	umount "$BOUNCER_STATE_DIR" 2>/dev/null
}
trap 'rc=$?; unmount_state; (exit $rc); test_cleanup' EXIT

truncate -s 2M "$IMG" && mkfs.ext2 -q -F -m 0 "$IMG" ||
    fail "cannot make the filesystem"
mount -o loop "$IMG" "$BOUNCER_STATE_DIR" ||
    skip "cannot loop-mount a filesystem here"

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
# refused WHEN: the same three, each denied for the audit log
refused() {
	call "$id" note "{\"text\":\"$1\"}"
	expect_line "$(f_blocked "$id") and
	    .result.content[0].text == \"$BLOCKED\""
	request $((id + 1)) resources/read '{"uri":"doc://readme"}'
	expect_line "$(f_error $((id + 1)) -32602) and
	    .error.message == \"$BLOCKED\""
	request $((id + 2)) prompts/get \
	    "{\"name\":\"summarize\",\"arguments\":{\"topic\":\"$1\"}}"
	expect_line "$(f_error $((id + 2)) -32602) and
	    .error.message == \"$BLOCKED\""
	id=$((id + 3))
}

works before

# ---- the disk full ---------------------------------------------------
dd if=/dev/zero of="$BOUNCER_STATE_DIR/filler" bs=4k 2>/dev/null &&
    fail "the filesystem did not fill up"
refused refused-disk-full
ping_ok 50
rm -f "$BOUNCER_STATE_DIR/filler"
works after-full

# ---- the log's files read-only (immutable) ---------------------------
[ -f "$DB-wal" ] || fail "no write-ahead log next to the database"
chattr +i "$DB" "$DB-wal" || skip "chattr +i does not work here"
refused refused-read-only
ping_ok 51
chattr -i "$DB" "$DB-wal" || fail "cannot make the log writable again"
works after-read-only
ping_ok 52
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"

# Nothing refused reached the upstream; everything else did.
grep 'refused-' "$TESTDIR/docs.log" &&
    fail "a refused request reached the upstream (above)"
for m in tools/call resources/read prompts/get; do
	n=$(jq -s --arg m "$m" '[.[] | select(.method == $m)] | length' \
	    "$TESTDIR/docs.log")
	[ "$n" = 3 ] || fail "the upstream got $n $m, want 3"
done
# and the operator's log says why, each time
for why in 'database or disk is full' 'disk I/O error'; do
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

# ---- a read-only filesystem: no session at all ------------------------
umount "$BOUNCER_STATE_DIR" && mount -o loop,ro "$IMG" "$BOUNCER_STATE_DIR" ||
    fail "cannot mount the filesystem read-only"
before=$(wc -l <"$TESTDIR/docs.log")
start_script docs </dev/null
try_send '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}'
expect_eof "$TEST_START_TIMEOUT"
wait_monitor 10
[ "$MON_STATUS" != 0 ] || fail "the monitor ran without its audit log"
grep -q 'audit.db.*[Rr]ead-only' "$MONLOG" ||
    fail "the monitor did not say that its log is read-only"
[ "$(wc -l <"$TESTDIR/docs.log")" = "$before" ] ||
    fail "the upstream was started without an audit log"
pass
