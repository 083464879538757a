"""House rule: only quizsmith.gui may import Qt. Checked on the source (every import
statement, including ones inside functions) and at run time (importing every core module
loads no Qt)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import quizsmith

PACKAGE = Path(quizsmith.__file__).parent
QT = ("PySide6", "shiboken6", "PyQt5", "PyQt6")


def _core_modules() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if "gui" not in p.relative_to(PACKAGE).parts]


def test_no_core_module_imports_qt() -> None:
    offenders = []
    for path in _core_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in QT]
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
