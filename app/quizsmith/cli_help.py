"""Help texts and defaults of the command line that come from the plug-in registries.

Filled in only when a command's help is shown or its default is used, so that `quizsmith
--help` and commands that score nothing never import the metrics (numpy and the rest).
"""

from __future__ import annotations

import argparse

#: Placeholders in a help text, and what fills them.
METRICS = "{metrics}"
BATCH_METRICS = "{batch_metrics}"
#: The default of `--metrics` where the batch default applies; `metric_list` tells it from a
#: value typed on the command line by identity, so no text a user types can be mistaken for it.
BATCH_DEFAULT = "(the batch metrics)"


def all_metrics_text() -> str:
    """Every installed metric, comma-separated, in the order they run."""
    from quizsmith.metrics import registry

    return ",".join(registry.run_order(registry.names()))


def batch_metrics_text() -> str:
    from quizsmith.metrics import registry

    return ",".join(registry.default_batch_metrics())


def metric_list(text: str) -> str:
    """`--metrics`'s type: the value as typed, or the batch metrics for the default."""
    return batch_metrics_text() if text is BATCH_DEFAULT else text


class RegistryHelpFormatter(argparse.HelpFormatter):
    """Fills the placeholders above when the help is shown."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        if not text:
            return text
        if METRICS in text:
            text = text.replace(METRICS, all_metrics_text())
        if BATCH_METRICS in text:
            text = text.replace(BATCH_METRICS, batch_metrics_text())
        return text
