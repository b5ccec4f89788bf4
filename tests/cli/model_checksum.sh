#!/usr/bin/env bash
# The checksum of a model's tensor data: one flipped bit inside the weights
# of a copy makes `nmt translate` and `nmt info` exit 1 with one line naming
# the file and saying it is damaged, and translate nothing. `nmt info
# --verify` says whether a file stores a checksum; a file without one (as
# every model written before) still loads, and `nmt convert` rewrites it with
# one, its tensor bytes unchanged.
# Usage: model_checksum.sh NMT_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
cd "$TMP"

make_model "$TMP"
echo "A small dog runs." >in.txt
nmt info --verify model.nmt >info.txt || fail "info --verify on a new model failed"
grep -q "^checksum: *verified" info.txt || fail "info --verify did not say the new model verified: $(cat info.txt)"

# python3 TOOL OUT [FLIP]: the data section's offset; a copy with one bit of
# the data section flipped (FLIP) or without the checksum in its header.
cat >tool.py <<'PY'
import json, struct, sys
raw = open("model.nmt", "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header, data = json.loads(raw[8:8 + n]), bytearray(raw[8 + n:])
def write(path, header, data):
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + data)
if sys.argv[1] == "flip":  # one bit in the middle of the weights, header untouched
    flipped = bytearray(raw)
    flipped[8 + n + len(data) // 2] ^= 0x04
    open("flipped.nmt", "wb").write(flipped)
elif sys.argv[1] == "strip":
    del header["__metadata__"]["data_xxh3_64"]
    write("older.nmt", header, data)
elif sys.argv[1] == "data":  # the data section of file argv[2], to compare
    raw = open(sys.argv[2], "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    sys.stdout.buffer.write(raw[8 + n:])
PY
python3 tool.py flip
python3 tool.py strip

expected="nmt: error: $TMP/flipped.nmt: the tensor data does not match its checksum: the file is damaged (re-download or re-convert it)"
for command in "translate -m flipped.nmt -i in.txt" "translate -m flipped.nmt -i in.txt --precision int8" "info flipped.nmt" \
    "info --verify flipped.nmt"; do
    status=0
    # shellcheck disable=SC2086
    nmt ${command//flipped.nmt/$TMP/flipped.nmt} >stdout 2>stderr || status=$?
    ((status == 1)) || fail "$command: expected exit status 1, got $status: $(cat stderr)"
    [[ $(cat stderr) == "$expected" ]] || fail "$command: expected '$expected', got '$(cat stderr)'"
    [[ ! -s stdout ]] || fail "$command: expected no output, got '$(head -c 200 stdout)'"
done

# A file without the checksum loads, and says so when asked.
nmt translate -m older.nmt -i in.txt >older.out 2>older.log || fail "a model without a checksum did not load: $(cat older.log)"
nmt translate -m model.nmt -i in.txt >model.out 2>/dev/null
cmp -s older.out model.out || fail "the model without a checksum translated differently"
nmt info --verify older.nmt >info.txt || fail "info --verify on a model without a checksum failed"
grep -q "^checksum: *no checksum stored" info.txt || fail "info --verify did not say 'no checksum stored': $(cat info.txt)"
nmt info --verify --json older.nmt | python3 -c 'import json, sys; assert json.load(sys.stdin)["checksum"] == {"stored": False}' ||
    fail "info --verify --json did not say stored: false"

# nmt convert without --storage adds the checksum and keeps every tensor byte.
nmt convert older.nmt -o rewritten.nmt 2>convert.log || fail "convert failed: $(cat convert.log)"
grep -q "^checksum: *verified" <<<"$(nmt info --verify rewritten.nmt)" || fail "the converted model has no checksum"
cmp -s <(python3 tool.py data older.nmt) <(python3 tool.py data rewritten.nmt) ||
    fail "convert without --storage changed the tensor data"
nmt info --json older.nmt >a.json && nmt info --json rewritten.nmt >b.json
cmp -s a.json <(sed 's/rewritten.nmt/older.nmt/' b.json) || fail "convert without --storage changed what info reports"

echo "ok: a flipped bit in the weights is refused naming the file; files without a checksum load and convert adds one"
