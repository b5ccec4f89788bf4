#!/usr/bin/env bash
# nmt train --guided-alignment: the attention follows the alignments it is
# given. On the reverse task attention learns the anti-diagonal by itself;
# guided towards the (wrong) diagonal instead, `nmt align` on the trained
# model must give the diagonal. Bad alignment files are refused with one line.
# Usage: train_guided_alignment.sh NMT_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
cd "$TMP"

make_reverse_task 11 50
nmt vocab -i train.src train.tgt --joint --size 16 -o spm 2>/dev/null
# Letters are words here: link i-i (the diagonal) and i-(n-1-i) (the truth).
awk '{ s = ""; for (i = 0; i < NF; i++) s = s (i ? " " : "") i "-" i; print s }' train.src >diagonal.align
awk '{ s = ""; for (i = 0; i < NF; i++) s = s (i ? " " : "") i "-" (NF - 1 - i); print s }' train.src >reversed.align
head -n 50 diagonal.align >valid-diagonal.align
head -n 50 reversed.align >valid-reversed.align
args=(--vocab spm.model --train-source train.src --train-target train.tgt
      --dim-emb 16 --dim-rnn 16 --dim-dec 32 --dim-attention 16 --enc-depth 1
      --batch-tokens 160 --lr 0.01 --warmup 20 --seed 3 --threads 1 --max-steps 400 --save-every 0 --quiet)
nmt train "${args[@]}" -o free.nmt
nmt train "${args[@]}" --guided-alignment diagonal.align --guided-alignment-weight 1 -o guided.nmt
grep -q '"guided_alignment_weight":1' guided.nmt.log.jsonl || fail "the log does not record the guidance"

# AER of each model's alignments against each reading.
aer() { nmt align -m "$1" -i valid.src -r valid.tgt >"$1.align" &&
        nmt score --aer -r "$2" -i "$1.align" | grep -o 'AER = [0-9.]*' | grep -o '[0-9.]*$'; }
free_true=$(aer free.nmt valid-reversed.align)
free_diagonal=$(aer free.nmt valid-diagonal.align)
guided_diagonal=$(aer guided.nmt valid-diagonal.align)
echo "AER: unguided against the reversal $free_true, against the diagonal $free_diagonal; guided against the diagonal $guided_diagonal"
python3 - "$free_true" "$free_diagonal" "$guided_diagonal" <<'PY' || fail "guided alignment did not steer the attention"
import sys
free_true, free_diagonal, guided_diagonal = map(float, sys.argv[1:])
assert free_true < free_diagonal, "unguided attention should lean to the reversal"
assert free_diagonal > 50, "unguided attention already follows the diagonal: the test shows nothing"
assert guided_diagonal < 5, "guided attention does not follow the diagonal"
PY

# Bad files: one line naming the file and the line.
head -n 10 diagonal.align >short.align
expect_one_error "an alignment file with too few lines" "short.align" \
    nmt train "${args[@]}" --guided-alignment short.align -o bad.nmt
expect_error_names "an alignment file with too few lines" "10 lines"
sed '3s/.*/0-0 9-0/' diagonal.align >past.align
expect_one_error "a link past the sentence" "past.align line 3" \
    nmt train "${args[@]}" --guided-alignment past.align -o bad.nmt
[[ ! -e bad.nmt ]] || fail "a refused run wrote a model"
echo "ok: guided alignment makes attention follow the given links; bad alignment files refused"
