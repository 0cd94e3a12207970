from seqgraph_allennlp.predictors.seqgraph_parser import SeqGraphParserPredictor  # noqa: F401
