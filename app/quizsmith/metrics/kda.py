"""KDA: knowledge-dependent answerability (kda paper, section 3).

Why this module is long: the KDA formulas and KdaMetric, whose compute, distractor checks and
flags all read the same per-solver rows, belong together; the solvers are in solvers.py.

A good multiple-choice item is one that students answer correctly once they know the fact it
tests. Simulated students (`solvers`: each bundled LLM asked in two styles, plus an embedding
solver) answer the item twice: without any text (r^q, P_wof) and with the target fact put in
front of the question (r^{q+f}, P_wf). Then, for solvers j,

    KDA_disc = sum_j (1 - r_j^q) r_j^{q+f} / sum_j (1 - r_j^q)                      (eq. 2)
    KDA_cont = sum_j P(R_j^q = 0) P(R_j^{q+f} = 1) / sum_j P(R_j^q = 0)              (eq. 3)

with r = 1 when the key gets the largest probability, P(R^q = 0) = 1 - P_wof(key) and
P(R^{q+f} = 1) = P_wf(key). The headline value is KDA_cont (0-1), which the paper finds more
stable than KDA_disc (whose denominator is 0 when every solver is right without the fact).

Deviation from the paper: its 18 solvers were 0.1-3B models fine-tuned on RACE; ours are two
135M/270M models used zero-training (few-shot prompt) and a sentence-embedding model, so the
absolute values are noisier (its Table 5: fewer and smaller solvers correlate less with human
KDA). API models join through the "solvers" role when they give log-probabilities.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

from quizsmith.domain import Flag, Item, ScoreResult
from quizsmith.errors import STOPS_THE_JOB, QuizsmithError
from quizsmith.metrics import evidence_html
from quizsmith.metrics.base import Metric, MetricContext, below_text
from quizsmith.metrics.display import Threshold, number
from quizsmith.metrics.solvers import (
    EmbeddingSolver,
    Solver,
    SolverOutput,
    SolverSet,
    presented,
    solve_windowed,
    solver_seed,
    solvers_from_options,
    split_sentences,
)
from quizsmith.metrics.squad import normalize_answer

#: Words that do not count as "the key's words" when looking for the answer in the stem.
_STOPWORD_TEXT = (
    "a an the of in on at to for from by with and or is are was were be been it its this that "
    "these those as which who whom what when where why how do does did not no"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split(" "))


def kda_disc(p_wof_correct: Sequence[bool], p_wf_correct: Sequence[bool]) -> float | None:
    """Equation 2. None (undefined) when every solver is right without the fact."""
    _same_length(p_wof_correct, p_wf_correct)
    denominator = sum(1 for r in p_wof_correct if not r)
    if denominator == 0:
        return None
    numerator = sum(1 for r, rf in zip(p_wof_correct, p_wf_correct, strict=True) if not r and rf)
    return numerator / denominator


def kda_cont(p_wof_key: Sequence[float], p_wf_key: Sequence[float]) -> float | None:
    """Equation 3 with P(R^q=0) = 1 - P_wof(key) and P(R^{q+f}=1) = P_wf(key).
    None when the denominator is 0 (every solver gives the key probability 1 without the fact)."""
    _same_length(p_wof_key, p_wf_key)
    for p in (*p_wof_key, *p_wf_key):
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"a probability must be in [0, 1]; got {p}.")
    wrong = [1.0 - p for p in p_wof_key]
    denominator = sum(wrong)
    if denominator <= 0.0:
        return None
    value = sum(w * pf for w, pf in zip(wrong, p_wf_key, strict=True)) / denominator
    return min(1.0, max(0.0, value))  # float rounding only; the formula is a weighted mean


def _same_length(a: Sequence[Any], b: Sequence[Any]) -> None:
    if len(a) != len(b):
        raise ValueError("one value per solver is needed in both conditions.")
    if not a:
        raise ValueError("KDA needs at least one solver.")


def fact_for(item: Item) -> tuple[str, str]:
    """The text shown as "the fact": the item's target fact; else the passage sentences that
    contain the key; else the whole passage (windowed by the solvers). Returns (text, source)."""
    if item.target_fact.strip():
        return item.target_fact.strip(), "target fact"
    passage = item.passage.text if item.passage else ""
    key = normalize_answer(item.key)
    if key:
        hits = [s for s in split_sentences(passage) if key in normalize_answer(s)]
        if hits:
            return " ".join(hits), "passage sentences containing the key"
    return passage.strip(), "passage (no target fact recorded)"


def _interpretation(cont: float | None, options: dict[str, Any]) -> str:
    return evidence_html.kda_reading(
        cont, float(options["weak_below"]), float(options["good_from"])
    )


def content_words(text: str) -> list[str]:
    return [w for w in normalize_answer(text).split() if w not in STOPWORDS]


class KdaMetric(Metric):
    name: ClassVar[str] = "kda"
    title: ClassVar[str] = "KDA"
    description: ClassVar[str] = (
        "Knowledge-dependent answerability: how much knowing the tested fact helps simulated "
        "students pick the key (0-1, higher is better)."
    )
    value_range: ClassVar[tuple[float, float]] = (0.0, 1.0)
    needs_options: ClassVar[bool] = True
    item_types: ClassVar[tuple[str, ...]] = ("mcq", "tf")
    order: ClassVar[int] = 20
    evidence_title: ClassVar[str] = "KDA"
    chip_label: ClassVar[str] = "KDA"
    chart_label: ClassVar[str] = "KDA_cont"
    # Not in the estimate's live set (issue 26): neither profile's shipped overall model reads
    # it. A progressive chip after the estimate (issue 45, point 3, which asks for it on the
    # standard profile and on multiple-choice items): there it judges the wrong answers, which
    # the estimate does not read; elsewhere it stays on request.
    live_profiles: ClassVar[tuple[str, ...]] = ("standard",)
    live_item_types: ClassVar[tuple[str, ...] | None] = ("mcq",)
    batch_by_default: ClassVar[bool] = True
    # The overall estimate was fitted on questions, so KDA ranks true/false statements.
    rank_item_types: ClassVar[tuple[str, ...]] = ("tf",)
    thresholds: ClassVar[tuple[Threshold, ...]] = (
        Threshold(
            "weak_below",
            "KDA: warn that knowing the fact does not help below",
            "Items under this KDA are flagged weak and shown red (the paper: reviewers agree "
            "items under 0.3 are bad).",
        ),
        Threshold(
            "good_from",
            "KDA: green from",
            "Items from this KDA on are shown green (the paper: 82% of items at 0.8 or more "
            "were accepted by teachers).",
        ),
        Threshold(
            "two_correct_share",
            "KDA: warn 'two options may be correct' when this share of students picks a "
            "distractor with the fact",
            "Share (0-1) of the model students who still choose the same wrong option when "
            "they are given the fact.",
        ),
        Threshold(
            "never_chosen_below",
            "KDA: hint 'distractor never chosen' below this probability",
            "A distractor no model student picks, with a mean probability under this, is "
            "reported as not doing its job.",
        ),
    )
    flag_codes: ClassVar[tuple[str, ...]] = (
        "kda-weak",
        "answerable-without-passage",
        "two-options-correct",
        "distractor-never-chosen",
        "key-in-stem",
    )
    subscores: ClassVar[tuple[str, ...]] = ("kda_disc",)
    feature_names: ClassVar[tuple[str, ...]] = ("kda.cont", "kda.disc")

    @classmethod
    def chip_level(cls, result: ScoreResult, options: dict[str, Any], severities: set[str]) -> str:
        # Colours from the paper's own cut-offs (the thresholds above), hints aside.
        value = float(result.value or 0.0)
        if value < float(options.get("weak_below", 0.3)):
            return "bad"
        if value >= float(options.get("good_from", 0.8)) and not severities - {"info"}:
            return "good"
        return "ok"

    @classmethod
    def evidence_html(cls, result: ScoreResult) -> str:
        return evidence_html.kda(result)

    @classmethod
    def features(cls, result: ScoreResult) -> dict[str, float | None]:
        return {"kda.cont": number(result.value), "kda.disc": number(result.values.get("kda_disc"))}

    defaults: ClassVar[dict[str, Any]] = {
        # Section 6.4: reviewers agree that items below 0.3 are bad (kappa > 0.3).
        "weak_below": 0.3,
        # Section 4.3: 82% of items at or above 0.8 were accepted by teachers (shown as info).
        "good_from": 0.8,
        # "Two options may be correct" when at least this share of the solvers picks the same
        # distractor even with the fact (section 6.1, multiple answers). Half, so that one
        # noisy tiny solver alone does not raise it.
        "two_correct_share": 0.5,
        # A distractor no solver picks in either condition and whose mean probability without
        # the fact is below this is "never chosen" (non-functional). 0.05 is the usual item-
        # analysis rule (a distractor chosen by fewer than 5% of examinees); not from the paper.
        "never_chosen_below": 0.05,
        # Prompt styles per LLM and whether the embedding solver votes (design: both + yes).
        "styles": ["letter", "likelihood"],
        "embedding_solver": True,
        # Sentences shared by consecutive windows of a long fact/passage.
        "window_overlap": 1,
    }

    #: Thresholds are shares and probabilities (settings are range-checked when loaded).
    option_ranges: ClassVar[dict[str, tuple[float, float]]] = {
        "weak_below": (0.0, 1.0),
        "good_from": (0.0, 1.0),
        "two_correct_share": (0.0, 1.0),
        "never_chosen_below": (0.0, 1.0),
        "window_overlap": (0, 20),
    }

    def not_applicable(self, item: Item) -> str | None:
        # The fact is what KDA needs; a passage is only its fallback source.
        if item.type not in self.item_types:
            return self.type_not_applicable(item.type)
        if not item.target_fact.strip() and not (item.passage and item.passage.text.strip()):
            return "The item has no passage."
        if len(item.options) < 2:
            return "The item has no answer options."
        return self.too_many_options(item)

    def solvers(self, ctx: MetricContext, options: dict[str, Any]) -> SolverSet:
        return solvers_from_options(ctx, options)

    def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
        options = ctx.options(self)
        ordered = sorted(item.options, key=lambda o: o.position)
        texts = [o.text for o in ordered]
        keys = [i for i, o in enumerate(ordered) if o.is_key]
        if len(keys) != 1:
            return ScoreResult.not_scored(
                self.name, f"Exactly one option must be the key; {len(keys)} are."
            )
        key = keys[0]
        fact, fact_source = fact_for(item)
        solver_set = self.solvers(ctx, options)
        skipped = dict(solver_set.skipped)
        pairs: list[tuple[Solver, SolverOutput, SolverOutput]] = []
        for solver in solver_set.solvers:
            seed = solver_seed(ctx.seed, solver.label + "\n" + item.stem)
            try:
                ctx.cancel.raise_if_cancelled()
                wof = solver.probabilities(None, item.stem, texts, seed)
                ctx.cancel.raise_if_cancelled()
                # Same seed, so the same presented order in both conditions: the difference
                # between them is the fact, not a reshuffle.
                wf = solve_windowed(
                    solver,
                    fact,
                    item.stem,
                    texts,
                    seed,
                    best=lambda out: out.probs[key],
                    check_cancel=ctx.cancel.raise_if_cancelled,
                )
            except STOPS_THE_JOB:
                raise
            except QuizsmithError as exc:
                skipped[solver.label] = str(exc)
                continue
            pairs.append((solver, wof, wf))
        config = {"solvers": [s.config() for s, _, _ in pairs], "seed": ctx.seed}
        if not pairs:
            reasons = "; ".join(f"{k}: {v}" for k, v in skipped.items()) or "none configured"
            return ScoreResult.not_scored(
                self.name, f"No solver could answer ({reasons}).", model_config=config
            )
        if self._only_the_embedding_answered(solver_set, pairs, ctx, options):
            # The embedding solver alone is a similarity measure, not a student: a number
            # from it would be stored as KDA with the model failures only in the evidence.
            reasons = "; ".join(
                f"{k}: {v}" for k, v in skipped.items() if k not in {s.label for s, _, _ in pairs}
            )
            return ScoreResult.not_scored(
                self.name,
                f"Every model solver failed, and the embedding solver alone is not KDA "
                f"({reasons}).",
                model_config=config,
                evidence={"skipped_solvers": skipped},
            )
        wof_right = [w.correct(key) for _, w, _ in pairs]
        wf_right = [f.correct(key) for _, _, f in pairs]
        p_wof = [w.probs[key] for _, w, _ in pairs]
        p_wf = [f.probs[key] for _, _, f in pairs]
        disc = kda_disc(wof_right, wf_right)
        cont = kda_cont(p_wof, p_wf)
        evidence = {
            "fact": fact,
            "fact_source": fact_source,
            "solvers": [self._row(s, w, f, texts, key) for s, w, f in pairs],
            "distractors": self._distractors(pairs, texts, key),
            "key_words_in_stem": self._key_in_stem(item),
            "skipped_solvers": skipped,
            "interpretation": _interpretation(cont, options),
            "order_note": (
                "Letter-choice solvers saw the options in the shuffled order shown (same order "
                "with and without the fact); likelihood and embedding solvers never see a list."
            ),
        }
        values: dict[str, Any] = {
            "kda_cont": cont,
            "kda_disc": disc,
            "n_solvers": len(pairs),
            "n_right_without_fact": sum(wof_right),
            "n_right_with_fact": sum(wf_right),
            "answerable_without_fact": all(wof_right),
        }
        if disc is None:
            values["kda_disc_reason"] = (
                "undefined: every solver is right without the fact (answerable without the fact)"
            )
        if cont is None:
            return ScoreResult.not_scored(
                self.name,
                "KDA_cont is undefined: every solver is certain of the key without the fact "
                "(answerable without the fact).",
                model_config=config,
                evidence={**evidence, "values": values},
            )
        return ScoreResult(
            metric=self.name, value=cont, values=values, evidence=evidence, model_config=config
        )

    @staticmethod
    def _only_the_embedding_answered(
        solver_set: SolverSet,
        pairs: list[tuple[Solver, SolverOutput, SolverOutput]],
        ctx: MetricContext,
        options: dict[str, Any],
    ) -> bool:
        if any(not isinstance(s, EmbeddingSolver) for s, _, _ in pairs):
            return False
        embedding_ref = ctx.settings.role("embeddings") if options.get("embedding_solver") else ""
        asked_models = any(not isinstance(s, EmbeddingSolver) for s in solver_set.solvers)
        return asked_models or any(ref != embedding_ref for ref in solver_set.skipped)

    @staticmethod
    def _row(
        solver: Solver, wof: SolverOutput, wf: SolverOutput, texts: list[str], key: int
    ) -> dict[str, Any]:
        return {
            "solver": solver.label,
            "without_fact": {t: round(p, 4) for t, p in zip(texts, wof.probs, strict=True)},
            "with_fact": {t: round(p, 4) for t, p in zip(texts, wf.probs, strict=True)},
            "p_key_without_fact": wof.probs[key],
            "p_key_with_fact": wf.probs[key],
            "right_without_fact": wof.correct(key),
            "right_with_fact": wf.correct(key),
            "choice_without_fact": texts[wof.choice],
            "choice_with_fact": texts[wf.choice],
            "order": presented(wof, texts),
            "raw_without_fact": list(wof.raw),
            "raw_with_fact": list(wf.raw),
            "window": f"{wf.window + 1} of {wf.n_windows}",
        }

    @staticmethod
    def _distractors(
        pairs: list[tuple[Solver, SolverOutput, SolverOutput]], texts: list[str], key: int
    ) -> list[dict[str, Any]]:
        n = len(pairs)
        out = []
        for i, text in enumerate(texts):
            if i == key:
                continue
            out.append(
                {
                    "option": text,
                    "chosen_without_fact": sum(w.choice == i for _, w, _ in pairs),
                    "chosen_with_fact": sum(f.choice == i for _, _, f in pairs),
                    "mean_p_without_fact": sum(w.probs[i] for _, w, _ in pairs) / n,
                    "mean_p_with_fact": sum(f.probs[i] for _, _, f in pairs) / n,
                    "n_solvers": n,
                }
            )
        return out

    @staticmethod
    def _key_in_stem(item: Item) -> dict[str, Any]:
        key_words = content_words(item.key)
        stem_words = set(content_words(item.stem))
        found = [w for w in key_words if w in stem_words]
        # Whole-key match as well: a key like "The Who" is all stop words.
        key_norm = normalize_answer(item.key)
        whole = bool(key_norm) and bool(
            re.search(rf"\b{re.escape(key_norm)}\b", normalize_answer(item.stem))
        )
        return {
            "key_words": key_words,
            "in_stem": found,
            "all_in_stem": whole or (bool(key_words) and len(found) == len(key_words)),
        }

    def flags(self, result: ScoreResult, options: dict[str, Any]) -> list[Flag]:
        merged = {**self.defaults, **options}
        flags: list[Flag] = []
        value = result.value
        values, evidence = result.values, result.evidence
        if value is not None and value < float(merged["weak_below"]):
            flags.append(
                self._flag(
                    "kda-weak",
                    "Weak: knowing the fact does not help (KDA_cont "
                    f"{below_text(value, float(merged['weak_below']))}).",
                )
            )
        if values.get("answerable_without_fact"):
            flags.append(
                self._flag(
                    "answerable-without-passage",
                    "Answerable without the passage: every solver picks the key without the "
                    "fact (KDA_disc undefined).",
                )
            )
        share = float(merged["two_correct_share"])
        never = float(merged["never_chosen_below"])
        for d in evidence.get("distractors", []):
            n = max(1, int(d.get("n_solvers", 1)))
            if d["chosen_with_fact"] / n >= share:
                flags.append(
                    self._flag(
                        "two-options-correct",
                        f"Two options may be correct: {d['chosen_with_fact']} of {n} solvers "
                        f"choose \u201c{d['option']}\u201d even with the fact.",
                    )
                )
            if (
                d["chosen_without_fact"] == 0
                and d["chosen_with_fact"] == 0
                and d["mean_p_without_fact"] < never
            ):
                flags.append(
                    self._flag(
                        "distractor-never-chosen",
                        f"Distractor \u201c{d['option']}\u201d is never chosen (mean probability "
                        f"{d['mean_p_without_fact']:.2f} without the fact).",
                        "info",
                    )
                )
        stem = evidence.get("key_words_in_stem") or {}
        if stem.get("all_in_stem"):
            words = ", ".join(stem.get("in_stem") or stem.get("key_words") or [])
            flags.append(
                self._flag(
                    "key-in-stem",
                    f"The key's words appear in the question ({words or 'the whole key'}).",
                )
            )
        return flags

    def _flag(self, code: str, message: str, severity: str = "warning") -> Flag:
        return Flag(code, message, metric=self.name, severity=severity)
