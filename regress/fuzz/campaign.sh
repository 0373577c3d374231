#!/bin/sh
#
# campaign.sh - regress/fuzz/run.sh's bookkeeping (`make fuzz
# FUZZ_CAMPAIGN=DIR FUZZ_RUNS=N'), with a stand-in for a libFuzzer program
# so that it runs in `make check' without clang: a campaign resumes its
# corpus and count, stops at its target, counts a run stopped by a
# signal or killed outright, refuses a second run while one runs, starts
# over for a rebuilt program, and keeps a reproducer; without a
# campaign the scratch copy goes when it passes; without flock(1) a
# campaign refuses to run.

set -u

srcdir=${top_srcdir:-.}
run="$(cd "$srcdir" && pwd)/regress/fuzz/run.sh"
t=$(mktemp -d "${TMPDIR:-/tmp}/bouncer-campaign.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# The stand-in: -runs=N executes N (or FAKE_DO of them), saying so as
# libFuzzer does; FAKE=crash|interrupt|hang misbehaves the ways run.sh
# must account for.  It adds a unit to its corpus directory each time.
mkdir -p "$t/src/regress/fuzz/corpus/fake" "$t/bin/regress/fuzz"
echo seed >"$t/src/regress/fuzz/corpus/fake/seed"
prog="$t/bin/regress/fuzz/fuzz_fake"
cat >"$prog" <<'EOF'
#!/bin/sh
n=1000
for a; do
	case $a in
	-runs=*) n=${a#-runs=};;
	-artifact_prefix=*) pre=${a#-artifact_prefix=};;
	-*) ;;
	*) dir=$a;;
	esac
done
[ -f "$dir/seed" ] || { echo "no seed in the corpus"; exit 3; }
echo "unit $(ls "$dir" | wc -l)" >"$dir/unit-$(ls "$dir" | wc -l)"
do=${FAKE_DO:-$n}
echo "#$do	DONE   cov: 7 ft: 9 corp: 2/10b lim: 4 exec/s: 100 rss: 1Mb"
case ${FAKE:-} in
crash)	echo "fuzz_fake.c:1: check failed: stand-in"
	: >"${pre}crash-0123"
	echo "stat::number_of_executed_units: $do"
	exit 77;;
interrupt)
	echo "==1== libFuzzer: run interrupted; exiting"
	echo "stat::number_of_executed_units: $((do + 5))"
	exit 72;;
hang)	echo $$ >"$FAKE_PIDS"
	exec sleep 60;;
esac
echo "stat::number_of_executed_units: $do"
exit 0
EOF
chmod +x "$prog"

camp="$t/camp"
fz() {
	(cd "$t/bin" && top_srcdir="$t/src" FUZZ_CAMPAIGN="$camp" \
	    FUZZ_SCRATCH="$t" sh "$run" regress/fuzz/fuzz_fake)
}
total() {
	cut -d ' ' -f 2 "$camp/fake/state"
}

# 1. a first run: seeded from the committed corpus, 300 executions
out=$(FUZZ_RUNS=1000 FAKE_DO=300 fz) || fail "first run: $out"
[ "$(total)" = 300 ] || fail "after 300 the count is $(total)"
[ -f "$camp/fake/corpus/seed" ] || fail "the seed was not copied"
# 2. it resumes: only what is left of the target, the corpus kept
out=$(FUZZ_RUNS=1000 fz) || fail "second run: $out"
case $out in *"700 runs ..."*) ;; *) fail "not resumed at 700: $out";; esac
[ "$(total)" = 1000 ] || fail "after the target the count is $(total)"
[ -f "$camp/fake/corpus/unit-1" ] || fail "the corpus was not kept"
# 3. the target met: nothing runs
out=$(FUZZ_RUNS=1000 fz) || fail "third run: $out"
case $out in *"target met"*) ;; *) fail "target not met: $out";; esac
[ "$(wc -l <"$camp/fake/history")" -eq 2 ] || fail "a run after the target"
# 4. stopped by a signal: libFuzzer's count, and the run stops there
out=$(FUZZ_RUNS=2000 FAKE=interrupt FAKE_DO=100 fz)
[ $? -eq 130 ] || fail "an interrupted run did not exit 130"
case $out in *interrupted*) ;; *) fail "not said interrupted: $out";; esac
[ "$(total)" = 1105 ] || fail "after an interrupt the count is $(total)"
# 5. killed outright: counted at the next start by its last status line
(cd "$t/bin" && FUZZ_RUNS=2000 FAKE=hang FAKE_DO=50 \
    FAKE_PIDS="$t/hang.pid" top_srcdir="$t/src" FUZZ_CAMPAIGN="$camp" \
    exec sh "$run" regress/fuzz/fuzz_fake) >/dev/null 2>&1 &
shpid=$!
i=0
while [ ! -s "$t/hang.pid" ] && [ $i -lt 100 ]; do
	i=$((i + 1))
	sleep 0.1
done
# 5a. a second run meanwhile fails, and counts and moves nothing
out=$(FUZZ_RUNS=2000 fz 2>&1) && fail "a second run at once passed"
case $out in *"is in use by another run"*) ;;
*) fail "the second run did not say why: $out";; esac
[ "$(total)" = 1105 ] || fail "the second run changed the count: $(total)"
[ -f "$camp/fake/log" ] || fail "the second run moved the first's log"
[ "$(wc -l <"$camp/fake/history")" -eq 3 ] ||
    fail "the second run wrote history: $(cat "$camp/fake/history")"
kill -KILL "$shpid" "$(cat "$t/hang.pid")" 2>/dev/null
wait "$shpid" 2>/dev/null
[ -f "$camp/fake/log" ] || fail "the killed run left no log"
out=$(FUZZ_RUNS=1200 fz) || fail "the run after a kill: $out"
grep -q ' killed 50 1155$' "$camp/fake/history" ||
    fail "the killed run was not counted: $(cat "$camp/fake/history")"
[ "$(total)" = 1200 ] || fail "after the kill the count is $(total)"
# 6. a rebuilt program starts the count over, keeping the corpus
echo "# rebuilt" >>"$prog"
out=$(FUZZ_RUNS=1200 FAKE_DO=10 fz) || fail "the rebuilt run: $out"
[ "$(total)" = 10 ] || fail "a rebuilt program kept the count $(total)"
grep -q ' rebuilt 0 0$' "$camp/fake/history" || fail "no rebuilt line"
[ -f "$camp/fake/corpus/unit-1" ] || fail "the rebuilt run lost the corpus"
# 6b. a state run.sh did not write counts nothing
echo "$(cut -d ' ' -f 1 "$camp/fake/state") 12x" >"$camp/fake/state"
out=$(FUZZ_RUNS=1200 FAKE_DO=10 fz) || fail "the run after garbage: $out"
[ "$(total)" = 10 ] || fail "a garbage state gave the count $(total)"
# 7. a finding fails the run and keeps its reproducer
out=$(FUZZ_RUNS=1200 FAKE=crash FAKE_DO=20 fz 2>&1) && fail "a crash passed"
case $out in *"reproducer: $camp/fake/crash-0123"*) ;;
*) fail "the reproducer was not named: $out";; esac
[ "$(total)" = 30 ] || fail "the crashed run's count: $(total)"
# 8. without a campaign: a scratch copy, removed when the run passes
out=$(cd "$t/bin" && top_srcdir="$t/src" FUZZ_SCRATCH="$t" FUZZ_RUNS=5 \
    FUZZ_CAMPAIGN='' sh "$run" regress/fuzz/fuzz_fake) ||
    fail "scratch run: $out"
ls -d "$t"/bouncer-fuzz-fake.* >/dev/null 2>&1 && fail "scratch kept"
out=$(cd "$t/bin" && top_srcdir="$t/src" FUZZ_SCRATCH="$t" FAKE=crash \
    FUZZ_CAMPAIGN='' sh "$run" regress/fuzz/fuzz_fake 2>&1) &&
    fail "a scratch crash passed"
ls "$t"/bouncer-fuzz-fake.*/crash-0123 >/dev/null 2>&1 ||
    fail "a scratch crash's reproducer was not kept"
# 9. a campaign without flock(1) (a PATH that has none) refuses, saying
# so, before it counts or makes anything
mkdir "$t/nopath"
sh=$(command -v sh)
out=$(cd "$t/bin" && PATH="$t/nopath" top_srcdir="$t/src" FUZZ_RUNS=5 \
    FUZZ_CAMPAIGN="$t/camp2" "$sh" "$run" regress/fuzz/fuzz_fake 2>&1)
[ $? -eq 2 ] || fail "a campaign without flock(1) did not exit 2: $out"
case $out in *"FUZZ_CAMPAIGN needs flock(1)"*) ;;
*) fail "the run without flock(1) did not say why: $out";; esac
[ -e "$t/camp2" ] && fail "the run without flock(1) made its campaign"

if [ $fails -ne 0 ]; then
	echo "campaign.sh: $fails failed"
	exit 1
fi
echo "campaign.sh: ok"
exit 0
