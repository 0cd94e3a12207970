"""
Where a cold `allennlp predict` spends its start-up (issue 43): the command a user runs
(`commands.predict_conllu`, batches of 64, CoNLL-U out) on a one-sentence file, timed as a whole (`--repeats`
fresh processes, the median; one run first, not kept, fills the file cache) and once more under cProfile, whose
cumulative times give each phase's share:

- `imports`: every module import that happens before the archive is opened (torch, AllenNLP, allennlp-models'
  plugins, transformers, spaCy, this package);
- `archive extraction`: `allennlp.models.archival.extracted_archive` (gunzip and untar to a temporary folder);
- `model built`: `Model.from_params` (the modules, the frozen transformer read from its model directory
  included);
- `state read`: `allennlp.nn.util.read_state_dict` (`torch.load` of the weights file);
- `state loaded`: `Module.load_state_dict` as AllenNLP's `Model._load` calls it;
- `reader and predictor`: the dataset reader and the predictor built from the archive's config;
- `parsing`: `Predictor.predict_batch_instance` of the one sentence.

What happens before AllenNLP's `main` (the console script's own imports) is outside the profile: it is timed
apart, by `python -X importtime -c "from allennlp.commands import main"` (after one run that fills the file
cache), whose cumulative times of `IMPORTS_REPORTED` are recorded.

cProfile slows Python-heavy work (imports most) more than tensor work: the phases are shares of the profiled
run, scaled to the unprofiled median. With `--code-ref REF` (one or more) each model is also timed with this
package as it was at git commit REF (a temporary worktree, the commands' working directory and first on PYTHONPATH: AllenNLP's
`--include-package` imports from the working directory first), the runs of the two code versions alternating, so
that a change's effect on start-up is a ratio measured in one run; each version's profile is checked to have run
its own package's code. Writes results/benchmarks/startup.json. A CPU path forced in its environment
(`ONEDNN_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2`) holds for every process it starts, and is recorded. Run it
on a quiet machine.

    .venv/bin/python benchmarks/startup.py --model MODEL.tar.gz [--model OTHER.tar.gz ...] [--repeats 3] \
        [--code-ref COMMIT ...]
"""
import contextlib
import os
import argparse
import cProfile
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, Iterator, List

from seqgraph_experiments import ROOT, commands
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.bench_speed import cpu_path_environment
from seqgraph_experiments.bench_speed import one_sentence_file
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

OUT = BENCHMARKS / "startup.json"
CONLLU = ROOT / "data" / "UD_English-EWT" / "en_ewt-ud-test.conllu"
# phase -> (file suffix, function name) whose cumulative time is the phase's
PHASES = {
    "archive extraction": ("allennlp/models/archival.py", "extracted_archive"),
    "model built": ("allennlp/common/from_params.py", "from_params"),
    "state read": ("allennlp/nn/util.py", "read_state_dict"),
    "state loaded": ("torch/nn/modules/module.py", "load_state_dict"),
    "reader and predictor": ("allennlp/predictors/predictor.py", "from_archive"),
    "parsing": ("allennlp/predictors/predictor.py", "predict_batch_instance"),
    "load_archive": ("allennlp/models/archival.py", "load_archive"),
    "imports": ("<frozen importlib._bootstrap>", "_find_and_load"),
    "whole command": ("allennlp/commands/__init__.py", "main"),
}


WORKING_TREE = "working tree"


def code_environment(package_root: Path) -> Dict[str, str]:
    """The environment that makes `import seqgraph_allennlp` find the package under `package_root` first."""
    return {**os.environ, "PYTHONPATH": str(package_root)}


@contextlib.contextmanager
def code_at(ref: str, work: Path) -> Iterator[Path]:
    """A detached git worktree of `ref`, removed afterwards."""
    path = work / f"code_{ref}"
    subprocess.run(["git", "worktree", "add", "--detach", str(path), ref], cwd=ROOT, check=True, capture_output=True)
    try:
        yield path
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(path)], cwd=ROOT, check=False, capture_output=True)


# the modules whose cumulative import time is recorded (a module is imported once: one line each)
IMPORTS_REPORTED = ("allennlp.commands", "spacy", "torchvision", "torch._dynamo", "sklearn", "torch", "transformers")


def import_seconds(work: Path) -> Dict[str, float]:
    """Cumulative seconds of `IMPORTS_REPORTED` while `from allennlp.commands import main` runs (-X importtime)."""
    command = [sys.executable, "-X", "importtime", "-c", "from allennlp.commands import main"]
    subprocess.run(command, cwd=work, check=True, capture_output=True)  # fills the file cache
    lines = subprocess.run(command, cwd=work, check=True, capture_output=True, text=True).stderr.splitlines()
    found: Dict[str, float] = {}
    for line in lines:
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|")
        name = name.strip()
        if name in IMPORTS_REPORTED and name not in found and cumulative.strip().isdigit():
            found[name] = int(cumulative) / 1e6
    return found


def timed_command(command: List[str], root: Path = ROOT) -> float:
    """Seconds of `command` run from `root` with `root`'s package first."""
    start = time.perf_counter()
    subprocess.run(command, cwd=root, check=True, capture_output=True, env=code_environment(root))
    return time.perf_counter() - start


def package_files(stats_file: str) -> List[str]:
    """The files of `seqgraph_allennlp` whose code ran in a cProfile dump."""
    return sorted({key[0] for key in pstats.Stats(stats_file).stats if "/seqgraph_allennlp/" in key[0]})


def profile_worker(command: List[str], output: str) -> None:
    """In this process: `allennlp` run as its console script would, under cProfile."""
    sys.argv = ["allennlp"] + command[1:]
    from allennlp.__main__ import run

    profiler = cProfile.Profile()
    try:
        profiler.runcall(run)
    except SystemExit:
        pass
    profiler.dump_stats(output)


def phases(stats_file: str) -> Dict[str, float]:
    """Cumulative seconds of each phase's function in a cProfile dump (the outermost call where it recurses)."""
    stats = pstats.Stats(stats_file).stats
    found = {}
    for phase, (suffix, function) in PHASES.items():
        calls = [(key, value) for key, value in stats.items() if key[0].endswith(suffix) and key[2] == function]
        # cumulative time counts a recursive function once (cProfile's ct is of the primitive calls)
        found[phase] = sum(value[3] for _, value in calls)
    return found


def measure(model: str, conllu: str, repeats: int, work: Path, codes: Dict[str, Path]) -> List[Dict]:
    """One row per code version (`codes`: name -> its repository root), their runs alternating."""
    one_sentence = one_sentence_file(conllu).resolve()
    command = commands.predict_conllu(str(Path(model).resolve()), one_sentence, work / "startup.conllu", batch_size=64)
    seconds: Dict[str, List[float]] = {name: [] for name in codes}
    for name, root in codes.items():
        timed_command(command, root)  # fills the file cache, not kept
    for _ in range(repeats):
        for name, root in codes.items():
            seconds[name].append(timed_command(command, root))
    rows = []
    for name, root in codes.items():
        stats_file = str(work / "startup.prof")
        start = time.perf_counter()
        subprocess.run([sys.executable, str(Path(__file__).resolve()), "--profile-worker", stats_file, "--", *command],
                       cwd=root, check=True, capture_output=True, env=code_environment(root))
        profiled_seconds = time.perf_counter() - start
        ran = package_files(stats_file)
        if not ran or any(not Path(file).resolve().is_relative_to(root.resolve()) for file in ran):
            raise RuntimeError(f"the {name} run did not run only the package under {root}: {ran[:3]}")
        profiled = phases(stats_file)
        median = statistics.median(seconds[name])
        whole = profiled["whole command"] or profiled_seconds
        rows.append({
            "model": {"path": model, "sha256": sha256(Path(model)), "bytes": Path(model).stat().st_size},
            "code": name,
            "command": commands.predict_conllu(model, "ONE_SENTENCE.conllu", "OUT.conllu", batch_size=64)[1:],
            "startup_seconds": median, "all_startup_seconds": seconds[name],
            "profiled_seconds": profiled_seconds,
            "profiled_phase_seconds": profiled,
            # each phase's share of the profiled command, times the unprofiled median
            "phase_seconds_estimated": {phase: median * value / whole for phase, value in profiled.items()
                                        if phase != "whole command"},
        })
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", action="append", help="a model archive (several: each measured in turn)")
    parser.add_argument("--conllu", default=str(CONLLU), help="its first sentence is parsed")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--output", default=str(OUT))
    parser.add_argument("--code-ref", action="append", default=[],
                        help="also time each model with this package as of this git commit (repeatable)")
    parser.add_argument("--profile-worker", help=argparse.SUPPRESS)
    parser.add_argument("command", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.profile_worker:
        profile_worker(args.command, args.profile_worker)
        return
    if not args.model:
        parser.error("--model is required")
    refuse_missing_files(parser, args.model)
    with tempfile.TemporaryDirectory() as work, contextlib.ExitStack() as stack:
        codes = {**{ref: stack.enter_context(code_at(ref, Path(work))) for ref in args.code_ref}, WORKING_TREE: ROOT}
        rows = [row for model in args.model for row in measure(model, args.conllu, args.repeats, Path(work), codes)]
        imports = import_seconds(Path(work))
    for row in rows:
        print(f"{row['model']['path']} ({row['code']}): start-up {row['startup_seconds']:.2f} s")
        for phase, value in row["phase_seconds_estimated"].items():
            print(f"  {phase}: {value:.2f} s")
    print("imports of `from allennlp.commands import main`: "
          + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in imports.items()))
    write_json(Path(args.output), {
        "what": "start-up of a cold allennlp predict (one sentence): median of fresh processes, and the share of "
                "each phase in one run under cProfile",
        "rows": rows, "repeats": args.repeats, "code_refs": args.code_ref,
        "import_seconds_before_main": imports,
        # a CPU path forced for the whole run (bench_speed.CPU_PATHS), inherited by every process it starts
        "environment": cpu_path_environment(),
        **stamp("benchmarks/startup.py"),
    })


if __name__ == "__main__":
    main()
