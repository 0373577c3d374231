#!/bin/sh
# sdk-resources.sh - resources, resource templates, prompts and completions
# of server-everything through bouncer, driven by the official SDK client.
#
# The same request lines run once directly against server-everything and
# once through bouncer-monitor.  What the server listed (its documents,
# its templates' expansions, the resource links and embedded resources of
# its results, its prompts) gets the same answer byte for byte, dynamic
# resources' creation times aside; what it never listed is answered by
# bouncer with a "[bouncer blocked]" error instead, and never reaches it.
# Every request through bouncer has its audit row, and the chain
# verifies.  This test must never assert a timing.

. "$top_srcdir/regress/interop/interop-lib.sh"
iop_init sdk-resources

DOC=demo://resource/static/document
DYN=demo://resource/dynamic

# One request per line; see peers/mcp-call.mjs.  Line numbers matter below:
# 1 and 14 are refused through bouncer (nothing listed them yet, or ever).
cat >"$T/requests.jsonl" <<EOF
{"op":"request","method":"resources/read","params":{"uri":"$DYN/text/2"}}
{"op":"request","method":"resources/list","params":{}}
{"op":"request","method":"resources/templates/list","params":{}}
{"op":"request","method":"prompts/list","params":{}}
{"op":"request","method":"resources/read","params":{"uri":"$DOC/architecture.md"}}
{"op":"request","method":"resources/read","params":{"uri":"$DYN/text/2"}}
{"op":"request","method":"resources/read","params":{"uri":"$DYN/text/7"}}
{"op":"request","method":"prompts/get","params":{"name":"simple-prompt"}}
{"op":"request","method":"prompts/get","params":{"name":"args-prompt","arguments":{"city":"Paris","state":"TX"}}}
{"op":"request","method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"completable-prompt"},"argument":{"name":"department","value":"E"}}}
{"op":"request","method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"$DYN/text/{resourceId}"},"argument":{"name":"resourceId","value":"1"}}}
{"op":"call","name":"get-resource-links","arguments":{"count":2}}
{"op":"request","method":"resources/read","params":{"uri":"$DYN/text/2"}}
{"op":"request","method":"resources/read","params":{"uri":"$DOC/../secrets.md"}}
{"op":"ping"}
EOF
NREQ=15

# run_client LABEL COMMAND...: the requests, LABEL.out/.err.
run_client() {
	_label=$1
	shift
	timeout "$IOP_TIMEOUT" "$NODE" "$MCP_CALL" \
	    --timeout "$IOP_REQ_TIMEOUT" --elicit none -- "$@" \
	    <"$T/requests.jsonl" >"$T/$_label.out" 2>"$T/$_label.err"
	_rc=$?
	test "$_rc" -eq 0 || iop_fail "$_label: mcp-call exited $_rc"
	_n=$(wc -l <"$T/$_label.out")
	test "$_n" -eq "$NREQ" ||
	    iop_fail "$_label: $_n answer lines for $NREQ requests"
}

run_client direct "$NODE" "$EV" stdio
run_client bouncer "$BOUNCER" -f "$BOUNCER_CONF" -- "$NODE" "$EV" stdio

# The reference run must itself be sane, or the comparison proves nothing.
iop_json "$T/direct.out" '
const [doc, dyn] = args;
if (lines[0].contents?.[0]?.uri !== dyn + "/text/2")
	fail("direct: the server does not answer an unlisted read");
if (!lines[1].resources?.some((r) => r.uri === doc + "/architecture.md"))
	fail("direct: no architecture.md in resources/list");
if (!lines[2].resourceTemplates?.some((t) =>
    t.uriTemplate === dyn + "/text/{resourceId}"))
	fail("direct: no text template");
if (!lines[3].prompts?.some((p) => p.name === "args-prompt"))
	fail("direct: no args-prompt");
if (lines[8].messages?.[0]?.content?.text !== "What\u0027s weather in Paris, TX?")
	fail("direct: args-prompt");
if (!lines[11].content?.some((c) => c.type === "resource_link"))
	fail("direct: get-resource-links returned no link");
' "$DOC" "$DYN" || iop_fail "the direct run is not as expected"

# Through bouncer: the unlisted reads are refused by bouncer itself.
iop_json "$T/bouncer.out" '
const [dyn] = args;
for (const i of [0, 13]) {
	const e = lines[i].error;
	if (e === undefined || e.code !== -32602 ||
	    !String(e.message).startsWith("[bouncer blocked] resource "))
		fail(`line ${i + 1} is not refused by bouncer: ` +
		    JSON.stringify(lines[i]));
}
if (lines[12].contents?.[0]?.uri !== dyn + "/text/2")
	fail("a template expansion is not read: " + JSON.stringify(lines[12]));
' "$DYN" || iop_fail "refusals through bouncer"

# Everything else byte for byte, creation times aside.
for l in direct bouncer; do
	sed -e 1d -e 14d -E \
	    -e 's/created at [0-9:]+ [AP]M/created at <time>/g' \
	    "$T/$l.out" >"$T/$l.cmp"
done
if ! cmp -s "$T/direct.cmp" "$T/bouncer.cmp"; then
	diff -u "$T/direct.cmp" "$T/bouncer.cmp" >"$T/answers.diff.out"
	iop_fail "answers through bouncer differ from direct" \
	    "(see $T/answers.diff.out)"
fi

# A row for every request through bouncer, before it was forwarded.
DB="$T/state/audit.db"
"$top_builddir/monitor/bouncer-audit" -D "$DB" -V >/dev/null ||
    iop_fail "bouncer-audit -V: the chain does not verify"
"$top_builddir/monitor/bouncer-audit" -D "$DB" -j >"$T/audit.jsonl" ||
    iop_fail "bouncer-audit -j failed"
iop_json "$T/audit.jsonl" '
const count = (tool, verdict) => lines.filter((r) => r.tool === tool &&
    r.verdict === verdict).length;
const want = [["resources/read", "allow", 4], ["resources/read", "deny", 2],
    ["resources/list", "allow", 1], ["resources/templates/list", "allow", 1],
    ["prompts/list", "allow", 1], ["prompts/get", "allow", 2],
    ["completion/complete", "allow", 2], ["get-resource-links", "allow", 1]];
for (const [tool, verdict, n] of want)
	if (count(tool, verdict) !== n)
		fail(`${count(tool, verdict)} ${verdict} rows for ${tool}, want ${n}`);
const denied = lines.filter((r) => r.tool === "resources/read" &&
    r.verdict === "deny");
if (!denied.every((r) => r.contract === "pinning" && r.upstream === null &&
    typeof r.sinks?.uri === "string"))
	fail("refused reads: " + JSON.stringify(denied));
if (!lines.filter((r) => r.tool === "prompts/get").every((r) =>
    r.upstream === "upstream" && typeof r.sinks?.name === "string"))
	fail("prompts/get rows do not name the prompt");
' || iop_fail "audit rows"

iop_done
