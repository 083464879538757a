"""The llama.cpp check runs a real completion in a child process, so a library that cannot
run on this computer ends the child, not Quizsmith, and the teacher reads why (issue 25).
The crashes here are real: a child process that dies by SIGSEGV or SIGILL, as a library
built for another CPU does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from quizsmith import cli
from quizsmith.providers import catalog, native_check

CRASH = "import os, signal; os.kill(os.getpid(), signal.{})"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("QUIZSMITH_CACHE_DIR", str(folder))
    monkeypatch.setattr(native_check, "_passed", False)
    return folder


@pytest.fixture
def smollm_file() -> Path:
    pytest.importorskip("llama_cpp")
    model = catalog.find("smollm2-135m-instruct", catalog.load_catalog())
    return catalog.locate(model, assemble=False)


def crash_child(monkeypatch: pytest.MonkeyPatch, signal_name: str) -> list[int]:
    calls: list[int] = []

    def command(model: Path) -> list[str]:
        calls.append(1)
        return [sys.executable, "-c", CRASH.format(signal_name)]

    monkeypatch.setattr(native_check, "child_command", command)
    return calls


@pytest.mark.slow
def test_a_real_completion_in_a_child_passes_and_is_recorded(cache: Path, smollm_file: Path):
    result = native_check.check_model(smollm_file)
    assert result.ok, result.detail
    assert result.detail.startswith("answered ")
    stored = native_check.recorded(native_check.build_identity())
    assert stored is not None and stored.ok
    native_check.ensure_native_runs(smollm_file)  # reads the record, no error


@pytest.mark.parametrize("signal_name", ["SIGSEGV", "SIGILL"])
def test_a_crashing_library_is_named_with_the_fix(
    cache: Path, monkeypatch: pytest.MonkeyPatch, signal_name: str, tmp_path: Path
):
    crash_child(monkeypatch, signal_name)
    result = native_check.run_check(tmp_path / "model.gguf")
    assert not result.ok and result.crashed
    assert signal_name in result.detail
    error = result.error(tmp_path / "model.gguf")
    assert "cannot run on this computer" in error.message
    assert "another processor" in error.message
    assert "make clean && make install" in error.fix


def test_a_crash_is_recorded_per_build_and_not_retried(
    cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    calls = crash_child(monkeypatch, "SIGSEGV")
    model = tmp_path / "model.gguf"
    with pytest.raises(native_check.NativeLibraryError):
        native_check.ensure_native_runs(model)
    with pytest.raises(native_check.NativeLibraryError):
        native_check.ensure_native_runs(model)
    assert len(calls) == 1  # the second answer came from the record of this build
    # A different library (rebuilt, reinstalled) is a new identity and is checked again.
    monkeypatch.setattr(native_check, "build_identity", lambda: "rebuilt-library")
    with pytest.raises(native_check.NativeLibraryError):
        native_check.ensure_native_runs(model)
    assert len(calls) == 2


def test_a_python_error_in_the_child_is_not_called_a_crash(
    cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    monkeypatch.setattr(
        native_check, "child_command", lambda model: [sys.executable, "-c", "raise SystemExit(3)"]
    )
    result = native_check.check_model(tmp_path / "model.gguf")
    assert not result.ok and not result.crashed
    # Not recorded: a passing problem (a busy disk, a missing file) is tried again next time.
    assert native_check.recorded(native_check.build_identity()) is None


def test_the_child_reports_a_missing_model_as_an_error(tmp_path: Path):
    pytest.importorskip("llama_cpp")
    result = native_check.run_check(tmp_path / "absent.gguf")
    assert not result.ok and not result.crashed
    assert "exit 1" in result.detail


def test_prepare_stops_with_the_cause_and_fix_when_llama_cpp_crashes(
    cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    pytest.importorskip("llama_cpp")
    crash_child(monkeypatch, "SIGILL")
    # Only the file-packaged model, so no assembly runs in this test.
    small = [m for m in catalog.load_catalog() if m.id == "smollm2-135m-instruct"]
    monkeypatch.setattr(catalog, "load_catalog", lambda models_dir=None: small)
    monkeypatch.setattr(catalog, "all_models", lambda *a, **k: small)
    code = cli.main(["models", "--prepare"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "llama.cpp check: smollm2-135m-instruct: FAILED, SIGILL" in out
    assert "cannot run on this computer" in err and "fix: Rebuild llama.cpp" in err


def test_a_model_call_is_refused_before_it_can_crash_the_app(
    cache: Path, monkeypatch: pytest.MonkeyPatch, smollm_file: Path
):
    """The provider checks the build before its first load in a process: a crash of the
    check becomes an error the CLI and the desktop app show, never a dead process."""
    from quizsmith.providers import llamacpp_models

    crash_child(monkeypatch, "SIGSEGV")
    monkeypatch.setattr(llamacpp_models, "_models", {})
    with pytest.raises(native_check.NativeLibraryError):
        llamacpp_models.load_shared(smollm_file, 256, 1)


def test_a_model_command_stops_with_the_fix_before_any_model_call(
    cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    pytest.importorskip("llama_cpp")
    crash_child(monkeypatch, "SIGSEGV")
    passage = tmp_path / "nile.txt"
    passage.write_text("The Nile flows into the Mediterranean Sea.", encoding="utf-8")
    code = cli.main(["generate", str(passage), "-n", "1", "--out", str(tmp_path / "o.jsonl")])
    _out, err = capsys.readouterr()
    assert code == 2
    assert "cannot run on this computer" in err and "SIGSEGV" in err
    assert not (tmp_path / "o.jsonl").exists()
