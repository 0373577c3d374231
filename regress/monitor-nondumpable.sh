#!/usr/bin/env bash
#
# regress/monitor-nondumpable.sh - the monitor is not dumpable: another
# process of the same user (an upstream server runs unconfined as that
# user) can neither read its /proc/PID/environ, which needs ptrace read
# access, nor open its /proc/PID/mem.  The control: the same user reads
# both of the upstream server, a dumpable process of its own, so a
# refusal comes from the monitor's state and not from the reader (mem
# only where Yama lets a process attach to a non-descendant).  The
# workers are not dumpable either (their sandbox makes them so: not
# checked in a --disable-sandbox build).  Needs root, to run the
# monitor and the reader as an unprivileged user (uid and gid 65534).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

[ "$(id -u)" = 0 ] ||
    skip "needs root to run the monitor and its reader as uid 65534"
require_cmd setpriv
U=65534

as_user() {
	setpriv --reuid=$U --regid=$U --clear-groups -- "$@"
}

# the monitor needs its test directory, and the build tree must be
# usable by that user
chown -R "$U:$U" "$TESTDIR"
for f in "$MONITOR" "$MOCK" "$BOUNCER_LIBEXEC/bouncer-worker"; do
	as_user test -x "$f" ||
	    skip "uid $U cannot execute $f (the build tree is not open to it)"
done
[ -z "${BOUNCER_PACKS:-}" ] || as_user test -r "$BOUNCER_PACKS" ||
    skip "uid $U cannot read $BOUNCER_PACKS"

# readable PID FILE: true if uid 65534 can read /proc/PID/FILE (environ)
# or open it (mem: the open is what ptrace access decides)
readable() {
	as_user sh -c 'exec 3<"/proc/$1/$2"' sh "$1" "$2" 2>/dev/null
}

wrapper=$TESTDIR/monitor-as-user
printf '#!/bin/sh\nexec setpriv --reuid=%s --regid=%s --clear-groups -- "%s" "$@"\n' \
    "$U" "$U" "$MONITOR" >"$wrapper"
chmod 755 "$wrapper"
MONITOR=$wrapper
start_monitor -- "$MOCK" -n nondumpable
handshake
ping_ok 1

uid=$(sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$MON_PID/status")
[ "$uid" = "$U" ] || fail "the monitor runs as uid '$uid', want $U"
# by name: the audit checkpointer, a fork, has the monitor's command line
up=$(pgrep -P "$MON_PID" -x mock-upstream)
[ -n "$up" ] || fail "no upstream"

# environ needs ptrace read access, mem attach access, which Yama
# (ptrace_scope >= 1) refuses to a non-descendant whatever its state
files=environ
[ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" = 0 ] &&
    files="environ mem"

# the control: a dumpable process of the same user is open to it
for f in $files; do
	readable "$up" "$f" ||
	    fail "uid $U cannot open /proc/$up/$f of its own upstream: the control failed"
done
as_user cat "/proc/$up/environ" | tr '\0' '\n' | grep -q '^PATH=' ||
    fail "uid $U does not see the upstream's environment"

for f in $files; do
	readable "$MON_PID" "$f" &&
	    fail "uid $U can open the monitor's /proc/$MON_PID/$f: it is dumpable"
done
log "monitor $MON_PID: $files refused to uid $U"
# a worker is made non-dumpable by its sandbox, which a --disable-sandbox
# build (for sanitizers) leaves out
if sandbox_disabled; then
	log "workers not checked: built with --disable-sandbox"
else
	n=0
	for pid in $(worker_pids); do
		readable "$pid" environ &&
		    fail "uid $U can read /proc/$pid/environ of a worker: $(proc_args "$pid")"
		n=$((n + 1))
	done
	[ "$n" = 2 ] || fail "want 2 workers, found $n"
fi

# and the session is unaffected
call 2 echo '{"message":"still here"}'
expect_line "$(f_text 2 "still here")"
pass
