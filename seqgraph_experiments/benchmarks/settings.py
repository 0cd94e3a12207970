"""
Timing settings in turns (`raw_text_speed.py`): each setting does the same work once per round, so that a
machine's drift over minutes (10-20 % on two cores) falls on every setting alike.
"""
import statistics
import time
from typing import Any, Callable, Dict, List, Mapping


def interleaved_seconds(models: Mapping[str, Any], work: Callable[[Any], Any], repeats: int) -> Dict[str, List[float]]:
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
