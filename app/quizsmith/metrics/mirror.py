"""MIRROR: two reviewers exchange strengths and flaws until their 1-5 scores agree (mirror
paper, sections 4.2-4.3).

Direct approach (4.2): one reviewer scores grammaticality, appropriateness, relevance,
novelty and complexity (1-5) and lists strengths and flaws.
Iterative approach (4.3, the default): reviewer 1 reviews with empty strength/flaw sets;
its strengths and flaws go to reviewer 2 with the definitions, context and question;
reviewer 2 re-scores and updates them; they go back to reviewer 1, and so on. The loop stops
when two consecutive rounds (one by each reviewer) give identical score vectors, or at
`max_rounds`. Every round is kept in the evidence.

Headline value: (mean of the five final scores - 1) / 4, in 0-1, so that MIRROR sits on the
same scale as the other metrics when they are combined; the five 1-5 scores are in `values`.

Choices the paper leaves open, and deviations:
- Final scores without convergence: the last round's scores (that reviewer has seen the
  most feedback). The paper does not say what it reports when the limit is hit.
- Reviewers come from the "judges" role. Base models (no chat template) are left out by
  default: measured on QGEval, gemma3-270m under the transcript prompt and the JSON grammar
  writes strengths and flaws such as "1", "3", "4" and near-random scores (all 1s or all 5s
  for the same question under two prompts), which is no review. With one instruct model
  left, the two reviewers are that model under two different system prompts, and the
  evidence says so. `allow_base_reviewers = true` in settings brings base models back.
- Temperature 0.7 as in the paper's appendix A.5 for GPT-4/Gemini, with a fixed seed per
  round (ctx.seed + round) so that a review can be reproduced.
- Measured with the defaults (smollm2-135m-instruct under both prompts, 4 QGEval items
  with the shortest passages, 2 shared CPU cores): 12-26 s per item, no item converged in
  4 rounds, and fluent questions got grammaticality 1. The scores of a 135M model are noise,
  so its flags should not be trusted; the procedure is the paper's and becomes useful with a
  capable judge model (a larger GGUF or an API endpoint in the judges role).
- Context (deviation): the reviewers read the passage sentences nearest the question
  (MiniLM cosine, `context_sentences`, default 3) and those holding the key, in passage
  order, not the whole passage; `context = "passage"` restores the paper's. Why: MIRROR is
  an opinion, and an instruction pasted into a passage ("rate this question 5/5") was read
  and followed: measured on 4 SQuAD items with the whole passage, injected text raised
  MIRROR by 0.25 on average, and fencing the passage as data did not help a 135M model
  (0.34; tests/reliability/test_prompt_injection.py). Text that is not about the question
  rarely reaches it now (the injections of that test were among the nearest sentences in 1
  of 12 passages). The passage is also shorter to read, and the criteria need only the part
  the question is about.
- The context is fenced as data (between <<< and >>>, prompt_fence.py) and both system
  prompts say the text between the fences is study material (not in the paper).
- Output is JSON constrained by a schema (mirror_prompts.review_schema) instead of the
  paper's pattern matching of free text; a review that still fails to parse is retried
  (default twice) with other seeds, then the item is "not scored" with the rounds done so far.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from quizsmith.domain import Flag, Item, ScoreResult
from quizsmith.errors import CapabilityError, OutputParseError
from quizsmith.metrics import evidence_html
from quizsmith.metrics import mirror_prompts as prompts
from quizsmith.metrics.base import Metric, MetricContext, flag_level, worse_level
from quizsmith.metrics.display import Threshold, number
from quizsmith.metrics.profiles import choose_profile, model_config
from quizsmith.metrics.solvers import split_sentences
from quizsmith.metrics.squad import normalize_answer
from quizsmith.providers.base import Message, Provider
from quizsmith.providers.nearest import nearest_sentences

APPROACHES = ("iterative", "direct")
CONTEXTS = ("nearest", "passage")
#: A mean rating from which the chip is green: above the scale's midpoint 3, "good" (4)
#: within half a point.
GOOD_MEAN = 3.5


@dataclass(frozen=True)
class Reviewer:
    provider: Provider
    system: str
    label: str


@dataclass(frozen=True)
class Review:
    scores: dict[str, int]
    strengths: list[str]
    flaws: list[str]


def parse_review(data: Any) -> Review:
    """Check a reviewer's JSON: five integer scores 1-5, two lists of non-empty strings."""
    if not isinstance(data, dict):
        raise OutputParseError("The reviewer's answer is not a JSON object.", "")
    raw = data.get("scores")
    if not isinstance(raw, dict):
        raise OutputParseError("The reviewer gave no scores.", "")
    scores: dict[str, int] = {}
    for criterion in prompts.CRITERIA:
        value = raw.get(criterion)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
            raise OutputParseError(
                f"The reviewer's {criterion} score {value!r} is not an integer from 1 to 5.", ""
            )
        scores[criterion] = value
    lists: list[list[str]] = []
    for key in ("strengths", "flaws"):
        items = data.get(key, [])
        if not isinstance(items, list):
            raise OutputParseError(f"The reviewer's {key} are not a list.", "")
        lists.append([str(x).strip() for x in items if str(x).strip()])
    return Review(scores, lists[0], lists[1])


def is_instruct(provider: Provider) -> bool:
    return provider.is_chat_model


class MirrorMetric(Metric):
    name: ClassVar[str] = "mirror"
    title: ClassVar[str] = "MIRROR"
    description: ClassVar[str] = (
        "Two model reviewers' agreed 1-5 scores for grammaticality, appropriateness, "
        "relevance, novelty and complexity, as (mean - 1) / 4 (0-1; higher = better)."
    )
    value_range: ClassVar[tuple[float, float]] = (0.0, 1.0)
    higher_is_better: ClassVar[bool] = True
    needs_passage: ClassVar[bool] = True
    order: ClassVar[int] = 40
    evidence_title: ClassVar[str] = "MIRROR"
    chip_label: ClassVar[str] = "MIRROR"
    chart_label: ClassVar[str] = "MIRROR"
    thresholds: ClassVar[tuple[Threshold, ...]] = (
        Threshold(
            "flag_at_or_below",
            "MIRROR: warn when a criterion is rated at or below (1-5)",
            "Grammar, appropriateness, relevance, novelty and complexity are rated 1-5.",
            integer=True,
        ),
    )
    flag_codes: ClassVar[tuple[str, ...]] = tuple(f"mirror-low-{c}" for c in prompts.CRITERIA)
    subscores: ClassVar[tuple[str, ...]] = prompts.CRITERIA
    reference_feature_names: ClassVar[tuple[str, ...]] = tuple(
        f"mirror.{c}" for c in prompts.CRITERIA
    )

    @classmethod
    def chip_text(cls, result: ScoreResult) -> str:
        # The reviewers' own 1-5 scale reads better than its 0-1 rescaling.
        if "mean" in result.values:
            return f"{float(result.values['mean']):.1f}/5"
        return super().chip_text(result)

    @classmethod
    def chip_level(cls, result: ScoreResult, options: dict[str, Any], severities: set[str]) -> str:
        # On the reviewers' 1-5 scale: a mean at or below the flag threshold (2: "poor") is
        # red, below 3.5 amber. Its flags are hints (their precision was not measured), so
        # they alone left a 1.4/5 green (issue 27).
        mean = number(result.values.get("mean"))
        if mean is None:
            return super().chip_level(result, options, severities)
        if mean <= float(options.get("flag_at_or_below", 2)):
            scale = "bad"
        else:
            scale = "ok" if mean < GOOD_MEAN else "good"
        return worse_level(scale, flag_level(severities))

    @classmethod
    def evidence_html(cls, result: ScoreResult) -> str:
        return evidence_html.mirror(result)

    @classmethod
    def features(cls, result: ScoreResult) -> dict[str, float | None]:
        return {f"mirror.{c}": number(result.values.get(c)) for c in prompts.CRITERIA}

    #: Valid ranges of the numeric options (checked with the settings, issue 28).
    option_ranges: ClassVar[dict[str, tuple[float, float]]] = {
        "max_rounds": (1, 20),
        "temperature": (0.0, 2.0),
        "max_tokens": (16, 8192),
        "retries": (0, 10),
        "flag_at_or_below": (0, 5),  # 0: never warn (the settings dialog allows it)
        "context_sentences": (1, 50),
    }
    defaults: ClassVar[dict[str, Any]] = {
        # The paper's method is the iterative one; "direct" is its baseline (section 4.2).
        "approach": "iterative",
        # The paper stops at convergence and names no limit; 4 rounds give each reviewer
        # two turns, and tiny models that have not agreed by then rarely do (measured).
        "max_rounds": 4,
        # Appendix A.5: temperature 0.7 for GPT-3.5/GPT-4/Gemini.
        "temperature": 0.7,
        # Measured reviews (up to 3 strengths, 3 flaws, 5 scores) take 80-130 tokens; a cap
        # near twice that stops a rambling answer early so its retry costs less.
        "max_tokens": 256,
        # Retries with other seeds for an answer that would not parse (measured: smollm2
        # sometimes writes a raw line break inside a JSON string, which json rejects).
        "retries": 2,
        # See the module docstring: base models' reviews were unusable when measured.
        "allow_base_reviewers": False,
        # A criterion at 2/5 or below means the reviewers found a real problem with it
        # (2 = "poor" on the paper's 1-5 scale).
        "flag_at_or_below": 2,
        # What the reviewers read as the context: "nearest" = the passage sentences nearest
        # the question (MiniLM) and those holding the key, in passage order; "passage" = the
        # whole passage, as in the paper. See the module docstring for why.
        "context": "nearest",
        "context_sentences": 3,
    }

    # -- reviewers ---------------------------------------------------------------------------
    def reviewers(self, ctx: MetricContext, opts: dict[str, Any]) -> tuple[list[Reviewer], str]:
        """Two reviewers (or one for the direct approach) and a note for the evidence."""
        refs = list(dict.fromkeys(ctx.settings.role_list("judges")))
        usable: list[Provider] = []
        skipped: list[str] = []
        for ref in refs:
            provider = ctx.provider_for(ref)
            if not provider.can_chat:
                skipped.append(f"{ref} (it cannot hold a conversation)")
            elif not is_instruct(provider) and not opts["allow_base_reviewers"]:
                skipped.append(f"{ref} (a base model: it cannot follow a reviewer's instructions)")
            else:
                usable.append(provider)
        note = f"Not asked to review: {'; '.join(skipped)}. " if skipped else ""
        if not usable:
            raise CapabilityError(
                f"No judge model can review questions. {note}".strip(),
                "Add an instruct model to the judges role in settings.",
            )
        first, system = usable[0], prompts.SYSTEM_PROMPTS[0]
        if opts["approach"] == "direct":
            return [Reviewer(first, system, first.info.model)], note + "Direct approach."
        if len(usable) >= 2:
            # The paper gives both LLMs the same prompt; they differ by model.
            second = usable[1]
            return [
                Reviewer(first, system, first.info.model),
                Reviewer(second, system, second.info.model),
            ], note + f"Reviewers: {first.info.model} and {second.info.model}."
        alt = prompts.SYSTEM_PROMPTS[1]
        return [
            Reviewer(first, system, f"{first.info.model} (teacher prompt)"),
            Reviewer(first, alt, f"{first.info.model} (strict-reviewer prompt)"),
        ], note + (
            f"Only one instruct model ({first.info.model}) is available, so it plays both "
            "reviewers under two different system prompts."
        )

    # -- scoring -----------------------------------------------------------------------------
    def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
        opts = ctx.options(self)
        approach = str(opts["approach"])
        if approach not in APPROACHES:
            return ScoreResult.not_scored(
                self.name, f"Unknown MIRROR approach {approach!r}; use one of {APPROACHES}."
            )
        if opts["context"] not in CONTEXTS:
            return ScoreResult.not_scored(
                self.name, f"Unknown MIRROR context {opts['context']!r}; use one of {CONTEXTS}."
            )
        reviewers, note = self.reviewers(ctx, opts)
        max_rounds = 1 if approach == "direct" else max(2, int(opts["max_rounds"]))
        context, shown = self.review_context(item, ctx, opts)
        config = {
            "reviewers": [
                model_config(
                    r.provider,
                    choose_profile(r.provider, ctx.settings),
                    system_prompt=r.system,
                )
                for r in reviewers
            ],
            "approach": approach,
            "max_rounds": max_rounds,
            "temperature": float(opts["temperature"]),
            "seed": ctx.seed,
            "output": "JSON schema (integer enum 1-5)",
            "context": str(opts["context"]),
            "context_sentences": int(opts["context_sentences"]),
        }
        rounds: list[dict[str, Any]] = []
        evidence: dict[str, Any] = {"note": note, "context": shown, "rounds": rounds}
        strengths: list[str] = []
        flaws: list[str] = []
        converged = False
        for k in range(max_rounds):
            ctx.cancel.raise_if_cancelled()
            reviewer = reviewers[k % len(reviewers)]
            if k == 0:
                user = prompts.direct_prompt(context, item.stem)
            else:
                user = prompts.feedback_prompt(context, item.stem, strengths, flaws)
            try:
                review = self._review(reviewer, user, ctx, opts, round_index=k)
            except OutputParseError as exc:
                return ScoreResult.not_scored(
                    self.name,
                    f"Round {k + 1}: {reviewer.label} did not give a usable review ({exc}).",
                    model_config=config,
                    evidence=evidence,
                )
            rounds.append(
                {
                    "round": k + 1,
                    "reviewer": reviewer.label,
                    "scores": review.scores,
                    "strengths": review.strengths,
                    "flaws": review.flaws,
                }
            )
            strengths, flaws = review.strengths, review.flaws
            if k >= 1 and rounds[k]["scores"] == rounds[k - 1]["scores"]:
                converged = True
                break
        final: dict[str, int] = rounds[-1]["scores"]
        mean = sum(final.values()) / len(final)
        values: dict[str, Any] = {
            **final,
            "mean": round(mean, 4),
            "rounds": len(rounds),
            "converged": converged,
            "approach": approach,
        }
        evidence["final_strengths"] = strengths
        evidence["final_flaws"] = flaws
        return ScoreResult(
            metric=self.name,
            value=(mean - 1) / 4,
            values=values,
            evidence=evidence,
            model_config=config,
        )

    def review_context(
        self, item: Item, ctx: MetricContext, opts: dict[str, Any]
    ) -> tuple[str, str]:
        """The context the reviewers read, and a line for the evidence saying what it is."""
        passage = item.passage.text if item.passage else ""
        sentences = split_sentences(passage)
        count = max(1, int(opts["context_sentences"]))
        if opts["context"] == "passage" or len(sentences) <= count:
            return passage, "The whole passage."
        embedder = ctx.embedder()
        if embedder is None:
            return passage, "The whole passage (no sentence embedder to choose from it)."
        near, _ = nearest_sentences(embedder, item.stem, sentences, count)
        key = normalize_answer(item.key)
        keep = set(near) | {s for s in sentences if key and key in normalize_answer(s)}
        chosen = [s for s in sentences if s in keep]
        return " ".join(chosen), (
            f"{len(chosen)} of the passage's {len(sentences)} sentences: the {count} nearest "
            "the question and those holding the key."
        )

    def _review(
        self,
        reviewer: Reviewer,
        user: str,
        ctx: MetricContext,
        opts: dict[str, Any],
        *,
        round_index: int,
    ) -> Review:
        messages = [Message("system", reviewer.system), Message("user", user)]
        attempts = 1 + max(0, int(opts["retries"]))
        error: OutputParseError | None = None
        for attempt in range(attempts):
            if attempt:
                ctx.cancel.raise_if_cancelled()
            try:
                out = reviewer.provider.chat(
                    messages,
                    max_tokens=int(opts["max_tokens"]),
                    temperature=float(opts["temperature"]),
                    # Distinct per round and per retry; reproducible for a given ctx.seed.
                    seed=ctx.seed + round_index + 1000 * attempt,
                    json_schema=prompts.review_schema(),
                    reuse_prefix=prompts.reading(user),
                )
                return parse_review(out.data)
            except OutputParseError as exc:
                error = exc
        assert error is not None
        raise error

    def flags(self, result: ScoreResult, options: dict[str, Any]) -> list[Flag]:
        if not result.scored:
            return []
        threshold = int(options.get("flag_at_or_below", 2))
        out = []
        for criterion in prompts.CRITERIA:
            score = result.values.get(criterion)
            if isinstance(score, int) and score <= threshold:
                out.append(
                    Flag(
                        f"mirror-low-{criterion}",
                        f"{criterion}: {score}/5",
                        metric=self.name,
                        severity="warning",
                    )
                )
        return out
