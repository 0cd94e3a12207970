// Recurrent weight model, coaching oracle (beta 0.5) and greedy valid-policy roll-in mixed with the uniform
// oracle (beta 0.5): the paper's best setting, "Recurrent (C)" of Table 1 and row C / pi_valid of Table 3.
local common = import 'common.libsonnet';

common.seqgraph(
  oracle={ type: 'coaching', beta: 0.5 },
  roll_in={ type: 'valid_policy', beta: 0.5, greedy: true },
)
