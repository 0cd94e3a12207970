from seqgraph_allennlp.training.run_length import RunLengthCallback  # noqa: F401
from seqgraph_allennlp.training.fused_adam import FusedAdamOptimizer  # noqa: F401
