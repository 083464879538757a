"""Turn a model reference from settings into a ready provider, once per process.

Every feature (generation, each metric, the GUI, batch jobs) asks here, so a model is loaded
once and shared; the llama.cpp and transformers backends additionally share the loaded
weights between provider objects that point at the same file.
"""

from __future__ import annotations

import threading

from quizsmith import settings as settings_mod
from quizsmith.errors import ConfigError, ModelNotFoundError
from quizsmith.providers import catalog, host_client, registry
from quizsmith.providers.base import Provider
from quizsmith.providers.hosted import hosted

_cache: dict[tuple[str, str, bool], Provider] = {}
_cache_lock = threading.Lock()


def _settings_key(s: settings_mod.Settings) -> str:
    return f"{s.n_ctx}|{s.n_threads}|{sorted(s.model_dirs)}"


def provider_for(ref: str, settings: settings_mod.Settings | None = None) -> Provider:
    """A provider for a catalog id, `gguf:<stem>`, a .gguf path or `endpoint:<name>`. A
    local model's provider runs its calls in the model host (providers/hosted.py) unless
    the host is switched off."""
    s = settings or settings_mod.load()
    key = (ref, _settings_key(s), host_client.enabled())
    with _cache_lock:
        cached = _cache.get(key)
        if cached is not None:
            return cached
        provider = _build(ref, s)
        if provider.runs_in_host and host_client.enabled():
            provider = hosted(ref, s, provider)
        _cache[key] = provider
        return provider


def _build(ref: str, s: settings_mod.Settings) -> Provider:
    if ref.startswith("endpoint:"):
        name = ref.split(":", 1)[1]
        endpoint = s.endpoints.get(name)
        if endpoint is None:
            raise ConfigError(
                f"No endpoint named {name!r} in the settings.",
                f"Add [endpoints.{name}] with provider, base_url and model to {s.path}.",
            )
        return registry.get(endpoint.provider).from_endpoint(endpoint)
    # Each kind builds itself from the settings it needs (`Provider.from_catalog`).
    model = catalog.find(ref, catalog.all_models(s.model_dirs))
    problem = model.metadata.get("problem")
    if problem:
        # A file listed as unreadable is never handed to llama.cpp.
        raise ModelNotFoundError(
            str(problem), "Choose another model for this role, or replace the file."
        )
    return registry.get(model.backend).from_catalog(model, catalog.locate(model), s)


def provider_for_role(role: str, settings: settings_mod.Settings | None = None) -> Provider:
    s = settings or settings_mod.load()
    return provider_for(s.role(role), s)


def providers_for_role(role: str, settings: settings_mod.Settings | None = None) -> list[Provider]:
    s = settings or settings_mod.load()
    return [provider_for(ref, s) for ref in s.role_list(role)]


def close_all() -> None:
    """Free every model: this process's and, where one runs, the model host's."""
    host_client.close_shared()
    with _cache_lock:
        for provider in _cache.values():
            provider.close()
        _cache.clear()
    # Weights shared between instances (llama.cpp's) may belong to providers built outside
    # this cache too, so every kind frees its own.
    for cls in registry.providers.classes():
        cls.release_shared()
