#!/usr/bin/env bash
# nmt train's own files:
#  - --resume with a best model at -o that does not load (or is gone) saves it
#    again from the checkpoint when the checkpoint holds it (byte for byte the
#    model it replaces), and otherwise refuses, saying which step it holds;
#  - two runs writing one -o are refused even with different --checkpoint;
#  - a run that fails before its first step leaves no log and no lock file it
#    created, and leaves files that were there before as they were;
#  - --log naming a FIFO or device gets the text log; the JSON log goes
#    beside the model instead of to FIFO.jsonl.
# Usage: train_files.sh NMT_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
cd "$TMP"
first=
trap 'if [[ -n $first ]]; then kill -9 "$first" 2>/dev/null || true; fi; rm -rf "$TMP"' EXIT

make_reverse_task 9 20
nmt vocab -i train.src train.tgt --joint --size 16 -o spm 2>/dev/null
run=(--vocab spm.model --dim-emb 16 --dim-rnn 16 --dim-dec 32 --dim-attention 16 --enc-depth 1
     --train-source train.src --train-target train.tgt --valid-source valid.src --valid-target valid.tgt
     --valid-beam 2 --batch-tokens 160 --seed 3 --threads 1 --quiet --exponential-smoothing 0.01)

# The checkpoint is written at the best validation's step: it holds the best model.
nmt train "${run[@]}" --max-steps 3 --valid-every 3 -o best.nmt || fail "the run to step 3 failed"
good=$(sha256sum <best.nmt)
head -c 100 best.nmt >truncated && mv truncated best.nmt
nmt train "${run[@]}" --max-steps 3 --valid-every 3 -o best.nmt --resume 2>err.txt ||
    fail "--resume with a corrupt model the checkpoint holds failed: $(cat err.txt)"
expect_eq "the model saved again from the checkpoint" "$good" "$(sha256sum <best.nmt)"
grep -q "best.nmt does not load.*saved it again from the checkpoint" best.nmt.log ||
    fail "the log should say the model was saved again: $(tail -n 3 best.nmt.log)"
rm best.nmt
nmt train "${run[@]}" --max-steps 3 --valid-every 3 -o best.nmt --resume ||
    fail "--resume with the model gone, which the checkpoint holds, failed"
expect_eq "the model saved again after it was removed" "$good" "$(sha256sum <best.nmt)"

# The checkpoint is a step past the best validation: it cannot give the best model back.
nmt train "${run[@]}" --max-steps 4 --valid-every 3 -o later.nmt || fail "the run to step 4 failed"
printf 'not a model' >later.nmt
expect_one_error "--resume with a corrupt model the checkpoint does not hold" "later.nmt does not load" \
    nmt train "${run[@]}" --max-steps 4 --valid-every 3 -o later.nmt --resume
expect_error_names "--resume with a corrupt model the checkpoint does not hold" \
    "the checkpoint later.nmt.checkpoint cannot restore it: it holds step 4, the best model was step 3"
expect_eq "the corrupt model after the refusal" "not a model" "$(cat later.nmt)"

# Two runs, one -o, two checkpoints: the second is refused while the first trains.
"$NMT" train "${run[@]}" --max-steps 1000000 --max-time 120 --valid-every 0 -o shared.nmt --checkpoint one.ckpt \
    2>/dev/null &
first=$!  # nmt itself, not a shell function's subshell: SIGTERM must reach it
for _ in $(seq 1 600); do
    grep -q '"type":"start"' shared.nmt.log.jsonl 2>/dev/null && break
    kill -0 "$first" 2>/dev/null || fail "the first run on shared.nmt ended early"
    sleep 0.1
done
grep -q '"type":"start"' shared.nmt.log.jsonl || fail "the first run on shared.nmt did not start"
expect_one_error "a second run on the same -o" "the model shared.nmt is in use by another running process" \
    nmt train "${run[@]}" --max-steps 2 -o shared.nmt --checkpoint two.ckpt --overwrite
[[ ! -e two.ckpt && ! -e two.ckpt.lock ]] || fail "the refused run left its checkpoint or lock file"
[[ -e shared.nmt.lock ]] || fail "the refused run removed the first run's lock file"
kill -TERM "$first"
status=0
wait "$first" || status=$?
first=
((status == 1)) || fail "the first run on shared.nmt, stopped with SIGTERM, exited with $status"

# Start-up failures: nothing created is left; what was there stays.
expect_one_error "a run on a missing corpus" "missing.src" \
    nmt train "${run[@]}" --max-steps 2 --train-source missing.src -o fresh.nmt
leftovers=$(ls fresh.nmt* 2>/dev/null || true)
[[ -z $leftovers ]] || fail "a run that failed at start-up left: $leftovers"
echo "an earlier run's log" >kept.nmt.log
touch kept.nmt.lock
expect_one_error "a run with misaligned data" "train.src" \
    nmt train "${run[@]}" --max-steps 2 --train-target valid.tgt -o kept.nmt
expect_eq "an earlier log after a failed start" "an earlier run's log" "$(cat kept.nmt.log)"
[[ -e kept.nmt.lock ]] || fail "a failed start removed a lock file it did not create"
[[ ! -e kept.nmt.log.jsonl && ! -e kept.nmt.checkpoint.lock ]] || fail "a failed start left files it created"

# --log naming a FIFO (or /dev/null): the text log is written into it, and
# the JSON Lines log goes beside the model, not to FIFO.jsonl.
mkfifo log.fifo
cat log.fifo >fifo.txt &
nmt train "${run[@]}" --max-steps 2 -o fifo.nmt --log log.fifo || fail "a run with --log FIFO failed"
wait
[[ -p log.fifo && ! -e log.fifo.jsonl ]] || fail "--log FIFO should stay a FIFO and get no .jsonl beside it"
[[ -s fifo.nmt.log.jsonl ]] || fail "with --log FIFO the JSON Lines log should be fifo.nmt.log.jsonl"
grep -q "^validation at step 2:" fifo.txt || fail "the text log should have gone through the FIFO, got: $(cat fifo.txt)"

# Started as one of several ranks (mpirun's environment) or with --mpi, an
# nmt built without MPI refuses: each rank would train alone over the
# others' files. (An MPI build trains instead: tests/mpi/.)
if ! grep -q 'MPI' <<<"$("$NMT" --version)"; then
    OMPI_COMM_WORLD_SIZE=2 expect_one_error "a rank of mpirun without MPI" "built without MPI" \
        nmt train "${run[@]}" --max-steps 2 -o ranks.nmt
    expect_one_error "--mpi without MPI" "built without MPI" nmt train "${run[@]}" --max-steps 2 --mpi -o ranks.nmt
    [[ ! -e ranks.nmt && ! -e ranks.nmt.lock ]] || fail "a refused run as a rank left files"
fi

echo "ok: a corrupt model is restored from the checkpoint or refused; one -o, one run; failed starts leave nothing; --log FIFO; no ranks without MPI"
