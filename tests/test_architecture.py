"""House rules on imports, checked on the source (every import statement, including ones
inside functions and under TYPE_CHECKING) and, for Qt, at run time; and on module length.

1. Only quizsmith.gui may import Qt (importing every core module loads no Qt).
2. Layers: a module imports only from its own layer or the layers below it

       gui
       cli, cli_*, demo, modelreport                (the command line's front end)
       operations                                   (what both front ends do, once)
       generation, evaluation, quality              (features)
       metrics
       providers
       bank, formats                                (stored items and files)
       domain, errors, settings, jobs, ...          (the base: BASE below)

   Known exceptions are listed in KNOWN_VIOLATIONS with the reason; a new one fails, and so
   does an entry that no longer happens (remove it). See CONTRIBUTING.md, "Layers".
3. A module over 400 lines says why in its docstring ("Why this module is long: ..."; issue 17,
   CONTRIBUTING.md, "Conventions").
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import quizsmith

PACKAGE = Path(quizsmith.__file__).parent
QT = ("PySide6", "shiboken6", "PyQt5", "PyQt6")

BASE = (
    "__init__",
    "crash",
    "domain",
    "errors",
    "jobs",
    "logs",
    "options",
    "paths",
    "paths_guard",
    "plugins",
    "prompt_fence",
    "secrets",
    "settings",
    "text",
    "unpack",
)
#: Lowest first. The unit is the first part below `quizsmith.` (a package or a module).
LAYERS: tuple[tuple[str, ...], ...] = (
    BASE,
    ("bank", "formats"),
    ("providers",),
    ("metrics",),
    ("generation", "evaluation", "quality"),
    ("operations",),
    (
        "cli",
        "cli_eval",
        "cli_formats",
        "cli_help",
        "cli_items",
        "cli_review",
        "cli_setup",
        "cli_shared",
        "demo",
        "modelreport",
    ),
    ("gui",),
)
LAYER_OF = {unit: n for n, units in enumerate(LAYERS) for unit in units}

#: (importing file, imported unit) -> why it is allowed for now. Each is an import inside a
#: function, so none of them costs an import at start.
KNOWN_VIOLATIONS: dict[tuple[str, str], str] = {
    ("cli.py", "gui"): "`quizsmith gui` starts the desktop app (quizsmith.gui.app)",
    ("bank/near_duplicates.py", "providers"): (
        "ItemBank's default embedder for near-duplicates is the `embeddings` role's model "
        "when the caller passes none"
    ),
    ("formats/docx_export.py", "metrics"): (
        "the teacher report names each metric and its flag threshold from the registry"
    ),
    ("metrics/naco.py", "generation"): "NACo's likelihood answer splits the passage into sentences",
    ("metrics/naco.py", "quality"): (
        "NACo's likelihood answer reuses the signals metric's answer selection"
    ),
}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _core_modules() -> list[Path]:
    return [p for p in _modules() if "gui" not in p.relative_to(PACKAGE).parts]


def _unit(path: Path) -> str:
    return path.relative_to(PACKAGE).with_suffix("").parts[0]


def _imported(path: Path, root: Path = PACKAGE) -> list[tuple[int, str]]:
    """(line, dotted name) of everything a module imports, relative imports resolved and
    `from quizsmith import x` read as `quizsmith.x`."""
    own = ["quizsmith", *path.relative_to(root).with_suffix("").parts]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*own[: len(own) - node.level], *([base] if base else [])])
            if base == "quizsmith":
                found += [(node.lineno, f"quizsmith.{a.name}") for a in node.names]
            else:
                found.append((node.lineno, base))
    return found


def _layer_edges() -> list[tuple[str, int, str]]:
    """(file, line, imported unit) for every import of a higher layer."""
    edges = []
    for path in _modules():
        src = _unit(path)
        for line, name in _imported(path):
            parts = name.split(".")
            if parts[0] != "quizsmith" or len(parts) < 2 or parts[1] == src:
                continue
            if LAYER_OF.get(parts[1], -1) > LAYER_OF[src]:
                edges.append((path.relative_to(PACKAGE).as_posix(), line, parts[1]))
    return edges


def test_no_core_module_imports_qt() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line}: {name}"
        for path in _core_modules()
        for line, name in _imported(path)
        if name.split(".")[0] in QT
    ]
    assert not offenders
    assert len(_core_modules()) > 10  # the walk really saw the package


def test_importing_the_core_loads_no_qt() -> None:
    modules = sorted(
        "quizsmith."
        + ".".join(p.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
        for p in _core_modules()
    )
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m.rstrip('.'))\n"
        f"print([m for m in sys.modules if m.split('.')[0] in {QT!r}])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_every_package_and_module_has_a_layer() -> None:
    units = {_unit(p) for p in _modules()}
    missing = sorted(units - set(LAYER_OF))
    assert not missing, (
        f"{missing} belong to no layer: add each to LAYERS in tests/test_architecture.py "
        "(and to the layer table in CONTRIBUTING.md)."
    )
    assert {"gui", "metrics", "providers", "bank", "domain"} <= units


def test_no_module_imports_a_higher_layer() -> None:
    edges = _layer_edges()
    new = [
        f"{file}:{line} imports quizsmith.{unit}"
        for file, line, unit in edges
        if (file, unit) not in KNOWN_VIOLATIONS
    ]
    assert not new, (
        "Imports against the layers (gui > cli/demo > operations > generation/evaluation/quality "
        "> metrics > providers > bank/formats > base): " + "; ".join(new) + ". Move the shared "
        "code down a layer, or pass it in from the caller."
    )
    seen = {(file, unit) for file, _, unit in edges}
    stale = sorted(set(KNOWN_VIOLATIONS) - seen)
    assert not stale, f"{stale} no longer happen: remove them from KNOWN_VIOLATIONS."


def test_the_shipped_estimators_never_import_the_evaluation() -> None:
    """Issue 26: the overall models and their loading live in quality/; evaluation/ fits and
    checks them (it may import quality, never the reverse), so the app predicts without the
    evaluation harness and the two do not import each other."""
    back = [
        f"{path.relative_to(PACKAGE).as_posix()}:{line}"
        for path in _modules()
        if _unit(path) == "quality"
        for line, name in _imported(path)
        if name.split(".")[:2] == ["quizsmith", "evaluation"]
    ]
    assert not back, f"quality/ imports the evaluation at {back}"


def test_the_layer_check_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    root = tmp_path / "quizsmith"
    module = root / "metrics" / "x.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "import json\n"
        "def f():\n"
        "    from quizsmith import settings\n"
        "    from ..gui import app\n"
        "    if True:\n"
        "        import quizsmith.quality.signals\n"
    )
    names = sorted(name for _, name in _imported(module, root))
    assert names == ["json", "quizsmith.gui", "quizsmith.quality.signals", "quizsmith.settings"]


#: Issue 17: a module over this many lines says why at the top of its docstring.
LONG_MODULE_LINES = 400
WHY_LONG = "Why this module is long:"


def test_long_modules_say_why() -> None:
    offenders = []
    for path in _modules():
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > LONG_MODULE_LINES and WHY_LONG not in (ast.get_docstring(ast.parse(text)) or ""):
            offenders.append(f"{path.relative_to(PACKAGE).as_posix()} ({lines} lines)")
    assert not offenders, (
        f"Modules over {LONG_MODULE_LINES} lines that do not say why: {', '.join(offenders)}. "
        f"Split each at a clean seam (re-export the moved names from the old module), or add "
        f"a paragraph starting '{WHY_LONG}' near the top of its module docstring with the real "
        "reason (CONTRIBUTING.md, Conventions)."
    )
    assert len(_modules()) > 10  # the walk really saw the package
