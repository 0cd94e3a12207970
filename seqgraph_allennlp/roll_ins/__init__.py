from seqgraph_allennlp.roll_ins.roll_in import RollIn  # noqa: F401
from seqgraph_allennlp.roll_ins.uniform import UniformRollIn  # noqa: F401
from seqgraph_allennlp.roll_ins.coaching import CoachingRollIn  # noqa: F401
from seqgraph_allennlp.roll_ins.valid_policy import ValidPolicyRollIn  # noqa: F401
from seqgraph_allennlp.roll_ins.linearized import LinearizedRollIn  # noqa: F401
