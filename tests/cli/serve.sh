#!/usr/bin/env bash
# nmt serve as its clients see it: started on a free loopback port, /health
# waited for, then LibreTranslate's documented requests with curl, the
# `libretranslate` npm package as a third-party client, translations checked
# against `nmt translate` (format html against `nmt translate --format
# html`), the limits (413, 503 + Retry-After, 400, 403,
# 404), slow and vanishing clients, and SIGTERM with requests in flight
# (every one answered, exit 0). A tiny random model first, then
# models/en-fr.nmt.
#
# The npm client is installed once into the build directory
# (npm-libretranslate/, next to the nmt binary). Without npm or the registry
# that part is skipped, except under CI=true, where it fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
command -v curl >/dev/null || fail "curl is needed (apt-get install curl)"
trap 'stop_all; rm -rf "$TMP"' EXIT

SERVERS=()
stop_all() {
    local pid
    for pid in "${SERVERS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
}

# start_server LOG ARGS...: nmt serve --port 0 ARGS in the background; waits
# for its "listening on" line and for /health to answer 200. Sets PID, URL.
start_server() {
    local log=$1 port=""
    shift
    "$NMT" serve --port 0 "$@" 2>"$log" &
    PID=$!
    SERVERS+=("$PID")
    for _ in $(seq 1 600); do
        port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\) .*|\1|p' "$log")
        [[ -n $port ]] && break
        kill -0 "$PID" 2>/dev/null || fail "nmt serve $* exited before listening: $(cat "$log")"
        sleep 0.1
    done
    [[ -n $port ]] || fail "nmt serve $* did not listen within 60 s: $(cat "$log")"
    URL=http://127.0.0.1:$port
    for _ in $(seq 1 100); do
        [[ $(curl -s -o /dev/null -w '%{http_code}' "$URL/health") == 200 ]] && return 0
        sleep 0.1
    done
    fail "nmt serve $*: /health did not answer 200 within 10 s"
}

# stop_server: SIGTERM; the server must exit 0 within 30 s.
stop_server() {
    local status=0
    kill -TERM "$PID"
    for _ in $(seq 1 300); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$PID" 2>/dev/null && fail "nmt serve did not exit within 30 s of SIGTERM"
    wait "$PID" || status=$?
    expect_eq "nmt serve's exit status after SIGTERM" 0 "$status"
}

# call METHOD PATH [curl options...]: the body into $TMP/body, the status
# into $status, the headers into $TMP/headers.
call() {
    local method=$1 path=$2
    shift 2
    status=$(curl -s -X "$method" -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' --max-time 60 "$@" "$URL$path")
}

json() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$TMP/body" "$1"; }

expect_status() {
    [[ $status == "$2" ]] || fail "$1: expected HTTP $2, got $status: $(cat "$TMP/body")"
}

# expect_error WHAT STATUS TEXT: LibreTranslate's error shape, containing TEXT.
expect_error() {
    expect_status "$1" "$2"
    local message
    message=$(json 'd["error"]') || fail "$1: not LibreTranslate's error shape: $(cat "$TMP/body")"
    [[ $message == *"$3"* ]] || fail "$1: expected the error to say '$3', got '$message'"
}

# --- A tiny random model served as en-fr and en-de ---------------------------
make_model "$TMP/m"
mkdir -p "$TMP/models"
cp "$TMP/m/model.nmt" "$TMP/models/en-fr.nmt"
cp "$TMP/m/model.nmt" "$TMP/models/en-de.nmt"
MODEL=$TMP/m/model.nmt
start_server "$TMP/serve.log" --models "$TMP/models" --max-request-bytes 4096 --max-queue 40

call GET /languages
expect_status "GET /languages" 200
expect_eq "GET /languages" "[{'code': 'de', 'name': 'German', 'targets': []}, {'code': 'en', 'name': 'English', 'targets': ['de', 'fr']}, {'code': 'fr', 'name': 'French', 'targets': []}]" "$(json d)"

# LibreTranslate's documented requests: JSON, a form, multipart.
lines=("A small dog runs." "The girl plays with a red ball. Two men sit near the river!" "  "
    "Children are playing in the snow, and a man in a blue shirt holds a camera.")
printf '%s\n' "${lines[@]}" >"$TMP/in.txt"
mapfile -t expected < <(nmt translate -m "$MODEL" -q -i "$TMP/in.txt")
for i in "${!lines[@]}"; do
    q=$(python3 -c 'import json, sys; print(json.dumps(sys.argv[1]))' "${lines[$i]}")
    call POST /translate -H "Content-Type: application/json" \
        -d "{\"q\": $q, \"source\": \"en\", \"target\": \"fr\", \"format\": \"text\", \"api_key\": \"\"}"
    expect_status "JSON /translate of line $((i + 1))" 200
    expect_eq "the server's translation of '${lines[$i]}' (nmt translate's)" "${expected[$i]}" "$(json 'd["translatedText"]')"
done
call POST /translate -H "Content-Type: application/x-www-form-urlencoded" -H "accept: application/json" \
    --data-urlencode "q=${lines[0]}" -d source=en -d target=fr -d format=text
expect_status "form /translate" 200
expect_eq "form /translate" "${expected[0]}" "$(json 'd["translatedText"]')"
call POST /translate -F "q=${lines[1]}" -F source=en -F target=fr
expect_status "multipart /translate" 200
expect_eq "multipart /translate" "${expected[1]}" "$(json 'd["translatedText"]')"
# q as a list, and the lines of one text, answered in order.
call POST /translate -H "Content-Type: application/json" \
    -d "$(python3 -c 'import json, sys; print(json.dumps({"q": sys.argv[1:], "source": "en", "target": "de"}))' "${lines[@]}")"
expect_status "a list" 200
expect_eq "a list's translations" "$(printf '%s\n' "${expected[@]}")" "$(json '"\n".join(d["translatedText"])')"
call POST /translate -H "Content-Type: application/json" \
    -d "$(python3 -c 'import json, sys; print(json.dumps({"q": "\n".join(sys.argv[1:]), "source": "en", "target": "fr"}))' "${lines[@]}")"
expect_eq "a text of several lines" "$(printf '%s\n' "${expected[@]}")" "$(json 'd["translatedText"]')"
# auto, detect, alternatives, /v1 with the alignment JSON of nmt translate --alignments.
call POST /translate -H "Content-Type: application/json" -d '{"q": "A small dog runs.", "source": "auto", "target": "fr"}'
expect_status "source auto" 200
expect_eq "detectedLanguage" "en" "$(json 'd["detectedLanguage"]["language"]')"
call POST /detect -H "Content-Type: application/json" -d '{"q": "Children are playing in the snow and the sun is shining."}'
expect_status "/detect" 200
expect_eq "/detect" "en" "$(json 'd[0]["language"]')"
call POST /translate -H "Content-Type: application/json" \
    -d '{"q": "A small dog runs.", "source": "en", "target": "fr", "alternatives": 2}'
expect_status "alternatives" 200
expect_eq "alternatives: a list of at most 2" "True" "$(json 'isinstance(d["alternatives"], list) and len(d["alternatives"]) <= 2')"
nmt translate -m "$MODEL" -q --alignments "$TMP/align.jsonl" -i <(echo "A small dog runs.") >/dev/null
call POST /v1/translate -H "Content-Type: application/json" \
    -d '{"q": "A small dog runs.", "source": "en", "target": "fr", "alignments": true}'
expect_status "/v1/translate" 200
python3 - "$TMP/body" "$TMP/align.jsonl" <<'EOF' || fail "/v1/translate's alignment JSON differs from nmt translate --alignments"
import json, sys
served = json.load(open(sys.argv[1]))["alignments"][0]
cli = json.loads(open(sys.argv[2]).readline())
sys.exit(0 if served == cli else 1)
EOF

# format html: each q an HTML fragment or page, translated as nmt translate
# --format html translates the same document, tags and all; a list in order;
# broken markup repaired, not refused.
html_texts=('<p>A small <b>dog</b> runs.</p><p>The girl plays with a <a href="/ball">red ball</a>. Two men sit near the river!</p>'
    '<!DOCTYPE html><html><head><title>Children in the snow</title></head><body><h1>A man holds a camera</h1></body></html>'
    '<ul><li>A small dog<li>runs <i>in the park</ul><p>The girl')
html_expected=()
for i in "${!html_texts[@]}"; do
    printf '%s' "${html_texts[$i]}" >"$TMP/in-$i.html"
    html_expected+=("$(nmt translate -m "$MODEL" -q --format html -i "$TMP/in-$i.html")")
    call POST /translate -H "Content-Type: application/json" \
        -d "$(python3 -c 'import json, sys; print(json.dumps({"q": sys.argv[1], "source": "en", "target": "fr", "format": "html"}))' "${html_texts[$i]}")"
    expect_status "html /translate of text $((i + 1))" 200
    expect_eq "the server's html translation of '${html_texts[$i]}' (nmt translate --format html's)" \
        "${html_expected[$i]}" "$(json 'd["translatedText"]')"
done
[[ ${html_expected[0]} == *'<a href="/ball">'* && ${html_expected[0]} != "${html_texts[0]}" ]] ||
    fail "the html translation lost its link or was not translated: ${html_expected[0]}"
call POST /translate --data-urlencode "q=${html_texts[0]}" -d source=en -d target=fr -d format=html
expect_eq "a form html /translate" "${html_expected[0]}" "$(json 'd["translatedText"]')"
call POST /translate -H "Content-Type: application/json" \
    -d "$(python3 -c 'import json, sys; print(json.dumps({"q": sys.argv[1:], "source": "en", "target": "de", "format": "html"}))' "${html_texts[@]}")"
expect_status "an html list" 200
expect_eq "an html list's translations" "$(printf '%s\n' "${html_expected[@]}")" "$(json '"\n".join(d["translatedText"])')"

# Errors, in LibreTranslate's shape.
call POST /translate -H "Content-Type: application/json" -d '{"q": "x", "source": "en",'
expect_error "malformed JSON" 400 "Invalid JSON format"
call POST /translate -H "Content-Type: application/json" -d '{"source": "en", "target": "fr"}'
expect_error "no q" 400 "Invalid request: missing q parameter"
call POST /translate -H "Content-Type: application/json" -d '{"q": "", "source": "en", "target": "fr"}'
expect_error "empty q" 400 "Invalid request: missing q parameter"
call POST /translate -H "Content-Type: application/json" -d '{"q": 7, "source": "en", "target": "fr"}'
expect_error "q a number" 400 "q must be a string or a list of strings"
call POST /translate -H "Content-Type: application/json" -d '{"q": "x", "source": "en", "target": "xx"}'
expect_error "unknown target" 400 "xx is not supported"
call POST /translate -H "Content-Type: application/json" -d '{"q": "x", "source": "de", "target": "fr"}'
expect_error "pair not served" 400 "French (fr) is not available as a target language from German (de)"
call POST /v1/translate -H "Content-Type: application/json" \
    -d '{"q": "<b>x</b>", "source": "en", "target": "fr", "format": "html", "alignments": true}'
expect_error "html with alignments" 400 "alignments are given for plain text only"
call POST /translate -H "Content-Type: application/json" -d '{"q": "x", "source": "en", "target": "fr", "format": "xml"}'
expect_error "format xml" 400 "xml format is not supported"
call GET /nowhere
expect_error "unknown path" 404 "Not Found"
call GET /translate
expect_error "GET /translate" 405 "Method Not Allowed"
# Bodies past --max-request-bytes (4096): 413, a 10 MB one too, and the server goes on.
head -c 5000 /dev/zero | tr '\0' a >"$TMP/5k"
call POST /translate -H "Content-Type: application/x-www-form-urlencoded" --data-binary "@$TMP/5k"
expect_error "a 5 kB body" 413 "max-request-bytes"
head -c 10000000 /dev/zero | tr '\0' a >"$TMP/10m"
status=$(curl -s -o "$TMP/body" -w '%{http_code}' --max-time 60 -H "Content-Type: application/json" \
    --data-binary "@$TMP/10m" "$URL/translate" || true)
[[ $status == 413 || $status == 000 ]] || fail "a 10 MB body: expected 413 (or the connection closed), got $status"
# A list past --max-queue (40 sentences): 413.
call POST /translate -H "Content-Type: application/json" \
    -d "$(python3 -c 'import json; print(json.dumps({"q": ["A dog runs."] * 41, "source": "en", "target": "fr"}))')"
expect_error "41 sentences" 413 "more than the server queues at once (40)"

# Slow and vanishing clients do not hold up the others: a client sending its
# headers a byte at a time, one that disconnects mid-body, one that never
# reads its answer; meanwhile a normal request is answered at once.
python3 - "${URL#http://}" "${expected[0]}" <<'EOF' || fail "slow or vanishing clients disturbed another request"
import json, socket, sys, threading, time, urllib.request
host, port = sys.argv[1].split(":")
port = int(port)
expected = sys.argv[2]
body = json.dumps({"q": "A small dog runs.", "source": "en", "target": "fr"}).encode()
request = (b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)) + body

def byte_by_byte():
    s = socket.create_connection((host, port))
    for i in range(60):
        s.send(request[i:i + 1])
        time.sleep(0.05)
    s.close()

def vanishing():
    s = socket.create_connection((host, port))
    s.send(request[:-10])
    time.sleep(0.2)
    s.close()

silent = socket.create_connection((host, port))
silent.send(request * 3)  # three requests, answers never read
threads = [threading.Thread(target=byte_by_byte), threading.Thread(target=vanishing)]
for t in threads: t.start()
time.sleep(0.5)
start = time.time()
answer = urllib.request.urlopen(urllib.request.Request("http://%s:%d/translate" % (host, port), data=body,
                                headers={"Content-Type": "application/json"}), timeout=20)
got = json.load(answer)["translatedText"]
elapsed = time.time() - start
for t in threads: t.join()
silent.close()
if got != expected or elapsed > 5:
    print("got %r in %.2f s" % (got, elapsed), file=sys.stderr)
    sys.exit(1)
EOF
call GET /metrics
expect_status "/metrics" 200
grep -q '^nmt_requests_total{endpoint="/translate",status="200"} ' "$TMP/body" || fail "/metrics lacks the requests: $(head -20 "$TMP/body")"
grep -q '^nmt_batch_sentences_bucket{le="+Inf"} ' "$TMP/body" || fail "/metrics lacks the batch histogram"
stop_server
grep -q "nmt serve: stopped" "$TMP/serve.log" || fail "no 'stopped' line: $(cat "$TMP/serve.log")"

# --- The libretranslate npm package ------------------------------------------
npm_dir=$(dirname "$NMT")/npm-libretranslate
client_ok=""
if [[ ! -f $npm_dir/node_modules/libretranslate/package.json ]]; then
    if command -v npm >/dev/null && command -v node >/dev/null; then
        mkdir -p "$npm_dir"
        npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error libretranslate@1.0.1 >"$TMP/npm.log" 2>&1 ||
            { [[ ${CI:-} == true ]] && fail "npm install libretranslate failed: $(tail -5 "$TMP/npm.log")"; }
    elif [[ ${CI:-} == true ]]; then
        fail "npm and node are needed for the third-party client test under CI (tools/setup-debian.sh npm)"
    fi
fi
if [[ -f $npm_dir/node_modules/libretranslate/package.json ]]; then
    printf 'secret-key\n' >"$TMP/keys"
    start_server "$TMP/serve-npm.log" --models "$TMP/models" --api-key-file "$TMP/keys"
    cat >"$TMP/client.js" <<'EOF'
const { translate } = require("libretranslate");
(async () => {
    const [url, key, query] = process.argv.slice(2);
    console.log(await translate({ query, source: "en", target: "fr", apiurl: url, apiKey: key }));
    console.log(await translate({ query, target: "de", apiurl: url, apiKey: key }));  // source: auto
})().catch((e) => { console.error(e); process.exit(1); });
EOF
    got=$(NODE_PATH=$npm_dir/node_modules node --no-warnings "$TMP/client.js" "$URL" secret-key "${lines[0]}") ||
        fail "the libretranslate npm client failed: $got"
    expect_eq "the libretranslate npm client's translations" "$(printf '%s\n%s' "${expected[0]}" "${expected[0]}")" "$got"
    # Without the key: 403, whichever field it would be in.
    call POST /translate -H "Content-Type: application/json" -d '{"q": "x", "source": "en", "target": "fr"}'
    expect_error "no API key" 403 "API key"
    call POST /translate -H "Content-Type: application/json" -d '{"q": "x", "source": "en", "target": "fr", "api_key": "nope"}'
    expect_error "a wrong API key" 403 "Invalid API key"
    call POST /translate -H "Content-Type: application/json" -d '{"q": "x", "source": "en", "target": "fr", "api_key": "secret-key"}'
    expect_status "the right API key" 200
    stop_server
    client_ok="the libretranslate npm client, "
else
    echo "note: the libretranslate npm client was not run (no npm, or the registry unreachable; CI=true fails instead)"
fi

# --- models/en-fr.nmt: same translations, a full queue, SIGTERM under load ---
SHIPPED=$SOURCE_DIR/models/en-fr.nmt
[[ -f $SHIPPED ]] || fail "$SHIPPED is missing"
sentences=("Where is the train station?" "I would like a cup of coffee, please."
    "Please restart your computer to finish installing updates.")
printf '%s\n' "${sentences[@]}" >"$TMP/shipped.txt"
mapfile -t shipped_expected < <(nmt translate -m "$SHIPPED" -q --threads 1 -i "$TMP/shipped.txt")
start_server "$TMP/serve-en-fr.log" -m "$SHIPPED" --threads 1 --max-queue 3
for i in "${!sentences[@]}"; do
    call POST /translate -H "Content-Type: application/json" \
        -d "{\"q\": \"${sentences[$i]}\", \"source\": \"en\", \"target\": \"fr\"}"
    expect_status "en-fr: '${sentences[$i]}'" 200
    expect_eq "en-fr through the server: '${sentences[$i]}'" "${shipped_expected[$i]}" "$(json 'd["translatedText"]')"
done
# An html fragment through the real model: nmt translate --format html's answer.
printf '%s' '<p>Where is the <b>train station</b>?</p>' >"$TMP/shipped.html"
shipped_html=$(nmt translate -m "$SHIPPED" -q --threads 1 --format html -i "$TMP/shipped.html")
call POST /translate -H "Content-Type: application/json" \
    -d '{"q": "<p>Where is the <b>train station</b>?</p>", "source": "en", "target": "fr", "format": "html"}'
expect_status "en-fr: html" 200
expect_eq "en-fr through the server: html" "$shipped_html" "$(json 'd["translatedText"]')"
[[ $shipped_html == "<p>"*"<b>"*"</b>"*"</p>" ]] || fail "en-fr html: tags lost: $shipped_html"
# 40 clients at once with a queue of 3: some are told 503 with Retry-After;
# every other one gets its right translation.
python3 - "$URL" "${sentences[0]}" "${shipped_expected[0]}" <<'EOF' || fail "a full queue: wrong answers"
import json, sys, threading, urllib.error, urllib.request
url, sentence, expected = sys.argv[1:]
barrier = threading.Barrier(40)
results = []
def client():
    body = json.dumps({"q": sentence, "source": "en", "target": "fr"}).encode()
    request = urllib.request.Request(url + "/translate", data=body, headers={"Content-Type": "application/json"})
    barrier.wait()
    try:
        results.append((200, json.load(urllib.request.urlopen(request, timeout=120))["translatedText"], None))
    except urllib.error.HTTPError as e:
        results.append((e.code, json.load(e)["error"], e.headers.get("Retry-After")))
threads = [threading.Thread(target=client) for _ in range(40)]
for t in threads: t.start()
for t in threads: t.join()
ok = [r for r in results if r[0] == 200]
busy = [r for r in results if r[0] == 503]
print("full queue: %d answered, %d told 503" % (len(ok), len(busy)))
assert len(results) == 40 and len(ok) + len(busy) == 40, results
assert all(r[1] == expected for r in ok), ok
assert busy and all(r[2] == "1" and "queue is full" in r[1] for r in busy), busy
EOF
# SIGTERM with requests in flight: every request already sent is answered,
# the server then refuses connections and exits 0.
python3 - "$URL" "$PID" "${sentences[@]}" <<'EOF' || fail "SIGTERM lost a request in flight"
import json, os, signal, sys, threading, time, urllib.request
url, pid, sentences = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
results = []
def client(i):
    body = json.dumps({"q": sentences[i % 3], "source": "en", "target": "fr"}).encode()
    request = urllib.request.Request(url + "/translate", data=body, headers={"Content-Type": "application/json"})
    results.append(json.load(urllib.request.urlopen(request, timeout=120))["translatedText"])
threads = [threading.Thread(target=client, args=(i,)) for i in range(3)]
for t in threads: t.start(); time.sleep(0.05)
time.sleep(0.1)
os.kill(pid, signal.SIGTERM)
for t in threads: t.join()
assert len(results) == 3 and all(results), results
EOF
for _ in $(seq 1 300); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$PID" 2>/dev/null && fail "nmt serve did not exit within 30 s of SIGTERM under load"
status=0
wait "$PID" || status=$?
expect_eq "exit status after SIGTERM under load ($(cat "$TMP/serve-en-fr.log"))" 0 "$status"
grep -q "SIGTERM: finishing the requests already received" "$TMP/serve-en-fr.log" || fail "no SIGTERM line"

# --- Usage errors ---
expect_one_error "-m with an unnamed file" "cannot tell the languages" nmt serve -m "$MODEL"
expect_one_error "--max-batch-tokens below a model's longest sentence" "below en-fr's longest sentence" \
    nmt serve -m "en-fr=$MODEL" --max-batch-tokens 100
expect_one_error "a missing API key file" "cannot read the API keys" nmt serve -m "en-fr=$MODEL" --api-key-file "$TMP/none"

echo "ok: nmt serve (LibreTranslate's requests with curl, ${client_ok}same translations as nmt translate, html as nmt translate --format html, 400/403/404/405/413/503, slow clients, SIGTERM)"
