# verdicts.jq - checks every answer of a session against what its payload
# expects (README, "calls"), all at once: regress/redteam.sh records each
# call's question (or null) and answer, one JSON object a line,
#   {"p": PAYLOAD, "n": CALL, "id": REQUEST-ID, "q": QUESTION, "a": ANSWER}
# and runs  jq -n -r --slurpfile index INDEX -f verdicts.jq RECORDS.
# It prints one line per call that did not get its verdict (none: all
# held), then "succeeded PAYLOAD" for each call that passed as a known
# bypass expects.

($index[0] | map({key: .id, value: .}) | from_entries) as $P
| inputs as $r
| $P[$r.p].calls[$r.n] as $c
| ($c.method // "tools/call") as $m
| $r.a as $a
| (if $m == "tools/call" then $a.result.content[0].text // ""
   else $a.error.message // "" end) as $text
| ($c.says // "") as $says
| ($a.id == $r.id) as $answered
| ($answered and ($a.result | type) == "object" and
   ($a.result.isError // false) == false and ($a | has("error") | not)) as $ok
| ($answered and ($text | startswith("[bouncer blocked] ")) and
   (if $m == "tools/call" then $a.result.isError == true and
      ($a.result.content | length) == 1
    else $a.error.code == -32602 end) and ($text | contains($says))) as $blocked
| ($r.q != null and $r.q.method == "elicitation/create" and
   ($r.q.params.message | contains($c.shows // ""))) as $asked
| (if $c.expect == "allow" then
     $r.q == null and $ok and
     ([$a.result | .. | strings] | any(contains($c.sees // "")))
   elif $c.expect == "approve" then $asked and $ok
   elif $c.expect == "deny" then $r.q == null and $blocked
   elif $c.expect == "ask" then
     $asked and $blocked and ($text | endswith("(the human declined)"))
   elif $c.expect == "reject" then
     $r.q == null and $answered and ($a | has("result") | not) and
     ($a.error.message | type) == "string" and ($a.error.message | contains($says))
   elif $c.expect == "succeeds" then $r.q == null and $ok
   else true end) as $held
| if ($c.expect | startswith("probe")) then
    "probe \($r.p)#\($r.n): \(if $r.q != null then "asked \($r.q.params.message | tojson), then " else "" end)\($a | tojson | .[0:1500])"
  elif $held | not then
    "\($r.p)#\($r.n) (\($m) \(if $c.tool then $c.tool else ($c.params | tojson) end)): want \($c.expect)\(
      if $says != "" then " saying \($says | tojson)" else "" end)\(
      if $c.shows then ", asking \($c.shows | tojson)" else "" end)\(
      if $c.sees then ", showing \($c.sees | tojson)" else "" end)\n  got: \(
      if $r.q != null then "a question \($r.q.params.message | tojson), then " else "" end)\($a | tojson | .[0:1500])"
  elif $c.expect == "succeeds" then "succeeded \($r.p)"
  else empty end
