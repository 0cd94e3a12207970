"""
The package's one precision policy: where a module computes in bfloat16. Four parts take bfloat16 options,
each its own because each was measured on its own (speed and accuracy, docs/BENCHMARKS.md, docs/RESULTS.md
and docs/ENHANCED.md): the encoder (`fused_bilstm`: `bfloat16_training`, `bfloat16_inference`), the recurrent
weight model (`recurrent_weight`: the same two names), the label classifiers' bilinear products
(`bilinear.MatmulBilinear`: the same two names; the parser's `label_bfloat16_training` and
`label_bfloat16_inference`) and the parser's initial edge scores (`arc_bfloat16_inference`: the arc MLPs and
biaffines under autocast, parsing only). What those options mean is decided here only:

* bfloat16 is used in the module's current mode (training or not) when that mode's option is on, and only on
  a CPU that computes bfloat16 matrix products natively (`native_bfloat16`); anywhere else, float32;
* weights, gradients and the optimiser's state stay float32, and a module returns float32: the encoder, the
  recurrent weight model and the initial scores compute under `torch.autocast` (`Bfloat16Options.autocast`);
  the bilinear products cast their inputs and weight themselves, so that their outer products are formed in
  bfloat16 too.

A frozen transformer's features (`cached_pretrained_transformer_mismatched`'s `transformer_precision`:
float32, bfloat16 as above, or int8) are computed as the config says in training and in `allennlp evaluate`;
a predictor (`allennlp predict`, `Parser`, the service) computes them as `features_precision` asks, by
default as `parsing_features_precision` chooses.
"""
import contextlib
import functools
from typing import ContextManager, NamedTuple

import torch


@functools.lru_cache(maxsize=None)
def native_bfloat16(device: torch.device) -> bool:
    """
    Whether `device` is a CPU that computes bfloat16 matrix products natively (oneDNN with AVX512-BF16 or
    AMX); emulated bfloat16 would be slower than float32. A GPU never counts, whatever it supports: the
    bfloat16 options were measured (speed and accuracy) on CPUs only, so on a GPU they run float32. Asked
    once per device: the decoder asks at every step.
    """
    return device.type == "cpu" and torch.backends.mkldnn.is_available() and torch.ops.mkldnn._is_mkldnn_bf16_supported()


FEATURES_PRECISIONS = ("auto", "as_trained", "float32", "bfloat16", "int8")


def parsing_features_precision(requested: str, trained: str, device: torch.device) -> str:
    """
    The `transformer_precision` that a frozen transformer's features are parsed with: `requested` (one of
    `FEATURES_PRECISIONS`), the config's `trained` for `"as_trained"`, and for `"auto"` the fastest within
    0.1 UAS and LAS of float32's by measurement: int8 on a CPU (the English model parsing EWT test with
    `allennlp predict --batch-size 1024` on 2 cores: 1.38 times as fast as float32 on a CPU held to AVX2, 1.19
    times as fast as bfloat16 where that is native; `results/benchmarks/english_parse_speed_cpu_paths.json`),
    the trained precision on a GPU.
    """
    if requested not in FEATURES_PRECISIONS:
        raise ValueError(f"features_precision must be one of {FEATURES_PRECISIONS}, got {requested!r}")
    if requested == "as_trained" or (requested == "auto" and device.type != "cpu"):
        return trained
    return "int8" if requested == "auto" else requested


ENCODER_PRECISIONS = ("auto", "as_trained", "int8")


def parsing_encoder_int8(requested: str, device: torch.device) -> bool:
    """
    Whether a `fused_bilstm` encoder parses with its LSTM layers in int8 (`requested` one of
    `ENCODER_PRECISIONS`): `"int8"` on a CPU; `"auto"` on a CPU without native bfloat16, where its float32
    LSTM layers were the largest part of parsing after the features (the English model parsing EWT test held
    to AVX2, features and LSTM layers in int8: 93.2 sentences/s with `--batch-size 1024` against 65.6 as
    trained, UAS and LAS within 0.02, `results/benchmarks/english_parse_speed_avx2_int8_encoder.json`; where
    bfloat16 is native its layers were as fast as int8, `english_parse_speed_native_int8_encoder.json`);
    `"as_trained"` never.
    """
    if requested not in ENCODER_PRECISIONS:
        raise ValueError(f"encoder_precision must be one of {ENCODER_PRECISIONS}, got {requested!r}")
    if device.type != "cpu" or requested == "as_trained":
        return False
    return requested == "int8" or not native_bfloat16(device)


class Bfloat16Options(NamedTuple):
    """
    A module's two bfloat16 options.

    # Parameters

    training : `bool`, optional (default = `False`)
        Compute in bfloat16 in training.
    inference : `bool`, optional (default = `False`)
        Compute in bfloat16 outside training (parsing, validation).
    """

    training: bool = False
    inference: bool = False

    def active(self, training: bool, device: torch.device) -> bool:
        """Whether a module in mode `training` on `device` computes in bfloat16 now."""
        return (self.training if training else self.inference) and native_bfloat16(device)

    def autocast(self, training: bool, device: torch.device) -> ContextManager:
        """`torch.autocast` to bfloat16 where `active`, else a context that changes nothing."""
        if self.active(training, device):
            return torch.autocast(device.type, dtype=torch.bfloat16)
        return contextlib.nullcontext()


def in_bfloat16(training: bool, bfloat16_training: bool, bfloat16_inference: bool, device: torch.device) -> bool:
    """`Bfloat16Options(bfloat16_training, bfloat16_inference).active(training, device)`."""
    return Bfloat16Options(bfloat16_training, bfloat16_inference).active(training, device)
