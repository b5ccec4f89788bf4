#!/usr/bin/env bash
# A tiny model with random weights, the one the CLI tests use, for trying
# things by hand: its translations are nonsense but the same on every run.
#
#   tools/make_test_model.sh OUT_DIR [path/to/nmt] [nmt init options...]
#
# Writes OUT_DIR/corpus.en (generated English), OUT_DIR/spm.model (200
# SentencePiece pieces) and OUT_DIR/model.nmt (embeddings 16, encoder 2 x GRU
# 16, decoder GRU 32, additive attention 16, seed 1). Extra options go to
# `nmt init`, e.g. --storage f16 or --dec-style luong.
set -euo pipefail
OUT=${1:?usage: tools/make_test_model.sh OUT_DIR [path/to/nmt] [nmt init options...]}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NMT=${2:-${NMT:-$ROOT/build/nmt}}
shift $(($# >= 2 ? 2 : 1))
[[ -x "$NMT" ]] || { echo "make_test_model: $NMT is not an executable (give the nmt binary)" >&2; exit 1; }
NMT=$(cd "$(dirname "$NMT")" && pwd)/$(basename "$NMT")

source "$ROOT/tests/cli/lib.sh"
make_model "$OUT" "$@"
echo "$OUT/model.nmt"
