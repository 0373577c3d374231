#!/usr/bin/env bash
#
# regress/worker-stderr.sh - a worker's stderr is a pipe the monitor
# reads, never the client's log as written.  A hijacked client worker
# (evil-worker "stderr": sandboxed, truthful hello) writes terminal
# control sequences (ESC [ 2 J, BEL, NUL, CR) and a flood of 20 000
# lines, then, past the monitor's window, a line too long for one log
# line, a plain one and one without its newline, and then plays a
# client.  The log must hold no raw control byte, show the escaped
# form tagged "worker:client: stderr:", log at most
# BNC_CHILD_STDERR_LINES lines of a window and then one "N lines of
# stderr dropped" (every line either logged or counted), log lines
# again in the next window, cut the long line and mark it, and the
# session must go on: the client's call reaches the upstream and the
# monitor exits 0.  An upstream worker's stderr is tagged with its name
# and escaped too, while the upstream server's own stderr is its own,
# inherited.  A worker that cannot be executed still says why, escaped
# and tagged, before the monitor says it died.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

EVIL=$top_builddir/regress/mocks/evil-worker
[ -x "$EVIL" ] || fail "no $EVIL (make check builds it)"

bound() {
	sed -n "s/^#define $1[[:space:]]*\([0-9][0-9]*\).*/\1/p" \
	    "$top_srcdir/common/bounds.h"
}
LINES_MAX=$(bound BNC_CHILD_STDERR_LINES)
LOG_LINE_MAX=$(bound BNC_LOG_LINE_MAX)
[ -n "$LINES_MAX" ] && [ -n "$LOG_LINE_MAX" ] ||
    fail "cannot read the bounds from common/bounds.h"
FLOOD=20000
# the escaped line, the flood, the long line, "second window", the last
WRITTEN=$((1 + FLOOD + 3))
# and first, in a --disable-sandbox build, the worker's line saying so
sandbox_disabled && WRITTEN=$((WRITTEN + 1))

# --- a hijacked client worker ----------------------------------------
dir=$TESTDIR/libexec-stderr
mkdir -m 755 "$dir"
# (it reads what the monitor writes to the client from a copy of the
# monitor's stdout: a worker never sees it)
: >"$TESTDIR/client.out"
printf '#!/bin/sh\nEVIL_ANSWERS="%s" EVIL_CALLS="%s" exec "%s" stderr "%s" client "$@"\n' \
    "$TESTDIR/client.out" 'echo:message=after the flood' "$EVIL" \
    "$WORKER" >"$dir/bouncer-worker"
chmod 755 "$dir/bouncer-worker"
# The client's log is a pipe, as MCP clients give their servers, and
# not a file: a sandboxed worker (RLIMIT_FSIZE 0) that writes to a
# regular file dies of SIGXFSZ before anything shows.
fifo=$TESTDIR/log.fifo
mkfifo "$fifo"
cat "$fifo" >>"$MONLOG" &
cat_pid=$!
exec {hold}<>"$fifo"
MONLOG=$fifo BOUNCER_LIBEXEC=$dir start_monitor -- "$MOCK" \
    -l "$TESTDIR/mock.log"
cat <&"$MON_OUT" >>"$TESTDIR/client.out" &
wait_monitor 20
exec {hold}>&-
wait "$cat_pid"
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS, want 0"
pgrep -f "evil-worker stderr" >/dev/null &&
    fail "the evil worker outlived the session"
[ "$(mock_calls "$TESTDIR/mock.log" | cut -d' ' -f2)" = echo ] ||
    fail "the call after the flood did not reach the upstream: $(mock_calls "$TESTDIR/mock.log")"

# no raw ESC, BEL, NUL or CR: the monitor writes none of its own
LC_ALL=C tr -d '\000\007\015\033' <"$MONLOG" | cmp -s - "$MONLOG" ||
    fail "raw control bytes reached the log:
$(LC_ALL=C grep -an "$(printf '\033')" "$MONLOG" | head -n 3 | od -c | head -n 8)"
grep -qxF 'bouncer-monitor: worker:client: stderr: evil: \x1b[2J clear \x07 bell \x00 nul \x0d cr' \
    "$MONLOG" || fail "the escaped line is not in the log"

# every line was logged or counted; a window logs at most the bound
tag='^bouncer-monitor: worker:client: '
logged=$(grep -c "${tag}stderr: " "$MONLOG")
notices=$(grep -cE "${tag}[0-9]+ lines? of stderr dropped" "$MONLOG")
dropped=$(sed -nE "s/${tag}([0-9]+) lines? of stderr dropped.*/\1/p" \
    "$MONLOG" | awk '{ n += $1 } END { print n + 0 }')
[ "$notices" -ge 1 ] || fail "no \"lines of stderr dropped\" notice"
[ $((logged + dropped)) = "$WRITTEN" ] ||
    fail "$logged lines logged and $dropped dropped, want $WRITTEN in all"
# the lines of the first window come before its notice
first=$(sed -nE "/${tag}[0-9]+ lines? of stderr dropped/q; \
    /${tag}stderr: /p" "$MONLOG" | wc -l)
[ "$first" -le "$LINES_MAX" ] ||
    fail "$first lines logged in the first window, bound $LINES_MAX"
[ "$logged" -le $((LINES_MAX * (notices + 1))) ] ||
    fail "$logged lines logged with $notices notices (bound $LINES_MAX a window)"
log "$logged lines logged, $dropped counted in $notices notice(s)"

# the next window logs again, after the count
n_notice=$(grep -nE "${tag}[0-9]+ lines? of stderr dropped" "$MONLOG" |
    head -n 1 | cut -d: -f1)
n_second=$(grep -nxF 'bouncer-monitor: worker:client: stderr: second window' \
    "$MONLOG" | cut -d: -f1)
[ -n "$n_second" ] || fail "a line of the next window was not logged"
[ "$n_second" -gt "$n_notice" ] ||
    fail "the count of the first window came after the next window's lines"
grep -qxF 'bouncer-monitor: worker:client: stderr: no newline' "$MONLOG" ||
    fail "the last line, without its newline, was not logged"

# the long line: cut to one log line, marked, its tail never shown
cut=$(grep -E "${tag}stderr: x+ \[line cut\]$" "$MONLOG")
[ -n "$cut" ] || fail "the long line is not cut and marked"
prefix='bouncer-monitor: '
[ "${#cut}" -lt $((${#prefix} + LOG_LINE_MAX)) ] ||
    fail "the cut line is ${#cut} bytes long, over one log line"
grep -q 'TAIL' "$MONLOG" && fail "the tail of the long line was logged"

# --- an upstream worker, in a session the client drives ----------------
dir=$TESTDIR/libexec-upstream
mkdir -m 755 "$dir"
cat >"$dir/bouncer-worker" <<SH
#!/bin/sh
case " \$* " in
*" -r upstream "*) printf 'up: \\033]0;pwned\\007 title\\n' >&2 ;;
esac
exec "$WORKER" "\$@"
SH
chmod 755 "$dir/bouncer-worker"
MONLOG=$TESTDIR/monitor-upstream.log
BOUNCER_LIBEXEC=$dir start_monitor -n up1 -- "$MOCK" -n stderr-up
handshake
call 1 echo '{"message":"hi"}'
expect_line "$(f_text 1 hi)"
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "upstream session: monitor exited $MON_STATUS"
LC_ALL=C tr -d '\000\007\015\033' <"$MONLOG" | cmp -s - "$MONLOG" ||
    fail "upstream session: raw control bytes reached the log"
grep -qxF 'bouncer-monitor: worker:upstream:up1: stderr: up: \x1b]0;pwned\x07 title' \
    "$MONLOG" || fail "the upstream worker's stderr is not escaped and tagged"
# the server's own stderr is inherited, untouched
grep -q '^mock-upstream\[stderr-up\]: ' "$MONLOG" ||
    fail "the upstream server's own stderr did not reach the log as it is"

# --- a worker that cannot be executed ---------------------------------
dir=$TESTDIR/libexec-empty
mkdir -m 755 "$dir"
MONLOG=$TESTDIR/monitor-noexec.log
BOUNCER_LIBEXEC=$dir start_monitor -- "$MOCK"
wait_monitor 10
[ "$MON_STATUS" = 1 ] || fail "no worker: monitor exited $MON_STATUS, want 1"
# both workers fail; whichever is reaped first ends the session
n_fatal=$(grep -nE '^bouncer-monitor: fatal: worker:(client|upstream:upstream) exited with status 127$' \
    "$MONLOG" | cut -d: -f1)
[ -n "$n_fatal" ] || fail "the worker's death is not logged"
who=$(sed -n "${n_fatal}s/.* fatal: \(worker:[a-z:]*\) exited.*/\1/p" "$MONLOG")
n_msg=$(grep -nxF "bouncer-monitor: $who: stderr: bouncer: exec $dir/bouncer-worker: No such file or directory" \
    "$MONLOG" | cut -d: -f1)
[ -n "$n_msg" ] && [ "$n_msg" -lt "$n_fatal" ] ||
    fail "the failed exec of $who is not logged, tagged, before its death"
pass
