#!/bin/sh
#
# replay.sh - each fuzz harness, built without libFuzzer or sanitizers
# (regress/fuzz/replay_<name>), over its committed corpus.  Part of `make
# check', so the harnesses build and their seeds pass everywhere, clang
# or not.  A failed check in a harness aborts its replay program.

set -u

srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}
rc=0

for name in jsonrpc value msg frame policy config taint uritemplate canon \
    registry consent filter_notion filter_github filter_slack; do
	prog="$builddir/regress/fuzz/replay_$name"
	dir="$srcdir/regress/fuzz/corpus/$name"
	if [ ! -x "$prog" ]; then
		echo "FAIL: $prog not built"
		rc=1
		continue
	fi
	set -- "$dir"/*
	if [ ! -e "$1" ]; then
		echo "FAIL: no seeds in $dir"
		rc=1
		continue
	fi
	if "$prog" "$@"; then
		echo "ok: $name ($# seeds)"
	else
		echo "FAIL: $name (exit $?)"
		rc=1
	fi
done

# fuzz_taint's report of the bytes its executions recorded (BENCHMARKS.md,
# "Fuzzing depth"): two executions of one add, 10 bytes repeated 4 times
# (opcode 3 << 2: add, arg 3).
one="${TMPDIR:-/tmp}/bouncer-replay-taint.$$"
printf '\000\014\012abcdefghij' >"$one" || exit 1
out=$("$builddir/regress/fuzz/replay_taint" "$one" "$one" 2>&1)
rm -f "$one"
if [ "$out" = "fuzz_taint: 2 executions recorded 80 bytes" ]; then
	echo "ok: taint's byte report"
else
	echo "FAIL: taint's byte report: $out"
	rc=1
fi
exit $rc
