# regress/test-lib.sh - shared set-up and helpers of the shell scenarios.
#
# Sourced (by bash) at the top of every regress/*.sh scenario, in the
# spirit of OpenSSH's regress/test-exec.sh: a per-test temporary
# directory (kept with its logs on failure, removed on success), the
# paths of the built binaries, and helpers to run bouncer-monitor as a
# coprocess and talk JSON-RPC to it line by line.  Every read has a
# timeout, so a hung monitor fails the test instead of hanging CI.
#
# It never touches an installed bouncer, a user's configuration or state,
# or anything outside the test's own directory and the build tree.
#
# Exit codes follow automake: 0 pass, 1 fail, 77 skip, 99 hard error.
#
# By hand, from a built tree:  bash regress/relay.sh
# (set top_builddir for a separate build directory).  BOUNCER_TEST_DEBUG=1
# runs the monitor with -ddd; TEST_TIMEOUT sets the per-read timeout.

if [ -z "${BASH_VERSION:-}" ]; then
	echo "test-lib.sh needs bash" >&2
	exit 99
fi

# ---------------------------------------------------------------------
# Paths.  make exports top_srcdir, top_builddir and BOUNCER_LIBEXEC;
# a scenario run by hand from the source tree finds them itself.
# ---------------------------------------------------------------------
TEST_NAME=$(basename "$0" .sh)
if [ -z "${top_srcdir:-}" ]; then
	top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
fi
: "${top_builddir:=$top_srcdir}"
: "${BOUNCER_LIBEXEC:=$top_builddir/worker}"
export top_srcdir top_builddir BOUNCER_LIBEXEC

MONITOR=$top_builddir/monitor/bouncer-monitor
WORKER=$top_builddir/worker/bouncer-worker
MOCK=$top_builddir/regress/mocks/mock-upstream
MAIL=$top_builddir/regress/mocks/mock-mail
SCRIPT=$top_builddir/regress/mocks/mock-script
AUDIT=$top_builddir/monitor/bouncer-audit

# Seconds a single read may wait before the test fails.
: "${TEST_TIMEOUT:=5}"
# Seconds the first answer (initialize: spawning and pinning) may take.
: "${TEST_START_TIMEOUT:=15}"

# Writing to a monitor that died must fail the write, not kill us.
trap '' PIPE

# ---------------------------------------------------------------------
# Per-test directory and environment: nothing of the user's leaks in.
# ---------------------------------------------------------------------
TESTDIR=$(mktemp -d "${TMPDIR:-/tmp}/bouncer-$TEST_NAME.XXXXXX") || {
	echo "$TEST_NAME: cannot create a temporary directory" >&2
	exit 99
}
MONLOG=$TESTDIR/monitor.log
export XDG_CONFIG_HOME=$TESTDIR/xdg-config
export XDG_STATE_HOME=$TESTDIR/xdg-state
export BOUNCER_STATE_DIR=$TESTDIR/state
mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$BOUNCER_STATE_DIR"
unset BOUNCER_AGENT_TOKEN

MON_PID=
MON_IN=
MON_OUT=
MON_STATUS=
MON_CHILDREN=
WORK_MOCK_PIDS=
LINE=
TEST_PASSED=0

log() {
	printf '%s: %s\n' "$TEST_NAME" "$*"
}

# Runs at every exit: on success the directory goes, on failure it stays
# and the monitor's log is shown, so the harness's .log file has it all.
test_cleanup() {
	local rc=$? pid

	if [ -n "$MON_PID" ]; then
		# Ours: the monitor, then whatever children it left.
		MON_CHILDREN="$MON_CHILDREN $(pgrep -P "$MON_PID" 2>/dev/null)"
		kill -TERM "$MON_PID" 2>/dev/null
		sleep 0.2
		kill -KILL "$MON_PID" 2>/dev/null
		wait "$MON_PID" 2>/dev/null
	fi
	for pid in $MON_CHILDREN $WORK_MOCK_PIDS; do
		kill -KILL "$pid" 2>/dev/null
	done
	if [ "$TEST_PASSED" = 1 ] && [ "$rc" = 0 ]; then
		rm -rf "$TESTDIR"
	else
		if [ -s "$MONLOG" ]; then
			echo "---- $MONLOG (last 60 lines) ----"
			tail -n 60 "$MONLOG"
			echo "----"
		fi
		[ "$rc" = 77 ] && rm -rf "$TESTDIR" ||
		    echo "$TEST_NAME: files kept in $TESTDIR"
	fi
}
trap test_cleanup EXIT

fail() {
	echo "$TEST_NAME: FAIL: $*" >&2
	exit 1
}

skip() {
	echo "$TEST_NAME: SKIP: $*" >&2
	exit 77
}

# pass: the scenario held.  A monitor still running must exit 0 on EOF.
pass() {
	if [ -n "$MON_PID" ]; then
		stop_monitor
		[ "$MON_STATUS" = 0 ] ||
		    fail "monitor exited $MON_STATUS on client EOF (want 0)"
	fi
	TEST_PASSED=1
	echo "$TEST_NAME: PASS"
	exit 0
}

require_cmd() {
	local c

	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "$c is not installed"
	done
}

require_cmd jq pgrep timeout
[ -x "$MONITOR" ] || fail "no monitor at $MONITOR (build it first)"
[ -x "$WORKER" ] || fail "no worker at $WORKER (build it first)"
[ -x "$MOCK" ] || fail "no mock upstream at $MOCK (make check builds it)"

# True if this build has no sandbox (configure --disable-sandbox).
sandbox_disabled() {
	grep -q '^#define SANDBOX_DISABLED' "$top_builddir/config.h" 2>/dev/null
}

# True if this build runs under AddressSanitizer (make check-asan): a
# process's resident memory then says little about bouncer's own.
asan_build() {
	grep -q '^#define ASAN_BUILD' "$top_builddir/config.h" 2>/dev/null
}

# True if this build's sandbox traps rather than kills (configure
# --enable-sandbox-debug).
sandbox_debug() {
	grep -q '^#define SANDBOX_DEBUG' "$top_builddir/config.h" 2>/dev/null
}

# ---------------------------------------------------------------------
# The monitor.
# ---------------------------------------------------------------------

# start_monitor ARGS...: bouncer-monitor ARGS as a coprocess, stderr
# appended to $MONLOG.  The coprocess fds are duplicated because bash
# closes its own copies as soon as the process exits, and a test must
# still be able to read what was written before the exit.
start_monitor() {
	local dbg=

	[ -z "$MON_PID" ] || fail "start_monitor: a monitor is already running"
	[ "${BOUNCER_TEST_DEBUG:-0}" = 1 ] && dbg=-ddd
	echo "==== bouncer-monitor $dbg $*" >>"$MONLOG"
	# The monitor gets the default SIGPIPE disposition, as from a client.
	coproc MONCO {
		trap - PIPE
		exec "$MONITOR" $dbg "$@" 2>>"$MONLOG"
	}
	MON_PID=$MONCO_PID
	exec {MON_OUT}<&"${MONCO[0]}" {MON_IN}>&"${MONCO[1]}"
	eval "exec ${MONCO[0]}<&- ${MONCO[1]}>&-"
	MON_STATUS=
}

# True while the monitor has not exited (a zombie counts as exited).
monitor_alive() {
	local st

	[ -n "$MON_PID" ] || return 1
	st=$(sed 's/.*) //' "/proc/$MON_PID/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# wait_monitor [TIMEOUT]: waits for the monitor to exit by itself and
# sets MON_STATUS; fails the test if it is still running after TIMEOUT.
wait_monitor() {
	local t=${1:-$TEST_TIMEOUT} end

	[ -n "$MON_PID" ] || fail "wait_monitor: no monitor"
	end=$(($(date +%s%N) + t * 1000000000))
	while monitor_alive; do
		[ "$(date +%s%N)" -lt "$end" ] ||
		    fail "monitor still running after ${t}s"
		sleep 0.05
	done
	wait "$MON_PID" 2>/dev/null
	MON_STATUS=$?
	MON_PID=
	[ -n "$MON_IN" ] && exec {MON_IN}>&-
	[ -n "$MON_OUT" ] && exec {MON_OUT}<&-
	MON_IN=
	MON_OUT=
	return 0
}

# close_stdin: the client's EOF.
close_stdin() {
	if [ -n "$MON_IN" ]; then
		exec {MON_IN}>&-
		MON_IN=
	fi
}

# stop_monitor [TIMEOUT]: closes the monitor's stdin and waits for it
# to exit (default: long enough for the 2 s + 2 s kill grace); its exit
# status is left in MON_STATUS.  Never call it in $(...): the state
# would be lost with the subshell.
# shellcheck disable=SC2120
stop_monitor() {
	close_stdin
	wait_monitor "${1:-8}"
}

# monitor_children: pids of the monitor's direct children.
monitor_children() {
	pgrep -P "$MON_PID" 2>/dev/null
}

# worker_pids: the monitor's children that are bouncer-worker processes
# (anything but the mock upstreams, whose comm is mock-upstream, and the
# audit log's checkpointer, bouncer-ckpt).
worker_pids() {
	local pid comm

	for pid in $(monitor_children); do
		comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
		case $comm in
		mock-upstream|bouncer-ckpt) ;;
		*) echo "$pid" ;;
		esac
	done
}

# proc_args PID: the command line of PID, spaces for NULs.
proc_args() {
	tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null
}

# ---------------------------------------------------------------------
# Talking to it.
# ---------------------------------------------------------------------

# send LINE: writes one line to the monitor's stdin.
send() {
	[ -n "$MON_IN" ] || fail "send: the monitor's stdin is closed"
	printf '%s\n' "$1" 1>&"$MON_IN" 2>/dev/null ||
	    fail "send: cannot write to the monitor (did it exit?): $1"
}

# try_send LINE: like send, but returns 1 instead of failing when the
# monitor's stdin is closed or gone (for scenarios that expect it to die).
try_send() {
	[ -n "$MON_IN" ] || return 1
	printf '%s\n' "$1" 1>&"$MON_IN" 2>/dev/null
}

# send_raw FORMAT [ARGS...]: printf FORMAT to the monitor, byte-exact
# (invalid UTF-8, control bytes); FORMAT must end the line itself.
send_raw() {
	local fmt=$1

	shift
	[ -n "$MON_IN" ] || fail "send_raw: the monitor's stdin is closed"
	# shellcheck disable=SC2059
	printf "$fmt" "$@" 1>&"$MON_IN" 2>/dev/null ||
	    fail "send_raw: cannot write to the monitor (did it exit?)"
}

# recv [TIMEOUT]: reads the next line into LINE; returns 1 on EOF and
# 2 on timeout (without failing: see expect_line and expect_silence).
# bash's read takes a pipe a byte at a time, a system call each: an
# answer of megabytes then takes longer than a test's patience on a
# loaded machine.  With RECV_BLOCKS=1, head(1) reads the line in blocks
# instead, and drops whatever follows it in the pipe: only for a test
# that awaits one answer with nothing else in flight.
recv() {
	local t=${1:-$TEST_TIMEOUT} rc

	LINE=
	[ -n "$MON_OUT" ] || return 1
	if [ "${RECV_BLOCKS:-0}" = 1 ]; then
		LINE=$(timeout "$t" head -n 1 <&"$MON_OUT")
		rc=$?
		[ "$rc" = 124 ] && return 2
		[ "$rc" = 0 ] && [ -n "$LINE" ] || return 1
		return 0
	fi
	IFS= read -r -t "$t" -u "$MON_OUT" LINE
	rc=$?
	if [ "$rc" -gt 128 ]; then
		return 2
	elif [ "$rc" -ne 0 ]; then
		return 1
	fi
	return 0
}

# jcheck FILTER: true if `jq -e FILTER` holds on LINE.  An empty line
# holds nothing (jq 1.6 -e exits 0 when its input has no value).
jcheck() {
	[ -n "$LINE" ] || return 1
	printf '%s\n' "$LINE" | jq -e "$1" >/dev/null 2>&1
}

# jget FILTER: prints `jq -r FILTER` of LINE.
jget() {
	printf '%s\n' "$LINE" | jq -r "$1"
}

# jq_one [JQ-ARGS...] FILTER: stdin holds exactly one JSON value and
# `jq -e FILTER` holds on it.  (Plain jq -e holds on empty input.)
jq_one() {
	local n=$(($# - 1))

	jq -e -s "${@:1:n}" "length == 1 and (.[0] | ${!#})" >/dev/null 2>&1
}

# expect_line FILTER [TIMEOUT]: the next line must exist and satisfy
# `jq -e FILTER`; it stays in LINE for the test to look at.
expect_line() {
	local filter=$1 t=${2:-$TEST_TIMEOUT} shown

	recv "$t"
	case $? in
	1) fail "expected a line matching '$filter', got EOF" ;;
	2) fail "expected a line matching '$filter', got nothing in ${t}s" ;;
	esac
	if ! jcheck "$filter"; then
		shown=$LINE
		[ "${#shown}" -gt 2000 ] && shown="${shown:0:2000}... (${#LINE} bytes)"
		fail "line does not match.
  filter: $filter
  line:   $shown"
	fi
}

# expect_silence SECONDS: nothing may arrive for that long.
expect_silence() {
	recv "$1"
	case $? in
	0) fail "expected silence for ${1}s, got: ${LINE:0:2000}" ;;
	1) fail "expected silence for ${1}s, got EOF" ;;
	esac
}

# expect_eof [TIMEOUT]: the monitor's stdout must close (no more lines).
expect_eof() {
	recv "${1:-$TEST_TIMEOUT}"
	case $? in
	0) fail "expected EOF, got: ${LINE:0:2000}" ;;
	2) fail "expected EOF, still open after ${1:-$TEST_TIMEOUT}s" ;;
	esac
}

# request ID METHOD [PARAMS-JSON]: sends a JSON-RPC request.
request() {
	if [ $# -ge 3 ]; then
		send "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"$2\",\"params\":$3}"
	else
		send "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"$2\"}"
	fi
}

# call ID TOOL [ARGUMENTS-JSON]: sends tools/call.
call() {
	local args=${3:-}

	[ -n "$args" ] || args='{}'
	request "$1" tools/call "{\"name\":\"$2\",\"arguments\":$args}"
}

# Filters for the usual answers.  Ids are JSON text: 5 or "\"s\"".
f_result() {		# ID
	echo ".id == $1 and (.result | type) == \"object\" and (has(\"error\") | not)"
}
f_error() {		# ID CODE
	echo ".id == $1 and .error.code == $2 and (.error.message | type) == \"string\" and (has(\"result\") | not)"
}
f_text() {		# ID TEXT: a successful tool result whose first text is TEXT
	echo "$(f_result "$1") and (.result.isError // false) == false and .result.content[0].type == \"text\" and .result.content[0].text == $(jq -n --arg t "$2" '$t')"
}
f_blocked() {		# ID: bouncer's denial result
	echo "$(f_result "$1") and .result.isError == true and (.result.content | length) == 1 and .result.content[0].type == \"text\" and (.result.content[0].text | startswith(\"[bouncer blocked] \"))"
}

# ping_ok ID: the session is alive and answers ping with {}.
ping_ok() {
	request "$1" ping
	expect_line ".id == $1 and .result == {}"
}

# initialize_req ID VERSION [CAPABILITIES-JSON]
initialize_req() {
	local caps=${3:-}

	[ -n "$caps" ] || caps='{"elicitation":{},"roots":{"listChanged":true}}'
	request "$1" initialize "{\"protocolVersion\":\"$2\",\"capabilities\":$caps,\"clientInfo\":{\"name\":\"bouncer-regress\",\"version\":\"1.0\"}}"
}

# handshake [CAPABILITIES-JSON]: initialize (2025-11-25, id 0) and
# notifications/initialized; the answer must be bouncer's.
handshake() {
	initialize_req 0 2025-11-25 "${1:-}"
	expect_line '.jsonrpc == "2.0" and .id == 0 and
	    .result.protocolVersion == "2025-11-25" and
	    .result.serverInfo.name == "bouncer" and
	    (.result.serverInfo.version | type) == "string" and
	    .result.capabilities.tools.listChanged == true' \
	    "$TEST_START_TIMEOUT"
	send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
}

# list_tools: every tool name bouncer lists, one per line, in
# $TESTDIR/tools.txt (following nextCursor; fails on a loop).
list_tools() {
	local cursor='' id=900 pages=0

	: >"$TESTDIR/tools.txt"
	while :; do
		if [ -n "$cursor" ]; then
			request "$id" tools/list "{\"cursor\":$cursor}"
		else
			request "$id" tools/list
		fi
		expect_line "$(f_result "$id") and (.result.tools | type) == \"array\""
		jget '.result.tools[].name' >>"$TESTDIR/tools.txt"
		cursor=$(jget '.result.nextCursor // empty | tojson')
		[ -n "$cursor" ] || break
		pages=$((pages + 1))
		id=$((id + 1))
		[ "$pages" -lt 1000 ] || fail "tools/list: more than 1000 pages"
	done
}

# has_tool NAME: NAME is in the last list_tools output.
has_tool() {
	grep -qxF "$1" "$TESTDIR/tools.txt"
}

# mock_calls LOG: the tools/call lines a mock received, as
# "ID NAME" per line.
mock_calls() {
	[ -f "$1" ] || return 0
	jq -rc 'select(.method == "tools/call") | "\(.id) \(.params.name)"' "$1"
}

# start_work_mock NAME ARGS...: mock-work ARGS (a loopback Notion,
# GitHub or Slack) with its port in $TESTDIR/NAME.port and its request
# log in $TESTDIR/NAME.log; sets PORT.  Killed at the end of the test.
start_work_mock() {
	local name=$1 i
	shift
	"$top_builddir/regress/mocks/mock-work" -P "$TESTDIR/$name.port" \
	    -l "$TESTDIR/$name.log" "$@" 2>>"$TESTDIR/$name.err" &
	WORK_MOCK_PIDS="$WORK_MOCK_PIDS $!"
	for i in $(seq 50); do
		[ -s "$TESTDIR/$name.port" ] && break
		sleep 0.1
	done
	PORT=$(cat "$TESTDIR/$name.port" 2>/dev/null) ||
	    fail "mock $name did not start: $(cat "$TESTDIR/$name.err")"
	echo "$PORT" | grep -qE '^[0-9]+$' || fail "mock $name: port '$PORT'"
}

# work_libexec DIR: DIR holds the build's worker and carriers, for
# BOUNCER_LIBEXEC (the build tree keeps them in two directories).
work_libexec() {
	local b
	mkdir -m 755 "$1" || fail "cannot make $1"
	ln -s "$top_builddir/worker/bouncer-worker" "$1/" || fail "ln worker"
	for b in notion github slack; do
		ln -s "$top_builddir/carrier/bouncer-carrier-$b" "$1/" ||
		    fail "ln carrier $b"
	done
}

# write_config FILE: stdin to FILE (a bouncer.yaml).
write_config() {
	cat >"$1"
}

# mail_session ARGS: a session of two upstreams, `other' (mock-upstream
# with ARGS, a YAML flow sequence, as its arguments) and `mail'
# (mock-mail, logging to $TESTDIR/mail.log), under the policy on stdin,
# for a client that declared elicitation.
mail_session() {
	write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
policy: $TESTDIR/policy.yaml
upstreams:
  other: { command: "$MOCK", args: $1 }
  mail: { command: "$MAIL", args: [-l, "$TESTDIR/mail.log"] }
YAML
	write_config "$TESTDIR/policy.yaml"
	start_monitor -f "$TESTDIR/bouncer.yaml"
	handshake '{"elicitation":{}}'
}

# send_tainted ID ADDRESS: send_email to ADDRESS is denied as tainted.
send_tainted() {
	call "$1" send_email "{\"to\":\"$2\",\"body\":\"x\"}"
	expect_line "$(f_blocked "$1") and (.result.content[0].text | contains(\"came from untrusted data\"))"
}

# no_mail_sent: the mail server of mail_session got no call.
no_mail_sent() {
	[ -z "$(mock_calls "$TESTDIR/mail.log")" ] ||
	    fail "the mail server got: $(mock_calls "$TESTDIR/mail.log")"
}

# start_mail: bouncer-monitor with mock-mail alone (upstream `mail',
# logging to $TESTDIR/mail.log) under the policy on stdin.
start_mail() {
	write_config "$TESTDIR/policy.yaml"
	start_monitor -P "$TESTDIR/policy.yaml" -n mail -- "$MAIL" \
	    -l "$TESTDIR/mail.log"
}

# answer ID ACTION: the human's answer (accept, decline, cancel) to an
# elicitation/create bouncer sent.
answer() {
	reply "$1" "{\"action\":\"$2\"}"
}

# reply ID RESULT-JSON: the client's answer to a request bouncer sent it.
reply() {
	send "{\"jsonrpc\":\"2.0\",\"id\":$1,\"result\":$2}"
}

# mock_tools [MOCK-ARGS...]: the mock's own tools/list (one page, asked
# directly, without bouncer) as a JSON array on one line.
mock_tools() {
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' |
	    timeout 5 "$MOCK" "$@" 2>/dev/null | jq -c '.result.tools'
}

# mock_methods LOG: the methods a mock received, one per line (answers
# to its own requests show as "(response)").
mock_methods() {
	[ -f "$1" ] || return 0
	jq -r '.method // "(response)"' "$1"
}

# write_script NAME: stdin (a mock-script script, JSON) to $TESTDIR/NAME.json.
write_script() {
	cat >"$TESTDIR/$1.json"
}

# start_script NAME [MONITOR-ARGS...]: bouncer-monitor with one upstream
# NAME, mock-script running $TESTDIR/NAME.json and logging to
# $TESTDIR/NAME.log, under the policy on stdin.
start_script() {
	local name=$1

	shift
	write_config "$TESTDIR/policy.yaml"
	start_monitor -P "$TESTDIR/policy.yaml" "$@" -n "$name" -- "$SCRIPT" \
	    -s "$TESTDIR/$name.json" -l "$TESTDIR/$name.log"
}

# script_calls NAME: the tools/call lines upstream NAME received, as
# "ID TOOL ARGUMENTS-JSON" per line.
script_calls() {
	[ -f "$TESTDIR/$1.log" ] || return 0
	jq -rc 'select(.method == "tools/call") |
	    "\(.id) \(.params.name) \(.params.arguments // {} | tojson)"' \
	    "$TESTDIR/$1.log"
}
