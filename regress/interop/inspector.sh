#!/bin/sh
# inspector.sh - the MCP Inspector CLI, a second independent client, works
# through bouncer wrapping server-filesystem.
#
# tools/list through bouncer must print the same JSON as tools/list straight
# from the server; a tools/call comes back with the server's answer; a tool
# that does not exist ends with the inspector's tool-error exit status 5.
# The inspector declares roots, so the server's roots/list also crosses
# bouncer to the client and back.  With server-everything, resources/list,
# resources/templates/list and prompts/list print what they print
# without bouncer; a one-shot resources/read or prompts/get, which lists
# nothing first, is refused by bouncer (exit 1, "[bouncer blocked]"): a
# name is known only from a list bouncer relayed in the same session.
# This test must never assert a timing.

. "$top_srcdir/regress/interop/interop-lib.sh"
iop_init inspector

# npx next to the configured npm, else the one on PATH.
NPX="$(dirname "${NPM:-npm}")/npx"
test -x "$NPX" || NPX=$(command -v npx) || iop_skip "npx not found"

ROOT="$T/root"
mkdir "$ROOT" || iop_error "cannot create $ROOT"
printf 'hello\n' >"$ROOT/hello.txt"

# inspect LABEL INSPECTOR-OPTIONS... -- COMMAND...: run the inspector CLI
# in its install folder; the exit status is left in $rc.  The options go
# first and `--` ends them, since bouncer's own command line has a `--`.
# The inspector gives the server only HOME, PATH, SHELL, TERM and its -e
# variables, so bouncer's are passed explicitly.
inspect() {
	_label=$1
	shift
	(cd "$INSPECTOR" &&
	    timeout "$IOP_TIMEOUT" "$NPX" --no-install inspector --cli -q \
	    --format json \
	    -e "BOUNCER_LIBEXEC=$BOUNCER_LIBEXEC" \
	    -e "BOUNCER_PACKS=$BOUNCER_PACKS" \
	    -e "BOUNCER_STATE_DIR=$BOUNCER_STATE_DIR" \
	    "$@") >"$T/$_label.out" 2>"$T/$_label.err"
	rc=$?
}

inspect list-direct --method tools/list -- "$NODE" "$FS" "$ROOT"
test "$rc" -eq 0 || iop_fail "tools/list direct: exit $rc"
inspect list-bouncer --method tools/list -- \
    "$BOUNCER" -f "$BOUNCER_CONF" -- "$NODE" "$FS" "$ROOT"
test "$rc" -eq 0 || iop_fail "tools/list through bouncer: exit $rc"
iop_json "$T/list-bouncer.out" '
const names = (lines[0]?.result?.tools ?? []).map((t) => t.name);
for (const want of ["list_allowed_directories", "read_text_file", "write_file"])
	if (!names.includes(want))
		fail(`${want} not listed: ${names.join(" ")}`);
' || iop_fail "tools/list through bouncer"
if ! cmp -s "$T/list-direct.out" "$T/list-bouncer.out"; then
	_why=
	iop_order_only "$T/list-direct.out" "$T/list-bouncer.out" 1 &&
	    _why=": same tools in another order"
	iop_fail "tools/list through bouncer differs from direct$_why"
fi

inspect call-bouncer \
    --method tools/call --tool-name list_allowed_directories -- \
    "$BOUNCER" -f "$BOUNCER_CONF" -- "$NODE" "$FS" "$ROOT"
test "$rc" -eq 0 || iop_fail "tools/call through bouncer: exit $rc"
iop_json "$T/call-bouncer.out" '
const r = lines[0]?.result;
if (r?.isError === true)
	fail("isError: true");
if (r?.content?.[0]?.text !== "Allowed directories:\n" + args[0])
	fail("unexpected result " + JSON.stringify(r));
if (r?.structuredContent?.content !== r.content[0].text)
	fail("structuredContent lost");
' "$ROOT" || iop_fail "tools/call through bouncer"

# The inspector lists tools before it calls one, so for an unlisted tool it
# stops with tool_not_found (5) on its own; a call it did send and bouncer
# blocked would end with tool_is_error (5).  Either way: exit 5, not a hang
# or a protocol error (1).
inspect unknown-bouncer --method tools/call --tool-name no_such_tool -- \
    "$BOUNCER" -f "$BOUNCER_CONF" -- "$NODE" "$FS" "$ROOT"
test "$rc" -eq 5 || iop_fail "unknown tool through bouncer: exit $rc, not 5"
grep -Eq '"code":"(tool_not_found|tool_is_error)"' "$T/unknown-bouncer.err" ||
    iop_fail "unknown tool through bouncer: no tool error on stderr"

for m in resources/list resources/templates/list prompts/list; do
	l=$(echo "$m" | tr / -)
	inspect "$l-direct" --method "$m" -- "$NODE" "$EV" stdio
	test "$rc" -eq 0 || iop_fail "$m direct: exit $rc"
	inspect "$l-bouncer" --method "$m" -- \
	    "$BOUNCER" -f "$BOUNCER_CONF" -- "$NODE" "$EV" stdio
	test "$rc" -eq 0 || iop_fail "$m through bouncer: exit $rc"
	cmp -s "$T/$l-direct.out" "$T/$l-bouncer.out" ||
	    iop_fail "$m through bouncer differs from direct"
done
inspect read-bouncer --method resources/read \
    --uri demo://resource/static/document/architecture.md -- \
    "$BOUNCER" -f "$BOUNCER_CONF" -- "$NODE" "$EV" stdio
test "$rc" -eq 1 || iop_fail "one-shot resources/read through bouncer: exit $rc"
grep -q '\[bouncer blocked\] resource .* was not listed' \
    "$T/read-bouncer.out" "$T/read-bouncer.err" ||
    iop_fail "one-shot resources/read: not bouncer's refusal"
inspect get-bouncer --method prompts/get --prompt-name simple-prompt -- \
    "$BOUNCER" -f "$BOUNCER_CONF" -- "$NODE" "$EV" stdio
test "$rc" -eq 1 || iop_fail "one-shot prompts/get through bouncer: exit $rc"

iop_done
