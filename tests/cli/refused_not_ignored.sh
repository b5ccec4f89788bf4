#!/usr/bin/env bash
# Issue 66: what nmt cannot do as asked is refused in one line, never
# silently done otherwise: a broken TOML config, a bare option name in one,
# --symmetrize with nothing to symmetrise, a model of other languages than
# --from/--to, a benchmark of blank lines. align's warnings carry the nmt:
# prefix and the name of the file they are about.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup "$@"
cd "$TMP"

make_model "$TMP"
printf 'a small dog runs\nthe cat plays\n' >src.txt

# train --config: TOML as TOML 1.0 reads it (toml++), not CLI11's guesses.
config_error() {
    local what=$1 name=$2 text=$3
    printf '%s\n' "$text" >bad.toml
    expect_one_error "$what" "$name" nmt train --config bad.toml -o new.nmt
    [[ -e new.nmt ]] && fail "$what: a model was written"
    true
}
config_error "an unclosed list" "bad.toml: line 1: Error while parsing array" 'warmup = [1,2'
config_error "a bare value option's name" "bad.toml: line 1: Error while parsing key-value pair" 'valid-source'
config_error "a bare flag's name" "bad.toml: line 2: Error while parsing key-value pair" $'lr = 0.001\nquiet'
config_error "an unclosed string" "bad.toml: line 1:" 'valid-source = "dev.en'
config_error "a date" "bad.toml: line 1: key 'warmup' holds a value no option takes" 'warmup = 1979-05-27'
config_error "a nested section" "section 'train.more' is nested" $'[train.more]\nlr = 1'
config_error "a wrong type" "bad.toml: --warmup: 'abc' is not a whole number" 'warmup = "abc"'
config_error "an unknown section" "bad.toml: unknown section" $'[translate]\nlr = 1'
config_error "a non-ASCII character outside a comment line" "bad.toml: line 2: a non-ASCII character" \
    $'# caf\xc3\xa9 is fine here\nlr = 1 \xd1\x83'
# What is valid still applies: a flag as `true`, lists, a [train] section.
printf '[train]\nquiet = true\nwarmup = 7\nsentencepiece-alphas = [0.1]\n' >good.toml
status=0
nmt train --config good.toml -o new.nmt 2>err.txt || status=$?
grep -q "train-source" err.txt || fail "a valid config should get as far as the missing data: $(cat err.txt)"

# align --symmetrize needs two directions.
expect_one_error "--symmetrize alone" "--symmetrize combines two directions' links: give --reverse-model" \
    nmt align -m model.nmt -i src.txt -r src.txt --symmetrize union
nmt align -m model.nmt -i src.txt -r src.txt >/dev/null 2>&1 || fail "align without --symmetrize failed"

# -m naming a model of other languages than --from/--to.
captions=$SOURCE_DIR/models/en-fr.captions.nmt
expect_one_error "-m en-fr with --from de --to en" "translates en->fr, not --from de" \
    nmt translate -m "$captions" --from de --to en -i src.txt
expect_one_error "-m en-fr with --to de" "translates en->fr, not --to de" nmt translate -m "$captions" --to de -i src.txt
expect_one_error "align -m en-fr with --from de" "translates en->fr, not --from de" \
    nmt align -m "$captions" --from de -i src.txt -r src.txt
nmt translate -m "$captions" --from en --to fr -i src.txt >/dev/null 2>&1 || fail "-m with its own languages failed"

# bench on blank lines: nothing to measure.
printf '\n  \n\n' >blank.txt
expect_one_error "bench on blank lines" "blank.txt: no text to translate (all 3 lines are blank)" \
    nmt bench -m model.nmt -i blank.txt

# align's warnings: the nmt: prefix and the file.
printf 'a small \xff dog\n' >bad-utf8.txt
nmt align -m model.nmt -i bad-utf8.txt -r bad-utf8.txt -o /dev/null 2>err.txt || fail "align failed: $(cat err.txt)"
grep -q "^nmt: warning: bad-utf8.txt and bad-utf8.txt: line 1: invalid UTF-8" err.txt ||
    fail "align's warning should start 'nmt: warning: FILE': $(cat err.txt)"

echo "ok: broken configs, idle options, mismatched models and empty benchmarks are refused, not ignored"
