"""docs/ANALYSIS.md's section on English at convergence quotes test scores and paired-bootstrap intervals by
hand; these tests read them back from the results JSON, so that a rerun that changes a number fails here until
the text follows."""
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONVERGED = ROOT / "results" / "ewt_converged"
SIGNIFICANCE = ROOT / "results" / "significance"


def convergence_section() -> str:
    analysis = (ROOT / "docs" / "ANALYSIS.md").read_text(encoding="utf-8")
    start = analysis.index("## The recurrent model against the baseline on English at convergence")
    end = analysis.find("\n## ", start + 1)
    return analysis[start:end if end != -1 else None]


def converged_test_uas(row: str) -> float:
    return 100 * json.loads((CONVERGED / f"{row}.json").read_text())["test_scorer"]["UAS"]


def bootstrap(name: str) -> tuple:
    uas = json.loads((SIGNIFICANCE / f"{name}.json").read_text())["UAS"]
    low, high = (100 * bound for bound in uas["interval_95"])
    return 100 * uas["difference"], low, high


def table_rows(section: str) -> dict:
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            rows[cells[0]] = cells[1:]
    return rows


def test_the_convergence_table_quotes_the_scores_and_bootstraps_of_its_json():
    rows = table_rows(convergence_section())
    for (a, b), name in ((("coach_valid", "biaffine_mst"), "ewt"),
                         (("coach_valid_mpnet", "biaffine_mst_mpnet"), "ewt_mpnet")):
        key = next(k for k in rows if k.startswith(f"`{a}` − `{b}`"))
        scores, difference, interval = rows[key]
        assert scores == f"{converged_test_uas(a):.2f} − {converged_test_uas(b):.2f}"
        diff, low, high = bootstrap(name)
        assert difference == f"{diff:+.2f}"
        assert interval == f"{low:+.2f} to {high:+.2f}"


def test_the_convergence_text_quotes_the_paper_objective_rows_as_their_json_says():
    text = " ".join(convergence_section().split())
    paper, one_step, coach_valid = (converged_test_uas(row) for row in ("coach_valid_paper", "one_step", "coach_valid"))
    assert f"`coach_valid_paper` has {paper:.2f} test UAS against `one_step`'s {one_step:.2f}" in text
    _, low, high = bootstrap("ewt_paper")
    assert f"(bootstrap {low:.2f} to {high:+.2f})" in text
    assert re.search(rf"gives \+{coach_valid - paper:.2f} on EWT over `coach_valid_paper`", text)
