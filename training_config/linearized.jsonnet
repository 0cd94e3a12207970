// Linearized oracle and roll-in: gold edges in increasing (head, dependent) order, "Linear" of Table 3.
local common = import 'common.libsonnet';

common.seqgraph(oracle={ type: 'linearized' }, roll_in={ type: 'linearized' })
