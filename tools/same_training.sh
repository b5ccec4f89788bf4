#!/usr/bin/env bash
# Checks that a change leaves training bit for bit as it was (issue 39): the
# same 300 updates of three small models, one per decoder style, with each of
# the features that have their own code paths (conditional: LSTM, lexical
# model, layer normalisation, subword sampling; Bahdanau: guided alignment,
# tied embeddings, word dropout; Luong: general attention, three encoder
# layers, recurrent dropout), on two threads, by two binaries; then compares
# every tensor of their models and checkpoints (Adam's moments included).
# About a minute per binary on two cores.
#
# Usage: tools/same_training.sh OLD_NMT NEW_NMT [DATA_DIR] [WORK_DIR]
#   OLD_NMT, NEW_NMT: copies of the binaries (e.g. built before and after the
#   change); DATA_DIR (default ../shared/data) has multi30k/; WORK_DIR
#   (default runs/same-training) gets the runs.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "${1:?usage: tools/same_training.sh OLD_NMT NEW_NMT [DATA_DIR] [WORK_DIR]}")
new=$(realpath "${2:?usage: tools/same_training.sh OLD_NMT NEW_NMT [DATA_DIR] [WORK_DIR]}")
data=${3:-../shared/data}
work=${4:-runs/same-training}
vocab=$(realpath vocab/multi30k.en-fr.model)
mkdir -p "$work"
head -3000 "$data/multi30k/train.en" >"$work/train.en"
head -3000 "$data/multi30k/train.fr" >"$work/train.fr"
head -50 "$data/multi30k/test_2016_flickr.en" >"$work/valid.en"
head -50 "$data/multi30k/test_2016_flickr.fr" >"$work/valid.fr"
cd "$work"
export OMP_WAIT_POLICY=passive
[[ -s links.txt ]] || "$old" align --statistical -i train.en -r train.fr -o links.txt 2>/dev/null

train() {  # BINARY TAG
    for style in conditional bahdanau luong; do
        case $style in
            conditional) extra=(--lexical-model --layer-norm --sentencepiece-alphas 0.1 --dec-cell lstm) ;;
            bahdanau) extra=(--guided-alignment links.txt --tied-embeddings --dropout-src 0.1) ;;
            luong) extra=(--attention general --enc-depth 3 --dropout-rnn 0.1) ;;
        esac
        "$1" train --vocab "$vocab" --train-source train.en --train-target train.fr \
            --valid-source valid.en --valid-target valid.fr --dec-style $style "${extra[@]}" \
            --dim-emb 32 --dim-rnn 32 --dim-dec 48 --dim-attention 24 --batch-tokens 400 --max-steps 300 \
            --valid-every 150 --save-every 150 --valid-beam 2 --threads 2 --seed 7 --exponential-smoothing 1e-3 \
            -o "$style.$2.nmt" --overwrite --quiet
    done
}
train "$old" old
train "$new" new

python3 - <<'PY'
import json, struct, sys
def tensors(path):
    data = open(path, 'rb').read()
    size = struct.unpack('<Q', data[:8])[0]
    header = json.loads(data[8:8 + size])
    header.pop('__metadata__', None)  # provenance: command lines and times differ
    return header, data[8 + size:]
same = True
for style in ['conditional', 'bahdanau', 'luong']:
    for suffix in ['.nmt', '.nmt.checkpoint']:
        equal = tensors(f'{style}.old{suffix}') == tensors(f'{style}.new{suffix}')
        same &= equal
        print(f'{style}{suffix}: ' + ('identical tensors' if equal else 'DIFFERENT'))
sys.exit(0 if same else 1)
PY
