#!/usr/bin/env bash
#
# regress/carrier-tls.sh - a carrier's own path, https to the vendor's
# host name, works under its sandbox, and fails closed: a local TLS
# server (openssl s_server) plays api.notion.com with a certificate from
# a test CA, and bouncer-carrier-notion, built with -C to trust that CA
# (regress/mocks/carrier-notion-testca; no installed carrier has -C),
# reads a page through it while seccomp and no_new_privs hold.  A
# certificate for another name, or from another CA, is refused before a
# request byte is sent.  Skipped without the openssl command.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/regress/test-lib.sh"

require_cmd openssl jq

CC=$top_builddir/regress/mocks/carrier-call
CARRIER=$top_builddir/regress/mocks/carrier-notion-testca
[ -x "$CARRIER" ] || fail "$CARRIER is not built"
SERVERS=
PAGE=be633bf1-dfa0-436d-b259-571129a590e5

cleanup_servers() {
	local p

	for p in $SERVERS; do
		kill "$p" 2>/dev/null
	done
}
trap 'rc=$?; cleanup_servers; (exit $rc); test_cleanup' EXIT

# cert NAME CN CA: a key and a certificate for CN signed by CA (a
# self-signed CA when CA is "-").
cert() {
	local name=$1 cn=$2 ca=$3 d=$TESTDIR/pki

	mkdir -p "$d"
	if [ "$ca" = - ]; then
		openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
		    -keyout "$d/$name.key" -out "$d/$name.pem" \
		    -subj "/CN=$cn" 2>>"$d/log" || fail "openssl: $(cat "$d/log")"
		return
	fi
	openssl req -newkey rsa:2048 -nodes -keyout "$d/$name.key" \
	    -out "$d/$name.csr" -subj "/CN=$cn" 2>>"$d/log" &&
	printf 'subjectAltName=DNS:%s\n' "$cn" >"$d/$name.ext" &&
	openssl x509 -req -in "$d/$name.csr" -CA "$d/$ca.pem" \
	    -CAkey "$d/$ca.key" -CAcreateserial -days 2 \
	    -extfile "$d/$name.ext" -out "$d/$name.pem" 2>>"$d/log" ||
	    fail "openssl: $(cat "$d/log")"
}

# serve NAME [ADDR]: openssl s_server -WWW with NAME's certificate,
# serving $TESTDIR/www on ADDR (127.0.0.1 by default) and a port of the
# kernel's choice; sets PORT, or returns 1 if it did not start.
serve() {
	local i out=$TESTDIR/$1.server addr=${2:-127.0.0.1}

	(cd "$TESTDIR/www" && exec openssl s_server -WWW \
	    -accept "$addr:0" -cert "$TESTDIR/pki/$1.pem" \
	    -key "$TESTDIR/pki/$1.key" >"$out" 2>&1) &
	SERVERS="$SERVERS $!"
	for i in $(seq 50); do
		PORT=$(sed -n 's/^ACCEPT .*:\([0-9][0-9]*\)$/\1/p' "$out")
		[ -n "$PORT" ] && return 0
		sleep 0.1
	done
	return 1
}

cert ca 'bouncer test CA' -
cert other 'another CA' -
cert notion api.notion.com ca
cert evil evil.example ca
cert stranger api.notion.com other

# The page, as Notion answers it (s_server -WWW serves files).
mkdir -p "$TESTDIR/www/v1/pages"
cat >"$TESTDIR/www/v1/pages/$PAGE" <<EOF
{"object":"page","id":"$PAGE","last_edited_time":"2026-09-04T14:30:00.000Z",
 "in_trash":false,"url":"https://www.notion.so/x",
 "properties":{
  "Name":{"id":"title","type":"title","title":[{"type":"text",
   "text":{"content":"Bug bash"},"plain_text":"Bug bash"}]},
  "Status":{"id":"s","type":"status","status":{"name":"Not started"}},
  "Due":{"id":"d","type":"date","date":{"start":"2026-09-15"}},
  "Owner":{"id":"o","type":"people","people":[{"object":"user",
   "id":"c2f20311-9e54-4d11-8c79-7398424ae41e"}]}}}
EOF
printf 'ntn_TLStok3n\n' >"$TESTDIR/token"

# runs NAME PORT [-6]: one read of the page over TLS, and the carrier's
# /proc status while it holds the connection's state.
runs() {
	"$CC" -t 40 ${3:-} -c "$TESTDIR/token" -P "$2" -s -e 3 -a page_id=$PAGE \
	    -- "$CARRIER" -m read -C "$TESTDIR/pki/ca.pem" -ddd \
	    >"$TESTDIR/$1.out" 2>"$TESTDIR/$1.err" ||
	    fail "$1: $(cat "$TESTDIR/$1.out" "$TESTDIR/$1.err")"
	RESULT=$(sed -n 3p "$TESTDIR/$1.out")
}

serve notion || fail "s_server did not start: $(cat "$TESTDIR/notion.server")"
runs good "$PORT"
if ! sandbox_disabled; then
	sed -n 2p "$TESTDIR/good.out" | jq_one '.proc.Seccomp == "2" and
	    .proc.NoNewPrivs == "1"' || fail "not sandboxed: $(cat "$TESTDIR/good.out")"
fi
printf '%s' "$RESULT" | jq_one ".status == \"ok\" and .http_status == 200 and
    .data == {id: \"$PAGE\", title: \"Bug bash\", status: \"Not started\",
    due: \"2026-09-15\", owners: [\"c2f20311-9e54-4d11-8c79-7398424ae41e\"],
    url: \"https://www.notion.so/x\",
    last_edited_time: \"2026-09-04T14:30:00.000Z\"}" ||
    fail "a page over TLS: $RESULT
$(cat "$TESTDIR/good.err")"
grep -q "^FILE:v1/pages/$PAGE\$" "$TESTDIR/notion.server" ||
    fail "s_server saw no request: $(cat "$TESTDIR/notion.server")"

# A certificate for another name, and one from a CA the carrier does
# not trust: refused in the handshake, nothing of the request sent.
serve evil || fail "s_server did not start: $(cat "$TESTDIR/evil.server")"
runs evil "$PORT"
printf '%s' "$RESULT" | jq_one '.status == "net" and .sent == 0 and
    (.message | test("host name|subject name"))' ||
    fail "a certificate for evil.example was taken: $RESULT"
grep -q '^FILE:' "$TESTDIR/evil.server" &&
    fail "a request reached evil.example"
serve stranger ||
    fail "s_server did not start: $(cat "$TESTDIR/stranger.server")"
runs stranger "$PORT"
printf '%s' "$RESULT" | jq_one '.status == "net" and .sent == 0 and
    (.message | test("certificate"))' ||
    fail "a certificate from another CA was taken: $RESULT"
grep -q '^FILE:' "$TESTDIR/stranger.server" &&
    fail "a request reached a server with an untrusted certificate"

# Over IPv6: libcurl is told the host's address from the socket's peer.
if cp "$TESTDIR/pki/notion.pem" "$TESTDIR/pki/notion6.pem" &&
    cp "$TESTDIR/pki/notion.key" "$TESTDIR/pki/notion6.key" &&
    serve notion6 '[::1]'; then
	runs good6 "$PORT" -6
	printf '%s' "$RESULT" | jq_one '.status == "ok" and
	    .data.title == "Bug bash"' || fail "a page over IPv6: $RESULT"
else
	log "no IPv6 loopback here: the IPv6 case is skipped"
fi

grep -qF ntn_TLStok3n "$TESTDIR"/*.err && fail "the token is in a log"
pass
