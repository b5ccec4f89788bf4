#!/usr/bin/env bash
# `nmt bench` on an input with no lines, or a training pair with none, is
# refused with one line naming the file instead of crashing (it took the
# first line of an empty list: SIGSEGV).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"

make_model "$TMP"
: >"$TMP/empty.txt"
status=0
nmt bench -m "$TMP/model.nmt" -i "$TMP/empty.txt" --beam-sizes 1 --batch-sizes 1 >"$TMP/out" 2>"$TMP/err" || status=$?
check_no_crash "nmt bench on an empty file" "$status"
((status != 0)) || fail "nmt bench on an empty file should fail"
grep -q "empty.txt: no lines" "$TMP/err" || fail "the error should name the empty file, said: $(cat "$TMP/err")"
expect_eq "error lines" 1 "$(wc -l <"$TMP/err")"

printf 'a small dog\n' >"$TMP/one.txt"
status=0
nmt bench -m "$TMP/model.nmt" -i "$TMP/empty.txt" --train-target "$TMP/empty.txt" --steps 1 >"$TMP/out" 2>"$TMP/err" || status=$?
check_no_crash "nmt bench --train-target on empty files" "$status"
((status != 0)) || fail "nmt bench --train-target on empty files should fail"
grep -q "no training pairs" "$TMP/err" || fail "the error should say there are no pairs, said: $(cat "$TMP/err")"

out=$(nmt bench -m "$TMP/model.nmt" -i "$TMP/one.txt" --beam-sizes 1 --batch-sizes 1) || fail "nmt bench on one line failed"
grep -q "1 lines of" <<<"$out" || fail "nmt bench on one line should measure it, printed: $out"
echo "ok: nmt bench refuses empty input with a message naming it"
