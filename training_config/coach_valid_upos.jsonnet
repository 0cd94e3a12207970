// coach_valid.jsonnet with its UPOS tagger (common.libsonnet's upos_tagger, weight 1.0), which
// coach_valid.jsonnet itself has had since 2026-11-25: the same config, kept under this name because the rows
// trained before then name it (results/welsh_seeds, results/ewt_converged). On Welsh-CCG (15 epochs, seeds
// 1-3, float32 encoder; docs/RESULTS.md, welsh_seeds) test UAS 81.24 +- 0.51 against 80.77 +- 0.32 without
// the tagger, LAS 70.92 +- 0.35 against 69.90 +- 0.33, UPOS 90.2-90.6; on EWT see ewt_converged.
local common = import 'common.libsonnet';

(import 'coach_valid.jsonnet') + common.upos_tagger(1.0)
