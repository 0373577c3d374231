#!/usr/bin/env bash
#
# regress/linker.sh - the privilege line is a build line (STYLE rule 2):
# bouncer-worker links no SQLite, libsodium, libyaml, PCRE2 or libcurl
# (neither as a DT_NEEDED entry, nor transitively, nor as symbols linked
# in statically), and no object of the monitor, nor of the common library
# it shares with the worker, calls a cJSON parser (the monitor builds
# JSON, it never parses it).  The carriers link no SQLite, libyaml or
# libevent, and nothing but a carrier links libcurl.  And the sandbox's
# test hooks (SANDBOX_TEST) are in no shipped binary.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd readelf nm

FORBIDDEN_LIBS='^lib(sqlite3|sodium|yaml|pcre2|curl)'
FORBIDDEN_SYMS='^(sqlite3_|sodium_|randombytes_|crypto_(sign|box|secretbox|generichash|hash|auth|aead|kdf|kx|pwhash|scalarmult|stream|shorthash|onetimeauth)|yaml_|pcre2_|curl_)'
# What the worker may load: its own libraries, libc's, and sanitizers.
ALLOWED_LIBS='^(libcjson|libevent(_core|_extra|_pthreads)?|libseccomp|libc|libm|libpthread|libdl|librt|libgcc_s|ld-linux[-a-z0-9_]*|libasan|libubsan|liblsan|libtsan)([.-]|$)'

# --- the worker ----------------------------------------------------
needed=$(readelf -d "$WORKER" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || fail "readelf found no DT_NEEDED in $WORKER"
for lib in $needed; do
	echo "$lib" | grep -qE "$FORBIDDEN_LIBS" &&
	    fail "$WORKER has DT_NEEDED $lib (the worker must not link it)"
	echo "$lib" | grep -qE "$ALLOWED_LIBS" ||
	    fail "$WORKER has DT_NEEDED $lib, which is not on the worker's list (cjson, event, seccomp, libc)"
done
if command -v ldd >/dev/null 2>&1; then
	trans=$(ldd "$WORKER" 2>/dev/null | awk '{print $1}' | sed 's,.*/,,' |
	    grep -E "$FORBIDDEN_LIBS")
	[ -z "$trans" ] || fail "$WORKER loads, transitively: $trans"
fi
syms=$({ nm -D "$WORKER"; nm "$WORKER"; } 2>/dev/null |
    awk 'NF >= 2 {print $NF}' | sed 's/@.*//' | grep -E "$FORBIDDEN_SYMS" |
    sort -u)
[ -z "$syms" ] || fail "$WORKER references or defines forbidden symbols:
$syms"
log "worker: DT_NEEDED $(echo "$needed" | tr '\n' ' ')"

# --- the carriers ------------------------------------------------------
# They parse the vendors' JSON and speak HTTP: never the audit database,
# YAML or the worker's event loop.  (libcurl's own dependencies are
# looked at through ldd too.)
CARRIER_FORBIDDEN_LIBS='^lib(sqlite3|yaml|event)'
CARRIER_FORBIDDEN_SYMS='^(sqlite3_|yaml_|event_|evbuffer_|bufferevent_|evhttp_)'
for b in notion github slack; do
	c=$top_builddir/carrier/bouncer-carrier-$b
	[ -x "$c" ] || fail "no carrier at $c (not built?)"
	needed=$(readelf -d "$c" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	echo "$needed" | grep -q '^libcurl' ||
	    fail "$c has no DT_NEEDED libcurl: is this check stale?"
	bad=$(echo "$needed" | grep -E "$CARRIER_FORBIDDEN_LIBS")
	[ -z "$bad" ] || fail "$c has DT_NEEDED $bad"
	if command -v ldd >/dev/null 2>&1; then
		trans=$(ldd "$c" 2>/dev/null | awk '{print $1}' |
		    sed 's,.*/,,' | grep -E "$CARRIER_FORBIDDEN_LIBS")
		[ -z "$trans" ] || fail "$c loads, transitively: $trans"
	fi
	syms=$({ nm -D "$c"; nm "$c"; } 2>/dev/null |
	    awk 'NF >= 2 {print $NF}' | sed 's/@.*//' |
	    grep -E "$CARRIER_FORBIDDEN_SYMS" | sort -u)
	[ -z "$syms" ] || fail "$c references or defines: $syms"
	log "carrier $b: DT_NEEDED $(echo "$needed" | tr '\n' ' ')"
done
for f in "$MONITOR" "$top_builddir"/monitor/bouncer-audit \
    "$top_builddir"/monitor/bouncer-issue-consent \
    "$top_builddir"/monitor/bouncer-init; do
	readelf -d "$f" | grep -q 'NEEDED.*libcurl' &&
	    fail "$f links libcurl (only the carriers may)"
done

# --- the monitor's objects -----------------------------------------
# bouncer-monitor's objects only: bouncer-init is a user tool reading the
# user's own file and may parse JSON; it is not the monitor.
objs=$(find "$top_builddir/monitor" -maxdepth 1 -name '*bouncer_monitor*.o' | sort)
[ -n "$objs" ] || fail "no object files in $top_builddir/monitor (not built?)"
for o in $objs; do
	bad=$(nm -u "$o" 2>/dev/null | awk '{print $NF}' | grep '^cJSON_Parse')
	[ -z "$bad" ] || fail "monitor object $o calls a JSON parser: $bad"
done
log "monitor: $(echo "$objs" | wc -l) objects, no cJSON_Parse*"

# and the linked monitor imports none (catches any library it pulls in)
bad=$(nm -D --undefined-only "$MONITOR" 2>/dev/null | awk '{print $NF}' |
    sed 's/@.*//' | grep '^cJSON_Parse')
[ -z "$bad" ] || fail "$MONITOR imports a JSON parser: $bad"
bad=$(nm "$MONITOR" 2>/dev/null | awk '{print $NF}' | grep '^cJSON_Parse')
[ -z "$bad" ] || fail "$MONITOR contains a JSON parser: $bad"

# --- the common library ----------------------------------------------
libs=$(find "$top_builddir/common" -maxdepth 1 -name '*.a' | sort)
[ -n "$libs" ] || fail "no static library in $top_builddir/common (not built?)"
for a in $libs; do
	bad=$(nm -A "$a" 2>/dev/null | grep -E ' U cJSON_Parse')
	[ -z "$bad" ] || fail "$a has members calling a JSON parser:
$bad"
done
log "common: $(echo "$libs" | tr '\n' ' ')without cJSON_Parse*"

# --- the sandbox's test hooks --------------------------------------
# Only regress/sandbox builds the sandbox with SANDBOX_TEST (a Landlock
# ABI cap, a loader of any table): no shipped binary or library has them.
for f in "$WORKER" "$MONITOR" $libs "$top_builddir"/carrier/bouncer-carrier-*; do
	bad=$(nm -A "$f" 2>/dev/null | awk '{print $NF}' | grep '^sandbox_test_')
	[ -z "$bad" ] || fail "$f has the sandbox's test hooks: $bad"
done
nm "$top_builddir/regress/sandbox/check_sandbox" 2>/dev/null |
    grep -q ' T sandbox_test_seccomp_load$' ||
    fail "check_sandbox has no sandbox_test_seccomp_load: is this check stale?"
log "sandbox test hooks: in check_sandbox only"

# --- the carriers' test CA ------------------------------------------
# Only regress/mocks/carrier-notion-testca takes -C, a CA bundle of the
# test's own (CARRIER_TEST_CA): a shipped carrier trusts the system's.
for f in "$top_builddir"/carrier/bouncer-carrier-*; do
	nm "$f" 2>/dev/null | grep -q ' carrier_test_ca_build$' &&
	    fail "$f takes a test CA (-C)"
done
nm "$top_builddir/regress/mocks/carrier-notion-testca" 2>/dev/null |
    grep -q ' carrier_test_ca_build$' ||
    fail "carrier-notion-testca has no carrier_test_ca_build: is this check stale?"
log "carrier test CA: in carrier-notion-testca only"
pass
