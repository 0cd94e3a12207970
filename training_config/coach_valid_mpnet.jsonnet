// coach_valid.jsonnet for English with frozen all-mpnet-base-v2 features (mpnet.libsonnet says how they are
// made and kept): the most accurate English config here (docs/RESULTS.md, section ewt_converged), trained end
// to end by `make english-model`. biaffine_mst_mpnet.jsonnet is the baseline over the same features.
(import 'mpnet.libsonnet')(import 'coach_valid.jsonnet')
