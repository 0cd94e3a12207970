"""
The shipped configs (training_config/) at their full size: the initial policy of their models, their zero
recurrent update at initialisation (which still learns), their valid-edge policy, the Transformer encoder's
start and learning rate, and the overrides that the README and its guides in docs/ give, which must keep the shipped
trainer.
"""
import json
import os
import re
from pathlib import Path

import pytest
import torch
from allennlp.common import Params
from allennlp.data import Vocabulary
from allennlp.models import Model

import seqgraph_allennlp  # noqa: F401
from seqgraph_allennlp.modules.recurrent_weight import RecurrentWeight
from seqgraph_allennlp.structs.tree import edge_log_probs, valid_mask

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "training_config"


def shipped_model(name: str, vocab: Vocabulary, seed: int) -> Model:
    """The model of a shipped config at its full size (3-layer BiLSTM of 400), freshly initialised."""
    torch.manual_seed(seed)
    params = Params.from_file(str(SHIPPED / f"{name}.jsonnet"))
    model = Model.from_params(vocab=vocab, params=params["model"])
    model.eval()
    return model


def initial_policy_and_valid(model, tensors):
    with torch.no_grad():
        initial_scores, encoded, final_state, node_mask = model.encode(tensors["words"], None)
        nothing = torch.zeros(initial_scores.shape, dtype=torch.bool)
        valid = valid_mask(nothing, nothing, node_mask, model.tree_phase.single_root)
        policy_support = valid if model.tree_phase.policy_support == "valid" else None
        policy = edge_log_probs(initial_scores, node_mask, policy_support).exp()
    return policy, valid.reshape(policy.shape), node_mask


def test_initial_policy_mass_on_invalid_edges_is_bounded(batch_and_vocab):
    tensors, vocab = batch_and_vocab
    old_init_violations = 0
    for seed in range(6):
        # the literal equation 5 (softmax over all V x V edges) at full size
        model = shipped_model("coach_valid_paper", vocab, seed)
        assert model.tree_phase.policy_support == "all"
        policy, valid, node_mask = initial_policy_and_valid(model, tensors)
        num_nodes = node_mask.sum(dim=-1).float()
        # invalid at the start: the V edges into the root and the V - 1 word self-loops; a policy that
        # knows nothing gives them their share of the V^2 edges
        uniform_share = (2 * num_nodes - 1) / num_nodes**2
        invalid_mass = (policy * ~valid).sum(dim=-1)
        assert (invalid_mass < 1.5 * uniform_share).all(), (seed, invalid_mass, uniform_share)

        # the bound catches the defect it pins: allennlp-models' randn root vector (norm ~28 over 800
        # dimensions) gives the root -> root edge most of the mass on some seeds
        with torch.no_grad():
            model._root_vector.copy_(torch.randn(model._root_vector.shape))
        policy, valid, _ = initial_policy_and_valid(model, tensors)
        old_init_violations += int(not ((policy * ~valid).sum(dim=-1) < 1.5 * uniform_share).all())
    assert old_init_violations >= 2


def test_valid_policy_support_puts_no_mass_on_invalid_edges(batch_and_vocab):
    tensors, vocab = batch_and_vocab
    model = shipped_model("coach_valid", vocab, 0)
    assert model.tree_phase.policy_support == "valid"
    policy, valid, _ = initial_policy_and_valid(model, tensors)
    assert torch.allclose(policy.sum(dim=-1), torch.ones(policy.size(0)))
    assert (policy * ~valid).sum() == 0


def test_recurrent_update_is_zero_at_initialisation(batch_and_vocab):
    tensors, vocab = batch_and_vocab
    for name in ("coach_valid", "coach_valid_paper", "uniform", "annealed", "linearized"):
        model = shipped_model(name, vocab, 0)
        with torch.no_grad():
            initial_scores, encoded, final_state, node_mask = model.encode(tensors["words"], None)
            score_function = model.tree_phase.score_function(initial_scores, encoded, final_state)
            first = score_function(None)
            edges = torch.zeros(initial_scores.shape, dtype=torch.bool)
            edges[:, 0, 1] = True
            second = score_function(edges)
        assert torch.equal(first, initial_scores), name
        assert torch.equal(second, initial_scores), name


def test_recurrent_update_learns_from_the_first_step():
    # zero bilinear weight, but its gradient is not zero: the update leaves zero at the first optimizer step
    torch.manual_seed(0)
    module = RecurrentWeight(encoder_dim=6, hidden_dim=5, edge_dim=4, position_dim=3, weight_dim=2)
    encoded = torch.randn(2, 4, 6)
    state = module.initial_state(torch.randn(2, 6))
    delta, _ = module(state, encoded, None)
    assert torch.equal(delta, torch.zeros_like(delta))
    (delta * torch.randn_like(delta)).sum().backward()
    assert module.attention._weight_matrix.grad.abs().sum() > 0


# -------------------------------------------------------------------------------------------------------
# overrides in the README and its guides keep the shipped trainer
# -------------------------------------------------------------------------------------------------------

# the README and the guides that hold what it said of installing, training, using the parser and enhanced graphs
USER_DOCUMENTS = [ROOT / "README.md", *(ROOT / "docs" / f"{name}.md" for name in
                                        ("INSTALL", "TRAINING", "USAGE", "ENHANCED", "DESIGN", "EXPERIMENTS"))]


def readme_override_examples():
    """
    Every `-o '{...}'` / `--overrides '{...}'` in the README and its guides, with the config of its command when
    the same command names one (`training_config/NAME.jsonnet` earlier in the same paragraph), else `None`.
    """
    examples = []
    for path in USER_DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"(?:-o|--overrides) '(\{.*?\})'", text):
            paragraph = text[: match.start()].split("\n\n")[-1]
            configs = re.findall(r"training_config/(\w+)\.jsonnet", paragraph)
            examples.append((configs[-1] if configs else None, match.group(1)))
    return examples


OVERRIDE_EXAMPLES = readme_override_examples()


def test_readme_has_override_examples():
    assert len(OVERRIDE_EXAMPLES) >= 3


# an example without its own config is checked on three shipped configs, one that sets a model option on
# the recommended config only (biaffine_mst has no tau)
CASES = [
    (config, overrides)
    for named, overrides in OVERRIDE_EXAMPLES
    for config in ((named,) if named else ("coach_valid", "one_step", "biaffine_mst"))
    if named or config == "coach_valid" or not any(key.startswith("model.") for key in json.loads(overrides))
]


@pytest.mark.parametrize("config,overrides", CASES)
def test_readme_overrides_keep_the_shipped_trainer(config, overrides, monkeypatch):
    for variable in ("TRAIN_DATA_PATH", "VALIDATION_DATA_PATH", "TEST_DATA_PATH"):
        monkeypatch.setenv(variable, "data/UD_English-EWT/en_ewt-ud-train.conllu")
    # only the parameters are read: the mpnet config needs a model directory's name, not the model
    # (which `make english` installs and CI does not)
    monkeypatch.setenv("PRETRAINED_MPNET", os.environ.get("PRETRAINED_MPNET") or "all-mpnet-base-v2")
    shipped = Params.from_file(str(SHIPPED / f"{config}.jsonnet")).as_flat_dict()
    changed = Params.from_file(str(SHIPPED / f"{config}.jsonnet"), overrides).as_flat_dict()
    given = json.loads(overrides)
    for key in ("trainer.optimizer.type", "trainer.optimizer.lr", "trainer.grad_norm", "trainer.validation_metric"):
        if key not in given:
            assert changed[key] == shipped[key], (overrides, key)
    for key, value in given.items():
        assert not isinstance(value, dict), f"{overrides}: a nested dictionary replaces the whole section"
        assert changed[key] == value
    # nothing but the overridden keys changed
    differing = {key for key in set(shipped) | set(changed) if shipped.get(key) != changed.get(key)}
    assert differing <= set(given), differing


def test_a_nested_override_would_lose_the_trainer():
    # why docs/TRAINING.md uses dotted keys: AllenNLP 2.x replaces a section given as a nested dictionary
    changed = Params.from_file(str(SHIPPED / "coach_valid.jsonnet"), '{"trainer": {"num_epochs": 1}}')
    assert "optimizer" not in changed["trainer"]


def test_transformer_encoder_starts_with_a_near_uniform_policy(batch_and_vocab):
    # the post-LN Transformer's output (rms 1 per dimension) made S_0 ~800 times the BiLSTM's at init,
    # so the first policy was a random near-one-hot; the shipped config starts its last LayerNorm small
    tensors, vocab = batch_and_vocab
    model = shipped_model("coach_valid_transformer", vocab, 0)
    policy, valid, node_mask = initial_policy_and_valid(model, tensors)
    num_valid = valid.sum(dim=-1).float()
    # the largest edge probability stays within 3x the uniform one over the valid edges
    assert (policy.max(dim=-1).values < 3.0 / num_valid).all(), policy.max(dim=-1).values * num_valid
    with torch.no_grad():
        model.encoder._transformer.layers[-1].norm2.weight.fill_(1.0)
    policy, _, _ = initial_policy_and_valid(model, tensors)
    assert not (policy.max(dim=-1).values < 3.0 / num_valid).all()


@pytest.mark.parametrize("warmup_steps", [0, 100])
def test_transformer_learning_rate_warms_up_per_batch_and_never_decays(warmup_steps):
    from allennlp.training.learning_rate_schedulers import LearningRateScheduler

    overrides = json.dumps({"trainer.learning_rate_scheduler.warmup_steps": warmup_steps})
    trainer = Params.from_file(str(ROOT / "training_config" / "coach_valid_transformer.jsonnet"), overrides)["trainer"]
    lr = trainer["optimizer"]["lr"]
    optimizer = torch.optim.Adam([torch.nn.Parameter(torch.zeros(1))], lr=lr)
    scheduler = LearningRateScheduler.from_params(
        trainer["learning_rate_scheduler"].duplicate(), optimizer=optimizer, num_epochs=2, num_steps_per_epoch=300
    )
    rates = []
    for batch in range(1, 700):  # past the run's 600 batches too (a resumed or longer run)
        scheduler.step_batch(batch)
        rates.append(optimizer.param_groups[0]["lr"])
    if warmup_steps == 0:
        # as shipped: the constant rate of the other configs
        assert rates == [lr] * len(rates)
    else:
        assert rates[49] == pytest.approx(lr / 2) and rates[:99] == sorted(rates[:99])
        assert rates[99:] == [lr] * (len(rates) - 99)
