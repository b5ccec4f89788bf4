#!/usr/bin/env bash
# An output that is an input (or another output) under any name, a symbolic
# link, "-" or the standard stream included, is refused with one line naming
# both options, before anything is written: the input is left as it was.
# Usage: output_is_input.sh NMT_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
cd "$TMP"

make_model "$TMP"
printf 'A small dog runs.\nThe girl plays.\n' >in.txt
ln -s in.txt in-link.txt
cp model.nmt other.nmt
fingerprint() { sha256sum in.txt model.nmt other.nmt spm.model corpus.en; }
before=$(fingerprint)
unchanged() { expect_eq "the files after: $1" "$before" "$(fingerprint)"; }

translate() { nmt translate -m model.nmt -q "$@"; }
expect_one_error "translate --alignments = -i" "--alignments in.txt" translate -i in.txt --alignments in.txt -o out.txt
expect_error_names "translate --alignments = -i" "-i in.txt"
unchanged "translate --alignments = -i"
expect_one_error "translate -o FILE < FILE" "-o in.txt is the same file as stdin" translate -o in.txt <in.txt
unchanged "translate -o FILE < FILE"
expect_one_error "translate >> FILE < FILE" "stdout is the same file as stdin" translate <in.txt >>in.txt
unchanged "translate >> FILE < FILE"
expect_one_error "translate -o = --alignments" "-o out.txt and --alignments out.txt" \
    translate -i in.txt -o out.txt --alignments out.txt
[[ ! -e out.txt ]] || fail "a refused translate still wrote its output"
expect_one_error "translate -o = -m" "-o model.nmt is the same file as -m model.nmt" translate -i in.txt -o model.nmt
unchanged "translate -o = -m"
expect_one_error "translate -o a link to -i" "-o in-link.txt" translate -i in.txt -o in-link.txt
expect_error_names "translate -o a link to -i" "-i in.txt"
unchanged "translate -o a link to -i"
expect_one_error "translate --alignments - >> FILE, -i FILE" "--alignments - is the same file as -i in.txt" \
    translate -i in.txt -o out.txt --alignments - >>in.txt
unchanged "translate --alignments - >> FILE, -i FILE"

expect_one_error "convert -o = the input" "-o model.nmt is the same file as the input model.nmt" \
    nmt convert model.nmt -o model.nmt
expect_one_error "average -o = an input" "-o ./other.nmt is the same file as the input other.nmt" \
    nmt average model.nmt other.nmt -o ./other.nmt
expect_one_error "init -o = --vocab" "-o spm.model is the same file as --vocab spm.model" \
    nmt init --vocab spm.model --dim-emb 16 --dim-rnn 16 --dim-dec 32 --dim-attention 16 -o spm.model
expect_one_error "vocab -o PREFIX = -i PREFIX.model" "-o spm.model is the same file as -i spm.model" \
    nmt vocab -i corpus.en spm.model --joint --size 50 -o spm
unchanged "convert, average, init and vocab onto an input"

make_reverse_task 5 20
cp train.src train.src.orig
train=(nmt train --vocab spm.model --dim-emb 16 --dim-rnn 16 --dim-dec 32 --dim-attention 16 --enc-depth 1
       --train-source train.src --train-target train.tgt --batch-tokens 160 --threads 1 --quiet --max-steps 1)
expect_one_error "train -o = --train-source" "--output train.src is the same file as --train-source train.src" \
    "${train[@]}" -o train.src --overwrite
cmp -s train.src train.src.orig || fail "a refused train changed its training data"
expect_one_error "train --checkpoint = -o" "--output run.nmt and --checkpoint run.nmt" \
    "${train[@]}" -o run.nmt --checkpoint run.nmt
expect_one_error "train --log = --train-target" "--log train.tgt is the same file as --train-target train.tgt" \
    "${train[@]}" -o run.nmt --log train.tgt
expect_one_error "train -o = --pretrained-model" "--output model.nmt is the same file as --pretrained-model model.nmt" \
    "${train[@]}" -o model.nmt --pretrained-model model.nmt --overwrite
unchanged "train onto an input"
leftovers=$(ls run.nmt* train.src.* 2>/dev/null | grep -v '^train.src.orig$' || true)
[[ -z $leftovers ]] || fail "refused training runs left files behind: $leftovers"

echo "ok: an output that is an input, or another output, is refused naming both"
