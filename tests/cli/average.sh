#!/usr/bin/env bash
# `nmt average`: a model averaged with itself translates as it does; two
# snapshots give one model whose provenance lists both; models of another
# architecture are refused with a message naming the file.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"

make_model "$TMP"
nmt init --vocab "$TMP/spm.model" --dim-emb 16 --dim-rnn 16 --dim-dec 32 --dim-attention 16 --seed 2 \
    -o "$TMP/other_seed.nmt" 2>/dev/null || fail "nmt init --seed 2 failed"
printf 'the cat sat\nhello world\n' >"$TMP/input.txt"

nmt average "$TMP/model.nmt" "$TMP/model.nmt" -o "$TMP/self.nmt" 2>"$TMP/log" ||
    fail "nmt average of a model with itself failed: $(cat "$TMP/log")"
grep -qF "wrote $TMP/self.nmt: the mean of 2 snapshots" "$TMP/log" || fail "unexpected report: $(cat "$TMP/log")"
nmt translate -m "$TMP/model.nmt" -i "$TMP/input.txt" -q >"$TMP/expected.txt"
nmt translate -m "$TMP/self.nmt" -i "$TMP/input.txt" -q >"$TMP/got.txt"
cmp -s "$TMP/expected.txt" "$TMP/got.txt" || fail "a model averaged with itself translates differently"

nmt average "$TMP/model.nmt" "$TMP/other_seed.nmt" -o "$TMP/mean.nmt" --storage f16 2>"$TMP/log" ||
    fail "nmt average of two snapshots failed: $(cat "$TMP/log")"
nmt info --json "$TMP/mean.nmt" >"$TMP/info.json" || fail "nmt info cannot read the averaged model"
python3 - "$TMP/info.json" "$TMP/model.nmt" "$TMP/other_seed.nmt" <<'PY' || fail "provenance of the mean is wrong: $(cat "$TMP/info.json")"
import json, sys
provenance = json.load(open(sys.argv[1]))["provenance"]
paths = [entry["path"] for entry in provenance["averaged"]]
assert paths == sys.argv[2:], paths
assert [entry["provenance"]["seed"] for entry in provenance["averaged"]] == [1, 2]
assert provenance["created_by"].startswith("nmt average")
PY

make_model "$TMP/wide" --dim-dec 48
if nmt average "$TMP/model.nmt" "$TMP/wide/model.nmt" -o "$TMP/bad.nmt" 2>"$TMP/log"; then
    fail "nmt average accepted models of two architectures"
fi
grep -qF "$TMP/wide/model.nmt: its configuration differs from $TMP/model.nmt" "$TMP/log" ||
    fail "the refusal should name the file that does not fit, got: $(cat "$TMP/log")"
[[ ! -e "$TMP/bad.nmt" ]] || fail "a refused average still wrote its output"
echo "ok: averaging keeps a model, records its snapshots and refuses another architecture"
