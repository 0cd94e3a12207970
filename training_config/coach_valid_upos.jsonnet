// coach_valid.jsonnet with a UPOS tagger on the shared encoder (common.libsonnet's upos_tagger), trained
// with the parser, its cross-entropy (weight 1.0) added to the loss: text input then gets a UPOS column, and
// validation reports UPOS accuracy. On Welsh-CCG (15 epochs, seeds 1-3, both in float32; docs/RESULTS.md,
// welsh_seeds) it gave test UAS 81.24 +- 0.51 against coach_valid's 80.77 +- 0.32 (within the spread), LAS
// 70.92 +- 0.35 against 69.90 +- 0.33, UPOS 90.2-90.6; it is not yet measured on English, so the
// recommended coach_valid.jsonnet has none yet. Needs training data with a UPOS column on every word.
local common = import 'common.libsonnet';

(import 'coach_valid.jsonnet') + common.upos_tagger(1.0)
