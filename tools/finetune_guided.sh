#!/usr/bin/env bash
# Fine-tunes a general-purpose model with guided alignment (issue 37), so that
# its attention aligns words: word alignments of the training data from the
# built-in statistical aligner (fast_align's model, both directions,
# grow-diag-final-and), then a short run from the model's weights on the same
# data and recipe as tools/train_general.sh, with --guided-alignment.
#
# Usage: tools/finetune_guided.sh DIRECTION [MODEL] [DATA_DIR] [OUT_DIR] [NMT_BINARY] [NMT_TRAIN_FLAGS...]
#   DIRECTION: en-fr, fr-en, en-de or de-en; MODEL (default models/SRC-TRG.nmt)
#   is the starting point; DATA_DIR as tools/train_general.sh (default
#   runs/data/general.en-FOREIGN); OUT_DIR (default runs) gets
#   general.en-FOREIGN.align (once: the alignments serve both directions) and
#   guided.SRC-TRG.nmt with its checkpoint and logs. Interrupted? Run it
#   again: it resumes.
#   THREADS (default 2), MAX_STEPS (default 2000), WEIGHT (default 0.1, Marian's),
#   LR (default 0.0005, constant after WARMUP updates, default 0; 0.001 with
#   WARMUP=200 continues a main run near the rate its schedule had reached),
#   LR_DECAY (default plateau, which with factor 1 keeps the rate constant;
#   linear lowers it from LR after warm-up to 0 at MAX_STEPS: a cool-down).
#   Then ship with tools/ship_general.sh DIRECTION OUT_DIR/guided.SRC-TRG.nmt.
set -euo pipefail
cd "$(dirname "$0")/.."
direction=${1:?usage: tools/finetune_guided.sh DIRECTION [MODEL] [DATA_DIR] [OUT_DIR] [NMT_BINARY] [NMT_TRAIN_FLAGS...]}
source tools/general_pair.sh
general_pair "$direction"
model=${2:-models/$src-$trg.nmt}
data=${3:-runs/data/general.en-$foreign}
out=${4:-runs}
nmt=${5:-build/nmt}
shift $(( $# < 5 ? $# : 5 ))
export OMP_WAIT_POLICY=passive

guide=$(tools/make_guided_alignment.sh "$direction" "$data" "$out" "$nmt")

exec "$nmt" train --pretrained-model "$model" \
    --train-source "$data/train.$src" --train-target "$data/train.$trg" \
    --valid-source "$data/valid.$src" --valid-target "$data/valid.$trg" \
    --guided-alignment "$guide" --guided-alignment-weight "${WEIGHT:-0.1}" \
    --seed 1 --threads "${THREADS:-2}" \
    --batch-tokens 2000 --lr "${LR:-0.0005}" --warmup "${WARMUP:-0}" --lr-decay "${LR_DECAY:-plateau}" --lr-decay-factor 1 --max-length 100 \
    --dropout-emb 0.1 --dropout-hidden 0.2 --label-smoothing 0.1 --exponential-smoothing 1e-4 \
    --valid-every 500 --save-every 250 --valid-beam 5 --patience 10 \
    --max-steps "${MAX_STEPS:-2000}" --resume \
    -o "$out/guided.$src-$trg.nmt" "$@"
