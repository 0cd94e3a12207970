// coach_valid.jsonnet for English with frozen all-mpnet-base-v2 features (mpnet.libsonnet says how they are
// made and kept): the most accurate English config here (docs/RESULTS.md, section ewt_converged), trained end
// to end by `make english-model`. biaffine_mst_mpnet.jsonnet is the baseline over the same features.
// Without coach_valid's UPOS tagger: its row (92.78 test UAS) was trained without one, and the tagger has not
// been measured over these features yet (add it with common.upos_tagger, or the overrides in common.libsonnet).
// Its recurrent weight model keeps 256 units, as its row was trained (coach_valid has 128 since 2026-11-26).
local common = import 'common.libsonnet';

(import 'mpnet.libsonnet')((import 'coach_valid.jsonnet') + common.no_upos_tagger + common.recurrent_hidden_256)
