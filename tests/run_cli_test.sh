#!/usr/bin/env bash
# ctest runs each tests/cli/*.sh through this:
#   bash tests/run_cli_test.sh SCRIPT <path-to-nmt> <source-dir>
# A script passes only when it exits 0 and the last line it prints is
# "ok: ...": one that exits 0 early (a skipped section, a stray `exit 0`) or
# checks nothing at all fails instead of passing unnoticed.
set -uo pipefail
script=${1:?usage: bash run_cli_test.sh SCRIPT ARGS...}
shift
stdout=$(mktemp "${TMPDIR:-/tmp}/nmt-cli-stdout.XXXXXX")
trap 'rm -f "$stdout"' EXIT
bash "$script" "$@" | tee "$stdout"
status=${PIPESTATUS[0]}
((status == 0)) || exit "$status"
last=$(tail -n 1 "$stdout")
if [[ "$last" != "ok: "* ]]; then
    echo "FAIL: $(basename "$script") exited 0 without printing its final \"ok: ...\" line" \
        "(last line: '${last}'): it stopped early or ran no checks" >&2
    exit 1
fi
