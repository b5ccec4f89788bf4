#!/usr/bin/env bash
# Issue 66: no command replaces an existing output unasked. init, convert,
# average, shortlist, vocab, align (and translate, tests/cli/
# translate_output_errors.sh) refuse an existing -o in one line naming it and
# --overwrite, leaving it byte for byte as it was; with --overwrite they
# replace it. A failure halfway (align's line counts that differ, vocab's
# second side) leaves every output as it was and no temporary file behind.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
cd "$TMP"

make_model "$TMP"
cp model.nmt keep.nmt
sum() { sha256sum "$1" | cut -d' ' -f1; }
original=$(sum keep.nmt)

# refused NAME COMMAND...: COMMAND, which writes keep.nmt, is refused and
# keep.nmt is unchanged.
refused() {
    local what=$1
    shift
    expect_one_error "$what" "keep.nmt already exists: add --overwrite to replace it" "$@"
    expect_eq "$what: keep.nmt after the refusal" "$original" "$(sum keep.nmt)"
}
refused "init" nmt init --vocab spm.model --dim-emb 16 --dim-rnn 16 --dim-dec 32 --dim-attention 16 --seed 2 -o keep.nmt
refused "convert" nmt convert model.nmt --storage f16 -o keep.nmt
refused "average" nmt average model.nmt -o keep.nmt
printf 'a small dog runs\nthe cat plays\n' >src.txt
printf 'the cat plays\na small dog runs\n' >tgt.txt
refused "shortlist" nmt shortlist -m model.nmt -s src.txt -t tgt.txt -o keep.nmt

nmt init --vocab spm.model --dim-emb 16 --dim-rnn 16 --dim-dec 32 --dim-attention 16 --seed 2 -o keep.nmt \
    --overwrite 2>/dev/null || fail "init --overwrite failed"
[[ $(sum keep.nmt) != "$original" ]] || fail "init --overwrite left the file as it was"
nmt convert model.nmt --storage f16 -o keep.nmt --overwrite 2>/dev/null || fail "convert --overwrite failed"
nmt average model.nmt -o keep.nmt --overwrite 2>/dev/null || fail "average --overwrite failed"
nmt shortlist -m model.nmt -s src.txt -t tgt.txt -o keep.nmt --overwrite 2>/dev/null ||
    fail "shortlist --overwrite failed"

# vocab: either of its outputs existing refuses the command; with
# --overwrite, a failure on the target side leaves the source side as it was.
expect_one_error "vocab over spm.model" "spm.model already exists" nmt vocab -i corpus.en --size 200 -o spm
printf 'x\n' >tiny.txt
cp spm.model spm.src.model
cp spm.vocab spm.src.vocab
source_sum=$(sum spm.src.model)
status=0
nmt vocab -i corpus.en tiny.txt --size 200 -o spm --overwrite 2>err.txt || status=$?
((status == 1)) || fail "vocab with a target side too small to train should fail with 1, got $status: $(cat err.txt)"
expect_eq "the source side after the target side failed" "$source_sum" "$(sum spm.src.model)"
[[ -e spm.tgt.model ]] && fail "vocab installed a target side although it failed"

# align: an existing -o is refused; pairs whose line counts differ, found
# halfway, leave it as it was.
nmt translate -m model.nmt -i src.txt -o hyp.txt 2>/dev/null
echo "keep me" >links.txt
expect_one_error "align -o an existing file" "-o links.txt already exists" \
    nmt align -m model.nmt -i src.txt -r hyp.txt -o links.txt
printf 'one more line\n' >>src.txt
status=0
nmt align -m model.nmt -i src.txt -r hyp.txt -o links.txt --overwrite 2>err.txt || status=$?
((status == 1)) || fail "align with mismatched line counts should fail with 1, got $status"
expect_eq "align -o after mismatched line counts" "keep me" "$(cat links.txt)"
nmt align --statistical -i src.txt -r hyp.txt -o links.txt --overwrite 2>/dev/null && fail "statistical align with mismatched lines succeeded"
expect_eq "align --statistical -o after mismatched line counts" "keep me" "$(cat links.txt)"
ls | grep -q '\.tmp' && fail "a temporary file was left behind: $(ls)"

echo "ok: every command refuses an existing output unless --overwrite, and a failure leaves outputs as they were"
