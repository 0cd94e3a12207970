// coach_valid_mpnet generating the enhanced UD graph (DEPS) as well as the basic tree: the sequential graph
// parser over frozen all-mpnet-base-v2 features (training_config/mpnet.libsonnet; `make english` fetches the
// model), with the graph phase of coach_valid_enhanced.jsonnet. Model selection on validation ELAS.
// Its features in float32, as its rows are trained (coach_valid_mpnet's in bfloat16 since 2026-11-29,
// common.fast_mpnet_features); parsing this model with bfloat16 ones lost nothing (EWT test UAS 93.02
// against 93.00, docs/BENCHMARKS.md): -o '{"model.text_field_embedder.token_embedders.mpnet.transformer_precision":
// "bfloat16"}'.
local common = import 'common.libsonnet';

(import 'mpnet.libsonnet')((import 'coach_valid.jsonnet') + common.recurrent_hidden_256) + common.enhanced_graph
