"""The model calls of generation: question stems, distractor candidates, key concepts.

Each function takes a provider and returns plain strings; what the model wrote that cannot be
used is dropped here with a reason, so the pipeline only sees usable candidates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from quizsmith.errors import OutputParseError, ProviderError
from quizsmith.generation import prompts

# The stem checks (their own module); their names stay reachable here, where callers look.
from quizsmith.generation.stem_checks import asks_for_other_kind as asks_for_other_kind
from quizsmith.generation.stem_checks import asks_for_several as asks_for_several
from quizsmith.generation.stem_checks import likeness_against as likeness_against
from quizsmith.generation.stem_checks import negated_against as negated_against
from quizsmith.generation.stem_checks import unnamed_referent as unnamed_referent
from quizsmith.metrics.overlap import porter_stemmer
from quizsmith.metrics.profiles import choose_profile
from quizsmith.metrics.squad import normalize_answer
from quizsmith.providers.base import Fixed, Provider, Transient
from quizsmith.quality.rule_spans.words import STOPWORDS
from quizsmith.settings import Settings

MAX_STEM_WORDS = 40


@dataclass(frozen=True)
class Written:
    """One model output: the usable text, or None with the reason it was dropped."""

    text: str | None
    reason: str = ""
    seconds: float = 0.0
    raw: str = ""


def profile_for(provider: Provider, settings: Settings) -> str:
    return choose_profile(provider, settings)


def write_stem(
    provider: Provider,
    profile: str,
    fact: str,
    answer: str,
    *,
    difficulty: str | None,
    seed: int,
    temperature: float,
    before: str = "",
    before_shared: bool = False,
) -> Written:
    """A question for `answer` of `fact`, checked (`stem_problem`). `before`: the passage's
    lines shown before the fact (`antecedents`), to a chat model only: a few-shot prompt's
    worked examples have no such lines to follow; `before_shared`: as for
    `propose_question_and_answer`."""
    try:
        if profile == "chat":
            messages = prompts.stem_chat(fact, answer, difficulty, before)
            content = messages[-1]["content"]
            result = provider.chat(
                messages,
                max_tokens=120,
                temperature=temperature,
                seed=seed,
                json_schema=prompts.STEM_SCHEMA,
                # The system message and template before the fact are kept; the whole request
                # serves the target's next attempts, which ask the same with another seed.
                reuse_prefix=(
                    *question_heads(content, before, before_shared),
                    Transient(content),
                ),
            )
            raw = result.text
            # An unconstrained backend (Anthropic, a server ignoring response_format) may
            # answer valid JSON that is not an object: that is no question, not a crash.
            data: Any = result.data
            stem = str(data.get("question", "")) if isinstance(data, dict) else ""
        else:
            prompt = prompts.stem_fewshot(fact, answer, difficulty)
            result = provider.complete(
                prompt,
                max_tokens=60,
                temperature=temperature,
                seed=seed,
                stop=["\n"],
                # As above: the worked examples are kept, the fact serves the next attempts.
                reuse_prefix=(
                    Fixed(shots_of(prompt, "Fact: ")),
                    Transient(shots_of(prompt, "Question:")),
                ),
            )
            raw = stem = result.text
    except OutputParseError as exc:
        return Written(None, f"the model's answer did not parse ({exc.message})")
    stem = clean_line(stem)
    reason = stem_problem(stem, answer, fact)
    return Written(None if reason else stem, reason, result.seconds, raw)


def question_heads(content: str, before: str, before_shared: bool) -> tuple[str, ...]:
    """The kept heads of a chat question prompt (`content`, its last message): the fixed
    head (rules and worked examples), then, where the lines before the fact are the same
    for many facts (`before_shared`: the passage's first statement), the head with them, so
    that a local model reads them once per passage. Lines one fact points back to serve
    that fact alone: a state kept for each would crowd out the passage's."""
    head = prompts.chat_head(content)
    if before and before_shared:
        return (head, head + prompts.earlier_lines(before))
    return (head,)


def propose_question_and_answer(
    provider: Provider,
    fact: str,
    *,
    difficulty: str | None,
    seed: int,
    before: str = "",
    before_shared: bool = False,
    schema: dict[str, Any] = prompts.QUESTION_ANSWER_SCHEMA,
) -> tuple[Written, str]:
    """A chat generator's question about `fact` written with its own answer: (the question,
    checked as `write_stem` checks one, against that answer; the answer as written).
    `before`: the lines shown ahead of the fact (`antecedents.context_before`);
    `before_shared`: they are the same for many facts (the passage's first statement), so
    a local model keeps their state beside the fixed head's; `schema`: the reply's JSON
    schema (a study's variant may hold the answer to an enum)."""
    messages = prompts.question_and_answer_chat(fact, difficulty, before)
    try:
        result = provider.chat(
            messages,
            max_tokens=140,
            temperature=0.0,
            seed=seed,
            json_schema=schema,
            reuse_prefix=question_heads(messages[-1]["content"], before, before_shared),
        )
    except OutputParseError as exc:
        return Written(None, f"the model's answer did not parse ({exc.message})"), ""
    data: Any = result.data
    if not isinstance(data, dict):
        return Written(None, "the model wrote no question and answer", result.seconds), ""
    stem = clean_line(str(data.get("question", "")))
    answer = " ".join(str(data.get("answer", "")).split())
    reason = stem_problem(stem, answer, fact) if answer else "the model wrote no answer"
    return Written(None if reason else stem, reason, result.seconds, result.text), answer


#: What a prompt calls the passage, which must never reach a student: "Which volcanic feature
#: is mentioned in the fact ...?" (issue 44). The issue's own requirement, not a guess at
#: language: a stem that names these words speaks of a source the student does not see.
SOURCE_WORDS = re.compile(
    r"\b(?:the|this|that|given)\s+(?:study\s+)?(?:fact|passage|text|sentence|paragraph|excerpt|"
    r"context|material)\b",
    re.IGNORECASE,
)


def stem_problem(stem: str, answer: str, fact: str, *, may_quote_fact: bool = False) -> str:
    """Why a generated question cannot be used ("" when it can). A rule-made question quotes
    its fact by design (`may_quote_fact`), a model-written one must not."""
    words = stem.split()
    if len(words) < 3:
        return "the question is too short"
    if len(words) > MAX_STEM_WORDS:
        return "the question is too long"
    if not stem.endswith("?"):
        return "it is not a question (no question mark)"
    if contains_answer(stem, answer) or names_its_answer(stem, answer):
        return "the question gives away the answer"
    if SOURCE_WORDS.search(stem):
        return "the question speaks of its source (a student sees no 'fact' or 'text')"
    mismatch = asks_for_other_kind(stem, answer, fact)
    if mismatch:
        return mismatch
    unnamed = (
        unnamed_referent(stem)
        or asks_for_several(stem, answer)
        or negated_against(stem, fact)
        or likeness_against(stem, fact)
    )
    if unnamed:
        return unnamed
    if may_quote_fact:
        return ""
    stem_tokens = normalize_answer(stem).split()
    fact_tokens = set(normalize_answer(fact).split())
    if (
        stem_tokens
        and sum(t in fact_tokens for t in stem_tokens) / len(stem_tokens) > 0.9
        and (len(stem_tokens) >= 0.8 * len(fact_tokens))
    ):
        return "the question copies the source sentence"
    return ""


def contains_answer(text: str, answer: str) -> bool:
    """True when the answer's words appear, in order and contiguous, in the text (SQuAD
    normalisation: case, punctuation and articles ignored)."""
    needle = normalize_answer(answer)
    if not needle:
        return False
    return f" {needle} " in f" {normalize_answer(text)} "


def names_its_answer(stem: str, answer: str) -> bool:
    """True when every content word of the answer is in the question, inflection aside:
    "Why does a river flood?" for the key "river floods" asks for what it says (a bench item;
    `contains_answer` wants the words as written). Porter stems, so "flood" meets "floods"."""
    stem_of = porter_stemmer().stem
    wanted = [w for w in normalize_answer(answer).split() if w not in STOPWORDS]
    if not wanted:
        return False
    asked = {stem_of(w) for w in normalize_answer(stem).split()}
    return all(stem_of(w) in asked for w in wanted)


def propose_distractors(
    provider: Provider,
    profile: str,
    question: str,
    answer: str,
    fact: str,
    *,
    seed: int,
    temperature: float = 0.8,
    kind: str | None = None,
) -> tuple[list[str], str]:
    """Distractor candidates from the model, and a note when the call gave nothing usable.
    `kind`, the kind of thing the question names (`distractor_kinds.asked_kind`), is put to a
    chat model; the few-shot form has no place for it."""
    try:
        if profile == "chat":
            messages = prompts.distractors_chat(question, answer, fact, kind)
            result = provider.chat(
                messages,
                max_tokens=200,
                temperature=temperature,
                seed=seed,
                json_schema=prompts.DISTRACTOR_SCHEMA,
                reuse_prefix=prompts.chat_head(
                    messages[-1]["content"], prompts.WRONG_ANSWERS_HEAD_END
                ),
            )
            data: Any = result.data or {}
            raw_list = data.get("wrong_answers") if isinstance(data, dict) else None
            if not isinstance(raw_list, list):  # null or a string from an unconstrained model
                raw_list = []
            texts = [str(t) for t in raw_list if isinstance(t, str | int | float)]
        else:
            prompt = prompts.distractors_fewshot(question, answer)
            result = provider.complete(
                prompt,
                max_tokens=60,
                temperature=temperature,
                seed=seed,
                stop=["\n"],
                reuse_prefix=Fixed(shots_of(prompt, "Question: ")),
            )
            texts = result.text.split(";")
    except (OutputParseError, ProviderError) as exc:
        return [], f"the model's distractors could not be read ({exc.message})"
    cleaned = [clean_option(t) for t in texts]
    return [t for t in cleaned if t], ""


def propose_concepts(provider: Provider, profile: str, passage: str, *, seed: int) -> list[str]:
    """Key terms the model thinks a student must learn (each is checked against the passage
    by the caller, so an invented term never becomes a target)."""
    try:
        if profile == "chat":
            result = provider.chat(
                prompts.concepts_chat(passage),
                max_tokens=200,
                temperature=0.0,
                seed=seed,
                json_schema=prompts.CONCEPT_SCHEMA,
            )
            data: Any = result.data or {}
            raw = data.get("key_terms") if isinstance(data, dict) else None
            if not isinstance(raw, list):  # null or a string from an unconstrained model
                raw = []
            terms = [str(t) for t in raw if isinstance(t, str)]
        else:
            result = provider.complete(
                prompts.concepts_fewshot(passage),
                max_tokens=60,
                temperature=0.0,
                seed=seed,
                stop=["\n"],
            )
            terms = result.text.split(";")
    except (OutputParseError, ProviderError):
        return []
    return [t for t in (clean_option(t) for t in terms) if t]


def shots_of(prompt: str, label: str) -> str:
    """A few-shot prompt's instructions and worked examples: everything before its last
    `label` line. Every call of the kind repeats them, so a local model keeps their state."""
    return prompt[: prompt.rfind("\n" + label) + 1]


def clean_line(text: str) -> str:
    text = " ".join(text.split())
    # Few-shot completions sometimes echo the field name or wrap the text in quotes.
    text = re.sub(r"^(question|q)\s*[:.-]\s*", "", text, flags=re.IGNORECASE)
    return text.strip().strip("\"'“”").strip()


def clean_option(text: str) -> str:
    text = clean_line(str(text))
    text = re.sub(r"^([a-d]|\d)[.)]\s+", "", text, flags=re.IGNORECASE)
    return text.rstrip(".").strip()
