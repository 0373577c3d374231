# interop-lib.sh - common set-up of the interop tests, sourced by each one.
#
# Finds the npm peers that install-peers.sh put in the build tree, makes a
# per-test scratch directory (removed on success, kept with every log on
# failure), writes a bouncer.yaml confined to it, and offers fail/skip.
# It must never read ../shared or the user's own bouncer configuration, and
# it starts nothing that talks to anything but its own children.

: "${top_builddir:?top_builddir unset: run this test with make check}"
: "${top_srcdir:?top_srcdir unset: run this test with make check}"

# Every step of a test runs under this bound (seconds).
IOP_TIMEOUT=60
# Per-request bound inside the SDK client (ms), below IOP_TIMEOUT so a stuck
# request prints an error line instead of the client being killed.
IOP_REQ_TIMEOUT=30000

IOP_BUILD="$top_builddir/regress/interop/build"
IOP_STAMP="$IOP_BUILD/stamp"
PEERS="$IOP_BUILD/peers"
INSPECTOR="$IOP_BUILD/inspector"
FS="$PEERS/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
EV="$PEERS/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
MCP_CALL="$PEERS/mcp-call.mjs"
BOUNCER="$top_builddir/monitor/bouncer-monitor"

IOP_NAME=
T=

iop_fail() {
	echo "FAIL: $IOP_NAME: $*" >&2
	if test -n "$T"; then
		echo "logs kept in $T" >&2
		for f in "$T"/*.err "$T"/*.out; do
			test -s "$f" || continue
			echo "---- $f ----" >&2
			tail -n 40 "$f" >&2
		done
	fi
	exit 1
}

iop_skip() {
	echo "SKIP: $IOP_NAME: $*" >&2
	exit 77
}

# Hard error (99): the harness, not bouncer, is broken.
iop_error() {
	echo "ERROR: $IOP_NAME: $*" >&2
	exit 99
}

# iop_init NAME: check the install, make $T, write $T/bouncer.yaml.
iop_init() {
	IOP_NAME=$1

	test -f "$IOP_STAMP" ||
	    iop_error "$IOP_STAMP missing: run the tests with make check"
	case $(cat "$IOP_STAMP") in
	ok)	;;
	skip)	iop_skip "node or npm not found by configure" ;;
	*)	iop_error "bad stamp $IOP_STAMP" ;;
	esac
	test -n "${NODE:-}" || iop_skip "NODE unset"
	test -x "$BOUNCER" || iop_error "$BOUNCER not built"
	test -n "${BOUNCER_LIBEXEC:-}" || iop_error "BOUNCER_LIBEXEC unset"
	command -v timeout >/dev/null 2>&1 || iop_skip "timeout(1) not found"

	T="$top_builddir/regress/interop/$IOP_NAME.dir"
	rm -rf "$T"
	mkdir -p "$T" || iop_error "cannot create $T"
	# The servers print resolved paths; compare against the same spelling.
	T=$(cd "$T" && pwd -P) || iop_error "cannot resolve $T"

	mkdir -m 700 "$T/state" || iop_error "cannot create $T/state"
	# An explicit -f keeps a developer's own ~/.config/bouncer or
	# /etc/bouncer out of the test.
	BOUNCER_CONF="$T/bouncer.yaml"
	printf 'state_dir: "%s"\n' "$T/state" >"$BOUNCER_CONF"
	BOUNCER_STATE_DIR="$T/state"
	XDG_CONFIG_HOME="$T/xdg-config"
	XDG_STATE_HOME="$T/xdg-state"
	export BOUNCER_STATE_DIR XDG_CONFIG_HOME XDG_STATE_HOME
	mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME"
	unset BOUNCER_AGENT_TOKEN
}

# iop_done: the test passed; drop its scratch directory.
iop_done() {
	rm -rf "$T"
	echo "PASS: $IOP_NAME"
	exit 0
}

# iop_json FILE SCRIPT: run a node check over FILE's lines.  SCRIPT sees
# `lines` (the file's non-empty lines, parsed) and `fail(msg)`; extra
# arguments are in `args`.  Exit 0 when SCRIPT returns normally.
iop_json() {
	_f=$1
	_s=$2
	shift 2
	timeout "$IOP_TIMEOUT" "$NODE" -e '
const fs = require("fs");
const [file, script, ...args] = process.argv.slice(1);
function fail(msg) {
	process.stderr.write("check failed: " + msg + "\n");
	process.exit(1);
}
let lines;
try {
	lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "")
	    .map((l) => JSON.parse(l));
} catch (e) {
	fail(file + ": " + e.message);
}
new Function("lines", "fail", "args", script)(lines, fail, args);
' "$_f" "$_s" "$@"
}

# iop_order_only A B N: exit 0 when line N (from 1) of files A and B list
# the same tools ({"tools":[...]} or {"result":{"tools":[...]}}) in a
# different order; used to make a failure message precise.
iop_order_only() {
	timeout "$IOP_TIMEOUT" "$NODE" -e '
const fs = require("fs");
const [a, b, n] = process.argv.slice(1);
const tools = (f) => {
	const o = JSON.parse(fs.readFileSync(f, "utf8").split("\n")[n - 1]);
	return o.tools ?? o.result.tools;
};
const key = (t) => t.map((x) => JSON.stringify(x)).sort().join("\n");
const ta = tools(a), tb = tools(b);
process.exit(JSON.stringify(ta) !== JSON.stringify(tb) &&
    key(ta) === key(tb) ? 0 : 1);
' "$1" "$2" "$3" 2>/dev/null
}
