#!/usr/bin/env bash
# The archives that results/speed_english.json compares the English model with (issue 43,
# scripts/english_parse_speed.py --compare): each config as shipped, trained one epoch on the first 200
# sentences of EWT train (validated on the same 200). Parsing speed depends on the architecture, not the
# weights: these archives time a config, not a trained model.
#
#     bash scripts/speed_archives.sh [CONFIG ...]    # default: biaffine_mst_mpnet coach_valid
#
# Writes experiments/speed_archives/CONFIG/model.tar.gz (SPEED_ARCHIVES); an archive that is there is kept.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BIN=.venv/bin
OUT=${SPEED_ARCHIVES:-experiments/speed_archives}
TRAIN=$OUT/train200.conllu
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}

mkdir -p "$OUT"
# the first 200 sentences: CoNLL-U sentences end with a blank line
awk 'BEGIN { RS = ""; ORS = "\n\n" } NR <= 200' data/UD_English-EWT/en_ewt-ud-train.conllu > "$TRAIN"
"$BIN/python" -m seqgraph_assets.mpnet
configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=(biaffine_mst_mpnet coach_valid)
for name in "${configs[@]}"; do
    if [ -f "$OUT/$name/model.tar.gz" ]; then
        echo "$OUT/$name/model.tar.gz exists, kept"
        continue
    fi
    rm -rf "${OUT:?}/$name"
    "$BIN/allennlp" train "training_config/$name.jsonnet" -s "$OUT/$name" --include-package seqgraph_allennlp \
        -o "{\"train_data_path\": \"$TRAIN\", \"validation_data_path\": \"$TRAIN\", \"trainer.num_epochs\": 1}"
done
