#!/usr/bin/env bash
# Data-parallel nmt train under mpirun (an MPI build only: CMakeLists.txt
# registers tests/mpi/ with -DNMT_MPI=ON):
#  - 2 ranks train what 1 process trains: the same loss at every step up to
#    float summation order, dropout on, and the same translations;
#  - ranks started with other options are refused, naming the rank;
#  - a rank killed with SIGKILL ends the job (no hang), and --resume then
#    continues exactly: the run ends where an uninterrupted 2-rank run ends;
#  - a rank that stops answering makes the others give up after --mpi-timeout.
# Usage: train_two_ranks.sh NMT_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"
cli_test_setup "$@"
cd "$TMP"
command -v mpirun >/dev/null || fail "mpirun is missing (apt install openmpi-bin)"
# Containers run tests as root, which Open MPI refuses unless told; and a
# container's shared memory may not allow the single-copy mechanism.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
ranks() { timeout --kill-after=5 120 mpirun --oversubscribe -np "$@"; }

make_reverse_task 5 20
nmt vocab -i train.src train.tgt --joint --size 16 -o spm 2>/dev/null
steps=80
args=(--vocab spm.model --train-source train.src --train-target train.tgt
      --valid-source valid.src --valid-target valid.tgt --valid-beam 2 --valid-every 40
      --dim-emb 16 --dim-rnn 16 --dim-dec 32 --dim-attention 16 --enc-depth 2 --dec-style conditional
      --lexical-model --dropout-rnn 0.1 --dropout-src 0.1
      --batch-tokens 160 --lr 0.01 --warmup 20 --seed 3 --threads 1 --disp-freq 1 --save-every 20 --quiet)

# The loss of every step, one per line.
losses() { python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "progress": print(r["step"], repr(r["loss"]))' "$1"; }

nmt train "${args[@]}" --max-steps $steps -o one.nmt
ranks 2 "$NMT" train "${args[@]}" --max-steps $steps -o two.nmt 2>two.err || fail "2 ranks: $(cat two.err)"
grep -q '"ranks":2' two.nmt.log.jsonl || fail "the 2-rank run's log does not say it ran on 2 ranks"
python3 - <(losses one.nmt.log.jsonl) <(losses two.nmt.log.jsonl) <<'PY' || fail "1 and 2 ranks trained differently"
import sys
one = [l.split() for l in open(sys.argv[1])]
two = [l.split() for l in open(sys.argv[2])]
assert len(one) == len(two) == 80, (len(one), len(two))
worst = max(abs(float(a[1]) - float(b[1])) / float(a[1]) for a, b in zip(one, two))
assert worst < 1e-3, f"losses differ by up to {worst:.2e} (relative)"
print(f"80 steps, losses within {worst:.1e} (relative) of the single process's")
PY
nmt translate -m one.nmt -i valid.src -q >one.out
nmt translate -m two.nmt -i valid.src -q >two.out
cmp -s one.out two.out || fail "1 and 2 ranks translate differently: $(diff one.out two.out | head -5)"
[[ $(cat one.out) != $(cat valid.src) ]] || fail "the test task translates to its own input"

# Resuming on another number of ranks continues the same run: 3 ranks take
# the 2-rank run on to step 120 as the single process goes on alone.
nmt train "${args[@]}" --max-steps 120 -o one.nmt --resume
ranks 3 "$NMT" train "${args[@]}" --max-steps 120 -o two.nmt --resume 2>three.err || fail "3 ranks: $(cat three.err)"
python3 - <(losses one.nmt.log.jsonl) <(losses two.nmt.log.jsonl) <<'PY' || fail "resumed on 3 ranks, the run changed"
import sys
one = [l.split() for l in open(sys.argv[1])]
three = [l.split() for l in open(sys.argv[2])]
assert [a[0] for a in one] == [b[0] for b in three] and len(one) == 120, "the steps differ"
worst = max(abs(float(a[1]) - float(b[1])) / float(a[1]) for a, b in zip(one, three))
assert worst < 1e-3, f"losses differ by up to {worst:.2e} (relative)"
PY

# Ranks started with other options (an MPMD command line) are refused.
status=0
timeout --kill-after=5 60 mpirun --oversubscribe -np 1 "$NMT" train "${args[@]}" --max-steps 5 -o mixed.nmt : \
    -np 1 "$NMT" train "${args[@]}" --max-steps 5 --lr 0.02 -o mixed.nmt 2>mixed.err || status=$?
((status != 0 && status != 124)) || fail "ranks with different options: expected a refusal, got status $status"
grep -q "rank 1 started with other options" mixed.err || fail "the refusal does not name rank 1: $(cat mixed.err)"
[[ ! -e mixed.nmt ]] || fail "refused ranks wrote a model"

# The PID of rank RANK of the job training OUTPUT.
rank_pid() {
    local p
    for p in $(pgrep -f -- "-o $2( |$)"); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && { echo "$p"; return; }
    done
}
wait_for_step() {  # LOG STEP
    for _ in $(seq 1 1200); do
        grep '"type":"progress"' "$1" 2>/dev/null | grep -q "\"step\":$2[,}]" && return
        sleep 0.05
    done
    fail "no progress at step $2 in $1"
}

# A rank killed with SIGKILL: mpirun ends the job, and --resume continues exactly.
long=300
ranks 2 "$NMT" train "${args[@]}" --max-steps $long -o straight.nmt 2>straight.err || fail "$(cat straight.err)"
ranks 2 "$NMT" train "${args[@]}" --max-steps $long -o killed.nmt 2>killed.err &
job=$!
wait_for_step killed.nmt.log.jsonl 50
victim=$(rank_pid 1 killed.nmt)
[[ -n $victim ]] || fail "could not find rank 1 of the running job"
kill -9 "$victim"
status=0
wait $job || status=$?
((status != 0 && status != 124)) || fail "killing rank 1: expected mpirun to fail, got status $status"
grep '"type":"progress"' killed.nmt.log.jsonl | grep -q '"step":'$long'[,}]' && fail "the run finished before rank 1 was killed"
ranks 2 "$NMT" train "${args[@]}" --max-steps $long -o killed.nmt --resume 2>resumed.err || fail "$(cat resumed.err)"
expect_eq "the resumed run's last step" "$(losses straight.nmt.log.jsonl | tail -1)" "$(losses killed.nmt.log.jsonl | tail -1)"

# A rank that stops answering: the others give up after --mpi-timeout.
ranks 2 "$NMT" train "${args[@]}" --max-steps 100000 --mpi-timeout 3 -o stalled.nmt 2>stalled.err &
job=$!
wait_for_step stalled.nmt.log.jsonl 5
victim=$(rank_pid 1 stalled.nmt)
[[ -n $victim ]] || fail "could not find rank 1 of the running job"
kill -STOP "$victim"
status=0
wait $job || status=$?
kill -9 "$victim" 2>/dev/null || true
((status != 0 && status != 124)) || fail "a stopped rank: expected the job to fail within the timeout, got status $status"
grep -q "rank 0 of 2: waited [0-9]* s for .* and the other ranks did not answer" stalled.err ||
    fail "the timeout's message is missing: $(cat stalled.err)"
echo "ok: 2 ranks train as 1 process; mixed options refused; a killed rank ends the job and --resume continues exactly; a stopped rank times out"
