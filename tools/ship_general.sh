#!/usr/bin/env bash
# Ships a general-purpose model: tunes the length penalty on the development
# set the run validated on (valid.*: 400 lines of each domain's dev set),
# stores the weights with that penalty in models/SRC-TRG.nmt (what `nmt
# translate --from SRC --to TRG` uses), f16 or, with STORAGE=int8, int8
# storage (nmt convert --storage int8, as the shipped models since issue
# 65), then scores every domain's dev set and, once,
# its test set (tools/evaluate_general.sh). The shipped model gets a lexical
# shortlist (tools/make_shortlist.sh) unless SHORTLIST=0.
# Usage: tools/ship_general.sh DIRECTION [RUN_DIR] [NMT_BINARY] [ALPHAS...]
#   defaults: runs (the model is RUN_DIR/general.SRC-TRG.nmt, the best by
#   validation BLEU, or a checkpoint's average given as RUN_DIR), build/nmt,
#   alphas 0.2 0.6 1.0 1.4.
set -euo pipefail
cd "$(dirname "$0")/.."
direction=${1:?usage: tools/ship_general.sh DIRECTION [RUN_DIR] [NMT_BINARY] [ALPHAS...]}
source tools/general_pair.sh
general_pair "$direction"
run=${2:-runs}
[[ -d $run ]] && run=$run/general.$src-$trg.nmt
nmt=${3:-build/nmt}
shift $(( $# < 3 ? $# : 3 ))
alphas=("$@")
(( ${#alphas[@]} )) || alphas=(0.2 0.6 1.0 1.4)
data=runs/data/general.en-$foreign
shipped=models/$src-$trg.nmt
hyp=$(mktemp)
trap 'rm -f "$hyp"' EXIT
best_alpha="" best_bleu=-1
for alpha in "${alphas[@]}"; do
    "$nmt" translate -m "$run" -i "$data/valid.$src" -o "$hyp" --overwrite --beam-size 5 --length-penalty "$alpha" --threads 2 -q
    bleu=$("$nmt" score -r "$data/valid.$trg" -i "$hyp" --metrics bleu --score-only --width 2)
    printf 'alpha %s\tvalid BLEU %s\n' "$alpha" "$bleu"
    if awk "BEGIN { exit !($bleu > $best_bleu) }"; then best_alpha=$alpha best_bleu=$bleu; fi
done
printf 'best alpha %s (valid BLEU %s)\n' "$best_alpha" "$best_bleu"
"$nmt" convert "$run" -o "$shipped" --overwrite --storage "${STORAGE:-f16}" --length-penalty "$best_alpha" --tuned-on "general valid (tools/prepare_general.py)"
echo "$shipped: length penalty $best_alpha"
# The lexical shortlist nmt translate uses by default (SHORTLIST=0: none).
[[ ${SHORTLIST:-1} == 0 ]] || STORAGE=${STORAGE:-f16} tools/make_shortlist.sh "$direction" "$shipped" "$data" "$nmt"
echo "dev:"
tools/evaluate_general.sh "$shipped" "$direction" dev "$data" "$nmt"
echo "test (scored once):"
tools/evaluate_general.sh "$shipped" "$direction" test "$data" "$nmt"
