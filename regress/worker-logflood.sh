#!/usr/bin/env bash
#
# regress/worker-logflood.sh - a worker's log frames, the channel a
# hijacked worker has besides its stderr, reach the client's log escaped
# (no terminal control, not even the 8-bit CSI U+009B) and thinned: at
# most BNC_CHILD_LOG_LINES (100) in a window of one second from its first
# line, the rest counted and the count said once a window; the session
# goes on and ends in order.  (A loaded machine may take more than one
# window for the flood: each logs at most 100 and says its count.)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

EVIL=$top_builddir/regress/mocks/evil-worker
lib=$TESTDIR/libexec-logflood
mkdir -m 755 "$lib"
printf '#!/bin/sh\nEVIL_LOG_N=5000 exec "%s" logflood "%s" client "$@"\n' \
    "$EVIL" "$WORKER" >"$lib/bouncer-worker"
chmod 755 "$lib/bouncer-worker"
BOUNCER_LIBEXEC=$lib start_monitor -- "$MOCK"
# ping is answered while initialize waits for the upstream: any order
expect_line '(.id == 0 and .result.serverInfo.name == "bouncer") or
    (.id == 1 and .result == {})' "$TEST_START_TIMEOUT"
first=$(jget .id)
expect_line "((.id == 0 and .result.serverInfo.name == \"bouncer\") or
    (.id == 1 and .result == {})) and .id != $first"
wait_monitor 10
[ "$MON_STATUS" = 0 ] || fail "the session exited $MON_STATUS"

# no raw ESC, BEL or C1 CSI (UTF-8 c2 9b) from the worker in the log
if LC_ALL=C grep -q $'\033\\|\007\\|\302\233' "$MONLOG"; then
	fail "terminal controls reached the log: $(LC_ALL=C grep -a -m 2 \
	    'flood' "$MONLOG" | od -c | head -n 6)"
fi
grep -q 'worker:client: flood 0 \\x1b\[2J\\xc2\\x9b31m\\x07$' "$MONLOG" ||
    fail "the first line is not there, escaped: $(grep -a -m 1 'flood 0' \
    "$MONLOG")"
n=$(grep -c 'worker:client: flood ' "$MONLOG")
# each window's count, said when the next line opened a new window
w=$(grep -c 'worker:client: [0-9]* log lines dropped ' "$MONLOG")
[ "$w" -ge 1 ] || fail "the dropped lines were not counted"
[ "$n" -ge 1 ] && [ "$n" -le $((100 * w)) ] ||
    fail "$n flood lines were logged in $w windows, want 1 to 100 a window"
d=$(sed -n 's/.*worker:client: \([0-9]*\) log lines dropped .*/\1/p' \
    "$MONLOG" | awk '{ t += $1 } END { print t + 0 }')
[ $((n + d)) = 5000 ] || fail "$n logged and $d dropped do not make 5000"
grep -q 'worker:client: after the window$' "$MONLOG" ||
    fail "the line after the window was not logged"
pass
