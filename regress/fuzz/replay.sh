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
exit $rc
