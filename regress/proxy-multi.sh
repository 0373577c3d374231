#!/usr/bin/env bash
#
# regress/proxy-multi.sh - two upstreams from bouncer.yaml: names both
# serve are shown as <upstream>__<tool>, names only one serves stay
# plain, and each call reaches the right upstream under the tool's
# original name (told apart by their logs and their env); no worker's
# stdout is the client's.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

alog=$TESTDIR/a.log
blog=$TESTDIR/b.log
write_config "$TESTDIR/bouncer.yaml" <<YAML
upstreams:
  a:
    command: "$MOCK"
    args: ["-n", "alpha", "-t", "2", "-l", "$alog"]
    env: { WHO: alpha }
  b:
    command: "$MOCK"
    args: ["-n", "beta", "-l", "$blog"]
    env:
      WHO: beta
YAML

start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
# no worker can write to the client: each one's stdout is /dev/null, and
# the monitor writes the client's stdout itself (SECURITY.md); a
# sandboxed worker is not dumpable, so only root may look
if [ "$(id -u)" = 0 ]; then
	n=0
	for pid in $(worker_pids); do
		out=$(readlink "/proc/$pid/fd/1") ||
		    fail "cannot read worker $pid's fd 1"
		[ "$out" = /dev/null ] ||
		    fail "worker $pid ($(proc_args "$pid")): fd 1 is $out"
		n=$((n + 1))
	done
	[ "$n" = 3 ] ||
	    fail "want 3 workers (the client's and one per upstream), found $n"
else
	log "workers' fd 1 not checked: needs root"
fi

# Both upstreams were initialized.
for l in "$alog" "$blog"; do
	mock_methods "$l" | grep -qx initialize ||
	    fail "upstream with log $l was not initialized"
done

# The surface: every shared name prefixed for both, tool_0/tool_1 plain.
list_tools
mock_tools | jq -r '.[].name' | sed 's/^/a__/' >"$TESTDIR/want.txt"
mock_tools | jq -r '.[].name' | sed 's/^/b__/' >>"$TESTDIR/want.txt"
printf 'tool_0\ntool_1\n' >>"$TESTDIR/want.txt"
sort "$TESTDIR/want.txt" >"$TESTDIR/want.sorted"
sort "$TESTDIR/tools.txt" >"$TESTDIR/got.sorted"
cmp -s "$TESTDIR/want.sorted" "$TESTDIR/got.sorted" ||
    fail "wrong tool surface:
$(diff "$TESTDIR/want.sorted" "$TESTDIR/got.sorted")"

# Definitions are unchanged apart from the name.
request 1 tools/list
expect_line "$(f_result 1)"
want=$(mock_tools | jq -c '.[] | select(.name == "add")')
got=$(jget '.result.tools[] | select(.name == "b__add") | del(.name)')
jq -ne --argjson w "$want" --argjson g "$got" '($w | del(.name)) == $g' \
    >/dev/null || fail "b__add's definition changed: $got"

# Routing.
call 2 a__echo '{"message":"to alpha"}'
expect_line "$(f_text 2 "to alpha")"
call 3 b__echo '{"message":"to beta"}'
expect_line "$(f_text 3 "to beta")"
call 4 a__env '{"name":"WHO"}'
expect_line "$(f_text 4 alpha)"
call 5 b__env '{"name":"WHO"}'
expect_line "$(f_text 5 beta)"
call 6 tool_1
expect_line "$(f_text 6 "tool_1 called")"
# a shared name, unprefixed, is not on the surface
call 7 echo '{"message":"to whom?"}'
expect_line "$(f_blocked 7)"
ping_ok 8

a=$(mock_calls "$alog" | awk '{print $2}' | tr '\n' ' ')
b=$(mock_calls "$blog" | awk '{print $2}' | tr '\n' ' ')
[ "$a" = "echo env tool_1 " ] || fail "upstream a received: $a"
[ "$b" = "echo env " ] || fail "upstream b received: $b"
jq -se 'map(select(.method == "tools/call" and .params.name == "echo")) |
    .[0].params.arguments == {"message":"to alpha"}' "$alog" >/dev/null ||
    fail "upstream a got the wrong echo arguments"
pass
