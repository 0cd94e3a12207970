from typing import Dict, List, Optional

import torch
from allennlp.common.checks import ConfigurationError
from allennlp.modules.token_embedders import PretrainedTransformerMismatchedEmbedder, TokenEmbedder


@TokenEmbedder.register("cached_pretrained_transformer_mismatched")
class CachedPretrainedTransformerMismatchedEmbedder(PretrainedTransformerMismatchedEmbedder):
    """
    AllenNLP's `pretrained_transformer_mismatched` for a frozen transformer, with each sentence's word
    vectors kept after they are first computed: a frozen transformer gives a sentence the same vectors in
    every epoch, so from the second epoch on training and validation read them from memory instead of
    running the transformer again (UDPipe 2 computes its frozen BERT features once per file in the same
    spirit). The first batch that holds a sentence computes it as the plain embedder would; the cache lives
    as long as the model object (one `allennlp train` run) and is not saved with it.

    The transformer stays in evaluation mode, also while the parser trains: AllenNLP's plain embedder
    keeps a frozen transformer's dropout on during training, so the shipped pretrained configs changed with
    this embedder from noisy to fixed features (the parser's own input dropout still applies).

    A sentence is known by its word pieces and its word-to-piece offsets. Its vectors can differ from those
    of a recomputation in another batch by float rounding only (~1e-6; padding is masked in the
    transformer's attention).

    # Parameters

    As `pretrained_transformer_mismatched`, with `train_parameters: false` and `last_layer_only: true`
    required (a trained transformer or a trained mix of its layers gives new vectors at every step), and

    max_cached_words : `int`, optional (default = `1_000_000`)
        Stop adding sentences once this many words are cached (1 M words of 384 floats take 1.5 GB;
        EWT's training and development sets have 230 k words).
    """

    def __init__(
        self,
        model_name: str,
        max_length: int = None,
        sub_module: str = None,
        train_parameters: bool = False,
        last_layer_only: bool = True,
        override_weights_file: Optional[str] = None,
        override_weights_strip_prefix: Optional[str] = None,
        load_weights: bool = True,
        gradient_checkpointing: Optional[bool] = None,
        tokenizer_kwargs: Optional[Dict] = None,
        transformer_kwargs: Optional[Dict] = None,
        sub_token_mode: Optional[str] = "avg",
        max_cached_words: int = 1_000_000,
    ) -> None:
        if train_parameters or not last_layer_only:
            raise ConfigurationError(
                "cached_pretrained_transformer_mismatched caches the vectors of a frozen transformer: it needs "
                "train_parameters: false and last_layer_only: true (use pretrained_transformer_mismatched to "
                "fine-tune the transformer or to train a mix of its layers)"
            )
        super().__init__(
            model_name,
            max_length=max_length,
            sub_module=sub_module,
            train_parameters=False,
            last_layer_only=True,
            override_weights_file=override_weights_file,
            override_weights_strip_prefix=override_weights_strip_prefix,
            load_weights=load_weights,
            gradient_checkpointing=gradient_checkpointing,
            tokenizer_kwargs=tokenizer_kwargs,
            transformer_kwargs=transformer_kwargs,
            sub_token_mode=sub_token_mode,
        )
        # AllenNLP leaves a frozen transformer's dropout on in training (`eval_mode` is false and the
        # mismatched embedder cannot set it): vectors that change at every step cannot be cached
        self._matched_embedder.eval_mode = True
        self._matched_embedder.transformer_model.eval()
        self._max_cached_words = max_cached_words
        # sentence key -> (num_words, dim) vectors
        self._cache: Dict[bytes, torch.Tensor] = {}
        self._cached_words = 0

    @staticmethod
    def sentence_keys(
        token_ids: torch.LongTensor,
        mask: torch.BoolTensor,
        offsets: torch.LongTensor,
        wordpiece_mask: torch.BoolTensor,
    ) -> List[bytes]:
        """
        One key per sentence of the batch: its word pieces and its words' piece offsets, as bytes.
        """
        keys = []
        for pieces, piece_mask, spans, word_mask in zip(token_ids, wordpiece_mask, offsets, mask):
            pieces = pieces[piece_mask]
            spans = spans[word_mask].flatten()
            header = torch.tensor([pieces.numel()], dtype=torch.long)
            keys.append(torch.cat([header, pieces.cpu(), spans.cpu()]).numpy().tobytes())
        return keys

    def forward(
        self,
        token_ids: torch.LongTensor,
        mask: torch.BoolTensor,
        offsets: torch.LongTensor,
        wordpiece_mask: torch.BoolTensor,
        type_ids: Optional[torch.LongTensor] = None,
        segment_concat_mask: Optional[torch.BoolTensor] = None,
    ) -> torch.Tensor:  # type: ignore
        """
        As `PretrainedTransformerMismatchedEmbedder.forward`: `(batch_size, num_words, dim)`.
        """
        keys = self.sentence_keys(token_ids, mask, offsets, wordpiece_mask)
        missing = [position for position, key in enumerate(keys) if key not in self._cache]
        computed = None
        if missing:
            index = torch.tensor(missing, device=token_ids.device)

            def rows(tensor: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
                return None if tensor is None else tensor[index]

            with torch.no_grad():
                computed = super().forward(
                    token_ids[index], mask[index], offsets[index], wordpiece_mask[index],
                    rows(type_ids), rows(segment_concat_mask),
                )
        lengths = mask.sum(dim=-1).tolist()
        missing_row = {position: row for row, position in enumerate(missing)}
        sentences = []
        for position, key in enumerate(keys):
            if position in missing_row:
                vectors = computed[missing_row[position], : lengths[position]]
                if self._cached_words + lengths[position] <= self._max_cached_words:
                    self._cache[key] = vectors.clone()
                    self._cached_words += lengths[position]
            else:
                vectors = self._cache[key]
            sentences.append(vectors)
        # shape (batch_size, num_words, dim), zero on padding
        output = torch.nn.utils.rnn.pad_sequence(sentences, batch_first=True)
        return torch.nn.functional.pad(output, (0, 0, 0, mask.size(1) - output.size(1)))
