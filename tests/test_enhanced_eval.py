"""
scripts/enhanced_eval.py (`seqgraph_experiments.enhanced_eval`) on a fixture model of the enhanced graph, and
the "Enhanced UD (EWT)" section it feeds (`report.enhanced.enhanced_table`).
"""
import gzip
import json
from pathlib import Path

import pytest

from seqgraph_allennlp.common.conllu import format_sentence, read_sentences
from seqgraph_allennlp.common.scoring import enhanced_scores, official_scores
from seqgraph_experiments import ROOT
from seqgraph_experiments.enhanced_eval import budget_status, check_seed, main
from seqgraph_experiments.provenance import sha256
from seqgraph_experiments.report import write_report
from seqgraph_experiments.report.common import clone_paths, machine_text
from seqgraph_experiments.report.enhanced import IWPT_NOTE, enhanced_table, parse_speed
from seqgraph_experiments.results import read_json, run_results, write_json
from seqgraph_experiments.rows import feature_cache_off
from seqgraph_experiments.trainer_log import epoch_seconds

CONFIG = ROOT / "fixtures" / "configs" / "coach_valid_enhanced.jsonnet"
DEV = ROOT / "fixtures" / "conllu" / "en_small.conllu"
TEST = ROOT / "fixtures" / "conllu" / "en_heldout.conllu"
# three epochs at a higher learning rate than the config's: scores above zero, so that comparing them means something
OVERRIDES = {"trainer.num_epochs": 3, "trainer.optimizer.lr": 0.02}
ROW = "fixture_enhanced"


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    """
    The fixture twin of coach_valid_enhanced trained for 3 epochs (in this process, as `allennlp train -o
    OVERRIDES` trains it: the script reads only its serialization directory), then evaluated into a temporary
    results/.
    """
    from allennlp.commands.train import train_model_from_file

    base = tmp_path_factory.mktemp("enhanced_eval")
    serialization = base / "model"
    train_model_from_file(str(CONFIG), str(serialization), overrides=json.dumps(OVERRIDES))
    results = base / "results"
    path = main(["--serialization-dir", str(serialization), "--row", ROW, "--config", str(CONFIG),
                 "--dev", str(DEV), "--test", str(TEST), "--out-dir", str(results / "enhanced"),
                 "--work-dir", str(base / "work")])
    return {"serialization": serialization, "results": results, "work": base / "work", "path": path,
            "result": read_json(path)}


def scores_of(gold: Path, predicted: Path):
    return {**official_scores(str(gold), str(predicted)), **enhanced_scores(str(gold), str(predicted))}


def test_scores_are_the_scorers_of_its_own_prediction(evaluated, tmp_path):
    result = evaluated["result"]
    assert evaluated["path"] == evaluated["results"] / "enhanced" / f"{ROW}.json"
    kept = evaluated["results"] / "enhanced" / f"{ROW}.test.conllu.gz"
    assert result["test_predictions"]["sha256"] == sha256(kept)
    plain = tmp_path / "test.conllu"
    plain.write_bytes(gzip.decompress(kept.read_bytes()))
    expected = scores_of(TEST, plain)
    assert set(expected) == {"UAS", "LAS", "CLAS", "ELAS", "EULAS"}
    assert result["test"] == expected
    assert result["dev"] == scores_of(DEV, evaluated["work"] / "dev_predictions.conllu")
    # the model parses: the comparison is not of zeros
    assert result["test"]["UAS"] > 0 and result["dev"]["ELAS"] > 0
    # the gzip holds every test sentence, with DEPS
    assert plain.read_text().count("# sent_id") == TEST.read_text().count("# sent_id") == 4
    # the same model's tree copied into DEPS, scored alike (its HEAD:DEPREL as each word's only DEPS)
    copy = tmp_path / "copy.conllu"
    copy.write_text("".join(
        format_sentence(s, s.heads, s.deprels, deps=[[(word.head, word.deprel)] for word in s.words])
        for s in read_sentences(str(plain))
    ))
    own = {name: value for name, value in result["test_own_tree_copy"].items() if name != "note"}
    assert own == enhanced_scores(str(TEST), str(copy))
    # the kept prediction has the predictor's rules over the graph; the model's own graph is scored beside
    assert result["rules"] == {"lexical_labels": "filled", "drop_ref_tree_edges": True}
    without = {name: value for name, value in result["test_without_rules"].items()
               if name not in ("note", "predictions")}
    assert without == enhanced_scores(str(TEST), str(evaluated["work"] / "test_predictions_without_rules.conllu"))
    # that prediction is kept beside the row's, gzipped, for rules changed after the model is gone
    kept_without = evaluated["results"] / "enhanced" / f"{ROW}.test_without_rules.conllu.gz"
    kept_record = result["test_without_rules"]["predictions"]
    assert kept_record["path"].endswith(kept_without.name) and kept_record["sha256"] == sha256(kept_without)
    assert gzip.decompress(kept_without.read_bytes()).decode() == (
        evaluated["work"] / "test_predictions_without_rules.conllu").read_text()


def test_records_the_training_and_the_budget(evaluated):
    result, serialization = evaluated["result"], evaluated["serialization"]
    metrics = read_json(serialization / "metrics.json")
    assert result["row"] == ROW and result["seed"] == 0
    assert result["config"] == "fixtures/configs/coach_valid_enhanced.jsonnet"
    assert result["used_config"] == read_json(serialization / "config.json")
    # the overrides the run trained with are visible
    assert result["config_differences"]["changed"] == OVERRIDES
    assert result["config_differences"]["removed"] == []
    assert result["budget"]["epochs"] == 3 and result["epochs_done"] == 3
    assert result["finished_budget"] is True
    assert result["budget_says"] == "finished its budget: 3 of 3 epochs"
    assert result["best_epoch"] == metrics["best_epoch"] + 1
    assert result["best_validation"]["ELAS"] == metrics["best_validation_ELAS"]
    assert result["validation_metric"] == "+ELAS"
    durations = epoch_seconds(serialization)
    assert len(durations) == 3 and result["train_seconds_total"] == pytest.approx(sum(durations))
    assert [point["epoch"] for point in result["curve"]] == [1, 2, 3]
    assert result["curve"][-1]["dev_ELAS"] == read_json(serialization / "metrics_epoch_2.json")["validation_ELAS"]
    parse = result["parse"]
    assert parse["sentences"] == 4 and parse["seconds"] > 0
    assert parse["sentences_per_second"] == pytest.approx(4 / parse["seconds"])
    assert "start-up" in parse["note"]
    # the fixture model has no frozen features to cache: nothing to turn off
    assert parse["features_cache_off"] == []
    assert result["splits"]["test"] == {"path": "fixtures/conllu/en_heldout.conllu", "sha256": sha256(TEST),
                                        "sentences": 4}
    assert result["splits"]["dev"]["sha256"] == sha256(DEV)
    assert result["model"]["sha256"] == sha256(serialization / "model.tar.gz")
    for key in ("git_commit", "date", "machine"):
        assert result[key]
    assert result["command"].startswith("scripts/enhanced_eval.py --serialization-dir ")
    assert result["reproduce"][1] == f".venv/bin/python {result['command']}"
    assert json.dumps(OVERRIDES) in result["reproduce"][0]
    # not a training-run row of the other tables
    assert "treebank" not in result
    assert run_results(evaluated["results"]) == []


def fake_tree_copy(results: Path) -> None:
    write_json(results / "enhanced" / "tree_copy.json", {
        "what": "test", "gold": {"path": "data/UD_English-EWT/en_ewt-ud-test.conllu", "sha256": "0" * 64},
        "rows": {"gold": {"ELAS": 0.86, "EULAS": 0.9729, "UAS": 1.0, "LAS": 1.0},
                 "some_parser.seed1": {"ELAS": 0.7337, "EULAS": 0.819, "UAS": 0.874, "LAS": 0.8411},
                 "gold_graph_representable": {"ELAS": 0.99996, "EULAS": 0.99999},
                 "some_graph_parser_perfect_graph_phase": {"ELAS": 0.9433, "EULAS": 0.9462}},
        "command": "scripts/tree_copy.py ", "git_commit": "abcdef0123", "date": "2026-11-26T18:06:52",
        "machine": {},
    })
    # another kind of JSON in results/enhanced/: not a row
    write_json(results / "enhanced" / "collapse_check.json", {"what": "collapse", "row": "not a row"})


def test_enhanced_table_renders_the_run_and_the_reference_lines(evaluated, tmp_path):
    results = tmp_path / "results"
    (results / "enhanced").mkdir(parents=True)
    assert enhanced_table(results) == []
    result = evaluated["result"]
    write_json(results / "enhanced" / f"{ROW}.json", result)
    fake_tree_copy(results)
    lines = enhanced_table(results)
    assert lines[0] == "## Enhanced UD (EWT)"
    test = result["test"]
    # three epochs, the best the last: said not converged, in the cell and the list below the table
    assert result["best_epoch"] == 3
    row = (f"| {ROW} | 0 | 3 / 3 (not converged) | {result['best_epoch']} | {100 * result['dev']['ELAS']:.2f} | "
           f"{100 * test['ELAS']:.2f} | yes (without: {100 * result['test_without_rules']['ELAS']:.2f}) | "
           f"{100 * test['EULAS']:.2f} | {100 * test['UAS']:.2f} | {100 * test['LAS']:.2f} | "
           f"{100 * result['test_own_tree_copy']['ELAS']:.2f} | {result['parse']['sentences_per_second']:.1f} | "
           # the fixture config asks no bfloat16: float32 on any CPU
           f"{machine_text(result['machine'])}, encoder float32 | {result['date'][:10]} | {result['git_commit'][:7]}")
    assert [line for line in lines if line.startswith(f"| {ROW} |")] == [
        row + ("+ |" if "uncommitted" in result["git_commit"] else " |")]
    assert "| tree copy: gold tree |  |  |  |  | 86.00 |  | 97.29 | 100.00 | 100.00 |  |  |  | 2026-11-26 | abcdef0 |" in lines
    assert ("| ceiling: gold graph as the parser represents it |  |  |  |  | 100.00 |  | 100.00 |  |  |  |  |  | 2026-11-26 | "
            "abcdef0 |") in lines
    assert ("| tree copy: some_parser.seed1 (predicted tree) |  |  |  |  | 73.37 |  | 81.90 | 87.40 | 84.11 |  |  |  | "
            "2026-11-26 | abcdef0 |") in lines
    assert ("| ceiling: some_graph_parser's test tree, every other gold edge added (a perfect graph phase), its own "
            "labels on its tree edges |  |  |  |  | 94.33 |  | 94.62 |  |  |  |  |  | 2026-11-26 | abcdef0 |") in lines
    assert sum(line.startswith("| ") for line in lines) == 6  # header, run, four reference lines
    assert IWPT_NOTE in lines and "89.42" in IWPT_NOTE
    text = "\n".join(lines)
    assert f"{ROW} (seed 0): its budget of 3 epochs spent, no early stopping, best dev epoch 3." in text
    # the fixture test file is not the reference lines' gold: said
    assert f"not comparable with them: {ROW} (seed 0, `fixtures/conllu/en_heldout.conllu`)" in text
    for command in result["reproduce"]:
        assert f"    {command}" in lines
    assert "    .venv/bin/python scripts/tree_copy.py" in lines
    report = tmp_path / "RESULTS.md"
    write_report(results, report)
    # the report writes the recorded paths as a clone of the repository names them (this run's are in tmp_path)
    assert "\n".join(clone_paths(line) for line in lines) in report.read_text()


def test_rows_renamed_for_one_reason_are_listed_with_it_once(evaluated, tmp_path):
    results = tmp_path / "results"
    why = "trained over other features"
    for name, seed in (("a_last_four", 0), ("a_last_four", 1), ("b_last_four", 0)):
        write_json(results / "enhanced" / f"{name}.seed{seed}.json",
                   {**evaluated["result"], "row": name, "seed": seed,
                    "renamed": {"from": name[:-len("_last_four")], "date": "2026-11-29", "why": why}})
    write_json(results / "enhanced" / f"{ROW}.json", evaluated["result"])
    lines = [line for line in enhanced_table(results) if line.startswith("Renamed rows")]
    assert lines == ["Renamed rows (`renamed` in their JSONs): a_last_four (once a), b_last_four (once b): "
                     f"{why}."]


def test_an_unfinished_budget_and_an_early_stop_are_said_plainly():
    status = budget_status({"trainer": {"num_epochs": 12, "patience": None}}, {"epoch": 4, "best_epoch": 3})
    assert status["finished_budget"] is False and status["epochs_done"] == 5
    assert status["budget_says"] == "did NOT finish its budget: 5 of 12 epochs (stopped after 5 of 12 epochs)"
    status = budget_status({"trainer": {"num_epochs": 12, "patience": 3}}, {"epoch": 6, "best_epoch": 3})
    assert status["finished_budget"] is False
    # early stopping is convergence, not a run cut short
    assert status["budget_says"] == ("stopped early, converged: 7 of 12 epochs (early stopping: no better dev UAS "
                                     "for 3 epochs)")
    # a run selected on ELAS stopped for want of a better dev ELAS
    status = budget_status({"trainer": {"num_epochs": 40, "patience": 5, "validation_metric": "+ELAS"}},
                           {"epoch": 20, "best_epoch": 15})
    assert status["stopped"] == "early stopping: no better dev ELAS for 5 epochs"
    assert budget_status({"trainer": {"num_epochs": 12}}, {"epoch": 11, "best_epoch": 9})["finished_budget"] is True


def test_a_seed_that_is_not_the_runs_is_refused():
    check_seed({}, 0)
    check_seed({"random_seed": 13372, "numpy_seed": 1339, "pytorch_seed": 135}, 2)
    with pytest.raises(SystemExit):
        check_seed({}, 1)
    with pytest.raises(SystemExit):
        check_seed({"random_seed": 13372, "numpy_seed": 1339, "pytorch_seed": 135}, 0)


def test_the_tree_first_ceiling_holds_the_gold_tree_and_the_gold_graph(tmp_path, monkeypatch):
    from seqgraph_allennlp.common.enhanced import enhanced_graph
    from seqgraph_experiments import tree_copy

    gold = ROOT / "fixtures" / "conllu" / "enhanced.conllu"
    monkeypatch.setattr(tree_copy, "GOLD", gold)
    output = tmp_path / "ceiling.conllu"
    tree_copy.gold_graph(output, with_tree=True)
    added = 0
    for sentence, written in zip(read_sentences(str(gold)), read_sentences(str(output))):
        for word, pairs, written_pairs in zip(sentence.words, enhanced_graph(sentence), enhanced_graph(written)):
            heads = {head for head, _ in written_pairs}
            # every head of the gold graph but self-loops (one label per head: `gold_graph`), and the
            # basic tree's
            assert {head for head, _ in pairs if head != word.id} <= heads
            assert word.head in heads
            added += word.head not in {head for head, _ in pairs}
            if word.head not in {head for head, _ in pairs}:
                assert (word.head, word.deprel) in written_pairs
    # the fixture's relative clause: a basic edge the enhanced graph moves to the antecedent
    assert added > 0


@pytest.mark.parametrize("gold_tree_labels", [False, True])
def test_the_perfect_graph_phase_keeps_the_predicted_tree_and_adds_the_other_gold_edges(
    tmp_path, monkeypatch, gold_tree_labels
):
    from seqgraph_allennlp.common.enhanced import enhanced_graph
    from seqgraph_experiments import tree_copy

    gold = ROOT / "fixtures" / "conllu" / "enhanced.conllu"
    monkeypatch.setattr(tree_copy, "GOLD", gold)
    # a "prediction": each word's head moved to its neighbour where that keeps it off itself, DEPS the tree
    # with a label of its own
    predicted = tmp_path / "predicted.conllu"
    with open(predicted, "w", encoding="utf-8") as out:
        for sentence in read_sentences(str(gold)):
            heads = [word.id - 1 if word.id > 1 else 0 for word in sentence.words]
            deps = [[(head, "dep:mine")] for head in heads]
            out.write(format_sentence(sentence, heads, ["dep"] * len(heads), deps=deps))
    output = tmp_path / "perfect.conllu"
    tree_copy.perfect_graph_phase(predicted, output, gold_tree_labels)
    checked = 0
    for sentence, tree, written in zip(read_sentences(str(gold)), read_sentences(str(predicted)),
                                       read_sentences(str(output))):
        for word, gold_pairs, written_pairs in zip(tree.words, enhanced_graph(sentence), enhanced_graph(written)):
            gold_labels = {head: label for head, label in reversed(gold_pairs) if head != word.id}
            written_labels = dict(written_pairs)
            # the predicted tree edge stays, with the prediction's label or, asked for, the gold one
            expected = gold_labels.get(word.head, "dep:mine") if gold_tree_labels else "dep:mine"
            assert written_labels.pop(word.head) == expected
            # and every other gold edge comes, with its gold label, nothing else
            assert written_labels == {head: label for head, label in gold_labels.items() if head != word.head}
            checked += 1
    assert checked > 10


def seed_run(row, seed, elas, **changed):
    scores = {"ELAS": elas, "EULAS": elas + 0.01, "UAS": 0.93, "LAS": 0.91}
    return {"row": row, "seed": seed, "test": scores,
            "config_differences": {"changed": {"random_seed": 13370 + seed, **changed}, "removed": []}}


def test_enhanced_seed_lines_average_the_seeds_of_one_setting_and_compare_rows():
    from seqgraph_experiments.report.enhanced import enhanced_seed_lines

    runs = [seed_run("ours", 0, 0.90, **{"model.label_bfloat16_inference": False}), seed_run("ours", 1, 0.89),
            seed_run("base", 0, 0.88), seed_run("base", 1, 0.885), seed_run("once", 0, 0.5)]
    lines = enhanced_seed_lines(runs)
    # seeds and parse-time settings do not make runs differ; a row run once is not averaged
    assert "| ours | 2 | 0, 1 | 89.50 ± 0.71 | 90.50 ± 0.71 | 93.00 ± 0.00 | 91.00 ± 0.00 |" in lines
    assert "| base | 2 | 0, 1 | 88.25 ± 0.35 | 89.25 ± 0.35 | 93.00 ± 0.00 | 91.00 ± 0.00 |" in lines
    assert not any(line.startswith("| once |") for line in lines)
    assert ("- ours − base: test ELAS +1.25, exceeds the spread (no seed of the lower row reaches a seed of the "
            "higher one).") in lines
    runs[3]["test"]["ELAS"] = 0.895
    assert "- ours − base: test ELAS +0.75, within the spread (the rows' seeds overlap)." in enhanced_seed_lines(runs)
    # another epoch budget without a learning-rate schedule that reads it only moves where training may stop
    runs[1]["config_differences"]["changed"]["trainer.num_epochs"] = 60
    averaged = "| ours | 2 | 0, 1 | 89.50 ± 0.71 | 90.50 ± 0.71 | 93.00 ± 0.00 | 91.00 ± 0.00 |"
    assert averaged in enhanced_seed_lines(runs)
    # with one it trains differently, as does any other setting: named, not averaged
    for run in runs[:2]:
        run["used_config"] = {"trainer": {"learning_rate_scheduler": {"type": "linear_with_warmup"}}}
    assert not any(line.startswith("| ours |") for line in enhanced_seed_lines(runs))
    for run in runs[:2]:
        del run["used_config"]
    runs[1]["config_differences"]["changed"]["model.separate_graph_scores"] = False
    lines = enhanced_seed_lines(runs)
    assert not any(line.startswith("| ours |") for line in lines)
    assert ("- ours: not averaged, its runs (seeds 0, 1) trained with different settings (`config_differences` in "
            "their JSONs).") in lines
    assert enhanced_seed_lines([seed_run("once", 0, 0.5)]) == []


MPNET_CONFIG = {"model": {"text_field_embedder": {"token_embedders": {
    "tokens": {"type": "embedding", "embedding_dim": 100},
    "mpnet": {"type": "cached_pretrained_transformer_mismatched", "model_name": "all-mpnet-base-v2",
              "cache_directory": "experiments/features"}}}}}


def test_the_timed_parse_turns_off_the_frozen_features_cache_and_nothing_else():
    from allennlp.common.params import with_overrides

    overrides = feature_cache_off(MPNET_CONFIG)
    assert overrides == {"model.text_field_embedder.token_embedders.mpnet.cache_directory": None}
    # as `allennlp predict -o` applies it to the archive's config: the cache gone, the rest as it was
    applied = with_overrides(MPNET_CONFIG, overrides)
    embedders = applied["model"]["text_field_embedder"]["token_embedders"]
    assert embedders["mpnet"]["cache_directory"] is None
    assert embedders["mpnet"]["model_name"] == "all-mpnet-base-v2" and embedders["tokens"]["embedding_dim"] == 100
    assert feature_cache_off(applied) == {}
    assert feature_cache_off({"model": {"type": "seqgraph_parser"}}) == {}


def test_a_speed_timed_with_the_features_cache_on_is_marked():
    before = {"used_config": MPNET_CONFIG, "parse": {"sentences_per_second": 120.54}}
    assert parse_speed(before) == "120.5 †"
    after = {"used_config": MPNET_CONFIG,
             "parse": {"sentences_per_second": 26.04, "features_cache_off": sorted(feature_cache_off(MPNET_CONFIG))}}
    assert parse_speed(after) == "26.0"
    # without frozen features there was no cache to read
    assert parse_speed({"used_config": {"model": {}}, "parse": {"sentences_per_second": 146.6}}) == "146.6"


def test_the_epochs_cell_says_how_a_run_ended_and_an_extended_budget():
    from seqgraph_experiments.report.enhanced import convergence, epochs_text

    spent = {"epochs_done": 24, "budget": {"epochs": 24, "patience": 5}, "best_epoch": 19, "finished_budget": True,
             "stopped": "epoch budget (24)"}
    # the last 5 epochs without a better dev score: as converged as early stopping would have said
    assert epochs_text(spent) == "24 / 24" and convergence(spent) is None
    rising = {**spent, "best_epoch": 20}
    assert epochs_text(rising) == "24 / 24 (not converged)"
    assert convergence(rising) == "its budget of 24 epochs spent, best dev epoch 20: among the last 5"
    no_patience = {**spent, "budget": {"epochs": 24, "patience": None}}
    assert convergence(no_patience) == "its budget of 24 epochs spent, no early stopping, best dev epoch 19"
    early = {**spent, "epochs_done": 20, "best_epoch": 15, "finished_budget": False,
             "stopped": "early stopping: no better dev ELAS for 5 epochs"}
    assert epochs_text(early) == "20 / 24 (early stop)" and convergence(early) is None
    cut = {**early, "best_epoch": 18, "stopped": "stopped after 20 of 24 epochs"}
    assert epochs_text(cut) == "20 / 24 (not converged)"
    assert convergence(cut) == "cut: stopped after 20 of 24 epochs, best dev epoch 18"
    extended = {**early, "epochs_done": 29, "budget": {"epochs": 40, "patience": 5}, "best_epoch": 24,
                "budget_extensions": [{"from_epochs": 24, "to_epochs": 40}]}
    assert epochs_text(extended) == "29 / 40 (early stop) (budget extended from 24)"
