#!/usr/bin/env bash
# Interactive use: `nmt translate` on a pipe answers each line as soon as its
# '\n' arrives, without waiting for more input or for end of input, in text,
# n-best and JSON Lines output alike. The translator runs as a coprocess; a
# line is written, its answer must come back within 10 s while stdin is still
# open, and only then is the next line written.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
trap '' PIPE  # if the translator dies, our writes fail with a message instead of killing the test

make_model "$TMP"
MODEL=$TMP/model.nmt

lines=("A small dog runs." "" "The girl plays with a red ball." "   " "Two men sit near the river.")
printf '%s\n' "${lines[@]}" >"$TMP/in.txt"
mapfile -t expected < <(nmt translate -m "$MODEL" -q -i "$TMP/in.txt")
expect_eq "lines translated from a file" "${#lines[@]}" "${#expected[@]}"

# start ARGS...: runs `nmt translate -m MODEL ARGS...` as a coprocess; sets
# TO (its stdin), FROM (its stdout) and PID.
start() {
    : >"$TMP/stderr"
    coproc TRANSLATOR { exec "$NMT" translate -m "$MODEL" "$@" 2>>"$TMP/stderr"; }
    PID=$TRANSLATOR_PID
    TO=${TRANSLATOR[1]}
    exec {FROM}<&"${TRANSLATOR[0]}"  # our own copy: bash drops TRANSLATOR when the process ends
}

send() {
    printf '%s' "$1" >&"$TO" || fail "cannot write to nmt translate (it died?); stderr: $(cat "$TMP/stderr")"
}

# receive WHAT: one line of output into $got, or fail after 10 s.
receive() {
    IFS= read -r -t 10 got <&"$FROM" ||
        fail "no output line within 10 s for $1 while stdin stays open (output not flushed per line?);" \
            "stderr: $(cat "$TMP/stderr")"
}

# finish: closes stdin; nmt must then end cleanly with nothing more to say.
finish() {
    exec {TO}>&-
    local extra status=0
    if IFS= read -r -t 10 extra <&"$FROM"; then fail "unexpected extra output line: '$extra'"; fi
    wait "$PID" || status=$?
    exec {FROM}<&-
    expect_eq "exit status after end of input (stderr: $(cat "$TMP/stderr"))" 0 "$status"
}

# --- Text: each answer arrives before the next line is written.
start
for i in "${!lines[@]}"; do
    send "${lines[$i]}"$'\n'
    receive "line $((i + 1)) '${lines[$i]}'"
    expect_eq "streamed translation of line $((i + 1)) '${lines[$i]}' (same as from a file)" "${expected[$i]}" "$got"
done
# A line that arrives in two writes is translated once, whole.
send "A small "
if IFS= read -r -t 1 got <&"$FROM"; then
    fail "answered '$got' before the line was complete (no '\\n' yet)"
fi
send "dog runs."$'\n'
receive "a line written in two parts"
expect_eq "translation of a line written in two parts" "${expected[0]}" "$got"
finish

# --- JSON Lines: one object per line, ids counting input lines from 0.
start --format jsonl
for i in 0 1 2; do
    send "${lines[$i]}"$'\n'
    receive "line $((i + 1)) in --format jsonl"
    python3 - "$got" "$i" "${lines[$i]}" "${expected[$i]}" <<'EOF' || fail "--format jsonl, line $((i + 1)): got '$got'"
import json, sys
got, index, source, translation = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
o = json.loads(got)
problems = []
for key, want in (("id", index), ("source", source), ("translation", translation)):
    if o.get(key) != want:
        problems.append(f"{key}: expected {want!r}, got {o.get(key)!r}")
if not source and (o.get("attention") != [] or o.get("target_pieces") != []):
    problems.append("an empty line should give empty attention and target_pieces")
if problems:
    sys.exit("; ".join(problems))
EOF
done
finish

# --- n-best: all N hypotheses of a line arrive before the next line is written.
start --n-best 2
id=0
for i in 0 2; do
    send "${lines[$i]}"$'\n'
    for k in 1 2; do
        receive "hypothesis $k of input line $((id + 1)) with --n-best 2"
        [[ "$got" == "$id ||| "* ]] || fail "--n-best 2, input line $((id + 1)): expected a line starting '$id ||| ', got '$got'"
    done
    id=$((id + 1))
done
finish

echo "ok: translate answers each line at once (text, jsonl, n-best)"
