#!/usr/bin/env bash
# A model file that cannot be used (missing, truncated anywhere, corrupted
# header, not a model at all, a directory, a future format version, NaN
# weights) makes `nmt translate` and `nmt info` exit non-zero with exactly one
# line on stderr, "nmt: error: ..." naming the file: never a crash, never
# partial output. Bad options and an unreadable input file fail as clearly.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"

make_model "$TMP"
MODEL=$TMP/model.nmt
echo "A small dog runs." >"$TMP/in.txt"
size=$(stat -c %s "$MODEL")
header_end=$((8 + $(od -An -t u8 -N 8 "$MODEL" | tr -d ' ')))

# expect_one_error WHAT NAME COMMAND...: COMMAND fails cleanly, printing one
# line "nmt: error: ..." that contains NAME, and nothing on stdout.
expect_one_error() {
    local what=$1 name=$2 status=0
    shift 2
    "$@" >"$TMP/stdout" 2>"$TMP/stderr" || status=$?
    check_no_crash "$what" "$status"
    ((status != 0)) || fail "$what: expected a non-zero exit status, got 0"
    local lines
    lines=$(wc -l <"$TMP/stderr")
    [[ $lines == 1 ]] || fail "$what: expected exactly one line on stderr, got $lines: $(head -c 1000 "$TMP/stderr")"
    local message
    message=$(cat "$TMP/stderr")
    [[ $message == "nmt: error: "* ]] || fail "$what: expected stderr to start with 'nmt: error: ', got '$message'"
    [[ $message == *"$name"* ]] || fail "$what: expected the message to name '$name', got '$message'"
    [[ ! -s "$TMP/stdout" ]] || fail "$what: expected no output, got '$(head -c 200 "$TMP/stdout")'"
}

# expect_bad_model WHAT PATH: both translate and info refuse PATH.
expect_bad_model() {
    expect_one_error "translate -m: $1" "$2" nmt translate -m "$2" -i "$TMP/in.txt"
    expect_one_error "info: $1" "$2" nmt info "$2"
}

# patch FILE OFFSET BYTES: overwrite bytes in place (BYTES as for printf).
patch() {
    printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

expect_bad_model "missing file" "$TMP/no-such-model.nmt"

for n in 0 1 7 8 9 64 $((header_end - 1)) "$header_end" $((header_end + 1)) $((size / 2)) $((size - 1)); do
    head -c "$n" "$MODEL" >"$TMP/truncated-$n.nmt"
    expect_bad_model "model truncated to $n of $size bytes" "$TMP/truncated-$n.nmt"
done

for bytes in 'XXXXXXXXXXXX' '\0\0\0\0\0\0\0\0\0\0\0\0' '\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4' '}]}]}]}]}]}]'; do
    cp "$MODEL" "$TMP/corrupt.nmt"
    patch "$TMP/corrupt.nmt" 8 "$bytes"
    expect_bad_model "header bytes 8..20 overwritten with '$bytes'" "$TMP/corrupt.nmt"
done
cp "$MODEL" "$TMP/huge-length.nmt"
patch "$TMP/huge-length.nmt" 0 '\xff\xff\xff\xff\xff\xff\xff\x7f'
expect_bad_model "header length field 2^63-1" "$TMP/huge-length.nmt"

cp "$TMP/corpus.en" "$TMP/text.nmt"
expect_bad_model "a text file" "$TMP/text.nmt"
mkdir "$TMP/directory.nmt"
expect_bad_model "a directory" "$TMP/directory.nmt"

# Well-formed safetensors that are not (this version's) nmt models.
python3 - "$MODEL" "$TMP" <<'EOF'
import json, struct, sys
model, tmp = sys.argv[1], sys.argv[2]
def write(path, header, data):
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + data)
write(tmp + "/foreign.nmt", {"weight": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 8)
raw = open(model, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header, data = json.loads(raw[8:8 + n]), bytearray(raw[8 + n:])
future = dict(header, __metadata__=dict(header["__metadata__"], format_version="99"))
write(tmp + "/future.nmt", future, bytes(data))
begin = header["decoder.rnn.W"]["data_offsets"][0]
data[begin:begin + 4] = struct.pack("<f", float("nan"))
# Without its data checksum, as a file from before nmt stored one: else the
# checksum, not the NaN, is what refuses it (model_checksum.sh).
header["__metadata__"].pop("data_xxh3_64", None)
write(tmp + "/nan.nmt", header, bytes(data))
EOF
expect_bad_model "a safetensors file that is not an nmt model" "$TMP/foreign.nmt"
expect_bad_model "format version 99" "$TMP/future.nmt"
grep -q "version" "$TMP/stderr" || fail "format version 99: the message should say it is about the version: $(cat "$TMP/stderr")"
expect_bad_model "a NaN weight" "$TMP/nan.nmt"
grep -q "NaN" "$TMP/stderr" || fail "a NaN weight: the message should say so: $(cat "$TMP/stderr")"

# No -m and no installed model for the pair asked for.
expect_one_error "no installed model for xx->yy" "xx->yy" nmt translate --from xx --to yy -i "$TMP/in.txt"

# The input file.
expect_one_error "missing -i file" "$TMP/no-such-input.txt" nmt translate -m "$MODEL" -i "$TMP/no-such-input.txt"
mkdir "$TMP/input-dir"
expect_one_error "-i a directory" "$TMP/input-dir" nmt translate -m "$MODEL" -i "$TMP/input-dir"
if [[ $(id -u) != 0 ]]; then  # root reads files whatever their mode
    cp "$TMP/in.txt" "$TMP/unreadable.txt"
    chmod 000 "$TMP/unreadable.txt"
    expect_one_error "unreadable -i file" "$TMP/unreadable.txt" nmt translate -m "$MODEL" -i "$TMP/unreadable.txt"
fi

# Bad options: refused before any work, naming the option.
for option in "--beam-size 0" "--beam-size -3" "--n-best 0" "--batch-size 0" "--format xml" "--no-such-option" \
    "--max-length-factor nan" "--max-length-factor 1e30" "--max-length-factor -1" "--length-penalty nan"; do
    status=0
    # shellcheck disable=SC2086
    nmt translate -m "$MODEL" -i "$TMP/in.txt" $option >"$TMP/stdout" 2>"$TMP/stderr" || status=$?
    check_no_crash "$option" "$status"
    ((status != 0)) || fail "translate $option: expected a non-zero exit status, got 0"
    name=${option%% *}
    grep -q -- "$name" "$TMP/stderr" || fail "translate $option: expected a message naming $name, got '$(cat "$TMP/stderr")'"
    [[ ! -s "$TMP/stdout" ]] || fail "translate $option: expected no translation, got '$(cat "$TMP/stdout")'"
done

echo "ok: unusable models, inputs and options give one clear error"
