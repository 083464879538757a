"""NACo: the A.2 parser, the formulas, the metric's procedure (scripted models) and, marked
slow, the bundled models on real SQuAD items from the NACo paper's data."""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizsmith.domain import Item, Passage, ScoreResult
from quizsmith.errors import OutputParseError
from quizsmith.metrics import naco_prompts, registry
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.naco import (
    CotAnswer,
    NacoMetric,
    NacoParseError,
    complexity_similarity,
    cot_from_json,
    most_common_count,
    naco_combine,
    parse_cot_answer,
    split_passages,
)
from quizsmith.providers.base import ChatResult, ModelInfo, Provider
from quizsmith.settings import Settings

DATA = Path(__file__).parents[2].parent / "shared" / "data" / "naco" / "squad_candidates.jsonl"

WELL_FORMED = """1. The sentence is a question: it starts with "Who" and ends with a \
question mark. It is clear and has no grammar errors.
2. Step by step reasoning:
 (a) Step 1: The passage says the tower was designed by the company of Gustave Eiffel.
 (b) Step 2: So the designer is Gustave Eiffel.
3. Answer: <ans> Gustave Eiffel <ans>"""


# -- parser -----------------------------------------------------------------------------------
def test_parses_the_a2_format() -> None:
    cot = parse_cot_answer(WELL_FORMED)
    assert cot == CotAnswer(
        1,
        "Gustave Eiffel",
        [
            "The passage says the tower was designed by the company of Gustave Eiffel.",
            "So the designer is Gustave Eiffel.",
        ],
        "natural",
    )


@pytest.mark.parametrize(
    ("text", "answer", "n_steps"),
    [
        ("Step 1: x\nStep 2: y\nStep 3: z\nAnswer: <ans>Paris</ans>", "Paris", 3),
        ("**Step 1:** x\n**Step 2:** y\n<ans> Paris", "Paris", 2),
        ("2. Step by step reasoning:\n(a) x\n(b) y\n3. Answer: <ans> [Paris] <ans>", "Paris", 2),
        ("2. Step-by-step reasoning:\n- x\n- y\n- z\n- w\nAnswer: <ans>Paris<ans>", "Paris", 4),
        ("Answer: <ans> Paris <ans>", "Paris", 0),  # no reasoning: 0 steps, still an answer
        ("Step 1: x\nStep 1: x again\nStep 2: y\n<ans>Paris<ans>", "Paris", 2),  # repeats
        ("3. Answer: <ans> <ans>", "", 0),  # empty span: the model found no answer
        # Steps numbered as the prompt's parts, as the 1.5B model writes them on QGEval
        # (the `naco_standard_gpu` study, studies/README.md): they were all missed before.
        (
            "1a: Yes.\n1b: Clear.\n2. Step 1: Analyze the question\nIt asks for a date.\n"
            "3. Step 2: Identify the answer\nThe passage gives it.\n"
            "4. Answer: <ans>July 2015</ans>",
            "July 2015",
            2,
        ),
    ],
)
def test_parses_variants(text: str, answer: str, n_steps: int) -> None:
    cot = parse_cot_answer(text)
    assert (cot.naturalness, cot.answer, len(cot.steps)) == (1, answer, n_steps)


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("1. The sentence is not a question.", "not a question"),
        ("not a question", "not a question"),
        ("1. It is a question, but it is unclear. Question unnatural.", "Question unnatural"),
        ("1. The question is unnatural.\n3. Answer: <ans>Paris<ans>", "Question unnatural"),
    ],
)
def test_reads_the_verdicts_as_a2_words_them(text: str, verdict: str) -> None:
    cot = parse_cot_answer(text)
    assert (cot.naturalness, cot.verdict) == (0, verdict)


@pytest.mark.parametrize(
    "text",
    [
        # echoing the instruction is not a verdict
        "1. (a) Is the sentence a question? Yes. If not, output 'not a question' and stop.\n"
        "(b) If so, output 'Question unnatural'. It is clear.\n3. Answer: <ans>Paris<ans>",
        "1. It is a question, not a statement.\nStep 1: x\n<ans>Paris<ans>",
        "1. The question is not unnatural.\n<ans>Paris<ans>",
        # the phrase quoted after the answer does not count either
        "1. Yes.\n3. Answer: <ans>Paris<ans> (this is not a question of taste)",
    ],
)
def test_adversarial_texts_that_are_natural(text: str) -> None:
    cot = parse_cot_answer(text)
    assert (cot.naturalness, cot.answer) == (1, "Paris")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "The answer is Paris.",
        "1. Yes.\n2. Step 1: Paris is a city.\n3. Answer: Paris",
        "3. Answer: <ans> [answer text] <ans>",  # the format line echoed, nothing else
    ],
)
def test_broken_format_raises_the_parse_error(text: str) -> None:
    with pytest.raises(NacoParseError):
        parse_cot_answer(text)


def test_parse_error_is_an_output_parse_error() -> None:
    # Metric.score turns QuizsmithErrors into "not scored"; the parse error must be one.
    assert issubclass(NacoParseError, OutputParseError)


_pieces = st.sampled_from(
    [
        "<ans>",
        "</ans>",
        "< ans >",
        "Step 1:",
        "Step 2:",
        "step 99999:",
        "(a) ",
        "- ",
        "1. ",
        "3. Answer:",
        "Step by step reasoning:",
        "not a question",
        "Question unnatural",
        "not unnatural",
        "output 'not a question'",
        "[answer text]",
        "\n",
        "\r\n",
        " ",
        "Paris",
        "\u201c",
        "**",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_pieces, st.text(max_size=8)), max_size=40).map("".join))
def test_parser_never_raises_other_errors_nor_leaves_its_ranges(text: str) -> None:
    try:
        cot = parse_cot_answer(text)
    except NacoParseError:
        return
    assert cot.naturalness in (0, 1)
    assert isinstance(cot.answer, str) and "<ans>" not in cot.answer.lower()
    assert all(isinstance(s, str) for s in cot.steps)
    assert len(cot.steps) <= 50
    assert cot.verdict in ("natural", "not a question", "Question unnatural")
    assert (cot.verdict == "natural") == (cot.naturalness == 1)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        _json,
        st.fixed_dictionaries(
            {"natural": _json, "steps": _json, "answer": _json}, optional={"x": _json}
        ),
        st.fixed_dictionaries(
            {
                "natural": st.booleans(),
                "steps": st.lists(st.text(max_size=6), max_size=60),
                "answer": st.text(max_size=10),
            }
        ),
    )
)
def test_json_reader_never_raises_other_errors(data: Any) -> None:
    try:
        cot = cot_from_json(data)
    except NacoParseError:
        return
    assert cot.naturalness in (0, 1) and isinstance(cot.answer, str)
    assert len(cot.steps) <= 50 and all(isinstance(s, str) and s for s in cot.steps)


def test_json_reader_examples() -> None:
    good = cot_from_json({"natural": True, "steps": ["a", " ", "b"], "answer": " Paris "})
    assert good == CotAnswer(1, "Paris", ["a", "b"], "natural")
    assert cot_from_json({"natural": False, "steps": [], "answer": ""}).naturalness == 0
    with pytest.raises(NacoParseError):
        cot_from_json({"natural": "yes", "steps": [], "answer": "Paris"})


# -- formulas ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("steps", "expected", "c"),
    [(2, 2, 1.0), (1, 2, 0.5), (4, 2, 0.5), (3, 2, 2 / 3), (1, 3, 1 / 3), (0, 2, 0.0)],
)
def test_complexity_similarity(steps: int, expected: int, c: float) -> None:
    assert complexity_similarity(steps, expected) == pytest.approx(c)


@pytest.mark.parametrize(("steps", "expected"), [(-1, 2), (2, 0), (2, -3), (True, 2)])
def test_complexity_similarity_rejects_bad_counts(steps: int, expected: int) -> None:
    with pytest.raises(ValueError):
        complexity_similarity(steps, expected)


def test_naco_combine_is_hierarchical() -> None:
    assert naco_combine(0, 1.0, 1.0) == 0.0  # not a question: 0 whatever else
    assert naco_combine(1, 0.0, 1.0) == 0.0  # answer shares nothing with the key: 0
    assert naco_combine(1, 1.0, 1.0) == pytest.approx(1.0)
    assert naco_combine(1, 0.5, 0.5) == pytest.approx((1 + 0.5 + 0.5) / 3)
    # weights are normalised: (2, 1, 1) -> (1/2, 1/4, 1/4)
    assert naco_combine(1, 0.4, 0.0, (2, 1, 1)) == pytest.approx(0.5 + 0.1)


@pytest.mark.parametrize(
    "args",
    [(2, 0.5, 0.5), (1, 1.5, 0.5), (1, 0.5, -0.1), (1, 0.5, 0.5, (0, 0, 0)), (1, 1, 1, (1, 1))],
)
def test_naco_combine_rejects_out_of_range_input(args: tuple[Any, ...]) -> None:
    with pytest.raises(ValueError):
        naco_combine(*args)


@given(
    st.sampled_from([0, 1]),
    st.floats(0, 1),
    st.floats(0, 1),
    st.tuples(st.floats(0, 5), st.floats(0, 5), st.floats(0.01, 5)),
)
def test_naco_combine_stays_in_range(n: int, a: float, c: float, w: tuple[float, ...]) -> None:
    assert 0.0 <= naco_combine(n, a, c, w) <= 1.0


def test_most_common_count_breaks_ties_low() -> None:
    assert most_common_count([3, 2, 3, 2, 4]) == 2
    assert most_common_count([1, 3, 3]) == 3


def test_two_passages() -> None:
    one = Item(type="short", stem="q?", key="k", passage=Passage(text="A. <sep> B."))
    assert split_passages(one) == ["A.", "B."]
    two = Item(
        type="short", stem="q?", key="k", passage=Passage(text="A."), provenance={"passage2": "B."}
    )
    assert split_passages(two) == ["A.", "B."]
    assert "two context passages" in naco_prompts.a2_prompt(["A.", "B."], "q?")
    assert "Context Passage 2: B." in naco_prompts.a2_prompt(["A.", "B."], "q?")
    assert "one context passage " in naco_prompts.a2_prompt(["A."], "q?")


# -- the metric with scripted models ----------------------------------------------------------
class Scripted(Provider):
    """A model that answers from a script: a function of the prompt (and json_schema)."""

    name: ClassVar[str] = "scripted"
    can_chat = True
    can_complete = True

    def __init__(self, label: str, reply: Any, *, local: bool, chat_model: bool = True) -> None:
        self.label, self.reply, self._local, self.is_chat_model = label, reply, local, chat_model
        self.calls: list[dict[str, Any]] = []

    @property
    def is_local(self) -> bool:  # type: ignore[override]
        return self._local

    @property
    def info(self) -> ModelInfo:
        return ModelInfo("scripted", self.label)

    def _answer(self, prompt: str, **kw: Any) -> ChatResult:
        self.calls.append({"prompt": prompt, **kw})
        text = self.reply(prompt, kw)
        data = json.loads(text) if kw.get("json_schema") else None
        return ChatResult(text=text, model=self.label, data=data)

    def chat(self, messages: Sequence[Any], **kw: Any) -> ChatResult:
        return self._answer(messages[-1]["content"], **kw)

    def complete(self, prompt: str, **kw: Any) -> ChatResult:
        return self._answer(prompt, **kw)


def _ctx(qa: Provider, *others: Provider, **kw: Any) -> MetricContext:
    settings_ = Settings(roles={"qa": qa.info.model, "generator": qa.info.model, "judges": []})
    overrides = {p.info.model: p for p in (qa, *others)}
    return MetricContext(settings=settings_, overrides=overrides, **kw)


def _item(question: str = "Whose company designed the Eiffel Tower?", **kw: Any) -> Item:
    passage = Passage(text="The Eiffel Tower was designed by the company of Gustave Eiffel.")
    return Item(type="short", stem=question, key="Gustave Eiffel", passage=passage, **kw)


def test_registry_finds_the_metric() -> None:
    assert registry.get("naco") is NacoMetric


def test_chat_profile_scores_the_a2_answer() -> None:
    api = Scripted("api", lambda p, kw: WELL_FORMED, local=False)
    result = NacoMetric().score(_item(), _ctx(api))
    assert result.scored
    # n = 1, a = 1, 2 steps vs E = 2 -> c = 1; three API samples (paper: 3 runs) all agree
    assert result.value == pytest.approx(1.0)
    assert result.values["steps"] == 2 and result.values["expected"] == 2
    assert len(result.values["samples"]) == 3 and len(api.calls) == 3
    assert [c["temperature"] for c in api.calls] == [0.7] * 3
    assert [c["seed"] for c in api.calls] == [0, 1, 2]
    assert result.model_config["profile"] == "chat"
    assert result.model_config["qa"]["prompt"] == naco_prompts.A2_ID
    assert result.evidence["reasoning"][0][0].startswith("The passage says")
    assert "Step 1" not in api.calls[0]["prompt"] or "Context Passage 1" in api.calls[0]["prompt"]


def test_a_non_question_scores_zero() -> None:
    api = Scripted("api", lambda p, kw: "1. The sentence is not a question.", local=False)
    result = NacoMetric().score(_item("The tower is in Paris."), _ctx(api))
    assert result.value == 0.0 and result.values["n"] == 0
    codes = [f.code for f in NacoMetric().flags(result, NacoMetric.defaults)]
    assert codes == ["not-a-question"]


def test_broken_format_is_retried_with_constrained_output() -> None:
    def reply(prompt: str, kw: dict[str, Any]) -> str:
        if kw.get("json_schema"):
            return json.dumps({"natural": True, "steps": ["x"], "answer": "Eiffel"})
        return "The tower was designed by Eiffel."

    api = Scripted("api", reply, local=False)
    result = NacoMetric().score(_item(), _ctx(api))
    assert result.scored and result.evidence["retried"] == 3
    # a = F1("Eiffel", "Gustave Eiffel") = 2/3; c = min(1/2, 2/1) = 1/2
    assert result.values["a"] == pytest.approx(2 / 3)
    assert result.value == pytest.approx((1 + 2 / 3 + 0.5) / 3)
    assert naco_prompts.A2_STRICT_ID in result.evidence["prompts"]
    codes = {f.code for f in NacoMetric().flags(result, NacoMetric.defaults)}
    assert codes == set()  # a = 0.67 >= 0.5, c = 0.5 is not < 0.5


def test_unreadable_after_the_retry_is_not_scored() -> None:
    def reply(prompt: str, kw: dict[str, Any]) -> str:
        return '{"answer": 3}' if kw.get("json_schema") else "no idea"

    result = NacoMetric().score(_item(), _ctx(Scripted("api", reply, local=False)))
    assert not result.scored and result.value is None
    assert "could not be read" in (result.not_scored_reason or "")


def test_expected_complexity_from_the_bank_and_flags() -> None:
    reply = "Step 1: x\n<ans>Eiffel Tower<ans>"  # a = F1 vs "Gustave Eiffel" = 0.5, 1 step
    api = Scripted("api", lambda p, kw: reply, local=False)
    ctx = _ctx(api, expected_complexity=lambda subject: 3 if subject == "history" else None)
    result = NacoMetric().score(_item(subject="history"), ctx)
    assert result.values["expected"] == 3 and "mode" in result.evidence["expected_source"]
    assert result.values["c"] == pytest.approx(1 / 3)
    flags = NacoMetric().flags(result, {**NacoMetric.defaults, "answer_threshold": 0.6})
    assert [f.code for f in flags] == ["answer-differs", "too-easy"]
    other = NacoMetric().score(_item(subject="art"), ctx)
    assert other.values["expected"] == 2 and "default" in other.evidence["expected_source"]


def test_fewshot_profile_uses_the_verdict_answer_and_steps_prompts() -> None:
    def instruct_reply(prompt: str, kw: dict[str, Any]) -> str:
        return "1. Is the sentence a question? Yes, it asks who."

    def base_reply(prompt: str, kw: dict[str, Any]) -> str:
        if prompt.endswith("Step 1:"):
            return " The passage names the company.\nStep 2: It is Eiffel's."
        return " Gustave Eiffel"

    instruct = Scripted("smollm2-135m-instruct", instruct_reply, local=True)
    base = Scripted("gemma3-270m", base_reply, local=True, chat_model=False)
    settings_ = Settings(roles={"qa": "gemma3-270m", "generator": "smollm2-135m-instruct"})
    ctx = MetricContext(settings=settings_, overrides={p.info.model: p for p in (instruct, base)})
    result = NacoMetric().score(_item(), ctx)
    assert result.scored and result.value == pytest.approx(1.0)
    assert result.model_config["profile"] == "fewshot"
    assert result.model_config["verdict"]["model"] == "smollm2-135m-instruct"
    assert result.model_config["answer"]["model"] == "gemma3-270m"
    assert len(instruct.calls) == 1 and len(base.calls) == 2  # k_local = 1
    assert base.calls[0]["stop"] == ["\n"] and base.calls[0]["temperature"] == 0.0
    # a non-question stops after the verdict, as A.2 tells the model to
    instruct.reply = lambda p, kw: "1. Not a question."
    result = NacoMetric().score(_item("The tower is tall."), ctx)
    assert result.value == 0.0 and len(base.calls) == 2


@pytest.mark.parametrize(
    ("head", "verdict"),
    [
        ("1. Yes, it asks who.", "natural"),
        ("1. The sentence is not a question.", "not a question"),
        ("1 (b): Question unnatural\n2. Step by step reasoning", "Question unnatural"),
        # part 2 is reasoning, not the verdict A.2 asks for in part 1
        ("1. Yes, it asks who.\n2. Step by step: it is not a question of money", "natural"),
        ("1. Yes.\n 2) Question unnatural", "natural"),
        # echoing the instruction is not a verdict
        ("1. If not, output 'not a question' and stop. It is one.", "natural"),
    ],
)
def test_fewshot_verdict_reads_part_one_only(head: str, verdict: str) -> None:
    from quizsmith.metrics.naco_parse import fewshot_verdict

    assert fewshot_verdict(head) == verdict


def test_fewshot_verdict_stops_where_part_two_begins() -> None:
    instruct = Scripted("smollm2-135m-instruct", lambda p, kw: "1. Yes.", local=True)
    base = Scripted("gemma3-270m", lambda p, kw: " Gustave Eiffel", local=True, chat_model=False)
    settings_ = Settings(roles={"qa": "gemma3-270m", "generator": "smollm2-135m-instruct"})
    ctx = MetricContext(settings=settings_, overrides={p.info.model: p for p in (instruct, base)})
    NacoMetric().score(_item(), ctx)
    call = instruct.calls[0]
    assert list(call["stop"]) == ["\n2.", "\n2)"] and call["max_tokens"] == 64
    # A backend that ignores stop strings (or writes part 2 differently) gives the same verdict.
    instruct.reply = lambda p, kw: "1. Yes.\n2. Step 1: not a question of taste."
    assert NacoMetric().score(_item(), ctx).values["n"] == 1


def test_cancel_between_calls() -> None:
    from quizsmith.errors import CancelledError

    api = Scripted("api", lambda p, kw: WELL_FORMED, local=False)
    ctx = _ctx(api)
    ctx.cancel.cancel()
    with pytest.raises(CancelledError):
        NacoMetric().score(_item(), ctx)


# -- the bundled models on real items ---------------------------------------------------------
def _rows(n: int) -> list[dict[str, Any]]:
    if not DATA.exists():
        pytest.skip(f"the NACo SQuAD data is not at {DATA}")
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    return rows[:: len(rows) // n][:n]


def _real(row: dict[str, Any], question: str) -> Item:
    return Item(
        type="short", stem=question, key=row["answer"], passage=Passage(text=row["context"])
    )


@pytest.mark.slow
def test_bundled_models_rank_reference_questions_above_unrelated_ones(smollm, gemma) -> None:
    rows = _rows(8)
    ctx = MetricContext(overrides={"smollm2-135m-instruct": smollm, "gemma3-270m": gemma})
    metric = NacoMetric()
    # No statement group: with answers chosen by likelihood (the default, measured to agree
    # better with people), a statement made from the question finds the key as often as the
    # question does, and the 135M verdict rarely calls it "not a question" (docs/metrics/
    # naco-profiles.md). Statements are caught by the overall estimate's is_question signal
    # (tests/quality/test_overall_metric.py).
    groups: dict[str, list[ScoreResult]] = {"refq": [], "unrelated": []}
    for i, row in enumerate(rows):
        groups["refq"].append(metric.score(_real(row, row["refq"]), ctx))
        other = rows[(i + 3) % len(rows)]["refq"]
        groups["unrelated"].append(metric.score(_real(row, other), ctx))
    for results in groups.values():
        for r in results:
            assert r.scored, r.not_scored_reason
            assert 0.0 <= r.value <= 1.0  # type: ignore[operator]
            assert r.model_config["profile"] == "fewshot"
            assert isinstance(r.values["steps"], int)
    mean = {g: statistics.fmean(r.value for r in rs) for g, rs in groups.items()}  # type: ignore[misc]
    assert mean["refq"] > mean["unrelated"]
    assert statistics.fmean(r.values["a"] for r in groups["refq"]) > 0.1
