"""Markdown tables, as the benchmarks print their results."""
from typing import Iterable, List, Sequence


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> List[str]:
    """The lines of a Markdown table: the header, its rule and one line per row."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]
