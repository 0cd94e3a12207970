#!/usr/bin/env bash
# `make demo`: a quick start on a 2-core CPU. Trains the recommended config (training_config/coach_valid.jsonnet:
# the paper's "Recurrent (C)", recurrent weight model, coaching oracle, valid-policy roll-in, with the
# policy over valid edges and the head-selection loss) on a subset of UD English-EWT with a smaller encoder,
# evaluates it on the whole EWT test set, parses three example sentences to JSON and CoNLL-U with
# `allennlp predict`, and plots the per-step edge distributions of one of them (Figure 1 of the paper).
# Everything goes under demo_out/.
#
# The budget (DEMO_* below, each can be set in the environment: one epoch over 9,000 of the 12,544
# training sentences, batches of 8, a 2 x 200 BiLSTM) is meant to keep the whole demo under 10 minutes on
# 2 cores; the demo prints the time it took and the scores it measured, and docs/RESULTS.md has the
# project's measured numbers. The full config trains on all training sentences with a 3 x 400 BiLSTM,
# batches of 32, up to 50 epochs (patience 10): `allennlp train training_config/coach_valid.jsonnet
# -s out/coach_valid --include-package seqgraph_allennlp`.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

BIN=.venv/bin
OUT=demo_out
MODEL_DIR=$OUT/model
MODEL=$MODEL_DIR/model.tar.gz
DATA=data/UD_English-EWT
TRAIN=$DATA/en_ewt-ud-train.conllu
DEV=$DATA/en_ewt-ud-dev.conllu
TEST=$DATA/en_ewt-ud-test.conllu

TRAIN_SENTENCES=${DEMO_TRAIN_SENTENCES:-9000}
DEV_SENTENCES=${DEMO_DEV_SENTENCES:-300}
EPOCHS=${DEMO_EPOCHS:-1}
BATCH_SIZE=${DEMO_BATCH_SIZE:-8}
HIDDEN_SIZE=200
NUM_LAYERS=2

# One torch thread unless OMP_NUM_THREADS says otherwise: this model runs many small tensor operations
# (the roll-in and the decoder take one step after another), which two threads slow down as soon as any
# other job holds the second core; one thread keeps the demo's time predictable.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} MKL_NUM_THREADS=${MKL_NUM_THREADS:-1}

STEP="starting"
LOG=""
on_error() {
    local status=$?
    echo >&2
    echo "demo FAILED (exit status $status) during: $STEP" >&2
    if [[ -n "$LOG" && -s "$LOG" ]]; then
        echo "last lines of $LOG:" >&2
        tail -n 25 "$LOG" >&2
    fi
    exit "$status"
}
trap on_error ERR

step() {
    STEP="$1"
    echo
    echo "==> $1"
}

started=$(date +%s)
elapsed() { echo "$(( $(date +%s) - started ))s"; }

mkdir -p "$OUT/data"

step "1/5 Preparing a small subset of UD English-EWT"
# N sentences spread evenly over each file (CoNLL-U sentences are separated by blank lines), so that the
# subset has EWT's mix of genres and sentence lengths. Subset files rather than the reader's
# max_sentences, so that the archived model's reader has no cap: `allennlp evaluate` and
# `allennlp predict` then read whole files.
count() { awk 'BEGIN { RS = "" } END { print NR }' "$1"; }
subset() {
    awk -v n="$2" -v total="$(count "$1")" 'BEGIN { RS = ""; ORS = "\n\n" }
        int(NR * n / total) > int((NR - 1) * n / total)' "$1" > "$3"
}
subset "$TRAIN" "$TRAIN_SENTENCES" "$OUT/data/train-subset.conllu"
subset "$DEV" "$DEV_SENTENCES" "$OUT/data/dev-subset.conllu"
echo "    train: $(count "$OUT/data/train-subset.conllu") of the $(count "$TRAIN") sentences of $TRAIN, spread evenly"
echo "    dev:   $(count "$OUT/data/dev-subset.conllu") of the $(count "$DEV") sentences of $DEV (for model selection)"

step "2/5 Training (a demo budget, not the full config)"
cat <<EOF
    config:  training_config/coach_valid.jsonnet (recurrent weight model, coaching oracle beta=0.5,
             valid-policy roll-in beta=0.5: "Recurrent (C)" of the paper's Table 1, with the policy over
             valid edges and the head-selection loss)
    changed for the demo: $TRAIN_SENTENCES training sentences, $EPOCHS epoch(s), batch size $BATCH_SIZE,
             a ${NUM_LAYERS}-layer BiLSTM of $HIDDEN_SIZE units per direction. The full config trains on
             all $(count "$TRAIN") sentences with a 3-layer BiLSTM of 400, batch size 32, up to 50 epochs
             (patience 10); the paper reports 91.99 UAS on English dev for "Recurrent (C)" (Table 1).
    log:     $OUT/train.log
EOF
LOG=$OUT/train.log
OVERRIDES=$(cat <<EOF
{"train_data_path": "$OUT/data/train-subset.conllu",
 "validation_data_path": "$OUT/data/dev-subset.conllu",
 "model.encoder.hidden_size": $HIDDEN_SIZE,
 "model.encoder.num_layers": $NUM_LAYERS,
 "data_loader.batch_sampler.batch_size": $BATCH_SIZE,
 "trainer.num_epochs": $EPOCHS}
EOF
)
# the full log goes to the file; the screen shows each epoch, its progress at every tenth and its metrics
"$BIN/allennlp" train training_config/coach_valid.jsonnet -s "$MODEL_DIR" -f \
    --include-package seqgraph_allennlp --file-friendly-logging -o "$OVERRIDES" 2>&1 \
    | tee "$LOG" \
    | awk '
        /gradient_descent_trainer - Epoch [0-9]+\/[0-9]+$/ {
            sub(/.* - Epoch /, ""); split($0, part, "/")
            printf "    epoch %d of %d\n", part[1] + 1, part[2] + 1
            phase = "training"; shown = -1; fflush(); next
        }
        /gradient_descent_trainer - Validating$/ { phase = "validating"; shown = -1; next }
        /\|\|: +[0-9]+%/ {
            match($0, /\|\|: +[0-9]+%/); percent = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", percent)
            if (int(percent / 10) <= shown) next
            shown = int(percent / 10)
            uas = ""; progress = ""
            if (match($0, /UAS: [0-9.]+/)) uas = substr($0, RSTART, RLENGTH)
            if (match($0, /[0-9]+\/[0-9]+ \[[^]]*\]/)) progress = substr($0, RSTART, RLENGTH)
            printf "      %-10s batch %s  (running %s)\n", phase, progress, uas; fflush(); next
        }
        /console_logger - +Training \| +Validation/ || /console_logger - (UAS|LAS) / {
            sub(/.*console_logger - /, "      "); print; fflush(); next
        }
        /gradient_descent_trainer - Epoch duration/ { sub(/.* - /, "      "); print; fflush(); next }
    '
test -s "$MODEL"
echo "    model: $MODEL (after $(elapsed))"

step "3/5 Evaluating on the whole EWT test set ($(count "$TEST") sentences)"
LOG=$OUT/evaluate.log
"$BIN/allennlp" evaluate "$MODEL" "$TEST" --include-package seqgraph_allennlp --file-friendly-logging \
    --output-file "$OUT/test_metrics.json" > "$LOG" 2>&1
"$BIN/python" - "$OUT/test_metrics.json" <<'EOF'
import json, sys
metrics = json.load(open(sys.argv[1]))
print("    " + "   ".join(f"{name} {100 * metrics[name]:.2f}" for name in ("UAS", "LAS", "UEM", "LEM") if name in metrics))
EOF
echo "    (CoNLL 2018 scoring: every word counts, punctuation included; after $(elapsed))"

step "4/5 Parsing three example sentences with allennlp predict"
cat > "$OUT/sentences.jsonl" <<'EOF'
{"sentence": "The staff was friendly and the food was great ."}
{"sentence": "Can you send me the report by Friday ?"}
{"sentence": "I bought this phone last year and it still works well ."}
EOF
LOG=$OUT/predict.log
"$BIN/allennlp" predict "$MODEL" "$OUT/sentences.jsonl" --include-package seqgraph_allennlp \
    --predictor seqgraph_parser --silent --output-file "$OUT/predictions.json" > "$LOG" 2>&1
"$BIN/allennlp" predict "$MODEL" "$OUT/sentences.jsonl" --include-package seqgraph_allennlp \
    --predictor seqgraph_parser --predictor-args '{"output_format": "conllu"}' --silent \
    --output-file "$OUT/predictions.conllu" >> "$LOG" 2>&1
test -s "$OUT/predictions.json" && test -s "$OUT/predictions.conllu"
echo "    the first sentence as CoNLL-U:"
awk 'BEGIN { RS = "" } NR == 1 { print }' "$OUT/predictions.conllu" | sed 's/^/      /'

step "5/5 Plotting the per-step edge distributions of one sentence (the paper's Figure 1)"
PLOT_SENTENCE="Can you send me the report by Friday ?"
LOG=$OUT/plot.log
"$BIN/python" -m seqgraph_allennlp.plot "$MODEL" --sentence "$PLOT_SENTENCE" -o "$OUT/steps.png" > "$LOG" 2>&1
test -s "$OUT/steps.png"
echo "    \"$PLOT_SENTENCE\" -> $OUT/steps.png"

LOG=""
STEP="the summary"
cat <<EOF

==> Done in $(elapsed). What the demo made, and how to run each part on your own files:

  model         $MODEL   (training log: $OUT/train.log, metrics: $MODEL_DIR/metrics.json)
  test metrics  $OUT/test_metrics.json
      $BIN/allennlp evaluate $MODEL $TEST \\
          --include-package seqgraph_allennlp --output-file $OUT/test_metrics.json
  predictions   $OUT/predictions.json (JSON lines) and $OUT/predictions.conllu, from $OUT/sentences.jsonl
      $BIN/allennlp predict $MODEL $OUT/sentences.jsonl --include-package seqgraph_allennlp \\
          --predictor seqgraph_parser --silent --output-file $OUT/predictions.json
      $BIN/allennlp predict $MODEL $OUT/sentences.jsonl --include-package seqgraph_allennlp \\
          --predictor seqgraph_parser --predictor-args '{"output_format": "conllu"}' --silent \\
          --output-file $OUT/predictions.conllu
      (input: one {"sentence": "..."} per line, split on whitespace, or {"words": [...]}; a CoNLL-U file
       with --use-dataset-reader)
  step plot     $OUT/steps.png
      $BIN/python -m seqgraph_allennlp.plot $MODEL --sentence "$PLOT_SENTENCE" -o $OUT/steps.png

  The full config (all of EWT train, a 3 x 400 BiLSTM, up to 50 epochs):
      $BIN/allennlp train training_config/coach_valid.jsonnet -s out/coach_valid --include-package seqgraph_allennlp
EOF
