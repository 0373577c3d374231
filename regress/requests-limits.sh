#!/usr/bin/env bash
#
# regress/requests-limits.sh - the bounds of what bouncer remembers from
# lists, at the limit and one past it (common/bounds.h): 256 resource
# templates per session (the 257th is not remembered, so its URIs are
# refused as unlisted), 256 declared arguments per prompt (the 257th is
# undeclared), and 8192 bytes of URI matched against a template (one
# more is refused as too long to match).  Nothing refused reaches the
# upstream.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

# 257 templates (long://{+rest}, then t1..t256) and a prompt of 257
# arguments (a0..a256)
jq -n '{templates: ([{uriTemplate: "long://{+rest}"}] +
    [range(1; 257) | {uriTemplate: "t\(.)://{id}"}]),
    prompts: [{name: "wide", arguments: [range(0; 257) |
    {name: "a\(.)"}]}]}' | write_script big
start_script big </dev/null
handshake '{}'

request 1 resources/templates/list '{}'
expect_line "$(f_result 1) and (.result.resourceTemplates | length) == 257"
request 2 prompts/list '{}'
expect_line "$(f_result 2) and (.result.prompts[0].arguments | length) == 257"

# the 256th template is remembered, the 257th is not
request 3 resources/read '{"uri":"t255://x"}'
expect_line "$(f_result 3) and .result.contents[0].text == \"read t255://x\""
request 4 resources/read '{"uri":"t256://x"}'
expect_line "$(f_error 4 -32602) and .error.message == \"[bouncer blocked] resource 't256://x' was not listed by any upstream (in a resource list, as the expansion of a resource template or as a link in a result)\""

# the 256th argument is declared, the 257th is not
request 5 prompts/get '{"name":"wide","arguments":{"a255":"v"}}'
expect_line "$(f_result 5)"
request 6 prompts/get '{"name":"wide","arguments":{"a256":"v"}}'
expect_line "$(f_error 6 -32602) and .error.message == \"[bouncer blocked] argument 'a256' is not one the prompt declares\""

# 8192 bytes of URI are matched, 8193 are not
u8192=long://$(head -c $((8192 - 7)) /dev/zero | tr '\0' a)
request 7 resources/read "{\"uri\":\"$u8192\"}"
expect_line "$(f_result 7) and (.result.contents[0].uri | length) == 8192"
request 8 resources/read "{\"uri\":\"${u8192}a\"}"
expect_line "$(f_error 8 -32602) and (.error.message | endswith(\"' is longer than 8192 bytes, too long to match against the resource templates\"))"
ping_ok 9
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"

got=$(jq -r 'select(.method == "resources/read") | .params.uri | length' \
    "$TESTDIR/big.log" | tr '\n' ' ')
[ "$got" = "8 8192 " ] || fail "reads forwarded (URI lengths): $got"
got=$(jq -r 'select(.method == "prompts/get") | .params.arguments | keys[]' \
    "$TESTDIR/big.log" | tr '\n' ' ')
[ "$got" = "a255 " ] || fail "gets forwarded: $got"
pass
