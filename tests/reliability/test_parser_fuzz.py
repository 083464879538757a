"""Model output fuzzing: random, truncated, over-long, wrong-schema and adversarial texts fed
to every parser of model output. A parser may only answer with its documented error
(OutputParseError and its subclasses); a metric may only answer "not scored" or a value in
its range; generation may only drop the output with a reason."""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizsmith.domain import Item, Passage, ScoreResult
from quizsmith.errors import OutputParseError
from quizsmith.generation import writer
from quizsmith.jobs import CancelToken
from quizsmith.metrics import mre, naco
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.mirror import MirrorMetric, parse_review
from quizsmith.metrics.naco import NacoMetric, cot_from_json, parse_cot_answer
from quizsmith.providers.base import parse_json_output
from quizsmith.settings import Settings

from .conftest import ScriptedProvider, all_roles_to

# Examples per property. The pure parsers are fast; the metric-level ones build a context
# and run the metric's whole scoring path per example. QUIZSMITH_FUZZ_EXAMPLES=5000 searches
# harder (a few minutes).
PARSER_EXAMPLES = int(os.environ.get("QUIZSMITH_FUZZ_EXAMPLES", "400"))
METRIC_EXAMPLES = max(1, PARSER_EXAMPLES * 3 // 8)
FUZZ = settings(
    max_examples=PARSER_EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
FUZZ_METRIC = settings(
    max_examples=METRIC_EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)

# -- what models write ---------------------------------------------------------------------
VALID_A2 = (
    "1. Yes, it is a question.\n2. Step by step reasoning:\n (a) Step 1: The passage says "
    "the tower was built in 1889.\n (b) Step 2: So the year is 1889.\n3. Answer: <ans> 1889 "
    "<ans>"
)
VALID_NACO_JSON = json.dumps({"natural": True, "steps": ["It says 1889."], "answer": "1889"})
VALID_REVIEW = json.dumps(
    {
        "strengths": ["Clear wording"],
        "flaws": ["Too easy"],
        "scores": {c: 3 for c in ("grammaticality", "appropriateness", "relevance")}
        | {"novelty": 2, "complexity": 4},
    }
)
VALID_STEM = json.dumps({"question": "In what year was the tower built?"})
VALID_DISTRACTORS = json.dumps({"wrong_answers": ["1901", "1875", "1920"]})
VALID_OUTPUTS = (
    VALID_A2,
    VALID_NACO_JSON,
    VALID_REVIEW,
    VALID_STEM,
    VALID_DISTRACTORS,
    "1. What year was the tower finished?",
    "1901; 1875; 1920",
)
# Pieces that parsers look for, in hostile combinations.
ADVERSARIAL_TOKENS = (
    "<ans>", "</ans>", "< ans >", "<ans", "ans>", "[answer text]", "not a question",
    "Question unnatural", "is not unnatural", "output 'not a question'", "Step 1:", "Step 2:",
    "Step 99999999999999999999:", "step:", "**Step 3**", "(a)", "a.", "3. Answer:",
    "Step by step reasoning:", "```", "```json\n", "{", "}", "[", "]", '"', "\\", "\\u0000",
    "\x00", "\r\n", "\n", "\u202e", "\ufeff", "\u200b", "😀", "مرحبا", "שלום", "北京",
    '{"natural": true', '"steps": [', '"answer": null', '"scores": {"grammaticality": 6}',
    "NaN", "Infinity", "-0", "1e999", "true", "null", "Sentence:", "1.", "Q:", "Question:",
    "; ;", ";", "A) ", "\t", " " * 50,
)  # fmt: skip

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5)
    ),
    max_leaves=25,
)
naco_shaped = st.fixed_dictionaries(
    {}, optional={"natural": json_values, "steps": json_values, "answer": json_values}
)
review_shaped = st.fixed_dictionaries(
    {},
    optional={
        "strengths": json_values,
        "flaws": json_values,
        "scores": st.dictionaries(
            st.sampled_from(
                ["grammaticality", "appropriateness", "relevance", "novelty", "complexity", "x"]
            ),
            json_values | st.integers(-3, 9),
            max_size=6,
        ),
    },
)
generation_shaped = st.fixed_dictionaries(
    {},
    optional={"question": json_values, "wrong_answers": json_values, "key_terms": json_values},
)


def _dumps(value: Any) -> str:
    return json.dumps(value, allow_nan=True)


model_outputs = st.one_of(
    # random text, including control characters and every Unicode plane
    st.text(max_size=600),
    st.binary(max_size=300).map(lambda b: b.decode("latin-1")),
    # truncated: a valid answer cut anywhere
    st.builds(lambda s, i: s[:i], st.sampled_from(VALID_OUTPUTS), st.integers(0, 400)),
    # wrong schema: any JSON, and JSON with the right keys holding the wrong things
    json_values.map(_dumps),
    naco_shaped.map(_dumps),
    review_shaped.map(_dumps),
    generation_shaped.map(_dumps),
    # code fences and prose around JSON
    st.builds(
        lambda pre, body, post: f"{pre}```json\n{body}\n```{post}",
        st.text(max_size=30),
        json_values.map(_dumps),
        st.text(max_size=30),
    ),
    # adversarial: the parsers' own markers, shuffled
    st.lists(st.sampled_from(ADVERSARIAL_TOKENS) | st.text(max_size=8), max_size=40).map("".join),
    # over-long: a valid (or hostile) answer repeated
    st.builds(
        lambda s, n: s * n,
        st.sampled_from(VALID_OUTPUTS + ADVERSARIAL_TOKENS),
        st.integers(20, 300),
    ),
)


# -- the pure parsers ------------------------------------------------------------------------
@FUZZ
@given(text=model_outputs)
def test_parse_json_output_returns_json_or_raises_output_parse_error(text: str) -> None:
    try:
        parse_json_output(text)
    except OutputParseError as exc:
        assert exc.fix


@FUZZ
@given(text=model_outputs)
def test_parse_cot_answer_reads_or_raises_naco_parse_error(text: str) -> None:
    try:
        cot = parse_cot_answer(text)
    except naco.NacoParseError:
        return
    assert cot.naturalness in (0, 1)
    assert isinstance(cot.answer, str)
    assert len(cot.steps) <= 50 and all(isinstance(s, str) for s in cot.steps)
    assert cot.verdict in ("natural", "not a question", "Question unnatural")


@FUZZ
@given(data=json_values | naco_shaped)
def test_cot_from_json_reads_or_raises_naco_parse_error(data: Any) -> None:
    try:
        cot = cot_from_json(data)
    except naco.NacoParseError:
        return
    assert cot.naturalness in (0, 1) and isinstance(cot.answer, str)
    assert len(cot.steps) <= 50


@FUZZ
@given(text=model_outputs)
def test_json_fallback_chain_of_naco(text: str) -> None:
    """The constrained retry's path: text -> parse_json_output -> cot_from_json."""
    with contextlib.suppress(OutputParseError):
        cot_from_json(parse_json_output(text))


@FUZZ
@given(data=json_values | review_shaped)
def test_parse_review_reads_or_raises_output_parse_error(data: Any) -> None:
    try:
        review = parse_review(data)
    except OutputParseError:
        return
    assert set(review.scores) == {
        "grammaticality",
        "appropriateness",
        "relevance",
        "novelty",
        "complexity",
    }
    assert all(type(v) is int and 1 <= v <= 5 for v in review.scores.values())
    assert all(isinstance(s, str) and s for s in review.strengths + review.flaws)


@FUZZ
@given(text=model_outputs)
def test_clean_paraphrase_gives_one_line(text: str) -> None:
    line = mre.clean_paraphrase(text)
    assert isinstance(line, str) and "\n" not in line and "\r" not in line


@FUZZ
@given(text=model_outputs, answer=st.sampled_from(["1889", "Gustave Eiffel", "", "§", "a"]))
def test_generation_line_cleaners_and_stem_checks(text: str, answer: str) -> None:
    stem = writer.clean_line(text)
    assert stem == stem.strip()
    option = writer.clean_option(text)
    assert isinstance(option, str)
    reason = writer.stem_problem(stem, answer, "The tower was built in 1889 by Gustave Eiffel.")
    assert isinstance(reason, str)
    if not reason:
        assert stem.endswith("?") and 3 <= len(stem.split()) <= writer.MAX_STEM_WORDS


def test_a_one_megabyte_answer_is_parsed_quickly() -> None:
    """Regular expressions over a runaway answer must stay linear (no catastrophic
    backtracking): every parser gets 1 MB of hostile text within a few seconds."""
    hostile = [
        "Step " * 200_000,
        "<ans " * 200_000,
        "(a) " * 250_000,
        "question " * 110_000 + "unnatural",
        "{" * 1_000_000,
        "```" + "a" * 1_000_000,
        "Step by step reasoning:\n" + "(a) x\n" * 160_000,
    ]
    for text in hostile:
        started = time.perf_counter()
        with contextlib.suppress(naco.NacoParseError):
            parse_cot_answer(text)
        with contextlib.suppress(OutputParseError):
            parse_json_output(text)
        mre.clean_paraphrase(text)
        writer.stem_problem(writer.clean_line(text), "1889", "fact")
        assert time.perf_counter() - started < 10, text[:40]


# -- parsers inside metrics, driven through a provider that returns the fuzzed text ----------
ITEM = Item(
    type="mcq",
    stem="In what year was the Eiffel Tower built?",
    key="1889",
    options=Item.make_options("1889", ["1901", "1875", "1920"]),
    target_fact="The Eiffel Tower was built for the 1889 World's Fair.",
    passage=Passage(text="The Eiffel Tower was built for the 1889 World's Fair in Paris."),
    reference="When was the Eiffel Tower built?",
)


def _ctx(provider: ScriptedProvider, **metrics: Any) -> MetricContext:
    return MetricContext(
        settings=Settings(n_threads=1, metrics=metrics),
        cancel=CancelToken(),
        overrides=all_roles_to(provider),
    )


def _check(result: ScoreResult, low: float = 0.0, high: float = 1.0) -> None:
    if result.scored:
        assert result.value is not None and not math.isnan(result.value)
        assert low <= result.value <= high
    else:
        assert result.value is None and result.not_scored_reason


@FUZZ_METRIC
@given(texts=st.lists(model_outputs, min_size=1, max_size=4), api=st.booleans())
def test_naco_scores_or_says_not_scored(texts: list[str], api: bool) -> None:
    # api=True: an API qa model, so the chat profile with the A.2 parser and its JSON retry;
    # api=False: the fewshot profile (verdict, answer and steps from three calls).
    provider = ScriptedProvider(texts, local=not api)
    _check(NacoMetric().score(ITEM, _ctx(provider, naco={"k_api": 2})))


@FUZZ_METRIC
@given(texts=st.lists(model_outputs, min_size=1, max_size=6))
def test_mirror_scores_or_says_not_scored(texts: list[str]) -> None:
    provider = ScriptedProvider(texts)
    result = MirrorMetric().score(ITEM, _ctx(provider, mirror={"max_rounds": 3, "retries": 1}))
    _check(result)
    if result.scored:
        assert all(1 <= result.values[c] <= 5 for c in ("grammaticality", "novelty"))


@FUZZ
@given(texts=st.lists(model_outputs, min_size=1, max_size=3), chat=st.booleans())
def test_stem_writer_keeps_a_usable_question_or_says_why_not(texts: list[str], chat: bool) -> None:
    provider = ScriptedProvider(texts)
    written = writer.write_stem(
        provider,
        "chat" if chat else "fewshot",
        "The Eiffel Tower was built for the 1889 World's Fair in Paris.",
        "1889",
        difficulty=None,
        seed=0,
        temperature=0.0,
    )
    if written.text is None:
        assert written.reason
    else:
        assert written.text.endswith("?") and not written.reason


@FUZZ
@given(texts=st.lists(model_outputs, min_size=1, max_size=2), chat=st.booleans())
def test_distractor_and_concept_lists_are_clean_strings(texts: list[str], chat: bool) -> None:
    profile = "chat" if chat else "fewshot"
    options, note = writer.propose_distractors(
        ScriptedProvider(texts), profile, "In what year?", "1889", "fact", seed=0
    )
    assert all(isinstance(o, str) and o and o == o.strip() for o in options)
    assert isinstance(note, str)
    terms = writer.propose_concepts(ScriptedProvider(texts), profile, "A passage.", seed=0)
    assert all(isinstance(t, str) and t for t in terms)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(texts=st.lists(model_outputs, min_size=1, max_size=5))
def test_mre_scores_or_says_not_scored(texts: list[str]) -> None:
    # The paraphrases come from the fuzzed text; the similarity scores are the real MiniLM ones.
    provider = ScriptedProvider(texts)
    _check(mre.MreMetric().score(ITEM, _ctx(provider, mre={"n_paraphrases": 3})))


def test_parse_json_output_reads_a_raw_newline_inside_a_string() -> None:
    # What SmolLM2 wrote through llama.cpp's server with a schema grammar (a real answer).
    text = '{ "question": "Paris is the capital of France", "answer": "Q: Which city?\nA: Paris" } '
    assert parse_json_output(text) == {
        "question": "Paris is the capital of France",
        "answer": "Q: Which city?\nA: Paris",
    }
    with pytest.raises(OutputParseError):
        parse_json_output('{"question": "unterminated')
