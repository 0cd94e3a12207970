// "One-Step" of Table 1: only the first score matrix S_0, trained with one uniform-oracle KL step over all
// gold edges and decoded with the valid decoder at every step.
local common = import 'common.libsonnet';

common.seqgraph(recurrent=false)
