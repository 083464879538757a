"""`pip install .` (not editable) gives a working Quizsmith outside the checkout (issue 25):
the wheel carries the catalog, resources and templates (setup.py), and the installed
package reads them through importlib.resources; user files live in the user folders.

The wheel is built for real and installed into a fresh venv. That venv sees the project
venv's third-party packages through a .pth line (installing torch and llama.cpp again would
cost minutes and a second build), but not the project venv's editable Quizsmith: a plain
path in a .pth does not run the editable install's own .pth hook, and the test checks
which copy was imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PASSAGE = (
    "The Nile is the longest river in Africa. It flows north through eleven countries and "
    "empties into the Mediterranean Sea. Its water made farming possible in ancient Egypt."
)


def run(command: list[str], cwd: Path, env: dict[str, str], timeout: float = 900) -> str:
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{command} failed ({done.returncode}):\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("llama_cpp")
    base = tmp_path_factory.mktemp("installed")
    env = dict(os.environ)
    wheels = base / "wheels"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        cwd=base, env=env)  # fmt: skip
    wheel = next(wheels.glob("quizsmith-*.whl"))
    venv = base / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=base, env=env)
    python = venv / "bin" / "python"
    purelib = run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                  cwd=base, env=env).strip()  # fmt: skip
    Path(purelib, "project-venv-packages.pth").write_text(
        sysconfig.get_path("purelib") + "\n", encoding="utf-8"
    )
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
         str(wheel)], cwd=base, env=env)  # fmt: skip
    return {"base": base, "venv": venv, "python": python, "wheel": wheel}


def outside_env(base: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZSMITH_")}
    env.pop("PYTHONPATH", None)
    env["QUIZSMITH_CONFIG_DIR"] = str(base / "config")
    env["QUIZSMITH_LOG_DIR"] = str(base / "logs")
    env["XDG_DATA_HOME"] = str(base / "data")  # the user's models folder (platformdirs)
    # The cache stays the user's: the assembled model files are reused, not rebuilt.
    return env


@pytest.mark.slow
def test_the_wheel_carries_the_catalog_resources_and_templates(installed: dict[str, Path]):
    import zipfile

    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    for needed in (
        "quizsmith/bundled/models/catalog.toml",
        "quizsmith/bundled/resources/sample_passage.txt",
        "quizsmith/bundled/resources/templates/quiz-template.docx",
        "quizsmith/bundled/resources/overall_model.json",
        "quizsmith/bundled/resources/icons/quizsmith.svg",
    ):
        assert needed in names
    assert not any(name.endswith(".gguf") for name in names)


@pytest.mark.slow
def test_installed_quizsmith_runs_from_outside_the_checkout(installed: dict[str, Path]):
    base, venv = installed["base"], installed["venv"]
    env = outside_env(base)
    where = run([str(installed["python"]), "-c",
                 "import json, quizsmith, quizsmith.paths as p; print(json.dumps(["
                 "quizsmith.__file__, str(p.catalog_file()), str(p.resources_dir()), "
                 "str(p.models_dir())]))"], cwd=base, env=env)  # fmt: skip
    module, catalog, resources, models = (Path(p) for p in json.loads(where))
    assert venv in module.parents, "the installed copy, not the checkout, was imported"
    assert venv in catalog.parents and catalog.is_file()
    assert (resources / "templates" / "quiz-template.docx").is_file()
    assert models == base / "data" / "quizsmith" / "models" and models.is_dir()

    listing = run([str(venv / "bin" / "quizsmith"), "models"], cwd=base, env=env)
    assert "smollm2-135m-instruct" in listing and "ok (" in listing
    assert str(models) in listing  # where a user's own GGUF files go

    passage = base / "nile.txt"
    passage.write_text(PASSAGE, encoding="utf-8")
    out = base / "items.jsonl"
    run([str(venv / "bin" / "quizsmith"), "generate", str(passage), "-n", "1", "--types", "tf",
         "--out", str(out)], cwd=base, env=env)  # fmt: skip
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    items = [r for r in records if r.get("record", "item") == "item"]
    assert len(items) == 1 and items[0]["question"].strip() and items[0]["type"] == "tf"
