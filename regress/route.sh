#!/usr/bin/env bash
#
# regress/route.sh - resources and prompts of several upstreams: a list is
# paged through every upstream that declared the capability, under
# bouncer's own cursor; a read or a get goes to the upstream that listed
# the name; a name nobody listed is refused, not guessed, and so is a name
# two upstreams listed (from the moment bouncer relays the second list):
# both are bouncer's decisions, "[bouncer blocked]" errors; a bad cursor
# is a plain -32602.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
upstreams:
  a: { command: "$MOCK", args: [-P, -R, "mock://a/readme", -n, a] }
  b: { command: "$MOCK", args: [-P, -R, "mock://b/readme", -n, b] }
YAML
start_monitor -f "$TESTDIR/bouncer.yaml"
handshake '{}'

request 1 resources/list
expect_line "$(f_result 1) and .result.resources[0].uri == \"mock://a/readme\" and
    .result.nextCursor == \"bncr.1.\""
request 2 resources/list '{"cursor":"bncr.1."}'
expect_line "$(f_result 2) and .result.resources[0].uri == \"mock://b/readme\" and
    (.result | has(\"nextCursor\") | not)"
request 3 resources/read '{"uri":"mock://b/readme"}'
expect_line "$(f_result 3) and .result.contents[0].text == \"readme of mock://b/readme\""
request 4 resources/read '{"uri":"mock://a/readme"}'
expect_line "$(f_result 4) and .result.contents[0].text == \"readme of mock://a/readme\""
request 5 resources/read '{"uri":"mock://c/readme"}'
expect_line "$(f_error 5 -32602) and (.error.message | startswith(\"[bouncer blocked] resource 'mock://c/readme' was not listed\"))"
request 6 resources/list '{"cursor":"bncr.7."}'
expect_line "$(f_error 6 -32602) and .error.message == \"Invalid params: unknown cursor\""
request 7 resources/list '{"cursor":"garbage"}'
expect_line "$(f_error 7 -32602) and .error.message == \"Invalid params: unknown cursor\""
# prompts: a lists "greet" and answers the get; once b's page lists it
# too, it is left out of the lists and refused, never routed by order
request 8 prompts/list
expect_line "$(f_result 8) and .result.prompts[0].name == \"greet\" and
    .result.nextCursor == \"bncr.1.\""
request 9 prompts/get '{"name":"greet","arguments":{"who":"Ada"}}'
expect_line "$(f_result 9) and (.result.messages[0].content.text | contains(\"Ada\"))"
request 10 prompts/get '{"name":"nope"}'
expect_line "$(f_error 10 -32602)"
request 11 prompts/list '{"cursor":"bncr.1."}'
expect_line "$(f_result 11) and .result.prompts == []"
request 12 prompts/get '{"name":"greet","arguments":{"who":"Ada"}}'
expect_line "$(f_error 12 -32602) and .error.message == \"[bouncer blocked] prompt 'greet' is listed by upstreams a and b; bouncer routes it to neither\""
request 13 prompts/list
expect_line "$(f_result 13) and .result.prompts == []"
ping_ok 14
pass
