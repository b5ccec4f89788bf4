#!/usr/bin/env bash
# AER of nmt's aligners on the hand-made gold set tools/gold/ (the first 100
# Multi30k validation pairs, English-French; README's alignment table).
#
# Usage: tools/evaluate_alignment.sh [DATA_DIR] [NMT]
#   DATA_DIR: the shared data (default ../shared/data); NMT: default build/nmt.
#   EN_FR_MODELS, FR_EN_MODELS: the models whose attention is scored (default
#   the shipped general and caption models); a French-English model aligns
#   the pairs the other way, and its links are turned round. STATISTICAL=0
#   skips the statistical aligner's rows.
# The statistical aligner is trained on Multi30k's training pairs plus the
# whole validation set, as fast_align is run on the data it aligns.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data}/multi30k
nmt=${2:-build/nmt}
gold=tools/gold/multi30k-val-en-fr.100.align
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
head -100 "$data/val.en" >"$work/val.en"
head -100 "$data/val.fr" >"$work/val.fr"

score() {  # NAME FILE
    printf '| %s | %s |\n' "$1" "$("$nmt" score --aer -r "$gold" -i "$2" -w 1 | sed 's/^AER = //')"
}

echo "| aligner | AER (precision, recall) |"
echo "|---|---|"
cat "$data/train.en" "$data/val.en" >"$work/all.en"
cat "$data/train.fr" "$data/val.fr" >"$work/all.fr"
train_lines=$(wc -l <"$data/train.en")
for h in $([[ ${STATISTICAL:-1} == 0 ]] || echo intersect grow-diag-final-and union); do
    "$nmt" align --statistical --symmetrize "$h" -i "$work/all.en" -r "$work/all.fr" -o "$work/stat.align" --overwrite
    sed -n "$((train_lines + 1)),$((train_lines + 100))p" "$work/stat.align" >"$work/stat.100"
    score "statistical, $h" "$work/stat.100"
done
en_fr_models=${EN_FR_MODELS:-models/en-fr.nmt models/en-fr.captions.nmt}
fr_en_models=${FR_EN_MODELS:-models/fr-en.nmt models/fr-en.captions.nmt}
turn_round() { awk '{ for (k = 1; k <= NF; k++) { split($k, p, "-"); $k = p[2] "-" p[1] } print }'; }
for model in $en_fr_models; do
    [[ -f $model ]] || continue
    name=$(basename "$model" .nmt)
    "$nmt" align -q -m "$model" -i "$work/val.en" -r "$work/val.fr" -o "$work/a" --overwrite
    score "$name attention" "$work/a"
    "$nmt" align -q -m "$model" --shifted -i "$work/val.en" -r "$work/val.fr" -o "$work/a" --overwrite
    score "$name attention, shifted" "$work/a"
    "$nmt" align -q -m "$model" --align-threshold 0.3 -i "$work/val.en" -r "$work/val.fr" -o "$work/a" --overwrite
    score "$name attention, threshold 0.3" "$work/a"
    for reverse in $fr_en_models; do
        [[ -f $reverse ]] || continue
        for h in intersect grow-diag-final-and; do
            "$nmt" align -q -m "$model" --reverse-model "$reverse" --symmetrize "$h" \
                -i "$work/val.en" -r "$work/val.fr" -o "$work/a"
            score "$name + $(basename "$reverse" .nmt), $h" "$work/a"
        done
    done
done
for model in $fr_en_models; do
    [[ -f $model ]] || continue
    name=$(basename "$model" .nmt)
    "$nmt" align -q -m "$model" -i "$work/val.fr" -r "$work/val.en" | turn_round >"$work/a"
    score "$name attention" "$work/a"
    "$nmt" align -q -m "$model" --align-threshold 0.3 -i "$work/val.fr" -r "$work/val.en" | turn_round >"$work/a"
    score "$name attention, threshold 0.3" "$work/a"
done
