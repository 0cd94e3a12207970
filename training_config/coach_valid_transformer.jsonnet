// coach_valid.jsonnet with a Transformer encoder trained from scratch instead of the BiLSTM (the paper's
// "Future Work": f_enc need not be a BiLSTM): AllenNLP's pytorch_transformer Seq2SeqEncoder over the same
// word and character embeddings (100 + 100 = 200 wide).
// Positions are learned embeddings started at the scale of the word and character vectors (std 0.02; those
// have an rms of about 0.02 at initialisation): sinusoidal features (rms 0.71) drowned the words 40 to 1,
// and after one EWT epoch that encoder reached 22.9 test UAS (docs/RESULTS.md, coach_valid_transformer_sinusoidal).
local coach_valid = import 'coach_valid.jsonnet';

coach_valid + {
  model+: {
    encoder: {
      type: 'pytorch_transformer',
      input_dim: 200,
      num_layers: 6,
      num_attention_heads: 8,
      feedforward_hidden_dim: 800,
      positional_encoding: 'embedding',
      positional_embedding_size: 512,
      dropout_prob: 0.1,
    },
    initializer: {
      regexes: [['encoder\\._positional_embedding\\.weight', { type: 'normal', std: 0.02 }]],
    },
  },
}
