#!/usr/bin/env bash
# Issue 63: --glossary FILE forces each term on real sentences with the
# shipped en->fr model, as text, JSON Lines, Markdown, SubRip and gettext;
# --do-not-translate REGEX keeps product names the model otherwise
# translates word by word; without a glossary, or with an empty one, or with
# one whose terms the input lacks, the output is byte-identical to a run
# without the option (the model table's BLEU cannot move). Issue 66: each
# mistake in a glossary or an expression is one line naming the file and
# line or the option, with an exit status below 128.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
unset NMT_MODELS
MODEL=$SOURCE_DIR/models/en-fr.nmt
export OMP_NUM_THREADS=2

printf '# everyday words, in a register the model does not use\ncar\tbagnole\nmoney\tfric\nhouse\tdemeure\ndog\ttoutou\nbook\tbouquin\n' \
    >"$TMP/terms.tsv"
cat >"$TMP/in.txt" <<'TEXT'
This car is easy to handle.
The more money we have, the more we want.
I trained my dog to bring me the newspaper in the morning.
My uncle gave me a book. He also gave me a house and a car.
Tom was having car trouble.
Where is the train station?
TEXT

nmt translate -q -m "$MODEL" -i "$TMP/in.txt" >"$TMP/plain.txt"
nmt translate -q -m "$MODEL" -i "$TMP/in.txt" --glossary "$TMP/terms.tsv" >"$TMP/forced.txt"
expect_eq "line count" 6 "$(wc -l <"$TMP/forced.txt")"
# line TERM...: line N of the forced output holds each TERM as a word.
line=0
for terms in "bagnole" "fric" "toutou" "bouquin demeure bagnole" "bagnole" ""; do
    line=$((line + 1))
    out=$(sed -n "${line}p" "$TMP/forced.txt")
    for term in $terms; do
        grep -qw -- "$term" <<<"$out" || fail "line $line: '$term' not forced: '$out'"
    done
    # The model's own words for them are gone, the rest of the line is the model's.
    for usual in voiture argent chien livre maison; do
        ! grep -qw -- "$usual" <<<"$out" || fail "line $line: '$usual' left beside the term: '$out'"
    done
done
expect_eq "a line without terms" "$(sed -n 6p "$TMP/plain.txt")" "$(sed -n 6p "$TMP/forced.txt")"
expect_eq "the first line" "Cette bagnole est facile à gérer." "$(sed -n 1p "$TMP/forced.txt")"

# JSON Lines: the translation holds the term.
printf 'Where is my car?\n' | nmt translate -q -m "$MODEL" --format jsonl --glossary "$TMP/terms.tsv" >"$TMP/out.jsonl"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["translation"]; sys.exit("bagnole" not in t.split() and "bagnole" not in t)' \
    "$TMP/out.jsonl" || fail "jsonl: the translation lacks the term: $(cat "$TMP/out.jsonl")"

# Documents go through the same translator: Markdown, SubRip and gettext.
printf '# Notes\n\nPut the money in the car.\n\n- Feed the dog.\n- Read a book.\n' >"$TMP/doc.md"
nmt translate -q -m "$MODEL" -i "$TMP/doc.md" --glossary "$TMP/terms.tsv" >"$TMP/doc.fr.md"
for term in fric bagnole toutou bouquin; do
    grep -qw "$term" "$TMP/doc.fr.md" || fail "markdown: '$term' not forced: $(cat "$TMP/doc.fr.md")"
done
grep -q '^- ' "$TMP/doc.fr.md" || fail "markdown: the list is gone: $(cat "$TMP/doc.fr.md")"
printf '1\n00:00:01,000 --> 00:00:03,000\nMy dog likes your car.\n\n' >"$TMP/a.srt"
nmt translate -q -m "$MODEL" -i "$TMP/a.srt" --glossary "$TMP/terms.tsv" >"$TMP/a.fr.srt"
grep -qw toutou "$TMP/a.fr.srt" && grep -qw bagnole "$TMP/a.fr.srt" || fail "srt: terms not forced: $(cat "$TMP/a.fr.srt")"
printf 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "Open the book"\nmsgstr ""\n' >"$TMP/a.pot"
nmt translate -q -m "$MODEL" -i "$TMP/a.pot" --glossary "$TMP/terms.tsv" >"$TMP/a.po"
grep -q '^msgstr ".*bouquin' "$TMP/a.po" || fail "po: term not forced: $(cat "$TMP/a.po")"

# --do-not-translate: names the model translates word by word come out whole.
printf 'Download Sound Juicer from the Software Center.\nRun the Blue Ocean Planner every morning.\n' >"$TMP/names.txt"
nmt translate -q -m "$MODEL" -i "$TMP/names.txt" >"$TMP/names.plain"
! grep -q 'Sound Juicer' "$TMP/names.plain" || fail "the model now keeps 'Sound Juicer' itself: pick another name"
nmt translate -q -m "$MODEL" -i "$TMP/names.txt" --do-not-translate 'Sound Juicer' \
    --do-not-translate '(?:[A-Z][a-z]+ ){2}Planner' >"$TMP/names.kept"
grep -q 'Sound Juicer' <(sed -n 1p "$TMP/names.kept") || fail "'Sound Juicer' not kept: $(cat "$TMP/names.kept")"
grep -q 'Blue Ocean Planner' <(sed -n 2p "$TMP/names.kept") || fail "'Blue Ocean Planner' not kept: $(cat "$TMP/names.kept")"
! grep -q 'son de son' "$TMP/names.kept" || fail "the translated name was left beside the kept one: $(cat "$TMP/names.kept")"

# Without terms to force the output is byte for byte the model's: no
# glossary, an empty one, one whose terms the input lacks; on Tatoeba and
# Debian messages when the shared data is there, else on the lines above.
DATA=$SOURCE_DIR/../shared/data
if [[ -f $DATA/tatoeba/fra.test.tsv && -f $DATA/debian-l10n/po.en-fr.tsv ]]; then
    # awk, not head: head's early exit would end the pipe with SIGPIPE.
    { cut -f1 "$DATA/tatoeba/fra.test.tsv" | awk 'NR % 5 == 0 && ++n <= 150'
      cut -f1 "$DATA/debian-l10n/po.en-fr.tsv" | awk 'NR <= 50'; } >"$TMP/same.txt"
else
    cat "$TMP/in.txt" "$TMP/names.txt" >"$TMP/same.txt"
fi
printf '# nothing yet\n\n' >"$TMP/empty.tsv"
printf 'zyxwv\tqqq\n' >"$TMP/absent.tsv"
nmt translate -q -m "$MODEL" -i "$TMP/same.txt" >"$TMP/same.plain"
for glossary in empty absent; do
    nmt translate -q -m "$MODEL" -i "$TMP/same.txt" --glossary "$TMP/$glossary.tsv" >"$TMP/same.$glossary"
    cmp -s "$TMP/same.plain" "$TMP/same.$glossary" || fail "--glossary $glossary.tsv changed the output"
done
nmt translate -q -m "$MODEL" -i "$TMP/doc.md" >"$TMP/doc.plain.md"
nmt translate -q -m "$MODEL" -i "$TMP/doc.md" --glossary "$TMP/empty.tsv" >"$TMP/doc.empty.md"
cmp -s "$TMP/doc.plain.md" "$TMP/doc.empty.md" || fail "an empty glossary changed the Markdown output"

# Mistakes: one line naming the file and line, or the option; status < 128.
glossary_error() {
    local what=$1 content=$2 name=$3
    printf "$content" >"$TMP/bad.tsv"
    expect_one_error "$what" "$name" nmt translate -q -m "$MODEL" -i "$TMP/in.txt" --glossary "$TMP/bad.tsv"
}
glossary_error "no tab" 'car bagnole\n' "bad.tsv:1: no tab between the source term and the target term"
glossary_error "empty target" '# c\ncar\t\n' "bad.tsv:2: empty target term"
glossary_error "two targets" 'car\tvoiture\nCar\tbagnole\n' "bad.tsv:2: 'Car' is already in the glossary"
glossary_error "invalid UTF-8" 'caf\xc3\tx\n' "bad.tsv:1: invalid UTF-8"
glossary_error "a bad case column" 'a\tb\tyes\n' "bad.tsv:1: the third column must be case-sensitive or case-insensitive"
expect_one_error "a missing glossary" "$TMP/missing.tsv: cannot open the glossary" \
    nmt translate -q -m "$MODEL" -i "$TMP/in.txt" --glossary "$TMP/missing.tsv"
expect_one_error "a directory as glossary" "$TMP: cannot" \
    nmt translate -q -m "$MODEL" -i "$TMP/in.txt" --glossary "$TMP"
expect_one_error "a bad expression" "--do-not-translate '(Sound': not a valid ECMAScript regular expression" \
    nmt translate -q -m "$MODEL" -i "$TMP/in.txt" --do-not-translate '(Sound'
expect_one_error "an expression matching nothing" "--do-not-translate 'x*' matches the empty text" \
    nmt translate -q -m "$MODEL" -i "$TMP/in.txt" --do-not-translate 'x*'
expect_one_error "the glossary as output" "--glossary" \
    nmt translate -q -m "$MODEL" -i "$TMP/in.txt" --glossary "$TMP/terms.tsv" -o "$TMP/terms.tsv" --overwrite
grep -q bagnole "$TMP/terms.tsv" || fail "the glossary was overwritten"

echo "ok: glossary terms forced in text, jsonl, markdown, srt and po; names kept; no glossary changes nothing"
