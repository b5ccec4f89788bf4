# Sourced by the Multi30k scripts: reads their PAIR argument, either a target
# language (fr or de: from English, as the shipped models translate) or a
# direction SRC-TRG (en-fr, en-de, fr-en, de-en). Sets src and trg, and
# foreign: the language that is not English, which names the joint
# vocabulary (vocab/multi30k.en-FOREIGN.model serves both directions) and
# picks the recipe (a reverse pair trains with its forward pair's recipe).
# Sets too the recipe's flags that every stage of training shares
# (tools/train_multi30k.sh, tools/distill_multi30k.sh): recipe_regularisation
# and recipe_validation, and sampling_flags, the pair's subword sampling.
# Defines translate_once too, for the scripts that train on a model's output.
multi30k_pair() {
    case $1 in
        fr | de) src=en trg=$1 ;;
        en-fr | en-de | fr-en | de-en) src=${1%-*} trg=${1#*-} ;;
        *)
            echo "$0: no Multi30k pair '$1' (fr, de, en-fr, en-de, fr-en or de-en)" >&2
            exit 2
            ;;
    esac
    if [[ $src == en ]]; then foreign=$trg; else foreign=$src; fi
    recipe_regularisation=(--dropout-emb 0.3 --dropout-hidden 0.5 --label-smoothing 0.1 --exponential-smoothing 5e-4)
    recipe_validation=(--valid-every 500 --save-every 500 --valid-beam 5 --patience 8)
    case $foreign in
        fr) sampling_flags=() ;;
        de) sampling_flags=(--sentencepiece-alphas 0.1) ;;
    esac
}

# translate_once NMT MODEL INPUT OUTPUT: beam 5, the model's tuned length
# penalty, two threads (as the experiments in models/EXPERIMENTS.md made their
# translations), written under another name first so that a killed decode is
# not kept; an OUTPUT already there is kept.
translate_once() {
    if [[ ! -f "$4" ]]; then
        "$1" translate -m "$2" -i "$3" -o "$4.tmp" --overwrite --beam-size 5 --threads 2 -q
        mv "$4.tmp" "$4"
    fi
}
