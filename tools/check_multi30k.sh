#!/usr/bin/env bash
# Checks Multi30k files against tools/multi30k.sha256, the exact files the
# shipped models were trained, tuned and scored on.
# Usage: tools/check_multi30k.sh MULTI30K_DIR FILE...   (e.g. train.en val.fr)
set -euo pipefail
dir=${1:?usage: tools/check_multi30k.sh MULTI30K_DIR FILE...}
shift
sums=$(cd "$(dirname "$0")" && pwd)/multi30k.sha256
for file in "$@"; do
    expected=$(awk -v f="multi30k/$file" '$2 == f { print $1 }' "$sums")
    [[ -n "$expected" ]] || { echo "tools/multi30k.sha256 has no checksum for $file" >&2; exit 1; }
    [[ -f "$dir/$file" ]] || { echo "$dir/$file: not found" >&2; exit 1; }
    actual=$(sha256sum "$dir/$file" | cut -d' ' -f1)
    [[ "$actual" == "$expected" ]] ||
        { echo "$dir/$file: not the Multi30k file the shipped models used (sha256 $actual, expected $expected)" >&2; exit 1; }
done
