// "Recurrent (C)" exactly as the paper trains it: coaching oracle (beta 0.5), greedy valid-policy roll-in
// mixed with the uniform oracle (beta 0.5), the policy a softmax over all V x V edges (equation 5) and
// no head-selection loss: the paper's tree objective. Like every config here it also trains the label
// classifier (cross-entropy on the gold relations, through the shared encoder), which the paper does not
// describe; -o '{"model.predict_labels": false}' trains the tree objective alone (no relations predicted).
local common = import 'common.libsonnet';

common.seqgraph(
  oracle={ type: 'coaching', beta: 0.5 },
  roll_in={ type: 'valid_policy', beta: 0.5, greedy: true },
  policy_support='all',
  head_selection_weight=0.0,
)
