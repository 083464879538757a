"""The metric protocol, the context a metric scores in, and the registry of installed metrics.

A metric scores one item and returns a `ScoreResult`: a value in its documented range with
evidence a teacher can read and the model configuration used, or "not scored: reason" - never
a made-up number. Options and flag thresholds live in each metric's `defaults` and can be
overridden per metric in the settings file (`[metrics.<name>]`).

The registry of installed metrics (`metrics`, entry-point group `quizsmith.metrics`) is here,
beside Metric, because MetricContext checks the settings' [metrics] tables against it when it
is built (`check_metric_settings`); metrics/registry.py reads from it every list the front
ends show, and metrics/options.py checks one metric's table.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from quizsmith.domain import ITEM_TYPE_NAMES, ITEM_TYPES, Flag, Item, ScoreResult, utc_now
from quizsmith.errors import STOPS_THE_JOB, QuizsmithError
from quizsmith.jobs import CancelToken
from quizsmith.metrics.display import Threshold, generic_evidence_html
from quizsmith.metrics.options import (
    PROFILES_TABLE,
    check_metric_table,
    check_profiles,
    merged_options,
)
from quizsmith.options import check_keys
from quizsmith.plugins import PluginRegistry
from quizsmith.providers.base import Provider
from quizsmith.settings import Settings


def below_text(value: float, limit: float) -> str:
    """ "value < limit" with enough decimals that the two numbers do not print the same
    (0.297 against 0.30 would otherwise read "0.30 < 0.30")."""
    for digits in (2, 3, 4):
        shown, bound = f"{value:.{digits}f}", f"{limit:.{digits}f}"
        if shown != bound:
            return f"{shown} < {bound}"
    return f"{value:.6g} < {limit:.6g}"


#: Chip levels from best to worst.
LEVEL_ORDER = ("good", "ok", "bad")


def worse_level(*levels: str) -> str:
    """The worst of chip levels ("good" < "ok" < "bad")."""
    return max(levels, key=LEVEL_ORDER.index, default="good")


def flag_level(severities: set[str]) -> str:
    """A chip level from the severities of the metric's flags on the item (hints count not)."""
    if "error" in severities:
        return "bad"
    return "ok" if "warning" in severities else "good"


#: The option-choice solvers letter the options A-J (metrics/solvers.py, LETTERS); an item
#: with more (an import may carry up to 30) is "does not apply", never a crash.
MAX_SCORED_OPTIONS = 10


@dataclass
class MetricContext:
    """What a metric may use besides the item: models by role, options, the bank's statistics."""

    settings: Settings = field(default_factory=Settings)
    cancel: CancelToken = field(default_factory=CancelToken)
    seed: int = 0
    #: subject -> expected NACo reasoning-step count (the bank provides it); None: use default.
    expected_complexity: Callable[[str | None], int | None] | None = None
    #: Providers by model reference, for tests or callers that built them already.
    overrides: dict[str, Provider] = field(default_factory=dict)
    #: Receives (metric, text) when a metric with several slow parts finishes one (NACo's
    #: verdict, then its answer; the overall estimate's quick estimate on the standard
    #: profile), so a live chip can say how far it got (issues 16, 26). Called
    #: on the thread that runs the metric; None: nobody listens.
    report_part: Callable[[str, str], None] | None = None

    def part(self, metric: str, text: str) -> None:
        """Say that a part of `metric` finished (what it found, a few words; a number only
        when the words say what kind it is: "quick estimate ≈72%")."""
        if self.report_part is not None:
            self.report_part(metric, text)

    def provider(self, role: str) -> Provider:
        return self.provider_for(self.settings.role(role))

    def providers(self, role: str) -> list[Provider]:
        return [self.provider_for(ref) for ref in self.settings.role_list(role)]

    def embedder(self) -> Provider | None:
        """The sentence-embedding model, or None when none is set up or it cannot embed:
        its users (nearest sentences) then fall back to what needs no vectors."""
        try:
            provider = self.provider("embeddings")
        except QuizsmithError:
            return None
        return provider if provider.can_embed else None

    def provider_for(self, ref: str) -> Provider:
        if ref in self.overrides:
            return self.overrides[ref]
        from quizsmith.providers.manager import provider_for

        return provider_for(ref, self.settings)

    def __post_init__(self) -> None:
        # A misspelt option fails the job once, here, not every item as "not scored".
        if self.settings.metrics:
            check_metric_settings(self.settings)

    def options(self, metric: type[Metric] | Metric) -> dict[str, Any]:
        """The metric's defaults with the user's [metrics.<name>] settings on top; an unknown
        key or a value of the wrong type is a ConfigError (metrics/options.py)."""
        return merged_options(metric, self.settings)


class Metric:
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    #: One line for the metric guide and tooltips: what the number means.
    description: ClassVar[str] = ""
    value_range: ClassVar[tuple[float, float]] = (0.0, 1.0)
    higher_is_better: ClassVar[bool] = True
    needs_passage: ClassVar[bool] = True
    needs_options: ClassVar[bool] = False
    needs_reference: ClassVar[bool] = False
    item_types: ClassVar[tuple[str, ...]] = ITEM_TYPES
    #: Options and flag thresholds, each overridable in settings [metrics.<name>]. They are
    #: also the schema of that table: only these keys, each with its default's type.
    defaults: ClassVar[dict[str, Any]] = {}
    #: The type of an option whose default (None) does not tell it, e.g. {"flag_below": float}.
    option_types: ClassVar[dict[str, type | tuple[type, ...]]] = {}
    #: Valid ranges (inclusive) of numeric options, checked with the settings; any number
    #: must be finite (issue 28).
    option_ranges: ClassVar[dict[str, tuple[float, float]]] = {}

    # How the metric takes part in the app, read from the registry (metrics/registry.py) by
    # the GUI, the CLI's help and the evaluation, so that a new metric needs no edits there.
    #: Its place among the metrics (chips, evidence, settings, "Score all"); lower first.
    order: ClassVar[int] = 100
    #: The item tables' chip column heading; "" gives it no column.
    chip_label: ClassVar[str] = ""
    #: Its name in the score-distribution chart's menu; "" leaves it out.
    chart_label: ClassVar[str] = ""
    #: The evidence panel's heading ("" = `name`, as the panel has always headed a metric
    #: it had no title for).
    evidence_title: ClassVar[str] = ""
    #: Re-scored after every edit unless the teacher changes the live set.
    live_by_default: ClassVar[bool] = False
    #: Model profiles on which the item editor also re-scores it after every edit by default,
    #: after the estimate (issue 45's progressive chips: the estimate's chip comes first, then
    #: these, `quality/live_set.py`). Unlike `live_by_default`, kept generated items are not
    #: scored with it: it feeds no estimate, and generation would pay for it on every item.
    live_profiles: ClassVar[tuple[str, ...]] = ()
    #: Item types it is re-scored live on (None: all of its `item_types`); the others keep
    #: their chip out of date after an edit until "Explain" or "Score all".
    live_item_types: ClassVar[tuple[str, ...] | None] = None
    #: In the default set of batch scoring (`quizsmith score`, the main window's "Score").
    batch_by_default: ClassVar[bool] = False
    #: Run by the item editor's "Score all".
    in_score_all: ClassVar[bool] = True
    #: It reads other metrics' stored results, so it runs after them.
    reads_scores: ClassVar[bool] = False
    #: It calls `ctx.part` while it runs (several slow model calls, e.g. NACo): a live
    #: re-score then runs it on a helper thread so the parts reach the chips as they come.
    reports_parts: ClassVar[bool] = False
    #: Item types whose generated candidates it ranks (generation/rank.py).
    rank_item_types: ClassVar[tuple[str, ...]] = ()
    #: Item types of a kept generated item it scores, if it is live by default (None: all of
    #: its `item_types`).
    generated_item_types: ClassVar[tuple[str, ...] | None] = None
    #: Options the settings dialog shows as flag thresholds.
    thresholds: ClassVar[tuple[Threshold, ...]] = ()
    #: The flag codes `flags` can raise (their severities: metrics/flag_policy.py).
    flag_codes: ClassVar[tuple[str, ...]] = ()
    #: Parts of `ScoreResult.values` that `quizsmith eval` correlates with human labels.
    subscores: ClassVar[tuple[str, ...]] = ()
    #: Features of the overall model read from its results (`features`), reference-free...
    feature_names: ClassVar[tuple[str, ...]] = ()
    #: ... and those that need a reference question or a capable judge.
    reference_feature_names: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Every metric's flags pass through the measured flag policy (metrics/flag_policy.py),
        # whoever calls `flags`: a flag's severity follows how often it was found right.
        super().__init_subclass__(**kwargs)
        raw = cls.__dict__.get("flags")
        if raw is None or getattr(raw, "_policy_applied", False):
            return

        def flags(self: Metric, result: ScoreResult, options: dict[str, Any]) -> list[Flag]:
            from quizsmith.metrics.flag_policy import apply_policy

            return [apply_policy(f) for f in raw(self, result, options)]

        flags.__doc__ = raw.__doc__
        flags._policy_applied = True  # type: ignore[attr-defined]
        cls.flags = flags  # type: ignore[method-assign]

    @classmethod
    def chip_text(cls, result: ScoreResult) -> str:
        """The scored result as a chip shows it."""
        return f"{float(result.value or 0.0):.2f}"

    @classmethod
    def chip_level(cls, result: ScoreResult, options: dict[str, Any], severities: set[str]) -> str:
        """ "good", "ok" or "bad" for a scored result; `severities` are those of the item's
        flags from this metric. By default the flags decide; a metric whose flags may all be
        hints should colour by its own scale too (`scale_level`, as NACo and MIRROR do: with
        hint-only flags, MIRROR 1.4/5 showed green, issue 27)."""
        return flag_level(severities)

    @classmethod
    def scale_level(cls, result: ScoreResult) -> str:
        """Where the value lies on `value_range`: the lowest quarter "bad", up to the middle
        "ok", above it "good" (reversed when lower is better)."""
        if result.value is None:
            return "good"
        low, high = cls.value_range
        if high <= low:
            return "good"
        place = (float(result.value) - low) / (high - low)
        if not cls.higher_is_better:
            place = 1.0 - place
        if place < 0.25:
            return "bad"
        return "ok" if place < 0.5 else "good"

    @classmethod
    def evidence_html(cls, result: ScoreResult) -> str:
        """The body of the evidence section of a scored result (metrics/display.py)."""
        return generic_evidence_html(result)

    @classmethod
    def chip_meaning(cls, result: ScoreResult) -> str:
        """What this result's number means, for the chip's tooltip (the overall estimate
        means something else for a true/false or cloze item than for a question)."""
        return cls.description

    @classmethod
    def chip_reason(cls, result: ScoreResult) -> str | None:
        """The main reason for this score in a teacher's words, for the chip's tooltip and
        the CLI (None: the number and the flags say it all)."""
        return None

    @classmethod
    def features(cls, result: ScoreResult) -> dict[str, float | None]:
        """Values of `feature_names` and `reference_feature_names` from a scored result."""
        return {}

    def not_applicable(self, item: Item) -> str | None:
        """Why this metric cannot score the item (None when it can)."""
        if item.type not in self.item_types:
            return self.type_not_applicable(item.type)
        if self.needs_passage and not (item.passage and item.passage.text.strip()):
            return "The item has no passage."
        if self.needs_options and len(item.options) < 2:
            return "The item has no answer options."
        if self.needs_options and (reason := self.too_many_options(item)):
            return reason
        if self.needs_reference and not (item.reference or "").strip():
            return "The item has no reference question."
        return None

    @classmethod
    def type_not_applicable(cls, item_type: str) -> str:
        """Why the metric says nothing about items of this type, in a teacher's words."""
        kinds = " and ".join(ITEM_TYPE_NAMES.get(t, t) for t in cls.item_types)
        title = cls.title or cls.name
        return (
            f"{title} does not apply to {ITEM_TYPE_NAMES.get(item_type, item_type)} items "
            f"(it judges {kinds} items)."
        )

    def too_many_options(self, item: Item) -> str | None:
        if len(item.options) <= MAX_SCORED_OPTIONS:
            return None
        return (
            f"{self.title} scores items of at most {MAX_SCORED_OPTIONS} options (A-J); this one "
            f"has {len(item.options)}."
        )

    def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
        raise NotImplementedError

    def cache_identity(self, ctx: MetricContext) -> Any:
        """What decides this metric's output besides the models, options and item (a
        version, a fitted file's digest): part of the evaluation cache key. None by default."""
        return None

    def flags(self, result: ScoreResult, options: dict[str, Any]) -> list[Flag]:
        """Review reasons raised by a scored result (thresholds from `options`)."""
        return []

    def score(self, item: Item, ctx: MetricContext) -> ScoreResult:
        """compute() with the checks every metric needs: applicability, timing, and expected
        failures (model missing, server down, output that would not parse) turned into
        "not scored: reason"."""
        reason = self.not_applicable(item)
        if reason:
            # Marked: "does not apply" is no failure (the CLI's exit status tells them apart).
            return ScoreResult.not_scored(self.name, reason, evidence={"not_applicable": True})
        started = time.perf_counter()
        try:
            result = self.compute(item, ctx)
        except STOPS_THE_JOB:
            raise  # the whole job stops: every later model call would fail the same way
        except QuizsmithError as exc:
            return ScoreResult.not_scored(
                self.name, str(exc), seconds=time.perf_counter() - started
            )
        result.seconds = time.perf_counter() - started
        result.created = result.created or utc_now()
        if result.value is not None:
            low, high = self.value_range
            if not low - 1e-9 <= result.value <= high + 1e-9:
                raise AssertionError(
                    f"{self.name} produced {result.value}, outside {self.value_range}"
                )
        return result


GROUP = "quizsmith.metrics"
#: Every installed metric: the entry points of GROUP and those registered at run time.
metrics: PluginRegistry[Metric] = PluginRegistry(GROUP, Metric, "metric")


def check_metric_settings(settings: Settings) -> None:
    """Every table under [metrics] names a registered metric (or `profiles`) and holds only
    that metric's options, with their types."""
    known = metrics.names()
    check_keys(
        settings.metrics, [*known, PROFILES_TABLE], "[metrics] (metric names)", settings.path
    )
    for name, table in settings.metrics.items():
        if name == PROFILES_TABLE:
            check_profiles(table, settings)
        else:
            check_metric_table(metrics.get(name), table, settings)
