#!/usr/bin/env bash
#
# regress/consent-race.sh - two monitor processes on one state
# directory race for each of 1000 consent tokens (DESIGN 7: exactly one
# wins).  Both sessions get the same 1000 calls of a consent-gated tool,
# each with its own token, pipelined (one in order, the other in
# reverse, so that they contend where they meet), and run at once: for
# every token exactly one session forwards its call and the other
# refuses it as replayed; the upstreams together get 1000 calls.
# (check_audit races two processes for every single nonce.)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

ISSUE=$top_builddir/monitor/bouncer-issue-consent
N=1000
mkdir -m 700 "$TESTDIR/consent.d"
"$ISSUE" -G -k "$TESTDIR/admin.key" 2>/dev/null || fail "-G failed"
cp "$TESTDIR/admin.key.pub" "$TESTDIR/consent.d/"
S='{"type":"object","properties":{"chan":{"type":"string"},"text":{"type":"string"}}}'
for u in a b; do
	write_script "$u" <<JSON
{"tools":[{"name":"post","inputSchema":$S}]}
JSON
	write_config "$TESTDIR/$u.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
policy: $TESTDIR/policy.yaml
consent: { keys: $TESTDIR/consent.d }
upstreams:
  up: { command: "$SCRIPT", args: [-s, "$TESTDIR/$u.json", -l, "$TESTDIR/$u.log"] }
YAML
done
cat >"$TESTDIR/policy.yaml" <<'YAML'
post: { consent: { text: text, target: [chan] } }
YAML

# the same calls for both: N calls, each with its own token (the
# implicit agent "-": no registry); a sends them in order, b in reverse,
# so that the two meet and contend, whichever starts first
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"race","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    >"$TESTDIR/head"
for i in $(seq "$N"); do
	tok=$("$ISSUE" -y -k "$TESTDIR/admin.key" -f "$TESTDIR/a.yaml" \
	    -a - -T post -t chan=ops -m "note $i" 2>/dev/null) ||
	    fail "signing token $i failed"
	printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"post","arguments":{"chan":"ops","text":"note %d","consent_token":"%s"}}}\n' \
	    "$i" "$i" "$tok"
done >"$TESTDIR/calls"
cat "$TESTDIR/head" "$TESTDIR/calls" >"$TESTDIR/a.requests"
cat "$TESTDIR/head" - <<<"$(tac "$TESTDIR/calls")" >"$TESTDIR/b.requests"

# feed U: the requests, then the client's input stays open until its
# session has answered all of them (an EOF right away would start the
# session's end while the upstream still works through the calls, and
# its grace may run out on a loaded machine)
feed() {
	local i=0

	cat "$TESTDIR/$1.requests"
	while [ "$(wc -l <"$TESTDIR/$1.out")" -lt $((N + 1)) ]; do
		i=$((i + 1))
		[ "$i" -lt 1200 ] || break	# 120 s: the test fails below
		sleep 0.1
	done
}
# both at once, racing on every nonce
: >"$TESTDIR/a.out"
: >"$TESTDIR/b.out"
feed a | "$MONITOR" -f "$TESTDIR/a.yaml" >"$TESTDIR/a.out" 2>>"$MONLOG" &
pa=$!
feed b | "$MONITOR" -f "$TESTDIR/b.yaml" >"$TESTDIR/b.out" 2>>"$MONLOG" &
pb=$!
wait "$pa" || fail "monitor a exited $?"
wait "$pb" || fail "monitor b exited $?"
[ "$(wc -l <"$TESTDIR/a.out")" = $((N + 1)) ] &&
    [ "$(wc -l <"$TESTDIR/b.out")" = $((N + 1)) ] ||
    fail "not every call was answered: $(wc -l <"$TESTDIR/a.out") and \
$(wc -l <"$TESTDIR/b.out") lines for $((N + 1)) requests"

won() {	# OUT: the ids its session forwarded
	jq -r 'select(.id != 0 and (.result.isError | not) and .result != null)
	    | .id' "$1" | sort -n
}
lost() {	# OUT: the ids it refused as replayed
	jq -r 'select(.result.isError == true and (.result.content[0].text |
	    contains("replayed"))) | .id' "$1" | sort -n
}
won "$TESTDIR/a.out" >"$TESTDIR/a.won"
won "$TESTDIR/b.out" >"$TESTDIR/b.won"
lost "$TESTDIR/a.out" >"$TESTDIR/a.lost"
lost "$TESTDIR/b.out" >"$TESTDIR/b.lost"
wa=$(wc -l <"$TESTDIR/a.won")
wb=$(wc -l <"$TESTDIR/b.won")
log "of $N tokens, session a won $wa and session b $wb"
# every token won exactly once, and lost by the other
[ "$(sort -n "$TESTDIR/a.won" "$TESTDIR/b.won" | uniq | wc -l)" = "$N" ] ||
    fail "not every token was won once"
[ $((wa + wb)) = "$N" ] || fail "$wa + $wb wins for $N tokens"
cmp -s "$TESTDIR/a.won" "$TESTDIR/b.lost" ||
    fail "a token a won was not refused as replayed by b"
cmp -s "$TESTDIR/b.won" "$TESTDIR/a.lost" ||
    fail "a token b won was not refused as replayed by a"
n=$(( $(grep -c '"tools/call"' "$TESTDIR/a.log") +
    $(grep -c '"tools/call"' "$TESTDIR/b.log") ))
[ "$n" = "$N" ] || fail "the upstreams got $n calls for $N tokens"
pass
