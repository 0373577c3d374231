#!/usr/bin/env bash
#
# regress/proxy-large.sh - messages larger than one IPC frame (64 KiB)
# cross bouncer whole in both directions (chunked frames), under the
# default max_message.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

start_monitor -- "$MOCK"
handshake

# upstream -> client: 300 000 bytes of text
call 1 big '{"bytes":300000}'
# the only answer in flight: read in blocks (test-lib.sh, recv)
RECV_BLOCKS=1 expect_line "$(f_result 1) and (.result.content[0].text | length) == 300000 and
    (.result.content[0].text | test(\"^x+\$\"))"

# client -> upstream -> client: a 200 000-byte argument echoed back
msg=$(head -c 200000 /dev/zero | tr '\0' y)
call 2 echo "{\"message\":\"$msg\"}"
RECV_BLOCKS=1 expect_line "$(f_result 2) and (.result.content[0].text | length) == 200000"
# exactly one frame's worth, and one byte more
for n in 65524 65536 65537; do
	call "$n" big "{\"bytes\":$n}"
	expect_line "$(f_result "$n") and (.result.content[0].text | length) == $n"
done
ping_ok 3
pass
