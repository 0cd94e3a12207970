"""What the sections of docs/RESULTS.md share: paths as a clone names them, numbers, machines and seeds."""
import json
import re
import statistics
from pathlib import Path
from typing import Callable, Dict, List, Optional

from seqgraph_experiments import ROOT
from seqgraph_experiments.results import read_json

# an absolute path in a recorded command or note: a `/` that starts a word (at the start of a line, after a space,
# a quote, a backquote, `=` or `(`), not one inside a word such as `ROW[.seedN]/model/` or `docs/RESULTS.md`
ABSOLUTE_PATH = re.compile(r"(?<![^\s'\"`=(])/(?:[\w.+-]+/)*[\w.+-]+")


def clone_path(path: str, root: Path = ROOT) -> str:
    """
    An absolute path recorded on the machine that made a result, as a clone of the repository names it: a path
    in a runs folder `.../experiments/...` (where the tools write their serialization directories, `RUNS`, in
    whichever checkout ran them) becomes `experiments/...`, one under this repository relative to it, and any
    other (a scratch folder of that machine) `DIR`.
    """
    parts = Path(path).parts
    if "experiments" in parts:
        return str(Path(*parts[parts.index("experiments"):]))
    try:
        return str(Path(path).relative_to(root))
    except ValueError:
        return "DIR"


def clone_paths(text: str, root: Path = ROOT) -> str:
    """`text` with every absolute path rendered by `clone_path`, so that no command names one machine's folders."""
    return ABSOLUTE_PATH.sub(lambda match: clone_path(match.group(0), root), text)


def per_file(folder: Path, table: Callable[[Dict], List[str]]) -> List[str]:
    """`table`'s lines for each JSON file in `folder`, in name order."""
    return [line for path in sorted(folder.glob("*.json")) for line in table(read_json(path))]


def made_with(command: str) -> List[str]:
    """A section's closing lines: the command that wrote its JSON."""
    return ["", "Made with:", "", f"    .venv/bin/python {command}", ""]


def percent(value: Optional[float]) -> str:
    return "" if value is None else f"{100 * value:.2f}"


def short_commit(commit: str) -> str:
    """A recorded commit in a table: its first 7 characters, `+` where the tree had uncommitted changes."""
    return f"{commit[:7]}{'+' if 'uncommitted' in commit else ''}"


def bfloat16_fell_back(encoder: Dict, machine: Dict) -> bool:
    """Whether an encoder config asked for bfloat16 on a machine that recorded no native bfloat16: float32 there."""
    return bool(encoder.get("bfloat16_training")) and machine.get("native_bfloat16") is False


def machine_text(machine: Dict) -> str:
    """The machine column: the GPU, or the CPU cores with their vector instructions and the threads."""
    if machine.get("gpu"):
        return machine["gpu"]
    text = f"{machine['cpu_cores']} CPU cores"
    if machine.get("cpu_capability"):
        text += f" ({machine['cpu_capability']})"
    if machine.get("threads"):
        text += f", {machine['threads']} thread(s)"
    return text


def spread(values: List[float]) -> str:
    """`mean ± sample standard deviation`, in %."""
    return f"{100 * statistics.mean(values):.2f} ± {100 * statistics.stdev(values):.2f}"


def runs_by_row(rows: List[Dict]) -> Dict[str, List[Dict]]:
    """A section's results grouped by row, in order: a row's runs are its seeds."""
    runs: Dict[str, List[Dict]] = {}
    for result in rows:
        runs.setdefault(result["row"], []).append(result)
    return runs


def seed_list(results: List[Dict]) -> str:
    """The seeds of a row's runs, `0, 1, 2` (runs made before seeds have none: AllenNLP's own, seed 0)."""
    return ", ".join(str(result.get("seed", 0)) for result in results)


def seed_lines(runs: List[Dict], trained: Callable[[Dict], Dict], recorded: str, title: str, columns: List[str],
               compared: str, score: Callable[[Dict, str], float]) -> List[str]:
    """
    The rows run with more than one seed: mean and sample standard deviation of each column's `score(result, column)`,
    and for each pair of rows the difference of their mean `compared` and whether it exceeds the spread (every seed
    of one row above every seed of the other). A row whose runs trained differently (`trained`) is not averaged.
    """
    seeded = {row: results for row, results in runs_by_row(runs).items() if len(results) > 1}
    mixed = [row for row, results in seeded.items()
             if len({json.dumps(trained(result), sort_keys=True) for result in results}) > 1]
    notes = [f"- {row}: not averaged, its runs (seeds {seed_list(seeded.pop(row))}) trained with different "
             f"settings (`{recorded}` in their JSONs)." for row in mixed]
    if not seeded:
        return notes + [""] if notes else []
    lines = [title, "", "| row | n | seeds | " + " | ".join(columns) + " |", "|---|---|---|" + "---|" * len(columns)]
    for row, results in seeded.items():
        lines.append(f"| {row} | {len(results)} | {seed_list(results)} | "
                     + " | ".join(spread([score(result, column) for result in results]) for column in columns) + " |")
    lines.append("")
    names = list(seeded)
    for index, first in enumerate(names):
        for second in names[index + 1:]:
            ours, theirs = ([score(result, compared) for result in seeded[row]] for row in (first, second))
            difference = statistics.mean(ours) - statistics.mean(theirs)
            if min(ours) > max(theirs) or min(theirs) > max(ours):
                verdict = "exceeds the spread (no seed of the lower row reaches a seed of the higher one)"
            else:
                verdict = "within the spread (the rows' seeds overlap)"
            lines.append(f"- {first} − {second}: {compared} {100 * difference:+.2f}, {verdict}.")
    lines += notes
    return lines if lines[-1] == "" else lines + [""]
