#!/bin/sh
#
# run.sh - `make fuzz': run each libFuzzer harness given as an argument
# for FUZZ_SECONDS (default 60), or for FUZZ_RUNS executions when that is
# set (then without a time limit).  FUZZ, a list of names ("taint
# canon"), runs only those harnesses.
#
# Without FUZZ_CAMPAIGN a run works in a scratch copy of the committed
# corpus (regress/fuzz/corpus/<name>/, never written), removed when the
# harness passes.  With FUZZ_CAMPAIGN=DIR each harness keeps a campaign
# in DIR/<name>/ that later runs resume, so a depth can be reached over
# several sittings: its corpus (seeded from the committed one), and in
# `state' the SHA-256 of the harness program and how many executions
# that program has run there.  A program of other bytes (rebuilt after a
# change) starts the count over and keeps the corpus.  FUZZ_RUNS is then
# the campaign's target: a run executes only what is left of it.  A run
# stopped by SIGINT or SIGTERM counts what libFuzzer reports it did; a
# run killed outright is counted, when the next one starts, by its last
# status line (a lower bound).  `history' has a line per run.  A second
# run on a harness's campaign while one runs fails (DIR/<name>/lock).
#
# A harness that crashes, leaks, times out or trips a sanitizer fails the
# run; its directory, with the reproducer (crash-*, leak-*, timeout-*)
# and the log, is kept and named.  UBSan findings are fatal here
# (halt_on_error) unless UBSAN_OPTIONS says otherwise.

set -u

secs=${FUZZ_SECONDS:-60}
runs=${FUZZ_RUNS:-}
campaign=${FUZZ_CAMPAIGN:-}
if [ -n "$runs" ]; then
	case $runs in
	*[!0-9]*|0)
		echo "run.sh: FUZZ_RUNS must be a positive count" >&2
		exit 2;;
	esac
fi
srcdir=${top_srcdir:-.}
scratch_root=${FUZZ_SCRATCH:-${TMPDIR:-/tmp}}
: "${UBSAN_OPTIONS:=halt_on_error=1:print_stacktrace=1}"
: "${ASAN_OPTIONS:=detect_leaks=1}"
export UBSAN_OPTIONS ASAN_OPTIONS

if [ $# -eq 0 ]; then
	echo "usage: run.sh regress/fuzz/fuzz_NAME ..." >&2
	exit 2
fi
if [ -n "$campaign" ]; then
	if ! command -v flock >/dev/null 2>&1; then
		echo "run.sh: FUZZ_CAMPAIGN needs flock(1) (util-linux)" >&2
		exit 2
	fi
	mkdir -p "$campaign" || exit 1
	campaign=$(cd "$campaign" && pwd) || exit 1
fi

# libFuzzer ends a run it is told to stop with its final statistics (exit
# 72); the shell waits for them, counts them, then stops.
stopping=
trap 'stopping=1' INT TERM

# The executions a log reports: the final statistics, else the last
# status line ("#N ..."), else 0.
executed() {
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -n 1)
	[ -n "$n" ] || n=$(grep -aE '^#[0-9]+' "$1" | tail -n 1 |
	    sed 's/^#\([0-9]*\).*/\1/')
	echo "${n:-0}"
}

# libFuzzer's last status line: executions, coverage, corpus.
status() {
	grep -aE '^#[0-9]+' "$1" | tail -n 1 | awk '{
		for (i = 1; i < NF; i++)
			v[$i] = $(i + 1)
		printf "%s runs, cov %s, ft %s, corpus %s, %s exec/s",
		    substr($1, 2), v["cov:"], v["ft:"], v["corp:"],
		    v["exec/s:"]
	    }'
}

stamp() {
	date -u +%Y-%m-%dT%H:%M:%SZ
}

failed=
for prog in "$@"; do
	[ -z "$stopping" ] || break
	name=${prog##*/fuzz_}
	case " ${FUZZ:-$name} " in
	*" $name "*) ;;
	*) continue;;
	esac
	seed="$srcdir/regress/fuzz/corpus/$name"
	total=0
	if [ -n "$campaign" ]; then
		work="$campaign/$name"
		mkdir -p "$work/corpus" || exit 1
		# One run at a time: a second would take the first's log
		# for a killed run's and count it.  The lock (flock(1), on
		# fd 9, inherited by the harness) goes with the last
		# process holding it, so a killed run leaves none behind.
		exec 9>>"$work/lock" || exit 1
		if ! flock -n 9; then
			echo "fuzz_$name: $work is in use by another run" >&2
			failed="$failed $name"
			continue
		fi
		hash=$(sha256sum "$prog" | cut -d ' ' -f 1) || exit 1
		had=
		[ -f "$work/state" ] && read -r had total <"$work/state"
		# a state run.sh did not write counts nothing
		case $total in
		''|*[!0-9]*) had=''; total=0;;
		esac
		# a run killed before it was counted: its last status line
		if [ -f "$work/log" ]; then
			n=$(executed "$work/log")
			was=$(cat "$work/log.hash" 2>/dev/null)
			if [ "$was" = "$had" ]; then
				total=$((total + n))
				echo "$(stamp) $had killed $n $total" \
				    >>"$work/history"
			fi
			mv "$work/log" "$work/log.prev"
		fi
		if [ "$had" != "$hash" ]; then
			[ -z "$had" ] || echo "$(stamp) $hash rebuilt 0 0" \
			    >>"$work/history"
			total=0
		fi
		echo "$hash $total" >"$work/state"
		echo "$hash" >"$work/log.hash"
		# the committed seeds join; what the campaign found stays
		if [ -d "$seed" ]; then
			cp -n "$seed"/* "$work/corpus/" 2>/dev/null
		fi
	else
		work=$(mktemp -d "$scratch_root/bouncer-fuzz-$name.XXXXXX") ||
		    exit 1
		mkdir "$work/corpus"
		if [ -d "$seed" ]; then
			cp "$seed"/* "$work/corpus/" 2>/dev/null
		fi
	fi
	if [ -n "$runs" ]; then
		left=$((runs - total))
		if [ "$left" -le 0 ]; then
			echo "fuzz_$name: campaign at $total runs, target met"
			continue
		fi
		limit="-runs=$left -max_total_time=0"
		printf 'fuzz_%s: %s runs ... ' "$name" "$left"
	else
		limit="-max_total_time=$secs"
		printf 'fuzz_%s: %ss ... ' "$name" "$secs"
	fi
	start=$(date +%s)
	# shellcheck disable=SC2086	# $limit is two options
	"$prog" $limit -rss_limit_mb=2048 -timeout=30 \
	    -print_final_stats=1 -artifact_prefix="$work/" \
	    "$work/corpus" >"$work/log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	stats=$(status "$work/log")
	log="$work/log"
	if [ -n "$campaign" ]; then
		n=$(executed "$work/log")
		total=$((total + n))
		echo "$hash $total" >"$work/state"
		echo "$(stamp) $hash exit-$rc $n $total" >>"$work/history"
		mv "$work/log" "$work/log.prev"
		log="$work/log.prev"
		stats="$stats; campaign $total runs"
	fi
	if [ $rc -eq 72 ] && grep -q 'libFuzzer: run interrupted' "$log"
	then
		echo "interrupted (${stats:-no stats}, ${took} s)"
		[ -n "$campaign" ] || rm -rf "$work"
		stopping=1
	elif [ $rc -eq 0 ]; then
		echo "ok (${stats:-no stats}, ${took} s)"
		[ -n "$campaign" ] || rm -rf "$work"
	else
		echo "FAILED (exit $rc)"
		for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-* \
		    "$work"/oom-* "$work"/slow-unit-*; do
			[ -e "$f" ] && echo "    reproducer: $f"
		done
		grep -E 'ERROR|check failed|runtime error|SUMMARY' "$log" |
		    head -n 5 | sed 's/^/    /'
		echo "    log: $log"
		failed="$failed $name"
	fi
	exec 9>&-	# the campaign's lock, if any
done

if [ -n "$failed" ]; then
	echo "make fuzz: failed:$failed" >&2
	exit 1
fi
[ -z "$stopping" ] || exit 130
exit 0
