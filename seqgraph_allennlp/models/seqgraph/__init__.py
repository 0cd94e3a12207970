"""
The parts of the `seqgraph_parser` model (`models/seqgraph_parser.py`, which builds the network and wires
them), each one idea of the paper or beyond it:

* `decoding`: the decoding options (`DecodingOptions`: decoder, `tau`, `stop_bias`) and their check;
* `tree_phase`: the tree phase (Sections 2-3, Appendix A): the policy's scores step by step, the valid
  decoder, the roll-in, the oracle's targets and the KL of the learning-to-search loss;
* `graph_phase`: the graph phase (`predict_enhanced`): the `STOP` score, the graph states of a roll-in and
  their KL, decoding the extra edges after the tree;
* `labels`, `enhanced_labels`, `upos_tagger`: the classifiers of the basic relations, the enhanced labels and
  UPOS;
* `metrics`: the attachment scores (and ELAS, EULAS) of the decoded parses;
* `readable`: the decoded tensors as words' heads, relations, tags and DEPS (`make_output_human_readable`).

The parts hold no parameters of their own: the parser registers every layer under the name its archives'
weights have, and gives each part the modules it reads. Pure tensor algorithms are in `structs/`.
"""
