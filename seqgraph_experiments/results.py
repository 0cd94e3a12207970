"""
Where results live and how they are written: one JSON per training run under results/<section>/<row>.json
(`runner`), one per analysis under results/<kind>/<name>.json with its figure in docs/ (`save_analysis`),
the benchmarks' under results/benchmarks/. JSON files are written by the tools, never by hand.
"""
import gzip
import json
from pathlib import Path
from typing import Callable, Dict, List, Tuple

from seqgraph_allennlp.common.conllu import parse_lines, read_sentences
from seqgraph_experiments import DOCS, RESULTS

BENCHMARKS = RESULTS / "benchmarks"


def write_json(path: Path, data: Dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def read_json(path: Path) -> Dict:
    return json.loads(path.read_text(encoding="utf-8"))


def decompressed(predicted: Path, directory: Path) -> Path:
    """
    `predicted` itself, or for a gzipped file (a committed prediction, `results/<section>/<run>.test.conllu.gz`)
    its decompressed copy in `directory`.
    """
    if predicted.suffix != ".gz":
        return predicted
    plain = directory / predicted.name.replace(".gz", "")
    plain.write_bytes(gzip.decompress(predicted.read_bytes()))
    return plain


def read_predictions(path: str) -> List:
    """The sentences of a CoNLL-U file, or of a gzipped one (`results/<section>/<run>.test.conllu.gz`)."""
    if not path.endswith(".gz"):
        return list(read_sentences(path))
    with gzip.open(path, "rt", encoding="utf-8-sig") as conllu_file:
        return list(parse_lines(conllu_file, path))


def section_of(result: Dict) -> str:
    """The results folder and report section of a run: its treebank unless it ran with --section."""
    return result.get("section") or result["treebank"]


def run_results(results: Path = RESULTS) -> List[Dict]:
    """The JSON of every training run (results/tau_sweep, results/easy_first, speed.json... are other kinds)."""
    return [result for result in (read_json(path) for path in sorted(results.glob("*/*.json")))
            if "row" in result and "treebank" in result]


def save_analysis(kind: str, name: str, result: Dict, plot: Callable[[Dict, Path], None]) -> Tuple[Path, Path]:
    """
    Writes an analysis's results to results/<kind>/<name>.json and its figure (drawn by
    `plot(result, path)`) to docs/<kind>_<name>.png; returns both paths.
    """
    out = write_json(RESULTS / kind / f"{name}.json", result)
    image = DOCS / f"{kind}_{name}.png"
    image.parent.mkdir(parents=True, exist_ok=True)
    plot(result, image)
    return out, image
