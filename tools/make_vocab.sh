#!/usr/bin/env bash
# Rebuilds the shipped SentencePiece models in vocab/ from Multi30k's training
# split (cased raw text): one joint 8,000-piece unigram model per language pair.
# Usage: tools/make_vocab.sh [DATA_DIR] [NMT_BINARY]   (defaults: ../shared/data, build/nmt)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data}
nmt=${2:-build/nmt}
for target in fr de; do
    "$nmt" vocab -i "$data/multi30k/train.en" "$data/multi30k/train.$target" --joint --size 8000 --type unigram \
        -o "vocab/multi30k.en-$target"
done
sha256sum "$data"/multi30k/train.{en,fr,de} vocab/multi30k.en-*.model
