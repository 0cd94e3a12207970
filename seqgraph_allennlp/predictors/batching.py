"""
How the parser predictor batches what it parses: sentences cut into buckets of similar lengths, the gold
annotation dropped before parsing, and the records read and checked but not yet parsed (`PreparedBatch`).
"""
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

from allennlp.common.util import JsonDict
from allennlp.data import Instance

# Gold annotation is not needed to predict: dropping it skips the loss and keeps the metrics untouched.
GOLD_FIELDS = ("head_tags", "head_indices", "upos_tags", "enhanced_tags")


def without_gold(instance: Instance) -> Instance:
    """
    A shallow copy of an instance without its gold annotation (the model then parses, computing no loss);
    the given instance is left as it was. Token indexers still have to be applied to the copy.
    """
    return Instance({name: field for name, field in instance.fields.items() if name not in GOLD_FIELDS})


def length_buckets(
    lengths: List[int], min_size: int = 16, max_padding: float = 0.25, max_size: Optional[int] = 128
) -> List[List[int]]:
    """
    The positions of `lengths` sorted by length and cut into buckets to be batched together: a bucket is
    closed when the next (longer) sentence would pad it by more than `max_padding` of its words, once it
    has `min_size` sentences (fewer, larger batches keep the per-step work of the decoder batched); a bucket
    of more than `max_size` sentences (`None`: no limit) is then cut into equal parts.

    A batch is padded to its longest sentence, and the encoder and every decoding step pay for the padding:
    in file order a batch of 64 EWT sentences (12 words on average) pads to ~60 words. Larger input batches
    (`allennlp predict --batch-size 1024`) give fewer, fuller buckets; past ~128 sentences a bucket was no
    faster, and a whole file as one batch made buckets of up to 384 EWT sentences that parsed slower than
    buckets of at most 128 (docs/ENHANCED.md, speed).
    """
    order = sorted(range(len(lengths)), key=lambda position: lengths[position])
    buckets: List[List[int]] = []
    current: List[int] = []
    words = 0
    for position in order:
        length = lengths[position]
        padded = (len(current) + 1) * length
        if len(current) >= min_size and padded > (1.0 + max_padding) * (words + length):
            buckets.append(current)
            current, words = [], 0
        current.append(position)
        words += length
    if current:
        buckets.append(current)
    if max_size is None:
        return buckets
    split: List[List[int]] = []
    for bucket in buckets:
        parts = -(-len(bucket) // max_size)
        size = -(-len(bucket) // parts)
        split.extend(bucket[start:start + size] for start in range(0, len(bucket), size))
    return split


# A word longer than this (a URL, an e-mail address: EWT test has words of 473 and 295 characters) puts its
# sentence among the long-word ones, bucketed by that length: a character encoder pads every word of a batch
# to its longest, and one such word in a bucket of 128 sentences made the character CNN half of a batch's time.
LONG_WORD = 32


def length_buckets_of_instances(instances: List[Instance]) -> List[List[int]]:
    """
    `length_buckets` of the instances' word counts, except that the sentences with a word of more than
    `LONG_WORD` characters are bucketed apart, by the length of their longest word.
    """
    longest = [max((len(token.text) for token in instance["words"].tokens), default=0)  # type: ignore[attr-defined]
               for instance in instances]
    ordinary = [position for position, length in enumerate(longest) if length <= LONG_WORD]
    long_words = [position for position, length in enumerate(longest) if length > LONG_WORD]
    buckets = [[ordinary[index] for index in bucket]
               for bucket in length_buckets([len(instances[position]["words"]) for position in ordinary])]  # type: ignore[arg-type]
    buckets += [[long_words[index] for index in bucket]
                for bucket in length_buckets([longest[position] for position in long_words], min_size=1)]
    return buckets


def forward_in_length_buckets(
    forward: Callable[[List[Instance]], List[Dict[str, Any]]], instances: List[Instance]
) -> List[Dict[str, Any]]:
    """
    `forward` (a `forward_on_instances`) run on `instances` cut into `length_buckets_of_instances`: its
    outputs, in the order of `instances`. The same trees as one batch (a sentence's parse does not depend on
    its batch), with less padding.
    """
    outputs: List[Dict[str, Any]] = [{}] * len(instances)
    for bucket in length_buckets_of_instances(instances):
        for position, output in zip(bucket, forward([instances[i] for i in bucket])):
            outputs[position] = output
    return outputs


class PreparedBatch(NamedTuple):
    """
    Records (or instances) read and checked by `SeqGraphParserPredictor.prepare_batch_json` (or
    `prepare_batch_instance`), not yet run through the model: `predict_prepared` gives their outputs.

    # Parameters

    results : `List[Any]`
        One entry per input: the error output of one that cannot be parsed, `{"sentences": [...]}` for a
        `text` record (its too long sentences' errors in place, `None` for the others), else `None`.
    pending : `List[Tuple[int, Optional[int], Instance, Optional[JsonDict]]]`
        The sentences to parse: the input's position, the sentence's among those of a `text` record (else
        `None`), its instance, and the keys that a sentence of a text adds to its output (else `None`).
    input_errors : `List[int]`
        The positions of the records that could not be read at all (`InputError`: not a JSON object, a
        wrong type, no words, ...), whose `results` are their errors; a sentence too long is not one.
    """

    results: List[Any]
    pending: List[Tuple[int, Optional[int], Instance, Optional[JsonDict]]]
    input_errors: List[int]

    @property
    def instances(self) -> List[Instance]:
        return [instance for _, _, instance, _ in self.pending]
