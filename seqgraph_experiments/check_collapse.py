"""
Checks the project's collapse of empty nodes in enhanced graphs (`seqgraph_allennlp.common.enhanced.enhanced_graph`)
against the UD tools' own script, `enhanced_collapse_empty_nodes.pl` (run with Perl; GPL, a copy in
../shared/ud/tools/, never a dependency of the project), on every word of UD_English-EWT train, dev and test,
and measures what the collapse changes and the ELAS / EULAS of the gold basic tree copied into DEPS.
Writes results/enhanced/collapse_check.json.

    .venv/bin/python scripts/check_collapse.py

Per split: the sentences with empty nodes, the words compared (every word of every file: the collapse may
only change words of those sentences, and must leave the others as read), each word whose DEPS differs
between the two (file, line, sent_id, both values), and what the collapse does: the edges that become a
path label (`3:conj>nsubj`), the words they reach, the edges into or out of empty nodes that disappear.

The gold-tree copy: a prediction of EWT test whose DEPS is each word's `HEAD:DEPREL` (the basic tree as the
enhanced graph), scored with `seqgraph_allennlp.common.scoring.enhanced_scores` (udeval on collapsed copies)
and the module's own count; ../shared/design/enhanced-ud.md quotes 86.00 / 97.29.

The script needs Perl with List::MoreUtils, Moose, MooseX::SemiAffordanceAccessor and namespace::autoclean
(Debian: liblist-moreutils-perl libmoose-perl libmoosex-semiaffordanceaccessor-perl
libnamespace-autoclean-perl).
"""
import argparse
import os
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Dict, List

from seqgraph_allennlp.common.conllu import (
    ConlluSentence,
    format_sentence,
    is_empty_node_line,
    parse_string,
    read_sentences,
)
from seqgraph_allennlp.common.deps import PATH_SEPARATOR, format_deps
from seqgraph_allennlp.common.enhanced import enhanced_graph
from seqgraph_allennlp.common.scoring import count_enhanced_files, enhanced_scores
from seqgraph_experiments import RESULTS, ROOT
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import write_json

EWT = ROOT.parent / "shared" / "ud" / "UD_English-EWT"
TOOLS = ROOT.parent / "shared" / "ud" / "tools"
OUT = RESULTS / "enhanced" / "collapse_check.json"
SPLITS = ("train", "dev", "test")
# the figures ../shared/design/enhanced-ud.md gives for the gold tree copied into DEPS on EWT test
DESIGN_GOLD_COPY = {"ELAS": 86.00, "EULAS": 97.29}


def run_perl(script: Path, path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["perl", str(script), str(path)], capture_output=True, text=True, check=True)


def compare_split(script: Path, path: Path) -> Dict:
    """Ours against the Perl script's collapsed DEPS of every word of one file, and what the collapse changes."""
    ours = list(read_sentences(str(path)))
    perl = run_perl(script, path)
    theirs = parse_string(perl.stdout, f"perl:{path.name}")
    if len(theirs) != len(ours):
        sys.exit(f"{path}: the Perl script wrote {len(theirs)} sentences for {len(ours)}")
    mismatches: List[Dict] = []
    words = path_edges = path_words = empty_edges = edges_before = edges_after = 0
    with_empty_nodes = empty_nodes = 0
    for sentence, collapsed in zip(ours, theirs):
        num_empty = sum(is_empty_node_line(line) for line in sentence.lines)
        with_empty_nodes += num_empty > 0
        empty_nodes += num_empty
        graph = enhanced_graph(sentence)
        if graph is None or len(collapsed) != len(sentence):
            sys.exit(f"{path}:{sentence.start_line}: no enhanced graph, or the Perl script changed the words")
        edges_before += sum(_count_deps(line) for line in _node_lines(sentence))
        empty_edges += sum(_count_deps(line, empty_only=True) for line in _node_lines(sentence))
        for word, edges, perl_word in zip(sentence.words, graph, collapsed.words):
            words += 1
            edges_after += len(edges)
            paths = sum(PATH_SEPARATOR in label for _, label in edges)
            path_edges += paths
            path_words += paths > 0
            if format_deps(edges) != perl_word.deps:
                mismatches.append({"line": word.line_number, "sent_id": sentence.sent_id, "word": word.id,
                                   "ours": format_deps(edges), "perl": perl_word.deps})
    return {
        "path": os.path.relpath(path, ROOT),
        "sha256": sha256(path),
        "sentences": len(ours),
        "sentences_with_empty_nodes": with_empty_nodes,
        "empty_nodes": empty_nodes,
        "words_compared": words,
        "mismatches": mismatches,
        "collapse": {
            "edges_before": edges_before,
            "edges_touching_empty_nodes_before": empty_edges,
            "edges_after": edges_after,
            "path_label_edges": path_edges,
            "words_with_a_path_label_edge": path_words,
        },
        "perl_warnings": [line for line in perl.stderr.splitlines() if line.strip()],
    }


def _node_lines(sentence: ConlluSentence) -> List[List[str]]:
    """The columns of the sentence's words and empty nodes (not comments, not multiword-token ranges)."""
    rows = [line.split("\t") for line in sentence.lines if not line.startswith("#")]
    return [columns for columns in rows if "-" not in columns[0]]


def _count_deps(columns: List[str], empty_only: bool = False) -> int:
    """The DEPS pairs of a node line; with `empty_only`, those into or out of an empty node."""
    if columns[8] == "_":
        return 0
    pairs = columns[8].split("|")
    if not empty_only:
        return len(pairs)
    if "." in columns[0]:
        return len(pairs)
    return sum("." in pair.split(":", 1)[0] for pair in pairs)


def gold_tree_copy(test_path: Path) -> Dict:
    """ELAS and EULAS on EWT test of a prediction whose DEPS is each word's gold HEAD:DEPREL."""
    with tempfile.TemporaryDirectory(prefix="check_collapse_") as folder:
        copy = Path(folder) / "gold_tree_as_deps.conllu"
        copy.write_text("".join(
            format_sentence(s, s.heads, s.deprels, deps=[[(word.head, word.deprel)] for word in s.words])
            for s in read_sentences(str(test_path))
        ), encoding="utf-8")
        official = enhanced_scores(str(test_path), str(copy))
        counts = count_enhanced_files(str(test_path), str(copy))
    return {
        "prediction": "EWT test with DEPS = HEAD:DEPREL of each word (basic tree as the enhanced graph)",
        "udeval": {metric: round(100 * value, 2) for metric, value in official.items()},
        "udeval_exact": official,
        "own_count": {**{metric: round(100 * value, 2) for metric, value in counts.scores().items()},
                      "gold_edges": counts.gold_edges, "predicted_edges": counts.predicted_edges,
                      "labeled_correct": counts.labeled_correct, "universal_correct": counts.universal_correct},
        "design_doc": DESIGN_GOLD_COPY,
        "matches_design_doc": all(round(100 * official[metric], 2) == value
                                  for metric, value in DESIGN_GOLD_COPY.items()),
    }


def perl_version() -> str:
    result = subprocess.run(["perl", "-e", "print $^V"], capture_output=True, text=True)
    return result.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--treebank", type=Path, default=EWT, help="a UD folder with *-ud-{train,dev,test}.conllu")
    parser.add_argument("--tools", type=Path, default=TOOLS, help="the folder of enhanced_collapse_empty_nodes.pl")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    script = args.tools / "enhanced_collapse_empty_nodes.pl"
    files = {split: next(args.treebank.glob(f"*-ud-{split}.conllu")) for split in SPLITS}
    splits = {}
    for split, path in files.items():
        splits[split] = compare_split(script, path)
        check = splits[split]
        print(f"{split}: {check['words_compared']} words, {check['sentences_with_empty_nodes']} sentences with "
              f"empty nodes, {len(check['mismatches'])} mismatches, {check['collapse']['path_label_edges']} "
              "path-label edges", file=sys.stderr)
    copy = gold_tree_copy(files["test"])
    print(f"gold tree as DEPS on test: ELAS {copy['udeval']['ELAS']} EULAS {copy['udeval']['EULAS']}", file=sys.stderr)
    result = {
        "what": "enhanced_graph's collapse of empty nodes against enhanced_collapse_empty_nodes.pl, every word's DEPS",
        "reference": {
            "script": "enhanced_collapse_empty_nodes.pl (UD tools, GPL-2.0; run, not used by the project)",
            "sha256": {name: sha256(args.tools / name) for name in ("enhanced_collapse_empty_nodes.pl", "Graph.pm",
                                                                     "Node.pm")},
            "perl": perl_version(),
        },
        "splits": splits,
        "total": {
            "words_compared": sum(check["words_compared"] for check in splits.values()),
            "sentences_with_empty_nodes": sum(check["sentences_with_empty_nodes"] for check in splits.values()),
            "mismatches": sum(len(check["mismatches"]) for check in splits.values()),
            "path_label_edges": sum(check["collapse"]["path_label_edges"] for check in splits.values()),
        },
        "gold_tree_copy_test": copy,
        "library_versions": {"udtools": metadata.version("udtools")},
        **stamp("scripts/check_collapse.py"),
    }
    print(f"wrote {write_json(args.out, result)}")


if __name__ == "__main__":
    main()
