from seqgraph_allennlp.dataset_readers.seqgraph_ud import SeqGraphUDReader  # noqa: F401
