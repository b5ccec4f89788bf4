#!/usr/bin/env bash
# nmt vocab: one shared vocabulary, a source/target pair, the documented ids,
# and an error that names the missing file.
set -euo pipefail
nmt=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Made-up words from syllables: enough distinct substrings for 100 pieces.
make_text() {
    awk -v seed="$1" 'BEGIN {
        srand(seed); n = split("ka ri mo te lu sa ne po vi da gor fen bal tis qua zum", s, " ")
        for (i = 0; i < 300; i++) w[i] = s[int(rand() * n) + 1] s[int(rand() * n) + 1] (rand() < 0.5 ? s[int(rand() * n) + 1] : "")
        for (l = 0; l < 500; l++) { line = ""; for (k = 0; k < 6; k++) line = line (k ? " " : "") w[int(rand() * 300)]; print line "." }
    }'
}
make_text 1 > "$tmp/train.src"
make_text 2 > "$tmp/train.tgt"

"$nmt" vocab -i "$tmp/train.src" --size 100 -o "$tmp/one" 2> "$tmp/log" || fail "single input: $(cat "$tmp/log")"
[ -s "$tmp/one.model" ] || fail "one.model missing"
[ "$(wc -l < "$tmp/one.vocab")" -eq 100 ] || fail "one.vocab should list 100 pieces"
[ "$(head -3 "$tmp/one.vocab" | cut -f1 | tr '\n' ' ')" = "<unk> <s> </s> " ] || fail "ids 0-2 should be <unk> <s> </s>"
grep -q "100 unigram pieces from 500 lines" "$tmp/log" || fail "summary line: $(cat "$tmp/log")"

"$nmt" vocab -i "$tmp/train.src" "$tmp/train.tgt" --size 100 -o "$tmp/pair" 2> "$tmp/log" || fail "pair: $(cat "$tmp/log")"
[ -s "$tmp/pair.src.model" ] && [ -s "$tmp/pair.tgt.model" ] || fail "two inputs should give pair.src and pair.tgt"
[ ! -e "$tmp/pair.model" ] || fail "two inputs without --joint should not give pair.model"

"$nmt" vocab -i "$tmp/train.src" "$tmp/train.tgt" --joint --type bpe --size 100 -o "$tmp/joint" 2> "$tmp/log" ||
    fail "joint: $(cat "$tmp/log")"
[ -s "$tmp/joint.model" ] || fail "--joint should give joint.model"
grep -q "from 1000 lines" "$tmp/log" || fail "joint model should read both files: $(cat "$tmp/log")"

if "$nmt" vocab -i "$tmp/missing.txt" -o "$tmp/x" 2> "$tmp/log"; then fail "a missing input should fail"; fi
grep -q "missing.txt: cannot open: No such file or directory" "$tmp/log" || fail "error should name the file: $(cat "$tmp/log")"

grep -q "<unk>=0, <s>=1, </s>=2" <<<"$("$nmt" vocab --help)" || fail "--help should state the piece ids"
echo "ok: nmt vocab writes its models, refuses bad inputs and documents the piece ids"
