import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import torch
from allennlp.common.checks import ConfigurationError
from allennlp.modules import ScalarMix
from allennlp.modules.token_embedders import PretrainedTransformerMismatchedEmbedder, TokenEmbedder

logger = logging.getLogger(__name__)


class _ConcatenateLayers(torch.nn.Module):
    """
    Stands in for the matched embedder's `ScalarMix`: the chosen layers side by side, so that pooling
    word pieces to words (an average, done per feature) and caching happen before the (trained) mix.
    """

    def __init__(self, layers: Sequence[int]) -> None:
        super().__init__()
        self.layers = list(layers)

    def forward(self, hidden_states: Sequence[torch.Tensor], mask=None) -> torch.Tensor:
        # shape (batch_size, num_pieces, num_layers * dim)
        return torch.cat([hidden_states[layer] for layer in self.layers], dim=-1)


@TokenEmbedder.register("cached_pretrained_transformer_mismatched")
class CachedPretrainedTransformerMismatchedEmbedder(PretrainedTransformerMismatchedEmbedder):
    """
    AllenNLP's `pretrained_transformer_mismatched` for a frozen transformer, with each sentence's word
    vectors kept after they are first computed: a frozen transformer gives a sentence the same vectors in
    every epoch, so from the second epoch on training and validation read them from memory instead of
    running the transformer again (UDPipe 2 computes its frozen BERT features once per file in the same
    spirit). The first batch that holds a sentence computes it as the plain embedder would; the cache lives
    as long as the model object (one `allennlp train` run) and is not saved with it, unless
    `cache_directory` also keeps it on disk for later runs.

    The transformer stays in evaluation mode, also while the parser trains: AllenNLP's plain embedder
    keeps a frozen transformer's dropout on during training, so the shipped pretrained configs changed with
    this embedder from noisy to fixed features (the parser's own input dropout still applies).

    A sentence is known by its word pieces and its word-to-piece offsets. Its vectors can differ from those
    of a recomputation in another batch by float rounding only (~1e-6; padding is masked in the
    transformer's attention).

    # Parameters

    As `pretrained_transformer_mismatched`, with `train_parameters: false` required (a trained transformer
    gives new vectors at every step), and

    last_layer_only : `bool`, optional (default = `True`)
        `False` mixes layers with a trained `ScalarMix`, as AllenNLP's embedder does, but the mix comes after
        the cache: each chosen layer's word vectors are cached and only the mix weights train.
    mixed_layers : `List[int]`, optional (default = `None`)
        With `last_layer_only: false`, the layers to mix, as Python indices into the transformer's layers
        (the embedding layer excluded, as AllenNLP does): `[-4, -3, -2, -1]` mixes the last four, as UDPipe 2
        does. `None` mixes every layer.
    max_cached_words : `int`, optional (default = `1_000_000`)
        Stop adding sentences once this many words are cached. A word takes 4 bytes per dimension and mixed
        layer: 1 M words of 384 floats take 1.5 GB, of four 768-wide layers 12 GB; EWT's training and
        development sets have 230 k words.
    cache_directory : `str`, optional (default = `None`)
        Also keep each sentence's vectors in this directory (one float32 file per sentence, as many bytes as
        in memory, with no limit), so that a later run reads them instead of running the transformer: a
        training resumed with `--recover` or trained again, `allennlp evaluate` on the development file.
        The files are under a subdirectory named by a fingerprint of the transformer's weights, the layers
        kept, the word-piece pooling and `max_length`, so that other features never share them; the
        directory can be deleted at any time. An archive keeps the setting: `allennlp predict` with it also
        stores what it parses there, unless given `-o '{"...cache_directory": null}'`. A directory that
        cannot be written is given up with a warning. `None` keeps the vectors in memory only.
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
        mixed_layers: Optional[List[int]] = None,
        max_cached_words: int = 1_000_000,
        cache_directory: Optional[str] = None,
    ) -> None:
        if train_parameters:
            raise ConfigurationError(
                "cached_pretrained_transformer_mismatched caches the vectors of a frozen transformer: it needs "
                "train_parameters: false (use pretrained_transformer_mismatched to fine-tune the transformer)"
            )
        if mixed_layers is not None and last_layer_only:
            raise ConfigurationError(
                "cached_pretrained_transformer_mismatched: mixed_layers needs last_layer_only: false"
            )
        super().__init__(
            model_name,
            max_length=max_length,
            sub_module=sub_module,
            train_parameters=False,
            last_layer_only=last_layer_only,
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
        self._layer_mix: Optional[ScalarMix] = None
        layers: Optional[List[int]] = None
        if not last_layer_only:
            num_layers = self._matched_embedder.config.num_hidden_layers
            layers = list(range(num_layers)) if mixed_layers is None else list(mixed_layers)
            if not layers or any(not -num_layers <= layer < num_layers for layer in layers):
                raise ConfigurationError(
                    f"cached_pretrained_transformer_mismatched: mixed_layers must index the transformer's "
                    f"{num_layers} layers, got {mixed_layers}"
                )
            self._matched_embedder._scalar_mix = _ConcatenateLayers(layers)
            self._layer_mix = ScalarMix(len(layers))
        self._max_cached_words = max_cached_words
        # sentence key -> (num_words, dim) vectors
        self._cache: Dict[bytes, torch.Tensor] = {}
        self._cached_words = 0
        self._cache_directory = None if cache_directory is None else Path(cache_directory)
        self._feature_settings = {"last_layer_only": last_layer_only, "layers": layers,
                                  "sub_token_mode": sub_token_mode, "max_length": max_length}
        # named at the first batch: a model loaded from an archive gets its weights after __init__
        self._directory: Optional[Path] = None

    @staticmethod
    def fingerprint(transformer: torch.nn.Module, settings: Dict) -> str:
        """
        A hex digest of the transformer's weights (names, shapes, values) and of the settings that shape
        its word vectors: the name of a feature directory.
        """
        digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
        for name, tensor in sorted(transformer.state_dict().items()):
            digest.update(f"{name}{tuple(tensor.shape)}{tensor.dtype}".encode())
            digest.update(tensor.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy().tobytes())
        return digest.hexdigest()[:32]

    def _stored_path(self, key: bytes) -> Path:
        name = hashlib.sha256(key).hexdigest()
        return self._directory / name[:2] / f"{name}.pt"

    def _read_stored(self, key: bytes, num_words: int, device: torch.device) -> Optional[torch.Tensor]:
        path = self._stored_path(key)
        if not path.exists():
            return None
        try:
            vectors = torch.load(path, map_location=device, weights_only=True)
        except Exception:  # a file cut short (a run killed while writing on another file system): recompute
            return None
        if not isinstance(vectors, torch.Tensor) or vectors.shape[0] != num_words:
            return None
        return vectors

    def _store(self, key: bytes, vectors: torch.Tensor) -> None:
        path = self._stored_path(key)
        # written whole under another name, then renamed: a reader never sees half a file
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        try:
            path.parent.mkdir(exist_ok=True)
            torch.save(vectors.detach().cpu().clone(), partial)
            os.replace(partial, path)
        except OSError as error:  # a full disk, a directory that cannot be written
            partial.unlink(missing_ok=True)
            self._give_up_directory(error)

    def _give_up_directory(self, error: OSError) -> None:
        # the features are a cache: without the directory, training goes on with the vectors in memory
        logger.warning(f"cached_pretrained_transformer_mismatched: cache_directory {self._cache_directory} "
                       f"cannot be used ({error}); keeping the vectors in memory only")
        self._cache_directory = None
        self._directory = None

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
        lengths = mask.sum(dim=-1).tolist()
        if self._cache_directory is not None and self._directory is None:
            fingerprint = self.fingerprint(self._matched_embedder.transformer_model, self._feature_settings)
            try:
                (self._cache_directory / fingerprint).mkdir(parents=True, exist_ok=True)
                self._directory = self._cache_directory / fingerprint
            except OSError as error:
                self._give_up_directory(error)
        # sentences found on disk (position -> vectors), when there is a cache directory
        stored: Dict[int, torch.Tensor] = {}
        if self._directory is not None:
            for position, key in enumerate(keys):
                if key not in self._cache:
                    vectors = self._read_stored(key, lengths[position], token_ids.device)
                    if vectors is not None:
                        stored[position] = vectors
        missing = [position for position, key in enumerate(keys)
                   if key not in self._cache and position not in stored]
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
        missing_row = {position: row for row, position in enumerate(missing)}
        sentences = []
        for position, key in enumerate(keys):
            if position in missing_row or position in stored:
                if position in stored:
                    vectors = stored[position]
                else:
                    vectors = computed[missing_row[position], : lengths[position]]
                    if self._directory is not None:
                        self._store(key, vectors)
                if self._cached_words + lengths[position] <= self._max_cached_words:
                    self._cache[key] = vectors.clone()
                    self._cached_words += lengths[position]
            else:
                vectors = self._cache[key]
            sentences.append(vectors)
        # shape (batch_size, num_words, num_layers * dim), zero on padding
        output = torch.nn.utils.rnn.pad_sequence(sentences, batch_first=True)
        output = torch.nn.functional.pad(output, (0, 0, 0, mask.size(1) - output.size(1)))
        if self._layer_mix is None:
            return output
        # shape (batch_size, num_words, dim)
        return self._layer_mix(list(output.split(self.get_output_dim(), dim=-1)))
