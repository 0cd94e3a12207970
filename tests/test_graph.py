"""
The graph phase of the sequential graph parser (`structs.graph`, the model's `predict_enhanced`): the decoder's
properties by brute force on random scores, the graph oracle's KL against a hand computation, batch
independence of a model's graphs, and a fixture twin that trains and writes DEPS.
"""
import copy
import math
from pathlib import Path

import pytest
import torch
from allennlp.common import Params
from allennlp.common.testing import ModelTestCase
from allennlp.data import Batch

import seqgraph_allennlp  # noqa: F401
from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_allennlp.common.enhanced import enhanced_graph
from seqgraph_allennlp.common.scoring import enhanced_scores
from seqgraph_allennlp.oracles.coaching import CoachingOracle
from seqgraph_allennlp.oracles.uniform import UniformOracle
from seqgraph_allennlp.structs.graph import (
    action_log_probs,
    graph_state_candidates,
    graph_valid_mask,
    greedy_graph_decode,
    is_rooted_graph,
    stop_index,
)
from seqgraph_allennlp.structs.tree import heads_to_adjacency

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "fixtures" / "configs"
DATA = ROOT / "fixtures" / "conllu" / "en_small.conllu"


def random_tree_heads(num_words: int, generator: torch.Generator) -> list:
    """Heads (1-based words, 0 the root) of a random tree with one root word."""
    order = torch.randperm(num_words, generator=generator).tolist()
    heads = [0] * (num_words + 1)
    for position, word in enumerate(order):
        node = word + 1
        heads[node] = 0 if position == 0 else order[int(torch.randint(position, (1,), generator=generator))] + 1
    return heads


def reference_graph_decode(scores, stop_scores, heads, num_words, limit):
    """
    One sentence's graph phase in plain Python: at each step the valid edge or STOP of highest probability
    under a softmax over the valid edges and STOP (ties go to the lower flattened index, STOP last).
    """
    num_nodes = num_words + 1
    graph = {(heads[word], word) for word in range(1, num_nodes)}
    extra = []
    for step in range(limit + 1):
        valid = [
            (head, dependent)
            for head in range(num_nodes)
            for dependent in range(1, num_nodes)
            if head != dependent and (head, dependent) not in graph
        ]
        logits = [float(scores[step][head][dependent]) for head, dependent in valid] + [float(stop_scores[step])]
        normaliser = math.log(sum(math.exp(value) for value in logits))
        candidates = [(value - normaliser, index) for index, value in enumerate(logits)]
        if len(extra) >= limit:
            candidates = candidates[-1:]
        best = max(candidates, key=lambda pair: (pair[0], -pair[1]))
        if best[1] == len(valid):
            return extra, math.exp(best[0])
        graph.add(valid[best[1]])
        extra.append(valid[best[1]])
    return extra, 0.0


@pytest.mark.parametrize("seed", range(6))
def test_greedy_graph_decode_matches_reference_and_keeps_the_graph_valid(seed):
    generator = torch.Generator().manual_seed(seed)
    lengths = [1, 2, 4, 6]
    batch_size, num_nodes = len(lengths), max(lengths) + 1
    node_mask = torch.tensor([[index <= length for index in range(num_nodes)] for length in lengths])
    heads = torch.zeros(batch_size, num_nodes, dtype=torch.long)
    for row, length in enumerate(lengths):
        heads[row, : length + 1] = torch.tensor(random_tree_heads(length, generator))
    max_steps = max(lengths) + 2
    # one set of random scores per step; stop scores that make both early and late stops likely
    all_scores = torch.randn(max_steps, batch_size, num_nodes, num_nodes, generator=generator) * 2.0
    all_stops = torch.randn(max_steps, batch_size, generator=generator) * 2.0 + 2.0
    calls = []

    def score_function(last_edges):
        step = len(calls)
        calls.append(last_edges)
        return all_scores[step], all_stops[step]

    tree = heads_to_adjacency(heads, node_mask)
    last = torch.zeros_like(tree)
    max_extra = 3
    decoding = greedy_graph_decode(score_function, tree, last, node_mask, max_extra)
    for row, length in enumerate(lengths):
        limit = min(length, max_extra)
        # a stopped sentence's scores are never read again, so the per-step scores of the batch apply
        expected, stop_probability = reference_graph_decode(
            all_scores[:, row], all_stops[:, row], heads[row].tolist(), length, limit
        )
        got = [tuple(edge) for edge in decoding.extra_edges[row].tolist() if edge[0] >= 0]
        assert got == expected
        assert decoding.stop_probabilities[row].item() == pytest.approx(stop_probability, rel=1e-4)
        assert len(got) <= limit
        assert len(set(got)) == len(got)
        for head, dependent in got:
            assert head != dependent and dependent != 0 and not tree[row, head, dependent]
    graph = tree.clone()
    for row in range(batch_size):
        for head, dependent in decoding.extra_edges[row].tolist():
            if head >= 0:
                graph[row, head, dependent] = True
    assert is_rooted_graph(graph, node_mask).all()


def test_stop_is_the_only_action_at_the_limit():
    node_mask = torch.ones(1, 3, dtype=torch.bool)
    heads = torch.tensor([[0, 0, 1]])
    tree = heads_to_adjacency(heads, node_mask)

    def score_function(last_edges):
        # every edge far above STOP: without the limit the graph would fill up
        return torch.full((1, 3, 3), 10.0), torch.tensor([-10.0])

    decoding = greedy_graph_decode(score_function, tree, torch.zeros_like(tree), node_mask, max_extra_edges=0)
    assert decoding.extra_edges.shape[1] == 0
    decoding = greedy_graph_decode(score_function, tree, torch.zeros_like(tree), node_mask, max_extra_edges=None)
    # N = 2 extra edges at most
    assert (decoding.extra_edges[0, :, 0] >= 0).sum() == 2


def test_graph_valid_mask_allows_second_heads_and_cycles_but_no_self_loop_root_head_or_duplicate():
    node_mask = torch.ones(1, 4, dtype=torch.bool)
    adjacency = heads_to_adjacency(torch.tensor([[0, 0, 1, 2]]), node_mask)
    valid = graph_valid_mask(adjacency, node_mask)[0]
    assert valid[3, 1]  # 1 <- 3 closes the cycle 1 -> 2 -> 3 -> 1: allowed in a graph
    assert valid[0, 2]  # a second head of word 2
    assert not valid[0, 1] and not valid[1, 2]  # already there
    assert not valid[:, 0].any() and not valid.diagonal().any()


def four_word_state():
    """
    A 4-word sentence (V = 5) whose tree 0->2, 2->1, 2->3, 3->4 is complete, and whose gold graph adds
    1->3 and 4->2 (two extra heads, one closing a cycle).
    """
    node_mask = torch.ones(1, 5, dtype=torch.bool)
    tree = heads_to_adjacency(torch.tensor([[0, 2, 0, 2, 3]]), node_mask)
    gold = tree.clone()
    gold[0, 1, 3] = True
    gold[0, 4, 2] = True
    return node_mask, tree, gold


def test_graph_oracle_kl_by_hand_uniform():
    node_mask, tree, gold = four_word_state()
    scores = torch.zeros(1, 5, 5)
    stop = torch.zeros(1)
    free, log_probs = graph_state_candidates(scores, stop, tree, node_mask, gold)
    # candidates: the 6 gold edges in flattened order (0->2, 1->3, 2->1, 2->3, 3->4, 4->2), then STOP
    assert free[0].tolist() == [False, True, False, False, False, True, False]
    # valid: 5 x 5 pairs, minus 5 self-loops, minus the 4 other edges into the root, minus the 4 tree edges:
    # 12 edges and STOP, all with score 0
    assert torch.allclose(log_probs[0, [1, 5, 6]], torch.full((3,), -math.log(13)))
    target = UniformOracle()(free, log_probs)
    assert target[0].tolist() == pytest.approx([0, 0.5, 0, 0, 0, 0.5, 0])
    kl = (target * (target.clamp(min=1e-30).log() - log_probs)).where(target > 0, torch.tensor(0.0)).sum()
    # KL(u || pi) with u = 1/2 on two edges of probability 1/13 each: log(1/2) - log(1/13)
    assert kl.item() == pytest.approx(math.log(13 / 2), rel=1e-6)


def test_graph_oracle_kl_by_hand_coaching_and_stop():
    node_mask, tree, gold = four_word_state()
    scores = torch.zeros(1, 5, 5)
    scores[0, 1, 3] = math.log(3.0)  # the policy prefers 1->3 three to one over 4->2
    stop = torch.tensor([math.log(2.0)])
    free, log_probs = graph_state_candidates(scores, stop, tree, node_mask, gold)
    # normaliser: 11 edges of weight 1, one of weight 3, STOP of weight 2
    assert log_probs[0, 1].item() == pytest.approx(math.log(3 / 16))
    assert log_probs[0, 6].item() == pytest.approx(math.log(2 / 16))
    target = CoachingOracle(beta=0.5)(free, log_probs)
    # 0.5 * uniform (1/2, 1/2) + 0.5 * coaching (3/4, 1/4)
    assert target[0, 1].item() == pytest.approx(0.625) and target[0, 5].item() == pytest.approx(0.375)
    # once both extra edges are in the graph, STOP is the only free candidate
    complete = gold.clone()
    free, log_probs = graph_state_candidates(scores, stop, complete, node_mask, gold)
    assert free[0].tolist() == [False] * 6 + [True]
    target = UniformOracle()(free, log_probs)
    # 10 valid edges (12 minus the two added) of weight 1 and STOP of weight 2: KL = -log(2 / 12)
    assert (-(target * log_probs).sum()).item() == pytest.approx(math.log(6.0))


def test_action_log_probs_give_no_mass_to_invalid_edges():
    node_mask, tree, _ = four_word_state()
    scores = torch.full((1, 5, 5), 50.0)
    log_probs = action_log_probs(scores, torch.zeros(1), graph_valid_mask(tree, node_mask))
    assert log_probs.exp().sum().item() == pytest.approx(1.0)
    assert log_probs[0, 0 * 5 + 2].exp().item() == 0.0  # a tree edge
    assert log_probs.shape[-1] == stop_index(5) + 1


class TestEnhancedParser(ModelTestCase):
    def set_up(self):
        self.set_up_model(CONFIGS / "coach_valid_enhanced.jsonnet", DATA, seed=13)

    def test_trains_saves_and_loads(self, single_thread):
        self.set_up()
        # the shipped enhanced configs score the graph phase with its own biaffine added
        assert self.model.separate_graph_scores
        # tolerance: the decoder's argmax and the roll-in over a float32 model reloaded
        self.ensure_model_can_train_save_and_load(self.param_file, tolerance=1e-4)

    def test_graph_of_a_sentence_does_not_depend_on_its_batch(self, single_thread):
        self.set_up()
        model = self.model
        model.eval()
        # move the stop score and the recurrent model off their start so that graphs have extra edges
        with torch.no_grad():
            model.stop_scorer.bias.fill_(-3.0)
            for parameter in model.recurrent_weight.parameters():
                parameter.add_(torch.randn_like(parameter) * 0.3)
        instances = list(self.instances)
        together = model.forward_on_instances(instances)
        assert sum(len(deps) for output in together for word in output["predicted_deps"] for deps in [word]) > sum(
            len(output["words"]) for output in together
        ), "the test needs graphs with extra edges"
        for instance, output in zip(instances, together):
            alone = model.forward_on_instances([instance])[0]
            assert alone["predicted_deps"] == output["predicted_deps"]
            assert alone["predicted_heads"] == output["predicted_heads"]

    def test_predicted_graph_contains_the_tree_and_is_rooted(self, single_thread):
        self.set_up()
        model = self.model
        model.eval()
        with torch.no_grad():
            model.stop_scorer.bias.fill_(-3.0)
        for output in model.forward_on_instances(list(self.instances)):
            deps = output["predicted_deps"]
            for word, (head, word_deps) in enumerate(zip(output["predicted_heads"], deps), start=1):
                assert head in [edge[0] for edge in word_deps]
                assert len({edge[0] for edge in word_deps}) == len(word_deps)
                assert word not in [edge[0] for edge in word_deps]

    def test_gold_graph_targets_match_the_file(self):
        self.set_up()
        sentences = list(read_sentences(str(DATA)))
        batch = Batch(list(self.instances))
        batch.index_instances(self.vocab)
        tensors = batch.as_tensor_dict()
        targets = tensors["enhanced_tags"]
        for row, sentence in enumerate(sentences):
            graph = enhanced_graph(sentence)
            # one label per (head, dependent) pair: the first in DEPS order (the fixture's empty node gives word 7
            # both 8:nsubj and 8:xcomp>nsubj:xsubj)
            first = {}
            for dependent, pairs in enumerate(graph, 1):
                for head, label in pairs:
                    first.setdefault((head, dependent), label)
            expected = {(head, dependent, label) for (head, dependent), label in first.items()}
            got = {
                (head, dependent, self.vocab.get_token_from_index(int(targets[row, head, dependent]), "enhanced_tags"))
                for head, dependent in (targets[row] >= 0).nonzero().tolist()
            }
            assert got == expected
            uncounted = sum(len(pairs) for pairs in graph) - len(first)
            assert self.instances[row]["metadata"]["enhanced_uncounted"] == uncounted
        # the fixture's empty node gives one word two labels from one head: one gold edge not in the matrix
        assert sum(instance["metadata"]["enhanced_uncounted"] for instance in self.instances) == 1


class TestEnhancedParserWithSharedGraphScores(ModelTestCase):
    def test_trains_saves_and_loads(self, single_thread):
        self.set_up_model(CONFIGS / "coach_valid_enhanced_shared_scores.jsonnet", DATA, seed=13)
        assert not self.model.separate_graph_scores
        # tolerance: as TestEnhancedParser's
        self.ensure_model_can_train_save_and_load(self.param_file, tolerance=1e-4)


def test_fixture_twin_trains_and_predicts_valid_deps(enhanced_twin_run):
    """
    `allennlp train` then `allennlp predict` on the fixture twin (conftest.py's `fixture_twin_run`, once a run):
    DEPS written, UD level-2 valid.
    """
    predicted, sentences, validation, metrics = enhanced_twin_run
    assert len(sentences) == 6
    for sentence in sentences:
        graph = enhanced_graph(sentence)
        assert graph is not None
        for word, pairs in zip(sentence.words, graph):
            assert (word.head, word.deprel) in [(head, label.split(">")[0]) for head, label in pairs] or any(
                head == word.head for head, _ in pairs
            )
    assert validation.returncode == 0, validation.stdout + validation.stderr
    # `allennlp evaluate`'s ELAS and EULAS (the model's own count) equal the official scorer's on the written
    # file (every gold label is in the vocabulary: the model trained on this file)
    official = enhanced_scores(str(DATA), str(predicted))
    for name in ("ELAS", "EULAS"):
        assert metrics[name] == pytest.approx(official[name], abs=1e-9), name
    assert 0.0 < official["ELAS"] < 1.0


def test_a_gold_self_loop_is_never_free():
    """The empty-node collapse gives a few gold self-loops (3 in EWT train); no action adds one."""
    node_mask, tree, gold = four_word_state()
    gold[0, 3, 3] = True
    free, log_probs = graph_state_candidates(torch.zeros(1, 5, 5), torch.zeros(1), tree, node_mask, gold)
    assert torch.isfinite(log_probs[free]).all()
    # candidates: 0->2, 1->3, 2->1, 2->3, 3->3, 3->4, 4->2, STOP
    assert free[0].tolist() == [False, True, False, False, False, False, True, False]


def enhanced_twin(seed: int, separate_graph_scores: bool):
    """The fixture twin of coach_valid_enhanced, freshly initialised under `seed`, its instances and vocabulary."""
    from allennlp.data import DatasetReader, Vocabulary
    from allennlp.models import Model

    torch.manual_seed(seed)
    params = Params.from_file(
        str(CONFIGS / "coach_valid_enhanced.jsonnet"), params_overrides={"model.separate_graph_scores": separate_graph_scores}
    )
    reader = DatasetReader.from_params(params.pop("dataset_reader"))
    instances = list(reader.read(str(DATA)))
    vocab = Vocabulary.from_instances(instances)
    return Model.from_params(vocab=vocab, params=params.pop("model")), instances, vocab


@pytest.mark.parametrize("separate_graph_scores", [False, True])
def test_fused_roll_in_kl_equals_the_state_by_state_reference(separate_graph_scores):
    """
    The graph phase's one fused pass over the tree and graph states (`GraphPhase.roll_in_kl`) against each state's KL
    computed on its own: tree states by `edge_log_probs` over the gold tree's free edges, graph states by
    `graph_state_candidates` (the policy over valid edges and STOP), on `S_t`, or with
    `separate_graph_scores` on `S_t + G_0` in the graph states only.
    """
    from seqgraph_allennlp.structs.losses import kl_divergence
    from seqgraph_allennlp.oracles import free_edges
    from seqgraph_allennlp.structs.tree import edge_log_probs

    model, instances, vocab = enhanced_twin(3, separate_graph_scores)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.1)
    model.eval()
    assert model.separate_graph_scores == separate_graph_scores
    batch = Batch(instances)
    batch.index_instances(vocab)
    tensors = batch.as_tensor_dict()
    with torch.no_grad():
        initial_scores, encoded, final_state, node_mask = model.encode(tensors["words"], None)
        batch_size = node_mask.size(0)
        gold_heads = torch.cat([torch.zeros(batch_size, 1, dtype=torch.long), tensors["head_indices"]], dim=1)
        gold_graph = tensors["enhanced_tags"] >= 0
        gold_tree = heads_to_adjacency(gold_heads, node_mask)
        graph_scores = model.graph_initial_scores(encoded)
        roll_in = model.tree_phase.run_roll_in(
            initial_scores, encoded, final_state, node_mask, gold_tree, gold_graph, graph_scores
        )
        updates, hidden = model.recurrent_weight.unroll(
            final_state, model.recurrent_weight.project_nodes(encoded), roll_in.heads, roll_in.dependents,
            roll_in.added, return_hidden=True,
        )
        updates[:, 0] += initial_scores
        total, count = model.graph_phase.roll_in_kl(
            updates, hidden, node_mask, gold_heads, gold_graph, roll_in.valid, roll_in.tree_state,
            roll_in.graph_state, graph_scores, model.oracle, model.tree_phase.policy_support,
        )
        scores = updates.cumsum(dim=1)
        expected, expected_count, graph_states = 0.0, 0, 0
        for row in range(batch_size):
            for state in range(scores.size(1)):
                if roll_in.tree_state[row, state]:
                    valid = roll_in.valid[row, state].unsqueeze(0)
                    free = free_edges(gold_tree[row].unsqueeze(0), valid).flatten(1)
                    log_probs = edge_log_probs(scores[row, state].unsqueeze(0), node_mask[row].unsqueeze(0), valid)
                elif roll_in.graph_state[row, state]:
                    graph_states += 1
                    state_scores = scores[row, state] + (0 if graph_scores is None else graph_scores[row])
                    free, log_probs = graph_state_candidates(
                        state_scores.unsqueeze(0), model.stop_scorer(hidden[row, state]).view(1),
                        roll_in.adjacency[row, state].unsqueeze(0), node_mask[row].unsqueeze(0),
                        gold_graph[row].unsqueeze(0),
                    )
                else:
                    continue
                if free.any():
                    expected += float(kl_divergence(model.oracle(free, log_probs), log_probs))
                    expected_count += 1
    assert graph_states >= batch_size
    assert count == expected_count
    assert float(total) == pytest.approx(expected, rel=1e-4)


def test_separate_graph_scores_steer_the_extra_edges_and_leave_the_tree_alone(monkeypatch):
    """`G_0` enters the graph phase's policy only: the decoded trees are those without it."""
    model, instances, _ = enhanced_twin(5, separate_graph_scores=True)
    model.eval()
    with torch.no_grad():
        model.stop_scorer.bias.fill_(5.0)
    plain = model.forward_on_instances(instances)
    assert all(len(output["extra_edges"]) == 0 for output in plain), "the test needs STOP to win without G_0"

    def steering(encoded):
        # every sentence's graph phase should add 1 -> 2 first (unless it is the tree's edge)
        scores = torch.full(encoded.shape[:1] + (encoded.size(1),) * 2, -100.0)
        scores[:, 1, 2] = 100.0
        return scores

    monkeypatch.setattr(model, "graph_initial_scores", steering)
    steered = model.forward_on_instances(instances)
    checked = 0
    for before, after in zip(plain, steered):
        assert after["predicted_heads"] == before["predicted_heads"]
        if after["predicted_heads"][1] != 1:
            assert after["extra_edges"][0] == [1, 2]
            checked += 1
    assert checked > 0


def test_stop_bias_moves_the_number_of_extra_edges_and_leaves_the_tree_alone():
    from allennlp.common.checks import ConfigurationError
    from allennlp.data import DatasetReader

    from seqgraph_allennlp.models.seqgraph_parser import DecodingOptions
    from seqgraph_allennlp.predictors.seqgraph_parser import SeqGraphParserPredictor

    model, instances, vocab = enhanced_twin(7, separate_graph_scores=False)
    model.eval()
    # off its start, so that some sentences stop before their limit
    with torch.no_grad():
        for parameter in model.recurrent_weight.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.3)
        model.stop_scorer.bias.fill_(3.0)
    batch = Batch(instances)
    batch.index_instances(vocab)
    tensors = batch.as_tensor_dict()

    def decoded(stop_bias):
        with torch.no_grad():
            output = model(**tensors, decoding=model.decoding._replace(stop_bias=stop_bias))
        return output["heads"], int((output["extra_edges"][..., 0] >= 0).sum())

    heads, extra = decoded(0.0)
    with torch.no_grad():
        default = model(**tensors)
    assert torch.equal(default["heads"], heads) and int((default["extra_edges"][..., 0] >= 0).sum()) == extra
    stopped_heads, none = decoded(100.0)
    more_heads, most = decoded(-100.0)
    assert none == 0 < extra < most
    assert torch.equal(stopped_heads, heads) and torch.equal(more_heads, heads)
    # each sentence then adds as many extra edges as it may: its number of words
    assert most == sum(len(instance["words"]) for instance in instances)
    with pytest.raises(ConfigurationError, match="stop_bias must be a finite number"):
        model(**tensors, decoding=DecodingOptions("valid", None, float("nan")))

    # the predictor passes it to every call: a large bias leaves each word its tree head alone
    reader = DatasetReader.from_params(Params.from_file(str(CONFIGS / "coach_valid_enhanced.jsonnet"))["dataset_reader"])
    predictor = SeqGraphParserPredictor(model, reader, output_format="json", stop_bias=100.0)
    for output in predictor.predict_batch_instance(instances):
        assert output["extra_edges"] == []
        assert all(len(word) == 1 for word in output["predicted_deps"])


def test_stop_bias_needs_a_graph_phase():
    from allennlp.common.checks import ConfigurationError
    from allennlp.data import DatasetReader, Vocabulary
    from allennlp.models import Model

    from seqgraph_allennlp.predictors.seqgraph_parser import SeqGraphParserPredictor

    params = Params.from_file(str(CONFIGS / "coach_valid.jsonnet"))
    reader = DatasetReader.from_params(params.pop("dataset_reader"))
    vocab = Vocabulary.from_instances(reader.read(str(DATA)))
    model_params = params.pop("model").as_dict()
    with pytest.raises(ConfigurationError, match="stop_bias needs predict_enhanced"):
        Model.from_params(vocab=vocab, params=Params({**copy.deepcopy(model_params), "stop_bias": 1.0}))
    model = Model.from_params(vocab=vocab, params=Params(model_params))
    with pytest.raises(ConfigurationError, match="stop_bias needs a seqgraph_parser model of the enhanced graph"):
        SeqGraphParserPredictor(model, reader, stop_bias=1.0)
