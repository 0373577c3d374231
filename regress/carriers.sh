#!/usr/bin/env bash
#
# regress/carriers.sh - the carriers against the loopback mocks of
# Notion, GitHub and Slack (regress/mocks/mock-work.c), driven by
# regress/mocks/carrier-call.c playing the monitor: every endpoint works
# and answers typed fields; each carrier refuses what is not in its
# table, and the mock's request log proves such a request never reached
# the "vendor"; the vendors' errors, 429s and a dead peer map to their
# outcomes; a base that is not loopback, a bad credential or a bad
# webhook line stop a carrier before it starts; a running carrier is
# sandboxed; no credential ever shows in a carrier's log.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd jq

MW=$top_builddir/regress/mocks/mock-work
CC=$top_builddir/regress/mocks/carrier-call
NOTION=$top_builddir/carrier/bouncer-carrier-notion
GITHUB=$top_builddir/carrier/bouncer-carrier-github
SLACK=$top_builddir/carrier/bouncer-carrier-slack
for p in "$MW" "$CC" "$NOTION" "$GITHUB" "$SLACK"; do
	[ -x "$p" ] || fail "$p is not built"
done
ERRLOG=$TESTDIR/carriers.err	# every carrier's stderr and log frames

# What a carrier's hello says about its sandbox in this build.
if sandbox_disabled; then
	WANT_SB=0
elif sandbox_debug; then
	WANT_SB=2
else
	WANT_SB=1
fi

# start_mock NAME ARGS...: start_work_mock, and MPID its pid (kept out
# of the shell's job table, so that killing it on purpose is quiet).
start_mock() {
	start_work_mock "$@"
	MPID=${WORK_MOCK_PIDS##* }
	disown "$MPID" 2>/dev/null
	touch "$TESTDIR/$1.log"
}

# nreq NAME: requests the mock NAME has logged.
nreq() {
	wc -l <"$TESTDIR/$1.log" | tr -d ' '
}

# cc NAME CARRIER-CALL-ARGS...: runs carrier-call; its lines go to
# $TESTDIR/NAME.out, its stderr (and the carrier's, and its log frames)
# to $TESTDIR/NAME.err and $ERRLOG; CC_RC is its exit status.
cc() {
	local name=$1
	shift
	"$CC" -t 40 "$@" >"$TESTDIR/$name.out" 2>"$TESTDIR/$name.err"
	CC_RC=$?
	{ echo "==== $name"; cat "$TESTDIR/$name.err"; } >>"$ERRLOG"
}

# res NAME N: the answer to the Nth command (line 1 is the hello).
res() {
	sed -n "$(($2 + 1))p" "$TESTDIR/$1.out"
}

# expect_res NAME N FILTER WHAT: that answer satisfies the jq FILTER.
expect_res() {
	local line

	line=$(res "$1" "$2")
	printf '%s' "$line" | jq_one "$3" ||
	    fail "$4: got ${line:-nothing} (run $1, command $2)"
}

# expect_ok NAME: the run went through and the carrier exited 0.
expect_ok() {
	[ "$CC_RC" = 0 ] || fail "run $1: carrier-call exited $CC_RC:
$(cat "$TESTDIR/$1.out")
$(tail -n 20 "$ERRLOG")"
	head -n 1 "$TESTDIR/$1.out" | jq_one ".hello.sandbox == $WANT_SB" ||
	    fail "run $1: hello $(head -n 1 "$TESTDIR/$1.out")"
}

refused() {	# CODE: a refusal by that check, with nothing sent
	echo ".status == \"refused\" and .code == \"$1\" and .sent == 0 and
	    .http_status == 0 and .data == null"
}

PAGE=be633bf1-dfa0-436d-b259-571129a590e5
PAGE_UNDASHED=be633bf1dfa0436db259571129a590e5
DS=6c4240a9-a3ce-413e-9fd0-8a51a4d0a49b
DB=668d797c-76fa-4934-9b05-ad288df2d136
NOPAGE=00000000-0000-4000-8000-000000000000

# The credentials: each is looked for in every log at the end.
T_READ=ntn_READtok3nXq1
T_READONLY=ntn_R0contentOnly
T_COMMENT=ntn_C0MMENTtok9z
T_WRITE=ntn_WR1TEtokWw
T_GITHUB=ghp_G1THUBsecretV
HOOK_DEPLOY=/services/T0001/B0001/s3cr3tDeploy
HOOK_ALERT=/services/T0002/B0002/0therSecret
for t in T_READ T_READONLY T_COMMENT T_WRITE T_GITHUB; do
	printf '%s\n' "${!t}" >"$TESTDIR/$t"
done
printf 'deploys\thttps://hooks.slack.com%s\nalerts\thttps://hooks.slack.com%s\n' \
    "$HOOK_DEPLOY" "$HOOK_ALERT" >"$TESTDIR/hooks"

# =====================================================================
# Notion, read: every endpoint, pagination, the status filter, errors
# =====================================================================
# 150 tasks (every third Done) and 105 comments on the first: more than
# one page of each.
jq -n --arg db "$DB" --arg ds "$DS" '
  def id($p; $i): "\($p)-0000-4000-8000-" + ("000000000000\($i)" | .[-12:]);
  {notion: {databases: [{id: $db, title: "Tasks",
      data_sources: [{id: $ds, name: "Tasks"}]}],
    pages: [range(150) as $i | {id: id("10000000"; $i),
      title: "Task \($i)", status: (if $i % 3 == 0 then "Done" else "Open" end),
      due: "2026-10-01", owner: "c2f20311-9e54-4d11-8c79-7398424ae41e"}],
    comments: [range(105) as $i | {id: id("20000000"; $i),
      page_id: id("10000000"; 0), text: "comment \($i)"}]},
   github: {repos: []}}' >"$TESTDIR/seed.json"
start_mock nbig -s notion -d "$TESTDIR/seed.json" \
    -T "$T_READ:read_content,read_comments"
NB=$PORT
P0=10000000-0000-4000-8000-000000000000
cc query -c "$TESTDIR/T_READ" -P $NB \
    -e 2 -a data_source_id=$DS \
    -e 2 -a data_source_id=$DS -a cursor=mwc_100 \
    -e 2 -a data_source_id=$DS -a status=Done \
    -e 4 -a page_id=$P0 \
    -e 4 -a page_id=$P0 -a cursor=mwc_100 \
    -- "$NOTION" -m read -b "http://127.0.0.1:$NB" -ddd
expect_ok query
expect_res query 1 '.status == "ok" and .http_status == 200 and .sent == 1 and
    (.data.tasks | length) == 100 and .data.has_more == true and
    .data.next_cursor == "mwc_100" and .data.tasks[0].title == "Task 0" and
    (.data.tasks[0] | keys) == ["due","id","last_edited_time","owners","status","title","url"]' \
    "query, first page"
# the cursor the first page gave, handed back
expect_res query 2 '.status == "ok" and (.data.tasks | length) == 50 and
    .data.has_more == false and .data.next_cursor == null and
    .data.tasks[49].title == "Task 149"' "query, second page"
expect_res query 3 '.status == "ok" and (.data.tasks | length) == 34 and
    all(.data.tasks[]; .status == "Done") and .data.has_more == true' \
    "query filtered by status (in the carrier)"
expect_res query 4 '.status == "ok" and (.data.comments | length) == 100 and
    .data.has_more == true and .data.next_cursor == "mwc_100" and
    .data.comments[0].text == "comment 0" and
    (.data.comments[0] | keys) == ["author","created_time","id","text"]' \
    "comments, first page"
expect_res query 5 '.status == "ok" and (.data.comments | length) == 5 and
    .data.has_more == false and .data.comments[4].text == "comment 104"' \
    "comments, second page"
# what went out: page_size 100, the cursor in the body or the query
jq -e -s --arg ds "$DS" --arg p "$P0" '
    length == 5 and
    (.[0] | .method == "POST" and .path == "/v1/data_sources/\($ds)/query" and
      (.body | fromjson) == {page_size: 100} and
      .headers["Notion-Version"] == "2025-09-03" and
      .headers["Content-Type"] == "application/json" and
      .headers.Authorization == "Bearer ntn_...") and
    (.[1].body | fromjson) == {page_size: 100, start_cursor: "mwc_100"} and
    (.[3] | .method == "GET" and .path == "/v1/comments" and
      .query == "block_id=\($p)" and .body == "") and
    .[4].query == "block_id=\($p)&start_cursor=mwc_100"' \
    "$TESTDIR/nbig.log" >/dev/null || fail "notion requests: $(cat "$TESTDIR/nbig.log")"

start_mock notion -s notion -T "$T_READ:read_content,read_comments" \
    -T "$T_READONLY:read_content" -T "$T_COMMENT:insert_comments" \
    -T "$T_WRITE:read_content,update_content"
N=$PORT
cc nread -c "$TESTDIR/T_READ" -P $N -s \
    -e 3 -a page_id=$PAGE_UNDASHED \
    -e 1 -a database_id=$DB \
    -e 3 -a page_id=$NOPAGE \
    -e 5 -a page_id=$PAGE -a text=hello \
    -e 8 -a page_id=$PAGE -a op=status \
    -e 3 -a page_id=../v1/users \
    -e 3 -a page_id=$PAGE -a extra=1 \
    -e 4 \
    -e 99 \
    -- "$NOTION" -m read -b "http://127.0.0.1:$N" -ddd
expect_ok nread
head -n 1 "$TESTDIR/nread.out" | jq_one '.hello.role == 3' ||
    fail "notion read: hello role"
if ! sandbox_disabled; then
	expect_res nread 1 '.proc.Seccomp == "2" and .proc.NoNewPrivs == "1"' \
	    "the notion carrier is sandboxed"
fi
expect_res nread 2 ".status == \"ok\" and .data == {id: \"$PAGE\",
    title: \"Bug bash\", status: \"Not started\", due: \"2026-09-15\",
    owners: [\"c2f20311-9e54-4d11-8c79-7398424ae41e\"],
    url: \"https://www.notion.so/$PAGE_UNDASHED\",
    last_edited_time: \"2026-09-04T14:30:00.000Z\"}" "read page (TASK)"
expect_res nread 3 ".status == \"ok\" and
    .data == {data_sources: [{id: \"$DS\", name: \"Tasks\"}]}" \
    "retrieve database"
expect_res nread 4 '.status == "api" and .http_status == 404 and .sent == 1 and
    .code == "object_not_found" and (.message | startswith("Could not find page"))' \
    "unknown page: 404 object_not_found"
expect_res nread 5 "$(refused no-endpoint)" \
    "the read carrier refuses CEP_NOTION_COMMENT"
expect_res nread 6 "$(refused no-endpoint)" \
    "the read carrier refuses the audit's CEP_NOTION_NOOP"
expect_res nread 7 "$(refused bad-argument) and (.message | contains(\"page_id\"))" \
    "a page id that is a path"
expect_res nread 8 "$(refused bad-argument) and (.message | contains(\"extra\"))" \
    "an argument the row does not have"
expect_res nread 9 "$(refused bad-argument) and (.message | contains(\"missing\"))" \
    "a missing argument"
expect_res nread 10 "$(refused no-endpoint)" "an unknown endpoint"
[ "$(nreq notion)" = 3 ] || fail "notion: want 3 requests, got
$(cat "$TESTDIR/notion.log")"
jq -e -s --arg p "$PAGE" 'map(.method + " " + .path) ==
    ["GET /v1/pages/\($p)", "GET /v1/databases/'$DB'",
     "GET /v1/pages/'$NOPAGE'"] and all(.[]; .headers["User-Agent"] |
     startswith("bouncer-carrier/"))' "$TESTDIR/notion.log" >/dev/null ||
    fail "notion read requests: $(cat "$TESTDIR/notion.log")"

# A token without Read comments: Notion's own 403.
cc nro -c "$TESTDIR/T_READONLY" -P $N -e 4 -a page_id=$PAGE \
    -- "$NOTION" -m read -b "http://127.0.0.1:$N" -ddd
expect_ok nro
expect_res nro 1 '.status == "api" and .http_status == 403 and
    .code == "restricted_resource" and
    .message == "Insufficient permissions for this endpoint."' \
    "list comments without Read comments: 403 restricted_resource"

# Probes of the read table: never on the network.
n0=$(nreq notion)
cc nprobe -c "$TESTDIR/T_READ" \
    -p "GET /v1/pages/$PAGE" \
    -p "GET /v1/pages/$PAGE_UNDASHED" \
    -p "GET /v1/comments?block_id=$PAGE&start_cursor=abc" \
    -p "GET /v1/comments?block_id=$PAGE&page_size=5" \
    -p "PATCH /v1/pages/$PAGE" \
    -p "DELETE /v1/blocks/$PAGE" \
    -p "POST /v1/comments" \
    -p "GET /v1/pages/$PAGE/../../users" \
    -p "GET /v1/pages/%2e%2e" \
    -p "GET /v1/users" \
    -- "$NOTION" -m read -b "http://127.0.0.1:$N"
expect_ok nprobe
expect_res nprobe 1 '.status == "ok" and .data == {would_send: true} and
    .sent == 0' "probe of a read the table has"
expect_res nprobe 2 "$(refused no-endpoint)" \
    "probe of an undashed id (the carrier never sends one)"
expect_res nprobe 3 '.status == "ok"' "probe of a comments page"
for i in 4 5 6 7 8 9 10; do
	expect_res nprobe $i '.status == "refused" and .sent == 0' \
	    "probe $i of the read carrier"
done
[ "$(nreq notion)" = "$n0" ] || fail "a probe reached the notion mock"

# 429: Retry-After, and no retry by the carrier.
start_mock nrate -s notion -T "$T_READ:read_content" -R 1
cc nrate -c "$TESTDIR/T_READ" -P $PORT -e 3 -a page_id=$PAGE \
    -- "$NOTION" -m read -b "http://127.0.0.1:$PORT"
expect_ok nrate
expect_res nrate 1 '.status == "rate" and .http_status == 429 and
    .retry_after == 1 and .code == "rate_limited" and .sent == 1' "notion 429"
[ "$(nreq nrate)" = 1 ] || fail "the carrier retried a 429"

# =====================================================================
# Notion, comment: exactly one POST with exactly the text
# =====================================================================
TEXT=$'Shipped in 1.4 \xe2\x80\x94 "quoted", \\back\\slash,\nnew line, caf\xc3\xa9 \xf0\x9f\x9a\x80'
printf '%s' "$TEXT" >"$TESTDIR/text"
# 1999 units, then a character of two: it must not be split
{ head -c 1999 /dev/zero | tr '\0' a; printf '\xf0\x9f\x98\x80'
  head -c 3000 /dev/zero | tr '\0' b; } >"$TESTDIR/long"
n0=$(nreq notion)
cc ncomment -c "$TESTDIR/T_COMMENT" -P $N \
    -e 5 -a page_id=$PAGE_UNDASHED -a "text=@$TESTDIR/text" \
    -e 5 -a page_id=$PAGE -a "text=@$TESTDIR/long" \
    -e 3 -a page_id=$PAGE \
    -e 4 -a page_id=$PAGE \
    -e 5 -a page_id=$PAGE -a text= \
    -p "POST /v1/comments" \
    -p "GET /v1/pages/$PAGE" \
    -p "PATCH /v1/pages/$PAGE" \
    -p "POST /v1/comments?x=1" \
    -- "$NOTION" -m comment -b "http://127.0.0.1:$N" -ddd
expect_ok ncomment
head -n 1 "$TESTDIR/ncomment.out" | jq_one '.hello.role == 4' ||
    fail "notion comment: hello role"
expect_res ncomment 1 '.status == "ok" and .http_status == 200 and
    (.data | keys) == ["id"] and (.data.id | test("^[0-9a-f-]{36}$"))' \
    "post a Notion comment"
expect_res ncomment 2 '.status == "ok"' "post a long Notion comment"
expect_res ncomment 3 "$(refused no-endpoint)" \
    "the comment carrier refuses read page"
expect_res ncomment 4 "$(refused no-endpoint)" \
    "the comment carrier refuses list comments"
expect_res ncomment 5 "$(refused bad-argument)" "an empty comment"
expect_res ncomment 6 '.status == "ok" and .data.would_send == true' \
    "probe POST /v1/comments"
for i in 7 8 9; do
	expect_res ncomment $i '.status == "refused"' \
	    "probe $i of the comment carrier"
done
[ "$(nreq notion)" = $((n0 + 2)) ] || fail "notion comment: want 2 requests"
tail -n 2 "$TESTDIR/notion.log" >"$TESTDIR/posts"
jq -e -s --rawfile t "$TESTDIR/text" --arg p "$PAGE" '
    .[0] | .method == "POST" and .path == "/v1/comments" and
    .query == null and .headers.Authorization == "Bearer ntn_..." and
    (.body | fromjson) == {parent: {page_id: $p},
      rich_text: [{type: "text", text: {content: $t}}]}' \
    "$TESTDIR/posts" >/dev/null ||
    fail "the comment sent is not exactly the text: $(head -n 1 "$TESTDIR/posts")"
jq -e -s --rawfile t "$TESTDIR/long" '
    .[1].body | fromjson | .rich_text | length == 3 and
    (map(.text.content) | add) == $t and
    (.[0].text.content | length) == 1999 and
    all(.[]; .type == "text" and (.text.content | length) <= 2000)' \
    "$TESTDIR/posts" >/dev/null ||
    fail "the long comment's chunks: $(tail -n 1 "$TESTDIR/posts" | cut -c1-300)"

# =====================================================================
# Notion, audit (bouncer-monitor -C): a no-op update, refused by Notion
# =====================================================================
n0=$(nreq notion)
cc naudit -c "$TESTDIR/T_READ" -P $N -s \
    -e 8 -a page_id=$PAGE -a op=status \
    -e 8 -a page_id=$PAGE -a op=owner \
    -e 8 -a page_id=$PAGE -a op=due \
    -e 8 -a page_id=$PAGE -a op=property \
    -e 8 -a page_id=$PAGE -a op=trash \
    -e 8 -a page_id=$PAGE -a op=title \
    -e 3 -a page_id=$PAGE \
    -p "PATCH /v1/pages/$PAGE" \
    -p "GET /v1/pages/$PAGE" \
    -- "$NOTION" -m audit -b "http://127.0.0.1:$N" -ddd
expect_ok naudit
head -n 1 "$TESTDIR/naudit.out" | jq_one '.hello.role == 7' ||
    fail "notion audit: hello role"
for i in 2 3 4 5 6; do
	expect_res naudit $i '.status == "api" and .http_status == 403 and
	    .code == "restricted_resource" and .sent == 1' \
	    "audit $i: the read token cannot update"
done
expect_res naudit 7 "$(refused bad-argument)" "an op the audit does not know"
expect_res naudit 8 "$(refused no-endpoint)" \
    "the audit carrier reads a page only as part of its no-op"
expect_res naudit 9 '.status == "ok"' "probe of the audit's PATCH"
expect_res naudit 10 "$(refused no-endpoint)" "probe of the audit's GET"
tail -n +$((n0 + 1)) "$TESTDIR/notion.log" >"$TESTDIR/audit.log"
jq -e -s --arg p "/v1/pages/$PAGE" '
    length == 10 and
    (map(.method + " " + .path) == [range(5) | ("GET " + $p), ("PATCH " + $p)]) and
    ([.[1,3,5,7,9].body | fromjson] == [
      {properties: {Status: {status: {name: "Not started"}}}},
      {properties: {Owner: {people: [{id: "c2f20311-9e54-4d11-8c79-7398424ae41e"}]}}},
      {properties: {"Due date": {date: {start: "2026-09-15", end: null, time_zone: null}}}},
      {properties: {Name: {title: [{type: "text", text: {content: "Bug bash"}}]}}},
      {in_trash: false}])' "$TESTDIR/audit.log" >/dev/null ||
    fail "the audit's updates are not no-ops: $(cat "$TESTDIR/audit.log")"
# A token that cannot read sends an empty update; one that can update
# is reported as able to write.
n0=$(nreq notion)
cc naudit2 -c "$TESTDIR/T_COMMENT" -P $N -e 8 -a page_id=$PAGE -a op=due \
    -- "$NOTION" -m audit -b "http://127.0.0.1:$N"
expect_ok naudit2
expect_res naudit2 1 '.status == "api" and .http_status == 403 and
    .code == "restricted_resource"' "audit with a token that cannot read"
tail -n 1 "$TESTDIR/notion.log" | jq_one '.method == "PATCH" and
    (.body | fromjson) == {properties: {}}' ||
    fail "an unreadable page's update is not empty: $(tail -n 1 "$TESTDIR/notion.log")"
cc naudit3 -c "$TESTDIR/T_WRITE" -P $N -e 8 -a page_id=$PAGE -a op=status \
    -- "$NOTION" -m audit -b "http://127.0.0.1:$N"
expect_ok naudit3
expect_res naudit3 1 '.status == "ok" and .data == {written: true}' \
    "audit with a token that can update: written"
[ "$(nreq notion)" = $((n0 + 4)) ] || fail "audit: want 4 more requests"

# =====================================================================
# GitHub: the one write, the forbidden operations, errors
# =====================================================================
start_mock github -s github -T "$T_GITHUB"
G=$PORT
GTEXT=$'Shipped in 1.4 \xe2\x80\x94 "see" <b>notes</b>\n- item'
printf '%s' "$GTEXT" >"$TESTDIR/gtext"
head -c 65536 /dev/zero | tr '\0' b >"$TESTDIR/g65536"
head -c 65537 /dev/zero | tr '\0' b >"$TESTDIR/g65537"
ISS=/repos/octocat/Hello-World/issues/1347
cc github -c "$TESTDIR/T_GITHUB" -P $G -s \
    -e 6 -a owner=octocat -a repo=Hello-World -a number=1347 \
	-a "text=@$TESTDIR/gtext" \
    -e 6 -a owner=octocat -a repo=Hello-World -a number=1347 \
	-a "text=@$TESTDIR/g65536" \
    -e 6 -a owner=octocat -a repo=nope -a number=1 -a text=x \
    -e 6 -a owner=octo/cat -a repo=Hello-World -a number=1 -a text=x \
    -e 6 -a owner=octocat -a repo=.. -a number=1 -a text=x \
    -e 6 -a owner=octocat -a repo=Hello-World -a number=01 -a text=x \
    -e 6 -a owner=octocat -a repo=Hello-World -a number=2147483648 -a text=x \
    -e 6 -a owner=octocat -a repo=Hello-World -a number=1/../2 -a text=x \
    -e 3 -a page_id=$PAGE \
    -- "$GITHUB" -b "http://127.0.0.1:$G" -ddd
expect_ok github
head -n 1 "$TESTDIR/github.out" | jq_one '.hello.role == 5' ||
    fail "github: hello role"
if ! sandbox_disabled; then
	expect_res github 1 '.proc.Seccomp == "2" and .proc.NoNewPrivs == "1"' \
	    "the github carrier is sandboxed"
fi
expect_res github 2 '.status == "ok" and .http_status == 201 and
    (.data | keys) == ["html_url","id"] and (.data.id | type) == "number"' \
    "post a GitHub comment"
expect_res github 3 '.status == "ok"' "a comment of 65536 characters"
expect_res github 4 '.status == "api" and .http_status == 404 and
    .code == "not_found" and .message == "Not Found"' "unknown repo: 404"
for i in 5 6 7 8 9; do
	expect_res github $i "$(refused bad-argument)" "bad argument $i"
done
expect_res github 10 "$(refused no-endpoint)" "github refuses a Notion endpoint"
[ "$(nreq github)" = 3 ] || fail "github: want 3 requests, got $(nreq github)"
# GitHub's 422 for a body over 65536 characters cannot be earned: a call
# frame holds at most 65536 bytes of text (BNC_CONSENT_TEXT_MAX), and
# the validator counts characters against 65536 as well.  A frame that
# carries more, sent past the encoder's checks, is a protocol fault: the
# carrier dies without sending anything.
n0=$(nreq github)
cc g65537 -c "$TESTDIR/T_GITHUB" -P $G -X -e 6 -a owner=octocat \
    -a repo=Hello-World -a number=1347 -a "text=@$TESTDIR/g65537" \
    -- "$GITHUB" -b "http://127.0.0.1:$G"
[ "$CC_RC" != 0 ] || fail "a text of 65537 bytes was taken"
grep -q 'decode carrier-call' "$TESTDIR/g65537.err" ||
    fail "a text of 65537 bytes: $(cat "$TESTDIR/g65537.err")"
[ "$(nreq github)" = "$n0" ] || fail "a text of 65537 bytes reached GitHub"
jq -e -s --rawfile t "$TESTDIR/gtext" --rawfile big "$TESTDIR/g65536" '
    (.[0] | .method == "POST" and
      .path == "/repos/octocat/Hello-World/issues/1347/comments" and
      .query == null and (.body | fromjson) == {body: $t} and
      .headers.Authorization == "Bearer ghp_..." and
      .headers.Accept == "application/vnd.github+json" and
      .headers["X-GitHub-Api-Version"] == "2022-11-28" and
      .headers["Content-Type"] == "application/json" and
      (.headers["User-Agent"] | startswith("bouncer-carrier/"))) and
    (.[1].body | fromjson) == {body: $big} and
    .[2].path == "/repos/octocat/nope/issues/1/comments"' \
    "$TESTDIR/github.log" >/dev/null ||
    fail "github requests: $(cut -c1-400 "$TESTDIR/github.log")"

# What "Issues: write" would also allow: refused by the table and by the
# request-line check, and never on the network.
n0=$(nreq github)
FORBIDDEN=(
	"PATCH $ISS"
	"POST $ISS/assignees"
	"DELETE $ISS/assignees"
	"POST $ISS/labels"
	"PUT $ISS/labels"
	"DELETE $ISS/labels/bug"
	"PUT $ISS/lock"
	"PATCH /repos/octocat/Hello-World/issues/comments/1"
	"DELETE /repos/octocat/Hello-World/issues/comments/1"
	"POST /repos/octocat/Hello-World/issues"
	"GET /user"
	"POST /graphql"
	"GET $ISS/comments"
	"post $ISS/comments"
	"POST $ISS/comments/"
	"POST $ISS/comments?per_page=1"
	"POST /repos/octocat/Hello-World/issues/1347/%2e%2e/1/comments"
	"POST /repos/octocat/Hello-World/issues/../issues/1347/comments"
	"POST /repos/octocat/../Hello-World/issues/1347/comments"
	"POST /repos/octocat%2FHello-World/x/issues/1347/comments"
	"POST /repos/octocat/Hello%2DWorld/issues/1347/comments"
	"POST //repos/octocat/Hello-World/issues/1347/comments"
	"POST /repos/octocat/Hello-World/issues/0/comments"
	"POST /repos/octocat/Hello-World/issues/2147483648/comments"
	"POST /repos/-octocat/Hello-World/issues/1/comments"
	"POST $HOOK_DEPLOY"
)
args=()
for f in "${FORBIDDEN[@]}"; do
	args+=(-p "$f")
done
cc gprobe -c "$TESTDIR/T_GITHUB" "${args[@]}" \
    -p "POST $ISS/comments" \
    -- "$GITHUB" -b "http://127.0.0.1:$G"
expect_ok gprobe
for i in "${!FORBIDDEN[@]}"; do
	expect_res gprobe $((i + 1)) "$(refused no-endpoint)" \
	    "probe ${FORBIDDEN[$i]}"
done
expect_res gprobe $((${#FORBIDDEN[@]} + 1)) '.status == "ok" and
    .data == {would_send: true}' "probe of the comment the table has"
[ "$(nreq github)" = "$n0" ] || fail "a probe reached the github mock:
$(tail -n +$((n0 + 1)) "$TESTDIR/github.log")"

# 401, 429, and a vendor that died with the connection open.
printf 'ghp_wrong\n' >"$TESTDIR/T_WRONG"
cc g401 -c "$TESTDIR/T_WRONG" -P $G -e 6 -a owner=octocat \
    -a repo=Hello-World -a number=1347 -a text=x \
    -- "$GITHUB" -b "http://127.0.0.1:$G"
expect_ok g401
expect_res g401 1 '.status == "api" and .http_status == 401 and
    .code == "bad_credentials" and .message == "Bad credentials"' "github 401"
start_mock grate -s github -T "$T_GITHUB" -R 1
cc grate -c "$TESTDIR/T_GITHUB" -P $PORT -e 6 -a owner=octocat \
    -a repo=Hello-World -a number=1347 -a text=x \
    -- "$GITHUB" -b "http://127.0.0.1:$PORT"
expect_ok grate
expect_res grate 1 '.status == "rate" and .http_status == 429 and
    .retry_after == 1 and .code == "rate_limited" and
    (.message | test("secondary rate limit"))' "github 429"
[ "$(nreq grate)" = 1 ] || fail "the carrier retried a 429"
start_mock gdead -s github -T "$T_GITHUB"
cc gdead -c "$TESTDIR/T_GITHUB" -P $PORT -e 6 -a owner=octocat \
    -a repo=Hello-World -a number=1347 -a text=x -k $MPID \
    -- "$GITHUB" -b "http://127.0.0.1:$PORT"
expect_ok gdead
expect_res gdead 1 '.status == "net" and .http_status == 0 and
    .code == "network" and .data == null' "a dead vendor: CARRIER_NET"
# A vendor that takes the request and never answers: after
# BNC_CARRIER_HTTP_TIMEOUT_S, CARRIER_NET, and the write may have
# happened (sent), so the monitor must not send it again.
touch "$TESTDIR/stall"
start_mock gstall -s github -T "$T_GITHUB" -S "$TESTDIR/stall"
t0=$(date +%s)
cc gstall -c "$TESTDIR/T_GITHUB" -P $PORT -e 6 -a owner=octocat \
    -a repo=Hello-World -a number=1347 -a text=x \
    -- "$GITHUB" -b "http://127.0.0.1:$PORT"
t1=$(date +%s)
expect_ok gstall
expect_res gstall 1 '.status == "net" and .sent == 1 and .http_status == 0 and
    (.message | test("[Tt]imed? ?out"))' "a stalled vendor: CARRIER_NET, sent"
[ $((t1 - t0)) -ge 19 ] && [ $((t1 - t0)) -le 30 ] ||
    fail "the stalled call took $((t1 - t0)) s, want about 20"
[ "$(nreq gstall)" = 1 ] || fail "the stalled request was sent again"

# =====================================================================
# Slack: the configured webhooks only, by channel name
# =====================================================================
start_mock slack -s slack -W "$HOOK_DEPLOY"
S=$PORT
STEXT=$'Deploy done \xe2\x9c\x85 "v1.4"'
printf '%s' "$STEXT" >"$TESTDIR/stext"
head -c 4000 /dev/zero | tr '\0' s >"$TESTDIR/s4000"
head -c 4001 /dev/zero | tr '\0' s >"$TESTDIR/s4001"
cc slack -c "$TESTDIR/hooks" -P $S -s \
    -e 7 -a channel=deploys -a "text=@$TESTDIR/stext" \
    -e 7 -a channel=alerts -a text=x \
    -e 7 -a channel=random -a text=x \
    -e 7 -a channel=deploys -a "text=@$TESTDIR/s4000" \
    -e 7 -a channel=deploys -a "text=@$TESTDIR/s4001" \
    -e 7 -a channel=deploys -a text=x -a username=admin \
    -p "POST $HOOK_DEPLOY" \
    -p "POST $HOOK_ALERT" \
    -p "POST /services/T0001/B0001/other" \
    -p "GET $HOOK_DEPLOY" \
    -p "POST $HOOK_DEPLOY/" \
    -p "POST $HOOK_DEPLOY?x=1" \
    -p "POST deploys" \
    -- "$SLACK" -b "http://127.0.0.1:$S" -ddd
expect_ok slack
head -n 1 "$TESTDIR/slack.out" | jq_one '.hello.role == 6' ||
    fail "slack: hello role"
if ! sandbox_disabled; then
	expect_res slack 1 '.proc.Seccomp == "2" and .proc.NoNewPrivs == "1"' \
	    "the slack carrier is sandboxed"
fi
expect_res slack 2 '.status == "ok" and .http_status == 200 and
    .data == {ok: true}' "post to a channel's webhook"
expect_res slack 3 '.status == "api" and .http_status == 404 and
    .code == "no_service"' "a webhook Slack does not know: no_service"
expect_res slack 4 "$(refused bad-argument)" "a channel with no webhook"
expect_res slack 5 '.status == "ok"' "a message of 4000 characters"
expect_res slack 6 "$(refused bad-argument)" "a message of 4001 characters"
expect_res slack 7 "$(refused bad-argument)" "a field the row does not send"
expect_res slack 8 '.status == "ok"' "probe of a configured webhook"
expect_res slack 9 '.status == "ok"' "probe of the other configured webhook"
for i in 10 11 12 13 14; do
	expect_res slack $i "$(refused no-endpoint)" "slack probe $i"
done
[ "$(nreq slack)" = 3 ] || fail "slack: want 3 requests, got $(nreq slack)"
jq -e -s --rawfile t "$TESTDIR/stext" --arg d "$HOOK_DEPLOY" --arg a "$HOOK_ALERT" '
    map(.method + " " + .path) == ["POST \($d)", "POST \($a)", "POST \($d)"] and
    (.[0].body | fromjson) == {text: $t} and
    .[0].headers["Content-Type"] == "application/json" and
    .[0].headers.Authorization == null' "$TESTDIR/slack.log" >/dev/null ||
    fail "slack requests: $(cut -c1-300 "$TESTDIR/slack.log")"
start_mock srate -s slack -W "$HOOK_DEPLOY" -R 1
cc srate -c "$TESTDIR/hooks" -P $PORT -e 7 -a channel=deploys -a text=x \
    -- "$SLACK" -b "http://127.0.0.1:$PORT"
expect_ok srate
expect_res srate 1 '.status == "rate" and .retry_after == 1' "slack 429"

# =====================================================================
# Start-up: a carrier that cannot be what it is told to be does not start
# =====================================================================
# startup_fails NAME WHAT CREDFILE CARRIER ARGS...: no hello, a non-zero
# exit, and a reason on stderr.
startup_fails() {
	local name=$1 what=$2 cred=$3
	shift 3
	cc "$name" -c "$cred" -- "$@"
	[ "$CC_RC" != 0 ] || fail "$what: the carrier started"
	grep -q '"hello"' "$TESTDIR/$name.out" && fail "$what: it said hello"
	jq_one '.exit != 0' <"$TESTDIR/$name.out" ||
	    fail "$what: $(cat "$TESTDIR/$name.out")"
}
for b in https://evil.example http://evil.example:80 http://10.0.0.1:80 \
    https://127.0.0.1:443 http://127.0.0.1 http://127.0.0.1:0 \
    http://127.0.0.1:65536 http://127.0.0.1:80/v1 http://127.0.0.1:80?x \
    http://user@127.0.0.1:80 http://127.0.0.2:80 http://localhost.evil:80 \
    http://[::2]:80 HTTP://127.0.0.1:80 " http://127.0.0.1:80"; do
	startup_fails badbase "-b $b" "$TESTDIR/T_READ" \
	    "$NOTION" -m read -b "$b"
	grep -qF -- "-b $b:" "$TESTDIR/badbase.err" ||
	    fail "-b $b: no reason given: $(cat "$TESTDIR/badbase.err")"
done
for b in http://127.0.0.1:8080 http://127.0.0.1:8080/ 'http://[::1]:80' \
    http://localhost:1; do
	cc goodbase -c "$TESTDIR/T_READ" -- "$NOTION" -m read -b "$b"
	expect_ok goodbase
done
startup_fails nomode "no -m" "$TESTDIR/T_READ" "$NOTION"
startup_fails badmode "-m write" "$TESTDIR/T_READ" "$NOTION" -m write
startup_fails githubmode "-m on github" "$TESTDIR/T_GITHUB" "$GITHUB" -m read
printf '' >"$TESTDIR/empty"
startup_fails notoken "no token" "$TESTDIR/empty" "$NOTION" -m read
printf 'ntn_has space\n' >"$TESTDIR/spacetok"
startup_fails spacetok "a token with a space" "$TESTDIR/spacetok" \
    "$GITHUB"
grep -q 'has space' "$TESTDIR/spacetok.err" &&
    fail "a refused token was printed"
head -c 8193 /dev/zero | tr '\0' t >"$TESTDIR/bigtok"
startup_fails bigtok "a token over 8192 bytes" "$TESTDIR/bigtok" "$GITHUB"
head -c 8192 /dev/zero | tr '\0' t >"$TESTDIR/maxtok"
cc maxtok -c "$TESTDIR/maxtok" -- "$GITHUB"
expect_ok maxtok
printf 'deploys\thttps://evil.example/services/T1/B1/abc\n' >"$TESTDIR/h1"
startup_fails hookhost "a webhook on another host" "$TESTDIR/h1" "$SLACK"
printf 'deploys\thttps://hooks.slack.com/services/T1/B1/a%%2e\n' >"$TESTDIR/h2"
startup_fails hookpath "a webhook path with %" "$TESTDIR/h2" "$SLACK"
printf 'Deploys\thttps://hooks.slack.com/services/T1/B1/abc\n' >"$TESTDIR/h3"
startup_fails hookchan "a channel in upper case" "$TESTDIR/h3" "$SLACK"
printf 'a\thttps://hooks.slack.com/services/T1/B1/abc\na\thttps://hooks.slack.com/services/T2/B2/abc\n' \
    >"$TESTDIR/h4"
startup_fails hooktwice "a channel twice" "$TESTDIR/h4" "$SLACK"
printf 'a https://hooks.slack.com/services/T1/B1/abc\n' >"$TESTDIR/h5"
startup_fails hooktab "no tab" "$TESTDIR/h5" "$SLACK"
startup_fails hooknone "no webhook" "$TESTDIR/empty" "$SLACK"

# =====================================================================
# No credential in any log, at any level
# =====================================================================
for t in T_READ T_READONLY T_COMMENT T_WRITE T_GITHUB; do
	grep -qF -- "${!t}" "$ERRLOG" && fail "$t appears in a carrier's log"
	grep -qF -- "${!t}" "$TESTDIR"/*.log && fail "$t appears in a mock's log"
done
for h in "$HOOK_DEPLOY" "$HOOK_ALERT" s3cr3tDeploy 0therSecret; do
	grep -qF -- "$h" "$ERRLOG" && fail "a webhook path appears in a log"
done
grep -q 'carrier log: .*GET /v1/pages/' "$ERRLOG" ||
    fail "the debug log is empty: this check could not fail"
pass
