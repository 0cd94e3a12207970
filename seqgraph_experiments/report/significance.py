"""The paired bootstraps of two models' test predictions: results/significance/*.json (`paired_bootstrap`)."""
from pathlib import Path
from typing import Dict, List

from seqgraph_experiments import RESULTS
from seqgraph_experiments.report.common import made_with, per_file, percent

# how a paired bootstrap with enhanced graphs scores them
ENHANCED_SAMPLES = (
    "; ELAS and EULAS from each sentence's gold, predicted and right enhanced edges, empty nodes collapsed, as "
    "F1 of a sample's pooled counts"
)


def significance_table(result: Dict) -> List[str]:
    """The section of a results/significance/*.json written by scripts/paired_bootstrap.py."""
    first, second = result["parsers"]
    lines = [
        f"## Paired bootstrap ({result['name']}): {first['name']} against {second['name']}",
        "",
        f"From `results/significance/{result['name']}.json`: the two models' predictions of `{result['gold']['path']}` "
        f"({result['gold']['sentences']} sentences, {result['gold']['words']} words), scored per sentence (CoNLL "
        f"2018, every word{ENHANCED_SAMPLES if 'ELAS' in result else ''}); its sentences resampled with "
        f"replacement {result['samples']} times (seed "
        f"{result['seed']}). This measures what the choice of test sentences alone does to the difference of "
        "these two trained models, not the spread from training seeds. Commit "
        f"{result['git_commit'][:10]}, {result['date'][:10]}.",
        "",
        f"| metric | {first['name']} | {second['name']} | difference | 95 % interval | samples where "
        f"{first['name']} does not lead |",
        "|---|---|---|---|---|---|",
    ]
    # ELAS and EULAS where both predictions had enhanced graphs (F1 of the pooled edges of each sample)
    for metric in [metric for metric in ("UAS", "LAS", "ELAS", "EULAS") if metric in result]:
        low, high = result[metric]["interval_95"]
        lines.append(
            f"| {metric} | {percent(first[metric])} | {percent(second[metric])} | "
            f"{100 * result[metric]['difference']:+.2f} | {100 * low:+.2f} to {100 * high:+.2f} | "
            f"{100 * result[metric]['share_not_leading']:.2f} % |"
        )
    lines += made_with(result["command"])
    return lines


def sections(results_dir: Path = RESULTS) -> List[str]:
    """A section per results/significance/*.json, in name order."""
    return per_file(results_dir / "significance", significance_table)
