import torch

from seqgraph_allennlp.roll_ins.roll_in import MixedRollIn, choose_from_policy, RollIn


@RollIn.register("valid_policy")
class ValidPolicyRollIn(MixedRollIn):
    """
    Valid-policy roll-in (Section 3.3, 3): the policy's best (or a sampled) edge among all edges that keep
    the tree valid, as at test time, mixed with the uniform oracle by `beta`. It can choose wrong edges, so
    the model is trained on states like the ones its own decoding reaches.

    # Parameters

    beta : `float`, optional (default = `0.5`)
    greedy : `bool`, optional (default = `True`)
    follow_oracle_beta : `bool`, optional (default = `False`)
    """

    def policy_choice(self, free, valid, policy_log_probs, generator) -> torch.LongTensor:
        return choose_from_policy(policy_log_probs, valid, self.greedy, generator)
