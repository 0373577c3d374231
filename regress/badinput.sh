#!/usr/bin/env bash
#
# regress/badinput.sh - replays the bad-input corpus, regress/badinput/:
# every kind of malformed line a client or an upstream can send, one
# file each, with the answer it must get.  After each client line the
# session still answers ping and nothing reached any upstream (unless
# the case says it is forwarded); after each upstream line the client
# saw nothing of it (or the call it answered failed with -32603), the
# monitor's log says what was dropped, and the upstream still serves
# calls.  max_message is 4096 here, so sizes are tried at and past it.
#
# A case file is a header, a line "%%", and the bytes to send, as they
# are (the body may hold any byte; the last line ends with a newline).
# Header lines, "key: value":
#
#   what:      what is wrong with it (required)
#   want:      one per answer, in order (required):
#              client side
#                error CODE ID [MESSAGE]  a JSON-RPC error with that code
#                                         and id (JSON text), and that
#                                         exact message if given
#                result ID                a result: served as usual
#                blocked ID TEXT          bouncer's denial, "[bouncer
#                                         blocked] TEXT"
#                none                     no answer at all
#              upstream side (the body is written by the upstream
#              before its answer to the call that asked for it; @ID@
#              in it is that call's id)
#                dropped                  the client sees nothing of it
#                                         and the call gets its answer
#                fails MESSAGE            the call fails: -32603 "upstream
#                                         up sent an answer bouncer cannot
#                                         use (MESSAGE)"
#                replied CODE ID          bouncer answered the upstream's
#                                         request ID with error CODE
#   log:       a line the monitor's log must gain, "upstream up: " after
#              its tag (upstream side; one per line expected)
#   phase:     preinit: sent before initialize (client side)
#   forwarded: yes: the call reaches the upstream (client side)
#   pad:       N: each @PAD@ in the body becomes as many x's as make its
#              first line N bytes long
#   deviation: where bouncer knowingly answers otherwise than the spec
#
# The class of a case is its file name up to the first "-".
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

CORPUS=$top_srcdir/regress/badinput
MAX=4096
other=$TESTDIR/other.log
up=$TESTDIR/up.log
[ -d "$CORPUS/client" ] && [ -d "$CORPUS/upstream" ] ||
    fail "no corpus in $CORPUS"

write_script up <<'JSON'
{"tools":[
  {"name":"emit","inputSchema":{"type":"object",
   "properties":{"file":{"type":"string"}}}},
  {"name":"note","inputSchema":{"type":"object",
   "properties":{"text":{"type":"string"}}}}],
 "emit":{"emit":true}}
JSON
write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
max_message: $MAX
upstreams:
  other: { command: "$MOCK", args: [-l, "$other"] }
  up: { command: "$SCRIPT", args: [-s, "$TESTDIR/up.json", -l, "$up"] }
YAML
# -d: what is dropped quietly (an answer to no request) is logged too
start_monitor -d -f "$TESTDIR/bouncer.yaml"

# Byte semantics for ${#...} and the corpus's bytes.
export LC_ALL=C

# Fast and exact: answers are compared with bouncer's rendering as text,
# and only when that differs (a new key order, say) judged by jq.
# jstr VAR TEXT: VAR becomes TEXT as a JSON string (ASCII; no controls)
jstr() {
	local s=${2//\\/\\\\}

	s=${s//\"/\\\"}
	printf -v "$1" '"%s"' "$s"
}

# t_answer VAR ID MEMBER VALUE: VAR becomes bouncer's answer line with
# MEMBER (result or error) VALUE, as it renders it
t_answer() {
	printf -v "$1" '{"jsonrpc":"2.0","id":%s,"%s":%s}' "$2" "$3" "$4"
}

# t_text VAR ID STRING [,"isError":true]: a tool result of one text
t_text() {
	t_answer "$1" "$2" result \
	    "{\"content\":[{\"type\":\"text\",\"text\":$3}]${4:-}}"
}

# answer_is TEXT COMMAND...: LINE is TEXT, or holds the jq filter that
# COMMAND prints (run only then: the filter builders fork)
answer_is() {
	local text=$1

	shift
	[ "$LINE" = "$text" ] || jcheck "$("$@")"
}

# ---------------------------------------------------------------------
# Reading a case.
# ---------------------------------------------------------------------
CASE=
WHAT=
PHASE=
FORWARDED=
PAD=
BODY=
WANTS=()
LOGS=()

case_fail() {
	fail "$CASE ($WHAT): $*"
}

# case_load FILE: the header into the variables above; BODY is the
# byte offset of the body in FILE, or, with pad:, a file holding it.
case_load() {
	local f=$1 off=0 line key val body n

	CASE=${f#"$CORPUS"/}
	WHAT= PHASE=ready FORWARDED=no PAD= BODY= WANTS=() LOGS=()
	while IFS= read -r line; do
		off=$((off + ${#line} + 1))
		[ "$line" = %% ] && break
		key=${line%%:*}
		val=${line#*: }
		[ "$key" != "$line" ] && [ "$val" != "$line" ] ||
		    fail "$CASE: bad header line: $line"
		case $key in
		what) WHAT=$val ;;
		want) WANTS+=("$val") ;;
		log) LOGS+=("$val") ;;
		phase) PHASE=$val ;;
		forwarded) FORWARDED=$val ;;
		pad) PAD=$val ;;
		deviation) ;;
		*) fail "$CASE: unknown header key '$key'" ;;
		esac
	done <"$f"
	[ "$line" = %% ] || fail "$CASE: no %% line"
	[ -n "$WHAT" ] && [ "${#WANTS[@]}" -gt 0 ] ||
	    fail "$CASE: no what: or no want:"
	BODY=$((off + 1))
	[ -n "$PAD" ] || return 0
	body=$(tail -c +"$BODY" "$f")
	line=${body%%$'\n'*}
	n=$((PAD - ${#line} + 5))
	[ "$n" -ge 0 ] || fail "$CASE: pad $PAD is shorter than the line"
	BODY=$TESTDIR/padded
	printf '%s\n' "${body//@PAD@/$(head -c "$n" /dev/zero | tr '\0' x)}" \
	    >"$BODY"
	[ "$(head -n 1 "$BODY" | wc -c)" = $((PAD + 1)) ] ||
	    fail "$CASE: test bug: the padded line is not $PAD bytes"
}

# case_body FILE: the body's bytes on stdout
case_body() {
	if [ -n "$PAD" ]; then
		cat "$BODY"
	else
		tail -c +"$BODY" "$1"
	fi
}

# new_lines FD: NEW, the lines FD (a log, read as it grows) has gained
NEW=()
new_lines() {
	local l

	NEW=()
	while IFS= read -r -u "$1" l; do
		NEW+=("$l")
	done
}

# log_count TEXT: lines of the monitor's log that are exactly TEXT,
# said of upstream `up'
log_count() {
	grep -cxF "bouncer-monitor: upstream up: $1" "$MONLOG"
}

# ---------------------------------------------------------------------
# The client side.
# ---------------------------------------------------------------------
pid=1000
: >"$other"
exec {otherfd}<"$other"

# client_want WANT: the next line is that answer
client_want() {
	local kind rest code id msg text filter

	kind=${1%% *}
	rest=${1#* }
	case $kind in
	error)
		read -r code id msg <<<"$rest"
		filter="$(f_error "$id" "$code") and .jsonrpc == \"2.0\""
		text=
		if [ -n "$msg" ]; then
			jstr msg "$msg"
			t_answer text "$id" error "{\"code\":$code,\"message\":$msg}"
			filter="$filter and .error.message == $msg"
		fi ;;
	result)
		t_answer text "$rest" result '{}'
		filter="$(f_result "$rest") and .jsonrpc == \"2.0\"" ;;
	blocked)
		id=${rest%% *}
		jstr msg "[bouncer blocked] ${rest#* }"
		t_text text "$id" "$msg" ',"isError":true'
		filter="$(f_blocked "$id") and .result.content[0].text == $msg" ;;
	none)
		return 0 ;;
	*)
		fail "$CASE: unknown want '$1'" ;;
	esac
	recv
	case $? in
	1) case_fail "expected $1, got EOF" ;;
	2) case_fail "expected $1, got nothing in ${TEST_TIMEOUT}s" ;;
	esac
	answer_is "$text" echo "$filter" ||
	    case_fail "expected $1, got: ${LINE:0:500}"
}

# client_case FILE
client_case() {
	local w n text

	case_load "$1"
	case_body "$1" >&"$MON_IN" ||
	    case_fail "cannot write to the monitor (did it exit?)"
	for w in "${WANTS[@]}"; do
		client_want "$w"
	done
	# the next line is the ping's: nothing else was answered
	pid=$((pid + 1))
	request "$pid" ping
	recv || case_fail "no answer to the ping after it"
	t_answer text "$pid" result '{}'
	answer_is "$text" echo ".id == $pid and .result == {}" ||
	    case_fail "after it, the ping got: ${LINE:0:500}"
	new_lines "$otherfd"
	n=${#NEW[@]}
	if [ "$FORWARDED" = yes ]; then
		[ "$n" = 1 ] &&
		    printf '%s\n' "${NEW[0]}" | jq_one '.method == "tools/call"' ||
		    case_fail "the upstream got $n lines, want the call"
	else
		[ "$n" = 0 ] ||
		    case_fail "it reached the upstream: $(printf '%s\n' "${NEW[@]}")"
	fi
	count_class client "$1"
}

# ---------------------------------------------------------------------
# The upstream side: `up' writes the body before its answer to emit.
# ---------------------------------------------------------------------
cid=5000
: >"$up"
exec {upfd}<"$up"

# upstream_case FILE
upstream_case() {
	local w l n i got replied=0 code id body emitted msg text
	local -a before=()

	case_load "$1"
	cid=$((cid + 1))
	body=$TESTDIR/emit-$cid
	case_body "$1" >"$body"
	for i in "${!LOGS[@]}"; do
		before[i]=$(log_count "${LOGS[i]}")
	done
	call "$cid" emit "{\"file\":\"$body\"}"
	jstr msg "emit {\"file\":\"$body\"}"
	t_text emitted "$cid" "$msg"
	for w in "${WANTS[@]}"; do
		recv || case_fail "expected $w, got nothing"
		case $w in
		dropped | replied\ *)
			[ "$w" = dropped ] || replied=$((replied + 1))
			answer_is "$emitted" \
			    f_text "$cid" "emit {\"file\":\"$body\"}" ;;
		fails\ *)
			jstr msg "upstream up sent an answer bouncer cannot \
use (${w#fails })"
			t_answer text "$cid" error \
			    "{\"code\":-32603,\"message\":$msg}"
			answer_is "$text" echo "$(f_error "$cid" -32603) and
			    .error.message == $msg" ;;
		*)
			fail "$CASE: unknown want '$w'" ;;
		esac || case_fail "expected $w, got: ${LINE:0:500}"
	done
	# the next line is the note's: nothing else reached the client
	call $((cid + 500)) note '{"text":"still here"}'
	recv || case_fail "no answer to the call after it"
	jstr msg 'note {"text":"still here"}'
	t_text text $((cid + 500)) "$msg"
	answer_is "$text" \
	    f_text $((cid + 500)) 'note {"text":"still here"}' ||
	    case_fail "after it, the call got: ${LINE:0:500}"
	for i in "${!LOGS[@]}"; do
		l=${LOGS[i]}
		got=$(($(log_count "$l") - before[i]))
		[ "$got" -ge 1 ] || case_fail "the log did not say: $l"
	done
	# the upstream heard the two calls, and the answers to its requests
	new_lines "$upfd"
	n=${#NEW[@]}
	[ "$n" = $((2 + replied)) ] ||
	    case_fail "the upstream got $n lines, want $((2 + replied)):
$(printf '%s\n' "${NEW[@]}")"
	for w in "${WANTS[@]}"; do
		case $w in
		replied\ *)
			read -r code id <<<"${w#replied }"
			printf '%s\n' "${NEW[@]}" | jq -e -s --argjson id "$id" \
			    --argjson c "$code" 'map(select(.id == $id and
			    .error.code == $c and (has("result") | not))) |
			    length == 1' >/dev/null ||
			    case_fail "the upstream was not answered $code for $id" ;;
		esac
	done
	count_class upstream "$1"
}

# ---------------------------------------------------------------------
# Counts by side and class, for the record.
# ---------------------------------------------------------------------
declare -A classes=()
count_class() {
	local c=${2##*/}

	c=$1/${c%%-*}
	classes[$c]=$((${classes[$c]:-0} + 1))
}

preinit=()
ready=()
for f in "$CORPUS"/client/*.case; do
	if grep -a -q -m1 -x 'phase: preinit' "$f"; then
		preinit+=("$f")
	else
		ready+=("$f")
	fi
done

# Before initialize: still only ping (and a good initialize) is served.
for f in "${preinit[@]}"; do
	client_case "$f"
done
handshake
new_lines "$otherfd"
for f in "${ready[@]}"; do
	client_case "$f"
done
new_lines "$upfd"
for f in "$CORPUS"/upstream/*.case; do
	upstream_case "$f"
done

# None of the client's lines reached the upstream but the forwarded calls;
# a good call still does.
call 33 echo '{"message":"still here"}'
expect_line "$(f_text 33 "still here")"
got=$(mock_methods "$other" | sort -u | tr '\n' ' ')
[ "$got" = "initialize notifications/initialized tools/call tools/list " ] ||
    fail "the upstream received unexpected methods: $got"
want=$(grep -a -l -x 'forwarded: yes' "$CORPUS"/client/*.case | wc -l)
n=$(mock_calls "$other" | wc -l)
[ "$n" = $((want + 1)) ] || fail "the upstream got $n calls, want $((want + 1))"
for c in $(printf '%s\n' "${!classes[@]}" | sort); do
	log "$c: ${classes[$c]} cases"
done
pass
