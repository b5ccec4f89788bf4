#!/usr/bin/env bash
# A model file written to a name never replaces what the name stands for: a
# symbolic link keeps pointing where it did and its target gets the model; a
# FIFO or a device is written in place (a full one fails with one line); a
# directory is refused with one line. nmt train refuses an -o that is not a
# file name, and creates nothing beside it.
# Usage: output_files.sh NMT_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
cd "$TMP"

make_model "$TMP"
nmt info model.nmt >/dev/null || fail "the test model does not load"

# A symbolic link: the target is replaced, the link stays.
cp model.nmt target.nmt
ln -s target.nmt link.nmt
nmt convert model.nmt --storage f16 -o link.nmt 2>/dev/null && fail "convert -o a link to an existing file replaced it unasked"
nmt convert model.nmt --storage f16 -o link.nmt --overwrite 2>/dev/null || fail "convert -o a symbolic link failed"
[[ -L link.nmt && $(readlink link.nmt) == target.nmt ]] || fail "convert -o link.nmt replaced the link"
cmp -s model.nmt target.nmt && fail "convert -o link.nmt left the link's target as it was"
nmt info --json target.nmt >info.json
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["provenance"]["converted"]["storage"] == "f16"' \
    info.json ||
    fail "the link's target is not the f16 model"
# A dangling link: its target is created.
ln -s made-through-link.nmt dangling.nmt
nmt convert model.nmt -o dangling.nmt 2>/dev/null || fail "convert -o a dangling link failed"
[[ -L dangling.nmt ]] || fail "convert -o a dangling link replaced the link"
nmt info made-through-link.nmt >/dev/null || fail "convert -o a dangling link did not write its target"

# A FIFO: written in place, read by whoever listens.
nmt convert model.nmt -o converted.nmt 2>/dev/null || fail "convert failed"
mkfifo pipe.nmt
timeout 60 cat pipe.nmt >from-pipe.nmt &
reader=$!
status=0
nmt convert model.nmt -o pipe.nmt 2>/dev/null || status=$?
if [[ ! -p pipe.nmt ]]; then
    kill "$reader" 2>/dev/null || true
    fail "convert -o a FIFO replaced the FIFO with a $(stat -c %F pipe.nmt)"
fi
wait "$reader" || fail "the FIFO's reader failed"
((status == 0)) || fail "convert -o a FIFO failed"
cmp -s converted.nmt from-pipe.nmt || fail "the model read from the FIFO differs from the one written to a file"

# Devices, made here so that a wrong build cannot replace the system's own.
if mknod null-device c 1 3 2>/dev/null && mknod full-device c 1 7 2>/dev/null && echo x >null-device 2>/dev/null; then
    nmt convert model.nmt -o null-device 2>/dev/null || fail "convert -o a null device failed"
    [[ -c null-device ]] || fail "convert -o a null device replaced it with a $(stat -c %F null-device)"
    expect_one_error "convert -o a full device" "No space left on device" nmt convert model.nmt -o full-device
    [[ -c full-device ]] || fail "convert -o a full device replaced it with a $(stat -c %F full-device)"
    [[ ! -e full-device.tmp && ! -e null-device.tmp ]] || fail "writing to a device left a temporary file"
else
    echo "note: cannot make device nodes here; device cases skipped"
fi

# A directory: refused, left empty.
mkdir out-dir
expect_one_error "convert -o a directory" "out-dir: cannot write: it is a directory" nmt convert model.nmt -o out-dir
expect_one_error "init -o a directory" "is a directory" nmt init --vocab spm.model --dim-emb 16 --dim-rnn 16 \
    --dim-dec 32 --dim-attention 16 -o out-dir
[[ -d out-dir && -z $(ls -A out-dir) ]] || fail "writing to a directory changed it"

# nmt train: a symbolic link's target gets the model; a FIFO, a device or a
# directory is refused before anything is written beside it.
make_reverse_task 5 20
nmt vocab -i train.src train.tgt --joint --size 16 -o rev 2>/dev/null
run=(--vocab rev.model --dim-emb 16 --dim-rnn 16 --dim-dec 32 --dim-attention 16 --enc-depth 1
     --train-source train.src --train-target train.tgt --valid-source valid.src --valid-target valid.tgt
     --valid-beam 2 --batch-tokens 160 --seed 3 --threads 1 --quiet --max-steps 2 --valid-every 2)
mkdir runs
ln -s runs/trained.nmt trained-link.nmt
nmt train "${run[@]}" -o trained-link.nmt || fail "train -o a dangling symbolic link failed"
[[ -L trained-link.nmt ]] || fail "train -o a symbolic link replaced the link"
nmt info runs/trained.nmt >/dev/null || fail "train -o a symbolic link did not write the model to its target"
nmt train "${run[@]}" -o trained-link.nmt --overwrite --seed 4 || fail "train --overwrite through a link failed"
[[ -L trained-link.nmt ]] || fail "train --overwrite -o a symbolic link replaced the link"

rm -f pipe.nmt && mkfifo pipe.nmt
expect_one_error "train -o a FIFO" "--output pipe.nmt is not a regular file" nmt train "${run[@]}" -o pipe.nmt
expect_one_error "train -o a directory" "--output out-dir is a directory" nmt train "${run[@]}" -o out-dir
if [[ -c null-device ]]; then
    expect_one_error "train -o a device" "--output null-device is not a regular file" nmt train "${run[@]}" -o null-device
    [[ -c null-device ]] || fail "train -o a device replaced it"
fi
leftovers=$(ls -d pipe.nmt.* out-dir.* null-device.* 2>/dev/null || true)
[[ -z $leftovers ]] || fail "a refused train -o left files beside it: $leftovers"
[[ -p pipe.nmt && -z $(ls -A out-dir) ]] || fail "a refused train -o changed the FIFO or the directory"

# nmt vocab's outputs too: a link's target is replaced (by rename: a hard
# link to the old file keeps the old bytes, where SentencePiece wrote in
# place) and the link stays, and no temporary file is left beside them.
mkdir vocab-out
printf 'old' >vocab-out/real.model
ln vocab-out/real.model vocab-out/hard.model
ln -s real.model vocab-out/v.model
nmt vocab -i "$TMP/corpus.en" --size 100 -o vocab-out/v 2>/dev/null && fail "nmt vocab replaced an existing file through a link unasked"
nmt vocab -i "$TMP/corpus.en" --size 100 -o vocab-out/v --overwrite 2>/dev/null || fail "nmt vocab through a link failed"
[[ -L vocab-out/v.model ]] || fail "nmt vocab replaced the link vocab-out/v.model"
[[ $(head -c 3 vocab-out/real.model) != old ]] || fail "nmt vocab did not write the link's target"
expect_eq "the old file, under its other name" old "$(cat vocab-out/hard.model)"
expect_eq "files left in vocab-out" "hard.model real.model v.model v.vocab" "$(ls vocab-out | tr '\n' ' ' | sed 's/ $//')"

echo "ok: model files never replace a symbolic link, FIFO or device, and a directory is refused"
