"""Two registered metrics built on the cheap signals (`quality/signals.py`):

- `signals`: the signals themselves; its headline value is the key's share of the answer
  likelihood among the passage's candidate answers (0-1: how clearly a model reading the
  passage picks the key). The evaluation harness caches it once per item and fits the
  overall model on it.
- `overall`: the calibrated probability that raters accept the item (QGEval), from the signals
  and whatever live metrics the item already carries (NACo, KDA, EXAM), through the overall
  model of the model profile (`quality/overall_model.py`). It needs no reference question.
  It is the headline chip, orders the review queue and ranks generated candidates.

True/false and fill-in-the-blank items are no questions, so not for the overall model: their
signals and calibrated estimate (measured on cloze tests) are in `quality/type_estimate.py`.

Both use the `solvers` role's first base (completion) model as the reader, else the first
model with log-probs, the instruct model of the `generator` role for fluency, and the
`embeddings` role for similarity; a model the signals cannot use gives "not scored: reason".
These likelihood signals always come from the light profile's models (the user's own roles
on the light profile): they are what the overall models were measured and fitted on.

On the standard profile, once its own overall model is shipped or refitted
(`overall_model.signals_profile`), the `qa` role's model (the 1.5B instruct model) also
reads the passage and answers (`quality/reader.py`): its answer's F1 with the key and the
key's likelihood are the reader signals, which the standard model reads and the light one
does not. Until then the standard profile is estimated from the light signals alone and
says so in its evidence. While the reader reads, a live chip is told the light model's quick
estimate on the signals read so far (`quality/quick_estimate.py`). The shipped standard
model reads none of the light models' likelihoods (`LIKELIHOOD_SIGNALS`; refitted without
them, `_reads_likelihoods`): there the light models read only for that quick estimate, so
ranking and scoring a generated quiz's questions never load them (Gemma 270M and SmolLM2:
about 700 MiB of the model host, four calls an item; true/false and fill-in-the-blank
estimates still read the light reader).

Why this module is long: the two metrics share the signals' reading (which models, the
cache identity, the hook for the quick estimate) and are kept side by side so that the
overall estimate and the `signals` results it reads cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Final

from quizsmith.domain import ONE_DISTRACTOR, Flag, Item, ScoreResult, distractor_warning
from quizsmith.errors import QuizsmithError
from quizsmith.metrics.base import Metric, MetricContext, below_text
from quizsmith.metrics.display import esc, number
from quizsmith.metrics.naco import _instruct  # the test NACo uses to find its base model
from quizsmith.providers.base import Provider
from quizsmith.quality import option_checks, type_estimate
from quizsmith.quality.reader import (
    READER_ANSWERS_MORE,
    READER_REJECTS_KEY,
    READER_SIGNALS,
    READER_VERSION,
    answers_more,
    answers_more_flag,
    disputes_key,
    reader_flag,
    reader_signals,
)
from quizsmith.quality.signals import (
    LIKELIHOOD_SIGNALS,
    SIGNALS,
    SIGNALS_VERSION,
    compute_signals,
    item_fingerprint,
)
from quizsmith.settings import MULTI_ROLES

#: Receives the likelihood signals' values while the reader signals are still to come.
LikelihoodsRead = Callable[[Mapping[str, float | None]], None]
#: The likelihood signals (every profile) and the reader signals (the standard profile's
#: model only: None elsewhere, and no light model reads them).
ALL_SIGNALS = SIGNALS + READER_SIGNALS


def _role_providers(ctx: MetricContext, role: str) -> list[Provider]:
    """The role's models for the likelihood signals: the context's own roles on the light
    profile, the light profile's models on any other (what the models were fitted on)."""
    from quizsmith.settings import PROFILE_ROLES

    if ctx.settings.profile == "light":
        return ctx.providers(role) if role in MULTI_ROLES else [ctx.provider(role)]
    refs = PROFILE_ROLES["light"][role]
    return [ctx.provider_for(ref) for ref in (refs if isinstance(refs, list) else [refs])]


def _reads_answers(ctx: MetricContext) -> bool:
    """Whether the signals include the reader's: on the standard profile, when an overall
    model fitted on reader signals serves it."""
    from quizsmith.quality.overall_model import signals_profile

    profile = ctx.settings.profile
    return profile == "standard" and signals_profile(profile) == profile


def _answer_reader(ctx: MetricContext) -> Provider | None:
    """The model that reads and answers (reader signals): the `qa` model where
    `_reads_answers`, else None."""
    if not _reads_answers(ctx):
        return None
    provider = ctx.provider("qa")
    if not (provider.can_chat and provider.can_reply_logprob):
        raise QuizsmithError(
            f"The reader signals need a local chat model that scores its own replies; "
            f"{provider.info.label()} (qa role) is not one.",
            "Set the qa role back to the standard model, or switch to the light profile.",
        )
    return provider


def _reader(ctx: MetricContext) -> Provider:
    solvers = _role_providers(ctx, "solvers")
    with_logprobs = [p for p in solvers if p.can_logprob]
    base = [p for p in with_logprobs if not _instruct(p)]
    if base:
        return base[0]
    if with_logprobs:
        return with_logprobs[0]
    raise QuizsmithError(
        "The quality signals need a model that gives log-probabilities.",
        "Add a local GGUF model (or a server with logprobs) to the solvers role.",
    )


def _fluency_model(ctx: MetricContext) -> Provider | None:
    provider = _role_providers(ctx, "generator")[0]
    return provider if provider.can_logprob else None


def _reads_likelihoods(ctx: MetricContext) -> bool:
    """Whether the profile's overall estimate reads the light models' likelihood signals:
    every model does but the standard profile's since session 27's refit (without them it
    read QGEval out of fold at r 0.459 against 0.474, teachers' decisions at 0.081 against
    0.076, docs/evaluation.md), which spares a quiz the light models' memory and calls.
    Unknown (no readable sidecar) counts as reading them."""
    from quizsmith.quality.overall_model import features_of_active_model

    if not _reads_answers(ctx):
        return True
    used = features_of_active_model(ctx.settings.profile)
    return used is None or any(f"sig.{name}" in used for name in LIKELIHOOD_SIGNALS)


def signals_config(ctx: MetricContext) -> dict[str, Any]:
    """The models the signals an estimate reads come from (what a cached result must match);
    no light models where the estimate reads none of their likelihoods."""
    reader = _reader(ctx) if _reads_likelihoods(ctx) else None
    fluency = _fluency_model(ctx) if reader is not None else None
    config = {
        "reader": reader.info.label() if reader else None,
        "fluency": fluency.info.label() if fluency else None,
        "version": SIGNALS_VERSION,
    }
    answering = _answer_reader(ctx)
    if answering is not None:
        config["answer_reader"] = answering.info.label()
        config["reader_version"] = READER_VERSION
    return config


#: Bumped when the overall result's evidence or flags change, so that cached evaluation
#: results are recomputed (`OverallMetric.cache_identity`).
OVERALL_EVIDENCE_VERSION: Final = 2


class SignalsMetric(Metric):
    name: ClassVar[str] = "signals"
    title: ClassVar[str] = "Signals"
    description: ClassVar[str] = (
        "How clearly a model reading the passage picks the key among the passage's candidate "
        "answers (0-1; where the overall estimate reads no light model, how closely the "
        "reader's own answer matches the key), with the other cheap signals the overall "
        "estimate uses."
    )
    needs_passage: ClassVar[bool] = True
    # A question and its answer; a true/false statement or a cloze sentence gets the reader
    # signals of its own type (quality/item_types.py).
    item_types: ClassVar[tuple[str, ...]] = ("mcq", "short", *type_estimate.TYPES)

    # Shown after the others; "Score all" leaves it out, since the overall estimate computes
    # the signals itself (its own result is for `quizsmith eval`).
    order: ClassVar[int] = 60
    in_score_all: ClassVar[bool] = False
    subscores: ClassVar[tuple[str, ...]] = ALL_SIGNALS
    feature_names: ClassVar[tuple[str, ...]] = tuple(f"sig.{name}" for name in ALL_SIGNALS)

    def __init__(
        self, likelihoods_read: LikelihoodsRead | None = None, *, every_signal: bool = False
    ) -> None:
        #: Told the likelihood signals as soon as they are read, before the slower 1.5B
        #: reader's (the overall chip's quick estimate, quality/quick_estimate.py).
        self.likelihoods_read = likelihoods_read
        #: Read the light models' likelihoods even where the estimate reads none (a bench
        #: that measures every signal, bench/teacher_decisions.py).
        self.every_signal = every_signal

    @classmethod
    def features(cls, result: ScoreResult) -> dict[str, float | None]:
        return {f"sig.{name}": number(result.values.get(name)) for name in ALL_SIGNALS}

    def not_applicable(self, item: Item) -> str | None:
        reason = super().not_applicable(item)
        if reason:
            return reason
        if item.type in type_estimate.TYPES:
            return type_estimate.not_applicable(item)
        if not item.stem.strip() or not item.key.strip():
            return "The item needs a question and a key."
        return None

    def cache_identity(self, ctx: MetricContext) -> Any:
        identity: dict[str, Any] = {"signals_version": SIGNALS_VERSION}
        if _reads_answers(ctx):
            # Only where reader signals are computed: the light profile's cached signals
            # stay valid when the reader's form changes.
            identity["reader_version"] = READER_VERSION
        if not (self.every_signal or _reads_likelihoods(ctx)):
            # Results without the light models' likelihoods are no cache for a model (a
            # refit) or a run that reads them.
            identity["likelihoods"] = False
        return identity

    def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
        if item.type in type_estimate.TYPES:
            values, evidence = type_estimate.type_signals(item, _reader(ctx), ctx)
            return ScoreResult(
                metric=self.name,
                value=type_estimate.headline_signal(item.type, values),
                values=values,
                evidence={**evidence, "item": item_fingerprint(item)},
                model_config=signals_config(ctx),
            )
        # The light models' likelihoods where the estimate reads them, and where a live chip
        # waits for the quick estimate made of them (the item editor on the standard profile).
        estimate_reads = _reads_likelihoods(ctx)
        likelihoods = estimate_reads or self.every_signal or self.likelihoods_read is not None
        reader = _reader(ctx) if likelihoods else None
        fluency = _fluency_model(ctx) if likelihoods else None
        found = compute_signals(item, reader, fluency, ctx.embedder())
        answering = _answer_reader(ctx)
        if answering is not None:
            if self.likelihoods_read is not None:
                self.likelihoods_read(dict(found.values))
            passage = item.passage.text if item.passage else ""
            read = reader_signals(answering, passage, item.stem, item.key)
            found.evidence["reader_answer"] = read.pop("reader_answer")
            found.values.update(read)
        share = found.values.get("key_share")
        if not estimate_reads:
            # The estimate reads no light model: the headline is the 1.5B reader's agreement
            # with the key (its answer's token F1), the same 0-1 "does a reader pick the key",
            # whoever asked (the editor's quick estimate reads the light models too).
            share = found.values.get("reader_f1")
        if share is None:
            # One candidate only (the key): the passage offered nothing else to choose.
            share = 1.0
        return ScoreResult(
            metric=self.name,
            value=float(share),
            values={name: found.values.get(name) for name in ALL_SIGNALS},
            evidence={**found.evidence, "item": item_fingerprint(item)},
            model_config=signals_config(ctx),
        )


class OverallMetric(Metric):
    name: ClassVar[str] = "overall"
    title: ClassVar[str] = "Overall"
    # What the number was measured to predict (issue 45, point 4): raters' acceptance on
    # QGEval (grouped CV r 0.4-0.6); on teachers' own keep/remove decisions (Quiz Design,
    # bench/teacher_decisions.py) it reads r 0.00, so it is never called "the chance you keep
    # it" (docs/evaluation.md, the table at the top).
    description: ClassVar[str] = (
        "Estimated chance that raters accept the question as fluent, clear and answerable "
        "from its passage (learned from QGEval's ratings; no reference question needed). It "
        "has not been shown to predict a teacher's own keep/remove decision: a hint, not a "
        "verdict. For a true/false item the chance its key is right, for a fill-in-the-blank "
        "item the chance the blank has exactly one answer."
    )
    needs_passage: ClassVar[bool] = True
    item_types: ClassVar[tuple[str, ...]] = ("mcq", "short", *type_estimate.TYPES)
    # The headline, shown first; it reads the other live metrics' results, so it runs last.
    order: ClassVar[int] = 0
    chip_label: ClassVar[str] = "Overall"
    # A probability (0-1), so it fits the chart's axis; the headline, so it is offered first.
    chart_label: ClassVar[str] = "Overall (raters' acceptance estimate)"
    evidence_title: ClassVar[str] = "Overall (estimated chance raters accept it)"
    live_by_default: ClassVar[bool] = True
    batch_by_default: ClassVar[bool] = True
    reads_scores: ClassVar[bool] = True
    # On the standard profile the quick estimate, while the 1.5B model reads (`_quick_part`).
    reports_parts: ClassVar[bool] = True
    # The chance a teacher accepts the item, needing no reference and cheap: what ranks
    # generated questions.
    # Not true/false: "is the key right?" favours the most blatantly false statement (rank.py).
    rank_item_types: ClassVar[tuple[str, ...]] = ("mcq", "short")
    flag_codes: ClassVar[tuple[str, ...]] = (
        "no-question-form",
        ONE_DISTRACTOR,
        "low-overall",
        "reader-differs",
        READER_REJECTS_KEY,
        READER_ANSWERS_MORE,
        type_estimate.TF_QUESTION_FLAG,
        type_estimate.FLAG_CODES["tf"],  # no cloze estimate ships, so no blank-ambiguous
        *option_checks.FLAG_CODES,  # what an MCQ's or a cloze's wrong answers say (issue 45)
    )

    @classmethod
    def chip_text(cls, result: ScoreResult) -> str:
        return f"{float(result.value or 0.0):.0%}"

    @classmethod
    def chip_level(cls, result: ScoreResult, options: dict[str, Any], severities: set[str]) -> str:
        # Bad below the flag threshold (where the low-overall warning was measured right
        # 77.5% of the time); good from 0.6 up, where most items are accepted.
        value = float(result.value or 0.0)
        # A true/false or cloze estimate is bad below its own flag's measured cut.
        limit = result.evidence.get("flag_below", options.get("weak_threshold", 0.4))
        if value < float(limit):
            return "bad"
        # Never green beside its own warning, or where the reader's answer is no form of the
        # key (issue 47: "pyrimidines" at 82% while the reader answers "pyrimidines and
        # purines"): worth a look, with the reason in the flags.
        if severities & {"warning", "error"} or result.evidence.get("reader_disputes_key"):
            return "ok"
        return "good" if value >= float(options.get("good_from", 0.6)) else "ok"

    @classmethod
    def evidence_html(cls, result: ScoreResult) -> str:
        """The estimate, what moved it most (quality/explain.py), and where it comes from;
        the raw model outputs (p_accept, n_features) are no words for a teacher."""
        if result.evidence.get("estimate"):
            return type_estimate.evidence_html(result, cls.chip_text(result))
        parts = [
            f"<p>Estimated chance that raters accept this question: "
            f"<b>{cls.chip_text(result)}</b>. It was learned from raters' judgements of "
            "fluency, clarity and answerability; it has not been shown to predict whether a "
            "teacher keeps a question, so read it as a hint.</p>"
        ]
        reasons = result.evidence.get("reasons")
        if reasons:
            items = "".join(f"<li>{esc(str(r.get('text', '')))}</li>" for r in reasons)
            parts.append(f"<p>What moved it most:</p><ul>{items}</ul>")
        elif reasons == []:
            parts.append(
                "<p>No single signal moved it by more than two points: each is close to what "
                "is typical of the rated questions.</p>"
            )
        else:
            parts.append(
                "<p>This model keeps no typical values to compare with, so it cannot say "
                "which signals moved the estimate.</p>"
            )
        used = result.values.get("n_features")
        if isinstance(used, int | float):
            parts.append(
                f"<p>From {int(used)} signals of the question, the key and the passage, "
                "weighed by a model fitted on how people rated such questions.</p>"
            )
        note = result.evidence.get("note")
        if note:
            parts.append(f"<p><i>{esc(str(note))}</i></p>")
        return "".join(parts)

    @classmethod
    def chip_meaning(cls, result: ScoreResult) -> str:
        kind = result.evidence.get("estimate")
        what = type_estimate.WHAT.get(str(kind))
        return f"{what} (measured on labelled cloze tests)." if what else cls.description

    @classmethod
    def chip_reason(cls, result: ScoreResult) -> str | None:
        reasons = result.evidence.get("reasons") or []
        if not reasons or not isinstance(reasons[0], dict):
            return None
        return str(reasons[0].get("text") or "") or None

    @classmethod
    def features(cls, result: ScoreResult) -> dict[str, float | None]:
        # The signals it computed itself, for an item scored without the signals metric.
        signals = result.evidence.get("signals")
        if not isinstance(signals, dict):
            return {}
        return {f"sig.{name}": number(signals.get(name)) for name in ALL_SIGNALS}

    #: Valid ranges of the numeric options (checked with the settings, issue 28).
    option_ranges: ClassVar[dict[str, tuple[float, float]]] = {"weak_threshold": (0.0, 1.0)}
    defaults: ClassVar[dict[str, Any]] = {
        # Chosen on QGEval + the NACo variants out of fold (docs/evaluation.md, "Flags") on
        # the earlier logistic model: below 0.4, 67% of QGEval items were rejected by people
        # (0.5: 60%, 0.3: 75%), the highest threshold clearly above the 0.6 a warning needs.
        # On the shipped blend (bench/judgement.py, 2026-11-29): 0.4: 77.5% of 346; 0.5:
        # 69.6% of 529; 0.3: 85.8% of 183. A higher threshold is a decision to measure on the
        # standard profile too, not made here.
        "weak_threshold": 0.4,
    }

    def not_applicable(self, item: Item) -> str | None:
        return SignalsMetric().not_applicable(item)

    def cache_identity(self, ctx: MetricContext) -> Any:
        """The model file it predicts with (a refit or a new shipped model scores afresh)."""
        import hashlib

        from quizsmith.quality.overall_model import active_model_path

        path = active_model_path(ctx.settings.profile)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.exists() else None
        types = type_estimate.calibration_path()
        calibrated = hashlib.sha256(types.read_bytes()).hexdigest()[:16] if types.exists() else None
        # "evidence": what the result carries beside the number; 2 since the option checks
        # and the reader's disputed key (issue 45), which results cached before lack.
        return {
            "signals_version": SIGNALS_VERSION,
            "model": digest,
            "types": calibrated,
            "evidence": OVERALL_EVIDENCE_VERSION,
        }

    def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
        from quizsmith.quality.overall_model import load_active_model, signals_profile

        signals = item.scores.get("signals")
        if signals is None or not signals.scored or not _current(signals, item, ctx):
            signals = SignalsMetric(self._quick_part(ctx)).score(item, ctx)
            if not signals.scored:
                return ScoreResult.not_scored(self.name, signals.not_scored_reason or "no signals")
        profile = ctx.settings.profile
        if item.type in type_estimate.TYPES:
            estimated = type_estimate.estimate(item, signals, profile)
            if estimated.scored and (checks := option_checks.item_evidence(item)) is not None:
                estimated.evidence[option_checks.EVIDENCE_KEY] = checks
            return estimated
        scores = dict(item.scores)
        scores["signals"] = signals
        result = load_active_model(profile).predict(scores)
        serving = signals_profile(profile)
        result.model_config["profile"] = profile
        result.model_config["signals_from"] = serving
        if result.scored and serving != profile:
            result.evidence["note"] = (
                f"Estimated from the {serving} models' signals: no overall model has been "
                f"fitted for the {profile} profile yet, so the one measured on the {serving} "
                "models is used as it was measured."
            )
        if result.scored:
            result.evidence["signals"] = dict(signals.values)
            result.evidence["signals_evidence"] = signals.evidence
            # Flags and the chip see only the result, not the item's key.
            answer = signals.evidence.get("reader_answer")
            if isinstance(answer, str) and answers_more(answer, item.key):
                result.evidence["reader_answers_more"] = True
            if disputes_key(answer, item.key, signals.values.get("reader_f1")):
                result.evidence["reader_disputes_key"] = True
            if item.type == "mcq":
                # What the one-distractor flag is raised from (flags see only the result).
                result.evidence["distractors"] = len(item.distractors)
                if (checks := option_checks.item_evidence(item)) is not None:
                    result.evidence[option_checks.EVIDENCE_KEY] = checks
        return result

    def _quick_part(self, ctx: MetricContext) -> LikelihoodsRead | None:
        """Where a live chip listens: report the light model's estimate on the likelihood
        signals as a part, while the 1.5B reader still reads (quality/quick_estimate.py)."""
        if ctx.report_part is None:
            return None  # batch scoring, ranking, reading ahead: nobody would see it

        def report(values: Mapping[str, float | None]) -> None:
            from quizsmith.quality.quick_estimate import quick_estimate, quick_estimate_text

            value = quick_estimate(values)
            if value is not None:
                ctx.part(self.name, quick_estimate_text(value))

        return report

    def flags(self, result: ScoreResult, options: dict[str, Any]) -> list[Flag]:
        if not result.scored or result.value is None:
            return []
        # What the wrong answers say, whatever the estimate (quality/option_checks.py).
        read = option_checks.evidence_flags(result.evidence, self.name)
        if result.evidence.get("estimate"):
            return type_estimate.flags(result, self.name) + read
        found = read
        signals = result.evidence.get("signals") or {}
        if signals.get("is_question") == 0.0:
            found.append(
                Flag(
                    "no-question-form",
                    "This does not read as a question: no question mark, and it does not "
                    "start with a question word.",
                    self.name,
                )
            )
        answer = (result.evidence.get("signals_evidence") or {}).get("reader_answer")
        if signals.get("reader_f1") == 0.0 and isinstance(answer, str):
            found.append(reader_flag(answer, signals.get("reader_key_lp"), self.name))
        elif result.evidence.get("reader_answers_more") and isinstance(answer, str):
            found.append(answers_more_flag(answer, self.name))
        distractors = result.evidence.get("distractors")
        if isinstance(distractors, int) and (warning := distractor_warning("mcq", distractors)):
            found.append(Flag(ONE_DISTRACTOR, warning, self.name))
        limit = float(options.get("weak_threshold", 0.4))
        if result.value < limit:
            found.append(
                Flag(
                    "low-overall",
                    f"Likely to be rejected: estimated chance raters accept it "
                    f"{below_text(result.value, limit)}.",
                    self.name,
                )
            )
        return found


def _current(result: ScoreResult, item: Item, ctx: MetricContext) -> bool:
    """A stored signals result counts only for the same item text, models and version."""
    if result.evidence.get("item") != item_fingerprint(item):
        return False
    try:
        return result.model_config == signals_config(ctx)
    except QuizsmithError:
        return False
