#!/bin/sh
# sdk-filesystem.sh - the official MCP SDK client sees the same answers from
# server-filesystem whether bouncer wraps it or not.
#
# The same request lines run once directly against `node $FS ROOT` and once
# against `bouncer-monitor -- node $FS ROOT`; every answer but the handshake
# (where bouncer names itself) must be byte-identical.  ROOT is recreated
# from one template before each run, at the same path, because the server
# prints paths.  This test must never assert a timing.

. "$top_srcdir/regress/interop/interop-lib.sh"
iop_init sdk-filesystem

TEMPLATE="$T/template"
ROOT="$T/root"
HELLO='hello from the bouncer interop test'
WRITTEN='written through the SDK client'

mkdir "$TEMPLATE" || iop_error "cannot create $TEMPLATE"
printf '%s\n' "$HELLO" >"$TEMPLATE/hello.txt"

# One request per line; see peers/mcp-call.mjs.  Line numbers matter below.
cat >"$T/requests.jsonl" <<EOF
{"op":"info"}
{"op":"list"}
{"op":"call","name":"list_allowed_directories","arguments":{}}
{"op":"call","name":"read_text_file","arguments":{"path":"$ROOT/hello.txt"}}
{"op":"call","name":"write_file","arguments":{"path":"$ROOT/new.txt","content":"$WRITTEN\n"}}
{"op":"call","name":"read_text_file","arguments":{"path":"$ROOT/new.txt"}}
{"op":"call","name":"read_text_file","arguments":{"path":"/etc/passwd"}}
{"op":"call","name":"get_file_info","arguments":{"path":"$ROOT/hello.txt"}}
EOF
NREQ=8

# run_client LABEL COMMAND...: a fresh ROOT, the requests, LABEL.out/.err.
run_client() {
	_label=$1
	shift
	rm -rf "$ROOT"
	cp -R "$TEMPLATE" "$ROOT" || iop_error "cannot copy $TEMPLATE"
	timeout "$IOP_TIMEOUT" "$NODE" "$MCP_CALL" \
	    --timeout "$IOP_REQ_TIMEOUT" -- "$@" \
	    <"$T/requests.jsonl" >"$T/$_label.out" 2>"$T/$_label.err"
	_rc=$?
	test "$_rc" -eq 0 || iop_fail "$_label: mcp-call exited $_rc"
	_n=$(wc -l <"$T/$_label.out")
	test "$_n" -eq "$NREQ" ||
	    iop_fail "$_label: $_n answer lines for $NREQ requests"
}

run_client direct "$NODE" "$FS" "$ROOT"
run_client bouncer "$BOUNCER" -f "$BOUNCER_CONF" -- "$NODE" "$FS" "$ROOT"

# The reference run must itself be sane, or the comparison proves nothing.
iop_json "$T/direct.out" '
const [root, hello, written] = args;
const text = (r) => (r.content ?? []).map((c) => c.text).join("");
if (lines[1].tools?.length !== 14)
	fail("direct: expected 14 tools");
if (text(lines[2]) !== "Allowed directories:\n" + root)
	fail("direct: list_allowed_directories");
if (text(lines[3]) !== hello + "\n")
	fail("direct: read hello.txt");
if (text(lines[5]) !== written + "\n")
	fail("direct: read back new.txt");
if (lines[6].isError !== true || !text(lines[6]).includes("Access denied"))
	fail("direct: /etc/passwd was not denied by the server");
if (!/isFile: true/.test(text(lines[7])))
	fail("direct: get_file_info");
' "$ROOT" "$HELLO" "$WRITTEN" || iop_fail "the direct run is not as expected"

# The handshake: same protocol version, bouncer's own serverInfo, tools.
sed -n 1p "$T/direct.out" >"$T/info.jsonl"
sed -n 1p "$T/bouncer.out" >>"$T/info.jsonl"
iop_json "$T/info.jsonl" '
const [d, b] = lines;
if (typeof d.protocolVersion !== "string")
	fail("direct: no protocolVersion");
if (b.protocolVersion !== d.protocolVersion)
	fail(`protocolVersion ${b.protocolVersion} != ${d.protocolVersion}`);
if (b.serverInfo?.name !== "bouncer")
	fail("serverInfo is not bouncer: " + JSON.stringify(b.serverInfo));
if (b.capabilities?.tools === null || typeof b.capabilities?.tools !== "object")
	fail("no tools capability: " + JSON.stringify(b.capabilities));
' || iop_fail "handshake through bouncer differs"

# Every other answer byte for byte, file times aside (get_file_info reports
# the copy's birth and access times, which differ between the two runs).
for l in direct bouncer; do
	sed -e 1d -E \
	    -e 's/(created|modified|accessed): [^\\"]*/\1: <time>/g' \
	    "$T/$l.out" >"$T/$l.cmp"
done
if ! cmp -s "$T/direct.cmp" "$T/bouncer.cmp"; then
	diff -u "$T/direct.cmp" "$T/bouncer.cmp" >"$T/answers.diff.out"
	_why=
	iop_order_only "$T/direct.out" "$T/bouncer.out" 2 &&
	    _why=" (tools/list: same tools in another order)"
	iop_fail "answers through bouncer differ from direct$_why" \
	    "(see $T/answers.diff.out)"
fi

# Bouncer's own answer for a tool that is not on the pinned surface: the
# documented blocked result, and nothing reaches the server.
printf '%s\n' \
    '{"op":"call","name":"no_such_tool","arguments":{}}' \
    '{"op":"ping"}' >"$T/blocked.jsonl"
rm -rf "$ROOT"
cp -R "$TEMPLATE" "$ROOT" || iop_error "cannot copy $TEMPLATE"
timeout "$IOP_TIMEOUT" "$NODE" "$MCP_CALL" --timeout "$IOP_REQ_TIMEOUT" -- \
    "$BOUNCER" -f "$BOUNCER_CONF" -- "$NODE" "$FS" "$ROOT" \
    <"$T/blocked.jsonl" >"$T/blocked.out" 2>"$T/blocked.err" ||
	iop_fail "blocked: mcp-call exited $?"
iop_json "$T/blocked.out" '
if (lines.length !== 2)
	fail(`${lines.length} answer lines for 2 requests`);
const r = lines[0];
if (r.isError !== true)
	fail("unknown tool not answered with isError: true");
if (!String(r.content?.[0]?.text).startsWith("[bouncer blocked]"))
	fail("unknown tool not answered with [bouncer blocked]");
if (JSON.stringify(lines[1]) !== "{}")
	fail("ping after the blocked call");
' || iop_fail "unknown tool through bouncer"

iop_done
