"""Load the local model libraries in a worker without stalling the GUI thread.

Loading them is slow, which is why it happens in a worker, but a worker only keeps the GUI
free while it gives up the GIL, and the first load of torch and transformers holds it in
two ways for up to a few hundred milliseconds at a time (measured: 150-310 ms event-loop
gaps on two cores, see tests/gui/test_end_to_end.py):

- the cyclic garbage collector: the imports create about 700,000 long-lived objects, and
  each time that number grows by a quarter a full collection walks all of them;
- `dlopen` of torch's native libraries, whose static initialisers register thousands of
  operators while the import machinery holds the GIL.

So, once per backend and process, before a model job starts: the native libraries are
opened through a ctypes foreign call (which releases the GIL), then the libraries are
imported and the embedding models loaded with the collector paused, and everything alive
is moved to the permanent generation (`gc.freeze`), so later full collections do not walk
the libraries' objects again. Models in llama.cpp load in native code that releases the
GIL, so only `llama_cpp` itself is imported here.

No Qt here: this runs in worker threads.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import importlib.util
import logging
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from quizsmith.errors import QuizsmithError
from quizsmith.settings import MULTI_ROLES, SINGLE_ROLES, Settings

log = logging.getLogger(__name__)

#: torch's own libraries, dependencies first (the ones `import torch` opens).
TORCH_LIBRARIES = (
    "libtorch_global_deps.so",
    "libc10.so",
    "libtorch_cpu.so",
    "libtorch.so",
    "libtorch_python.so",
)

_lock = threading.Lock()
_ready: set[str] = set()


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
    """Prove that llama.cpp runs here (its failure stops the job), then import the
    libraries of the local backends in use and load the embedding models, holding the GIL
    as little as possible. Other failures are left to the job, which reports them with
    their fix; this only makes the successful path smooth."""
    ensure_llama_runs(settings)
    wanted = local_models(settings)
    with _lock:
        todo = {ref: backend for ref, backend in wanted.items() if ref not in _ready}
        if not todo:
            return
        if "hf" in todo.values():
            open_native_libraries("torch", TORCH_LIBRARIES)
        with collector_paused():
            for ref, backend in todo.items():
                _prepare(ref, backend, settings)
                _ready.add(ref)


def _prepare(ref: str, backend: str, settings: Settings) -> None:
    if backend == "llamacpp":
        _import_if_installed("llama_cpp")
    elif backend == "hf":
        from quizsmith.providers import provider_for

        try:
            provider = provider_for(ref, settings)
            if provider.can_embed:
                provider.embed(["warm-up"])  # imports the model's own modules and loads it
        except QuizsmithError as exc:
            log.info("not preloading %s: %s", ref, exc.message)
        except ImportError as exc:
            log.info("not preloading %s: %s", ref, exc)


def _import_if_installed(module: str) -> None:
    if module in sys.modules or importlib.util.find_spec(module) is None:
        return
    try:
        importlib.import_module(module)
    except ImportError as exc:
        log.info("not preloading %s: %s", module, exc)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic cyclic collection inside; afterwards, what is alive is frozen."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def open_native_libraries(package: str, names: tuple[str, ...]) -> None:
    """dlopen a package's shared libraries through a ctypes foreign call, which runs
    without the GIL; the package's own import then finds them loaded. Linux and macOS
    only (elsewhere, and for missing files, nothing happens)."""
    if package in sys.modules or sys.platform == "win32":
        return
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return
    folder = Path(spec.origin).parent / "lib"
    import ctypes
    import os

    try:
        libc = ctypes.CDLL(None)
        dlopen = libc.dlopen
    except (OSError, AttributeError):
        return
    dlopen.restype = ctypes.c_void_p
    dlopen.argtypes = [ctypes.c_char_p, ctypes.c_int]
    # RTLD_LOCAL as Python's own import would: torch's symbols stay out of the global scope.
    mode = os.RTLD_NOW | os.RTLD_LOCAL
    for name in names:
        path = folder / name
        if path.is_file() and not dlopen(str(path).encode(), mode):
            log.info("could not preload %s", path)
