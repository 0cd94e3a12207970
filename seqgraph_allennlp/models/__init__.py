from seqgraph_allennlp.models.seqgraph_parser import DecodingOptions, SeqGraphParser  # noqa: F401
from seqgraph_allennlp.models.conll18_biaffine_parser import Conll18BiaffineParser  # noqa: F401
from seqgraph_allennlp.models.enhanced_graph_parser import EnhancedGraphParser  # noqa: F401
from seqgraph_allennlp.models.segmenter import Segmenter  # noqa: F401
