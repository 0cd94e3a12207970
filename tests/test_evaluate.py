"""
`seqgraph_allennlp.common.scoring` against hand-computed scores, and `allennlp evaluate`'s attachment
scores against the scorer's scores of the predictor's CoNLL-U output (same model, same file).
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from seqgraph_allennlp.common.conllu import ConlluError
from seqgraph_allennlp.common.scoring import AlignmentError, count_files, main, score_files

ROOT = Path(__file__).resolve().parents[1]
HELDOUT = ROOT / "fixtures" / "conllu" / "en_heldout.conllu"
EN_SMALL = ROOT / "fixtures" / "conllu" / "en_small.conllu"
ALLENNLP = Path(sys.executable).parent / "allennlp"


def conllu(rows):
    """CoNLL-U text from `(id, form, head, deprel)` rows and `#` comments; `None` ends a sentence."""
    lines = []
    for row in rows:
        if row is None:
            lines.append("")
        elif isinstance(row, str):
            lines.append(row)
        else:
            token_id, form, head, deprel = row
            lines.append(f"{token_id}\t{form}\t_\t_\t_\t_\t{head}\t{deprel}\t_\t_")
    return "\n".join(lines) + "\n"


# 9 words in 2 sentences; the multiword token `2-3` and the empty node `4.1` are not words
GOLD = [
    "# text = I can't go home",
    ("1", "I", 4, "nsubj"),
    ("2-3", "can't", "_", "_"),
    ("2", "ca", 4, "aux"),
    ("3", "n't", 4, "advmod"),
    ("4", "go", 0, "root"),
    ("4.1", "went", "_", "_"),
    ("5", "home", 4, "advmod"),
    None,
    "# text = Her dog barks .",
    ("1", "Her", 2, "nmod:poss"),
    ("2", "dog", 3, "nsubj"),
    ("3", "barks", 0, "root"),
    ("4", ".", 3, "punct"),
    None,
]
PREDICTED = [
    "# text = I can't go home",
    ("1", "I", 4, "nsubj"),
    ("2-3", "can't", 3, "junk"),  # ignored
    ("2", "ca", 4, "aux"),
    ("3", "n't", 4, "advmod:neg"),  # a subtype of the gold relation: right for LAS
    ("4", "go", 0, "root"),
    ("5", "home", 4, "obl:npmod"),  # right head, wrong relation
    None,
    "# text = Her dog barks .",
    ("1", "Her", 2, "nmod"),  # the universal part of nmod:poss: right
    ("2", "dog", 1, "nsubj"),  # wrong head
    ("3", "barks", 0, "root"),
    ("4", ".", 2, "punct"),  # wrong head (punctuation counts)
    None,
]


def write(path: Path, rows) -> Path:
    path.write_text(conllu(rows), encoding="utf-8")
    return path


def test_hand_computed_scores(tmp_path):
    gold = write(tmp_path / "gold.conllu", GOLD)
    predicted = write(tmp_path / "predicted.conllu", PREDICTED)
    counts = count_files(str(gold), str(predicted))
    assert (counts.words, counts.sentences) == (9, 2)
    assert (counts.unlabeled_correct, counts.labeled_correct) == (7, 6)
    assert (counts.unlabeled_exact, counts.labeled_exact) == (1, 0)
    assert score_files(str(gold), str(predicted)) == pytest.approx(
        {"UAS": 7 / 9, "LAS": 6 / 9, "UEM": 1 / 2, "LEM": 0 / 2}
    )
    # against itself everything is right
    assert score_files(str(gold), str(gold)) == {"UAS": 1.0, "LAS": 1.0, "UEM": 1.0, "LEM": 1.0}


def test_missing_predictions_are_wrong(tmp_path):
    gold = write(tmp_path / "gold.conllu", GOLD[9:])
    predicted = write(
        tmp_path / "predicted.conllu",
        [
            ("1", "Her", "_", "_"),
            ("2", "dog", 3, "_"),  # right head, no relation
            ("3", "barks", 0, "root"),
            ("4", ".", 3, "punct"),
        ],
    )
    assert score_files(str(gold), str(predicted)) == pytest.approx(
        {"UAS": 3 / 4, "LAS": 2 / 4, "UEM": 0.0, "LEM": 0.0}
    )


@pytest.mark.parametrize(
    "predicted_rows, line, problem",
    [
        # a different FORM: word 2 of the second sentence, on line 12 of both files
        (GOLD[:10] + [("1", "Her", 2, "nmod:poss"), ("2", "cat", 3, "nsubj")] + GOLD[12:], 12,
         "word 2 is 'cat' but the gold word at {gold}:12 is 'dog'"),
        # a word missing from the second sentence, which starts at line 10 (its comment)
        (GOLD[:13] + [None], 10, "sentence 2 has 3 words but the gold sentence at {gold}:10 has 4"),
    ],
)  # fmt: skip
def test_misaligned_files(tmp_path, predicted_rows, line, problem):
    gold = write(tmp_path / "gold.conllu", GOLD)
    predicted = write(tmp_path / "predicted.conllu", predicted_rows)
    message = f"{predicted}:{line}: " + problem.format(gold=gold)
    with pytest.raises(AlignmentError) as error:
        count_files(str(gold), str(predicted))
    assert str(error.value) == message


def test_a_missing_sentence(tmp_path):
    gold = write(tmp_path / "gold.conllu", GOLD)
    predicted = write(tmp_path / "predicted.conllu", GOLD[:9])
    with pytest.raises(AlignmentError, match=f"^{gold}:10: gold sentence 2 has no counterpart: "):
        count_files(str(gold), str(predicted))
    with pytest.raises(AlignmentError, match=f"^{gold}:10: sentence 2 has no counterpart: "):
        count_files(str(predicted), str(gold))


def test_gold_without_heads_is_an_error(tmp_path):
    gold = write(tmp_path / "gold.conllu", [("1", "Hello", "_", "_")])
    with pytest.raises(ConlluError, match=r":1: gold word 1 has no HEAD or DEPREL"):
        count_files(str(gold), str(gold))


def test_command_line(tmp_path, capsys):
    gold = write(tmp_path / "gold.conllu", GOLD)
    predicted = write(tmp_path / "predicted.conllu", PREDICTED)
    assert main([str(gold), str(predicted)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "UAS: 0.777778 (7/9 words)",
        "LAS: 0.666667 (6/9 words)",
        "UEM: 0.500000 (1/2 sentences)",
        "LEM: 0.000000 (0/2 sentences)",
        # the official evaluation refuses a file with a cycle: this module's counts score it
        "scorer: UAS, LAS by seqgraph_allennlp.common.scoring",
        # "Her" and "dog" head each other
        "trees: 1 of 2 predicted sentences are not trees with one root word (the official CoNLL 2018 script "
        f"refuses such a file); the first: {predicted}:10: predicted sentence starting at line 9 is not a tree: "
        "cycle 1 -> 2 -> 1",
    ]
    assert main([str(gold), str(predicted), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed.pop("scorer") == "seqgraph_allennlp.common.scoring"
    assert printed == pytest.approx({"UAS": 7 / 9, "LAS": 6 / 9, "UEM": 0.5, "LEM": 0.0, "invalid_trees": 1})
    assert main([str(gold), str(predicted), "--require-trees"]) == 1
    assert capsys.readouterr().err == (
        f"error: {predicted}:10: predicted sentence starting at line 9 is not a tree: cycle 1 -> 2 -> 1\n"
    )
    assert main([str(gold), str(gold), "--require-trees"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "trees: all 2 predicted sentences are trees with one root word"
    misaligned = write(tmp_path / "misaligned.conllu", GOLD[:9])
    assert main([str(gold), str(misaligned)]) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith(f"error: {gold}:10: ")


# PREDICTED with "dog" attached to "barks" (its gold head): a tree, so the CoNLL 2018 evaluation scores it
PREDICTED_TREE = PREDICTED[:9] + [("1", "Her", 2, "nmod"), ("2", "dog", 3, "nsubj")] + PREDICTED[11:]


def test_a_file_of_trees_is_scored_by_the_conll_2018_evaluation(tmp_path, capsys):
    gold = write(tmp_path / "gold.conllu", GOLD)
    predicted = write(tmp_path / "predicted.conllu", PREDICTED_TREE)
    # by hand: only "home" (wrong relation) and "." (wrong head) are wrong; LAS also loses "home". CLAS:
    # the 7 gold content words (not aux, punct) against the 7 predicted ones, all right but "home"
    assert main([str(gold), str(predicted), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed.pop("scorer").startswith("udtools.udeval")
    assert printed == pytest.approx(
        {"UAS": 8 / 9, "LAS": 7 / 9, "CLAS": 6 / 7, "UEM": 1 / 2, "LEM": 0.0, "invalid_trees": 0}
    )
    assert main([str(gold), str(predicted)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["UAS: 0.888889 (8/9 words)", "LAS: 0.777778 (7/9 words)", "CLAS: 0.857143 (content words)"]
    assert lines[-2] == "scorer: UAS, LAS, CLAS by udtools.udeval (CoNLL 2018 shared task evaluation)"
    # words left out by UPOS: the official evaluation cannot, this module's counts do
    assert main([str(gold), str(predicted), "--json", "--exclude-upos", "PUNCT"]) == 0
    assert json.loads(capsys.readouterr().out)["scorer"] == "seqgraph_allennlp.common.scoring"


def test_a_disagreement_with_the_conll_2018_evaluation_is_an_error(tmp_path, capsys, monkeypatch):
    from seqgraph_allennlp.common import scoring

    gold = write(tmp_path / "gold.conllu", GOLD)
    predicted = write(tmp_path / "predicted.conllu", PREDICTED_TREE)
    monkeypatch.setattr(scoring, "official_scores", lambda *paths: {"UAS": 0.5, "LAS": 7 / 9, "CLAS": 6 / 7})
    assert main([str(gold), str(predicted)]) == 1
    assert capsys.readouterr().err == (
        f"error: {predicted}: UAS 0.888889 here but 0.500000 by the CoNLL 2018 evaluation (udtools.udeval): "
        "please report this file\n"
    )


# GOLD with "Her" attached to the root too: its second sentence (lines 10-14) has two root words, 1 and 3
GOLD_TWO_ROOTS = GOLD[:10] + [("1", "Her", 0, "root")] + GOLD[11:]
TWO_ROOTS = "{gold}:13: sentence starting at line 10 is not a tree: 2 words have head 0: 1, 3"


def test_a_gold_sentence_that_is_not_a_tree_is_refused_as_the_reader_refuses_it(tmp_path, capsys):
    from seqgraph_allennlp.dataset_readers import SeqGraphUDReader

    gold = write(tmp_path / "gold.conllu", GOLD_TWO_ROOTS)
    predicted = write(tmp_path / "predicted.conllu", PREDICTED_TREE)
    message = TWO_ROOTS.format(gold=gold)
    with pytest.raises(ConlluError) as reader_error:
        list(SeqGraphUDReader().read(str(gold)))
    assert str(reader_error.value) == message
    for options in ([], ["--json"], ["--require-trees"]):
        assert main([str(gold), str(predicted), *options]) == 1
        captured = capsys.readouterr()
        assert captured.err == f"error: {message}\n" and captured.out == ""
    with pytest.raises(ConlluError, match="is not a tree"):
        count_files(str(gold), str(predicted))


def test_skip_invalid_trees_leaves_them_out_of_gold_and_prediction(tmp_path, capsys):
    gold = write(tmp_path / "gold.conllu", GOLD_TWO_ROOTS)
    # the prediction of the skipped sentence has a cycle: skipped with it, not counted as a predicted non-tree
    predicted = write(tmp_path / "predicted.conllu", PREDICTED)
    assert main([str(gold), str(predicted), "--skip-invalid-trees", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    # the first sentence alone: every head right, "home" with the wrong relation; scored by the CoNLL 2018
    # evaluation on copies without the skipped sentence
    assert printed.pop("scorer").startswith("udtools.udeval")
    assert printed.pop("CLAS") < 1.0
    assert printed == pytest.approx(
        {"UAS": 1.0, "LAS": 4 / 5, "UEM": 1.0, "LEM": 0.0, "invalid_trees": 0, "skipped_invalid_trees": 1}
    )
    assert main([str(gold), str(predicted), "--skip-invalid-trees"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["UAS: 1.000000 (5/5 words)", "LAS: 0.800000 (4/5 words)"]
    assert lines[-2:] == [
        "trees: all 1 predicted sentences are trees with one root word",
        "skipped: 1 of 2 gold sentences are not trees and were left out of every score, with their predictions; "
        f"the first: {TWO_ROOTS.format(gold=gold)}",
    ]
    # nothing left to score is an error, not a score of 0
    only_bad = write(tmp_path / "only_bad.conllu", GOLD_TWO_ROOTS[9:])
    assert main([str(only_bad), str(only_bad), "--skip-invalid-trees"]) == 1
    assert capsys.readouterr().err == (
        f"error: {only_bad}: no sentences to score: all 1 are not trees and were skipped\n"
    )


def test_skip_invalid_trees_leaves_them_out_of_the_enhanced_scores_too(capsys):
    # cycle.conllu: a valid first sentence (4 words, 4 enhanced edges), a second whose HEAD column has a cycle
    cycle = str(ROOT / "fixtures" / "conllu" / "cycle.conllu")
    assert main([cycle, cycle, "--skip-invalid-trees"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "ELAS: 1.000000 (F1: 4 right of 4 gold and 4 predicted enhanced edges)" in lines
    assert main([cycle, cycle]) == 1
    assert capsys.readouterr().err == (
        f"error: {cycle}:12: sentence starting at line 8 is not a tree: cycle 3 -> 4 -> 3\n"
    )


def test_nothing_to_score_is_an_error(tmp_path, capsys):
    empty = tmp_path / "empty.conllu"
    empty.write_text("", encoding="utf-8")
    assert main([str(empty), str(empty)]) == 1
    assert capsys.readouterr().err == f"error: {empty}: no sentences to score: the file is empty\n"
    # raw text (no gold head) cannot be scored against
    raw = ROOT / "fixtures" / "conllu" / "no_heads.conllu"
    assert main([str(raw), str(raw)]) == 1
    assert capsys.readouterr().err == f"error: {raw}:3: gold word 1 has no HEAD or DEPREL: cannot score against it\n"
    # every word left out by --exclude-upos
    gold = write(tmp_path / "gold.conllu", [("1", "Hi", 0, "root")])
    gold.write_text(gold.read_text().replace("1\tHi\t_\t_", "1\tHi\t_\tINTJ"))
    assert main([str(gold), str(gold), "--exclude-upos", "INTJ,PUNCT"]) == 1
    assert capsys.readouterr().err == (
        f"error: {gold}: no words to score: the gold UPOS of every word is excluded (INTJ, PUNCT)\n"
    )


def test_evaluate_agrees_with_the_scorer(trained_model_archive, tmp_path):
    # sentences the model never trained on (it trained on en_small.conllu)
    metrics_path = tmp_path / "metrics.json"
    predicted_path = tmp_path / "predicted.conllu"
    common = ["--include-package", "seqgraph_allennlp", "--batch-size", "4"]
    commands = [
        [str(ALLENNLP), "evaluate", str(trained_model_archive), str(HELDOUT), "--output-file", str(metrics_path)]
        + common,
        [str(ALLENNLP), "predict", str(trained_model_archive), str(HELDOUT), "--use-dataset-reader",
         "--predictor", "seqgraph_parser", "--predictor-args", '{"output_format": "conllu"}',
         "--output-file", str(predicted_path), "--silent"] + common,
    ]  # fmt: skip
    # both at once: each is mostly start-up time
    processes = [
        subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for command in commands
    ]
    for process in processes:
        _, stderr = process.communicate(timeout=300)
        assert process.returncode == 0, stderr[-3000:]
        assert "Traceback" not in stderr

    metrics = json.loads(metrics_path.read_text(encoding="utf-8"))
    scores = score_files(str(HELDOUT), str(predicted_path))
    for name in ("UAS", "LAS", "UEM", "LEM"):
        assert metrics[name] == pytest.approx(scores[name], abs=1e-6), name
    # a tiny model: neither all wrong nor all right, so the comparison means something
    assert 0.0 < scores["UAS"] < 1.0


def test_punctuation_free_scores_leave_out_gold_punct_and_sym(tmp_path, capsys):
    # the gold "." is PUNCT: the prediction's one wrong head among the other three words remains
    gold = write(tmp_path / "gold.conllu", GOLD[9:])
    text = gold.read_text().replace("4\t.\t_\t_", "4\t.\t_\tPUNCT")
    gold.write_text(text)
    predicted = write(tmp_path / "predicted.conllu", PREDICTED[8:])
    assert score_files(str(gold), str(predicted)) == pytest.approx({"UAS": 2 / 4, "LAS": 2 / 4, "UEM": 0, "LEM": 0})
    assert score_files(str(gold), str(predicted), {"PUNCT", "SYM"}) == pytest.approx(
        {"UAS": 2 / 3, "LAS": 2 / 3, "UEM": 0, "LEM": 0}
    )
    assert main([str(gold), str(predicted), "--exclude-upos", "PUNCT,SYM"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "UAS: 0.666667 (2/3 words)"


def test_biaffine_baseline_las_compares_universal_relations():
    # allennlp-models' scorer counts `nmod:poss` for `nmod` wrong; CoNLL 2018 (and every other row) right
    import torch
    from allennlp.common import Params
    from allennlp.data import Vocabulary
    from allennlp.models import Model

    import seqgraph_allennlp  # noqa: F401

    vocab = Vocabulary()
    for label in ("nmod", "nmod:poss", "det"):
        vocab.add_token_to_namespace(label, "head_tags")
    vocab.add_token_to_namespace("dog", "tokens")
    params = Params.from_file(str(ROOT / "fixtures" / "configs" / "biaffine_mst.jsonnet"))
    model = Model.from_params(vocab=vocab, params=params["model"])
    nmod, poss, det = (vocab.get_token_index(label, "head_tags") for label in ("nmod", "nmod:poss", "det"))
    heads = torch.tensor([[2, 0, 2]])
    model._attachment_scores(heads, torch.tensor([[nmod, det, det]]), heads, torch.tensor([[poss, det, nmod]]))
    scores = model.get_metrics()
    assert scores["UAS"] == 1.0 and scores["LAS"] == pytest.approx(2 / 3)


def without_columns(source: Path, target: Path, columns) -> Path:
    """`source` with the given 0-based columns `_` on every word line; without DEPS (8), no empty nodes."""
    lines = []
    for line in source.read_text(encoding="utf-8").split("\n"):
        fields = line.split("\t")
        if len(fields) == 10 and "." in fields[0] and 8 in columns:
            continue
        if len(fields) == 10 and fields[0].isdigit():
            for column in columns:
                fields[column] = "_"
        lines.append("\t".join(fields))
    target.write_text("\n".join(lines), encoding="utf-8")
    return target


def test_evaluate_reports_no_elas_or_upos_for_a_file_without_deps_or_upos(enhanced_model_archive, enhanced_twin_run,
                                                                          tmp_path):
    """A file without DEPS (or UPOS) is not scored 0 on the layer it lacks: the metric is absent."""
    source = ROOT / "fixtures" / "conllu" / "en_small.conllu"
    # the full file: `allennlp evaluate` of the same archive on en_small.conllu, run once a run by conftest.py's
    # `fixture_twin_run` (the file as without_columns leaves it with no column blanked)
    assert without_columns(source, tmp_path / "full.conllu", ()).read_text() == source.read_text()
    *_, full_metrics = enhanced_twin_run
    metrics = {"full": full_metrics}
    data = without_columns(source, tmp_path / "no_deps_upos.conllu", (3, 8))
    output = tmp_path / "no_deps_upos.json"
    completed = subprocess.run(
        [str(ALLENNLP), "evaluate", str(enhanced_model_archive), str(data), "--output-file", str(output),
         "--include-package", "seqgraph_allennlp"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    metrics["no_deps_upos"] = json.loads(output.read_text())
    assert {"ELAS", "EULAS", "UPOS", "UAS", "LAS"} <= set(metrics["full"])
    assert {"UAS", "LAS"} <= set(metrics["no_deps_upos"])
    assert not {"ELAS", "EULAS", "UPOS"} & set(metrics["no_deps_upos"])
    assert metrics["no_deps_upos"]["UAS"] == metrics["full"]["UAS"]
