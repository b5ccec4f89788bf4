#!/usr/bin/env bash
# nmt align (issue 37): one Pharaoh line per sentence pair, from two files or
# from "source ||| target" lines; JSON Lines for the given translation; a
# reverse model symmetrised in; mismatched inputs and wrong models refused;
# and, with the shipped English-French model, word-for-word pairs aligned
# word for word.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"

make_model "$TMP"
printf 'a small dog\n\nthe cat runs in the park\nred\n' >"$TMP/src.txt"
printf 'un petit chien\nrien\nle chat court dans le parc\n\n' >"$TMP/trg.txt"

nmt align -m "$TMP/model.nmt" -i "$TMP/src.txt" -r "$TMP/trg.txt" >"$TMP/out.txt" 2>"$TMP/err.txt" ||
    fail "align failed: $(cat "$TMP/err.txt")"
expect_eq "lines out" 4 "$(wc -l <"$TMP/out.txt")"
# Every target word of a pair with a source gets one link, to a real source word.
awk '{ print NF }' "$TMP/out.txt" | tr '\n' ' ' | grep -qx '3 0 6 0 ' ||
    fail "expected 3, 0, 6 and 0 links: $(cat "$TMP/out.txt")"
grep -vqE '^$|^([0-9]+-[0-9]+)( [0-9]+-[0-9]+)*$' "$TMP/out.txt" && fail "not Pharaoh: $(cat "$TMP/out.txt")"
awk '{ for (i = 1; i <= NF; i++) { split($i, l, "-"); if (l[1] > 2 || l[2] > 2) exit 1 } exit 0 }' "$TMP/out.txt" ||
    fail "link outside the first pair's three words: $(head -1 "$TMP/out.txt")"

# The same pairs as "source ||| target" on stdin, and with the model both ways.
paste -d '\t' "$TMP/src.txt" "$TMP/trg.txt" | sed 's/\t/ ||| /' >"$TMP/pairs.txt"
nmt align -m "$TMP/model.nmt" <"$TMP/pairs.txt" >"$TMP/stdin.txt"
cmp -s "$TMP/out.txt" "$TMP/stdin.txt" || fail "'|||' lines on stdin align differently from two files"
nmt align -m "$TMP/model.nmt" --reverse-model "$TMP/model.nmt" --symmetrize intersect \
    -i "$TMP/src.txt" -r "$TMP/trg.txt" >"$TMP/both.txt"
expect_eq "lines out, both ways" 4 "$(wc -l <"$TMP/both.txt")"

# JSON Lines: the given translation, its score and its alignment.
nmt align -m "$TMP/model.nmt" --format jsonl -i "$TMP/src.txt" -r "$TMP/trg.txt" >"$TMP/out.jsonl"
python3 - "$TMP/out.jsonl" "$TMP/trg.txt" "$TMP/out.txt" <<'PY' || fail "JSON Lines output is wrong"
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
targets = open(sys.argv[2]).read().split("\n")[:4]
pharaoh = open(sys.argv[3]).read().split("\n")[:4]
assert len(rows) == 4, rows
assert rows[0]["translation"] == "un petit chien" and rows[0]["score"] < 0
assert [r["alignment"] for r in rows] == pharaoh
assert rows[1]["translation"] == "" and rows[1]["alignment"] == ""  # nothing to align from
assert rows[3]["target_pieces"] == ["</s>"]  # an empty translation: the end alone
PY

# A line without bars keeps its line (empty), with a warning.
printf 'no bars here\na dog ||| un chien\n' | nmt align -m "$TMP/model.nmt" >"$TMP/bars.txt" 2>"$TMP/bars.err"
expect_eq "lines out without bars" 2 "$(wc -l <"$TMP/bars.txt")"
expect_eq "first line" "" "$(head -1 "$TMP/bars.txt")"
grep -q "line 1: no ' ||| ' between source and target" "$TMP/bars.err" || fail "no warning: $(cat "$TMP/bars.err")"

head -2 "$TMP/trg.txt" >"$TMP/short.txt"
expect_one_error "a shorter target file" "short.txt ends at line 2, before $TMP/src.txt" \
    nmt align -m "$TMP/model.nmt" -i "$TMP/src.txt" -r "$TMP/short.txt"
expect_one_error "--reverse-model of the same direction" "must translate the other way" \
    nmt align -m "$SOURCE_DIR/models/en-fr.nmt" --reverse-model "$SOURCE_DIR/models/en-fr.nmt" -i "$TMP/src.txt" -r "$TMP/trg.txt"
expect_one_error "-o onto -r" "-o" nmt align -m "$TMP/model.nmt" -i "$TMP/src.txt" -r "$TMP/trg.txt" -o "$TMP/trg.txt"

# The shipped English-French model aligns word-for-word pairs word for word.
printf 'A dog runs in the park. ||| Un chien court dans le parc.\nThe cat is black. ||| Le chat est noir.\n' |
    nmt align -m "$SOURCE_DIR/models/en-fr.nmt" >"$TMP/shipped.txt"
expect_eq "shipped model, first pair" "0-0 1-1 2-2 3-3 4-4 5-5" "$(head -1 "$TMP/shipped.txt")"
expect_eq "shipped model, second pair" "0-0 1-1 2-2 3-3" "$(tail -1 "$TMP/shipped.txt")"

# --tokenized: links over the user's own tokens. "l'homme" is one token here,
# where SentencePiece sees "l'" and "homme" alike; word indices follow the
# tokens, and each JSON word list is exactly the tokens.
printf "The man runs . ||| L' homme court .\nThe man runs. ||| L'homme court.\n" >"$TMP/tok.txt"
nmt align -m "$SOURCE_DIR/models/en-fr.nmt" --tokenized -i "$TMP/tok.txt" >"$TMP/tok.align"
expect_eq "tokenized, split apostrophe" "0-0 1-1 2-2 3-3" "$(head -1 "$TMP/tok.align")"
awk 'NR == 2 { for (i = 1; i <= NF; i++) { split($i, l, "-"); if (l[1] > 2 || l[2] > 2) exit 1 } }' "$TMP/tok.align" ||
    fail "a link past the 3 tokens of each side: $(tail -1 "$TMP/tok.align")"
nmt align -m "$SOURCE_DIR/models/en-fr.nmt" --tokenized --format jsonl -i "$TMP/tok.txt" >"$TMP/tok.jsonl"
python3 - "$TMP/tok.jsonl" <<'PY' || fail "--tokenized JSON words are not the tokens"
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
assert rows[1]["source_words"] == ["The", "man", "runs.", "</s>"], rows[1]["source_words"]
assert rows[1]["target_words"] == ["L'homme", "court.", "</s>"], rows[1]["target_words"]
assert len(rows[1]["word_attention"]) == 3 and all(len(r) == 4 for r in rows[1]["word_attention"])
PY
# Both directions over the same tokens, and a picture per pair with something to align.
nmt align -m "$SOURCE_DIR/models/en-fr.nmt" --reverse-model "$SOURCE_DIR/models/fr-en.nmt" --tokenized --symmetrize intersect \
    --alignment-svg "$TMP/align-svg" -i "$TMP/tok.txt" -q >"$TMP/tok2.align"
expect_eq "tokenized both ways, lines" 2 "$(wc -l <"$TMP/tok2.align")"
for link in $(head -1 "$TMP/tok2.align"); do  # the intersection: only links the forward model made too
    grep -qw -- "$link" <(head -1 "$TMP/tok.align") || fail "intersected link $link not in the forward alignment"
done
[[ -n $(head -1 "$TMP/tok2.align") ]] || fail "tokenized both ways: no link in common"
printf 'a dog ||| un chien\n\nthe cat ||| le chat\n' |
    nmt align -m "$TMP/model.nmt" --alignment-svg "$TMP/align-svg2" >/dev/null
expect_eq "align SVG files" "000001.svg 000003.svg" "$(cd "$TMP/align-svg2" && echo *)"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$TMP/align-svg2/000003.svg" ||
    fail "align SVG is not well-formed XML"
grep -q 'le chat' "$TMP/align-svg2/000003.svg" || fail "align SVG does not show the given translation"
expect_one_error "--alignment-svg with --statistical" "--statistical has none" \
    nmt align --statistical --alignment-svg "$TMP/x" -i "$TMP/src.txt" -r "$TMP/trg.txt"

# --statistical: no model; trained on the pairs themselves. Each word's
# translation is the word it always occurs with, and the order is kept.
for k in 1 2 3 4 5 6 7 8; do
    printf 'the cat sat\nthe dog sat\na cat ran\na dog ran\n'
done >"$TMP/stat.src"
sed 's/the/le/; s/cat/chat/; s/dog/chien/; s/sat/assis/; s/^a /un /; s/ran/couru/' "$TMP/stat.src" >"$TMP/stat.trg"
nmt align --statistical -i "$TMP/stat.src" -r "$TMP/stat.trg" >"$TMP/stat.align"
expect_eq "statistical lines" 32 "$(wc -l <"$TMP/stat.align")"
expect_eq "statistical links" "0-0 1-1 2-2" "$(sort -u "$TMP/stat.align")"
# Read once per EM iteration: a pipe is kept in a temporary file first, and
# gives what the file gives; each iteration of each direction is reported.
cat "$TMP/stat.trg" | nmt align --statistical -i "$TMP/stat.src" -r - >"$TMP/stat-pipe.align" 2>"$TMP/stat.err"
cmp -s "$TMP/stat.align" "$TMP/stat-pipe.align" || fail "--statistical from a pipe differs from the file"
expect_eq "EM progress lines" 10 "$(grep -c 'EM iteration [1-5] of 5: log-likelihood' "$TMP/stat.err")"
grep -q 'target to source: EM iteration 5 of 5' "$TMP/stat.err" || fail "no backward progress: $(cat "$TMP/stat.err")"
expect_one_error "--statistical with a model" "--statistical aligns without a model" \
    nmt align --statistical -m "$TMP/model.nmt" -i "$TMP/stat.src" -r "$TMP/stat.trg"

# nmt score --aer: 1 - (|A∩S| + |A∩P|) / (|A| + |S|) = 1 - (2 + 3) / (4 + 3) over these two lines.
printf '0-0 1-1 2-3\n0-1\n' >"$TMP/hyp.align"
printf '0-0 1-1 2?2\n0-0 0?1\n' >"$TMP/gold.align"
expect_eq "AER" "AER = 28.57 (precision 75.00, recall 66.67; 2 sentences)" \
    "$(nmt score --aer -r "$TMP/gold.align" -i "$TMP/hyp.align" -w 2)"
printf '0-0 1-1\n0:1\n' >"$TMP/bad.align"
expect_one_error "a malformed link" "bad.align: line 2: '0:1' is not an alignment link i-j" \
    nmt score --aer -r "$TMP/gold.align" -i "$TMP/bad.align"

echo "ok: nmt align writes one alignment per pair, from two files or '|||' lines, as Pharaoh or JSON Lines; --statistical; score --aer"
