#!/usr/bin/env bash
#
# regress/sandbox-violation.sh - a hijacked worker, confined by the real
# worker profile and truthful in its hello, that signals the monitor
# (tgkill), makes its monitor socket signal the monitor (F_SETOWN) or
# maps executable memory (PROT_EXEC) dies by SIGSYS: the filter refuses
# the arguments, whatever Landlock the kernel has.  The session ends (the
# monitor exits 1 and leaves no process behind) and the audit log records
# the death as a sandbox violation, under the worker's name.  A worker
# that makes only the forms of those calls the profile allows lives on
# until it leaves by itself, which proves the kills come from the
# refused arguments.  Each is tried on the client worker and an
# upstream's.  Skipped in a --disable-sandbox build.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

sandbox_disabled && skip "built with --disable-sandbox"

EVIL=$top_builddir/regress/mocks/evil-worker
[ -x "$EVIL" ] || fail "no $EVIL (make check builds it)"
DB=$BOUNCER_STATE_DIR/audit.db

# session ROLE MODE WANT: the ROLE worker is the evil one in MODE; the
# session must end with exit 1 and a fatal audit row whose reason is
# "TAG WANT", TAG being the worker's name.
session() {
	local role=$1 mode=$2 want=$3 dir marker tag reason

	dir=$TESTDIR/libexec-$role-$mode
	mkdir -m 755 "$dir"
	printf '#!/bin/sh\nexec "%s" %s "%s" %s "$@"\n' \
	    "$EVIL" "$mode" "$WORKER" "$role" >"$dir/bouncer-worker"
	chmod 755 "$dir/bouncer-worker"
	marker=sbv-$role-$mode
	case $role in
	client) tag=worker:client ;;
	*) tag=worker:upstream:upstream ;;
	esac
	BOUNCER_LIBEXEC=$dir start_monitor -- "$MOCK" -n "$marker"
	try_send '{"jsonrpc":"2.0","id":0,"method":"ping"}' || true
	wait_monitor 10
	[ "$MON_STATUS" = 1 ] ||
	    fail "$role/$mode: monitor exited $MON_STATUS, want 1"
	pgrep -f "mock-upstream -n $marker" >/dev/null &&
	    fail "$role/$mode: the upstream outlived the session"
	pgrep -f "evil-worker $mode" >/dev/null &&
	    fail "$role/$mode: the evil worker outlived the session"
	tail -n 3 "$MONLOG" | grep -qF "fatal: $tag $want" ||
	    fail "$role/$mode: the monitor did not say \"$tag $want\":
$(tail -n 3 "$MONLOG")"
	reason=$("$AUDIT" -D "$DB" -j -T fatal | jq -r -s 'last | .reason')
	[ "$reason" = "$tag $want" ] || fail "$role/$mode: the last fatal \
audit row says \"$reason\", want \"$tag $want\""
	log "$role/$mode: $reason"
}

n=0
for role in client upstream; do
	session "$role" allowed "exited with status 42"
	n=$((n + 1))
	for mode in tgkill setown protexec; do
		session "$role" "$mode" \
		    "was killed by SIGSYS: sandbox violation"
		n=$((n + 1))
	done
done

# one fatal row per session, each a "default" event, and the chain holds
have=$("$AUDIT" -D "$DB" -j -T fatal | jq -s 'length')
[ "$have" = "$n" ] || fail "want $n fatal events in the audit log, have $have"
"$AUDIT" -D "$DB" -j -T fatal | jq -e -s \
    'all(.[]; .verdict == "event" and .contract == "default")' >/dev/null ||
    fail "a fatal event that is not a default event"
"$AUDIT" -D "$DB" -V >"$TESTDIR/verify" 2>&1 ||
    fail "the audit chain does not verify: $(cat "$TESTDIR/verify")"
pass
