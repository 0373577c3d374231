#!/bin/sh
#
# man/lint.sh - the manual pages must be mandoc -Tlint -Wwarning clean.
#
# A test of `make check`: prints mandoc's complaints and fails if there is
# any output at all; skips (77) where mandoc is not installed.  It only
# reads the pages in $top_srcdir/man and never writes anything.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
MANDOC=${MANDOC:-mandoc}

if ! command -v "$MANDOC" >/dev/null 2>&1; then
	echo "SKIP: mandoc not found"
	exit 77
fi

n=0
fail=0
for page in "$top_srcdir"/man/*.[1-9]; do
	[ -f "$page" ] || continue
	n=$((n + 1))
	out=$("$MANDOC" -Tlint -Wwarning "$page" 2>&1)
	if [ -n "$out" ]; then
		printf '%s\n' "$out"
		echo "FAIL: $page"
		fail=1
	else
		echo "ok: $page"
	fi
done

if [ "$n" -eq 0 ]; then
	echo "FAIL: no manual pages in $top_srcdir/man"
	exit 1
fi
exit "$fail"
