"""NACo: naturalness, answerability and complexity by chain-of-thought QA (naco paper, s. 3, A.2).

Why this module is long: NacoMetric is one class of about 400 lines: the option defaults with
the paper's reason for each, the chat and fewshot sampling paths, the result and the flags share
its options and samples. The response parsing is in naco_parse.py, the prompts in
naco_prompts.py.

A model answers the question from the passage(s), reasoning step by step:

- naturalness n = 0 when it says "not a question" or "Question unnatural", else 1;
- answerability a = SQuAD token F1 between its answer and the item's key;
- complexity = its number of reasoning steps; with E the expected step count (the most common
  count over the bank's accepted items of the subject, else a default of 2 as the paper found
  for SQuAD), c = min(steps/E, E/steps), and c = 0 for zero steps (no reasoning at all is as
  far from E as a count can be; the formula itself would divide by zero);
- NACo = 0 when n = 0 or a = 0, else w_n*n + w_a*a + w_c*c (weights 1/3 each), averaged over
  k samples as the paper averaged its three runs.

Prompt profiles (metrics/profiles.py): "chat" sends the appendix A.2 prompt verbatim to the qa
model and parses its free text, retrying once with JSON-constrained output when the format is
broken. "fewshot" serves the bundled 135M-270M models, which never produce the A.2 format
(measured: docs/metrics/naco-profiles.md); the same three criteria come from three short calls:
the A.2 verdict (part 1 of the response, at most 64 tokens: naco_parse.fewshot_verdict) from
an instruct model, the answer from a few-shot extractive completion on a base model, the steps
from that completion continued into numbered steps. Deviation: there the answer comes before
the steps, since steps-first cost the 270M model most of its answer F1; the fewshot profile
also decodes greedily (see defaults). Reading the verdict from part 1 only is a deviation too
(v1 read the first 64 tokens): part 2 is reasoning, and the verdicts found only there were
mostly on good questions (measured, naco_parse.fewshot_verdict).
Second deviation (option `answer_by`, default "likelihood"): the fewshot answer is chosen by
likelihood among candidate answers (the spans of the passage sentence nearest the question,
the key and the distractors; quality/signals.py) instead of generated as free text. A 270M
model's free-text span often misses the key on good questions, which NACo's gate turns into 0;
ranking candidates is what such a model does reliably, and its F1 with the key agreed better
with people's answerability and answer-consistency ratings on QGEval (docs/metrics/
naco-profiles.md, "Answerability"). `answer_by = "generate"` restores the free-text answer.
The chat profile (capable models) keeps the paper's free-text answer.

Two passages (the paper's HotpotQA setting): `item.provenance["passage2"]` holds the second
passage text, or the passage text holds both separated by " <sep> ".

Reading the model's responses (the A.2 free text and the JSON retry) is in naco_parse.py.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from quizsmith.domain import Flag, Item, ScoreResult
from quizsmith.errors import OutputParseError, ProviderError
from quizsmith.metrics import evidence_html
from quizsmith.metrics import naco_prompts as prompts
from quizsmith.metrics.base import Metric, MetricContext, flag_level, worse_level
from quizsmith.metrics.display import Threshold, number

# The response parsing lives in naco_parse.py; these names stay importable from here.
from quizsmith.metrics.naco_parse import (
    CotAnswer,
    NacoParseError,
    _find_steps,
    cot_from_json,
    fewshot_verdict,
    parse_cot_answer,
)
from quizsmith.metrics.profiles import choose_profile, model_config
from quizsmith.metrics.squad import f1_score
from quizsmith.providers.base import Provider

SEP = " <sep> "


# -- the formulas -----------------------------------------------------------------------------
def complexity_similarity(steps: int, expected: int) -> float:
    """c = min(steps/E, E/steps); 0 for zero steps."""
    if isinstance(expected, bool) or not isinstance(expected, int) or expected < 1:
        raise ValueError(f"expected complexity must be a positive integer; got {expected!r}.")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ValueError(f"the step count must be a non-negative integer; got {steps!r}.")
    if steps == 0:
        return 0.0
    return min(steps / expected, expected / steps)


def naco_combine(
    n: int, a: float, c: float, weights: Sequence[float] = (1 / 3, 1 / 3, 1 / 3)
) -> float:
    """The hierarchical NACo of one response: 0 unless n = 1 and a > 0.

    Weights are divided by their sum, so a user's (1, 1, 1) or (2, 1, 1) keeps NACo in [0, 1].
    """
    if n not in (0, 1):
        raise ValueError(f"naturalness must be 0 or 1; got {n!r}.")
    for name, value in (("answerability", a), ("complexity", c)):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} must be in [0, 1]; got {value!r}.")
    if len(weights) != 3 or any(w < 0 for w in weights) or sum(weights) <= 0:
        raise ValueError(f"weights must be three non-negative numbers, not all 0; got {weights}.")
    if n == 0 or a == 0:
        return 0.0
    w_n, w_a, w_c = (w / sum(weights) for w in weights)
    return min(1.0, w_n * n + w_a * a + w_c * c)


def split_passages(item: Item) -> list[str]:
    """One or two passages: provenance["passage2"], or the text split at " <sep> "."""
    text = item.passage.text if item.passage else ""
    parts = [p.strip() for p in text.split(SEP) if p.strip()]
    second = item.provenance.get("passage2")
    if isinstance(second, str) and second.strip():
        parts.append(second.strip())
    if len(parts) > 2:
        raise ValueError("NACo takes one or two passages (A.2); this item has more.")
    return parts


def most_common_count(counts: Sequence[int]) -> int:
    """The mode; ties go to the smaller count (deterministic, and the cheaper expectation)."""
    if not counts:
        raise ValueError("no step counts")
    tally = Counter(counts)
    best = max(tally.values())
    return min(k for k, v in tally.items() if v == best)


def _instruct(provider: Provider) -> bool:
    return provider.can_chat and provider.is_chat_model


# -- the metric -------------------------------------------------------------------------------
@dataclass
class _Sample:
    cot: CotAnswer
    prompt_ids: list[str]
    retried: bool = False
    raw: str = ""


def a2_verdict(
    model: Provider,
    passages: Sequence[str],
    question: str,
    max_tokens: int,
    temperature: float = 0.0,
    seed: int | None = 0,
) -> tuple[str, str]:
    """The fewshot profile's naturalness verdict and the text it was read from. The A.2 prompt
    asks for the verdict first (part 1); a tiny model's A.2 answer never held an <ans> span
    within 64 tokens (measured), so the generation stops where part 2 starts, or at
    `max_tokens` (naco_parse.fewshot_verdict says why and what was measured)."""
    head = model.chat(
        [{"role": "user", "content": prompts.a2_prompt(passages, question)}],
        max_tokens=max_tokens,
        temperature=temperature,
        seed=seed,
        stop=list(prompts.VERDICT_STOPS),
        reuse_prefix=prompts.a2_reading(passages),
    ).text
    return fewshot_verdict(head), head


class NacoMetric(Metric):
    name: ClassVar[str] = "naco"
    title: ClassVar[str] = "NACo"
    description: ClassVar[str] = (
        "Naturalness, answerability and complexity: a model answers the question from the "
        "passage step by step; 0 if it is not a question or the answer misses the key."
    )
    value_range: ClassVar[tuple[float, float]] = (0.0, 1.0)
    higher_is_better: ClassVar[bool] = True
    needs_passage: ClassVar[bool] = True
    # Shown second, after the overall estimate it feeds (metrics/base.py, "How the metric
    # takes part").
    order: ClassVar[int] = 10
    evidence_title: ClassVar[str] = "NACo"
    chip_label: ClassVar[str] = "NACo"
    chart_label: ClassVar[str] = "NACo"
    # Not live (issue 26): neither profile's shipped overall model reads it (quality/live_set.py).
    reports_parts: ClassVar[bool] = True
    batch_by_default: ClassVar[bool] = True
    # It asks whether the text is a natural, answerable question and compares the model's
    # answer with the key, so it does not judge a true/false statement (whose key is "True"
    # or "False", never what a reader answers: a correct item scored 0, issue 27) nor a
    # sentence with a blank.
    item_types: ClassVar[tuple[str, ...]] = ("mcq", "short")
    thresholds: ClassVar[tuple[Threshold, ...]] = (
        Threshold(
            "answer_threshold",
            "NACo: warn when the model's answer matches the key less than",
            "Word overlap (0-1) between the model's answer and your key below which the item "
            "is flagged 'the model's answer differs from the key'.",
        ),
        Threshold(
            "complexity_threshold",
            "NACo: hint when the complexity match is below",
            "How close (0-1) the number of reasoning steps is to the expected number before "
            "the hint 'too easy / too hard' appears.",
        ),
    )
    flag_codes: ClassVar[tuple[str, ...]] = (
        "not-a-question",
        "answer-differs",
        "too-easy",
        "too-hard",
    )
    subscores: ClassVar[tuple[str, ...]] = ("n", "a", "c")
    feature_names: ClassVar[tuple[str, ...]] = ("naco", "naco.n", "naco.a", "naco.c")

    @classmethod
    def chip_level(cls, result: ScoreResult, options: dict[str, Any], severities: set[str]) -> str:
        # 0 means "not a question" or "answer missed": bad whatever the flags say. Its flags
        # are hints (their measured precision is low), so the value's place on its own scale
        # colours it too: a half-matching answer is amber, not green (issue 27).
        if float(result.value or 0.0) <= 0.0:
            return "bad"
        return worse_level(cls.scale_level(result), flag_level(severities))

    @classmethod
    def evidence_html(cls, result: ScoreResult) -> str:
        return evidence_html.naco(result)

    @classmethod
    def features(cls, result: ScoreResult) -> dict[str, float | None]:
        parts = {f"naco.{p}": number(result.values.get(p)) for p in ("n", "a", "c")}
        return {"naco": number(result.value), **parts}

    #: Valid ranges of the numeric options (checked with the settings, issue 28).
    option_ranges: ClassVar[dict[str, tuple[float, float]]] = {
        "expected_complexity": (1, 50),
        "k_local": (1, 20),
        "k_api": (1, 20),
        "temperature": (0.0, 2.0),
        "fewshot_temperature": (0.0, 2.0),
        "max_tokens": (16, 8192),
        "verdict_tokens": (1, 1024),
        "fewshot_steps_tokens": (1, 1024),
        "answer_threshold": (0.0, 1.0),
        "complexity_threshold": (0.0, 1.0),
    }
    defaults: ClassVar[dict[str, Any]] = {
        # Paper s. 3: "a fair weight 1/3 for each criterion" (n, a, c).
        "weights": [1 / 3, 1 / 3, 1 / 3],
        # Paper s. 3: GPT-3.5 found E = 2 on SQuAD; used when the bank has < 10 accepted
        # items of the subject to take the mode from.
        # (ctx.expected_complexity, from the bank, returns None below 10 accepted items.)
        "expected_complexity": 2,
        # Paper A.5: three runs averaged on HotpotQA (API); one local run keeps the live
        # editor fast (a single run is what the paper did on SQuAD, for cost).
        "k_local": 1,
        "k_api": 3,
        # Deviation: providers are given the temperature only, so a local GGUF model samples
        # with llama-cpp-python's other defaults (top-k 40, top-p 0.95, min-p 0.05), not the
        # paper's top_p 1; an API server uses its own (top_p 1 for OpenAI's). The recorded
        # config keeps "top_p": 1.0, the paper's setting, so cached scores stay valid.
        # Paper A.5: temperature 0.7, top_p 1. Seeded (ctx.seed + sample), so a score is
        # reproducible. The fewshot profile decodes greedily (a deviation): its answers were
        # measured greedy, and a 270M model's extractive span has nothing to gain from noise.
        "temperature": 0.7,
        "fewshot_temperature": 0.0,
        "max_tokens": 384,
        # fewshot: the A.2 verdict is written first; 64 tokens caught it where SmolLM2 gave
        # one (48 tokens cut at "2." caught none); 80 tokens hold three steps that quote the
        # passage (~25 tokens each); a step cut by the limit still counts, it was begun.
        # fewshot: how the answer is found. "generate": greedy extractive completion (the
        # paper's free-text answer); "likelihood": the likeliest of the passage's candidate
        # answers nearest the question, the key and the distractors (quality/signals.py), the
        # way a 270M model answers best (docs/metrics/naco-profiles.md, "Answerability").
        "answer_by": "likelihood",
        "verdict_tokens": 64,
        "fewshot_steps_tokens": 80,
        # Paper s. 4.3 / A.4: answerability below 0.5 F1 means the model's answer shares
        # less than half its words with the key: a reviewer should look.
        "answer_threshold": 0.5,
        # c < 0.5: more than a factor of two from E. Never flags a question one step away
        # from E >= 2 (E=2: 1 step gives c = 0.5), since one step is run-to-run noise of a
        # CoT count; flags a single-step question when E = 3 and 0 steps always.
        "complexity_threshold": 0.5,
    }

    # -- compute ------------------------------------------------------------------------------
    def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
        opts = ctx.options(self)
        weights = [float(w) for w in opts["weights"]]
        qa = ctx.provider("qa")
        profile = choose_profile(qa, ctx.settings)
        try:
            passages = split_passages(item)
        except ValueError as exc:
            return ScoreResult.not_scored(self.name, str(exc))
        expected, source = self._expected(item, ctx, opts)
        k = int(opts["k_local"] if qa.is_local else opts["k_api"])
        if profile == "chat":
            temperature = float(opts["temperature"])
            config: dict[str, Any] = {"qa": model_config(qa, profile, prompt=prompts.A2_ID)}
        else:
            temperature = float(opts["fewshot_temperature"])
            verdict_model, answer_model = self._fewshot_models(ctx)
            config = {
                "verdict": model_config(verdict_model, "chat", prompt=prompts.VERDICT_ID),
                "answer": model_config(answer_model, profile, prompt=prompts.FEWSHOT_ANSWER_ID),
                "steps": model_config(answer_model, profile, prompt=prompts.FEWSHOT_STEPS_ID),
            }
        config.update(profile=profile, k=k, temperature=temperature, top_p=1.0)
        if profile != "chat":
            config["answer_by"] = opts.get("answer_by", "generate")
        samples: list[_Sample] = []
        failures: list[str] = []
        for i in range(k):
            ctx.cancel.raise_if_cancelled()
            seed = ctx.seed + i
            try:
                if profile == "chat":
                    sample = self._chat_sample(qa, passages, item.stem, temperature, seed, opts)
                else:
                    sample = self._fewshot_sample(
                        verdict_model,
                        answer_model,
                        passages,
                        item,
                        temperature,
                        seed,
                        ctx,
                        opts,
                    )
            except OutputParseError as exc:
                failures.append(f"sample {i + 1}: {exc.message}")
                continue
            samples.append(sample)
        if not samples:
            return ScoreResult.not_scored(
                self.name,
                "The model's answer could not be read, even with constrained output: "
                + "; ".join(failures),
                model_config=config,
            )
        return self._result(item, samples, failures, weights, expected, source, config)

    def _expected(self, item: Item, ctx: MetricContext, opts: dict[str, Any]) -> tuple[int, str]:
        subject = item.subject or (item.passage.subject if item.passage else None)
        if ctx.expected_complexity is not None:
            value = ctx.expected_complexity(subject)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
                return value, f"mode of the bank's accepted items (subject {subject or 'none'})"
        default = int(opts["expected_complexity"])
        return default, "default (no bank mode: under 10 accepted items of this subject)"

    def _fewshot_models(self, ctx: MetricContext) -> tuple[Provider, Provider]:
        """(verdict model, answer model) for the fewshot profile.

        Answer and steps: the qa model when it is a base (completion) model, else the first base
        model among the solvers, else the qa model: few-shot extractive completion on the
        Gemma-270M base model reached F1 0.45 on SQuAD reference questions, the same prompt on
        SmolLM2-135M-instruct 0.13 (docs/metrics/naco-profiles.md). Verdict: the first instruct
        model among qa, generator and judges, since A.2 is a chat prompt.
        """
        qa = ctx.provider("qa")
        answerers = [qa, *ctx.providers("solvers")]
        answer_model = next((p for p in answerers if p.can_complete and not _instruct(p)), qa)
        for provider in [qa, ctx.provider("generator"), *ctx.providers("judges")]:
            if _instruct(provider):
                return provider, answer_model
        raise ProviderError(
            "NACo's fewshot profile needs an instruct (chat) model for the naturalness verdict.",
            "Set the qa, generator or a judges role to an instruct model.",
        )

    def _chat_sample(
        self,
        qa: Provider,
        passages: list[str],
        question: str,
        temperature: float,
        seed: int,
        opts: dict[str, Any],
    ) -> _Sample:
        prompt = prompts.a2_prompt(passages, question)
        reading = prompts.a2_reading(passages)
        out = qa.chat(
            [{"role": "user", "content": prompt}],
            max_tokens=int(opts["max_tokens"]),
            temperature=temperature,
            seed=seed,
            reuse_prefix=reading,
        )
        try:
            return _Sample(parse_cot_answer(out.text), [prompts.A2_ID], raw=out.text)
        except NacoParseError:
            pass
        # Retry once: the same task, the answer constrained to {natural, steps, answer}.
        retry = qa.chat(
            [{"role": "user", "content": prompt + prompts.A2_STRICT_SUFFIX}],
            max_tokens=int(opts["max_tokens"]),
            temperature=temperature,
            seed=seed,
            json_schema=prompts.A2_SCHEMA,
            reuse_prefix=reading,
        )
        data = retry.data
        if data is None:
            from quizsmith.providers.base import parse_json_output

            data = parse_json_output(retry.text)
        return _Sample(cot_from_json(data), [prompts.A2_ID, prompts.A2_STRICT_ID], True, retry.text)

    def _fewshot_sample(
        self,
        verdict_model: Provider,
        answer_model: Provider,
        passages: list[str],
        item: Item,
        temperature: float,
        seed: int,
        ctx: MetricContext,
        opts: dict[str, Any],
    ) -> _Sample:
        question = item.stem
        verdict, head = a2_verdict(
            verdict_model, passages, question, int(opts["verdict_tokens"]), temperature, seed
        )
        ctx.cancel.raise_if_cancelled()
        if verdict != "natural":
            # A.2 tells the model to stop here; NACo is 0 whatever follows.
            return _Sample(CotAnswer(0, "", [], verdict), [prompts.VERDICT_ID], raw=head)
        # The live chip says how far NACo got (the verdict is the first of three calls).
        ctx.part(self.name, "reads as a question; answering…")
        answer_prompt = prompts.fewshot_answer_prompt(passages, question)
        reading = prompts.fewshot_reading(passages)
        if opts.get("answer_by", "generate") == "likelihood" and answer_model.can_logprob:
            answer = self._likelihood_answer(answer_model, item, ctx)
        else:
            answer = answer_model.complete(
                answer_prompt,
                max_tokens=32,
                temperature=temperature,
                seed=seed,
                stop=["\n"],
                reuse_prefix=reading,
            ).text.strip()
        ctx.cancel.raise_if_cancelled()
        ctx.part(self.name, "answered; counting reasoning steps…")
        # Steps: the same completion continued with "Reasoning: Step 1:". It shares the
        # examples and the passage with the answer call, which a local model keeps. Asking
        # for the steps before the answer (the paper's order) cost the 270M model most of its
        # answer F1 (0.08 vs 0.42), hence answer first; a deviation, see the module docstring.
        steps_text = answer_model.complete(
            prompts.fewshot_steps_continuation(answer_prompt, answer),
            max_tokens=int(opts["fewshot_steps_tokens"]),
            temperature=temperature,
            seed=seed,
            stop=["\n\n", "\nPassage", "\nQuestion:"],
            reuse_prefix=reading,
        ).text
        steps = _find_steps("Step 1:" + steps_text)
        return _Sample(
            CotAnswer(1, answer, steps, verdict),
            [prompts.VERDICT_ID, prompts.FEWSHOT_ANSWER_ID, prompts.FEWSHOT_STEPS_ID],
            raw=head,
        )

    def _likelihood_answer(self, model: Provider, item: Item, ctx: MetricContext) -> str:
        """The likeliest candidate answer (the signals' answer selection, the same call)."""
        from quizsmith.generation.sentences import split_sentences
        from quizsmith.providers.nearest import nearest_sentences
        from quizsmith.quality.signals import (
            CANDIDATE_SENTENCES,
            distractors_of,
            likelihood_answer,
        )

        passage = item.passage.text if item.passage else ""
        sentences = [s.text for s in split_sentences(passage)] or [passage]
        best, _ = nearest_sentences(ctx.embedder(), item.stem, sentences, CANDIDATE_SENTENCES)
        choice = likelihood_answer(model, passage, item.stem, item.key, distractors_of(item), best)
        return choice.picked

    def _result(
        self,
        item: Item,
        samples: list[_Sample],
        failures: list[str],
        weights: list[float],
        expected: int,
        source: str,
        config: dict[str, Any],
    ) -> ScoreResult:
        per_sample: list[dict[str, Any]] = []
        for s in samples:
            a = f1_score(s.cot.answer, item.key) if s.cot.naturalness else 0.0
            c = complexity_similarity(len(s.cot.steps), expected)
            per_sample.append(
                {
                    "n": s.cot.naturalness,
                    "a": a,
                    "c": c,
                    "steps": len(s.cot.steps),
                    "naco": naco_combine(s.cot.naturalness, a, c, weights),
                }
            )
        mean = statistics.fmean
        values = {
            "n": mean(p["n"] for p in per_sample),
            "a": mean(p["a"] for p in per_sample),
            "c": mean(p["c"] for p in per_sample),
            "steps": most_common_count([p["steps"] for p in per_sample]),
            "expected": expected,
            "samples": per_sample,
        }
        evidence: dict[str, Any] = {
            "verdict": [s.cot.verdict for s in samples],
            "answer": [s.cot.answer for s in samples],
            "reasoning": [list(s.cot.steps) for s in samples],
            "key": item.key,
            "expected_source": source,
            "prompts": sorted({p for s in samples for p in s.prompt_ids}),
            "retried": sum(s.retried for s in samples),
            # The model's own words (the A.2 response, or the verdict part of it), shortened.
            "model_text": [s.raw[:600] for s in samples],
        }
        if failures:
            evidence["unreadable_samples"] = failures
        return ScoreResult(
            metric=self.name,
            value=mean(p["naco"] for p in per_sample),
            values=values,
            evidence=evidence,
            model_config=config,
        )

    # -- flags --------------------------------------------------------------------------------
    def flags(self, result: ScoreResult, options: dict[str, Any]) -> list[Flag]:
        if not result.scored:
            return []
        v = result.values
        found = []
        if v.get("n", 1) < 0.5:
            found.append(
                Flag(
                    "not-a-question",
                    "Not a question / unclear: the model answered 'not a question' or "
                    "'Question unnatural'.",
                    self.name,
                    "error",
                )
            )
            return found  # answer and complexity mean nothing for a non-question
        threshold = float(options.get("answer_threshold", 0.5))
        if v.get("a", 1.0) < threshold:
            answers = result.evidence.get("answer") or [""]
            found.append(
                Flag(
                    "answer-differs",
                    f"The model's answer differs from the key (F1 {v['a']:.2f}; it answered "
                    f"{answers[0]!r}).",
                    self.name,
                )
            )
        c_limit = float(options.get("complexity_threshold", 0.5))
        if v.get("a", 0.0) > 0 and v.get("c", 1.0) < c_limit:
            steps, expected = v.get("steps", 0), v.get("expected", 0)
            word = "easy" if steps < expected else "hard"
            found.append(
                Flag(
                    f"too-{word}",
                    f"Too {word} vs expected complexity: {steps} reasoning steps, "
                    f"{expected} expected.",
                    self.name,
                    "info",
                )
            )
        return found
