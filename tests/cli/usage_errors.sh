#!/usr/bin/env bash
# A usage error is one line, "nmt: error: ...", naming the option, with exit
# status 64 (README, "Exit status"), where CLI11 printed two lines without the
# prefix and exited 105-114 (issue 38); empty values, impossible thread counts
# and zero batch sizes are refused; --help and --version still exit 0.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"

make_model "$TMP"
printf 'a small dog\n' >"$TMP/one.txt"

# usage_error WHAT NAME COMMAND...: one line naming NAME, exit status 64.
usage_error() {
    local what=$1 name=$2 status=0
    shift 2
    expect_one_error "$what" "$name" "$@" </dev/null
    "$@" </dev/null >/dev/null 2>&1 || status=$?
    expect_eq "$what: exit status" 64 "$status"
}

usage_error "beam size 0" "--beam-size" nmt translate -m "$TMP/model.nmt" --beam-size 0
usage_error "an unknown option" "--no-such-option" nmt translate --no-such-option
usage_error "no subcommand" "subcommand" nmt
usage_error "an empty -i" "--input: the value is empty" nmt translate -m "$TMP/model.nmt" -i ''
usage_error "an empty -o" "--output: the value is empty" nmt translate -m "$TMP/model.nmt" -o ''
usage_error "an empty -m" "--model: the value is empty" nmt translate -m ''
for threads in -1 1000; do
    usage_error "--threads $threads" "--threads" nmt translate -m "$TMP/model.nmt" --threads "$threads"
done
usage_error "bench --batch-sizes 0" "--batch-sizes" nmt bench -m "$TMP/model.nmt" -i "$TMP/one.txt" --batch-sizes 0

# Issue 66: each message says what is wrong with the value given.
usage_error "-b 1e3" "--beam-size: '1e3' is not a whole number" nmt translate -m "$TMP/model.nmt" -b 1e3
usage_error "-b abc" "--beam-size: 'abc' is not a whole number" nmt translate -m "$TMP/model.nmt" -b abc
usage_error "--threads 1.5" "--threads: '1.5' is not a whole number" nmt translate -m "$TMP/model.nmt" --threads 1.5
usage_error "-b 2000" "--beam-size: Value 2000 not in range 1 to 1000" nmt translate -m "$TMP/model.nmt" -b 2000
usage_error "--length-penalty 1e300" "--length-penalty: '1e300' is too large" \
    nmt translate -m "$TMP/model.nmt" --length-penalty 1e300
usage_error "--length-penalty nan" "--length-penalty: 'nan' is not a finite number" \
    nmt translate -m "$TMP/model.nmt" --length-penalty nan
usage_error "train --batch-tokens 0" "--batch-tokens: must be above 0, not 0" nmt train --batch-tokens 0
usage_error "train --warmup abc" "--warmup: 'abc' is not a whole number" nmt train --warmup abc
usage_error "train --lr -1" "--lr: must be above 0, not -1" nmt train --lr -1
usage_error "an unknown command" "unknown command 'frobnicate' (the commands are translate, " nmt frobnicate
# No message holds DBL_MAX's 310 digits.
for option in --batch-tokens --warmup --lr --clip-norm --label-smoothing --dropout-rnn --max-steps --patience \
    --valid-every --mpi-timeout; do
    message=$(nmt train "$option" -5 2>&1 || true)
    ((${#message} < 200)) || fail "train $option -5: a message of ${#message} characters: $message"
    [[ $message == *"$option"* ]] || fail "train $option -5 does not name the option: $message"
done

nmt --version >/dev/null || fail "--version should exit 0"
nmt translate --help >/dev/null || fail "translate --help should exit 0"
nmt translate -m "$TMP/model.nmt" -i "$TMP/one.txt" --threads 1 >/dev/null 2>&1 || fail "--threads 1 should be accepted"
echo "ok: usage errors are one line with exit status 64 saying what is wrong; empty values and impossible thread counts are refused"
