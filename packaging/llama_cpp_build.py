"""Build llama-cpp-python for any CPU of its kind and install it into a venv.

    python3 packaging/llama_cpp_build.py --venv .venv      (make install runs this)
    python3 packaging/llama_cpp_build.py --show            (the tier and flags, nothing built)
    python3 packaging/llama_cpp_build.py --cmake-args      (CMAKE_ARGS for a pip install by hand)
    python3 packaging/llama_cpp_build.py --verify --venv V (is V's llama.cpp portable?)

Why this exists (see packaging/llama_cpp_build.toml): pip's own build of llama-cpp-python
compiles llama.cpp with -march=native, which crashed on a CPU whose AMX the kernel refuses
and cannot run on a CPU older than the build machine's. This script builds the wheel with
the named instruction sets of one tier instead.

pip's wheel cache is keyed by the source archive alone, so a native wheel cached by an
earlier `pip install llama-cpp-python` would be picked up silently. The wheel is therefore
built with `--no-cache-dir` into Quizsmith's own wheel folder, keyed by the version, the
tier's flags and the Python tag, and installed from that file with `--no-index`. A record of
the build (`llama-cpp-build.json`) is written next to the wheel and into the venv; the tests
and `quizsmith models` read it.

Only the standard library is used: it runs before the venv has anything in it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = Path(__file__).with_name("llama_cpp_build.toml")
RECORD_NAME = "llama-cpp-build.json"
PACKAGE = "llama-cpp-python"


def pinned_version() -> str:
    """The version pyproject.toml pins, so the pin lives in one place."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for requirement in project["project"]["optional-dependencies"]["local"]:
        name, _, version = requirement.partition("==")
        if name.strip() == PACKAGE:
            return version.strip()
    raise SystemExit(f"pyproject.toml pins no {PACKAGE}== in the 'local' extra")


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return set(value.split())
    return set()


def choose_tier(config: dict, machine: str, flags: set[str]) -> dict:
    for tier in config["tier"]:
        if tier["machine"] == machine and set(tier["requires"]) <= flags:
            return tier
    raise SystemExit(
        f"No llama.cpp build tier for a {machine} CPU in {CONFIG.name}; add one there."
    )


def build_key(version: str, tier: dict) -> str:
    python_tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    text = json.dumps([version, tier["name"], tier["cmake"], python_tag, platform.machine()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def wheel_home() -> Path:
    base = os.environ.get("QUIZSMITH_WHEEL_DIR")
    if base:
        return Path(base).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "quizsmith" / "llama-cpp-wheels"


def build_wheel(version: str, tier: dict, folder: Path) -> Path:
    existing = sorted(folder.glob("llama_cpp_python-*.whl"))
    if existing and (folder / RECORD_NAME).is_file():
        return existing[-1]
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.whl"):
        stale.unlink()
    env = dict(os.environ, CMAKE_ARGS=" ".join(tier["cmake"]), FORCE_CMAKE="1")
    print(
        f"Building {PACKAGE} {version} for any {tier['name']} CPU "
        f"(about 7 minutes on 2 cores, once): CMAKE_ARGS={env['CMAKE_ARGS']}",
        flush=True,
    )
    command = [
        sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir",
        "--no-binary", PACKAGE, "-w", str(folder), f"{PACKAGE}=={version}",
    ]  # fmt: skip
    subprocess.run(command, env=env, check=True)
    wheels = sorted(folder.glob("llama_cpp_python-*.whl"))
    if not wheels:
        raise SystemExit(f"pip built no {PACKAGE} wheel into {folder}")
    return wheels[-1]


def write_record(path: Path, record: dict) -> None:
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def installed_record(venv: Path) -> dict | None:
    try:
        return json.loads((venv / RECORD_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def install(venv: Path, wheel: Path, record: dict) -> None:
    pip = [str(venv / "bin" / "python"), "-m", "pip"]
    if installed_record(venv) == record:
        check = subprocess.run([*pip, "show", PACKAGE], capture_output=True, text=True)
        if check.returncode == 0 and f"Version: {record['version']}" in check.stdout:
            print(f"{PACKAGE} {record['version']} ({record['tier']} build) already installed.")
            return
    subprocess.run(
        [*pip, "install", "--no-deps", "--no-index", "--force-reinstall", str(wheel)],
        check=True,
    )
    # Its Python dependencies (numpy, jinja2, diskcache, typing-extensions) from PyPI.
    subprocess.run([*pip, "install", str(wheel)], check=True)
    write_record(venv / RECORD_NAME, record)


SYSTEM_INFO_SCRIPT = (
    "import llama_cpp; info = llama_cpp.llama_print_system_info(); "
    "print(info.decode() if isinstance(info, bytes) else info)"
)


def system_info(python: Path | str) -> str:
    """What the installed llama.cpp says it was compiled with (llama_print_system_info)."""
    done = subprocess.run(
        [str(python), "-c", SYSTEM_INFO_SCRIPT], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"Could not read llama.cpp's system info: {done.stderr.strip()[-500:]}")
    return done.stdout.strip()


def compiled_features(info: str) -> set[str]:
    """The features a system-info line reports as on: 'CPU : SSE3 = 1 | AVX = 1 | ...'."""
    on = set()
    for part in info.replace("\n", "|").split("|"):
        if ":" in part:
            part = part.rsplit(":", 1)[1]
        name, _, value = part.partition("=")
        if value.strip() == "1" and name.strip():
            on.add(name.strip())
    return on


def portability_problems(info: str, config: dict | None = None) -> list[str]:
    """Why a build is not portable: a feature no tier allows for this machine (AVX512*,
    AMX*, AVX_VNNI ... a native build on a CPU that has them), or no CPU report at all."""
    config = config or tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    machine = platform.machine()
    allowed = set(config["neutral"])
    for tier in config["tier"]:
        if tier["machine"] == machine:
            allowed |= set(tier["features"])
    features = compiled_features(info)
    if not features:
        return [f"llama.cpp reported no CPU features: {info!r}"]
    extra = sorted(features - allowed)
    return [f"compiled with {name}, which not every {machine} CPU has" for name in extra]


def verify(python: Path | str) -> int:
    info = system_info(python)
    problems = portability_problems(info)
    if problems:
        print(f"llama.cpp is not a portable build ({info}):", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        print("  fix: make clean && make install", file=sys.stderr)
        return 1
    print(f"llama.cpp is a portable build: {info}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", type=Path, help="install the portable build into this venv")
    parser.add_argument("--show", action="store_true", help="print the tier and flags only")
    parser.add_argument(
        "--cmake-args",
        action="store_true",
        help="print this machine's CMAKE_ARGS only (for a pip install outside make)",
    )
    parser.add_argument(
        "--verify",
        action="store_true",
        help="only check that the venv's llama.cpp reports no instruction set beyond the tiers",
    )
    args = parser.parse_args(argv)
    if args.verify:
        return verify((args.venv or Path(".venv")) / "bin" / "python")
    config = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    version = pinned_version()
    tier = choose_tier(config, platform.machine(), cpu_flags())
    key = build_key(version, tier)
    record = {
        "package": PACKAGE,
        "version": version,
        "tier": tier["name"],
        "cmake_args": tier["cmake"],
        "features": tier["features"],
        "neutral": config["neutral"],
        "key": key,
    }
    if args.cmake_args:
        print(" ".join(tier["cmake"]))
        return 0
    if args.show or args.venv is None:
        print(json.dumps(record, indent=2))
        return 0
    folder = wheel_home() / key
    wheel = build_wheel(version, tier, folder)
    write_record(folder / RECORD_NAME, record)
    install(args.venv, wheel, record)
    return verify(args.venv / "bin" / "python")


if __name__ == "__main__":
    sys.exit(main())
