"""
Train and evaluate a list of configs ("rows") on one treebank with the same budget, one after another,
and write one JSON per run under results/<treebank>/ (or results/<section>/ with --section, for rows with
another budget such as Table 3) and the table docs/RESULTS.md generated from every
results JSON (never typed by hand).

    .venv/bin/python scripts/run_experiments.py --treebank welsh --epochs 15 \\
        biaffine_mst one_step coach_valid_paper coach_valid \\
        'coach_valid_no_head_loss=coach_valid@{"model.head_selection_weight": 0.0}'

A row is `CONFIG` (a file training_config/CONFIG.jsonnet) or `NAME=CONFIG[VAR=value,...]@OVERRIDES`, the
bracket (optional) giving the jsonnet external variables a config reads (`oracle_rollin[ORACLE=uniform,
ROLL_IN=coaching]`) and OVERRIDES (optional) a JSON object of AllenNLP dotted override keys
(`"trainer.optimizer.lr": 3e-3`); a nested dictionary would replace a whole section of the shipped config,
so it is refused. `--preset table3` stands for the nine rows of the paper's Table 3 (oracle x roll-in).

Every row gets the same data paths and
`trainer.num_epochs` = `--epochs`, no early stopping inside that budget unless `--patience N` (stop when dev
UAS has not improved for N epochs), and keeps the epoch with the best dev UAS (the shipped
`validation_metric`), which is then scored on test with `allennlp evaluate`. Each JSON records the epochs
run, why training stopped and the dev UAS/LAS and duration of every epoch (`curve`). Every
score is the CoNLL 2018 one (all words, punctuation included; LAS on universal relations).

Resumable: a row whose results JSON exists is not run again (`--force` reruns it); a row whose training
was interrupted continues from its serialization directory (`allennlp train --recover`), with the
parameters it started with (its own config.json, whatever the shipped config says now). Serialization
directories live under experiments/<treebank>/ (not committed). `--regenerate` only rewrites
docs/RESULTS.md from the JSONs.

This is the command line; the row syntax is `rows`, a row's training and scoring `runner`, the report
`report` (`python -m seqgraph_experiments.run_experiments` is the same command).
"""
import argparse
import os
import re

from seqgraph_experiments.report import write_report
from seqgraph_experiments.rows import PRESETS, parse_row
from seqgraph_experiments.runner import rescore, run_row
from seqgraph_experiments.treebanks import TREEBANKS, treebank_files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", nargs="*", help="CONFIG or NAME=CONFIG[VAR=value,...]@{dotted overrides}")
    parser.add_argument("--preset", choices=sorted(PRESETS), action="append", default=[],
                        help="add a named list of rows (table3: the paper's oracle x roll-in table)")
    parser.add_argument("--treebank", choices=sorted(TREEBANKS))
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--patience", type=int, default=None,
                        help="stop a row when dev UAS has not improved for this many epochs (default: never)")
    parser.add_argument("--section", default=None,
                        help="results/<section>/ and its own table in docs/RESULTS.md (default: the treebank); "
                        "for rows run with another budget, e.g. Table 3")
    parser.add_argument("--force", action="store_true", help="rerun rows that have results")
    parser.add_argument("--regenerate", action="store_true", help="only rewrite docs/RESULTS.md")
    parser.add_argument("--rescore", action="store_true",
                        help="add what older results lack (of --section, else of --treebank's section, or all): "
                        "the encoder's settings, from the config at the run's commit, and the scorer's test "
                        "figures (with and without punctuation, the CoNLL 2018 script's CLAS) and kept "
                        "predictions where the run's archive is left; then rewrite docs/RESULTS.md")
    parser.add_argument("--threads", type=int, default=None, help="torch threads per run (OMP_NUM_THREADS)")
    parser.add_argument("--seeds", default="0",
                        help="comma-separated seeds, each row trained once per seed (default: 0, AllenNLP's own "
                        "seeds; K > 0 shifts them by K and names the run ROW.seedK)")
    parser.add_argument("--cuda-device", type=int, default=-1,
                        help="train on this GPU (trainer.cuda_device; default -1: the CPU); evaluation and "
                        "scoring stay on the CPU")
    parser.add_argument("--note", default=None, help="what else ran on the machine, etc. (kept in the JSON)")
    args = parser.parse_args()
    if args.threads:
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
    if args.rescore:
        rescore(args.section or args.treebank)
    elif not args.regenerate:
        for preset in args.preset:
            args.rows += [row for row in PRESETS[preset] if row not in args.rows]
        if not (args.rows and args.treebank and args.epochs):
            parser.error("give --treebank, --epochs and at least one row (or --regenerate)")
        args.section = args.section or args.treebank
        if not re.fullmatch(r"[\w.-]+", args.section):
            parser.error(f"--section {args.section!r}: letters, digits, '.', '-' and '_' only")
        try:
            seeds = [int(seed) for seed in args.seeds.split(",")]
        except ValueError:
            parser.error(f"--seeds {args.seeds!r}: comma-separated integers, e.g. 0,1,2")
        if any(seed < 0 for seed in seeds) or len(set(seeds)) != len(seeds):
            parser.error(f"--seeds {args.seeds!r}: distinct seeds, 0 or positive")
        files = treebank_files(args.treebank)
        env = dict(os.environ)
        # every row is checked before the first one trains
        for spec in args.rows:
            parse_row(spec)
        for seed in seeds:
            for spec in args.rows:
                run_row(spec, args, files, env, seed)
    write_report()


if __name__ == "__main__":
    main()
