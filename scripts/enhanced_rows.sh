#!/usr/bin/env bash
# The EWT rows of the enhanced UD graph (issue 41, docs/RESULTS.md "Enhanced UD (EWT)"), trained one after
# another on this machine and each evaluated by scripts/enhanced_eval.py into results/enhanced/: the sequential
# graph parser and allennlp-models' graph_parser over the frozen mpnet features, seeds 0, 1 and 2 each, then
# both without pretrained features, seed 0. Every training runs to convergence as the ewt_converged rows did (at
# most 40 epochs, stopped after 5 without a better dev ELAS, the best dev epoch kept), the mpnet features kept on
# disk in experiments/features (computed once, in the first epoch of the first mpnet run).
#
#     bash scripts/enhanced_rows.sh            # all rows, in order; ROWS="name ..." for some
#
# EPOCHS (default 40) sets the budget of epochs, for a row that cannot converge within the time at hand: on a
# 2-core machine an epoch of coach_valid_enhanced takes about 5 minutes, 40 of them more than a 3-hour session
# (`EPOCHS=24 ROWS=coach_valid_enhanced:0`); the results JSON records the budget the run had. EXTEND=1 gives
# a row that ran its whole smaller budget (not stopped by patience) the EPOCHS budget: its training goes on
# from its last checkpoint with --recover over later sessions, and it is evaluated again
# (`enhanced_eval.extend_budget`, recorded in the row's JSON as `budget_extensions`).
#
# Resumable: a row with its results JSON is skipped, one whose training finished (its archive and metrics.json)
# is only evaluated, one with a serialization directory goes on where it stopped (`allennlp train --recover`,
# the same overrides), unless it was trained with another version of the row's config (then the script stops
# and says so). Run it on a quiet machine (one training at a time; the epochs' durations go into the JSON).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ALLENNLP=${ALLENNLP:-.venv/bin/allennlp}
PYTHON=${PYTHON:-.venv/bin/python}
RUNS=${RUNS:-experiments/ewt_enhanced}
RESULTS_DIR=${RESULTS_DIR:-results/enhanced}
BUDGET="\"trainer.num_epochs\": ${EPOCHS:-40}, \"trainer.patience\": 5"
FEATURES='"model.text_field_embedder.token_embedders.mpnet.cache_directory": "experiments/features"'

# row config seed
ALL_ROWS="coach_valid_mpnet_enhanced:0 graph_parser_mpnet_enhanced:0 coach_valid_mpnet_enhanced:1
graph_parser_mpnet_enhanced:1 coach_valid_mpnet_enhanced:2 graph_parser_mpnet_enhanced:2 coach_valid_enhanced:0
graph_parser_enhanced:0"

seed_overrides() {
    # rows.seed_overrides: none for seed 0 (AllenNLP's defaults), the defaults plus the seed otherwise
    if [ "$1" = 0 ]; then echo ""; else
        echo ", \"random_seed\": $((13370 + $1)), \"numpy_seed\": $((1337 + $1)), \"pytorch_seed\": $((133 + $1))"
    fi
}

mkdir -p "$RUNS"
for entry in ${ROWS:-$ALL_ROWS}; do
    row=${entry%%:*}
    seed=${entry#*:}
    [ "$seed" = "$entry" ] && seed=0
    name=$row
    [ "$seed" != 0 ] && name="$row.seed$seed"
    serialization="$RUNS/$name"
    if [ -n "${EXTEND:-}" ] && [ -d "$serialization" ]; then
        "$PYTHON" -c 'import sys; from seqgraph_experiments.enhanced_eval import extend_budget_cli; extend_budget_cli(sys.argv[1:])' \
            "$serialization" "${EPOCHS:-40}" "$RESULTS_DIR/$name.json"
    fi
    if [ -f "$RESULTS_DIR/$name.json" ]; then
        echo "$name: $RESULTS_DIR/$name.json exists, skipped"
        continue
    fi
    overrides="{$BUDGET"
    case "$row" in *mpnet*) overrides="$overrides, $FEATURES" ;; esac
    overrides="$overrides$(seed_overrides "$seed")}"
    # a directory left by an older version of the row's config is not this row's run
    "$PYTHON" -c 'import sys; from seqgraph_experiments.enhanced_eval import check_run; check_run(sys.argv[1:])' \
        "$serialization" "training_config/$row.jsonnet" "$overrides"
    # a finished training leaves metrics.json beside its archive; an interrupted one (Ctrl-C, SIGTERM) an
    # archive of its best epoch so far without it, and goes on
    if [ ! -f "$serialization/model.tar.gz" ] || [ ! -f "$serialization/metrics.json" ]; then
        recover=()
        [ -d "$serialization" ] && recover=(--recover)
        echo "$name: training (${recover[*]:-new}) with $overrides"
        "$ALLENNLP" train "training_config/$row.jsonnet" -s "$serialization" --include-package seqgraph_allennlp \
            -o "$overrides" "${recover[@]}" >> "$RUNS/$name.log" 2>&1
    fi
    "$PYTHON" scripts/enhanced_eval.py --serialization-dir "$serialization" --row "$row" --seed "$seed" \
        --out-dir "$RESULTS_DIR"
done
