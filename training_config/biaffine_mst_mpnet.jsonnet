// biaffine_mst.jsonnet (Dozat & Manning with MST decoding) over the frozen all-mpnet-base-v2 features of
// coach_valid_mpnet.jsonnet (mpnet.libsonnet), so that the recurrent parser and the baseline compare with the
// same encoder and features.
// Its features as coach_valid_mpnet's: made faster (bfloat16 on word-piece buckets) since 2026-11-29
// (common.fast_mpnet_features); the rows of docs/RESULTS.md were trained on float32 ones.
local common = import 'common.libsonnet';

(import 'mpnet.libsonnet')(import 'biaffine_mst.jsonnet') + common.fast_mpnet_features
