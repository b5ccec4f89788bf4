#!/usr/bin/env bash
# Tunes the length penalty of a Multi30k model on the validation set (never
# on a test set): decodes val.SRC with beam 5 for each alpha, prints the cased
# BLEU of each, and prints the best alpha last (ties go to the smaller one).
# Record it in the shipped model with
#   nmt convert MODEL -o models/SRC-TRG.nmt --storage f16 --length-penalty ALPHA --tuned-on multi30k/val
# Usage: tools/tune_length_penalty.sh MODEL PAIR [DATA_DIR] [NMT_BINARY] [ALPHAS...]
#   PAIR as tools/train_multi30k.sh takes it: fr, de, or SRC-TRG such as de-en.
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:?usage: tools/tune_length_penalty.sh MODEL PAIR [DATA_DIR] [NMT_BINARY] [ALPHAS...]}
source tools/multi30k_pair.sh
multi30k_pair "${2:?pair: fr, de, or SRC-TRG such as de-en}"
data=${3:-../shared/data}/multi30k
nmt=${4:-build/nmt}
shift $(($# < 4 ? $# : 4))
alphas=("$@")
((${#alphas[@]})) || alphas=(0.0 0.2 0.4 0.6 0.8 1.0 1.2 1.4)
tools/check_multi30k.sh "$data" "val.$src" "val.$trg"
hyp=$(mktemp)
trap 'rm -f "$hyp"' EXIT
best_alpha="" best_bleu=-1
for alpha in "${alphas[@]}"; do
    "$nmt" translate -m "$model" -i "$data/val.$src" -o "$hyp" --overwrite --beam-size 5 --length-penalty "$alpha" -q
    bleu=$("$nmt" score -r "$data/val.$trg" -i "$hyp" --metrics bleu --score-only --width 2)
    printf 'alpha %s\tval BLEU %s\n' "$alpha" "$bleu"
    if awk "BEGIN { exit !($bleu > $best_bleu) }"; then
        best_alpha=$alpha best_bleu=$bleu
    fi
done
printf 'best alpha %s (val BLEU %s)\n' "$best_alpha" "$best_bleu"
