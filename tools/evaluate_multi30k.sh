#!/usr/bin/env bash
# Scores a model on Multi30k's test_2016_flickr: beam 5, sacreBLEU-style BLEU
# (cased, 13a) and lowercased BLEU, plus chrF.
# Usage: tools/evaluate_multi30k.sh MODEL PAIR [DATA_DIR] [NMT_BINARY]
#   PAIR as tools/train_multi30k.sh takes it: fr, de, or SRC-TRG such as de-en.
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:?usage: tools/evaluate_multi30k.sh MODEL PAIR [DATA_DIR] [NMT_BINARY]}
source tools/multi30k_pair.sh
multi30k_pair "${2:?pair: fr, de, or SRC-TRG such as de-en}"
data=${3:-../shared/data}/multi30k
nmt=${4:-build/nmt}
tools/check_multi30k.sh "$data" "test_2016_flickr.$src" "test_2016_flickr.$trg"
hyp=$(mktemp)
trap 'rm -f "$hyp"' EXIT
"$nmt" translate -m "$model" -i "$data/test_2016_flickr.$src" -o "$hyp" --overwrite --beam-size 5 --threads 2 -q
echo "cased:"
"$nmt" score -r "$data/test_2016_flickr.$trg" -i "$hyp"
echo "lowercased:"
"$nmt" score -r "$data/test_2016_flickr.$trg" -i "$hyp" --lowercase --metrics bleu
