#!/usr/bin/env bash
#
# regress/names-lookalike.sh - names that look like others are never on
# the surface (DESIGN 5, Names; DESIGN 6): a tool name outside the MCP
# spec's characters (a Cyrillic 'e', a zero-width space, a fullwidth
# letter, a space, a bidi override, more than 128 bytes) is withheld and
# denied, logged and audited with the name shown escaped; the forbidden
# write set matches whatever the case and the separators (SET-OWNER,
# set.owner, Set_Owner, setOwner).  No such call reaches the server.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

DB=$BOUNCER_STATE_DIR/audit.db
LONG=$(printf 'x%.0s' $(seq 1 129))
MAX=$(printf 'x%.0s' $(seq 1 128))
E='{"type":"object","properties":{"owner":{"type":"string"}}}'

write_script work <<JSON
{"tools":[
 {"name":"set_own\u0435r","inputSchema":$E},
 {"name":"set\u200b_owner","inputSchema":$E},
 {"name":"\uff53et_owner","inputSchema":$E},
 {"name":"set owner","inputSchema":$E},
 {"name":"get_owner\u202e","inputSchema":$E},
 {"name":"$LONG","inputSchema":$E},
 {"name":"SET-OWNER","inputSchema":$E},
 {"name":"set.owner","inputSchema":$E},
 {"name":"Set_Owner","inputSchema":$E},
 {"name":"setOwner","inputSchema":$E},
 {"name":"Delete-Page","inputSchema":$E},
 {"name":"$MAX","inputSchema":$E},
 {"name":"get_owner","inputSchema":$E}]}
JSON
start_script work </dev/null
handshake '{}'
list_tools
printf '%s\nget_owner\n' "$MAX" | sort >"$TESTDIR/want.txt"
sort "$TESTDIR/tools.txt" | cmp -s - "$TESTDIR/want.txt" ||
    fail "wrong surface: $(cat "$TESTDIR/tools.txt")"

id=1
# denied NAME-AS-JSON WANT: the call is blocked, the reason holds WANT
denied() {
	request "$id" tools/call "{\"name\":\"$1\",\"arguments\":{\"owner\":\"bob\"}}"
	expect_line "$(f_blocked "$id") and (.result.content[0].text |
	    contains($(jq -n --arg t "$2" '$t')))"
	id=$((id + 1))
}
OUT="is withheld: its name is outside the MCP tool-name characters"
denied 'set_own\u0435r' "tool 'set_own\\u0435r' of upstream work $OUT"
denied 'set\u200b_owner' "tool 'set\\u200b_owner' of upstream work $OUT"
denied '\uff53et_owner' "tool '\\uff53et_owner' of upstream work $OUT"
denied 'set owner' "tool 'set owner' of upstream work $OUT"
denied 'get_owner\u202e' "tool 'get_owner\\u202e' of upstream work $OUT"
denied "$LONG" "$OUT (1 to 128 of A-Z a-z 0-9 _ - .)"
FORB="is in the forbidden write set"
denied SET-OWNER "tool 'SET-OWNER' $FORB"
denied set.owner "tool 'set.owner' $FORB"
denied Set_Owner "tool 'Set_Owner' $FORB"
denied setOwner "tool 'setOwner' $FORB"
denied Delete-Page "tool 'Delete-Page' $FORB"
# a forbidden name nobody listed is denied as forbidden (DESIGN 5: the
# grant and the forbidden set come before pinning); another is unknown
denied 'set_owner' "tool 'set_owner' $FORB"
denied 'get_owners' "unknown tool (not pinned at startup)"
call 50 get_owner '{"owner":"bob"}'
expect_line "$(f_text 50 'get_owner {"owner":"bob"}')"
call 51 "$MAX" '{}'
expect_line "$(f_result 51) and (.result.isError // false) == false"
ping_ok 52
stop_monitor
[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"

got=$(script_calls work | awk '{print $2}' | tr '\n' ' ')
[ "$got" = "get_owner $MAX " ] || fail "the server received: $got"

# logged and audited once each, at start-up, the name escaped
for n in 'set_own\u0435r' 'set\u200b_owner' '\uff53et_owner' \
    'get_owner\u202e'; do
	c=$(grep -cF "bouncer-monitor: tool '$n' of upstream work is withheld" \
	    "$MONLOG")
	[ "$c" = 1 ] || fail "$n logged $c times"
done
"$AUDIT" -D "$DB" -V >/dev/null || fail "bouncer-audit -V: chain broken"
"$AUDIT" -D "$DB" -j -T name-withheld | jq -e -s --arg l "$LONG" '
    length == 6 and
    (map(select(.reason | contains("'"'set_own\\\\u0435r'"'"))) | length) == 1
    and (map(select(.reason | contains("'"'"'" + $l + "'"'"'"))) | length) == 1' \
    >/dev/null || fail "withheld names not audited: $("$AUDIT" -D "$DB" -j -T name-withheld)"
# every denied call has its row
rows=$("$AUDIT" -D "$DB" -j | jq -s '[.[] | select(.verdict == "deny")] | length')
[ "$rows" = 13 ] || fail "want 13 deny rows, have $rows"
"$AUDIT" -D "$DB" -j | jq -e -s '[.[] | select(.verdict == "deny") |
    .contract] - ["grant", "pinning"] == []' >/dev/null ||
    fail "a look-alike was denied by the wrong contract"
pass
