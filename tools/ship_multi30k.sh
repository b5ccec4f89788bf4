#!/usr/bin/env bash
# Turns a finished tools/train_multi30k.sh run into the shipped model: tunes
# the length penalty on val (never on a test set), writes models/SRC-TRG.nmt
# with f16 weights and that length penalty recorded, then scores it on
# test_2016_flickr. The whole pipeline for one pair is
#   tools/train_multi30k.sh PAIR && tools/ship_multi30k.sh PAIR
# Usage: tools/ship_multi30k.sh PAIR [DATA_DIR] [RUN_DIR] [NMT_BINARY]
#   PAIR as tools/train_multi30k.sh takes it: fr, de, or SRC-TRG such as de-en.
#   defaults: ../shared/data, runs/, build/nmt.
set -euo pipefail
cd "$(dirname "$0")/.."
pair=${1:?usage: tools/ship_multi30k.sh PAIR [DATA_DIR] [RUN_DIR] [NMT_BINARY]}
source tools/multi30k_pair.sh
multi30k_pair "$pair"
data=${2:-../shared/data}
run=${3:-runs}/$src-$trg.nmt
nmt=${4:-build/nmt}
shipped=models/$src-$trg.captions.nmt  # the caption models: nmt translate --domain captions

tuning=$(tools/tune_length_penalty.sh "$run" "$pair" "$data" "$nmt")
echo "$tuning"
alpha=$(tail -n 1 <<<"$tuning" | awk '{print $3}')
"$nmt" convert "$run" -o "$shipped" --overwrite --storage f16 --length-penalty "$alpha" --tuned-on multi30k/val
echo "$shipped: length penalty $alpha"
tools/evaluate_multi30k.sh "$shipped" "$pair" "$data" "$nmt"
