#!/usr/bin/env bash
# `make english-model`: the most accurate English parser this project trains on a CPU, coach_valid over
# frozen all-mpnet-base-v2 features (training_config/coach_valid_mpnet.jsonnet; its 438 MB model directory is
# fetched first, as `make english` does), trained end to end on UD English-EWT (data/) on this machine:
# training_config/$ENGLISH_CONFIG.jsonnet as shipped (its UPOS tagger and bfloat16 BiLSTM included, which no
# committed row has together; docs/TRAINING.md's English section says how each row differs) until dev UAS has
# not improved for 5 epochs, at most 16 (ENGLISH_EPOCHS; the rows of docs/RESULTS.md, section ewt_converged,
# had at most 40: over layers 2-5 of mpnet 16 epochs, about an hour on 2 slow cores, come near their convergence,
# docs/TRAINING.md),
# keeping the epoch with the best dev UAS, then `allennlp evaluate` on EWT test (CoNLL 2018 scores, every
# word). ENGLISH_CONFIG=coach_valid trains the recommended parser without pretrained features. Stopped, it
# resumes where it was (`allennlp train --recover`; the mpnet features, kept in memory, are computed again in
# the first epoch of the resumed run) when run again.
# The model: models/english/model.tar.gz (ENGLISH_MODEL_DIR). How long the nearest rows took and what they
# scored: their epochs and s/epoch in docs/RESULTS.md, quoted in docs/TRAINING.md; the script prints its time.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

BIN=.venv/bin
CONFIG=${ENGLISH_CONFIG:-coach_valid_mpnet}
# a shipped config's name, or the path of a jsonnet file
CONFIG_FILE=training_config/$CONFIG.jsonnet
[[ $CONFIG == *.jsonnet ]] && CONFIG_FILE=$CONFIG
MODEL_DIR=${ENGLISH_MODEL_DIR:-models/english}
TEST=${ENGLISH_TEST:-data/UD_English-EWT/en_ewt-ud-test.conllu}
# an hour on 2 cores (the shipped configs say 50 epochs and patience 10; the ewt_converged rows had 40 and 5)
OVERRIDES="{\"trainer.num_epochs\": ${ENGLISH_EPOCHS:-16}, \"trainer.patience\": ${ENGLISH_PATIENCE:-5}}"
# two torch threads: the machine's two cores, for a training that has the machine to itself
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}

started=$SECONDS
# a config over all-mpnet-base-v2 (training_config/mpnet.libsonnet) needs its model directory (`make english`;
# nothing to do when it is there)
if grep -qE "PRETRAINED_MPNET|mpnet\.libsonnet" "$CONFIG_FILE"; then
    "$BIN/python" -m seqgraph_assets.mpnet
fi
if [ -f "$MODEL_DIR/model.tar.gz" ] && [ -f "$MODEL_DIR/metrics.json" ]; then
    echo "$MODEL_DIR is trained already (remove it to train again)"
else
    recover=()
    if [ -f "$MODEL_DIR/config.json" ]; then
        echo "resuming the training in $MODEL_DIR"
        recover=(--recover)
    fi
    "$BIN/allennlp" train "$CONFIG_FILE" -s "$MODEL_DIR" --include-package seqgraph_allennlp \
        -o "$OVERRIDES" "${recover[@]}"
fi
"$BIN/allennlp" evaluate "$MODEL_DIR/model.tar.gz" "$TEST" --include-package seqgraph_allennlp \
    --output-file "$MODEL_DIR/test_metrics.json"
echo "english-model: $CONFIG in $MODEL_DIR/model.tar.gz, test scores in $MODEL_DIR/test_metrics.json;" \
    "$(( (SECONDS - started) / 60 )) min"
