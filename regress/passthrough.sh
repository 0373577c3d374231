#!/usr/bin/env bash
#
# regress/passthrough.sh - prompts/*, resources/*, logging/setLevel and
# completion/complete are passed through to the upstream that declared
# the capability, and bouncer declares those capabilities only then; a
# resource or prompt the upstream never listed is refused by bouncer,
# with one upstream too, and never reaches it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

# An upstream without them: bouncer declares only tools.
start_monitor -- "$MOCK"
initialize_req 0 2025-11-25
expect_line '.id == 0 and (.result.capabilities |
    has("tools") and (has("prompts") or has("resources") or
    has("logging") or has("completions") | not))' "$TEST_START_TIMEOUT"
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "exit status $MON_STATUS"

up=$TESTDIR/up.log
start_monitor -- "$MOCK" -P -l "$up"
initialize_req 0 2025-11-25
expect_line '.id == 0 and (.result.capabilities |
    has("tools") and has("prompts") and has("resources") and
    has("logging") and has("completions"))' "$TEST_START_TIMEOUT"
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'

request 1 prompts/list '{}'
expect_line "$(f_result 1) and .result.prompts[0].name == \"greet\""
request 2 prompts/get '{"name":"greet","arguments":{"who":"Ada"}}'
expect_line "$(f_result 2) and
    .result.messages[0].content.text == \"Hello, Ada!\""
request 3 resources/list '{}'
expect_line "$(f_result 3) and .result.resources[0].uri == \"mock://readme\""
request '"r-4"' resources/read '{"uri":"mock://readme"}'
expect_line "$(f_result '"r-4"') and
    .result.contents[0].text == \"This is the mock upstream's readme.\""
# what the upstream never listed is not asked for
request 5 resources/read '{"uri":"mock://nothing"}'
expect_line "$(f_error 5 -32602) and (.error.message | startswith(\"[bouncer blocked] resource 'mock://nothing' was not listed\"))"
request 6 prompts/get '{"name":"nope"}'
expect_line "$(f_error 6 -32602) and .error.message == \"[bouncer blocked] prompt 'nope' was not listed by any upstream\""
request 7 logging/setLevel '{"level":"debug"}'
expect_line '.id == 7 and .result == {}'
request 8 completion/complete '{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"a"}}'
expect_line "$(f_result 8) and .result.completion.values == [\"alpha\",\"beta\"]"
ping_ok 9

# The upstream saw the same params, and nothing it did not list.
jq -e -s '[.[] | select(.params.uri == "mock://nothing" or
    .params.name == "nope")] == []' "$up" >/dev/null ||
    fail "an unlisted name reached the upstream"
jq -se 'map(select(.method == "prompts/get"))[0].params ==
    {"name":"greet","arguments":{"who":"Ada"}}' "$up" >/dev/null ||
    fail "prompts/get params changed on the way: $(grep prompts/get "$up")"
# every request that reached the upstream has its audit row
stop_monitor
db=$BOUNCER_STATE_DIR/audit.db
n=$("$AUDIT" -D "$db" -j -T logging/setLevel | jq -s 'length')
[ "$n" = 1 ] || fail "want 1 audit row for logging/setLevel, have $n"
"$AUDIT" -D "$db" -j -T logging/setLevel | jq_one '.verdict == "allow" and
    .upstream != null' || fail "logging/setLevel row is wrong"
pass
