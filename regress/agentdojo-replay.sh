#!/usr/bin/env bash
#
# regress/agentdojo-replay.sh - the AgentDojo replay harness works (not
# its figures): bench/agentdojo/replay drives the real bouncer-monitor
# over a few traces; a verdict is what bouncer did (the upstream answered:
# allow; bouncer asked: ask; blocked without asking: deny), each allowed
# call reaches the fake upstream with the recorded arguments, the audit
# log agrees, score_replay.py computes the same figures from the
# verdicts, and a broken replay fails instead of printing figures.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

SRC=${top_srcdir:-$(dirname "$0")/..}
REPLAY=$top_builddir/bench/agentdojo/replay
UPSTREAM=$top_builddir/bench/agentdojo/upstream
DATA=$SRC/bench/agentdojo/data
[ -x "$REPLAY" ] && [ -x "$UPSTREAM" ] ||
    fail "bench/agentdojo/replay and upstream are not built"

# A few traces, laid out as the data is: 3 benign and 3 attack traces of
# banking, one of each of the other suites.
for s in banking slack travel workspace; do
	mkdir -p "$TESTDIR/data/$s"
	cp "$DATA/$s/tools.json" "$TESTDIR/data/$s/"
	n=1
	[ "$s" = banking ] && n=3
	head -n "$n" "$DATA/$s/benign.jsonl" >"$TESTDIR/data/$s/benign.jsonl"
	head -n "$n" "$DATA/$s/attack_dev.jsonl" \
	    >"$TESTDIR/data/$s/attack_dev.jsonl"
done

# 1. The shipped policies, through bench/agentdojo/run.sh: every policy
# loads, a figure for each suite, and the scorer's check (when python3
# is there) passes.
sh "$SRC/bench/agentdojo/run.sh" "$TESTDIR/data" >"$TESTDIR/run.out" \
    2>"$TESTDIR/run.err" ||
    fail "run.sh failed: $(tail -n 5 "$TESTDIR/run.err")"
grep '^{' "$TESTDIR/run.out" | tail -n 1 >"$TESTDIR/figures.json"
jq_one '.overall.attack.n_traces == 6 and .overall.benign.n_traces == 6 and
    .banking.benign.n_traces == 3 and .slack.attack.n_traces == 1 and
    ._run.traces == 12' <"$TESTDIR/figures.json" ||
    fail "run.sh's figures: $(cat "$TESTDIR/figures.json")"
if command -v python3 >/dev/null 2>&1; then
	grep -qx 'agentdojo: score_replay.py gives the same figures' \
	    "$TESTDIR/run.out" || fail "the scorer's check did not run"
fi

# 2. Verdicts are what bouncer did.  Under a policy where read_file
# asks, get_most_recent_transactions has no budget and every other tool
# is allowed, each call's verdict is known in advance.
mkdir "$TESTDIR/pol" "$TESTDIR/rstate"
jq -r '.tools[].name | "\(.): " +
    if . == "read_file" then "{ confirm: true }"
    elif . == "get_most_recent_transactions" then "{ max_calls: 0 }"
    else "{}" end' "$DATA/banking/tools.json" >"$TESTDIR/pol/banking.yaml"
cat "$TESTDIR/data/banking/benign.jsonl" \
    "$TESTDIR/data/banking/attack_dev.jsonl" >"$TESTDIR/six.jsonl"
jq -c '{trace_id, verdicts: [.calls[].tool |
    if . == "read_file" then "ask"
    elif . == "get_most_recent_transactions" then "deny"
    else "allow" end]}' "$TESTDIR/six.jsonl" >"$TESTDIR/want.jsonl"
grep -q '"ask"' "$TESTDIR/want.jsonl" &&
    grep -q '"deny"' "$TESTDIR/want.jsonl" &&
    grep -q '"allow"' "$TESTDIR/want.jsonl" ||
    fail "the chosen traces do not exercise allow, ask and deny"
cp "$TESTDIR/data/banking/tools.json" "$TESTDIR/tools.json"
"$REPLAY" --policy-dir "$TESTDIR/pol" --state-dir "$TESTDIR/rstate" \
    --verdicts "$TESTDIR/got.jsonl" "$TESTDIR/six.jsonl" \
    >"$TESTDIR/out" 2>"$TESTDIR/err" ||
    fail "replay failed: $(tail -n 5 "$TESTDIR/err")"
diff -u "$TESTDIR/want.jsonl" "$TESTDIR/got.jsonl" >&2 ||
    fail "the verdicts are not what the policy makes bouncer do"
# the figures follow from them: 6 benign-or-attack traces, asks counted
tail -n 1 "$TESTDIR/out" | jq_one '.banking.benign.n_traces == 3 and
    .banking.attack.n_traces == 3' ||
    fail "figures: $(tail -n 1 "$TESTDIR/out")"

# 3. The audit log says the same: per session, a call's rows are allow,
# deny, or ask followed by the human's (the replay's) refusal.
"$AUDIT" -D "$TESTDIR/rstate/audit.db" -V >/dev/null ||
    fail "the audit chain does not verify"
"$AUDIT" -D "$TESTDIR/rstate/audit.db" -j | jq -s -c '
    [.[] | select(.upstream == "banking")] | group_by(.session) |
    sort_by(.[0].seq) | .[] | [.[].verdict] | reduce .[] as $v ([];
        if $v == "deny" and (.[-1] // "") == "ask+" then .[:-1] + ["ask"]
        elif $v == "ask" then . + ["ask+"] else . + [$v] end)' \
    >"$TESTDIR/audit.txt" || fail "cannot read the audit log"
jq -c '.verdicts' "$TESTDIR/got.jsonl" |
    diff -u - "$TESTDIR/audit.txt" >&2 ||
    fail "the audit log disagrees with the verdicts"

# 4. The fake upstream answers only the recorded call at the cursor.
line=$(head -n 1 "$TESTDIR/six.jsonl")
printf '%s\n' "$line" >"$TESTDIR/trace.json"
echo 0 >"$TESTDIR/cursor"
args=$(jq -c '.calls[0].args' "$TESTDIR/trace.json")
tool=$(jq -r '.calls[0].tool' "$TESTDIR/trace.json")
tcall() {	# ID NAME ARGUMENTS-JSON
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call",%s}\n' "$1" \
	    "\"params\":{\"name\":\"$2\",\"arguments\":$3}"
}
{
	tcall 1 "$tool" "$args"
	tcall 2 "$tool" '{"file_path":"other.txt"}'
	tcall 3 get_balance "$args"
} | timeout 10 "$UPSTREAM" -t "$TESTDIR/tools.json" \
    -T "$TESTDIR/trace.json" -c "$TESTDIR/cursor" -l "$TESTDIR/served" \
    >"$TESTDIR/up.out" 2>"$TESTDIR/up.err" || fail "the upstream failed"
jq -e -s --argjson c "$(jq -c '.calls[0]' "$TESTDIR/trace.json")" '
    length == 3 and .[0].id == 1 and
    .[0].result.content[0].text == $c.output and
    .[1].error.code == -32000 and
    (.[1].error.message | startswith("replay:")) and
    .[2].error.code == -32000' "$TESTDIR/up.out" >/dev/null ||
    fail "upstream answers: $(cat "$TESTDIR/up.out")"
[ "$(cat "$TESTDIR/served")" = 0 ] || fail "served: $(cat "$TESTDIR/served")"

# 5. A broken replay fails and prints no figures: traces without a
# tools.json beside them, a suite without a policy.
mkdir "$TESTDIR/lone"
cp "$TESTDIR/six.jsonl" "$TESTDIR/lone/"
if "$REPLAY" "$TESTDIR/lone/six.jsonl" >"$TESTDIR/out" 2>"$TESTDIR/err"
then
	fail "replay ran without tools.json"
fi
[ ! -s "$TESTDIR/out" ] || fail "figures from a broken replay"
grep -q 'tools.json' "$TESTDIR/err" || fail "no reason: $(cat "$TESTDIR/err")"
mkdir "$TESTDIR/nopol"
if "$REPLAY" --policy-dir "$TESTDIR/nopol" "$TESTDIR/six.jsonl" \
    >"$TESTDIR/out" 2>"$TESTDIR/err"; then
	fail "replay ran without a policy"
fi
grep -q 'banking.yaml' "$TESTDIR/err" || fail "no reason: $(cat "$TESTDIR/err")"
pass
