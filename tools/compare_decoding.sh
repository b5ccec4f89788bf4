#!/usr/bin/env bash
# BLEU of a general-purpose model on every domain's SPLIT set with each
# decoding setting of issue 36: fp32, int8, and each with the model's lexical
# shortlist, all from one `nmt bench -r` run per set (beam 5, batch 32, two
# threads, the model's tuned length penalty; lines translated whole, so the
# figures can differ a little from tools/evaluate_general.sh's, which splits
# sentences and checks placeholders). Prints one row per domain.
#
# Usage: tools/compare_decoding.sh MODEL DIRECTION SPLIT [DATA_DIR] [NMT_BINARY] [DOMAINS...]
#   as tools/evaluate_general.sh; SPLIT dev (to choose) or test (once).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/general_pair.sh
general_eval_args "$@"
printf '%-9s %6s %8s %8s %15s %15s\n' domain lines fp32 int8 fp32+shortlist int8+shortlist
for domain in "${domains[@]}"; do
    source=$data/$domain.$split.$src reference=$data/$domain.$split.$trg
    "$nmt" bench -m "$model" -i "$source" -r "$reference" --beam-sizes 5 --batch-sizes 32 --threads 2 --json |
        python3 -c '
import json, sys
rows = {(r["precision"] + ("+shortlist" if r["shortlist"] else "")): r["bleu"] for r in map(json.loads, sys.stdin)}
cells = ["%.2f" % rows[k] if k in rows else "-" for k in ("fp32", "int8", "fp32+shortlist", "int8+shortlist")]
print("%-9s %6s %8s %8s %15s %15s" % (sys.argv[1], sys.argv[2], *cells))' "$domain" "$(wc -l <"$source")"
done
