#!/usr/bin/env bash
# nmt train: a run killed with SIGKILL, or stopped with SIGTERM, and continued
# with --resume ends exactly where an uninterrupted run ends (same data order,
# same dropout masks, same optimiser state): its last progress record and
# final step match.
# Usage: train_resume.sh NMT_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
nmt=$1
work=$(mktemp -d)
trap 'kill -9 $pid 2>/dev/null || true; rm -rf "$work"' EXIT
pid=
cd "$work"

make_reverse_task 7 20
"$nmt" vocab -i train.src train.tgt --joint --size 16 -o spm 2>/dev/null

steps=300
args=(--vocab spm.model --train-source train.src --train-target train.tgt
      --valid-source valid.src --valid-target valid.tgt --valid-beam 2 --valid-every 150
      --dim-emb 16 --dim-rnn 16 --dim-dec 32 --dim-attention 16 --enc-depth 1
      --batch-tokens 160 --lr 0.01 --warmup 20 --seed 3 --threads 2
      --disp-freq 10 --save-every 25 --max-steps $steps --quiet)
train() { "$nmt" train "${args[@]}" "$@"; }

train -o straight.nmt

# Waits until the run writing LOG has logged progress at STEP (or has ended).
wait_for_step() {
    for _ in $(seq 1 600); do
        grep '"type":"progress"' "$1" 2>/dev/null | grep -q "\"step\":$2[,}]" && break
        kill -0 $pid 2>/dev/null || break
        sleep 0.05
    done
}

# Kills the running $pid without warning; fails if it has already ended.
kill_running() {
    if ! kill -9 $pid 2>/dev/null; then
        echo "FAIL: $1 finished before it could be killed (too fast to test resuming)" >&2
        exit 1
    fi
    wait $pid 2>/dev/null || true
    pid=
}

"$nmt" train "${args[@]}" -o killed.nmt &  # not through the function: $! must be nmt itself
pid=$!
# Wait until it is past its second checkpoint (step 50), then kill it without
# warning: the resumed run must redo the steps after the checkpoint identically.
wait_for_step killed.nmt.log.jsonl 60
# Freeze it there (it keeps its lock): a run this small would otherwise reach
# its last step while the check below starts another process.
kill -STOP $pid 2>/dev/null || true
# While it runs, a second run on the same files is refused before it writes
# anything (both would write the same checkpoint and logs).
if train -o killed.nmt --resume 2>second.err; then echo "FAIL: a second run on a busy checkpoint started" >&2; exit 1; fi
grep -q "in use by another running process" second.err
kill_running "the run"
test -f killed.nmt.checkpoint
killed_at=$(grep '"type":"progress"' killed.nmt.log.jsonl | tail -n 1 | grep -o '"step":[0-9]*' | cut -d: -f2)
echo "killed after step $killed_at of $steps"
test "$killed_at" -lt $steps

# Without --resume an existing checkpoint is refused rather than overwritten.
if train -o killed.nmt 2>err.txt; then echo "FAIL: started over an existing checkpoint" >&2; exit 1; fi
grep -q -- "--resume" err.txt

# Resume with the same options read from a JSON config file, which shows
# --config applies them: any difference would change the numbers compared below.
cat > run.json <<JSON
{"vocab": "spm.model", "train-source": "train.src", "train-target": "train.tgt",
 "valid-source": "valid.src", "valid-target": "valid.tgt", "valid-beam": 2, "valid-every": 150,
 "dim-emb": 16, "dim-rnn": 16, "dim-dec": 32, "dim-attention": 16, "enc-depth": 1,
 "batch-tokens": 160, "lr": 0.01, "warmup": 20, "seed": 3, "threads": 2,
 "disp-freq": 10, "save-every": 25, "max-steps": $steps, "quiet": true, "resume": true,
 "lr-decay": "invsqrt", "max-time": "1h", "storage": "f32"}
JSON
"$nmt" train --config run.json -o killed.nmt
grep -q '"type":"resume"' killed.nmt.log.jsonl
# The settings parsed from text (a choice, a duration) reach the run from the file too.
grep '"type":"resume"' killed.nmt.log.jsonl | grep -q '"max_time":3600' ||
    { echo "FAIL: --config's max-time did not reach the run: $(grep '"type":"resume"' killed.nmt.log.jsonl)" >&2; exit 1; }

# Compare the records of the final step, without the wall-clock fields.
final() {
    grep "\"type\":\"$2\"" "$1" | grep "\"step\":$steps[,}]" | tail -n 1 |
        sed -E 's/"(elapsed_seconds|remaining_seconds|tokens_per_second|seconds)":[^,}]*,?//g'
}
# The resumed run LOG must end with the uninterrupted run's records (those
# of straight.nmt, or of REFERENCE_LOG).
expect_same_end() {
    for type in progress validation end; do
        a=$(final "${3:-straight.nmt.log.jsonl}" $type)
        b=$(final "$1" $type)
        if [ -z "$a" ] || [ "$a" != "$b" ]; then
            echo "FAIL: $2: the $type records at step $steps differ" >&2
            echo "  uninterrupted: $a" >&2
            echo "  resumed:       $b" >&2
            exit 1
        fi
    done
}
expect_same_end killed.nmt.log.jsonl "after kill -9 and --resume"
echo "$a"

# SIGTERM (or Ctrl-C) stops gracefully: the step in progress finishes, a
# checkpoint is written at that step (not only at the last --save-every), the
# exit status is 1 with a message saying how to continue, and the continued
# run again ends exactly as the uninterrupted one.
"$nmt" train "${args[@]}" -o stopped.nmt 2>stopped.err &
pid=$!
wait_for_step stopped.nmt.log.jsonl 30
kill -TERM $pid
status=0
wait $pid || status=$?
pid=
if [ "$status" -ne 1 ]; then echo "FAIL: SIGTERM: exit status $status, expected 1" >&2; cat stopped.err >&2; exit 1; fi
grep -q "interrupted; continue with --resume" stopped.err
stopped_at=$(grep '"type":"end"' stopped.nmt.log.jsonl | grep -o '"step":[0-9]*' | cut -d: -f2)
saved_at=$(grep '"type":"checkpoint"' stopped.nmt.log.jsonl | tail -n 1 | grep -o '"step":[0-9]*' | cut -d: -f2)
echo "stopped by SIGTERM at step $stopped_at, checkpoint at step $saved_at"
if [ "$saved_at" != "$stopped_at" ] || [ "$stopped_at" -ge $steps ]; then
    echo "FAIL: SIGTERM: the checkpoint should be at the step it stopped at, before step $steps" >&2; exit 1
fi
train -o stopped.nmt --resume
expect_same_end stopped.nmt.log.jsonl "after SIGTERM and --resume"

# Subword sampling (--sentencepiece-alphas) draws each epoch's segmentations
# from (seed, epoch) alone: a killed and resumed run again ends as the
# uninterrupted one. The draws do change the training, and the model records them.
sampling=(--sentencepiece-alphas 0.5 --sentencepiece-nbest 8)
train -o sampled.nmt "${sampling[@]}"
if [ "$(final sampled.nmt.log.jsonl progress)" = "$(final straight.nmt.log.jsonl progress)" ]; then
    echo "FAIL: --sentencepiece-alphas did not change the training" >&2; exit 1
fi
"$nmt" info sampled.nmt --json >sampled.info
grep -q '"sentencepiece_alphas"' sampled.info
"$nmt" train "${args[@]}" "${sampling[@]}" -o sampled-killed.nmt &
pid=$!
wait_for_step sampled-killed.nmt.log.jsonl 60
kill -STOP $pid 2>/dev/null || true
kill_running "the sampled run"
train -o sampled-killed.nmt "${sampling[@]}" --resume
expect_same_end sampled-killed.nmt.log.jsonl "subword sampling, after kill -9 and --resume" sampled.nmt.log.jsonl
echo "subword sampling: the run killed at step $(grep '"type":"resume"' sampled-killed.nmt.log.jsonl | grep -o '"step":[0-9]*' | cut -d: -f2) and resumed matches"

# Both final models translate.
echo "a b c" | "$nmt" translate -m killed.nmt >/dev/null
echo "ok: resumed run matches the uninterrupted one at step $steps"
