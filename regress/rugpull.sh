#!/usr/bin/env bash
#
# regress/rugpull.sh - an upstream changes a pinned tool's definition and
# announces notifications/tools/list_changed: bouncer re-reads the list,
# withholds the changed tool (not listed, calls blocked and never
# forwarded), keeps the unchanged ones, and tells the client.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

up=$TESTDIR/up.log
start_monitor -- "$MOCK" -l "$up"
handshake
list_tools
has_tool echo || fail "echo is not listed before the rug pull"
call 1 echo '{"message":"before"}'
expect_line "$(f_text 1 before)"
lists_before=$(mock_methods "$up" | grep -cx 'tools/list')

call 2 rugpull
expect_line "$(f_text 2 "echo has a new description")"
expect_line '.method == "notifications/tools/list_changed" and
    (has("id") | not)'

# bouncer re-read the upstream's tools
lists_after=$(mock_methods "$up" | grep -cx 'tools/list')
[ "$lists_after" -gt "$lists_before" ] ||
    fail "bouncer did not re-read the upstream's tools/list"

list_tools
has_tool echo && fail "the changed tool echo is still listed"
for t in add slow rugpull big env; do
	has_tool "$t" || fail "unchanged tool $t was withheld too"
done
# no definition bouncer lists carries the new description
request 3 tools/list
expect_line "$(f_result 3)"
jcheck '[.result.tools[].description] | any(test("ssh"))' &&
    fail "bouncer lists the rug-pulled description"

call 4 echo '{"message":"after"}'
expect_line "$(f_blocked 4)"
call 5 add '{"a":1,"b":1}'
expect_line "$(f_text 5 2)"
got=$(mock_calls "$up" | awk '{print $2}' | tr '\n' ' ')
[ "$got" = "echo rugpull add " ] ||
    fail "the withheld tool reached the upstream; it received: $got"
pass
