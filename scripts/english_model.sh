#!/usr/bin/env bash
# `make english-model`: the most accurate English parser this project trains on a CPU, coach_valid over
# frozen all-mpnet-base-v2 features (training_config/coach_valid_mpnet.jsonnet; its 438 MB model directory is
# fetched first, as `make english` does), trained end to end on UD English-EWT (data/) on this machine:
# training_config/$ENGLISH_CONFIG.jsonnet as shipped (its UPOS tagger and bfloat16 BiLSTM included, which no
# committed row has together; docs/TRAINING.md's English section says how each row differs) until dev UAS has
# not improved for 5 epochs, at most 16 (ENGLISH_EPOCHS; the rows of docs/RESULTS.md, section ewt_converged,
# had at most 40: over layers 2-5 of mpnet 16 epochs, about an hour on 2 slow cores, come near their convergence,
# docs/TRAINING.md),
# keeping the epoch with the best dev UAS, with the segmenter that splits its raw text
# (training_config/segmenter.jsonnet, on EWT train; inside the archive), then `allennlp evaluate` on EWT test
# (CoNLL 2018 scores, every word) and the same test from raw text (scripts/raw_text_eval.py): all of it is
# scripts/treebank_model.sh on data/UD_English-EWT. ENGLISH_CONFIG=coach_valid trains the recommended parser without pretrained features. Stopped, it
# resumes where it was (`allennlp train --recover`; the mpnet features, kept in memory, are computed again in
# the first epoch of the resumed run) when run again.
# The model: models/english/model.tar.gz (ENGLISH_MODEL_DIR). How long the nearest rows took and what they
# scored: their epochs and s/epoch in docs/RESULTS.md, quoted in docs/TRAINING.md; the script prints its time.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# an hour on 2 cores (the shipped configs say 50 epochs and patience 10; the ewt_converged rows had 40 and 5)
TREEBANK=data/UD_English-EWT \
PARSER_CONFIG=${ENGLISH_CONFIG:-coach_valid_mpnet} \
MODEL_DIR=${ENGLISH_MODEL_DIR:-models/english} \
TEST_FILE=${ENGLISH_TEST:-data/UD_English-EWT/en_ewt-ud-test.conllu} \
EPOCHS=${ENGLISH_EPOCHS:-16} \
PATIENCE=${ENGLISH_PATIENCE:-5} \
TARGET_NAME=english-model \
    exec bash scripts/treebank_model.sh
