"""MRE: multi-reference evaluation of a question against its reference (mre paper, section 2).

The reference question q_r0 is paraphrased N times by the "paraphraser" model (appendix A
prompts), and the item's question q_g is scored against every reference:
SRE = M(q_r0, q_g) and MRE = max_i M(q_ri, q_g) over {q_r0} + paraphrases (equation 1),
for M in BLEU-4, ROUGE-L, METEOR and a BERTScore-style F1 (see overlap.py for how each is
computed and how it differs from the published implementations).

Headline value: MRE BERTScore-style F1. In the paper's Table 1 BERTScore has the best MRE
Spearman correlation with human judgement among the four measures we compute, for both
GPT-3 3-shot (our default path: a base model with the 3-shot prompt) and ChatGPT, and ties
METEOR on Pearson for GPT-3 3-shot. It also does not depend on exact wording, which matters
because our METEOR has no WordNet synonyms.

Deviations from the paper, and why:
- One paraphrase per model call, each sampled with its own seed (ctx.seed + i), instead of
  "paraphrase 20 times" in one answer: each paraphrase is reproducible, the run can be
  cancelled between calls, and a 270M model's single long list degenerates into repeats.
  In the few-shot path the list is still a numbered list: call i continues "1. ... i." with
  the paraphrases already kept, as the paper's demonstrations do.
- N = 5 by default instead of 20: the paper's figure shows the gain saturating near N = 5.
- Empty paraphrases and duplicates (of the reference or of each other, compared after
  lower-casing and removing punctuation) are dropped; how many survived is recorded.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from quizsmith.domain import Flag, Item, ScoreResult
from quizsmith.metrics import evidence_html, overlap
from quizsmith.metrics.base import Metric, MetricContext
from quizsmith.metrics.display import Threshold, number
from quizsmith.metrics.profiles import choose_profile, model_config
from quizsmith.metrics.squad import normalize_answer
from quizsmith.providers.base import Message, Provider

# Appendix A.1 (ChatGPT / GPT-3 0-shot), asked once per paraphrase (see module docstring).
ZERO_SHOT_PROMPT = "Please paraphrase the following sentence:\n{question}"

# Appendix A.2 (GPT-3 3-shot): the paper's three ChatGPT-paraphrased demonstrations verbatim
# (the PDF's line-wrap marks joined; the doubled "Sentence: Sentence:" of the third one is a
# typo in the paper and is written once here).
_DEMOS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "What is this software found useful for?",
        (
            "For what purpose is this software deemed useful?",
            "What are the uses of this software?",
            "Can you tell me what this software is useful for?",
            "What are the benefits of this software?",
            "In what ways is this software found to be useful?",
            "What are the applications of this software?",
            "Can you explain the usefulness of this software?",
            "What does this software excel at?",
            "Can you tell me what tasks this software is useful for?",
            "In what scenario is this software useful?",
            "Can you describe the utility of this software?",
            "What is the purpose of this software?",
            "For what is this software commonly used?",
            "What does this software aid in?",
            "Can you tell me the function of this software?",
            "What are the advantages of this software?",
            "What is this software good for?",
            "In what ways does this software provide value?",
            "What is the benefit of using this software?",
            "Can you tell me what this software is commonly used for?",
        ),
    ),
    (
        "Who is the girl?",
        (
            "Can you tell me the name of the young lady?",
            "Who is the female in question?",
            "Could you identify the girl for me?",
            "To whom are you referring as the girl?",
            "The girl, who is she?",
            "Could you tell me who the girl is?",
            "Who is the young woman being spoken of?",
            "Can you name the girl in question?",
            "Who is the lady in question?",
            "Could you give me the name of the girl?",
            "Who is being referred to as the girl?",
            "Can you tell me who the female is?",
            "Who is the girl being discussed?",
            "Can you identify the young lady?",
            "The girl, can you tell me her name?",
            "Who is the subject of the girl?",
            "Can you name the female in question?",
            "Who is the girl you are asking about?",
            "Can you provide the name of the girl?",
            "Who is the young woman being referred to?",
        ),
    ),
    (
        "Where is the Eiffel Tower?",
        (
            "Can you tell me the location of the Eiffel Tower?",
            "Could you inform me where the Eiffel Tower is situated?",
            "I'm wondering where the Eiffel Tower is located?",
            "The Eiffel Tower, where can I find it?",
            "Could you give me the whereabouts of the Eiffel Tower?",
            "The Eiffel Tower, where is it located?",
            "Can you indicate the location of the Eiffel Tower?",
            "Can you provide me with the location of the Eiffel Tower?",
            "Where can I find the Eiffel Tower?",
            "The Eiffel Tower, where is it situated?",
            "Can you tell me where the Eiffel Tower is located?",
            "Could you give me the location of the Eiffel Tower?",
            "Where is the Eiffel Tower situated?",
            "The Eiffel Tower, where is it found?",
            "Could you inform me where the Eiffel Tower can be found?",
            "Can you give me the whereabouts of the Eiffel Tower?",
            "Where is the Eiffel Tower located?",
            "The Eiffel Tower, where is it positioned?",
            "Can you indicate the whereabouts of the Eiffel Tower?",
            "Can you provide me with the whereabouts of the Eiffel Tower?",
        ),
    ),
)


def _few_shot_parts(question: str, kept: list[str]) -> tuple[str, str, str, str]:
    """Demonstrations, the sentence, the paraphrases kept so far, the next list number."""
    demos = ["Please paraphrase the following sentence 20 times:\n"]
    for sentence, paraphrases in _DEMOS:
        lines = "\n".join(f"{i}. {p}" for i, p in enumerate(paraphrases, 1))
        demos.append(f"\nSentence: {sentence}\n{lines}\n")
    listed = "".join(f"{i}. {p}\n" for i, p in enumerate(kept, 1))
    return "".join(demos), f"\nSentence: {question.strip()}\n", listed, f"{len(kept) + 1}."


def few_shot_prompt(question: str, kept: list[str]) -> str:
    """The appendix A.2 prompt, continued with the paraphrases kept so far and the next
    list number, so that the base model writes exactly one new numbered line."""
    return "".join(_few_shot_parts(question, kept))


def few_shot_reading(question: str, kept: list[str]) -> tuple[str, str]:
    """The parts of `few_shot_prompt` that the next paraphrase call repeats (providers'
    `reuse_prefix`): the demonstrations, then the sentence. The list so far is read with the
    rest (measured: keeping it as a third piece cost more in small batches than it saved)."""
    demos, sentence, _, _ = _few_shot_parts(question, kept)
    return demos, demos + sentence


_NUMBERING = re.compile(r"^\s*(?:\d+\s*[.)]|[-*•])\s*")


def clean_paraphrase(text: str) -> str:
    """First non-empty line of a model answer without list numbering or quotes."""
    for line in text.splitlines():
        line = _NUMBERING.sub("", line).strip().strip("\"'“”").strip()
        if line.lower().startswith("sentence:"):
            return ""  # the model started a new demonstration instead of paraphrasing
        if line:
            return line
    return ""


MEASURES = ("bleu4", "rouge_l", "meteor", "bertscore")


class MreMetric(Metric):
    name: ClassVar[str] = "mre"
    title: ClassVar[str] = "MRE"
    description: ClassVar[str] = (
        "Similarity to the reference question or to the best of its paraphrases "
        "(BERTScore-style F1, 0-1; higher = closer in meaning)."
    )
    value_range: ClassVar[tuple[float, float]] = (0.0, 1.0)
    higher_is_better: ClassVar[bool] = True
    needs_passage: ClassVar[bool] = False
    needs_reference: ClassVar[bool] = True
    order: ClassVar[int] = 50
    evidence_title: ClassVar[str] = "MRE"
    chart_label: ClassVar[str] = "MRE"
    thresholds: ClassVar[tuple[Threshold, ...]] = (
        Threshold(
            "flag_below",
            "MRE: hint when the wording is further from the reference than (off = never)",
            "Only for items with a reference question.",
            optional=True,
        ),
    )
    flag_codes: ClassVar[tuple[str, ...]] = ("far-from-reference",)
    subscores: ClassVar[tuple[str, ...]] = tuple(
        f"{v}_{m}" for v in ("sre", "mre") for m in evidence_html.MRE_MEASURES
    )
    # "ref." is the single-reference part (as the baselines' single-reference overlaps).
    reference_feature_names: ClassVar[tuple[str, ...]] = (
        *(f"ref.{m}" for m in evidence_html.MRE_MEASURES),
        *(f"mre.{m}" for m in evidence_html.MRE_MEASURES),
    )

    @classmethod
    def evidence_html(cls, result: ScoreResult) -> str:
        return evidence_html.mre(result)

    @classmethod
    def features(cls, result: ScoreResult) -> dict[str, float | None]:
        found: dict[str, float | None] = {}
        for m in evidence_html.MRE_MEASURES:
            found[f"ref.{m}"] = number(result.values.get(f"sre_{m}"))
            found[f"mre.{m}"] = number(result.values.get(f"mre_{m}"))
        return found

    #: Valid ranges of the numeric options (checked with the settings, issue 28).
    option_ranges: ClassVar[dict[str, tuple[float, float]]] = {
        "n_paraphrases": (1, 50),
        "temperature": (0.0, 2.0),
        "max_tokens": (8, 4096),
        "min_paraphrases": (1, 50),
        "flag_below": (0.0, 1.0),
    }
    defaults: ClassVar[dict[str, Any]] = {
        # The paper's gain saturates near N = 5 paraphrases (section 3.5).
        "n_paraphrases": 5,
        # The paper's GPT-3 sampling temperature (section 3.3).
        "temperature": 0.5,
        # One question rarely exceeds 40 tokens; the cap stops a rambling tiny model.
        "max_tokens": 48,
        # Without at least one usable paraphrase MRE is just SRE: report "not scored".
        "min_paraphrases": 1,
        # No flag by default: the paper uses MRE to rank systems, not to reject single
        # questions. A teacher may set e.g. 0.5 to flag questions far from the reference.
        "flag_below": None,
    }
    option_types: ClassVar[dict[str, type | tuple[type, ...]]] = {"flag_below": float}

    def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
        opts = ctx.options(self)
        provider = ctx.provider("paraphraser")
        profile = choose_profile(provider, ctx.settings)
        reference = (item.reference or "").strip()
        n = max(0, int(opts["n_paraphrases"]))
        temperature = float(opts["temperature"])
        config = model_config(
            provider,
            profile,
            role="paraphraser",
            n_paraphrases=n,
            temperature=temperature,
            seed=ctx.seed,
            prompt="appendix A.2 3-shot" if profile == "fewshot" else "appendix A.1 0-shot",
            embeddings="all-MiniLM-L6-v2 token vectors",
        )
        kept, dropped = self._paraphrase(provider, profile, reference, n, opts, ctx)
        evidence: dict[str, Any] = {
            "question": item.stem,
            "reference": reference,
            "paraphrases": kept,
            "dropped": dropped,
        }
        if len(kept) < int(opts["min_paraphrases"]):
            return ScoreResult.not_scored(
                self.name,
                f"The paraphraser produced {len(kept)} usable paraphrases of the reference "
                f"(of {n} asked); MRE needs at least {opts['min_paraphrases']}.",
                model_config=config,
                evidence=evidence,
            )
        ctx.cancel.raise_if_cancelled()
        values, best = score_references(item.stem, [reference, *kept])
        values["n_paraphrases"] = len(kept)
        values["n_asked"] = n
        evidence["best_reference"] = best
        return ScoreResult(
            metric=self.name,
            value=values["mre_bertscore"],
            values=values,
            evidence=evidence,
            model_config=config,
        )

    def _paraphrase(
        self,
        provider: Provider,
        profile: str,
        reference: str,
        n: int,
        opts: dict[str, Any],
        ctx: MetricContext,
    ) -> tuple[list[str], list[dict[str, str]]]:
        kept: list[str] = []
        dropped: list[dict[str, str]] = []
        seen = {normalize_answer(reference)}
        for i in range(n):
            ctx.cancel.raise_if_cancelled()
            common: dict[str, Any] = {
                "max_tokens": int(opts["max_tokens"]),
                "temperature": float(opts["temperature"]),
                "seed": ctx.seed + i,
            }
            if profile == "fewshot" and provider.can_complete:
                out = provider.complete(
                    few_shot_prompt(reference, kept),
                    stop=["\n"],
                    reuse_prefix=few_shot_reading(reference, kept),
                    **common,
                )
            else:
                prompt = ZERO_SHOT_PROMPT.format(question=reference)
                # The same prompt n times (other seeds): keep it evaluated.
                out = provider.chat([Message("user", prompt)], reuse_prefix=prompt, **common)
            text = clean_paraphrase(out.text)
            key = normalize_answer(text)
            if not key:
                dropped.append({"text": out.text.strip(), "why": "empty"})
            elif key in seen:
                dropped.append({"text": text, "why": "duplicate"})
            else:
                seen.add(key)
                kept.append(text)
        return kept, dropped

    def flags(self, result: ScoreResult, options: dict[str, Any]) -> list[Flag]:
        return mre_flags(result, options)


def score_references(
    candidate: str,
    references: list[str],
    token_embedder: overlap.TokenEmbedder | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """SRE (first reference only) and MRE (max over all) for the four measures, and which
    reference gave each MRE maximum (the paper's Table 4 shows the same)."""
    embedder = token_embedder or overlap.minilm_token_embedder()
    vectors = embedder([candidate, *references])
    per_ref: dict[str, list[float]] = {
        "bleu4": [overlap.bleu4(candidate, [r]) for r in references],
        "rouge_l": [overlap.rouge_l(candidate, [r]) for r in references],
        "meteor": [overlap.meteor(candidate, [r]) for r in references],
        "bertscore": [overlap.bertscore_pair(vectors[0], v) for v in vectors[1:]],
    }
    values: dict[str, Any] = {}
    best: dict[str, str] = {}
    for measure in MEASURES:
        scores = per_ref[measure]
        values[f"sre_{measure}"] = round(scores[0], 6)
        top = max(range(len(scores)), key=scores.__getitem__)
        values[f"mre_{measure}"] = round(scores[top], 6)
        best[measure] = references[top]
    return values, best


def mre_flags(result: ScoreResult, options: dict[str, Any]) -> list[Flag]:
    threshold = options.get("flag_below")
    if threshold is None or result.value is None or result.value >= float(threshold):
        return []
    return [
        Flag(
            "far-from-reference",
            f"MRE similarity {result.value:.2f} is below {float(threshold):.2f}: the question "
            "differs from the reference and all its paraphrases.",
            metric="mre",
            severity="info",
        )
    ]
