#!/bin/sh
# run.sh - run bouncer's benchmarks with sensible defaults (`make bench`).
#
# bench/latency: the added latency of a tools/call through bouncer-monitor
# over regress/mocks/mock-upstream called directly, and calls/s with
# several requests in flight, and the memory of bouncer's processes at
# the end of the session (DESIGN 11 states the budget: added p50 <=
# 60 us, >= 10 000 calls/s, <= 16 MiB).  Figures are printed, never
# judged: this is not a test and must never fail on a time.
#
# Last, bench/agentdojo/run.sh: the AgentDojo replay (attack success,
# utility, asks per benign task under bench/agentdojo/policies).
#
# The peer: bench/latency -P times a third target in the same rounds, a
# peer proxy, and prints bouncer's added latency as a ratio of the peer's
# (the figure that travels between machines).  BENCH_PEER is its command
# (the upstream is appended); by default the pinned
# @civic/passthrough-mcp-server (regress/interop/peers/passthrough.mjs, a
# Node.js proxy with no policy, audit or sandbox) when node and the
# interop peers that make check installs are there, else none;
# BENCH_PEER=none skips it.
#
# Environment: BENCH_CALLS, BENCH_WARMUP, BENCH_ROUNDS, BENCH_INFLIGHT
# override the defaults; BENCH_PLACEMENTS the placements run with
# audit.sync normal (default "split one free"; one CPU: "one free"), see
# bench/latency -p; BENCH_TOKENS the tokens of bench/consent (2000); further
# arguments go to bench/latency before its
# `--`.  Every run is the gated path: a tool that goes through the whole
# contract engine (sink gate, pattern, audit row), with audit.sync normal
# in each placement, then full in the first.  Uses the build tree
# (top_builddir, BOUNCER_LIBEXEC from make, or the current directory) and
# a scratch bouncer.yaml, never the user's.
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
		echo "bench: $f not built (run make bench)" >&2
		exit 1
	fi
done

peers="$top_builddir/regress/interop/build/peers"
if test -z "${BENCH_PEER:-}"; then
	if test -n "${NODE:-}" && test -f "$peers/passthrough.mjs" &&
	    test -d "$peers/node_modules/@civic/passthrough-mcp-server"; then
		BENCH_PEER="$NODE $peers/passthrough.mjs"
	else
		BENCH_PEER=none
		echo "bench: no peer proxy (needs node and the interop peers:" \
		    "make check installs them; or set BENCH_PEER)"
	fi
fi
if test "$BENCH_PEER" != none; then
	echo "bench: peer proxy: $BENCH_PEER"
	set -- -P "$BENCH_PEER" "$@"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bouncer-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
# The gated path (bench/gated.yaml).
cp "$top_srcdir/bench/gated.yaml" "$tmp/policy.yaml" || exit 1
# BENCH_POLL_IDLE=1 (root): hold /dev/cpu_dma_latency at 0 while
# measuring, so idle CPUs poll instead of halting, as latency benchmarks
# usually run.  On a VM whose idle halts (haltpoll with no guest polling)
# waking another vCPU costs tens of microseconds, and a multi-process
# path pays it several times per call; both targets run under the same
# condition, and the line below says which one was used.
holder=
if test "${BENCH_POLL_IDLE:-0}" = 1; then
	if test -w /dev/cpu_dma_latency; then
		# The request lasts as long as the file stays open.
		(exec 3>/dev/cpu_dma_latency && printf '\000\000\000\000' >&3 &&
		    exec sleep 3600) &
		holder=$!
		trap 'kill $holder 2>/dev/null; rm -rf "$tmp"' EXIT
		echo "bench: CPU idle polling on (/dev/cpu_dma_latency = 0)"
	else
		echo "bench: cannot write /dev/cpu_dma_latency; idle as usual"
	fi
else
	echo "bench: CPU idle as configured (BENCH_POLL_IDLE=1 to poll)"
fi
if test -z "${BENCH_PLACEMENTS:-}"; then
	if test "$(nproc 2>/dev/null || echo 1)" -ge 2; then
		BENCH_PLACEMENTS="split one free"
	else
		BENCH_PLACEMENTS="one free"
	fi
fi
first=${BENCH_PLACEMENTS%% *}
rc=0
for run in $(for p in $BENCH_PLACEMENTS; do echo "normal:$p"; done) \
    "full:$first"; do
	sync=${run%%:*}
	placement=${run#*:}
	rm -rf "$tmp/state"
	mkdir -m 700 "$tmp/state" || exit 1
	printf 'state_dir: "%s"\npolicy: "%s"\naudit: { sync: %s }\n' \
	    "$tmp/state" "$tmp/policy.yaml" "$sync" >"$tmp/bouncer.yaml"
	BOUNCER_STATE_DIR="$tmp/state"
	export BOUNCER_STATE_DIR
	echo "== gated tools/call, audit.sync: $sync, placement: $placement"
	{
		"$latency" \
		    -p "$placement" \
		    -n "${BENCH_CALLS:-2000}" \
		    -w "${BENCH_WARMUP:-500}" \
		    -r "${BENCH_ROUNDS:-5}" \
		    -j "${BENCH_INFLIGHT:-8}" \
		    -e "$tmp/children.log" \
		    -u "$upstream" \
		    "$@" \
		    -- "$monitor" -f "$tmp/bouncer.yaml"
		echo $? >"$tmp/rc"
	} | tee "$tmp/out"
	rc=$(cat "$tmp/rc")
	added=$(sed -n 's/^added  *bouncer  *p50  *\([0-9.-]*\).*/\1/p' \
	    "$tmp/out")
	peer=$(sed -n 's/^added  *peer  *p50  *\([0-9.-]*\).*/\1/p' \
	    "$tmp/out")
	ratio=$(sed -n 's/^ratio  *bouncer\/peer  *p50  *\([0-9.-]*\)  *p90  *\([0-9.-]*\).*/\1 \2/p' "$tmp/out")
	test -n "$added" && echo "$sync $placement $added ${peer:--} ${ratio:--  -}" \
	    >>"$tmp/summary"
	if test "$rc" -ne 0; then
		echo "bench: bench/latency failed ($rc); stderr of bouncer" \
		    "and the upstream:" >&2
		tail -n 40 "$tmp/children.log" >&2
		break
	fi
done
if test -s "$tmp/summary"; then
	echo "== added latency of the gated tools/call (target - direct, µs);"
	echo "   ratio: bouncer's added over the peer's, same rounds"
	printf '  %-11s %-9s %10s %10s %9s %9s\n' "audit.sync" "placement" \
	    "bouncer" "peer" "ratio p50" "ratio p90"
	while read -r sync placement added peer r50 r90; do
		printf '  %-11s %-9s %10s %10s %9s %9s\n' "$sync" \
		    "$placement" "$added" "$peer" "$r50" "$r90"
	done <"$tmp/summary"
fi
# bench/taint: taint lookups after 1 KB, 1 MB, 100 MB (DESIGN 11: <= 2x).
if test "$rc" -eq 0; then
	echo "== taint index lookups"
	"$top_builddir/bench/taint"
	rc=$?
fi
# bench/consent: consent_check alone and with the nonce's audit row, sync
# normal and full (DESIGN 11: <= 200 us with normal); every token is then
# replayed and must be refused.  BENCH_TOKENS overrides the count.
if test "$rc" -eq 0; then
	echo "== consent verification"
	"$top_builddir/bench/consent" -n "${BENCH_TOKENS:-2000}"
	rc=$?
fi
# bench/agentdojo: the AgentDojo replay of the development split under
# bench/agentdojo/policies, and the reference scorer's check of its
# figures (bench/agentdojo/run.sh; `make bench-agentdojo` runs it alone).
if test "$rc" -eq 0; then
	echo "== AgentDojo replay (development split)"
	sh "$top_srcdir/bench/agentdojo/run.sh"
	rc=$?
fi
exit "$rc"
