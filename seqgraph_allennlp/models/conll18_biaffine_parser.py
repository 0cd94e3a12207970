from typing import Any, Dict, List

import torch
from allennlp.data import TextFieldTensors
from allennlp.models.model import Model
from allennlp_models.structured_prediction.models.biaffine_dependency_parser import (
    BiaffineDependencyParser,
)


@Model.register("conll18_biaffine_parser")
class Conll18BiaffineParser(BiaffineDependencyParser):
    """
    allennlp-models' `biaffine_parser` (Dozat & Manning, 2017), unchanged but for its scorer: the original
    drops words with punctuation POS tags from UAS/LAS, while the CoNLL 2018 definition, used by every
    other row of this project's tables, counts every word. It also lets `pos_tags` be absent (raw text
    has none; the original requires them even when it does not embed them).

    # Parameters

    Those of `biaffine_parser`.
    """

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
