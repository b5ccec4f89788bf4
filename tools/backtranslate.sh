#!/usr/bin/env bash
# Training data for FOREIGN->English with back-translated everyday English:
# the English Tatoeba sentences this pair lacks (tools/backtranslation_pool.py:
# those of the other pair's Tatoeba file, less every sentence this pair's
# data holds or is scored on), translated into FOREIGN by the English->FOREIGN
# model, appended to the general training files (training shuffles its
# batches). The held-out files are copied unchanged, so that runs on either
# directory validate, tune and test on the same lines.
#
# Usage: tools/backtranslate.sh FOREIGN [MODEL] [DATA_DIR] [GENERAL_DIR] [OUT_DIR] [NMT_BINARY]
#   FOREIGN: fr or de; MODEL (default models/en-FOREIGN.nmt) translates;
#   DATA_DIR default ../shared/data; GENERAL_DIR default
#   runs/data/general.en-FOREIGN (tools/prepare_general.py's files); OUT_DIR
#   default runs/data/general-bt.en-FOREIGN, which then serves
#   tools/make_guided_alignment.sh and tools/finetune_guided.sh FOREIGN-en as
#   a DATA_DIR. Writes OUT_DIR/backtranslated.{en,FOREIGN} (the synthetic
#   pairs alone) too. THREADS (default 2) for translating.
set -euo pipefail
cd "$(dirname "$0")/.."
foreign=${1:?usage: tools/backtranslate.sh FOREIGN [MODEL] [DATA_DIR] [GENERAL_DIR] [OUT_DIR] [NMT_BINARY]}
model=${2:-models/en-$foreign.nmt}
data=${3:-../shared/data}
general=${4:-runs/data/general.en-$foreign}
out=${5:-runs/data/general-bt.en-$foreign}
nmt=${6:-build/nmt}
mkdir -p "$out"

if [[ ! -s $out/backtranslated.$foreign ]]; then
    python3 tools/backtranslation_pool.py "$foreign" "$data" "$general" >"$out/backtranslated.en"
    OMP_WAIT_POLICY=passive "$nmt" translate -m "$model" --threads "${THREADS:-2}" \
        -i "$out/backtranslated.en" -o "$out/backtranslated.$foreign.tmp"
    mv "$out/backtranslated.$foreign.tmp" "$out/backtranslated.$foreign"
fi
for file in "$general"/*.dev.* "$general"/*.test.* "$general"/valid.*; do
    cp "$file" "$out/"
done
for lang in en "$foreign"; do
    cat "$general/train.$lang" "$out/backtranslated.$lang" >"$out/train.$lang"
done
echo "$out: $(wc -l <"$general/train.en") pairs and $(wc -l <"$out/backtranslated.en") back-translated" >&2
