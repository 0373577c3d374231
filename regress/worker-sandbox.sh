#!/usr/bin/env bash
#
# regress/worker-sandbox.sh - while a session runs, every bouncer-worker
# (the client side and one per upstream) is confined: seccomp in filter
# mode and no_new_privs, as /proc shows, and the session's start row in
# the audit log says so.  Skipped in a --disable-sandbox build.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

sandbox_disabled && skip "built with --disable-sandbox"

write_config "$TESTDIR/bouncer.yaml" <<YAML
upstreams:
  one:
    command: "$MOCK"
  two:
    command: "$MOCK"
    args: ["-n", "two"]
YAML
start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
ping_ok 1

workers=$(worker_pids)
n=$(echo "$workers" | grep -c .)
# one client worker and one per upstream
[ "$n" = 3 ] || fail "want 3 worker children of the monitor, found $n:
$(for p in $(monitor_children); do echo "$p $(proc_args "$p")"; done)"
for pid in $workers; do
	st=$(cat "/proc/$pid/status") || fail "cannot read /proc/$pid/status"
	what="worker $pid ($(proc_args "$pid"))"
	grep -q '^Seccomp:[[:space:]]*2$' <<<"$st" ||
	    fail "$what is not in seccomp filter mode:
$(grep -E '^(Seccomp|NoNewPrivs)' <<<"$st")"
	grep -q '^NoNewPrivs:[[:space:]]*1$' <<<"$st" ||
	    fail "$what does not have no_new_privs"
	log "$what: Seccomp 2, NoNewPrivs 1"
done

# They still work under the filter.
call 2 one__echo '{"message":"sandboxed"}'
expect_line "$(f_text 2 sandboxed)"

# The session's first row is its start, written once all three workers
# said hello, and it says what they reported.
rows=$("$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" -j)
jq -e -s '.[0].tool == "start" and .[0].verdict == "event" and
    (.[0].reason | test("^session started; 3 workers sandboxed [(]seccomp, (Landlock ABI [1-9][0-9]*|no_new_privs; no Landlock)")) and
    ([.[] | select(.tool == "start")] | length) == 1 and
    ([.[] | select(.tool == "one__echo")] | length) == 1' \
    <<<"$rows" >/dev/null || fail "the start row is not first, or wrong:
$rows"
pass
