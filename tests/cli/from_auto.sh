#!/usr/bin/env bash
# nmt translate --from auto with the shipped models: each line goes to the
# model of the language it is detected in (the same translation as --from
# that language), one line out per line in, in order; a line already in the
# target, or in a language no model translates into it, comes out unchanged
# with one warning naming the line (none for the target with
# --keep-target-language); -v reports each choice and --alignments records
# it. Documents are detected once, whole. nmt detect prints what is detected.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
unset NMT_MODELS

fr="Le chat dort sur le canapé depuis ce matin."
de="Die Katze schläft seit heute Morgen auf dem Sofa."
en="The cat has been sleeping on the sofa since this morning."
printf '%s\n' "$fr" "$de" "" "$en" "$de" "$fr" >"$TMP/mixed.txt"

# --- nmt detect: one code per line, und where there is nothing to judge.
nmt detect -i "$TMP/mixed.txt" --among en,fr,de >"$TMP/codes.txt" || fail "nmt detect failed"
expect_eq "nmt detect's codes" "fr de und en de fr" "$(tr '\n' ' ' <"$TMP/codes.txt" | sed 's/ $//')"
expect_eq "nmt detect over the installed models' languages" "de" "$(printf '%s\n' "$de" | nmt detect)"
expect_eq "nmt detect --confidence" "fr" "$(printf '%s\n' "$fr" | nmt detect --confidence | cut -f1)"

# --- Lines: routed, each the translation --from its language gives.
expected_fr=$(printf '%s\n' "$fr" | nmt translate -q --from fr --to en)
expected_de=$(printf '%s\n' "$de" | nmt translate -q --from de --to en)
[[ "$expected_fr" != "$fr" && "$expected_de" != "$de" ]] || fail "the shipped models should change the text"
nmt translate --from auto --to en --keep-target-language -v -i "$TMP/mixed.txt" --alignments "$TMP/a.jsonl" \
    >"$TMP/out.txt" 2>"$TMP/err.txt" || fail "--from auto failed: $(cat "$TMP/err.txt")"
mapfile -t out <"$TMP/out.txt"
expect_eq "output lines" 6 "${#out[@]}"
expect_eq "line 1 (fr)" "$expected_fr" "${out[0]}"
expect_eq "line 2 (de)" "$expected_de" "${out[1]}"
expect_eq "line 3 (blank)" "" "${out[2]}"
expect_eq "line 4 (en, kept)" "$en" "${out[3]}"
expect_eq "line 5 (de)" "$expected_de" "${out[4]}"
expect_eq "line 6 (fr)" "$expected_fr" "${out[5]}"
grep -qx "nmt: line 1: fr -> fr-en" "$TMP/err.txt" || fail "-v should report line 1: $(cat "$TMP/err.txt")"
grep -qx "nmt: line 4: en, passed through" "$TMP/err.txt" || fail "-v should report line 4: $(cat "$TMP/err.txt")"
if grep -q "warning" "$TMP/err.txt"; then fail "--keep-target-language should not warn: $(cat "$TMP/err.txt")"; fi
python3 - "$TMP/a.jsonl" <<'EOF2' || fail "--alignments should record each line's source language"
import json, sys
records = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
got = [(r["source_language"], r["passed_through"]) for r in records]
want = [("fr", False), ("de", False), (None, True), ("en", True), ("de", False), ("fr", False)]
if got != want:
    sys.exit(f"got {got}")
EOF2

# --- Without --keep-target-language: the English line still comes out, with a warning.
nmt translate --from auto -i "$TMP/mixed.txt" >"$TMP/out2.txt" 2>"$TMP/err2.txt" || fail "--from auto (to en by default) failed"
cmp -s "$TMP/out.txt" "$TMP/out2.txt" || fail "--to should default to en, and the lines be the same"
expect_eq "warnings" "nmt: warning: line 4: already in en; passed through unchanged" "$(cat "$TMP/err2.txt")"

# --- Into French only English has a model: German passes through, named.
printf '%s\n' "$de" "$en" | nmt translate --from auto --to fr >"$TMP/out3.txt" 2>"$TMP/err3.txt" ||
    fail "--from auto --to fr failed"
mapfile -t out <"$TMP/out3.txt"
expect_eq "output lines into fr" 2 "${#out[@]}"
expect_eq "German line into fr" "$de" "${out[0]}"
expect_eq "English line into fr" "$(printf '%s\n' "$en" | nmt translate -q --from en --to fr)" "${out[1]}"
expect_eq "warning for German into fr" \
    "nmt: warning: line 1: in de, and no installed model translates de->fr; passed through unchanged" \
    "$(cat "$TMP/err3.txt")"

# --- A document: detected once, as a whole.
printf '# Le chat\n\nLe chat dort sur le canapé depuis ce matin.\n\nIl ne veut pas se lever.\n' >"$TMP/doc.md"
nmt translate --from auto -v -i "$TMP/doc.md" -o "$TMP/doc.en.md" 2>"$TMP/err4.txt" || fail "a Markdown document failed"
grep -qx "nmt: $TMP/doc.md: fr -> fr-en" "$TMP/err4.txt" || fail "-v should report the document: $(cat "$TMP/err4.txt")"
expect_eq "the document's translation" "$(nmt translate -q --from fr -i "$TMP/doc.md")" "$(cat "$TMP/doc.en.md")"

# --- Usage errors: one line naming the option, exit status 1.
for args in "--from auto -m $SOURCE_DIR/models/en-fr.nmt" "--keep-target-language --from fr" "--from auto --to fr --domain nonesuch"; do
    status=0
    # shellcheck disable=SC2086
    printf 'x\n' | nmt translate $args >/dev/null 2>"$TMP/err5.txt" || status=$?
    expect_eq "exit status of translate $args" 1 "$status"
    expect_eq "lines of the error of translate $args" 1 "$(wc -l <"$TMP/err5.txt")"
    grep -q -- "--" "$TMP/err5.txt" || fail "the error should name the option: $(cat "$TMP/err5.txt")"
done
status=0
nmt detect --among "" </dev/null 2>"$TMP/err6.txt" || status=$?
expect_eq "nmt detect --among '' exit status (a usage error)" 64 "$status"
grep -q -- "--among" "$TMP/err6.txt" || fail "the error should name --among: $(cat "$TMP/err6.txt")"
status=0
echo "The dog runs." | nmt detect --among en,xx 2>"$TMP/err8.txt" || status=$?
expect_eq "nmt detect --among en,xx exit status (a usage error)" 64 "$status"
grep -q -- "--among: 'xx'" "$TMP/err8.txt" || fail "the error should name --among and xx: $(cat "$TMP/err8.txt")"

# --- Interactive: each line is answered before the next is written.
trap '' PIPE
coproc AUTO { exec "$NMT" translate --from auto --to en -q 2>"$TMP/err7.txt"; }
to=${AUTO[1]}
exec {from}<&"${AUTO[0]}"
for line in "$fr" "$en" "$de"; do
    printf '%s\n' "$line" >&"$to"
    IFS= read -r -t 20 got <&"$from" || fail "no answer within 20 s to '$line' while stdin stays open"
done
expect_eq "the last streamed answer (de)" "$expected_de" "$got"
exec {to}>&-
wait "$AUTO_PID" || fail "the interactive run failed: $(cat "$TMP/err7.txt")"
echo "ok: --from auto routes each line (and a document) to its language's model, passes the rest through with a warning, and nmt detect names the languages"
