"""The installed llama.cpp must be a portable build (issue 25): a native build crashes on a CPU
unlike the build machine's, and CI runs on the developer's own machine, so this test checks
what the library says it was compiled with rather than whether it runs here.

It fails when the build reports an instruction set that no tier in
packaging/llama_cpp_build.toml allows (AVX512*, AMX*, AVX_VNNI ...: a -march=native build on
any machine that has them). A native build on a CPU with exactly the x86-64-v3 set reports
the same features as the portable one and passes, which is harmless: it runs on every CPU
that the portable build runs on.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "packaging" / "llama_cpp_build.py"


@pytest.fixture(scope="module")
def build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("llama_cpp_build", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PORTABLE = (
    "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | "
    "LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | "
)
NATIVE_AVX512 = PORTABLE + "AVX512 = 1 | AVX512_VBMI = 1 | AVX512_VNNI = 1 | AVX512_BF16 = 1 | "
NATIVE_AMX = NATIVE_AVX512 + "AMX_INT8 = 1 | "


def test_installed_llama_cpp_reports_only_portable_features(build: ModuleType) -> None:
    pytest.importorskip("llama_cpp")
    info = build.system_info(sys.executable)
    problems = build.portability_problems(info)
    assert problems == [], (
        f"The installed llama.cpp is not a portable build: {problems}. "
        "Rebuild it with `make clean && make install` (packaging/llama_cpp_build.py)."
    )
    assert (
        "AVX2" in build.compiled_features(info)
        or sys.platform != "linux"
        or (build.platform.machine() != "x86_64")
    )


def test_features_are_read_from_the_system_info_line(build: ModuleType) -> None:
    assert build.compiled_features(PORTABLE) == {
        "SSE3", "SSSE3", "AVX", "AVX2", "F16C", "FMA", "BMI2", "LLAMAFILE", "OPENMP", "REPACK",
    }  # fmt: skip
    assert build.compiled_features("CPU : AVX = 0 | AVX2 = 1 |") == {"AVX2"}
    assert build.compiled_features("") == set()


@pytest.mark.skipif(
    __import__("platform").machine() != "x86_64", reason="the x86-64 tiers are checked"
)
def test_native_and_amx_builds_are_refused(build: ModuleType) -> None:
    assert build.portability_problems(PORTABLE) == []
    native = build.portability_problems(NATIVE_AVX512)
    assert any("AVX512" in p for p in native) and len(native) == 4
    amx = build.portability_problems(NATIVE_AMX)
    assert any("AMX_INT8" in p for p in amx)
    assert build.portability_problems("no cpu line") != []


def test_tier_follows_the_build_machine_and_never_goes_native(build: ModuleType) -> None:
    import tomllib

    config = tomllib.loads(build.CONFIG.read_text(encoding="utf-8"))
    v3 = build.choose_tier(config, "x86_64", {"avx", "avx2", "fma", "f16c", "bmi2", "avx512f"})
    assert v3["name"] == "x86-64-v3"
    old = build.choose_tier(config, "x86_64", {"sse4_2", "avx"})
    assert old["name"] == "x86-64-v2"
    for tier in config["tier"]:
        assert "-DGGML_NATIVE=OFF" in tier["cmake"]
        switched_on = [arg for arg in tier["cmake"] if arg.endswith("=ON")]
        assert not any("AMX" in arg or "AVX512" in arg for arg in switched_on)


def test_wheels_of_other_flags_or_versions_are_kept_apart(build: ModuleType) -> None:
    """pip's cache is keyed by the source archive only; this folder key is not."""
    tier = {"name": "x86-64-v3", "cmake": ["-DGGML_NATIVE=OFF"]}
    other = {"name": "x86-64-v3", "cmake": ["-DGGML_NATIVE=ON"]}
    assert build.build_key("0.3.36", tier) == build.build_key("0.3.36", dict(tier))
    assert build.build_key("0.3.36", tier) != build.build_key("0.3.36", other)
    assert build.build_key("0.3.36", tier) != build.build_key("0.3.37", tier)


def test_the_pinned_version_is_the_one_in_pyproject(build: ModuleType) -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'"llama-cpp-python=={build.pinned_version()}"' in text
