from typing import Any, Dict, List, Tuple

import numpy
import torch
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models.model import Model
from allennlp_models.structured_prediction.models.biaffine_dependency_parser import (
    BiaffineDependencyParser,
)

from seqgraph_allennlp.modules.bilinear import MatmulBilinear, MatmulBilinearMatrixAttention
from seqgraph_allennlp.modules.initialization import LoadedWithoutInit
from seqgraph_allennlp.segmentation.archive import CarriesSegmenter
from seqgraph_allennlp.structs.tree import is_root_relation, root_label_support, single_root_mst
from seqgraph_allennlp.training.attachment_scores import (
    UniversalRelationAttachmentScores,
    gold_universal_labels,
    universal_label_table,
)


@Model.register("conll18_biaffine_parser")
class Conll18BiaffineParser(CarriesSegmenter, LoadedWithoutInit, BiaffineDependencyParser):
    """
    allennlp-models' `biaffine_parser` (Dozat & Manning, 2017), unchanged but for its decoder and its scorer.
    Its MST decoding gives one root word (`structs.tree.single_root_mst`), as Dozat & Manning's parser and
    Stanza do: the original can attach several words to the root, a tree the CoNLL 2018 evaluation rejects;
    and that word, and only it, gets the label `root` (`structs.tree.root_label_support`), the tree being
    the one the original's energies give.
    For its scorer: the original
    drops words with punctuation POS tags from UAS/LAS and compares full relations (`nmod:poss`) for LAS,
    while the CoNLL 2018 definition, used by every other row of this project's tables, counts every word
    and compares universal relations (`nmod`). Its counts are also safe under distributed training
    (see `ShardSafeAttachmentScores`). It also lets `pos_tags` be absent (raw text has none; the
    original requires them even when it does not embed them). Its label classifier is computed by
    `MatmulBilinear` (same parameters and result as `torch.nn.Bilinear`, a fraction of its time on CPU), and
    its arc scores by `MatmulBilinearMatrixAttention` (the same as `BilinearMatrixAttention`, faster to
    differentiate).

    # Parameters

    Those of `biaffine_parser`.
    """

    def __init__(self, vocab: Vocabulary, **kwargs) -> None:
        super().__init__(vocab, **kwargs)
        labels = [vocab.get_token_from_index(index, "head_tags")
                  for index in range(vocab.get_vocab_size("head_tags"))]
        self._attachment_scores = UniversalRelationAttachmentScores(universal_label_table(labels))
        self._labels = labels
        self.register_buffer(
            "_root_label", torch.tensor([is_root_relation(label) for label in labels]), persistent=False
        )
        bilinear = self.tag_bilinear
        self.tag_bilinear = MatmulBilinear(bilinear.in1_features, bilinear.in2_features, bilinear.out_features)
        self.tag_bilinear.load_state_dict(bilinear.state_dict())
        attention = self.arc_attention
        # the weight is one larger than each input: it includes the input biases
        arc_dim = attention._weight_matrix.size(-1) - 1
        self.arc_attention = MatmulBilinearMatrixAttention(arc_dim, arc_dim, use_input_biases=True)
        self.arc_attention.load_state_dict(attention.state_dict())

    @property
    def uses_pos_tags(self) -> bool:
        """
        Whether the model embeds POS tags, and so needs `pos_tags` from the reader.
        """
        return self._pos_tag_embedding is not None

    def forward(  # type: ignore
        self,
        words: TextFieldTensors,
        metadata: List[Dict[str, Any]],
        pos_tags: torch.LongTensor = None,
        head_tags: torch.LongTensor = None,
        head_indices: torch.LongTensor = None,
    ) -> Dict[str, torch.Tensor]:
        if pos_tags is None:
            metadata = [{"pos": None, **instance} for instance in metadata]
        if head_tags is not None:
            # LAS from the gold relation strings (unseen subtypes keep their universal part)
            self._attachment_scores.gold_universal = gold_universal_labels(
                metadata, self._labels, head_tags.size(1), head_tags.device
            )
        return super().forward(words, pos_tags, metadata, head_tags, head_indices)

    def make_output_human_readable(self, output_dict: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        # the batch's scalar losses cannot be split per sentence: without this, `allennlp predict` logs
        # three warnings for every batch
        for key in ("arc_loss", "tag_loss", "loss"):
            output_dict.pop(key, None)
        return super().make_output_human_readable(output_dict)

    def _run_mst_decoding(self, batch_energy: torch.Tensor, lengths: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """
        allennlp-models' `_run_mst_decoding` (the same energies: the best label's probability times the
        head's, no word heading the root) with a single root word, and each edge of the tree labelled with
        its best label among those its head allows: `root` exactly on the edge from the root
        (`structs.tree.root_label_support`; the original takes the best of all labels, so a word attached to
        0 could come out as `aux`). The tree is the one the original energies give.
        """
        heads, head_tags = [], []
        num_nodes = batch_energy.size(-1)
        # shape (num_labels, V, V): the labels each edge may take
        candidate_heads = torch.arange(num_nodes).unsqueeze(1).expand(num_nodes, num_nodes)
        label_support = root_label_support(candidate_heads, self._root_label.cpu()).permute(2, 0, 1)
        for energy, length in zip(batch_energy.detach().cpu(), lengths):
            # shape (V, V): the energy of every edge with its best label
            scores = energy.max(dim=0).values
            scores[:, 0] = 0
            # energies are probabilities: -1 puts a label its head does not allow below all of them
            tag_ids = energy.masked_fill(~label_support, -1.0).argmax(dim=0)
            instance_heads = single_root_mst(scores.numpy(), int(length))
            dependents = numpy.arange(len(instance_heads))
            instance_head_tags = tag_ids.numpy()[instance_heads, dependents]
            instance_heads[0] = 0
            instance_head_tags[0] = 0
            heads.append(instance_heads)
            head_tags.append(instance_head_tags)
        return (
            torch.from_numpy(numpy.stack(heads)).to(batch_energy.device),
            torch.from_numpy(numpy.stack(head_tags)).to(batch_energy.device),
        )

    def _get_mask_for_eval(self, mask: torch.BoolTensor, pos_tags: torch.LongTensor) -> torch.BoolTensor:
        return mask.detach()
