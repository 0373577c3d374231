#!/usr/bin/env bash
#
# regress/taint-evict.sh - once the session's untrusted output passes the
# taint index's cap (8 MiB of normalised text), its oldest output is
# dropped and the gate gets stricter (DESIGN 5): an address in swept
# content (a body whose declared recipients are trusted) that is not
# found may have come from what was dropped, and is asked about, where
# before the same call went through.  The monitor says so once.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

mail_session '[]' <<'YAML'
mail:send_email:
  exfiltrating: true
  sink_params: [to, cc]
  trusted_destinations: [boss@corp.example]
YAML

mail='{"to":"boss@corp.example","cc":[],"body":"see you at new@random.example"}'

# before: the body's address is not found, and content is not asked about
call 1 send_email "$mail"
expect_line "$(f_text 1 "sent to boss@corp.example")"
grep -q 'no longer holds all untrusted output' "$MONLOG" &&
    fail "eviction logged before any output was dropped"

# 9 MB of output: more than the cap
for id in 2 3 4 5 6 7 8 9 10; do
	call "$id" big '{"bytes":1000000}'
	expect_line "$(f_result "$id")" 60
done

# after: the same call asks; the human declines
call 11 send_email "$mail"
expect_line '.method == "elicitation/create" and (.params.message | contains("new@random.example"))'
reply "$(jget '.id | tojson')" '{"action":"decline"}'
expect_line "$(f_blocked 11) and (.result.content[0].text | contains(\"may have come from output the session no longer holds\"))"

# more output: said once per session
call 12 big '{"bytes":1000}'
expect_line "$(f_result 12)"
ping_ok 13
n=$(grep -c 'no longer holds all untrusted output' "$MONLOG")
[ "$n" = 1 ] || fail "eviction logged $n times, want once"
[ "$(mock_calls "$TESTDIR/mail.log" | grep -c send_email)" = 1 ] ||
    fail "the mail server got: $(mock_calls "$TESTDIR/mail.log")"
pass
