#!/usr/bin/env bash
# Trains a general-purpose model (everyday sentences, software messages and
# package descriptions, news, captions) on every corpus in the shared data,
# from the files tools/prepare_general.py writes and the joint 16,000-piece
# vocabulary tools/make_general_vocab.sh trains (vocab/general.en-FOREIGN).
#
# Recipe (models/EXPERIMENTS.md, "General-purpose models"): embeddings 256, a
# bidirectional GRU encoder 2x256, the conditional GRU decoder 512 with
# additive attention, one embedding table for source, target and output
# (--tied-embeddings-all), the lexical model; lighter dropout than the
# caption recipe (0.1 on embeddings, 0.2 hidden: 13 times the data), label
# smoothing 0.1, an exponential moving average of the weights, batches of
# 2,000 target tokens, validation every 1,000 updates on valid.* (400 lines
# of each domain's development set), pairs over 100 pieces skipped.
#
# Usage: tools/train_general.sh DIRECTION [DATA_DIR] [OUT_DIR] [NMT_BINARY] [NMT_TRAIN_FLAGS...]
#   DIRECTION: en-fr, fr-en, en-de or de-en.
#   DATA_DIR: the prepared files (default runs/data/general.en-FOREIGN, made
#   by tools/prepare_general.py FOREIGN when missing).
#   defaults: runs/, build/nmt. Writes OUT_DIR/general.SRC-TRG.nmt (the best
#   model by validation BLEU), .checkpoint, .log and .log.jsonl.
#   Interrupted? Run it again: it resumes from the checkpoint.
#   THREADS (default 2; a run reproduces only at its thread count and on
#   the same CPU instruction set), MAX_TIME (default 10h, the budget of the
#   issue), MAX_STEPS (default 0: until MAX_TIME or patience), DIM_EMB,
#   DIM_RNN and DIM_DEC (default 256, 256 and 512, the shipped width).
#   Train with a copy of the binary (cp build/nmt runs/bin/nmt-train), so
#   that rebuilding does not disturb a run.
set -euo pipefail
cd "$(dirname "$0")/.."
direction=${1:?usage: tools/train_general.sh DIRECTION [DATA_DIR] [OUT_DIR] [NMT_BINARY] [NMT_TRAIN_FLAGS...]}
source tools/general_pair.sh
general_pair "$direction"
data=${2:-runs/data/general.en-$foreign}
out=${3:-runs}
nmt=${4:-build/nmt}
shift $(( $# < 4 ? $# : 4 ))
[[ -f $data/train.en ]] || python3 tools/prepare_general.py "$foreign" ../shared/data "$data"
mkdir -p "$out"
export OMP_WAIT_POLICY=passive  # do not spin on a core another run needs
exec "$nmt" train \
    --vocab "vocab/general.en-$foreign.model" --source-lang "$src" --target-lang "$trg" \
    --train-source "$data/train.$src" --train-target "$data/train.$trg" \
    --valid-source "$data/valid.$src" --valid-target "$data/valid.$trg" \
    --dec-style conditional --tied-embeddings-all --lexical-model \
    --dim-emb "${DIM_EMB:-256}" --dim-rnn "${DIM_RNN:-256}" --dim-dec "${DIM_DEC:-512}" \
    --seed 1 --threads "${THREADS:-2}" \
    --batch-tokens 2000 --lr 0.002 --warmup 1000 --max-length 100 \
    --dropout-emb 0.1 --dropout-hidden 0.2 --label-smoothing 0.1 --exponential-smoothing 1e-4 \
    --valid-every 1000 --save-every 500 --valid-beam 5 --patience 10 \
    --max-steps "${MAX_STEPS:-0}" --max-time "${MAX_TIME:-10h}" --resume \
    -o "$out/general.$src-$trg.nmt" "$@"
