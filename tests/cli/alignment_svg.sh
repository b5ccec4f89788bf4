#!/usr/bin/env bash
# --alignment-svg DIR: one attention heatmap per line with something to
# translate, named by its 1-based line number (000003.svg), each well-formed
# SVG even when the text holds XML's special characters or invalid UTF-8;
# nothing for empty or blank lines; the translations themselves unchanged.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"

make_model "$TMP"
MODEL=$TMP/model.nmt
{
    printf 'A small dog runs.\n'                         # 1
    printf '\n'                                          # 2  empty: no SVG
    printf 'The <girl> & "boy" play'"'"'s ball.\n'       # 3  XML special characters
    printf '  \t \n'                                     # 4  blank: no SVG
    printf 'bad \xff bytes and ]]> too\n'                # 5  invalid UTF-8, CDATA end
    printf 'Two men sit near the river.'                 # 6  no final newline
} >"$TMP/in.txt"
expected_files="000001.svg 000003.svg 000005.svg 000006.svg"

nmt translate -m "$MODEL" -i "$TMP/in.txt" -q >"$TMP/plain.txt"
# A directory that does not exist yet, two levels deep: created.
status=0
nmt translate -m "$MODEL" -i "$TMP/in.txt" -q --alignment-svg "$TMP/svg/run1" >"$TMP/out.txt" || status=$?
check_no_crash "translate --alignment-svg" "$status"
expect_eq "exit status with --alignment-svg" 0 "$status"
cmp -s "$TMP/plain.txt" "$TMP/out.txt" || fail "--alignment-svg changed the translations"
expect_eq "SVG files written" "$expected_files" "$(cd "$TMP/svg/run1" && echo *)"

python3 - "$TMP/svg/run1" $expected_files <<'EOF' || fail "an SVG file is not well-formed (above)"
import os, sys
import xml.etree.ElementTree as ET
directory = sys.argv[1]
for name in sys.argv[2:]:
    path = os.path.join(directory, name)
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        sys.exit(f"{path}: not well-formed XML: {e}")
    if root.tag != "{http://www.w3.org/2000/svg}svg":
        sys.exit(f"{path}: root element is {root.tag}, expected an SVG <svg>")
    line = int(name.split(".")[0])
    title = root.find("{http://www.w3.org/2000/svg}title")
    if title is None or not (title.text or "").startswith(f"line {line}:"):
        sys.exit(f"{path}: expected a <title> starting 'line {line}:', got {None if title is None else title.text!r}")
    texts = "".join(root.itertext())
    if line == 3 and not all(word in texts for word in ("girl", "boy")):
        sys.exit(f"{path}: the source words of line 3 should appear in the heatmap's labels")
EOF

# An existing directory is reused: the second run rewrites 000001.svg, the rest stay.
nmt translate -m "$MODEL" -q --alignment-svg "$TMP/svg/run1" <<<"One more line." >/dev/null
expect_eq "SVG files after a second run into the same directory" "$expected_files" "$(cd "$TMP/svg/run1" && echo *)"
python3 -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$TMP/svg/run1/000001.svg" ||
    fail "000001.svg rewritten by the second run is not well-formed"

echo "ok: --alignment-svg writes one well-formed SVG per non-empty line"
