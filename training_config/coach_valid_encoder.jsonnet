// coach_valid.jsonnet over the word vectors of any Hugging Face encoder, named by TRANSFORMER_MODEL: a model on the
// hub (xlm-roberta-large, a language's own BERT; downloaded by Hugging Face on first use, which needs the network)
// or a model directory. Its word pieces are averaged to words and all its layers mixed by trained weights, beside
// the config's own word and character embeddings (encoder input 100 + 100 + its hidden size, which
// `--include-package seqgraph_allennlp` reads from the model's config into TRANSFORMER_HIDDEN_SIZE).
//   TRANSFORMER_MODEL=xlm-roberta-large allennlp train training_config/coach_valid_encoder.jsonnet -s out/ \
//       --include-package seqgraph_allennlp
// Frozen by default: each sentence's vectors are computed once and kept for later epochs
// (seqgraph_allennlp/modules/cached_transformer_embedder.py), so a CPU trains it. TRANSFORMER_FINE_TUNE=true
// trains the encoder too, at its own learning rate (TRANSFORMER_LEARNING_RATE, 2e-5 by default, against the
// parser's 2e-3), both warmed up over the first 100 batches and then decayed linearly to zero; a
// model of BERT-base size and larger then wants a GPU (trainer.cuda_device).
local coach_valid = import 'coach_valid.jsonnet';

local name = std.extVar('TRANSFORMER_MODEL');
local hidden_size = std.extVar('TRANSFORMER_HIDDEN_SIZE');
local fine_tune = std.extVar('TRANSFORMER_FINE_TUNE') == 'true';
local learning_rate = std.parseJson(std.extVar('TRANSFORMER_LEARNING_RATE'));

assert name != '' :
  'coach_valid_encoder.jsonnet needs TRANSFORMER_MODEL: a Hugging Face model name (xlm-roberta-large) or a '
  + 'model directory';
assert hidden_size != '' :
  'TRANSFORMER_MODEL=' + name + ': its config could not be read (no such model or directory, or a hub name '
  + 'without the network): set TRANSFORMER_HIDDEN_SIZE, or give a model directory';
assert std.member(['true', 'false'], std.extVar('TRANSFORMER_FINE_TUNE')) :
  'TRANSFORMER_FINE_TUNE must be true or false, got ' + std.extVar('TRANSFORMER_FINE_TUNE');

local indexer = { type: 'pretrained_transformer_mismatched', model_name: name, max_length: 512 };
local embedder = indexer + {
  last_layer_only: false,
} + (if fine_tune then {
  type: 'pretrained_transformer_mismatched',
  train_parameters: true,
} else {
  type: 'cached_pretrained_transformer_mismatched',
  train_parameters: false,
});

coach_valid + {
  dataset_reader+: { token_indexers+: { transformer: indexer } },
  model+: {
    text_field_embedder+: { token_embedders+: { transformer: embedder } },
    encoder+: { input_size: 200 + std.parseInt(hidden_size) },
  },
  trainer+: if fine_tune then {
    optimizer+: {
      parameter_groups: [[['text_field_embedder\\.token_embedders\\.transformer\\.'], { lr: learning_rate }]],
    },
    learning_rate_scheduler: { type: 'linear_with_warmup', warmup_steps: 100 },
  } else {},
}
