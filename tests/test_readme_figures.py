"""The figures that docs/TRAINING.md quotes for `make english-model` (its section "The English model in one
command", once the README's) are those of the results JSON it names, so that a rerun that changes the JSON makes
this test fail until the page follows (numbers copied by hand drift). The README's own figures, its first
screen's score table among them: tests/test_readme_first_screen.py."""
import json
import os
import re
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results" / "ewt_converged"
# the training guide, which holds what the README said of training and of the English model
TRAINING = ROOT / "docs" / "TRAINING.md"
# the page that says which tests check the documents' figures
EXPERIMENTS = ROOT / "docs" / "EXPERIMENTS.md"


def english_model_section() -> str:
    training = TRAINING.read_text(encoding="utf-8")
    start = training.index("\n## The English model in one command\n") + 1
    return training[start:training.index("\n## ", start)]


def table(section: str) -> dict:
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] and not set(cells[0]) <= {"-"}:
            rows[cells[0]] = cells[1]
    return rows


def test_the_english_model_figures_are_those_of_its_results_json():
    section = english_model_section()
    result = json.loads((RESULTS / "coach_valid_mpnet.json").read_text())
    assert "results/ewt_converged/coach_valid_mpnet.json" in section
    rows = table(section)
    assert rows["test UAS / LAS (CoNLL 2018, every word)"] == (
        f"{100 * result['test_scorer']['UAS']:.2f} / {100 * result['test_scorer']['LAS']:.2f}"
    )
    assert rows["dev UAS (best epoch)"] == f"{100 * result['dev']['UAS']:.2f}"
    assert rows["epochs (stopped early; best epoch)"] == f"{result['epochs_done']}; {result['best_epoch']}"
    assert result["stopped"].startswith("early stopping")
    seconds = [epoch["seconds"] for epoch in result["curve"]]
    assert rows["first epoch (computing the mpnet features of train and dev)"] == f"{seconds[0] / 60:.1f} min"
    assert rows["other epochs (median)"] == f"{statistics.median(seconds[1:]) / 60:.1f} min"
    parse = rows["parsing EWT test with `allennlp evaluate` (mpnet and model loading included)"]
    assert parse == f"{result['evaluate_sentences_per_second']:.1f} sentences/s"


def test_the_english_model_section_quotes_the_other_rows_as_their_json_says():
    section = english_model_section()
    for row in ("coach_valid", "biaffine_mst", "biaffine_mst_mpnet", "one_step", "coach_valid_paper", "uniform",
                "coach_valid_upos"):
        result = json.loads((RESULTS / f"{row}.json").read_text())
        quoted = f"{100 * result['test_scorer']['UAS']:.2f}"
        assert re.search(rf"{re.escape(quoted)}[^|\n]*`?{row}`?|`{row}`[^|\n]*{re.escape(quoted)}",
                         section.replace("\n", " ")), (row, quoted)
    # the baseline's other seeds, quoted beside its seed 0
    flat = section.replace("\n", " ")
    for path in sorted(RESULTS.glob("biaffine_mst.seed*.json")):
        quoted = f"{100 * json.loads(path.read_text())['test_scorer']['UAS']:.2f}"
        assert re.search(rf"{re.escape(quoted)}[^|]*`biaffine_mst` baseline over", flat), (path.name, quoted)
    # the English pair over mpnet features over their seeds: mean ± sample sd of every seed's JSON
    for row in ("coach_valid_mpnet", "biaffine_mst_mpnet"):
        scores = [100 * json.loads(path.read_text())["test_scorer"]["UAS"]
                  for path in [RESULTS / f"{row}.json", *sorted(RESULTS.glob(f"{row}.seed*.json"))]]
        if len(scores) > 1:
            quoted = f"{statistics.mean(scores):.2f} ± {statistics.stdev(scores):.2f}"
            assert quoted in flat, (row, quoted)
    # the pair's lead in each seed, from the unrounded scores, and the seeds at the edge of the spread
    recurrent, baseline = ([100 * json.loads(path.read_text())["test_scorer"]["UAS"]
                            for path in [RESULTS / f"{row}.json", *sorted(RESULTS.glob(f"{row}.seed*.json"))]]
                           for row in ("coach_valid_mpnet", "biaffine_mst_mpnet"))
    if len(recurrent) == len(baseline) == 3:
        leads = [f"{ours - theirs:+.2f}" for ours, theirs in zip(recurrent, baseline)]
        assert f"{leads[0]}, {leads[1]} and {leads[2]}" in flat, leads
        assert f"lowest seed, {min(recurrent):.2f}, above the baseline's highest, {max(baseline):.2f}" in flat


def test_the_english_model_script_defaults_to_the_config_the_documents_name():
    script = (ROOT / "scripts" / "english_model.sh").read_text()
    default = re.search(r"CONFIG=\$\{ENGLISH_CONFIG:-(\w+)\}", script).group(1)
    assert default == "coach_valid_mpnet" and f"`{default}`" in english_model_section()
    assert f"`make english-model` trains `{default}`" in flat(ROOT / "README.md")


def test_the_english_model_section_quotes_the_paired_bootstrap_as_its_json_says():
    section = english_model_section().replace("\n", " ")
    result = json.loads((ROOT / "results" / "significance" / "ewt_mpnet.json").read_text())
    low, high = (100 * bound for bound in result["UAS"]["interval_95"])
    assert f"leads it by {100 * result['UAS']['difference']:.2f} test UAS" in section
    assert f"between {low:+.2f} and {high:+.2f} (95 %)" in section


def test_the_english_model_section_quotes_the_tagged_row_as_its_json_says():
    # coach_valid_mpnet has trained the UPOS tagger since 2026-11-26: its row with the tagger
    section = english_model_section().replace("\n", " ")
    result = json.loads((RESULTS / "coach_valid_mpnet_upos.json").read_text())
    assert "results/ewt_converged/coach_valid_mpnet_upos.json" in section
    test, dev = result["test_scorer"], result["dev"]
    assert (f"test UAS / LAS {100 * test['UAS']:.2f} / {100 * test['LAS']:.2f}, UPOS {100 * result['test']['UPOS']:.2f}"
            in section)
    assert f"dev UAS {100 * dev['UAS']:.2f} (epoch {result['best_epoch']} of {result['epochs_done']})" in section


def flat(path: Path) -> str:
    return " ".join(path.read_text(encoding="utf-8").split())


def shipped_model(name: str) -> dict:
    from allennlp.common import Params

    # the configs are only read here: a clone without `make english` has no mpnet directory to name
    ext_vars = {"PRETRAINED_MPNET": os.environ.get("PRETRAINED_MPNET") or "all-mpnet-base-v2",
                # coach_valid_encoder.jsonnet: any encoder's name and width
                "TRANSFORMER_MODEL": "an-encoder", "TRANSFORMER_HIDDEN_SIZE": "768", "TRANSFORMER_FINE_TUNE": "false",
                "TRANSFORMER_LEARNING_RATE": "2e-5"}
    return Params.from_file(str(ROOT / "training_config" / f"{name}.jsonnet"), ext_vars=ext_vars).as_dict()["model"]


def test_the_training_guide_says_where_recurrent_bfloat16_training_is_on_as_the_configs_set_it():
    # it once said "so it is off" while coach_valid.jsonnet turned it on (then in the README, "The encoder")
    text = flat(TRAINING)
    start = text.index("`recurrent_weight.bfloat16_training` computes the score updates in bfloat16 during training")
    sentence = text[start:text.index("Training the LSTM layers", start)]
    on, off = [], []
    for path in sorted((ROOT / "training_config").glob("*.jsonnet")):
        weight = shipped_model(path.stem).get("recurrent_weight")
        if weight is None:
            continue
        # the guide's rule: on with the 64-unit cell, off with 256
        assert weight["bfloat16_training"] == (weight["hidden_dim"] == 64), (path.stem, weight)
        (on if weight["bfloat16_training"] else off).append(path.stem)
    assert "coach_valid" in on and "is on in the configs whose recurrent cell has 64 units (`coach_valid`" in sentence
    assert "off in those with 256" in sentence
    # the configs built on coach_valid that keep 256 units are named
    for name in off:
        if shipped_model(name).get("predict_upos"):
            assert f"`{name}`" in sentence, name


def describe(predict_upos: bool, bfloat16: bool, where: str = "") -> str:
    tagger = "with the UPOS tagger" if predict_upos else "no UPOS tagger"
    return f"({tagger}, BiLSTM trained in {'bfloat16' + where if bfloat16 else 'float32'}"


def trained(result: dict) -> str:
    """How a row trained, from its JSON: its tagger, and bfloat16 where its config asked for it and the CPU had it."""
    encoder, machine = result["used"]["encoder"], result["machine"]
    bfloat16 = encoder.get("bfloat16_training") and machine.get("native_bfloat16") is not False
    return describe(bool(result["used"]["model"].get("predict_upos")), bool(bfloat16))


def test_the_english_model_section_says_how_its_rows_differ_from_what_make_english_model_trains():
    # its table once read as the model `make english-model` trains, which has had the tagger and a bfloat16
    # BiLSTM since
    section = " ".join(english_model_section().split())
    script = (ROOT / "scripts" / "english_model.sh").read_text()
    name = re.search(r"CONFIG=\$\{ENGLISH_CONFIG:-(\w+)\}", script).group(1)
    model = shipped_model(name)
    now = describe(bool(model.get("predict_upos")), bool(model["encoder"].get("bfloat16_training")),
                   " where the CPU has it")
    assert f"`{name}` as shipped {now}, its mpnet features made faster), no row of docs/RESULTS.md has trained" \
        in section
    runs = [json.loads(path.read_text()) for path in sorted(ROOT.glob("results/*/*.json"))]
    runs = [run for run in runs if run.get("config") == f"training_config/{name}.jsonnet"]
    assert runs and all(trained(run) != now.replace(" where the CPU has it", "") for run in runs)
    for row in ("coach_valid_mpnet_upos", "coach_valid_mpnet"):
        result = json.loads((RESULTS / f"{row}.json").read_text())
        assert f"`{row}` {trained(result)}" in section, (row, trained(result))
        assert trained(result) != now.replace(" where the CPU has it", "")
    # the table is that of coach_valid_mpnet.json
    table_intro = section[:section.index("| | |")]
    assert table_intro.rstrip().endswith("`results/ewt_converged/coach_valid_mpnet.json`, and "
                                         "`tests/test_readme_figures.py` checks these figures against it):")
    assert "row `coach_valid_mpnet` (no UPOS tagger" in table_intro


def test_the_documents_say_which_tests_check_their_figures():
    # the README once said that it quoted no numbers, above dozens; docs/EXPERIMENTS.md holds what it said
    # of the measured numbers
    for path in (ROOT / "README.md", EXPERIMENTS, TRAINING):
        assert "quotes none" not in flat(path)
    assert ("the figures that README.md and the pages of docs/ quote from them are checked against their JSONs by "
            "`tests/test_readme_first_screen.py`, `tests/test_readme_figures.py` and `tests/test_docs_figures.py`"
            ) in flat(EXPERIMENTS)
    assert "`tests/test_readme_first_screen.py` computes this table from the results JSON." in flat(ROOT / "README.md")
    for name in ("test_readme_first_screen.py", "test_readme_figures.py", "test_docs_figures.py"):
        assert (ROOT / "tests" / name).exists()
