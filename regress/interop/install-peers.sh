#!/bin/sh
# install-peers.sh - install the pinned npm peers of the interop tests into
# the build tree, once per build, and write the stamp the tests read.
#
# usage: install-peers.sh SRCDIR BUILDDIR NODE NPM
#   SRCDIR    $(srcdir)/regress/interop (holds peers/ and inspector/)
#   BUILDDIR  $(abs_top_builddir)/regress/interop/build
#   NODE NPM  as found by configure; either empty means "skip"
#
# Writes BUILDDIR/stamp containing "ok" or "skip" as its last step, so a
# failed install leaves no stamp.  npm's output goes to BUILDDIR/npm.log.
# It must never touch the source tree, and never run npm outside BUILDDIR.

set -u

srcdir=$1
build=$2
node=$3
npm=$4
stamp="$build/stamp"
log="$build/npm.log"

# Generous bound on one npm run: a cold cache over a slow link.
npm_timeout=600

mkdir -p "$build" || exit 1
rm -f "$stamp"

if test -z "$node" || test -z "$npm"; then
	echo "interop: node or npm not found by configure;" \
	    "the interop tests will be skipped"
	echo skip >"$stamp"
	exit 0
fi

die() {
	echo "interop: $*; see $log" >&2
	if test -f "$log"; then
		echo "---- last lines of $log ----" >&2
		tail -n 20 "$log" >&2
	fi
	exit 1
}

rm -rf "$build/peers" "$build/inspector"
mkdir -p "$build/peers" "$build/inspector" || exit 1

# node resolves the SDK from the script's own folder upward, so the client
# scripts live next to their node_modules.
for f in package.json package-lock.json mcp-call.mjs mcp-bench.mjs \
    passthrough.mjs; do
	cp "$srcdir/peers/$f" "$build/peers/$f" || exit 1
done
for f in package.json package-lock.json; do
	cp "$srcdir/inspector/$f" "$build/inspector/$f" || exit 1
done
chmod u+w "$build/peers"/* "$build/inspector"/*

: >"$log"
echo "interop: npm ci of the MCP peers in $build/peers (log: $log)"
echo "==== npm ci (peers) ====" >>"$log"
(cd "$build/peers" &&
    timeout "$npm_timeout" "$npm" ci --no-audit --no-fund) >>"$log" 2>&1 ||
	die "npm ci of the MCP SDK and reference servers failed" \
	    "(is the npm registry reachable?)"

# npm ci rejects this lockfile (an optional dependency the registry answers
# with 404, see README); npm install accepts it and leaves it unchanged.
echo "interop: npm install of the MCP Inspector in $build/inspector"
echo "==== npm install (inspector) ====" >>"$log"
(cd "$build/inspector" &&
    timeout "$npm_timeout" "$npm" install --no-audit --no-fund) >>"$log" 2>&1 ||
	die "npm install of the MCP Inspector failed" \
	    "(is the npm registry reachable?)"

for f in \
    "$build/peers/node_modules/@modelcontextprotocol/sdk/package.json" \
    "$build/peers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js" \
    "$build/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js" \
    "$build/peers/node_modules/@civic/passthrough-mcp-server/package.json" \
    "$build/inspector/node_modules/.bin/inspector"; do
	test -e "$f" || die "npm finished but $f is missing"
done

echo ok >"$stamp"
exit 0
