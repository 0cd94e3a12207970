import contextlib
import copy
import hashlib
import json
import logging
import os
import re
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

import torch
from allennlp.common.checks import ConfigurationError
from allennlp.modules import ScalarMix
from allennlp.modules.token_embedders import PretrainedTransformerMismatchedEmbedder, TokenEmbedder

from seqgraph_allennlp.modules.int8_linear import int8_copy
from seqgraph_allennlp.modules.precision import native_bfloat16

logger = logging.getLogger(__name__)

PRECISIONS = ("float32", "bfloat16", "int8")
INT8_SCHEME = "int8: inputs per token, weights per channel on 7 bits"
# word-piece buckets (`word_piece_buckets`): sentences sorted by their number of pieces, a bucket closed when the
# next sentence would pad it by more than a quarter of its pieces once it holds 8 sentences, each bucket padded
# to its longest sentence. Until 2026-11-29 each was padded to at least 16 pieces (BUCKET_MIN_PIECES 16), for
# float32 vectors bit-for-bit the same in any batch; they were not even so (14 of 300 EWT test sentences
# differed, by up to 2.3e-6, between one batch and batches of 7; bfloat16: 3 of 300, by up to 0.008, as without
# the minimum), and 1,229 of the 2,077 EWT test sentences have fewer than 16 pieces: the transformer ran on
# 1.42 times the sentences' pieces in `allennlp predict --batch-size 1024`, 1.23 without the minimum, which
# computes the features 1.10 times as fast in bfloat16 (results/benchmarks/feature_speed_min_pieces.json)
BUCKET_MIN_SENTENCES = 8
BUCKET_MAX_PADDING = 0.25
BUCKET_MIN_PIECES = 1


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


def _as_float32(module: torch.nn.Module, inputs, output: torch.Tensor) -> Optional[torch.Tensor]:
    # a forward hook on the matched embedder: word pieces pooled to words, cached and stored in float32 whatever
    # precision the transformer computed in
    return output.float() if output.dtype != torch.float32 else None


def _forget_quantized_transformer(module: "CachedPretrainedTransformerMismatchedEmbedder", incompatible_keys) -> None:
    # a load_state_dict post-hook: the int8 copy is made again from the weights loaded
    module._quantized_transformer = None


# where the frozen transformer's weights sit in the embedder's state, and the key of their digest
TRANSFORMER_KEYS = "_matched_embedder.transformer_model."
DIGEST_KEY = "transformer_digest"


# transformer_kwargs that say where and how to read a transformer, not what it is
LOADING_KWARGS = {"local_files_only", "cache_dir", "revision"}


@contextlib.contextmanager
def _transformer_not_kept_in_allennlps_cache() -> Iterator[None]:
    """
    While AllenNLP's transformer embedder is built: a transformer that AllenNLP's process-wide cache
    (`allennlp.common.cached_transformers`) did not hold yet is handed to the embedder itself and left out
    of the cache, instead of kept there and deep-copied. The copy is of no use to a frozen transformer built
    once per process (a cold `allennlp predict`), and costs as much as reading the weights (about 1.4 s and
    a second 438 MB for all-mpnet-base-v2). A transformer already in the cache is copied as before, unless
    `transformer_kwargs` change the model (say `num_hidden_layers`): the cache knows a transformer by its name
    and weights files only, so it would hand a model with all its layers to a request for fewer (or the
    reverse), and such a request is built anew, the cache unseen.
    """
    from allennlp.common import cached_transformers

    original = cached_transformers.get

    def get(model_name: str, make_copy: bool, override_weights_file=None, override_weights_strip_prefix=None,
            reinit_modules=None, load_weights: bool = True, **transformer_kwargs):
        args = (override_weights_file, override_weights_strip_prefix, reinit_modules, load_weights)
        if set(transformer_kwargs) - LOADING_KWARGS:
            cache = cached_transformers._model_cache
            cached_transformers._model_cache = {}
            try:
                return original(model_name, False, *args, **transformer_kwargs)
            finally:
                cached_transformers._model_cache = cache
        before = set(cached_transformers._model_cache)
        transformer = original(model_name, False, *args, **transformer_kwargs)
        loaded_now = [spec for spec in cached_transformers._model_cache if spec not in before]
        for spec in loaded_now:
            del cached_transformers._model_cache[spec]
        return copy.deepcopy(transformer) if make_copy and not loaded_now else transformer

    cached_transformers.get = get
    try:
        yield
    finally:
        cached_transformers.get = original


class _UnusedLayersOnly(logging.Filter):
    """
    Drops Hugging Face's warning that weights of the checkpoint were not used when every weight it names is
    in a layer at or above `num_layers`: with `transformer_kwargs: {num_hidden_layers: N}` the model is built
    with its first N layers on purpose, and the warning (a list of every weight of the layers left out)
    would tell a user that something went wrong. A warning that names any other weight passes.
    """

    _PREFIX = "Some weights of the model checkpoint at"

    def __init__(self, num_layers: int) -> None:
        super().__init__()
        self.num_layers = num_layers
        self.dropped = 0

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if not message.startswith(self._PREFIX):
            return True
        names = re.findall(r"'([^']+)'", message.split(": [", 1)[-1].split("]", 1)[0])
        layers = [re.search(r"(?:^|\.)layers?\.(\d+)\.", name) for name in names]
        if names and all(layer is not None and int(layer.group(1)) >= self.num_layers for layer in layers):
            self.dropped += 1
            return False
        return True


@contextlib.contextmanager
def _layers_left_out_quietly(transformer_kwargs: Optional[Dict]) -> Iterator[None]:
    """
    While the transformer is built with `num_hidden_layers` in `transformer_kwargs`: Hugging Face's warning
    about the weights of the layers left out becomes one INFO line (`_UnusedLayersOnly`).
    """
    num_layers = (transformer_kwargs or {}).get("num_hidden_layers")
    if num_layers is None:
        yield
        return
    hf_logger = logging.getLogger("transformers.modeling_utils")
    only_layers = _UnusedLayersOnly(num_layers)
    hf_logger.addFilter(only_layers)
    try:
        yield
    finally:
        hf_logger.removeFilter(only_layers)
    if only_layers.dropped:
        logger.info("the transformer runs its first %d layers; the weights of the others are not loaded", num_layers)


def average_pieces(pieces: torch.Tensor, offsets: torch.LongTensor) -> torch.Tensor:
    """
    Each word's vector as the mean of its word pieces' vectors, as AllenNLP's mismatched embedder averages
    them (a word without pieces gets zeros), by one batched product with a `(num_words, num_pieces)` matrix of
    weights per sentence instead of gathering the pieces; float32 even under autocast (the product would
    otherwise run in bfloat16). The same values up to float rounding (~1e-7).

    # Parameters

    pieces : `torch.Tensor`
        Shape (batch_size, num_pieces, dim).
    offsets : `torch.LongTensor`
        Shape (batch_size, num_words, 2): each word's first and last piece, inclusive.

    # Returns

    `torch.Tensor`
        Shape (batch_size, num_words, dim).
    """
    positions = torch.arange(pieces.size(1), device=pieces.device)
    # shape (batch_size, num_words, num_pieces)
    inside = (positions >= offsets[..., :1]) & (positions <= offsets[..., 1:])
    weights = inside.float() / inside.sum(dim=-1, keepdim=True).clamp_min(1)
    with torch.autocast(pieces.device.type, enabled=False):
        return torch.bmm(weights, pieces.float())


def weights_digest(transformer: torch.nn.Module) -> torch.Tensor:
    """
    A sha256 `(32,)` uint8 tensor of the transformer's weights: every name, shape and type, and every 997th
    value of each tensor. Another checkpoint of a model differs in nearly every value, so a sample is enough
    to tell two apart, at a few milliseconds instead of a second for the 438 MB of all-mpnet-base-v2.
    """
    digest = hashlib.sha256()
    for name, tensor in sorted(transformer.state_dict().items()):
        digest.update(f"{name}{tuple(tensor.shape)}{tensor.dtype}".encode())
        strided = tensor.detach().reshape(-1)[::997].cpu()
        # copied into a new tensor: a one-value slice counts as contiguous but keeps its stride, which `view` refuses
        sample = strided.new_empty(strided.shape).copy_(strided)
        digest.update(sample.view(torch.uint8).numpy().tobytes())
    return torch.frombuffer(bytearray(digest.digest()), dtype=torch.uint8)


def _without_transformer_weights(module: "CachedPretrainedTransformerMismatchedEmbedder", state_dict, prefix: str,
                                 local_metadata) -> None:
    # a state_dict hook: the frozen weights are left out (they come from `model_name` when the model is
    # built), their digest kept in their place
    if module._save_transformer_weights:
        return
    for key in [key for key in state_dict if key.startswith(prefix + TRANSFORMER_KEYS)]:
        del state_dict[key]
    state_dict[prefix + DIGEST_KEY] = weights_digest(module._matched_embedder.transformer_model)


def _check_transformer_digest(module: "CachedPretrainedTransformerMismatchedEmbedder", state_dict, prefix: str,
                              local_metadata, strict, missing_keys, unexpected_keys, error_msgs) -> None:
    # a load_state_dict pre-hook: a state saved without the transformer's weights loads only onto the same
    # weights (read from `model_name`)
    saved = state_dict.pop(prefix + DIGEST_KEY, None)
    if saved is None:
        return
    if not torch.equal(saved.to(torch.uint8).cpu(), weights_digest(module._matched_embedder.transformer_model)):
        raise ConfigurationError(
            f"cached_pretrained_transformer_mismatched: the transformer at {module._model_name!r} is not the one "
            "this model was trained with (their weights differ); the model's archive does not hold the "
            "transformer's weights (save_transformer_weights: false): point model_name (for the shipped mpnet "
            "configs, PRETRAINED_MPNET) at the model directory it was trained with"
        )
    # the weights read from model_name stand in for the saved ones, so that no key is missing (AllenNLP's
    # `authorized_missing_keys` would also let other modules' missing keys through)
    for name, tensor in module._matched_embedder.transformer_model.state_dict().items():
        state_dict.setdefault(prefix + TRANSFORMER_KEYS + name, tensor)


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
    transformer's attention, and int8 quantizes each token on its own, where such a rounding can move an input
    by one level).

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
    transformer_precision : `str`, optional (default = `"float32"`)
        What the frozen transformer computes in. `"float32"`. `"bfloat16"`: under `torch.autocast` to
        bfloat16, on a CPU that computes bfloat16 natively only
        (`seqgraph_allennlp.modules.precision.native_bfloat16`); anywhere else (a GPU included) in float32.
        `"int8"`: each of the transformer's `torch.nn.Linear` layers computed in int8 by
        `seqgraph_allennlp.modules.int8_linear.Int8Linear` (weights per output channel on 7 bits, inputs per
        token on 8 bits), on a CPU only (float32 on a GPU). Either way the word vectors come back (and are
        cached) in float32, and the module keeps (and an archive saves) the float32 weights: the int8 copy is
        made from them at the first batch and again after `load_state_dict`. The features directory's
        fingerprint names the precision actually used (float32 on a machine without the other), so vectors of
        different precisions never share a directory; float32's fingerprint is the one it had before this
        option. bfloat16 words' layer vectors have a mean cosine of 0.99997 to float32's
        (`results/benchmarks/feature_speed.json`); with int8 features the English model's EWT test UAS and
        LAS are within 0.1 of float32's (`results/benchmarks/english_parse_speed_cpu_paths.json`), and its
        five layers run 1.9 times as fast as in float32 on a CPU held to AVX2
        (`results/benchmarks/english_parse_phases_*_on_avx2.json`, docs/BENCHMARKS.md). A predictor parses with
        int8 features by default (its `features_precision`: this option then applies with `"as_trained"` only);
        training and `allennlp evaluate` compute what this option says.
    word_piece_buckets : `bool`, optional (default = `False`)
        Run the transformer on the sentences to compute sorted by their number of word pieces and cut into
        buckets (`length_buckets`, at least 8 sentences, padded by at most a quarter), each padded to its own
        longest sentence instead of the batch's longest: less padding where a batch mixes lengths (batches
        are sorted by words, not pieces; on EWT test, the predictor's batches of 64 make the transformer run
        on 1.83 times the sentences' pieces, 1.38 in buckets padded to at least 16 pieces as they were until
        2026-11-29, which computed the features 1.17 times as fast in float32 and 1.27 in bfloat16:
        results/benchmarks/feature_speed.json; `BUCKET_MIN_PIECES` says what the minimum
        was for and what leaving it out gained). A sentence's vectors then differ from those of the batch as a
        whole by float rounding only, as between any two batches (see above). `False` computes them in the
        batch as given.

    save_transformer_weights : `bool`, optional (default = `False`)
        Whether the module's state (a checkpoint, a model archive) holds the frozen transformer's weights.
        They are the weights of `model_name`, read again whenever the model is built, an archive loaded
        included; so by default the state holds only a digest of them (`weights_digest`), and loading it
        onto other weights is an error. A model archive then holds the parser's own weights only (the 438 MB
        of all-mpnet-base-v2 stay in its model directory), and loads without decompressing and reading the
        transformer's weights a second time. A state that holds the
        weights (saved with `True`, or before this option) loads as before, its weights replacing those
        read from `model_name`.

    Whatever the options, the transformer runs only up to the highest layer that is mixed (all of them for
    `mixed_layers: [-4, -3, -2, -1]`, fewer for, say, `[4, 5]`), for models that keep their layers in
    `encoder.layer` (BERT, RoBERTa, XLM-R, MPNet...): the same vectors, less work. `transformer_kwargs:
    {num_hidden_layers: N}` goes further and builds the transformer with its first N layers only (`mixed_layers`
    then index those): the same vectors again, without reading or keeping the other layers' weights; Hugging
    Face's warning that lists those weights as unused becomes one INFO line.
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
        transformer_precision: str = "float32",
        word_piece_buckets: bool = False,
        save_transformer_weights: bool = False,
    ) -> None:
        if transformer_precision not in PRECISIONS:
            raise ConfigurationError(
                f"cached_pretrained_transformer_mismatched: transformer_precision must be one of {PRECISIONS}, "
                f"got {transformer_precision!r}"
            )
        if train_parameters:
            raise ConfigurationError(
                "cached_pretrained_transformer_mismatched caches the vectors of a frozen transformer: it needs "
                "train_parameters: false (use pretrained_transformer_mismatched to fine-tune the transformer)"
            )
        if mixed_layers is not None and last_layer_only:
            raise ConfigurationError(
                "cached_pretrained_transformer_mismatched: mixed_layers needs last_layer_only: false"
            )
        with _transformer_not_kept_in_allennlps_cache(), _layers_left_out_quietly(transformer_kwargs):
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
        # how many of the transformer's layers run: up to the highest mixed one (None: all)
        self._layers_run: Optional[int] = None
        if not last_layer_only:
            num_layers = self._matched_embedder.config.num_hidden_layers
            layers = list(range(num_layers)) if mixed_layers is None else list(mixed_layers)
            if not layers or any(not -num_layers <= layer < num_layers for layer in layers):
                raise ConfigurationError(
                    f"cached_pretrained_transformer_mismatched: mixed_layers must index the transformer's "
                    f"{num_layers} layers, got {mixed_layers}"
                )
            # counted from the first layer, so that they index the hidden states of the layers run
            counted = [layer % num_layers for layer in layers]
            self._matched_embedder._scalar_mix = _ConcatenateLayers(counted)
            self._layer_mix = ScalarMix(len(layers))
            if max(counted) + 1 < num_layers and self._layer_list(self._matched_embedder.transformer_model) is not None:
                self._layers_run = max(counted) + 1
        self._precision = self._configured_precision = transformer_precision
        self._word_piece_buckets = word_piece_buckets
        # the int8 copy of the transformer, made at the first batch; kept out of the module's state
        self._quantized_transformer: Optional[torch.nn.Module] = None
        self.register_load_state_dict_post_hook(_forget_quantized_transformer)
        self._model_name = model_name
        self._save_transformer_weights = save_transformer_weights
        self._register_state_dict_hook(_without_transformer_weights)
        self._register_load_state_dict_pre_hook(_check_transformer_digest, with_module=True)
        self._matched_embedder.register_forward_hook(_as_float32)
        self._max_cached_words = max_cached_words
        # sentence key -> (num_words, dim) vectors
        self._cache: Dict[bytes, torch.Tensor] = {}
        self._cached_words = 0
        self._cache_directory = None if cache_directory is None else Path(cache_directory)
        self._feature_settings = {"last_layer_only": last_layer_only, "layers": layers,
                                  "sub_token_mode": sub_token_mode, "max_length": max_length}
        # named at the first batch: a model loaded from an archive gets its weights after __init__
        self._directory: Optional[Path] = None

    @property
    def transformer_precision(self) -> str:
        """What the transformer is asked to compute in now (`precision_used` says what it can on a device)."""
        return self._precision

    @property
    def configured_precision(self) -> str:
        """The `transformer_precision` of the config (the archive's): what the model was trained with."""
        return self._configured_precision

    def set_transformer_precision(self, precision: str) -> None:
        """
        From the next batch on, the transformer computes in `precision` (one of `PRECISIONS`): how a predictor
        applies its `features_precision` to a loaded model. The vectors kept in memory are forgotten if the
        precision changes (a features directory is then named anew, from the new precision).
        """
        if precision not in PRECISIONS:
            raise ConfigurationError(
                f"cached_pretrained_transformer_mismatched: transformer_precision must be one of {PRECISIONS}, "
                f"got {precision!r}"
            )
        if precision != self._precision:
            self._precision = precision
            self.clear_cache()
            self._directory = None

    def precision_used(self, device: torch.device) -> str:
        """What the transformer computes in on `device`: `transformer_precision` where it can, else float32."""
        if self._precision == "bfloat16" and not native_bfloat16(device):
            return "float32"
        if self._precision == "int8" and device.type != "cpu":
            return "float32"
        return self._precision

    def feature_settings(self, device: torch.device) -> Dict:
        """The settings that shape the word vectors on `device`, as the features directory's fingerprint takes them."""
        precision = self.precision_used(device)
        # float32 adds nothing: its directories keep the names they had before the option; int8 by its scheme,
        # so that vectors of the per-batch int8 before 2026-12-07 are never read as today's
        named = INT8_SCHEME if precision == "int8" else precision
        return self._feature_settings if precision == "float32" else {**self._feature_settings,
                                                                       "transformer_precision": named}

    @staticmethod
    def _layer_list(transformer: torch.nn.Module) -> Optional[torch.nn.ModuleList]:
        """The transformer's layers, run in order, where it keeps them in `encoder.layer`."""
        layers = getattr(getattr(transformer, "encoder", None), "layer", None)
        return layers if isinstance(layers, torch.nn.ModuleList) else None

    @contextlib.contextmanager
    def _transformer_as_run(self, device: torch.device) -> Iterator[None]:
        """
        Within it, the matched embedder runs the transformer in the precision used on `device` and up to the
        highest mixed layer: the int8 copy and the shorter list of layers stand in for the float32
        transformer and its layers, which are put back on leaving.
        """
        precision = self.precision_used(device)
        if precision == "float32" and self._layers_run is None:
            yield
            return
        matched = self._matched_embedder
        transformer = matched.transformer_model
        run = transformer
        if precision == "int8":
            if self._quantized_transformer is None:
                # set past torch.nn.Module.__setattr__, which would make it a submodule saved in the state
                object.__setattr__(self, "_quantized_transformer", int8_copy(transformer))
            run = self._quantized_transformer
        layers = self._layer_list(run) if self._layers_run is not None else None
        try:
            matched._modules["transformer_model"] = run
            if layers is not None:
                run.encoder._modules["layer"] = torch.nn.ModuleList(list(layers)[: self._layers_run])
            with torch.autocast(device.type, dtype=torch.bfloat16) if precision == "bfloat16" \
                    else contextlib.nullcontext():
                yield
        finally:
            if layers is not None:
                run.encoder._modules["layer"] = layers
            matched._modules["transformer_model"] = transformer

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

    def clear_cache(self) -> None:
        """Forgets the vectors kept in memory (not those in `cache_directory`): they are computed again."""
        self._cache.clear()
        self._cached_words = 0

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

    @staticmethod
    def buckets(positions: List[int], piece_lengths: List[int]) -> List[List[int]]:
        """
        `positions` (sentences of the batch) cut into buckets of similar numbers of word pieces
        (`piece_lengths`, indexed by position), each sorted by length.
        """
        # imported here: the predictor's module imports the models, which import this one
        from seqgraph_allennlp.predictors.batching import length_buckets

        buckets = length_buckets([piece_lengths[position] for position in positions],
                                 min_size=BUCKET_MIN_SENTENCES, max_padding=BUCKET_MAX_PADDING)
        return [[positions[row] for row in bucket] for bucket in buckets]

    def _word_vectors(
        self,
        token_ids: torch.LongTensor,
        mask: torch.BoolTensor,
        offsets: torch.LongTensor,
        wordpiece_mask: torch.BoolTensor,
        type_ids: Optional[torch.LongTensor] = None,
        segment_concat_mask: Optional[torch.BoolTensor] = None,
    ) -> torch.Tensor:
        """
        As `PretrainedTransformerMismatchedEmbedder.forward`, with the word pieces averaged to words by
        `average_pieces` where `sub_token_mode` is `"avg"`. AllenNLP's way first gathers every word's pieces
        into a `(batch_size, num_words, longest_word_in_pieces, dim)` tensor; for four mixed 768-wide layers
        and a long word in the batch that is hundreds of MB to copy: 0.9 of the 20.4 s that the 5-layer
        English model took on EWT test (results/benchmarks/english_parse_phases_layers_5*.json).
        """
        if self.sub_token_mode != "avg":
            return super().forward(token_ids, mask, offsets, wordpiece_mask, type_ids, segment_concat_mask)
        # shape (batch_size, num_pieces, dim), float32 (`_as_float32`)
        pieces = self._matched_embedder(token_ids, wordpiece_mask, type_ids=type_ids,
                                        segment_concat_mask=segment_concat_mask)
        return average_pieces(pieces, offsets)

    @staticmethod
    def trimmed(
        token_ids: torch.LongTensor,
        mask: torch.BoolTensor,
        offsets: torch.LongTensor,
        wordpiece_mask: torch.BoolTensor,
        type_ids: Optional[torch.LongTensor],
        segment_concat_mask: Optional[torch.BoolTensor],
    ) -> Tuple:
        """
        The inputs of some sentences of a batch without the padding that none of them needs: as many words as
        the longest has, as many word pieces too but at least `BUCKET_MIN_PIECES` (where the batch has them).
        """
        def width(lengths_mask: torch.Tensor) -> int:
            longest = int(lengths_mask.sum(dim=-1).max())
            return min(lengths_mask.size(1), max(longest, BUCKET_MIN_PIECES))

        words = int(mask.sum(dim=-1).max())
        pieces = width(wordpiece_mask)
        # the transformer's inputs are the concatenated segments of a long sentence where max_length is set
        transformer_pieces = pieces if segment_concat_mask is None else width(segment_concat_mask)

        def cut(tensor: Optional[torch.Tensor], size: int) -> Optional[torch.Tensor]:
            return None if tensor is None else tensor[:, :size]

        return (cut(token_ids, transformer_pieces), cut(mask, words), cut(offsets, words), cut(wordpiece_mask, pieces),
                cut(type_ids, transformer_pieces), cut(segment_concat_mask, transformer_pieces))

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
            fingerprint = self.fingerprint(self._matched_embedder.transformer_model,
                                           self.feature_settings(token_ids.device))
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
        computed: Dict[int, torch.Tensor] = {}
        if missing:
            transformer_mask = wordpiece_mask if segment_concat_mask is None else segment_concat_mask
            buckets = self.buckets(missing, transformer_mask.sum(dim=-1).tolist()) if self._word_piece_buckets \
                else [missing]
            with torch.no_grad(), self._transformer_as_run(token_ids.device):
                for bucket in buckets:
                    index = torch.tensor(bucket, device=token_ids.device)

                    def rows(tensor: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
                        return None if tensor is None else tensor[index]

                    inputs = (token_ids[index], mask[index], offsets[index], wordpiece_mask[index],
                              rows(type_ids), rows(segment_concat_mask))
                    output = self._word_vectors(*(self.trimmed(*inputs) if self._word_piece_buckets else inputs))
                    for row, position in enumerate(bucket):
                        computed[position] = output[row, : lengths[position]]
        sentences = []
        for position, key in enumerate(keys):
            if position in computed or position in stored:
                if position in stored:
                    vectors = stored[position]
                else:
                    vectors = computed[position]
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
