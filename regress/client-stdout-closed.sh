#!/usr/bin/env bash
#
# regress/client-stdout-closed.sh - the client closes its end of the
# monitor's stdout mid-session and keeps its stdin open.  The monitor
# writes the client's stdout itself; the write fails with EPIPE (SIGPIPE
# is ignored: DESIGN 10 counts it an orderly end), nothing more could
# ever reach the client, so the session ends in order on its own: the
# reason logged, the upstream sent EOF, exit 0, the audit log closed
# with its shutdown row, and no CPU spent spinning on a dead pipe.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

# The CPU time of the shell's waited-for children, in clock ticks.
child_ticks() {
	awk '{ print $16 + $17 }' "/proc/$$/stat"
}

t0=$(child_ticks)
start_monitor -n closed -- "$MOCK" -n closed -l "$TESTDIR/up.log"
handshake
call 1 echo '{"message":"still here"}'
expect_line "$(f_text 1 "still here")"
# the client stops listening, and asks once more
exec {MON_OUT}<&-
MON_OUT=
call 2 echo '{"message":"nobody reads this"}'
wait_monitor 10
t1=$(child_ticks)
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS, want 0"
grep -q 'bouncer-monitor: write to client: Broken pipe; .*ending the session' \
    "$MONLOG" || fail "the monitor did not say why the session ended"
grep -q 'mock-upstream\[closed\]: stdin closed' "$MONLOG" ||
    fail "the upstream was not sent EOF"
"$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" -j | jq -e -s '
    .[-1].verdict == "event" and .[-1].tool == "shutdown" and
    .[-1].reason == "orderly shutdown"' >/dev/null ||
    fail "no orderly shutdown row: $("$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" -j | tail -n 1)"
# the monitor and its children together, and the test's own tools
ticks=$((t1 - t0))
log "CPU time of the session: $ticks ticks"
[ "$ticks" -le 300 ] || fail "the session spent $ticks ticks of CPU: a spin?"
pass
