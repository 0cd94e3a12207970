// coach_valid.jsonnet for English with frozen all-mpnet-base-v2 features (mpnet.libsonnet says how they are
// made and kept): the most accurate English config here (docs/RESULTS.md, section ewt_converged), trained end
// to end by `make english-model`. biaffine_mst_mpnet.jsonnet is the baseline over the same features.
// With coach_valid's UPOS tagger since 2026-11-26: over these features it did not lower dev UAS (row
// coach_valid_mpnet_upos against coach_valid_mpnet, trained without it; docs/RESULTS.md, ewt_converged).
// Without it: + common.no_upos_tagger. Its recurrent weight model keeps 256 units, as both rows were trained
// (coach_valid has 128 since 2026-11-26).
local common = import 'common.libsonnet';

// Its features made faster (bfloat16 on word-piece buckets; common.fast_mpnet_features) since 2026-11-29:
// the rows of docs/RESULTS.md were trained on float32 ones.
(import 'mpnet.libsonnet')((import 'coach_valid.jsonnet') + common.recurrent_hidden_256)
+ common.fast_mpnet_features
