#!/bin/sh
# run.sh - run bouncer's benchmarks with sensible defaults (`make bench`).
#
# bench/latency: the added latency of a tools/call through bouncer-monitor
# over regress/mocks/mock-upstream called directly, and calls/s with
# several requests in flight (DESIGN 11 states the budget: added p50 <=
# 60 us, >= 10 000 calls/s).  Figures are printed, never judged: this is
# not a test and must never fail on a time.
#
# Environment: BENCH_CALLS, BENCH_WARMUP, BENCH_ROUNDS, BENCH_INFLIGHT
# override the defaults; further arguments go to bench/latency before its
# `--`.  Uses the build tree (top_builddir, BOUNCER_LIBEXEC from make, or
# the current directory) and a scratch bouncer.yaml, never the user's.

top_builddir=${top_builddir:-.}
BOUNCER_LIBEXEC=${BOUNCER_LIBEXEC:-$top_builddir/worker}
export BOUNCER_LIBEXEC

latency="$top_builddir/bench/latency"
monitor="$top_builddir/monitor/bouncer-monitor"
upstream="$top_builddir/regress/mocks/mock-upstream"

for f in "$latency" "$monitor" "$upstream"; do
	if ! test -x "$f"; then
		echo "bench: $f not built (run make bench)" >&2
		exit 1
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bouncer-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
mkdir -m 700 "$tmp/state" || exit 1
printf 'state_dir: "%s"\n' "$tmp/state" >"$tmp/bouncer.yaml"
BOUNCER_STATE_DIR="$tmp/state"
export BOUNCER_STATE_DIR

"$latency" \
    -n "${BENCH_CALLS:-2000}" \
    -w "${BENCH_WARMUP:-500}" \
    -r "${BENCH_ROUNDS:-5}" \
    -j "${BENCH_INFLIGHT:-8}" \
    -e "$tmp/children.log" \
    -u "$upstream" \
    "$@" \
    -- "$monitor" -f "$tmp/bouncer.yaml"
rc=$?
if test "$rc" -ne 0; then
	echo "bench: bench/latency failed ($rc); stderr of bouncer and" \
	    "the upstream:" >&2
	tail -n 40 "$tmp/children.log" >&2
fi
exit "$rc"
