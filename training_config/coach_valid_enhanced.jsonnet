// coach_valid generating the enhanced UD graph (DEPS) as well as the basic tree (HEAD, DEPREL): one model
// fills both layers. The tree comes first, by the valid decoder, and makes the graph rooted and connected;
// then the recurrent model adds extra edges (several heads per word, cycles) one per step until it chooses
// STOP, trained with the same coaching oracle and valid-policy roll-in over the still-free gold graph edges
// (seqgraph_allennlp/structs/graph.py, the model's predict_enhanced). Every edge of the graph gets an
// enhanced label (`obl:in`, `conj:and`, `nsubj:xsubj`) from its own classifier. Empty nodes are collapsed as
// the IWPT shared tasks scored them (an edge through `8.1` becomes one edge labelled `conj>nsubj`).
// Model selection is on validation ELAS. Needs DEPS on every training sentence (UD English-EWT has it).
local common = import 'common.libsonnet';

(import 'coach_valid.jsonnet') + common.enhanced_graph
