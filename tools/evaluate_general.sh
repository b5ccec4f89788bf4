#!/usr/bin/env bash
# Scores a model on every domain of the general-purpose evaluation: Tatoeba
# (everyday sentences), Debian's gettext messages (l10n) and package
# descriptions (ddtp), news and Multi30k captions, from the files
# tools/prepare_general.py writes. Beam 5, the model's tuned length penalty
# (or LENGTH_PENALTY), batch 32, two threads; cased sacreBLEU-style BLEU and
# chrF2 (nmt score), and for the software domains the share of messages
# whose placeholders came through unchanged (tools/count_placeholders.py).
#
# Usage: tools/evaluate_general.sh MODEL DIRECTION SPLIT [DATA_DIR] [NMT_BINARY] [DOMAINS...]
#   DIRECTION: en-fr, fr-en, en-de or de-en; SPLIT: dev (tune on it) or test
#   (score once). DATA_DIR: default runs/data/general.en-FOREIGN.
#   DOMAINS: default tatoeba l10n ddtp news captions.
# Prints one line per domain: domain, lines, BLEU, chrF2, placeholders kept;
# keeps the translations in OUT (default runs/eval/MODEL-NAME.SPLIT/).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/general_pair.sh
general_eval_args "$@"
out=${OUT:-runs/eval/$(basename "$model" .nmt).$split}
mkdir -p "$out"
penalty=()
[[ -n ${LENGTH_PENALTY:-} ]] && penalty=(--length-penalty "$LENGTH_PENALTY")
printf '%-9s %6s %6s %6s %s\n' domain lines BLEU chrF2 placeholders
for domain in "${domains[@]}"; do
    source=$data/$domain.$split.$src reference=$data/$domain.$split.$trg hypothesis=$out/$domain.$trg
    "$nmt" translate -m "$model" -i "$source" -o "$hypothesis.tmp" --overwrite --beam-size 5 --batch-size 32 --threads 2 -q \
        "${penalty[@]}" ${TRANSLATE_FLAGS:-}
    mv "$hypothesis.tmp" "$hypothesis"
    scores=$("$nmt" score -r "$reference" -i "$hypothesis" --metrics bleu,chrf --json)
    read -r bleu chrf < <(python3 -c 'import json, sys; s = {m["name"][:4]: m["score"] for m in json.loads(sys.argv[1])}
print("%.1f %.1f" % (s["BLEU"], s["chrF"]))' "$scores")
    kept=-
    if [[ $domain == l10n || $domain == ddtp ]]; then
        kept=$(python3 tools/count_placeholders.py "$source" "$hypothesis" --json |
            python3 -c 'import json, sys; s = json.load(sys.stdin); print("%d/%d" % (s["placeholders_preserved"], s["with_placeholders"]))')
    fi
    printf '%-9s %6s %6s %6s %s\n' "$domain" "$(wc -l <"$source")" "$bleu" "$chrf" "$kept"
done
