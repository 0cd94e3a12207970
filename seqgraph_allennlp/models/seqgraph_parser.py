import copy
import logging
import math
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

import torch
from allennlp.common.checks import ConfigurationError, check_dimensions_match
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models.model import Model
from allennlp.modules import FeedForward, InputVariationalDropout, Seq2SeqEncoder, TextFieldEmbedder
from allennlp.modules.token_embedders import Embedding
from allennlp.nn import Activation, InitializerApplicator
from allennlp.nn.util import get_final_encoder_states, get_text_field_mask
from allennlp.training.metrics import Average, CategoricalAccuracy

from seqgraph_allennlp.common.errors import SentenceTooLongError
from seqgraph_allennlp.modules.bilinear import MatmulBilinear, MatmulBilinearMatrixAttention
from seqgraph_allennlp.modules.initialization import LoadedWithoutInit
from seqgraph_allennlp.segmentation.archive import CarriesSegmenter
from seqgraph_allennlp.modules.precision import Bfloat16Options
from seqgraph_allennlp.modules.recurrent_weight import RecurrentWeight
from seqgraph_allennlp.oracles import Oracle, free_edges, gold_edge_index
from seqgraph_allennlp.oracles.uniform import UniformOracle
from seqgraph_allennlp.roll_ins import RollIn
from seqgraph_allennlp.roll_ins.coaching import CoachingRollIn
from seqgraph_allennlp.roll_ins.roll_in import choose_from_policy
from seqgraph_allennlp.roll_ins.uniform import UniformRollIn
from seqgraph_allennlp.structs.graph import (
    GraphDecoding,
    action_log_probs,
    edges_to_adjacency,
    free_graph_edges,
    graph_edge_index,
    graph_valid_mask,
    greedy_graph_decode,
    sample_uniform,
    stop_index,
)
from seqgraph_allennlp.structs.tree import (
    POLICY_SUPPORTS,
    TreeState,
    ValidDecoding,
    greedy_valid_decode,
    heads_to_adjacency,
    is_root_relation,
    mst_decode,
    policy_mask,
    root_label_support,
    running_sum_log_probs,
    state_gold_log_probs,
    support_log_softmax,
    word_mask,
)
from seqgraph_allennlp.training.enhanced_scores import (
    EnhancedAttachmentScores,
    labelled_adjacency,
    universal_enhanced_table,
)
from seqgraph_allennlp.training.attachment_scores import (
    ShardSafeAttachmentScores,
    gold_universal_labels,
    universal_label_table,
)

logger = logging.getLogger(__name__)


def kl_divergence(target: torch.Tensor, log_probs: torch.Tensor) -> torch.Tensor:
    """
    `(batch_size,)` `KL(target || policy)` over flattened edges, `0 log 0 = 0`.
    """
    positive = target > 0
    terms = target * (torch.log(target.clamp(min=1e-30)) - log_probs)
    return torch.where(positive, terms, torch.zeros_like(terms)).sum(dim=-1)


DECODERS = ("valid", "mst")
# The vocabulary namespace of the UPOS tagger's tags, built from the `seqgraph_ud` reader's `upos_tags` field
# (`upos_targets: true`). Not the reader's `pos_tags` namespace ("pos"): those are gold input tags.
UPOS_NAMESPACE = "upos"
# The enhanced relations (DEPS labels), from the `seqgraph_ud` reader's `enhanced_tags` field (`enhanced: true`).
ENHANCED_NAMESPACE = "enhanced_tags"


class DecodingOptions(NamedTuple):
    """
    How a `SeqGraphParser` decodes. A model decodes with those of its config (`SeqGraphParser.decoding`)
    unless a call gives others (`forward(..., decoding=...)`, `decode_steps`): a predictor or a sweep
    changes the decoder of a trained model without retraining and without changing the model.

    # Parameters

    decoder : `str`, optional (default = `"valid"`)
        `"valid"`, the greedy valid decoder (Appendix A), or `"mst"`, Chu-Liu-Edmonds (one-step model only).
    tau : `float`, optional (default = `None`)
        The valid decoder's multi-edge threshold (Appendix A), in `(0, 1]`; `None` adds one edge per step.
    stop_bias : `float`, optional (default = `0.0`)
        Added to the graph phase's `STOP` score when decoding (`predict_enhanced`): positive stops sooner,
        so fewer extra edges, negative later; 0 decodes as the model was trained. Training never sees it:
        a setting to choose on dev (`scripts/stop_bias.py`), as `tau` is.
    """

    decoder: str = "valid"
    tau: Optional[float] = None
    stop_bias: float = 0.0


class RollInStates(NamedTuple):
    """
    What the recurrent model's roll-in (`SeqGraphParser._roll_in`) returns, without gradients.

    valid : `(batch_size, T, V, V)`, the valid edges of each state (the tree's, or in a graph state the
        graph's).
    heads, dependents : `(batch_size, T - 1)`, the edge added after each state but the last.
    added : `(batch_size, T - 1)`, whether the sentence added that edge (not after `STOP` or the end).
    adjacency : `(batch_size, T, V, V)`, each state's graph (with a gold graph only, else `None`).
    tree_state, graph_state : `(batch_size, T)`, which states are in the tree phase, and which are in the
        graph phase and not after `STOP` (with a gold graph only, else `None`).
    """

    valid: torch.BoolTensor
    heads: torch.LongTensor
    dependents: torch.LongTensor
    added: torch.BoolTensor
    adjacency: Optional[torch.BoolTensor] = None
    tree_state: Optional[torch.BoolTensor] = None
    graph_state: Optional[torch.BoolTensor] = None


def check_decoding_options(options: DecodingOptions, recurrent: bool, graph: bool = False) -> DecodingOptions:
    """
    Returns `options` when a model (recurrent or one-step, with a graph phase or not: `predict_enhanced`)
    can decode with them; raises `ConfigurationError` saying why not otherwise. The one check of decoding
    options, whether they come from a config or from a call.
    """
    if options.decoder not in DECODERS:
        raise ConfigurationError(f'seqgraph_parser: decoder must be "valid" or "mst", got "{options.decoder}"')
    if options.decoder == "mst" and recurrent:
        raise ConfigurationError(
            'seqgraph_parser: decoder "mst" needs one set of scores: use it with recurrent: false'
        )
    if options.tau is not None and not 0.0 < options.tau <= 1.0:
        raise ConfigurationError(f"seqgraph_parser: tau must be in (0, 1], got {options.tau}")
    if not math.isfinite(options.stop_bias):
        raise ConfigurationError(f"seqgraph_parser: stop_bias must be a finite number, got {options.stop_bias}")
    if options.stop_bias != 0.0 and not graph:
        raise ConfigurationError("seqgraph_parser: stop_bias needs predict_enhanced: true (a graph phase)")
    return options


# The cost of one extra chunk of states, in units of `V^3` (one sentence's states of one node): a chunk
# repeats the roll-in's and the unroll's step loops, whose per-step cost is nearly independent of `V`.
CHUNK_STEP_COST = 200_000


def length_chunks(lengths: List[int], step_cost: int = CHUNK_STEP_COST) -> List[List[int]]:
    """
    Splits a batch's sentences into groups whose learning-to-search states are computed separately, each
    padded only to its own longest sentence. A sentence of `V` nodes has `V - 1` states of `V x V` scores,
    so a batch padded to its longest sentence costs about `batch_size * V^3`: the one batch of EWT's
    longest sentences (70 to 159 words) padded to 160 nodes is 3.5 times the work of its sentences alone.
    Returns the positions of `lengths`, sorted by length, cut where the sum of `n * V^3 + step_cost * V`
    over the groups is least (dynamic programming over the sorted lengths); a batch of similar lengths stays
    one group.
    """
    order = sorted(range(len(lengths)), key=lambda position: lengths[position])
    nodes = [lengths[position] + 1 for position in order]
    # best[j]: least cost of the first j sentences; cut[j]: where the last group of that split starts
    best = [0] + [0] * len(nodes)
    cut = [0] * (len(nodes) + 1)
    for end in range(1, len(nodes) + 1):
        cube = nodes[end - 1] ** 3
        best[end], cut[end] = min(
            (best[start] + (end - start) * cube + step_cost * nodes[end - 1], start) for start in range(end)
        )
    groups: List[List[int]] = []
    end = len(nodes)
    while end > 0:
        groups.append(order[cut[end]:end])
        end = cut[end]
    return groups[::-1]


@Model.register("seqgraph_parser")
class SeqGraphParser(CarriesSegmenter, LoadedWithoutInit, Model):
    """
    The Sequential Graph Dependency Parser (Welleck & Cho, 2019).

    A `TextFieldEmbedder` and a `Seq2SeqEncoder` encode the sentence, a learned root vector is prepended,
    head and dependent MLPs and a biaffine scorer give the initial scores `S_0[head, dependent]`. With
    `recurrent: true` a `RecurrentWeight` module updates the scores after every edge (Section 2.2) and the
    tree is built one edge per step. With gold heads, `forward` rolls in with the configured `roll_in` and
    trains with `KL(oracle || policy)` at every state (Section 3); it always decodes with the valid decoder
    (Appendix A) for predictions and metrics.

    With `recurrent: false` this is the paper's "One-Step" model: only `S_0`, trained with one
    uniform-oracle KL step over all gold edges, decoded with the valid decoder (`decoder: "valid"`) or
    Chu-Liu-Edmonds (`decoder: "mst"`).

    Two options go beyond the literal paper; both default to the paper:

    * `policy_support: "valid"` normalises the policy over the edges that are valid in the state instead
      of all `V x V` edges (equation 5). The oracle never puts mass on an invalid edge and the valid
      decoder never takes one, so the decoder's choice is unchanged; but with equation 5 the loss also
      has to push every invalid edge down, including gold edges already attached, whose scores live in
      `S_0` and so fight the edges still to come.
    * `head_selection_weight > 0` adds the biaffine objective of Dozat & Manning (2017) on `S_0`: for
      every word, the cross-entropy of its gold head under a softmax over its possible heads.

    With `predict_upos: true` the model also tags each word with its UPOS, from the encoder's states of the
    words (an MLP and a linear layer, like the label classifier's), trained with the parser: its
    cross-entropy, times `upos_loss_weight`, is added to the loss where the batch has gold `upos_tags` (the
    reader's `upos_targets: true`), so that raw text gets a UPOS column. The tagger never sees gold tags as
    input (that is `pos_tag_embedding`, a separate option).

    # Parameters

    vocab : `Vocabulary`
    text_field_embedder : `TextFieldEmbedder`
    encoder : `Seq2SeqEncoder`
    arc_representation_dim : `int`, optional (default = `500`)
        Output size of the head and dependent MLPs.
    tag_representation_dim : `int`, optional (default = `100`)
        Output size of the label MLPs.
    recurrent : `bool`, optional (default = `True`)
    recurrent_weight : `RecurrentWeight`, optional
        Sizes of the recurrent weight model (its `encoder_dim` is filled in from the encoder).
    oracle : `Oracle`, optional (default = `uniform`)
    roll_in : `RollIn`, optional (default = `uniform`)
    decoder : `str`, optional (default = `"valid"`)
        `"valid"` or, for the one-step model, `"mst"`. With `tau`, the options a call decodes with unless
        it passes others (`decoding`, `DecodingOptions`).
    policy_support : `str`, optional (default = `"all"`)
        `"all"`: the policy is a softmax over all `V x V` edges (equation 5); `"valid"`: over the edges
        valid in the current state (training and decoding).
    head_selection_weight : `float`, optional (default = `0.0`)
        Weight of the per-word head-selection cross-entropy on `S_0` added to the KL loss; 0 is the paper.
    tau : `float`, optional (default = `None`)
        Multi-edge decoding threshold (Appendix A); `None` adds one edge per step.
    single_root : `bool`, optional (default = `True`)
        Decode trees whose root has exactly one child, as UD requires.
    predict_labels : `bool`, optional (default = `True`)
        Train and apply a dependency label classifier on (head, dependent) pairs, for LAS.
    pos_tag_embedding : `Embedding`, optional (default = `None`)
        An embedding of gold POS tags (the reader's `pos_tags`), concatenated to the word representation.
    predict_upos : `bool`, optional (default = `False`)
        Train and apply a UPOS tagger on the encoder's word states (an ELU MLP of `tag_representation_dim`
        and a linear layer over the `"upos"` namespace, which the reader's `upos_targets: true` builds).
        Reports `UPOS` accuracy and outputs `predicted_upos`.
    upos_loss_weight : `float`, optional (default = `1.0`)
        Weight of the tagger's cross-entropy (mean over words) in the loss; with `predict_upos` only.
    dropout : `float`, optional (default = `0.0`)
        Variational dropout on the encoder output and the MLPs.
    input_dropout : `float`, optional (default = `0.0`)
    predict_enhanced : `bool`, optional (default = `False`)
        Also generate the enhanced UD graph (the DEPS column; the reader's `enhanced: true`): after the tree
        is complete, the recurrent model goes on adding *extra* edges, one per step, among all edges not yet
        in the graph (no self-loop, none into the root; several heads and cycles allowed) until it chooses
        `STOP`, whose score is a linear map of the recurrent state `h_t` (`structs.graph`). Trained like the
        tree: the roll-in goes on into the graph phase (the configured roll-in's mixture: the uniform
        oracle's free edge, or `STOP` once none is free, with its `beta`, else the policy's best action) and
        every graph state adds `KL(oracle || policy)` over the still-free gold graph edges and `STOP`, which
        the oracle takes once no gold edge is free. The tree and its edges' enhanced labels make the graph
        rooted and connected. Each edge of the graph (tree and extra) gets an enhanced label (namespace
        `"enhanced_tags"`) from a classifier on the label MLPs' representations, trained on the gold graph's
        edges. Needs `recurrent: true` and `predict_labels: true`. Reports `ELAS` and `EULAS` and outputs
        `predicted_deps`.
    max_extra_edges : `int`, optional (default = `None`)
        The most extra edges a sentence gets in the graph phase; `None`: its number of words.
    stop_bias : `float`, optional (default = `0.0`)
        With `predict_enhanced`: added to the `STOP` score when decoding (`DecodingOptions.stop_bias`);
        with `decoder` and `tau`, the options a call decodes with unless it passes others.
    separate_graph_scores : `bool`, optional (default = `False`)
        Score the graph phase's edges `S_t + G_0` instead of `S_t` (beyond the paper; with
        `predict_enhanced`): `G_0` is a biaffine of its own head and dependent MLPs over the encoded nodes,
        trained by the graph states alone. Without it the tree states' KL pushes down every edge that is
        not in the gold tree, the gold extra edges too, in the scores that the graph phase then reads.
    label_bfloat16_training : `bool`, optional (default = `False`)
        In training, the label classifiers' bilinear products (basic and enhanced labels) in bfloat16 where
        the CPU has it natively (`MatmulBilinear`, `modules.precision`); weights and gradients stay float32.
    label_bfloat16_inference : `bool`, optional (default = `False`)
        The same outside training (parsing, validation).
    arc_bfloat16_inference : `bool`, optional (default = `False`)
        Outside training, the initial edge scores (`S_0`, and `G_0` with `separate_graph_scores`: the arc
        MLPs and biaffine products) under bfloat16 autocast where the CPU has it natively
        (`modules.precision`); the scores come back float32. Training is never affected.
    initializer : `InitializerApplicator`, optional
    """

    def __init__(
        self,
        vocab: Vocabulary,
        text_field_embedder: TextFieldEmbedder,
        encoder: Seq2SeqEncoder,
        arc_representation_dim: int = 500,
        tag_representation_dim: int = 100,
        recurrent: bool = True,
        recurrent_weight: Optional[Dict[str, Any]] = None,
        oracle: Optional[Oracle] = None,
        roll_in: Optional[RollIn] = None,
        decoder: str = "valid",
        policy_support: str = "all",
        head_selection_weight: float = 0.0,
        tau: Optional[float] = None,
        single_root: bool = True,
        predict_labels: bool = True,
        pos_tag_embedding: Optional[Embedding] = None,
        predict_upos: bool = False,
        upos_loss_weight: float = 1.0,
        dropout: float = 0.0,
        input_dropout: float = 0.0,
        predict_enhanced: bool = False,
        max_extra_edges: Optional[int] = None,
        stop_bias: float = 0.0,
        separate_graph_scores: bool = False,
        label_bfloat16_training: bool = False,
        label_bfloat16_inference: bool = False,
        arc_bfloat16_inference: bool = False,
        initializer: InitializerApplicator = InitializerApplicator(),
        **kwargs,
    ) -> None:
        super().__init__(vocab, **kwargs)
        self._decoding = check_decoding_options(
            DecodingOptions(decoder, tau, stop_bias), recurrent, predict_enhanced
        )
        if not recurrent and (oracle is not None or roll_in is not None):
            raise ConfigurationError(
                "seqgraph_parser: the one-step model (recurrent: false) trains with one uniform-oracle "
                "step over all gold edges; remove `oracle` and `roll_in` from the config"
            )
        if policy_support not in POLICY_SUPPORTS:
            raise ConfigurationError(
                f'seqgraph_parser: policy_support must be "all" or "valid", got "{policy_support}"'
            )
        if head_selection_weight < 0:
            raise ConfigurationError(
                f"seqgraph_parser: head_selection_weight must be >= 0, got {head_selection_weight}"
            )
        if upos_loss_weight < 0:
            raise ConfigurationError(f"seqgraph_parser: upos_loss_weight must be >= 0, got {upos_loss_weight}")
        if predict_enhanced and not (recurrent and predict_labels):
            raise ConfigurationError(
                "seqgraph_parser: predict_enhanced needs recurrent: true (the stop score reads the recurrent "
                "state) and predict_labels: true (the enhanced labels read the label MLPs)"
            )
        if separate_graph_scores and not predict_enhanced:
            raise ConfigurationError("seqgraph_parser: separate_graph_scores needs predict_enhanced: true")
        if max_extra_edges is not None and max_extra_edges < 0:
            raise ConfigurationError(f"seqgraph_parser: max_extra_edges must be >= 0, got {max_extra_edges}")

        self.text_field_embedder = text_field_embedder
        self.encoder = encoder
        self._pos_tag_embedding = pos_tag_embedding
        encoder_dim = encoder.get_output_dim()
        representation_dim = text_field_embedder.get_output_dim()
        if pos_tag_embedding is not None:
            representation_dim += pos_tag_embedding.get_output_dim()
        check_dimensions_match(
            representation_dim, encoder.get_input_dim(), "text field embedding dim", "encoder input dim"
        )

        self.head_arc_feedforward = FeedForward(
            encoder_dim, 1, arc_representation_dim, Activation.by_name("elu")()
        )
        self.dependent_arc_feedforward = copy.deepcopy(self.head_arc_feedforward)
        self.arc_attention = MatmulBilinearMatrixAttention(
            arc_representation_dim, arc_representation_dim, use_input_biases=True
        )
        # a constant added to every edge score cancels in the softmax over all edges: never trained
        self.arc_attention._bias.requires_grad_(False)
        self._arc_bfloat16 = Bfloat16Options(inference=arc_bfloat16_inference)

        self.recurrent = recurrent
        self.recurrent_weight = (
            RecurrentWeight(encoder_dim=encoder_dim, **(recurrent_weight or {})) if recurrent else None
        )
        self.oracle = oracle or UniformOracle()
        self.roll_in = roll_in or UniformRollIn()
        self.policy_support = policy_support
        self.head_selection_weight = head_selection_weight
        self.single_root = single_root

        self.predict_labels = predict_labels
        # both label classifiers (basic and enhanced) compute alike
        label_precision = dict(bfloat16_training=label_bfloat16_training, bfloat16_inference=label_bfloat16_inference)
        if predict_labels:
            num_labels = vocab.get_vocab_size("head_tags")
            self.head_tag_feedforward = FeedForward(
                encoder_dim, 1, tag_representation_dim, Activation.by_name("elu")()
            )
            self.dependent_tag_feedforward = copy.deepcopy(self.head_tag_feedforward)
            self.tag_bilinear = MatmulBilinear(
                tag_representation_dim, tag_representation_dim, num_labels, **label_precision
            )
            labels = [vocab.get_token_from_index(index, "head_tags") for index in range(num_labels)]
            # a "head_tags" namespace with padding and unknown entries (see training_config/common.libsonnet)
            # keeps unseen gold relations scorable; they are never predicted
            self.register_buffer(
                "_unpredictable_label",
                torch.tensor([label in (vocab._padding_token, vocab._oov_token) for label in labels]),
                persistent=False,
            )
            # CoNLL 2018 LAS compares universal relations only (nmod:poss counts as nmod)
            self.register_buffer("_universal_label", universal_label_table(labels), persistent=False)
            # `root` exactly for the words attached to 0 (`root_label_support`)
            self.register_buffer(
                "_root_label", torch.tensor([is_root_relation(label) for label in labels]), persistent=False
            )
            self._labels = labels

        self._dropout = InputVariationalDropout(dropout)
        self._input_dropout = torch.nn.Dropout(input_dropout)
        # the root x_0, prepended to the encoded sentence as allennlp-models' biaffine parser does, but on
        # the scale of the encoder's outputs (norm ~0.3 over 800 dimensions): allennlp-models' randn
        # (norm ~28) makes the root->root edge take nearly all of the initial mass of a softmax over all
        # V x V edges, which a per-word softmax over heads never sees
        self._root_vector = torch.nn.Parameter(torch.randn(1, 1, encoder_dim) * 0.01)

        # built after every parser module, so that a seed initialises the parser alike with and without it
        self.predict_upos = predict_upos
        self.upos_loss_weight = upos_loss_weight
        if predict_upos:
            upos_tags = self._upos_vocabulary(vocab)
            self.upos_feedforward = FeedForward(
                encoder_dim, 1, tag_representation_dim, Activation.by_name("elu")()
            )
            self.upos_projection = torch.nn.Linear(tag_representation_dim, len(upos_tags))
            # the padding and unknown entries of the namespace are never predicted
            self.register_buffer(
                "_unpredictable_upos",
                torch.tensor([tag in (vocab._padding_token, vocab._oov_token) for tag in upos_tags]),
                persistent=False,
            )
            self._upos_accuracy = CategoricalAccuracy()

        self.predict_enhanced = predict_enhanced
        self.max_extra_edges = max_extra_edges
        if predict_enhanced:
            self.stop_scorer = torch.nn.Linear(self.recurrent_weight.cell.hidden_size, 1)
            enhanced_labels = self._namespace_entries(vocab, ENHANCED_NAMESPACE, "predict_enhanced", "enhanced: true")
            self.enhanced_tag_bilinear = MatmulBilinear(
                tag_representation_dim,
                tag_representation_dim,
                len(enhanced_labels),
                **label_precision,
            )
            self.register_buffer(
                "_unpredictable_enhanced",
                torch.tensor([label in (vocab._padding_token, vocab._oov_token) for label in enhanced_labels]),
                persistent=False,
            )
            self.register_buffer(
                "_root_enhanced",
                torch.tensor([is_root_relation(label) for label in enhanced_labels]),
                persistent=False,
            )
            self._enhanced_labels = enhanced_labels
            self._enhanced_scores = EnhancedAttachmentScores(universal_enhanced_table(enhanced_labels))
            self._graph_kl = Average()
            self._enhanced_label_loss = Average()
        self.separate_graph_scores = separate_graph_scores
        if separate_graph_scores:
            # built last, so that a seed initialises every other module alike with and without them; the
            # bias stays trained: the graph policy's softmax includes STOP, which a constant does not cancel
            self.graph_head_arc_feedforward = FeedForward(
                encoder_dim, 1, arc_representation_dim, Activation.by_name("elu")()
            )
            self.graph_dependent_arc_feedforward = FeedForward(
                encoder_dim, 1, arc_representation_dim, Activation.by_name("elu")()
            )
            self.graph_arc_attention = MatmulBilinearMatrixAttention(
                arc_representation_dim, arc_representation_dim, use_input_biases=True
            )

        self._attachment_scores = ShardSafeAttachmentScores()
        self._kl = Average()
        self._head_nll = Average()
        initializer(self)

    @staticmethod
    def _upos_vocabulary(vocab: Vocabulary) -> List[str]:
        """
        The `"upos"` namespace's entries by index; raises `ConfigurationError` when it has no tag (the tagger
        would have nothing to predict).
        """
        return SeqGraphParser._namespace_entries(
            vocab, UPOS_NAMESPACE, "predict_upos", "upos_targets: true on training data with a UPOS column"
        )

    @staticmethod
    def _namespace_entries(vocab: Vocabulary, namespace: str, option: str, reader_option: str) -> List[str]:
        """
        A label namespace's entries by index; raises `ConfigurationError` when it has no label (the option
        that needs it would have nothing to predict).
        """
        message = (
            f'seqgraph_parser: {option} needs the "{namespace}" vocabulary namespace, built from the '
            f"reader's {reader_option}; "
        )
        # get_vocab_size would create a missing namespace (padding and unknown entries only)
        if namespace not in vocab.get_namespaces():
            raise ConfigurationError(message + "the vocabulary has none")
        size = vocab.get_vocab_size(namespace)
        tags = [vocab.get_token_from_index(index, namespace) for index in range(size)]
        if not set(tags) - {vocab._padding_token, vocab._oov_token}:
            raise ConfigurationError(message + "the namespace has no label")
        return tags

    @property
    def max_sentence_length(self) -> Optional[int]:
        return self.recurrent_weight.max_sentence_length if self.recurrent_weight is not None else None

    @property
    def decoding(self) -> DecodingOptions:
        """
        The decoding options of the config, used by every call that gives none. Read-only: to decode a
        trained model otherwise, pass `DecodingOptions` to `forward` or `decode_steps`.
        """
        return self._decoding

    @property
    def decoder(self) -> str:
        return self._decoding.decoder

    @property
    def tau(self) -> Optional[float]:
        return self._decoding.tau

    @property
    def predicts_upos(self) -> bool:
        """
        Whether the model tags words with UPOS (`predict_upos`), giving `predicted_upos` in its human-readable
        output.
        """
        return self.predict_upos

    @property
    def uses_pos_tags(self) -> bool:
        """
        Whether the model embeds POS tags, and so needs `pos_tags` from the reader.
        """
        return self._pos_tag_embedding is not None

    def _decoding_options(self, decoding: Optional[DecodingOptions]) -> DecodingOptions:
        if decoding is None:
            return self._decoding
        return check_decoding_options(decoding, self.recurrent, self.predict_enhanced)

    def forward(
        self,  # type: ignore
        words: TextFieldTensors,
        metadata: List[Dict[str, Any]] = None,
        pos_tags: torch.LongTensor = None,
        head_tags: torch.LongTensor = None,
        head_indices: torch.LongTensor = None,
        upos_tags: torch.LongTensor = None,
        enhanced_tags: torch.LongTensor = None,
        decoding: Optional[DecodingOptions] = None,
    ) -> Dict[str, torch.Tensor]:
        """
        # Parameters

        words : `TextFieldTensors`
        metadata : `List[Dict[str, Any]]`, optional
            From the reader; `words` is copied to the output.
        pos_tags : `torch.LongTensor`, optional, `(batch_size, N)`
        head_tags : `torch.LongTensor`, optional, `(batch_size, N)`, gold labels.
        head_indices : `torch.LongTensor`, optional, `(batch_size, N)`, gold heads (0 is the root).
        upos_tags : `torch.LongTensor`, optional, `(batch_size, N)`
            Gold UPOS tags (namespace `"upos"`), the tagger's targets (`predict_upos`); never its input.
        enhanced_tags : `torch.LongTensor`, optional, `(batch_size, V, V)`
            The gold enhanced graph (`predict_enhanced`): label indices (namespace `"enhanced_tags"`) at
            `[head, dependent]`, -1 where there is no edge.
        decoding : `DecodingOptions`, optional (default = `None`)
            How to decode this batch; `None` decodes with the model's own options (`self.decoding`).

        # Returns

        The losses (`_search_losses`, `_label_losses`, `_upos_loss`: with gold heads `kl_loss`, the mean KL, and
        `head_selection_loss`, `label_loss`) and their weighted sum `loss` (`_loss_weights`); then, unless
        training on gold heads, `decode`'s output: `heads` and `head_tags` `(batch_size, V)` (root first),
        `edges` `(batch_size, N, 2)` in generation order, `edge_steps` and `edge_probabilities`
        `(batch_size, N)`; always `mask` `(batch_size, V)`. With `predict_upos`, `upos` `(batch_size, N)`, the
        predicted tags, and with gold `upos_tags` `upos_loss`, added to `loss` times `upos_loss_weight`.
        With `predict_enhanced`, `enhanced_edges` `(batch_size, E, 2)` (the tree's edges, then the extra ones;
        -1 on padding) and their `enhanced_tags` `(batch_size, E)`, the graph phase's `extra_edges`
        `(batch_size, X, 2)` in generation order and `extra_edge_probabilities` `(batch_size, X)` (each one's
        probability under the policy of its step), and with gold `enhanced_tags`
        `enhanced_label_loss`, added to `loss` (the graph states' KL is part of the mean KL).
        """
        decoding = self._decoding_options(decoding)
        initial_scores, encoded, final_state, node_mask = self._encode(words, pos_tags)
        batch_size = node_mask.size(0)
        gold_heads = None
        if head_indices is not None:
            gold_heads = torch.cat([head_indices.new_zeros(batch_size, 1), head_indices], dim=1)
        gold_graph = enhanced_tags >= 0 if self.predict_enhanced and enhanced_tags is not None else None

        output: Dict[str, Any] = {"mask": node_mask}
        # the losses' parts in this order (so are the dropout masks and the roll-in's coins drawn): the
        # tree's (and graph's) KL and head selection, the labels', the UPOS tagger's
        if gold_heads is not None:
            output.update(self._search_losses(initial_scores, encoded, final_state, node_mask, gold_heads, gold_graph))
        representations = self._label_representations(encoded) if self.predict_labels else None
        if representations is not None:
            output.update(self._label_losses(representations, node_mask, gold_heads, head_tags, enhanced_tags))
        if self.predict_upos:
            upos_logits = self._upos_logits(encoded)
            output["upos"] = upos_logits.masked_fill(self._unpredictable_upos, float("-inf")).argmax(dim=-1)
            if upos_tags is not None:
                output["upos_loss"] = self._upos_loss(upos_logits, upos_tags, node_mask[:, 1:])
        losses = [output[name] * weight for name, weight in self._loss_weights().items() if name in output]
        if losses:
            output["loss"] = sum(losses[1:], losses[0])

        if self.training and gold_heads is not None:
            # during training the decoder would only feed the metrics, at the cost of a second walk through
            # every step: training batches report their losses, UAS and LAS come from validation
            return output

        output.update(self.decode(initial_scores, encoded, final_state, node_mask, representations, decoding))
        self._update_metrics(output, node_mask, metadata, head_indices, head_tags, enhanced_tags)
        if metadata is not None:
            output["words"] = [instance["words"] for instance in metadata]
        return output

    def _loss_weights(self) -> Dict[str, float]:
        """Each loss term of the output and its weight in `loss` (a term absent from the output adds nothing)."""
        return {
            "kl_loss": 1.0,
            "head_selection_loss": self.head_selection_weight,
            "label_loss": 1.0,
            "enhanced_label_loss": 1.0,
            "upos_loss": self.upos_loss_weight,
        }

    def _search_losses(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
        node_mask: torch.BoolTensor,
        gold_heads: torch.LongTensor,
        gold_graph: Optional[torch.BoolTensor],
    ) -> Dict[str, torch.Tensor]:
        """
        The learning-to-search loss (`kl_loss`, equation 6, over the tree's states and, with `gold_graph`, the
        graph phase's) and with `head_selection_weight` > 0 the per-word head cross-entropy on `S_0`
        (`head_selection_loss`); the oracle's schedule steps once per training batch.
        """
        kl = self._learning_to_search_loss(initial_scores, encoded, final_state, node_mask, gold_heads, gold_graph)
        self._kl(kl.item())
        losses = {"kl_loss": kl}
        if self.head_selection_weight > 0:
            head_nll = self._head_selection_loss(initial_scores, node_mask, gold_heads)
            self._head_nll(head_nll.item())
            losses["head_selection_loss"] = head_nll
        if self.training:
            self.oracle.update()
        return losses

    def _label_representations(self, encoded: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """The label MLPs' head and dependent representations `(batch_size, V, tag_representation_dim)`."""
        return (
            self._dropout(self.head_tag_feedforward(encoded)),
            self._dropout(self.dependent_tag_feedforward(encoded)),
        )

    def _label_losses(
        self,
        representations: Tuple[torch.Tensor, torch.Tensor],
        node_mask: torch.BoolTensor,
        gold_heads: Optional[torch.LongTensor],
        head_tags: Optional[torch.LongTensor],
        enhanced_tags: Optional[torch.LongTensor],
    ) -> Dict[str, torch.Tensor]:
        """
        The cross-entropy of the gold relations given the gold heads (`label_loss`) and with the gold graph of
        its enhanced labels given its edges (`enhanced_label_loss`), each a mean over its words or edges.
        """
        losses = {}
        head_representation, dependent_representation = representations
        if gold_heads is not None and head_tags is not None:
            gold_labels = torch.cat([head_tags.new_zeros(head_tags.size(0), 1), head_tags], dim=1)
            label_log_probs = torch.log_softmax(
                self._label_logits(head_representation, dependent_representation, gold_heads), dim=-1
            )
            # shape (batch_size, V)
            label_nll = -label_log_probs.gather(-1, gold_labels.unsqueeze(-1)).squeeze(-1)
            words = word_mask(node_mask)
            losses["label_loss"] = (label_nll * words).sum() / words.sum().clamp(min=1)
        if self.predict_enhanced and enhanced_tags is not None:
            enhanced_label_loss = self._enhanced_label_loss_of(
                head_representation, dependent_representation, enhanced_tags
            )
            self._enhanced_label_loss(enhanced_label_loss.item())
            losses["enhanced_label_loss"] = enhanced_label_loss
        return losses

    def _upos_logits(self, encoded: torch.Tensor) -> torch.Tensor:
        """
        `(batch_size, N, num_upos)` UPOS scores from the words' encoder states (the root left out); the
        namespace's padding and unknown entries are never predicted, but stay in the loss's softmax, as
        every tagger row was trained.
        """
        return self.upos_projection(self._dropout(self.upos_feedforward(encoded[:, 1:])))

    def _upos_loss(
        self, upos_logits: torch.Tensor, upos_tags: torch.LongTensor, mask: torch.BoolTensor
    ) -> torch.Tensor:
        """
        The tagger's mean cross-entropy over the words (`mask` `(batch_size, N)`), counted in `UPOS` on every
        batch (tags without heads, a treebank with UPOS and `_` heads, still give a loss).
        """
        upos_log_probs = torch.log_softmax(upos_logits, dim=-1)
        # shape (batch_size, N)
        upos_nll = -upos_log_probs.gather(-1, upos_tags.unsqueeze(-1)).squeeze(-1)
        predictable = upos_logits.masked_fill(self._unpredictable_upos, float("-inf"))
        self._upos_accuracy(predictable, upos_tags, mask.contiguous())
        return (upos_nll * mask).sum() / mask.sum().clamp(min=1)

    def decode(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
        node_mask: torch.BoolTensor,
        representations: Optional[Tuple[torch.Tensor, torch.Tensor]],
        decoding: DecodingOptions,
    ) -> Dict[str, torch.Tensor]:
        """
        The tree (`heads`, and for the valid decoder `edges`, `edge_steps`, `edge_probabilities`), its
        relations (`head_tags`, 0 without a label classifier), and with `predict_enhanced` the graph phase's
        `extra_edges`, `extra_edge_probabilities` and the graph's `enhanced_edges` with their `enhanced_tags`.
        """
        output: Dict[str, torch.Tensor] = {}
        if self.predict_enhanced:
            heads, valid_decoding, graph_decoding = self._decode_graph(
                initial_scores, encoded, final_state, node_mask, decoding
            )
            output["extra_edges"] = graph_decoding.extra_edges
            output["extra_edge_probabilities"] = graph_decoding.extra_probabilities
        else:
            heads, valid_decoding = self._decode(initial_scores, encoded, final_state, node_mask, decoding)
        output["heads"] = heads
        if valid_decoding is not None:
            output["edges"] = valid_decoding.edges
            output["edge_steps"] = valid_decoding.edge_steps
            output["edge_probabilities"] = valid_decoding.edge_probabilities
        output["head_tags"] = (
            self._decode_labels(representations, heads) if representations is not None else torch.zeros_like(heads)
        )
        if self.predict_enhanced:
            # the tree's edges (one per word; padding -1), then the extra ones
            words = word_mask(node_mask)
            dependents = torch.arange(heads.size(1), device=heads.device).expand_as(heads)
            tree_edges = torch.stack([heads, dependents], dim=-1)[:, 1:].masked_fill(~words[:, 1:, None], -1)
            enhanced_edges = torch.cat([tree_edges, output["extra_edges"]], dim=1)
            output["enhanced_edges"] = enhanced_edges
            output["enhanced_tags"] = self._decode_enhanced_labels(representations, enhanced_edges)
        return output

    def _decode_labels(
        self, representations: Tuple[torch.Tensor, torch.Tensor], heads: torch.LongTensor
    ) -> torch.LongTensor:
        """Each word's best relation given its head `(batch_size, V)`; `root` exactly for the root's dependents."""
        unpredictable = self._unpredictable_label | ~root_label_support(heads, self._root_label)
        return self._label_logits(*representations, heads).masked_fill(unpredictable, float("-inf")).argmax(dim=-1)

    def _decode_enhanced_labels(
        self, representations: Tuple[torch.Tensor, torch.Tensor], edges: torch.LongTensor
    ) -> torch.LongTensor:
        """
        The best enhanced label of each `(batch_size, E, 2)` edge (-1 on padding); `root` exactly on the edges
        from the root.
        """
        labels = edges.new_full(edges.shape[:-1], -1)
        # only the real edges are scored: a third of a batch's rows are padding on EWT test
        batch_index, edge_index = (edges[..., 0] >= 0).nonzero(as_tuple=True)
        if batch_index.numel() == 0:
            return labels
        real_edges = edges[batch_index, edge_index]
        unpredictable = self._unpredictable_enhanced | ~root_label_support(real_edges[:, 0], self._root_enhanced)
        logits = self._enhanced_edge_logits(*representations, batch_index, real_edges[:, 0], real_edges[:, 1])
        labels[batch_index, edge_index] = logits.masked_fill(unpredictable, float("-inf")).argmax(dim=-1)
        return labels

    def _update_metrics(
        self,
        output: Dict[str, Any],
        node_mask: torch.BoolTensor,
        metadata: Optional[List[Dict[str, Any]]],
        head_indices: Optional[torch.LongTensor],
        head_tags: Optional[torch.LongTensor],
        enhanced_tags: Optional[torch.LongTensor],
    ) -> None:
        """Attachment scores of the decoded tree (CoNLL 2018: every word, punctuation included), ELAS, EULAS."""
        if self.predict_enhanced and enhanced_tags is not None:
            uncounted = sum(instance.get("enhanced_uncounted", 0) for instance in metadata or [])
            predicted = labelled_adjacency(output["enhanced_edges"], output["enhanced_tags"], node_mask.size(1))
            self._enhanced_scores(predicted, enhanced_tags, uncounted)
        if head_indices is None:
            return
        heads = output["heads"][:, 1:]
        mask = node_mask[:, 1:]
        if self.predict_labels and head_tags is not None:
            gold_universal = gold_universal_labels(metadata, self._labels, mask.size(1), mask.device)
            self._attachment_scores(
                heads,
                self._universal_label[output["head_tags"][:, 1:]],
                head_indices,
                self._universal_label[head_tags] if gold_universal is None else gold_universal,
                mask,
            )
        else:
            # no labels to compare: LAS and LEM are dropped in get_metrics
            self._attachment_scores(heads, heads, head_indices, head_indices, mask)

    def _encode(
        self, words: TextFieldTensors, pos_tags: Optional[torch.LongTensor]
    ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.BoolTensor]:
        """
        Returns `S_0` `(batch_size, V, V)`, the encoded nodes `(batch_size, V, encoder_dim)` with the root
        first, the encoder's final state `(batch_size, encoder_dim)` and the node mask `(batch_size, V)`.
        """
        # shape (batch_size, N)
        mask = get_text_field_mask(words)
        batch_size, num_words = mask.shape
        if self.max_sentence_length is not None and num_words > self.max_sentence_length:
            lengths = mask.sum(dim=-1).tolist()
            raise SentenceTooLongError(
                f"seqgraph_parser: a sentence of {max(lengths)} words is longer than this model's "
                f"max_sentence_length={self.max_sentence_length} (its position embeddings); split the "
                "sentence or train with a larger recurrent_weight.max_sentence_length"
            )
        embedded = self.text_field_embedder(words)
        if self._pos_tag_embedding is not None:
            if pos_tags is None:
                raise ConfigurationError(
                    "seqgraph_parser uses a POS embedding but the reader gives no pos_tags "
                    '(set the reader\'s pos_tags to "upos" or "xpos")'
                )
            embedded = torch.cat([embedded, self._pos_tag_embedding(pos_tags)], dim=-1)
        encoded = self.encoder(self._input_dropout(embedded), mask)
        final_state = get_final_encoder_states(encoded, mask, self.encoder.is_bidirectional())

        # shape (batch_size, V, encoder_dim), V = N + 1 with the root first
        encoded = torch.cat([self._root_vector.expand(batch_size, 1, -1), encoded], dim=1)
        node_mask = torch.cat([mask.new_ones(batch_size, 1), mask], dim=1)
        encoded = self._dropout(encoded)

        # shape (batch_size, V, V): S_0[head, dependent]
        initial_scores = self._arc_scores(
            encoded, self.head_arc_feedforward, self.dependent_arc_feedforward, self.arc_attention
        )
        return initial_scores, encoded, final_state, node_mask

    def _graph_initial_scores(self, encoded: torch.Tensor) -> Optional[torch.Tensor]:
        """`G_0` `(batch_size, V, V)`, the graph phase's own edge scores (`separate_graph_scores`), else `None`."""
        if not self.separate_graph_scores:
            return None
        return self._arc_scores(
            encoded, self.graph_head_arc_feedforward, self.graph_dependent_arc_feedforward, self.graph_arc_attention
        )

    def _arc_scores(
        self,
        encoded: torch.Tensor,
        head_feedforward: FeedForward,
        dependent_feedforward: FeedForward,
        attention: MatmulBilinearMatrixAttention,
    ) -> torch.Tensor:
        """`(batch_size, V, V)` float32 biaffine edge scores `[head, dependent]` of the encoded nodes."""
        with self._arc_bfloat16.autocast(self.training, encoded.device):
            scores = attention(
                self._dropout(head_feedforward(encoded)), self._dropout(dependent_feedforward(encoded))
            )
        return scores.float()

    def decode_steps(
        self,
        words: TextFieldTensors,
        pos_tags: Optional[torch.LongTensor] = None,
        decoding: Optional[DecodingOptions] = None,
    ) -> Dict[str, torch.Tensor]:
        """
        Greedy valid decoding that also returns each step's policy and valid edges, for inspecting the
        generation order (`python -m seqgraph_allennlp.plot`, `scripts/easy_first.py`).

        # Parameters

        words : `TextFieldTensors`
        pos_tags : `torch.LongTensor`, optional, `(batch_size, N)`
        decoding : `DecodingOptions`, optional (default = `None`)
            As in `forward`; the decoder must be `"valid"`.

        # Returns

        `heads` `(batch_size, V)`, `edges`, `edge_steps`, `edge_probabilities` as in `forward`, `mask`
        `(batch_size, V)`, `policies` `(batch_size, num_steps, V, V)`, the policy over `[head, dependent]`
        edges at each step, and `valid_edges` `(batch_size, num_steps, V, V)`, the edges valid at the
        start of each step.
        """
        decoding = self._decoding_options(decoding)
        if decoding.decoder == "mst":
            raise ConfigurationError("decode_steps needs the valid decoder; this model decodes with MST")
        with torch.no_grad():
            initial_scores, encoded, final_state, node_mask = self._encode(words, pos_tags)
            valid_decoding = self._greedy_valid_decode(
                initial_scores, encoded, final_state, node_mask, decoding.tau, keep_steps=True
            )
        return {"mask": node_mask, **valid_decoding._asdict()}

    def _score_function(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
    ) -> Callable[[Optional[torch.BoolTensor]], torch.Tensor]:
        """
        A closure that returns `S_t` given the edges added at step `t - 1`: `S_0` for the one-step model,
        `S_{t-1} + BiAffine(emb_h W_t, emb_d W_t)` for the recurrent one.
        """
        if self.recurrent_weight is None:
            return lambda last_edges: initial_scores
        step, projected = self._recurrent_scores(initial_scores, encoded, final_state)
        return lambda last_edges: step(self.recurrent_weight.embed_edges(encoded, last_edges, projected))[0]

    def _graph_score_function(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
    ) -> Callable[[Optional[torch.BoolTensor]], Tuple[torch.Tensor, torch.Tensor]]:
        """
        A closure that returns `S_t` and the stop scores `(batch_size,)` given the edges added at step
        `t - 1`. A sentence whose matrix is empty (after the first step) keeps its state: each sentence's
        steps are its own, whatever the other sentences of its batch do, as in training, where a sentence's
        graph phase follows its tree directly.
        """
        step, projected = self._recurrent_scores(initial_scores, encoded, final_state)

        def score(last_edges: Optional[torch.BoolTensor]) -> Tuple[torch.Tensor, torch.Tensor]:
            active = None if last_edges is None else last_edges.flatten(1).any(dim=-1)
            scores, hidden = step(self.recurrent_weight.embed_edges(encoded, last_edges, projected), active)
            return scores, self.stop_scorer(hidden).squeeze(-1)

        return score

    def _recurrent_scores(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
    ) -> Tuple[Callable[..., Tuple[torch.Tensor, torch.Tensor]], torch.Tensor]:
        """
        The recurrent model's scores step by step: a closure that returns `S_t` and the LSTM output `h_t`
        given `f_emb` of the edges added at step `t - 1` (`RecurrentWeight.embed_edges` of several edges a
        step, `embed_edge_indices` of one) and optionally which sentences step (`(batch_size,)`; the others
        keep their state and scores), and `project_nodes(encoded)` `(batch_size, V, d_e)` that both read.
        """
        recurrent_weight = self.recurrent_weight
        state = recurrent_weight.initial_state(final_state)
        scores = initial_scores
        projected = recurrent_weight.project_nodes(encoded)
        positions = recurrent_weight.position_maps(encoded.size(1), encoded.device)

        def step(edge_input: torch.Tensor, active: Optional[torch.BoolTensor] = None) -> Tuple[torch.Tensor, torch.Tensor]:
            nonlocal state, scores
            delta, new_state = recurrent_weight.step(state, edge_input, positions)
            if active is None:
                state, scores = new_state, scores + delta
            else:
                keep = active.unsqueeze(-1)
                state = (torch.where(keep, new_state[0], state[0]), torch.where(keep, new_state[1], state[1]))
                scores = torch.where(keep.unsqueeze(-1), scores + delta, scores)
            return scores, state[0]

        return step, projected

    def _learning_to_search_loss(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
        node_mask: torch.BoolTensor,
        gold_heads: torch.LongTensor,
        gold_graph: Optional[torch.BoolTensor] = None,
    ) -> torch.Tensor:
        """
        Equation (6): roll in with `self.roll_in` and average `KL(oracle || policy)` over the states
        `s_1 .. s_N` of every sentence (states with no free edge left add nothing). The one-step model
        takes only the first state, with every gold edge free and a uniform target. With `gold_graph`
        `(batch_size, V, V)` (`predict_enhanced`), the roll-in goes on into the graph phase and its states
        count too (`_graph_state_kl`).

        Sentences of very different lengths are rolled in as separate groups (`length_chunks`), each padded
        to its own longest sentence; the average is over all states of the batch either way.
        """
        lengths = node_mask.sum(dim=-1) - 1
        groups = length_chunks(lengths.tolist(), CHUNK_STEP_COST) if self.recurrent_weight is not None else [None]
        total = initial_scores.new_zeros(())
        num_states = 0
        for group in groups:
            if group is None or len(groups) == 1:
                inputs = (initial_scores, encoded, final_state, node_mask, gold_heads, gold_graph)
            else:
                index = torch.tensor(group, device=node_mask.device)
                num_nodes = int(lengths[index].max()) + 1
                inputs = (
                    initial_scores[index, :num_nodes, :num_nodes],
                    encoded[index, :num_nodes],
                    final_state[index],
                    node_mask[index, :num_nodes],
                    gold_heads[index, :num_nodes],
                    None if gold_graph is None else gold_graph[index, :num_nodes, :num_nodes],
                )
            group_total, group_states = self._state_kl(*inputs)
            total = total + group_total
            num_states += group_states
        return total / max(num_states, 1)

    def _state_kl(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
        node_mask: torch.BoolTensor,
        gold_heads: torch.LongTensor,
        gold_graph: Optional[torch.BoolTensor] = None,
    ) -> Tuple[torch.Tensor, int]:
        """
        The sum of `KL(oracle || policy)` over the roll-in's states with a free edge, and their number.

        The roll-in's choices are never differentiated, so it runs first without gradients
        (`_roll_in`); the scores of all its states are then computed again in one batched pass with
        gradients (`RecurrentWeight.unroll`), and the oracle and the KL of all states at once.
        """
        num_nodes = node_mask.size(1)
        if self.recurrent_weight is None:
            valid = TreeState(node_mask, self.single_root).valid.unsqueeze(1)
            updates = initial_scores.unsqueeze(1)
        else:
            graph_scores = self._graph_initial_scores(encoded) if gold_graph is not None else None
            with torch.no_grad():
                roll_in = self._roll_in(
                    initial_scores, encoded, final_state, node_mask, heads_to_adjacency(gold_heads, node_mask),
                    gold_graph, graph_scores,
                )
            valid, heads, dependents, added = roll_in.valid, roll_in.heads, roll_in.dependents, roll_in.added
            projected = self.recurrent_weight.project_nodes(encoded)
            # shape (batch_size, T, V, V): S_t = S_0 + the updates of steps 1 .. t
            updates, hidden = self.recurrent_weight.unroll(
                final_state, projected, heads, dependents, added, return_hidden=True
            )
            updates[:, 0] += initial_scores
            if gold_graph is not None:
                return self._graph_roll_in_kl(
                    updates, hidden, node_mask, gold_heads, gold_graph, roll_in, graph_scores
                )
        num_states = valid.size(1)
        # A free edge is always gold, and the oracle puts mass on free edges only: the KL needs the
        # policy's log-probability of the gold edges alone, shape (batch_size, T, V) each
        gold_index, is_gold = gold_edge_index(gold_heads, node_mask)
        state_gold_index = gold_index.unsqueeze(1).expand(-1, num_states, -1)
        free = valid.flatten(2).gather(2, state_gold_index) & is_gold.unsqueeze(1)
        policy_support = valid if self.policy_support == "valid" else None
        gold_log_probs = state_gold_log_probs(updates, node_mask, state_gold_index, policy_support)
        # every state becomes a row: shape (batch_size * T, V)
        free = free.reshape(-1, num_nodes)
        gold_log_probs = gold_log_probs.reshape(-1, num_nodes)
        target = self.oracle(free, gold_log_probs)
        has_target = free.any(dim=-1)
        return (kl_divergence(target, gold_log_probs) * has_target).sum(), int(has_target.sum())

    def _graph_roll_in_kl(
        self,
        updates: torch.Tensor,
        hidden: torch.Tensor,
        node_mask: torch.BoolTensor,
        gold_heads: torch.LongTensor,
        gold_graph: torch.BoolTensor,
        roll_in: "RollInStates",
        graph_scores: Optional[torch.Tensor] = None,
    ) -> Tuple[torch.Tensor, int]:
        """
        `_state_kl` of a roll-in that goes on into the graph phase: the sum of `KL(oracle || policy)` over
        its tree and graph states with a target, and their number. `STOP` joins the `V x V` edges as one more
        action, whose running sum is the stop score (`structs.graph`), so that every state's policy comes
        from one fused pass over the states (`running_sum_log_probs`), as the tree's does. A tree state's
        candidates are the gold tree's edges, free while valid (`oracles.free_edges`); a graph state's are
        the gold graph's edges, free while valid (`structs.graph.free_graph_edges`), and `STOP`, free once no
        edge is; the configured oracle weights the free ones in either phase. The policy of a tree state is
        over its valid edges (or all, with `policy_support: "all"`), that of a graph state over its valid
        edges and `STOP` (`structs.graph.action_log_probs`; `graph_state_candidates` is its reference).

        # Parameters

        updates : `(batch_size, T, V, V)`, `S_0` in the first; hidden : `(batch_size, T, hidden_dim)`.
        graph_scores : `(batch_size, V, V)`, `G_0` (`separate_graph_scores`), added to the running sum at each
        sentence's first graph state, so that its graph states read `S_t + G_0` and its tree states `S_t`.
        """
        batch_size, num_states, num_nodes, _ = updates.shape
        tree_state, graph_state = roll_in.tree_state, roll_in.graph_state
        if graph_scores is not None:
            # shape (batch_size, T): the state where each sentence's graph phase begins
            first_graph = graph_state & ~torch.cat([torch.zeros_like(graph_state[:, :1]), graph_state[:, :-1]], dim=1)
            updates = updates + first_graph[:, :, None, None] * graph_scores.unsqueeze(1)
        # shape (batch_size, T): the stop score of each state as a running sum, like the edges'
        stop_scores = self.stop_scorer(hidden).squeeze(-1)
        stop_updates = torch.cat([stop_scores[:, :1], stop_scores[:, 1:] - stop_scores[:, :-1]], dim=1)
        # shape (batch_size, T, V * V + 1)
        actions = torch.cat([updates.flatten(2), stop_updates.unsqueeze(-1)], dim=-1)
        flat_valid = roll_in.valid.flatten(2)
        tree_support = policy_mask(node_mask, roll_in.valid if self.policy_support == "valid" else None)
        if tree_support.dim() == 2:
            tree_support = tree_support.unsqueeze(1)
        edge_mask = torch.where(tree_state.unsqueeze(-1), tree_support, flat_valid)
        mask = torch.cat([edge_mask, ~tree_state.unsqueeze(-1)], dim=-1)
        # the candidates of every state: the gold tree's edges, the gold graph's, STOP; shape (batch_size, K)
        tree_index, is_tree_gold = gold_edge_index(gold_heads, node_mask)
        graph_index, is_graph_gold = graph_edge_index(gold_graph)
        stop = graph_index.new_full((batch_size, 1), stop_index(num_nodes))
        index = torch.cat([tree_index, graph_index, stop], dim=-1).unsqueeze(1).expand(-1, num_states, -1)
        tree_free = flat_valid.gather(2, tree_index.unsqueeze(1).expand(-1, num_states, -1))
        tree_free = tree_free & is_tree_gold.unsqueeze(1) & tree_state.unsqueeze(-1)
        graph_free = flat_valid.gather(2, graph_index.unsqueeze(1).expand(-1, num_states, -1))
        graph_free = graph_free & is_graph_gold.unsqueeze(1) & graph_state.unsqueeze(-1)
        stop_free = graph_state & ~graph_free.any(dim=-1)
        free = torch.cat([tree_free, graph_free, stop_free.unsqueeze(-1)], dim=-1)
        log_probs = running_sum_log_probs(actions, mask, index)
        # every state becomes a row: shape (batch_size * T, K)
        free = free.reshape(batch_size * num_states, -1)
        log_probs = log_probs.reshape(batch_size * num_states, -1)
        has_target = free.any(dim=-1)
        kl = kl_divergence(self.oracle(free, log_probs), log_probs) * has_target
        in_graph = graph_state.reshape(-1) & has_target
        self._graph_kl(float(kl[in_graph].detach().sum()) / max(int(in_graph.sum()), 1))
        return kl.sum(), int(has_target.sum())

    def _roll_in(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
        node_mask: torch.BoolTensor,
        gold_adjacency: torch.BoolTensor,
        gold_graph: Optional[torch.BoolTensor] = None,
        graph_scores: Optional[torch.Tensor] = None,
    ) -> "RollInStates":
        """
        The recurrent model's roll-in states, without gradients (`RollInStates`). Without `gold_graph` it
        stops at the first state where no sentence of the batch has a free edge left: from there on no
        state has an oracle target. With `gold_graph` each sentence goes on, right after its tree, into
        the graph phase until it stops (`_graph_roll_in_choice`), so every tree is completed.
        """
        batch_size, num_nodes = node_mask.shape
        graph = gold_graph is not None
        reads_policy = self.roll_in.reads_policy
        if reads_policy:
            # one edge a step: the last one is read by its nodes, no V x V matrix of the last edges is built
            score_step, projected = self._recurrent_scores(initial_scores, encoded, final_state)
            edge_input = self.recurrent_weight.embed_edges(encoded, None)
        state = TreeState(node_mask, self.single_root)
        # outside training the roll-in's coins come from a fixed seed: validation losses are reproducible
        generator = None
        if not self.training:
            generator = torch.Generator(device=initial_scores.device).manual_seed(0)
        max_steps = num_nodes - 1
        if graph:
            extra = torch.zeros_like(state.adjacency)
            done = node_mask.new_zeros(batch_size)
            num_words = node_mask.sum(dim=-1) - 1
            limit = num_words if self.max_extra_edges is None else num_words.clamp(max=self.max_extra_edges)
            # early in training the trees are wrong and most gold tree edges are free again in the graph
            # phase: a roll-in that repaired them all would double a sentence's states; it adds at most
            # two more extra edges than the gold graph has
            gold_extra = (gold_graph & ~gold_adjacency).flatten(1).sum(dim=-1)
            limit = torch.minimum(limit, gold_extra + 2)
            num_extra = torch.zeros_like(num_words)
            # the tree's steps, the extra edges and STOP
            max_steps += int(limit.max()) + 1
        valids, heads, dependents, added, adjacencies, tree_states, graph_states = [], [], [], [], [], [], []
        for step in range(max_steps):
            valid = state.valid
            free = free_edges(gold_adjacency, valid)
            if graph:
                if not bool((~done).any()):
                    break
                in_tree = valid.flatten(1).any(dim=-1)
                in_graph = ~in_tree & ~done
                # while every sentence builds its tree (most steps) the graph phase costs nothing
                any_graph = bool(in_graph.any())
                adjacency = state.adjacency | extra
                if any_graph:
                    valid = torch.where(in_tree.view(-1, 1, 1), valid, graph_valid_mask(adjacency, node_mask))
                adjacencies.append(adjacency)
                tree_states.append(in_tree)
                graph_states.append(in_graph)
            valids.append(valid)
            if not graph and (step == num_nodes - 2 or not bool(free.any())):
                break
            if reads_policy:
                # the roll-in chooses among valid edges by argmax or Gumbel-max, which a constant per
                # sentence does not change: the scores stand in for the log-probabilities
                policy_scores, hidden = score_step(edge_input)
                tree_valid = state.valid
                choice = self.roll_in(free, tree_valid, policy_scores.flatten(1), self.oracle.beta, generator)
                active = tree_valid.flatten(1).any(dim=-1)
            else:
                # on the gold path a gold tree has a free edge until it is complete: the same choices as
                # with the policy's fallback, without the scores
                policy_scores = hidden = None
                active = free.flatten(1).any(dim=-1)
                choice = self.roll_in.choose(free.flatten(1), state.valid.flatten(1), None, self.oracle.beta, generator)
            head = choice // num_nodes
            dependent = choice % num_nodes
            state.add_edges(head, dependent, active & (in_tree if graph else True))
            if graph and any_graph:
                if policy_scores is not None and graph_scores is not None:
                    policy_scores = policy_scores + graph_scores
                graph_choice = self._graph_roll_in_choice(
                    policy_scores, hidden, adjacency, gold_graph, node_mask, num_extra < limit, generator
                )
                stops = graph_choice == stop_index(num_nodes)
                extra_edge = in_graph & ~stops
                head = torch.where(in_graph, (graph_choice // num_nodes).clamp(max=num_nodes - 1), head)
                dependent = torch.where(in_graph, graph_choice % num_nodes, dependent)
                extra[torch.arange(batch_size, device=head.device), head, dependent] |= extra_edge
                num_extra = num_extra + extra_edge.long()
                done = done | (in_graph & stops)
                active = torch.where(in_tree, active, extra_edge)
            elif graph:
                active = active & in_tree
            if reads_policy:
                edge_input = self.recurrent_weight.embed_edge_indices(projected, head, dependent, active)
            heads.append(head)
            dependents.append(dependent)
            added.append(active)
        num_states = len(valids)
        empty = node_mask.new_zeros(batch_size, 0, dtype=torch.long)

        def stacked(values: List[torch.Tensor], default: torch.Tensor) -> torch.Tensor:
            # a state's edge leads to the next state: the last state's (STOP, or none) is not read
            values = values[: num_states - 1]
            return torch.stack(values, dim=1) if values else default

        return RollInStates(
            torch.stack(valids, dim=1),
            stacked(heads, empty),
            stacked(dependents, empty),
            stacked(added, empty.bool()),
            torch.stack(adjacencies, dim=1) if graph else None,
            torch.stack(tree_states, dim=1) if graph else None,
            torch.stack(graph_states, dim=1) if graph else None,
        )

    def _graph_roll_in_choice(
        self,
        policy_scores: Optional[torch.Tensor],
        hidden: Optional[torch.Tensor],
        adjacency: torch.BoolTensor,
        gold_graph: torch.BoolTensor,
        node_mask: torch.BoolTensor,
        may_add: torch.BoolTensor,
        generator: Optional[torch.Generator],
    ) -> torch.LongTensor:
        """
        The roll-in's action in a graph state, `(batch_size,)` flattened, `stop_index(V)` for `STOP`: with
        the roll-in's `beta` (or the oracle's, with `follow_oracle_beta`; always, for a roll-in that does not
        read the policy) the uniform oracle's (a free gold edge, `STOP` once none is free), else the policy's
        best (or sampled) action among the valid ones (`valid_policy`) or the oracle's candidates
        (`coaching`). `STOP` where `may_add` is false (the sentence has its most extra edges).
        """
        free = free_graph_edges(gold_graph, adjacency, node_mask).flatten(1) & may_add.unsqueeze(1)
        oracle_support = torch.cat([free, ~free.any(dim=-1, keepdim=True)], dim=-1)
        choice = sample_uniform(oracle_support, generator)
        if policy_scores is not None:
            valid = graph_valid_mask(adjacency, node_mask)
            log_probs = action_log_probs(policy_scores, self.stop_scorer(hidden).squeeze(-1), valid)
            if isinstance(self.roll_in, CoachingRollIn):
                support = oracle_support
            else:
                support = torch.cat([valid.flatten(1) & may_add.unsqueeze(1), torch.ones_like(may_add).unsqueeze(1)], dim=-1)
            policy_choice = choose_from_policy(log_probs, support, getattr(self.roll_in, "greedy", True), generator)
            beta = self.oracle.beta if getattr(self.roll_in, "follow_oracle_beta", False) else self.roll_in.beta
            use_oracle = torch.rand(choice.shape, device=choice.device, generator=generator) < beta
            choice = torch.where(use_oracle, choice, policy_choice)
        return choice

    def _head_selection_loss(
        self, initial_scores: torch.Tensor, node_mask: torch.BoolTensor, gold_heads: torch.LongTensor
    ) -> torch.Tensor:
        """
        The mean over words of `-log p(gold head | word)` with `p` a softmax over each dependent's column of
        `S_0` (Dozat & Manning's objective), over the real nodes other than the word itself; the others keep
        no mass (`support_log_softmax`, as the policies).
        """
        num_nodes = node_mask.size(1)
        # shape (batch_size, V, V): [dependent, head]
        scores = initial_scores.transpose(1, 2)
        not_self = ~torch.eye(num_nodes, dtype=torch.bool, device=node_mask.device)
        head_mask = node_mask.unsqueeze(1) & not_self
        log_probs = support_log_softmax(scores, head_mask)
        # shape (batch_size, V)
        gold_log_probs = log_probs.gather(-1, gold_heads.unsqueeze(-1)).squeeze(-1)
        words = word_mask(node_mask)
        return -(gold_log_probs * words).sum() / words.sum().clamp(min=1)

    def _decode(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
        node_mask: torch.BoolTensor,
        decoding: DecodingOptions,
    ) -> Tuple[torch.LongTensor, Optional[ValidDecoding]]:
        """
        The `(batch_size, V)` heads decoded as `decoding` says, and the valid decoder's output (`None` for
        MST).
        """
        if decoding.decoder == "mst":
            return mst_decode(initial_scores, node_mask), None
        valid_decoding = self._greedy_valid_decode(initial_scores, encoded, final_state, node_mask, decoding.tau)
        return valid_decoding.heads, valid_decoding

    def _decode_graph(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
        node_mask: torch.BoolTensor,
        decoding: DecodingOptions,
    ) -> Tuple[torch.LongTensor, ValidDecoding, GraphDecoding]:
        """
        The tree by the valid decoder, then the extra edges of the graph phase (`greedy_graph_decode`), with
        one recurrent state per sentence throughout (`_graph_score_function`): the heads `(batch_size, V)`,
        the valid decoder's output and the graph phase's.
        """
        score_function = self._graph_score_function(initial_scores, encoded, final_state)
        graph_scores = self._graph_initial_scores(encoded)

        def graph_score_function(last_edges: Optional[torch.BoolTensor]) -> Tuple[torch.Tensor, torch.Tensor]:
            scores, stop_scores = score_function(last_edges)
            if graph_scores is not None:
                scores = scores + graph_scores
            return scores, stop_scores + decoding.stop_bias

        valid_decoding = greedy_valid_decode(
            lambda last_edges: score_function(last_edges)[0],
            node_mask,
            single_root=self.single_root,
            tau=decoding.tau,
            policy_support=self.policy_support,
        )
        num_nodes = node_mask.size(1)
        # the tree decoder calls the scores once per step; a sentence whose tree was complete before its
        # last step has read its last edges already (and kept its state since): the others read them now
        edge_steps = valid_decoding.edge_steps
        last_step = edge_steps.max(dim=1, keepdim=True).values
        unread = (last_step == last_step.max()) & (edge_steps == last_step)
        last_edges = edges_to_adjacency(valid_decoding.edges.masked_fill(~unread.unsqueeze(-1), -1), num_nodes)
        graph_decoding = greedy_graph_decode(
            graph_score_function,
            heads_to_adjacency(valid_decoding.heads, node_mask),
            last_edges,
            node_mask,
            self.max_extra_edges,
        )
        return valid_decoding.heads, valid_decoding, graph_decoding

    def _enhanced_edge_logits(
        self,
        head_tag_representation: torch.Tensor,
        dependent_tag_representation: torch.Tensor,
        batch_index: torch.LongTensor,
        heads: torch.LongTensor,
        dependents: torch.LongTensor,
    ) -> torch.Tensor:
        """
        `(num_edges, num_enhanced_labels)` enhanced label scores of the edges `heads[i] -> dependents[i]` of
        sentence `batch_index[i]` (all three `(num_edges,)`).
        """
        return self.enhanced_tag_bilinear(
            head_tag_representation[batch_index, heads], dependent_tag_representation[batch_index, dependents]
        )

    def _enhanced_label_loss_of(
        self,
        head_tag_representation: torch.Tensor,
        dependent_tag_representation: torch.Tensor,
        enhanced_tags: torch.LongTensor,
    ) -> torch.Tensor:
        """
        The mean over the gold graph's edges of the enhanced label's cross-entropy, given the gold edge.
        """
        # enhanced_tags[b, head, dependent]: the gold label, -1 where there is no edge
        batch_index, heads, dependents = (enhanced_tags >= 0).nonzero(as_tuple=True)
        if batch_index.numel() == 0:
            return head_tag_representation.sum() * 0.0
        logits = self._enhanced_edge_logits(
            head_tag_representation, dependent_tag_representation, batch_index, heads, dependents
        )
        gold_labels = enhanced_tags[batch_index, heads, dependents]
        return -torch.log_softmax(logits, dim=-1).gather(-1, gold_labels.unsqueeze(-1)).mean()

    def _greedy_valid_decode(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
        node_mask: torch.BoolTensor,
        tau: Optional[float],
        keep_steps: bool = False,
    ) -> ValidDecoding:
        return greedy_valid_decode(
            self._score_function(initial_scores, encoded, final_state),
            node_mask,
            single_root=self.single_root,
            tau=tau,
            keep_steps=keep_steps,
            policy_support=self.policy_support,
        )

    def _label_logits(
        self,
        head_tag_representation: torch.Tensor,
        dependent_tag_representation: torch.Tensor,
        heads: torch.LongTensor,
    ) -> torch.Tensor:
        """
        `(batch_size, V, num_labels)` label scores of each word with the given head (as allennlp-models'
        biaffine parser scores tags).
        """
        batch_index = torch.arange(heads.size(0), device=heads.device).unsqueeze(1)
        selected_heads = head_tag_representation[batch_index, heads].contiguous()
        return self.tag_bilinear(selected_heads, dependent_tag_representation)

    def make_output_human_readable(self, output_dict: Dict[str, Any]) -> Dict[str, Any]:
        heads = output_dict.pop("heads").cpu()
        labels = output_dict.pop("head_tags").cpu()
        mask = output_dict.pop("mask").cpu()
        lengths = mask.sum(dim=-1).tolist()
        edges = output_dict.pop("edges", None)
        probabilities = output_dict.pop("edge_probabilities", None)
        output_dict.pop("edge_steps", None)
        enhanced_edges = output_dict.pop("enhanced_edges", None)
        enhanced_labels = output_dict.pop("enhanced_tags", None)
        extra_edges = output_dict.pop("extra_edges", None)
        extra_probabilities = output_dict.pop("extra_edge_probabilities", None)
        if extra_edges is not None:
            real = (extra_edges[..., 0] >= 0).sum(dim=-1).tolist()
            output_dict["extra_edges"] = [edges[:count] for edges, count in zip(extra_edges.cpu().tolist(), real)]
            output_dict["extra_edge_probabilities"] = [
                probabilities[:count] for probabilities, count in zip(extra_probabilities.cpu().tolist(), real)
            ]
        if enhanced_edges is not None:
            output_dict["predicted_deps"] = [
                self._word_deps(sentence_edges, sentence_labels, length - 1)
                for sentence_edges, sentence_labels, length in zip(
                    enhanced_edges.cpu().tolist(), enhanced_labels.cpu().tolist(), lengths
                )
            ]
        upos = output_dict.pop("upos", None)
        if upos is not None:
            upos = upos.cpu()
            output_dict["predicted_upos"] = [
                [self.vocab.get_token_from_index(tag, UPOS_NAMESPACE) for tag in tags[: length - 1]]
                for tags, length in zip(upos.tolist(), lengths)
            ]
        predicted_heads, predicted_dependencies, orders, edge_probabilities = [], [], [], []
        for index, length in enumerate(lengths):
            num_words = length - 1
            predicted_heads.append(heads[index, 1:length].tolist())
            if self.predict_labels:
                predicted_dependencies.append(
                    [
                        self.vocab.get_token_from_index(label, "head_tags")
                        for label in labels[index, 1:length].tolist()
                    ]
                )
            else:
                predicted_dependencies.append(["_"] * num_words)
            if edges is not None:
                orders.append(edges[index, :num_words].cpu().tolist())
                edge_probabilities.append(probabilities[index, :num_words].cpu().tolist())
        output_dict["predicted_heads"] = predicted_heads
        output_dict["predicted_dependencies"] = predicted_dependencies
        if edges is not None:
            output_dict["generation_order"] = orders
            output_dict["edge_probabilities"] = edge_probabilities
        return output_dict

    def _word_deps(self, edges: List[List[int]], labels: List[int], num_words: int) -> List[List[List[Any]]]:
        """Each word's enhanced `[head, label]` pairs, sorted by head and label, as DEPS lists them."""
        deps: List[List[List[Any]]] = [[] for _ in range(num_words)]
        for (head, dependent), label in zip(edges, labels):
            if head >= 0:
                deps[dependent - 1].append([head, self.vocab.get_token_from_index(label, ENHANCED_NAMESPACE)])
        return [sorted(word) for word in deps]

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        metrics = self._attachment_scores.get_metric(reset)
        if self.training:
            # training batches are not decoded (see forward): no attachment scores to report
            metrics = {}
        elif not self.predict_labels:
            metrics = {key: value for key, value in metrics.items() if key in ("UAS", "UEM")}
        if self.predict_enhanced:
            enhanced = self._enhanced_scores.get_metric(reset)
            if not self.training:
                metrics.update(enhanced)
            metrics["graph_kl"] = self._graph_kl.get_metric(reset)
            metrics["enhanced_label_loss"] = self._enhanced_label_loss.get_metric(reset)
        metrics["kl"] = self._kl.get_metric(reset)
        if self.head_selection_weight > 0:
            metrics["head_nll"] = self._head_nll.get_metric(reset)
        if self.predict_upos and self._upos_accuracy.total_count > 0:
            # counted on training batches too: the tagger's argmax costs nothing next to the decoder; not
            # reported at all where no gold tag was seen (a file without UPOS is not tagged 0 %)
            metrics["UPOS"] = self._upos_accuracy.get_metric(reset)
        return metrics

    default_predictor = "seqgraph_parser"

