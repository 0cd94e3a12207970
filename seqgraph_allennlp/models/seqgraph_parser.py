import copy
import logging
from typing import Any, Dict, List, NamedTuple, Optional

import torch
from allennlp.common.checks import ConfigurationError, check_dimensions_match
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models.model import Model
from allennlp.modules import FeedForward, InputVariationalDropout, Seq2SeqEncoder, TextFieldEmbedder
from allennlp.modules.token_embedders import Embedding
from allennlp.nn import Activation, InitializerApplicator
from allennlp.nn.util import get_final_encoder_states, get_text_field_mask

from seqgraph_allennlp.common.errors import SentenceTooLongError
from seqgraph_allennlp.models.seqgraph.decoding import DecodingOptions, check_decoding_options
from seqgraph_allennlp.models.seqgraph.enhanced_labels import ENHANCED_NAMESPACE, EnhancedLabelClassifier
from seqgraph_allennlp.models.seqgraph.graph_phase import GraphPhase
from seqgraph_allennlp.models.seqgraph.labels import LabelClassifier, Representations, namespace_labels
from seqgraph_allennlp.models.seqgraph.metrics import ParseScores
from seqgraph_allennlp.models.seqgraph.readable import human_readable
from seqgraph_allennlp.models.seqgraph.tree_phase import TreePhase
from seqgraph_allennlp.models.seqgraph.upos_tagger import UPOS_NAMESPACE, UposTagger
from seqgraph_allennlp.modules.bilinear import MatmulBilinear, MatmulBilinearMatrixAttention
from seqgraph_allennlp.modules.initialization import LoadedWithoutInit
from seqgraph_allennlp.modules.precision import Bfloat16Options
from seqgraph_allennlp.modules.recurrent_weight import RecurrentWeight
from seqgraph_allennlp.oracles import Oracle
from seqgraph_allennlp.oracles.uniform import UniformOracle
from seqgraph_allennlp.roll_ins import RollIn
from seqgraph_allennlp.roll_ins.uniform import UniformRollIn
from seqgraph_allennlp.segmentation.archive import CarriesSegmenter
from seqgraph_allennlp.structs.tree import POLICY_SUPPORTS, word_mask

# the decoding options are imported from here by the predictor and by users' code
__all__ = ["DecodingOptions", "Encoding", "SeqGraphParser", "check_decoding_options"]

logger = logging.getLogger(__name__)


class Encoding(NamedTuple):
    """
    What `SeqGraphParser.encode` computes once a batch, which the losses and the decoders read.

    initial_scores : `(batch_size, V, V)`, `S_0[head, dependent]`.
    encoded : `(batch_size, V, encoder_dim)`, the encoded nodes, the root first.
    final_state : `(batch_size, encoder_dim)`, the encoder's final state.
    node_mask : `(batch_size, V)`.
    """

    initial_scores: torch.Tensor
    encoded: torch.Tensor
    final_state: torch.Tensor
    node_mask: torch.BoolTensor


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

        # The network. Its modules keep the attribute names (and so the state-dict keys) of every archive
        # trained so far, and are built in the same order, so that a seed draws the same initial weights.
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

        # S_0: head and dependent MLPs and a biaffine scorer
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
        self.head_selection_weight = head_selection_weight

        self.predict_labels = predict_labels
        # both label classifiers (basic and enhanced) compute alike
        label_precision = dict(bfloat16_training=label_bfloat16_training, bfloat16_inference=label_bfloat16_inference)
        if predict_labels:
            self.head_tag_feedforward = FeedForward(
                encoder_dim, 1, tag_representation_dim, Activation.by_name("elu")()
            )
            self.dependent_tag_feedforward = copy.deepcopy(self.head_tag_feedforward)
            self.tag_bilinear = MatmulBilinear(
                tag_representation_dim, tag_representation_dim, vocab.get_vocab_size("head_tags"), **label_precision
            )

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
            upos_tags = namespace_labels(
                vocab, UPOS_NAMESPACE, "predict_upos", "upos_targets: true on training data with a UPOS column"
            )
            self.upos_feedforward = FeedForward(
                encoder_dim, 1, tag_representation_dim, Activation.by_name("elu")()
            )
            self.upos_projection = torch.nn.Linear(tag_representation_dim, len(upos_tags))

        self.predict_enhanced = predict_enhanced
        if predict_enhanced:
            self.stop_scorer = torch.nn.Linear(self.recurrent_weight.cell.hidden_size, 1)
            enhanced_labels = namespace_labels(vocab, ENHANCED_NAMESPACE, "predict_enhanced", "enhanced: true")
            self.enhanced_tag_bilinear = MatmulBilinear(
                tag_representation_dim, tag_representation_dim, len(enhanced_labels), **label_precision
            )
        self.separate_graph_scores = separate_graph_scores
        if separate_graph_scores:
            # G_0, built last, so that a seed initialises every other module alike with and without it; the
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

        # The parts, which read the network's modules and hold no parameters of their own
        self.label_classifier = (
            LabelClassifier(
                self.head_tag_feedforward, self.dependent_tag_feedforward, self.tag_bilinear, self._dropout, vocab
            )
            if predict_labels
            else None
        )
        self.upos_tagger = (
            UposTagger(self.upos_feedforward, self.upos_projection, self._dropout, upos_tags, vocab)
            if predict_upos
            else None
        )
        self.graph_phase = (
            GraphPhase(self.stop_scorer, self.recurrent_weight, max_extra_edges) if predict_enhanced else None
        )
        self.enhanced_label_classifier = (
            EnhancedLabelClassifier(self.enhanced_tag_bilinear, enhanced_labels, vocab) if predict_enhanced else None
        )
        self.tree_phase = TreePhase(
            self.oracle, self.roll_in, self.recurrent_weight, self.graph_phase, policy_support, single_root
        )
        self.parse_scores = ParseScores(self.label_classifier, enhanced_labels if predict_enhanced else None)
        initializer(self)

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

        The losses (`_search_losses`, `_label_losses`, `UposTagger.loss`: with gold heads `kl_loss`, the mean KL, and
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
        encoding = self.encode(words, pos_tags)
        node_mask = encoding.node_mask
        gold_heads = None
        if head_indices is not None:
            gold_heads = torch.cat([head_indices.new_zeros(node_mask.size(0), 1), head_indices], dim=1)
        gold_graph = enhanced_tags >= 0 if self.predict_enhanced and enhanced_tags is not None else None

        output: Dict[str, Any] = {"mask": node_mask}
        # the losses' parts in this order (so are the dropout masks and the roll-in's coins drawn): the
        # tree's (and graph's) KL and head selection, the labels', the UPOS tagger's
        if gold_heads is not None:
            # Section 3: roll in, and KL(oracle || policy) at every state
            output.update(self._search_losses(encoding, gold_heads, gold_graph))
        representations = None
        if self.label_classifier is not None:
            representations = self.label_classifier.representations(encoding.encoded)
            output.update(self._label_losses(representations, node_mask, gold_heads, head_tags, enhanced_tags))
        if self.upos_tagger is not None:
            upos_logits = self.upos_tagger.logits(encoding.encoded)
            output["upos"] = self.upos_tagger.decode(upos_logits)
            if upos_tags is not None:
                output["upos_loss"] = self.upos_tagger.loss(upos_logits, upos_tags, node_mask[:, 1:])
        losses = [output[name] * weight for name, weight in self._loss_weights().items() if name in output]
        if losses:
            output["loss"] = sum(losses[1:], losses[0])

        if self.training and gold_heads is not None:
            # during training the decoder would only feed the metrics, at the cost of a second walk through
            # every step: training batches report their losses, UAS and LAS come from validation
            return output

        output.update(self.decode(*encoding, representations, decoding))
        self.parse_scores(output, node_mask, metadata, head_indices, head_tags, enhanced_tags)
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
        self, encoding: Encoding, gold_heads: torch.LongTensor, gold_graph: Optional[torch.BoolTensor]
    ) -> Dict[str, torch.Tensor]:
        """
        The learning-to-search loss (`kl_loss`, equation 6, over the tree's states and, with `gold_graph`, the
        graph phase's: `TreePhase.loss`) and with `head_selection_weight` > 0 the per-word head cross-entropy
        on `S_0` (`head_selection_loss`); the oracle's schedule steps once per training batch.
        """
        losses = {"kl_loss": self.tree_phase.loss(*encoding, gold_heads, gold_graph, self.graph_initial_scores)}
        if self.head_selection_weight > 0:
            losses["head_selection_loss"] = self.tree_phase.head_selection_loss(
                encoding.initial_scores, encoding.node_mask, gold_heads
            )
        if self.training:
            self.oracle.update()
        return losses

    def _label_losses(
        self,
        representations: Representations,
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
        if gold_heads is not None and head_tags is not None:
            losses["label_loss"] = self.label_classifier.loss(representations, node_mask, gold_heads, head_tags)
        if self.enhanced_label_classifier is not None and enhanced_tags is not None:
            losses["enhanced_label_loss"] = self.enhanced_label_classifier.loss(representations, enhanced_tags)
        return losses

    def decode(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
        node_mask: torch.BoolTensor,
        representations: Optional[Representations],
        decoding: DecodingOptions,
    ) -> Dict[str, torch.Tensor]:
        """
        The tree (`heads`, and for the valid decoder `edges`, `edge_steps`, `edge_probabilities`), its
        relations (`head_tags`, 0 without a label classifier), and with `predict_enhanced` the graph phase's
        `extra_edges`, `extra_edge_probabilities` and the graph's `enhanced_edges` with their `enhanced_tags`.
        """
        output: Dict[str, torch.Tensor] = {}
        if self.graph_phase is not None:
            # one recurrent state per sentence throughout: the tree by the valid decoder, then the graph
            # phase's extra edges from where the tree ended
            score_function = self.graph_phase.score_function(initial_scores, encoded, final_state)
            graph_scores = self.graph_initial_scores(encoded)
            valid_decoding = self.tree_phase.valid_decode(
                lambda last_edges: score_function(last_edges)[0], node_mask, decoding.tau
            )
            graph_decoding = self.graph_phase.decode(
                score_function, valid_decoding, node_mask, graph_scores, decoding.stop_bias
            )
            heads = valid_decoding.heads
            output["extra_edges"] = graph_decoding.extra_edges
            output["extra_edge_probabilities"] = graph_decoding.extra_probabilities
        else:
            heads, valid_decoding = self.tree_phase.decode(initial_scores, encoded, final_state, node_mask, decoding)
        output["heads"] = heads
        if valid_decoding is not None:
            output["edges"] = valid_decoding.edges
            output["edge_steps"] = valid_decoding.edge_steps
            output["edge_probabilities"] = valid_decoding.edge_probabilities
        output["head_tags"] = (
            self.label_classifier.decode(representations, heads)
            if representations is not None
            else torch.zeros_like(heads)
        )
        if self.enhanced_label_classifier is not None:
            # the tree's edges (one per word; padding -1), then the extra ones
            words = word_mask(node_mask)
            dependents = torch.arange(heads.size(1), device=heads.device).expand_as(heads)
            tree_edges = torch.stack([heads, dependents], dim=-1)[:, 1:].masked_fill(~words[:, 1:, None], -1)
            enhanced_edges = torch.cat([tree_edges, output["extra_edges"]], dim=1)
            output["enhanced_edges"] = enhanced_edges
            output["enhanced_tags"] = self.enhanced_label_classifier.decode(representations, enhanced_edges)
        return output

    def encode(self, words: TextFieldTensors, pos_tags: Optional[torch.LongTensor] = None) -> Encoding:
        """
        The batch as the parts read it: `S_0`, the encoded nodes with the root first, the encoder's final
        state and the node mask (`Encoding`), computed once a batch: the roll-in, the losses and the decoders
        all read the same dropped network.

        # Parameters

        words : `TextFieldTensors`
        pos_tags : `torch.LongTensor`, optional, `(batch_size, N)`
            Needed when the model embeds POS tags (`uses_pos_tags`).
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
        return Encoding(initial_scores, encoded, final_state, node_mask)

    def graph_initial_scores(self, encoded: torch.Tensor) -> Optional[torch.Tensor]:
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
        generation order (`python -m seqgraph_allennlp.plot`).

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
            initial_scores, encoded, final_state, node_mask = self.encode(words, pos_tags)
            valid_decoding = self.tree_phase.valid_decode(
                self.tree_phase.score_function(initial_scores, encoded, final_state),
                node_mask,
                decoding.tau,
                keep_steps=True,
            )
        return {"mask": node_mask, **valid_decoding._asdict()}

    def make_output_human_readable(self, output_dict: Dict[str, Any]) -> Dict[str, Any]:
        labels = self.label_classifier.labels if self.label_classifier is not None else None
        return human_readable(output_dict, labels, self.enhanced_label_classifier, self.upos_tagger)

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        # the attachment scores, ELAS and EULAS (none in training: training batches are not decoded, see
        # forward), then the losses' running averages, in the order every run so far reported them
        metrics = self.parse_scores.get_metric(reset, self.training)
        if self.graph_phase is not None:
            metrics["graph_kl"] = self.graph_phase.graph_kl.get_metric(reset)
            metrics["enhanced_label_loss"] = self.enhanced_label_classifier.mean_loss.get_metric(reset)
        metrics["kl"] = self.tree_phase.kl.get_metric(reset)
        if self.head_selection_weight > 0:
            metrics["head_nll"] = self.tree_phase.head_nll.get_metric(reset)
        if self.upos_tagger is not None and self.upos_tagger.accuracy.total_count > 0:
            # counted on training batches too: the tagger's argmax costs nothing next to the decoder; not
            # reported at all where no gold tag was seen (a file without UPOS is not tagged 0 %)
            metrics["UPOS"] = self.upos_tagger.accuracy.get_metric(reset)
        return metrics

    default_predictor = "seqgraph_parser"
