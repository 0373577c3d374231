#!/usr/bin/env bash
#
# regress/eof-flush.sh - answers still queued for the client when its
# input ends are all written before the monitor exits: the session
# drains (every call answered by the upstream, which is then sent EOF and
# exits) while the client is not reading, and the monitor, which writes
# the client's stdout itself, waits BNC_CLIENT_FLUSH_MS for the client
# to read what it queued.  A client that never reads holds the exit no
# longer than that: the loss is logged and the monitor exits 0.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

# bound NAME: a bound's value, from common/bounds.h
bound() {
	sed -n "s/^#define $1[[:space:]]*\([0-9][0-9]*\).*/\1/p" \
	    "$top_srcdir/common/bounds.h"
}

N=20
BYTES=60000
write_config "$TESTDIR/bouncer.yaml" <<YAML
max_message: 1048576
YAML
FLUSH_MS=$(bound BNC_CLIENT_FLUSH_MS)
[ -n "$FLUSH_MS" ] || fail "cannot read BNC_CLIENT_FLUSH_MS from bounds.h"

# more than the pipe holds, less than the mark that stops the requests
start_monitor -f "$TESTDIR/bouncer.yaml" -n flush -- "$MOCK" -n flush
handshake
for i in $(seq "$N"); do
	call "$i" big "{\"bytes\":$BYTES}"
done
close_stdin
# the session ends while its answers wait for the client
end=$(($(date +%s) + 10))
until grep -q 'mock-upstream\[flush\]: stdin closed' "$MONLOG"; do
	[ "$(date +%s)" -lt "$end" ] || fail "the session did not end"
	sleep 0.05
done
sleep 0.3
monitor_alive || fail "the monitor exited before its answers were read"
timeout 20 cat <&"$MON_OUT" >"$TESTDIR/answers"
wait_monitor 10
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"
jq -e -s --argjson n "$N" --argjson bytes "$BYTES" '
    [.[].id] == [range(1; $n + 1)] and
    all(.[]; (.result.content[0].text | length) == $bytes)' \
    "$TESTDIR/answers" >/dev/null ||
    fail "not every answer arrived whole: $(wc -l <"$TESTDIR/answers") lines"
grep -q 'bytes of answers not read' "$MONLOG" &&
    fail "answers were lost although the client read them"

# a client that never reads: the exit waits the bound, not forever
start_monitor -f "$TESTDIR/bouncer.yaml" -n flush2 -- "$MOCK" -n flush2
handshake
for i in $(seq "$N"); do
	call "$i" big "{\"bytes\":$BYTES}"
done
t0=$(date +%s%N)
close_stdin
wait_monitor 15
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"
grep -q "bouncer-monitor: client: [0-9]* bytes of answers not read in $FLUSH_MS ms; lost" \
    "$MONLOG" || fail "the loss was not logged"
log "a client that never reads: exit after $ms ms"
[ "$ms" -ge "$FLUSH_MS" ] || fail "exit after $ms ms: it did not wait for the client"
pass
