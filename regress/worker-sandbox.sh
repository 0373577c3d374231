#!/usr/bin/env bash
#
# regress/worker-sandbox.sh - while a session runs, every bouncer-worker
# (the client side and one per upstream) is confined: seccomp in filter
# mode and no_new_privs, as /proc shows.  Skipped in a --disable-sandbox
# build.
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
pass
