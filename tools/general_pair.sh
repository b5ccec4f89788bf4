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
