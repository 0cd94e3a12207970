// segmenter.jsonnet with one more feature of each character: whether multilingual-e5-small's
// sentencepiece tokenizer (XLM-R's vocabulary, learned from text in about 100 languages) ends a piece there
// (seqgraph_allennlp/segmentation/pieces.py). For text written without spaces between words (Chinese,
// Japanese): the pieces know words a small treebank never shows. The tokenizer is read from the directory
// that `make install` writes (`--include-package seqgraph_allennlp` sets PRETRAINED_MULTILINGUAL_E5) and kept
// in the segmenter's weights.
//   allennlp train training_config/segmenter_pieces.jsonnet -s out-segmenter/ --include-package seqgraph_allennlp
local segmenter = import 'segmenter.jsonnet';
local tokenizer = std.extVar('PRETRAINED_MULTILINGUAL_E5');

assert tokenizer != '' :
  'segmenter_pieces.jsonnet needs the multilingual-e5-small directory (make install writes it), '
  + 'or PRETRAINED_MULTILINGUAL_E5 set to a directory with a tokenizer.json';

segmenter + {
  dataset_reader+: { piece_tokenizer: tokenizer },
  validation_dataset_reader+: { piece_tokenizer: tokenizer },
  model+: {
    piece_tokenizer: tokenizer,
    encoder+: { input_size: super.input_size + 1 },
  },
}
