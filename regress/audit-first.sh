#!/usr/bin/env bash
#
# regress/audit-first.sh - a call's allow row is committed before the
# call reaches its upstream (DESIGN 9, 10), as the upstream itself can
# see: mock-witness opens the audit log read-only on every tools/call,
# prompts/get and resources/read and answers only if it finds that
# call's allow row (its tool and argument digest) already there.  Each
# kind of request is made with the log free, and again while another
# process holds its write lock for less than bouncer's busy timeout:
# bouncer must wait for the lock, commit, and only then forward.  A
# bouncer that forwarded first would reach the witness while the lock
# still keeps its row out, and the call would fail.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd sqlite3
WITNESS=$top_builddir/regress/mocks/mock-witness
[ -x "$WITNESS" ] || fail "no $WITNESS (make check builds it)"

DB=$BOUNCER_STATE_DIR/audit.db
UNAVAILABLE='the audit log is unavailable; nothing is forwarded without'
UNAVAILABLE="$UNAVAILABLE its record"
# Shorter than BNC_AUDIT_BUSY_MS (1000), long enough for a call to reach
# the upstream while it lasts.
HOLD=0.4

LOCKER=
# hold_lock: another writer takes the log's write lock and keeps it for
# $HOLD seconds, in the background; returns once the lock is held.
hold_lock() {
	local i

	{
		printf '.timeout 5000\nBEGIN IMMEDIATE;\n'
		sleep "$HOLD"
		printf 'COMMIT;\n'
	} | sqlite3 "$DB" >>"$TESTDIR/locker.log" 2>&1 &
	LOCKER=$!
	# held once a writer that will not wait is refused
	for i in $(seq 200); do
		sqlite3 "$DB" 'BEGIN IMMEDIATE; ROLLBACK;' >/dev/null 2>&1 ||
		    return 0
		sleep 0.01
	done
	fail "the other writer never took the lock"
}

release_lock() {
	wait "$LOCKER" ||
	    fail "the other writer failed: $(cat "$TESTDIR/locker.log")"
	LOCKER=
}

start_monitor -n w -- "$WITNESS" -D "$DB" -l "$TESTDIR/w.log"
handshake '{}'
request 1 prompts/list '{}'
expect_line "$(f_result 1) and .result.prompts[0].name == \"brief\""
request 2 resources/templates/list '{}'
expect_line "$(f_result 2) and (.result.resourceTemplates | length) == 1"

id=10
# ask KIND NONCE: one request of KIND (call, prompt or read) with NONCE;
# sets DENIED and WITNESSED to the filters of its two possible answers
ask() {
	local b="\"[bouncer blocked] $UNAVAILABLE\""
	local row='test("^row [0-9]+$")'

	case $1 in
	call)
		call "$id" stamp "{\"nonce\":\"$2\"}"
		DENIED="$(f_blocked "$id") and .result.content[0].text == $b"
		WITNESSED="$(f_result "$id") and
		    (.result.isError // false) == false and
		    (.result.content[0].text | $row)" ;;
	prompt)
		request "$id" prompts/get \
		    "{\"name\":\"brief\",\"arguments\":{\"nonce\":\"$2\"}}"
		DENIED="$(f_error "$id" -32602) and .error.message == $b"
		WITNESSED="$(f_result "$id") and
		    (.result.messages[0].content.text | $row)" ;;
	read)
		request "$id" resources/read "{\"uri\":\"witness://$2\"}"
		DENIED="$(f_error "$id" -32602) and .error.message == $b"
		WITNESSED="$(f_result "$id") and
		    (.result.contents[0].text | $row)" ;;
	esac
}

# witnessed KIND LOCKED: a request of KIND with a fresh nonce must get
# the witness's "row SEQ".  With LOCKED, under another writer's lock;
# should that outlast the busy timeout on a slow machine, the request is
# denied as unrecorded (and never forwarded), and is made again.
witnessed() {
	local kind=$1 locked=$2 nonce try

	for try in 1 2 3; do
		nonce=n$id-$RANDOM$RANDOM
		[ "$locked" = locked ] && hold_lock
		ask "$kind" "$nonce"
		recv 10 || fail "$kind $id: no answer"
		[ "$locked" = locked ] && release_lock
		id=$((id + 1))
		if [ "$locked" = locked ] && jcheck "$DENIED"; then
			log "$kind $((id - 1)): the lock outlasted the timeout"
			continue
		fi
		jcheck "$WITNESSED" ||
		    fail "$kind ($locked) overtook its audit row: $LINE"
		echo "$kind $nonce" >>"$TESTDIR/witnessed.txt"
		return 0
	done
	fail "$kind: the lock outlasted the busy timeout three times"
}

for kind in call prompt read; do
	witnessed "$kind" free
	witnessed "$kind" locked
	witnessed "$kind" free
done
ping_ok 99
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"

# The witness saw every one of them (no call was answered elsewhere), and
# each has exactly one allow row in an intact chain.
n=$(jq -s '[.[] | select(.method == "tools/call" or
    .method == "prompts/get" or .method == "resources/read")] | length' \
    "$TESTDIR/w.log")
want=$(wc -l <"$TESTDIR/witnessed.txt")
[ "$n" = "$want" ] || fail "the upstream got $n calls, want $want"
"$AUDIT" -D "$DB" -V >/dev/null || fail "bouncer-audit -V: chain broken"
"$AUDIT" -D "$DB" -j -r allow >"$TESTDIR/allow.json"
for tool in stamp prompts/get resources/read; do
	n=$(jq -s --arg t "$tool" '[.[] | select(.tool == $t)] | length' \
	    "$TESTDIR/allow.json")
	[ "$n" = 3 ] || fail "want 3 allow rows for $tool, have $n"
done
# a read's URI is in clear: each row is the read's own
while read -r kind nonce; do
	jq -e -s --arg u "witness://$nonce" 'map(select(.tool ==
	    "resources/read" and .sinks.uri == $u)) | length == 1' \
	    "$TESTDIR/allow.json" >/dev/null || fail "no allow row for $nonce"
done < <(grep '^read ' "$TESTDIR/witnessed.txt")
pass
