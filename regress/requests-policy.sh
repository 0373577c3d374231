#!/usr/bin/env bash
#
# regress/requests-policy.sh - policy entries for prompts and resources
# (bouncer-policy(5), PROMPTS AND RESOURCES) through the real binaries:
# prompt/NAME and resource/GLOB entries that forbid (never listed, always
# denied, another spelling too), confirm through elicitation (accept,
# decline, a cancelled request, and a client that cannot elicit), count
# max_calls, and judge a URI as a destination with exfiltrating: true
# and trusted_destinations (an approved URI is remembered).  bouncer-
# monitor -t accepts such entries, refuses a key that only means
# something for a tool, and warns about a glob that reaches other hosts.
# Nothing denied reaches the upstream; every decision has its row.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

DB=$BOUNCER_STATE_DIR/audit.db
BLOCKED='[bouncer blocked] '

write_script kb <<'JSON'
{"resources":[{"uri":"doc://public/a","name":"a"},
              {"uri":"doc://public/b","name":"b"},
              {"uri":"doc://private/key","name":"key"},
              {"uri":"https://wiki.corp.example/page","name":"wiki"},
              {"uri":"https://elsewhere.example/page","name":"elsewhere"}],
 "prompts":[{"name":"greet","arguments":[{"name":"who"}]},
            {"name":"wipe"},
            {"name":"send_report","arguments":[{"name":"to"}]}],
 "completion":{"completion":{"values":[]}}}
JSON
cat >"$TESTDIR/kb-policy.yaml" <<'YAML'
prompt/wipe: { forbidden: true }
prompt/greet: { confirm: true, max_calls: 4 }
kb:prompt/send_report:
  exfiltrating: true
  sink_params: [to]
  trusted_destinations: ["*@corp.example"]
resource/doc://private/*: { forbidden: true }
resource/doc://public/*: { max_calls: 2 }
resource/https://*:
  exfiltrating: true
  trusted_destinations: ["https://wiki.corp.example/*"]
YAML

# ---- -t ----------------------------------------------------------------
timeout 10 "$MONITOR" -t -P "$TESTDIR/kb-policy.yaml" -n kb -- "$SCRIPT" \
    -s "$TESTDIR/kb.json" </dev/null >"$TESTDIR/out" 2>"$TESTDIR/err" ||
    fail "-t refused the policy: $(cat "$TESTDIR/err")"
[ ! -s "$TESTDIR/err" ] || fail "-t warned: $(cat "$TESTDIR/err")"
printf 'prompt/greet:\n  write_params: [who]\n' >"$TESTDIR/bad.yaml"
timeout 10 "$MONITOR" -t -P "$TESTDIR/bad.yaml" </dev/null \
    >"$TESTDIR/out" 2>"$TESTDIR/err" && fail "-t passed write_params"
grep -q "bad.yaml:2: prompt/greet.write_params: applies to tools only" \
    "$TESTDIR/err" || fail "-t: $(cat "$TESTDIR/err")"
printf 'resource/https://*.corp.example/*: { confirm: true }\n' \
    >"$TESTDIR/lint.yaml"
timeout 10 "$MONITOR" -t -P "$TESTDIR/lint.yaml" </dev/null \
    >"$TESTDIR/out" 2>"$TESTDIR/err" && fail "-t passed a leaky glob"
grep -q "warning: .*lint.yaml:1: resource/https://\*.corp.example/\*: the '\*' in 'https://\*.corp.example/\*' is in the host part" \
    "$TESTDIR/err" || fail "-t: $(cat "$TESTDIR/err")"

# ---- a client that can elicit -----------------------------------------
start_script kb <"$TESTDIR/kb-policy.yaml"
handshake '{"elicitation":{}}'

id=1
blocked() {	# METHOD PARAMS WANT
	request "$id" "$1" "$2"
	expect_line "$(f_error "$id" -32602) and (.error.message |
	    startswith(\"$BLOCKED\") and contains($(jq -n --arg t "$3" '$t')))"
	id=$((id + 1))
}
allowed() {	# METHOD PARAMS
	request "$id" "$1" "$2"
	expect_line "$(f_result "$id")"
	id=$((id + 1))
}
# asked METHOD PARAMS WANT: the request makes bouncer ask a question
# that says WANT; its id is left in Q
asked() {
	request "$id" "$1" "$2"
	expect_line ".method == \"elicitation/create\" and (.id | type) ==
	    \"number\" and (.params.message | contains($(jq -n --arg t "$3" '$t')))"
	Q=$(jget .id)
}

# forbidden: never listed, always denied
request "$id" prompts/list '{}'
expect_line "$(f_result "$id") and ([.result.prompts[].name] == [\"greet\",\"send_report\"])"
id=$((id + 1))
request "$id" resources/list '{}'
expect_line "$(f_result "$id") and ([.result.resources[].uri] | index(\"doc://private/key\") == null and length == 4)"
id=$((id + 1))
blocked prompts/get '{"name":"wipe"}' "prompt 'wipe' is forbidden by the policy"
blocked resources/read '{"uri":"doc://private/key"}' \
    "resource 'doc://private/key' is forbidden by the policy"
blocked resources/subscribe '{"uri":"doc://private/key"}' "is forbidden"
blocked completion/complete '{"ref":{"type":"ref/prompt","name":"wipe"},"argument":{"name":"a","value":"b"}}' \
    "is forbidden"

# confirm: accept, decline, cancel, accept; then the budget is spent
asked prompts/get '{"name":"greet","arguments":{"who":"Ada"}}' \
    "prompt 'greet' needs a human's confirmation for every request"
answer "$Q" accept
expect_line "$(f_result "$id") and (.result.messages[0].content.text | contains(\"Ada\"))"
id=$((id + 1))
asked prompts/get '{"name":"greet","arguments":{"who":"Bob"}}' "greet"
answer "$Q" decline
expect_line "$(f_error "$id" -32602) and (.error.message | startswith(\"$BLOCKED\") and endswith(\"(the human declined)\"))"
id=$((id + 1))
asked prompts/get '{"name":"greet","arguments":{"who":"Cy"}}' "greet"
send "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":$id}}"
expect_line ".method == \"notifications/cancelled\" and .params.requestId == $Q"
answer "$Q" accept		# too late: forwards nothing
id=$((id + 1))
asked prompts/get '{"name":"greet","arguments":{"who":"Di"}}' "greet"
answer "$Q" accept
expect_line "$(f_result "$id")"
id=$((id + 1))
blocked prompts/get '{"name":"greet","arguments":{"who":"Ed"}}' \
    "call budget 4 for 'prompt/greet' exceeded"

# max_calls on a glob: all its URIs share it
allowed resources/read '{"uri":"doc://public/a"}'
allowed resources/read '{"uri":"doc://public/b"}'
blocked resources/read '{"uri":"doc://public/a"}' \
    "call budget 2 for 'resource/doc://public/*' exceeded"

# exfiltrating with trusted destinations: trusted passes, else ask
allowed resources/read '{"uri":"https://wiki.corp.example/page"}'
asked resources/read '{"uri":"https://elsewhere.example/page"}' \
    "destination uri='https://elsewhere.example/page' is not a vouched destination"
answer "$Q" accept
expect_line "$(f_result "$id") and .result.contents[0].text == \"read https://elsewhere.example/page\""
id=$((id + 1))
# remembered for this session, for the subscription too
allowed resources/read '{"uri":"https://elsewhere.example/page"}'
allowed resources/subscribe '{"uri":"https://elsewhere.example/page"}'
allowed prompts/get '{"name":"send_report","arguments":{"to":"alice@corp.example"}}'
asked prompts/get '{"name":"send_report","arguments":{"to":"eve@new.example"}}' \
    "destination to='eve@new.example' is not a vouched recipient"
answer "$Q" decline
expect_line "$(f_error "$id" -32602) and (.error.message | endswith(\"(the human declined)\"))"
id=$((id + 1))
ping_ok "$id"
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"

got=$(jq -r 'select(.method == "prompts/get") | "\(.params.name) \(.params.arguments | tojson)"' \
    "$TESTDIR/kb.log" | tr '\n' ';')
[ "$got" = 'greet {"who":"Ada"};greet {"who":"Di"};send_report {"to":"alice@corp.example"};' ] ||
    fail "prompts/get forwarded: $got"
got=$(jq -r 'select(.method == "resources/read" or .method == "resources/subscribe") | .params.uri' \
    "$TESTDIR/kb.log" | tr '\n' ' ')
[ "$got" = "doc://public/a doc://public/b https://wiki.corp.example/page https://elsewhere.example/page https://elsewhere.example/page https://elsewhere.example/page " ] ||
    fail "reads forwarded: $got"
"$AUDIT" -D "$DB" -V >/dev/null || fail "bouncer-audit -V: chain broken"
"$AUDIT" -D "$DB" -j -T prompts/get | jq -e -s '
    map(select(.sinks.name == "greet")) | map(.verdict) ==
    ["ask", "allow", "ask", "deny", "ask", "deny", "ask", "allow", "deny"]' \
    >/dev/null || fail "greet's rows: $("$AUDIT" -D "$DB" -j -T prompts/get)"
"$AUDIT" -D "$DB" -j -T prompts/get | jq -e -s '
    map(select(.verdict == "deny" and .sinks.name == "greet")) |
    map(.reason) | .[0] | endswith("(the human declined)")' >/dev/null ||
    fail "the declined ask has no deny row"
"$AUDIT" -D "$DB" -j -T prompts/get | jq -e -s '
    map(select(.verdict == "deny" and .sinks.name == "greet")) |
    .[1].reason | endswith("(the client cancelled the call)")' >/dev/null ||
    fail "the cancelled ask has no deny row"

# ---- a client that cannot elicit --------------------------------------
start_script kb <"$TESTDIR/kb-policy.yaml"
handshake '{}'
id=200
request "$id" prompts/list '{}'
expect_line "$(f_result "$id")"
id=$((id + 1))
request "$id" resources/list '{}'
expect_line "$(f_result "$id")"
id=$((id + 1))
blocked prompts/get '{"name":"greet","arguments":{"who":"Ada"}}' \
    "prompt 'greet' needs a human's confirmation for every request; no human could be asked (the client does not support elicitation)"
blocked resources/read '{"uri":"https://elsewhere.example/page"}' \
    "is not a vouched destination; no human could be asked"
allowed resources/read '{"uri":"https://wiki.corp.example/page"}'
ping_ok "$id"
pass
