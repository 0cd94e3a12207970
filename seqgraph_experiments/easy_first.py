"""
Easy-first evidence (Section 4.2): in which order does a trained recurrent model add the edges of a
sentence, and how sure is it at each step? For each model (`NAME=ARCHIVE`) it decodes a CoNLL-U file with
the greedy valid decoder as the model's config says (its `tau` included), keeping every step's policy and
valid edges, and measures against the gold tree, by the position t of each edge in the generation order
(t / N, in tenths; with one edge per step, t is the step):

* the entropy of the policy of the step that added the edge, over the edges valid at the start of that step
  (nats), and that entropy over its maximum, the log of the number of valid edges (1 = no preference among
  them), since fewer edges stay valid as a tree grows; the edges added in one step (`tau`) share it;
* the accuracy of the edge (is it a gold edge?);
* the length |head - dependent| of the edge;

and, for the gold relations (DEPREL, universal part) of the chosen edges, their mean relative step. An
easy-first parser adds sure, correct, short, local edges (det, case, punct) first and leaves long,
uncertain attachments (root, conj, advcl) for last. Writes results/easy_first/<name>.json,
docs/easy_first_<name>.png and docs/EASY_FIRST_<name>.md.

    .venv/bin/python scripts/easy_first.py --name welsh data/UD_Welsh-CCG/cy_ccg-ud-dev.conllu \\
        --model coaching=experiments/welsh/coach_valid/model/model.tar.gz \\
        --model uniform=experiments/welsh/uniform/model/model.tar.gz
"""
import argparse
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Dict, List

from allennlp.data import Batch
from allennlp.models.archival import load_archive

import seqgraph_allennlp  # noqa: F401  (registers the components)
from seqgraph_allennlp.predictors.batching import without_gold
from seqgraph_experiments import DOCS, ROOT
from seqgraph_experiments.instances import read_instances
from seqgraph_experiments.provenance import stamp
from seqgraph_experiments.results import save_analysis

BINS = 10


def analyse(archive, path: str) -> Dict:
    model = archive.model
    model.eval()
    entropy = defaultdict(list)
    relative_entropy = defaultdict(list)
    correct = defaultdict(list)
    length = defaultdict(list)
    relation_steps: Dict[str, List[float]] = defaultdict(list)
    instances = read_instances(archive, path)
    for begin in range(0, len(instances), 32):
        chunk = instances[begin: begin + 32]
        gold_heads = [instance["head_indices"].labels for instance in chunk]
        relations = [[label.split(":")[0] for label in instance["head_tags"].labels] for instance in chunk]
        batch = Batch([without_gold(instance) for instance in chunk])
        batch.index_instances(model.vocab)
        tensors = batch.as_tensor_dict()
        decoding = model.decode_steps(tensors["words"], tensors.get("pos_tags"))
        # shape (batch_size, num_steps, V, V): each step's policy and the edges valid at its start, what
        # the decoder could choose among
        policies, valid_edges = decoding["policies"], decoding["valid_edges"]
        step_entropy, step_relative_entropy = [], []
        # one step at a time: the temporaries of all steps at once are several times the policies' size
        for step in range(policies.size(1)):
            valid = valid_edges[:, step]
            policy = policies[:, step] * valid
            policy = policy / policy.sum(dim=(1, 2), keepdim=True).clamp(min=1e-30)
            # shape (batch_size,)
            entropy_of_step = -(policy * policy.clamp(min=1e-30).log()).sum(dim=(1, 2))
            # the most entropy a policy over the valid edges can have
            max_entropy = valid.sum(dim=(1, 2)).clamp(min=2).float().log()
            step_entropy.append(entropy_of_step.tolist())
            step_relative_entropy.append((entropy_of_step / max_entropy).tolist())
        edges, edge_steps = decoding["edges"].tolist(), decoding["edge_steps"].tolist()
        # the t-th edge of every sentence, then the next (the order of the means' sums)
        for t in range(max(len(heads) for heads in gold_heads)):
            for sentence, num_words in enumerate(len(heads) for heads in gold_heads):
                if t >= num_words:
                    continue
                (h, d), step = edges[sentence][t], edge_steps[sentence][t]
                position = min(BINS - 1, int(BINS * t / num_words))
                entropy[position].append(step_entropy[step][sentence])
                relative_entropy[position].append(step_relative_entropy[step][sentence])
                correct[position].append(float(gold_heads[sentence][d - 1] == h))
                length[position].append(float(abs(h - d)) if h > 0 else float("nan"))
                relation_steps[relations[sentence][d - 1]].append(t / max(num_words - 1, 1))

    def mean(values):
        values = [value for value in values if not math.isnan(value)]
        return sum(values) / len(values) if values else None

    return {
        "by_relative_step": [
            {"bin": position, "from": position / BINS, "to": (position + 1) / BINS, "edges": len(entropy[position]),
             "entropy": mean(entropy[position]), "relative_entropy": mean(relative_entropy[position]),
             "accuracy": mean(correct[position]),
             "arc_length": mean(length[position])}
            for position in range(BINS)
        ],
        "relations": {relation: {"count": len(steps), "mean_relative_step": mean(steps)}
                      for relation, steps in sorted(relation_steps.items())},
    }


def plot(result: Dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 5, figsize=(22, 4.2))
    names = list(result["models"])
    for name in names:
        rows = result["models"][name]["by_relative_step"]
        x = [(row["from"] + row["to"]) / 2 for row in rows]
        for axis, key, label in zip(axes[:4], ("entropy", "relative_entropy", "accuracy", "arc_length"),
                                    ("policy entropy over valid edges (nats)", "entropy / log(valid edges)",
                                     "chosen edge is gold", "arc length (words)")):
            axis.plot(x, [row.get(key) for row in rows], "o-", label=name)
            axis.set_xlabel("relative step t / N")
            axis.set_ylabel(label)
            axis.grid(alpha=0.3)
    common = [relation for relation, info in result["models"][names[0]]["relations"].items() if info["count"] >= 50]
    common.sort(key=lambda relation: result["models"][names[0]]["relations"][relation]["mean_relative_step"])
    for offset, name in enumerate(names):
        relations = result["models"][name]["relations"]
        height = 0.8 / len(names)
        axes[4].barh([index + height * offset for index in range(len(common))],
                     [relations.get(relation, {}).get("mean_relative_step") or 0 for relation in common],
                     height=height, label=name)
    axes[4].set_yticks(range(len(common)))
    axes[4].set_yticklabels(common, fontsize=7)
    axes[4].set_xlabel("mean relative step of the relation")
    axes[0].legend()
    figure.suptitle(f"Generation order ({result['name']}: {Path(result['file']).name})")
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="CoNLL-U file with gold heads and relations")
    parser.add_argument("--name", required=True)
    parser.add_argument("--model", action="append", required=True, help="NAME=ARCHIVE of a seqgraph_parser")
    args = parser.parse_args()
    models = {}
    for spec in args.model:
        name, _, archive_path = spec.partition("=")
        models[name] = {"archive": archive_path, **analyse(load_archive(archive_path), args.file)}
        print(name, json.dumps(models[name]["by_relative_step"][0]), flush=True)
    result = {"name": args.name, "file": args.file, "models": models, **stamp("scripts/easy_first.py")}
    out, image = save_analysis("easy_first", args.name, result, plot)
    lines = [f"# Generation order ({args.name})", "",
             f"Generated from `{out.relative_to(ROOT)}` by `scripts/easy_first.py` on `{args.file}`; plot "
             f"`{image.relative_to(ROOT)}`; commit {result['git_commit'][:10]}, {result['date'][:10]}.", ""]
    for name, model in models.items():
        lines += [f"## {name} (`{model['archive']}`)", "",
                  "| relative step | edges | entropy (nats) | entropy / log(valid edges) | chosen edge gold | arc length |",
                  "|---|---|---|---|---|---|"]
        for row in model["by_relative_step"]:
            relative = row.get("relative_entropy")
            lines.append(f"| {row['from']:.1f}-{row['to']:.1f} | {row['edges']} | {row['entropy']:.3f} | "
                         f"{'' if relative is None else f'{relative:.3f}'} | "
                         f"{100 * row['accuracy']:.1f} % | {row['arc_length']:.2f} |")
        frequent = sorted(((info["mean_relative_step"], relation, info["count"])
                           for relation, info in model["relations"].items() if info["count"] >= 50))
        lines += ["", "Relations (at least 50 edges) by mean relative step, earliest first: "
                  + ", ".join(f"{relation} {step:.2f}" for step, relation, _ in frequent), ""]
    lines += ["Made with:", "", f"    .venv/bin/python {result['command']}", ""]
    (DOCS / f"EASY_FIRST_{args.name}.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
