"""The text of `quizsmith models`: providers, models found, and which model serves each role."""

from __future__ import annotations

from collections.abc import Callable

from quizsmith import secrets
from quizsmith import settings as settings_mod
from quizsmith.errors import QuizsmithError
from quizsmith.providers import catalog, registry

_CAPS = ("can_chat", "can_complete", "can_logprob", "can_embed", "can_constrain", "needs_key")


def _model_status(model: catalog.CatalogModel, prepare: bool) -> str:
    if model.metadata.get("problem"):
        return f"unusable: {model.metadata['problem']}"
    if not catalog.is_installed(model):
        # `make install` leaves optional models out on purpose: not an alarm (issue 26).
        state = "not installed (optional)" if model.optional else "MISSING"
        return f"{state} - install with: {model.install}"
    try:
        if prepare:
            # --prepare hashes every bundled GGUF file whatever its sidecar says, and
            # rebuilds an assembled one that is damaged (providers/model_files.py).
            from quizsmith.providers.model_files import prepare as prepare_file

            path, done = prepare_file(model)
        else:
            path, done = catalog.locate(model, assemble=False), ""
    except QuizsmithError as exc:
        return f"not ready: {exc}"
    if not done and model.backend == "hf":
        done = _embedding_runtime(path)
    note = f"\n  {'':<24} {done}" if done else ""
    return f"ok ({path}){_which_file(model, path)}{note}"


def _embedding_runtime(folder: object) -> str:
    """Which runtime an embedding model's next load takes (providers/onnx_encoder.py)."""
    from pathlib import Path

    from quizsmith.providers import onnx_encoder

    if not onnx_encoder.available():
        return "runs with torch (onnxruntime is not installed)"
    try:
        export = onnx_encoder.export_path(Path(str(folder)))
    except OSError as exc:
        return f"runs with torch (no place for its ONNX export: {exc})"
    if export.exists():
        return "runs with onnxruntime (its checked ONNX export is made)"
    if onnx_encoder.failure_path(export).exists():
        return "runs with torch (its ONNX export failed; quizsmith models --prepare tries again)"
    return "runs with onnxruntime once exported (quizsmith models --prepare, or the first use)"


def _which_file(model: catalog.CatalogModel, path: object) -> str:
    """Which of a model's files runs: its faster copy or the packaged file (issue 16)."""
    if not model.copy:
        return ""
    kind = model.copy.get("tensor_type", "")
    if getattr(path, "name", "") == model.copy.get("file"):
        return f"\n  {'':<24} in use: the {kind} copy of the packaged file (faster prompt reading)"
    return (
        f"\n  {'':<24} in use: the packaged file; its {kind} copy is not made yet "
        "(quizsmith models --prepare)"
    )


def models_report(prepare: bool = False) -> str:
    from quizsmith.providers.machine_profile import describe

    s = settings_mod.load()
    lines = [describe(s), "", "Providers:"]
    for name in registry.names():
        cls = registry.get(name)
        caps = ", ".join(c.removeprefix("can_") for c in _CAPS if getattr(cls, c, False))
        lines.append(f"  {name:<10} {cls.description} [{caps}]")

    models = catalog.all_models(s.model_dirs)
    lines += ["", "Models:"]
    for m in models:
        kind = "bundled" if m.bundled else "user"
        lines.append(
            f"  {m.id:<24} {kind:<7} {m.backend:<9} {m.size_mb:>6.0f} MB  {m.license or '-'}"
        )
        lines.append(f"  {'':<24} roles: {', '.join(m.roles) or '-'}")
        if m.upstream:
            lines.append(f"  {'':<24} upstream: {m.upstream} ({m.license})")
        lines.append(f"  {'':<24} {_model_status(m, prepare)}")
    if not any(not m.bundled for m in models):
        lines.append(
            f"  (no user GGUF files; put *.gguf in {catalog.paths.models_dir()} to add one)"
        )

    lines += ["", f"Roles (settings: {s.path}):"]
    known = {m.id for m in models}
    for role in settings_mod.SINGLE_ROLES + settings_mod.MULTI_ROLES:
        refs = s.role_list(role) if role in settings_mod.MULTI_ROLES else [s.role(role)]
        marks = []
        for ref in refs:
            ok = ref in known or (ref.startswith("endpoint:") and ref[9:] in s.endpoints)
            marks.append(ref if ok else f"{ref} (NOT FOUND)")
        mine = " (yours)" if role in s.roles else ""
        lines.append(f"  {role:<12} {', '.join(marks)}{mine}")

    if s.endpoints:
        lines += ["", "Endpoints:"]
        for name, ep in s.endpoints.items():
            key = "no key needed"
            if ep.key_name or ep.provider == "anthropic":
                key_name = ep.key_name or name
                var = "ANTHROPIC_API_KEY" if ep.provider == "anthropic" else "OPENAI_API_KEY"
                env = secrets.env_key_for_endpoint(var, ep.base_url, key_name)
                found = secrets.get_api_key(key_name, extra_env=env) is not None
                state = "found" if found else f"MISSING (quizsmith key set {key_name})"
                key = f"key {key_name!r}: {state}"
            url = secrets.display_url(ep.base_url)
            lines.append(f"  {name:<12} {ep.provider} {url} model={ep.model} ({key})")
    return "\n".join(lines)


def check_bundled_models(echo: Callable[[str], None] = print) -> None:
    """`quizsmith models --prepare`'s last step: one short real completion with each bundled
    GGUF model, each in a child process (providers/native_check.py), so an install whose
    llama.cpp cannot run here stops with the cause and the fix instead of a later crash.
    Raises the first failure's NativeLibraryError after every model was tried."""
    from quizsmith.providers import native_check

    try:
        import llama_cpp  # noqa: F401  (only to say plainly when it is missing)
    except ImportError:
        echo("llama.cpp check: skipped (llama-cpp-python is not installed; extra: local)")
        return
    failure: native_check.NativeLibraryError | None = None
    for model in catalog.load_catalog():
        if model.backend != "llamacpp" or not catalog.is_installed(model):
            continue
        try:
            path = catalog.locate(model, assemble=True)
        except QuizsmithError as exc:
            echo(f"llama.cpp check: {model.id}: not ready ({exc.message})")
            continue
        result = native_check.check_model(path)
        state = "ok" if result.ok else "FAILED"
        echo(f"llama.cpp check: {model.id}: {state}, {result.detail} ({result.seconds:.1f} s)")
        if not result.ok and failure is None:
            failure = result.error(path)
    if failure is not None:
        raise failure
