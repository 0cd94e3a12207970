// Recurrent weight model with the uniform oracle and uniform roll-in: "Recurrent (U)" of Table 1.
local common = import 'common.libsonnet';

common.seqgraph(oracle={ type: 'uniform' }, roll_in={ type: 'uniform' })
