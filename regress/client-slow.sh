#!/usr/bin/env bash
#
# regress/client-slow.sh - a client that sends requests and stops reading
# its answers: the monitor writes the client's stdout itself, and once
# more than BNC_CLIENT_OUT_HIGH x max_message (or BNC_CLIENT_OUT_MEM_PCT
# of the session's memory) waits for it, it takes no more requests from
# the client worker, which then waits, and so does the client's pipe.
# So what it holds stays bounded however many requests are written, and
# no call is decided that could not be answered; once the client reads,
# everything flows again and every answer arrives, in order, whole.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

N=3000
BYTES=4096
MSG=65536
MEM=8388608
write_config "$TESTDIR/bouncer.yaml" <<YAML
max_message: $MSG
max_session_memory: $MEM
YAML
start_monitor -v -f "$TESTDIR/bouncer.yaml" -- "$MOCK"
handshake
# the requests, written by a writer of their own: it blocks once the
# monitor stops taking them, as a client would.  It writes them 50 at a
# time, so that an upstream slowed down by a loaded machine does not
# fall more than BNC_PENDING_MAX behind (that is core-limits.sh's
# "too many requests in flight", not this test's subject).
(
	for i in $(seq "$N"); do
		printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{"bytes":%d}}}\n' \
		    "$i" "$BYTES"
		[ $((i % 50)) = 0 ] && sleep 0.05
	done >&"$MON_IN"
) &
writer=$!
decided() {
	"$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" -j -T big | jq -s length
}
# nobody reads: the monitor stops deciding calls it could not answer
sleep 3
d1=$(decided)
sleep 1
d2=$(decided)
log "decided while the client did not read: $d1, then $d2 of $N"
[ "$d2" = "$d1" ] || fail "calls still decided while nobody reads ($d1, then $d2)"
[ "$d2" -lt $((N / 2)) ] || fail "$d2 of $N calls decided with nobody reading"
kill -0 "$writer" 2>/dev/null || fail "every request was taken: nothing held the client"
grep -q 'bouncer-monitor: client: [0-9]* bytes of answers unread; its requests wait' \
    "$MONLOG" || fail "the monitor did not say it holds the client's requests"
rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$MON_PID/status")
limit=$(( (MEM + 4 * MSG) / 1024 + 24576 ))
if asan_build; then
	log "resident memory not judged: an AddressSanitizer build"
else
	[ "$rss" -le "$limit" ] ||
	    fail "the monitor holds $rss KiB while the client does not read, over $limit KiB"
fi

# the client reads: every answer, in order, whole
timeout 60 head -n "$N" <&"$MON_OUT" >"$TESTDIR/answers" ||
    fail "the answers did not all come: $(wc -l <"$TESTDIR/answers") of $N"
jq -e -s --argjson n "$N" --argjson bytes "$BYTES" '
    [.[].id] == [range(1; $n + 1)] and
    all(.[]; (.result.content[0].text | length) == $bytes)' \
    "$TESTDIR/answers" >/dev/null ||
    fail "the answers are not every call's, in order, whole"
wait "$writer"
grep -q 'bouncer-monitor: client: reading its answers again' "$MONLOG" ||
    fail "the monitor did not say it reads the client again"
[ "$(decided)" = "$N" ] || fail "$(decided) calls decided, want $N"
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"
pass
