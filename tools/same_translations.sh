#!/usr/bin/env bash
# Do two nmt binaries translate plain text alike? Each shipped model of
# README's table translates every test set of the table (beam 5, its tuned
# length penalty, --format text, the default precision) with both binaries,
# and the outputs are compared byte for byte. For a change that must not
# touch what line users get (a new document format, --from auto, glossaries):
# run it with the binary before and after.
#
# Usage: tools/same_translations.sh OLD_NMT NEW_NMT [LINES]
#   LINES: only the first LINES lines of each test set (default: all).
#   DATA_DIR: the test sets (default runs/data, written by
#   tools/prepare_general.py fr|de ../shared/data runs/data/general.en-XX).
# Prints one line per model and test set, and exits 1 if any differ.
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: tools/same_translations.sh OLD_NMT NEW_NMT [LINES]}
new=${2:?usage: tools/same_translations.sh OLD_NMT NEW_NMT [LINES]}
lines=${3:-}
data=${DATA_DIR:-runs/data}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

differ=0
for pair in en-fr fr-en en-de de-en; do
    src=${pair%-*} tgt=${pair#*-}
    foreign=$([[ $src == en ]] && echo "$tgt" || echo "$src")
    dir=$data/general.en-$foreign
    [[ -d $dir ]] || { echo "$dir missing: python3 tools/prepare_general.py $foreign ../shared/data $dir" >&2; exit 2; }
    for set in tatoeba l10n ddtp news captions; do
        input=$dir/$set.test.$src
        if [[ -n $lines ]]; then head -n "$lines" "$input" >"$tmp/in"; else cp "$input" "$tmp/in"; fi
        for which in old new; do
            binary=$([[ $which == old ]] && echo "$old" || echo "$new")
            "$binary" translate -q -m "models/$pair.nmt" -i "$tmp/in" >"$tmp/$which"
        done
        if cmp -s "$tmp/old" "$tmp/new"; then
            echo "$pair $set: $(wc -l <"$tmp/in") lines, identical"
        else
            echo "$pair $set: $(cmp "$tmp/old" "$tmp/new" | head -1)"
            differ=1
        fi
    done
done
exit $differ
