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

echo "ok: an output that is an input, or another output, is refused naming both"
