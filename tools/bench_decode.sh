#!/usr/bin/env bash
# The decoding benchmark: `nmt bench` on the Multi30k 2016 test set (1,000
# English sentences) at beam 1 and 5, batch 1 and 32, on 2 threads.
#
#   tools/bench_decode.sh [DATA_DIR [MODEL]]
#
# DATA_DIR defaults to ../shared/data next to the source tree. Without MODEL,
# the default architecture is built with random weights: a joint 8,000-piece
# SentencePiece vocabulary on multi30k train.en + train.fr, 256-d embeddings,
# a 2-layer GRU encoder of 256 per direction (the first layer bidirectional),
# a GRU decoder of 512 and additive attention. The vocabulary and model are
# cached next to the binary (bench-cache/) and rebuilt only when missing.
# The binary: $NMT, else build/nmt in the source tree, else nmt on the PATH.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA_DIR=${1:-$ROOT/../shared/data}
MODEL=${2:-}
THREADS=${THREADS:-2}

if [[ -z "${NMT:-}" ]]; then
    if [[ -x "$ROOT/build/nmt" ]]; then NMT=$ROOT/build/nmt; else NMT=$(command -v nmt || true); fi
fi
[[ -n "$NMT" && -x "$NMT" ]] || { echo "bench_decode: no nmt binary: set NMT=/path/to/nmt" >&2; exit 1; }
TEST_SET=$DATA_DIR/multi30k/test_2016_flickr.en
[[ -f "$TEST_SET" ]] || { echo "bench_decode: $TEST_SET not found (give DATA_DIR)" >&2; exit 1; }

if [[ -z "$MODEL" ]]; then
    CACHE=${NMT_BENCH_CACHE:-$(dirname "$NMT")/bench-cache}
    mkdir -p "$CACHE"
    VOCAB=$CACHE/multi30k-enfr-8000
    if [[ ! -f "$VOCAB.model" ]]; then
        echo "building the vocabulary: $VOCAB.model" >&2
        "$NMT" vocab -i "$DATA_DIR/multi30k/train.en" "$DATA_DIR/multi30k/train.fr" --joint --size 8000 -o "$VOCAB"
    fi
    MODEL=$CACHE/random-default.nmt
    if [[ ! -f "$MODEL" || "$VOCAB.model" -nt "$MODEL" ]]; then
        echo "building the model: $MODEL" >&2
        "$NMT" init --vocab "$VOCAB.model" --dim-emb 256 --enc-cell gru --enc-depth 2 --dim-rnn 256 \
            --dec-cell gru --dim-dec 512 --attention additive --dim-attention 256 --seed 1 \
            --source-lang en --target-lang fr -o "$MODEL"
    fi
    RANDOM_WEIGHTS=yes
fi

cores=$(nproc)
load=$(cut -d ' ' -f 1 /proc/loadavg)
echo "machine: $cores cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), load average $load"
if awk -v load="$load" -v cores="$cores" 'BEGIN { exit !(load > cores / 2) }'; then
    # OpenMP threads spin while they wait for each other; when other processes
    # hold the cores, a spinning thread waits for a descheduled one and a run
    # can be 10x slower (measured at load 7 on 2 cores, 2 threads, beam 1,
    # batch 1: 63 target tokens/s, and 831 with OMP_WAIT_POLICY=passive).
    echo "warning: load average $load on $cores cores: other processes compete for the CPUs, so these" \
        "figures will be low and unstable; rerun on an idle machine (OMP_WAIT_POLICY=passive softens it)." >&2
fi
echo "nmt:     $("$NMT" --version)"
"$NMT" info "$MODEL" | grep -E '^(parameters|vocabulary|encoder|decoder):'
echo
"$NMT" bench -m "$MODEL" -i "$TEST_SET" --beam-sizes 1,5 --batch-sizes 1,32 --threads "$THREADS"
if [[ "${RANDOM_WEIGHTS:-}" == yes ]] || "$NMT" info --json "$MODEL" | grep -q '"trained": false'; then
    cat <<'EOF'

Caveat: this model has random weights. It rarely predicts the end of a
sentence, so almost every output runs to the maximum length (2 x source
pieces + 5): sentences/s is far below what a trained model reaches, and only
target tokens/s is comparable with a trained model's figures.
EOF
fi
