import torch
from allennlp.common import Params
from allennlp.training.optimizers import Optimizer

import seqgraph_allennlp  # noqa: F401


def test_fused_adam_takes_the_steps_of_allennlp_adam():
    torch.manual_seed(0)
    models = [torch.nn.Sequential(torch.nn.Linear(7, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3)) for _ in range(2)]
    models[1].load_state_dict(models[0].state_dict())
    optimizers = [
        Optimizer.from_params(
            model_parameters=list(model.named_parameters()),
            params=Params({"type": name, "lr": 0.01, "betas": [0.9, 0.9], "weight_decay": 0.01}),
        )
        for name, model in zip(["adam", "fused_adam"], models)
    ]
    assert optimizers[1].defaults["fused"] is True
    inputs = torch.randn(16, 7)
    for _ in range(5):
        for model, optimizer in zip(models, optimizers):
            optimizer.zero_grad()
            model(inputs).pow(2).sum().backward()
            optimizer.step()
    for expected, actual in zip(models[0].parameters(), models[1].parameters()):
        torch.testing.assert_close(actual, expected, rtol=1e-5, atol=1e-6)
    # both moved away from where they started (the same seed rebuilds the start)
    torch.manual_seed(0)
    start = torch.nn.Sequential(torch.nn.Linear(7, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))
    assert (models[1][0].weight - start[0].weight).abs().max() > 0.01
