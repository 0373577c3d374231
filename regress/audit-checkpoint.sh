#!/usr/bin/env bash
#
# regress/audit-checkpoint.sh - the audit log's checkpointer
# (monitor/checkpoint.c): a child of the monitor, bouncer-ckpt, that
# holds none of the client's descriptors, copies the WAL into audit.db
# once the WAL passes BNC_AUDIT_WAL_PAGES pages, so the WAL stays
# bounded while no commit of the monitor checkpoints; killed, the
# monitor's commits checkpoint again and the session serves on; it exits
# with the monitor.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

bound() {
	sed -n "s/^#define $1[[:space:]]*\([0-9][0-9]*\).*/\1/p" \
	    "$top_srcdir/common/bounds.h"
}
PAGES=$(bound BNC_AUDIT_WAL_PAGES)
[ -n "$PAGES" ] || fail "cannot read BNC_AUDIT_WAL_PAGES from bounds.h"

STATE=$TESTDIR/state
write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: "$STATE"
YAML

# burst FIRST N: N echo calls, ids FIRST.., in batches of 200, all
# answered
burst() {
	local i=$1 last=$(($1 + $2)) b n

	while [ "$i" -lt "$last" ]; do
		b=$((last - i < 200 ? last - i : 200))
		awk -v f="$i" -v n="$b" 'BEGIN { for (k = f; k < f + n; k++)
		    printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":" \
		    "\"tools/call\",\"params\":{\"name\":\"echo\"," \
		    "\"arguments\":{\"message\":\"m%d\"}}}\n", k, k }' \
		    1>&"$MON_IN" || fail "cannot write to the monitor"
		for ((n = 0; n < b; n++)); do
			recv 20 || fail "call $((i + n)) of a burst unanswered"
		done
		i=$((i + b))
	done
}

size() { stat -c %s "$1" 2>/dev/null || echo 0; }

start_monitor -f "$TESTDIR/bouncer.yaml" -- "$MOCK" -n ckpt
handshake
ckpt=$(pgrep -P "$MON_PID" -x bouncer-ckpt) ||
    fail "no bouncer-ckpt child of the monitor"
# none of the client's pipes, no credential: its pipe, /dev/null, stderr
for fd in 0 1; do
	[ "$(readlink "/proc/$ckpt/fd/$fd")" = /dev/null ] ||
	    fail "bouncer-ckpt fd $fd is $(readlink "/proc/$ckpt/fd/$fd")"
done
nfd=$(find "/proc/$ckpt/fd" -mindepth 1 | wc -l)
[ "$nfd" -le 5 ] || fail "bouncer-ckpt holds $nfd descriptors:
$(ls -l "/proc/$ckpt/fd")"
grep -q '^NoNewPrivs:[[:space:]]*1$' "/proc/$ckpt/status" ||
    fail "bouncer-ckpt does not have no_new_privs"

# one commit is one WAL page or more: past PAGES commits the checkpointer
# copies the WAL into audit.db, and in the pause after the burst it
# catches up, so the next commit starts the WAL over
db0=$(size "$STATE/audit.db")
burst 10 $((PAGES + PAGES / 2))
sleep 1
db1=$(size "$STATE/audit.db")
wal1=$(size "$STATE/audit.db-wal")
[ "$db1" -gt $((db0 + 50 * 4096)) ] ||
    fail "audit.db did not grow: no checkpoint (db $db0 -> $db1, wal $wal1)"
# a WAL that starts over keeps its size; one that does not grows by
# more than a page per commit
burst 5000 $((PAGES + PAGES / 2))
wal2=$(size "$STATE/audit.db-wal")
[ "$wal2" -le $((wal1 + wal1 / 10)) ] ||
    fail "the WAL grew from $wal1 to $wal2 bytes: it did not start over"
log "after $((PAGES * 3)) calls: audit.db $(size "$STATE/audit.db"), WAL $wal2 bytes"

# killed: the session serves on.  The monitor learns of the death at its
# next request, when the WAL reaches the next multiple of PAGES pages, so
# the WAL may grow by up to PAGES pages more first; from then on its
# own commits checkpoint at PAGES pages, and the WAL keeps its size
# while audit.db grows.  (Without them it would grow to
# BNC_AUDIT_WAL_PAGES_MAX pages.)
kill -KILL "$ckpt"
burst 20000 $((PAGES * 2))
monitor_alive || fail "the monitor exited after its checkpointer died"
grep -q 'the checkpointer is gone' "$MONLOG" ||
    fail "the checkpointer's death was not logged"
wal3=$(size "$STATE/audit.db-wal")
[ "$wal3" -le $(((2 * PAGES + 64) * 4200)) ] ||
    fail "the WAL grew to $wal3 bytes after the checkpointer died"
db3=$(size "$STATE/audit.db")
burst 30000 $((PAGES * 2))
wal4=$(size "$STATE/audit.db-wal")
db4=$(size "$STATE/audit.db")
[ "$wal4" -le "$wal3" ] ||
    fail "without a checkpointer the WAL grew from $wal3 to $wal4 bytes"
[ "$db4" -gt "$db3" ] ||
    fail "without a checkpointer audit.db did not grow ($db3 -> $db4)"
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"
"$AUDIT" -D "$STATE/audit.db" -V >"$TESTDIR/verify" 2>&1 ||
    fail "the chain does not verify: $(cat "$TESTDIR/verify")"

# it exits with the monitor, at the client's EOF
start_monitor -f "$TESTDIR/bouncer.yaml" -- "$MOCK" -n ckpt2
handshake
ckpt=$(pgrep -P "$MON_PID" -x bouncer-ckpt) || fail "no bouncer-ckpt"
stop_monitor
for _ in $(seq 50); do
	[ -d "/proc/$ckpt" ] || break
	st=$(sed 's/.*) //' "/proc/$ckpt/stat" 2>/dev/null | cut -d' ' -f1)
	[ "$st" = Z ] && break
	sleep 0.1
done
st=$(sed 's/.*) //' "/proc/$ckpt/stat" 2>/dev/null | cut -d' ' -f1)
[ -z "$st" ] || [ "$st" = Z ] || fail "bouncer-ckpt outlived the monitor"
pass
