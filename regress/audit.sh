#!/bin/bash
#
# regress/audit.sh - bouncer-audit over a log written by the real code.
#
# Rows are appended through monitor/audit.c (regress/mocks/audit-append);
# bouncer-audit must verify the chain (-V), export JSON lines (-j) whose
# hashes link, filter by agent, tool, verdict, time and count, print the
# head hash (--head), find the state directory as the monitor does, and
# name the seq of a row edited behind the triggers' back.  It writes only
# inside its own temporary directory.

. "${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}/regress/test-lib.sh"

require_cmd sqlite3 sha256sum
APPEND=$top_builddir/regress/mocks/audit-append
[ -x "$AUDIT" ] || fail "no bouncer-audit at $AUDIT (build it first)"
[ -x "$APPEND" ] || fail "no audit-append at $APPEND (make check builds it)"

DB=$BOUNCER_STATE_DIR/audit.db
OUT=$TESTDIR/out
ERR=$TESTDIR/err

# run_audit ARGS...: bouncer-audit ARGS, stdout in $OUT, stderr in $ERR;
# returns its exit status.
run_audit() {
	"$AUDIT" "$@" >"$OUT" 2>"$ERR"
}

# expect_audit STATUS ARGS...: bouncer-audit ARGS must exit STATUS.
expect_audit() {
	local want=$1 rc

	shift
	run_audit "$@"
	rc=$?
	[ "$rc" = "$want" ] || fail "bouncer-audit $* exited $rc (want $want)
$(cat "$OUT" "$ERR")"
}

# seqs ARGS...: the seq column of bouncer-audit -j ARGS, space-separated.
seqs() {
	"$AUDIT" -j "$@" | jq -r .seq | tr '\n' ' ' | sed 's/ $//'
}

# --- no database yet -------------------------------------------------
expect_audit 1
grep -q "no audit database at $DB" "$ERR" ||
    fail "a missing database is not named: $(cat "$ERR")"
expect_audit 1 -V
grep -q "no audit database" "$ERR" || fail "-V: $(cat "$ERR")"

# --- rows from the real writer ----------------------------------------
# Nine synthetic rows: agents bob, -, alice; tools send_email,
# delete_file, read_file; verdicts deny, ask, allow (seq 1, 2, 3, ...).
"$APPEND" -d "$BOUNCER_STATE_DIR" -n 9 >/dev/null 2>>"$MONLOG" ||
    fail "audit-append -n 9 failed"
{
	jq -nc '{session: "feed", agent: "carol", upstream: null,
	    tool: "monitor_start", verdict: "event", contract: "event",
	    reason: "sandbox enforcing"}'
	jq -nc '{session: "feed", agent: "carol", upstream: "gh",
	    tool: "post_comment", verdict: "allow", contract: "consent",
	    reason: "consent token",
	    args: {repo: "o/r", body: "hidden text"}, sinks: ["repo"],
	    nonce: "00ff00ff"}'
} | "$APPEND" -d "$BOUNCER_STATE_DIR" >/dev/null 2>>"$MONLOG" ||
    fail "audit-append of JSON rows failed"
N=11

[ "$(stat -c %a "$DB")" = 600 ] || fail "audit.db mode $(stat -c %a "$DB")"
[ "$(stat -c %a "$BOUNCER_STATE_DIR")" = 700 ] ||
    [ "$(stat -c %a "$BOUNCER_STATE_DIR")" = 755 ] ||
    fail "state dir mode $(stat -c %a "$BOUNCER_STATE_DIR")"

# --- -V on an intact log ----------------------------------------------
expect_audit 0 -D "$DB" -V
grep -qx "chain intact: $N rows" "$OUT" || fail "-V said: $(cat "$OUT")"
expect_audit 0 -V		# the default: $BOUNCER_STATE_DIR/audit.db

# --- -j ---------------------------------------------------------------
expect_audit 0 -D "$DB" -j
[ "$(wc -l <"$OUT")" = "$N" ] || fail "-j printed $(wc -l <"$OUT") lines"
d2='[0-9]{2}'
jq -e -s --arg g "$(printf '%064d' 0)" \
    --arg t "^[0-9]{4}-$d2-${d2}T$d2:$d2:$d2[.][0-9]{6}Z\$" '
    length == 11 and
    all(.[]; (.seq | type) == "number" and
	(.time | test($t)) and
	(.session | type) == "string" and (.agent | type) == "string" and
	has("upstream") and (.tool | type) == "string" and
	(.verdict | IN("allow", "deny", "ask", "event")) and
	(.contract | type) == "string" and has("reason") and
	(.sinks | type) == "object" and has("args_sha256") and
	(.prev_hash | test("^[0-9a-f]{64}$")) and
	(.hash | test("^[0-9a-f]{64}$"))) and
    ([.[].seq] == [range(1; 12)]) and
    .[0].prev_hash == $g and
    ([range(1; length) as $i | .[$i].prev_hash == .[$i - 1].hash] | all)' \
    "$OUT" >/dev/null || fail "-j output is not the chain:
$(cat "$OUT")"
# sinks in clear, everything else only as digest and length
jq -e -s '.[0].sinks == {"to": "user1@example.com"} and
    (.[0].args_sha256 | test("^[0-9a-f]{64}$")) and
    (.[0].args_len | type) == "number" and .[0].args == null and
    .[9].upstream == null and .[9].args_sha256 == null and
    .[9].sinks == {} and .[10].sinks == {"repo": "o/r"} and
    .[10].nonce == "00ff00ff" and .[10].contract == "consent"' \
    "$OUT" >/dev/null || fail "-j: sinks or digests wrong:
$(cat "$OUT")"
# the digest is of the arguments' canonical JSON (keys sorted, no spaces):
# anyone can recompute it from the call
CANON='{"body":"hidden text","repo":"o/r"}'
jq -e -s --arg h "$(printf '%s' "$CANON" | sha256sum | cut -d' ' -f1)" \
    --argjson n "${#CANON}" '.[10].args_sha256 == $h and
    .[10].args_len == $n' "$OUT" >/dev/null ||
    fail "-j: args_sha256 is not of the canonical JSON $CANON: $(sed -n 11p "$OUT")"
grep -q 'secret body\|hidden text' "$OUT" &&
    fail "a non-sink argument is in the log in clear"

# plain output: one aligned line per row
expect_audit 0 -D "$DB"
[ "$(wc -l <"$OUT")" = "$N" ] || fail "plain: $(wc -l <"$OUT") lines"
awk 'NR == 1 && !($1 == 1 && $3 == "bob" && $4 == "send_email" &&
    $5 == "deny" && $6 == "sink_gate" && $7 == "synthetic") { exit 1 }' \
    "$OUT" || fail "plain line: $(head -1 "$OUT")"
[ "$(awk '{ print index($0, $2), index($0, " " $5 " ") }' "$OUT" |
    sort -u | wc -l)" = 1 ] ||
    fail "plain output is not aligned:
$(cat "$OUT")"

# --- filters ------------------------------------------------------------
[ "$(seqs -a bob)" = "1 4 7" ] || fail "-a bob: $(seqs -a bob)"
[ "$(seqs -a -)" = "2 5 8" ] || fail "-a -: $(seqs -a -)"
[ "$(seqs -T delete_file)" = "2 5 8" ] || fail "-T: $(seqs -T delete_file)"
[ "$(seqs -r allow)" = "3 6 9 11" ] || fail "-r allow: $(seqs -r allow)"
[ "$(seqs -r event)" = "10" ] || fail "-r event: $(seqs -r event)"
[ "$(seqs -a bob -r deny -n 2)" = "4 7" ] ||
    fail "-a -r -n: $(seqs -a bob -r deny -n 2)"
[ "$(seqs -n 3)" = "9 10 11" ] || fail "-n 3: $(seqs -n 3)"
[ "$(seqs -s 1h | wc -w)" = "$N" ] || fail "-s 1h: $(seqs -s 1h)"
[ "$(seqs -s 30s | wc -w)" = "$N" ] || fail "-s 30s: $(seqs -s 30s)"
[ "$(seqs -s 2000-01-01T00:00:00Z | wc -w)" = "$N" ] || fail "-s 2000"
[ -z "$(seqs -s 2999-01-01T00:00:00+02:00)" ] || fail "-s 2999 matched"
[ -z "$(seqs -a nobody)" ] || fail "-a nobody matched"
# -s from a row's own time: that row and the later ones
t5=$("$AUDIT" -j -n 7 | jq -r 'select(.seq == 5) | .time')
[ "$(seqs -s "$t5")" = "5 6 7 8 9 10 11" ] || fail "-s $t5: $(seqs -s "$t5")"
expect_audit 1 -s yesterday
expect_audit 1 -s 5x
expect_audit 1 -r maybe
expect_audit 1 -n 0
expect_audit 1 -f /dev/null -D "$DB"

# --- --head -------------------------------------------------------------
expect_audit 0 --head
last=$("$AUDIT" -j -n 1 | jq -r .hash)
[ "$(cat "$OUT")" = "$last" ] || fail "--head $(cat "$OUT") is not $last"

# the config's state_dir, as the monitor reads it
mkdir -p "$TESTDIR/other"
sqlite3 "$DB" ".backup '$TESTDIR/other/audit.db'" || fail "sqlite3 .backup"
printf 'state_dir: %s/other\n' "$TESTDIR" >"$TESTDIR/bouncer.yaml"
(unset BOUNCER_STATE_DIR; "$AUDIT" -f "$TESTDIR/bouncer.yaml" --head) \
    >"$OUT" 2>"$ERR" || fail "-f: $(cat "$ERR")"
[ "$(cat "$OUT")" = "$last" ] || fail "-f --head: $(cat "$OUT")"

# an empty log: intact, head is the genesis value
"$APPEND" -d "$TESTDIR/empty" -n 0 || fail "audit-append -n 0"
expect_audit 0 -D "$TESTDIR/empty/audit.db" -V
grep -qx "chain intact: 0 rows" "$OUT" || fail "empty -V: $(cat "$OUT")"
expect_audit 0 -D "$TESTDIR/empty/audit.db" --head
[ "$(cat "$OUT")" = "$(printf '%064d' 0)" ] || fail "empty head: $(cat "$OUT")"

# record_args: full keeps the whole arguments
"$APPEND" -d "$TESTDIR/full" -F -n 1 >/dev/null || fail "audit-append -F"
"$AUDIT" -D "$TESTDIR/full/audit.db" -j |
    jq_one '.args == {"to": "user1@example.com", "body": "secret body 1",
	"n": 1}' || fail "record_args full: args missing"

# --- the triggers --------------------------------------------------------
sqlite3 "$DB" "UPDATE decisions SET reason = 'x' WHERE seq = 4" \
    >"$OUT" 2>&1 && fail "UPDATE of a row succeeded"
grep -q "append-only" "$OUT" ||
    fail "UPDATE refused without the reason: $(cat "$OUT")"
sqlite3 "$DB" "DELETE FROM decisions WHERE seq = 11" >"$OUT" 2>&1 &&
    fail "DELETE of a row succeeded"
grep -q "append-only" "$OUT" || fail "DELETE: $(cat "$OUT")"
expect_audit 0 -V

# --- tampering behind the triggers' back ---------------------------------
sqlite3 "$DB" "DROP TRIGGER decisions_no_update;
    UPDATE decisions SET reason = 'nothing to see' WHERE seq = 4;
    CREATE TRIGGER decisions_no_update BEFORE UPDATE ON decisions
    BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;" ||
    fail "sqlite3 could not tamper"
expect_audit 1 -V
grep -q "^bad row at seq 4\b" "$OUT" ||
    fail "-V did not name seq 4: $(cat "$OUT")"
# the other copy is still intact: -V looks at the chain, not the file name
expect_audit 0 -D "$TESTDIR/other/audit.db" -V

# a deleted row breaks the link of the next one
sqlite3 "$TESTDIR/other/audit.db" "DROP TRIGGER decisions_no_delete;
    DELETE FROM decisions WHERE seq = 6;" || fail "sqlite3 delete"
expect_audit 1 -D "$TESTDIR/other/audit.db" -V
grep -q "^bad row at seq 7\b" "$OUT" || fail "-V after delete: $(cat "$OUT")"

pass
