#!/usr/bin/env bash
# Second stage of a shipped model: self-distillation (sequence-level knowledge
# distillation, Kim & Rush 2016, with the teacher as the student's start).
# The teacher, a model tools/train_multi30k.sh trained and
# tools/ship_multi30k.sh shipped, translates the training sources with beam 5
# and its tuned length penalty; training then continues from the teacher's
# weights, with a fresh optimiser and a lower learning rate, on the original
# pairs and the teacher's translations together (each source twice, once with
# its reference and once with the teacher's output), validating on val as
# stage one did. Single model, Multi30k train only: the teacher's outputs are
# a function of train alone. Tried on the shipped en->de, it did not beat its
# teacher (val BLEU 40.75 at 1,000 updates against 41.22, both at length
# penalty 0.6; models/EXPERIMENTS.md), so no shipped model comes from it.
#
# Usage: tools/distill_multi30k.sh PAIR TEACHER [DATA_DIR] [OUT_DIR] [NMT_BINARY] [NMT_TRAIN_FLAGS...]
#   PAIR as tools/train_multi30k.sh takes it. TEACHER: the stage-one model
#   (f16, with its tuned length penalty, as models/ ships it). Defaults:
#   ../shared/data, runs/distill, build/nmt. Writes OUT_DIR/train.teacher.TRG
#   (the teacher's translations), OUT_DIR/train.kd.{SRC,TRG} (the stage's
#   corpus) and OUT_DIR/SRC-TRG.nmt with its .checkpoint and logs; ship it with
#   tools/ship_multi30k.sh PAIR DATA_DIR OUT_DIR. Interrupted? Run it again:
#   finished files are kept and training resumes from its checkpoint.
#   THREADS (default 1) and MAX_STEPS (default 3000) as in train_multi30k.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: tools/distill_multi30k.sh PAIR TEACHER [DATA_DIR] [OUT_DIR] [NMT_BINARY] [NMT_TRAIN_FLAGS...]"
source tools/multi30k_pair.sh
multi30k_pair "${1:?$usage}"
teacher=${2:?$usage}
data=${3:-../shared/data}/multi30k
out=${4:-runs/distill}
nmt=${5:-build/nmt}
shift $(( $# < 5 ? $# : 5 ))
tools/check_multi30k.sh "$data" "train.$src" "train.$trg" "val.$src" "val.$trg"
mkdir -p "$out"
export OMP_WAIT_POLICY=passive

translate_once "$nmt" "$teacher" "$data/train.$src" "$out/train.teacher.$trg"
cat "$data/train.$src" "$data/train.$src" >"$out/train.kd.$src"
cat "$data/train.$trg" "$out/train.teacher.$trg" >"$out/train.kd.$trg"

exec "$nmt" train --pretrained-model "$teacher" \
    --train-source "$out/train.kd.$src" --train-target "$out/train.kd.$trg" \
    --valid-source "$data/val.$src" --valid-target "$data/val.$trg" \
    --seed 1 --threads "${THREADS:-1}" \
    --batch-tokens 2000 --lr 0.0005 --warmup 200 \
    "${recipe_regularisation[@]}" "${recipe_validation[@]}" \
    --max-steps "${MAX_STEPS:-3000}" --max-time "${MAX_TIME:-1h}" --resume \
    -o "$out/$src-$trg.nmt" "${sampling_flags[@]}" "$@"
