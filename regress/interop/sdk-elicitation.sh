#!/bin/sh
# sdk-elicitation.sh - an elicitation/create from server-everything crosses
# bouncer to the official SDK client, and the client's answer crosses back.
#
# The server asks its form elicitation while a tools/call is in flight, with
# a request id of its own that collides with the client's; bouncer relays it
# under an id from its own space and returns the answer under the server's
# id.  Accept: the tool result must carry the values the client filled in.
# Decline: the tool result must say so.  This test must never assert a
# timing.

. "$top_srcdir/regress/interop/interop-lib.sh"
iop_init sdk-elicitation

printf '%s\n' \
    '{"op":"call","name":"trigger-elicitation-request","arguments":{}}' \
    '{"op":"ping"}' >"$T/requests.jsonl"

# run_elicit ACTION: one session through bouncer answering with ACTION.
run_elicit() {
	_a=$1
	timeout "$IOP_TIMEOUT" "$NODE" "$MCP_CALL" \
	    --timeout "$IOP_REQ_TIMEOUT" \
	    --elicit "$_a" --elicit-log "$T/elicit-$_a.jsonl" -- \
	    "$BOUNCER" -f "$BOUNCER_CONF" -- "$NODE" "$EV" stdio \
	    <"$T/requests.jsonl" >"$T/$_a.out" 2>"$T/$_a.err"
	_rc=$?
	test "$_rc" -eq 0 || iop_fail "$_a: mcp-call exited $_rc"
	test -s "$T/elicit-$_a.jsonl" ||
	    iop_fail "$_a: no elicitation reached the client"
	iop_json "$T/elicit-$_a.jsonl" '
if (lines.length !== 1)
	fail(`${lines.length} elicitations logged, expected 1`);
if (lines[0].method !== "elicitation/create")
	fail("logged method " + lines[0].method);
if (typeof lines[0].params?.requestedSchema !== "object")
	fail("form elicitation without requestedSchema");
' || iop_fail "$_a: elicitation as the client saw it"
}

run_elicit accept
# The answer's values must come back in the tool result, so they went back
# to the server under its own request id.
iop_json "$T/accept.out" '
const fs = require("fs");
const log = JSON.parse(fs.readFileSync(args[0], "utf8").split("\n")[0]);
const sent = log.answer.content;
if (lines.length !== 2)
	fail(`${lines.length} answer lines for 2 requests`);
const r = lines[0];
if (r.error !== undefined || r.isError === true)
	fail("tool call failed: " + JSON.stringify(r));
const text = (r.content ?? []).map((c) => c.text).join("\n");
if (!text.includes("User provided the requested information"))
	fail("result does not report an accepted form");
for (const want of [`Name: ${sent.name}`, `Favorite Integer: ${sent.integer}`,
    `"action": "accept"`])
	if (!text.includes(want))
		fail(`result does not mention ${want}`);
if (JSON.stringify(lines[1]) !== "{}")
	fail("ping after the call");
' "$T/elicit-accept.jsonl" || iop_fail "accept: tool result"

run_elicit decline
iop_json "$T/decline.out" '
if (lines.length !== 2)
	fail(`${lines.length} answer lines for 2 requests`);
const r = lines[0];
if (r.error !== undefined || r.isError === true)
	fail("tool call failed: " + JSON.stringify(r));
const text = (r.content ?? []).map((c) => c.text).join("\n");
if (!text.includes("declined") || !text.includes(`"action": "decline"`))
	fail("result does not report a declined form: " + text);
if (text.includes("User provided"))
	fail("declined form reported as provided");
' || iop_fail "decline: tool result"

iop_done
