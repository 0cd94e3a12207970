from seqgraph_allennlp.predictors.seqgraph_parser import SeqGraphParserPredictor  # noqa: F401
from seqgraph_allennlp.predictors.segmenter import SegmenterPredictor  # noqa: F401
