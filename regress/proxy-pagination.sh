#!/usr/bin/env bash
#
# regress/proxy-pagination.sh - bouncer reads every page of an upstream's
# tools/list at start-up, pins it, and serves the surface to the client
# in its own pages (BNC_TOOLS_PAGE = 128) with opaque cursors; a bad
# cursor is -32602.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

FILLERS=300
PAGE=7
total=$(mock_tools -t "$FILLERS" | jq length)
[ "$total" -gt "$FILLERS" ] || fail "cannot ask the mock for its tools"
upstream_pages=$(((total + PAGE - 1) / PAGE))

up=$TESTDIR/up.log
start_monitor -- "$MOCK" -t "$FILLERS" -p "$PAGE" -l "$up"
handshake

# Pinning read all pages of the upstream before answering initialize.
n=$(mock_methods "$up" | grep -cx 'tools/list')
[ "$n" = "$upstream_pages" ] ||
    fail "the upstream got $n tools/list requests, want $upstream_pages"
jq -se 'map(select(.method == "tools/list") | .params.cursor // null) |
    (.[0] == null) and (.[1:] | all(type == "string"))' "$up" >/dev/null ||
    fail "bouncer did not follow the upstream's nextCursor"

# The first page is full, with a cursor.
request 1 tools/list
expect_line "$(f_result 1) and (.result.tools | length) == 128 and
    (.result.nextCursor | type) == \"string\""

# Walking all pages gives every tool exactly once.
list_tools
n=$(wc -l <"$TESTDIR/tools.txt")
[ "$n" = "$total" ] || fail "bouncer listed $n tools, want $total"
u=$(sort -u "$TESTDIR/tools.txt" | wc -l)
[ "$u" = "$total" ] || fail "bouncer listed $((n - u)) tools twice"
for t in echo add tool_0 tool_150 "tool_$((FILLERS - 1))"; do
	has_tool "$t" || fail "tool $t missing from bouncer's list"
done

# The client's paging is served from the pins: nothing more upstream.
n=$(mock_methods "$up" | grep -cx 'tools/list')
[ "$n" = "$upstream_pages" ] ||
    fail "client paging reached the upstream ($n tools/list requests)"

# The last filler is callable through bouncer.
call 2 "tool_$((FILLERS - 1))"
expect_line "$(f_text 2 "tool_$((FILLERS - 1)) called")"

# Bad cursors: garbage, wrong type, the upstream's own cursor format.
request 3 tools/list '{"cursor":"this-is-not-a-cursor"}'
expect_line "$(f_error 3 -32602)"
request 4 tools/list '{"cursor":42}'
expect_line "$(f_error 4 -32602)"
request 5 tools/list '{"cursor":"mock-cursor-7"}'
expect_line "$(f_error 5 -32602)"
request 6 tools/list '{"cursor":""}'
expect_line "$(f_error 6 -32602)"
ping_ok 7
pass
