// Shared parts of the shipped configs. Sizes follow Dozat & Manning (2017): 3-layer BiLSTM of 400 units
// per direction, dropout 0.33, arc MLP 500, label MLP 100, 100-d word embeddings trained from scratch.
// Optimiser: Dozat & Manning's Adam(lr 2e-3, beta2 0.9) with gradient clipping 5, batches of 32 sentences.
// The paper uses Qi et al. (2018)'s encoder and training script, whose defaults differ (Adam lr 3e-3,
// beta2 0.95, clipping 1.0, batches of 5,000 words, a switch to AMSGrad); the paper changed that schedule
// for its own models without saying how. Dozat & Manning's published setting is shipped because it is
// the one both the baseline and our models can be held to; change it with dotted overrides, e.g.
// -o '{"trainer.optimizer.lr": 3e-3}'.
// Character embeddings: a CNN over characters (allennlp-models' parser configs) instead of Qi et al.'s
// character LSTM, for speed on CPU.
// Paths: the project's copy of UD English-EWT under data/; set TRAIN_DATA_PATH, VALIDATION_DATA_PATH and
// TEST_DATA_PATH (environment variables) or use --overrides for other treebanks.
{
  train_data_path: std.extVar('TRAIN_DATA_PATH'),
  validation_data_path: std.extVar('VALIDATION_DATA_PATH'),
  test_data_path: std.extVar('TEST_DATA_PATH'),

  // Relations get an unknown entry (AllenNLP's default leaves "*tags" namespaces without one), so that a
  // relation absent from the training data (Welsh dev has `iobj`, train has none) is scored as an error
  // instead of stopping evaluation with a KeyError. The parser never predicts the padding or unknown entry.
  vocabulary: { non_padded_namespaces: ['*labels', 'head_index_tags'] },

  dataset_reader: {
    type: 'seqgraph_ud',
    token_indexers: {
      tokens: { type: 'single_id' },
      token_characters: { type: 'characters', min_padding_length: 3 },
    },
  },

  text_field_embedder: {
    token_embedders: {
      tokens: { type: 'embedding', embedding_dim: 100 },
      token_characters: {
        type: 'character_encoding',
        embedding: { embedding_dim: 50 },
        encoder: { type: 'cnn', embedding_dim: 50, num_filters: 100, ngram_filter_sizes: [3] },
      },
    },
  },

  // input: 100 (words) + 100 (characters). The fused BiLSTM (seqgraph_allennlp/modules/fused_bilstm.py)
  // runs each layer in PyTorch's fused kernel, about 4x faster on CPU than AllenNLP's stacked LSTM, which
  // loops over time steps in Python; their accuracy side by side is in docs/RESULTS.md. The environment
  // variable ENCODER picks one: `fused` (the default) or `stacked`.
  encoders:: {
    fused: {
      type: 'fused_bilstm',
      input_size: 200,
      hidden_size: 400,
      num_layers: 3,
      layer_dropout: 0.33,
      use_highway: true,
      // parsing runs the LSTM in bfloat16 where the CPU has it natively: ~1.2x faster, the same UAS on EWT
      // dev and Welsh test (docs/RESULTS.md, Speed); -o '{"model.encoder.bfloat16_inference": false}'
      bfloat16_inference: true,
      // so does training (the LSTM layers forward and backward; weights, gradients and the rest of the
      // model stay float32): an EWT epoch of coach_valid 3.37 -> 3.11 min (docs/BENCHMARKS.md); Welsh-CCG
      // test UAS over 3 seeds (docs/RESULTS.md, welsh_seeds): coach_valid 80.77 -> 81.16, biaffine_mst
      // 80.35 -> 80.21, both changes within the seeds' spread.
      // A CPU without native bfloat16 trains in float32; -o '{"model.encoder.bfloat16_training": false}'
      bfloat16_training: true,
    },
    stacked: {
      type: 'stacked_bidirectional_lstm',
      input_size: 200,
      hidden_size: 400,
      num_layers: 3,
      recurrent_dropout_probability: 0.33,
      use_highway: true,
    },
  },
  local encoder_name = std.extVar('ENCODER'),
  assert std.objectHas(self.encoders, encoder_name) :
    'ENCODER must be "fused" or "stacked", got "' + encoder_name + '"',
  encoder: self.encoders[encoder_name],

  data_loader: {
    batch_sampler: { type: 'bucket', batch_size: 32, sorting_keys: ['words'] },
  },

  trainer: {
    num_epochs: 50,
    // the paper keeps the model with the best validation UAS
    validation_metric: '+UAS',
    patience: 10,
    grad_norm: 5.0,
    // AllenNLP's adam with PyTorch's fused kernel (seqgraph_allennlp/training/fused_adam.py)
    optimizer: { type: 'fused_adam', lr: 2e-3, betas: [0.9, 0.9] },
  },

  // A UPOS tagger on the parser's encoder, trained with it (its cross-entropy times `weight` added to the
  // loss), so that raw text gets a UPOS column: the reader adds the gold UPOS as the tagger's targets
  // (`upos_targets`, never an input) and the model tags (`predict_upos`). Added to a whole config, e.g.
  // training_config/coach_valid_upos.jsonnet; the same with dotted overrides on any sequential config:
  // -o '{"dataset_reader.upos_targets": true, "model.predict_upos": true, "model.upos_loss_weight": 1.0}'
  upos_tagger(weight=1.0):: {
    dataset_reader+: { upos_targets: true },
    model+: { predict_upos: true, upos_loss_weight: weight },
  },
  // The same config without the tagger: for a treebank without UPOS, and to reproduce the rows trained
  // before it was on (coach_valid before 2026-11-25, coach_valid_mpnet before 2026-11-26):
  // -o '{"dataset_reader.upos_targets": false, "model.predict_upos": false}'
  no_upos_tagger:: {
    dataset_reader+: { upos_targets: false },
    model+: { predict_upos: false },
  },

  // The enhanced UD graph (the DEPS column) beside the basic tree: the reader adds the gold graph as a target
  // (`enhanced`), the model generates it after the tree, edge by edge until STOP (`predict_enhanced`), and
  // model selection is on validation ELAS. Added to a whole config (training_config/coach_valid_enhanced.jsonnet);
  // the same with dotted overrides on any recurrent config:
  // -o '{"dataset_reader.enhanced": true, "model.predict_enhanced": true, "trainer.validation_metric": "+ELAS"}'
  // Parsing computes the label classifiers' bilinear products (380 enhanced labels) in bfloat16 where the
  // CPU has it natively: on EWT dev 7 of 25,147 basic labels and 8 words' DEPS changed, ELAS 78.27 -> 78.28
  // (results/benchmarks/bf16_labels_enhanced.json); -o '{"model.label_bfloat16_inference": false}'
  // and the initial edge scores (S_0 and G_0: the arc MLPs and biaffines, arc_bfloat16_inference): on EWT dev
  // with the converged coach_valid_enhanced, 17 of 25,147 heads and 26 words' DEPS changed, ELAS 82.51 -> 82.52,
  // the initial scores' own time 1.95 -> 1.75 s, about 1 % of a parse (results/benchmarks/bf16_arcs.json);
  // -o '{"model.arc_bfloat16_inference": false}'
  // The graph phase scores its edges with its own biaffine added (separate_graph_scores, docs/ENHANCED.md):
  // on EWT over the mpnet features (seed 0, at most 40 epochs each, patience 5) test ELAS 89.87 against 88.15 without it
  // (results/enhanced/coach_valid_mpnet_enhanced.json, coach_valid_mpnet_enhanced_shared_scores.json); the
  // runs before 2026-11-27 evening had it off: -o '{"model.separate_graph_scores": false}'
  enhanced_graph:: {
    dataset_reader+: { enhanced: true },
    model+: {
      predict_enhanced: true,
      label_bfloat16_inference: true,
      arc_bfloat16_inference: true,
      separate_graph_scores: true,
    },
    trainer+: { validation_metric: '+ELAS' },
  },

  // The mpnet features (mpnet.libsonnet) made faster, in training and parsing alike (issue 43), for the English
  // tree configs (coach_valid_mpnet, biaffine_mst_mpnet) since 2026-11-29; the enhanced configs keep float32
  // features and AllenNLP's indexer, as their rows are trained. The transformer computes in bfloat16 where the
  // CPU has it natively (float32 elsewhere) on word-piece buckets, so that a model parses with the features it
  // was trained on: 2.08 times as fast as float32 on EWT test with batches of 64, words' layer vectors at a
  // mean cosine of 0.99997 to float32's (results/benchmarks/feature_speed.json, docs/BENCHMARKS.md). Words are
  // split into word pieces by the tokenizer's own Rust code (the word_piece_mismatched indexer: the same
  // pieces as AllenNLP's pretrained_transformer_mismatched, about a third of its time).
  fast_mpnet_features:: {
    dataset_reader+: { token_indexers+: { mpnet+: { type: 'word_piece_mismatched' } } },
    model+: {
      text_field_embedder+: {
        token_embedders+: { mpnet+: { transformer_precision: 'bfloat16', word_piece_buckets: true } },
      },
    },
  },

  // The recurrent weight model's LSTM cell at 256 units with float32 score updates, as every row trained
  // before 2026-11-26 (the recommended coach_valid has 64 units and bfloat16 updates since,
  // coach_valid.jsonnet): for configs whose rows were measured with it.
  recurrent_hidden_256:: {
    model+: { recurrent_weight+: { hidden_dim: 256, bfloat16_training: false } },
  },

  // The sequential graph parser with the given training policy. policy_support: 'valid' normalises the
  // policy over the valid edges of each state, 'all' is the paper's equation 5 over all V x V edges;
  // head_selection_weight > 0 adds Dozat & Manning's per-word head cross-entropy on S_0 to the KL loss
  // (beyond the paper). upos_loss_weight: null has no UPOS tagger; a number adds one (upos_tagger above)
  // with that loss weight. recurrent_hidden_dim is the recurrent weight model's LSTM cell size;
  // recurrent_bfloat16_training computes its score updates in bfloat16 in training (where the CPU has it
  // natively). The seqgraph_run_length callback gives annealed coaching the run's length.
  seqgraph(recurrent=true, oracle=null, roll_in=null, decoder='valid', policy_support='valid', head_selection_weight=0.0, tau=null, upos_loss_weight=null, recurrent_hidden_dim=256, recurrent_bfloat16_training=false):: {
    dataset_reader: $.dataset_reader,
    train_data_path: $.train_data_path,
    validation_data_path: $.validation_data_path,
    test_data_path: $.test_data_path,
    evaluate_on_test: false,
    // words seen only in dev or test get the unknown-word embedding, as for any new text
    datasets_for_vocab_creation: ['train'],
    vocabulary: $.vocabulary,
    model: {
      type: 'seqgraph_parser',
      text_field_embedder: $.text_field_embedder,
      encoder: $.encoder,
      arc_representation_dim: 500,
      tag_representation_dim: 100,
      dropout: 0.33,
      input_dropout: 0.33,
      recurrent: recurrent,
      decoder: decoder,
      // multi-edge decoding threshold (Appendix A); null adds one edge per step. Set it at evaluate or
      // predict time without retraining: -o '{"model.tau": 0.05}' (or null for one edge per step)
      tau: tau,
      policy_support: policy_support,
      head_selection_weight: head_selection_weight,
      // Sizes of the recurrent weight model (Section 2.2); the paper does not give them.
      [if recurrent then 'recurrent_weight']: {
        hidden_dim: recurrent_hidden_dim,
        edge_dim: 128,
        position_dim: 64,
        weight_dim: 64,
        // EWT train's longest sentence has 159 words; UD has sentences of 200+
        max_sentence_length: 512,
        // parsing computes the score updates in bfloat16 where the CPU has it natively: EWT dev UAS 87.46
        // as with the encoder alone in bfloat16 (float32: 87.48), 1.05x faster
        // (results/benchmarks/bf16_inference.json); -o '{"model.recurrent_weight.bfloat16_inference": false}'
        bfloat16_inference: true,
        bfloat16_training: recurrent_bfloat16_training,
      },
      [if oracle != null then 'oracle']: oracle,
      [if roll_in != null then 'roll_in']: roll_in,
    },
    data_loader: $.data_loader,
    trainer: $.trainer + { callbacks: [{ type: 'seqgraph_run_length' }] },
  } + (if upos_loss_weight != null then $.upos_tagger(upos_loss_weight) else {}),
}
