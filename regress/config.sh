#!/usr/bin/env bash
#
# regress/config.sh - bouncer-monitor -t on good and bad configurations:
# a clean file passes silently with status 0; an unknown key, a wrong
# type, a max_message out of 4096..268435456, a bad upstream name or a
# missing command fail with a message naming the file, the line and the
# key; the same file makes the monitor refuse to start (status 1).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

OUT=$TESTDIR/out
ERR=$TESTDIR/err

# run_t [ARGS...]: bouncer-monitor -t ARGS; status in RC.
run_t() {
	timeout 10 "$MONITOR" -t "$@" </dev/null >"$OUT" 2>"$ERR"
	RC=$?
	[ "$RC" != 124 ] || fail "bouncer-monitor -t $* hung"
}

# good NAME: a file with the text on stdin must pass -t silently.
good() {
	local f=$TESTDIR/$1.yaml

	cat >"$f"
	run_t -f "$f"
	[ "$RC" = 0 ] || fail "$1: -t exited $RC on a good config:
$(cat "$ERR")"
	[ ! -s "$OUT" ] || fail "$1: -t printed on stdout: $(cat "$OUT")"
}

# bad NAME KEY [LINE]: the file on stdin must fail -t, and the message
# must name the file, KEY and LINE; the monitor must refuse to start.
bad() {
	local f=$TESTDIR/$1.yaml

	cat >"$f"
	run_t -f "$f"
	[ "$RC" != 0 ] || fail "$1: -t accepted a bad config"
	grep -qF "$f" "$ERR" || fail "$1: the message does not name the file:
$(cat "$ERR")"
	[ -z "$2" ] || grep -qF "$2" "$ERR" ||
	    fail "$1: the message does not name the key $2:
$(cat "$ERR")"
	[ -z "${3:-}" ] || grep -qE "(:|line )$3([^0-9]|\$)" "$ERR" ||
	    fail "$1: the message does not name line $3:
$(cat "$ERR")"
	timeout 10 "$MONITOR" -f "$f" </dev/null >"$OUT" 2>"$ERR"
	RC=$?
	[ "$RC" = 1 ] || fail "$1: the monitor started (or exited $RC), want 1"
	[ ! -s "$OUT" ] || fail "$1: the monitor wrote on stdout: $(cat "$OUT")"
}

good full <<YAML
# every key this version gives a meaning to
state_dir: "$TESTDIR/state"
max_message: 65536
upstreams:
  files:
    command: "$MOCK"
    args: ["-n", "files", "-t", "3"]
    env: { FOO: bar, EMPTY: "" }
    cwd: "$TESTDIR"
    namespace: false
  Other-2_x:
    command: "$MOCK"
    namespace: true
YAML

good later-keys <<YAML
upstreams:
  m:
    command: "$MOCK"
audit: { sync: normal, record_args: digest }
asks: { timeout: 120 }
forbidden_tools: [API-patch-page, update_issue]
YAML

# all keys are optional: an empty file is a valid configuration (the
# upstream then comes from the command line)
: >"$TESTDIR/empty.yaml"
run_t -f "$TESTDIR/empty.yaml" -- "$MOCK"
[ "$RC" = 0 ] || fail "empty: -t exited $RC on an empty config:
$(cat "$ERR")"

good max-lowest <<YAML
max_message: 4096
upstreams:
  m:
    command: "$MOCK"
YAML
good max-highest <<YAML
max_message: 268435456
upstreams:
  m:
    command: "$MOCK"
YAML
bad max-below max_message 1 <<YAML
max_message: 4095
YAML
bad max-above max_message 2 <<YAML
# too large
max_message: 268435457
YAML
bad max-negative max_message 1 <<YAML
max_message: -1
YAML
bad max-string max_message 1 <<YAML
max_message: lots
YAML
bad max-float max_message 1 <<YAML
max_message: 65536.5
YAML

bad unknown-top colour 3 <<YAML
state_dir: "$TESTDIR/state"
max_message: 65536
colour: blue
YAML
bad unknown-upstream comand 5 <<YAML
upstreams:
  a:
    command: "$MOCK"
    args: []
    comand: typo
YAML
bad upstreams-list upstreams 1 <<YAML
upstreams: [a, b]
YAML
bad args-string args 4 <<YAML
upstreams:
  a:
    command: "$MOCK"
    args: "-n a"
YAML
bad env-list env 4 <<YAML
upstreams:
  a:
    command: "$MOCK"
    env: [FOO=bar]
YAML
bad namespace-string namespace 4 <<YAML
upstreams:
  a:
    command: "$MOCK"
    namespace: sometimes
YAML
bad command-list command 3 <<YAML
upstreams:
  a:
    command: ["$MOCK"]
YAML
bad no-command command <<YAML
upstreams:
  a:
    args: ["-n", "a"]
YAML
bad state-dir-map state_dir 1 <<YAML
state_dir: { path: /tmp }
YAML

long=$(printf 'u%.0s' $(seq 64))
good name-64 <<YAML
upstreams:
  $long:
    command: "$MOCK"
YAML
bad name-65 "${long}x" 2 <<YAML
upstreams:
  ${long}x:
    command: "$MOCK"
YAML
bad name-space "bad name" 2 <<YAML
upstreams:
  "bad name":
    command: "$MOCK"
YAML
bad name-dots "a.b" 2 <<YAML
upstreams:
  a.b:
    command: "$MOCK"
YAML

bad not-a-mapping "" <<YAML
- upstreams
- max_message
YAML
bad broken-yaml "" <<YAML
upstreams: { a: [
YAML

# -f names a file that must exist.
run_t -f "$TESTDIR/no-such-file.yaml"
[ "$RC" != 0 ] || fail "-t accepted a missing -f file"
grep -qF "$TESTDIR/no-such-file.yaml" "$ERR" ||
    fail "missing file: the message does not name it: $(cat "$ERR")"

# Without -f, $XDG_CONFIG_HOME/bouncer/bouncer.yaml is the config.
mkdir -p "$XDG_CONFIG_HOME/bouncer"
printf 'upstreams: {}\nbogus_key: 1\n' >"$XDG_CONFIG_HOME/bouncer/bouncer.yaml"
run_t
[ "$RC" != 0 ] || fail "-t did not read \$XDG_CONFIG_HOME/bouncer/bouncer.yaml"
{ grep -qF "$XDG_CONFIG_HOME/bouncer/bouncer.yaml" "$ERR" &&
    grep -qF bogus_key "$ERR"; } ||
    fail "default config: the message does not name file and key:
$(cat "$ERR")"
printf 'max_message: 8192\n' >"$XDG_CONFIG_HOME/bouncer/bouncer.yaml"
run_t -- "$MOCK"
[ "$RC" = 0 ] || fail "-t failed on a good default config: $(cat "$ERR")"

# Without $XDG_CONFIG_HOME, $HOME/.config/bouncer/bouncer.yaml is.
mkdir -p "$TESTDIR/home/.config/bouncer"
printf 'upstreams: {}\nhome_key: 1\n' \
    >"$TESTDIR/home/.config/bouncer/bouncer.yaml"
env -u XDG_CONFIG_HOME HOME="$TESTDIR/home" timeout 10 "$MONITOR" -t \
    </dev/null >"$OUT" 2>"$ERR"
RC=$?
[ "$RC" = 1 ] && grep -qF "$TESTDIR/home/.config/bouncer/bouncer.yaml" \
    "$ERR" && grep -qF home_key "$ERR" ||
    fail "\$HOME/.config/bouncer/bouncer.yaml was not read ($RC): $(cat "$ERR")"
# ... and a relative $XDG_CONFIG_HOME is ignored, as the XDG spec says
env XDG_CONFIG_HOME=xdg-relative HOME="$TESTDIR/home" timeout 10 \
    "$MONITOR" -t </dev/null >"$OUT" 2>"$ERR"
grep -qF "$TESTDIR/home/.config/bouncer/bouncer.yaml" "$ERR" ||
    fail "a relative \$XDG_CONFIG_HOME was used: $(cat "$ERR")"

# -t looks for each upstream's command as the spawn will: a missing file,
# a name not in PATH and a file that cannot run are problems (exit 1,
# one line each); a name found in the upstream's own PATH (relative to
# its cwd) and a relative path from its cwd are not.
mkdir -p "$TESTDIR/cmds/bin"
printf '#!/bin/sh\n' >"$TESTDIR/cmds/bin/srv"
chmod +x "$TESTDIR/cmds/bin/srv"
cat >"$TESTDIR/cmds.yaml" <<YAML
upstreams:
  a: { command: $TESTDIR/cmds/none }
  b: { command: bouncer-no-such-command }
  c: { command: $TESTDIR/cmds.yaml }
  d: { command: srv, env: { PATH: "bin:/usr/bin" }, cwd: $TESTDIR/cmds }
  e: { command: ./bin/srv, cwd: $TESTDIR/cmds }
  f: { command: sh }
YAML
timeout 10 "$MONITOR" -t -f "$TESTDIR/cmds.yaml" </dev/null >"$OUT" 2>"$ERR"
RC=$?
[ "$RC" = 1 ] || fail "-t with bad commands exited $RC, want 1"
for w in "upstream a: command \"$TESTDIR/cmds/none\" does not exist" \
    'upstream b: command "bouncer-no-such-command" is not found in PATH' \
    "upstream c: command \"$TESTDIR/cmds.yaml\" is not an executable file"; do
	grep -qF "$w" "$ERR" || fail "-t did not say: $w: $(cat "$ERR")"
done
[ "$(grep -c 'command' "$ERR")" = 3 ] ||
    fail "-t named a good command: $(cat "$ERR")"
timeout 10 "$MONITOR" -t -- "$TESTDIR/cmds/none" </dev/null >"$OUT" 2>"$ERR" &&
    fail "-t passed a missing command after --"
grep -qF 'does not exist' "$ERR" || fail "-t -- said: $(cat "$ERR")"

# consent.keys naming a directory with no key (absent, or empty) trusts
# none: -t reports it; a session starts and warns, and every token is
# refused (consent-gated.sh refuses an unknown key).
mkdir -p "$TESTDIR/emptykeys"
for d in "$TESTDIR/emptykeys" "$TESTDIR/nokeys"; do
	printf 'consent: { keys: %s }\n' "$d" >"$TESTDIR/keys.yaml"
	timeout 10 "$MONITOR" -t -f "$TESTDIR/keys.yaml" -- "$MOCK" \
	    </dev/null >"$OUT" 2>"$ERR" && fail "-t passed consent.keys $d"
	grep -qF "consent.keys: no key in $d: every consent token will be refused" \
	    "$ERR" || fail "-t on consent.keys $d said: $(cat "$ERR")"
done
start_monitor -f "$TESTDIR/keys.yaml" -- "$MOCK"
handshake
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "a session with no consent key exited $MON_STATUS"
grep -qF "warning: consent.keys: no key in $TESTDIR/nokeys" "$MONLOG" ||
    fail "the session did not warn of no consent key"

# No upstream at all: the monitor refuses to start.
printf 'max_message: 8192\n' >"$TESTDIR/none.yaml"
timeout 10 "$MONITOR" -f "$TESTDIR/none.yaml" </dev/null >"$OUT" 2>"$ERR"
RC=$?
[ "$RC" = 1 ] || fail "no upstream: the monitor exited $RC, want 1"
grep -q 'no upstream configured' "$ERR" ||
    fail "no upstream: message is: $(cat "$ERR")"
pass
