#!/usr/bin/env bash
# Turns a finished tools/train_multi30k.sh run into the shipped model: tunes
# the length penalty on val (never on a test set), writes models/en-TARGET.nmt
# with f16 weights and that length penalty recorded, then scores it on
# test_2016_flickr. The whole pipeline for one pair is
#   tools/train_multi30k.sh TARGET && tools/ship_multi30k.sh TARGET
# Usage: tools/ship_multi30k.sh TARGET [DATA_DIR] [RUN_DIR] [NMT_BINARY]
#   defaults: ../shared/data, runs/, build/nmt.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: tools/ship_multi30k.sh fr|de [DATA_DIR] [RUN_DIR] [NMT_BINARY]}
data=${2:-../shared/data}
run=${3:-runs}/en-$target.nmt
nmt=${4:-build/nmt}
shipped=models/en-$target.nmt

tuning=$(tools/tune_length_penalty.sh "$run" "$target" "$data" "$nmt")
echo "$tuning"
alpha=$(tail -n 1 <<<"$tuning" | awk '{print $3}')
"$nmt" convert "$run" -o "$shipped" --storage f16 --length-penalty "$alpha" --tuned-on multi30k/val
echo "$shipped: length penalty $alpha"
tools/evaluate_multi30k.sh "$shipped" "$target" "$data" "$nmt"
