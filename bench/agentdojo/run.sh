#!/bin/sh
# run.sh - the AgentDojo replay on the development split (`make bench`,
# `make bench-agentdojo`), then the same verdicts through the reference
# scorer, bench/agentdojo/score_replay.py, whose figures must be the
# replay's own.
#
#   bench/agentdojo/run.sh [--policy-dir DIR] [DATA-DIR]
#
# DATA-DIR (default bench/agentdojo/data) holds one directory per suite
# with tools.json, benign.jsonl and attack_dev.jsonl; every suite found
# there is replayed.  The check needs python3 and jq and is skipped,
# saying so, without them; a difference fails the run.  It prints the
# replay's table, its JSON line and the check's outcome; it judges no
# figure.  Uses the build tree (top_builddir, top_srcdir from make, or
# the current directory).
#
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
replay="$top_builddir/bench/agentdojo/replay"
scorer="$top_srcdir/bench/agentdojo/score_replay.py"

policy_args=
if test "${1:-}" = --policy-dir; then
	if test $# -lt 2; then
		echo "usage: run.sh [--policy-dir DIR] [DATA-DIR]" >&2
		exit 2
	fi
	policy_args="--policy-dir $2"
	shift 2
fi
data=${1:-$top_srcdir/bench/agentdojo/data}

if ! test -x "$replay"; then
	echo "agentdojo: $replay not built (run make bench)" >&2
	exit 1
fi
set --
suites=
for d in "$data"/*/; do
	d=${d%/}
	test -f "$d/tools.json" || continue
	for f in benign.jsonl attack_dev.jsonl; do
		test -f "$d/$f" && set -- "$@" "$d/$f"
	done
	suites="${suites:+$suites,}$(basename "$d")"
done
if test $# -eq 0; then
	echo "agentdojo: no suite with tools.json under $data" >&2
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bouncer-agentdojo-run.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# shellcheck disable=SC2086
"$replay" $policy_args --verdicts "$tmp/verdicts.jsonl" "$@" >"$tmp/out" ||
    exit 1
cat "$tmp/out"
tail -n 1 "$tmp/out" >"$tmp/replay.json"

if ! command -v python3 >/dev/null 2>&1 || ! command -v jq >/dev/null 2>&1
then
	echo "agentdojo: score_replay.py check skipped (needs python3 and jq)"
	exit 0
fi
python3 "$scorer" --data "$data" --suites "$suites" --split dev \
    --verdicts "$tmp/verdicts.jsonl" --out "$tmp/score.json" || exit 1
# Every figure the replay printed, under the same name, for every suite
# and overall (the scorer's rounding: 4 places, the mean 3).
jq -r -n --slurpfile s "$tmp/score.json" --slurpfile r "$tmp/replay.json" '
    $r[0] | to_entries[] | select(.key | startswith("_") | not) |
    .key as $g | .value | to_entries[] | .key as $sec | .value |
    to_entries[] | select($s[0][$g][$sec][.key] != .value) |
    "\($g).\($sec).\(.key): replay \(.value)," +
    " score_replay.py \($s[0][$g][$sec][.key])"
    ' >"$tmp/diff" || exit 1
if test "$(jq -r '._config.missing_traces' "$tmp/score.json")" != 0; then
	echo "agentdojo: score_replay.py saw traces without verdicts" >&2
	exit 1
fi
if test -s "$tmp/diff"; then
	echo "agentdojo: score_replay.py disagrees with the replay:" >&2
	cat "$tmp/diff" >&2
	exit 1
fi
echo "agentdojo: score_replay.py gives the same figures"
