#!/usr/bin/env bash
#
# regress/evil-worker.sh - a compromised worker can lie, but it cannot
# act: every way of breaking the IPC protocol (no hello, a hello that
# claims no sandbox or another process, a wrong frame version, a message
# of the monitor's own direction, an fd, a malformed payload, dying)
# ends the session: the monitor exits 1, says why, and leaves no child
# behind.  Each fault is tried on the client worker and an upstream's.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

EVIL=$top_builddir/regress/mocks/evil-worker
[ -x "$EVIL" ] || fail "no $EVIL (make check builds it)"

modes="nohello wrongpid wrongrole trailing badversion wrongdir passfd garbage exit"
sandbox_disabled || modes="$modes unsandboxed"

for role in client upstream; do
	for mode in $modes; do
		dir=$TESTDIR/libexec-$role-$mode
		mkdir -m 755 "$dir"
		printf '#!/bin/sh\nexec "%s" %s "%s" %s "$@"\n' \
		    "$EVIL" "$mode" "$WORKER" "$role" >"$dir/bouncer-worker"
		chmod 755 "$dir/bouncer-worker"
		marker=evil-$role-$mode
		BOUNCER_LIBEXEC=$dir start_monitor -- "$MOCK" -n "$marker"
		# The client worker may be the liar; a request costs nothing.
		try_send "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}" || true
		wait_monitor 10
		[ "$MON_STATUS" = 1 ] ||
		    fail "$role/$mode: monitor exited $MON_STATUS, want 1"
		pgrep -f "mock-upstream -n $marker" >/dev/null &&
		    fail "$role/$mode: the upstream outlived the session"
		pgrep -f "evil-worker $mode" >/dev/null &&
		    fail "$role/$mode: the evil worker outlived the session"
		tail -n 3 "$MONLOG" | grep -q 'fatal' ||
		    fail "$role/$mode: the monitor did not say why"
		log "$role/$mode: session ended (exit 1)"
	done
done
# The monitor audits its own death: one fatal event per session above.
n=$("$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" -j -T fatal | jq -s 'length')
want=$(( $(echo $modes | wc -w) * 2 ))
[ "$n" = "$want" ] || fail "want $want fatal events in the audit log, have $n"
"$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" -j -T fatal | jq -e -s \
    'all(.[]; .verdict == "event" and .contract == "default" and
    (.reason | length) > 0)' >/dev/null ||
    fail "a fatal event without its reason, or with a contract not default"
pass
