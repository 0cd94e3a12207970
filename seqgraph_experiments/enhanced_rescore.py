"""
The committed test predictions of the enhanced rows (results/enhanced/ROW.json) brought under the predictor's
rules as they are now (`seqgraph_allennlp.common.enhanced_rules`), without their models, whose directories do
not outlive a session: for each row, the rules applied to its own graph and the test ELAS and EULAS scored
again. Rows whose prediction does not change are left alone.

    .venv/bin/python scripts/enhanced_rescore.py

The source of a row's graph:

* `raw`: the test prediction made without the rules, which `enhanced_eval` keeps
  (`test_without_rules.predictions`): applying the rules to it is what the predictor does;
* `refilled`: for a row evaluated before that was kept, the prediction with the old rules applied, filled again.
  For a rule change that only chooses another marker among a word's `case`, `mark` or `cc` children (the
  nearest before the word instead of the first, 2026-11-27), filling a filled graph gives what filling the raw
  graph gives: over the gold graphs of EWT train, dev and test, with and without their lexical subtypes as the
  raw labels, no sentence differed (checked when the rule changed). One case can differ: a word whose new marker
  is a symbol (no subtype is written, so the old filled label stays instead of the model's own); such words are
  counted (`symbol_markers`). The same holds for a change that only finds markers where the old rule found none
  or writes another text for the same marker word (2026-11-28: `when`/`where` for an unmarked `advcl`, a verb
  marker's form, a conjunct's shared edge marked as its first conjunct): over the gold graphs of EWT dev and
  test, with and without their lexical subtypes, filling the old rule's output gave what filling the raw graph
  gives in every sentence.

The row's JSON gets the new `test` ELAS and EULAS (UAS, LAS and CLAS read the basic tree, which the rules do not
touch: checked equal), the new prediction's checksum, and a `rescored` entry with the scores before, the source,
the commit and the date. Dev predictions are not committed: `dev` stays as the row's evaluation scored it.
"""
import argparse
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Set

from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_allennlp.common.enhanced import enhanced_graph
from seqgraph_allennlp.common.enhanced_rules import MARKERS, marker_candidates, universal_relation
from seqgraph_allennlp.common.scoring import enhanced_scores, official_scores
from seqgraph_experiments import RESULTS, ROOT
from seqgraph_experiments.enhanced_eval import gzip_file
from seqgraph_experiments.enhanced_rules import SPLITS, apply_rules, basic_relations
from seqgraph_experiments.provenance import git_commit, now, sha256
from seqgraph_experiments.results import decompressed, read_json, write_json

ENHANCED = RESULTS / "enhanced"


def symbol_markers(predicted: Path) -> int:
    """
    Words of `predicted` whose graph has a relation with lexical subtypes and whose nearest marker before them
    (of the relation's first marker kind that the word has before it) is not a word while another marker of
    that kind comes before them too: where filling the kept prediction again can differ (a conservative count).
    """
    count = 0
    for sentence in read_sentences(str(predicted)):
        children: List[List[int]] = [[] for _ in range(len(sentence.heads) + 1)]
        for dependent, head in enumerate(sentence.heads, start=1):
            children[head].append(dependent)
        padded_relations = ["_"] + list(sentence.deprels)
        graph = enhanced_graph(sentence) or []
        for word, pairs in enumerate(graph, start=1):
            relations = {universal_relation(label) for _, label in pairs} & set(MARKERS)
            for relation in relations:
                for kind in MARKERS[relation]:
                    # all of them, not `marker_word`'s one: a symbol matters only with another before it
                    found = [child for child in marker_candidates(word, kind, children, padded_relations)
                             if child < word]
                    if found:
                        nearest = sentence.words[found[-1] - 1].form
                        if len(found) > 1 and not any(character.isalpha() for character in nearest):
                            count += 1
                        break
    return count


def rescore(record: Path, basic: Set[str], directory: Path) -> Optional[Dict]:
    """Rescores one row; returns its `rescored` entry, or None where its prediction does not change."""
    result = read_json(record)
    kept = ROOT / result["test_predictions"]["path"]
    raw_record = result.get("test_without_rules", {}).get("predictions")
    for part in ("source", "kept", "out"):
        (directory / record.stem / part).mkdir(parents=True, exist_ok=True)
    graph_source = decompressed(ROOT / raw_record["path"] if raw_record else kept, directory / record.stem / "source")
    source = "raw" if raw_record else "refilled"
    symbols = None if raw_record else symbol_markers(graph_source)
    output = directory / record.stem / "out" / kept.name.replace(".gz", "")
    apply_rules(graph_source, output, basic, fill=True, only_subtyped=False, drop=True)
    old = decompressed(kept, directory / record.stem / "kept")
    if output.read_text(encoding="utf-8") == old.read_text(encoding="utf-8"):
        return None
    test = SPLITS["test"]
    tree = official_scores(str(test), str(output))
    for metric in ("UAS", "LAS", "CLAS"):
        if tree[metric] != result["test"][metric]:
            raise SystemExit(f"{record}: {metric} changed from {result['test'][metric]} to {tree[metric]}: the rules "
                             "touched the basic tree")
    scores = enhanced_scores(str(test), str(output))
    entry = {
        "note": "the test prediction brought under the predictor's rules at this commit without the model "
                "(scripts/enhanced_rescore.py); `dev` is as the row's evaluation scored it",
        "source": source,
        "symbol_markers": symbols,
        "before": {metric: result["test"][metric] for metric in ("ELAS", "EULAS")},
        "after": scores,
        "git_commit": git_commit(),
        "date": now(),
    }
    gzip_file(output, kept)
    result["test"].update(scores)
    result["test_predictions"]["sha256"] = sha256(kept)
    result["rescored"] = [*result.get("rescored", []), entry]
    write_json(record, result)
    return entry


def main() -> None:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    basic = basic_relations(SPLITS["train"])
    with tempfile.TemporaryDirectory() as directory:
        for record in sorted(ENHANCED.glob("*.json")):
            if read_json(record).get("kind") != "enhanced_eval":
                continue
            entry = rescore(record, basic, Path(directory))
            if entry is None:
                print(f"{record.stem}: unchanged")
            else:
                print(f"{record.stem} ({entry['source']}): test ELAS {100 * entry['before']['ELAS']:.2f} -> "
                      f"{100 * entry['after']['ELAS']:.2f}, EULAS {100 * entry['before']['EULAS']:.2f} -> "
                      f"{100 * entry['after']['EULAS']:.2f}")


if __name__ == "__main__":
    main()
