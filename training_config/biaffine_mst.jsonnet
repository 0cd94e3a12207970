// Dozat & Manning (2017) via allennlp-models' biaffine_parser with MST decoding, the same embedder and
// encoder as the other configs. `conll18_biaffine_parser` is that model with the CoNLL 2018 scorer (every
// word counts, punctuation included), so its UAS/LAS compare with the other rows.
local common = import 'common.libsonnet';

{
  dataset_reader: common.dataset_reader,
  train_data_path: common.train_data_path,
  validation_data_path: common.validation_data_path,
  test_data_path: common.test_data_path,
  evaluate_on_test: false,
  datasets_for_vocab_creation: ['train'],
  vocabulary: common.vocabulary,
  model: {
    type: 'conll18_biaffine_parser',
    text_field_embedder: common.text_field_embedder,
    encoder: common.encoder,
    use_mst_decoding_for_validation: true,
    arc_representation_dim: 500,
    tag_representation_dim: 100,
    dropout: 0.33,
    input_dropout: 0.33,
  },
  data_loader: common.data_loader,
  trainer: common.trainer,
}
