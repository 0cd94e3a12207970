"""
The baseline's MST decoding before and after it was constrained to one root word: parses test files with
`biaffine_mst` archives twice, with allennlp-models' `_run_mst_decoding` (energy 0 on every root edge, no
single-root guarantee) and with `Conll18BiaffineParser`'s (`structs.tree.single_root_mst`), and writes the
UAS against gold and the number of predicted sentences that are not trees with one root word to
results/benchmarks/single_root_mst.json.

    .venv/bin/python benchmarks/single_root_mst.py \\
        experiments/welsh_fused/biaffine_mst/model/model.tar.gz=data/UD_Welsh-CCG/cy_ccg-ud-test.conllu \\
        benchmarks/out/biaffine_mst/model.tar.gz=data/UD_English-EWT/en_ewt-ud-test.conllu

Both decodings run in float32 (`bfloat16_inference` off), so the decoder is the only difference.
"""
import argparse
import json
from pathlib import Path

from allennlp.models.archival import load_archive
from allennlp_models.structured_prediction.models.biaffine_dependency_parser import BiaffineDependencyParser

import seqgraph_allennlp  # noqa: F401  (registers the components)
from seqgraph_allennlp.common.conllu import find_tree_problem
from seqgraph_allennlp.models.conll18_biaffine_parser import Conll18BiaffineParser
from seqgraph_experiments.instances import parse_instances
from seqgraph_experiments.provenance import stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

RESULT = BENCHMARKS / "single_root_mst.json"


def parse(archive_path: str, conllu: str, original: bool) -> dict:
    archive = load_archive(archive_path, overrides=json.dumps({"model.encoder.bfloat16_inference": False}))
    model = archive.model
    model.eval()
    if original:
        # the instance attribute shadows the class's staticmethod
        model._run_mst_decoding = BiaffineDependencyParser._run_mst_decoding
    assert isinstance(model, Conll18BiaffineParser), f"{archive_path} is not a biaffine_mst model"
    plain, gold = parse_instances(archive, conllu)
    heads = []
    for begin in range(0, len(plain), 64):
        for output in model.forward_on_instances(plain[begin: begin + 64]):
            heads.append([int(head) for head in output["predicted_heads"]])
    correct = sum(sum(p == g for p, g in zip(predicted, reference)) for predicted, reference in zip(heads, gold))
    words = sum(len(reference) for reference in gold)
    return {
        "UAS": correct / words,
        "sentences": len(heads),
        "not_single_rooted_trees": sum(find_tree_problem(predicted) is not None for predicted in heads),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pairs", nargs="+", metavar="ARCHIVE=CONLLU",
                        help="a biaffine_mst archive and the test file to parse with it")
    args = parser.parse_args()
    pairs = []
    for pair in args.pairs:
        archive_path, equals, conllu = pair.partition("=")
        missing = [path for path in (archive_path, conllu) if path and not Path(path).is_file()]
        if not equals or not archive_path or not conllu or missing:
            parser.error(f"{pair!r}: not ARCHIVE=CONLLU with both files present"
                         + (f" (no file {', '.join(missing)})" if missing else ""))
        pairs.append((archive_path, conllu))
    rows = []
    for archive_path, conllu in pairs:
        row = {"archive": archive_path, "file": conllu}
        for label, original in (("allennlp_models", True), ("single_root", False)):
            row[label] = parse(archive_path, conllu, original)
            print(archive_path, conllu, label, row[label], flush=True)
        rows.append(row)
    print(f"wrote {write_json(RESULT, {'rows': rows, **stamp('benchmarks/single_root_mst.py')})}")


if __name__ == "__main__":
    main()
