#!/usr/bin/env bash
#
# regress/proxy-namespace.sh - an upstream with `namespace: true` has every
# tool shown as <upstream>__<tool>, even without a collision; calls are
# forwarded under the original name, and the bare name is not callable.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

up=$TESTDIR/up.log
write_config "$TESTDIR/bouncer.yaml" <<YAML
upstreams:
  files:
    command: "$MOCK"
    args: ["-t", "1", "-l", "$up"]
    namespace: true
YAML

start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
list_tools
mock_tools -t 1 | jq -r '.[].name' | sed 's/^/files__/' | sort \
    >"$TESTDIR/want.sorted"
sort "$TESTDIR/tools.txt" >"$TESTDIR/got.sorted"
cmp -s "$TESTDIR/want.sorted" "$TESTDIR/got.sorted" ||
    fail "wrong tool surface:
$(diff "$TESTDIR/want.sorted" "$TESTDIR/got.sorted")"

call 1 files__echo '{"message":"namespaced"}'
expect_line "$(f_text 1 namespaced)"
call 2 files__tool_0
expect_line "$(f_text 2 "tool_0 called")"
call 3 echo '{"message":"bare"}'
expect_line "$(f_blocked 3)"
call 4 files__
expect_line "$(f_blocked 4)"
call 5 files__files__echo '{"message":"twice"}'
expect_line "$(f_blocked 5)"
ping_ok 6

got=$(mock_calls "$up" | awk '{print $2}' | tr '\n' ' ')
[ "$got" = "echo tool_0 " ] || fail "the upstream received: $got"
pass
