import torch

from seqgraph_allennlp.roll_ins.roll_in import MixedRollIn, choose_from_policy, RollIn


@RollIn.register("coaching")
class CoachingRollIn(MixedRollIn):
    """
    Coaching roll-in (Section 3.3, 2): `pi_theta * pi*_unif`, i.e. the policy restricted to the free gold
    edges (argmax, or a sample), mixed with the uniform oracle by `beta`. It stays on the gold path but
    follows the orders the policy prefers.

    # Parameters

    beta : `float`, optional (default = `0.5`)
    greedy : `bool`, optional (default = `True`)
    follow_oracle_beta : `bool`, optional (default = `False`)
    """

    def policy_choice(self, free, valid, policy_log_probs, generator) -> torch.LongTensor:
        return choose_from_policy(policy_log_probs, free, self.greedy, generator)
