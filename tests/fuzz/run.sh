#!/usr/bin/env bash
# Builds the fuzz targets with clang (tests/fuzz/CMakeLists.txt) and runs each
# for SECONDS, starting from the seeds in tests/fuzz/corpus/TARGET (never
# modified: new inputs go to a scratch corpus). Fails, keeping the input that
# crashed in BUILD_DIR/crashes/, if any target finds anything.
#
# Usage: tests/fuzz/run.sh SECONDS [TARGET...]
#   TARGET: model_file, text_input, score, config_file, srt, po, html, markdown,
#   serve_request, glossary (default: all).
#   JOBS: targets run at once (default 2, this machine's cores).
#   FUZZ_BUILD (default build-fuzz), FUZZ_CORPUS (default: a temporary
#   directory; give one to keep a long run's corpus and continue it later).
#   CPU_SECONDS: also stop each target once it has had this much CPU time
#   (SECONDS then only caps the wall time): on a shared machine a target's
#   wall time says little about how long it really fuzzed.
# Never stop a running target with SIGSTOP: libFuzzer's -timeout counts wall
# time, so the unit under way when it resumes is reported as a hang.
# Needs clang and libclang-rt-14-dev (tools/setup-debian.sh fuzz).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:?usage: tests/fuzz/run.sh SECONDS [TARGET...]}
shift
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(model_file text_input score config_file srt po html markdown serve_request glossary)
build=${FUZZ_BUILD:-build-fuzz}
jobs=${JOBS:-2}

cmake -S tests/fuzz -B "$build" -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$build" -j2 >/dev/null
scratch=${FUZZ_CORPUS:-$(mktemp -d)}
mkdir -p "$build/crashes"

run_one() {
    local target=$1 corpus="$scratch/$1"
    mkdir -p "$corpus"
    # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: memory
    # that grows past 2 GB on a few kilobytes of input is a finding too.
    # The subshell's `times` gives the CPU time the fuzzer really had: on a
    # shared machine that, not the wall time, is what the figures mean.
    (
        status=0 started=$SECONDS
        # libgettextpo has no frame pointers: the po target's stacks are
        # unwound the slow way, so that its suppression (the library's own
        # leak, tests/fuzz/lsan.supp) sees the frame it names.
        local unwind=
        [[ $target != po ]] || unwind=fast_unwind_on_malloc=0
        ASAN_OPTIONS=$unwind LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp "$build/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$build/crashes/$target-" "$corpus" "tests/fuzz/corpus/$target" \
            >"$build/$target.log" 2>&1 &
        local fuzzer=$!
        [[ -z ${CPU_SECONDS:-} ]] || stop_after_cpu_seconds "$fuzzer" "$CPU_SECONDS" &
        wait "$fuzzer" || status=$?
        times >"$build/$target.cpu"  # two lines: the shell, then its children
        echo $((SECONDS - started)) >"$build/$target.wall"
        # Stopped by its CPU budget (SIGINT), with nothing found: a clean end.
        if ((status != 0)) && grep -q 'libFuzzer: run interrupted' "$build/$target.log" &&
            ! grep -qE '==ERROR|runtime error|deadly signal' "$build/$target.log"; then
            status=0
        fi
        exit $status
    )
}

# Interrupts PID (libFuzzer then stops cleanly and prints its statistics)
# once its user + system time reaches SECONDS.
stop_after_cpu_seconds() {
    local pid=$1 limit=$2 ticks_per_second
    ticks_per_second=$(getconf CLK_TCK)
    while [[ -r /proc/$pid/stat ]]; do
        local ticks
        ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null) || return 0
        if ((ticks >= limit * ticks_per_second)); then kill -INT "$pid" 2>/dev/null; return 0; fi
        sleep 5
    done
}

# Seconds of CPU (user + system) from the last line of `times` ("61m2.5s 0m1.2s").
cpu_seconds() {
    awk 'END { total = 0
           for (i = 1; i <= NF; i++) { split($i, part, "m"); sub("s", "", part[2]); total += part[1] * 60 + part[2] }
           printf "%.0f", total }' "$1" 2>/dev/null || echo "?"
}

failed=()
running=0
declare -A pid_of
for target in "${targets[@]}"; do
    [[ -x $build/fuzz_$target ]] || { echo "no fuzz target '$target'" >&2; exit 2; }
    run_one "$target" &
    pid_of[$target]=$!
    running=$((running + 1))
    if ((running >= jobs)); then wait -n || true; running=$((running - 1)); fi
done
for target in "${targets[@]}"; do
    if wait "${pid_of[$target]}"; then status=ok; else status=FAILED; failed+=("$target"); fi
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/$target.log" | grep -o '[0-9]*$' || echo "?")
    cov=$(grep -o 'cov: [0-9]*' "$build/$target.log" | tail -1 | grep -o '[0-9]*' || echo "?")
    echo "fuzz_$target: $status, $runs executions in $(cat "$build/$target.wall") s ($(cpu_seconds "$build/$target.cpu") s of CPU), coverage $cov edges"
done
if ((${#failed[@]})); then
    for target in "${failed[@]}"; do
        echo "--- fuzz_$target ($build/$target.log) ---" >&2
        grep -A30 -m1 -E '==ERROR|runtime error|deadly signal|out-of-memory|timeout' "$build/$target.log" >&2 || tail -30 "$build/$target.log" >&2
    done
    exit 1
fi
