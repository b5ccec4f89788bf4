#!/usr/bin/env bash
# `nmt init` writes the architecture it is asked for, the same file for the
# same seed, and half-size weights with --storage f16/bf16 that still load and
# translate; `nmt info` reports it as text and as JSON.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"

make_model "$TMP"
MODEL=$TMP/model.nmt
# Parameters of this architecture (V=200 pieces, E=16, H=16 per direction,
# C=2H=32, D=32, A=16; GRU: 3 gates), from the shapes in lib/model/model.cpp:
#   embeddings 2VE; encoder layer 1, both directions 2(3HE+3HH+3H); layer 2
#   3CC+3CC+3C; decoder init CD+D; attention DA+CA+2A; decoder GRU on [E;C]
#   3D(E+C)+3DD+3D; deep output (D+C+E)E+E; vocabulary projection EV+V.
V=200 E=16 H=16 C=32 D=32 A=16
params=$((2 * V * E + 2 * (3 * H * E + 3 * H * H + 3 * H) + 6 * C * C + 3 * C + C * D + D + D * A + C * A + 2 * A +
    3 * D * (E + C) + 3 * D * D + 3 * D + (D + C + E) * E + E + E * V + V))

grep -q "wrote $MODEL: $params parameters" "$TMP/init.log" ||
    fail "nmt init should report 'wrote $MODEL: $params parameters ...', got: $(cat "$TMP/init.log")"

# --- Text.
nmt info "$MODEL" >"$TMP/info.txt" || fail "nmt info failed"
for expect in "parameters:  $params" "vocabulary:  200 source pieces, 200 target pieces" \
    "encoder:     2 x gru 16 (first layer bidirectional), embeddings 16" \
    "decoder:     gru 32, bahdanau style, additive attention"; do
    grep -qF -- "$expect" "$TMP/info.txt" || fail "nmt info: expected a line with '$expect', got:"$'\n'"$(cat "$TMP/info.txt")"
done

# --- JSON.
nmt info --json "$MODEL" >"$TMP/info.json" || fail "nmt info --json failed"
python3 - "$TMP/info.json" "$params" <<'EOF' || fail "nmt info --json is wrong (above): $(cat "$TMP/info.json")"
import json, sys
info = json.load(open(sys.argv[1]))
expected = {"parameters": int(sys.argv[2]), "source_vocab_size": 200, "target_vocab_size": 200}
config = {"dim_emb": 16, "dim_rnn": 16, "dim_dec": 32, "dim_attention": 16, "encoder_depth": 2,
          "encoder_cell": "gru", "decoder_cell": "gru", "attention": "additive"}
problems = [f"{k}: expected {v!r}, got {info.get(k)!r}" for k, v in expected.items() if info.get(k) != v]
problems += [f"config.{k}: expected {v!r}, got {info['config'].get(k)!r}" for k, v in config.items()
             if info["config"].get(k) != v]
if info.get("provenance", {}).get("seed") != 1 or info["provenance"].get("trained") is not False:
    problems.append(f"provenance should record seed 1 and trained: false, got {info.get('provenance')}")
if problems:
    sys.exit("; ".join(problems))
EOF

# --- The same seed gives the same file; another seed, other weights.
init_tiny() {
    nmt init --vocab "$TMP/spm.model" --dim-emb 16 --dim-rnn 16 --dim-dec 32 --dim-attention 16 "$@" 2>"$TMP/log" ||
        fail "nmt init $*: $(cat "$TMP/log")"
}
init_tiny --seed 1 -o "$TMP/again.nmt"
cmp -s "$MODEL" "$TMP/again.nmt" || fail "nmt init with the same vocabulary and seed wrote a different file"
init_tiny --seed 2 -o "$TMP/seed2.nmt"
! cmp -s "$MODEL" "$TMP/seed2.nmt" || fail "nmt init with --seed 2 wrote the same file as --seed 1"

# --- An option given twice takes its last value (a recipe's flags can be
# overridden by flags appended after them), here the seed and a dimension.
init_tiny --seed 2 --dim-emb 8 --seed 1 --dim-emb 16 -o "$TMP/last-wins.nmt"
cmp -s "$MODEL" "$TMP/last-wins.nmt" || fail "nmt init --seed 2 ... --seed 1 should write the --seed 1 file"

# --- Half-precision storage: 2 bytes less per parameter, same model.
make_corpus "$TMP/sentences.txt" 40
nmt translate -m "$MODEL" -i "$TMP/sentences.txt" -q >"$TMP/f32.txt"
for storage in f16 bf16; do
    half=$TMP/$storage.nmt
    init_tiny --seed 1 --storage "$storage" -o "$half"
    saved=$(($(stat -c %s "$MODEL") - $(stat -c %s "$half")))
    # The header differs a little (dtype names); the rest is exactly 2 bytes a parameter.
    ((saved > 2 * params - 64 && saved < 2 * params + 64)) ||
        fail "--storage $storage: expected the file to shrink by about $((2 * params)) bytes (2 per parameter), it shrank by $saved"
    python3 - "$half" "${storage^^}" <<'EOF' || fail "--storage $storage: wrong tensor types (above)"
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
header = json.loads(raw[8:8 + struct.unpack("<Q", raw[:8])[0]])
wrong = {k: v["dtype"] for k, v in header.items() if k != "__metadata__" and not k.startswith("vocab.")
         and v["dtype"] != sys.argv[2]}
if wrong:
    sys.exit(f"tensors not stored as {sys.argv[2]}: {wrong}")
EOF
    info_params=$(nmt info --json "$half" | python3 -c 'import json,sys; print(json.load(sys.stdin)["parameters"])')
    expect_eq "parameters of the $storage model" "$params" "$info_params"
    nmt translate -m "$half" -i "$TMP/sentences.txt" -q >"$TMP/$storage.txt" || fail "translating with the $storage model failed"
    expect_eq "lines translated by the $storage model" "$(wc -l <"$TMP/f32.txt")" "$(wc -l <"$TMP/$storage.txt")"
    # Random weights leave many near-ties, which rounding may flip: only report.
    same=$(paste -d '\n' "$TMP/f32.txt" "$TMP/$storage.txt" | paste - - -d '\t' | awk -F '\t' '$1 == $2' | wc -l)
    echo "note: $storage weights give the same translation as f32 for $same of 40 sentences (random weights)"
done

# --- Tied embeddings: --tied-embeddings-all keeps one V x E table for source,
# target and output, so the source table (VE) and the projection (EV) go.
init_tiny --seed 1 --tied-embeddings-all -o "$TMP/tied.nmt"
nmt info "$TMP/tied.nmt" >"$TMP/tied.txt" || fail "nmt info on the tied model failed"
for expect in "parameters:  $((params - 2 * V * E))" "embeddings 16 (the target's table)" ", tied embeddings"; do
    grep -qF -- "$expect" "$TMP/tied.txt" || fail "nmt info, tied: expected '$expect', got:"$'\n'"$(cat "$TMP/tied.txt")"
done
nmt translate -m "$TMP/tied.nmt" -i "$TMP/sentences.txt" -q >"$TMP/tied_out.txt" || fail "translating with the tied model failed"
expect_eq "lines translated by the tied model" 40 "$(wc -l <"$TMP/tied_out.txt")"

# --- Layer-normalised cells: two gains (input and recurrent products) for
# each gate unit of every cell: 2·3·(2H + C) for the encoder's three GRUs,
# 2·3·D for the decoder's one (Bahdanau style).
init_tiny --seed 1 --layer-norm -o "$TMP/ln.nmt"
nmt info "$TMP/ln.nmt" >"$TMP/ln.txt" || fail "nmt info on the layer-normalised model failed"
for expect in "parameters:  $((params + 6 * (2 * H + C) + 6 * D))" "cells:       layer-normalised"; do
    grep -qF -- "$expect" "$TMP/ln.txt" || fail "nmt info, layer norm: expected '$expect', got:"$'\n'"$(cat "$TMP/ln.txt")"
done
nmt translate -m "$TMP/ln.nmt" -i "$TMP/sentences.txt" -q >"$TMP/ln_out.txt" || fail "translating with the layer-normalised model failed"
expect_eq "lines translated by the layer-normalised model" 40 "$(wc -l <"$TMP/ln_out.txt")"

echo "ok: init and info"
