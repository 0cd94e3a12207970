"""
Puts a segmenter inside a parser archive (`seqgraph_allennlp.segmentation.archive.attach_segmenter`):

    python -m seqgraph_allennlp.segmentation.attach PARSER.tar.gz SEGMENTER.tar.gz [-o OUT.tar.gz]
"""
import argparse
import sys

from seqgraph_allennlp.common.errors import SeqGraphError
from seqgraph_allennlp.segmentation.archive import attach_segmenter


def main() -> None:
    parser = argparse.ArgumentParser(description="Put a segmenter archive inside a parser archive.")
    parser.add_argument("parser", help="the parser's model.tar.gz")
    parser.add_argument("segmenter", help="the segmenter's model.tar.gz (allennlp train training_config/segmenter.jsonnet)")
    parser.add_argument("-o", "--output", help="where to write the result (default: over the parser archive)")
    args = parser.parse_args()
    try:
        written = attach_segmenter(args.parser, args.segmenter, args.output)
    except SeqGraphError as error:
        sys.exit(f"error: {error}")
    print(f"wrote {written}: {args.parser} with the segmenter {args.segmenter}")


if __name__ == "__main__":
    main()
