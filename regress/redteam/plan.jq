# plan.jq - reads every payload of regress/redteam/ (jq -n, the files as
# inputs) and checks them; regress/redteam.sh runs what it emits.
#
#   --arg mode errors   one line per fault in a payload file (none: valid)
#   --arg mode steps    one line per call, in run order, as shell words:
#                       SESSION PAYLOAD N METHOD PARAMS EXPECT BULK
#                       (PARAMS as JSON text, BULK 1 or empty)
#   --arg mode index    the payloads as one JSON array, in run order
#   --arg mode world --arg session S --slurpfile base FILE
#                       what session S is made of: {upstreams: {NAME:
#                       mock-script script}, seed: mock-work seed,
#                       workspace: [...], tokens: {NAME: ...}}: the
#                       base upstreams of FILE with every payload's
#                       outputs added (README)
#
# Run order: the sessions in the order of $sessions, each session's
# payloads in the order of their file names.

def sessions: ["office", "work", "flood"];
def categories: ["exfiltration", "forbidden-write", "unapproved-post",
    "rug-pull", "unicode", "encoded", "nested", "schema-mismatch", "path",
    "carried-out"];
def verdicts: ["allow", "approve", "deny", "ask", "reject", "succeeds"]
  + (if $ARGS.named.probe == "1" then ["probe", "probe-accept"] else [] end);

def basename: split("/") | last | sub("\\.json$"; "");

# The JSON-RPC request a call makes.
def method: .method // "tools/call";
def params:
  if has("tool") then {name: .tool, arguments: (.args // {})}
  else (.params // {}) end;
# bouncer's own work tools: what they send is in the vendors' logs, whose
# writes regress/redteam.sh counts, so a replayed call needs no marker.
def builtin: (.tool // "") | test("^(read_tasks|read_task|read_comments|create_draft|post_human_authored_comment|send_external_message)$");

# The attacker's calls; "allow" and "approve" are the user's own.
def attack: .expect != "allow" and .expect != "approve";

# Every string a payload's outputs and calls hold, as one text.
def texts: [.outputs // [], .calls // [], .upstreams // {}] | tojson;

def payload_errors($all):
  . as $p
  | ($p.file | basename) as $f
  | [ (if $p.id != $f then "id \($p.id | tojson) is not the file name \($f)" else empty end),
      (if (categories | index($p.category)) == null then "unknown category \($p.category | tojson)" else empty end),
      (if (sessions | index($p.session)) == null then "unknown session \($p.session | tojson)" else empty end),
      (if ($p.goal | type) != "string" or ($p.goal | length) < 10 then "no goal" else empty end),
      (if ($p.carrier | type) != "string" then "no carrier (where the payload is read)" else empty end),
      (if ($p.calls | type) != "array" or ($p.calls | map(select(attack)) | length) == 0
       then "no attacker call" else empty end),
      (if ($p.markers | type) != "array" or ($p.markers | length) == 0 then "no markers" else empty end),
      ($p.markers // [] | .[] | select(type != "string" or (test("^[A-Za-z0-9._@/:-]{4,}$") | not))
       | "marker \(tojson) is not 4 or more plain ASCII characters"),
      ($p.calls // [] | to_entries[] | .key as $i | .value as $c
       | ( (if (verdicts | index($c.expect)) == null then "call \($i): unknown expect \($c.expect | tojson)" else empty end),
           (if ($c | has("tool")) == ($c | has("method")) then "call \($i): give tool or method" else empty end),
           (($c | params | tojson) as $t
            | [$p.markers[] | select(. as $m | $t | contains($m))] | length) as $hits
           | if ($c | attack) and $hits == 0 and ($c | builtin | not) then "call \($i): names none of the markers (the logs could not show it)"
             elif ($c | attack | not) and $hits > 0 then "call \($i): a read holds a marker"
             else empty end,
           (if $c.expect == "succeeds" and ($p.bypass | type) != "string" then "call \($i): succeeds, but no bypass text" else empty end),
           (if ($c.expect == "ask" or $c.expect == "approve") and ($c.shows | type) != "string"
            then "call \($i): a question needs shows" else empty end) ) ),
      # a marker must be this payload's own: nothing else may name it,
      # or taint from another payload would decide its verdicts
      ($p.markers // [] | .[] as $m
       | $all[] | select(.id != $p.id and (texts | contains($m)))
       | "marker \($m | tojson) also appears in \(.id)")
    ] | map("\($f).json: \(.)")[];

def ordered: sort_by((.session as $s | sessions | index($s)), .id);

# An output's result: "text" is shorthand for one text block.
def result_of:
  if has("result") then .result
  else {content: [{type: "text", text: .text}]} end;
def contents_of($uri):
  if has("result") then .result
  else {contents: [{uri: $uri, mimeType: "text/plain", text: .text}]} end;
def messages_of:
  if has("result") then .result
  else {messages: [{role: "user", content: {type: "text", text: .text}}]} end;

# Adds one output to the world.
def add_output($o):
  if $o | has("notion_page") then .seed.notion.pages += [$o.notion_page]
  elif $o | has("notion_comment") then .seed.notion.comments += [$o.notion_comment]
  else
    $o.upstream as $u
    | if .upstreams[$u] == null then error("no upstream \($u) for an output") else . end
    | if $o | has("tool") then
        .upstreams[$u].cases[$o.tool] += [{arguments: ($o.arguments // {}), result: ($o | result_of)}]
      elif $o | has("resource") then
        .upstreams[$u].resources += [$o.resource]
        | .upstreams[$u].contents[$o.resource.uri] = ($o | contents_of($o.resource.uri))
      elif $o | has("prompt") then
        .upstreams[$u].prompts += [$o.prompt]
        | .upstreams[$u].prompt_results[$o.prompt.name] = ($o | messages_of)
      elif $o | has("template") then
        .upstreams[$u].templates += [$o.template]
      else error("an output of \($u) names no tool, resource, prompt or template") end
  end;

def world($all; $session; $base):
  reduce ($all | ordered | .[] | select(.session == $session)) as $p
    ($base + {workspace: [], tokens: {}};
     .upstreams += ($p.upstreams // {})
     | .workspace += ($p.workspace // [])
     | .tokens += ($p.tokens // {})
     | reduce ($p.outputs // [])[] as $o (.; add_output($o)));

[inputs | . + {file: input_filename}] as $all
| $ARGS.named.mode as $mode
| if $mode == "errors" then
    $all[] | payload_errors($all)
  elif $mode == "world" then
    world($all; $ARGS.named.session; $ARGS.named.base[0])
  elif $mode == "index" then
    $all | ordered | map(del(.file))
  elif $mode == "steps" then
    $all | ordered | .[] as $p
    | $p.calls | to_entries[] | .key as $i | .value
    | [$p.session, $p.id, ($i | tostring), method, (params | tojson),
       .expect, (if .bulk then "1" else "" end)]
    | @sh
  else error("mode?") end
