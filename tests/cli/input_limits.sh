#!/usr/bin/env bash
# Nothing a user points nmt at makes it read without end or eat memory
# (issue 38): a model that is a device, a pipe or a directory is refused
# before anything is read; references, configs and data files are read with a
# line-length or size limit; an endless input line is cut at 1 MiB, its rest
# skipped, while memory stays bounded; a directory is called one.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"

make_model "$TMP"
printf 'a small dog\n' >"$TMP/one.txt"

expect_error() {  # WHAT EXPECTED COMMAND...: stdin closed, so nothing waits on a terminal
    local what=$1 expected=$2
    shift 2
    expect_one_error "$what" "$expected" "$@" </dev/null
}

expect_error "a device as the model" "/dev/zero: is not a regular file" nmt translate -m /dev/zero
expect_error "a directory as the model" "$TMP: is a directory" nmt translate -m "$TMP"
mkfifo "$TMP/fifo.nmt"
expect_error "a FIFO as the model" "fifo.nmt: is not a regular file" nmt info "$TMP/fifo.nmt"
expect_error "score -r /dev/zero" "/dev/zero: line 1 is longer than" nmt score -r /dev/zero -i "$TMP/one.txt"
expect_error "score -r DIR" "$TMP: is a directory" nmt score -r "$TMP" -i "$TMP/one.txt"
expect_error "translate -i DIR" "$TMP: is a directory" nmt translate -m "$TMP/model.nmt" -i "$TMP"
expect_error "vocab -i DIR" "$TMP: is a directory" nmt vocab -i "$TMP" -o "$TMP/v" --size 100
expect_error "average DIR" "$TMP: is a directory" nmt average "$TMP" -o "$TMP/avg.nmt"
expect_error "train --config /dev/zero" "/dev/zero: larger than 1048576 bytes; not a config file?" \
    nmt train --config /dev/zero -o "$TMP/new.nmt"
printf 'garbage{{\n' >"$TMP/garbage.conf"
expect_error "train --config garbage" "garbage.conf: line 1: Error while parsing key-value pair" \
    nmt train --config "$TMP/garbage.conf" -o "$TMP/new.nmt"
expect_error "train --train-source DIR" "$TMP: is a directory" \
    nmt train --vocab "$TMP/spm.model" --train-source "$TMP" --train-target "$TMP/one.txt" -o "$TMP/new.nmt"

# A search that cannot fit in memory is refused at once, with the figure.
expect_error "beam 1000 x batch 4096" "may need up to" \
    nmt translate -m "$TMP/model.nmt" --beam-size 1000 --batch-size 4096 -i "$TMP/one.txt"
expect_error_names "beam 1000 x batch 4096" "--beam-size 1000 with --batch-size 4096" "GB"
# An n-best list widens the beam to its length: checked at the beam searched.
expect_error "n-best 1000 x batch 4096" "--n-best 1000 with --batch-size 4096" \
    nmt translate -m "$TMP/model.nmt" --n-best 1000 --batch-size 4096 -i "$TMP/one.txt"

# bench --lines N reads N lines and nothing after them (here a line past the limit).
{ printf 'a small dog\n'; head -c 2000000 /dev/zero | tr '\0' x; printf '\n'; } >"$TMP/long.txt"
nmt bench -m "$TMP/model.nmt" -i "$TMP/long.txt" --lines 1 --beam-sizes 1 --batch-sizes 1 >"$TMP/bench.out" 2>&1 ||
    fail "bench --lines 1 read past its first line: $(cat "$TMP/bench.out")"
grep -q "1 lines of" "$TMP/bench.out" || fail "bench --lines 1 should say it used 1 line: $(cat "$TMP/bench.out")"

# --list-models lists regular files only (through links).
mkdir -p "$TMP/models/en-xx.nmt"
ln -s /dev/zero "$TMP/models/en-yy.nmt"
ln -s "$TMP/model.nmt" "$TMP/models/en-zz.nmt"
listed=$(NMT_MODELS=$TMP/models nmt translate --list-models | grep "^en-[xyz][xyz]" || true)
expect_eq "models listed from a directory with a directory, a link to /dev/zero and a link to a model" \
    "en-zz	$TMP/model.nmt" "$listed"

# An endless line: nothing is printed for it (it never ends), but memory
# stays bounded: the peak resident set after 4 s of /dev/zero.
"$NMT" translate -m "$TMP/model.nmt" -i /dev/zero >/dev/null 2>&1 &
pid=$!
sleep 4
peak_kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
kill "$pid"
wait "$pid" 2>/dev/null || true
((peak_kb < 200000)) || fail "translate -i /dev/zero grew to $peak_kb KB in 4 s"

# A 3 MB line is cut at 1 MiB with a warning; the line after it is translated.
python3 -c "import sys; sys.stdout.write('dog ' * 750000 + '\na small dog\n')" >"$TMP/long.txt"
nmt translate -m "$TMP/model.nmt" -i "$TMP/long.txt" -o "$TMP/out.txt" 2>"$TMP/err" || fail "translate of a 3 MB line failed"
expect_eq "output lines for a 3 MB line and one more" 2 "$(wc -l <"$TMP/out.txt")"
grep -q "line 1: longer than 1048576 bytes" "$TMP/err" || fail "the cut line should be reported, said: $(cat "$TMP/err")"
echo "ok: models, data, references and configs are read with limits; directories are called so"
