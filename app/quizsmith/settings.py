"""User settings: one TOML file under the platform config dir.

Which model serves which role is a setting whose defaults are the bundled models. API keys
are never stored here: an endpoint names its keyring entry (`key_name`), see `secrets.py`.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from quizsmith import paths
from quizsmith.errors import ConfigError, quoted
from quizsmith.options import check_keys, check_options
from quizsmith.plugins import plugin_names

SETTINGS_FILE = "settings.toml"

#: Roles a model can serve. A list-valued role takes several models (solvers, judges).
SINGLE_ROLES = ("generator", "qa", "embeddings", "paraphraser")
MULTI_ROLES = ("solvers", "judges")

# The light profile's roles. Why these: the instruct model follows short chat prompts and
# JSON schemas; the base Gemma model is the second, independent "student" and is used with
# few-shot prompts.
DEFAULT_ROLES: dict[str, Any] = {
    "generator": "smollm2-135m-instruct",
    "qa": "smollm2-135m-instruct",
    "paraphraser": "gemma3-270m",
    "embeddings": "all-minilm-l6-v2",
    "solvers": ["smollm2-135m-instruct", "gemma3-270m"],
    "judges": ["smollm2-135m-instruct", "gemma3-270m"],
}

#: Model profiles: which bundled models serve the roles by default.
#: - "standard": Qwen2.5-Coder-1.5B-Instruct (1.1 GB) writes, reads, answers and is the first
#:   KDA student and MIRROR reviewer, with the paper's chat prompts; Gemma 270M stays as the
#:   second student and reviewer (the metrics want a second, different model).
#: - "light": the tiny models only (94 + 242 MB), with few-shot and likelihood prompts.
#: The first start picks one for the machine (providers/machine_profile.py); a role set in
#: [roles] overrides the profile's model for that role.
PROFILES = ("standard", "light")
STANDARD_MODEL = "qwen2.5-coder-1.5b-instruct"
PROFILE_ROLES: dict[str, dict[str, Any]] = {
    "light": DEFAULT_ROLES,
    "standard": {
        "generator": STANDARD_MODEL,
        "qa": STANDARD_MODEL,
        "paraphraser": "gemma3-270m",
        "embeddings": "all-minilm-l6-v2",
        "solvers": [STANDARD_MODEL, "gemma3-270m"],
        "judges": [STANDARD_MODEL, "gemma3-270m"],
    },
}
#: Scripts and tests can fix the profile for one run, whatever the settings file says.
PROFILE_ENV = "QUIZSMITH_PROFILE"

_FORBIDDEN_KEYS = {"api_key", "apikey", "key", "token", "secret", "password"}
#: The file's tables. [metrics] tables are checked against each metric's `defaults` by
#: quizsmith.metrics.options (this module knows no metric).
TABLES = ("roles", "models", "endpoints", "metrics")
#: The entry-point group whose names an endpoint's `provider` may take (this module knows no
#: provider; the names are read from the installed packages' metadata, nothing is loaded).
PROVIDER_GROUP = "quizsmith.providers"
#: Hosts a key may reach over plain http:// without a warning: this computer.
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclass
class Endpoint:
    """An OpenAI-compatible or Anthropic server. The key lives in keyring under `key_name`."""

    name: str
    provider: str = "openai"
    base_url: str = "http://127.0.0.1:8080/v1"
    model: str = ""
    key_name: str = ""
    timeout_s: float = 60.0
    max_retries: int = 4
    max_concurrency: int = 4


#: An endpoint table's options and their types: every field of Endpoint but its name.
ENDPOINT_DEFAULTS: dict[str, Any] = {
    f.name: f.default for f in fields(Endpoint) if f.name != "name"
}
#: Valid ranges of an endpoint's numbers: a total deadline per try of 0.1 s to an hour, at
#: most 10 retries (each may wait up to 30 s), 1-64 requests at a time.
ENDPOINT_RANGES: dict[str, tuple[float, float]] = {
    "timeout_s": (0.1, 3600.0),
    "max_retries": (0, 10),
    "max_concurrency": (1, 64),
}


@dataclass
class Settings:
    #: Roles set by the user; a role not set here takes its profile's model (`role`).
    roles: dict[str, Any] = field(default_factory=dict)
    #: The model profile (PROFILES) and why it was chosen; `profile_chosen` is False until the
    #: first start has picked one and recorded it in the file ([models] profile).
    profile: str = "light"
    profile_reason: str = ""
    profile_chosen: bool = False
    model_dirs: list[str] = field(default_factory=list)
    n_ctx: int = 4096
    n_threads: int = 0  # 0 means: one thread per physical core
    #: The model host (providers/host_client.py): a call running longer is taken for a hang
    #: (the host is restarted); after this many idle minutes the host exits and gives its
    #: memory back (0: never).
    call_deadline_s: float = 600.0
    release_models_after_min: float = 15.0
    endpoints: dict[str, Endpoint] = field(default_factory=dict)
    #: [metrics] table: thresholds, weights and per-metric options; interpreted (with their
    #: defaults) by quizsmith.metrics.config so that this module stays free of metric details.
    metrics: dict[str, Any] = field(default_factory=dict)
    path: Path | None = field(default=None, repr=False, compare=False)

    def role(self, name: str) -> str:
        if name not in SINGLE_ROLES:
            raise ConfigError(f"Unknown single-model role {name!r}.", f"Use one of {SINGLE_ROLES}.")
        value = self.roles.get(name, self.profile_roles()[name])
        return str(value)

    def role_list(self, name: str) -> list[str]:
        if name not in MULTI_ROLES:
            raise ConfigError(f"Unknown multi-model role {name!r}.", f"Use one of {MULTI_ROLES}.")
        value = self.roles.get(name, self.profile_roles()[name])
        return [str(v) for v in (value if isinstance(value, list) else [value])]

    def profile_roles(self) -> dict[str, Any]:
        """The active profile's default model for each role."""
        return PROFILE_ROLES.get(self.profile, DEFAULT_ROLES)

    def effective_roles(self) -> dict[str, Any]:
        """Every role's model: the profile's, with the user's [roles] on top."""
        return {**self.profile_roles(), **self.roles}

    def to_toml_dict(self) -> dict[str, Any]:
        models: dict[str, Any] = {
            "dirs": list(self.model_dirs),
            "n_ctx": self.n_ctx,
            "n_threads": self.n_threads,
            "call_deadline_s": self.call_deadline_s,
            "release_models_after_min": self.release_models_after_min,
        }
        if self.profile_chosen:
            models["profile"] = self.profile
            models["profile_reason"] = self.profile_reason
        return {
            "roles": dict(self.roles),
            "models": models,
            "endpoints": {
                name: {k: v for k, v in asdict(ep).items() if k != "name"}
                for name, ep in self.endpoints.items()
            },
            "metrics": dict(self.metrics),
        }


#: The [models] table's options.
MODELS_DEFAULTS: dict[str, Any] = {
    "dirs": [],
    "n_ctx": Settings.n_ctx,
    "n_threads": 0,
    "call_deadline_s": Settings.call_deadline_s,
    "release_models_after_min": Settings.release_models_after_min,
    "profile": "light",
    "profile_reason": "",
}
#: n_ctx: llama.cpp's smallest useful context to the largest any GGUF model declares (1M);
#: a model's own trained context caps it further when it is loaded. n_threads: 0 is "one per
#: physical core".
MODELS_RANGES: dict[str, tuple[float, float]] = {
    "n_ctx": (256, 1_048_576),
    "n_threads": (0, 1024),
    "call_deadline_s": (5, 86_400),
    "release_models_after_min": (0, 10_080),
}


def settings_path() -> Path:
    return paths.config_dir() / SETTINGS_FILE


def load(path: Path | None = None) -> Settings:
    """Read settings; a missing file gives the defaults, a broken one a clear ConfigError."""
    path = path or settings_path()
    if not path.exists():
        return _env_profile(Settings(path=path))
    start_again = (
        f"Rename or delete {path.name} (in {path.parent}) to start again from the defaults."
    )
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"The settings file {path} cannot be read: {exc}.",
            "Fix the line named above, or delete the file to start again from the defaults.",
        ) from exc
    except RecursionError:
        # tomllib parses nested arrays and inline tables recursively: `x = [[[...` 5,000
        # deep ended every command that reads the settings in a crash (issue 48).
        raise ConfigError(
            f"The settings file {path} cannot be read: it nests lists or tables thousands of "
            "levels deep, which no Quizsmith setting does (a damaged or foreign file).",
            start_again,
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"The settings file {path} cannot be read: {exc.strerror or exc}.",
            f"Check its permissions, or {start_again[0].lower()}{start_again[1:]}",
        ) from None
    return _env_profile(_from_dict(data, path))


def _env_profile(settings: Settings) -> Settings:
    value = os.environ.get(PROFILE_ENV, "").strip()
    if not value:
        return settings
    if value not in PROFILES:
        raise ConfigError(
            f"{PROFILE_ENV}={value!r} is not a model profile.",
            f"Use one of {', '.join(PROFILES)}, or unset it.",
        )
    settings.profile = value
    settings.profile_reason = f"set by {PROFILE_ENV}"
    return settings


def _from_dict(data: dict[str, Any], path: Path) -> Settings:
    settings = Settings(path=path)
    check_keys(data, list(TABLES), "the settings file", path)
    roles = data.get("roles", {})
    if not isinstance(roles, dict):
        raise ConfigError(f"[roles] in {path} must be a table.", "See docs/settings.md.")
    unknown = set(roles) - set(SINGLE_ROLES) - set(MULTI_ROLES)
    if unknown:
        raise ConfigError(
            f"Unknown role(s) {sorted(unknown)} in {path}.",
            f"Roles are {', '.join(SINGLE_ROLES + MULTI_ROLES)}.",
        )
    for role, value in roles.items():
        _check_role(role, value, path)
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise ConfigError(f"[models] in {path} must be a table.", "See docs/settings.md.")
    check_options(models, MODELS_DEFAULTS, "[models]", ranges=MODELS_RANGES, path=path)
    if "profile" in models:
        if models["profile"] not in PROFILES:
            raise ConfigError(
                f"[models] profile = {models['profile']!r} in {path} is not a model profile.",
                f"Use one of {', '.join(PROFILES)} (`quizsmith models --profile NAME`).",
            )
        settings.profile = str(models["profile"])
        settings.profile_reason = str(models.get("profile_reason", ""))
        settings.profile_chosen = True
    else:
        # Written before profiles existed: the settings dialog then saved every role, so a
        # role equal to the old default was a default, not a choice (it follows the profile).
        roles = {k: v for k, v in roles.items() if DEFAULT_ROLES.get(k) != v}
    settings.roles.update(roles)
    if not all(isinstance(d, str) for d in models.get("dirs", [])):
        raise ConfigError(
            f"Option 'dirs' in [models] in {path} must be a list of folder names in quotes.",
            'Write dirs = ["~/models"], or remove the line to use the models folder only.',
        )
    settings.model_dirs = [str(d) for d in models.get("dirs", [])]
    settings.n_ctx = int(models.get("n_ctx", settings.n_ctx))
    settings.n_threads = int(models.get("n_threads", settings.n_threads))
    settings.call_deadline_s = float(models.get("call_deadline_s", settings.call_deadline_s))
    settings.release_models_after_min = float(
        models.get("release_models_after_min", settings.release_models_after_min)
    )
    metrics = data.get("metrics", {})
    if not isinstance(metrics, dict):
        raise ConfigError(f"[metrics] in {path} must be a table.", "See docs/settings.md.")
    settings.metrics = metrics
    endpoints = data.get("endpoints", {})
    if not isinstance(endpoints, dict) or not all(isinstance(v, dict) for v in endpoints.values()):
        raise ConfigError(
            f"[endpoints] in {path} must hold one table per server ([endpoints.<name>]).",
            "See docs/settings.md.",
        )
    for name, raw in endpoints.items():
        leaked = _FORBIDDEN_KEYS & {k.lower() for k in raw}
        if leaked:
            raise ConfigError(
                f"Endpoint {name!r} in {path} holds a secret ({', '.join(sorted(leaked))}).",
                f"Remove it from the file and store it with `quizsmith key set {name}`.",
            )
        provider = raw.get("provider", "openai")
        where = f"[endpoints.{name}] (provider {provider})"
        check_options(raw, ENDPOINT_DEFAULTS, where, ranges=ENDPOINT_RANGES, path=path)
        _check_provider(str(provider), where, path)
        _check_base_url(str(raw.get("base_url", Endpoint.base_url)), where, path)
        settings.endpoints[name] = Endpoint(name=name, **raw)
    return settings


# A wrong value is refused rather than replaced by the default with a warning: refusing
# loses nothing (the file stays as written and the message names the line), whereas a
# default would quietly run another model or server than the one the teacher named, and the
# settings dialog's next save would overwrite the line with it.
def _check_role(role: str, value: Any, path: Path) -> None:
    def is_name(v: Any) -> bool:
        return isinstance(v, str) and bool(v.strip())

    if is_name(value) or (
        role in MULTI_ROLES and isinstance(value, list) and all(map(is_name, value))
    ):
        return
    example = DEFAULT_ROLES[role]
    written = f'["{example[0]}", "{example[1]}"]' if isinstance(example, list) else f'"{example}"'
    kind = "a model name, or a list of them," if role in MULTI_ROLES else "a model name"
    raise ConfigError(
        f"Role {role!r} in [roles] in {path} must be {kind} in quotes, not {_shown(value)}.",
        f"Write {role} = {written} (a bundled model, gguf:<file>, or endpoint:<name>), or "
        "remove the line to use the profile's model.",
    )


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:60]}…"


def _check_provider(provider: str, where: str, path: Path) -> None:
    known = plugin_names(PROVIDER_GROUP)
    if provider in known:
        return
    raise ConfigError(
        f"Option 'provider' in {where} in {path} names no installed provider: {quoted(provider)}.",
        f'Write provider = "openai" (any OpenAI-compatible server) or one of '
        f"{', '.join(sorted(known))}.",
    )


def _check_base_url(url: str, where: str, path: Path) -> None:
    """An endpoint's address must be an http(s) URL with a host: `file:///etc/passwd` was
    accepted, and an address without a scheme failed five times as "could not be reached"."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018  (raises ValueError for a port that is not a number)
    except ValueError:
        parts, host = None, None
    if parts is not None and parts.scheme in ("http", "https") and host:
        return
    example = Endpoint.base_url
    if "://" not in url and url.strip() and len(url) < 80:
        example = f"http://{url.strip()}"  # the scheme was left out
    raise ConfigError(
        f"Option 'base_url' in {where} in {path} must be an http:// or https:// address with "
        f"a host, not {quoted(url)}.",
        f'Write base_url = "{example}" (the server\'s address, usually ending in /v1), or '
        "remove the line to use the default.",
    )


def plain_http_warning(url: str) -> str | None:
    """Why an API key should not go to `url`, when it is plain http:// to another computer
    (anyone on the network between can read the key), else None. Said where a key is about
    to be sent (providers/http.py), not here: the settings are read many times per run."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError:
        return None
    if parts.scheme != "http" or not host or host in LOCAL_HOSTS:
        return None
    return (
        f"sends its API key to {host} over plain http://: anyone on the network between "
        "can read it. Use https:// if the server offers it."
    )


def save(settings: Settings, path: Path | None = None) -> Path:
    """Write atomically (temp file + rename) so a crash never leaves a half-written file."""
    import tomli_w

    path = path or settings.path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(tomli_w.dumps(settings.to_toml_dict()), encoding="utf-8")
    os.replace(tmp, path)
    settings.path = path
    return path
