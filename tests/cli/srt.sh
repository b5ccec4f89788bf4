#!/usr/bin/env bash
# Subtitles with the shipped models: the real .srt under tests/data/srt
# (README there) translated en->fr and en->de, chosen by its extension.
# Numbers, timings and blank lines come out byte for byte, every cue keeps
# text of no more lines than it had, its text is translated (not the
# English), and the sentences that run across cues come out spread over the
# same cues. A block that is not a cue is copied with a warning naming its line.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
unset NMT_MODELS
SRT=$SOURCE_DIR/tests/data/srt/vim-subtitles-example.srt
export OMP_NUM_THREADS=2

# check SOURCE TRANSLATION: cue by cue, the same number and timing, text
# lines no more than the source's, and the text changed.
check() {
    python3 - "$1" "$2" <<'EOF'
import re, sys
def cues(path):
    blocks = re.split(r"\n\n+", open(path, encoding="utf-8").read().strip("\n"))
    return [b.split("\n") for b in blocks]
source, target = cues(sys.argv[1]), cues(sys.argv[2])
assert len(source) == len(target), f"{len(source)} cues in, {len(target)} out"
changed = 0
for s, t in zip(source, target):
    assert s[:2] == t[:2], f"number or timing changed: {s[:2]} -> {t[:2]}"
    assert 1 <= len(t) - 2 <= len(s) - 2, f"cue {s[0]}: {len(s) - 2} lines in, {len(t) - 2} out"
    changed += s[2:] != t[2:]
print(f"{sys.argv[2].split('/')[-1]}: {len(source)} cues, numbers and timings kept, {changed} translated")
assert changed >= len(source) - 2, "cues left in English"  # cue 7 is a URL
EOF
}

for lang in fr de; do
    nmt translate -q -m "$SOURCE_DIR/models/en-$lang.nmt" -i "$SRT" -o "$TMP/out.$lang.srt" ||
        fail "translating the subtitles into $lang failed"
    check "$SRT" "$TMP/out.$lang.srt" || fail "$lang subtitles (above)"
    # Blank lines between cues, and the file's last newline, as they were.
    expect_eq "$lang: blank lines" "$(grep -c '^$' "$SRT")" "$(grep -c '^$' "$TMP/out.$lang.srt")"
    expect_eq "$lang: lines with a timing" "$(grep -c -- '-->' "$SRT")" "$(grep -c -- '-->' "$TMP/out.$lang.srt")"
done
# "This is an example subtitle file / of the popular Subrip (srt) format"
# runs across cues 1 and 2: cue 1 holds the start of the French sentence,
# cue 2 the rest, and nothing is lost at the cut.
sed -n '3,4p;8,9p' "$TMP/out.fr.srt" >&2
grep -q -i "exemple" <(sed -n '3,4p' "$TMP/out.fr.srt") || fail "cue 1 should hold 'exemple'"
grep -q "srt" <(sed -n '8,9p;3,4p' "$TMP/out.fr.srt") || fail "the cut lost '(srt)'"

# --format srt on stdin, the same as -i.
nmt translate -q -m "$SOURCE_DIR/models/en-fr.nmt" --format srt <"$SRT" >"$TMP/stdin.srt"
cmp -s "$TMP/stdin.srt" "$TMP/out.fr.srt" || fail "--format srt on stdin differs from -i"

# A block that is not a cue: copied, with a warning naming its line.
{
    sed -n '1,4p' "$SRT"
    printf '\nnot a cue\n00:00:10 -> 00:00:11\nbroken text\n\n'
    sed -n '6,9p' "$SRT"
} >"$TMP/broken.srt"
nmt translate -m "$SOURCE_DIR/models/en-fr.nmt" -i "$TMP/broken.srt" -o "$TMP/broken.fr.srt" 2>"$TMP/err" ||
    fail "a file with a broken cue was refused"
grep -q "broken.srt: line 6: not a subtitle cue" "$TMP/err" || fail "no warning naming line 6: $(cat "$TMP/err")"
grep -q "^broken text$" "$TMP/broken.fr.srt" || fail "the broken block was not copied through"

# A document is read whole, so bounded: past 64 MB it is refused unread,
# with no output file.
if head -c 70000000 /dev/zero | nmt translate -m "$SOURCE_DIR/models/en-fr.nmt" --format srt -o "$TMP/big.srt" \
    2>"$TMP/err"; then
    fail "a 70 MB document was accepted"
fi
grep -q "stdin: larger than 64 MB" "$TMP/err" || fail "no size error: $(cat "$TMP/err")"
[[ ! -e "$TMP/big.srt" ]] || fail "a refused document left an output file"

echo "ok: subtitles translated en->fr and en->de with numbers, timings and cue lines kept"
