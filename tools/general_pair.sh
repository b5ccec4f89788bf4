# Sourced by the general-purpose model scripts (train_general.sh,
# finetune_guided.sh, make_guided_alignment.sh, make_shortlist.sh,
# ship_general.sh, evaluate_general.sh): general_pair DIRECTION checks it
# (en-fr, fr-en, en-de or de-en) and sets src and trg, and foreign: the
# language that is not English, which names the joint vocabulary and the
# prepared data (runs/data/general.en-FOREIGN) that both directions share.
general_pair() {
    case $1 in
        en-fr | fr-en | en-de | de-en) src=${1%-*} trg=${1#*-} ;;
        *)
            echo "$0: no direction '$1' (en-fr, fr-en, en-de or de-en)" >&2
            exit 2
            ;;
    esac
    if [[ $src == en ]]; then foreign=$trg; else foreign=$src; fi
}

# general_eval_args MODEL DIRECTION SPLIT [DATA_DIR] [NMT_BINARY] [DOMAINS...]:
# the arguments of the scripts that score a model domain by domain
# (evaluate_general.sh, compare_decoding.sh). Sets model, direction, split,
# data, nmt and the domains array, and prepares the data when missing.
general_eval_args() {
    local usage="usage: $0 MODEL DIRECTION SPLIT [DATA_DIR] [NMT_BINARY] [DOMAINS...]"
    model=${1:?$usage}
    direction=${2:?direction: en-fr, fr-en, en-de or de-en}
    split=${3:?split: dev or test}
    general_pair "$direction"
    data=${4:-runs/data/general.en-$foreign}
    nmt=${5:-build/nmt}
    shift $(( $# < 5 ? $# : 5 ))
    domains=("$@")
    (( ${#domains[@]} )) || domains=(tatoeba l10n ddtp news captions)
    [[ -f $data/tatoeba.$split.en ]] || python3 tools/prepare_general.py "$foreign" ../shared/data "$data" >/dev/null
}
