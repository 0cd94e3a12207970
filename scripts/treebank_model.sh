#!/usr/bin/env bash
# `make model TREEBANK=path/to/UD_X`: a segmenter and a parser for one UD treebank folder, the segmenter put
# inside the parser's archive, then the test scores from gold tokens and from raw text.
#
#   1. the parser (training_config/$PARSER_CONFIG.jsonnet, coach_valid by default) on the treebank's train
#      file until dev UAS has not improved for PATIENCE epochs, at most EPOCHS: MODEL_DIR/model.tar.gz;
#   2. the segmenter (training_config/segmenter.jsonnet; segmenter_pieces.jsonnet, with multilingual-e5-small's
#      word pieces as a feature, for a language written without spaces between words: zh, ja, lzh, yue, th)
#      on the same files: MODEL_DIR/segmenter/model.tar.gz,
#      then put inside the parser's archive (segmenter.tar.gz: `python -m seqgraph_allennlp.segmentation.attach`);
#   3. `allennlp evaluate` on the test file (gold tokens: MODEL_DIR/test_metrics.json) and
#      `scripts/raw_text_eval.py` (the test file's text, paragraphs as UD's raw text has them:
#      MODEL_DIR/raw_text.json), and prints both.
#
# SEGMENTER_CONFIG names another segmenter config (a path); SEGMENTER_MODEL a trained segmenter archive to put in
# the parser's archive instead of training one. The files: TREEBANK/*-ud-{train,dev,test}.conllu, or TRAIN_FILE,
# DEV_FILE and TEST_FILE (a treebank without a train split: train on its dev file, and say so). MODEL_DIR
# defaults to models/<treebank folder name>.
# Stopped, it resumes where it was (each training with --recover) when run again; a finished step is skipped.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

BIN=.venv/bin
TREEBANK=${TREEBANK:-${1:-}}
fail() { echo "error: $*" >&2; exit 2; }
[ -n "$TREEBANK" ] || fail "name a treebank folder: make model TREEBANK=path/to/UD_X"
[ -d "$TREEBANK" ] || fail "$TREEBANK: no such folder"

split_file() {
    local files=("$TREEBANK"/*-ud-"$1".conllu)
    [ -f "${files[0]}" ] || return 0
    [ "${#files[@]}" -eq 1 ] || fail "$TREEBANK has ${#files[@]} *-ud-$1.conllu files: name one with $(echo "$1" | tr a-z A-Z)_FILE"
    echo "${files[0]}"
}
TRAIN=${TRAIN_FILE:-$(split_file train)}
DEV=${DEV_FILE:-$(split_file dev)}
TEST=${TEST_FILE:-$(split_file test)}
[ -n "$TRAIN" ] || fail "$TREEBANK has no *-ud-train.conllu: name the file to train on with TRAIN_FILE (its dev file, say)"
[ -n "$DEV" ] || fail "$TREEBANK has no *-ud-dev.conllu: name the file to validate on with DEV_FILE"
[ -n "$TEST" ] || fail "$TREEBANK has no *-ud-test.conllu: name the file to test on with TEST_FILE"
for file in "$TRAIN" "$DEV" "$TEST"; do [ -f "$file" ] || fail "$file: no such file"; done
# the language: the files' prefix (en_ewt-ud-train.conllu: en), one for all three
languages=$(for file in "$TRAIN" "$DEV" "$TEST"; do basename "$file" | cut -d_ -f1; done | sort -u)
[ "$(echo "$languages" | wc -l)" -eq 1 ] || fail "$TREEBANK: files of several languages ($(echo $languages)): one treebank at a time"
LANGUAGE=$languages
[ -z "${SEGMENTER_MODEL:-}" ] || [ -f "$SEGMENTER_MODEL" ] || fail "$SEGMENTER_MODEL: no such segmenter archive (SEGMENTER_MODEL)"

CONFIG=${PARSER_CONFIG:-coach_valid}
CONFIG_FILE=training_config/$CONFIG.jsonnet
[[ $CONFIG == *.jsonnet ]] && CONFIG_FILE=$CONFIG
[ -f "$CONFIG_FILE" ] || fail "$CONFIG_FILE: no such config"
MODEL_DIR=${MODEL_DIR:-models/$(basename "$TREEBANK")}
OVERRIDES="{\"trainer.num_epochs\": ${EPOCHS:-40}, \"trainer.patience\": ${PATIENCE:-5}, \"dataset_reader.language\": \"$LANGUAGE\"}"
# two torch threads: the machine's two cores, for a training that has the machine to itself
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
export TRAIN_DATA_PATH=$TRAIN VALIDATION_DATA_PATH=$DEV TEST_DATA_PATH=$TEST

started=$SECONDS
# train CONFIG into DIR unless it is trained; resume a training that was stopped
train() {
    local config=$1 dir=$2 overrides=$3
    if [ -f "$dir/model.tar.gz" ] && [ -f "$dir/metrics.json" ]; then
        echo "$dir is trained already (remove it to train again)"
        return
    fi
    local recover=()
    [ -f "$dir/config.json" ] && { echo "resuming the training in $dir"; recover=(--recover); }
    "$BIN/allennlp" train "$config" -s "$dir" --include-package seqgraph_allennlp -o "$overrides" "${recover[@]}"
}

# a config over all-mpnet-base-v2 (training_config/mpnet.libsonnet) needs its model directory (`make english`)
if grep -qE "PRETRAINED_MPNET|mpnet\.libsonnet" "$CONFIG_FILE"; then
    "$BIN/python" -m seqgraph_assets.mpnet
fi
echo "== parser: $CONFIG_FILE on $TRAIN (validation: $DEV)"
train "$CONFIG_FILE" "$MODEL_DIR" "$OVERRIDES"
# after the parser: AllenNLP trains only into a folder that is empty or its own
echo "== segmenter: $TRAIN (validation: $DEV)"
case $LANGUAGE in
    zh|ja|lzh|yue|th) DEFAULT_SEGMENTER=training_config/segmenter_pieces.jsonnet ;;
    *) DEFAULT_SEGMENTER=training_config/segmenter.jsonnet ;;
esac
SEGMENTER=$MODEL_DIR/segmenter/model.tar.gz
if [ -n "${SEGMENTER_MODEL:-}" ]; then
    echo "$SEGMENTER_MODEL: trained already (SEGMENTER_MODEL)"
    SEGMENTER=$SEGMENTER_MODEL
else
    train "${SEGMENTER_CONFIG:-$DEFAULT_SEGMENTER}" "$MODEL_DIR/segmenter" "{}"
fi
# writes nothing when the archive carries this segmenter already
"$BIN/python" -m seqgraph_allennlp.segmentation.attach "$MODEL_DIR/model.tar.gz" "$SEGMENTER"

echo "== test: $TEST"
"$BIN/allennlp" evaluate "$MODEL_DIR/model.tar.gz" "$TEST" --include-package seqgraph_allennlp \
    --output-file "$MODEL_DIR/test_metrics.json"
"$BIN/python" scripts/raw_text_eval.py "$MODEL_DIR/model.tar.gz" "$TEST" --name raw_text --out-dir "$MODEL_DIR"
"$BIN/python" - "$MODEL_DIR" <<'EOF'
import json, sys
from pathlib import Path
directory = Path(sys.argv[1])
raw = json.loads((directory / "raw_text.json").read_text())
print(f"\n{raw['gold']['path']}, CoNLL 2018 F1 (every word, punctuation included):")
for row in raw["rows"]:
    print(f"  {row['input']:48s}" + "  ".join(
        f"{metric} {row[metric]:.2f}" for metric in ("Tokens", "Sentences", "Words", "UPOS", "UAS", "LAS", "ELAS", "EULAS")
        if row.get(metric) is not None))
EOF
echo "${TARGET_NAME:-model}: $CONFIG in $MODEL_DIR/model.tar.gz (with its segmenter), test scores in" \
    "$MODEL_DIR/test_metrics.json and $MODEL_DIR/raw_text.json; $(( (SECONDS - started) / 60 )) min"
