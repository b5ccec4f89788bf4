#!/usr/bin/env bash
# Data diversification (Nguyen et al., 2020, with one model each way): a
# forward model (SRC->TRG) translates the training sources and a backward
# model (TRG->SRC) the training targets, both with beam 5 and their tuned
# length penalty; a new model is then trained from scratch, with
# tools/train_multi30k.sh's recipe unchanged, on the original pairs and both
# sets of synthetic pairs (three times the corpus: each source with its
# reference, each source with the forward model's output, each reference with
# the backward model's source). Single model, Multi30k train only: both
# translators were trained on train alone (the shipped models, e.g.
# models/en-de.nmt and models/de-en.nmt, made by tools/train_multi30k.sh), so
# the synthetic pairs are a function of train. Unlike tools/distill_multi30k.sh
# the student does not start from the forward model's weights.
#
# Usage: tools/diversify_multi30k.sh PAIR FORWARD BACKWARD [DATA_DIR] [OUT_DIR] [NMT_BINARY] [NMT_TRAIN_FLAGS...]
#   PAIR as tools/train_multi30k.sh takes it; FORWARD translates PAIR's
#   direction, BACKWARD the reverse. Defaults: ../shared/data,
#   runs/diversify, build/nmt. Writes OUT_DIR/train.forward.TRG,
#   OUT_DIR/train.backward.SRC (the two translations, each kept once
#   finished), OUT_DIR/train.div.{SRC,TRG} (the corpus) and what
#   tools/train_multi30k.sh writes (OUT_DIR/SRC-TRG.nmt, its checkpoint and
#   logs); ship it with tools/ship_multi30k.sh PAIR DATA_DIR OUT_DIR.
#   Interrupted? Run it again: finished translations are kept and training
#   resumes from its checkpoint. THREADS, MAX_STEPS and MAX_TIME as in
#   tools/train_multi30k.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: tools/diversify_multi30k.sh PAIR FORWARD BACKWARD [DATA_DIR] [OUT_DIR] [NMT_BINARY] [NMT_TRAIN_FLAGS...]"
source tools/multi30k_pair.sh
multi30k_pair "${1:?$usage}"
pair=$1
forward=${2:?$usage}
backward=${3:?$usage}
data_root=${4:-../shared/data}
data=$data_root/multi30k
out=${5:-runs/diversify}
nmt=${6:-build/nmt}
shift $(( $# < 6 ? $# : 6 ))
tools/check_multi30k.sh "$data" "train.$src" "train.$trg"
mkdir -p "$out"
export OMP_WAIT_POLICY=passive

translate_once "$nmt" "$forward" "$data/train.$src" "$out/train.forward.$trg"
translate_once "$nmt" "$backward" "$data/train.$trg" "$out/train.backward.$src"
cat "$data/train.$src" "$data/train.$src" "$out/train.backward.$src" >"$out/train.div.$src"
cat "$data/train.$trg" "$out/train.forward.$trg" "$data/train.$trg" >"$out/train.div.$trg"

exec tools/train_multi30k.sh "$pair" "$data_root" "$out" "$nmt" \
    --train-source "$out/train.div.$src" --train-target "$out/train.div.$trg" "$@"
