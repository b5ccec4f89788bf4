#!/usr/bin/env bash
# Output that cannot be written (-o, stdout, --alignments, --alignment-svg:
# a missing directory, a full disk, a file where a directory should be) makes
# `nmt translate` exit non-zero with one "nmt: error: ..." line, never exit 0
# with translations silently lost. A model that fails to load leaves an
# existing -o file untouched.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"

make_model "$TMP"
MODEL=$TMP/model.nmt
printf 'A small dog runs.\nThe girl plays.\n' >"$TMP/in.txt"

translate() { nmt translate -m "$MODEL" -i "$TMP/in.txt" "$@"; }

expect_one_error "-o in a missing directory" "$TMP/missing/out.txt" translate -o "$TMP/missing/out.txt"
mkdir "$TMP/out-dir"
expect_one_error "-o a directory" "$TMP/out-dir" translate -o "$TMP/out-dir"
expect_one_error "--alignments in a missing directory" "$TMP/missing/a.jsonl" \
    translate -o "$TMP/out.txt" --alignments "$TMP/missing/a.jsonl"
touch "$TMP/plain-file"
expect_one_error "--alignment-svg under a regular file" "$TMP/plain-file/svg" \
    translate -o "$TMP/out.txt" --alignment-svg "$TMP/plain-file/svg"
expect_one_error "--alignment-svg naming a regular file" "$TMP/plain-file" \
    translate -o "$TMP/out.txt" --alignment-svg "$TMP/plain-file"

if [[ -w /dev/full ]]; then  # writes to /dev/full fail with ENOSPC: a full disk
    expect_one_error "-o /dev/full" "cannot write" translate -o /dev/full
    expect_one_error "stdout on /dev/full" "cannot write" translate >/dev/full
    expect_one_error "--alignments /dev/full" "cannot write" translate -o "$TMP/out.txt" --alignments /dev/full
else
    echo "note: no writable /dev/full; full-disk cases skipped"
fi

echo "keep me" >"$TMP/existing.txt"
expect_one_error "missing model with -o" "$TMP/no-model.nmt" \
    nmt translate -m "$TMP/no-model.nmt" -i "$TMP/in.txt" -o "$TMP/existing.txt" --overwrite
expect_eq "an existing -o file after the model failed to load" "keep me" "$(cat "$TMP/existing.txt")"

# An existing output is replaced only with --overwrite (issue 66), and a
# second output that fails at start-up leaves the first as it was.
expect_one_error "an existing -o" "-o $TMP/existing.txt already exists: add --overwrite to replace it" \
    translate -o "$TMP/existing.txt"
expect_one_error "an existing --alignments" "--alignments $TMP/existing.txt already exists" \
    translate -o "$TMP/new.txt" --alignments "$TMP/existing.txt"
[[ -e $TMP/new.txt ]] && fail "-o was created although --alignments was refused"
expect_one_error "--alignments in a missing directory beside an existing -o" "$TMP/nodir/x.json" \
    translate -o "$TMP/existing.txt" --overwrite --alignments "$TMP/nodir/x.json"
expect_eq "an existing -o after --alignments failed" "keep me" "$(cat "$TMP/existing.txt")"
expect_one_error "a bad --alignment-svg beside an existing -o" "$TMP/plain-file" \
    translate -o "$TMP/existing.txt" --overwrite --alignment-svg "$TMP/plain-file"
expect_eq "an existing -o after --alignment-svg failed" "keep me" "$(cat "$TMP/existing.txt")"
ls "$TMP" | grep -q '\.tmp$' && fail "a temporary output was left behind: $(ls "$TMP")"
translate -o "$TMP/existing.txt" --overwrite || fail "translate -o an existing file with --overwrite failed"
expect_eq "lines in the replaced -o" 2 "$(wc -l <"$TMP/existing.txt")"

echo "ok: unwritable outputs give one clear error, and no existing output is replaced unasked or emptied by a failure"
