#!/usr/bin/env bash
# gettext catalogues with the shipped models: the real templates under
# tests/data/po (README there: Debian packages whose domains are not in the
# training data) translated en->fr and en->de, chosen by their extension.
# Each result passes `msgfmt --check` (gettext's own validator), has every
# message translated that has words to translate, each marked fuzzy, the
# header's Language and (bison) Plural-Forms set; placeholders are kept in at
# least 99% of the messages that have them (counted with
# tools/count_placeholders.py's patterns). A translated catalogue's own
# translations are kept (or overwritten with --overwrite-translated), and a
# malformed one is refused naming its line, with nothing written.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
unset NMT_MODELS
command -v msgfmt >/dev/null || fail "msgfmt (Debian's gettext) is needed"
DATA=$SOURCE_DIR/tests/data/po
export OMP_NUM_THREADS=2

# pairs FILE: one "msgid \x1e msgstr" record per translated form (\x1d
# between records), from gettext's own msgexec.
pairs() {
    msgexec -i "$1" sh -c '[ -n "$MSGEXEC_MSGID" ] && printf "%s\036%s\035" "$MSGEXEC_MSGID" "$(cat)"; true'
}

: >"$TMP/all.pairs"
for lang in fr de; do
    for pot in "$DATA"/*.pot; do
        base=$(basename "$pot" .pot)
        out=$TMP/$base.$lang.po
        nmt translate -q -m "$SOURCE_DIR/models/en-$lang.nmt" -i "$pot" -o "$out" ||
            fail "translating $base.pot into $lang failed"
        msgfmt --check -o /dev/null "$out" 2>"$TMP/msgfmt.err" || {
            cat "$TMP/msgfmt.err" >&2
            fail "msgfmt --check rejects $base.pot translated into $lang"
        }
        grep -q "^\"Language: $lang\\\\n\"" "$out" || fail "$base.$lang.po: the header's Language is not $lang"
        # Every message with letters is translated and fuzzy; msgattrib counts.
        untranslated=$(msgattrib --untranslated --no-obsolete "$out" | grep -c '^msgid ' || true)
        [[ $untranslated -le 1 ]] || fail "$base.$lang.po: $((untranslated - 1)) messages left untranslated"
        fuzzy=$(msgattrib --only-fuzzy "$out" | grep -c '^msgid ' || true)
        total=$(grep -c '^msgid ' "$pot")
        [[ $fuzzy -ge $((total - 1)) ]] || fail "$base.$lang.po: $fuzzy fuzzy of $total messages"
        pairs "$out" >>"$TMP/all.pairs"
    done
done
# bison has plural messages: the header says how many forms, each has them.
grep -q '^"Plural-Forms: nplurals=2; plural=(n > 1);\\n"' "$TMP/bison.fr.po" || fail "bison.fr.po: French plural rule missing"
grep -q '^"Plural-Forms: nplurals=2; plural=(n != 1);\\n"' "$TMP/bison.de.po" || fail "bison.de.po: German plural rule missing"
[[ $(grep -c '^msgstr\[1\] "..*' "$TMP/bison.fr.po") -ge 5 ]] || fail "bison.fr.po: plural forms not filled"

python3 - "$TMP/all.pairs" "$SOURCE_DIR/tools" <<'EOF' || fail "placeholders (above)"
import sys
sys.path.insert(0, sys.argv[2])
from count_placeholders import placeholders
records = [r for r in open(sys.argv[1], encoding="utf-8").read().split("\x1d") if r]
having = kept = 0
lost = []
for record in records:
    msgid, msgstr = record.split("\x1e", 1)
    wanted = placeholders(msgid)
    if not wanted:
        continue
    having += 1
    if placeholders(msgstr) == wanted:
        kept += 1
    else:
        lost.append((msgid, msgstr))
print(f"placeholders kept in {kept} of {having} translated messages that have them ({100.0 * kept / having:.1f}%); "
      f"{len(records)} translations in all")
for msgid, msgstr in lost[:5]:
    print(f"  lost: {msgid!r} -> {msgstr!r}")
sys.exit(0 if having >= 100 and kept >= 0.99 * having else 1)
EOF

# A translated catalogue: its translations kept, none marked fuzzy; with
# --overwrite-translated, all replaced and fuzzy. Accelerators stay one each.
nmt translate -q -m "$SOURCE_DIR/models/en-de.nmt" -i "$DATA/galculator.de.po" -o "$TMP/kept.po" ||
    fail "translating galculator.de.po failed"
diff <(msgcat --no-wrap "$DATA/galculator.de.po" | grep '^msgstr') \
    <(msgcat --no-wrap "$TMP/kept.po" | grep '^msgstr') >/dev/null ||
    fail "galculator.de.po: translations changed without --overwrite-translated"
[[ $(msgattrib --only-fuzzy "$TMP/kept.po" | grep -c '^msgid ' || true) -eq 0 ]] || fail "kept translations marked fuzzy"
nmt translate -q --overwrite-translated -m "$SOURCE_DIR/models/en-de.nmt" -i "$DATA/galculator.de.po" \
    -o "$TMP/overwritten.po" || fail "--overwrite-translated failed"
msgfmt --check -o /dev/null "$TMP/overwritten.po" || fail "msgfmt --check rejects the overwritten catalogue"
[[ $(msgattrib --only-fuzzy "$TMP/overwritten.po" | grep -c '^msgid ') -ge 40 ]] || fail "overwritten messages not fuzzy"
python3 - "$TMP/galculator.fr.po" "$TMP/overwritten.po" <<'EOF' || fail "accelerators (above)"
import re, sys
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    entries = re.findall(r'^msgid "(.*)"\nmsgstr "(.*)"$', text, re.M)
    marked = [(i, s) for i, s in entries if re.search(r"_[A-Za-z]", i) and len(i.split()) <= 4]
    kept = [(i, s) for i, s in marked if len(re.findall(r"_\w", s)) == 1]
    print(f"{path.split('/')[-1]}: accelerator kept in {len(kept)} of {len(marked)} labels")
    if len(marked) < 20 or len(kept) < len(marked):
        sys.exit(1)
EOF

# --format po reads stdin; --format text forces lines even for a .po name.
nmt translate -q -m "$SOURCE_DIR/models/en-fr.nmt" --format po <"$DATA/hello.pot" >"$TMP/stdin.po" ||
    fail "--format po from stdin failed"
cmp -s "$TMP/stdin.po" "$TMP/hello.fr.po" || fail "--format po on stdin differs from -i hello.pot"
nmt translate -q -m "$SOURCE_DIR/models/en-fr.nmt" --format text -i "$DATA/hello.pot" -o "$TMP/lines.txt"
expect_eq "--format text: one line per line" "$(wc -l <"$DATA/hello.pot")" "$(wc -l <"$TMP/lines.txt")"

# Malformed: refused naming the file and line, the output never created.
printf 'msgid "one"\nmsgstr "un"\n\nmsgid "two"\nmsgstr "deux\n' >"$TMP/broken.po"
if nmt translate -m "$SOURCE_DIR/models/en-fr.nmt" -i "$TMP/broken.po" -o "$TMP/never.po" 2>"$TMP/err"; then
    fail "a malformed catalogue was accepted"
fi
grep -q "broken.po: line 6: end-of-line within string" "$TMP/err" || fail "the error should name broken.po and line 6 (as msgfmt does), got: $(cat "$TMP/err")"
[[ ! -e "$TMP/never.po" ]] || fail "a refused catalogue left an output file"

echo "ok: 7 templates x 2 languages pass msgfmt --check; translations kept or overwritten; malformed input refused"
