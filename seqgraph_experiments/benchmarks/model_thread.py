"""
Whether the thread that loads a model matters for the thread that runs it: parses a CoNLL-U file with an
archived model (the `seqgraph_parser` predictor, batches of `--batch-size` sentences in file order, as the
parser service's model thread runs them) in three arrangements, each in a fresh process:

* `main`: loaded and run in the main thread (as `allennlp predict` does);
* `other_thread`: loaded in the main thread, run in another (as the service did before b69c64a);
* `same_thread`: loaded and run in one other thread (as the service does now).

    .venv/bin/python benchmarks/model_thread.py --model MODEL.tar.gz \\
        [--conllu data/UD_English-EWT/en_ewt-ud-test.conllu] [--sentences 640] [--batch-size 32] [--repeats 3]

Each process parses the sentences once to warm up, then once timed: sentences per second and the cores
busy meanwhile (the process's CPU time over the wall time). The arrangements alternate `--repeats` times;
the medians go to results/benchmarks/model_thread.json (`--out`) with the machine and the torch threads
(`OMP_NUM_THREADS`, 2 unless set). Run it on a quiet machine. What it showed: docs/BENCHMARKS.md, "The
parser service under load".
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.provenance import stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

RESULT = BENCHMARKS / "model_thread.json"
DEFAULT_CONLLU = "data/UD_English-EWT/en_ewt-ud-test.conllu"
ARRANGEMENTS = ("main", "other_thread", "same_thread")


def measure(model: str, conllu: str, sentences: int, batch_size: int, arrangement: str) -> Dict:
    """One arrangement in this process: its sentences per second and cores busy."""
    from allennlp.models.archival import load_archive
    from allennlp.predictors import Predictor

    import seqgraph_allennlp  # noqa: F401  (registers the components)

    def load():
        predictor = Predictor.from_archive(load_archive(model), "seqgraph_parser", dataset_reader_to_load="validation")
        instances = list(predictor._dataset_reader.read(conllu))[:sentences]
        return predictor, instances

    def parse(predictor, instances) -> Dict:
        for start in range(0, len(instances), batch_size):  # warm-up
            predictor.predict_batch_instance(instances[start:start + batch_size])
        wall, cpu = time.perf_counter(), time.process_time()
        for start in range(0, len(instances), batch_size):
            predictor.predict_batch_instance(instances[start:start + batch_size])
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        return {"sentences": len(instances), "sentences_per_second": len(instances) / wall, "cores_busy": cpu / wall}

    if arrangement == "main":
        return parse(*load())
    other = ThreadPoolExecutor(max_workers=1)
    loaded = load() if arrangement == "other_thread" else other.submit(load).result()
    return other.submit(parse, *loaded).result()


def run_arrangement(args: argparse.Namespace, arrangement: str) -> Dict:
    command = [sys.executable, "-m", "seqgraph_experiments.benchmarks.model_thread", "--model", args.model,
               "--conllu", args.conllu, "--sentences", str(args.sentences), "--batch-size", str(args.batch_size),
               "--arrangement", arrangement]
    environment = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "2")}
    done = subprocess.run(command, capture_output=True, text=True, env=environment)
    if done.returncode != 0:
        raise SystemExit(f"{arrangement} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def parse_arguments(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, metavar="ARCHIVE", help="a trained model archive (model.tar.gz)")
    parser.add_argument("--conllu", default=DEFAULT_CONLLU, metavar="FILE", help="default: %(default)s")
    parser.add_argument("--sentences", type=int, default=640, help="the file's first N sentences (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=32, help="sentences per batch (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each arrangement (default: %(default)s)")
    parser.add_argument("--arrangement", choices=ARRANGEMENTS, help=argparse.SUPPRESS)
    parser.add_argument("--out", default=str(RESULT), help="default: %(default)s")
    args = parser.parse_args(argv)
    refuse_missing_files(parser, [args.model, args.conllu])
    return args


def main(argv: Optional[Sequence[str]] = None) -> None:
    args = parse_arguments(argv)
    if args.arrangement is not None:  # one arrangement, in this process: its figures as one JSON line
        print(json.dumps(measure(args.model, args.conllu, args.sentences, args.batch_size, args.arrangement)))
        return
    runs: Dict[str, List[Dict]] = {arrangement: [] for arrangement in ARRANGEMENTS}
    for repeat in range(args.repeats):
        for arrangement in ARRANGEMENTS:
            runs[arrangement].append(run_arrangement(args, arrangement))
            print(f"{arrangement} ({repeat + 1}/{args.repeats}): "
                  f"{runs[arrangement][-1]['sentences_per_second']:.1f} sentences/s, "
                  f"{runs[arrangement][-1]['cores_busy']:.2f} cores busy", flush=True)
    result = {
        "what": "the seqgraph_parser predictor on the same sentences, the model loaded and run in the main thread, "
                "loaded in the main thread and run in another, or loaded and run in one other thread; each run a "
                "fresh process, after a warm-up pass; medians of alternating runs",
        "model": args.model,
        "conllu": args.conllu,
        "sentences": args.sentences,
        "batch_size": args.batch_size,
        "repeats": args.repeats,
        "arrangements": {
            arrangement: {
                "sentences_per_second": statistics.median(run["sentences_per_second"] for run in runs[arrangement]),
                "cores_busy": statistics.median(run["cores_busy"] for run in runs[arrangement]),
                "runs": runs[arrangement],
            }
            for arrangement in ARRANGEMENTS
        },
        **stamp("benchmarks/model_thread.py"),
    }
    write_json(Path(args.out), result)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
