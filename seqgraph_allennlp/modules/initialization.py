"""
Loading a trained model without computing a random initialisation that its saved state overwrites at once.

AllenNLP loads an archive by building the model from its config (`Model.from_params`, every module randomly
initialised) and then reading the saved state into it (`Model._load`). The initialisation is wasted work, and
not little: the encoder's block-orthogonal LSTM weights are 48 QR decompositions, and the frozen transformer's
layers are drawn before its checkpoint is copied over them (about 1 s of a cold `allennlp predict`).
`skip_parameter_init` turns `torch.nn.init`'s functions into no-ops while a model is built, as transformers'
own `no_init_weights` does in its later releases; `LoadedWithoutInit` applies it to `Model._load`, which then
checks, as always, that the saved state covered every parameter and buffer (a missing key raises there), so
nothing uninitialised survives a successful load.
"""
import contextlib
from os import PathLike
from typing import Iterator, Optional, Union

import torch

# every in-place initialiser of torch.nn.init; modules' reset_parameters call them through the module
INIT_FUNCTIONS = (
    "uniform_",
    "normal_",
    "trunc_normal_",
    "constant_",
    "ones_",
    "zeros_",
    "eye_",
    "dirac_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "sparse_",
)


def _left_as_is(tensor: torch.Tensor, *args, **kwargs) -> torch.Tensor:
    return tensor


@contextlib.contextmanager
def skip_parameter_init() -> Iterator[None]:
    """
    Within the block, `torch.nn.init`'s initialisers leave their tensor as it is (allocated, not drawn).
    Only for modules whose every parameter is then overwritten. It changes the functions for the whole
    process: other threads building modules meanwhile are affected too.
    """
    saved = {name: getattr(torch.nn.init, name) for name in INIT_FUNCTIONS}
    try:
        for name in saved:
            setattr(torch.nn.init, name, _left_as_is)
        yield
    finally:
        for name, function in saved.items():
            setattr(torch.nn.init, name, function)


class LoadedWithoutInit:
    """
    A `Model` mixin (listed before `Model` or its subclass): `Model.load`, and so `load_archive`, `allennlp
    predict` and `evaluate`, builds the model without its random initialisation (`skip_parameter_init`);
    `Model._load` then reads the saved state and raises on any key it lacks. Training builds models as
    before.
    """

    @classmethod
    def _load(
        cls,
        config,
        serialization_dir: Union[str, PathLike],
        weights_file: Optional[Union[str, PathLike]] = None,
        cuda_device: int = -1,
    ):
        with skip_parameter_init():
            return super()._load(config, serialization_dir, weights_file, cuda_device)  # type: ignore[misc]
