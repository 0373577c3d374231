#!/usr/bin/env bash
#
# regress/libexec.sh - the monitor never executes a helper from a
# directory that group or others may write: BOUNCER_LIBEXEC pointing at
# one is refused before anything runs from it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

# A planted helper that leaves a mark if it is ever executed.
dir=$TESTDIR/libexec
mark=$TESTDIR/planted-helper-ran
mkdir "$dir"
cat >"$dir/bouncer-worker" <<SH
#!/bin/sh
: >"$mark"
exec "$WORKER" "\$@"
SH
chmod 0755 "$dir/bouncer-worker"

for mode in 0777 0775 0757; do
	chmod "$mode" "$dir"
	BOUNCER_LIBEXEC=$dir timeout 10 "$MONITOR" -- "$MOCK" </dev/null \
	    >"$TESTDIR/out" 2>"$TESTDIR/err"
	rc=$?
	[ "$rc" != 124 ] || fail "mode $mode: the monitor hung"
	[ "$rc" != 0 ] || fail "mode $mode: the monitor accepted $dir"
	[ ! -e "$mark" ] || fail "mode $mode: the planted helper was executed"
	[ ! -s "$TESTDIR/out" ] ||
	    fail "mode $mode: output on stdout: $(cat "$TESTDIR/out")"
	grep -qF "$dir" "$TESTDIR/err" ||
	    fail "mode $mode: the message does not name $dir: $(cat "$TESTDIR/err")"
done

# The same directory, writable by its owner only, is used.
chmod 0755 "$dir"
BOUNCER_LIBEXEC=$dir
export BOUNCER_LIBEXEC
start_monitor -- "$MOCK"
handshake
[ -e "$mark" ] || fail "the helper in a 0755 BOUNCER_LIBEXEC was not used"
pass
