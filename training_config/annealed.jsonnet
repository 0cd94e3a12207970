// Annealed coaching (beta from 1.0 down by 0.02 every 2000 updates, Table 3 caption) with the greedy
// valid-policy roll-in, whose uniform mixture follows the same annealed beta: row CA / pi_valid of Table 3.
local common = import 'common.libsonnet';

common.seqgraph(
  oracle={ type: 'annealed_coaching', initial_beta: 1.0, step_size: 0.02, steps_per_decrease: 2000 },
  roll_in={ type: 'valid_policy', greedy: true, follow_oracle_beta: true },
)
