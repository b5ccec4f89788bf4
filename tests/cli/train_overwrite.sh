#!/usr/bin/env bash
# nmt train never replaces a trained model silently: a new run whose -o
# exists (and no checkpoint continues it) is refused, naming the file and
# --overwrite, and the model is left as it was; --overwrite replaces it;
# --resume of a finished run's checkpoint still continues it.
# Usage: train_overwrite.sh NMT_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
cd "$TMP"

make_reverse_task 12 20
nmt vocab -i train.src train.tgt --joint --size 16 -o spm 2>/dev/null
run=(--vocab spm.model --dim-emb 16 --dim-rnn 16 --dim-dec 32 --dim-attention 16 --enc-depth 1
     --train-source train.src --train-target train.tgt --valid-source valid.src --valid-target valid.tgt
     --valid-beam 2 --batch-tokens 160 --seed 3 --threads 1 --quiet --max-steps 3 --valid-every 3)
nmt train "${run[@]}" -o model.nmt || fail "the first run failed"
rm model.nmt.checkpoint
before=$(sha256sum <model.nmt)

status=0
nmt train "${run[@]}" --seed 4 -o model.nmt 2>err.txt || status=$?
check_no_crash "a second run onto a trained model" "$status"
((status != 0)) || fail "a new run onto an existing model without --overwrite should fail"
grep -q "model.nmt exists" err.txt && grep -q -- "--overwrite" err.txt ||
    fail "the refusal should name the model and --overwrite, said: $(cat err.txt)"
expect_eq "the model after the refused run" "$before" "$(sha256sum <model.nmt)"

nmt train "${run[@]}" --seed 4 -o model.nmt --overwrite || fail "--overwrite should replace the model"
[[ "$(sha256sum <model.nmt)" != "$before" ]] || fail "--overwrite with another seed should have written a new model"
nmt train "${run[@]}" --seed 4 -o model.nmt --resume --max-steps 4 || fail "--resume of the checkpoint should continue"
echo "ok: a trained model is replaced only with --overwrite"
