#!/usr/bin/env bash
# nmt and a peer, side by side (issue 65): the same architecture written the
# usual PyTorch way (tools/torch_peer.py: Debian's python3-torch, the same
# joint 16,000-piece vocabulary and widths as models/en-fr.nmt), on the same
# sentences and the same threads, in one run:
#   decoding, beam 1/5 x batch 1/32: `nmt bench` against `torch_peer.py bench`;
#   training, target tokens/s of forward + backward + Adam at ~2,000-token
#   batches: `nmt bench --train-target` against `torch_peer.py train`;
# then a table of sentences/s (tokens/s for training) and the ratio nmt/peer.
#
#   tools/peer_bench.sh [MODEL [INPUT [LINES [THREADS]]]]
#
# MODEL    nmt model (default models/en-fr.nmt); the peer is English->French on
#          vocab/general.en-fr.model, so MODEL must be an en-fr model of the
#          general vocabulary for the comparison to mean anything.
# INPUT    source sentences (default runs/data/general.en-fr/tatoeba.test.en).
#          LINES of them, spread evenly over the file, are used (the Tatoeba
#          test set is sorted by length: its first lines are 3-word ones).
# LINES    default 300.  THREADS: default 2, for both.
# Knobs (environment): TRAIN_STEPS (20), PROBE_TRAIN_STEPS (2), PROBE_TIMEOUT
# (180 s), PEER_FREE_LENGTHS=1, PEER_DIR, PEER_PYTHON, NMT, TRAIN_SOURCE/TARGET.
# The binary: $NMT, else build/nmt, else nmt on the PATH. Training data
# (both sides): $TRAIN_SOURCE/$TRAIN_TARGET, default runs/data/general.en-fr/train.{en,fr}.
#
# The peer's weights: $PEER_DIR/peer.en-fr.pt (default runs/peer/), reused when
# there; otherwise trained first, from scratch, for $PEER_TRAIN_MINUTES (13.5)
# minutes so that its output lengths are realistic, with
#   /usr/bin/python3 tools/torch_peer.py train --threads THREADS --max-minutes 13.5 \
#       --lr 0.002 --warmup 30 --checkpoint runs/peer/peer.en-fr.pt
# Speed does not depend on the weights except through output lengths, and
# those are pinned: a peer trained for minutes says "J'est." for every line
# (3-4 pieces where nmt writes 10), which would flatter its speed, so each
# line's output is held to the length of nmt's translation of it at the same
# beam size (EOS forbidden before, taken after: exactly the decoder steps nmt
# took; torch_peer.py bench --target-lengths). PEER_FREE_LENGTHS=1 lets the
# peer stop where its own weights say instead.
#
# The peer runs in its fastest setting, chosen here on this machine: the
# script times a small workload (torch_peer.py probe) under each BLAS that
# Debian offers (OpenBLAS built for OpenMP or for pthreads, and the reference
# BLAS only if there is no OpenBLAS) and each OMP_WAIT_POLICY (active,
# passive), and keeps the fastest for decoding and, separately, for training.
# Always: torch.set_num_threads(THREADS), set_num_interop_threads(1).
# Measured while writing this (2 shared, busy cores, AMD EPYC, numbers rough;
# one GRUCell 64x384->768 step / a 64x768 by 768x2304 Linear):
#   reference BLAS (Debian's default before `setup-debian.sh peer`): 192 / 125 ms
#   OpenBLAS pthread, 1 thread: 10.2 / 5.7 ms; OpenBLAS OpenMP, 1 thread: 8.3 / 4.6 ms
#   2 threads, OMP_WAIT_POLICY active: 132-139 / 16-21 ms (spinning threads
#   on a busy machine); passive: 9.4-9.7 / 4.3-5.5 ms.
# The probe itself (1 thread, 8 Tatoeba lines, same busy machine): decode
# 1.98 / 2.32 s and train 331 / 313 target tokens/s with OpenBLAS OpenMP
# (active / passive), 2.99 / 3.02 s and 248 / 282 with OpenBLAS pthread.
# So the reference BLAS is ~20x slower (the peer must not run on it), and the
# wait policy matters a lot when the cores are shared; on a quiet machine
# active may win, hence the probe. Not tried: torch.jit.script (not the usual
# way to write such a model) and torch.backends.mkldnn (in torch 1.13 it
# serves convolutions, not nn.GRU/nn.Linear in fp32).
#
# Needs: python3-torch, python3-sentencepiece, libopenblas0-openmp and
# libopenblas0-pthread (tools/setup-debian.sh peer). Takes about 5-8 minutes
# with an existing checkpoint on a 2-core machine (the probe ~1.5, the peer's
# decoding ~2, its 22 training steps ~1; 13.5 more to train a checkpoint).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODEL=${1:-$ROOT/models/en-fr.nmt}
INPUT=${2:-$ROOT/runs/data/general.en-fr/tatoeba.test.en}
LINES=${3:-300}
THREADS=${4:-2}
TRAIN_SOURCE=${TRAIN_SOURCE:-$ROOT/runs/data/general.en-fr/train.en}
TRAIN_TARGET=${TRAIN_TARGET:-$ROOT/runs/data/general.en-fr/train.fr}
PEER_DIR=${PEER_DIR:-$ROOT/runs/peer}
PEER_TRAIN_MINUTES=${PEER_TRAIN_MINUTES:-13.5}
TRAIN_STEPS=${TRAIN_STEPS:-20}   # timed training steps, after two warm-up ones (nmt bench's default)
PROBE_TRAIN_STEPS=${PROBE_TRAIN_STEPS:-2}  # the same, for each setting the probe tries
CHECKPOINT=$PEER_DIR/peer.en-fr.pt
VOCAB=$ROOT/vocab/general.en-fr.model
# Debian's interpreter: python3-torch lives there, not in a pyenv or venv python.
PY=${PEER_PYTHON:-/usr/bin/python3}
PEER=("$PY" "$ROOT/tools/torch_peer.py")

if [[ -z "${NMT:-}" ]]; then
    if [[ -x "$ROOT/build/nmt" ]]; then NMT=$ROOT/build/nmt; else NMT=$(command -v nmt || true); fi
fi
[[ -n "$NMT" && -x "$NMT" ]] || { echo "peer_bench: no nmt binary: set NMT=/path/to/nmt" >&2; exit 1; }
for f in "$MODEL" "$INPUT" "$TRAIN_SOURCE" "$TRAIN_TARGET" "$VOCAB"; do
    [[ -f "$f" ]] || { echo "peer_bench: $f not found" >&2; exit 1; }
done
"$PY" -c 'import torch, sentencepiece' 2>/dev/null ||
    { echo "peer_bench: $PY lacks torch or sentencepiece (tools/setup-debian.sh peer)" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# LINES non-blank lines spread evenly over INPUT.
"$PY" - "$INPUT" "$LINES" > "$WORK/input.txt" <<'EOF'
import sys
lines = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines() if l.strip()]
n = min(int(sys.argv[2]), len(lines))
for i in range(n):
    print(lines[i * len(lines) // n])
EOF
N=$(wc -l < "$WORK/input.txt")

echo "CPU:     $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs online"
echo "nmt:     $NMT ($("$NMT" --version 2>/dev/null | head -1 || echo '?')), model $MODEL"
echo "peer:    torch $("$PY" -c 'import torch; print(torch.__version__)'), checkpoint $CHECKPOINT"
echo "input:   $N lines spread over $INPUT; threads: $THREADS"

# The BLAS builds the peer may use: OpenBLAS for OpenMP or pthreads, the
# reference BLAS only when there is no OpenBLAS.
BLAS_DIRS=()
for d in /usr/lib/x86_64-linux-gnu/openblas-openmp /usr/lib/x86_64-linux-gnu/openblas-pthread; do
    [[ -f $d/libblas.so.3 ]] && BLAS_DIRS+=("$d")
done
if [[ ${#BLAS_DIRS[@]} -eq 0 ]]; then
    echo "peer_bench: warning: no OpenBLAS (tools/setup-debian.sh peer): the peer runs on the reference BLAS" >&2
    BLAS_DIRS=(/usr/lib/x86_64-linux-gnu/blas)
fi

if [[ ! -f "$CHECKPOINT" ]]; then
    echo "training the peer from scratch for $PEER_TRAIN_MINUTES minutes (no $CHECKPOINT yet)..." >&2
    mkdir -p "$PEER_DIR"
    LD_LIBRARY_PATH=${BLAS_DIRS[0]} OMP_WAIT_POLICY=passive "${PEER[@]}" train --vocab "$VOCAB" \
        --checkpoint "$CHECKPOINT" --threads "$THREADS" --train-source "$TRAIN_SOURCE" --train-target "$TRAIN_TARGET" \
        --max-minutes "$PEER_TRAIN_MINUTES" --lr 0.002 --warmup 30 --disp-freq 50 > "$PEER_DIR/train.json"
fi

# nmt's translations at beam 1 and 5 (translate's defaults otherwise): the
# output lengths the peer is held to, in nmt's own pieces (--format jsonl's
# target_pieces: a search may choose a segmentation that re-encoding the text
# would not give, e.g. "Dis" "-" "moi" for "Dis-moi").
PIN=()
for beam in 1 5; do
    "$NMT" translate -m "$MODEL" -b "$beam" --threads "$THREADS" --format jsonl < "$WORK/input.txt" |
        "$PY" -c 'import json, sys
for line in sys.stdin:
    print(sum(p != "</s>" for p in json.loads(line)["target_pieces"]))' > "$WORK/nmt.beam$beam.lengths"
    [[ $(wc -l < "$WORK/nmt.beam$beam.lengths") -eq $N ]] ||
        { echo "peer_bench: nmt translate gave $(wc -l < "$WORK/nmt.beam$beam.lengths") lines for $N" >&2; exit 1; }
    [[ "${PEER_FREE_LENGTHS:-0}" == 1 ]] || PIN+=(--target-lengths "$beam=$WORK/nmt.beam$beam.lengths")
done

# The peer's fastest setting: every OpenBLAS build Debian installed (the
# reference BLAS only without one, BLAS_DIRS above) x OMP_WAIT_POLICY active/passive.
: > "$WORK/probe.jsonl"
for blas in "${BLAS_DIRS[@]}"; do
    for policy in active passive; do
        # A setting 10x slower than the others (spinning threads on a busy
        # machine) is dropped after PROBE_TIMEOUT seconds; any other failure stops the run.
        rc=0
        LD_LIBRARY_PATH=$blas OMP_WAIT_POLICY=$policy timeout "${PROBE_TIMEOUT:-180}" "${PEER[@]}" probe \
            --vocab "$VOCAB" --checkpoint "$CHECKPOINT" --threads "$THREADS" -i "$WORK/input.txt" \
            --train-source "$TRAIN_SOURCE" --train-target "$TRAIN_TARGET" --train-steps "$PROBE_TRAIN_STEPS" \
            ${PIN[@]+"${PIN[@]}"} > "$WORK/probe.one" || rc=$?
        if [[ $rc -eq 124 ]]; then
            echo "  probe: $blas OMP_WAIT_POLICY=$policy over ${PROBE_TIMEOUT:-180} s: dropped" >&2
            continue
        fi
        [[ $rc -eq 0 ]] || exit "$rc"
        "$PY" -c 'import json,sys; r=json.loads(open(sys.argv[2]).read()); r["blas_dir"]=sys.argv[1]; print(json.dumps(r))' \
            "$blas" "$WORK/probe.one" >> "$WORK/probe.jsonl"
    done
done
read -r DEC_BLAS DEC_POLICY TRAIN_BLAS TRAIN_POLICY < <("$PY" - "$WORK/probe.jsonl" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("probe (peer, small workload):", file=sys.stderr)
for r in rows:
    print(f"  {r['blas_dir']:45s} OMP_WAIT_POLICY={r['omp_wait_policy']:8s} decode {r['decode_seconds']:6.2f} s"
          f"  train {r['train_target_tokens_per_s']:7.0f} target tokens/s", file=sys.stderr)
d = min(rows, key=lambda r: r["decode_seconds"])
t = max(rows, key=lambda r: r["train_target_tokens_per_s"])
print(d["blas_dir"], d["omp_wait_policy"], t["blas_dir"], t["omp_wait_policy"])
EOF
)
[[ -n "${TRAIN_POLICY:-}" ]] || { echo "peer_bench: no peer setting could be measured" >&2; exit 1; }
echo "peer settings: decoding $DEC_BLAS OMP_WAIT_POLICY=$DEC_POLICY; training $TRAIN_BLAS OMP_WAIT_POLICY=$TRAIN_POLICY;" \
    "torch threads $THREADS, inter-op threads 1"

echo "decoding: nmt..." >&2
"$NMT" bench -m "$MODEL" -i "$WORK/input.txt" --beam-sizes 1,5 --batch-sizes 1,32 --precisions fp32,int8 \
    --threads "$THREADS" --json > "$WORK/nmt_decode.jsonl"
echo "decoding: peer..." >&2
LD_LIBRARY_PATH=$DEC_BLAS OMP_WAIT_POLICY=$DEC_POLICY "${PEER[@]}" bench --vocab "$VOCAB" --checkpoint "$CHECKPOINT" \
    --threads "$THREADS" -i "$WORK/input.txt" --beam-sizes 1,5 --batch-sizes 1,32 ${PIN[@]+"${PIN[@]}"} \
    > "$WORK/peer_decode.jsonl"
echo "training: nmt..." >&2
"$NMT" bench -m "$MODEL" -i "$TRAIN_SOURCE" --train-target "$TRAIN_TARGET" --batch-tokens 2000 \
    --steps "$TRAIN_STEPS" --threads "$THREADS" --json > "$WORK/nmt_train.jsonl"
echo "training: peer..." >&2
# TRAIN_STEPS timed steps after 2 warm-up ones, as nmt bench; fresh weights, nothing saved.
LD_LIBRARY_PATH=$TRAIN_BLAS OMP_WAIT_POLICY=$TRAIN_POLICY "${PEER[@]}" train --vocab "$VOCAB" --no-save \
    --threads "$THREADS" --train-source "$TRAIN_SOURCE" --train-target "$TRAIN_TARGET" --batch-tokens 2000 \
    --max-steps $((TRAIN_STEPS + 2)) --disp-freq 1000 > "$WORK/peer_train.jsonl"

# nmt translate's default precision: int8 where oneDNN's int8 kernels run in
# AVX2 or wider vectors (lib/core/int8_gemm.cpp int8_has_avx2), else fp32.
if grep -qw avx2 /proc/cpuinfo; then DEFAULT_PRECISION=int8; else DEFAULT_PRECISION=fp32; fi

"$PY" - "$WORK" "$DEFAULT_PRECISION" <<'EOF'
import json, os, sys
work, default = sys.argv[1], sys.argv[2]
load = lambda name: [json.loads(l) for l in open(os.path.join(work, name)) if l.strip()]
nmt, peer = load("nmt_decode.jsonl"), load("peer_decode.jsonl")
nmt_train, peer_train = load("nmt_train.jsonl")[0], load("peer_train.jsonl")[0]
targets = {(5, 32): 8, (5, 1): 8, (1, 32): 5}  # issue 65: nmt at least this many times the peer
# nmt translate uses the model's shortlist when it has one.
shortlisted = any(r["shortlist"] for r in nmt)
precisions = [default] + sorted({r["precision"] for r in nmt} - {default})
print()
print(f"decoding, {peer[0]['sentences']} sentences, {nmt[0]['threads']} threads "
      f"(nmt translate's default on this CPU: {default}{' + shortlist' if shortlisted else ''})")
print("(pieces: output pieces, EOS included, as nmt bench counts them)")
print(f"{'setting':28s} {'nmt sent/s':>11s} {'peer sent/s':>12s} {'ratio':>7s}  {'target':>8s}  "
      f"{'nmt tok/s':>9s} {'peer tok/s':>10s} {'nmt pieces':>10s} {'peer pieces':>11s}")
failed = []
for precision in precisions:
    for sl in sorted({r["shortlist"] for r in nmt}, reverse=True):
        is_default = precision == default and sl == shortlisted
        for p in peer:
            n = next(r for r in nmt if r["precision"] == precision and r["shortlist"] == sl
                     and r["beam"] == p["beam"] and r["batch"] == p["batch"])
            ratio = n["sentences_per_s"] / p["sentences_per_s"]
            target = targets.get((p["beam"], p["batch"])) if is_default else None
            mark = "" if target is None else f">={target}x " + ("ok" if ratio >= target else "SHORT")
            if target is not None and ratio < target:
                failed.append(f"beam {p['beam']} batch {p['batch']}")
            name = f"beam {p['beam']} batch {p['batch']:<2d} {precision}{'+sl' if sl else ''}{' *' if is_default else ''}"
            print(f"{name:28s} {n['sentences_per_s']:11.1f} {p['sentences_per_s']:12.1f} {ratio:6.1f}x  {mark:>8s}  "
                  f"{n['target_tokens_per_s']:9.0f} {p['target_tokens_per_s']:10.0f} "
                  f"{round(n['target_tokens_per_s'] * n['seconds']):10d} {p['target_tokens']:11d}")
print("(* nmt's default path, which the targets apply to; the peer's output lengths "
      + ("pinned to nmt's default path's" if all(p["pinned_lengths"] for p in peer) else "its own") + ")")
ratio = nmt_train["target_tokens_per_s"] / peer_train["target_tokens_per_s"]
print()
print(f"training, ~2,000-token batches, {nmt_train['threads']} threads: nmt {nmt_train['target_tokens_per_s']:.0f}, "
      f"peer {peer_train['target_tokens_per_s']:.0f} target tokens/s: {ratio:.1f}x (target >=4x "
      f"{'ok' if ratio >= 4 else 'SHORT'})")
if ratio < 4:
    failed.append("training")
print()
print("below issue 65's targets: " + ", ".join(failed) if failed else "all of issue 65's targets met")
EOF
