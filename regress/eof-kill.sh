#!/usr/bin/env bash
#
# regress/eof-kill.sh - an upstream that ignores both EOF and SIGTERM gets
# SIGKILL after the two grace periods (2 x BNC_KILL_GRACE_MS); the monitor
# still exits 0 and leaves nothing behind.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

start_monitor -- "$MOCK" -II -n stubborn
handshake
mock=$(pgrep -P "$MON_PID" -x mock-upstream) || fail "no mock child"
MON_CHILDREN=$(monitor_children)
close_stdin
wait_monitor 10
[ "$MON_STATUS" = 0 ] || fail "exit status $MON_STATUS, want 0"
grep -q 'mock-upstream\[stubborn\]: stdin closed, staying alive' "$MONLOG" ||
    fail "the upstream was not sent EOF first"
sleep 0.2
kill -0 "$mock" 2>/dev/null && [ "$(sed 's/.*) //' "/proc/$mock/stat" |
    cut -d' ' -f1)" != Z ] && fail "the upstream ($mock) is still running"
pass
