from seqgraph_allennlp.oracles.oracle import Oracle, free_edges, gold_edge_index  # noqa: F401
from seqgraph_allennlp.oracles.uniform import UniformOracle  # noqa: F401
from seqgraph_allennlp.oracles.coaching import CoachingOracle  # noqa: F401
from seqgraph_allennlp.oracles.annealed_coaching import AnnealedCoachingOracle  # noqa: F401
from seqgraph_allennlp.oracles.linearized import LinearizedOracle  # noqa: F401
