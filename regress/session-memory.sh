#!/usr/bin/env bash
#
# regress/session-memory.sh - max_session_memory bounds what the monitor
# holds for a session, whatever a hijacked client worker sends: here a
# thousand calls of max_message bytes each, sent behind initialize while
# the upstream is still starting, so that every one would be queued.
# Those that find no room get -32603 and are not kept; the rest are
# decided once the session is up; ping is answered; the monitor's peak
# resident memory stays under the budget plus a constant (the message in
# hand: a few times max_message, and the code; not judged in an
# AddressSanitizer build); the session ends in order.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

N=1000
MSG=1048576		# max_message
MEM=8388608		# max_session_memory
EVIL=$top_builddir/regress/mocks/evil-worker
lib=$TESTDIR/libexec-flood
mkdir -m 755 "$lib"
printf '#!/bin/sh\nEVIL_FLOOD_N=%d EVIL_FLOOD_SIZE=%d exec "%s" flood "%s" client "$@"\n' \
    "$N" $((MSG - 200)) "$EVIL" "$WORKER" >"$lib/bouncer-worker"
chmod 755 "$lib/bouncer-worker"
# The upstream starts only once ping, sent after the flood, is answered
# (ping is answered during start-up): everything the flood sent waited.
write_config "$TESTDIR/bouncer.yaml" <<YAML
max_message: $MSG
max_session_memory: $MEM
upstreams:
  slow:
    command: /bin/sh
    args: [-c, "while [ ! -e $TESTDIR/go ]; do sleep 0.05; done; exec $MOCK -l $TESTDIR/up.log"]
YAML
BOUNCER_LIBEXEC=$lib start_monitor -f "$TESTDIR/bouncer.yaml"
: >"$TESTDIR/answers"
for i in $(seq $((N + 2))); do
	recv 25 || fail "answer $i of $((N + 2)) never came"
	printf '%s\n' "$LINE" >>"$TESTDIR/answers"
	# (no jq per line: a thousand of them take longer than start-up may)
	case $LINE in
	*'"id":'$((N + 1))',"result":{}}') touch "$TESTDIR/go" ;;
	esac
done
# the worker ends its input when the client does: the monitor is there
hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$MON_PID/status")
[ -n "$hwm" ] || fail "no VmHWM for the monitor"
close_stdin
wait_monitor 20
[ "$MON_STATUS" = 0 ] || fail "the session exited $MON_STATUS"

jq -e -s --argjson n "$N" '
    ([.[].id] | sort) == [range(0; $n + 2)] and
    any(.[]; .id == 0 and .result.serverInfo.name == "bouncer") and
    any(.[]; .id == $n + 1 and .result == {})' "$TESTDIR/answers" \
    >/dev/null || fail "not every request got one answer"
full=$(jq -s '[.[] | select(.error.code == -32603 and
    (.error.message | contains("max_session_memory")))] | length' \
    "$TESTDIR/answers")
kept=$(jq -s '[.[] | select(.result.isError == true and
    (.result.content[0].text | contains("pad")))] | length' \
    "$TESTDIR/answers")
log "$kept calls kept and decided, $full refused for memory; peak RSS $hwm KiB"
[ $((full + kept)) = "$N" ] ||
    fail "$full refused and $kept decided do not make $N"
[ "$kept" -ge 1 ] || fail "no call was kept at all"
# a call holds a little more than its padding: at most MEM / MSG fit
[ "$kept" -le $((MEM / MSG)) ] || fail "$kept calls of $MSG bytes were kept"
# the decided ones were recorded, the refused ones never decided
n=$("$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" -j -T add | jq -s 'length')
[ "$n" = "$kept" ] || fail "$n audit rows for add, want $kept"
# budget plus a constant: 4 messages in hand and 24 MiB of code and
# libraries; not under ASan, whose quarantine keeps what was freed
limit=$(( (MEM + 4 * MSG) / 1024 + 24576 ))
if asan_build; then
	log "peak RSS not judged: an AddressSanitizer build"
else
	[ "$hwm" -le "$limit" ] ||
	    fail "the monitor's peak RSS was $hwm KiB, over $limit KiB"
fi
pass
