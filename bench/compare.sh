#!/bin/sh
# compare.sh BEFORE AFTER [RUNS] - bench/latency of two build trees side
# by side: for each run and placement (BENCH_PLACEMENTS, default "split
# one free"), BEFORE then AFTER, each with the peer when BENCH_PEER is
# set (a command, as in bench/run.sh).  Prints one line per run and the
# JSON of each.  Both trees must have built bench/latency and
# regress/mocks/mock-upstream.  Figures are printed, never judged.
#
# usage: sh bench/compare.sh /path/to/old/build /path/to/new/build 3
if [ $# -lt 2 ]; then
	echo "usage: compare.sh BEFORE-BUILD AFTER-BUILD [RUNS]" >&2
	exit 2
fi
before=$1
after=$2
runs=${3:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bouncer-compare.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
# the gated path, as bench/run.sh times it
cp "$(dirname "$0")/gated.yaml" "$tmp/policy.yaml" || exit 1
run=1
while [ "$run" -le "$runs" ]; do
	for p in ${BENCH_PLACEMENTS:-split one free}; do
		for tree in "$before" "$after"; do
			rm -rf "$tmp/state"
			mkdir -m 700 "$tmp/state" || exit 1
			printf 'state_dir: "%s"\npolicy: "%s"\naudit: { sync: %s }\n' \
			    "$tmp/state" "$tmp/policy.yaml" \
			    "${BENCH_SYNC:-normal}" >"$tmp/bouncer.yaml"
			set -- -p "$p" -n "${BENCH_CALLS:-1000}" \
			    -w "${BENCH_WARMUP:-300}" -r "${BENCH_ROUNDS:-3}" \
			    -j "${BENCH_INFLIGHT:-8}" -e "$tmp/err" \
			    -u "$tree/regress/mocks/mock-upstream"
			if [ -n "${BENCH_PEER:-}" ]; then
				set -- "$@" -P "$BENCH_PEER"
			fi
			BOUNCER_LIBEXEC="$tree/worker" \
			BOUNCER_PACKS="$tree/packs" \
			BOUNCER_STATE_DIR="$tmp/state" \
			    "$tree/bench/latency" "$@" -- \
			    "$tree/monitor/bouncer-monitor" \
			    -f "$tmp/bouncer.yaml" >"$tmp/out" || {
				echo "compare: bench/latency failed in $tree" >&2
				tail -n 20 "$tmp/err" >&2
				exit 1
			}
			printf 'run %d %-5s %s: ' "$run" "$p" "$tree"
			sed -n 's/^added  *bouncer  *\(p50.*\) µs.*/bouncer \1/p' \
			    "$tmp/out" | tr '\n' ' '
			sed -n 's/^ratio  *bouncer\/peer  *\(p50 .*p90 *[0-9.-]*\).*/ratio \1/p' \
			    "$tmp/out" | tr '\n' ' '
			echo
			tail -n 1 "$tmp/out" >>"$tmp/json"
		done
	done
	run=$((run + 1))
done
echo "== JSON lines, in the order above"
cat "$tmp/json"
