"""
The repository's layout: the experiment and benchmark tools live in `seqgraph_experiments`, reached by
imports alone (no file edits `sys.path`); scripts/ and benchmarks/ hold their thin entry points, at the
paths that the commands recorded in results/ and docs/ name, or a retired tool's entry point is at its last commit
(docs/EXPERIMENTS.md, "Retired tools"); the Layout of docs/DESIGN.md (once the README's) names every top-level folder.
"""
import json
import ast
import importlib
import importlib.util
import pkgutil
import re
import subprocess
from pathlib import Path

import pytest

import seqgraph_experiments

ROOT = Path(__file__).resolve().parents[1]
# scripts/X.py runs seqgraph_experiments.X, benchmarks/X.py seqgraph_experiments.benchmarks.X
ENTRY_FOLDERS = {"scripts": "seqgraph_experiments", "benchmarks": "seqgraph_experiments.benchmarks"}


def repository_files(pattern: str):
    """The files git tracks or would track (untracked, not ignored) that match `pattern`."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", pattern],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / name for name in listed if (ROOT / name).exists()]


def test_no_file_edits_sys_path():
    edits = re.compile(r"sys\.path\.(insert|append|extend)\(|sys\.path\s*(\+)?=")
    offenders = [str(path.relative_to(ROOT)) for path in repository_files("*.py")
                 if edits.search(path.read_text(encoding="utf-8"))]
    assert offenders == []


def tool_modules():
    """Every module of seqgraph_experiments that has a `main()`, the tools."""
    names = []
    for package in ENTRY_FOLDERS.values():
        for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
            if not info.ispkg:
                names.append(f"{package}.{info.name}")
    return [name for name in names if hasattr(importlib.import_module(name), "main")]


def entry_point(module_name: str) -> Path:
    package, _, name = module_name.rpartition(".")
    folder = next(folder for folder, home in ENTRY_FOLDERS.items() if home == package)
    return ROOT / folder / f"{name}.py"


@pytest.mark.parametrize("module_name", tool_modules())
def test_each_tool_has_a_thin_entry_point_that_exposes_its_main(module_name):
    path = entry_point(module_name)
    assert path.exists(), f"{module_name} has no entry point {path.relative_to(ROOT)}"
    # a docstring, `from <module> import main` and the __main__ guard, nothing else
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree) and len(tree.body) == 3
    imported, guard = tree.body[1:]
    assert isinstance(imported, ast.ImportFrom) and imported.module == module_name
    assert [alias.name for alias in imported.names] == ["main"]
    assert isinstance(guard, ast.If) and ast.unparse(guard.test) == "__name__ == '__main__'"
    spec = importlib.util.spec_from_file_location(f"entry_point_{path.parent.name}_{path.stem}", path)
    entry = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(entry)
    assert entry.main is importlib.import_module(module_name).main


def test_every_entry_point_is_a_tool():
    tools = {entry_point(name) for name in tool_modules()}
    for folder in ENTRY_FOLDERS:
        for path in (ROOT / folder).glob("*.py"):
            assert path in tools, f"{path.relative_to(ROOT)} runs no seqgraph_experiments tool"


def retired_tools():
    """The retired tools of docs/EXPERIMENTS.md, entry point to its last commit."""
    experiments = (ROOT / "docs" / "EXPERIMENTS.md").read_text(encoding="utf-8").split("\n## Retired tools\n", 1)[1]
    return dict(re.findall(r"^\| `((?:scripts|benchmarks)/\w+\.py)` \| ([0-9a-f]{7,40}) \|", experiments, re.MULTILINE))


def test_every_recorded_command_has_its_entry_point():
    recorded = set()
    for path in repository_files("results/*.json") + repository_files("docs/*.md") + [ROOT / "README.md"]:
        recorded |= set(re.findall(r"\b(?:scripts|benchmarks)/\w+\.py\b", path.read_text(encoding="utf-8")))
    assert "scripts/run_experiments.py" in recorded and "benchmarks/epoch_time.py" in recorded
    missing = sorted(name for name in recorded if not (ROOT / name).exists() and name not in retired_tools())
    assert missing == []


@pytest.mark.parametrize("entry_point, commit", sorted(retired_tools().items()))
def test_a_retired_tool_is_whole_at_its_last_commit_and_its_results_say_where_they_came_from(entry_point, commit):
    assert not (ROOT / entry_point).exists(), f"{entry_point} is in the tree: not retired"
    folder, name = entry_point.split("/")
    module = f"seqgraph_experiments/{'benchmarks/' if folder == 'benchmarks' else ''}{name}"
    for path in (entry_point, module):
        found = subprocess.run(["git", "cat-file", "-e", f"{commit}:{path}"], cwd=ROOT, capture_output=True)
        assert found.returncode == 0, f"{path} is not in commit {commit}"
    # each results JSON that the tool wrote keeps its command and its commit
    for path in repository_files("results/*.json"):
        result = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(result, dict) and entry_point in str(result.get("command", "")).split():
            assert result.get("git_commit"), f"{path.relative_to(ROOT)} has no git_commit"


def test_the_package_finds_the_repository():
    assert (seqgraph_experiments.ROOT / "training_config" / "coach_valid.jsonnet").exists()


def test_the_layout_names_every_top_level_folder_once():
    design = (ROOT / "docs" / "DESIGN.md").read_text(encoding="utf-8")
    layout = design.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"^    (\S+)/ ", layout, flags=re.MULTILINE)
    folders = {path.relative_to(ROOT).parts[0] for path in repository_files("*")
               if len(path.relative_to(ROOT).parts) > 1}
    assert sorted(named) == sorted(set(named)), "a folder named twice"
    assert folders <= set(named), f"not in the Layout of docs/DESIGN.md: {sorted(folders - set(named))}"
