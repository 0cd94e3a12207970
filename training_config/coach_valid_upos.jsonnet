// coach_valid.jsonnet with a UPOS tagger on the shared encoder (common.libsonnet's upos_tagger), trained
// with the parser, its cross-entropy (weight 1.0) added to the loss: text input then gets a UPOS column, and
// validation reports UPOS accuracy. Whether the tagger helps or hurts parsing is not yet measured, so the
// recommended coach_valid.jsonnet has none. Needs training data with a UPOS column on every word.
local common = import 'common.libsonnet';

(import 'coach_valid.jsonnet') + common.upos_tagger(1.0)
