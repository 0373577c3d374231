#!/usr/bin/env bash
#
# regress/samples.sh - the samples installed with bouncer are correct:
# bouncer-monitor -t passes etc/bouncer.yaml and etc/policy.yaml silently.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

SRC=${top_srcdir:-$(dirname "$0")/..}

timeout 10 "$MONITOR" -t -f "$SRC/etc/bouncer.yaml" </dev/null \
    >"$TESTDIR/out" 2>"$TESTDIR/err" ||
    fail "-t fails on etc/bouncer.yaml: $(cat "$TESTDIR/err")"
[ ! -s "$TESTDIR/err" ] || fail "-t warns on etc/bouncer.yaml: $(cat "$TESTDIR/err")"
timeout 10 "$MONITOR" -t -P "$SRC/etc/policy.yaml" </dev/null \
    >"$TESTDIR/out" 2>"$TESTDIR/err" ||
    fail "-t fails on etc/policy.yaml: $(cat "$TESTDIR/err")"
[ ! -s "$TESTDIR/err" ] || fail "-t warns on etc/policy.yaml: $(cat "$TESTDIR/err")"
pass
