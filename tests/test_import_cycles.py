"""
No import circles among the project's modules (issue 73): every import of every module of `seqgraph_allennlp`,
`seqgraph_experiments` and `seqgraph_assets`, at module level or inside a function, read with `ast` (nothing is
imported), makes a graph whose strongly connected components must all be single modules without a self-import.
A circle that Python happens to tolerate today (a function-level import, a name read late) still ties the modules
into one unit that cannot be understood, tested or moved apart.
"""
import ast
from pathlib import Path
from typing import Dict, List, Set

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("seqgraph_allennlp", "seqgraph_experiments", "seqgraph_assets")


def module_files() -> Dict[str, Path]:
    """Each module's dotted name (a package by its own name, for its `__init__.py`) and its file."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def imported_modules(name: str, path: Path, known: Set[str]) -> Set[str]:
    """
    The project's modules that the module `name` imports anywhere in its file: `import a.b` and `from a import b`
    import `a.b` when it is a module, else `a` (a name defined in `a`); relative imports are resolved against
    the module's package. The packages above an imported module are not counted: Python runs their
    `__init__` first, and would make every module of a package that re-exports its parts part of a circle.
    """
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            # `import a.b.c` names a module; keep the longest known prefix of a dotted name
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target:
                imported.add(target)
    return imported


def import_graph() -> Dict[str, Set[str]]:
    modules = module_files()
    known = set(modules)
    return {name: imported_modules(name, path, known) for name, path in modules.items()}


def circles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """
    One circle per strongly connected component of more than one module (or a module importing itself), as the
    module names along it, the first repeated at the end (Tarjan's algorithm, iterative).
    """
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    on_stack: Set[str] = set()
    stack: List[str] = []
    components: List[List[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    components.append(sorted(component))
    return [circle_in(graph, component) for component in components]


def circle_in(graph: Dict[str, Set[str]], component: List[str]) -> List[str]:
    """A shortest circle through the component's first module, along imports inside the component."""
    first, members = component[0], set(component)
    paths = {first: [first]}
    frontier = [first]
    while frontier:
        following = []
        for node in frontier:
            for successor in sorted(graph[node] & members):
                if successor == first:
                    return paths[node] + [first]
                if successor not in paths:
                    paths[successor] = paths[node] + [successor]
                    following.append(successor)
        frontier = following
    raise AssertionError(f"no circle through {first} in {component}")


def test_the_checker_finds_a_circle_and_names_it():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert circles(graph) == [["a", "b", "c", "a"], ["e", "e"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_checker_reads_function_level_and_relative_imports(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "one.py").write_text("def late():\n    from pkg.two import thing\n    return thing\n")
    (package / "two.py").write_text("from . import one\nfrom .one import late\nimport pkg.three\nthing = 1\n")
    (package / "three.py").write_text("import os\n")
    known = {"pkg", "pkg.one", "pkg.two", "pkg.three"}
    assert imported_modules("pkg.one", package / "one.py", known) == {"pkg.two"}
    assert imported_modules("pkg.two", package / "two.py", known) == {"pkg.one", "pkg.three"}
    assert imported_modules("pkg.three", package / "three.py", known) == set()


def test_no_import_circles():
    graph = import_graph()
    # the graph is the project's: the parser, its parts and the experiments are in it
    assert "seqgraph_allennlp.models.seqgraph.tree_phase" in graph["seqgraph_allennlp.models.seqgraph_parser"]
    found = circles(graph)
    assert not found, "import circles:\n" + "\n".join(" -> ".join(circle) for circle in found)
