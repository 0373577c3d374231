#!/usr/bin/env bash
#
# regress/held-approval.sh - a call a human approves while its upstream's
# changed tool list is being re-read waits for that list like any other
# call, and is decided against it: the rug pull the hold closes cannot
# reopen through a question answered in the window.  And an approved
# call that waits is still the client's to cancel.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

up=$TESTDIR/up.log
write_config "$TESTDIR/policy.yaml" <<'YAML'
echo:
  confirm: true
add:
  confirm: true
YAML
# -L: the upstream answers tools/list 2 s late after its rug pull
start_monitor -P "$TESTDIR/policy.yaml" -- "$MOCK" -L 2000 -l "$up"
handshake '{"elicitation":{}}'

call 1 echo '{"message":"before the pull"}'
expect_line '.method == "elicitation/create" and
    (.params.message | contains("echo"))'
q1=$(jget .id)
call 2 add '{"a":1,"b":2}'
expect_line '.method == "elicitation/create" and
    (.params.message | contains("add"))'
q2=$(jget .id)
# The pull: echo's description changes, list_changed is announced
# before rugpull's answer, and the new list comes 2 s later.
call 3 rugpull
expect_line "$(f_text 3 "echo has a new description")"
# Both are approved in the window.
answer "$q1" accept
answer "$q2" accept
# and the client gives up on add meanwhile
send '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}'
# Nothing is decided until the list is in.
for i in 1 2 3; do
	recv 1 || break
	jcheck '.id == 1 or .id == 2' && fail "decided inside the window: $LINE"
done
seen=
for i in 1 2 3 4; do
	expect_line '.id == 1 or .method == "notifications/tools/list_changed" or
	    .method == "notifications/cancelled"' 6
	jcheck '.id == 2' && fail "the cancelled call was answered: $LINE"
	if jcheck '.id == 1'; then
		jcheck "$(f_blocked 1) and (.result.content[0].text |
		    contains(\"changed since it was pinned\"))" ||
		    fail "the approved echo was not decided against the new list: $LINE"
		seen=1
		break
	fi
done
[ -n "$seen" ] || fail "the approved, held call 1 was never answered"
ping_ok 4
got=$(mock_calls "$up" | awk '{print $2}' | tr '\n' ' ')
[ "$got" = "rugpull " ] ||
    fail "want only rugpull forwarded; the upstream got: $got"
# The audit log: echo's approval ended as a pinning deny, add's as the
# client's cancel; neither has an allow row.
rows=$("$AUDIT" -D "$BOUNCER_STATE_DIR/audit.db" -j)
jq -e -s '
    ([.[] | select(.tool == "echo" or .tool == "add") |
      select(.verdict == "allow")] | length) == 0 and
    ([.[] | select(.tool == "echo" and .verdict == "deny" and
      .contract == "pinning")] | length) == 1 and
    ([.[] | select(.tool == "add" and .verdict == "deny" and
      (.reason | contains("the client cancelled")))] | length) == 1' \
    <<<"$rows" >/dev/null || fail "audit rows:
$rows"
pass
