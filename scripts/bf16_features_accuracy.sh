#!/usr/bin/env bash
# issue 43: the converged-so-far mpnet enhanced model (best dev epoch so far) parses EWT test with its features in
# float32 (as trained) and in bfloat16 with word-piece buckets; both scored by the CoNLL 2018 / IWPT scorer
set -ex
# scripts/bf16_features_accuracy.sh: writes results/benchmarks/bf16_features_accuracy.json
cd /work/main
export OMP_NUM_THREADS=1
SER=experiments/ewt_enhanced/coach_valid_mpnet_enhanced
ARCHIVE=experiments/bf16_check/model.tar.gz
mkdir -p experiments/bf16_check
cp $SER/metrics_epoch_$(python3 -c "import json,glob;print(max(json.load(open(f))['best_epoch'] for f in glob.glob('$SER/metrics_epoch_*.json')))").json experiments/bf16_check/best_metrics.json
.venv/bin/python -c "
from allennlp.models.archival import archive_model
archive_model('$SER', weights='best.th', archive_path='$ARCHIVE')"
E=model.text_field_embedder.token_embedders.mpnet
for setting in float32 bfloat16_buckets; do
  if [ $setting = float32 ]; then O="{\"$E.transformer_precision\": \"float32\"}"; else
    O="{\"$E.transformer_precision\": \"bfloat16\", \"$E.word_piece_buckets\": true, \"$E.cache_directory\": null}"; fi
  /usr/bin/time -f "%e s" .venv/bin/allennlp predict $ARCHIVE data/UD_English-EWT/en_ewt-ud-test.conllu --use-dataset-reader \
    --include-package seqgraph_allennlp --predictor seqgraph_parser --predictor-args '{"output_format": "conllu"}' \
    --output-file experiments/bf16_check/test_$setting.conllu --silent --batch-size 64 -o "$O"
  .venv/bin/python -m seqgraph_allennlp.common.scoring data/UD_English-EWT/en_ewt-ud-test.conllu \
    experiments/bf16_check/test_$setting.conllu > experiments/bf16_check/score_$setting.txt 2>&1 || true
done
.venv/bin/python - <<'PY'
import json, re
from pathlib import Path
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import write_json
check = Path("experiments/bf16_check")
rows = {}
for setting in ("float32", "bfloat16_buckets"):
    text = (check / f"score_{setting}.txt").read_text()
    rows[setting] = {metric: float(re.search(rf"^{metric}: ([0-9.]+)", text, re.M).group(1))
                     for metric in ("UAS", "LAS", "ELAS", "EULAS")}
    rows[setting]["all_trees"] = "all 2077 predicted sentences are trees" in text
best = json.loads((check / "best_metrics.json").read_text())
write_json(Path("results/benchmarks/bf16_features_accuracy.json"), {
    "what": "one mpnet model parses EWT test with its frozen features computed in float32 (as trained) and in "
            "bfloat16 with word-piece buckets; CoNLL 2018 / IWPT scores (seqgraph_allennlp.common.scoring)",
    "model": {"serialization_dir": "experiments/ewt_enhanced/coach_valid_mpnet_enhanced",
              "weights": f"best dev epoch so far ({best['best_epoch']}, dev ELAS {best['best_validation_ELAS']:.4f}) "
                         "of coach_valid_mpnet_enhanced, training not finished",
              "sha256": sha256(check / "model.tar.gz")},
    "data": {"path": "data/UD_English-EWT/en_ewt-ud-test.conllu",
             "sha256": sha256(Path("data/UD_English-EWT/en_ewt-ud-test.conllu"))},
    "rows": rows,
    "difference_bfloat16_buckets_minus_float32": {metric: rows["bfloat16_buckets"][metric] - rows["float32"][metric]
                                                  for metric in ("UAS", "LAS", "ELAS", "EULAS")},
    **stamp("scripts/bf16_features_accuracy.sh"),
})
PY
