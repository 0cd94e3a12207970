// Frozen all-mpnet-base-v2 features added to a shipped config (coach_valid_mpnet.jsonnet,
// biaffine_mst_mpnet.jsonnet and the enhanced twins), in the way of UDPipe 2: the config's trained word and
// character embeddings concatenated with the word vectors of all-mpnet-base-v2 (MPNet base, 12 layers x 768,
// uncased, Apache-2.0), its word pieces averaged to words and its layers 2-5 mixed by trained weights (encoder
// input 100 + 100 + 768). The transformer is built with its first five layers only (num_hidden_layers: 5, the
// last four of them mixed): they hold more of the syntax than its last four, which the configs mixed until
// 2026-11-29 (a probe and a screen: docs/ANALYSIS.md, "Which layers of mpnet hold the syntax"), and cost 5/12 of
// the work. The transformer stays frozen and each sentence's four layers are computed once, in the first epoch,
// and kept in memory (about 2.8 GB for EWT train + dev; seqgraph_allennlp/modules/cached_transformer_embedder.py),
// so later epochs cost what the base config's do.
// Setting the embedder's cache_directory also keeps them on disk for a resumed or repeated training; the
// files depend on the transformer and its settings only, so both configs can share one directory.
// The model directory is not part of `make install` (438 MB): `make english` downloads and writes it
// (python -m seqgraph_assets.mpnet), and `--include-package seqgraph_allennlp` sets PRETRAINED_MPNET to it.
local model_directory = std.extVar('PRETRAINED_MPNET');
// read from the directory only: never from the Hugging Face hub
local offline = { local_files_only: true };
local mpnet = {
  type: 'pretrained_transformer_mismatched',
  model_name: model_directory,
  max_length: 512,
  tokenizer_kwargs: offline,
};

function(config)
  assert model_directory != '' :
    'this config needs the all-mpnet-base-v2 model directory: make english (python -m '
    + 'seqgraph_assets.mpnet), or set PRETRAINED_MPNET to a Hugging Face model directory';
  config + {
    dataset_reader+: { token_indexers+: { mpnet: mpnet } },
    model+: {
      text_field_embedder+: {
        token_embedders+: {
          mpnet: mpnet + {
            type: 'cached_pretrained_transformer_mismatched',
            train_parameters: false,
            last_layer_only: false,
            mixed_layers: [-4, -3, -2, -1],
            transformer_kwargs: offline + { num_hidden_layers: 5 },
          },
        },
      },
      encoder+: { input_size: 968 },
    },
  }
