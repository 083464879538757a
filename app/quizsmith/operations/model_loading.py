"""Before a job's first model call: prove that llama.cpp runs on this computer.

The models themselves load in the model host (providers/host_client.py), a process of its
own, so this process never imports llama.cpp, torch or transformers and nothing here has to
keep their loading from stalling the GUI thread (the reason for the ctypes preloading and
the paused garbage collector this module held before the host existed).

No Qt here: this runs in worker threads.
"""

from __future__ import annotations

import contextlib
import importlib.util
from pathlib import Path

from quizsmith.errors import QuizsmithError
from quizsmith.settings import MULTI_ROLES, SINGLE_ROLES, Settings


def local_models(settings: Settings) -> dict[str, str]:
    """Model references of the configured roles that run in this process -> backend."""
    from quizsmith.providers import catalog

    refs: list[str] = []
    for role in SINGLE_ROLES:
        with contextlib.suppress(QuizsmithError):
            refs.append(settings.role(role))
    for role in MULTI_ROLES:
        with contextlib.suppress(QuizsmithError):
            refs += settings.role_list(role)
    refs += _overall_signal_models(settings)
    try:
        models = catalog.all_models(settings.model_dirs)
    except QuizsmithError:
        return {}
    found: dict[str, str] = {}
    for ref in dict.fromkeys(refs):
        if ref.startswith("endpoint:"):
            continue
        try:
            found[ref] = catalog.find(ref, models).backend
        except QuizsmithError:
            continue  # the job itself reports a missing model, with its fix
    return found


def ensure_llama_runs(settings: Settings) -> None:
    """Before the first model call: if a role runs on llama.cpp, prove the library runs on
    this computer (providers/native_check.py; a child process once per build, then a
    record). Raises NativeLibraryError, which the job or command shows with its fix: a
    library built for another CPU would otherwise crash the whole process."""
    from quizsmith.providers import native_check

    if native_check.passed_in_process():
        return  # checked already: no catalog scan on the live set's path
    if "llamacpp" not in local_models(settings).values():
        return
    if importlib.util.find_spec("llama_cpp") is None:
        return  # the job reports the missing library with its fix

    files = _llama_files(settings)
    reference = native_check.reference_model(files[0] if files else None)
    if reference is not None and reference.is_file():
        native_check.ensure_native_runs(reference)


def _llama_files(settings: Settings) -> list[Path]:
    """The files of the configured llama.cpp models that are on disk now."""
    from quizsmith.providers import catalog

    try:
        models = catalog.all_models(settings.model_dirs)
    except QuizsmithError:
        return []
    files = []
    for ref, backend in local_models(settings).items():
        if backend != "llamacpp":
            continue
        with contextlib.suppress(QuizsmithError):
            files.append(catalog.locate(catalog.find(ref, models), assemble=False))
    return files


def _overall_signal_models(settings: Settings) -> list[str]:
    """The models the overall estimate's likelihood signals are read with when they belong
    to another profile: on any profile but the light one, the light profile's (the overall
    models were fitted on those, quality/metric.py)."""
    from quizsmith.settings import PROFILE_ROLES

    if settings.profile == "light":
        return []
    roles = PROFILE_ROLES["light"]
    return [str(roles["generator"]), *(str(r) for r in roles["solvers"])]


def prepare_models(settings: Settings) -> None:
    """What a model job does first: the llama.cpp check (its failure stops the job with the
    fix). The models load on their first call, in the model host."""
    ensure_llama_runs(settings)
