"""
Checks the writing of collapsed enhanced graphs (`seqgraph_allennlp.common.conllu.format_sentence` with an
`EnhancedGraph`, its path labels such as `3:conj>nsubj` written back as empty nodes by
`seqgraph_allennlp.common.deps.expand_paths`) on UD_English-EWT train, dev and test. Writes
results/enhanced/expand_check.json.

    .venv/bin/python scripts/check_expand.py

Per split: every sentence written with its own tree and its collapsed gold graph (`deps=enhanced_graph(s)`),
the file read back and each sentence's graph collapsed again and compared with the one written (expected: 0
mismatches); what was written (the empty nodes, the paths they carry, the sentences with them, against the
gold file's own empty nodes); the UD validator (`udvalidate --lang en --level 2`, udtools) on the written
file and, for comparison, on the gold file (return code, incidents by test id, the first incidents); and
ELAS / EULAS of the written file against the gold one by `udtools.udeval` on copies collapsed on both sides
(`format_sentence(..., collapsed=True)`, as the IWPT shared tasks collapse), expected 100.
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Dict, List

from seqgraph_allennlp.common.conllu import DEPS_COLUMN, format_sentence, is_empty_node_line, read_sentences
from seqgraph_allennlp.common.deps import PATH_SEPARATOR
from seqgraph_allennlp.common.enhanced import enhanced_graph
from seqgraph_experiments import RESULTS, ROOT
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import write_json

EWT = ROOT.parent / "shared" / "ud" / "UD_English-EWT"
OUT = RESULTS / "enhanced" / "expand_check.json"
SPLITS = ("train", "dev", "test")
UDVALIDATE = Path(sys.executable).parent / "udvalidate"
# incidents kept verbatim per file (all are counted)
FIRST_INCIDENTS = 10


def validate(path: Path) -> Dict:
    """`udvalidate --lang en --level 2` of a file: return code, incidents by test id, the first incidents."""
    result = subprocess.run([str(UDVALIDATE), "--lang", "en", "--level", "2", str(path)],
                            capture_output=True, text=True)
    output = (result.stdout + result.stderr).splitlines()
    incidents = [line for line in output if line.startswith("[Line")]
    by_test = collections.Counter(line.split("]: [", 1)[1].split("]", 1)[0] for line in incidents)
    return {
        "returncode": result.returncode,
        "passed": result.returncode == 0 and "*** PASSED ***" in output,
        "incidents": len(incidents),
        "incidents_by_test": dict(sorted(by_test.items())),
        "first_incidents": incidents[:FIRST_INCIDENTS],
        "summary": [line for line in output if line.startswith("***") or line.endswith(" errors")][-3:],
    }


def collapsed_scores(gold: Path, written: Path, folder: Path) -> Dict:
    """ELAS and EULAS (percent) of `written` against `gold` by udeval, both collapsed first."""
    from udtools import udeval

    copies = []
    for path in (gold, written):
        copy = folder / f"{path.stem}.collapsed.conllu"
        copy.write_text("".join(format_sentence(s, s.heads, s.deprels, deps=enhanced_graph(s), collapsed=True)
                                for s in read_sentences(str(path))), encoding="utf-8")
        copies.append(udeval.load_conllu_file(str(copy)))
    scores = udeval.evaluate(*copies)
    return {metric: round(100 * scores[metric].f1, 2) for metric in ("ELAS", "EULAS")}


def check_split(path: Path, folder: Path) -> Dict:
    """Writes one file with its collapsed gold graphs, reads it back, compares, validates and scores it."""
    sentences = list(read_sentences(str(path)))
    graphs = [enhanced_graph(sentence) for sentence in sentences]
    if any(graph is None for graph in graphs):
        sys.exit(f"{path}: a sentence without enhanced graph")
    written = folder / f"{path.stem}.written.conllu"
    written.write_text("".join(format_sentence(s, s.heads, s.deprels, deps=graph)
                               for s, graph in zip(sentences, graphs)), encoding="utf-8")
    read_back = list(read_sentences(str(written)))
    if len(read_back) != len(sentences):
        sys.exit(f"{written}: {len(read_back)} sentences read back for {len(sentences)} written")
    mismatches: List[Dict] = []
    words = edges = path_edges = self_loop_paths = 0
    for sentence, graph, again in zip(sentences, graphs, read_back):
        words += len(graph)
        edges += sum(len(pairs) for pairs in graph)
        path_edges += sum(PATH_SEPARATOR in label for pairs in graph for _, label in pairs)
        self_loop_paths += sum(PATH_SEPARATOR in label and head == word
                               for word, pairs in enumerate(graph, start=1) for head, label in pairs)
        graph_again = enhanced_graph(again)
        if graph_again != graph:
            differing = [word for word, (before, after) in enumerate(zip(graph, graph_again or []), start=1)
                         if before != after]
            mismatches.append({"line": sentence.start_line, "sent_id": sentence.sent_id, "words": differing})
    gold_empty = [sum(is_empty_node_line(line) for line in s.lines) for s in sentences]
    written_empty = [sum(is_empty_node_line(line) for line in s.lines) for s in read_back]
    result = {
        "path": os.path.relpath(path, ROOT),
        "sha256": sha256(path),
        "sentences": len(sentences),
        "words": words,
        "edges": edges,
        "path_label_edges": path_edges,
        "self_loop_path_edges": self_loop_paths,
        "gold_empty_nodes": sum(gold_empty),
        "gold_sentences_with_empty_nodes": sum(count > 0 for count in gold_empty),
        "written_empty_nodes": sum(written_empty),
        "written_sentences_with_empty_nodes": sum(count > 0 for count in written_empty),
        # DEPS values of the written file (words and empty nodes) with a path label left in them: expected 0
        "written_deps_with_path_separator": sum(PATH_SEPARATOR in line.split("\t")[DEPS_COLUMN]
                                                for s in read_back for line in s.lines if not line.startswith("#")),
        "round_trip_mismatches": mismatches,
        "validation_level_2": {"written": validate(written), "gold": validate(path)},
        "udeval_written_against_gold": collapsed_scores(path, written, folder),
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--treebank", type=Path, default=EWT, help="a UD folder with *-ud-{train,dev,test}.conllu")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    splits = {}
    with tempfile.TemporaryDirectory(prefix="check_expand_") as folder:
        for split in SPLITS:
            path = next(args.treebank.glob(f"*-ud-{split}.conllu"))
            splits[split] = check = check_split(path, Path(folder))
            validation = check["validation_level_2"]
            print(f"{split}: {check['sentences']} sentences, {check['path_label_edges']} path edges, "
                  f"{check['written_empty_nodes']} empty nodes written (gold {check['gold_empty_nodes']}), "
                  f"{len(check['round_trip_mismatches'])} mismatches; level 2: written "
                  f"{validation['written']['incidents']} incidents, gold {validation['gold']['incidents']}; "
                  f"udeval {check['udeval_written_against_gold']}", file=sys.stderr)
    result = {
        "what": "collapsed gold enhanced graphs written with their paths as empty nodes (format_sentence, "
                "expand_paths), read back and collapsed again, and the written files validated at level 2",
        "validator": f"udvalidate --lang en --level 2 (udtools {metadata.version('udtools')})",
        "splits": splits,
        "total": {
            "sentences": sum(check["sentences"] for check in splits.values()),
            "path_label_edges": sum(check["path_label_edges"] for check in splits.values()),
            "written_empty_nodes": sum(check["written_empty_nodes"] for check in splits.values()),
            "round_trip_mismatches": sum(len(check["round_trip_mismatches"]) for check in splits.values()),
            "written_validation_incidents": sum(check["validation_level_2"]["written"]["incidents"]
                                                for check in splits.values()),
            "gold_validation_incidents": sum(check["validation_level_2"]["gold"]["incidents"]
                                             for check in splits.values()),
        },
        "library_versions": {"udtools": metadata.version("udtools")},
        **stamp("scripts/check_expand.py"),
    }
    print(f"wrote {write_json(args.out, result)}")


if __name__ == "__main__":
    main()
