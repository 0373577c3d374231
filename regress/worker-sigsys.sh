#!/usr/bin/env bash
#
# regress/worker-sigsys.sh - a worker that makes a forbidden system call
# dies by SIGSYS, and the session ends as for any dead worker, with the
# death in the audit log as a sandbox violation (DESIGN 2, 9, 10).  The
# worker is evil-worker's "sigsys" mode: the real worker sandbox, a
# hello, then socket(2) once its input has a byte (the client's first
# line, or the upstream's first answer).  Tried on the client worker and
# on an upstream's; skipped where the sandbox does not kill (a
# --disable-sandbox or --enable-sandbox-debug build).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

sandbox_disabled && skip "built with --disable-sandbox"
grep -q '^#define SANDBOX_DEBUG' "$top_builddir/config.h" 2>/dev/null &&
    skip "built with --enable-sandbox-debug: the filter traps, not kills"
EVIL=$top_builddir/regress/mocks/evil-worker
[ -x "$EVIL" ] || fail "no $EVIL (make check builds it)"
DB=$BOUNCER_STATE_DIR/audit.db

for role in client upstream; do
	dir=$TESTDIR/libexec-$role
	mkdir -m 755 "$dir"
	ln -s "$WORKER" "$dir/real-worker"
	printf '#!/bin/sh\nexec "%s" sigsys "%s" %s "$@"\n' \
	    "$EVIL" "$dir/real-worker" "$role" >"$dir/bouncer-worker"
	chmod 755 "$dir/bouncer-worker"
	marker=sigsys-$role
	BOUNCER_LIBEXEC=$dir start_monitor -- "$MOCK" -n "$marker"
	# the client's first line, which also has the upstream initialized
	initialize_req 0 2025-11-25 '{}'
	wait_monitor 10
	[ "$MON_STATUS" = 1 ] ||
	    fail "$role: monitor exited $MON_STATUS, want 1"
	pgrep -f "mock-upstream -n $marker" >/dev/null &&
	    fail "$role: the upstream outlived the session"
	pgrep -af "$dir/" &&
	    fail "$role: a worker outlived the session (above)"
	grep -q "worker:$role.* was killed by SIGSYS: sandbox violation" \
	    "$MONLOG" || fail "$role: the monitor did not say SIGSYS"
	# the last row: the session's fatal end, the violation its reason
	"$AUDIT" -D "$DB" -j -n 1 | jq_one --arg w "worker:$role" '
	    .tool == "fatal" and .verdict == "event" and
	    .contract == "default" and (.reason | startswith($w) and
	    endswith(" was killed by SIGSYS: sandbox violation"))' || fail "$role: the last audit row is not the violation:
$("$AUDIT" -D "$DB" -j -n 1)"
	log "$role: killed by SIGSYS, session ended (exit 1), recorded"
done
"$AUDIT" -D "$DB" -V >/dev/null || fail "bouncer-audit -V: chain broken"
[ "$("$AUDIT" -D "$DB" -j -T fatal | jq -s 'length')" = 2 ] ||
    fail "want 2 fatal rows: $("$AUDIT" -D "$DB" -j -T fatal)"
pass
