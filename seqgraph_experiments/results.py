"""
Where results live and how they are written: one JSON per training run under results/<section>/<row>.json
(`runner`), one per analysis under results/<kind>/<name>.json, the benchmarks' under results/benchmarks/.
JSON files are written by the tools, never by hand.
"""
import gzip
import json
import shutil
from pathlib import Path
from typing import Dict, List

from seqgraph_allennlp.common.conllu import parse_lines, read_sentences
from seqgraph_experiments import RESULTS

BENCHMARKS = RESULTS / "benchmarks"


def write_json(path: Path, data: Dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def read_json(path: Path) -> Dict:
    return json.loads(path.read_text(encoding="utf-8"))


def gzip_file(source: Path, target: Path) -> Path:
    """`source` gzipped to `target` with mtime 0, so that the same prediction gives the same bytes."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(source, "rb") as plain, gzip.GzipFile(target, "wb", mtime=0) as packed:
        shutil.copyfileobj(plain, packed)
    return target


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
    """The JSON of every training run (results/tokenisation, results/raw_text, speed.json... are other kinds)."""
    return [result for result in (read_json(path) for path in sorted(results.glob("*/*.json")))
            if "row" in result and "treebank" in result]

