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


def test_a_gold_file_the_conll_2018_evaluation_refuses_is_scored_by_this_module_and_named(tmp_path, capsys):
    # two root words in the gold file's second sentence (lines 10-14, ended by the blank line 15): udeval
    # refuses it at the line that ends the sentence; this module's counts score it, and say why
    gold = write(tmp_path / "gold.conllu", GOLD[:10] + [("1", "Her", 0, "root")] + GOLD[11:])
    predicted = write(tmp_path / "predicted.conllu", PREDICTED_TREE)
    refusal = (
        f"{gold}:15: the CoNLL 2018 evaluation refuses it: There are multiple roots in the sentence that ends at 15"
    )
    assert main([str(gold), str(predicted), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["scorer"] == "seqgraph_allennlp.common.scoring" and printed["official_refused"] == refusal
    # "Her" now differs from the gold root: 7 of 9 heads right
    assert printed["UAS"] == pytest.approx(7 / 9) and "CLAS" not in printed
    assert main([str(gold), str(predicted)]) == 0
    expected = "scorer: UAS, LAS by seqgraph_allennlp.common.scoring (the CoNLL 2018 evaluation refuses the files: "
    assert expected + refusal + ")" in capsys.readouterr().out.splitlines()


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
