#!/usr/bin/env bash
# Tunes the length penalty of a Multi30k model on the validation set (never
# on a test set): decodes val.en with beam 5 for each alpha, prints the cased
# BLEU of each, and prints the best alpha last (ties go to the smaller one).
# Record it in the shipped model with
#   nmt convert MODEL -o models/en-TARGET.nmt --storage f16 --length-penalty ALPHA --tuned-on multi30k/val
# Usage: tools/tune_length_penalty.sh MODEL TARGET_LANG [DATA_DIR] [NMT_BINARY] [ALPHAS...]
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:?usage: tools/tune_length_penalty.sh MODEL fr|de [DATA_DIR] [NMT_BINARY] [ALPHAS...]}
target=${2:?target language}
data=${3:-../shared/data}/multi30k
nmt=${4:-build/nmt}
shift $(($# < 4 ? $# : 4))
alphas=("$@")
((${#alphas[@]})) || alphas=(0.0 0.2 0.4 0.6 0.8 1.0 1.2 1.4)
tools/check_multi30k.sh "$data" val.en "val.$target"
hyp=$(mktemp)
trap 'rm -f "$hyp"' EXIT
best_alpha="" best_bleu=-1
for alpha in "${alphas[@]}"; do
    "$nmt" translate -m "$model" -i "$data/val.en" -o "$hyp" --beam-size 5 --length-penalty "$alpha" -q
    bleu=$("$nmt" score -r "$data/val.$target" -i "$hyp" --metrics bleu --score-only --width 2)
    printf 'alpha %s\tval BLEU %s\n' "$alpha" "$bleu"
    if awk "BEGIN { exit !($bleu > $best_bleu) }"; then
        best_alpha=$alpha best_bleu=$bleu
    fi
done
printf 'best alpha %s (val BLEU %s)\n' "$best_alpha" "$best_bleu"
