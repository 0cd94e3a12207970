#!/usr/bin/env bash
# The learned segmenter's rows of results/segmentation/: one segmenter per treebank
# (training_config/segmenter.jsonnet; Chinese: segmenter_pieces.jsonnet, multilingual-e5-small's word pieces as a
# feature, as `make model` picks for languages written without spaces), scored on its test file beside spaCy's
# rules (scripts/segmenter_eval.py).
#   bash scripts/segmenter_rows.sh [en_ewt cy_ccg de_gsd zh_gsd grc_perseus]
# English-EWT and Welsh-CCG train on their train file and validate on dev. German-GSD, Chinese-GSD and Ancient
# Greek-Perseus have only dev and test in ../shared/ud/: their segmenter trains on the first 90 % of the dev
# file's sentences and validates on the last 10 % (experiments/segmenter_<name>/dev_{train,heldout}.conllu),
# and the rows say so. Segmenters go to experiments/<config>_<name>/ (a finished one is kept).
# EVAL_OPTIONS goes to scripts/segmenter_eval.py (--shared-machine where other jobs run beside it).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BIN=.venv/bin
UD=${UD:-../shared/ud}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}

# name: language, folder, file prefix, whether the treebank has a train file
declare -A LANGUAGE=([en_ewt]=en [cy_ccg]=cy [de_gsd]=de [zh_gsd]=zh [grc_perseus]=grc)
declare -A FOLDER=([en_ewt]=data/UD_English-EWT [cy_ccg]=data/UD_Welsh-CCG [de_gsd]=$UD/UD_German-GSD
                   [zh_gsd]=$UD/UD_Chinese-GSD [grc_perseus]=$UD/UD_Ancient_Greek-Perseus)
declare -A CONFIG=([zh_gsd]=segmenter_pieces)

for name in "${@:-en_ewt cy_ccg de_gsd zh_gsd grc_perseus}"; do
  for name in $name; do
    folder=${FOLDER[$name]}
    config=${CONFIG[$name]:-segmenter}
    dir=experiments/${config}_$name
    mkdir -p "$dir"
    if [ -f "$folder/$name-ud-train.conllu" ]; then
        train=$folder/$name-ud-train.conllu dev=$folder/$name-ud-dev.conllu
        trained_on="$train (validation: $dev)"
    else
        train=$dir/dev_train.conllu dev=$dir/dev_heldout.conllu
        # the first 90 % of dev's sentences, the rest held out for validation; lines kept as they are
        "$BIN/python" - "$folder/$name-ud-dev.conllu" "$train" "$dev" <<'EOF'
import sys
blocks = [block for block in open(sys.argv[1], encoding="utf-8").read().split("\n\n") if block.strip()]
cut = int(len(blocks) * 0.9)
for path, part in ((sys.argv[2], blocks[:cut]), (sys.argv[3], blocks[cut:])):
    with open(path, "w", encoding="utf-8") as out:
        out.write("".join(block.strip("\n") + "\n\n" for block in part))
EOF
        trained_on="the first 90 % of the sentences of $folder/$name-ud-dev.conllu (validation: the last 10 %); no train file"
    fi
    if [ ! -f "$dir/model/model.tar.gz" ]; then
        recover=()
        [ -f "$dir/model/config.json" ] && recover=(--recover)
        TRAIN_DATA_PATH=$train VALIDATION_DATA_PATH=$dev "$BIN/allennlp" train "training_config/$config.jsonnet" \
            -s "$dir/model" --include-package seqgraph_allennlp "${recover[@]}" > "$dir/train.log" 2>&1
    fi
    "$BIN/python" scripts/segmenter_eval.py "$dir/model/model.tar.gz" "$folder/$name-ud-test.conllu" \
        --name "${name}_test" --language "${LANGUAGE[$name]}" --trained-on "$trained_on" ${EVAL_OPTIONS:-}
  done
done
