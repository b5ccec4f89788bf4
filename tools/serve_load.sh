#!/usr/bin/env bash
# nmt serve's load figures (README, nmt serve), measured back to back on the
# same sentences: English->French on the first N English sentences of
# Tatoeba's test file (../shared/data/tatoeba/fra.test.tsv), all threads:
#   1. nmt translate -i FILE (one file, batched): sentences/s, and the
#      reference translations every later answer is checked against;
#   2. nmt serve + tools/load_test with 32 clients, one sentence a request;
#   3. the same with 1 client (its p50 latency);
#   4. a warm single-sentence decode: nmt translate on a pipe, fed one line
#      at a time (tools/load_test --pipe), its p50 latency.
# Usage: tools/serve_load.sh BUILD_DIR [N] [LATENCY_N]   (default 500 and 100)
set -euo pipefail
build=${1:?usage: tools/serve_load.sh BUILD_DIR [N] [LATENCY_N]}
n=${2:-500}
latency_n=${3:-100}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$tmp"' EXIT
server=""
awk -F "\t" -v n="$n" 'NR <= n { print $1 }' "$root/../shared/data/tatoeba/fra.test.tsv" >"$tmp/in.en"
head -n "$latency_n" "$tmp/in.en" >"$tmp/latency.en"
start=$(date +%s.%N)
"$build/nmt" translate --from en --to fr -q -i "$tmp/in.en" -o "$tmp/expected.fr"
end=$(date +%s.%N)
python3 -c "import sys; n, s = int(sys.argv[1]), float(sys.argv[3]) - float(sys.argv[2]); print('nmt translate -i: %d sentences in %.2f s: %.1f sentences/s' % (n, s, n / s))" "$n" "$start" "$end"
head -n "$latency_n" "$tmp/expected.fr" >"$tmp/latency.fr"
"$build/nmt" serve --port 0 --from en --to fr 2>"$tmp/serve.log" &
server=$!
for _ in $(seq 1 600); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\) .*|\1|p' "$tmp/serve.log")
    [[ -n $port ]] && break
    sleep 0.1
done
url=http://127.0.0.1:$port
"$build/load_test" --url "$url" -i "$tmp/in.en" --expect "$tmp/expected.fr" --clients 32 || true
"$build/load_test" --url "$url" -i "$tmp/latency.en" --expect "$tmp/latency.fr" --clients 1 || true
kill -TERM "$server"
wait "$server" || true
server=""
"$build/load_test" --pipe "$build/nmt translate --from en --to fr -q" -i "$tmp/latency.en" --expect "$tmp/latency.fr" || true
