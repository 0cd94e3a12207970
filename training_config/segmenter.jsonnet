// The segmenter: raw text into tokens, sentences and multiword tokens, learned from a UD treebank
// (seqgraph_allennlp/models/segmenter.py). Each character is labelled with what ends there, from its
// embedding, its case and Unicode-category features and a 2-layer BiLSTM over 256-character windows of each
// document's running text (paragraphs joined by a blank line or a space, drawn per gap). Its multiword-token
// expansions are counted from the training windows and kept in the archive.
//   allennlp train training_config/segmenter.jsonnet -s out-segmenter/ --include-package seqgraph_allennlp
// Paths: TRAIN_DATA_PATH and VALIDATION_DATA_PATH (the shipped English-EWT train and dev by default).
local embedding_dim = 32;
local num_features = 12;  // seqgraph_allennlp.segmentation.features.NUM_FEATURES
{
  train_data_path: std.extVar('TRAIN_DATA_PATH'),
  validation_data_path: std.extVar('VALIDATION_DATA_PATH'),
  // a treebank smaller than 500,000 characters is read several times an epoch, its windows shifted
  dataset_reader: { type: 'segmenter_ud', window_length: 256, min_characters: 500000 },
  validation_dataset_reader: { type: 'segmenter_ud', window_length: 256, paragraph_separators: ['\n\n'] },
  model: {
    type: 'segmenter',
    character_embedding_dim: embedding_dim,
    encoder: {
      type: 'fused_bilstm',
      input_size: embedding_dim + num_features,
      hidden_size: 128,
      num_layers: 2,
      layer_dropout: 0.1,
      use_highway: false,
    },
    dropout: 0.1,
  },
  data_loader: { batch_size: 32, shuffle: true },
  trainer: {
    optimizer: { type: 'adam', lr: 2e-3 },
    grad_norm: 5.0,
    num_epochs: 20,
    patience: 3,
    validation_metric: ['+sentence_f1', '+token_f1', '+multiword_f1'],
    cuda_device: -1,
  },
}
