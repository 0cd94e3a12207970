from seqgraph_allennlp.dataset_readers.seqgraph_ud import SeqGraphUDReader  # noqa: F401
from seqgraph_allennlp.dataset_readers.word_piece_indexer import WordPieceMismatchedIndexer  # noqa: F401
from seqgraph_allennlp.dataset_readers.segmenter_ud import SegmenterUDReader  # noqa: F401
