"""
Multi-edge decoding (Appendix A, "Multiple Edges Per Step") of a trained recurrent model, swept over the
threshold `tau`: UAS (CoNLL 2018, every word) against model steps per sentence and sentences per second,
with one edge per step and a one-step model for reference. Writes results/tau_sweep/<name>.json, a plot
docs/tau_sweep_<name>.png and the table docs/TAU_SWEEP_<name>.md.

    .venv/bin/python scripts/tau_sweep.py --name welsh \\
        --recurrent experiments/welsh/coach_valid/model/model.tar.gz \\
        --one-step experiments/welsh/one_step/model/model.tar.gz \\
        data/UD_Welsh-CCG/cy_ccg-ud-test.conllu

The decoder is changed without retraining or changing the model: each call is given its `DecodingOptions`
(as the predictor's `--predictor-args '{"tau": ...}'` are). Each file is parsed in file order, batches of
64, without its gold annotation; gold heads only score.
"""
import argparse
import time
from pathlib import Path
from typing import Dict, List, Optional

import torch
from allennlp.data import Batch
from allennlp.models.archival import load_archive

import seqgraph_allennlp  # noqa: F401  (registers the components)
from seqgraph_allennlp.models import DecodingOptions
from seqgraph_experiments import DOCS, RESULTS, ROOT
from seqgraph_experiments.instances import parse_instances
from seqgraph_experiments.provenance import stamp
from seqgraph_experiments.results import read_json, save_analysis

TAUS = [0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005]


def decode(model, instances, gold: List[List[int]], tau: Optional[float], decoder: str = "valid") -> Dict:
    decoding = DecodingOptions(decoder, tau)
    correct = words = steps = 0
    start = time.perf_counter()
    with torch.no_grad():
        for begin in range(0, len(instances), 64):
            batch = Batch(instances[begin: begin + 64])
            batch.index_instances(model.vocab)
            output = model(**batch.as_tensor_dict(), decoding=decoding)
            heads = output["heads"][:, 1:].tolist()
            if "edge_steps" in output:
                steps += int((output["edge_steps"].max(dim=-1).values + 1).sum())
            for predicted, gold_heads in zip(heads, gold[begin: begin + 64]):
                correct += sum(int(p == g) for p, g in zip(predicted, gold_heads))
                words += len(gold_heads)
    seconds = time.perf_counter() - start
    return {
        "tau": tau,
        "decoder": decoder,
        "UAS": correct / words,
        "steps_per_sentence": steps / len(instances) if steps else None,
        "words_per_sentence": words / len(instances),
        "sentences_per_second": len(instances) / seconds,
    }


def plot(result: Dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for file_result in result["files"]:
        label = Path(file_result["file"]).stem
        sweep = [row for row in file_result["recurrent"] if row["tau"] is not None]
        one_edge = next(row for row in file_result["recurrent"] if row["tau"] is None)
        line = left.plot([r["steps_per_sentence"] for r in sweep], [100 * r["UAS"] for r in sweep], "o-", label=f"{label}: tau sweep")[0]
        right.plot([r["sentences_per_second"] for r in sweep], [100 * r["UAS"] for r in sweep], "o-", color=line.get_color(), label=f"{label}: tau sweep")
        for row in sweep:
            left.annotate(f"{row['tau']:g}", (row["steps_per_sentence"], 100 * row["UAS"]), fontsize=7,
                          textcoords="offset points", xytext=(3, 3))
        left.plot([one_edge["steps_per_sentence"]], [100 * one_edge["UAS"]], "s", color=line.get_color(), markersize=9,
                  label=f"{label}: one edge per step")
        right.plot([one_edge["sentences_per_second"]], [100 * one_edge["UAS"]], "s", color=line.get_color(), markersize=9,
                   label=f"{label}: one edge per step")
        for row in file_result.get("one_step", []):
            marker = "^" if row["decoder"] == "valid" else "v"
            right.plot([row["sentences_per_second"]], [100 * row["UAS"]], marker, color=line.get_color(), markersize=9,
                       label=f"{label}: one-step model ({row['decoder']})")
            # the one-step model scores every edge in one model step: a reference level on the left
            left.axhline(100 * row["UAS"], color=line.get_color(), alpha=0.5,
                         linestyle="--" if row["decoder"] == "valid" else ":",
                         label=f"{label}: one-step model ({row['decoder']})")
    left.set_xlabel("model steps per sentence")
    right.set_xlabel("sentences per second")
    for axis in (left, right):
        axis.set_ylabel("UAS (%)")
        axis.grid(alpha=0.3)
    left.legend(fontsize=7, loc="center right")
    right.legend(fontsize=7, loc="center right")
    figure.suptitle(f"Multi-edge decoding of the recurrent model ({result['name']})")
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="CoNLL-U files with gold heads")
    parser.add_argument("--name", required=True)
    parser.add_argument("--recurrent", help="archive of a recurrent seqgraph_parser (required unless --replot)")
    parser.add_argument("--one-step", help="archive of a one-step seqgraph_parser, for reference")
    parser.add_argument("--taus", type=float, nargs="*", default=TAUS)
    parser.add_argument("--replot", action="store_true", help="only redraw the plot from results/tau_sweep/NAME.json")
    args = parser.parse_args()
    if args.replot:
        result = read_json(RESULTS / "tau_sweep" / f"{args.name}.json")
        plot(result, DOCS / f"tau_sweep_{args.name}.png")
        return
    if not (args.files and args.recurrent):
        parser.error("give the CoNLL-U files and --recurrent (or --replot)")

    recurrent = load_archive(args.recurrent)
    recurrent.model.eval()
    one_step = load_archive(args.one_step) if args.one_step else None
    if one_step:
        one_step.model.eval()
    files = []
    for path in args.files:
        instances, gold = parse_instances(recurrent, path)
        decode(recurrent.model, instances[:64], gold[:64], None)  # warm-up
        rows = [decode(recurrent.model, instances, gold, None)]
        for tau in args.taus:
            rows.append(decode(recurrent.model, instances, gold, tau))
            print(path, tau, f"UAS {100 * rows[-1]['UAS']:.2f}", f"steps {rows[-1]['steps_per_sentence']:.1f}",
                  f"{rows[-1]['sentences_per_second']:.0f} sent/s", flush=True)
        file_result = {"file": path, "sentences": len(instances), "recurrent": rows}
        if one_step:
            step_instances, step_gold = parse_instances(one_step, path)
            file_result["one_step"] = [decode(one_step.model, step_instances, step_gold, None, decoder)
                                       for decoder in ("valid", "mst")]
        files.append(file_result)
    result = {
        "name": args.name, "recurrent": args.recurrent, "one_step": args.one_step, "files": files,
        "torch_threads": torch.get_num_threads(), **stamp("scripts/tau_sweep.py"),
    }
    out, image = save_analysis("tau_sweep", args.name, result, plot)
    lines = [f"# Multi-edge decoding: tau sweep ({args.name})", "",
             f"Generated from `{out.relative_to(ROOT)}` by `scripts/tau_sweep.py`; plot: `{image.relative_to(ROOT)}`.",
             f"Recurrent model `{args.recurrent}`, one-step model `{args.one_step}`; {result['torch_threads']} torch "
             f"thread(s), {result['machine']['cpu_cores']} CPU cores, {result['date'][:10]}, commit {result['git_commit'][:10]}.",
             "UAS: CoNLL 2018 (every word). Speeds: batches of 64 in file order, model only (no file I/O).", ""]
    for file_result in files:
        lines += [f"## `{file_result['file']}` ({file_result['sentences']} sentences)", "",
                  "| model | tau | UAS | steps / sentence | words / sentence | sentences / s |", "|---|---|---|---|---|---|"]
        for row in file_result["recurrent"]:
            tau = "one edge per step" if row["tau"] is None else f"{row['tau']:g}"
            lines.append(f"| recurrent | {tau} | {100 * row['UAS']:.2f} | {row['steps_per_sentence']:.1f} | "
                         f"{row['words_per_sentence']:.1f} | {row['sentences_per_second']:.0f} |")
        for row in file_result.get("one_step", []):
            steps = "" if row["steps_per_sentence"] is None else f"{row['steps_per_sentence']:.1f}"
            lines.append(f"| one-step ({row['decoder']}) | | {100 * row['UAS']:.2f} | {steps} | "
                         f"{row['words_per_sentence']:.1f} | {row['sentences_per_second']:.0f} |")
        lines.append("")
    lines += ["Made with:", "", f"    .venv/bin/python {result['command']}", ""]
    (DOCS / f"TAU_SWEEP_{args.name}.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
