"""
How a `SeqGraphParser` decodes (`DecodingOptions`) and the one check of those options, whether they come from
a config or from a call.
"""
import math
from typing import NamedTuple, Optional

from allennlp.common.checks import ConfigurationError

DECODERS = ("valid", "mst")


class DecodingOptions(NamedTuple):
    """
    How a `SeqGraphParser` decodes. A model decodes with those of its config (`SeqGraphParser.decoding`)
    unless a call gives others (`forward(..., decoding=...)`, `decode_steps`): a predictor or a sweep
    changes the decoder of a trained model without retraining and without changing the model.

    # Parameters

    decoder : `str`, optional (default = `"valid"`)
        `"valid"`, the greedy valid decoder (Appendix A), or `"mst"`, Chu-Liu-Edmonds (one-step model only).
    tau : `float`, optional (default = `None`)
        The valid decoder's multi-edge threshold (Appendix A), in `(0, 1]`; `None` adds one edge per step.
    stop_bias : `float`, optional (default = `0.0`)
        Added to the graph phase's `STOP` score when decoding (`predict_enhanced`): positive stops sooner,
        so fewer extra edges, negative later; 0 decodes as the model was trained. Training never sees it:
        a setting to choose on dev (as in `results/enhanced/stop_bias/`), as `tau` is.
    """

    decoder: str = "valid"
    tau: Optional[float] = None
    stop_bias: float = 0.0


def check_decoding_options(options: DecodingOptions, recurrent: bool, graph: bool = False) -> DecodingOptions:
    """
    Returns `options` when a model (recurrent or one-step, with a graph phase or not: `predict_enhanced`)
    can decode with them; raises `ConfigurationError` saying why not otherwise. The one check of decoding
    options, whether they come from a config or from a call.
    """
    if options.decoder not in DECODERS:
        raise ConfigurationError(f'seqgraph_parser: decoder must be "valid" or "mst", got "{options.decoder}"')
    if options.decoder == "mst" and recurrent:
        raise ConfigurationError(
            'seqgraph_parser: decoder "mst" needs one set of scores: use it with recurrent: false'
        )
    if options.tau is not None and not 0.0 < options.tau <= 1.0:
        raise ConfigurationError(f"seqgraph_parser: tau must be in (0, 1], got {options.tau}")
    if not math.isfinite(options.stop_bias):
        raise ConfigurationError(f"seqgraph_parser: stop_bias must be a finite number, got {options.stop_bias}")
    if options.stop_bias != 0.0 and not graph:
        raise ConfigurationError("seqgraph_parser: stop_bias needs predict_enhanced: true (a graph phase)")
    return options
