#!/usr/bin/env bash
#
# regress/held-two.sh - calls held while a changed tool list is re-read
# wait for their own upstream's list only: of two upstreams that both
# pulled the rug, the one whose list comes first has its held call
# decided then, while the other's call still waits for its own list
# (gate.c keeps one list of held calls for the session).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

# slow re-reads its list 4 s late, quick 0.5 s late
write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
upstreams:
  slow:
    command: "$MOCK"
    args: [-L, "4000", -l, "$TESTDIR/slow.log"]
    namespace: true
  quick:
    command: "$MOCK"
    args: [-L, "500", -l, "$TESTDIR/quick.log"]
    namespace: true
YAML
start_monitor -f "$TESTDIR/bouncer.yaml"
handshake
call 1 slow__rugpull
expect_line "$(f_text 1 "echo has a new description")"
call 2 quick__rugpull
expect_line "$(f_text 2 "echo has a new description")"
call 3 slow__add '{"a":1,"b":2}'
call 4 quick__add '{"a":2,"b":2}'
# quick's list comes first: its call is answered, slow's is not yet
for i in 1 2 3; do
	expect_line '.id == 3 or .id == 4 or
	    .method == "notifications/tools/list_changed"' 3
	jcheck '.id == 3' && fail "slow's held call was decided before its \
list came in: $LINE"
	jcheck '.id == 4' && break
done
jcheck "$(f_text 4 4)" || fail "quick's held call: $LINE"
[ -z "$(mock_calls "$TESTDIR/slow.log" | grep add)" ] ||
    fail "slow's held call was forwarded before its list came in"
# then slow's list, and its call
for i in 1 2 3; do
	expect_line '.id == 3 or .method == "notifications/tools/list_changed"' 8
	jcheck '.id == 3' && break
done
jcheck "$(f_text 3 3)" || fail "slow's held call: $LINE"
ping_ok 5
pass
