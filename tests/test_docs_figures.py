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


def startup_change_rows() -> Dict[str, Dict]:
    """`benchmarks/startup.py --code-ref f9f6249 --code-ref 86614e8`: the rows before both changes, with the first, with both."""
    result = load("benchmarks/startup_changes.json")
    rows = {row["code"]: row for row in result["rows"]}
    assert result["code_refs"] == ["f9f6249", "86614e8"] and set(rows) == {"f9f6249", "86614e8", "working tree"}
    for row in rows.values():
        assert len(row["all_startup_seconds"]) == result["repeats"]
        assert row["startup_seconds"] == statistics.median(row["all_startup_seconds"])
    return {"before": rows["f9f6249"], "load": rows["86614e8"], "both": rows["working tree"]}


def startup_now() -> str:
    """Today's start-up: the newest code of `startup_changes.json` (with both changes), its median and range."""
    both = startup_change_rows()["both"]
    seconds = both["all_startup_seconds"]
    return (f"a `coach_valid_mpnet` archive, {len(seconds)} runs: {both['startup_seconds']:.2f} s "
            f"({min(seconds):.2f}-{max(seconds):.2f})")


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


INT8_SPEED = "benchmarks/english_parse_speed_cpu_paths.json"
INT8_ROWS = (("as_it_is", "auto", "native bfloat16", "int8 (auto)"),
             ("as_it_is", "as_trained", "native bfloat16", "bfloat16 (as trained)"),
             ("avx2", "auto", "held to AVX2", "int8 (auto)"),
             ("avx2", "as_trained", "held to AVX2", "float32 (as trained, bfloat16 not native)"))


def speed_row_cells(small: Dict, large: Dict) -> str:
    """The cells of a speed row: sentences/s at batch sizes 64 and 1024, the start-ups' range, UAS and LAS at 1024."""
    assert small["predicted_trees"] == large["predicted_trees"] == 2077
    startups = sorted(f"{row['startup_seconds']:.1f}" for row in (small, large))
    startup = startups[0] if startups[0] == startups[1] else "-".join(startups)
    return (f"{small['sentences_per_second_without_startup']:.1f} | {large['sentences_per_second_without_startup']:.1f} | "
            f"{startup} | {large['scores']['UAS']:.2f} | {large['scores']['LAS']:.2f} |")


def int8_speed_table() -> str:
    rows = load(INT8_SPEED)["rows"]
    lines = []
    for path, setting, path_label, label in INT8_ROWS:
        small, large = (rows[f"{setting}_batch_{size}_on_{path}"] for size in (64, 1024))
        lines.append(f"| {path_label} | {label} | " + speed_row_cells(small, large))
    return " ".join(lines)


def int8_speed_ratios() -> str:
    rows = load(INT8_SPEED)["rows"]

    def speed(setting: str, path: str) -> float:
        return rows[f"{setting}_batch_1024_on_{path}"]["sentences_per_second_without_startup"]

    def differences(path: str) -> str:
        int8, trained = (rows[f"{setting}_batch_1024_on_{path}"]["scores"] for setting in ("auto", "as_trained"))
        assert all(abs(int8[metric] - trained[metric]) <= 0.1 for metric in ("UAS", "LAS"))
        return f"{int8['UAS'] - trained['UAS']:+.2f} and {int8['LAS'] - trained['LAS']:+.2f}".replace("+", "")
    return (f"int8 parses {speed('auto', 'avx2') / speed('as_trained', 'avx2'):.2f} times as fast as float32 on the "
            f"AVX2 path and {speed('auto', 'as_it_is') / speed('as_trained', 'as_it_is'):.2f} times as fast as "
            "bfloat16 on the native one (with `--batch-size 1024`), with UAS and LAS within 0.1 of float32's "
            f"features on either (AVX2: {differences('avx2')}; native, against bfloat16: {differences('as_it_is')})")


def int8_small_model() -> str:
    rows = load("benchmarks/small_parse_speed_cpu_paths.json")["rows"]

    def speed(size: int, path: str) -> str:
        return f"{rows[f'as_trained_batch_{size}_on_{path}']['sentences_per_second_without_startup']:.1f}"
    return (f"parsed at {speed(64, 'avx2')} sentences/s with `--batch-size 64` and {speed(1024, 'avx2')} with 1024 "
            f"on the AVX2 path, {speed(64, 'as_it_is')} and {speed(1024, 'as_it_is')} on the native one")


def int8_phases_table() -> str:
    lines = []
    for path, path_label in (("avx2", "held to AVX2"), ("as_it_is", "native bfloat16")):
        for setting, label in (("as_trained", "float32" if path == "avx2" else "bfloat16"), ("int8", "int8")):
            result = load(f"benchmarks/english_parse_phases_{setting}_on_{path}.json")
            seconds = result["seconds"]
            assert result["batch_size"] == 1024 and result["features_precision"] == "as_trained"
            lines.append(f"| {path_label} | {label} | {result['total_seconds']:.1f} | " + " | ".join(
                f"{seconds[phase]:.1f}" for phase in ("transformer", "encoder", "tree_decoder", "embedding",
                                                      "batching", "labels")) + " |")
    return " ".join(lines)


def int8_encoder_table() -> str:
    rows = load("benchmarks/english_parse_speed_avx2_int8_encoder.json")["rows"]
    lines = []
    for setting, label in (("auto", "int8 and int8 (auto)"), ("as_trained", "float32 and float32 (as trained)")):
        small, large = rows[f"{setting}_batch_64"], rows[f"{setting}_batch_1024"]
        assert small["cpu_path"] == large["cpu_path"] == "avx2"
        lines.append(f"| {label} | " + speed_row_cells(small, large))
    return " ".join(lines)


def int8_encoder_small() -> str:
    small = load("benchmarks/small_parse_speed_avx2_int8_encoder.json")["rows"]
    assert all(row["cpu_path"] == "avx2" for row in small.values())

    def speed(name: str) -> str:
        return f"{small[name]['sentences_per_second_without_startup']:.1f}"
    return (f"parsed at {speed('auto_batch_64')} sentences/s with `--batch-size 64` and {speed('auto_batch_1024')} "
            f"with 1024, against {speed('as_trained_batch_64')} and {speed('as_trained_batch_1024')} as trained")


def int8_encoder_welsh() -> str:
    welsh = load("benchmarks/welsh_parse_speed_int8_encoder.json")["rows"]
    assert all(row["cpu_path"] == "avx2" and row["batch_size"] == 64 for row in welsh.values())
    int8, trained = welsh["auto"]["scores"], welsh["as_trained"]["scores"]
    return (f"UAS / LAS {int8['UAS']:.2f} / {int8['LAS']:.2f} in int8 against {trained['UAS']:.2f} / "
            f"{trained['LAS']:.2f} as trained, at {welsh['auto']['sentences_per_second_without_startup']:.1f} "
            f"sentences/s against {welsh['as_trained']['sentences_per_second_without_startup']:.1f}")


def int8_encoder_native() -> str:
    rows = load("benchmarks/english_parse_speed_native_int8_encoder.json")["rows"]
    assert all(row["cpu_path"] == "as_it_is" and row["batch_size"] == 1024 for row in rows.values())
    return (f"{rows['auto']['sentences_per_second_without_startup']:.1f} sentences/s against "
            f"{rows['int8_encoder']['sentences_per_second_without_startup']:.1f} with `encoder_precision: \"int8\"`")


def startup_english() -> str:
    native, avx2 = load("benchmarks/startup_english.json"), load("benchmarks/startup_english_avx2.json")
    assert native["environment"] == {} and avx2["environment"] == {"ONEDNN_MAX_CPU_ISA": "AVX2",
                                                                   "ATEN_CPU_CAPABILITY": "avx2"}
    rn, ra = native["rows"][0], avx2["rows"][0]
    imn, ima = native["import_seconds_before_main"], avx2["import_seconds_before_main"]
    pn, pa = rn["phase_seconds_estimated"], ra["phase_seconds_estimated"]
    return (f"{rn['startup_seconds']:.2f} s, and {ra['startup_seconds']:.2f} s on the CPU held to AVX2. AllenNLP's own "
            f"imports before its `main` took {imn['allennlp.commands']:.2f} s ({ima['allennlp.commands']:.2f} s): spaCy "
            f"{imn['spacy']:.2f}, torchvision {imn['torchvision']:.2f} (torch._dynamo {imn['torch._dynamo']:.2f} of it), "
            f"torch {imn['torch']:.2f}, scikit-learn {imn['sklearn']:.2f}; what is left, "
            f"{rn['startup_seconds'] - imn['allennlp.commands']:.2f} s "
            f"({ra['startup_seconds'] - ima['allennlp.commands']:.2f} s), is mostly the archive: its extraction "
            f"{pn['archive extraction']:.2f} s ({pa['archive extraction']:.2f}), the model built {pn['model built']:.2f} s "
            f"({pa['model built']:.2f}), its state read and loaded {pn['state read'] + pn['state loaded']:.2f} s "
            f"({pa['state read'] + pa['state loaded']:.2f})")


def parser_startup() -> str:
    result = load("benchmarks/parser_startup.json")
    seconds = result["seconds"]
    return (f"`Parser.from_archive` and the first parse took {seconds['from_archive_and_first_parse']:.2f} s, after "
            f"importing the package in {seconds['import']:.2f} s; a process that only imports `allennlp.commands` takes "
            f"{result['allennlp_imports_process_seconds']:.2f} s from start to exit, and the whole process "
            f"{seconds['process']:.2f} s")


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


def enhanced_parse_phases() -> str:
    result = load("benchmarks/enhanced_parse_phases.json")
    row = load("enhanced/coach_valid_enhanced.json")
    assert result["model"]["sha256"] == row["model"]["sha256"] and "in batches of 64" in result["what"]
    seconds, share = result["seconds"], result["share"]
    assert abs(sum(seconds.values()) - result["total_seconds"]) < 1e-9
    return (f"The converged enhanced model without features, in batches of 64 "
            f"(`results/benchmarks/enhanced_parse_phases.json`, {result['date'][:10]}, medians of {result['repeats']} "
            f"in-process parses of EWT test: {result['total_seconds']:.2f} s, {result['sentences_per_second']:.1f} "
            f"sentences/s): the BiLSTM {100 * share['encoder']:.0f} %, the valid tree decoder's steps "
            f"{100 * share['tree_decoder']:.0f} %, the label classifiers {100 * share['labels']:.0f} %, the character "
            f"CNN and embeddings {100 * share['embedding']:.0f} %, the tree's and the graph's initial scores "
            f"{100 * share['tree_initial_scores']:.0f} and {100 * share['graph_initial_scores']:.0f} %, the graph "
            f"phase's steps {100 * share['graph_decoder']:.0f} %, reading the file {100 * share['reading']:.0f} %")


def english_parse_phases() -> str:
    """Where the English config's parsing time goes (five mpnet layers, features computed in each parse)."""
    result = load("benchmarks/english_parse_phases_layers_5_average_pieces.json")
    mpnet = "model.text_field_embedder.token_embedders.mpnet."
    assert result["batch_size"] == 1024 and json.loads(result["overrides"]) == {
        mpnet + "transformer_precision": "bfloat16", mpnet + "word_piece_buckets": True}
    # the five-layer archive of english_parse_speed_layers_5.json, trained as its twin: 1 epoch on 200 sentences
    speed = load("benchmarks/english_parse_speed_layers_5.json")
    assert result["model"]["sha256"] == speed["compared_models"][0]["sha256"]
    assert "trained 1 epoch on the first 200 EWT train sentences" in speed["model"]["weights"]
    seconds, share = result["seconds"], result["share"]
    assert seconds["graph_decoder"] == seconds["graph_initial_scores"] == 0.0
    assert abs(sum(seconds.values()) - result["total_seconds"]) < 1e-9
    return (f"with `--batch-size 1024`, the features computed in each parse "
            f"(`results/benchmarks/english_parse_phases_layers_5_average_pieces.json`, {result['date'][:10]}, medians "
            f"of {result['repeats']} parses of EWT test after a warm-up): {result['total_seconds']:.1f} s, "
            f"{result['sentences_per_second']:.1f} sentences/s; the five transformer layers "
            f"{100 * share['transformer']:.0f} %, the BiLSTM {100 * share['encoder']:.0f} %, the valid tree decoder "
            f"{100 * share['tree_decoder']:.0f} %, batching (word pieces included) {100 * share['batching']:.0f} %, the "
            f"other embeddings (characters, words, the layer mix) {100 * share['embedding']:.0f} %")


def batch_size_speeds() -> Tuple[Dict[int, Dict], Dict]:
    """allennlp predict's speed by --batch-size (the buckets capped at 128 sentences), by batch size, and its JSON."""
    speed = load("benchmarks/enhanced_parse_speed_batch_size.json")
    converged = load("enhanced/coach_valid_enhanced.json")["model"]["sha256"]
    assert all(row["model"]["sha256"] == converged for row in speed["settings"])
    assert all(row["overrides"] == '{"model.arc_bfloat16_inference": false}' for row in speed["settings"])
    assert all(row["predicted_trees"] == speed["data"]["sentences"] for row in speed["settings"])
    assert speed["data"]["path"] == "data/UD_English-EWT/en_ewt-ud-test.conllu"
    return {row["batch_size"]: row for row in speed["settings"]}, speed


def after_startup(row: Dict) -> float:
    return row["sentences_per_second_without_startup"]


def enhanced_speed_batch_size() -> str:
    by_size, speed = batch_size_speeds()
    api = load("benchmarks/api_batch_size.json")
    assert api["model"]["sha256"] == speed["settings"][0]["model"]["sha256"]
    assert all(row["same_output_as_first"] for row in api["rows"].values())
    verdict = ("met with `--batch-size 1024`, not with 64"
               if after_startup(by_size[1024]) >= 200 > after_startup(by_size[64]) else "not met")
    startups = [row["startup_seconds"] for row in speed["settings"]]
    assert sorted(by_size) == [64, 1024, 4096]
    return (f"Side by side (`--batch-size` 64, 1024 and 4096 in turns, "
            f"`results/benchmarks/enhanced_parse_speed_batch_size.json`, {speed['date'][:10]}, "
            f"medians of {by_size[64]['repeats']} rounds): the converged row without features (archive sha256 "
            f"{by_size[64]['model']['sha256'][:8]}, float32 initial scores as trained) parses EWT test at "
            f"{after_startup(by_size[64]):.1f} sentences/s after start-up with `--batch-size 64`, "
            f"{after_startup(by_size[1024]):.1f} with `--batch-size 1024` "
            f"({after_startup(by_size[1024]) / after_startup(by_size[64]):.2f} times as fast) and "
            f"{after_startup(by_size[4096]):.1f} with the whole file as one batch (`--batch-size 4096`); start-ups "
            f"{min(startups):.1f} to {max(startups):.1f} s. Issue 41's 200 sentences/s is {verdict}. "
            "`seqgraph_allennlp.Parser.parse_conllu` on EWT test, one Parser, the batch sizes in turns "
            "(`results/benchmarks/api_batch_size.json`, medians of "
            f"{api['repeats']}, loading apart): "
            + ", ".join(f"{row['sentences_per_second']:.1f} sentences/s in calls of {row['batch_size']}"
                        for row in api["rows"].values())
            + ", the same CoNLL-U from each")


def usage_batch_size() -> str:
    by_size = batch_size_speeds()[0]
    return (f"the converged enhanced model of EWT parses EWT test at {after_startup(by_size[1024]):.1f} sentences/s "
            f"after start-up with `--batch-size 1024` against {after_startup(by_size[64]):.1f} with 64")


def enhanced_speed_summary() -> str:
    by_size = batch_size_speeds()[0]
    return (f"The converged row without features parses EWT test at {after_startup(by_size[1024]):.1f} sentences/s "
            f"after start-up with `--batch-size 1024` and {after_startup(by_size[64]):.1f} with 64")


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


def english_run_scores(run: Dict) -> str:
    """What a `make english-model` run (scripts/english_model_record.py's JSON) trained and scored, and its time."""
    return (f"it ran {run['epochs_done']} epochs, kept epoch {run['best_epoch']} (dev UAS "
            f"{100 * run['best_dev']['UAS']:.2f}) and scored test UAS / LAS {100 * run['test']['UAS']:.2f} / "
            f"{100 * run['test']['LAS']:.2f}, UPOS {100 * run['test']['UPOS']:.2f}, in {run['wall_minutes']:.0f} "
            "minutes")


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
            f"`seqgraph_allennlp.Parser` (`results/benchmarks/api_batch_size_english.json`, its in-memory feature "
            "cache off as for new text) "
            f"parses it at {api['rows']['1024']['sentences_per_second']:.1f} sentences/s in calls of 1024 (its "
            f"default) and {api['rows']['64']['sentences_per_second']:.1f} in calls of 64")


def english_features_accuracy() -> str:
    result = load("benchmarks/features_accuracy_english.json")
    full, fast = result["rows"]["float32"], result["rows"]["bfloat16_buckets"]
    assert full["all_trees"] and fast["all_trees"] and result["batch_size"] == 1024
    return (f"With float32 features it scores UAS / LAS {full['UAS']:.2f} / {full['LAS']:.2f} on EWT test, with "
            f"the bfloat16 ones it was trained on {fast['UAS']:.2f} / {fast['LAS']:.2f} "
            f"(`results/benchmarks/features_accuracy_english.json`)")


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
            f"{statistics.median(ours['seconds']):.2f} s (medians of {result['repeats']}, "
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
            f"`results/enhanced/coach_valid_mpnet_enhanced_last_four.json`), "
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

def segmentation_row(name: str, layout: str = "paragraphs", splitter: str = "learned", directory: str = "") -> dict:
    """A row of results/segmentation/[directory/]name.json."""
    result = load(str(Path("segmentation") / directory / f"{name}.json"))
    return next(row for row in result["rows"] if row["layout"] == layout and row["segmenter"].startswith(splitter))


def usage_segmenter_ewt() -> str:
    learned, rules = segmentation_row("en_ewt_test"), segmentation_row("en_ewt_test", splitter="spaCy")
    scores = " / ".join(f"{row[metric]:.2f}" for row in (learned,) for metric in ("Tokens", "Sentences", "Words"))
    rule_scores = " / ".join(f"{rules[metric]:.2f}" for metric in ("Tokens", "Sentences", "Words"))
    return (f"On EWT test's raw text (paragraphs) it scores Tokens / Sentences / Words F1 {scores} (spaCy's\n"
            f"rules: {rule_scores}) and finds {learned['multiword_tokens']} of the 354 multiword tokens")


def usage_segmenter_pieces() -> str:
    pieces, plain = segmentation_row("zh_gsd_test"), segmentation_row("zh_gsd_test_without_pieces", directory="variants")
    rules = segmentation_row("zh_gsd_test", splitter="spaCy")
    return (f"it scores Words F1 {pieces['Words']:.2f} against {plain['Words']:.2f} without it and "
            f"{rules['Words']:.2f} with spaCy's rules.")


def usage_segmenter_bfloat16() -> str:
    row = segmentation_row("en_ewt_test_bf16_inference", directory="variants")
    return (f"at {row['sentences_per_second']:,.0f} sentences/s for {row['Tokens']:.2f} / {row['Sentences']:.2f} / "
            f"{row['Words']:.2f} (`results/segmentation/variants/`).")


def usage_raw_text_english() -> str:
    result = load("raw_text/en_ewt_test_english_model.json")
    rows = {row["input"]: row for row in result["rows"]}
    lines = []
    for name, key in (("learned segmenter", "raw text (paragraphs), learned segmenter"),
                      ("spaCy's rules", "raw text (paragraphs), spaCy rules (en)")):
        row = rows[key]
        lines.append(f"| this project, {name} | " + " | ".join(
            f"{row[metric]:.2f}" for metric in ("Tokens", "Sentences", "Words", "UPOS", "UAS", "LAS")) + " |")
    gold = rows["gold tokenisation"]
    return (f"on gold tokens UAS / LAS {gold['UAS']:.2f} / {gold['LAS']:.2f}) with the segmenter its archive carries "
            f"(`results/raw_text/en_ewt_test_english_model.json`), beside published figures of other parsers (their "
            f"own papers' or pages' numbers, other UD versions): | EWT test from raw text | Tokens | Sentences | Words "
            f"| UPOS | UAS | LAS | |---|---|---|---|---|---|---| " + " ".join(lines))


def usage_dev_trained_raw_text() -> str:
    parts = []
    for name, treebank in (("de_gsd", "German-GSD"), ("zh_gsd", "Chinese-GSD"), ("grc_perseus", "Ancient Greek-Perseus")):
        result = load(f"raw_text/{name}_test_dev_trained.json")
        assert result["model"]["trained_on"].startswith("the first 90 % of the sentences of ")
        rows = {row["input"].split(",")[-1].split("(")[0].strip(): row for row in result["rows"]}
        parts.append(f"{treebank} {rows['learned segmenter']['LAS']:.2f} against {rows['spaCy rules']['LAS']:.2f} "
                     f"({rows['gold tokenisation']['LAS']:.2f})")
    return "tokens): " + ", ".join(parts) + "."


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
    # USAGE, "The learned segmenter"
    (USAGE, usage_segmenter_ewt),
    (USAGE, usage_segmenter_pieces),
    (USAGE, usage_segmenter_bfloat16),
    (USAGE, usage_raw_text_english),
    (USAGE, usage_dev_trained_raw_text),
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
    (BENCHMARKS, lambda: provenance("startup_changes")),
    (BENCHMARKS, startup_changes_target),
    (BENCHMARKS, startup_outside_main),
    # BENCHMARKS, "The mpnet features: bfloat16 and word-piece buckets"
    (BENCHMARKS, lambda: provenance("feature_speed")),
    (BENCHMARKS, feature_data),
    *((BENCHMARKS, (lambda setting=setting: feature_row(setting))) for setting in FEATURE_SETTINGS),
    (BENCHMARKS, feature_summary),
    (BENCHMARKS, feature_scale),
    (BENCHMARKS, feature_noise),
    (BENCHMARKS, int8_speed_table),
    (BENCHMARKS, int8_speed_ratios),
    (BENCHMARKS, int8_small_model),
    (BENCHMARKS, int8_phases_table),
    (BENCHMARKS, int8_encoder_table),
    (BENCHMARKS, int8_encoder_small),
    (BENCHMARKS, int8_encoder_welsh),
    (BENCHMARKS, int8_encoder_native),
    (BENCHMARKS, startup_english),
    (BENCHMARKS, parser_startup),
    (BENCHMARKS, feature_accuracy),
    # BENCHMARKS, "The mpnet features" (the word pieces, the buckets) and "Parse speed of the shipped models"
    (BENCHMARKS, word_pieces_speed),
    (BENCHMARKS, min_pieces_speed),
    (BENCHMARKS, english_model_speed),
    # BENCHMARKS, "The parser service under load"
    (BENCHMARKS, lambda: provenance("serve_load")),
    (BENCHMARKS, serve_setup),
    *((BENCHMARKS, (lambda concurrency=concurrency: serve_row(concurrency))) for concurrency in (1, 8, 32)),
    (BENCHMARKS, serve_done),
    (BENCHMARKS, model_thread),
    (USAGE, model_thread_usage),
    (USAGE, usage_batch_size),
]


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
    return (f"filling gives back {100 * gold['train']['lexical_fraction']:.2f} % of train's and "
            f"{100 * gold['dev']['lexical_fraction']:.2f} % of dev's edges of the five relations from the gold "
            "graphs without their lexical part")


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


def scores_percent(run: Dict) -> Dict[str, float]:
    """An enhanced row's test ELAS, EULAS, UAS and LAS in %."""
    return {metric: 100 * run["test"][metric] for metric in ("ELAS", "EULAS", "UAS", "LAS")}


def layers_2_5_seed0_errors() -> str:
    """Where the seed-0 rows over layers 2-5 differ, edge by edge (the errors JSONs of their committed
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
    return (f"Edge by edge (the two seed-0 test predictions compared, "
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


def enhanced_mpnet_seeds() -> str:
    """Both mpnet rows over layers 2-5 (the shipped mpnet configs), seeds 0, 1 and 2 each, every run converged."""
    rows = ("coach_valid_mpnet_enhanced", "graph_parser_mpnet_enhanced")
    runs = {row: [load(f"enhanced/{row}{suffix}.json") for suffix in ("", ".seed1", ".seed2")] for row in rows}
    elas = {}
    for row, seeds in runs.items():
        assert [run["seed"] for run in seeds] == [0, 1, 2]
        for run in seeds:
            assert stopped_early(run["stopped"]) and not run["finished_budget"]
            mpnet = run["used_config"]["model"]["text_field_embedder"]["token_embedders"]["mpnet"]
            assert mpnet["transformer_kwargs"]["num_hidden_layers"] == 5 and mpnet["mixed_layers"] == [-4, -3, -2, -1]
        elas[row] = [100 * run["test"]["ELAS"] for run in seeds]
    budgets = [run["budget"]["epochs"] for seeds in runs.values() for run in seeds]
    ours, baseline = elas["coach_valid_mpnet_enhanced"], elas["graph_parser_mpnet_enhanced"]
    every_seed = ("each of its seeds above each of the baseline's" if min(ours) > max(baseline)
                  else "but not each of its seeds above each of the baseline's")

    def listed(values: List[float]) -> str:
        return f"{values[0]:.2f}, {values[1]:.2f} and {values[2]:.2f} (mean {statistics.mean(values):.2f})"

    return (f"Over layers 2-5 of mpnet (the shipped mpnet configs; rows `coach_valid_mpnet_enhanced` and "
            f"`graph_parser_mpnet_enhanced`, seeds 0, 1 and 2 each, every run stopped by patience within its budget "
            f"of {min(budgets)} to {max(budgets)} epochs), test ELAS: the sequential parser {listed(ours)}, the "
            f"baseline {listed(baseline)}: the sequential parser leads by "
            f"{statistics.mean(ours) - statistics.mean(baseline):+.2f} mean test ELAS, {every_seed}. Seed 0's lead "
            f"is {seed0_lead('')[2]:+.2f} ELAS")


def enhanced_without_features() -> str:
    """The rows without pretrained features, seed 0 each, both converged."""
    ours, baseline = load("enhanced/coach_valid_enhanced.json"), load("enhanced/graph_parser_enhanced.json")
    assert ours["seed"] == baseline["seed"] == 0
    assert ours["machine"]["cpu_cores"] == baseline["machine"]["cpu_cores"] == 2
    for run in (ours, baseline):
        assert stopped_early(run["stopped"]) and not run["finished_budget"]
    test, base = scores_percent(ours), scores_percent(baseline)
    return (f"Without pretrained features (the same encoder trained from scratch; rows `coach_valid_enhanced` and "
            f"`graph_parser_enhanced`, seed 0 each, both stopped by patience), the sequential parser scores "
            f"{test['ELAS']:.2f} test ELAS (EULAS {test['EULAS']:.2f}, UAS {test['UAS']:.2f}, LAS {test['LAS']:.2f}) "
            f"against the baseline's {base['ELAS']:.2f} ({base['EULAS']:.2f}, {base['UAS']:.2f}, {base['LAS']:.2f}): "
            f"{test['ELAS'] - base['ELAS']:+.2f}; an epoch takes {ours['train_seconds_per_epoch'] / 60:.1f} min "
            f"against {baseline['train_seconds_per_epoch'] / 60:.1f} on 2 cores")


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
QUOTES.append((ENHANCED, rules_on_gold_train_dev))
QUOTES.append((ENHANCED, layers_2_5_seed0_bootstrap))
QUOTES.append((ENHANCED, layers_2_5_seed0_errors))
QUOTES.append((BENCHMARKS, bf16_labels))
QUOTES.append((BENCHMARKS, bf16_arcs))
QUOTES.append((ENHANCED, separate_graph_scores_converged))
QUOTES.append((ENHANCED, separate_graph_scores_without))
QUOTES.append((ENHANCED, separate_graph_scores_stop_bias))
QUOTES.append((BENCHMARKS, train_pass_labels))
QUOTES.append((BENCHMARKS, train_pass_epoch))
QUOTES.append((BENCHMARKS, epoch_time_mpnet))


def epoch_time_table() -> str:
    """BENCHMARKS' epoch table: two runs at 6835ace in opposite orders, `coach_valid` as it ships now (a recurrent
    cell of 64 with bfloat16 score updates) and as it shipped then (128, float32)."""
    config = (ROOT / "training_config" / "coach_valid.jsonnet").read_text(encoding="utf-8")
    assert "recurrent_hidden_dim=64" in config and "recurrent_bfloat16_training=true" in config
    runs = [{row["name"]: row for row in load(f"benchmarks/epoch_time_fused_loss_round{n}.json")["rows"]}
            for n in (1, 2)]
    assert runs[0]["coach_valid_h64_bf16"]["overrides"] == {"model.recurrent_weight.hidden_dim": 64,
                                                          "model.recurrent_weight.bfloat16_training": True}
    assert all(run["coach_valid"]["overrides"] == {} for run in runs)
    labels = {"biaffine_mst": "`biaffine_mst`",
              "coach_valid_h64_bf16": "`coach_valid` as shipped (recurrent cell of 64, bfloat16 score updates)",
              "coach_valid": "`coach_valid` with a cell of 128 in float32"}
    lines = []
    for name, label in labels.items():
        cells = " | ".join(f"{run[name]['training_pass_seconds']:.1f} | {run[name]['training_pass_ratio_to_biaffine_mst']:.2f}"
                           for run in runs)
        lines.append(f"| {label} | {cells} |")
    minutes = {f"{run['coach_valid_h64_bf16']['epoch_seconds'] / 60:.1f}" for run in runs}
    assert len(minutes) == 1
    return " ".join(lines) + f" An epoch of the shipped `coach_valid` takes {minutes.pop()} min with validation"


def profile_train_ratio() -> str:
    """The shipped `coach_valid` against `biaffine_mst` in the interleaved profile_train rounds after the loss change."""
    rows = load("benchmarks/h64_fused_loss_interleaved.json")["run_b"]
    shipped = [row for row in rows if row["label"] == "after_h64bf16"]
    base = [row for row in rows if row["label"] == "base"]
    assert len(shipped) == len(base) == 3
    assert all(row["overrides"] == {"model.recurrent_weight.hidden_dim": 64,
                                    "model.recurrent_weight.bfloat16_training": True} for row in shipped)
    ratios = [row["ratio_to_biaffine_mst_same_round"] for row in shipped]
    longest, base_longest = [row["longest_seconds"] for row in shipped], [row["longest_seconds"] for row in base]
    return (f"the shipped `coach_valid` takes {min(ratios):.2f} to {max(ratios):.2f} times `biaffine_mst`'s training "
            f"pass, its 8 longest batches {min(longest):.1f} to {max(longest):.1f} s against {min(base_longest):.1f} "
            f"to {max(base_longest):.1f} s")


def step_parts_table() -> str:
    parts = load("benchmarks/step_parts.json")["rows"] + load("benchmarks/fused_loss.json")["rows"]
    labels = {"arc scores": "arc scores: `BilinearMatrixAttention` / `MatmulBilinearMatrixAttention`",
              "unroll": "unroll: `LSTMCell` step by step / `run_cell` (`torch.lstm`)",
              "loss": "loss over all states: autograd / `state_gold_log_probs`"}
    shapes = [(32, 21), (32, 41), (16, 81), (8, 151)]
    lines = []
    for part, label in labels.items():
        by_shape = {(row["sentences"], row["nodes"]): row for row in parts if row["part"] == part}
        cells = [f"{by_shape[shape]['before_ms']:.1f} / {by_shape[shape]['after_ms']:.1f}" if shape in by_shape else ""
                 for shape in shapes]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return " ".join(" ".join(line.split()) for line in lines)


def bf16_inference_figures() -> str:
    result = load("benchmarks/bf16_inference.json")
    rows = {row["setting"]: row for row in result["rows"]}
    f32, encoder, both = rows["float32"], rows["encoder"], rows["encoder+updates"]
    assert result["words"] == 25147 and result["file"].endswith("en_ewt-ud-dev.conllu")
    return (f"all float32 {100 * f32['UAS']:.2f} UAS at {f32['sentences_per_second']:.1f} sentences/s; the encoder "
            f"(LSTM layers and highway) in bfloat16 {100 * encoder['UAS']:.2f} at {encoder['sentences_per_second']:.1f}, "
            f"{encoder['heads_changed_from_float32']} of {result['words']:,} heads changed; with the score updates too "
            f"{100 * both['UAS']:.2f} at {both['sentences_per_second']:.1f}, {both['heads_changed_from_float32']} changed")


def raw_text_speed() -> str:
    result = load("benchmarks/raw_text_speed.json")
    rows = {name: row["sentences_per_second"] for name, row in result["rows"].items()}
    assert result["data"]["texts"] == 316 and result["repeats"] == 3
    return (f"gold tokens {rows['gold tokens (parse_conllu)']:.1f} sentences/s; raw text with `Parser.parse_texts` "
            f"{rows['raw text, learned, all texts at once (parse_texts)']:.1f} with the learned segmenter and "
            f"{rows['raw text, rules, all texts at once (parse_texts)']:.1f} with spaCy's rules; one text per "
            f"`Parser.parse` call {rows['raw text, learned, one text per call (parse)']:.1f} and "
            f"{rows['raw text, rules, one text per call (parse)']:.1f}; the learned segmenter alone "
            f"{rows['learned splitter alone']:,.0f}")


def single_root_figures() -> str:
    rows = load("benchmarks/single_root_mst.json")["rows"]
    assert all(row[way]["not_single_rooted_trees"] == 0 for row in rows for way in ("allennlp_models", "single_root"))
    welsh, ewt = (next(row for row in rows if name in row["file"]) for name in ("Welsh-CCG", "English-EWT"))
    return (f"Welsh-CCG test UAS {100 * welsh['allennlp_models']['UAS']:.2f} and {100 * welsh['single_root']['UAS']:.2f}, "
            f"EWT {100 * ewt['allennlp_models']['UAS']:.2f} and {100 * ewt['single_root']['UAS']:.2f}, every tree "
            "single-rooted with both")


def bf16_training_epoch() -> str:
    rows = {row["name"]: row for row in load("benchmarks/epoch_time.json")["rows"]}
    assert rows["coach_valid_bf16"]["overrides"] == {"model.encoder.bfloat16_training": True}
    return (f"an EWT epoch of `coach_valid` {rows['coach_valid_bf16']['epoch_seconds'] / 60:.2f} min against "
            f"{rows['coach_valid']['epoch_seconds'] / 60:.2f} in float32 (`results/benchmarks/epoch_time.json`, "
            f"{load('benchmarks/epoch_time.json')['date'][:10]})")


def machine_drift() -> str:
    now = load("benchmarks/epoch_time_machine_2026-11-29_evening.json")["rows"][0]
    then, before = biaffine_epoch_then()
    assert now["name"] == "biaffine_mst"
    return (f"`biaffine_mst`'s EWT epoch {now['epoch_seconds'] / before:.2f} times as long on 2026-11-29 as on "
            f"{then['date'][:10]}")


QUOTES.append((ENHANCED, enhanced_speed_summary))
QUOTES.append((ENHANCED, enhanced_mpnet_seeds))
QUOTES.append((ENHANCED, enhanced_without_features))
QUOTES.append((BENCHMARKS, enhanced_parse_phases))
QUOTES.append((BENCHMARKS, enhanced_speed_batch_size))
QUOTES.append((BENCHMARKS, english_parse_phases))
QUOTES.append((BENCHMARKS, startup_now))
QUOTES.append((BENCHMARKS, epoch_time_table))
QUOTES.append((BENCHMARKS, profile_train_ratio))
QUOTES.append((BENCHMARKS, step_parts_table))
QUOTES.append((BENCHMARKS, bf16_inference_figures))
QUOTES.append((BENCHMARKS, raw_text_speed))
QUOTES.append((BENCHMARKS, single_root_figures))
QUOTES.append((BENCHMARKS, machine_drift))
QUOTES.append((BENCHMARKS, bf16_training_epoch))


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
