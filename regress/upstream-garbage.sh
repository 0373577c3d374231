#!/usr/bin/env bash
#
# regress/upstream-garbage.sh - an upstream that writes a non-JSON line
# before every answer (as some servers print banners on stdout): each
# such line is logged and dropped, the session works, and the client
# never sees anything but JSON-RPC.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

start_monitor -- "$MOCK" -G
handshake
list_tools
has_tool echo || fail "tools not listed through a noisy upstream"
call 1 echo '{"message":"through the noise"}'
expect_line "$(f_text 1 "through the noise")"
call 2 add '{"a":20,"b":22}'
expect_line "$(f_text 2 42) and .result.structuredContent.sum == 42"
ping_ok 3
pass
