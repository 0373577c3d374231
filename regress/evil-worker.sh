#!/usr/bin/env bash
#
# regress/evil-worker.sh - a compromised worker can lie, but it cannot
# act: every way of breaking the IPC protocol (no hello, silence past
# the hello timeout, a second hello, a second end of input, a hello
# that claims no sandbox or another process, a wrong frame version, a
# message of the monitor's own direction, an fd, a malformed payload, a
# frame after the worker said its input ended, dying, and in a
# production build, a truthful hello from a debug-sandbox worker) and
# every well-formed lie (a value tree with a duplicate key, or one level
# deeper than the cap) ends the session: the monitor exits 1, says why,
# leaves no child behind, and its last audit row is the fatal error,
# naming the worker and, for the lies, what was wrong.  Each fault is
# tried on the client worker and an upstream's.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

EVIL=$top_builddir/regress/mocks/evil-worker
[ -x "$EVIL" ] || fail "no $EVIL (make check builds it)"

modes="nohello wrongpid wrongrole trailing badversion wrongdir passfd garbage"
modes="$modes exit dupkey deep eofthen silent hello2 eof2"
sandbox_disabled || modes="$modes unsandboxed"
# a debug-sandbox worker traps rather than dies: only a debug build's
# monitor takes one
sandbox_disabled || sandbox_debug || modes="$modes debugsandbox"

# the error the fatal audit row must name, for the faults that have one
fault_of() {
	case $1 in
	wrongdir) echo "unexpected message type" ;;
	dupkey) echo "duplicate object key" ;;
	deep) echo "nesting over limit" ;;
	eofthen) echo "rpc-in after input-eof" ;;
	silent) echo "no hello within" ;;
	hello2) echo "unexpected hello" ;;
	eof2) echo "input-eof after input-eof" ;;
	debugsandbox) echo "debug sandbox" ;;
	esac
}

for role in client upstream; do
	for mode in $modes; do
		dir=$TESTDIR/libexec-$role-$mode
		mkdir -m 755 "$dir"
		# the honest worker runs as $dir/real-worker: every worker of
		# this session has $dir/ in its command line
		ln -s "$WORKER" "$dir/real-worker"
		printf '#!/bin/sh\nexec "%s" %s "%s" %s "$@"\n' \
		    "$EVIL" "$mode" "$dir/real-worker" "$role" \
		    >"$dir/bouncer-worker"
		chmod 755 "$dir/bouncer-worker"
		marker=evil-$role-$mode
		# eofthen: the session ends at the client's EOF once its
		# upstream is gone; one that stays (-I) until the grace's
		# SIGTERM leaves no doubt that the frame after the EOF is read
		stay=
		[ "$mode" = eofthen ] && stay=-I
		BOUNCER_LIBEXEC=$dir start_monitor -- "$MOCK" -n "$marker" $stay
		# The client worker may be the liar; a request costs nothing.
		try_send "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}" || true
		# silent: the hello timeout (BNC_HELLO_TIMEOUT_S, 10 s) ends it
		wait_monitor 20
		[ "$MON_STATUS" = 1 ] ||
		    fail "$role/$mode: monitor exited $MON_STATUS, want 1"
		pgrep -f "mock-upstream -n $marker" >/dev/null &&
		    fail "$role/$mode: the upstream outlived the session"
		pgrep -af "$dir/" &&
		    fail "$role/$mode: a worker outlived the session (above)"
		tail -n 3 "$MONLOG" | grep -q 'fatal' ||
		    fail "$role/$mode: the monitor did not say why"
		last=$("$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" -j -n 1)
		jq_one --arg w "worker:$role" --arg f "$(fault_of "$mode")" \
		    '.tool == "fatal" and .verdict == "event" and
		    (.reason | contains($w) and contains($f))' <<<"$last" ||
		    fail "$role/$mode: the last audit row is not the fatal one: $last"
		# A session that ends at a worker's hello never claims, in its
		# start row, that its workers are sandboxed.
		case $mode in
		nohello|wrongpid|wrongrole|trailing|badversion|passfd|\
		unsandboxed|debugsandbox|silent)
			sid=$(jq -r .session <<<"$last")
			"$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" -j |
			    jq -e -s --arg s "$sid" 'all(.[];
			    .session != $s or .tool != "start")' >/dev/null ||
			    fail "$role/$mode: a start row for a session whose worker never said a good hello"
			;;
		esac
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
