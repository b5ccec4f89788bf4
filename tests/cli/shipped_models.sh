#!/usr/bin/env bash
# The first run: with no -m, `nmt translate` finds the shipped models in the
# source tree's models/ (en->fr by default, --from/--to pick another,
# --domain captions the caption models), they load, translate the cat
# sentence, and their attention links "chat"/"Katze" to "cat" (and de->en's
# and fr->en's "cat" to "Katze"/"chat"). NMT_MODELS overrides where models are
# looked for. Each stores int8 weights under a checksum, within 40 MB.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
unset NMT_MODELS

listed=$(nmt translate --list-models) || fail "nmt translate --list-models failed"
for name in en-fr en-de fr-en de-en de-en.captions en-de.captions en-fr.captions fr-en.captions; do
    path=$(awk -v p="$name" '$1 == p {print $2}' <<<"$listed")
    [[ -n "$path" ]] || fail "--list-models should list $name, got: $listed"
    [[ "$path" -ef "$SOURCE_DIR/models/$name.nmt" ]] || fail "$name should be $SOURCE_DIR/models/$name.nmt, not $path"
done

# check_cat SENTENCE WORD CAT [TRANSLATE_ARGS...]: translating SENTENCE gives
# one line containing WORD, and WORD attends most to the source word CAT.
check_cat() {
    local sentence=$1 word=$2 cat=$3
    shift 3
    local args=(-q --overwrite --alignments "$TMP/cat.$word.jsonl" "$@")  # one file per WORD, written again
    printf '%s\n' "$sentence" | nmt translate "${args[@]}" >"$TMP/cat.$word.txt" ||
        fail "translating '$sentence' ($*) failed"
    expect_eq "output lines ($*)" 1 "$(wc -l <"$TMP/cat.$word.txt")"
    python3 - "$TMP/cat.$word.jsonl" "$word" "$cat" <<'EOF' || fail "the shipped model for ($*) (above)"
import json, sys
record = json.loads(open(sys.argv[1], encoding="utf-8").readline())
word, cat = sys.argv[2], sys.argv[3]
if word not in record["target_words"]:
    sys.exit(f"translated {record['source']!r} to {record['translation']!r}, without {word!r}")
row = record["word_attention"][record["target_words"].index(word)]
looked_at = record["source_words"][row.index(max(row))]
if looked_at != cat:
    sys.exit(f"{word!r} attends most to {looked_at!r}, not {cat!r}: {row}")
EOF
}
check_cat 'The cat sat on the mat.' chat cat  # the default: the general en->fr model
check_cat 'The cat sat on the mat.' Katze cat --to de
check_cat 'The cat sat on the mat.' chat cat --domain captions
check_cat 'The cat sat on the mat.' Katze cat --to de --domain captions
# Into English: --from picks among the shipped models.
check_cat 'Die Katze sitzt auf der Matte.' cat Katze --from de
check_cat 'Le chat est assis sur le tapis.' cat chat --from fr
check_cat 'Die Katze sitzt auf der Matte.' cat Katze --from de --domain captions
check_cat 'Le chat est assis sur le tapis.' cat chat --from fr --domain captions

# An unknown domain: a clear error naming the domain and what is installed.
if nmt translate --domain nosuch </dev/null >"$TMP/out" 2>"$TMP/err"; then fail "--domain nosuch should fail"; fi
grep -q "en->fr in domain nosuch" "$TMP/err" || fail "--domain nosuch should name it, said: $(cat "$TMP/err")"

# Unknown pair: a clear error naming what is installed.
if nmt translate --to xx </dev/null >"$TMP/out" 2>"$TMP/err"; then fail "--to xx should fail"; fi
grep -q "en->xx" "$TMP/err" && grep -q "de-en.captions" "$TMP/err" && grep -q "en-de.captions" "$TMP/err" ||
    fail "--to xx should name the pair and the installed models, said: $(cat "$TMP/err")"

# --to en alone, with several shipped models into English: an error that names
# them and asks for --from (tests/test_model_catalog.cpp has the rest).
if nmt translate --to en </dev/null >"$TMP/out" 2>"$TMP/err"; then
    fail "--to en with several models into English should fail"
fi
grep -q "de-en" "$TMP/err" && grep -q "fr-en" "$TMP/err" && grep -q -- "--from" "$TMP/err" ||
    fail "--to en with several models into English should name them and ask for --from, said: $(cat "$TMP/err")"

# Without --domain the general model serves en->fr: an everyday sentence
# comes out as French, where the caption model made "L'un est à la gare ?".
out=$(printf 'Where is the train station?\n' | nmt translate -q)
grep -q "Où .*gare" <<<"$out" || fail "the default en->fr model should ask where the station is, got: $out"

# NMT_MODELS comes first: a pair found there hides the shipped one.
mkdir "$TMP/models"
cp "$SOURCE_DIR/models/en-de.captions.nmt" "$TMP/models/en-fr.nmt"
listed=$(NMT_MODELS=$TMP/models nmt translate --list-models)
grep -q "^en-fr	$TMP/models/en-fr.nmt$" <<<"$listed" || fail "en-fr should come from NMT_MODELS, listed: $listed"
grep -q "^en-de.captions	.*/models/en-de.captions.nmt$" <<<"$listed" ||
    fail "en-de.captions should still be listed, listed: $listed"
out=$(printf 'The cat sat on the mat.\n' | NMT_MODELS=$TMP/models nmt translate -q)
grep -q Katze <<<"$out" || fail "the default en-fr from NMT_MODELS (a German model here) should be used, got: $out"
# Every shipped model stores its weights as int8 (issue 65) under a data
# checksum that loading verifies (issue 66), within 40 MB; the general ones
# carry their lexical shortlist.
for name in en-fr en-de fr-en de-en en-fr.captions en-de.captions fr-en.captions de-en.captions; do
    file=$SOURCE_DIR/models/$name.nmt
    info=$(nmt info --verify "$file") || fail "nmt info --verify $name failed"
    grep -q "^checksum: *verified" <<<"$info" || fail "$name should store a data checksum, info said: $info"
    grep -q "^weights: .*int8 [0-9]" <<<"$info" || fail "$name should store int8 weights, info said: $info"
    (($(stat -c %s "$file") <= 40000000)) || fail "$name is over 40 MB"
    if [[ $name != *.captions ]]; then
        grep -q "^shortlist: *[0-9]* candidates per source piece" <<<"$info" ||
            fail "$name should carry its lexical shortlist, info said: $info"
    fi
done
echo "ok: the shipped models are found, load, and translate the cat sentence with the right attention"
