#!/usr/bin/env bash
# Inline tags around the right words: the three real pages of tests/data/html
# translated en->fr with the shipped model (fp32, the precision the
# hand-checked translations in tests/data/html/en-fr were made with), scored
# by tools/check_tag_placement.py against the hand-checked list
# tests/data/html/tag_placement.fr.tsv (how it was made: its header). At
# least 90% of the elements must enclose the right words. An element whose
# paragraph this CPU translated differently from the reference is left out
# (its expected words may not apply); fewer than half comparable fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
unset NMT_MODELS
export OMP_NUM_THREADS=2

mkdir "$TMP/fr"
for page in debian-faq-kernel developers-reference-scope maint-guide-upload; do
    nmt translate -q --precision fp32 -m "$SOURCE_DIR/models/en-fr.nmt" -i "$SOURCE_DIR/tests/data/html/$page.html" \
        -o "$TMP/fr/$page.html" || fail "translating $page.html failed"
done
python3 "$SOURCE_DIR/tools/check_tag_placement.py" "$SOURCE_DIR/tests/data/html/tag_placement.fr.tsv" "$TMP/fr" \
    --reference "$SOURCE_DIR/tests/data/html/en-fr" >"$TMP/score" || fail "tag placement below 90% (above): $(cat "$TMP/score")"
tail -1 "$TMP/score"
echo "ok: tag placement"
