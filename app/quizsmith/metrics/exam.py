"""EXAM and n-EXAM (exam paper, section 3.1): grade a text by how many exam questions a Q/A
system answers correctly using only that text.

Why this module is long: EXAM, n-EXAM, the handout check and ExamMetric all rest on one Q/A
function (`answer_mcq`) and its reports; the solvers and the windowing are in solvers.py.

    EXAM(text) = correct answers / number of exam questions      (unanswered counts as wrong)
    n-EXAM     = sum_topics EXAM(text_t) / sum_topics EXAM(gold_t)      (section 3.1.3)

n-EXAM is the paper's ratio of sums over topics (queries), not a mean of per-topic ratios:
with the same topic set it equals macro-averaged EXAM of the texts divided by macro-averaged
EXAM of the gold texts, and a topic whose gold EXAM is 0 does not divide by zero. A topic
without a text counts as EXAM 0 ("skipped queries are counted as zero score", 3.1.2). It can
exceed 1 when a text states the answers more plainly than the gold text (3.1.3).

The Q/A system: the paper used one trained multiple-choice reader that may leave a question
unanswered. Ours is the mean of the KDA solvers' option probabilities (solvers.py: the same
prompts) over the text; long texts are windowed and each solver keeps the window it is most
confident in (it never sees the key). It abstains when the ensemble does not clearly prefer
one option (see `answer_mcq`). Questions must be multiple choice or true/false, as in the
paper; short-answer and cloze items are "not applicable".

Uses in the app: per item, "answerable from its passage" (ExamMetric); for a handout or a
summary, `check_text` gives EXAM, n-EXAM against the items' own passages, and the questions
the text fails to answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from quizsmith.domain import CHOICE_TYPES, Flag, Item, ScoreResult
from quizsmith.errors import STOPS_THE_JOB, QuizsmithError
from quizsmith.metrics import evidence_html
from quizsmith.metrics.base import Metric, MetricContext
from quizsmith.metrics.display import number
from quizsmith.metrics.solvers import (
    Solver,
    SolverOutput,
    SolverSet,
    presented,
    solve_windowed,
    solver_seed,
    solvers_from_options,
)

#: Abstain when the best option's mean probability leads the second by less than this: the
#: text did not decide between them. Measured with the default ensemble on 6 SQuAD MCQs: the
#: lead was 0.11-0.46 on the items' own passages (all right) and 0.05-0.43 on unrelated
#: passages (half right, by elimination of off-topic distractors). 0.05 keeps every own-passage
#: answer and turns near-ties into abstentions; a higher margin would start to reject answers
#: the passage does support, since tiny models' confidences are low even when right.
DEFAULT_MIN_MARGIN = 0.05
#: ... or when the best option's probability is below this (0 = only the margin rule). Kept
#: as an option for larger Q/A models whose confidences are calibrated.
DEFAULT_MIN_CONFIDENCE = 0.0


@dataclass(frozen=True)
class Answer:
    """The Q/A system's answer: `choice` indexes the item's options in position order, None
    when it abstained (then `reason` says why)."""

    choice: int | None
    confidence: float
    margin: float
    probs: tuple[float, ...]
    per_solver: tuple[SolverOutput, ...] = ()
    reason: str = ""
    skipped: dict[str, str] = field(default_factory=dict)


def option_texts(item: Item) -> tuple[list[str], int]:
    if item.type not in CHOICE_TYPES or len(item.options) < 2:
        raise ValueError(f"EXAM needs multiple-choice items; {item.type} item {item.stem!r}.")
    ordered = sorted(item.options, key=lambda o: o.position)
    keys = [i for i, o in enumerate(ordered) if o.is_key]
    if len(keys) != 1:
        raise ValueError(f"exactly one option must be the key; {len(keys)} are ({item.stem!r}).")
    return [o.text for o in ordered], keys[0]


def answer_mcq(
    text: str,
    item: Item,
    qa_solvers: Sequence[Solver],
    *,
    min_margin: float = DEFAULT_MIN_MARGIN,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
    seed: int = 0,
    check_cancel: Callable[[], None] = lambda: None,
) -> Answer:
    """Answer `item` from `text` alone with the mean of the solvers' probabilities.

    Abstention (the paper's Q/A system leaves a question unanswered when no option has support
    in the text): abstain when the best option leads the second by less than `min_margin`, or
    its probability is below `min_confidence`. A solver that fails (model missing, text
    unusable) is left out and named in `skipped`; if all fail, ProviderError-like errors
    propagate as QuizsmithError."""
    if not text.strip():
        raise ValueError("there is no text to answer from.")
    texts, _ = option_texts(item)
    outputs: list[SolverOutput] = []
    skipped: dict[str, str] = {}
    last_error: QuizsmithError | None = None
    for solver in qa_solvers:
        check_cancel()
        try:
            outputs.append(
                solve_windowed(
                    solver,
                    text,
                    item.stem,
                    texts,
                    solver_seed(seed, solver.label + "\n" + item.stem),
                    best=lambda out: max(out.probs),
                    check_cancel=check_cancel,
                )
            )
        except STOPS_THE_JOB:
            raise
        except QuizsmithError as exc:
            skipped[solver.label] = str(exc)
            last_error = exc
    if not outputs:
        if last_error is not None:
            raise last_error
        raise ValueError("EXAM needs at least one Q/A solver.")
    n = len(outputs)
    probs = tuple(sum(o.probs[i] for o in outputs) / n for i in range(len(texts)))
    ranked = sorted(range(len(texts)), key=lambda i: probs[i], reverse=True)
    best, second = ranked[0], ranked[1]
    margin = probs[best] - probs[second]
    reason = ""
    if margin < min_margin:
        reason = (
            f"abstained: \u201c{texts[best]}\u201d leads \u201c{texts[second]}\u201d by only "
            f"{margin:.3f} (< {min_margin})"
        )
    elif probs[best] < min_confidence:
        reason = f"abstained: confidence {probs[best]:.3f} < {min_confidence}"
    return Answer(
        choice=None if reason else best,
        confidence=probs[best],
        margin=margin,
        probs=probs,
        per_solver=tuple(outputs),
        reason=reason,
        skipped=skipped,
    )


@dataclass
class ExamReport:
    exam: float
    n_correct: int
    n: int
    #: The questions the text fails to answer: {question, key, answered, reason}.
    failed: list[dict[str, Any]] = field(default_factory=list)
    #: Items that are not multiple choice (not part of n).
    not_applicable: list[str] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)


def exam_score(
    text: str,
    items: Sequence[Item],
    qa_solvers: Sequence[Solver],
    *,
    min_margin: float = DEFAULT_MIN_MARGIN,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
    seed: int = 0,
    check_cancel: Callable[[], None] = lambda: None,
) -> ExamReport:
    """EXAM(text) = correct / number of (multiple-choice) questions; abstentions are wrong."""
    if not items:
        raise ValueError("EXAM needs at least one exam question; the item list is empty.")
    choice_items = [i for i in items if i.type in CHOICE_TYPES and len(i.options) >= 2]
    not_applicable = [i.stem for i in items if i not in choice_items]
    if not choice_items:
        raise ValueError("EXAM needs multiple-choice or true/false items; none were given.")
    correct = 0
    failed: list[dict[str, Any]] = []
    answers: list[Answer] = []
    for item in choice_items:
        answer = answer_mcq(
            text,
            item,
            qa_solvers,
            min_margin=min_margin,
            min_confidence=min_confidence,
            seed=seed,
            check_cancel=check_cancel,
        )
        answers.append(answer)
        texts, key = option_texts(item)
        if answer.choice == key:
            correct += 1
            continue
        failed.append(
            {
                "id": item.id,
                "question": item.stem,
                "key": texts[key],
                "answered": None if answer.choice is None else texts[answer.choice],
                "reason": answer.reason or "answered a different option",
            }
        )
    n = len(choice_items)
    return ExamReport(correct / n, correct, n, failed, not_applicable, answers)


def n_exam_from_scores(system: Mapping[str, float], gold: Mapping[str, float]) -> float | None:
    """Section 3.1.3: sum over topics of EXAM(text) / sum of EXAM(gold text). Topics are those
    of `gold`; one missing from `system` counts 0. None when the gold texts score 0 in total
    (the ratio is undefined)."""
    if not gold:
        raise ValueError("n-EXAM needs at least one topic with a gold text.")
    for name, scores in (("system", system), ("gold", gold)):
        for topic, value in scores.items():
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} EXAM for {topic!r} must be in [0, 1]; got {value}.")
    denominator = sum(gold.values())
    if denominator == 0:
        return None
    return sum(system.get(topic, 0.0) for topic in gold) / denominator


@dataclass
class NExamReport:
    n_exam: float | None
    exam_by_topic: dict[str, float]
    gold_by_topic: dict[str, float]
    #: Macro-average of EXAM over topics (3.1.2), for the texts and the gold texts.
    exam: float
    gold_exam: float
    reports: dict[str, ExamReport] = field(default_factory=dict)
    reason: str = ""


def n_exam(
    texts_by_topic: Mapping[str, str],
    gold_by_topic: Mapping[str, str],
    items_by_topic: Mapping[str, Sequence[Item]],
    qa_solvers: Sequence[Solver],
    **kwargs: Any,
) -> NExamReport:
    """EXAM of each topic's text and gold text over that topic's items, and n-EXAM."""
    if not gold_by_topic:
        raise ValueError("n-EXAM needs at least one topic with a gold text.")
    missing = [t for t in gold_by_topic if not items_by_topic.get(t)]
    if missing:
        raise ValueError(f"no exam questions for topic(s): {', '.join(missing)}.")
    system: dict[str, float] = {}
    gold: dict[str, float] = {}
    reports: dict[str, ExamReport] = {}
    for topic, gold_text in gold_by_topic.items():
        items = items_by_topic[topic]
        gold[topic] = exam_score(gold_text, items, qa_solvers, **kwargs).exam
        text = texts_by_topic.get(topic, "")
        if text.strip():
            reports[topic] = exam_score(text, items, qa_solvers, **kwargs)
            system[topic] = reports[topic].exam
        else:
            system[topic] = 0.0  # a skipped topic counts as zero (3.1.2)
    value = n_exam_from_scores(system, gold)
    k = len(gold)
    return NExamReport(
        value,
        system,
        gold,
        sum(system.values()) / k,
        sum(gold.values()) / k,
        reports,
        "" if value is not None else "undefined: the gold texts answer no question",
    )


def check_text(
    text: str, items: Sequence[Item], qa_solvers: Sequence[Solver], **kwargs: Any
) -> tuple[ExamReport, float | None, float]:
    """Grade a handout or summary against bank items: (its EXAM report, n-EXAM against the
    items' own passages, the EXAM of those passages). The gold side answers each item from its
    own passage, so items from several passages can be checked against one handout."""
    report = exam_score(text, items, qa_solvers, **kwargs)
    gold_correct = 0
    gold_n = 0
    for item in items:
        if item.type not in CHOICE_TYPES or len(item.options) < 2:
            continue
        passage = item.passage.text if item.passage else ""
        gold_n += 1
        if not passage.strip():
            continue  # no source passage: the gold side cannot answer it
        answer = answer_mcq(passage, item, qa_solvers, **kwargs)
        gold_correct += int(answer.choice == option_texts(item)[1])
    gold_exam = gold_correct / gold_n
    return report, n_exam_from_scores({"text": report.exam}, {"text": gold_exam}), gold_exam


class ExamMetric(Metric):
    name: ClassVar[str] = "exam"
    title: ClassVar[str] = "EXAM"
    description: ClassVar[str] = (
        "Answerable from its passage: 1 when the Q/A system picks the key using only the "
        "item's passage, 0 when it picks another option or abstains."
    )
    value_range: ClassVar[tuple[float, float]] = (0.0, 1.0)
    needs_options: ClassVar[bool] = True
    # The paper's EXAM is multiple choice (3.2.2); free-text items have no options to pick.
    item_types: ClassVar[tuple[str, ...]] = ("mcq", "tf")
    order: ClassVar[int] = 30
    evidence_title: ClassVar[str] = "EXAM"
    chip_label: ClassVar[str] = "EXAM"
    chart_label: ClassVar[str] = "EXAM"
    batch_by_default: ClassVar[bool] = True
    flag_codes: ClassVar[tuple[str, ...]] = ("not-answerable-from-passage",)
    feature_names: ClassVar[tuple[str, ...]] = ("exam",)

    @classmethod
    def chip_text(cls, result: ScoreResult) -> str:
        return "yes" if float(result.value or 0.0) >= 1.0 else "no"

    @classmethod
    def chip_level(cls, result: ScoreResult, options: dict[str, Any], severities: set[str]) -> str:
        return "good" if float(result.value or 0.0) >= 1.0 else "bad"

    @classmethod
    def evidence_html(cls, result: ScoreResult) -> str:
        return evidence_html.exam(result)

    @classmethod
    def features(cls, result: ScoreResult) -> dict[str, float | None]:
        return {"exam": number(result.value)}

    #: Valid ranges of the numeric options (checked with the settings, issue 28).
    option_ranges: ClassVar[dict[str, tuple[float, float]]] = {
        "min_margin": (0.0, 1.0),
        "min_confidence": (0.0, 1.0),
    }
    defaults: ClassVar[dict[str, Any]] = {
        "min_margin": DEFAULT_MIN_MARGIN,
        "min_confidence": DEFAULT_MIN_CONFIDENCE,
        # Which models form the Q/A system: the "solvers" role (both bundled LLMs, both
        # styles). The single 135M "qa" model alone is close to chance on 4-option items;
        # EXAM only needs the same Q/A system for every text, which this keeps.
        "qa_role": "solvers",
        "styles": ["letter", "likelihood"],
        # The embedding solver reads at most ~256 word pieces; on whole passages it mostly
        # matches topic words, so it does not vote by default.
        "embedding_solver": False,
    }

    def qa_solvers(self, ctx: MetricContext, options: dict[str, Any]) -> SolverSet:
        return solvers_from_options(ctx, options, str(options.get("qa_role") or "solvers"))

    def required_qa_solvers(self, ctx: MetricContext, options: dict[str, Any]) -> SolverSet:
        """The Q/A solvers for grading a text; an error with the fix when none can run (a
        handout check without a Q/A model would report every question as unanswered)."""
        solver_set = self.qa_solvers(ctx, options)
        if not solver_set.solvers:
            raise QuizsmithError(
                f"No Q/A model is available ({_skipped_text(solver_set)}).",
                "Check the models of the 'solvers' role (Settings → Models, or "
                "`quizsmith models`).",
            )
        return solver_set

    def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
        options = ctx.options(self)
        solver_set = self.qa_solvers(ctx, options)
        config = {
            "solvers": [s.config() for s in solver_set.solvers],
            "seed": ctx.seed,
            "min_margin": float(options["min_margin"]),
            "min_confidence": float(options["min_confidence"]),
        }
        if not solver_set.solvers:
            return ScoreResult.not_scored(
                self.name,
                f"No Q/A model is available ({_skipped_text(solver_set)}).",
                model_config=config,
            )
        passage = item.passage.text if item.passage else ""
        try:
            texts, key = option_texts(item)
        except ValueError as exc:
            return ScoreResult.not_scored(self.name, str(exc), model_config=config)
        answer = answer_mcq(
            passage,
            item,
            solver_set.solvers,
            min_margin=float(options["min_margin"]),
            min_confidence=float(options["min_confidence"]),
            seed=ctx.seed,
            check_cancel=ctx.cancel.raise_if_cancelled,
        )
        right = answer.choice == key
        evidence = {
            "answered": None if answer.choice is None else texts[answer.choice],
            "key": texts[key],
            "reason": answer.reason
            or ("the key" if right else "the Q/A system chose another option"),
            "ensemble": {t: round(p, 4) for t, p in zip(texts, answer.probs, strict=True)},
            "solvers": [
                {
                    "solver": o.solver,
                    "probabilities": {t: round(p, 4) for t, p in zip(texts, o.probs, strict=True)},
                    "choice": texts[o.choice],
                    "order": presented(o, texts),
                    "window": f"{o.window + 1} of {o.n_windows}",
                }
                for o in answer.per_solver
            ],
            "skipped_solvers": {**solver_set.skipped, **answer.skipped},
        }
        values = {
            "answerable": right,
            "abstained": answer.choice is None,
            "confidence": answer.confidence,
            "margin": answer.margin,
            "n_solvers": len(answer.per_solver),
        }
        return ScoreResult(
            metric=self.name,
            value=1.0 if right else 0.0,
            values=values,
            evidence=evidence,
            model_config=config,
        )

    def flags(self, result: ScoreResult, options: dict[str, Any]) -> list[Flag]:
        if result.value is None or result.value >= 1.0:
            return []
        answered = result.evidence.get("answered")
        detail = (
            "the Q/A system abstained"
            if answered is None
            else f"the Q/A system chose \u201c{answered}\u201d"
        )
        return [
            Flag(
                "not-answerable-from-passage",
                f"Not answerable from its passage: {detail} (key \u201c"
                f"{result.evidence.get('key', '')}\u201d).",
                metric=self.name,
            )
        ]


def _skipped_text(solver_set: SolverSet) -> str:
    return "; ".join(f"{k}: {v}" for k, v in solver_set.skipped.items()) or "none configured"
