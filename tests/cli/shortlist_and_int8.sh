#!/usr/bin/env bash
# Issue 36: nmt shortlist writes a model with a lexical shortlist (the input
# model untouched, never overwritten), nmt translate uses it unless told
# --no-shortlist, --precision int8, fp32 and auto (the default) translate one
# line per line, and nmt bench prints fp32, int8 and +shortlist rows with
# BLEU and the shortlist's coverage of the full search.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"

make_model "$TMP"
head -200 "$TMP/corpus.en" >"$TMP/src.txt"
head -200 "$TMP/corpus.en" | tr 'a-z' 'b-za' >"$TMP/trg.txt"  # a "translation" that is a letter shift
before=$(sha256sum <"$TMP/model.nmt")

# Output onto the input model is refused, and the model is left as it was.
status=0
nmt shortlist -m "$TMP/model.nmt" -s "$TMP/src.txt" -t "$TMP/trg.txt" -o "$TMP/model.nmt" 2>"$TMP/err" || status=$?
check_no_crash "nmt shortlist onto its input" "$status"
((status != 0)) || fail "nmt shortlist should refuse to write over its input model"
expect_eq "input model unchanged" "$before" "$(sha256sum <"$TMP/model.nmt")"

nmt shortlist -m "$TMP/model.nmt" -s "$TMP/src.txt" -t "$TMP/trg.txt" -k 5 --frequent 10 --iterations 2 \
    -o "$TMP/short.nmt" 2>"$TMP/err" || fail "nmt shortlist failed: $(cat "$TMP/err")"
grep -q "5 candidates per source piece, 10 frequent target pieces" "$TMP/err" ||
    fail "nmt shortlist should report what it kept, said: $(cat "$TMP/err")"
expect_eq "input model unchanged" "$before" "$(sha256sum <"$TMP/model.nmt")"

# Translating: one line out per line in, every setting.
printf 'the cat\n\na dog runs in the park\n' >"$TMP/in.txt"
for flags in "" "--no-shortlist" "--precision fp32" "--precision int8" "--precision int8 --no-shortlist" \
    "--precision auto"; do
    # shellcheck disable=SC2086
    nmt translate -m "$TMP/short.nmt" $flags -i "$TMP/in.txt" >"$TMP/out.txt" 2>"$TMP/err" ||
        fail "translate $flags failed: $(cat "$TMP/err")"
    expect_eq "lines out ($flags)" 3 "$(wc -l <"$TMP/out.txt")"
done
# Without its shortlist the model translates as the model without one does.
nmt translate -m "$TMP/model.nmt" -i "$TMP/in.txt" >"$TMP/plain.txt"
nmt translate -m "$TMP/short.nmt" --no-shortlist -i "$TMP/in.txt" >"$TMP/off.txt"
cmp -s "$TMP/plain.txt" "$TMP/off.txt" || fail "--no-shortlist should translate as the model without a shortlist"
status=0
nmt translate -m "$TMP/short.nmt" --precision int4 -i "$TMP/in.txt" >/dev/null 2>"$TMP/err" || status=$?
((status != 0)) || fail "--precision int4 should be refused"

out=$(nmt bench -m "$TMP/short.nmt" -i "$TMP/src.txt" -r "$TMP/trg.txt" --lines 20 --beam-sizes 2 --batch-sizes 4 \
    --parallel-batches 1,2) ||
    fail "nmt bench failed"
for setting in "fp32 " "fp32+shortlist" "int8 " "int8+shortlist"; do
    grep -q "^$setting" <<<"$out" || fail "nmt bench should print a '$setting' row, printed: $out"
done
grep -q "shortlist coverage: .* of the .* pieces the full search chose are candidates" <<<"$out" ||
    fail "nmt bench should report the shortlist's coverage, printed: $out"
awk '/^fp32 / { if (NF != 8) exit 1 }' <<<"$out" || fail "rows should end with BLEU when -r is given: $out"
# One row per number of batches at once (column 4), the same BLEU in both.
[[ $(awk '/^fp32 / { print $4 }' <<<"$out" | tr '\n' ' ') == "1 2 " ]] ||
    fail "--parallel-batches 1,2 should give a row for each, printed: $out"
[[ $(awk '/^int8\+shortlist / { print $8 }' <<<"$out" | uniq | wc -l) == 1 ]] ||
    fail "batches at once should not change the translations (BLEU), printed: $out"
echo "ok: shortlist built and used, int8 and fp32 translate, bench compares them"
