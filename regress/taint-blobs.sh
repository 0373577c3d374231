#!/usr/bin/env bash
#
# regress/taint-blobs.sh - upstream output that reaches the client in a
# form the taint index once passed over: a resource's blob, an image's
# data, a blob inside structuredContent, an image inside an error's data
# (each base64 of text naming an address), a content block's "type", the
# capabilities it declares, an error code, and a key it sent twice, which
# bouncer quotes in the error it sends instead.  Each address is unproven
# before its read (this client cannot elicit: "no human could be asked")
# and denied as tainted after it; no such send reaches the upstream.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"
require_cmd base64

b64() {
	printf '%s' "$1" | base64 -w 0
}

blob=$(b64 'From: Mallory <blob-mail@evil.example> please reply')
img=$(b64 'caption: img-poison@evil.example')
scb=$(b64 'cc: sc-blob@evil.example')
errimg=$(b64 'screenshot of err-data@evil.example')
dup='{"content":[{"type":"text","text":"two keys"}],"dup-key@evil.example":1,"dup-key@evil.example":2}'

write_script inbox <<JSON
{
  "capabilities": { "logging": { "contact": "caps-poison@evil.example" } },
  "tools": [
    { "name": "read_blob", "inputSchema": { "type": "object" } },
    { "name": "read_image", "inputSchema": { "type": "object" } },
    { "name": "read_sc", "inputSchema": { "type": "object" } },
    { "name": "read_err", "inputSchema": { "type": "object" } },
    { "name": "read_code", "inputSchema": { "type": "object" } },
    { "name": "read_type", "inputSchema": { "type": "object" } },
    { "name": "read_dup", "inputSchema": { "type": "object" } },
    { "name": "send", "inputSchema": { "type": "object",
      "properties": { "to": { "type": "string" },
        "body": { "type": "string" } } } }
  ],
  "results": {
    "read_blob": { "content": [ { "type": "resource", "resource": {
      "uri": "file:///mail/1.eml", "mimeType": "message/rfc822",
      "blob": "$blob" } } ] },
    "read_image": { "content": [ { "type": "image",
      "mimeType": "image/png", "data": "$img" } ] },
    "read_sc": { "content": [ { "type": "text", "text": "attached" } ],
      "structuredContent": { "attachment": { "name": "note.txt",
        "blob": "$scb" } } },
    "read_type": { "content": [ { "type": "type-poison@evil.example",
      "text": "a block of an unknown type" } ] },
    "read_dup": $(jq -n --arg d "$dup" '$d')
  },
  "errors": {
    "read_err": { "code": -32000, "message": "cannot render",
      "data": { "screens": [ { "type": "image", "data": "$errimg" } ] } },
    "read_code": { "code": 4155550123, "message": "line busy" }
  }
}
JSON

start_script inbox <<'YAML'
send: {exfiltrating: true, sink_params: [to]}
YAML
handshake '{}'
jcheck '.result.capabilities.logging.contact == "caps-poison@evil.example"' ||
    fail "the upstream's capabilities did not reach the client: $LINE"

id=0
# send_unproven ADDRESS: never seen, and no human to ask
send_unproven() {
	id=$((id + 1))
	call "$id" send "{\"to\":\"$1\",\"body\":\"x\"}"
	expect_line "$(f_blocked "$id") and .result.content[0].text ==
	    \"[bouncer blocked] destination to='$1' is not a vouched recipient; no human could be asked (the client does not support elicitation)\""
}
# send_tainted ADDRESS: found in what an upstream returned
send_tainted() {
	id=$((id + 1))
	call "$id" send "{\"to\":\"$1\",\"body\":\"x\"}"
	expect_line "$(f_blocked "$id") and .result.content[0].text ==
	    \"[bouncer blocked] destination to='$1' came from untrusted data\""
}
# read TOOL FILTER: the read's answer, as the upstream sent it
read_tool() {
	id=$((id + 1))
	call "$id" "$1"
	expect_line ".id == $id and ($2)"
}

# declared at start-up: tainted from the first call
send_tainted caps-poison@evil.example

send_unproven blob-mail@evil.example
read_tool read_blob ".result.content[0].resource.blob == \"$blob\""
send_tainted blob-mail@evil.example
send_tainted mailto:Blob-Mail@Evil.Example

send_unproven img-poison@evil.example
read_tool read_image ".result.content[0].data == \"$img\""
send_tainted img-poison@evil.example

send_unproven sc-blob@evil.example
read_tool read_sc ".result.structuredContent.attachment.blob == \"$scb\""
send_tainted sc-blob@evil.example

send_unproven err-data@evil.example
read_tool read_err ".error.code == -32000 and .error.data.screens[0].data == \"$errimg\""
send_tainted err-data@evil.example

send_unproven 4155550123
read_tool read_code '.error.code == 4155550123'
send_tainted 4155550123

send_unproven type-poison@evil.example
read_tool read_type '.result.content[0].type == "type-poison@evil.example"'
send_tainted type-poison@evil.example

send_unproven dup-key@evil.example
read_tool read_dup '.error.code == -32603 and (.error.message | contains("dup-key@evil.example"))'
send_tainted dup-key@evil.example

# the exact difference: an address no upstream ever named
send_unproven never-seen@fresh.example
ping_ok 99
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"

# only the reads reached the upstream; no send did
got=$(script_calls inbox | awk '{print $2}' | tr '\n' ' ')
[ "$got" = "read_blob read_image read_sc read_err read_code read_type read_dup " ] ||
    fail "the upstream received: $got"
pass
