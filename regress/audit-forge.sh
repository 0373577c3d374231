#!/usr/bin/env bash
#
# regress/audit-forge.sh - bouncer-audit -V against a forger who knows the
# chain (DESIGN 9).  A session's log is edited behind the triggers' back:
# a middle row's verdict is changed and the next row's prev_hash is set to
# the hash the edited row would have, computed from the encoding that
# bouncer-audit(8) documents (regress/mocks/audit-rehash), so that only
# the edited row's own hash is wrong.  -V must exit 1 and name that row.
# Fixing that hash too moves the break to the next row; rewriting every
# later row gives a chain that verifies, and only a head anchored before
# the edit (--head) shows it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd sqlite3
REHASH=$top_builddir/regress/mocks/audit-rehash
[ -x "$REHASH" ] || fail "no $REHASH (make check builds it)"
DB=$BOUNCER_STATE_DIR/audit.db
OUT=$TESTDIR/out

# A log written by the real monitor: start, six allowed calls, shutdown.
start_monitor -- "$MOCK"
handshake
for i in 1 2 3 4 5 6; do
	call "$i" echo "{\"message\":\"call $i\"}"
	expect_line "$(f_text "$i" "call $i")"
done
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"

q() {	# SQL: one value
	sqlite3 "$DB" "$1"
}
n=$(q 'SELECT max(seq) FROM decisions')
[ "$n" -ge 8 ] || fail "want at least 8 rows, have $n"
"$AUDIT" -D "$DB" -V >"$OUT" || fail "-V on the untouched log: $(cat "$OUT")"
# the forger's reading of the manual gives the writer's hashes
for seq in $(seq 1 "$n"); do
	[ "$("$REHASH" "$DB" "$seq")" = \
	    "$(q "SELECT hash FROM decisions WHERE seq = $seq")" ] ||
	    fail "audit-rehash disagrees with the writer at seq $seq"
done
anchor=$("$AUDIT" -D "$DB" --head) || fail "--head"

# The middle allowed call becomes a denial.
k=$(q "SELECT seq FROM decisions WHERE tool = 'echo' AND verdict = 'allow'
    ORDER BY seq LIMIT 1 OFFSET 2")
[ -n "$k" ] && [ "$k" -gt 1 ] && [ "$k" -lt "$n" ] || fail "no middle row: $k"
next=$((k + 1))
q "DROP TRIGGER decisions_no_update;
    UPDATE decisions SET verdict = 'deny', contract = 'sink_gate'
    WHERE seq = $k;" || fail "sqlite3 could not edit row $k"
forged=$("$REHASH" "$DB" "$k") || fail "audit-rehash $k"
[ "$forged" != "$(q "SELECT hash FROM decisions WHERE seq = $k")" ] ||
    fail "the edit did not change row $k"
q "UPDATE decisions SET prev_hash = '$forged' WHERE seq = $next" ||
    fail "sqlite3 could not fix up row $next"

# Only row k's own hash is wrong: -V fails there.
"$AUDIT" -D "$DB" -V >"$OUT" 2>&1 &&
    fail "-V passed a forged row: $(cat "$OUT")"
grep -qx "bad row at seq $k: hash does not match the row" "$OUT" ||
    fail "-V did not name seq $k: $(cat "$OUT")"

# Its hash made consistent too: the next row no longer matches its own.
q "UPDATE decisions SET hash = '$forged' WHERE seq = $k" ||
    fail "sqlite3 could not rewrite row $k's hash"
"$AUDIT" -D "$DB" -V >"$OUT" 2>&1 && fail "-V passed: $(cat "$OUT")"
grep -qx "bad row at seq $next: hash does not match the row" "$OUT" ||
    fail "-V did not name seq $next: $(cat "$OUT")"

# Every later row rewritten: the chain verifies, the anchor does not.
for seq in $(seq "$next" "$n"); do
	h=$("$REHASH" "$DB" "$seq") || fail "audit-rehash $seq"
	q "UPDATE decisions SET hash = '$h' WHERE seq = $seq;
	    UPDATE decisions SET prev_hash = '$h' WHERE seq = $((seq + 1));" ||
	    fail "sqlite3 could not rewrite row $seq"
done
"$AUDIT" -D "$DB" -V >"$OUT" || fail "the rewritten chain: $(cat "$OUT")"
grep -qx "chain intact: $n rows" "$OUT" || fail "-V said: $(cat "$OUT")"
[ "$("$AUDIT" -D "$DB" --head)" != "$anchor" ] ||
    fail "the head is unchanged by a rewritten chain"
pass
