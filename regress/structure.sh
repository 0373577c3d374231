#!/usr/bin/env bash
#
# regress/structure.sh - the monitor's layers, as issue 9 drew them:
# child.c knows processes, sockets and frames, never what a frame
# means.  It includes no protocol header and its object references no
# symbol of the layers above it (gate_, client_, upstream_, route_,
# session_, relay_, decide_): frames reach their handlers through the
# tables the owners give it.  session.c alone writes the session's
# state; the others report events (session_event).  decide.c, the
# contract engine, sees a session only through its struct decide_ctx:
# decide.h names no struct session, and its object references nothing
# of the session's modules (monitor.c, session.c, client.c, gate.c,
# route.c, relay.c, upstream.c, child.c), so it is unit-tested alone.
# And a global symbol's prefix names the file that defines it (STYLE:
# the prefix is the map), or one of the prefixes listed below for it,
# in the monitor and in the carriers.
# If this fails, a layer calls upward again, the lifecycle is decided
# in two places, or a name no longer says where it lives.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd nm

src="${top_srcdir:-.}/monitor"
obj=$(find "$top_builddir/monitor" -maxdepth 1 \
    -name 'bouncer_monitor-child.o' | head -n 1)
[ -n "$obj" ] || fail "no bouncer_monitor-child.o in $top_builddir/monitor"

# --- child.c includes no protocol header -----------------------------
bad=$(grep -nE '^#include "(monitor|session|client|gate|upstream|route|relay|decide|policy|taint|audit)\.h"' \
    "$src/child.c")
[ -z "$bad" ] || fail "child.c includes a protocol header:
$bad"

# --- and calls nothing above it -------------------------------------
syms=$(nm -u "$obj" | awk '{print $NF}')
[ -n "$syms" ] || fail "nm -u found nothing in $obj: is this check stale?"
echo "$syms" | grep -qx 'spawn_child' ||
    fail "$obj does not call spawn_child: is this check stale?"
bad=$(echo "$syms" | grep -E '^(gate|client|upstream|route|session|relay|decide)_')
[ -z "$bad" ] || fail "child.o calls upward:
$bad"
log "child.o: $(echo "$syms" | wc -l) undefined symbols, none above it"

# --- one writer of the session state -------------------------------
# Any assignment of a SESSION_* state, or to a session's state member,
# outside session.c.
grep -qE 'state = SESSION_|\<SESSION_[A-Z]+\>;' "$src/session.c" ||
    fail "session.c assigns no session state: is this check stale?"
bad=$(grep -nE '(state[[:space:]]*=[[:space:]]*SESSION_|(s|sess|up->s)(->|\.)state[[:space:]]*=[^=])' \
    "$src"/*.c | grep -v "^$src/session.c:")
[ -z "$bad" ] || fail "the session state is written outside session.c:
$bad"
log "session state: written in session.c only"

# --- decide.c sees a struct decide_ctx, never the session ---------------
grep -q '^struct decide_ctx {' "$src/decide.h" ||
    fail "decide.h defines no struct decide_ctx: is this check stale?"
bad=$(grep -n 'struct session' "$src/decide.h" "$src/decide.c")
[ -z "$bad" ] || fail "decide.h or decide.c names struct session:
$bad"

dobj="$top_builddir/monitor/bouncer_monitor-decide.o"
[ -f "$dobj" ] || fail "no bouncer_monitor-decide.o in $top_builddir/monitor"
dsyms=$(nm -u "$dobj" | awk '{print $NF}')
echo "$dsyms" | grep -qx 'policy_for' ||
    fail "$dobj does not call policy_for: is this check stale?"
bad=$(echo "$dsyms" | grep -E '^(session|gate|client|upstream|route|child|relay)_')
[ -z "$bad" ] || fail "decide.o calls into the session's modules:
$bad"
# and, by name, nothing those modules define
for m in monitor session client gate route relay upstream child; do
	o="$top_builddir/monitor/bouncer_monitor-$m.o"
	[ -f "$o" ] || fail "no $o: is this check stale?"
	defs=$(nm --defined-only -g "$o" | awk '{print $NF}')
	[ -n "$defs" ] || fail "nm found no symbol defined in $o"
	bad=$(comm -12 <(echo "$dsyms" | sort -u) <(echo "$defs" | sort -u))
	[ -z "$bad" ] || fail "decide.o calls what $m.c defines:
$bad"
done
log "decide.o: $(echo "$dsyms" | wc -l) undefined symbols, none above it"

# --- a global name says which file defines it -------------------------
# The prefixes of a file whose module has a shorter name, or which
# defines the functions of the types it declares; a file not listed
# has its own name.
prefixes() {
	case $1 in
	conffile)	echo config ;;
	decide)		echo decide decision request verdict budgets ;;
	memory)		echo mem ;;
	monitor)	echo main cleanup_exit ;;
	pathcheck)	echo path ;;
	validate)	echo valid ;;
	yaml-tree)	echo yaml ynode ;;
	# the carriers: each program's main; libcurl's connect() answered
	# in the process (carrier/http.c says why)
	github | notion | slack) echo main ;;
	github-filter)	echo github_filter ;;
	notion-filter)	echo notion_filter ;;
	slack-filter)	echo slack_filter ;;
	main)		echo carrier_main ;;
	http)		echo http connect ;;
	*)		echo "$1" ;;
	esac
}
nobj=0
for o in "$top_builddir"/monitor/bouncer_monitor-*.o; do
	[ -f "$o" ] || fail "no bouncer_monitor-*.o in $top_builddir/monitor"
	f=${o##*/bouncer_monitor-}
	f=${f%.o}
	nobj=$((nobj + 1))
	for sym in $(nm --defined-only -g "$o" | awk '$2 ~ /^[TDBR]$/ {print $3}'); do
		ok=
		for p in $(prefixes "$f"); do
			case $sym in "$p" | "$p"_*) ok=1 ;; esac
		done
		[ -n "$ok" ] || fail "$f.c defines $sym, whose prefix is not $(prefixes "$f" | tr ' ' '|')"
	done
done
[ "$nobj" -ge 20 ] || fail "only $nobj monitor objects: is this check stale?"
log "global names: those of all $nobj monitor objects have their file's prefix"

# The carriers: their library's objects and each program's own.
nobj=0
for o in "$top_builddir"/carrier/libcarrier_a-*.o \
    "$top_builddir"/carrier/bouncer_carrier_*-*.o; do
	[ -f "$o" ] || continue
	f=${o##*/}
	f=${f#*-}
	f=${f%.o}
	nobj=$((nobj + 1))
	for sym in $(nm --defined-only -g "$o" | awk '$2 ~ /^[TDBR]$/ {print $3}'); do
		ok=
		for p in $(prefixes "$f"); do
			case $sym in "$p" | "$p"_*) ok=1 ;; esac
		done
		[ -n "$ok" ] || fail "carrier/$f.c defines $sym, whose prefix is not $(prefixes "$f" | tr ' ' '|')"
	done
done
[ "$nobj" -ge 15 ] || fail "only $nobj carrier objects: is this check stale?"
log "global names: those of all $nobj carrier objects have their file's prefix"
pass
