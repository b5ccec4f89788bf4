#!/usr/bin/env bash
# `nmt convert --length-penalty A` records A in the model, `nmt info` shows
# it, and `nmt translate` ranks with it unless --length-penalty is given.
# The n-best list shows which alpha was used: its last field is the score
# divided by ((5 + length) / 6)^alpha, so alpha 0 leaves it equal to the score.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"

make_model "$TMP"
make_corpus "$TMP/sentences.txt" 20
nmt convert "$TMP/model.nmt" -o "$TMP/tuned.nmt" --storage f32 --length-penalty 0 --tuned-on "val set" 2>"$TMP/log" ||
    fail "nmt convert --length-penalty: $(cat "$TMP/log")"
nmt info --json "$TMP/tuned.nmt" | python3 -c '
import json, sys
d = json.load(sys.stdin)["decoding"]
assert d == {"length_penalty": 0.0, "tuned_on": "val set"}, d' || fail "nmt info --json should show the recorded decoding settings"
grep -q '^decoding: .*"length_penalty":0' <<<"$(nmt info "$TMP/tuned.nmt")" || fail "nmt info should show the length penalty"
grep -q '^decoding: *(defaults)' <<<"$(nmt info "$TMP/model.nmt")" || fail "nmt info should say an untuned model uses the defaults"

# n_best_check FILE equal|differ: compares the score and normalised score fields.
n_best_check() {
    python3 - "$1" "$2" <<'EOF' || fail "n-best scores of $1 should $2 (above)"
import sys
rows = [line.rstrip("\n").split(" ||| ") for line in open(sys.argv[1])]
rows = [r for r in rows if r[1]]  # an empty hypothesis has length 1 (</s>) either way
assert rows, "no hypotheses"
same = [float(r[2].split()[1]) == float(r[3]) for r in rows]
if sys.argv[2] == "equal" and not all(same):
    sys.exit("some normalised scores differ from the scores, as if alpha were not 0")
if sys.argv[2] == "differ" and any(same):
    sys.exit("some normalised scores equal the scores, as if alpha were 0")
EOF
}
nmt translate -m "$TMP/tuned.nmt" -i "$TMP/sentences.txt" --n-best 2 -q >"$TMP/tuned.txt"
n_best_check "$TMP/tuned.txt" equal
nmt translate -m "$TMP/tuned.nmt" -i "$TMP/sentences.txt" --n-best 2 --length-penalty 1 -q >"$TMP/override.txt"
n_best_check "$TMP/override.txt" differ
nmt translate -m "$TMP/model.nmt" -i "$TMP/sentences.txt" --n-best 2 -q >"$TMP/default.txt"
n_best_check "$TMP/default.txt" differ

# A non-finite value is refused before anything is written.
! nmt convert "$TMP/model.nmt" -o "$TMP/nan.nmt" --length-penalty nan 2>"$TMP/log" ||
    fail "nmt convert --length-penalty nan should fail"
[[ ! -e "$TMP/nan.nmt" ]] || fail "nmt convert --length-penalty nan should not write a model"
echo "ok: a length penalty recorded by nmt convert is shown by nmt info and used by nmt translate"
