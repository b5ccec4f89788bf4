#!/usr/bin/env bash
# Adds a lexical shortlist (issue 36; `nmt shortlist`) to a general-purpose
# model: the statistical aligner's lexical table over the model's pieces,
# trained on the same data the model was (tools/prepare_general.py), keeping
# K candidates per source piece and the FREQUENT most frequent target pieces.
# The model is rewritten through a temporary file, so a killed run leaves it
# as it was.
#
# Usage: tools/make_shortlist.sh DIRECTION MODEL [DATA_DIR] [NMT_BINARY]
#   DIRECTION: en-fr, fr-en, en-de or de-en; DATA_DIR: default
#   runs/data/general.en-FOREIGN. K (default 100), FREQUENT (default 500),
#   ITERATIONS (default 3: EM iterations of the aligner), STORAGE (default
#   f16; int8: what the shipped models store, see nmt convert).
set -euo pipefail
cd "$(dirname "$0")/.."
direction=${1:?usage: tools/make_shortlist.sh DIRECTION MODEL [DATA_DIR] [NMT_BINARY]}
model=${2:?usage: tools/make_shortlist.sh DIRECTION MODEL [DATA_DIR] [NMT_BINARY]}
source tools/general_pair.sh
general_pair "$direction"
data=${3:-runs/data/general.en-$foreign}
nmt=${4:-build/nmt}
[[ -f $data/train.$src ]] || python3 tools/prepare_general.py "$foreign" ../shared/data "$data" >/dev/null
tmp=$model.shortlist-tmp  # not *.nmt: never taken for an installed model
"$nmt" shortlist -m "$model" -s "$data/train.$src" -t "$data/train.$trg" \
    -k "${K:-100}" --frequent "${FREQUENT:-500}" --iterations "${ITERATIONS:-3}" \
    --storage "${STORAGE:-f16}" -o "$tmp"
mv "$tmp" "$model"
