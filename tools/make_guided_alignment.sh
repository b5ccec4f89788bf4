#!/usr/bin/env bash
# Word alignments of the general training data for guided alignment training
# (issue 37), from nmt's statistical aligner (fast_align's model, both
# directions, grow-diag-final-and): OUT_DIR/general.en-FOREIGN.align, English
# first, and for FOREIGN-en the same links turned round,
# OUT_DIR/general.FOREIGN-en.align. Made once; prints the file for DIRECTION.
#
# Usage: tools/make_guided_alignment.sh DIRECTION [DATA_DIR] [OUT_DIR] [NMT_BINARY]
#   DIRECTION: en-fr, fr-en, en-de or de-en; DATA_DIR as tools/train_general.sh
#   (default runs/data/general.en-FOREIGN); OUT_DIR default runs.
set -euo pipefail
cd "$(dirname "$0")/.."
direction=${1:?usage: tools/make_guided_alignment.sh DIRECTION [DATA_DIR] [OUT_DIR] [NMT_BINARY]}
source tools/general_pair.sh
general_pair "$direction"
data=${2:-runs/data/general.en-$foreign}
out=${3:-runs}
nmt=${4:-build/nmt}
mkdir -p "$out"

alignment=$out/general.en-$foreign.align
if [[ ! -s $alignment ]]; then
    "$nmt" align --statistical -i "$data/train.en" -r "$data/train.$foreign" -o "$alignment.tmp" --overwrite >&2
    mv "$alignment.tmp" "$alignment"
fi
guide=$alignment
if [[ $src != en ]]; then  # links i-j read source word first: turn them round
    guide=$out/general.$src-$trg.align
    if [[ ! -s $guide ]]; then
        awk '{ for (k = 1; k <= NF; k++) { split($k, p, "-"); $k = p[2] "-" p[1] } print }' "$alignment" >"$guide.tmp"
        mv "$guide.tmp" "$guide"
    fi
fi
echo "$guide"
