// allennlp-models' graph_parser (Dozat & Manning, 2018: each edge a sigmoid, its label a softmax, in one step)
// on the enhanced UD graph: `enhanced_graph_parser` (seqgraph_allennlp/models/enhanced_graph_parser.py says
// what it adds: a root, this project's fields, a word never left without a head, a by-product basic tree).
// The one-step baseline of coach_valid_enhanced.jsonnet, with the same reader, embedder and encoder
// (common.libsonnet) and biaffine_mst's sizes; model selection on validation ELAS.
local common = import 'common.libsonnet';

{
  dataset_reader: common.dataset_reader + { enhanced: true },
  train_data_path: common.train_data_path,
  validation_data_path: common.validation_data_path,
  test_data_path: common.test_data_path,
  evaluate_on_test: false,
  datasets_for_vocab_creation: ['train'],
  vocabulary: common.vocabulary,
  model: {
    type: 'enhanced_graph_parser',
    text_field_embedder: common.text_field_embedder,
    encoder: common.encoder,
    arc_representation_dim: 500,
    tag_representation_dim: 100,
    dropout: 0.33,
    input_dropout: 0.33,
    edge_prediction_threshold: 0.5,
  },
  data_loader: common.data_loader,
  trainer: common.trainer + { validation_metric: '+ELAS' },
}
