"""
The frame the precision benchmarks share (`bf16_inference.py`, `bf16_labels.py`): one archive loaded once per
setting (a setting is a set of dotted overrides), and the settings timed on the same work in turns, so that
a machine's drift over minutes (10-20 % on two cores) falls on every setting alike.
"""
import json
import statistics
import time
from typing import Any, Callable, Dict, List, Mapping, Optional

from allennlp.models import Model
from allennlp.models.archival import Archive, load_archive

import seqgraph_allennlp  # noqa: F401  (registers the components)


def load_settings(
    archive_path: str, settings: Mapping[str, Mapping[str, Any]], overrides: Optional[Mapping[str, Any]] = None
) -> Dict[str, Archive]:
    """Each setting's archive, in evaluation mode: `overrides` (for all) with the setting's own on top."""
    archives = {}
    for name, own in settings.items():
        archive = load_archive(archive_path, overrides=json.dumps({**(overrides or {}), **own}))
        archive.model.eval()
        archives[name] = archive
    return archives


def interleaved_seconds(models: Mapping[str, Model], work: Callable[[Model], Any], repeats: int) -> Dict[str, List[float]]:
    """Wall-clock seconds of `work(model)` for each model, `repeats` rounds of one call per model in turn."""
    seconds: Dict[str, List[float]] = {name: [] for name in models}
    for _ in range(repeats):
        for name, model in models.items():
            start = time.perf_counter()
            work(model)
            seconds[name].append(time.perf_counter() - start)
    return seconds


def per_second(count: int, seconds: List[float]) -> float:
    """`count` over the median of `seconds`."""
    return count / statistics.median(seconds)
