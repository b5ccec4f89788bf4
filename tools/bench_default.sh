#!/usr/bin/env bash
# Default decoding against a baseline, in one run (issue 65): `nmt translate
# -i INPUT` with nothing but the beam, batch and threads given (so each binary
# and model decodes as a user gets it: its default precision and shortlist),
# the baseline and the candidate alternating ROUNDS times, the fastest run of
# each counting (start-up included: under a second of a run of seconds).
# Prints the CPU, each side's sentences/s, BLEU when REFERENCE is given, and
# the ratio. Run it with nothing else on the machine.
#
# Usage: tools/bench_default.sh BASE_NMT BASE_MODEL NEW_NMT NEW_MODEL INPUT [REFERENCE]
#   ROUNDS (default 3), BEAM (5), BATCH (32), THREADS (2).
set -euo pipefail
usage="usage: $0 BASE_NMT BASE_MODEL NEW_NMT NEW_MODEL INPUT [REFERENCE]"
base_nmt=${1:?$usage} base_model=${2:?$usage} new_nmt=${3:?$usage} new_model=${4:?$usage} input=${5:?$usage}
reference=${6:-}
rounds=${ROUNDS:-3} beam=${BEAM:-5} batch=${BATCH:-32} threads=${THREADS:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

lines=$(wc -l <"$input")
echo "cpu: $(lscpu | sed -n 's/^Model name: *//p'); flags: $(grep -o -w -E 'avx2|avx512f|avx512_vnni|avx_vnni|amx_int8' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "input: $input ($lines lines), beam $beam, batch $batch, $threads threads, best of $rounds"

# seconds SIDE NMT MODEL: one timed run, its translation kept in $out/SIDE.txt.
seconds() {
    local start end
    start=$(date +%s.%N)
    "$2" translate -m "$3" -i "$input" -o "$out/$1.txt" --overwrite --beam-size "$beam" --batch-size "$batch" \
        --threads "$threads" -q
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'
}

declare -A best=([base]=1e9 [new]=1e9)
for ((round = 1; round <= rounds; ++round)); do
    for side in base new; do
        if [[ $side == base ]]; then s=$(seconds base "$base_nmt" "$base_model"); else s=$(seconds new "$new_nmt" "$new_model"); fi
        printf 'round %d %-4s %8.2f s\n' "$round" "$side" "$s"
        if awk -v s="$s" -v b="${best[$side]}" 'BEGIN { exit !(s < b) }'; then best[$side]=$s; fi
    done
done
for side in base new; do
    nmt=$base_nmt model=$base_model
    [[ $side == new ]] && nmt=$new_nmt model=$new_model
    bleu=""
    [[ -n $reference ]] && bleu="  BLEU $("$nmt" score -r "$reference" -i "$out/$side.txt" --metrics bleu --score-only --width 2)"
    printf '%-4s %s %s: %7.1f sentences/s%s\n' "$side" "$nmt" "$model" "$(awk -v n="$lines" -v s="${best[$side]}" 'BEGIN { print n / s }')" "$bleu"
done
printf 'ratio new/base: %.2fx\n' "$(awk -v a="${best[base]}" -v b="${best[new]}" 'BEGIN { print a / b }')"
