"""Packaging hook: the wheel carries the checkout's resources/ and models/ inside the package.

The owner's layout keeps `resources/` and `models/` at the top of the repository, beside
`app/`; an installed Quizsmith (`pip install .`, `pipx install`) has no checkout, so the
build copies them to `quizsmith/bundled/` in the wheel, where `quizsmith.paths` finds them
through importlib.resources. An editable install reads the checkout and copies nothing.
Everything else about the package is declared in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
#: What ships: (folder in the checkout, file patterns). GGUF files a user dropped into
#: models/ are theirs and never ship.
BUNDLED = {"resources": ("**/*",), "models": ("catalog.toml", "README.md")}


class BuildWithBundledData(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "quizsmith" / "bundled"
        for folder, patterns in BUNDLED.items():
            for pattern in patterns:
                for source in sorted((ROOT / folder).glob(pattern)):
                    if source.is_file() and "__pycache__" not in source.parts:
                        destination = target / source.relative_to(ROOT)
                        destination.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copyfile(source, destination)


setup(cmdclass={"build_py": BuildWithBundledData})
