"""
The README is for users: short, with what they need on its first screen (what this is, how to install, how to
get a model, a Python snippet and an `allennlp predict` line that parse text, one table of scores against the
baseline), and the rest in docs/. Its commands run as written (here on the tiny test model, with the model's
and the data's paths substituted); its score table is computed from the results JSON; every other number in
its prose is checked against where it comes from; every relative link of README.md and docs/*.md leads to a
file, and to a heading where it names one.
"""
import contextlib
import io
import json
import logging
import os
import re
import shlex
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest

from seqgraph_allennlp.common.conllu import check_tree, parse_string

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RESULTS = ROOT / "results" / "ewt_converged"
BIN = Path(sys.executable).parent
# what the README's commands name, and what the tests substitute
README_MODEL = "demo_out/model/model.tar.gz"
README_TEST_FILE = "data/UD_English-EWT/en_ewt-ud-test.conllu"
SMALL_CONLLU = ROOT / "fixtures" / "conllu" / "en_small.conllu"
FIRST_SCREEN = 60


def readme() -> str:
    return README.read_text(encoding="utf-8")


def code_blocks(text: str, language: str) -> List[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


def commands(language: str = "sh") -> List[str]:
    """The README's shell commands: continuation lines joined, comments dropped."""
    found = []
    for block in code_blocks(readme(), language):
        for command in block.replace("\\\n", " ").splitlines():
            command = re.sub(r"\s+#.*$", "", command).strip()
            if command:
                found.append(" ".join(command.split()))
    return found


def command(start: str) -> str:
    matching = [line for line in commands() if line.startswith(start)]
    assert len(matching) == 1, (start, matching)
    return matching[0]


# --- its length and its first screen ----------------------------------------------------------------------------

def test_the_readme_is_short():
    assert len(readme().splitlines()) < 200


def test_the_first_screen_installs_gets_a_model_parses_and_scores():
    first = "\n".join(readme().splitlines()[:FIRST_SCREEN])
    assert "Sequential Graph Dependency Parser" in first and "AllenNLP" in first and "enhanced UD graphs" in first
    assert "\nmake install " in first and "\nmake english " in first
    assert "\nmake demo " in first and "\nmake english-model " in first
    assert "\nallennlp train training_config/coach_valid.jsonnet -s out/ --include-package seqgraph_allennlp" in first
    (snippet,) = code_blocks(first, "python")
    assert snippet.startswith("from seqgraph_allennlp import Parser\n") and len(snippet.splitlines()) == 3
    assert "allennlp predict " in "\n".join(code_blocks(first, "sh"))
    assert "| UD English-EWT test, UAS / LAS" in first and "| biaffine baseline |" in first
    assert len(score_table(first)) == len(TABLE_ROWS)


def test_the_readme_gives_the_test_command_that_ci_runs():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^test: install\n\t\$\(BIN\)/(.+)$", makefile, flags=re.MULTILINE).group(1)
    assert recipe == "python -m pytest -q -n 2 --dist loadfile tests"
    assert "make test" in commands() and ".venv/bin/python -m pytest -q -n 2 --dist loadfile tests" in readme()
    assert (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip().endswith("\nmake test")


def test_the_readme_links_every_page_of_docs():
    text = readme()
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.stem.startswith(("TAU_SWEEP", "EASY_FIRST")):  # generated reports, linked from ANALYSIS.md
            continue
        assert f"](docs/{page.name})" in text, page.name


# --- the score table --------------------------------------------------------------------------------------------

# (row label's config names, the sequential row, the baseline row)
TABLE_ROWS = [("coach_valid_mpnet", "biaffine_mst_mpnet"), ("coach_valid_upos", "biaffine_mst")]


def runs(row: str) -> List[Dict]:
    paths = [RESULTS / f"{row}.json", *sorted(RESULTS.glob(f"{row}.seed*.json"))]
    return [json.loads(path.read_text(encoding="utf-8")) for path in paths if path.exists()]


def scores_on_test(row: str, metric: str) -> List[float]:
    return [100 * run["test_scorer"][metric] for run in runs(row)]


def mean_sd(values: List[float]) -> str:
    return f"{statistics.mean(values):.2f} ± {statistics.stdev(values):.2f}"


def cell(row: str, other: str) -> str:
    """UAS / LAS of a row over its seeds, in bold where its mean is the higher of the pair."""
    parts = []
    for metric in ("UAS", "LAS"):
        ours, theirs = scores_on_test(row, metric), scores_on_test(other, metric)
        text = mean_sd(ours)
        parts.append(f"**{text}**" if statistics.mean(ours) > statistics.mean(theirs) else text)
    return " / ".join(parts)


def score_table(text: str) -> List[List[str]]:
    start = text.index("| UD English-EWT test, UAS / LAS")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([part.strip() for part in line.strip().strip("|").split("|")])
    return rows


def test_the_score_table_is_computed_from_the_results_json():
    table = score_table(readme())
    assert len(table) == len(TABLE_ROWS)
    for (label, ours, theirs), (sequential, baseline) in zip(table, TABLE_ROWS):
        assert f"`{sequential}` against `{baseline}`" in label
        assert ours == cell(sequential, baseline), (sequential, ours)
        assert theirs == cell(baseline, sequential), (baseline, theirs)


def test_what_the_readme_says_of_the_table_is_what_its_runs_did():
    text = " ".join(readme().split())
    every = [run for pair in TABLE_ROWS for row in pair for run in runs(row)]
    # "mean ± sd over 3 seeds": three runs each, with three different seeds
    assert {len(runs(row)) for pair in TABLE_ROWS for row in pair} == {3}
    assert all(len({run["seed"] for run in runs(row)}) == 3 for pair in TABLE_ROWS for row in pair)
    assert "UAS / LAS (mean ± sd over 3 seeds)" in text
    # the budget, the machine and the scorer
    assert all(run["budget"] == {"epochs": 40, "patience": 5} for run in every)
    assert "until dev UAS had not improved for 5 epochs (at most 40) on 2 CPU cores" in text
    assert all(run["machine"]["cpu_cores"] == 2 and run["machine"]["gpu"] is None for run in every)
    assert all(run["test_scorer"]["UAS"] > 0 for run in every)
    assert "scored as in CoNLL 2018 (every word, punctuation included)" in text
    # "In both rows the sequential parser's lowest seed is above the baseline's highest"
    for sequential, baseline in TABLE_ROWS:
        assert min(scores_on_test(sequential, "UAS")) > max(scores_on_test(baseline, "UAS")), (sequential, baseline)
    assert "In both rows the sequential parser's lowest seed is above the baseline's highest." in text
    # the baseline shares the configs' settings (training_config/common.libsonnet)
    for _, baseline in TABLE_ROWS:
        assert all(run["config"] == f"training_config/{baseline}.jsonnet" for run in runs(baseline))


# --- the other numbers of its prose -----------------------------------------------------------------------------

def prose(text: str) -> str:
    """The README without its code (blocks and spans, whose commands the tests below run) and link targets."""
    text = re.sub(r"^```.*?^```$", " ", text, flags=re.MULTILINE | re.DOTALL)
    text = re.sub(r"`[^`\n]*`", " ", text)
    return re.sub(r"\]\([^)]*\)", "]", text)


NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?![\w])")


def checked_numbers() -> Set[str]:
    """Every number the README's prose may quote, each checked here against where it comes from."""
    numbers: Set[str] = set()
    text = " ".join(readme().split())
    # the score table and what the paragraph under it says (test_what_the_readme_says_of_the_table_...)
    for sequential, baseline in TABLE_ROWS:
        for row, other in ((sequential, baseline), (baseline, sequential)):
            numbers |= set(NUMBER.findall(cell(row, other)))
    numbers |= {"3", "5", "40", "2", "2018"}
    # the papers, as the package and docs/TRAINING.md cite them
    package = (ROOT / "seqgraph_allennlp" / "__init__.py").read_text(encoding="utf-8")
    assert "Welleck & Cho, 2019" in package and "Welleck & Cho (2019)" in text
    assert "Dozat & Manning (2017)" in (ROOT / "docs" / "TRAINING.md").read_text(encoding="utf-8")
    assert "Dozat & Manning (2017)" in text
    numbers |= {"2019", "2017"}
    # what `make install` installs
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    python = re.search(r"^PYTHON \?= python(\S+)$", makefile, flags=re.MULTILINE).group(1)
    allennlp = re.search(r"^ALLENNLP := allennlp==(\S+) ", makefile, flags=re.MULTILINE).group(1)
    assert f"Python {python}, AllenNLP {allennlp}" in text
    numbers |= {python, allennlp}
    # `make english-model`'s time on 2 CPU cores: its quiet run as shipped (results/english_model.json), to 5 minutes
    english = json.loads((ROOT / "results" / "english_model.json").read_text(encoding="utf-8"))
    assert english["note"].startswith("quiet") and english["machine"]["cpu_cores"] == 2
    minutes = 5 * round(english["wall_minutes"] / 5)
    assert f"about {minutes} minutes on 2 CPU cores" in text, minutes
    numbers.add(str(minutes))
    # and what it scored, with its budget
    scores = f"{100 * english['test']['UAS']:.2f} UAS, {100 * english['test']['LAS']:.2f} LAS"
    flat_text = " ".join(text.split())
    assert f"(at most {english['budget']['epochs']} epochs), then scores it on EWT test ({scores}" in flat_text
    numbers |= {f"{100 * english['test']['UAS']:.2f}", f"{100 * english['test']['LAS']:.2f}",
                str(english["budget"]["epochs"])}
    # the service's default address
    from seqgraph_allennlp import serve

    assert serve.DEFAULT_HOST == "127.0.0.1" and f"It listens on {serve.DEFAULT_HOST} unless `--host`" in text
    numbers.add(serve.DEFAULT_HOST)
    # the licences and the data's UD release
    assert "Version 2.0" in (ROOT / "LICENSE").read_text(encoding="utf-8") and "Apache-2.0 (`LICENSE`)" in text
    data = (ROOT / "data" / "README.md").read_text(encoding="utf-8")
    assert "UD release 2.16" in data and "Universal Dependencies 2.16 treebanks" in text
    assert "CC BY-SA 4.0" in data and "CC BY-SA 4.0" in text
    numbers |= {"2.0", "2.16", "4.0"}
    return numbers


def test_every_number_in_the_readme_prose_is_checked():
    quoted = set(NUMBER.findall(prose(readme())))
    assert quoted, "no numbers found: the pattern is wrong"
    unchecked = quoted - checked_numbers()
    assert not unchecked, f"numbers in README.md that no test checks: {sorted(unchecked)}"


# --- its commands -----------------------------------------------------------------------------------------------

def test_the_make_targets_and_paths_it_names_exist():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([\w-]+):", makefile, flags=re.MULTILINE))
    for line in commands():
        if line.startswith("make "):
            assert line.split()[1] in targets, line
    # where `make demo` and `make english-model` write their models, and what the latter trains
    demo = (ROOT / "scripts" / "demo.sh").read_text(encoding="utf-8")
    assert "\nOUT=demo_out\nMODEL_DIR=$OUT/model\nMODEL=$MODEL_DIR/model.tar.gz\n" in demo
    english = (ROOT / "scripts" / "english_model.sh").read_text(encoding="utf-8")
    assert "MODEL_DIR=${ENGLISH_MODEL_DIR:-models/english}" in english
    assert '"$MODEL_DIR/model.tar.gz"' in (ROOT / "scripts" / "treebank_model.sh").read_text(encoding="utf-8")
    assert "CONFIG=${ENGLISH_CONFIG:-coach_valid_mpnet}" in english
    text = " ".join(readme().split())
    assert re.search(rf"^make demo +# a small English parser, in minutes: {re.escape(README_MODEL)}$", readme(),
                     flags=re.MULTILINE)
    assert re.search(r"^make english-model +# .*: models/english/model\.tar\.gz$", readme(), flags=re.MULTILINE)
    assert "`make english-model` trains `coach_valid_mpnet`" in text
    # every config and file it names is there
    for name in re.findall(r"training_config/\w+\.jsonnet|\b\w+\.jsonnet", readme()):
        path = ROOT / name if "/" in name else ROOT / "training_config" / name
        assert path.exists(), name
    for name in ("LICENSE", "data/README.md", "data/UD_English-EWT", "data/UD_Welsh-CCG", "fixtures/conllu",
                 README_TEST_FILE, ".ci/run"):
        assert name in readme() and (ROOT / name).exists(), name


def test_the_readme_python_snippet_runs(trained_model_archive):
    (snippet,) = code_blocks(readme(), "python")
    assert README_MODEL in snippet
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(snippet.replace(README_MODEL, str(trained_model_archive)), "README.md", "exec"), {})
    sentences = parse_string(output.getvalue())
    assert [sentence.text for sentence in sentences] == ["The cat sat on the mat.", "It didn't move."]
    for sentence in sentences:
        check_tree(sentence)


def substituted(line: str, archive: Path) -> str:
    """A README command with the test model for the demo's and the small fixture file for EWT test."""
    return line.replace(README_MODEL, shlex.quote(str(archive))).replace(README_TEST_FILE,
                                                                        shlex.quote(str(SMALL_CONLLU)))


def run_in_shell(line: str, archive: Path, cwd: Path) -> subprocess.CompletedProcess:
    """A README command as a user runs it: in bash, with .venv/bin first on PATH (`source .venv/bin/activate`)."""
    environment = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.run(["bash", "-c", f"set -euo pipefail; {substituted(line, archive)}"], cwd=cwd,
                          env=environment, capture_output=True, text=True, timeout=300)


def run_allennlp_in_process(line: str, archive: Path, monkeypatch) -> None:
    """
    An `allennlp ...` command of the README with the arguments as written, run by the `allennlp` command's own
    entry point in this process (each `allennlp` process takes seconds to start; the shell runs one above).
    """
    from allennlp.commands import main

    argv = shlex.split(substituted(line, archive))
    assert argv[0] == "allennlp", line
    monkeypatch.setattr(sys, "argv", argv)
    main(prog="allennlp")


def test_the_readme_parse_command_runs_in_a_shell(trained_model_archive, tmp_path):
    # the first screen's command: the text, piped in, written as CoNLL-U
    text_predict = command("echo ")
    assert "| allennlp predict demo_out/model/model.tar.gz - " in text_predict
    done = run_in_shell(text_predict, trained_model_archive, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    sentences = parse_string((tmp_path / "parsed.conllu").read_text(encoding="utf-8"))
    assert [sentence.text for sentence in sentences] == ["The cat sat on the mat.", "Then it left!"]
    for sentence in sentences:
        check_tree(sentence)


def test_the_readme_predict_evaluate_and_scoring_commands_run(trained_model_archive, tmp_path, monkeypatch,
                                                              caplog, capsys):
    monkeypatch.chdir(tmp_path)
    # a CoNLL-U file in, CoNLL-U out
    conllu_predict = command("allennlp predict ")
    assert "--use-dataset-reader" in conllu_predict and README_TEST_FILE in conllu_predict
    run_allennlp_in_process(conllu_predict, trained_model_archive, monkeypatch)
    predicted = tmp_path / "parsed.conllu"
    gold = parse_string(SMALL_CONLLU.read_text(encoding="utf-8"))
    parsed = parse_string(predicted.read_text(encoding="utf-8"))
    assert [sentence.forms for sentence in parsed] == [sentence.forms for sentence in gold]
    for sentence in parsed:
        check_tree(sentence)
    # evaluation: printed (logged) and written
    evaluate = command("allennlp evaluate ")
    assert evaluate.endswith(" --output-file metrics.json") and README_TEST_FILE in evaluate
    with caplog.at_level(logging.INFO):
        run_allennlp_in_process(evaluate, trained_model_archive, monkeypatch)
    metrics = json.loads((tmp_path / "metrics.json").read_text(encoding="utf-8"))
    assert {"UAS", "LAS", "UEM", "LEM"} <= set(metrics) and 0.0 <= metrics["UAS"] <= 1.0, metrics
    assert "Metrics:" in caplog.text and '"UAS":' in caplog.text
    # the scorer, on that prediction against its gold file
    from seqgraph_allennlp.common import scoring

    scoring_command = shlex.split(command("python -m seqgraph_allennlp.common.scoring "))
    assert scoring_command[3:] == ["GOLD.conllu", "PREDICTED.conllu"]
    capsys.readouterr()
    assert scoring.main([str(SMALL_CONLLU), str(predicted)]) == 0
    printed = capsys.readouterr().out
    assert "UAS" in printed and "LAS" in printed


def test_the_readme_serve_command_names_the_services_options():
    from seqgraph_allennlp import serve

    serving = command("python -m seqgraph_allennlp.serve ")
    assert serving == f"python -m seqgraph_allennlp.serve {README_MODEL} --port {serve.DEFAULT_PORT}"
    assert command("curl ").startswith(f"curl -s localhost:{serve.DEFAULT_PORT}/parse -d '")


# --- links ------------------------------------------------------------------------------------------------------

DOCUMENTS = [README, *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> Set[str]:
    found: Set[str] = set()
    counts: Dict[str, int] = {}
    text = re.sub(r"^```.*?^```$", "", path.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.MULTILINE):
        base = slug(heading)
        count = counts.get(base, 0)
        counts[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> List[Tuple[str, Path, str]]:
    found = []
    text = re.sub(r"^```.*?^```$", "", path.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        found.append((target, (path.parent / file).resolve() if file else path, anchor))
    return found


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_relative_link_leads_to_a_file_and_heading(document):
    broken = []
    for target, path, anchor in links(document):
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif not path.is_relative_to(ROOT):
            broken.append(f"{target}: outside the repository")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{target}: no heading #{anchor} in {path.relative_to(ROOT)}")
    assert not broken, broken


def test_the_link_checker_sees_links_and_anchors():
    assert slug("The encoder: `fused_bilstm`") == "the-encoder-fused_bilstm"
    assert slug("Enhanced UD graphs (DEPS)") == "enhanced-ud-graphs-deps"
    assert "the-english-model-in-one-command" in anchors(ROOT / "docs" / "TRAINING.md")
    assert any(anchor == "in-python" for _, _, anchor in links(README))
    assert any(target == "docs/INSTALL.md" for target, _, _ in links(README))
