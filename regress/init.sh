#!/usr/bin/env bash
#
# regress/init.sh - bouncer-init(1) on the MCP client configs that Claude
# Desktop, Cursor and Claude Code write: every stdio server is repointed
# at bouncer-monitor -c FILE -u NAME with the whole original entry
# stashed, non-stdio servers and other keys are left alone, a backup is
# made, a second run changes nothing, -n writes nothing, the real monitor
# runs the upstream from the wrapped entry (env and ${VAR} included), and
# -U restores the original content.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

INIT=$top_builddir/monitor/bouncer-init
[ -x "$INIT" ] || fail "no bouncer-init at $INIT (build it first)"
require_cmd cmp stat

OUT=$TESTDIR/out
ERR=$TESTDIR/err

# run_init ARGS...: bouncer-init -m $MONITOR ARGS; status in RC.
run_init() {
	timeout 20 "$INIT" -m "$MONITOR" "$@" >"$OUT" 2>"$ERR"
	RC=$?
	[ "$RC" != 124 ] || fail "bouncer-init $* hung"
}

# init_ok ARGS...: bouncer-init must succeed.
init_ok() {
	run_init "$@"
	[ "$RC" = 0 ] || fail "bouncer-init $* exited $RC:
$(cat "$OUT" "$ERR")"
}

# init_fails WANT ARGS...: bouncer-init must fail, saying WANT.
init_fails() {
	local want=$1

	shift
	run_init "$@"
	[ "$RC" = 1 ] || fail "bouncer-init $* exited $RC, want 1:
$(cat "$OUT" "$ERR")"
	grep -qF -- "$want" "$ERR" || fail "bouncer-init $*: no \"$want\" in:
$(cat "$ERR")"
}

# jq_ok FILE FILTER [JQ-ARGS...]: jq -e FILTER must hold on FILE.
jq_ok() {
	local f=$1 filter=$2

	shift 2
	jq -e "$@" "$filter" "$f" >/dev/null ||
	    fail "$f does not satisfy: $filter
$(cat "$f")"
}

# same_json A B: equal JSON content (key order and spacing aside).
same_json() {
	cmp -s <(jq -S . "$1") <(jq -S . "$2") ||
	    fail "$1 and $2 differ in content:
$(diff <(jq -S . "$1") <(jq -S . "$2"))"
}

# stash_is FILE SERVER ORIG: the stash is ORIG's entry, exactly.
stash_is() {
	jq_ok "$1" '.mcpServers[$s]["x-bouncer-upstream"] ==
	    $o[0].mcpServers[$s]' --arg s "$2" --slurpfile o "$3"
}

# no_leftovers DIR: no temp file of bouncer-init stays behind.
no_leftovers() {
	local left

	left=$(find "$1" -name '.*.bouncer-init.*')
	[ -z "$left" ] || fail "temp files left behind: $left"
}

# ---------------------------------------------------------------------
# Claude Desktop's claude_desktop_config.json
# ---------------------------------------------------------------------
D=$TESTDIR/desktop
mkdir -p "$D"
DESK=$D/claude_desktop_config.json
cat >"$DESK" <<EOF
{
  "globalShortcut": "Alt+Space",
  "mcpServers": {
    "files": {
      "command": "$MOCK",
      "args": ["-n", "files", "-l", "$TESTDIR/files.log"],
      "env": {
        "BNC_TEST_SECRET": "s3cr\"et \\\\ \\/ \u00e9 \ud83d\ude00 end",
        "BNC_TEST_EXPANDED": "\${BNC_TEST_FROM_CLIENT:-fallback}",
        "BNC_TEST_DEFAULTED": "\${BNC_TEST_UNSET_VAR:-fallback}"
      }
    },
    "remote": {
      "type": "http",
      "url": "https://example.invalid/mcp",
      "headers": {"Authorization": "Bearer not-a-real-token"}
    },
    "legacy-sse": {"url": "https://example.invalid/sse"},
    "odd.name": {"command": "$MOCK"}
  },
  "preferences": {"menuBar": true, "ratio": 1.5, "list": [1, null, false]}
}
EOF
chmod 600 "$DESK"
cp -p "$DESK" "$TESTDIR/desktop.orig"
jq -e . "$DESK" >/dev/null || fail "the sample config is not JSON"

# -n: shows the change, writes nothing
init_ok -n -c "$DESK"
cmp -s "$DESK" "$TESTDIR/desktop.orig" || fail "-n changed the file"
[ ! -e "$DESK.bouncer-bak" ] || fail "-n made a backup"
no_leftovers "$D"
grep -q '^wrap  *files: ' "$OUT" ||
    fail "-n does not show the wrap: $(cat "$OUT")"
grep -qF -- "-> $MONITOR -c $DESK -u files" "$OUT" ||
    fail "-n does not show the new command: $(cat "$OUT")"
grep -q '^skip  *remote: not a stdio server' "$OUT" ||
    fail "-n does not say remote is skipped: $(cat "$OUT")"
grep -q '^skip  *legacy-sse: not a stdio server' "$OUT" ||
    fail "-n does not say legacy-sse is skipped: $(cat "$OUT")"
grep -q '^skip  *odd.name: ' "$OUT" ||
    fail "-n does not say odd.name is skipped: $(cat "$OUT")"
grep -q 'not written' "$OUT" || fail "-n does not say it wrote nothing"
! grep -q 's3cr' "$OUT" "$ERR" || fail "-n printed an env value"

# wrap
init_ok -c "$DESK"
jq_ok "$DESK" '.mcpServers.files.command == $m' --arg m "$MONITOR"
jq_ok "$DESK" '.mcpServers.files.args == ["-c", $f, "-u", "files"]' \
    --arg f "$DESK"
jq_ok "$DESK" '.mcpServers.files | has("env") | not'
stash_is "$DESK" files "$TESTDIR/desktop.orig"
jq_ok "$DESK" 'del(.mcpServers.files) == ($o[0] | del(.mcpServers.files))' \
    --slurpfile o "$TESTDIR/desktop.orig"
jq_ok "$DESK" '[.mcpServers | keys_unsorted[]] ==
    ["files", "remote", "legacy-sse", "odd.name"]'
jq_ok "$DESK" '[keys_unsorted[]] ==
    ["globalShortcut", "mcpServers", "preferences"]'
[ "$(grep -c 's3cr' "$DESK")" = 1 ] || fail "the secret is not in one place"
cmp -s "$DESK.bouncer-bak" "$TESTDIR/desktop.orig" ||
    fail "the backup is not the original"
[ "$(stat -c %a "$DESK")" = 600 ] || fail "mode not kept: $(stat -c %a "$DESK")"
[ "$(stat -c %a "$DESK.bouncer-bak")" = 600 ] ||
    fail "backup mode: $(stat -c %a "$DESK.bouncer-bak")"
no_leftovers "$D"
grep -q "the original is in $DESK.bouncer-bak" "$OUT" ||
    fail "no word of the backup: $(cat "$OUT")"
cp -p "$DESK" "$TESTDIR/desktop.wrapped"

# again: idempotent
init_ok -c "$DESK"
cmp -s "$DESK" "$TESTDIR/desktop.wrapped" ||
    fail "a second run changed the file"
grep -q '^keep  *files: already wrapped' "$OUT" ||
    fail "a second run does not say files is wrapped: $(cat "$OUT")"
grep -q 'nothing to change' "$OUT" || fail "a second run changed something"
[ ! -e "$DESK.bouncer-bak.1" ] || fail "a second run made a backup"
init_ok -n -c "$DESK"
cmp -s "$DESK" "$TESTDIR/desktop.wrapped" ||
    fail "-n on a wrapped file changed it"

# errors write nothing
init_fails "no server nosuch" -c "$DESK" -s nosuch
init_fails "cannot wrap remote: not a stdio server" -c "$TESTDIR/desktop.orig" \
    -s remote
[ ! -e "$TESTDIR/desktop.orig.bouncer-bak" ] ||
    fail "a failed run made a backup"
printf '{\n  "mcpServers": {\n    "a": [1,\n  }\n}\n' >"$TESTDIR/broken.json"
init_fails "$TESTDIR/broken.json:4: not valid JSON" -c "$TESTDIR/broken.json"
init_fails "No such file" -c "$TESTDIR/nonexistent.json"
run_init -c "$DESK" -m relative/bouncer-monitor
[ "$RC" = 1 ] || fail "-m with a relative path was accepted"
[ ! -e "$DESK.bouncer-bak.1" ] || fail "a failed run made a backup"

# ---------------------------------------------------------------------
# The real monitor, started as the client would start the wrapped entry.
# ---------------------------------------------------------------------
if "$MONITOR" -c x -u y -t 2>&1 |
    grep -qiE 'invalid option|unrecognized option|illegal option'; then
	log "SKIP (this part): bouncer-monitor has no -c/-u yet"
else
	# Not wrapped: the monitor says to run bouncer-init.
	timeout 10 "$MONITOR" -t -c "$DESK" -u odd-name >/dev/null 2>"$ERR" &&
	    fail "the monitor accepted a server that is not there"
	grep -qF "$DESK" "$ERR" ||
	    fail "the monitor's error names no file: $(cat "$ERR")"
	cmd=$(jq -r '.mcpServers.files.command' "$DESK")
	mapfile -t args < <(jq -r '.mcpServers.files.args[]' "$DESK")
	[ "$cmd" = "$MONITOR" ] || fail "the wrapped command is $cmd"
	timeout 10 "$cmd" -t "${args[@]}" </dev/null >"$OUT" 2>"$ERR" ||
	    fail "bouncer-monitor -t ${args[*]} failed: $(cat "$ERR")"
	export BNC_TEST_FROM_CLIENT="from the client's environment"
	unset BNC_TEST_UNSET_VAR
	start_monitor "${args[@]}"
	handshake
	list_tools
	has_tool env || fail "the wrapped upstream's tools are not listed"
	call 1 env '{"name":"BNC_TEST_SECRET"}'
	expect_line "$(f_text 1 "s3cr\"et \\ / é 😀 end")"
	call 2 env '{"name":"BNC_TEST_EXPANDED"}'
	expect_line "$(f_text 2 "from the client's environment")"
	call 3 env '{"name":"BNC_TEST_DEFAULTED"}'
	expect_line "$(f_text 3 "fallback")"
	# The secret went to the upstream, not to the monitor's environment.
	! tr '\0' '\n' <"/proc/$MON_PID/environ" | grep -q BNC_TEST_SECRET ||
	    fail "the monitor itself holds the stashed env"
	[ "$(mock_calls "$TESTDIR/files.log" | wc -l)" = 3 ] ||
	    fail "the upstream missed calls: $(mock_calls "$TESTDIR/files.log")"
	stop_monitor
	[ "$MON_STATUS" = 0 ] || fail "monitor exited $MON_STATUS"
	unset BNC_TEST_FROM_CLIENT
fi

# ---------------------------------------------------------------------
# -U: the original content back, the first backup kept
# ---------------------------------------------------------------------
init_ok -n -U -c "$DESK"
cmp -s "$DESK" "$TESTDIR/desktop.wrapped" || fail "-n -U changed the file"
grep -q '^unwrap  *files: ' "$OUT" || fail "-n -U does not show the unwrap"
init_ok -U -c "$DESK"
same_json "$DESK" "$TESTDIR/desktop.orig"
jq_ok "$DESK" '[keys_unsorted[]] ==
    ["globalShortcut", "mcpServers", "preferences"]'
jq_ok "$DESK" '[.mcpServers | keys_unsorted[]] ==
    ["files", "remote", "legacy-sse", "odd.name"]'
cmp -s "$DESK.bouncer-bak" "$TESTDIR/desktop.orig" ||
    fail "the first backup was overwritten"
cmp -s "$DESK.bouncer-bak.1" "$TESTDIR/desktop.wrapped" ||
    fail "no numbered backup"
[ "$(stat -c %a "$DESK")" = 600 ] || fail "mode not kept by -U"
init_ok -U -c "$DESK"
grep -q 'nothing to change' "$OUT" || fail "-U twice changed something"
[ ! -e "$DESK.bouncer-bak.2" ] || fail "-U twice made a backup"
no_leftovers "$D"

# ---------------------------------------------------------------------
# Cursor's .cursor/mcp.json (tabs, no final newline), -s, a symlink
# ---------------------------------------------------------------------
C=$TESTDIR/project/.cursor
mkdir -p "$C" "$TESTDIR/dotfiles"
# (the text of the file is indented with tabs and has no final newline)
printf '%s' "$(cat <<'EOF'
{
	"mcpServers": {
		"github": {
			"command": "npx",
			"args": ["-y", "@modelcontextprotocol/server-github"],
			"env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_not_real"}
		},
		"notion": {
			"command": "npx",
			"args": ["-y", "@notionhq/notion-mcp-server"],
			"env": {"OPENAPI_MCP_HEADERS":
			    "{\"Authorization\": \"Bearer ntn_not_real\"}"}
		}
	}
}
EOF
)" >"$TESTDIR/dotfiles/mcp.json"
ln -s "$TESTDIR/dotfiles/mcp.json" "$C/mcp.json"
cp "$TESTDIR/dotfiles/mcp.json" "$TESTDIR/cursor.orig"
init_ok -c "$C/mcp.json" -s github
[ -L "$C/mcp.json" ] || fail "the symlink was replaced by a file"
CUR=$TESTDIR/dotfiles/mcp.json
jq_ok "$CUR" '.mcpServers.github.args == ["-c", $f, "-u", "github"]' \
    --arg f "$CUR"
stash_is "$CUR" github "$TESTDIR/cursor.orig"
jq_ok "$CUR" '.mcpServers.notion == $o[0].mcpServers.notion' \
    --slurpfile o "$TESTDIR/cursor.orig"
grep -q $'^\t"mcpServers"' "$CUR" || fail "the tab indentation was not kept"
[ "$(tail -c 1 "$CUR" | od -An -c | tr -d ' ')" = "}" ] ||
    fail "a final newline appeared"
[ -e "$CUR.bouncer-bak" ] || fail "no backup next to the real file"
init_ok -c "$C/mcp.json"
stash_is "$CUR" notion "$TESTDIR/cursor.orig"
jq_ok "$CUR" '[.mcpServers[] | has("x-bouncer-upstream")] == [true, true]'
init_ok -U -c "$C/mcp.json" -s notion
jq_ok "$CUR" '.mcpServers.notion == $o[0].mcpServers.notion' \
    --slurpfile o "$TESTDIR/cursor.orig"
jq_ok "$CUR" '.mcpServers.github | has("x-bouncer-upstream")'
init_ok -U -c "$C/mcp.json"
same_json "$CUR" "$TESTDIR/cursor.orig"
[ -L "$C/mcp.json" ] || fail "-U replaced the symlink"
no_leftovers "$TESTDIR/dotfiles"

# ---------------------------------------------------------------------
# Claude Code's ~/.claude.json: type stdio, per-project servers left alone
# ---------------------------------------------------------------------
CC=$TESTDIR/claude.json
cat >"$CC" <<EOF
{
  "numStartups": 12,
  "mcpServers": {
    "fs": {"type": "stdio", "command": "$MOCK", "args": [], "env": {}}
  },
  "projects": {
    "/home/u/work": {
      "allowedTools": [],
      "mcpServers": {
        "local": {"type": "stdio", "command": "npx", "args": ["x"]}
      }
    }
  }
}
EOF
cp "$CC" "$TESTDIR/claude.orig"
init_ok -c "$CC"
grep -q 'projects' "$ERR" || fail "no note about the per-project servers"
jq_ok "$CC" '.mcpServers.fs.type == "stdio" and .mcpServers.fs.command == $m' \
    --arg m "$MONITOR"
jq_ok "$CC" '.projects == $o[0].projects' --slurpfile o "$TESTDIR/claude.orig"
stash_is "$CC" fs "$TESTDIR/claude.orig"
init_ok -U -c "$CC"
same_json "$CC" "$TESTDIR/claude.orig"

pass
