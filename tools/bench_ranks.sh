#!/usr/bin/env bash
# Scaling of data-parallel training (an MPI build: cmake -DNMT_MPI=ON): trains
# the caption recipe's model (embeddings 256, GRU 2x256, conditional decoder
# 512, 8,000 joint pieces) on Multi30k en→fr for STEPS updates with 1, 2, …
# ranks of one thread each, the same total batch, and prints target tokens/s
# (after the first window, which pays for start-up), and rank 0's share of the
# time spent waiting for the slowest rank to finish its slice and summing the
# gradients (the transfer, which overlapping it with the backward pass could
# hide). Run it with nothing else on the machine.
#
# Usage: tools/bench_ranks.sh [NMT_BINARY] [DATA_DIR] [RANKS...]
#   defaults: build-mpi/nmt, ../shared/data, 1 2. STEPS (default 60),
#   BATCH_TOKENS (default 2000). Extra mpirun options: MPIRUN_FLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."
nmt=${1:-build-mpi/nmt}
data=${2:-../shared/data}
shift $(( $# < 2 ? $# : 2 ))
counts=("$@")
[[ ${#counts[@]} -gt 0 ]] || counts=(1 2)
steps=${STEPS:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive

printf '| ranks | target tokens/s | speed-up | waiting for the slowest rank | summing gradients |\n|---|---|---|---|---|\n'
for n in "${counts[@]}"; do
    # shellcheck disable=SC2086
    mpirun --oversubscribe -np "$n" ${MPIRUN_FLAGS:-} "$nmt" train --mpi \
        --vocab vocab/multi30k.en-fr.model --source-lang en --target-lang fr \
        --train-source "$data/multi30k/train.en" --train-target "$data/multi30k/train.fr" \
        --dec-style conditional --tied-embeddings-all --dim-emb 256 --dim-rnn 256 --dim-dec 512 \
        --batch-tokens "${BATCH_TOKENS:-2000}" --seed 1 --threads 1 --max-steps "$steps" \
        --disp-freq $((steps / 3)) --save-every 0 --quiet -o "$work/ranks$n.nmt" >/dev/null
    # The first window pays for start-up (reading the corpus, first touches).
    python3 - "$work/ranks$n.nmt.log.jsonl" "$n" "$work/base" <<'PY'
import json, os, sys
windows = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "progress"][1:]
tokens = sum(r["tokens"] for r in windows)
seconds = sum(r["tokens"] / r["tokens_per_second"] for r in windows)
waiting = sum(r.get("wait_seconds", 0) for r in windows)
summing = sum(r.get("sum_seconds", 0) for r in windows)
speed = tokens / seconds
if not os.path.exists(sys.argv[3]):
    open(sys.argv[3], "w").write(str(speed))
base = float(open(sys.argv[3]).read())
print(f"| {sys.argv[2]} | {speed:,.0f} | {speed / base:.2f}x | {100 * waiting / seconds:.1f}% | {100 * summing / seconds:.1f}% |")
PY
done
