#!/usr/bin/env bash
#
# regress/structure.sh - the monitor's layers, as issue 9 drew them:
# child.c knows processes, sockets and frames, never what a frame
# means.  It includes no protocol header and its object references no
# symbol of the layers above it (gate_, client_, upstream_, route_,
# session_, relay_, decide_): frames reach their handlers through the
# tables the owners give it.  If this fails, a layer calls upward again.
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
pass
