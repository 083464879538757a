"""The [metrics] tables of the settings file, checked against the registered metrics.

Each `[metrics.<name>]` table may hold only keys of that metric's `defaults`, each with its
default's type (`quizsmith.options`), numbers finite and within the metric's
`option_ranges` where it gives them; `[metrics.profiles]` maps a model to a prompt profile.
A misspelt metric name or key is a ConfigError naming it, the metric and the valid keys.
`MetricContext` checks the whole [metrics] table when it is built (metrics/base.py,
`check_metric_settings`, which knows the registered metrics), so a scoring job fails once,
before its first item, instead of marking every item "not scored".
"""

from __future__ import annotations

from typing import Any

from quizsmith.errors import ConfigError
from quizsmith.metrics.profiles import PROFILES
from quizsmith.options import check_options
from quizsmith.settings import Settings

#: Tables under [metrics] that belong to no metric.
PROFILES_TABLE = "profiles"


def merged_options(metric: Any, settings: Settings) -> dict[str, Any]:
    """A metric's defaults with the user's [metrics.<name>] table on top, checked."""
    user = settings.metrics.get(metric.name)
    if user is None:
        return dict(metric.defaults)
    check_metric_table(metric, user, settings)
    return {**metric.defaults, **user}


def check_metric_table(metric: Any, user: Any, settings: Settings) -> None:
    where = f"[metrics.{metric.name}]"
    if not isinstance(user, dict):
        raise ConfigError(
            f"{where} in {settings.path} must be a table of options, not {user!r}.",
            f"Write it as a table: [metrics.{metric.name}] followed by key = value lines.",
        )
    check_options(
        user,
        metric.defaults,
        f"{where} (metric {metric.name})",
        types=getattr(metric, "option_types", None),
        ranges=getattr(metric, "option_ranges", None),
        path=settings.path,
    )


def check_profiles(table: Any, settings: Settings) -> None:
    """[metrics.profiles]: a table of model reference -> prompt profile (metrics/profiles.py)."""
    if not isinstance(table, dict):
        raise ConfigError(
            f"[metrics.profiles] in {settings.path} must be a table, not {table!r}.",
            'Write lines such as "gguf:my-model" = "chat" under [metrics.profiles].',
        )
    for model, profile in table.items():
        if profile not in PROFILES:
            raise ConfigError(
                f"[metrics.profiles] in {settings.path}: {model!r} has the unknown profile "
                f"{profile!r}.",
                f"Profiles are {', '.join(PROFILES)}.",
            )
