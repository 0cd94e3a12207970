"""
seqgraph-allennlp: the Sequential Graph Dependency Parser (Welleck & Cho, 2019) as an AllenNLP plugin.

Importing this package registers every component, so `--include-package seqgraph_allennlp` is all a user
passes. It also imports `allennlp_models.structured_prediction`, so the Dozat & Manning baseline
(`biaffine_parser`) runs from the same command. Only when the running program is AllenNLP's command line
does it also set the shipped configs' defaults and print user errors as one line
(`configure_command_line`, which a Python program may call itself); any other importer's process is left
as it is.
"""
import allennlp_models.structured_prediction  # noqa: F401  (registers biaffine_parser)

from seqgraph_allennlp.common.command_line import configure_command_line, running_allennlp_command_line

if running_allennlp_command_line():
    configure_command_line()

from seqgraph_allennlp.dataset_readers import SeqGraphUDReader  # noqa: F401
from seqgraph_allennlp.oracles import Oracle  # noqa: F401
from seqgraph_allennlp.roll_ins import RollIn  # noqa: F401
from seqgraph_allennlp.modules.fused_bilstm import FusedBiLstm  # noqa: F401
from seqgraph_allennlp.modules.cached_transformer_embedder import CachedPretrainedTransformerMismatchedEmbedder  # noqa: F401,E501
from seqgraph_allennlp.models import SeqGraphParser, Conll18BiaffineParser  # noqa: F401
from seqgraph_allennlp.predictors import SeqGraphParserPredictor  # noqa: F401
from seqgraph_allennlp.training import RunLengthCallback  # noqa: F401
from seqgraph_allennlp.api import Parser  # noqa: F401  (`from seqgraph_allennlp import Parser`)
