#!/usr/bin/env bash
# Lines of several sentences: `nmt translate` translates them sentence by
# sentence and rejoins them, still one output line per input line (empty lines
# staying empty); a multi-sentence line reads as its sentences translated as
# lines of their own, joined with the original spacing. --no-split translates
# lines whole, with the same line count. JSON Lines (--format jsonl and
# --alignments) stay valid, one object per line, with attention rows summing
# to 1. --n-best turns splitting off.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"

make_model "$TMP"
MODEL=$TMP/model.nmt
IN=$TMP/paragraphs.txt
{
    printf 'A small dog runs. The girl plays!  Two boys eat?\n'  # 1  three sentences, two spaces before the third
    printf '\n'                                                  # 2  empty
    printf 'The man sits in the park.\n'                         # 3  one sentence
    printf '  The cat walks.\tA child jumps.  \n'                # 4  leading, tab and trailing whitespace
    printf 'no terminal punctuation here\n'                      # 5
    printf 'Mr. Smith runs. He plays.\r\n'                       # 6  an abbreviation, CRLF
    printf ' \t \n'                                              # 7  whitespace only
    printf 'The last line. It has no newline.'                   # 8  no final newline
} >"$IN"
n_lines=$(input_line_count "$IN")
expect_eq "test input line count" 8 "$n_lines"

# output_lines FILE: the line count of an output, which must end with '\n'.
output_lines() {
    python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit("output does not end with a newline") if d and not d.endswith(b"\n") else print(d.count(b"\n"))' "$1"
}

# --- Plain text, split (the default) and --no-split: one line per input line.
nmt translate -m "$MODEL" -i "$IN" -q >"$TMP/split.txt" || fail "nmt translate failed"
expect_eq "output lines (split)" "$n_lines" "$(output_lines "$TMP/split.txt")"
nmt translate -m "$MODEL" -i "$IN" -q --no-split >"$TMP/whole.txt" || fail "nmt translate --no-split failed"
expect_eq "output lines (--no-split)" "$n_lines" "$(output_lines "$TMP/whole.txt")"
mapfile -t split <"$TMP/split.txt"
mapfile -t whole <"$TMP/whole.txt"
for n in 2 7; do
    expect_eq "line $n (empty or blank) with splitting" "" "${split[$((n - 1))]}"
    expect_eq "line $n (empty or blank) with --no-split" "" "${whole[$((n - 1))]}"
done
# Lines of one sentence are translated exactly as before.
for n in 3 5; do
    expect_eq "line $n (one sentence): split vs --no-split" "${whole[$((n - 1))]}" "${split[$((n - 1))]}"
done

# A split line is its sentences translated one per line, rejoined with the
# separators that stood between them (leading and trailing whitespace dropped,
# as for any line).
printf 'A small dog runs.\nThe girl plays!\nTwo boys eat?\nThe cat walks.\nA child jumps.\nMr. Smith runs.\nHe plays.\n' |
    nmt translate -m "$MODEL" -q --no-split >"$TMP/sentences.txt" || fail "translating the sentences failed"
mapfile -t s <"$TMP/sentences.txt"
expect_eq "line 1 as its three sentences" "${s[0]} ${s[1]}  ${s[2]}" "${split[0]}"
expect_eq "line 4 as its two sentences" "${s[3]}"$'\t'"${s[4]}" "${split[3]}"
expect_eq "line 6 as its two sentences" "${s[5]} ${s[6]}" "${split[5]}"
# The same text through a pipe, line by line, gives the same answers.
nmt translate -m "$MODEL" -q <"$IN" | cmp -s - "$TMP/split.txt" || fail "stdin gave different output from -i FILE"

# --- JSON Lines: valid, one object per line, the text output's translations,
# square block-diagonal attention with rows summing to 1.
nmt translate -m "$MODEL" -i "$IN" -q --format jsonl >"$TMP/out.jsonl" || fail "nmt translate --format jsonl failed"
nmt translate -m "$MODEL" -i "$IN" -q --alignments "$TMP/align.jsonl" >"$TMP/split2.txt" ||
    fail "nmt translate --alignments failed"
cmp -s "$TMP/split.txt" "$TMP/split2.txt" || fail "--alignments changed the translations"
cmp -s "$TMP/out.jsonl" "$TMP/align.jsonl" || fail "--format jsonl and --alignments wrote different objects"
python3 - "$TMP/out.jsonl" "$n_lines" "$TMP/split.txt" <<'EOF' || fail "JSON Lines output is wrong (above)"
import json, sys
path, n_lines = sys.argv[1], int(sys.argv[2])
translations = open(sys.argv[3], encoding="utf-8").read().split("\n")[:-1]
objects = []
for number, line in enumerate(open(path, encoding="utf-8"), 1):
    try:
        objects.append(json.loads(line))
    except ValueError as e:
        sys.exit(f"line {number} is not JSON: {e}: {line[:120]!r}")
if len(objects) != n_lines:
    sys.exit(f"{len(objects)} JSON objects for {n_lines} input lines")
for i, o in enumerate(objects):
    where = f"object {i + 1}"
    if o["id"] != i:
        sys.exit(f"{where}: id {o['id']}, expected {i}")
    if o["translation"] != translations[i]:
        sys.exit(f"{where}: translation {o['translation']!r} differs from the text output {translations[i]!r}")
    if not o["source_pieces"]:
        continue
    # One "</s>" on each side, at the end: the line reads as one sentence.
    if o["source_pieces"].count("</s>") != 1 or o["source_pieces"][-1] != "</s>":
        sys.exit(f"{where}: source pieces should end with the only </s>: {o['source_pieces']}")
    if o["target_pieces"].count("</s>") > 1:
        sys.exit(f"{where}: several </s> in the target pieces: {o['target_pieces']}")
    for key, rows, cols in (("attention", len(o["target_pieces"]), len(o["source_pieces"])),
                            ("word_attention", len(o["target_words"]), len(o["source_words"]))):
        matrix = o[key]
        if len(matrix) != rows or any(len(r) != cols for r in matrix):
            sys.exit(f"{where}: \"{key}\" is not {rows} x {cols}")
        tolerance = max(1e-3, cols * 5e-5 + 1e-6)  # values are rounded to 4 decimals
        for t, row in enumerate(matrix):
            if abs(sum(row) - 1) > tolerance or min(row) < 0:
                sys.exit(f"{where}: \"{key}\" row {t} sums to {sum(row):.5f}, expected 1")
# Line 1 has three sentences: each target row attends within one sentence's
# source block, so the matrix has zeros off its diagonal blocks.
attention = objects[0]["attention"]
if all(w > 0 for row in attention for w in row):
    sys.exit("line 1 (three sentences): attention has no zero block")
EOF

# --- --n-best: splitting is off, so the best hypotheses are the --no-split
# output (same default beam).
nmt translate -m "$MODEL" -i "$IN" -q --n-best 2 >"$TMP/nbest.txt" || fail "nmt translate --n-best 2 failed"
expect_eq "first hypotheses of --n-best 2 vs --no-split" "$(md5sum <"$TMP/whole.txt")" "$(python3 -c '
import sys
seen = set()
for line in open(sys.argv[1], encoding="utf-8"):
    f = line.rstrip("\n").split(" ||| ")
    if f[0] not in seen:
        seen.add(f[0]); print(f[1])' "$TMP/nbest.txt" | md5sum)"

# --- --help documents the option.
# Into a file first: `grep -q` stops reading at its match, and the rest of a
# long --help then ends nmt with SIGPIPE, which pipefail reports as a failure.
nmt translate --help >"$TMP/help.txt"
grep -q -- "--no-split" "$TMP/help.txt" || fail "--help does not mention --no-split"

echo "ok: multi-sentence lines are split and rejoined, one output line per input line"
