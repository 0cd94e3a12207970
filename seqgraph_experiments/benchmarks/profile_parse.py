"""
Where parsing time goes: parses a CoNLL-U file (without its gold annotation) with an archived model in
batches of 64 in file order, as `scripts/bench_speed.py` times it; run it under py-spy:

    OMP_NUM_THREADS=1 .venv/bin/py-spy record -r 100 -f raw -o profile.txt -- \\
        .venv/bin/python benchmarks/profile_parse.py MODEL.tar.gz FILE.conllu

(py-spy is not a project dependency: `.venv/bin/pip install py-spy`.) What the profiles showed:
docs/BENCHMARKS.md.
"""
import argparse

from allennlp.models.archival import load_archive

import seqgraph_allennlp  # noqa: F401  (registers the components)
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.bench_speed import parse_speed
from seqgraph_experiments.instances import read_instances


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a trained model archive (model.tar.gz)")
    parser.add_argument("conllu", help="the CoNLL-U file to parse")
    args = parser.parse_args()
    refuse_missing_files(parser, [args.model, args.conllu])
    model_path, conllu = args.model, args.conllu
    archive = load_archive(model_path)
    archive.model.eval()
    instances = read_instances(archive, conllu, gold=False)
    print(f"{parse_speed(archive.model, instances, 64):.1f} sentences/s (batches of 64)")


if __name__ == "__main__":
    main()
