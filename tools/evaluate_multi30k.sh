#!/usr/bin/env bash
# Scores a model on Multi30k's test_2016_flickr: beam 5, sacreBLEU-style BLEU
# (cased, 13a) and lowercased BLEU, plus chrF.
# Usage: tools/evaluate_multi30k.sh MODEL TARGET_LANG [DATA_DIR] [NMT_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:?usage: tools/evaluate_multi30k.sh MODEL fr|de [DATA_DIR] [NMT_BINARY]}
target=${2:?target language}
data=${3:-../shared/data}/multi30k
nmt=${4:-build/nmt}
tools/check_multi30k.sh "$data" test_2016_flickr.en "test_2016_flickr.$target"
hyp=$(mktemp)
trap 'rm -f "$hyp"' EXIT
"$nmt" translate -m "$model" -i "$data/test_2016_flickr.en" -o "$hyp" --beam-size 5 --threads 2 -q
echo "cased:"
"$nmt" score -r "$data/test_2016_flickr.$target" -i "$hyp"
echo "lowercased:"
"$nmt" score -r "$data/test_2016_flickr.$target" -i "$hyp" --lowercase --metrics bleu
