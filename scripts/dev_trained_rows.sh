#!/usr/bin/env bash
# Parser rows from raw text for the treebanks of ../shared/ud/ that have no train file (German-GSD, Chinese-GSD,
# Ancient Greek-Perseus): a segmenter and a parser (PARSER_CONFIG, coach_valid by default) trained on the first
# 90 % of the dev file's sentences and validated on the last 10 %, then the test file parsed from its raw text with
# the learned segmenter and with spaCy's rules, and from its gold tokens (scripts/raw_text_eval.py):
# results/raw_text/<name>_test_dev_trained.json.
#   bash scripts/dev_trained_rows.sh [de_gsd zh_gsd grc_perseus]
# The segmenter is the one scripts/segmenter_rows.sh trained on the same split (experiments/<config>_<name>/,
# run it first); the parser trains with scripts/treebank_model.sh into experiments/dev_trained_<name>/
# (a finished one is kept, a stopped one resumes).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BIN=.venv/bin
UD=${UD:-../shared/ud}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
declare -A FOLDER=([de_gsd]=$UD/UD_German-GSD [zh_gsd]=$UD/UD_Chinese-GSD [grc_perseus]=$UD/UD_Ancient_Greek-Perseus)
declare -A SEGMENTER=([zh_gsd]=segmenter_pieces)

for name in ${@:-de_gsd zh_gsd grc_perseus}; do
    [ -n "${FOLDER[$name]:-}" ] || { echo "error: $name: not one of ${!FOLDER[*]}" >&2; exit 2; }
    segmenter=experiments/${SEGMENTER[$name]:-segmenter}_$name
    [ -f "$segmenter/model/model.tar.gz" ] || { echo "error: $segmenter/model/model.tar.gz: train it first (bash scripts/segmenter_rows.sh $name)" >&2; exit 2; }
    dir=experiments/dev_trained_$name
    # the split under the treebank's own file names, so that treebank_model.sh reads the language from them
    mkdir -p "$dir/data"
    cp "$segmenter/dev_train.conllu" "$dir/data/$name-ud-train.conllu"
    cp "$segmenter/dev_heldout.conllu" "$dir/data/$name-ud-dev.conllu"
    cp "${FOLDER[$name]}/$name-ud-test.conllu" "$dir/data/$name-ud-test.conllu"
    TREEBANK=$dir/data MODEL_DIR=$dir/model SEGMENTER_MODEL=$segmenter/model/model.tar.gz bash scripts/treebank_model.sh
    "$BIN/python" scripts/raw_text_eval.py "$dir/model/model.tar.gz" "${FOLDER[$name]}/$name-ud-test.conllu" \
        --name "${name}_test_dev_trained" \
        --trained-on "the first 90 % of the sentences of ${FOLDER[$name]}/$name-ud-dev.conllu (validation: the last 10 %; no train file)"
done
