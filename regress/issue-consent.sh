#!/usr/bin/env bash
#
# regress/issue-consent.sh - bouncer-issue-consent(8), its -G and signing
# half, through the real binary: -G writes a 0600 secret and a 0644
# public key and never overwrites them; a token signed with -y is
# accepted by monitor/consent.c (regress/mocks/consent-verify) for its
# own agent, tool, target and exact text and refused with the monitor's
# reason for any other; an upstream tool's -t PARAM=VALUE target is the
# canonical JSON object, whatever the order given; -e is held to
# consent.max_ttl and to 24 hours; stdout holds the token alone; the
# display makes a bidi override visible and prints the text's SHA-256;
# without -y and without a terminal nothing is signed, and on one (with
# script(1)) only the terminal's "y" signs, whatever stdin holds; a secret
# key that others can read, and a text that is not UTF-8, are refused.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

ISSUE=$top_builddir/monitor/bouncer-issue-consent
VERIFY=$top_builddir/regress/mocks/consent-verify
[ -x "$ISSUE" ] || fail "no bouncer-issue-consent at $ISSUE (build it first)"
[ -x "$VERIFY" ] || fail "no consent-verify at $VERIFY (make check builds it)"
require_cmd stat sha256sum setsid

OUT=$TESTDIR/out
ERR=$TESTDIR/err
KEYS=$TESTDIR/keys
KEY=$KEYS/admin.key
CFG=$TESTDIR/bouncer.yaml
TEXT=$TESTDIR/text
TOOL=post_human_authored_comment
TARGET='github:corp/app#12'
mkdir -p "$KEYS"
printf 'consent: { max_ttl: 3600 }\n' >"$CFG"
printf 'Shipped in 1.4' >"$TEXT"

# run ARGS...: bouncer-issue-consent ARGS, no terminal; status in RC.
run() {
	timeout 20 setsid -w "$ISSUE" "$@" </dev/null >"$OUT" 2>"$ERR"
	RC=$?
	[ "$RC" != 124 ] || fail "bouncer-issue-consent $* hung"
}

# sign ARGS...: must succeed with the token alone on stdout, in TOKEN.
sign() {
	run "$@"
	[ "$RC" = 0 ] || fail "bouncer-issue-consent $* exited $RC:
$(cat "$OUT" "$ERR")"
	[ "$(wc -l <"$OUT")" = 1 ] || fail "stdout of $* is not one line:
$(cat "$OUT")"
	TOKEN=$(cat "$OUT")
	[[ $TOKEN =~ ^bct1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$ ]] ||
	    fail "stdout of $* is no token: $TOKEN"
}

# refused WANT ARGS...: must exit 1 with nothing on stdout, saying WANT.
refused() {
	local want=$1

	shift
	run "$@"
	[ "$RC" = 1 ] || fail "bouncer-issue-consent $* exited $RC, want 1:
$(cat "$OUT" "$ERR")"
	[ ! -s "$OUT" ] || fail "bouncer-issue-consent $* wrote to stdout:
$(cat "$OUT")"
	grep -qF -- "$want" "$ERR" ||
	    fail "bouncer-issue-consent $*: no \"$want\" in:
$(cat "$ERR")"
}

# verdict WANT [-l] AGENT TOOL TARGET TEXTFILE: consent-verify of TOKEN
# with the keys in KEYS must print WANT.
verdict() {
	local want=$1 got

	shift
	got=$("$VERIFY" "$TOKEN" "$KEYS" "$@")
	[ "$got" = "$want" ] ||
	    fail "consent-verify $*: \"$got\", want \"$want\""
}

# --- -G: a key pair, 0600 and 0644, never overwritten ----------------
run -G -k "$KEY"
[ "$RC" = 0 ] || fail "-G exited $RC: $(cat "$ERR")"
[ ! -s "$OUT" ] || fail "-G wrote to stdout: $(cat "$OUT")"
[ "$(stat -c %a "$KEY")" = 600 ] || fail "secret key mode $(stat -c %a "$KEY")"
[ "$(stat -c %a "$KEY.pub")" = 644 ] ||
    fail "public key mode $(stat -c %a "$KEY.pub")"
grep -qF "$KEY.pub" "$ERR" && grep -qF consent.keys "$ERR" ||
    fail "-G does not say where $KEY.pub goes: $(cat "$ERR")"
cp "$KEY" "$TESTDIR/key.before"
refused "never overwritten" -G -k "$KEY"
cmp -s "$KEY" "$TESTDIR/key.before" || fail "a second -G changed $KEY"

# without -k: beside bouncer.yaml, its directory made 0700
run -G
[ "$RC" = 0 ] || fail "-G without -k exited $RC: $(cat "$ERR")"
[ -f "$XDG_CONFIG_HOME/bouncer/consent.key" ] ||
    fail "no $XDG_CONFIG_HOME/bouncer/consent.key"
[ "$(stat -c %a "$XDG_CONFIG_HOME/bouncer")" = 700 ] ||
    fail "$XDG_CONFIG_HOME/bouncer is not 0700"

# --- a token for the built-in tool, and every way it is refused ------
sign -y -a ci-bot -t "$TARGET" -m 'Shipped in 1.4' -k "$KEY" -f "$CFG"
verdict ok ci-bot "$TOOL" "$TARGET" "$TEXT"
printf 'Shipped in 1.5' >"$TESTDIR/other"
verdict "tampered text" ci-bot "$TOOL" "$TARGET" "$TESTDIR/other"
verdict "wrong agent" other-bot "$TOOL" "$TARGET" "$TEXT"
verdict "wrong target" ci-bot "$TOOL" 'github:corp/app#13' "$TEXT"
verdict "wrong tool" ci-bot send_external_message "$TARGET" "$TEXT"
# the default key is another key: its tokens are unknown here
sign -y -a ci-bot -t "$TARGET" -m 'Shipped in 1.4' -f "$CFG"
verdict "unknown key" ci-bot "$TOOL" "$TARGET" "$TEXT"

# -F binds the file's exact bytes: its newline too
printf 'Shipped in 1.4\n' >"$TESTDIR/nl"
sign -y -a ci-bot -t "$TARGET" -F "$TESTDIR/nl" -k "$KEY" -f "$CFG"
verdict ok ci-bot "$TOOL" "$TARGET" "$TESTDIR/nl"
verdict "tampered text" ci-bot "$TOOL" "$TARGET" "$TEXT"

# send_external_message takes the channel as its target
sign -y -a ci-bot -T send_external_message -t releases -m 'Shipped' \
    -k "$KEY" -f "$CFG"
printf 'Shipped' >"$TESTDIR/shipped"
verdict ok ci-bot send_external_message releases "$TESTDIR/shipped"
refused "takes no consent token" -y -a ci-bot -T read_task -t notion:ab \
    -m x -k "$KEY" -f "$CFG"
refused "not notion:" -y -a ci-bot -t 'github:corp/app' -m x -k "$KEY" \
    -f "$CFG"

# --- an upstream tool: the canonical JSON of the -t PARAM=VALUE ------
CANON='{"issue_number":12,"owner":"corp","repo":"app"}'
sign -y -a ci-bot -T add_issue_comment -t owner=corp -t repo=app \
    -t issue_number=12 -m 'Shipped in 1.4' -k "$KEY" -f "$CFG"
verdict ok ci-bot add_issue_comment "$CANON" "$TEXT"
verdict "wrong target" ci-bot add_issue_comment \
    '{"issue_number":"12","owner":"corp","repo":"app"}' "$TEXT"
grep -qF "$CANON" "$ERR" || fail "the display does not show $CANON"
sign -y -a ci-bot -T add_issue_comment -t issue_number=12 -t repo=app \
    -t owner=corp -m 'Shipped in 1.4' -k "$KEY" -f "$CFG"
verdict ok ci-bot add_issue_comment "$CANON" "$TEXT"
# a VALUE that parses as JSON is JSON, at any depth, keys sorted there too
sign -y -a ci-bot -T t -t 'labels=["a",1]' -t 'n="12"' \
    -t 'o={"b":true,"a":null}' -m 'Shipped in 1.4' -k "$KEY" -f "$CFG"
verdict ok ci-bot t '{"labels":["a",1],"n":"12","o":{"a":null,"b":true}}' \
    "$TEXT"
refused "owner given twice" -y -a ci-bot -T add_issue_comment \
    -t owner=corp -t owner=evil -t repo=app -m x -k "$KEY" -f "$CFG"
refused "PARAM=VALUE" -y -a ci-bot -T add_issue_comment -t corp -m x \
    -k "$KEY" -f "$CFG"

# --- lifetimes: consent.max_ttl, 24 hours, and the units --------------
refused "3600" -y -a ci-bot -t "$TARGET" -m x -e 2h -k "$KEY" -f "$CFG"
refused "24 hours" -y -a ci-bot -t "$TARGET" -m x -e 25h -k "$KEY" -f "$CFG"
refused "not a lifetime" -y -a ci-bot -t "$TARGET" -m x -e 1d -k "$KEY" \
    -f "$CFG"
for e in 90s:90 10m:600 1h:3600 45:45; do
	sign -y -a ci-bot -t "$TARGET" -m 'Shipped in 1.4' -e "${e%:*}" \
	    -k "$KEY" -f "$CFG"
	got=$("$VERIFY" -l "$TOKEN" "$KEYS" ci-bot "$TOOL" "$TARGET" "$TEXT" |
	    tr '\n' ' ')
	[ "$got" = "ok ttl ${e#*:} " ] || fail "-e ${e%:*}: $got"
done
# the default: 600 seconds
sign -y -a ci-bot -t "$TARGET" -m 'Shipped in 1.4' -k "$KEY" -f "$CFG"
got=$("$VERIFY" -l "$TOKEN" "$KEYS" ci-bot "$TOOL" "$TARGET" "$TEXT" |
    tr '\n' ' ')
[ "$got" = "ok ttl 600 " ] || fail "no -e: $got"

# --- the display: a bidi override made visible, the text's SHA-256 ---
printf 'Ship \xe2\x80\xaeit\ttoday\n' >"$TESTDIR/bidi"
sign -y -a ci-bot -t "$TARGET" -F "$TESTDIR/bidi" -k "$KEY" -f "$CFG"
verdict ok ci-bot "$TOOL" "$TARGET" "$TESTDIR/bidi"
grep -qF 'Ship \u202Eit\ttoday\n' "$ERR" ||
    fail "the display does not show the U+202E: $(cat "$ERR")"
if LC_ALL=C grep -q $'\xe2\x80\xae' "$ERR"; then
	fail "the display holds a raw U+202E"
fi
sum=$(sha256sum "$TESTDIR/bidi" | cut -d' ' -f1)
grep -qF "$sum" "$ERR" || fail "the display has no SHA-256 $sum"
grep -qF ci-bot "$ERR" && grep -qF "$TARGET" "$ERR" && grep -q UTC "$ERR" ||
    fail "the display lacks the agent, target or expiry: $(cat "$ERR")"

# --- no terminal and no -y: nothing signed ---------------------------
refused "no terminal" -a ci-bot -t "$TARGET" -m x -k "$KEY" -f "$CFG"

# --- on a terminal (script(1), when installed): the answer is the
# terminal's, never stdin's, which here carries the text "y\n" ---------
# on_tty ANSWER: sign the text "y\n" from stdin, answering ANSWER on a
# pseudo-terminal (repeated: input typed before the question is
# discarded); status in RC, stdout in $OUT, the terminal in $TESTDIR/tty.
on_tty() {
	local i

	: >"$OUT"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		sleep 0.5
		printf '%s\n' "$1" 2>/dev/null || break
	done | timeout 20 script -qec "printf 'y\\n' | '$ISSUE' -a ci-bot \
	    -t '$TARGET' -F - -k '$KEY' -f '$CFG' >'$OUT'; \
	    echo rc=\$? >'$TESTDIR/rc'" /dev/null >"$TESTDIR/tty" 2>&1
	RC=$(sed -n 's/^rc=//p' "$TESTDIR/rc" 2>/dev/null)
	rm -f "$TESTDIR/rc"
}
if command -v script >/dev/null 2>&1; then
	printf 'y\n' >"$TESTDIR/y"
	on_tty n
	[ "$RC" = 1 ] || fail "answered n on the terminal: exit $RC
$(cat "$TESTDIR/tty")"
	[ ! -s "$OUT" ] || fail "answered n, yet stdout: $(cat "$OUT")"
	grep -qF 'Sign? [y/N]' "$TESTDIR/tty" ||
	    fail "no question on the terminal: $(cat "$TESTDIR/tty")"
	on_tty y
	[ "$RC" = 0 ] || fail "answered y on the terminal: exit $RC
$(cat "$TESTDIR/tty")"
	[ "$(wc -l <"$OUT")" = 1 ] ||
	    fail "stdout is not one line: $(cat "$OUT")"
	TOKEN=$(cat "$OUT")
	verdict ok ci-bot "$TOOL" "$TARGET" "$TESTDIR/y"
	grep -qF "$(sha256sum "$TESTDIR/y" | cut -d' ' -f1)" "$TESTDIR/tty" ||
	    fail "no SHA-256 on the terminal: $(cat "$TESTDIR/tty")"
else
	log "script(1) not installed: the terminal's answer is not tested"
fi

# --- keys and texts it will not use ----------------------------------
chmod 644 "$KEY"
refused "chmod 600" -y -a ci-bot -t "$TARGET" -m x -k "$KEY" -f "$CFG"
chmod 600 "$KEY"
printf 'caf\xe9' >"$TESTDIR/latin1"
refused "not valid UTF-8" -y -a ci-bot -t "$TARGET" -F "$TESTDIR/latin1" \
    -k "$KEY" -f "$CFG"
refused "empty" -y -a ci-bot -t "$TARGET" -m '' -k "$KEY" -f "$CFG"
head -c 65537 /dev/zero | tr '\0' a >"$TESTDIR/long"
refused "longer than 65536 bytes" -y -a ci-bot -t "$TARGET" \
    -F "$TESTDIR/long" -k "$KEY" -f "$CFG"
head -c 65536 /dev/zero | tr '\0' a >"$TESTDIR/long"
sign -y -a ci-bot -t "$TARGET" -F "$TESTDIR/long" -k "$KEY" -f "$CFG"
verdict ok ci-bot "$TOOL" "$TARGET" "$TESTDIR/long"

# --- the out-of-band asks (regress/oob-asks.sh) take no signing option:
# usage errors (until issue 10, item 7 they were usage errors outright)
for o in '--pending -a ci-bot' '--pending -y' '--approve 1 -m x' \
    '--deny 1 -k key' '--deny 1 -y' '--pending --deny 1' '--approve 1 -G'; do
	# shellcheck disable=SC2086
	refused "usage:" $o
done
# one text only, and --drafts signs nothing (regress/drafts.sh has more)
refused "usage:" -y -a ci-bot -t "$TARGET" -D 1 -m x -k "$KEY"
refused "usage:" -y -a ci-bot -t "$TARGET" -m x -F "$TEXT" -k "$KEY"
refused "usage:" --drafts -y
refused "usage:" --drafts -t "$TARGET"

# --- a fresh installation: the listings list nothing, and say where they
# looked; the rest still fail, for there is nothing to act on
FRESH=$TESTDIR/fresh-state
for o in --pending --drafts; do
	BOUNCER_STATE_DIR=$FRESH "$ISSUE" $o >"$TESTDIR/out" \
	    2>"$TESTDIR/err" || fail "$o on a fresh state directory failed: \
$(cat "$TESTDIR/err")"
	[ ! -s "$TESTDIR/out" ] || fail "$o listed: $(cat "$TESTDIR/out")"
	grep -qF "no audit database at $FRESH/audit.db yet" "$TESTDIR/err" ||
	    fail "$o did not say where it looked: $(cat "$TESTDIR/err")"
done
BOUNCER_STATE_DIR=$FRESH "$ISSUE" --deny 1 >/dev/null 2>&1 &&
    fail "--deny on a fresh state directory succeeded"
[ ! -e "$FRESH/audit.db" ] || fail "a listing made the database"

pass
