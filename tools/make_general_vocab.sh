#!/usr/bin/env bash
# Trains the joint 16,000-piece SentencePiece vocabularies of the general
# models (vocab/general.en-fr, vocab/general.en-de) on the training files
# tools/prepare_general.py writes (both sides of every corpus: about 780,000
# lines, all of them used, under the 2M-line sample limit).
# Usage: tools/make_general_vocab.sh [DATA_ROOT] [NMT_BINARY]
#   defaults: runs/data (general.en-fr/ and general.en-de/ under it), build/nmt
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-runs/data}
nmt=${2:-build/nmt}
for foreign in fr de; do
    data=$root/general.en-$foreign
    [[ -f $data/train.en ]] || python3 tools/prepare_general.py "$foreign" ../shared/data "$data"
    "$nmt" vocab -i "$data/train.en" "$data/train.$foreign" --joint --size 16000 --type unigram \
        --input-sentence-size 2000000 -o "vocab/general.en-$foreign"
done
sha256sum "$root"/general.en-{fr,de}/train.* vocab/general.en-*.model
