#!/usr/bin/env bash
#
# regress/constraints-links.sh - path confinement judges a path where the
# server will act on it, through the real binaries: a dangling link by
# its target, a chain to its end, a loop never; ".." after a link both as
# the kernel and lexically; a leading "~" as the upstream's HOME (its
# configured env, else the monitor's), denied when there is none; "~user"
# both as that user's home and as a relative name.  The upstream never
# receives a denied call, and every decision has its audit row.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd getent
A=$TESTDIR/allowed
mkdir -p "$A/sub" "$TESTDIR/secret/deep" "$TESTDIR/home/out" \
    "$TESTDIR/work"
ln -s "$TESTDIR/secret/cron-job" "$A/dangle"	# absolute, absent
ln -s ../secret/new.txt "$A/dangle-rel"		# relative, absent
ln -s ../secret/newdir "$A/mid"			# a missing directory
ln -s c2 "$A/c1"				# a chain out
ln -s ../secret/c "$A/c2"
ln -s loop2 "$A/loop1"				# a loop
ln -s loop1 "$A/loop2"
ln -s ../secret/deep "$A/esc"			# its ".." is secret
ln -s sub/fresh.txt "$A/ok-dangle"		# dangling, inside
ln -s sub "$A/inner"
# "~$me/x" is outside as $me's home, inside as cwd/~$me/x.
me=$(id -un)
[ -n "$(getent passwd "$me" | cut -d: -f6)" ] ||
    skip "the password database has no home for $me"

# session CONFIG-ENV-LINES LOG: a monitor whose one upstream `fs' (the
# mock, logging to LOG) starts in $TESTDIR/work with CONFIG-ENV-LINES.
session() {
	write_config "$TESTDIR/bouncer.yaml" <<YAML
state_dir: $BOUNCER_STATE_DIR
policy: $TESTDIR/policy.yaml
upstreams:
  fs:
    command: "$MOCK"
    args: [-l, "$2"]
    cwd: "$TESTDIR/work"
$1
YAML
	start_monitor -f "$TESTDIR/bouncer.yaml"
	handshake '{}'
}

write_config "$TESTDIR/policy.yaml" <<YAML
echo:
  write_params: [message]
  allowed_path_prefixes: ["$A", "$TESTDIR/home/out", "."]
YAML
prefixes="['$A', '$TESTDIR/home/out', '.']"

# allowed: echo_ok ID PATH
echo_ok() {
	call "$1" echo "$(jq -nc --arg m "$2" '{message: $m}')"
	expect_line "$(f_text "$1" "$2")"
}
# denied: echo_no ID PATH [REASON-TAIL]; the reason is the ordinary one,
# or ends with ": REASON-TAIL".
echo_no() {
	local want

	want="[bouncer blocked] message='$2' outside allowed prefixes $prefixes"
	[ $# -ge 3 ] && want="$want: $3"
	call "$1" echo "$(jq -nc --arg m "$2" '{message: $m}')"
	expect_line "$(f_blocked "$1") and
	    .result.content[0].text == $(jq -n --arg t "$want" '$t')"
}

# 1. The upstream's HOME is its configured one.
session "    env: { HOME: \"$TESTDIR/home\" }" "$TESTDIR/up1.log"
echo_ok 1 "$A/sub/new.txt"
echo_ok 2 "$A/ok-dangle"
echo_ok 3 "$A/inner/../x"
echo_ok 4 "~/out/x"
echo_ok 5 "notes/x"
echo_no 6 "$A/dangle"
echo_no 7 "$A/dangle-rel"
echo_no 8 "$A/mid/x"
echo_no 9 "$A/c1"
echo_no 10 "$A/loop1/x" "too many symbolic links"
echo_no 11 "$A/esc/../x"
echo_no 12 "~/x"
echo_no 13 "~/out/../../secret/x"
echo_no 14 "~$me/x"
echo_no 15 "~no-such-user.bouncer/x" "'~' cannot be expanded: no such user"
ping_ok 16
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"

# 2. No HOME anywhere: "~" cannot be known, and is denied.
unset HOME
session "" "$TESTDIR/up2.log"
echo_no 21 "~/out/x" "'~' cannot be expanded: the server's home is unknown"
echo_no 22 "~" "'~' cannot be expanded: the server's home is unknown"
echo_ok 23 "$A/sub/y"
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"

# bouncer renumbers the calls it forwards: compare tools and paths.
got=$(mock_calls "$TESTDIR/up1.log" | awk '{print $2}' | tr '\n' ' ')
[ "$got" = "echo echo echo echo echo " ] ||
    fail "the first upstream received: $got"
got=$(jq -r 'select(.method == "tools/call") | .params.arguments.message' \
    "$TESTDIR/up1.log" | tr '\n' ' ')
[ "$got" = "$A/sub/new.txt $A/ok-dangle $A/inner/../x ~/out/x notes/x " ] ||
    fail "the first upstream received: $got"
got=$(jq -r 'select(.method == "tools/call") | .params.arguments.message' \
    "$TESTDIR/up2.log" | tr '\n' ' ')
[ "$got" = "$A/sub/y " ] || fail "the second upstream received: $got"
grep -q -e secret -e loop -e '~/x' "$TESTDIR/up1.log" "$TESTDIR/up2.log" &&
    fail "a denied path reached an upstream"

# One row per decision, in order, each denial with its reason.
db=$BOUNCER_STATE_DIR/audit.db
"$AUDIT" -D "$db" -V >/dev/null || fail "bouncer-audit -V: chain broken"
"$AUDIT" -D "$db" -j -T echo | jq -e -s '
    length == 18 and
    [.[].verdict] == ["allow","allow","allow","allow","allow",
	"deny","deny","deny","deny","deny","deny","deny","deny","deny","deny",
	"deny","deny","allow"] and
    ([.[] | select(.verdict == "deny") | .contract] | unique) ==
	["constraint"] and
    ([.[] | select(.verdict == "deny") | .reason |
	contains("outside allowed prefixes")] | all)' >/dev/null ||
    fail "audit rows do not match: $("$AUDIT" -D "$db" -j -T echo)"
pass
