#!/bin/sh
#
# run.sh - `make fuzz': run each libFuzzer harness given as an argument
# for FUZZ_SECONDS (default 60), or for FUZZ_RUNS executions when that is
# set (then without a time limit), over a scratch copy of its corpus.
# FUZZ, a list of names ("taint canon"), runs only those harnesses.
#
# The committed corpus (regress/fuzz/corpus/<name>/) is never written:
# libFuzzer adds what it finds to the copy.  A harness that crashes, leaks,
# times out or trips a sanitizer fails the run; its scratch directory,
# with the reproducer (crash-*, leak-*, timeout-*) and the log, is kept
# and named.  UBSan findings are fatal here (halt_on_error) unless
# UBSAN_OPTIONS says otherwise.

set -u

secs=${FUZZ_SECONDS:-60}
runs=${FUZZ_RUNS:-}
if [ -n "$runs" ]; then
	case $runs in
	*[!0-9]*|0)
		echo "run.sh: FUZZ_RUNS must be a positive count" >&2
		exit 2;;
	esac
	limit="-runs=$runs -max_total_time=0"
	what="$runs runs"
else
	limit="-max_total_time=$secs"
	what="${secs}s"
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

failed=
for prog in "$@"; do
	name=${prog##*/fuzz_}
	case " ${FUZZ:-$name} " in
	*" $name "*) ;;
	*) continue;;
	esac
	work=$(mktemp -d "$scratch_root/bouncer-fuzz-$name.XXXXXX") || exit 1
	mkdir "$work/corpus"
	if [ -d "$srcdir/regress/fuzz/corpus/$name" ]; then
		cp "$srcdir/regress/fuzz/corpus/$name"/* "$work/corpus/" \
		    2>/dev/null
	fi
	printf 'fuzz_%s: %s ... ' "$name" "$what"
	start=$(date +%s)
	# shellcheck disable=SC2086	# $limit is two options
	"$prog" $limit -rss_limit_mb=2048 -timeout=30 \
	    -print_final_stats=1 -artifact_prefix="$work/" \
	    "$work/corpus" >"$work/log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	# libFuzzer's last status line: executions, coverage, corpus.
	stats=$(grep -E '^#[0-9]+' "$work/log" | tail -n 1 | awk '{
		for (i = 1; i < NF; i++)
			v[$i] = $(i + 1)
		printf "%s runs, cov %s, ft %s, corpus %s, %s exec/s",
		    substr($1, 2), v["cov:"], v["ft:"], v["corp:"],
		    v["exec/s:"]
	    }')
	if [ $rc -eq 0 ]; then
		echo "ok (${stats:-no stats}, ${took} s)"
		rm -rf "$work"
	else
		echo "FAILED (exit $rc)"
		ls "$work" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' |
		    sed "s|^|    reproducer: $work/|"
		grep -E 'ERROR|check failed|runtime error|SUMMARY' "$work/log" |
		    head -n 5 | sed 's/^/    /'
		echo "    log: $work/log"
		failed="$failed $name"
	fi
done

if [ -n "$failed" ]; then
	echo "make fuzz: failed:$failed" >&2
	exit 1
fi
exit 0
