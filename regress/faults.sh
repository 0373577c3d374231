#!/usr/bin/env bash
#
# regress/faults.sh - kill -9 at random moments during calls (DESIGN 10):
# a worker, an upstream and a carrier, FAULT_RUNS times each (5 in make
# check, 100 in make check-faults).  Whatever the moment:
#
#  * no call reaches an upstream or a carrier's vendor without its audit
#    row (what the mocks logged, against bouncer-audit -j), and the chain
#    verifies (bouncer-audit -V) after every run;
#  * nothing hangs: every wait has a bound;
#  * a worker killed: the session ends, the monitor exits 1, no child is
#    left, and the session's last row is the death;
#  * an upstream killed: each call is answered exactly once (its result,
#    -32603 "upstream exited", -32603 "could not be sent" with its
#    not-sent row when it died as the call was written, or blocked "not
#    running"), the session still answers, and ends with status 0 at
#    the client's EOF;
#  * a carrier killed: that call is answered (the vendor's answer, or a
#    tool error saying the carrier was killed and whether the call
#    reached the vendor is unknown), and the next call works.
#
# FAULT_RUNS: runs of each kind (default 5); FAULT_KINDS: which kinds
# (default "worker upstream carrier"); FAULT_SEED: the random moments
# of an earlier run again (printed at the start).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd sha256sum
: "${FAULT_RUNS:=5}"
: "${FAULT_KINDS:=worker upstream carrier}"
: "${FAULT_SEED:=$(($(date +%s) % 32768))}"
RANDOM=$FAULT_SEED
log "seed $FAULT_SEED, $FAULT_RUNS runs of: $FAULT_KINDS"
DB=$BOUNCER_STATE_DIR/audit.db
up=$TESTDIR/up.log
BURST=12

# A run's rows are those after LAST, the head before it began.
LAST=0
head_seq() {
	"$AUDIT" -D "$DB" -j | jq -s 'map(.seq) | max // 0'
}

# run_rows: this run's rows, one JSON line each, in $TESTDIR/rows.json
run_rows() {
	"$AUDIT" -D "$DB" -j | jq -c --argjson l "$LAST" 'select(.seq > $l)' \
	    >"$TESTDIR/rows.json"
}

# chain_ok: the whole log verifies
chain_ok() {
	"$AUDIT" -D "$DB" -V >"$TESTDIR/verify.txt" 2>&1 ||
	    fail "run $RUN: the chain does not verify: $(cat "$TESTDIR/verify.txt")"
}

# calls_recorded: every call the upstream got has an allow row of this
# run with its tool and arguments
calls_recorded() {
	local missing

	[ -f "$up" ] || return 0
	missing=$(jq -c -n --slurpfile rows "$TESTDIR/rows.json" '
	    [$rows[] | select(.verdict == "allow") | [.tool, .args]] as $ok |
	    [inputs | select(.method == "tools/call") |
	     [.params.name, (.params.arguments // {})]] |
	    map(select(. as $c | $ok | index([$c]) | not))[]' "$up")
	[ -z "$missing" ] ||
	    fail "run $RUN: calls reached the upstream without a row: $missing"
}

# sleep_ms N
sleep_ms() {
	sleep "$(printf '0.%03d' "$1")"
}

# moment MAX: a random moment up to MAX ms from now; one time in four,
# now (not even a sleep's fork first)
moment() {
	((RANDOM % 4)) && sleep_ms $((RANDOM % $1))
	return 0
}

# burst TAG: BURST calls at once, ids 1..BURST: echo TAG-K and slow of
# a distinct duration, alternately (each call's arguments are its own)
burst() {
	local k

	for ((k = 1; k <= BURST; k++)); do
		if ((k % 2)); then
			call "$k" echo "{\"message\":\"$1-$k\"}"
		else
			call "$k" slow "{\"ms\":$((k * 60))}"
		fi
	done
}

# find_worker ROLE: the pid of the client's or the upstream's worker
find_worker() {
	local pid

	for pid in $(worker_pids); do
		case " $(proc_args "$pid") " in
		*" -r $1 "*)
			echo "$pid"
			return 0 ;;
		esac
	done
	return 1
}

# all_gone PIDS: none of them runs (zombies reaped by init count as gone)
all_gone() {
	local i pid st alive

	for i in $(seq 50); do
		alive=
		for pid in $1; do
			st=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null |
			    cut -d' ' -f1)
			[ -n "$st" ] && [ "$st" != Z ] && alive="$alive $pid"
		done
		[ -z "$alive" ] && return 0
		sleep 0.1
	done
	fail "run $RUN: processes left behind:$alive"
}

declare -A seen=()
tally() {
	seen[$1]=$((${seen[$1]:-0} + 1))
}

write_config "$TESTDIR/up.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
audit: { record_args: full }
upstreams:
  up: { command: "$MOCK", args: [-l, "$up"] }
YAML

# ---------------------------------------------------------------------
# A worker killed: the session ends.
# ---------------------------------------------------------------------
worker_run() {
	local role victim pids n

	role=client
	((RANDOM % 2)) && role=upstream
	rm -f "$up"
	start_monitor -f "$TESTDIR/up.yaml"
	handshake
	victim=$(find_worker "$role") || fail "run $RUN: no $role worker"
	pids=$(monitor_children)
	MON_CHILDREN=$pids
	burst "w$RUN"
	moment 120
	kill -KILL "$victim"
	# what was answered before is answered; then the output ends
	n=0
	while recv 10; do
		n=$((n + 1))
		[ "$n" -le "$BURST" ] ||
		    fail "run $RUN: more answers than calls: $LINE"
	done
	wait_monitor 10
	[ "$MON_STATUS" = 1 ] ||
	    fail "run $RUN: $role worker killed: exit $MON_STATUS, want 1"
	all_gone "$pids"
	MON_CHILDREN=
	run_rows
	tail -n 1 "$TESTDIR/rows.json" | jq_one --arg r "$role" '
	    .verdict == "event" and .tool == "fatal" and
	    (.reason | test("^worker:" + $r + "[^ ]* was killed by signal 9"))' ||
	    fail "run $RUN: the last row is not the death of the $role worker:
$(tail -n 1 "$TESTDIR/rows.json")"
	calls_recorded
	tally "worker:killed-$role-worker"
	if [ "$n" = 0 ]; then
		tally "worker:no-call-answered-first"
	else
		tally "worker:some-calls-answered-first"
	fi
}

# ---------------------------------------------------------------------
# An upstream killed: its calls are answered, the session goes on.
# ---------------------------------------------------------------------
# burst_call K: the [tool, arguments] of burst call K, as JSON
burst_call() {
	if (($1 % 2)); then
		printf '["echo",{"message":"u%s-%s"}]' "$RUN" "$1"
	else
		printf '["slow",{"ms":%s}]' $(($1 * 60))
	fi
}

upstream_run() {
	local mock k outcome got blocked='["echo",{"message":"after"}]'
	local notsent=0
	local -A answered=()

	rm -f "$up"
	start_monitor -f "$TESTDIR/up.yaml"
	handshake
	mock=$(pgrep -P "$MON_PID" -x mock-upstream) ||
	    fail "run $RUN: no upstream"
	burst "u$RUN"
	moment 500
	kill -KILL "$mock"
	for ((k = 1; k <= BURST; k++)); do
		recv 10 || fail "run $RUN: $((k - 1)) of $BURST calls answered"
		got=$(jget .id)
		[ -z "${answered[$got]:-}" ] ||
		    fail "run $RUN: call $got answered twice: $LINE"
		answered[$got]=1
		if jcheck '(.result.isError // false) == false and
		    (.result.content | type) == "array"'; then
			outcome=result
		elif jcheck '.error.code == -32603 and .error.message ==
		    "Internal error: upstream \"up\" exited"'; then
			outcome=exited
		elif jcheck '.error.code == -32603 and .error.message ==
		    "Internal error: the call could not be sent: upstream " +
		    "\"up\" no longer reads its input"'; then
			# it died between the decision and the write
			outcome=not-sent
			notsent=$((notsent + 1))
		elif jcheck "$(f_blocked "$got") and (.result.content[0].text |
		    test(\"upstream .up. (is not running|no longer reads)\"))"
		then
			outcome=blocked
			blocked="$blocked,$(burst_call "$got")"
		else
			fail "run $RUN: an unclear answer: $LINE"
		fi
		tally "upstream:call-$outcome"
	done
	# the client was told everything; the session serves on
	ping_ok 100
	call 101 echo '{"message":"after"}'
	expect_line "$(f_blocked 101)"
	stop_monitor
	[ "$MON_STATUS" = 0 ] ||
	    fail "run $RUN: exit $MON_STATUS at EOF after its upstream died"
	run_rows
	calls_recorded
	[ "$(jq -s 'map(select(.tool == "not-sent")) | length' \
	    "$TESTDIR/rows.json")" = "$notsent" ] ||
	    fail "run $RUN: not one not-sent row for each call not sent"
	# what was blocked never reached it
	jq -e -n --argjson b "[$blocked]" '[inputs | select(.method ==
	    "tools/call") | [.params.name, .params.arguments] | select(. as
	    $c | $b | index([$c]))] | length == 0' "$up" >/dev/null ||
	    fail "run $RUN: a blocked call reached the upstream"
}

# ---------------------------------------------------------------------
# A carrier killed: that call fails clearly, the next one works.
# ---------------------------------------------------------------------
RTOK=reader-token-0123456789
PAGE=be633bf1-dfa0-436d-b259-571129a590e5
DBID=668d797c-76fa-4934-9b05-ad288df2d136
NREAD=ntn_fake_read_0000000000000001
NCOMM=ntn_fake_comment_000000000000002
carrier_setup() {
	[ -n "${NPORT:-}" ] && return 0
	work_libexec "$TESTDIR/lib"
	mkdir -m 700 "$TESTDIR/cred"
	printf '%s\n' "$NREAD" >"$TESTDIR/cred/notion-read"
	printf '%s\n' "$NCOMM" >"$TESTDIR/cred/notion-comment"
	chmod 600 "$TESTDIR"/cred/*
	start_work_mock notion -s notion -S "$TESTDIR/stall" \
	    -T "$NREAD:read_content,read_comments" \
	    -T "$NCOMM:insert_comments,read_comments"
	NPORT=$PORT
	cat >"$TESTDIR/agents.yaml" <<YAML
agents:
  - id: reader
    owner: ops
    tier: T0
    tools: [read_task]
    token_sha256: $(printf '%s' "$RTOK" | sha256sum | cut -d' ' -f1)
YAML
	: >"$TESTDIR/policy.yaml"
	write_config "$TESTDIR/work.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
policy: $TESTDIR/policy.yaml
registry: $TESTDIR/agents.yaml
audit: { record_args: full }
work:
  notion:
    read_token_file: $TESTDIR/cred/notion-read
    comment_token_file: $TESTDIR/cred/notion-comment
    database_id: $DBID
    api_base: http://127.0.0.1:$NPORT
upstreams:
  idle: { command: "$MOCK" }
YAML
}

# page_read ID: read_task of our page works
page_read() {
	call "$1" read_task "{\"task_id\":\"$PAGE\"}"
	expect_line "$(f_result "$1") and
	    .result.structuredContent.title == \"Bug bash\"" 15
}

# vendor_recorded: every page the vendor was asked for has as many
# allow rows of read_task with that task_id, or more
vendor_recorded() {
	local bad

	"$AUDIT" -D "$DB" -j | jq -c 'select(.verdict == "allow" and
	    .tool == "read_task")' >"$TESTDIR/allowed.json"
	bad=$(jq -r -n --slurpfile rows "$TESTDIR/allowed.json" '
	    ($rows | map(.args.task_id | gsub("-"; "")) | group_by(.) |
	     map({key: .[0], value: length}) | from_entries) as $ok |
	    [inputs | .path | capture("^/v1/pages/(?<id>[^/?]+)").id |
	     gsub("-"; "")] | group_by(.) |
	    map(select(length > ($ok[.[0]] // 0)) | .[0])[]' \
	    "$TESTDIR/notion.log")
	[ -z "$bad" ] ||
	    fail "run $RUN: the vendor was asked for pages without rows: $bad"
}

CARRIER_LIVE=
carrier_run() {
	local victim uuid id=$((RUN * 10))

	carrier_setup
	# three kills a session: a carrier is started again three times
	if [ -z "$CARRIER_LIVE" ] || [ "$CARRIER_LIVE" -ge 3 ]; then
		[ -z "$MON_PID" ] || stop_monitor
		BOUNCER_LIBEXEC=$TESTDIR/lib BOUNCER_AGENT_TOKEN=$RTOK \
		    start_monitor -f "$TESTDIR/work.yaml"
		handshake
		page_read "$id"
		CARRIER_LIVE=0
	fi
	CARRIER_LIVE=$((CARRIER_LIVE + 1))
	victim=$(pgrep -P "$MON_PID" -f 'bouncer-carrier-notion -m read') ||
	    fail "run $RUN: no carrier"
	uuid=$(cat /proc/sys/kernel/random/uuid)
	# the moment, in turn: just before the call (the monitor may not
	# know yet when it sends it), while the vendor stalls (mid-call for
	# sure), or any time in the call's first 40 ms
	case $((RUN % 3)) in
	0)
		kill -KILL "$victim"
		sleep_ms $((RANDOM % 4))
		call $((id + 1)) read_task "{\"task_id\":\"$uuid\"}" ;;
	1)
		touch "$TESTDIR/stall"
		call $((id + 1)) read_task "{\"task_id\":\"$uuid\"}"
		moment 300
		kill -KILL "$victim" ;;
	2)
		call $((id + 1)) read_task "{\"task_id\":\"$uuid\"}"
		moment 40
		kill -KILL "$victim" ;;
	esac
	rm -f "$TESTDIR/stall"
	expect_line "$(f_result $((id + 1))) and .result.isError == true" 15
	if jcheck '.result.content[0].text | contains("carrier was killed " +
	    "by signal 9 during the call; whether it reached Notion is unknown")'
	then
		tally "carrier:call-failed-clearly"
	elif jcheck '.result.content[0].text | contains("404")'; then
		tally "carrier:vendor-answered-it"
	else
		fail "run $RUN: an unclear answer: $LINE"
	fi
	page_read $((id + 2))
	LAST=0
	chain_ok
	vendor_recorded
}

RUN=0
for kind in $FAULT_KINDS; do
	case $kind in
	worker | upstream | carrier) ;;
	*) fail "unknown fault kind '$kind'" ;;
	esac
	for ((i = 1; i <= FAULT_RUNS; i++)); do
		RUN=$((RUN + 1))
		[ -f "$DB" ] && LAST=$(head_seq)
		"${kind}_run"
		chain_ok
	done
	if [ -n "$MON_PID" ]; then
		stop_monitor
		[ "$MON_STATUS" = 0 ] ||
		    fail "the last $kind session exited $MON_STATUS"
	fi
done
for k in $(printf '%s\n' "${!seen[@]}" | sort); do
	log "$k: ${seen[$k]}"
done
pass
