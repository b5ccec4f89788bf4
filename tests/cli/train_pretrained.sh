#!/usr/bin/env bash
# nmt train --pretrained-model: a new run starts from a trained model's
# weights (its first validation scores what the model scores, where a fresh
# model scores nothing), with the model's architecture and vocabulary, and
# records which model it started from; other vocabularies are refused and
# other architecture options are reported as ignored; --resume continues the
# checkpoint's run, with a warning when --pretrained-model names another model.
# Usage: train_pretrained.sh NMT_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
cd "$TMP"

make_reverse_task 11 40
nmt vocab -i train.src train.tgt --joint --size 16 -o spm 2>/dev/null
head -n 100 train.src >other.txt
nmt vocab -i other.txt --size 14 -o other 2>/dev/null
cmp -s spm.model other.model && fail "the two vocabularies should differ"

common=(--train-source train.src --train-target train.tgt --valid-source valid.src --valid-target valid.tgt
        --valid-beam 2 --batch-tokens 160 --seed 3 --threads 1 --quiet)
arch=(--dim-emb 16 --dim-rnn 16 --dim-dec 32 --dim-attention 16 --enc-depth 1)
nmt train --vocab spm.model "${arch[@]}" "${common[@]}" --lr 0.01 --warmup 20 --valid-every 400 --max-steps 400 \
    -o trained.nmt
nmt convert trained.nmt -o tuned.nmt --length-penalty 1.3 --tuned-on valid >/dev/null

# BLEU of the first validation in LOG.jsonl.
first_bleu() {
    python3 -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "validation":
        print("%.2f" % r["bleu"]); break' "$1"
}
trained_bleu=$(first_bleu trained.nmt.log.jsonl)
python3 -c "import sys; sys.exit(float('$trained_bleu') < 50)" ||
    fail "the toy model did not learn (val BLEU $trained_bleu): nothing to start from"

# Two steps at a tiny learning rate leave the weights as they were: the run
# scores what the trained model scores, a fresh model far less.
gentle=("${common[@]}" --lr 1e-9 --warmup 1 --valid-every 2)
short=("${gentle[@]}" --max-steps 2)
nmt train --pretrained-model tuned.nmt "${short[@]}" -o tuned-more.nmt 2>/dev/null
nmt train --vocab spm.model "${arch[@]}" "${short[@]}" -o fresh.nmt
pretrained_bleu=$(first_bleu tuned-more.nmt.log.jsonl)
fresh_bleu=$(first_bleu fresh.nmt.log.jsonl)
echo "val BLEU: trained $trained_bleu, continued from it $pretrained_bleu, fresh $fresh_bleu"
python3 -c "import sys; sys.exit(abs($pretrained_bleu - $trained_bleu) > 1 or $fresh_bleu > $trained_bleu - 20)" ||
    fail "the run did not start from the pretrained weights"

# Resuming continues the checkpoint's run: the same --pretrained-model
# silently, another one with a warning.
nmt train --pretrained-model tuned.nmt "${gentle[@]}" -o tuned-more.nmt --max-steps 4 --resume 2>/dev/null
grep -q "did not start from" tuned-more.nmt.log && fail "a resumed run warned about its own pretrained model"
nmt train --pretrained-model trained.nmt "${gentle[@]}" -o tuned-more.nmt --max-steps 6 --resume 2>/dev/null
grep -q "did not start from trained.nmt" tuned-more.nmt.log ||
    fail "resuming with another --pretrained-model did not warn: $(cat tuned-more.nmt.log)"

# Provenance: the starting model's checksum and its tuned decoding settings,
# which the new model does not inherit (its weights are new).
nmt info tuned-more.nmt --json >info.json
python3 - "$(sha256sum tuned.nmt | cut -d' ' -f1)" <<'EOF' || fail "provenance of the continued run: $(cat info.json)"
import json, sys
info = json.load(open("info.json"))
pretrained = info["provenance"]["pretrained_model"]
assert pretrained["path"] == "tuned.nmt", pretrained["path"]
assert pretrained["sha256"] == sys.argv[1], pretrained["sha256"]
assert pretrained["decoding"]["length_penalty"] == 1.3, pretrained
assert info["decoding"] == {}, info["decoding"]
EOF

# The model fixes the vocabulary: the same one is accepted, another refused
# with a message naming both.
nmt train --pretrained-model trained.nmt --vocab spm.model "${short[@]}" -o same-vocab.nmt 2>/dev/null ||
    fail "the pretrained model's own vocabulary was refused"
status=0
nmt train --pretrained-model trained.nmt --vocab other.model "${short[@]}" -o other-vocab.nmt 2>err.txt || status=$?
check_no_crash "another vocabulary" $status
((status != 0)) || fail "a vocabulary other than the pretrained model's was accepted"
grep -q "other.model" err.txt && grep -q "trained.nmt" err.txt || fail "vocabulary error: $(cat err.txt)"

# ... and the architecture: other options are reported as ignored.
nmt train --pretrained-model trained.nmt --dim-rnn 32 "${short[@]}" -o other-arch.nmt 2>/dev/null
grep -q "differ from the pretrained model trained.nmt and are ignored" other-arch.nmt.log ||
    fail "other architecture options were not reported: $(cat other-arch.nmt.log)"
nmt info other-arch.nmt --json | python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["config"]["dim_rnn"] != 16)' ||
    fail "the architecture options changed the model"

status=0
nmt train --pretrained-model missing.nmt "${short[@]}" -o missing-start.nmt 2>err.txt || status=$?
((status != 0)) && grep -q "missing.nmt" err.txt || fail "a missing pretrained model: $(cat err.txt)"
echo "ok: --pretrained-model starts from the model's weights, records it and keeps its vocabulary"
