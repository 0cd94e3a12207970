from typing import Any, Dict, List

import torch
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models.model import Model
from allennlp_models.structured_prediction.models.biaffine_dependency_parser import (
    BiaffineDependencyParser,
)

from seqgraph_allennlp.modules.bilinear import MatmulBilinear
from seqgraph_allennlp.training.attachment_scores import UniversalRelationAttachmentScores, universal_label_table


@Model.register("conll18_biaffine_parser")
class Conll18BiaffineParser(BiaffineDependencyParser):
    """
    allennlp-models' `biaffine_parser` (Dozat & Manning, 2017), unchanged but for its scorer: the original
    drops words with punctuation POS tags from UAS/LAS and compares full relations (`nmod:poss`) for LAS,
    while the CoNLL 2018 definition, used by every other row of this project's tables, counts every word
    and compares universal relations (`nmod`). Its counts are also safe under distributed training
    (see `ShardSafeAttachmentScores`). It also lets `pos_tags` be absent (raw text has none; the
    original requires them even when it does not embed them). Its label classifier is computed by
    `MatmulBilinear` (same parameters and result as `torch.nn.Bilinear`, a fraction of its time on CPU).

    # Parameters

    Those of `biaffine_parser`.
    """

    def __init__(self, vocab: Vocabulary, **kwargs) -> None:
        super().__init__(vocab, **kwargs)
        labels = [vocab.get_token_from_index(index, "head_tags")
                  for index in range(vocab.get_vocab_size("head_tags"))]
        self._attachment_scores = UniversalRelationAttachmentScores(universal_label_table(labels))
        bilinear = self.tag_bilinear
        self.tag_bilinear = MatmulBilinear(bilinear.in1_features, bilinear.in2_features, bilinear.out_features)
        self.tag_bilinear.load_state_dict(bilinear.state_dict())

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
        return super().forward(words, pos_tags, metadata, head_tags, head_indices)

    def make_output_human_readable(self, output_dict: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        # the batch's scalar losses cannot be split per sentence: without this, `allennlp predict` logs
        # three warnings for every batch
        for key in ("arc_loss", "tag_loss", "loss"):
            output_dict.pop(key, None)
        return super().make_output_human_readable(output_dict)

    def _get_mask_for_eval(self, mask: torch.BoolTensor, pos_tags: torch.LongTensor) -> torch.BoolTensor:
        return mask.detach()
