"""No import cycles in app/quizsmith, and no module over 600 lines (issue 49).

An import cycle is read on the source, as the layer check in tests/test_architecture.py reads
it: every import statement counts, inside functions and under TYPE_CHECKING too, since each
one is a dependency a reader has to follow (a function-level import only hides it). Modules
that import each other, directly or through others, are one strongly connected component of
the graph "module -> the modules it imports"; each such component is a cycle to break by
moving the piece both sides need into a module both import.

`from quizsmith.a import b` is an import of the module quizsmith.a.b when there is one, and of
the package quizsmith.a otherwise (b is then a name defined in the package). Importing a
submodule runs its package's __init__ too, but that is not counted: a package's __init__
may import its own modules without making a cycle with each of them.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable
from itertools import pairwise
from pathlib import Path

from tests.test_architecture import PACKAGE, _imported, _modules

#: Issue 49: the most lines a module may have (one over 400 says why, test_architecture.py).
LONGEST_MODULE_LINES = 600

#: module -> {imported module: line of the first import of it}
Graph = dict[str, dict[str, int]]


def module_name(path: Path, root: Path) -> str:
    parts = ["quizsmith", *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_names(path: Path, root: Path) -> list[tuple[int, str]]:
    """test_architecture's `_imported`, with `from package import name` read as
    `package.name` (which `_resolve` turns into the module or, for a name, the package)."""
    from_names: dict[int, list[str]] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            from_names[node.lineno] = [alias.name for alias in node.names]
    found: list[tuple[int, str]] = []
    for line, name in _imported(path, root):
        names = from_names.get(line)
        if names is None or name in {f"quizsmith.{n}" for n in names}:
            found.append((line, name))  # `import x`, or `from quizsmith import x` (read so)
        else:
            found += [(line, f"{name}.{n}") for n in names]
    return found


def _resolve(name: str, modules: Collection[str]) -> str | None:
    """The module that the dotted import `name` refers to: its longest leading part that is
    a module or package of `modules` (None for an import from outside them)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(paths: Iterable[Path], root: Path = PACKAGE) -> Graph:
    files = {module_name(path, root): path for path in paths}
    graph: Graph = {}
    for module, path in files.items():
        edges = graph.setdefault(module, {})
        for line, name in _imported_names(path, root):
            target = _resolve(name, files)
            if target is not None and target != module:
                edges.setdefault(target, line)
    return graph


def strongly_connected(graph: Graph) -> list[list[str]]:
    """Tarjan's algorithm, without recursion: the components of more than one module, each
    sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, {})))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def one_cycle(graph: Graph, component: list[str]) -> list[str]:
    """A shortest way round the component from its first module back to it."""
    first, members = component[0], set(component)
    came_from: dict[str, str] = {}
    frontier = [first]
    while frontier:
        nxt = []
        for node in frontier:
            for target in sorted(graph[node]):
                if target == first:
                    path = [node]
                    while path[-1] != first:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), first]
                if target in members and target not in came_from:
                    came_from[target] = node
                    nxt.append(target)
        frontier = nxt
    raise AssertionError(f"{component} is no cycle")


def describe(graph: Graph, component: list[str]) -> str:
    cycle = one_cycle(graph, component)
    steps = [f"{a} (line {graph[a][b]}) -> {b}" for a, b in pairwise(cycle)]
    return f"{', '.join(component)}: " + "; ".join(steps)


def test_no_module_imports_itself_through_others() -> None:
    graph = import_graph(_modules())
    cycles = [describe(graph, component) for component in strongly_connected(graph)]
    assert not cycles, (
        "Import cycles (every import counts, in functions and under TYPE_CHECKING too):\n"
        + "\n".join(cycles)
        + "\nMove what both sides need into a module that both import (CONTRIBUTING.md)."
    )
    assert len(graph) > 10  # the walk really saw the package


def test_no_module_is_longer_than_the_limit() -> None:
    offenders = []
    for path in _modules():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > LONGEST_MODULE_LINES:
            offenders.append(f"{path.relative_to(PACKAGE).as_posix()} ({lines} lines)")
    assert not offenders, (
        f"Modules over {LONGEST_MODULE_LINES} lines: {', '.join(offenders)}. Split each along "
        "a seam a reader would name (issue 49)."
    )


def _package(root: Path, files: dict[str, str]) -> list[Path]:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return sorted(root.rglob("*.py"))


def test_the_cycle_finder_reports_a_planted_cycle(tmp_path: Path) -> None:
    root = tmp_path / "quizsmith"
    paths = _package(
        root,
        {
            "__init__.py": "",
            # A package importing its own module is no cycle with it.
            "a/__init__.py": "from quizsmith.a.b import run\n",
            "a/b.py": "from quizsmith.a import c\n\ndef run():\n    return c\n",
            # The planted cycle b -> c -> b, hidden where only the source shows it.
            "a/c.py": (
                "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from . import b\n"
            ),
            "d.py": "import json\n\ndef f():\n    from quizsmith.a import run\n    return run\n",
            "e.py": "from quizsmith import d\nimport quizsmith.a.c\n",
        },
    )
    graph = import_graph(paths, root)
    assert graph["quizsmith.a.b"] == {"quizsmith.a.c": 1}  # the module, not its package
    assert graph["quizsmith.d"] == {"quizsmith.a": 4}  # a name: the package
    assert set(graph["quizsmith.e"]) == {"quizsmith.d", "quizsmith.a.c"}
    cycles = strongly_connected(graph)
    assert cycles == [["quizsmith.a.b", "quizsmith.a.c"]]
    assert describe(graph, cycles[0]) == (
        "quizsmith.a.b, quizsmith.a.c: quizsmith.a.b (line 1) -> quizsmith.a.c; "
        "quizsmith.a.c (line 4) -> quizsmith.a.b"
    )


def test_the_cycle_finder_sees_a_longer_cycle_and_no_false_one(tmp_path: Path) -> None:
    root = tmp_path / "quizsmith"
    paths = _package(
        root,
        {
            "__init__.py": "",
            "x.py": "def f():\n    from quizsmith import y\n",
            "y.py": "from quizsmith.z import g\n",
            "z.py": "def g():\n    from .x import f\n",
            "w.py": "from quizsmith import x, y\n",
        },
    )
    graph = import_graph(paths, root)
    assert strongly_connected(graph) == [["quizsmith.x", "quizsmith.y", "quizsmith.z"]]
    assert one_cycle(graph, ["quizsmith.x", "quizsmith.y", "quizsmith.z"]) == [
        "quizsmith.x",
        "quizsmith.y",
        "quizsmith.z",
        "quizsmith.x",
    ]
    del graph["quizsmith.z"]["quizsmith.x"]
    assert strongly_connected(graph) == []
