#!/usr/bin/env bash
# Issue 65: nmt convert --storage int8 writes a smaller file that nmt info
# describes, the same bytes whichever instruction set oneDNN runs (the file
# of one machine is the file of another), and that translates on every
# instruction set (capped with DNNL_MAX_CPU_ISA) exactly as the f16 model
# does when quantised at load; it loads for fp32, converts back to f16, and
# rewritten as it is stays byte for byte the same.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"

make_model "$TMP"
nmt convert "$TMP/model.nmt" -o "$TMP/f16.nmt" --storage f16 2>/dev/null
nmt convert "$TMP/f16.nmt" -o "$TMP/int8.nmt" --storage int8 2>"$TMP/err" ||
    fail "convert --storage int8 failed: $(cat "$TMP/err")"
grep -q "(int8 weights)" "$TMP/err" || fail "convert should name int8, said: $(cat "$TMP/err")"
(($(stat -c %s "$TMP/int8.nmt") < $(stat -c %s "$TMP/f16.nmt"))) || fail "the int8 file should be smaller than f16"
info=$(nmt info "$TMP/int8.nmt") || fail "nmt info failed on the int8 file"
grep -q "^weights: .*f16 [0-9]*, int8 [0-9]* (a scale per output column)" <<<"$info" ||
    fail "nmt info should say which weights are int8, said: $info"
nmt info --json "$TMP/int8.nmt" | python3 -c 'import json, sys; w = json.load(sys.stdin)["weights"]; sys.exit(not (w["int8"] > 0 and w["f16"] > 0))' ||
    fail "nmt info --json should count the int8 and f16 weights"

# The same file whatever oneDNN runs; and it loads and translates under each
# instruction set (at most what this CPU has: a cap above it changes nothing).
printf 'the cat\n\na dog runs in the park\nbird\n' >"$TMP/in.txt"
for isa in SSE41 AVX2 AVX512_CORE ALL; do
    DNNL_MAX_CPU_ISA=$isa nmt convert "$TMP/f16.nmt" -o "$TMP/int8.$isa.nmt" --storage int8 2>/dev/null ||
        fail "convert under $isa failed"
    cmp -s "$TMP/int8.nmt" "$TMP/int8.$isa.nmt" || fail "the int8 file written under $isa differs"
    for precision in int8 fp32 auto; do
        DNNL_MAX_CPU_ISA=$isa nmt translate -m "$TMP/int8.nmt" --precision $precision -i "$TMP/in.txt" \
            >"$TMP/out.$isa.$precision" 2>"$TMP/err" || fail "translate under $isa, $precision failed: $(cat "$TMP/err")"
        expect_eq "lines out ($isa, $precision)" 4 "$(wc -l <"$TMP/out.$isa.$precision")"
    done
    # int8 storage translates as the f16 model quantised at load, on the same CPU.
    DNNL_MAX_CPU_ISA=$isa nmt translate -m "$TMP/f16.nmt" --precision int8 -i "$TMP/in.txt" >"$TMP/at_load.$isa"
    cmp -s "$TMP/at_load.$isa" "$TMP/out.$isa.int8" ||
        fail "under $isa, the int8 file should translate as the f16 file quantised at load"
done

# Back to f16 (values times scales), which loads and translates.
nmt convert "$TMP/int8.nmt" -o "$TMP/back.f16.nmt" --storage f16 2>/dev/null || fail "convert int8 -> f16 failed"
nmt info "$TMP/back.f16.nmt" | grep -q "^weights: *f16 [0-9]*$" || fail "the f16 copy should hold f16 weights only"
nmt translate -m "$TMP/back.f16.nmt" -i "$TMP/in.txt" >"$TMP/back.out" || fail "the f16 copy should translate"
expect_eq "lines out (f16 copy)" 4 "$(wc -l <"$TMP/back.out")"
nmt convert "$TMP/int8.nmt" -o "$TMP/kept.nmt" 2>/dev/null
cmp -s "$TMP/int8.nmt" "$TMP/kept.nmt" || fail "convert without --storage should keep an int8 file as it is"
echo "ok: int8 storage written the same everywhere, translating as quantised at load on each instruction set"
