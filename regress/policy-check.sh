#!/usr/bin/env bash
#
# regress/policy-check.sh - a policy is checked before anything runs:
# bouncer-monitor -t passes a clean policy silently (with or without an
# upstream), fails (status 1) on a malformed one with a message naming
# file, line and key, warns and fails when a user entry silently drops a
# pack's exfiltrating or sink parameters; and a monitor given a malformed
# policy refuses to start.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

P=$TESTDIR/policy.yaml
ERR=$TESTDIR/err

run_t() {
	timeout 10 "$MONITOR" -t -P "$P" -- "$MOCK" </dev/null \
	    >"$TESTDIR/out" 2>"$ERR"
	RC=$?
}

bad() {		# LINE KEY: the policy on stdin must fail naming both
	cat >"$P"
	run_t
	[ "$RC" = 1 ] || fail "-t exited $RC on a bad policy: $(cat "$P")"
	grep -q "$P:$1: .*$2" "$ERR" ||
	    fail "message does not name $P:$1 and $2: $(cat "$ERR")"
}

printf 'echo:\n  max_calls: 3\n' >"$P"
run_t
[ "$RC" = 0 ] || fail "-t failed on a clean policy: $(cat "$ERR")"
[ ! -s "$ERR" ] || fail "-t printed on a clean policy: $(cat "$ERR")"
: >"$P"
run_t
[ "$RC" = 0 ] || fail "an empty policy is an empty policy, not an error"

# -t checks what it is given: the upstream may only come at run time.
printf 'echo:\n  max_calls: 3\n' >"$P"
timeout 10 "$MONITOR" -t -P "$P" </dev/null >"$TESTDIR/out" 2>"$ERR"
RC=$?
[ "$RC" = 0 ] || fail "-t without an upstream exited $RC: $(cat "$ERR")"
printf 'echo:\n  max_calls: true\n' >"$P"
timeout 10 "$MONITOR" -t -P "$P" </dev/null >"$TESTDIR/out" 2>"$ERR"
RC=$?
[ "$RC" = 1 ] || fail "-t without an upstream passed a bad policy"
grep -q "$P:2: .*max_calls" "$ERR" ||
    fail "-t without an upstream did not name the error: $(cat "$ERR")"

bad 1 '' <<'YAML'
- echo
YAML
bad 2 exfiltrating <<'YAML'
send_email:
  exfiltrating: "false"
YAML
bad 2 max_calls <<'YAML'
echo:
  max_calls: true
YAML
bad 3 colour <<'YAML'
echo:
  max_calls: 1
  colour: red
YAML
bad 2 arg_patterns <<'YAML'
echo:
  arg_patterns: { message: "a)(b" }
YAML

# A user entry that replaces the gmail pack's send_email and drops its
# sink parameters: a warning, and -t fails.
cat >"$P" <<'YAML'
send_email:
  max_calls: 5
YAML
run_t
[ "$RC" = 1 ] || fail "-t exited $RC although a pack's sinks were dropped"
grep -q 'warning' "$ERR" && grep -q 'send_email' "$ERR" ||
    fail "no warning naming send_email: $(cat "$ERR")"

# The monitor itself refuses to start on a malformed policy.
printf 'echo:\n  exfiltrating: "yes"\n' >"$P"
timeout 10 "$MONITOR" -P "$P" -- "$MOCK" </dev/null >/dev/null 2>"$ERR"
rc=$?
[ "$rc" = 1 ] || fail "the monitor started (exit $rc) with a bad policy"
grep -q "$P:2" "$ERR" || fail "no file:line in: $(cat "$ERR")"
pass
