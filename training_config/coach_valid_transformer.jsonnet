// coach_valid.jsonnet with a Transformer encoder trained from scratch instead of the BiLSTM (the paper's
// "Future Work": f_enc need not be a BiLSTM): AllenNLP's pytorch_transformer Seq2SeqEncoder over the same
// word and character embeddings (100 + 100 = 200 wide).
// Two initialisations keep the parser's scores where the BiLSTM puts them (S_0 near zero, the root vector
// comparable to a word): the last layer's LayerNorm gain starts at 0.01 (the post-LN output otherwise has
// an rms of 1 per dimension, against 0.01 for the BiLSTM, which made S_0 800 times larger and the initial
// policy a random near-one-hot), and positions are learned embeddings started at the scale of the word
// and character vectors (std 0.02; sinusoidal features, rms 0.71, drowned them 40 to 1). The rows
// coach_valid_transformer_sinusoidal and _learned_positions in docs/RESULTS.md are the versions without them.
// The learning rate can warm up linearly over the first batches: -o '{"trainer.learning_rate_scheduler.warmup_steps": 100}'
// (0, as shipped, is the constant rate of every other config: polynomial_decay with end_learning_rate equal
// to the optimiser's rate never decays; change both with trainer.optimizer.lr). Dotted overrides cannot add
// a section that the config lacks, hence the scheduler here.
local num_layers = 6;
local coach_valid = import 'coach_valid.jsonnet';

coach_valid + {
  model+: {
    encoder: {
      type: 'pytorch_transformer',
      input_dim: 200,
      num_layers: num_layers,
      num_attention_heads: 8,
      feedforward_hidden_dim: 800,
      positional_encoding: 'embedding',
      positional_embedding_size: 512,
      dropout_prob: 0.1,
    },
    initializer: {
      regexes: [
        ['encoder\\._positional_embedding\\.weight', { type: 'normal', std: 0.02 }],
        ['encoder\\._transformer\\.layers\\.' + (num_layers - 1) + '\\.norm2\\.weight', { type: 'constant', val: 0.01 }],
      ],
    },
  },
  trainer+: {
    learning_rate_scheduler: {
      type: 'polynomial_decay',
      warmup_steps: 0,
      end_learning_rate: coach_valid.trainer.optimizer.lr,
    },
  },
}
