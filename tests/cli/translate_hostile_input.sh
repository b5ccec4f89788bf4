#!/usr/bin/env bash
# Input a user did not mean to be hard: empty and whitespace-only lines, CRLF,
# invalid UTF-8, a NUL byte, a 5,000-word line, no final newline. Whatever
# comes in, `nmt translate` exits 0 with exactly one answer per input line, in
# order: empty lines stay empty at the same positions, repaired or cropped
# lines are reported on stderr by line number. Checked for plain text, for
# Moses n-best (--n-best 3) and for the JSON Lines of --alignments.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"

make_model "$TMP"
MODEL=$TMP/model.nmt
IN=$TMP/hostile.txt
{
    printf 'A small dog runs.\n'                 # 1
    printf '\n'                                  # 2  empty
    printf 'The girl plays.\r\n'                 # 3  CRLF
    printf 'bad \xff\xfe bytes\n'                # 4  invalid UTF-8
    printf 'cut \xe2\x82 short\n'                # 5  truncated 3-byte sequence
    printf 'nul \0 byte\n'                       # 6  NUL
    printf ' \t  \n'                             # 7  whitespace only
    python3 -c 'print(" ".join(["dog", "runs", "in", "the", "park"] * 1000))'  # 8  5,000 words
    printf '\n'                                  # 9  empty
    printf 'The last line has no newline'        # 10 no final '\n'
} >"$IN"
n_lines=$(input_line_count "$IN")
expect_eq "test input line count" 10 "$n_lines"
empty_lines="2 7 9"  # 1-based: lines with nothing to translate

# output_line_count FILE: lines of an output file, which must end with '\n'.
output_line_count() {
    python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit("output does not end with a newline") if d and not d.endswith(b"\n") else print(d.count(b"\n"))' "$1"
}

# --- Plain text.
status=0
nmt translate -m "$MODEL" -i "$IN" -o "$TMP/out.txt" 2>"$TMP/err.txt" || status=$?
check_no_crash "translate hostile input" "$status"
expect_eq "exit status on hostile input (stderr: $(head -c 2000 "$TMP/err.txt"))" 0 "$status"
expect_eq "output lines for $n_lines input lines" "$n_lines" "$(output_line_count "$TMP/out.txt")"
mapfile -t out <"$TMP/out.txt"
for n in $(seq 1 "$n_lines"); do
    is_empty=no
    [[ " $empty_lines " == *" $n "* ]] && is_empty=yes
    if [[ $is_empty == yes && -n "${out[$((n - 1))]}" ]]; then
        fail "line $n is empty or blank; expected an empty output line there, got '${out[$((n - 1))]:0:80}'"
    fi
done
# The warnings name the repaired and cropped lines.
for expect in "line 4: invalid UTF-8" "line 5: invalid UTF-8" "line 6: control characters" "line 8: "; do
    grep -q "^nmt: warning: $expect" "$TMP/err.txt" ||
        fail "expected a warning starting 'nmt: warning: $expect' on stderr; got: $(cat "$TMP/err.txt")"
done
grep -q "cropped" "$TMP/err.txt" || fail "the 5,000-word line 8 should be reported as cropped; stderr: $(cat "$TMP/err.txt")"
if grep -v '^nmt: warning: line [0-9]*: ' "$TMP/err.txt" | grep -q .; then
    fail "unexpected stderr lines: $(grep -v '^nmt: warning: line [0-9]*: ' "$TMP/err.txt")"
fi
# Same input on stdin, through a pipe: the same answers.
nmt translate -m "$MODEL" -q <"$IN" | cmp -s - "$TMP/out.txt" ||
    fail "translating the file on stdin gave different output from -i FILE"

# --- Moses n-best: every input id present, 0-based, in order, best first.
status=0
nmt translate -m "$MODEL" -i "$IN" --n-best 3 -q >"$TMP/nbest.txt" || status=$?
check_no_crash "translate --n-best 3" "$status"
expect_eq "exit status with --n-best 3" 0 "$status"
python3 - "$TMP/nbest.txt" "$n_lines" "$empty_lines" <<'EOF' || fail "--n-best 3 output is wrong (above)"
import sys
path, n_lines, empty = sys.argv[1], int(sys.argv[2]), {int(x) - 1 for x in sys.argv[3].split()}
by_id = {}
previous_id = -1
for number, line in enumerate(open(path, encoding="utf-8"), 1):
    fields = line.rstrip("\n").split(" ||| ")
    if len(fields) != 4 or not fields[2].startswith("F0= "):
        sys.exit(f"n-best line {number} is not 'id ||| hypothesis ||| F0= score ||| total': {line[:120]!r}")
    ident = int(fields[0])
    if ident < previous_id:
        sys.exit(f"n-best line {number}: id {ident} after id {previous_id}: ids must be in input order")
    previous_id = ident
    by_id.setdefault(ident, []).append((fields[1], float(fields[2][4:]), float(fields[3])))
if sorted(by_id) != list(range(n_lines)):
    sys.exit(f"n-best ids {sorted(by_id)}; expected every id 0..{n_lines - 1}")
for ident, hyps in by_id.items():
    if ident in empty:
        if [h[0] for h in hyps] != [""]:
            sys.exit(f"id {ident} is an empty input line; expected one empty hypothesis, got {hyps}")
        continue
    if not 1 <= len(hyps) <= 3:
        sys.exit(f"id {ident}: {len(hyps)} hypotheses, expected 1 to 3")
    totals = [h[2] for h in hyps]
    if totals != sorted(totals, reverse=True):
        sys.exit(f"id {ident}: total scores {totals} are not sorted best first")
EOF
# --n-best 3 keeps the default beam (5), so its first hypotheses are the plain output.
expect_eq "first hypotheses of --n-best 3 vs the plain output" \
    "$(md5sum <"$TMP/out.txt")" \
    "$(python3 -c '
import sys
seen = set()
for line in open(sys.argv[1], encoding="utf-8"):
    f = line.rstrip("\n").split(" ||| ")
    if f[0] not in seen:
        seen.add(f[0]); print(f[1])' "$TMP/nbest.txt" | md5sum)"

# --- --alignments: one JSON object per input line, attention rows summing to 1.
status=0
nmt translate -m "$MODEL" -i "$IN" --alignments "$TMP/align.jsonl" -q >"$TMP/out2.txt" || status=$?
check_no_crash "translate --alignments" "$status"
expect_eq "exit status with --alignments" 0 "$status"
cmp -s "$TMP/out.txt" "$TMP/out2.txt" || fail "--alignments changed the translations"
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$TMP/align.jsonl" ||
    fail "--alignments file is not valid JSON Lines"
python3 - "$TMP/align.jsonl" "$n_lines" "$empty_lines" "$TMP/out.txt" <<'EOF' || fail "--alignments content is wrong (above)"
import json, sys
path, n_lines, empty = sys.argv[1], int(sys.argv[2]), {int(x) - 1 for x in sys.argv[3].split()}
translations = open(sys.argv[4], encoding="utf-8").read().split("\n")[:-1]
objects = [json.loads(line) for line in open(path, encoding="utf-8")]
if len(objects) != n_lines:
    sys.exit(f"{len(objects)} JSON objects for {n_lines} input lines")
for i, o in enumerate(objects):
    where = f"alignments line {i + 1}"
    if o["id"] != i:
        sys.exit(f"{where}: id {o['id']}, expected {i}")
    if o["translation"] != translations[i]:
        sys.exit(f"{where}: translation {o['translation'][:60]!r} differs from the text output {translations[i][:60]!r}")
    if i in empty:
        for key in ("attention", "word_attention", "source_pieces", "target_pieces"):
            if o[key] != []:
                sys.exit(f"{where} is an empty input line: expected \"{key}\": [], got {str(o[key])[:80]}")
        continue
    for key, rows, cols in (("attention", len(o["target_pieces"]), len(o["source_pieces"])),
                            ("word_attention", len(o["target_words"]), len(o["source_words"]))):
        matrix = o[key]
        if len(matrix) != rows or any(len(r) != cols for r in matrix):
            sys.exit(f"{where}: \"{key}\" is not {rows} x {cols}")
        # Values are rounded to 4 decimals, so a row of n may be off by n * 0.00005.
        tolerance = max(1e-3, cols * 5e-5 + 1e-6)
        for t, row in enumerate(matrix):
            if abs(sum(row) - 1) > tolerance or min(row) < 0:
                sys.exit(f"{where}: \"{key}\" row {t} sums to {sum(row):.5f}, expected 1 +- {tolerance:.4f}")
if objects[7]["source_pieces"][-1] != "</s>" or len(objects[7]["source_pieces"]) > 1000:
    sys.exit("the cropped 5,000-word line should keep a bounded source ending in </s>")
EOF

echo "ok: hostile input gives one answer per line (text, n-best, alignments)"
