// segmenter.jsonnet with the GloVe 6B 50d vector of each character's word as 50 more features of that
// character (seqgraph_allennlp/segmentation/word_vectors.py; the first 100,000 words, lower-cased, kept
// in the segmenter's weights in float16): the vectors know what a word is, where the characters see only
// its letters. English. GloVe is the text file that `make install` writes (`--include-package
// seqgraph_allennlp` sets GLOVE_6B_50D).
//   allennlp train training_config/segmenter_glove.jsonnet -s out-segmenter/ --include-package seqgraph_allennlp
local segmenter = import 'segmenter.jsonnet';
local glove = std.extVar('GLOVE_6B_50D');
local dim = 50;
local max_words = 100000;

assert glove != '' :
  'segmenter_glove.jsonnet needs glove.6B.50d.txt: make install writes it (python -m seqgraph_assets.glove), '
  + 'or set GLOVE_6B_50D to its path';

segmenter + {
  dataset_reader+: { word_vectors: glove, max_word_vectors: max_words },
  validation_dataset_reader+: { word_vectors: glove, max_word_vectors: max_words },
  model+: {
    word_vectors: glove,
    max_word_vectors: max_words,
    word_vector_dim: dim,
    encoder+: { input_size: super.input_size + dim },
  },
}
