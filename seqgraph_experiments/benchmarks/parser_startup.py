"""
The cold start of `seqgraph_allennlp.Parser` in a Python program (issue 74): a fresh process imports the package,
loads an archive (`Parser.from_archive`) and parses one sentence; each step is timed inside the process, and the
whole process (interpreter start and exit included) from outside. One untimed run first (it fills the file
cache), then `--repeats` runs, medians. Importing the package is mostly AllenNLP's own imports (it imports
`allennlp_models.structured_prediction`, which imports AllenNLP's data, spaCy, torchvision, scikit-learn and
transformers): the same imports as `from allennlp.commands import main` are timed apart in the same turns.
Writes results/benchmarks/parser_startup.json:

    .venv/bin/python benchmarks/parser_startup.py --model MODEL.tar.gz [--repeats 5]

A CPU path forced in its environment (`ONEDNN_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2`) holds for every process
it starts, and is recorded. Run it on a quiet machine.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

from seqgraph_experiments import ROOT
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.bench_speed import cpu_path_environment
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

OUT = BENCHMARKS / "parser_startup.json"
SENTENCE = "The parser starts, loads its model and parses this sentence."
# what a fresh process runs: each step timed from the process's own clock
PROGRAM = """
import json, sys, time
start = time.perf_counter()
from seqgraph_allennlp import Parser
imported = time.perf_counter()
parser = Parser.from_archive(sys.argv[1])
loaded = time.perf_counter()
parser.parse(sys.argv[2])
parsed = time.perf_counter()
print(json.dumps({"import": imported - start, "from_archive": loaded - imported, "first_parse": parsed - loaded}))
"""
ALLENNLP_IMPORTS = "from allennlp.commands import main"


def timed_process(arguments: List[str]) -> Dict[str, float]:
    """Runs a fresh Python process; its wall clock (start to exit) and what it printed last, if JSON."""
    start = time.perf_counter()
    completed = subprocess.run([sys.executable, *arguments], cwd=ROOT, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    lines = completed.stdout.strip().splitlines()
    return {"process": wall, **(json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {})}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="a parser archive (model.tar.gz)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--output", default=str(OUT))
    args = parser.parse_args()
    refuse_missing_files(parser, [args.model])
    parse = ["-c", PROGRAM, args.model, SENTENCE]
    allennlp = ["-c", ALLENNLP_IMPORTS]
    timed_process(parse)  # fills the file cache
    runs: List[Dict[str, float]] = []
    imports: List[float] = []
    for _ in range(args.repeats):
        runs.append(timed_process(parse))
        imports.append(timed_process(allennlp)["process"])
    medians = {step: statistics.median(run[step] for run in runs) for step in runs[0]}
    medians["from_archive_and_first_parse"] = statistics.median(run["from_archive"] + run["first_parse"]
                                                                for run in runs)
    result = {
        "what": "a fresh Python process: import seqgraph_allennlp, Parser.from_archive, one parse (each timed in the "
                "process), the process from start to exit (timed outside); and, in the same turns, a process that "
                f"only runs `{ALLENNLP_IMPORTS}` (AllenNLP's own imports, as its command line makes them); medians",
        "model": {"path": os.path.relpath(args.model, ROOT), "sha256": sha256(Path(args.model))},
        "sentence": SENTENCE,
        "repeats": args.repeats,
        "seconds": medians,
        "allennlp_imports_process_seconds": statistics.median(imports),
        "all_runs": runs,
        "all_allennlp_imports": imports,
        "environment": cpu_path_environment(),
        **stamp("benchmarks/parser_startup.py"),
    }
    write_json(Path(args.output), result)
    print(", ".join(f"{step} {seconds:.2f} s" for step, seconds in medians.items())
          + f"; AllenNLP's imports alone {result['allennlp_imports_process_seconds']:.2f} s")


if __name__ == "__main__":
    main()
