#!/bin/sh
# scale.sh - `make bench-scale`: how bouncer's per-call cost moves with
# load and size (issue 13's curves), each figure from bench/latency run
# side by side with the upstream called directly:
#
#   in flight     calls/s with 1, 8 and 64 requests in flight
#   surface       added p50 with 1, 10 and 100 policy entries and as
#                 many more tools on the surface than mock-upstream's own
#                 eleven (its -t filler tools, each with an entry; one
#                 entry is the called tool's)
#   result        added p50 of a call whose result is 1 KB and 1 MB
#                 (mock-upstream's `big' tool; recorded by the taint
#                 index like any output)
#   long session  bouncer's resident memory after BENCH_SCALE_CALLS
#                 sequential calls (default 1 000 000), to show it stops
#                 growing at the taint cap
#
# One placement for all (BENCH_SCALE_PLACEMENT, default split when there
# are two CPUs, else one), audit.sync normal, no peer.  Figures are
# printed, never judged.  BENCH_SCALE_CALLS=0 skips the long session.
#
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
BOUNCER_LIBEXEC=${BOUNCER_LIBEXEC:-$top_builddir/worker}
BOUNCER_PACKS=${BOUNCER_PACKS:-$top_srcdir/packs}
export BOUNCER_LIBEXEC BOUNCER_PACKS

latency="$top_builddir/bench/latency"
monitor="$top_builddir/monitor/bouncer-monitor"
upstream="$top_builddir/regress/mocks/mock-upstream"
for f in "$latency" "$monitor" "$upstream"; do
	if ! test -x "$f"; then
		echo "bench-scale: $f not built (run make bench-scale)" >&2
		exit 1
	fi
done
if test -z "${BENCH_SCALE_PLACEMENT:-}"; then
	if test "$(nproc 2>/dev/null || echo 1)" -ge 2; then
		BENCH_SCALE_PLACEMENT=split
	else
		BENCH_SCALE_PLACEMENT=one
	fi
fi
long=${BENCH_SCALE_CALLS:-1000000}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bouncer-scale.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# policy NTOOLS: the gated echo entry (bench/gated.yaml), big's, and
# entries for the first NTOOLS - 1 filler tools of mock-upstream -t.
policy() {
	cat "$top_srcdir/bench/gated.yaml" || exit 1
	echo 'big: { read_only: true }'
	i=0
	while test "$i" -lt $(($1 - 1)); do
		printf 'tool_%d: { read_only: true, max_calls: 1000 }\n' "$i"
		i=$((i + 1))
	done
}

# run LABEL NTOOLS LATENCY-ARGS...: one bench/latency run, its JSON kept
run() {
	label=$1
	ntools=$2
	shift 2
	rm -rf "$tmp/state"
	mkdir -m 700 "$tmp/state" || exit 1
	policy "$ntools" >"$tmp/policy.yaml"
	printf 'state_dir: "%s"\npolicy: "%s"\naudit: { sync: normal }\n' \
	    "$tmp/state" "$tmp/policy.yaml" >"$tmp/bouncer.yaml"
	BOUNCER_STATE_DIR="$tmp/state"
	export BOUNCER_STATE_DIR
	fill=
	if test "$ntools" -gt 1; then
		fill=" -t $((ntools - 1))"
	fi
	echo "== $label"
	"$latency" -p "$BENCH_SCALE_PLACEMENT" -e "$tmp/children.log" \
	    -u "$upstream$fill" "$@" -- "$monitor" -f "$tmp/bouncer.yaml" \
	    >"$tmp/out" || {
		echo "bench-scale: bench/latency failed; stderr of bouncer" \
		    "and the upstream:" >&2
		tail -n 40 "$tmp/children.log" >&2
		exit 1
	}
	grep -E '^(added|throughput|memory|startup)' "$tmp/out"
	tail -n 1 "$tmp/out" >>"$tmp/json"
}

echo "bench-scale: placement $BENCH_SCALE_PLACEMENT, audit.sync normal"
for j in 1 8 64; do
	run "in flight: $j" 1 -n 1000 -w 200 -r 3 -j "$j"
done
for n in 1 10 100; do
	run "surface: $n policy entries, $((10 + n)) tools" "$n" -n 1000 \
	    -w 200 -r 3
done
for b in 1024 1048576; do
	run "result: $b bytes" 1 -b "$b" -n $((b > 4096 ? 100 : 1000)) \
	    -w 20 -r 3 -j 1
done
if test "$long" -gt 0; then
	run "long session: $long sequential calls" 1 -n "$long" -w 0 -r 1 \
	    -j 1
fi
echo "== JSON lines (one per run)"
cat "$tmp/json"
