# Shared helpers for the CLI tests in tests/cli/. Each test is run by ctest as
#   bash tests/cli/NAME.sh <path-to-nmt> <source-dir>
# and starts with:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#   cli_test_setup "$@"
# which sets NMT (the binary), SOURCE_DIR and TMP (a directory removed on exit).
#
# ctest also runs this file itself (it matches tests/cli/*.sh): executed rather
# than sourced, it checks that the fixture every other test relies on works,
# so a broken `nmt vocab` or `nmt init` shows up once, under its own name.

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# expect_eq WHAT EXPECTED GOT
expect_eq() {
    [[ "$2" == "$3" ]] || fail "$1: expected '$2', got '$3'"
}

cli_test_setup() {
    NMT=${1:?usage: bash $0 <path-to-nmt> [source-dir]}
    SOURCE_DIR=${2:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
    [[ -x "$NMT" ]] || fail "$NMT is not an executable"
    NMT=$(cd "$(dirname "$NMT")" && pwd)/$(basename "$NMT")
    command -v python3 >/dev/null || fail "python3 is needed to check JSON and XML output"
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/nmt-cli.XXXXXX")
    trap 'rm -rf "$TMP"' EXIT
    # One thread: the tests check behaviour, not speed, and OpenMP threads
    # spinning against each other under `ctest -j` can make a run 10x slower.
    export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
}

# Runs nmt, killed after 60 s so that a hang fails the test instead of
# stalling ctest. Exit status: nmt's own, 124 on timeout, 128+N on signal N.
nmt() {
    timeout --kill-after=5 60 "$NMT" "$@"
}

# make_corpus FILE [LINES]: deterministic English-like sentences from a
# small word list: enough text for a 200-piece SentencePiece model.
make_corpus() {
    python3 - "$1" "${2:-2000}" <<'EOF'
import random, sys
random.seed(1)
words = ("the a an this that cat dog man woman child children people runs walks sees looks big small "
         "red blue green yellow black white house street park ball with on in at and plays eats drinks "
         "water quickly slowly over under near girl boy girls boys two three four group young old "
         "sitting standing wearing shirt hat jacket bike car road beach grass tree table food camera "
         "music guitar dances jumps rides holds building city crowd snow field river mountain outside "
         "inside front behind").split()
with open(sys.argv[1], "w") as out:
    for _ in range(int(sys.argv[2])):
        n = random.randint(3, 14)
        sentence = " ".join(random.choice(words) for _ in range(n)).capitalize()
        out.write(sentence + random.choice(".!?,") + "\n")
EOF
}

# make_model DIR [nmt init options...]: DIR/spm.model (200 pieces) and
# DIR/model.nmt, a tiny model with random weights: its translations are
# nonsense, but the same on every run.
make_model() {
    local dir=$1
    shift
    mkdir -p "$dir"
    [[ -f "$dir/corpus.en" ]] || make_corpus "$dir/corpus.en"
    if [[ ! -f "$dir/spm.model" ]]; then
        nmt vocab -i "$dir/corpus.en" --size 200 -o "$dir/spm" 2>"$dir/vocab.log" ||
            fail "nmt vocab failed: $(cat "$dir/vocab.log")"
    fi
    nmt init --vocab "$dir/spm.model" --dim-emb 16 --dim-rnn 16 --dim-dec 32 --dim-attention 16 --seed 1 \
        -o "$dir/model.nmt" "$@" 2>"$dir/init.log" ||
        fail "nmt init failed: $(cat "$dir/init.log")"
}

# make_reverse_task SEED VALID_LINES: a toy task for the training tests, in
# the current directory: train.src and train.tgt, 600 sequences of 2 to 7
# letters and the same sequences reversed; valid.src and valid.tgt, their
# first VALID_LINES lines. (Needs no nmt binary, so that tests which do not
# call cli_test_setup can use it too.)
make_reverse_task() {
    awk -v seed="$1" 'BEGIN { srand(seed); for (i = 0; i < 600; i++) { n = 2 + int(rand() * 6); s = ""; t = "";
           for (j = 0; j < n; j++) { c = substr("abcdefgh", 1 + int(rand() * 8), 1); s = s (j ? " " : "") c; t = c (j ? " " : "") t }
           print s > "train.src"; print t > "train.tgt" } }'
    head -n "$2" train.src >valid.src
    head -n "$2" train.tgt >valid.tgt
}

# input_line_count FILE: the number of lines as nmt reads them: every '\n'
# ends a line, and text after the last '\n' is one more line.
input_line_count() {
    python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); print(d.count(b"\n") + (1 if d and not d.endswith(b"\n") else 0))' "$1"
}

# check_no_crash WHAT STATUS: fails when nmt crashed (signal) or timed out.
check_no_crash() {
    local what=$1 status=$2
    ((status != 124)) || fail "$what: timed out after 60 s"
    ((status < 128)) || fail "$what: killed by signal $((status - 128)) (exit status $status)"
}

# expect_one_error WHAT NAME COMMAND...: COMMAND fails with one line
# "nmt: error: ..." on stderr (kept in $TMP/stderr) containing NAME.
expect_one_error() {
    local what=$1 name=$2 status=0
    shift 2
    "$@" 2>"$TMP/stderr" || status=$?
    check_no_crash "$what" "$status"
    ((status != 0)) || fail "$what: expected a non-zero exit status, got 0"
    [[ $(wc -l <"$TMP/stderr") == 1 ]] || fail "$what: expected one line on stderr, got: $(cat "$TMP/stderr")"
    local message
    message=$(cat "$TMP/stderr")
    [[ $message == "nmt: error: "* ]] || fail "$what: expected stderr to start with 'nmt: error: ', got '$message'"
    [[ $message == *"$name"* ]] || fail "$what: expected the message to name '$name', got '$message'"
}

# expect_error_names WHAT NAME...: the last expect_one_error's message names each NAME too.
expect_error_names() {
    local what=$1 name
    shift
    for name in "$@"; do
        grep -qF -- "$name" "$TMP/stderr" || fail "$what: expected the message to name '$name', got '$(cat "$TMP/stderr")'"
    done
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    cli_test_setup "$@"
    make_model "$TMP/m"
    [[ -s "$TMP/m/model.nmt" ]] || fail "nmt init wrote no model"
    out=$(printf 'A small dog runs.\n' | nmt translate -m "$TMP/m/model.nmt" -q)
    [[ -n "$out" ]] || fail "the test model translated 'A small dog runs.' to an empty line"
    echo "ok: test fixture (nmt vocab + nmt init + nmt translate)"
fi
