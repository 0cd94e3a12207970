"""
The figures that the guides in docs/ (TRAINING.md, USAGE.md, ENHANCED.md and DESIGN.md, which hold what the
README said of training, decoding, enhanced graphs and the components) and docs/ANALYSIS.md quote by hand, read
back from the results JSON they come from (the README's own: tests/test_readme_first_screen.py):
each entry of QUOTES is a document and the text it must contain, built from the unrounded JSON values (a
difference is that of the unrounded scores, then rounded; never a difference of rounded figures), so that a
rerun that changes a JSON, or a figure copied or subtracted wrongly, fails here until the text follows. The
claims beside a figure that a JSON decides (a lead that exceeds the seeds' spread, the best row) are checked
with it. docs/RESULTS.md is generated: it must be what `scripts/run_experiments.py --regenerate` writes. No
document may name an absolute path, which only one machine has.
"""
import json
import re
import statistics
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import pytest

from seqgraph_experiments.report import bfloat16_fell_back
from seqgraph_experiments.runner import stopped_early

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def flat(path: Path) -> str:
    """A document with its line breaks and runs of spaces as one space: quotes may cross lines."""
    return " ".join(path.read_text(encoding="utf-8").split())


def load(path: str) -> Dict:
    return json.loads((RESULTS / path).read_text(encoding="utf-8"))


# --- training runs (results/<section>/<row>[.seedN].json), in % -----------------------------------------------

def score_on_test(section: str, row: str, metric: str = "UAS") -> float:
    result = load(f"{section}/{row}.json")
    return 100 * (result.get("test_scorer") or result["test"])[metric]


def dev(section: str, row: str, metric: str = "UAS") -> float:
    return 100 * load(f"{section}/{row}.json")["dev"][metric]


def upos(section: str, row: str) -> float:
    return 100 * load(f"{section}/{row}.json")["test"]["UPOS"]


def seed_runs(section: str, row: str) -> List[str]:
    """The run names of a row's seeds: ROW (seed 0) where it exists, then ROW.seedN."""
    runs = [row] if (RESULTS / section / f"{row}.json").exists() else []
    return runs + sorted(path.stem for path in (RESULTS / section).glob(f"{row}.seed*.json"))


def seeds(section: str, row: str, score: Callable = score_on_test, metric: str = "UAS") -> List[float]:
    runs = seed_runs(section, row)
    assert len(runs) > 1, (section, row)
    return [score(section, run, metric) for run in runs]


def mean_sd(values: List[float]) -> str:
    return f"{statistics.mean(values):.2f} ± {statistics.stdev(values):.2f}"


def lead(ours: List[float], theirs: List[float]) -> float:
    return statistics.mean(ours) - statistics.mean(theirs)


def separated(ours: List[float], theirs: List[float]) -> bool:
    """Every seed of one row above every seed of the other: the lead exceeds the seeds' spread."""
    return min(ours) > max(theirs) or min(theirs) > max(ours)


def within_spread(ours: List[float], theirs: List[float]) -> str:
    assert not separated(ours, theirs)
    return "within"


def beyond_spread(ours: List[float], theirs: List[float]) -> str:
    assert separated(ours, theirs)
    return "beyond"


# --- analyses ---------------------------------------------------------------------------------------------------

def sweep(name: str) -> Dict:
    """The recurrent model's rows of a tau sweep (results/tau_sweep/NAME.json) by tau (None: one edge per step)."""
    return {row["tau"]: row for row in load(f"tau_sweep/{name}.json")["files"][0]["recurrent"]}


def one_step(name: str, decoder: str) -> Dict:
    return next(row for row in load(f"tau_sweep/{name}.json")["files"][0]["one_step"] if row["decoder"] == decoder)


def tau_cell(row: Dict, first: bool = False) -> str:
    """A cell of ANALYSIS.md's tau table: UAS in N steps, sentences/s (the units in the table's first cell)."""
    steps, speed = (" steps", " sent/s") if first else ("", "")
    return (f"{100 * row['UAS']:.2f} in {row['steps_per_sentence']:.1f}{steps}, "
            f"{row['sentences_per_second']:.0f}{speed}")


TREEBANKS = {"ewt": "EWT", "grc": "Ancient Greek", "welsh": "Welsh"}


def tau_row(name: str) -> str:
    rows = sweep(name)
    words = f"{rows[None]['words_per_sentence']:.1f}" + (" words/sentence" if name == "ewt" else "")
    return " | ".join([f"{TREEBANKS[name]} ({words})", tau_cell(rows[None], first=name == "ewt"),
                       *(tau_cell(rows[tau]) for tau in (0.05, 0.02, 0.01)),
                       f"{100 * one_step(name, 'valid')['UAS']:.2f} / {100 * one_step(name, 'mst')['UAS']:.2f}"])


def tau_gains() -> str:
    gains = {name: 100 * (sweep(name)[0.02]["UAS"] - sweep(name)[None]["UAS"]) for name in ("ewt", "grc", "welsh")}
    assert all(gain >= 0 for gain in gains.values())
    return f"(+{gains['ewt']:.2f} EWT, +{gains['grc']:.2f} Greek, +{gains['welsh']:.2f} Welsh)"


def tau_002_against_best() -> str:
    worst = max(100 * (max(row["UAS"] for row in sweep(name).values()) - sweep(name)[0.02]["UAS"])
                for name in ("ewt", "grc", "welsh"))
    assert worst <= 0.25, worst
    steps = [sweep(name)[0.02]["steps_per_sentence"] for name in ("ewt", "grc", "welsh")]
    fewer = [sweep(name)[None]["steps_per_sentence"] / sweep(name)[0.02]["steps_per_sentence"]
             for name in ("ewt", "grc", "welsh")]
    faster = [100 * (sweep(name)[0.02]["sentences_per_second"] / sweep(name)[None]["sentences_per_second"] - 1)
              for name in ("ewt", "grc", "welsh")]
    return (f"within 0.25 UAS of the best tau, in {min(steps):.1f} to {max(steps):.1f} model steps per sentence "
            f"instead of N ({min(fewer):.0f} to {max(fewer):.0f} times fewer), and parses {min(faster):.0f} to "
            f"{max(faster):.0f} % more sentences per second")


def tau_greek() -> str:
    rows = sweep("grc")
    best = max(rows, key=lambda tau: rows[tau]["UAS"])
    runner_up = max((row["UAS"] for tau, row in rows.items() if tau != best))
    assert best == 0.05
    twice = rows[0.05]["steps_per_sentence"] / rows[0.02]["steps_per_sentence"]
    assert round(twice) == 2, twice
    return f"0.05 is the best on Greek by {100 * (rows[0.05]['UAS'] - runner_up):.1f} but needs twice the steps"


def tau_converged() -> str:
    rows = sweep("ewt_converged_dev")
    uas = [100 * row["UAS"] for tau, row in rows.items() if tau is not None]
    return (f"{100 * rows[None]['UAS']:.2f} one edge per step, {100 * rows[0.05]['UAS']:.2f} at `tau = 0.05` in "
            f"{rows[0.05]['steps_per_sentence']:.1f} model steps per sentence instead of "
            f"{rows[None]['steps_per_sentence']:.1f}, {100 * rows[0.02]['UAS']:.2f} at 0.02, and between "
            f"{min(uas):.2f} and {max(uas):.2f} for every tau from {max(t for t in rows if t):g} to "
            f"{min(t for t in rows if t):g}")


def tau_converged_speed() -> str:
    rows = sweep("ewt_converged_dev")
    return (f"({rows[0.05]['sentences_per_second']:.0f} against {rows[None]['sentences_per_second']:.0f} "
            "sentences/s at 0.05 in this sweep)")


def tau_welsh_dev() -> str:
    rows = sweep("welsh_fused_dev")
    assert max(rows, key=lambda tau: rows[tau]["UAS"]) == 0.05
    return (f"`results/tau_sweep/welsh_fused_dev.json`: {100 * rows[0.05]['UAS']:.2f} against "
            f"{100 * rows[None]['UAS']:.2f} one edge per step, {100 * rows[0.02]['UAS']:.2f} at 0.02")


def readme_tau() -> str:
    rows = sweep("welsh_fused_dev")
    assert max(rows, key=lambda tau: rows[tau]["UAS"]) == 0.05
    share = rows[0.05]["steps_per_sentence"] / rows[None]["steps_per_sentence"]
    assert round(4 * share) == 1, share
    return "the value with the best UAS on Welsh-CCG **dev**, in about a quarter of the model steps"


def easy_first(model: str) -> Dict:
    return load("easy_first/ewt.json")["models"][model]


def easy_first_row(label: str, key: str, scale: float, digits: int, unit: str = "") -> str:
    cells = []
    for model in ("coaching", "uniform"):
        bins = easy_first(model)["by_relative_step"]
        cells.append(" -> ".join(f"{scale * b[key]:.{digits}f}{unit}" for b in (bins[0], bins[-1])))
    return f"| {label} | {cells[0]} | {cells[1]} |"


def relations(model: str) -> Dict[str, float]:
    """Mean relative step of the relations with at least 50 edges (as docs/EASY_FIRST_ewt.md lists them)."""
    return {name: value["mean_relative_step"] for name, value in easy_first(model)["relations"].items()
            if value["count"] >= 50}


def easy_first_coaching() -> str:
    order = relations("coaching")
    first = easy_first("coaching")["by_relative_step"][0]
    r = {name: f"{value:.2f}" for name, value in order.items()}
    assert r["cc"] == r["case"]
    ranked = sorted(order, key=order.get)
    assert ranked[:3] == ["det", "aux", "amod"] and set(ranked[3:5]) == {"cc", "case"}
    assert ranked[-5:] == ["conj", "appos", "parataxis", "acl", "advcl"]
    return (f"it starts with short ({first['arc_length']:.1f} words), almost always right attachments and leaves "
            f"long ones for last; its relations come in a linguistically sensible order, `det` {r['det']}, "
            f"`aux` {r['aux']}, `amod` {r['amod']}, `cc`/`case` {r['cc']} first and `conj` {r['conj']}, "
            f"`appos` {r['appos']}, `parataxis` {r['parataxis']}, `acl` {r['acl']}, `advcl` {r['advcl']} last")


def easy_first_uniform() -> str:
    order = relations("uniform")
    first = easy_first("uniform")["by_relative_step"][0]
    coaching_first = easy_first("coaching")["by_relative_step"][0]
    return (f"its first edges are long ({first['arc_length']:.2f} words) and right only "
            f"{100 * first['accuracy']:.0f} % of the time, its relation order is compressed "
            f"({min(order.values()):.2f} to {max(order.values()):.2f}) and less structured (`punct` "
            f"{order['punct']:.2f} early, `cc` {order['cc']:.2f}, `obj` {order['obj']:.2f} late), and its policy is "
            f"flatter throughout ({first['relative_entropy']:.2f} vs {coaching_first['relative_entropy']:.2f} of the "
            "maximum entropy)")


# Table 3 on Welsh-CCG: ANALYSIS.md's (oracle, roll-in) labels and their rows
TABLE3 = {
    ("linear", "linear"): "linearized",
    ("U", "uniform oracle"): "uniform_x_uniform",
    ("C", "uniform oracle"): "coaching_x_uniform",
    ("U", "coaching"): "uniform_x_coaching",
    ("C", "coaching"): "coaching_x_coaching",
    ("CA", "coaching"): "annealed_coaching_x_coaching",
    ("U", "valid policy"): "uniform_x_valid_policy",
    ("C", "valid policy"): "coaching_x_valid_policy",
    ("CA", "valid policy"): "annealed_coaching_x_valid_policy",
}


def table3_dev(row: str) -> float:
    return dev("welsh_table3", row)


def table3_row(oracle: str, roll_in: str) -> str:
    """A row of the single-seed Table 3, best dev and best test in bold."""
    row = TABLE3[(oracle, roll_in)]
    best_dev = max(TABLE3.values(), key=table3_dev)
    best_test = max(TABLE3.values(), key=lambda name: score_on_test("welsh_table3", name))
    cells = []
    for value, best in ((table3_dev(row), best_dev), (score_on_test("welsh_table3", row), best_test)):
        cells.append(f"**{value:.2f}**" if row == best else f"{value:.2f}")
    return f"| {oracle} | {roll_in} | {cells[0]} | {cells[1]} |"


def table3_text() -> str:
    others = [table3_dev(row) - table3_dev("linearized") for row in TABLE3.values() if row != "linearized"]
    shipped = "coaching_x_valid_policy"
    assert max(TABLE3.values(), key=lambda name: score_on_test("welsh_table3", name)) == shipped
    best_dev = max(table3_dev(row) for row in TABLE3.values())
    gap = best_dev - table3_dev(shipped)
    coaching_oracle = table3_dev("coaching_x_uniform") - table3_dev("uniform_x_uniform")
    return (f"is far behind every other row (-{min(others):.0f} to -{max(others):.0f} dev UAS; -10 in the paper); "
            "the coaching oracle with the valid-policy roll-in, the paper's best and the shipped recommendation, is "
            f"the best row on test and within {gap:.2f} of the best on dev; with the uniform oracle's roll-in, the "
            f"coaching oracle does not help (the paper: +0.02; here {coaching_oracle:.1f})")


def table3_roll_ins() -> str:
    d = table3_dev
    return (f"with the coaching oracle, roll-ins that follow the learned policy gain "
            f"{d('coaching_x_coaching') - d('coaching_x_uniform'):.1f} (coaching) and "
            f"{d('coaching_x_valid_policy') - d('coaching_x_uniform'):.1f} (valid policy) dev UAS over the uniform "
            f"oracle's roll-in, and with the uniform oracle the valid-policy roll-in gains "
            f"{d('uniform_x_valid_policy') - d('uniform_x_uniform'):.1f} (the coaching roll-in "
            f"{d('uniform_x_coaching') - d('uniform_x_uniform'):.1f})")


def table3_last_epoch() -> str:
    results = [load(f"welsh_table3/{row}.json") for row in TABLE3.values()]
    last = sum(result["best_epoch"] == result["epochs_done"] for result in results)
    return f"(for {last} of the {len(results)} rows the best dev epoch was the last)"


def table3_seed_row(oracle: str, row: str) -> str:
    section = "welsh_table3_seeds"
    return (f"| {oracle} | valid policy | {mean_sd(seeds(section, row, dev))} | {mean_sd(seeds(section, row))} | "
            f"{mean_sd(seeds(section, row, metric='LAS'))} |")


def table3_seeds_text() -> str:
    section = "welsh_table3_seeds"
    annealed, coaching = (seeds(section, f"{oracle}_x_valid_policy") for oracle in ("annealed_coaching", "coaching"))
    annealed_dev, coaching_dev = (seeds(section, f"{oracle}_x_valid_policy", dev)
                                  for oracle in ("annealed_coaching", "coaching"))
    assert separated(annealed, coaching)
    single = score_on_test("welsh_table3", "coaching_x_valid_policy") - score_on_test(
        "welsh_table3", "annealed_coaching_x_valid_policy")
    return (f"annealed coaching leads coaching by {lead(annealed, coaching):.2f} test UAS "
            f"({lead(annealed_dev, coaching_dev):.2f} dev), and no seed of one reaches a seed of the other; the "
            f"single-seed rows' {single:.2f} in favour of coaching")


def annealed_lead() -> str:
    section = "welsh_table3_seeds"
    annealed, coaching = (seeds(section, f"{oracle}_x_valid_policy") for oracle in ("annealed_coaching", "coaching"))
    return f"it led coaching by {lead(annealed, coaching):.2f} test UAS on Welsh-CCG at 5 epochs over three seeds"


# --- English at convergence -------------------------------------------------------------------------------------

EWT = "ewt_converged"


def mpnet_seeds() -> str:
    ours, theirs = seeds(EWT, "coach_valid_mpnet"), seeds(EWT, "biaffine_mst_mpnet")
    assert separated(ours, theirs)
    leads = ", ".join(f"{a - b:+.2f}" for a, b in zip(ours, theirs))
    return (f"gives {mean_sd(ours)} against {mean_sd(theirs)}, the recurrent model ahead in each seed ({leads}) "
            f"and its lowest seed ({min(ours):.2f}) above the baseline's highest ({max(theirs):.2f}): a lead of "
            f"{lead(ours, theirs):+.2f} that exceeds the seeds'")


def mpnet_mean_lead() -> str:
    ours, theirs = seeds(EWT, "coach_valid_mpnet"), seeds(EWT, "biaffine_mst_mpnet")
    assert separated(ours, theirs)
    return (f"test UAS {mean_sd(ours)} against {mean_sd(theirs)}, a lead of {lead(ours, theirs):+.2f} that exceeds "
            "the seeds' spread")


def mpnet_cap() -> int:
    """The best dev epoch of the recurrent mpnet seed that ran to the 40-epoch cap (seed 2, the only one)."""
    capped = [run for run in seed_runs(EWT, "coach_valid_mpnet") if load(f"{EWT}/{run}.json")["epochs_done"] == 40]
    assert capped == ["coach_valid_mpnet.seed2"], capped
    return load(f"{EWT}/coach_valid_mpnet.seed2.json")["best_epoch"]


def mpnet_baseline_epochs() -> str:
    epochs = [load(f"{EWT}/{run}.json")["epochs_done"] for run in seed_runs(EWT, "biaffine_mst_mpnet")]
    assert all(load(f"{EWT}/{run}.json")["stopped"].startswith("early stopping")
               for run in seed_runs(EWT, "biaffine_mst_mpnet"))
    return f"the baseline's seeds stopped early at {min(epochs)}-{max(epochs)} epochs"


def bootstrap_samples() -> str:
    samples = {load(f"significance/{name}.json")["samples"] for name in ("ewt", "ewt_mpnet")}
    assert len(samples) == 1, samples
    return f"(test sentences resampled {samples.pop()} times)"


def mpnet_short_lead() -> str:
    difference = score_on_test(EWT, "coach_valid_mpnet") - score_on_test(EWT, "biaffine_mst_mpnet")
    assert difference < 0.5
    return f"but at {difference:.2f} it is still short of 0.5"


def paper_objective_welsh() -> str:
    paper, one = seeds("welsh_seeds", "coach_valid_paper"), seeds("welsh_seeds", "one_step")
    assert separated(paper, one)
    return f"on Welsh-CCG {mean_sd(paper)} against {mean_sd(one)} over three seeds"


def readme_paper_objective_welsh() -> str:
    one = seeds("welsh_seeds", "one_step")
    uniform, paper = seeds("welsh_seeds", "uniform"), seeds("welsh_seeds", "coach_valid_paper")
    assert statistics.mean(uniform) < statistics.mean(one) and statistics.mean(paper) < statistics.mean(one)
    return (f"with the uniform oracle (`uniform`) {within_spread(uniform, one)} the seeds' spread, with coaching "
            f"(`coach_valid_paper`) {beyond_spread(paper, one)} it")


def paper_objective_ewt() -> str:
    uas = json.loads((RESULTS / "significance" / "ewt_paper.json").read_text(encoding="utf-8"))["UAS"]
    low, high = (100 * bound for bound in uas["interval_95"])
    paper, one = (score_on_test(EWT, row) for row in ("coach_valid_paper", "one_step"))
    assert high < 0
    return (f"on EWT `coach_valid_paper` has {paper:.2f} test UAS against `one_step`'s {one:.2f} (bootstrap "
            f"{low:+.2f} to {high:+.2f}), on Welsh-CCG")


def options_ewt() -> str:
    gain = score_on_test(EWT, "coach_valid") - score_on_test(EWT, "coach_valid_paper")
    return f"(`coach_valid`) gives {gain:+.2f} on EWT over `coach_valid_paper`"


def uniform_converged() -> str:
    result = load(f"{EWT}/uniform.json")
    assert result["stopped"].startswith("early stopping")
    return (f"is lower still on EWT, {score_on_test(EWT, 'uniform'):.2f} (early stop at {result['epochs_done']} "
            f"epochs, best {result['best_epoch']};")


def welsh_options() -> str:
    no_head, paper, full = (score_on_test("welsh", row) for row in ("coach_valid_no_head_loss", "coach_valid_paper",
                                                                  "coach_valid"))
    return (f"the valid support alone gave {no_head - paper:+.2f} (`coach_valid_no_head_loss` {no_head:.2f} against "
            f"{paper:.2f}) and the head loss on top {full - no_head:+.2f} ({full:.2f})")


def mpnet_gain() -> str:
    gains = [score_on_test(EWT, f"{row}_mpnet") - score_on_test(EWT, row) for row in ("coach_valid", "biaffine_mst")]
    leads = [score_on_test(EWT, f"coach_valid{suffix}") - score_on_test(EWT, f"biaffine_mst{suffix}")
             for suffix in ("", "_mpnet")]
    return (f"both parsers gain {min(gains):.1f} to {max(gains):.1f} test UAS and the lead grows from "
            f"{leads[0]:+.2f} to {leads[1]:+.2f}")


def converged_tau() -> str:
    rows = sweep("ewt_converged_dev")
    uas = [100 * row["UAS"] for tau, row in rows.items() if tau is not None]
    return (f"every tau from 0.5 to 0.005 gives {min(uas):.2f} to {max(uas):.2f} dev UAS against "
            f"{100 * rows[None]['UAS']:.2f} one edge per step")


def converged_coach_valid() -> str:
    result = load(f"{EWT}/coach_valid.json")
    return f"(docs/RESULTS.md, `ewt_converged`: {result['epochs_done']} epochs, best {result['best_epoch']})"


def tagger_ewt(dev_text: str, test_text: str) -> str:
    tagged, plain = "coach_valid_upos", "coach_valid"
    return dev_text.format(tagged=dev(EWT, tagged), plain=dev(EWT, plain)) + test_text.format(
        tagged=score_on_test(EWT, tagged), plain=score_on_test(EWT, plain),
        tagged_las=score_on_test(EWT, tagged, "LAS"), plain_las=score_on_test(EWT, plain, "LAS"),
        upos=upos(EWT, tagged))


def tagger_epochs() -> str:
    tagged, plain = load(f"{EWT}/coach_valid_upos.json"), load(f"{EWT}/coach_valid.json")
    return (f"it ran {tagged['epochs_done']} epochs (best {tagged['best_epoch']}) against {plain['epochs_done']} "
            f"(best {plain['best_epoch']})")


def tagger_welsh() -> str:
    tagged, plain = seeds("welsh_seeds", "coach_valid_upos"), seeds("welsh_seeds", "coach_valid")
    return (f"On Welsh-CCG over three seeds it gave {lead(tagged, plain):+.2f} test UAS, "
            f"{within_spread(tagged, plain)} the spread")


def tagger_against_baseline() -> str:
    tagged, baseline = seeds(EWT, "coach_valid_upos"), seeds(EWT, "biaffine_mst")
    assert min(tagged) > max(baseline)
    seed0 = score_on_test(EWT, "coach_valid_upos") - score_on_test(EWT, "biaffine_mst")
    return (f"Its lead over `biaffine_mst` is {seed0:+.2f} test UAS for seed 0 and {lead(tagged, baseline):+.2f} "
            f"over three seeds each ({mean_sd(tagged)} against {mean_sd(baseline)}, no seed of the baseline reaching "
            "one of it)")


def readme_tagger_ewt() -> str:
    tagged, baseline = seeds(EWT, "coach_valid_upos"), seeds(EWT, "biaffine_mst")
    assert min(tagged) > max(baseline)
    return (f"reached {score_on_test(EWT, 'coach_valid_upos'):.2f} test UAS (dev {dev(EWT, 'coach_valid_upos'):.2f} "
            f"against {dev(EWT, 'coach_valid'):.2f} without it); over three seeds {mean_sd(tagged)} against the "
            f"baseline's {mean_sd(baseline)}, no seed of the baseline reaching one of it")


def readme_shipped_row() -> str:
    row = "coach_valid_upos_h64_bf16_40ep"
    assert load(f"{EWT}/{row}.json")["epochs_done"] == 40
    return (f"row `{row}`, 40 epochs, one seed): test UAS / LAS {score_on_test(EWT, row):.2f} / "
            f"{score_on_test(EWT, row, 'LAS'):.2f}, dev {dev(EWT, row):.2f}")


def readme_one_step_cap() -> str:
    assert load(f"{EWT}/one_step.json")["epochs_done"] == 40
    return (f"{score_on_test(EWT, 'one_step'):.2f} for the paper's one-step model, `one_step` (S_0 only; it ran to the "
            "40-epoch cap)")


def readme_mpnet_baseline() -> str:
    row = "biaffine_mst_mpnet"
    return f"`{row}`, reached {score_on_test(EWT, row):.2f} test UAS ({dev(EWT, row):.2f} dev)"


def readme_sizes() -> str:
    ratios = [load(f"benchmarks/epoch_time_fused_loss_round{n}.json") for n in (1, 2)]

    def ratio(result, name):
        return next(row for row in result["rows"] if row["name"] == name)["training_pass_ratio_to_biaffine_mst"]

    small = [ratio(result, "coach_valid_h64_bf16") for result in ratios]
    large = {f"{ratio(result, 'coach_valid'):.2f}" for result in ratios}
    assert len(large) == 1, large
    h64, h128 = "coach_valid_upos_h64_bf16_40ep", "coach_valid_upos_h128"
    return (f"It trains in {min(small):.2f}-{max(small):.2f} times the baseline's time against {large.pop()} for "
            "128 units, as accurate on Welsh-CCG over three seeds and on EWT at convergence (one seed each: dev UAS "
            f"{dev(EWT, h64):.2f} against {dev(EWT, h128):.2f}, test UAS {score_on_test(EWT, h64):.2f} against "
            f"{score_on_test(EWT, h128):.2f}, LAS {score_on_test(EWT, h64, 'LAS'):.2f} against "
            f"{score_on_test(EWT, h128, 'LAS'):.2f}")


# --- bfloat16 ---------------------------------------------------------------------------------------------------

def bf16_rows() -> Dict[str, Dict]:
    return {row["setting"]: row for row in load("benchmarks/bf16_inference.json")["rows"]}


def bf16_inference() -> str:
    rows = bf16_rows()
    f32, bf16 = rows["float32"]["seconds"], rows["encoder+updates"]["seconds"]
    assert f"{100 * rows['encoder']['UAS']:.2f}" == f"{100 * rows['encoder+updates']['UAS']:.2f}"
    order = ("the slowest bfloat16 run faster than the fastest float32 one" if max(bf16) < min(f32)
             else "the runs of the two overlapping")
    return (f"UAS was {100 * rows['encoder+updates']['UAS']:.2f} either way against {100 * rows['float32']['UAS']:.2f} "
            f"all in float32, and the three together parsed it in {min(bf16):.2f} to {max(bf16):.2f} s against "
            f"{min(f32):.2f} to {max(f32):.2f} s in float32, three runs each "
            f"(`results/benchmarks/bf16_inference.json`): "
            f"{statistics.median(f32) / statistics.median(bf16):.2f}x faster median against median, "
            f"{min(f32) / min(bf16):.2f}x best against best, {order}")


def bf16_updates() -> str:
    shares = []
    for name in ("epoch_time_bf16_updates", "epoch_time_bf16_updates_reversed"):
        rows = {row["name"]: row for row in load(f"benchmarks/{name}.json")["rows"]}
        shares.append(100 * (1 - rows["coach_valid_bf16_updates"]["training_pass_seconds"]
                             / rows["coach_valid"]["training_pass_seconds"]))
    return (f"with 256 units it took {shares[0]:.1f} % and {shares[1]:.1f} % off an EWT training pass in two rounds "
            "(`results/benchmarks/epoch_time_bf16_updates*.json`)")


def bf16_encoder_epoch() -> str:
    rows = {row["name"]: row for row in load("benchmarks/epoch_time.json")["rows"]}
    shorter = 100 * (1 - rows["coach_valid_bf16"]["epoch_seconds"] / rows["coach_valid"]["epoch_seconds"])
    return f"Training the LSTM layers in bfloat16 made an EWT epoch of `coach_valid` {shorter:.0f} % shorter"


def bf16_welsh() -> str:
    section = "welsh_seeds"
    cv, cv16 = seeds(section, "coach_valid"), seeds(section, "coach_valid_bf16")
    bm, bm16 = seeds(section, "biaffine_mst"), seeds(section, "biaffine_mst_bf16")
    assert not separated(cv16, cv) and not separated(bm16, bm)
    assert separated(cv16, bm16) and not separated(cv, bm)
    return (f"on Welsh-CCG over three seeds it moved test UAS by {lead(cv16, cv):+.2f} for `coach_valid` "
            f"({mean_sd(cv16)}) and {lead(bm16, bm):+.2f} for `biaffine_mst` ({mean_sd(bm16)}), both within the "
            f"seeds' spread ([docs/RESULTS.md](RESULTS.md), `welsh_seeds`; with both trained so, `coach_valid` "
            f"leads the baseline by {lead(cv16, bm16):.2f} test UAS, no seed of one reaching a seed of the other, "
            f"against {lead(cv, bm):.2f} within the spread in float32)")


def welsh_bf16_leads() -> str:
    section = "welsh_seeds"
    cv, cv16 = seeds(section, "coach_valid"), seeds(section, "coach_valid_bf16")
    bm, bm16 = seeds(section, "biaffine_mst"), seeds(section, "biaffine_mst_bf16")
    assert separated(cv16, bm16) and not separated(cv, bm)
    return (f"the recurrent model's lead exceeds the spread with both BiLSTMs trained in bfloat16, "
            f"{lead(cv16, bm16):+.2f}, and not in float32, {lead(cv, bm):+.2f}")


def readme_tagger_welsh() -> str:
    tags = [upos("welsh_seeds", run) for run in seed_runs("welsh_seeds", "coach_valid_upos")]
    tagged, plain = seeds("welsh_seeds", "coach_valid_upos"), seeds("welsh_seeds", "coach_valid")
    tagged_las, plain_las = (seeds("welsh_seeds", row, metric="LAS") for row in ("coach_valid_upos", "coach_valid"))
    assert lead(tagged, plain) > 0 and lead(tagged_las, plain_las) > 0
    return (f"it reaches {min(tags):.1f}-{max(tags):.1f} test UPOS and UAS and LAS are a little higher with it, UAS "
            f"{within_spread(tagged, plain)} the seed-to-seed spread")


# --- benchmarks (results/benchmarks/*.json), docs/BENCHMARKS.md and docs/ENHANCED.md ---------------------------

def provenance(name: str) -> str:
    """A benchmark's JSON, its date, commit and machine, as a section of BENCHMARKS.md names them."""
    result = load(f"benchmarks/{name}.json")
    machine = result["machine"]
    assert machine["gpu"] is None and machine["native_bfloat16"]
    return (f"`results/benchmarks/{name}.json` ({result['date'][:10]}, commit {result['git_commit'][:7]}, "
            f"{machine['cpu_cores']} CPU cores, {machine['cpu']} with {machine['cpu_capability']} and native "
            f"bfloat16, {machine['threads']} threads, no GPU")


def startup_rows() -> Dict[str, Dict]:
    """The start-up rows by archive: `startup_mpnet_true` keeps the transformer's weights, `_false` does not."""
    return {Path(row["model"]["path"]).parent.name: row for row in load("benchmarks/startup.json")["rows"]}


STARTUP_ARCHIVES = {"startup_mpnet_true": "in the archive", "startup_mpnet_false": "left out"}


def startup_row(name: str) -> str:
    row = startup_rows()[name]
    phases = row["phase_seconds_estimated"]
    runs = row["all_startup_seconds"]
    assert len(runs) == load("benchmarks/startup.json")["repeats"] and row["startup_seconds"] == statistics.median(runs)
    return (f"| {STARTUP_ARCHIVES[name]} (`experiments/{name}`) | {row['model']['bytes'] / 1e6:.1f} | "
            f"{row['startup_seconds']:.2f} | {min(runs):.2f}-{max(runs):.2f} | "
            f"{phases['archive extraction']:.2f} | {phases['model built']:.2f} | {phases['state read']:.2f} |")


def startup_text() -> str:
    rows = startup_rows()
    kept, left = rows["startup_mpnet_true"], rows["startup_mpnet_false"]
    assert max(left["all_startup_seconds"]) < min(kept["all_startup_seconds"])
    for phase in ("archive extraction", "state read"):
        assert left["phase_seconds_estimated"][phase] < kept["phase_seconds_estimated"][phase] / 2
    return (f"Leaving the weights out makes the archive {kept['model']['bytes'] / left['model']['bytes']:.1f} times "
            f"smaller and the start-up {kept['startup_seconds'] / left['startup_seconds']:.2f} times as fast "
            f"({left['startup_seconds']:.2f} s against {kept['startup_seconds']:.2f} s, "
            f"{kept['startup_seconds'] - left['startup_seconds']:.2f} s less; every run of one faster than every run "
            "of the other), gained in extracting the archive and reading its state")


def startup_profile() -> str:
    rows = startup_rows()
    built = [rows[name]["profiled_phase_seconds"]["model built"] for name in STARTUP_ARCHIVES]
    scaled = [rows[name]["phase_seconds_estimated"]["model built"] for name in STARTUP_ARCHIVES]
    assert abs(built[0] - built[1]) < 0.1 * max(built)
    return (f"building the model took {built[0]:.2f} s and {built[1]:.2f} s under the profiler, {scaled[0]:.2f} s "
            f"and {scaled[1]:.2f} s once scaled")


def startup_target() -> str:
    seconds = startup_rows()["startup_mpnet_false"]["startup_seconds"]
    verdict = "was met" if seconds <= 8 else "was not met"
    return f"At that commit issue 43's target, a start-up of at most 8 s, {verdict}: {seconds:.2f} s without the weights"


def startup_change_rows() -> Dict[str, Dict]:
    """`benchmarks/startup.py --code-ref f9f6249 --code-ref 86614e8`: the rows before both changes, with the first, with both."""
    result = load("benchmarks/startup_changes.json")
    rows = {row["code"]: row for row in result["rows"]}
    assert result["code_refs"] == ["f9f6249", "86614e8"] and set(rows) == {"f9f6249", "86614e8", "working tree"}
    for row in rows.values():
        assert len(row["all_startup_seconds"]) == result["repeats"]
        assert row["startup_seconds"] == statistics.median(row["all_startup_seconds"])
    return {"before": rows["f9f6249"], "load": rows["86614e8"], "both": rows["working tree"]}


def startup_changes() -> str:
    rows = startup_change_rows()

    def runs(name: str) -> str:
        seconds = rows[name]["all_startup_seconds"]
        return f"{rows[name]['startup_seconds']:.2f} s ({min(seconds):.2f}-{max(seconds):.2f})"

    medians = [rows[name]["startup_seconds"] for name in ("before", "load", "both")]
    assert medians[0] > medians[1] > medians[2]
    built = {name: rows[name]["profiled_phase_seconds"]["model built"] for name in ("before", "load")}
    return (f"Start-up medians {runs('before')} before both changes, {runs('load')} with the first and "
            f"{runs('both')} with both: {medians[0] - medians[1]:.2f} s less for the load, "
            f"{medians[1] - medians[2]:.2f} s less for the exit; under the profiler, building the model took "
            f"{built['before']:.2f} s before the first change and {built['load']:.2f} s after it")


def startup_changes_target() -> str:
    seconds = startup_change_rows()["both"]["startup_seconds"]
    verdict = "is met in this run" if seconds <= 8 else "is not met yet"
    return f"Issue 43's target, a start-up of at most 8 s, {verdict}: {seconds:.2f} s"


def startup_outside_main() -> str:
    result = load("benchmarks/startup_changes.json")
    both = startup_change_rows()["both"]
    imports = result["import_seconds_before_main"]
    assert imports["torch._dynamo"] < imports["torchvision"] < imports["allennlp.commands"]
    return (f"AllenNLP's `main` (its plugins, the archive, the model, the one sentence) took "
            f"{both['profiled_phase_seconds']['whole command']:.2f} s of a profiled process of "
            f"{both['profiled_seconds']:.2f} s. Most of the rest is the imports that the `allennlp` console script "
            f"makes before `main`: `from allennlp.commands import main` takes {imports['allennlp.commands']:.2f} s "
            f"(`python -X importtime`), of which spaCy {imports['spacy']:.2f} s, torchvision "
            f"{imports['torchvision']:.2f} s ({imports['torch._dynamo']:.2f} s of it importing `torch._dynamo`), "
            f"torch {imports['torch']:.2f} s and scikit-learn {imports['sklearn']:.2f} s, each imported by "
            f"AllenNLP's own modules whether a command uses it or not")


FEATURE_SETTINGS = {"float32": "float32", "float32_buckets": "float32 + word-piece buckets",
                    "bfloat16": "bfloat16", "bfloat16_buckets": "bfloat16 + word-piece buckets"}


def feature_row(setting: str) -> str:
    rows = load("benchmarks/feature_speed.json")["rows"]
    run = rows[setting]["batchings"]["predictor"]
    reference = rows["float32"]["batchings"]["predictor"]
    difference = rows[setting]["difference_from_float32"]["predictor"]
    assert run["precision_used"] == rows[setting]["options"]["transformer_precision"]
    speed = run["sentences_per_second_warm"]
    return (f"| {FEATURE_SETTINGS[setting]} | {speed:.1f} | {speed / reference['sentences_per_second_warm']:.2f} | "
            f"{run['transformer_pieces']} / {run['sentence_pieces']} "
            f"({run['transformer_pieces'] / run['sentence_pieces']:.2f}) | {difference['cosine']['mean']:.6f} | "
            f"{difference['layers']['max']:.3f} |")


def feature_data() -> str:
    result = load("benchmarks/feature_speed.json")
    data = result["data"]
    assert set(result["rows"]) == set(FEATURE_SETTINGS) and result["repeats"] == 1
    assert all(list(row["batchings"]) == ["predictor"] for row in result["rows"].values())
    return (f"EWT test ({data['sentences']} sentences, {data['words']} words) in the predictor's batches (64 "
            "sentences in file order, cut into the predictor's word-length buckets): one cold pass, then one warm "
            "pass, whose speed is given")


def feature_noise() -> str:
    run = load("benchmarks/feature_speed.json")["rows"]["float32"]["batchings"]["predictor"]
    warm, = run["warm_pass_seconds"]
    assert warm > run["cold_pass_seconds"]
    return (f"float32's warm pass was slower than its cold one ({warm:.1f} s against "
            f"{run['cold_pass_seconds']:.1f} s), so a few percent is noise")


def feature_scale() -> str:
    rows = load("benchmarks/feature_speed.json")["rows"]
    bf16 = rows["bfloat16"]["difference_from_float32"]["predictor"]
    assert bf16 == rows["bfloat16_buckets"]["difference_from_float32"]["predictor"]
    assert rows["float32_buckets"]["difference_from_float32"]["predictor"]["layers"]["max"] == 0
    return (f"bfloat16's mean absolute difference is {bf16['layers']['mean']:.4f}, against float32 values of mean "
            f"absolute {bf16['reference_abs']['mean']:.3f} (largest {bf16['reference_abs']['max']:.2f}). In "
            "float32, word-piece buckets change no bit of the vectors")


def feature_summary() -> str:
    rows = load("benchmarks/feature_speed.json")["rows"]
    speed = {name: rows[name]["batchings"]["predictor"]["sentences_per_second_warm"] for name in rows}
    assert max(speed, key=speed.get) == "bfloat16_buckets"
    for name in ("float32_buckets", "bfloat16_buckets"):
        assert rows[name]["difference_from_float32"]["predictor"]["layers"] == (
            rows[name.replace("_buckets", "")]["difference_from_float32"]["predictor"]["layers"])
    return (f"bfloat16 with word-piece buckets computes the features {speed['bfloat16_buckets'] / speed['float32']:.2f} "
            f"times as fast as float32 ({speed['bfloat16_buckets']:.1f} against {speed['float32']:.1f} sentences/s)")


def feature_int8() -> str:
    """int8's figure comes from the embedder's docstring, not from this benchmark: the docstring must still say it."""
    docstring = flat(ROOT / "seqgraph_allennlp" / "modules" / "cached_transformer_embedder.py")
    assert "int8's of 0.58" in docstring
    assert not any(name.startswith("int8") for name in load("benchmarks/feature_speed.json")["rows"])
    return "a mean cosine of 0.58 to float32's"


def feature_accuracy() -> str:
    result = load("benchmarks/bf16_features_accuracy.json")
    rows, difference = result["rows"], result["difference_bfloat16_buckets_minus_float32"]
    assert all(row["all_trees"] for row in rows.values())
    assert all(abs(value) < 0.001 for value in difference.values())
    lines = []
    for name, label in (("float32", "float32 (as trained)"), ("bfloat16_buckets", "bfloat16 + word-piece buckets")):
        lines.append(f"| {label} | " + " | ".join(f"{100 * rows[name][metric]:.2f}"
                                                 for metric in ("UAS", "LAS", "ELAS", "EULAS")) + " |")
    return (" ".join(lines) + " Every difference is within 0.1 (bfloat16 minus float32: "
            f"UAS {100 * difference['UAS']:+.2f}, LAS {100 * difference['LAS']:+.2f}, ELAS {100 * difference['ELAS']:+.2f})")


def serve_level(concurrency: int) -> Dict:
    return next(level for level in load("benchmarks/serve_load.json")["levels"] if level["concurrency"] == concurrency)


def serve_ratio(concurrency: int) -> float:
    result = load("benchmarks/serve_load.json")
    ratio = serve_level(concurrency)["sentences_per_second"] / result["predict"]["sentences_per_second_after_startup"]
    assert abs(ratio - serve_level(concurrency)["ratio_to_predict_after_startup"]) < 1e-9
    return ratio


def serve_row(concurrency: int) -> str:
    level = serve_level(concurrency)
    latency = level["latency_seconds"]
    assert not level["stopped_early"] and level["requests_sent"] == level["answered_200"] == level["requests_planned"]
    return (f"| {concurrency} | {level['sentences_per_second']:.1f} | {serve_ratio(concurrency):.2f} | "
            f"{1000 * latency['p50']:.1f} | {1000 * latency['p99']:.1f} | {level['errors']} | "
            f"{level['mismatches']} | {level['sentences_per_model_call']:.1f} |")


def serve_setup() -> str:
    result = load("benchmarks/serve_load.json")
    settings, predict = result["settings"], result["predict"]
    assert result["model"] == "experiments/serve_model/model.tar.gz"
    assert settings["file_cycled"] and predict["sentences"] == settings["requests"]
    return (f"{settings['requests']} requests per level (EWT test's {settings['sentences_in_file']} sentences, "
            f"cycled). `allennlp predict` parsed the {predict['sentences']} sentences at "
            f"{predict['sentences_per_second_after_startup']:.1f} sentences/s after a start-up of "
            f"{predict['startup_seconds']:.2f} s ({predict['sentences_per_second']:.1f} sentences/s with it); the "
            f"service started in {result['service']['startup_seconds']:.2f} s")


def serve_first_run() -> str:
    """The first run of the service benchmark, kept beside the current one."""
    result = load("benchmarks/serve_load_bcfb925.json")
    level = next(level for level in result["levels"] if level["concurrency"] == 32)
    predict = result["predict"]["sentences_per_second_after_startup"]
    assert result["git_commit"].startswith("bcfb925")
    return (f"bcfb925) reached {level['sentences_per_second'] / predict:.2f}: {level['sentences_per_second']:.1f} "
            f"sentences/s at concurrency 32 against predict's {predict:.1f}")


def model_thread() -> str:
    result = load("benchmarks/model_thread.json")
    arrangements = result["arrangements"]
    assert result["sentences"] == 640 and result["batch_size"] == 32 and result["machine"]["threads"] == 2
    for arrangement in arrangements.values():
        assert len(arrangement["runs"]) == result["repeats"] == 3
        assert arrangement["sentences_per_second"] == statistics.median(
            run["sentences_per_second"] for run in arrangement["runs"])

    def speed(name: str) -> str:
        return f"{arrangements[name]['sentences_per_second']:.1f}"

    def cores(name: str) -> str:
        return f"{arrangements[name]['cores_busy']:.2f}"

    return (f"loaded and run in the main thread {speed('main')} sentences/s ({cores('main')} cores busy); "
            f"loaded in the main thread and run in another {speed('other_thread')} ({cores('other_thread')} cores "
            f"busy); loaded and run in one other thread {speed('same_thread')} ({cores('same_thread')})")


def model_thread_usage() -> str:
    arrangements = load("benchmarks/model_thread.json")["arrangements"]
    share = arrangements["other_thread"]["sentences_per_second"] / arrangements["main"]["sentences_per_second"]
    return f"thread and run in another parsed at about {share:.1f} of its speed on two cores"


def serve_done() -> str:
    result = load("benchmarks/serve_load.json")
    done = result["done_when"]
    ratio, p99 = serve_ratio(32), serve_level(8)["latency_seconds"]["p99"]
    assert done["ratio_at_concurrency_32_at_least_0.8"] == (ratio >= 0.8)
    assert done["p99_latency_at_concurrency_8_under_1_s"] == (p99 < 1)
    assert done["every_request_sent"] and done["service_stopped_by_itself"] and result["service"]["stop"]["graceful"]

    def verdict(met: bool) -> str:
        return "met" if met else "**not met**"

    at_32 = "at least" if done["ratio_at_concurrency_32_at_least_0.8"] else "below"
    return (f"at concurrency 32 the service reaches {ratio:.2f} of predict's sentences per second after start-up, "
            f"{at_32} the 0.8 target ({verdict(done['ratio_at_concurrency_32_at_least_0.8'])}); p99 latency at "
            f"concurrency 8 is {1000 * p99:.0f} ms, under 1 s ({verdict(done['p99_latency_at_concurrency_8_under_1_s'])}); "
            f"no errors ({verdict(done['no_errors'])}); no mismatches ({verdict(done['no_mismatches'])}). "
            f"`\"met\": {str(done['met']).lower()}`")


def previous_json(commit: str, path: str) -> Dict:
    """A results JSON as an earlier commit holds it (skipped where the clone lacks that commit: a shallow one)."""
    import subprocess

    shown = subprocess.run(["git", "show", f"{commit}:results/{path}"], cwd=ROOT, capture_output=True, text=True)
    if shown.returncode:
        pytest.skip(f"no commit {commit} in this clone")
    return json.loads(shown.stdout)


def enhanced_speed() -> str:
    result = load("benchmarks/enhanced_parse_speed.json")
    # the previous measurement: 81fa877 added it, measured at d9396dc, before 12b83e6 (MatmulBilinear)
    previous = previous_json("81fa877", "benchmarks/enhanced_parse_speed.json")
    assert previous["git_commit"].startswith("d9396dc") and result["model"] == previous["model"]
    after = result["sentences_per_second_without_startup"]
    assert result["data"]["sentences"] == result["predicted_sentences"] == result["predicted_trees"]
    assert after == result["data"]["sentences"] / (result["seconds"] - result["startup_seconds"])
    verdict = "is met by this run" if after >= 200 else "is not met by this run"
    return (f"`allennlp predict` (batches of 64, CoNLL-U in and out) parses EWT test ({result['data']['sentences']} "
            f"sentences) with `coach_valid_enhanced` (10 epochs, before separate graph scores) at {after:.1f} sentences/s after a start-up of "
            f"{result['startup_seconds']:.2f} s ({result['sentences_per_second']:.1f} with it), median of "
            f"{result['repeats']} runs (`results/benchmarks/enhanced_parse_speed.json`, {result['date'][:10]}, commit "
            f"{result['git_commit'][:7]}, {result['machine']['cpu_cores']} CPU cores, {result['torch_threads']} "
            f"threads). Issue 41's target, 200 sentences/s after start-up, {verdict}. The previous measurement, "
            f"{previous['sentences_per_second_without_startup']:.1f} sentences/s after a start-up of "
            f"{previous['startup_seconds']:.2f} s ({previous['date'][:10]}, at {previous['git_commit'][:7]}"
            f"{' with uncommitted changes' if previous['git_commit'].endswith('+uncommitted') else ''})")


def enhanced_speed_real_edges() -> str:
    result = load("benchmarks/enhanced_parse_speed_real_edges.json")
    assert result["model"] == load("benchmarks/enhanced_parse_speed.json")["model"]
    assert result["data"]["sentences"] == result["predicted_sentences"] == result["predicted_trees"]
    after = result["sentences_per_second_without_startup"]
    assert after < 200
    return (f"the same command and archive parse at {after:.1f} sentences/s after a start-up of "
            f"{result['startup_seconds']:.2f} s (`results/benchmarks/enhanced_parse_speed_real_edges.json`, "
            f"{result['date'][:10]}, commit {result['git_commit'][:7]}; another run, not a ratio measured in one run): "
            "still short of 200")


def parsed_speed(name: str) -> Tuple[Dict, float, str]:
    """A benchmark of `scripts/enhanced_speed.py` whose every output is a tree: it, its sentences/s after
    start-up, and the sentence's source and provenance as the docs cite it."""
    result = load(f"benchmarks/{name}")
    assert result["data"]["sentences"] == result["predicted_sentences"] == result["predicted_trees"]
    source = (f"`results/benchmarks/{name}`, {result['date'][:10]}, commit {result['git_commit'][:7]}, median of "
              f"{result['repeats']} runs")
    return result, result["sentences_per_second_without_startup"], source


def enhanced_speed_bf16_labels() -> str:
    result, after, source = parsed_speed("enhanced_parse_speed_bf16_labels.json")
    assert result["model"] == load("benchmarks/enhanced_parse_speed.json")["model"]
    assert result["overrides"] == '{"model.label_bfloat16_inference": true}'
    verdict = "200 is met" if after >= 200 else "still short of 200"
    return (f"With the labels in bfloat16 as the enhanced configs now parse (`-o "
            f"'{result['overrides']}'` for this archive, trained before the option), the same command parses at "
            f"{after:.1f} sentences/s after a start-up of {result['startup_seconds']:.2f} s "
            f"({source}; another run again): {verdict}")


def enhanced_speed_separate_scores() -> str:
    result, after, source = parsed_speed("enhanced_parse_speed_separate_scores.json")
    verdict = "200 is met" if after >= 200 else "still short of 200"
    return (f"A model of the config as it ships now (separate graph scores, trained 10 epochs: a converged one is still to "
            f"train) parses at {after:.1f} sentences/s after a start-up of {result['startup_seconds']:.2f} s "
            f"({source}): {verdict} on this model")


def parses_at(result: Dict, after: float, source: str) -> str:
    """"parses at X sentences/s after a start-up of Y s (SOURCE of the runs' range", its bracket left open."""
    return (f"parses at {after:.1f} sentences/s after a start-up of {result['startup_seconds']:.2f} s ({source} of "
            f"{min(result['all_seconds']):.1f} to {max(result['all_seconds']):.1f} s")


def enhanced_speed_24_epochs() -> str:
    result, after, source = parsed_speed("enhanced_parse_speed_24_epochs.json")
    verdict = "200 is met" if after >= 200 else "short of 200"
    return (f"The 24-epoch model of the row without features (`coach_valid_enhanced` seed 0, archive sha256 "
            f"{result['model']['sha256'][:8]}) {parses_at(result, after, source)}): {verdict}")


def enhanced_speed_converged() -> str:
    result, after, source = parsed_speed("enhanced_parse_speed_converged.json")
    row = load("enhanced/coach_valid_enhanced.json")
    assert result["model"]["sha256"] == row["model"]["sha256"] and not row["finished_budget"]
    verdict = "200 is met" if after >= 200 else "short of 200 too"
    return (f"The row's converged model (stopped by patience after {row['epochs_done']} epochs, archive sha256 "
            f"{result['model']['sha256'][:8]}) {parses_at(result, after, source)}, a spread that hides any "
            f"difference between the two models' weights): {verdict}")


def enhanced_parse_phases() -> str:
    result = load("benchmarks/enhanced_parse_phases.json")
    row = load("enhanced/coach_valid_enhanced.json")
    assert result["model"]["sha256"] == row["model"]["sha256"]
    seconds, share = result["seconds"], result["share"]
    assert abs(sum(seconds.values()) - result["total_seconds"]) < 1e-9
    budget = result["data"]["sentences"] / 200
    encoder_and_tree = seconds["encoder"] + seconds["tree_decoder"]
    return (f"Where its time goes (`benchmarks/parse_phases.py`, `results/benchmarks/enhanced_parse_phases.json`, "
            f"{result['date'][:10]}, medians of {result['repeats']} in-process parses of EWT test in the predictor's "
            f"batches, start-up and writing apart: {result['total_seconds']:.2f} s, "
            f"{result['sentences_per_second']:.1f} sentences/s): the BiLSTM {100 * share['encoder']:.0f} %, the "
            f"valid tree decoder's steps {100 * share['tree_decoder']:.0f} %, the label classifiers "
            f"{100 * share['labels']:.0f} %, the character CNN and embeddings {100 * share['embedding']:.0f} %, the "
            f"tree's and the graph's initial scores {100 * share['tree_initial_scores']:.0f} and "
            f"{100 * share['graph_initial_scores']:.0f} %, the graph phase's steps {100 * share['graph_decoder']:.0f} %, "
            f"reading the file {100 * share['reading']:.0f} %. 200 sentences/s leaves {budget:.1f} s for the file; "
            f"the BiLSTM and the tree decoder alone take {encoder_and_tree:.1f} s and the rest "
            f"{result['total_seconds'] - encoder_and_tree:.1f} s more, so the target needs the encoder and the tree "
            "decoder's steps much cheaper (a smaller encoder, fewer steps), which the graph phase alone cannot give")


def parse_phases_earlier() -> str:
    earlier = previous_json("7f451ff", "benchmarks/enhanced_parse_phases.json")
    now = load("benchmarks/enhanced_parse_phases.json")
    assert earlier["model"]["sha256"] == now["model"]["sha256"] and earlier["date"] < now["date"]
    return (f"The same command at {earlier['date'][11:16]} the same day gave {earlier['sentences_per_second']:.1f} "
            "sentences/s for this model (commit 7f451ff's JSON): the machine's speed moved that much within the "
            "session, so only runs side by side compare")


def encoder_200_screen() -> str:
    screen = load("enhanced/screens/encoder_200.json")
    assert screen["config_differences"] == {"model.encoder.hidden_size": [400, 200]}
    by_epoch = ", ".join(f"{row['ELAS']:+.2f}" for row in screen["change_minus_baseline"])
    narrow, shipped = load("benchmarks/enhanced_parse_phases_encoder_200.json"), load(
        "benchmarks/enhanced_parse_phases.json")
    assert narrow["data"]["sha256"] == shipped["data"]["sha256"]
    ratio = narrow["sentences_per_second"] / shipped["sentences_per_second"]
    return (f"A narrower BiLSTM (200 units a direction instead of 400, the same seed) was screened for "
            f"{screen['epochs']} epochs (`results/enhanced/screens/encoder_200.json`): dev ELAS, change minus the "
            f"shipped config, by epoch: {by_epoch}. Its {screen['epochs']}-epoch model parses EWT test at "
            f"{narrow['sentences_per_second']:.1f} sentences/s in the same tool "
            f"(`results/benchmarks/enhanced_parse_phases_encoder_200.json`, the BiLSTM "
            f"{narrow['seconds']['encoder']:.2f} s against {shipped['seconds']['encoder']:.2f} s), the shipped "
            f"model at {shipped['sentences_per_second']:.1f} in the run right after it: {ratio:.2f} times as "
            "fast, at a cost in accuracy that only a converged row can size")


def encoder_200_longer() -> str:
    screen = load("enhanced/screens/encoder_200_23_epochs.json")
    assert screen["config_differences"] == {"model.encoder.hidden_size": [400, 200]}
    changes = [row["ELAS"] for row in screen["change_minus_baseline"]]
    narrow_best = max(range(screen["epochs"]), key=lambda epoch: screen["change_dev"][epoch]["ELAS"])
    wide_best = max(range(screen["epochs"]), key=lambda epoch: screen["baseline_dev"][epoch]["ELAS"])
    speed = load("benchmarks/enhanced_parse_speed_encoder_200.json")
    float32, bfloat16, narrow = speed["settings"]
    assert float32["model"]["sha256"] == bfloat16["model"]["sha256"]
    assert narrow["model"]["path"].endswith("screens/encoder_200/model.tar.gz")
    assert float32["overrides"] == '{"model.arc_bfloat16_inference": false}'
    assert bfloat16["overrides"] == narrow["overrides"] == '{"model.arc_bfloat16_inference": true}'
    assert float32["model"]["sha256"] == load("enhanced/coach_valid_enhanced.json")["model"]["sha256"]
    assert all(row["predicted_trees"] == speed["data"]["sentences"] for row in speed["settings"])
    after = [row["sentences_per_second_without_startup"] for row in speed["settings"]]
    runs = [seconds for row in speed["settings"] for seconds in row["all_seconds"]]
    verdict = "all three short of 200" if max(after) < 200 else "200 met by " + ", ".join(
        name for name, value in zip(("the first", "the second", "the third"), after) if value >= 200)
    return (f"Trained on to {screen['epochs']} epochs (then stopped for the session's time, not converged; "
            f"`results/enhanced/screens/encoder_200_23_epochs.json`), it stayed below the shipped config at every "
            f"epoch: dev ELAS change {max(changes):+.2f} at best, {min(changes):+.2f} at worst, "
            f"{sum(changes) / len(changes):+.2f} on average; its best dev ELAS "
            f"{screen['change_dev'][narrow_best]['ELAS']:.2f} (epoch {narrow_best}) against "
            f"{screen['baseline_dev'][wide_best]['ELAS']:.2f} (epoch {wide_best}) over the same epochs. Side by side with "
            f"`allennlp predict` (`scripts/enhanced_speed.py` with three settings in turns, "
            f"`results/benchmarks/enhanced_parse_speed_encoder_200.json`, {speed['date'][:10]}, commit "
            f"{speed['git_commit'][:7]}, medians of {float32['repeats']} rounds, runs of {min(runs):.1f} to "
            f"{max(runs):.1f} s): the converged shipped model parses EWT test at {after[0]:.1f} sentences/s after "
            f"start-up with float32 initial scores and {after[1]:.1f} with them in bfloat16 (a difference within "
            f"the runs' spread; start-ups "
            f"{float32['startup_seconds']:.1f} and {bfloat16['startup_seconds']:.1f} s), the narrower model at "
            f"{after[2]:.1f} ({after[2] / after[1]:.2f} times the shipped model's speed): {verdict} on that day's "
            "machine. The narrower encoder buys about a fifth more speed for more than a point of dev ELAS: the "
            "shipped config keeps 400 units")



def batch_size_speeds() -> Tuple[Dict[int, Dict], Dict[int, Dict], Dict, Dict]:
    """allennlp predict's speed by --batch-size after the bucket cap and before it, and their JSONs."""
    speed = load("benchmarks/enhanced_parse_speed_batch_size.json")
    before = load("benchmarks/enhanced_parse_speed_batch_size_uncapped.json")
    converged = load("enhanced/coach_valid_enhanced.json")["model"]["sha256"]
    for result in (speed, before):
        assert all(row["model"]["sha256"] == converged for row in result["settings"])
        assert all(row["overrides"] == '{"model.arc_bfloat16_inference": false}' for row in result["settings"])
        assert all(row["predicted_trees"] == result["data"]["sentences"] for row in result["settings"])
        assert result["data"]["path"] == "data/UD_English-EWT/en_ewt-ud-test.conllu"
    assert before["date"] < speed["date"] and before["date"][:10] == speed["date"][:10]
    by_size = {row["batch_size"]: row for row in speed["settings"]}
    earlier = {row["batch_size"]: row for row in before["settings"]}
    return by_size, earlier, speed, before


def after_startup(row: Dict) -> float:
    return row["sentences_per_second_without_startup"]


def enhanced_speed_batch_size() -> str:
    by_size, earlier, speed, before = batch_size_speeds()
    api = load("benchmarks/api_batch_size.json")
    assert api["model"]["sha256"] == speed["settings"][0]["model"]["sha256"]
    assert all(row["same_output_as_first"] for row in api["rows"].values())
    verdict = ("met with `--batch-size 1024`, not with 64"
               if after_startup(by_size[1024]) >= 200 > after_startup(by_size[64]) else "not met")
    startups = [row["startup_seconds"] for row in speed["settings"]]
    return (f"Side by side (`scripts/enhanced_speed.py --batch-size 64 --batch-size 1024 --batch-size 4096`, the "
            f"batch sizes in turns, `results/benchmarks/enhanced_parse_speed_batch_size.json`, {speed['date'][:10]}, "
            f"medians of {by_size[64]['repeats']} rounds): the converged row without features (archive sha256 "
            f"{by_size[64]['model']['sha256'][:8]}, float32 initial scores as trained) parses EWT test at "
            f"{after_startup(by_size[64]):.1f} sentences/s after start-up with `--batch-size 64`, "
            f"{after_startup(by_size[1024]):.1f} with `--batch-size 1024` "
            f"({after_startup(by_size[1024]) / after_startup(by_size[64]):.2f} times as fast) and "
            f"{after_startup(by_size[4096]):.1f} with the whole file as one batch (`--batch-size 4096`); start-ups "
            f"{min(startups):.1f} to {max(startups):.1f} s. Issue 41's 200 sentences/s is {verdict}. The first run "
            f"of the comparison, before the buckets were capped "
            f"(`results/benchmarks/enhanced_parse_speed_batch_size_uncapped.json`, the same day): "
            f"{after_startup(earlier[64]):.1f} with 64, {after_startup(earlier[256]):.1f} with 256, "
            f"{after_startup(earlier[1024]):.1f} with 1024 and {after_startup(earlier[4096]):.1f} with the whole "
            "file, whose buckets of up to 384 sentences parsed slower than those of a batch of 1024. "
            "`seqgraph_allennlp.Parser.parse_conllu` on EWT test, one Parser, the batch sizes in turns "
            "(`benchmarks/api_batch_size.py`, `results/benchmarks/api_batch_size.json`, medians of "
            f"{api['repeats']}, loading apart): "
            + ", ".join(f"{row['sentences_per_second']:.1f} sentences/s in calls of {row['batch_size']}"
                        for row in api["rows"].values())
            + ", the same CoNLL-U from each")


def usage_batch_size() -> str:
    by_size = batch_size_speeds()[0]
    return (f"the converged enhanced model of EWT parses EWT test at {after_startup(by_size[1024]):.1f} sentences/s "
            f"after start-up with `--batch-size 1024` against {after_startup(by_size[64]):.1f} with 64")

def english_parse_speed() -> str:
    result = load("benchmarks/english_parse_speed.json")
    float32, bfloat16 = result["rows"]["float32"], result["rows"]["bfloat16_buckets"]
    ratio = bfloat16["sentences_per_second_without_startup"] / float32["sentences_per_second_without_startup"]
    assert abs(ratio - result["ratio_bfloat16_buckets_to_float32"]) < 1e-12
    assert all(row["predicted_trees"] == row["predicted_sentences"] == result["data"]["sentences"]
               for row in (float32, bfloat16))
    assert max(row["sentences_per_second_without_startup"] for row in (float32, bfloat16)) < 100
    return (f"parses EWT test at {float32['sentences_per_second_without_startup']:.1f} sentences/s after start-up "
            f"with float32 features and {bfloat16['sentences_per_second_without_startup']:.1f} with bfloat16 and "
            f"word-piece buckets ({ratio:.2f} times as fast), medians of {float32['repeats']} alternating runs; every "
            "output a tree. Issue 43's target, 100 sentences/s, is not met. The one-sentence runs that give the "
            f"start-up varied in this run (float32: {min(float32['all_startup_seconds']):.1f} to "
            f"{max(float32['all_startup_seconds']):.1f} s)")



def english_parse_speed_batch_size() -> str:
    result = load("benchmarks/english_parse_speed_batch_size.json")
    small, large = result["rows"]["bfloat16_buckets_batch_64"], result["rows"]["bfloat16_buckets_batch_1024"]
    assert small["batch_size"] == 64 and large["batch_size"] == 1024
    assert small["output_sha256"] == large["output_sha256"]
    assert all(row["predicted_trees"] == row["predicted_sentences"] == result["data"]["sentences"]
               for row in (small, large))
    startups = small["all_startup_seconds"] + large["all_startup_seconds"]
    faster = large["sentences_per_second_without_startup"]
    verdict = "still short of 100" if faster < 100 else "100 met"
    return (f"The same command with `--batch-size 1024` (`scripts/english_parse_speed.py --settings "
            f"bfloat16_buckets --batch-sizes 64 1024`, `results/benchmarks/english_parse_speed_batch_size.json`, "
            f"{result['date'][:10]}, commit {result['git_commit'][:7]}, the two in turns, medians of "
            f"{small['repeats']} rounds; another archive of the same kind, trained again): "
            f"{small['sentences_per_second_without_startup']:.1f} sentences/s after start-up at 64, {faster:.1f} at "
            f"1024 ({result['ratio_to_bfloat16_buckets_batch_64']['bfloat16_buckets_batch_1024']:.2f} times as "
            f"fast), the same CoNLL-U (sha256); start-ups {min(startups):.1f} to {max(startups):.1f} s: {verdict}")


def layer_probe() -> str:
    result = load("mpnet_layer_probe.json")
    rows = {tuple(row["layers"]): row["dev_UAS"] for row in result["rows"]}
    top = result["num_hidden_layers"]
    shipped = tuple(range(top - 3, top + 1))
    best_window, best_layer = tuple(result["best_window"]), result["best_layer"]
    assert best_window == max((key for key in rows if len(key) == 4), key=rows.get)
    assert best_layer == max((key for key in rows if len(key) == 1), key=rows.get)[0]
    assert rows[shipped] == result["last_window_dev_UAS"] < rows[best_window]
    singles = ", ".join(f"{rows[(layer,)]:.1f}" for layer in range(top + 1))
    return (f"each layer alone, 0 (the embeddings) to {top}: {singles} dev UAS; the best layer is {best_layer}. "
            f"Windows of four mixed: layers {best_window[0]}-{best_window[-1]} {rows[best_window]:.2f}, the "
            f"configs' {shipped[0]}-{shipped[-1]} {rows[shipped]:.2f} "
            f"({rows[shipped] - rows[best_window]:+.2f})")


def english_parse_speed_layers() -> str:
    result = load("benchmarks/english_parse_speed_layers_5.json")
    full, short = result["rows"]["bfloat16_buckets"], result["rows"]["compare1_bfloat16_buckets"]
    assert full["batch_size"] == short["batch_size"] == 1024
    assert "num_hidden_layers 5" in result["compared_models"][0]["weights"]
    assert all(row["predicted_trees"] == row["predicted_sentences"] == result["data"]["sentences"]
               for row in (full, short))
    ratio = result["ratio_to_bfloat16_buckets"]["compare1_bfloat16_buckets"]
    faster = short["sentences_per_second_without_startup"]
    return (f"An archive of the same kind whose transformer runs only its first five layers "
            f"(`transformer_kwargs.num_hidden_layers: 5`, layers 2-5 mixed; `scripts/english_parse_speed.py "
            f"--compare`, `results/benchmarks/english_parse_speed_layers_5.json`, {result['date'][:10]}, the two "
            f"archives in turns, `--batch-size 1024`, bfloat16 features with word-piece buckets, medians of "
            f"{full['repeats']} rounds) parses EWT test at {faster:.1f} sentences/s after start-up against "
            f"{full['sentences_per_second_without_startup']:.1f} with all twelve ({ratio:.2f} times as fast); "
            f"start-ups {short['startup_seconds']:.1f} and {full['startup_seconds']:.1f} s: "
            + ("still short of 100" if faster < 100 else "100 met"))


def english_parse_phases_layers() -> str:
    result = load("benchmarks/english_parse_phases_layers_5.json")
    speed = load("benchmarks/english_parse_speed_layers_5.json")
    assert result["model"]["sha256"] == speed["compared_models"][0]["sha256"] and result["batch_size"] == 1024
    seconds, share = result["seconds"], result["share"]
    assert seconds["graph_decoder"] == seconds["graph_initial_scores"] == 0.0
    per_layer = seconds["transformer"] / 5
    cli = speed["rows"]["compare1_bfloat16_buckets"]
    after_startup, sentences = cli["seconds"] - cli["startup_seconds"], speed["data"]["sentences"]
    return (f"Where its time goes, in one process (`benchmarks/parse_phases.py --batch-size 1024`, "
            f"`results/benchmarks/english_parse_phases_layers_5.json`, {result['date'][:10]}, medians of "
            f"{result['repeats']} parses of EWT test after a warm-up, the features computed in each, start-up and "
            f"writing apart): {result['total_seconds']:.1f} s, {result['sentences_per_second']:.1f} sentences/s; "
            f"the five transformer layers {100 * share['transformer']:.0f} % ({per_layer:.1f} s a layer), the BiLSTM "
            f"{100 * share['encoder']:.0f} %, the other embeddings (characters, words, the layer mix) "
            f"{100 * share['embedding']:.0f} %, the valid tree decoder {100 * share['tree_decoder']:.0f} %, batching "
            f"(word pieces included) {100 * share['batching']:.0f} %. A layer fewer would take about "
            f"{per_layer:.1f} s off the {after_startup:.1f} s of `allennlp predict` after start-up above: about "
            f"{sentences / (after_startup - per_layer):.0f} sentences/s")


def average_pieces_phases() -> str:
    before = load("benchmarks/english_parse_phases_layers_5.json")
    after = load("benchmarks/english_parse_phases_layers_5_average_pieces.json")
    assert before["model"]["sha256"] == after["model"]["sha256"] and before["overrides"] == after["overrides"]
    assert before["date"] < after["date"]
    return (f"Averaging the word pieces to words by one batched product (`average_pieces` in "
            f"`seqgraph_allennlp/modules/cached_transformer_embedder.py`) instead of AllenNLP's gather of every "
            f"word's pieces took the other embeddings from {before['seconds']['embedding']:.2f} to "
            f"{after['seconds']['embedding']:.2f} s in the same tool "
            f"(`results/benchmarks/english_parse_phases_layers_5_average_pieces.json`, "
            f"{after['date'][11:16]} against {before['date'][11:16]} the same day): {after['total_seconds']:.1f} s, "
            f"{after['sentences_per_second']:.1f} sentences/s in process; the transformer's "
            f"{after['seconds']['transformer']:.2f} s against {before['seconds']['transformer']:.2f} s says how "
            "far the machine moved between the two runs")


def english_run_scores(run: Dict) -> str:
    """What a `make english-model` run (scripts/english_model_record.py's JSON) trained and scored, and its time."""
    return (f"it ran {run['epochs_done']} epochs, kept epoch {run['best_epoch']} (dev UAS "
            f"{100 * run['best_dev']['UAS']:.2f}) and scored test UAS / LAS {100 * run['test']['UAS']:.2f} / "
            f"{100 * run['test']['LAS']:.2f}, UPOS {100 * run['test']['UPOS']:.2f}, in {run['wall_minutes']:.0f} "
            "minutes")


def english_model_first_run() -> str:
    run = load("english_model_20_epochs.json")
    assert run["budget"] == {"epochs": 20, "patience": 5} and run["epochs_done"] == len(run["curve"])
    seconds = [epoch["seconds"] for epoch in run["curve"]]
    quiet = seconds[-6:]
    estimate = (seconds[0] + (len(seconds) - 1) * statistics.mean(quiet)) / 60
    return (f"`make english-model` with at most 20 epochs on 2026-11-29 (`results/english_model_20_epochs.json`): "
            f"{english_run_scores(run)}. Not a quiet run: other benchmarks and tests shared the machine during most "
            f"of its first {len(seconds) - 6} epochs; its last six had it nearly to themselves and took "
            f"{statistics.mean(quiet) / 60:.1f} minutes each on average, so a quiet run would have taken about "
            f"{estimate:.0f} minutes on the machine as it ran that day")


def english_model_run() -> str:
    run = load("english_model.json")
    assert run["budget"] == {"epochs": 16, "patience": 5} and run["epochs_done"] == len(run["curve"])
    assert run["note"].startswith("quiet")
    seconds = [epoch["seconds"] for epoch in run["curve"]]
    return (f"`make english-model` as shipped, on {run['date'][:10]} with the machine to itself "
            f"(`results/english_model.json`): {english_run_scores(run)} from the command to its test scores (the "
            f"first epoch, which computes the features, {seconds[0] / 60:.1f} minutes; the others "
            f"{statistics.mean(seconds[1:]) / 60:.1f} on average)")


def biaffine_epoch_then() -> Tuple[Dict, float]:
    """The reference for the machine's speed: `biaffine_mst`'s EWT epoch on 2026-11-26 (its JSON and seconds)."""
    then = load("benchmarks/epoch_time_fused_loss_round2.json")
    return then, next(row for row in then["rows"] if row["name"] == "biaffine_mst")["epoch_seconds"]


def machine_before_the_run() -> str:
    result = load("benchmarks/epoch_time_machine_2026-11-29_evening.json")
    then, before = biaffine_epoch_then()
    now = result["rows"][0]
    assert now["name"] == "biaffine_mst" and result["date"][:10] == load("english_model.json")["date"][:10]
    return (f"just before it, allennlp-models' `biaffine_mst` took {now['epoch_seconds']:.1f} s for an EWT epoch "
            f"(`results/benchmarks/epoch_time_machine_2026-11-29_evening.json`), against {before:.1f} s on "
            f"{then['date'][:10]} (`epoch_time_fused_loss_round2.json`): an epoch took "
            f"{now['epoch_seconds'] / before:.2f} times as long as then")


def machine_that_day() -> str:
    then, before = biaffine_epoch_then()
    now = load("benchmarks/epoch_time_machine_2026-11-29.json")
    assert now["git_commit"] == then["git_commit"].split("+")[0]
    after = now["rows"][0]["epoch_seconds"]
    return (f"allennlp-models' `biaffine_mst` took {after:.1f} s for an EWT epoch at the commit measured on "
            f"{then['date'][:10]} ({now['git_commit'][:7]}), against {before:.1f} s then "
            f"(`results/benchmarks/epoch_time_machine_2026-11-29.json`, `epoch_time_fused_loss_round2.json`): "
            f"{after / before:.2f} times as long")


def english_model_speed() -> str:
    speed = load("speed_english.json")
    api = load("benchmarks/api_batch_size_english.json")
    assert Path(speed["model"]["path"]).parent.name == "english" and api["model"]["sha256"] == speed["model"]["sha256"]
    assert load("english_model.json")["date"][:10] == speed["date"][:10]
    assert [Path(model["path"]).parent.name for model in speed["compared_models"]] == ["biaffine_mst_mpnet",
                                                                                       "coach_valid"]
    assert all(row["predicted_trees"] == row["predicted_sentences"] == 2077 for row in speed["rows"].values())
    assert "max_cached_words" in api["model"]["overrides"]

    def row(prefix: str, size: int) -> Dict:
        result = speed["rows"][f"{prefix}as_trained_batch_{size}"]
        assert result["batch_size"] == size
        return result

    def after(prefix: str) -> str:
        return (f"{row(prefix, 1024)['sentences_per_second_without_startup']:.1f} "
                f"({row(prefix, 64)['sentences_per_second_without_startup']:.1f} with `--batch-size 64`)")

    ours = row("", 1024)
    return (f"`allennlp predict --batch-size 1024` parses EWT test with it at "
            f"{ours['sentences_per_second_without_startup']:.1f} sentences/s after a start-up of "
            f"{ours['startup_seconds']:.1f} s ({ours['sentences_per_second']:.1f} with it), every sentence a tree, "
            f"and at {row('', 64)['sentences_per_second_without_startup']:.1f} with `--batch-size 64` (start-up "
            f"{row('', 64)['startup_seconds']:.1f} s); in the same turns `biaffine_mst_mpnet` over the same features "
            f"at {after('compare1_')} and the small `coach_valid` at {after('compare2_')} "
            f"(`scripts/english_parse_speed.py`, `results/speed_english.json`, medians of {ours['repeats']} rounds). "
            f"`seqgraph_allennlp.Parser` (`benchmarks/api_batch_size.py`, "
            f"`results/benchmarks/api_batch_size_english.json`, its in-memory feature cache off as for new text) "
            f"parses it at {api['rows']['1024']['sentences_per_second']:.1f} sentences/s in calls of 1024 (its "
            f"default) and {api['rows']['64']['sentences_per_second']:.1f} in calls of 64")


def english_features_accuracy() -> str:
    result = load("benchmarks/features_accuracy_english.json")
    full, fast = result["rows"]["float32"], result["rows"]["bfloat16_buckets"]
    assert full["all_trees"] and fast["all_trees"] and result["batch_size"] == 1024
    return (f"With float32 features it scores UAS / LAS {full['UAS']:.2f} / {full['LAS']:.2f} on EWT test, with "
            f"the bfloat16 ones it was trained on {fast['UAS']:.2f} / {fast['LAS']:.2f} "
            f"(`scripts/features_accuracy.py`, `results/benchmarks/features_accuracy_english.json`)")


def min_pieces_speed() -> str:
    result = load("benchmarks/feature_speed_min_pieces.json")
    assert "1024 sentences" in result["batchings"]["predictor"] and result["buckets"]["min_pieces"] == 1

    def row(name: str) -> Dict:
        return result["rows"][name]["batchings"]["predictor"]

    def ratio(name: str) -> float:
        return row(name)["transformer_pieces"] / row(name)["sentence_pieces"]

    now, padded, fuller = (row(name) for name in ("bfloat16_buckets", "bfloat16_buckets_padded_16",
                                                  "bfloat16_buckets_padding_10"))
    return (f"at `--predict-batch-size 1024` the transformer ran on {ratio('bfloat16_buckets_padded_16'):.2f} times "
            f"the sentences' pieces with the minimum, {ratio('bfloat16_buckets'):.2f} without, and computed the "
            f"features of EWT test at {now['sentences_per_second_warm']:.1f} sentences/s against "
            f"{padded['sentences_per_second_warm']:.1f} "
            f"({now['sentences_per_second_warm'] / padded['sentences_per_second_warm']:.2f} times as fast); a bucket "
            f"closed at a tenth of padding instead of a quarter ran on {ratio('bfloat16_buckets_padding_10'):.2f} "
            f"times the pieces in {fuller['transformer_batches']} calls instead of {now['transformer_batches']} and "
            f"was no faster ({fuller['sentences_per_second_warm']:.1f})")


def word_pieces_speed() -> str:
    result = load("benchmarks/word_pieces.json")
    theirs, ours = (result["rows"][name] for name in ("pretrained_transformer_mismatched", "word_piece_mismatched"))
    sentences = result["data"]["sentences"]
    assert theirs["sentences_as_allennlps"] == ours["sentences_as_allennlps"] == sentences
    return (f"splitting EWT test's {result['data']['words']:,} words into word pieces takes AllenNLP's indexer "
            f"{statistics.median(theirs['seconds']):.2f} s and `word_piece_mismatched` "
            f"{statistics.median(ours['seconds']):.2f} s (medians of {result['repeats']}, `benchmarks/word_pieces.py`, "
            f"`results/benchmarks/word_pieces.json`), with the same output for all {sentences:,} sentences")


def layer_screen() -> str:
    screen = load("enhanced/screens/mpnet_layers_2_5.json")
    layers_key = "model.text_field_embedder.token_embedders.mpnet.transformer_kwargs.num_hidden_layers"
    assert screen["config_differences"][layers_key] == [None, 5]
    # the other differences change neither training nor the features: a validation-time option at its default
    # and where the features are kept
    assert set(screen["config_differences"]) == {
        layers_key, "model.arc_bfloat16_inference", "model.text_field_embedder.token_embedders.mpnet.cache_directory"}
    assert screen["config_differences"]["model.arc_bfloat16_inference"] == [None, False]
    by_epoch = ", ".join(f"{row['ELAS']:+.2f}" for row in screen["change_minus_baseline"])
    last = screen["epochs"] - 1
    baseline = load("enhanced/coach_valid_mpnet_enhanced_last_four.json")
    baseline_best = max(100 * epoch["dev_ELAS"] for epoch in baseline["curve"])
    change_best = max(epoch["ELAS"] for epoch in screen["change_dev"])
    ahead = change_best > baseline_best
    return (f"A parser over layers 2-5 (`coach_valid_mpnet_enhanced` with `transformer_kwargs.num_hidden_layers: 5`, "
            f"seed 0, the one change) against the row's seed 0 over the last four layers (its curve in "
            f"`results/enhanced/coach_valid_mpnet_enhanced_last_four.json`), `scripts/epoch_screen.py`, "
            f"`results/enhanced/screens/mpnet_layers_2_5.json`: dev ELAS, change minus baseline, by epoch over the "
            f"first {screen['epochs']}: {by_epoch}; at epoch {last + 1} {screen['change_dev'][last]['ELAS']:.2f} "
            f"against {screen['baseline_dev'][last]['ELAS']:.2f}. Its best dev ELAS so far, {change_best:.2f}, is "
            + ("above" if ahead else "not above")
            + f" the baseline's best over all its {len(baseline['curve'])} epochs ({baseline_best:.2f}; dev UAS "
            f"{screen['change_dev'][last]['UAS']:.2f} against at most "
            f"{max(100 * epoch['dev_UAS'] for epoch in baseline['curve']):.2f}), "
            + ("so the run ends ahead whatever its last epochs give (a training keeps its best epoch)" if ahead
               else "so it may not end ahead") + screen_row_text(screen, baseline))


def screen_row_text(screen: Dict, baseline: Dict) -> str:
    """
    What became of the layer screen's run: the seed-0 row of the config it screened, once evaluated, beside
    `baseline`, the old row's seed 0.
    """
    row = load("enhanced/coach_valid_mpnet_enhanced.json")
    assert row["serialization_dir"] == screen["change"] and row["seed"] == 0
    if row["epochs_done"] != screen["epochs"]:
        return ""
    return (f". It stopped after {row['epochs_done']} epochs ({row['stopped']}), its best at epoch "
            f"{row['best_epoch']}, and is the seed-0 row of `coach_valid_mpnet_enhanced` in "
            f"[RESULTS](RESULTS.md#enhanced-ud-ewt): test ELAS {100 * row['test']['ELAS']:.2f}, EULAS "
            f"{100 * row['test']['EULAS']:.2f}, UAS {100 * row['test']['UAS']:.2f}, LAS {100 * row['test']['LAS']:.2f} "
            f"(the old row's seed 0: {100 * baseline['test']['ELAS']:.2f} ELAS)")

# the guides that hold what the README said of training, decoding, enhanced graphs and the components
TRAINING = ROOT / "docs" / "TRAINING.md"
USAGE = ROOT / "docs" / "USAGE.md"
ENHANCED = ROOT / "docs" / "ENHANCED.md"
DESIGN = ROOT / "docs" / "DESIGN.md"
ANALYSIS = ROOT / "docs" / "ANALYSIS.md"
BENCHMARKS = ROOT / "docs" / "BENCHMARKS.md"

# (document, what it must contain, built from the JSONs); the id is the first words of the text
QUOTES = [
    # TRAINING, "The encoder"
    (TRAINING, bf16_inference),
    (TRAINING, bf16_updates),
    (TRAINING, bf16_encoder_epoch),
    (TRAINING, bf16_welsh),
    # TRAINING, "UPOS tagger"
    (TRAINING, readme_tagger_welsh),
    (TRAINING, lambda: tagger_ewt("its best dev UAS is {tagged:.2f} against {plain:.2f}, ",
                                "and it tags {upos:.2f} % of EWT test words right. On test (read once, after the "
                                "choice) UAS is {tagged:.2f} against {plain:.2f}, LAS {tagged_las:.2f} against "
                                "{plain_las:.2f}.")),
    # TRAINING, "The English model in one command" (its table: tests/test_readme_figures.py)
    (TRAINING, readme_mpnet_baseline),
    (TRAINING, mpnet_mean_lead),
    (TRAINING, lambda: f"(its seed 2 ran to the 40-epoch cap, best dev at epoch {mpnet_cap()})"),
    (TRAINING, welsh_bf16_leads),
    (TRAINING, readme_one_step_cap),
    (TRAINING, readme_tagger_ewt),
    (TRAINING, readme_shipped_row),
    (TRAINING, english_model_run),
    (TRAINING, machine_before_the_run),
    (TRAINING, english_features_accuracy),
    # TRAINING, "Training objective"
    (TRAINING, readme_paper_objective_welsh),
    # USAGE, "Several edges per step"
    (USAGE, readme_tau),
    # DESIGN, "Components"
    (DESIGN, readme_sizes),
    # ANALYSIS, "Multi-edge decoding"
    *((ANALYSIS, (lambda name=name: f"| {tau_row(name)} |")) for name in ("ewt", "grc", "welsh")),
    (ANALYSIS, converged_coach_valid),
    (ANALYSIS, layer_probe),
    (ANALYSIS, layer_screen),
    (ANALYSIS, tau_converged),
    (ANALYSIS, tau_converged_speed),
    (ANALYSIS, tau_welsh_dev),
    (ANALYSIS, tau_gains),
    (ANALYSIS, tau_002_against_best),
    (ANALYSIS, tau_greek),
    # ANALYSIS, "Easy-first order"
    (ANALYSIS, lambda: easy_first_row("chosen edge is gold", "accuracy", 100, 1, " %")),
    (ANALYSIS, lambda: easy_first_row("arc length", "arc_length", 1, 2)),
    (ANALYSIS, lambda: easy_first_row("entropy / log(valid edges) (1 = no preference)", "relative_entropy", 1, 2)),
    (ANALYSIS, easy_first_coaching),
    (ANALYSIS, easy_first_uniform),
    # ANALYSIS, "Oracle and roll-in"
    *((ANALYSIS, (lambda key=key: table3_row(*key))) for key in TABLE3),
    (ANALYSIS, table3_text),
    (ANALYSIS, table3_roll_ins),
    (ANALYSIS, table3_last_epoch),
    (ANALYSIS, lambda: table3_seed_row("C", "coaching_x_valid_policy")),
    (ANALYSIS, lambda: table3_seed_row("CA", "annealed_coaching_x_valid_policy")),
    (ANALYSIS, table3_seeds_text),
    # ANALYSIS, "The recurrent model against the baseline on English at convergence" (its table:
    # tests/test_analysis_figures.py)
    (ANALYSIS, bootstrap_samples),
    (ANALYSIS, mpnet_short_lead),
    (ANALYSIS, mpnet_seeds),
    (ANALYSIS, lambda: f"The recurrent model's seed 2 ran to the 40-epoch cap (best dev at epoch {mpnet_cap()}, "
                       f"{mpnet_baseline_epochs()})"),
    (ANALYSIS, paper_objective_welsh),
    (ANALYSIS, uniform_converged),
    (ANALYSIS, welsh_options),
    (ANALYSIS, converged_tau),
    (ANALYSIS, mpnet_gain),
    (ANALYSIS, paper_objective_ewt),
    (ANALYSIS, options_ewt),
    (ANALYSIS, annealed_lead),
    (ANALYSIS, lambda: tagger_ewt("best dev UAS {tagged:.2f} against {plain:.2f}, ",
                                  "test UAS {tagged:.2f} against {plain:.2f} (LAS {tagged_las:.2f} against "
                                  "{plain_las:.2f}), {upos:.2f} % test UPOS")),
    (ANALYSIS, tagger_epochs),
    (ANALYSIS, tagger_welsh),
    (ANALYSIS, tagger_against_baseline),
    # BENCHMARKS, "Start-up of a cold allennlp predict"
    (BENCHMARKS, lambda: provenance("startup")),
    *((BENCHMARKS, (lambda name=name: startup_row(name))) for name in STARTUP_ARCHIVES),
    (BENCHMARKS, startup_text),
    (BENCHMARKS, startup_profile),
    (BENCHMARKS, startup_target),
    (BENCHMARKS, lambda: provenance("startup_changes")),
    (BENCHMARKS, startup_changes),
    (BENCHMARKS, startup_changes_target),
    (BENCHMARKS, startup_outside_main),
    # BENCHMARKS, "The mpnet features: bfloat16 and word-piece buckets"
    (BENCHMARKS, lambda: provenance("feature_speed")),
    (BENCHMARKS, feature_data),
    *((BENCHMARKS, (lambda setting=setting: feature_row(setting))) for setting in FEATURE_SETTINGS),
    (BENCHMARKS, feature_summary),
    (BENCHMARKS, feature_scale),
    (BENCHMARKS, feature_noise),
    (BENCHMARKS, feature_int8),
    (BENCHMARKS, feature_accuracy),
    (BENCHMARKS, english_parse_speed),
    (BENCHMARKS, english_parse_speed_batch_size),
    (BENCHMARKS, english_parse_speed_layers),
    (BENCHMARKS, english_parse_phases_layers),
    (BENCHMARKS, average_pieces_phases),
    # BENCHMARKS, "The English model over layers 2-5, trained"
    (BENCHMARKS, word_pieces_speed),
    (BENCHMARKS, min_pieces_speed),
    (BENCHMARKS, english_model_first_run),
    (BENCHMARKS, english_features_accuracy),
    (BENCHMARKS, english_model_speed),
    (BENCHMARKS, machine_that_day),
    # BENCHMARKS, "The parser service under load"
    (BENCHMARKS, lambda: provenance("serve_load")),
    (BENCHMARKS, serve_setup),
    *((BENCHMARKS, (lambda concurrency=concurrency: serve_row(concurrency))) for concurrency in (1, 8, 32)),
    (BENCHMARKS, serve_done),
    (BENCHMARKS, serve_first_run),
    (BENCHMARKS, model_thread),
    (USAGE, model_thread_usage),
    # ENHANCED, "Speed"
    (ENHANCED, enhanced_speed),
    (ENHANCED, enhanced_speed_real_edges),
    (ENHANCED, enhanced_speed_bf16_labels),
    (ENHANCED, enhanced_speed_separate_scores),
    (ENHANCED, enhanced_speed_24_epochs),
    (ENHANCED, enhanced_speed_converged),
    (ENHANCED, enhanced_parse_phases),
    (ENHANCED, parse_phases_earlier),
    (ENHANCED, encoder_200_screen),
    (ENHANCED, encoder_200_longer),
    (ENHANCED, enhanced_speed_batch_size),
    (USAGE, usage_batch_size),
]


def separate_graph_scores_screen() -> str:
    screen = load("enhanced/screens/separate_graph_scores.json")
    assert screen["config_differences"] == {"model.separate_graph_scores": [None, True]}
    by_epoch = ", ".join(f"{row['ELAS']:+.2f}" for row in screen["change_minus_baseline"])
    return (f"a {screen['epochs']}-epoch screen (`scripts/epoch_screen.py`, "
            f"`results/enhanced/screens/separate_graph_scores.json`) was even (dev ELAS, change minus baseline, by "
            f"epoch: {by_epoch})")


def extra_nsubj_recall(result: Dict) -> str:
    nsubj = result["gold_by_kind"]["extra:nsubj"]
    return f"{100 * nsubj['unlabelled_recall']:.1f} % ({100 * nsubj['labelled_recall']:.1f} % labelled)"


def separate_graph_scores_converged() -> str:
    new = load("enhanced/coach_valid_mpnet_enhanced_last_four.json")
    old = load("enhanced/coach_valid_mpnet_enhanced_last_four_shared_scores.json")
    assert new["used_config"]["model"]["separate_graph_scores"] is True
    assert old["used_config"]["model"]["separate_graph_scores"] is False
    assert new["seed"] == old["seed"] == 0 and new["budget"] == old["budget"]
    # the one difference in training (label_bfloat16_inference is off in both: parsing only)
    assert set(new["config_differences"]["changed"]) | {"model.separate_graph_scores"} == set(
        old["config_differences"]["changed"])
    errors = load("enhanced/errors/coach_valid_mpnet_enhanced_dev.json")
    assert errors["predicted"]["path"] == "experiments/enhanced_eval/coach_valid_mpnet_enhanced/dev_predictions.conllu"
    extra = errors["predicted_by_kind"]["extra"]

    def change(split: str, metric: str) -> str:
        return f"{100 * old[split][metric]:.2f} -> {100 * new[split][metric]:.2f}"

    return (f"it takes test ELAS from {100 * old['test']['ELAS']:.2f} to {100 * new['test']['ELAS']:.2f} (EULAS "
            f"{change('test', 'EULAS')}), the tree level (UAS {change('test', 'UAS')}, LAS {change('test', 'LAS')}); "
            f"dev ELAS {change('dev', 'ELAS')}. On dev it recalls {extra_nsubj_recall(errors)} of the "
            f"{errors['gold_by_kind']['extra:nsubj']['edges']} extra `nsubj` edges and predicts {extra['edges']:,} "
            f"extra edges at {100 * extra['labelled_precision']:.1f} % labelled precision")


def separate_graph_scores_without() -> str:
    baseline = load("enhanced/errors/coach_valid_mpnet_enhanced_epoch24_dev.json")
    extra = baseline["predicted_by_kind"]["extra"]
    return (f"the model without it, after 25 epochs, recalled {extra_nsubj_recall(baseline)} and predicted "
            f"{extra['edges']} extra edges at {100 * extra['labelled_precision']:.1f} %")


def separate_graph_scores_epochs30() -> str:
    screen = load("enhanced/screens/separate_graph_scores_epochs30.json")
    assert screen["config_differences"] == {"model.separate_graph_scores": [None, True]}
    differences = [row["ELAS"] for row in screen["change_minus_baseline"]]
    later = differences[6:]
    assert min(later) > 0 and len(differences) == screen["epochs"]
    return (f"over its first {screen['epochs']} epochs (`results/enhanced/screens/separate_graph_scores_epochs30.json`) "
            f"it is ahead in every epoch from the seventh, by {min(later):+.2f} to {max(later):+.2f} dev ELAS")


def separate_graph_scores_stop_bias() -> str:
    result = load("enhanced/stop_bias/separate_graph_scores_final_dev.json")
    assert result["model"]["sha256"] == load("enhanced/coach_valid_mpnet_enhanced_last_four.json")["model"]["sha256"]
    sweep = {row["stop_bias"]: 100 * row["ELAS"] for row in result["rows"]}
    biases = sorted(sweep)
    # flat: the best shift gains little over 0
    assert max(sweep.values()) - sweep[0.0] < 0.1
    return (f"Shifting its `STOP` score on dev moves ELAS little: {' / '.join(f'{sweep[bias]:.2f}' for bias in biases)} "
            f"at stop_bias {' / '.join(f'{bias:+g}' for bias in biases)}")


def readme_enhanced_rules() -> str:
    result = load("enhanced/enhanced_rules.json")
    rows = result["test_predictions"]["coach_valid_enhanced_shared_scores"]
    scores = {name: 100 * rows[name]["ELAS"] for name in ("none", "filled", "ref_dropped", "filled_ref_dropped")}
    assert scores["filled"] > scores["none"] and scores["ref_dropped"] > scores["none"]
    gold = result["rules_on_gold"]["test"]
    return (f"on the test prediction of `coach_valid_enhanced` (10 epochs, before separate graph scores: the row\n  "
            f"`coach_valid_enhanced_shared_scores`) the rules take ELAS from "
            f"{scores['none']:.2f} to {scores['filled_ref_dropped']:.2f} (filling alone {scores['filled']:.2f}, the "
            f"`ref` rule alone {scores['ref_dropped']:.2f}). On gold, filling writes "
            f"{100 * gold['lexical_fraction']:.2f} % of the test edges of those five relations exactly (given the "
            f"gold tree and the labels without their lexical part), and the `ref` rule takes out "
            f"{gold['of_which_dropped']} of the {gold['tree_edges_not_enhanced']} gold tree edges that are not "
            f"enhanced edges, and no other")


def rules_on_gold_train_dev() -> str:
    gold = load("enhanced/enhanced_rules.json")["rules_on_gold"]
    return (f"with them, filling gives back {100 * gold['train']['lexical_fraction']:.2f} % of train's and "
            f"{100 * gold['dev']['lexical_fraction']:.2f} % of dev's edges of the five relations from the gold "
            "graphs without their lexical part")


def rescored_rows() -> str:
    parts = []
    for row in ("coach_valid_enhanced_shared_scores", "coach_valid_mpnet_enhanced_last_four_shared_scores",
                "coach_valid_mpnet_enhanced_last_four", "graph_parser_mpnet_enhanced_last_four"):
        entries = load(f"enhanced/{row}.json")["rescored"]
        # one entry a rule change, the rows evaluated before 2026-11-27 under both, in order
        assert [entry["date"][:10] for entry in entries][-1] == "2026-11-28"
        chain = [entries[0]["before"]["ELAS"]] + [entry["after"]["ELAS"] for entry in entries]
        parts.append(f"`{row}` " + " -> ".join(f"{100 * value:.2f}" for value in chain))
    return "test ELAS " + ", ".join(parts) + " (dev as evaluated)"

def seed0_lead(suffix: str) -> Tuple[Dict, Dict, float]:
    """
    Seed 0 of the sequential parser's and the baseline's mpnet rows (`coach_valid_mpnet_enhanced` and
    `graph_parser_mpnet_enhanced`, each with `suffix`), scored with the same rules, and the sequential parser's
    lead in test ELAS points.
    """
    ours = load(f"enhanced/coach_valid_mpnet_enhanced{suffix}.json")
    baseline = load(f"enhanced/graph_parser_mpnet_enhanced{suffix}.json")
    assert ours["seed"] == baseline["seed"] == 0 and ours["rules"] == baseline["rules"]
    return ours, baseline, 100 * (ours["test"]["ELAS"] - baseline["test"]["ELAS"])


def baseline_seed0() -> str:
    ours, baseline, lead = seed0_lead("_last_four")
    return (f"Over the last four layers of mpnet (rows `..._last_four`, the mpnet configs before 2026-11-29), on "
            f"EWT, seed 0 each (at most 40 epochs, patience 5; it stopped after "
            f"{baseline['epochs_done']}), it scores {100 * baseline['test']['ELAS']:.2f} test ELAS (EULAS "
            f"{100 * baseline['test']['EULAS']:.2f}, UAS {100 * baseline['test']['UAS']:.2f}) against the sequential "
            f"parser's {100 * ours['test']['ELAS']:.2f} ({100 * ours['test']['EULAS']:.2f}, "
            f"{100 * ours['test']['UAS']:.2f}): {lead:+.2f} ELAS for the sequential parser on this seed, with the "
            "same rules over the output")


def three_seeds(row: str) -> List[Dict]:
    """Seeds 0, 1 and 2 of an enhanced row (`results/enhanced/<row>.json`, `<row>.seed1.json`, `<row>.seed2.json`)."""
    runs = [load(f"enhanced/{row}{suffix}.json") for suffix in ("", ".seed1", ".seed2")]
    assert [run["seed"] for run in runs] == [0, 1, 2]
    return runs


def ours_over_seeds() -> str:
    elas = [100 * run["test"]["ELAS"] for run in three_seeds("coach_valid_mpnet_enhanced_last_four")]
    return (f"The sequential parser's seeds 0, 1 and 2 score {', '.join(f'{x:.2f}' for x in elas)} test ELAS, "
            f"{statistics.mean(elas):.2f} ± {statistics.stdev(elas):.2f} (mean ± sample sd)")


def baseline_over_seeds() -> str:
    ours_elas = [100 * run["test"]["ELAS"] for run in three_seeds("coach_valid_mpnet_enhanced_last_four")]
    baseline = three_seeds("graph_parser_mpnet_enhanced_last_four")
    elas = [100 * run["test"]["ELAS"] for run in baseline]
    lead = statistics.mean(ours_elas) - statistics.mean(elas)
    every_seed = "each of its seeds above each of the baseline's" if min(ours_elas) > max(elas) else \
        "but not each of its seeds above each of the baseline's"
    stopped = ", ".join(f"seed {run['seed']} after {run['epochs_done']}" for run in baseline
                        if not run["finished_budget"])
    return (f"The baseline's seeds 0, 1 and 2 score {', '.join(f'{x:.2f}' for x in elas)} "
            f"({statistics.mean(elas):.2f} ± {statistics.stdev(elas):.2f}; stopped by patience: {stopped} epochs): "
            f"the sequential parser leads by {lead:+.2f} mean test ELAS, {every_seed}")


def scores_percent(run: Dict) -> Dict[str, float]:
    """An enhanced row's test ELAS, EULAS, UAS and LAS in %."""
    return {metric: 100 * run["test"][metric] for metric in ("ELAS", "EULAS", "UAS", "LAS")}


def layers_2_5_seed0() -> str:
    """Both mpnet rows over layers 2-5 (the configs as they ship since 2026-11-29), seed 0 each, beside seed 0 of
    the rows over the last four layers."""
    ours, baseline, lead = seed0_lead("")
    assert stopped_early(ours["stopped"]) and stopped_early(baseline["stopped"])
    [extension] = baseline["budget_extensions"]
    first = previous_json(extension["git_commit"], "enhanced/graph_parser_mpnet_enhanced.json")
    assert first["finished_budget"] and (extension["from_epochs"], extension["to_epochs"]) == (40, 60)
    old_ours, old_baseline, old_lead = seed0_lead("_last_four")
    test = scores_percent(baseline)
    ours_test = scores_percent(ours)
    return (f"Over layers 2-5 of mpnet, as the mpnet configs mix them since 2026-11-29 (rows "
            f"`coach_valid_mpnet_enhanced` and `graph_parser_mpnet_enhanced`), seed 0 each: the baseline ran its "
            f"whole budget of {extension['from_epochs']} epochs with its best dev ELAS at epoch "
            f"{first['best_epoch']} ({100 * first['test']['ELAS']:.2f} test ELAS then), so its budget was extended "
            f"to {extension['to_epochs']} (`EXTEND=1 EPOCHS={extension['to_epochs']}`), and it stopped by patience "
            f"after {baseline['epochs_done']}, its best at epoch {baseline['best_epoch']}: {test['ELAS']:.2f} test "
            f"ELAS (EULAS {test['EULAS']:.2f}, UAS {test['UAS']:.2f}, LAS {test['LAS']:.2f}) against the sequential "
            f"parser's {ours_test['ELAS']:.2f} ({ours_test['EULAS']:.2f}, {ours_test['UAS']:.2f}, "
            f"{ours_test['LAS']:.2f}; stopped by patience after {ours['epochs_done']}): {lead:+.2f} ELAS for the "
            f"sequential parser on this seed, less than the 0.5 that the issue asks of a 3-seed mean, and than its "
            f"{old_lead:+.2f} over the last four layers; the change of layers gave the baseline "
            f"{test['ELAS'] - scores_percent(old_baseline)['ELAS']:+.2f} test ELAS, the sequential parser "
            f"{ours_test['ELAS'] - scores_percent(old_ours)['ELAS']:+.2f}")


def layers_2_5_seed0_errors() -> str:
    """Where the seed-0 rows over layers 2-5 differ, edge by edge (scripts/enhanced_errors.py on their committed
    test predictions): the gold tree's edges, the gold edges off it, and the predicted edges off each own tree."""
    ours, baseline, _ = seed0_lead("")
    errors = {}
    for name, run in (("ours", ours), ("baseline", baseline)):
        errors[name] = load(f"enhanced/errors/{run['row']}_test.json")
        assert errors[name]["predicted"] == run["test_predictions"]
        assert errors[name]["gold"]["path"] == "data/UD_English-EWT/en_ewt-ud-test.conllu"

    def pct(value: float) -> str:
        return f"{100 * value:.2f}"

    def f1(result: Dict) -> float:
        recall = result["gold_extra"]["labelled_recall"]
        precision = result["predicted_by_kind"]["extra"]["labelled_precision"]
        return 2 * precision * recall / (precision + recall)

    ours_errors, base_errors = errors["ours"], errors["baseline"]
    assert ours_errors["gold_extra"]["edges"] == base_errors["gold_extra"]["edges"]

    def right(result: Dict, kind: Optional[str]) -> int:
        """Gold edges recalled with their labels: on the gold tree (`kind` "tree"), or off it (None)."""
        counts = result["gold_by_kind"]["tree"] if kind else result["gold_extra"]
        return round(counts["labelled_recall"] * counts["edges"])

    tree, extra = (right(ours_errors, kind) - right(base_errors, kind) for kind in ("tree", None))
    return (f"Edge by edge (`scripts/enhanced_errors.py` on the two seed-0 test predictions, "
            f"`results/enhanced/errors/coach_valid_mpnet_enhanced_test.json` and "
            f"`graph_parser_mpnet_enhanced_test.json`; a description of rows already run, nothing was chosen on it), "
            f"the sequential parser gets {tree + extra} more gold edges right with their labels than the baseline, "
            f"{tree} of them among the gold tree's {ours_errors['gold_by_kind']['tree']['edges']} edges (labelled "
            f"recall {pct(ours_errors['gold_by_kind']['tree']['labelled_recall'])} against "
            f"{pct(base_errors['gold_by_kind']['tree']['labelled_recall'])} %) and {extra} among the "
            f"{ours_errors['gold_extra']['edges']} gold edges off it (second heads, `ref`: "
            f"{pct(ours_errors['gold_extra']['labelled_recall'])} against "
            f"{pct(base_errors['gold_extra']['labelled_recall'])} %); but it adds "
            f"{ours_errors['predicted_by_kind']['extra']['edges']} edges off its own tree at "
            f"{pct(ours_errors['predicted_by_kind']['extra']['labelled_precision'])} % labelled precision, the "
            f"baseline {base_errors['predicted_by_kind']['extra']['edges']} at "
            f"{pct(base_errors['predicted_by_kind']['extra']['labelled_precision'])} %, so on those edges alone "
            f"(the F1 of the two, an approximation, as the edges off the gold tree and off a predicted one are not "
            f"the same set) the baseline is ahead, {pct(f1(base_errors))} against {pct(f1(ours_errors))}: the "
            "graph phase finds more second heads than the one-step baseline and adds more wrong ones")


NUMBER_WORDS = {1: "one", 2: "two", 3: "three"}


def and_list(items: List[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def layers_2_5_seeds() -> str:
    """The seeds trained so far of both mpnet rows over layers 2-5 beyond seed 0, and those still to train."""
    rows = {"coach_valid_mpnet_enhanced": "the sequential parser", "graph_parser_mpnet_enhanced": "the baseline"}
    paths = {row: [f"enhanced/{row}{f'.seed{seed}' if seed else ''}.json" for seed in (0, 1, 2)] for row in rows}
    runs = {row: [load(path) for path in paths[row] if (RESULTS / path).exists()] for row in rows}
    ours_seed1 = runs["coach_valid_mpnet_enhanced"][1]
    [extension] = ours_seed1["budget_extensions"]
    first = previous_json(extension["git_commit"], "enhanced/coach_valid_mpnet_enhanced.seed1.json")
    assert first["finished_budget"] and first["best_epoch"] == ours_seed1["best_epoch"]
    assert stopped_early(ours_seed1["stopped"]) and first["test"] == ours_seed1["test"]
    test = scores_percent(ours_seed1)
    so_far = []
    missing = []
    elas_of = {}
    for row, name in rows.items():
        elas = elas_of[row] = [scores_percent(run)["ELAS"] for run in runs[row]]
        seeds = and_list([str(run["seed"]) for run in runs[row]])
        mean = f" (mean {statistics.mean(elas):.2f})" if len(elas) > 1 else ""
        so_far.append(f"{name}'s seed{'s' if len(elas) > 1 else ''} {seeds} "
                      f"{and_list([f'{x:.2f}' for x in elas])}{mean}")
        left = [str(seed) for seed in (0, 1, 2) if seed not in [run["seed"] for run in runs[row]]]
        if left:
            missing.append(f"{name}'s seed{'s' if len(left) > 1 else ''} {and_list(left)}")
    baseline_seed1 = runs["graph_parser_mpnet_enhanced"][1]
    assert baseline_seed1["seed"] == 1 and stopped_early(baseline_seed1["stopped"])
    ours_elas, baseline_elas = elas_of["coach_valid_mpnet_enhanced"], elas_of["graph_parser_mpnet_enhanced"]
    # the lead over the seeds both rows have, so that a seed trained for one row alone does not move it
    common = min(len(ours_elas), len(baseline_elas))
    lead = statistics.mean(ours_elas[:common]) - statistics.mean(baseline_elas[:common])
    over = (f"the {NUMBER_WORDS[common]} seeds each" if len(ours_elas) == len(baseline_elas)
            else f"seeds {and_list([str(seed) for seed in range(common)])} of each")
    every_seed = ""
    if common == 3:
        every_seed = (", each of its seeds above each of the baseline's" if min(ours_elas) > max(baseline_elas)
                      else ", but not each of its seeds above each of the baseline's")
    seed2 = {row: [run for run in runs[row] if run["seed"] == 2] for row in rows}
    return (f"Seed 1 of the sequential parser over layers 2-5 ran its budget of {extension['from_epochs']} epochs "
            f"with its best dev ELAS at epoch {first['best_epoch']}, so its budget was extended to "
            f"{extension['to_epochs']} and it stopped by patience after {ours_seed1['epochs_done']}, the same best "
            f"epoch: {test['ELAS']:.2f} test ELAS (EULAS {test['EULAS']:.2f}, UAS {test['UAS']:.2f}, LAS "
            f"{test['LAS']:.2f}). "
            + "".join(seed_sentence("Its seed 2", run, "as seed 1 needed")
                      for run in seed2["coach_valid_mpnet_enhanced"])
            + seed_sentence("The baseline's seed 1", baseline_seed1, "as its seed 0 needed")
            + "".join(seed_sentence("Its seed 2", run, "as its seed 0 needed")
                      for run in seed2["graph_parser_mpnet_enhanced"])
            + f"Test ELAS{' so far' if missing else ''}: {'; '.join(so_far)}"
            + (f"; still to train: {', '.join(missing)}" if missing else "")
            + f". Over {over} the sequential parser leads by {lead:+.2f} mean test ELAS{every_seed}")


def seed_sentence(subject: str, run: Dict, budget_reason: str) -> str:
    """One seed's budget, stop and test scores, as a sentence."""
    test = scores_percent(run)
    if stopped_early(run["stopped"]):
        stop = f"stopped by patience after {run['epochs_done']} epochs"
    else:
        stop = "ran its whole budget, not converged"
    precision = ""
    if bfloat16_fell_back(run["used_config"]["model"].get("encoder", {}), run["machine"]):
        precision = (f"; it ran on a CPU without native bfloat16 ({run['machine']['cpu_capability']}), so its "
                     "encoder trained and parsed in float32 (`modules/precision.py`)")
    return (f"{subject} ({run['budget']['epochs']} epochs' budget, {budget_reason}) {stop}, best at "
            f"{run['best_epoch']}: {test['ELAS']:.2f} test ELAS (EULAS {test['EULAS']:.2f}, UAS {test['UAS']:.2f}, "
            f"LAS {test['LAS']:.2f}){precision}. ")


def layers_2_5_seed0_bootstrap() -> str:
    """The paired bootstrap of the two seed-0 rows over layers 2-5, on their committed test predictions."""
    result = load("significance/ewt_enhanced_mpnet_seed0.json")
    ours, baseline, lead = seed0_lead("")
    assert [parser["sha256"] for parser in result["parsers"]] == [
        ours["test_predictions"]["sha256"], baseline["test_predictions"]["sha256"]]
    assert round(100 * result["ELAS"]["difference"], 2) == round(lead, 2)
    low, high = (100 * bound for bound in result["ELAS"]["interval_95"])
    return (f"Resampling the test sentences (a paired bootstrap, `scripts/paired_bootstrap.py`, "
            f"`results/significance/ewt_enhanced_mpnet_seed0.json`, {result['samples']} samples) puts the seed-0 "
            f"lead's 95 % interval at {low:+.2f} to {high:+.2f} ELAS, the sequential parser not ahead in "
            f"{100 * result['ELAS']['share_not_leading']:.2f} % of the samples: the test sentences alone could "
            "leave it at about zero or double it, before the seeds' own spread")


def baseline_without_features() -> str:
    run = load("enhanced/graph_parser_enhanced.json")
    # its first run (0decc4e): a budget of 40 epochs, its best dev ELAS at the last, so not converged; trained
    # again from the start with a budget of 80
    first = previous_json("0decc4e", "enhanced/graph_parser_enhanced.json")
    assert run["seed"] == first["seed"] == 0 and first["finished_budget"]
    assert first["best_epoch"] == first["epochs_done"] == first["budget"]["epochs"] == 40
    assert run["budget"]["epochs"] == 80 and "budget_extensions" not in run and not run["finished_budget"]
    test = scores_percent(run)
    return (f"Without pretrained features (the same encoder trained from scratch), the baseline's seed 0 first ran "
            f"a budget of {first['epochs_done']} epochs with its best validation ELAS at the last "
            f"({100 * first['best_validation']['ELAS']:.2f}: still rising, so not converged; "
            f"{100 * first['test']['ELAS']:.2f} test ELAS then), so it was trained again from the start with a budget "
            f"of {run['budget']['epochs']} (`EPOCHS={run['budget']['epochs']} ROWS=graph_parser_enhanced:0 bash "
            f"scripts/enhanced_rows.sh`, {run['train_seconds_per_epoch'] / 60:.1f} min an epoch): it stopped by "
            f"patience after {run['epochs_done']} epochs, its best validation ELAS at epoch {run['best_epoch']} "
            f"({100 * run['best_validation']['ELAS']:.2f}), and scores {test['ELAS']:.2f} test ELAS (EULAS "
            f"{test['EULAS']:.2f}, UAS {test['UAS']:.2f}, LAS {test['LAS']:.2f}). " + first_run_was_better(run, first))


def first_run_was_better(run: Dict, first: Dict) -> str:
    """The sentence on the baseline's first run (no early stopping), which did better than its rerun."""
    ours = 100 * load("enhanced/coach_valid_enhanced.json")["test"]["ELAS"]
    first_test, test = 100 * first["test"]["ELAS"], 100 * run["test"]["ELAS"]
    assert first["best_validation"]["ELAS"] > run["best_validation"]["ELAS"] and first_test > test
    return (f"Its first run, spending its whole budget, reached a better dev and test ELAS than the rerun that "
            f"patience stopped on its plateau: the rerun is the row, by the protocol of every row (at most its "
            f"budget, patience 5), and the sequential parser's lead below is {ours - test:+.2f} ELAS against it, "
            f"{ours - first_test:+.2f} against the first run")


def ours_without_features() -> str:
    run = load("enhanced/coach_valid_enhanced.json")
    baseline = load("enhanced/graph_parser_enhanced.json")
    # its first budget, cut to fit a session, as evaluated then (665c58c); then extended to 40
    first = previous_json("665c58c", "enhanced/coach_valid_enhanced.json")
    assert run["seed"] == first["seed"] == 0 and first["finished_budget"] and first["epochs_done"] == 24
    assert [(e["from_epochs"], e["to_epochs"]) for e in run["budget_extensions"]] == [(24, 40)]
    # both rows converged: stopped by patience before their budgets
    assert run["budget"]["epochs"] == 40 and not run["finished_budget"] and not baseline["finished_budget"]
    curve = [100 * row["dev_ELAS"] for row in run["curve"]]
    best = max(curve)
    assert best == 100 * run["best_validation"]["ELAS"] and curve.index(best) + 1 == run["best_epoch"]
    assert curve[:24] == [100 * row["dev_ELAS"] for row in first["curve"]]
    baseline_best = 100 * baseline["best_validation"]["ELAS"]
    test = scores_percent(run)
    baseline_test = 100 * baseline["test"]["ELAS"]
    return (f"The sequential parser's row without features (`coach_valid_enhanced`, seed 0) takes "
            f"{run['train_seconds_per_epoch'] / 60:.1f} min an epoch on 2 cores (the baseline "
            f"{baseline['train_seconds_per_epoch'] / 60:.1f}), so it ran a first budget of {first['epochs_done']} "
            f"epochs in one session ({100 * first['test']['ELAS']:.2f} test ELAS then) and went on to "
            f"{run['budget']['epochs']} in the next from its last checkpoint (`EXTEND=1 EPOCHS=40 bash "
            f"scripts/enhanced_rows.sh`): it stopped by patience after {run['epochs_done']} epochs, its best "
            f"validation ELAS (the trainer's count, before the predictor's rules) at epoch {run['best_epoch']} "
            f"({best:.2f}, against the baseline's {baseline_best:.2f} at its epoch {baseline['best_epoch']}), and it "
            f"scores {test['ELAS']:.2f} test ELAS "
            f"(EULAS {test['EULAS']:.2f}, UAS {test['UAS']:.2f}, LAS {test['LAS']:.2f}): "
            f"{test['ELAS'] - baseline_test:+.2f} against the baseline's {baseline_test:.2f}, one seed each; "
            "both converged (stopped by patience)")


def bf16_pair(name: str, setting: str) -> Tuple[Dict, Dict, Dict, List[float], List[float], int]:
    """A `benchmarks/bf16_labels.py` result: it, its float32 and bfloat16 rows, their seconds, and in how many
    interleaved pairs bfloat16 was faster."""
    result = load(f"benchmarks/{name}")
    rows = {row["setting"]: row for row in result["rows"]}
    f32, bf16 = rows["float32"], rows[setting]
    assert result["native_bfloat16"] and f32["labels_changed_from_float32"] == f32["deps_changed_from_float32"] == 0
    f32_seconds, bf16_seconds = f32["seconds"], bf16["seconds"]
    return result, f32, bf16, f32_seconds, bf16_seconds, sum(b < f for b, f in zip(bf16_seconds, f32_seconds))


def bf16_labels() -> str:
    result, f32, bf16, f32_seconds, bf16_seconds, faster = bf16_pair("bf16_labels_enhanced.json", "labels")
    return (f"on EWT dev {bf16['labels_changed_from_float32']} of {result['words']:,} basic labels and "
            f"{bf16['deps_changed_from_float32']} words' DEPS changed, LAS {100 * f32['LAS']:.2f} -> "
            f"{100 * bf16['LAS']:.2f}, ELAS {100 * f32['ELAS']:.2f} -> {100 * bf16['ELAS']:.2f}; the model alone "
            f"parsed dev in {statistics.median(bf16_seconds):.2f} s against {statistics.median(f32_seconds):.2f} s, "
            f"medians of {len(f32_seconds)} interleaved runs, faster in {faster} of {len(f32_seconds)} pairs "
            "(`results/benchmarks/bf16_labels_enhanced.json`)")


def bf16_arcs() -> str:
    result, f32, bf16, f32_seconds, bf16_seconds, faster = bf16_pair("bf16_arcs.json", "arcs")
    assert result["option"] == "model.arc_bfloat16_inference" and f32["heads_changed_from_float32"] == 0
    return (f"on EWT dev {bf16['heads_changed_from_float32']} of {result['words']:,} heads, "
            f"{bf16['labels_changed_from_float32']} basic labels and {bf16['deps_changed_from_float32']} words' DEPS "
            f"changed, UAS {100 * f32['UAS']:.2f} -> {100 * bf16['UAS']:.2f}, ELAS {100 * f32['ELAS']:.2f} -> "
            f"{100 * bf16['ELAS']:.2f}; the model alone parsed dev in {statistics.median(bf16_seconds):.2f} s against "
            f"{statistics.median(f32_seconds):.2f} s, medians of {len(f32_seconds)} interleaved runs of "
            f"{min(f32_seconds + bf16_seconds):.1f} to {max(f32_seconds + bf16_seconds):.1f} s, faster in {faster} of "
            f"{len(f32_seconds)} pairs, and the initial scores alone in those parses took "
            f"{statistics.median(bf16['part_seconds']):.2f} s against {statistics.median(f32['part_seconds']):.2f} s "
            f"(`results/benchmarks/bf16_arcs.json`, {result['date'][:10]})")


def train_pass_enhanced() -> Dict[str, List[Dict]]:
    result = load("benchmarks/train_pass_enhanced_2026-11-27.json")
    by_setting: Dict[str, List[Dict]] = {}
    for row in result["rows"]:
        by_setting.setdefault(row["setting"], []).append(row)
    return by_setting


def train_pass_estimates(rows: List[Dict]) -> str:
    return " / ".join(f"{row['training_pass_estimate_minutes']:.2f}" for row in rows)


def train_pass_longest(rows: List[Dict]) -> str:
    return " / ".join(f"{row['longest_seconds']:.1f}" for row in rows)


def train_pass_bias() -> str:
    rows = train_pass_enhanced()
    before, after = rows["before"], rows["add_bias_false"]
    return (f"The training pass estimate (`profile_train.py --every 24 --tail 3`, rounds 1 / 2 / 3) went from "
            f"{train_pass_estimates(before)} min to {train_pass_estimates(after)} min, inside the rounds' spread; "
            f"the 3 longest batches from {train_pass_longest(before)} s to {train_pass_longest(after)} s")


def train_pass_labels() -> str:
    rows = train_pass_enhanced()
    plain, labels = rows["add_bias_false"], rows["label_bfloat16_training"]
    ratio = statistics.mean(row["training_pass_estimate_minutes"] for row in labels[1:]) / statistics.mean(
        row["training_pass_estimate_minutes"] for row in plain[1:])
    return (f"With it the estimate was {train_pass_estimates(labels)} min against {train_pass_estimates(plain)} "
            f"without, rounds 1 / 2 / 3 ({ratio:.2f} of the time in rounds 2 and 3; in round 1 the float32 "
            "settings were slower than in the later rounds)")


def train_pass_epoch() -> str:
    result = load("benchmarks/train_pass_enhanced_2026-11-27.json")
    subset, elas = result["real_epoch_seconds_subset_6_epochs"], result["subset_dev_ELAS"]
    return (f"one epoch of `allennlp train` on all of EWT train took {result['real_epoch_seconds_full_train_after_add_bias']:.0f} s "
            f"with validation (label products in float32, as shipped); six epochs on its first 1,600 sentences "
            f"{min(subset):.1f} to {max(subset):.1f} s each while dev ELAS rose from {100 * elas[0]:.1f} to "
            f"{100 * elas[-1]:.1f}: the epoch's time does not grow as the model learns")


def epoch_time_mpnet() -> str:
    rows = {row["name"]: row for row in load("benchmarks/epoch_time_enhanced_mpnet.json")["rows"]}
    shipped, fast = rows["mpnet_enhanced"], rows["mpnet_enhanced_fast"]
    return (f"as shipped {shipped['epoch_seconds'] / 60:.2f} min (training pass {shipped['training_pass_seconds'] / 60:.2f}, "
            f"validation {shipped['validation_seconds'] / 60:.2f}); with the recurrent weight model's 64-unit cell and "
            "bfloat16 updates (as `coach_valid`) and `label_bfloat16_training` "
            f"{fast['epoch_seconds'] / 60:.2f} min ({fast['training_pass_seconds'] / 60:.2f}, "
            f"{fast['validation_seconds'] / 60:.2f}), {fast['epoch_seconds'] / shipped['epoch_seconds']:.2f} of the time")

QUOTES.append((ENHANCED, readme_enhanced_rules))
QUOTES.append((ENHANCED, rescored_rows))
QUOTES.append((ENHANCED, rules_on_gold_train_dev))
QUOTES.append((ENHANCED, baseline_seed0))
QUOTES.append((ENHANCED, ours_over_seeds))
QUOTES.append((ENHANCED, baseline_over_seeds))
QUOTES.append((ENHANCED, layers_2_5_seed0_bootstrap))
QUOTES.append((ENHANCED, layers_2_5_seed0))
QUOTES.append((ENHANCED, layers_2_5_seed0_errors))
QUOTES.append((ENHANCED, layers_2_5_seeds))
QUOTES.append((ENHANCED, baseline_without_features))
QUOTES.append((ENHANCED, ours_without_features))
QUOTES.append((ENHANCED, bf16_labels))
QUOTES.append((ENHANCED, bf16_arcs))
QUOTES.append((ENHANCED, separate_graph_scores_screen))
QUOTES.append((ENHANCED, separate_graph_scores_converged))
QUOTES.append((ENHANCED, separate_graph_scores_without))
QUOTES.append((ENHANCED, separate_graph_scores_stop_bias))
QUOTES.append((ENHANCED, separate_graph_scores_epochs30))
QUOTES.append((BENCHMARKS, train_pass_bias))
QUOTES.append((BENCHMARKS, train_pass_labels))
QUOTES.append((BENCHMARKS, train_pass_epoch))
QUOTES.append((BENCHMARKS, epoch_time_mpnet))


def quote_id(index: int) -> str:
    document, build = QUOTES[index]
    return f"{document.name}-{index}-{build.__name__ if build.__name__ != '<lambda>' else 'quote'}"


@pytest.mark.parametrize("index", range(len(QUOTES)), ids=quote_id)
def test_the_document_quotes_the_figure_as_its_json_gives_it(index):
    document, build = QUOTES[index]
    expected = " ".join(build().split())
    assert expected in flat(document), expected


def test_every_difference_in_analysis_is_checked():
    """
    Every signed difference that ANALYSIS.md quotes (`+1.12`, `-0.5`) is part of a checked quote, except the
    paper's own figures: a new one needs its entry in QUOTES.
    """
    checked = " ".join(" ".join(build().split()) for document, build in QUOTES if document == ANALYSIS)
    text = flat(ANALYSIS)
    # the paper's figures, which no JSON here gives
    paper = {"+0.02", "-10"}
    # the convergence table's differences and intervals: tests/test_analysis_figures.py
    table = re.search(r"\| comparison \|.*?\*\*The project's target", text).group(0)
    unchecked = [difference for difference in re.findall(r"(?<![\w.])[+-]\d+(?:\.\d+)?\b", text)
                 if difference not in paper and difference not in checked and difference not in table]
    assert not unchecked, unchecked


# --- generated docs and paths -----------------------------------------------------------------------------------

def test_docs_results_is_what_the_generator_writes(tmp_path):
    from seqgraph_experiments.report import write_report

    write_report(RESULTS, tmp_path / "RESULTS.md")
    generated = (tmp_path / "RESULTS.md").read_text(encoding="utf-8")
    assert generated == (ROOT / "docs" / "RESULTS.md").read_text(encoding="utf-8"), (
        "docs/RESULTS.md differs from the JSONs: .venv/bin/python scripts/run_experiments.py --regenerate")


# an absolute path: a `/` that starts a word, followed by a name (`UAS/LAS`, ` / `, URLs are not)
ABSOLUTE_PATH = re.compile(r"(?<![^\s'\"`=(\[])/(?:[\w.+-]+/)*[\w.+-]+")


@pytest.mark.parametrize("document", DOCS, ids=lambda path: path.name)
def test_no_document_names_an_absolute_path(document):
    """A command or path that names one machine's folders (`/work/...`, `/tmp/...`) runs on no clone."""
    found = []
    for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), 1):
        found += [f"{document.name}:{number}: {match}" for match in ABSOLUTE_PATH.findall(line)]
    assert not found, found


def test_the_report_renders_recorded_absolute_paths_as_a_clone_names_them(tmp_path):
    from seqgraph_experiments.report import clone_path, clone_paths

    root = Path("/somewhere/checkout")
    assert clone_path("/other/tree/experiments/ewt_converged/row/model/model.tar.gz", root) == (
        "experiments/ewt_converged/row/model/model.tar.gz")
    assert clone_path("/somewhere/checkout/data/x.conllu", root) == "data/x.conllu"
    assert clone_path("/tmp/scratch", root) == "DIR"
    command = ("scripts/bench_speed.py --model recurrent=/work/a/experiments/s/r/model/model.tar.gz --parse "
               "data/UD_English-EWT/en_ewt-ud-test.conllu --output-file /work/b/experiments/p.conllu "
               "--weights 'UAS/LAS of ROW[.seedN]/model/ (PYTHONPATH=/tmp/x)'")
    assert clone_paths(command, root) == (
        "scripts/bench_speed.py --model recurrent=experiments/s/r/model/model.tar.gz --parse "
        "data/UD_English-EWT/en_ewt-ud-test.conllu --output-file experiments/p.conllu "
        "--weights 'UAS/LAS of ROW[.seedN]/model/ (PYTHONPATH=DIR)'")


def test_the_speed_section_names_the_runs_it_needs_relative_to_the_repository(tmp_path):
    from seqgraph_experiments.report import write_report

    speed = json.loads((RESULTS / "speed.json").read_text(encoding="utf-8"))
    speed["rows"][0]["archive"] = "/elsewhere/experiments/ewt_converged/coach_valid/model/model.tar.gz"
    speed["command"] = f"scripts/bench_speed.py --model recurrent={speed['rows'][0]['archive']}"
    (tmp_path / "speed.json").write_text(json.dumps(speed))
    write_report(tmp_path, tmp_path / "RESULTS.md")
    report = (tmp_path / "RESULTS.md").read_text(encoding="utf-8")
    assert not ABSOLUTE_PATH.search(report)
    assert ".venv/bin/python scripts/bench_speed.py --model recurrent=experiments/ewt_converged/coach_valid/model/" \
           "model.tar.gz" in report
    assert "`experiments/ewt_converged/coach_valid/model/model.tar.gz`" in report
    assert "`scripts/run_experiments.py` writes each row's" in report
