#!/usr/bin/env bash
#
# regress/constraints.sh - budgets, path confinement (lexical and through
# a symlink inside the allowed directory) and full-match patterns through
# the real binaries, with the reference design's reason strings.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

up=$TESTDIR/up.log
mkdir -p "$TESTDIR/allowed/sub" "$TESTDIR/secret"
ln -s ../secret "$TESTDIR/allowed/escape"
write_config "$TESTDIR/policy.yaml" <<YAML
echo:
  write_params: [message]
  allowed_path_prefixes: ["$TESTDIR/allowed"]
add:
  max_calls: 2
  arg_patterns: { a: "[0-9]+" }
YAML
start_monitor -P "$TESTDIR/policy.yaml" -- "$MOCK" -l "$up"
handshake '{}'

call 1 echo "{\"message\":\"$TESTDIR/allowed/sub/new.txt\"}"
expect_line "$(f_text 1 "$TESTDIR/allowed/sub/new.txt")"
call 2 echo "{\"message\":\"$TESTDIR/allowed/../secret/key\"}"
expect_line "$(f_blocked 2) and .result.content[0].text ==
    \"[bouncer blocked] message='$TESTDIR/allowed/../secret/key' outside allowed prefixes ['$TESTDIR/allowed']\""
call 3 echo "{\"message\":\"$TESTDIR/allowed/escape/key\"}"
expect_line "$(f_blocked 3) and (.result.content[0].text | contains(\"outside allowed prefixes\"))"
call 4 echo "{\"message\":\"$TESTDIR/allowedx/y\"}"
expect_line "$(f_blocked 4)"
call 5 add '{"a":12,"b":1}'
expect_line "$(f_result 5) and (.result.isError // false) == false"
call 6 add '{"a":1.5,"b":1}'
expect_line "$(f_blocked 6) and .result.content[0].text ==
    \"[bouncer blocked] a=1.5 does not match /[0-9]+/\""
# attempts count: call 6 spent the second slot
call 7 add '{"a":1,"b":1}'
expect_line "$(f_blocked 7) and .result.content[0].text ==
    \"[bouncer blocked] call budget 2 for 'add' exceeded\""
ping_ok 8
got=$(mock_calls "$up" | awk '{print $2}' | tr '\n' ' ')
[ "$got" = "echo add " ] || fail "the upstream received: $got"
pass
