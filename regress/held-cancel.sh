#!/usr/bin/env bash
#
# regress/held-cancel.sh - calls made while a changed tool list is being
# re-read are held; one the client cancels meanwhile is dropped: never
# forwarded, never answered (MCP: no response to a cancelled request),
# while the others are decided and answered once the list is in.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

up=$TESTDIR/up.log
# -L: the upstream answers tools/list 1.5 s late after its rug pull
start_monitor -- "$MOCK" -L 1500 -l "$up"
handshake
call 1 rugpull
expect_line "$(f_text 1 "echo has a new description")"
call 2 add '{"a":1,"b":2}'
call 3 add '{"a":2,"b":2}'
send '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"changed my mind"}}'
seen3=
for i in 1 2 3; do
	expect_line '.id == 3 or .method == "notifications/tools/list_changed"' 5
	jcheck '.id == 2' && fail "the cancelled call was answered: $LINE"
	if jcheck '.id == 3'; then
		jcheck "$(f_text 3 4)" || fail "call 3: $LINE"
		seen3=1
		break
	fi
done
[ -n "$seen3" ] || fail "the held call 3 was never answered"
expect_silence 1
ping_ok 4
got=$(mock_calls "$up" | awk '{print $2}' | tr '\n' ' ')
[ "$got" = "rugpull add " ] ||
    fail "want only rugpull and call 3 forwarded; the upstream got: $got"
pass
