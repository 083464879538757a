"""KDA (kda paper, eqs. 2 and 3), the solvers it uses, windows, flags, and a real-model run.

Formulas are checked on hand-computed probabilities; the solvers on scripted providers (so the
mapping from a shuffled presentation back to the item's order is exact); the real models only
on ranges and invariants.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizsmith.domain import Item, Passage, ScoreResult
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.kda import KdaMetric, fact_for, kda_cont, kda_disc
from quizsmith.metrics.solvers import (
    EmbeddingSolver,
    LetterChoiceSolver,
    OptionLikelihoodSolver,
    make_windows,
    presented,
    solve_windowed,
    split_sentences,
)
from quizsmith.providers.base import ModelInfo, OptionLogprob, Provider, Reusable
from quizsmith.settings import Settings
from support.squad import squad_mcqs as shared_squad_mcqs

DATA = Path(__file__).parents[2].parent / "shared" / "data"
SQUAD = DATA / "naco" / "squad_candidates.jsonl"


# -- the formulas ----------------------------------------------------------------------------
def test_kda_disc_hand_computed() -> None:
    # Solvers 1 and 2 are wrong without the fact; only solver 1 is right with it: 1/2.
    assert kda_disc([False, False, True], [True, False, True]) == pytest.approx(0.5)
    assert kda_disc([False, False], [True, True]) == 1.0
    assert kda_disc([False, True], [False, True]) == 0.0
    # Solvers right without the fact do not count, whatever they do with it.
    assert kda_disc([True, False, True], [False, True, False]) == 1.0


def test_kda_disc_undefined_when_all_right_without_fact() -> None:
    assert kda_disc([True, True, True], [True, False, True]) is None


def test_kda_cont_hand_computed() -> None:
    # (0.8*0.9 + 0.5*0.4) / (0.8 + 0.5) = 0.92 / 1.3
    assert kda_cont([0.2, 0.5], [0.9, 0.4]) == pytest.approx(0.92 / 1.3)
    # A solver certain of the key without the fact has weight 0.
    assert kda_cont([1.0, 0.25], [0.0, 1.0]) == pytest.approx(1.0)
    assert kda_cont([0.25, 0.25], [0.25, 0.25]) == pytest.approx(0.25)


def test_kda_cont_zero_denominator_is_undefined() -> None:
    assert kda_cont([1.0, 1.0], [0.3, 0.9]) is None


@pytest.mark.parametrize(
    ("wof", "wf"),
    [([0.5], [0.5, 0.5]), ([], [])],
)
def test_kda_rejects_mismatched_or_empty(wof: list[float], wf: list[float]) -> None:
    with pytest.raises(ValueError):
        kda_cont(wof, wf)
    with pytest.raises(ValueError):
        kda_disc([p > 0.5 for p in wof], [p > 0.5 for p in wf])


def test_kda_cont_rejects_non_probabilities() -> None:
    with pytest.raises(ValueError):
        kda_cont([1.2], [0.5])


@given(
    st.lists(
        st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.booleans(), st.booleans()),
        min_size=1,
        max_size=12,
    )
)
def test_kda_values_in_range(rows: list[tuple[float, float, bool, bool]]) -> None:
    cont = kda_cont([r[0] for r in rows], [r[1] for r in rows])
    disc = kda_disc([r[2] for r in rows], [r[3] for r in rows])
    assert cont is None or 0.0 <= cont <= 1.0
    assert disc is None or 0.0 <= disc <= 1.0
    if all(r[2] for r in rows):
        assert disc is None


# -- scripted providers ------------------------------------------------------------------------
class ScriptedLLM(Provider):
    """Scores an option by its text only, wherever it is presented: letter X gets the score of
    the option listed as "X. text" in the question block; a likelihood continuation " text" gets
    the score of that text. Adds `bonus` to the key's text when a "Text:" line is present."""

    name: ClassVar[str] = "scripted"
    can_logprob = True

    def __init__(self, scores: dict[str, float], key: str = "", bonus: float = 0.0) -> None:
        self.scores, self.key, self.bonus = scores, key, bonus
        self.prompts: list[str] = []

    @property
    def info(self) -> ModelInfo:
        return ModelInfo(self.name, "scripted-llm")

    def _score(self, text: str, prefix: str) -> float:
        # Only the question itself counts, not the worked example before it.
        has_text = "Text:" in prefix[prefix.rfind("\n\n") + 1 :]
        return self.scores[text] + (self.bonus if has_text and text == self.key else 0.0)

    def option_logprobs(
        self, prefix: str, options: Sequence[str], *, reuse_prefix: Reusable = ""
    ) -> list[OptionLogprob]:
        assert prefix.startswith(reuse_prefix)
        self.prompts.append(prefix)
        block = prefix.rsplit("Question:", 1)[1]
        listed = dict(re.findall(r"^([A-J])\. (.*)$", block, flags=re.M))
        out = []
        for o in options:
            text = listed[o.strip()] if o.strip() in listed else o.strip()
            s = self._score(text, prefix)
            out.append(OptionLogprob(o, s, s, 1))
        return out


class ScriptedEmbedder(Provider):
    name: ClassVar[str] = "scripted-emb"
    can_embed = True

    @property
    def info(self) -> ModelInfo:
        return ModelInfo(self.name, "scripted-emb")

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0, float(len(t) % 5), float("Paris" in t)] for t in texts]


class NoLogprobs(Provider):
    name: ClassVar[str] = "chat-only"
    can_chat = True

    @property
    def info(self) -> ModelInfo:
        return ModelInfo(self.name, "chat-only")


OPTIONS = ["Paris", "Rome", "Madrid", "Berlin"]
SCORES = {"Paris": -1.0, "Rome": -2.0, "Madrid": -0.5, "Berlin": -3.0}


def _softmax(xs: list[float]) -> list[float]:
    m = max(xs)
    e = [math.exp(x - m) for x in xs]
    return [v / sum(e) for v in e]


@pytest.mark.parametrize("seed", [0, 1, 2, 7, 123])
def test_letter_solver_maps_shuffled_order_back(seed: int) -> None:
    solver = LetterChoiceSolver(ScriptedLLM(SCORES))
    out = solver.probabilities(None, "What is the capital of France?", OPTIONS, seed)
    assert math.fsum(out.probs) == pytest.approx(1.0)
    assert list(out.probs) == pytest.approx(_softmax([SCORES[o] for o in OPTIONS]))
    assert sorted(out.order) == [0, 1, 2, 3]
    assert out.choice == OPTIONS.index("Madrid")
    # The evidence string names what each letter showed, in the order used.
    assert presented(out, OPTIONS) == ", ".join(
        f"{'ABCD'[k]}={OPTIONS[i]}" for k, i in enumerate(out.order)
    )


def test_letter_solver_order_is_seeded() -> None:
    solver = LetterChoiceSolver(ScriptedLLM(SCORES))
    orders = {solver.probabilities(None, "Q?", OPTIONS, s).order for s in range(12)}
    assert len(orders) > 1  # shuffled at all
    again = solver.probabilities(None, "Q?", OPTIONS, 5).order
    assert again == solver.probabilities(None, "Q?", OPTIONS, 5).order


def test_letter_prompt_shape_and_fewshot() -> None:
    provider = ScriptedLLM(SCORES)
    solver = LetterChoiceSolver(provider)
    assert solver.profile == "fewshot"  # a small local model without chat template
    solver.probabilities("Paris is the capital of France.", "Capital?", OPTIONS, 0)
    prompt = provider.prompts[-1]
    assert prompt.endswith("Answer:")
    assert "Text: Paris is the capital of France.\nQuestion: Capital?\nA. " in prompt
    assert prompt.count("Question:") == 2  # one worked example, then the question
    solver.probabilities(None, "Capital?", OPTIONS, 0)
    assert "Text:" not in provider.prompts[-1]  # example and question have the same shape


def test_likelihood_and_embedding_solvers() -> None:
    like = OptionLikelihoodSolver(ScriptedLLM(SCORES)).probabilities(None, "Q?", OPTIONS, 3)
    assert list(like.probs) == pytest.approx(_softmax([SCORES[o] for o in OPTIONS]))
    assert like.order == (0, 1, 2, 3)
    emb = EmbeddingSolver(ScriptedEmbedder()).probabilities("Paris!", "Q?", OPTIONS, 0)
    assert math.fsum(emb.probs) == pytest.approx(1.0)
    assert all(0.0 <= p <= 1.0 for p in emb.probs)


def test_solver_needs_two_options() -> None:
    with pytest.raises(ValueError):
        LetterChoiceSolver(ScriptedLLM(SCORES)).probabilities(None, "Q?", ["Paris"], 0)


# -- windows ---------------------------------------------------------------------------------
def test_windows_cover_text_and_fit() -> None:
    sentences = [f"Sentence number {i} says something about topic {i}." for i in range(20)]
    text = " ".join(sentences)
    assert split_sentences(text) == sentences
    windows = make_windows(text, lambda w: len(w) <= 200)
    assert len(windows) >= 3
    assert all(len(w) <= 200 for w in windows)
    for s in sentences:
        assert any(s in w for w in windows)
    # Consecutive windows share a sentence.
    for a, b in itertools.pairwise(windows):
        assert split_sentences(a)[-1] == split_sentences(b)[0]


def test_window_cuts_an_overlong_sentence() -> None:
    text = " ".join(["word"] * 100) + "."
    windows = make_windows(text, lambda w: len(w) <= 60)
    assert all(len(w) <= 60 for w in windows)
    assert sum(w.count("word") for w in windows) >= 100


def test_solve_windowed_keeps_best_window() -> None:
    provider = ScriptedLLM(SCORES, key="Paris", bonus=0.0)
    solver = LetterChoiceSolver(provider)
    text = " ".join(f"Filler sentence {i} about nothing in particular." for i in range(30))
    # A char budget forces windows (the scripted provider has no tokenizer).
    solver.fits = lambda c, s, o: len(c or "") <= 300  # type: ignore[method-assign]
    out = solve_windowed(solver, text, "Q?", OPTIONS, 0, best=lambda o: o.probs[0])
    assert out.n_windows >= 3
    assert 0 <= out.window < out.n_windows


# -- the metric on scripted models -------------------------------------------------------------
def _item(stem: str = "What is the capital of France?", fact: str = "") -> Item:
    return Item(
        type="mcq",
        stem=stem,
        key="Paris",
        options=Item.make_options("Paris", ["Rome", "Madrid", "Berlin"]),
        target_fact=fact,
        passage=Passage(text="France is in Europe. Its capital is Paris. Rome is in Italy."),
    )


def _scripted_ctx(scores: dict[str, float], bonus: float) -> MetricContext:
    settings = Settings()
    settings.roles["solvers"] = ["llm-a", "chat-only"]
    settings.roles["embeddings"] = "emb"
    return MetricContext(
        settings=settings,
        overrides={
            "llm-a": ScriptedLLM(scores, key="Paris", bonus=bonus),
            "chat-only": NoLogprobs(),
            "emb": ScriptedEmbedder(),
        },
    )


def test_metric_on_scripted_solvers() -> None:
    ctx = _scripted_ctx(SCORES, bonus=5.0)
    result = KdaMetric().score(_item(fact="The capital of France is Paris."), ctx)
    assert result.scored, result.not_scored_reason
    assert result.value is not None and 0.0 <= result.value <= 1.0
    assert result.values["n_solvers"] == 3
    assert "chat-only" in result.evidence["skipped_solvers"]
    rows = result.evidence["solvers"]
    assert {r["solver"] for r in rows} == {
        "scripted-llm/letter",
        "scripted-llm/likelihood",
        "scripted-emb/embedding",
    }
    for row in rows:
        for cond in ("without_fact", "with_fact"):
            assert set(row[cond]) == set(OPTIONS)
            assert math.fsum(row[cond].values()) == pytest.approx(1.0, abs=1e-3)
        assert row["order"].startswith("A=")
    # The LLM solvers are wrong without the fact (Madrid) and right with it (+5 to the key).
    llm_rows = [r for r in rows if r["solver"].startswith("scripted-llm")]
    assert all(r["choice_without_fact"] == "Madrid" for r in llm_rows)
    assert all(r["right_with_fact"] for r in llm_rows)
    assert result.evidence["fact_source"] == "target fact"
    expected = kda_cont(
        [r["p_key_without_fact"] for r in rows], [r["p_key_with_fact"] for r in rows]
    )
    assert result.value == pytest.approx(expected)
    assert result.model_config["solvers"][0]["profile"] == "fewshot"


def test_metric_all_right_without_fact() -> None:
    scores = {"Paris": 0.0, "Rome": -5.0, "Madrid": -5.0, "Berlin": -5.0}
    ctx = _scripted_ctx(scores, bonus=0.0)
    ctx.settings.metrics["kda"] = {"embedding_solver": False}
    metric = KdaMetric()
    result = metric.score(_item(), ctx)
    assert result.values["kda_disc"] is None
    assert "answerable without the fact" in result.values["kda_disc_reason"]
    codes = {f.code for f in metric.flags(result, ctx.options(metric))}
    assert "answerable-without-passage" in codes
    # Rome, Madrid and Berlin get about 0.006 each: never chosen.
    assert "distractor-never-chosen" in codes


def test_fact_fallbacks() -> None:
    assert fact_for(_item(fact="Paris is the capital."))[1] == "target fact"
    text, source = fact_for(_item())
    assert text == "Its capital is Paris." and "containing the key" in source


def _result(distractors: list[dict[str, Any]], value: float = 0.5, **values: Any) -> ScoreResult:
    return ScoreResult(
        metric="kda",
        value=value,
        values=values,
        evidence={"distractors": distractors, "key_words_in_stem": {"all_in_stem": False}},
    )


def _d(option: str, wof: int, wf: int, p: float, n: int = 4) -> dict[str, Any]:
    return {
        "option": option,
        "chosen_without_fact": wof,
        "chosen_with_fact": wf,
        "mean_p_without_fact": p,
        "mean_p_with_fact": p,
        "n_solvers": n,
    }


def test_flags_from_hand_made_numbers() -> None:
    metric = KdaMetric()
    opts = dict(metric.defaults)
    result = _result([_d("Lyon", 1, 3, 0.3), _d("Rome", 0, 0, 0.01), _d("Oslo", 2, 1, 0.2)])
    codes = [f.code for f in metric.flags(result, opts)]
    assert codes.count("two-options-correct") == 1  # Lyon: 3 of 4 with the fact
    assert codes.count("distractor-never-chosen") == 1  # Rome
    assert "kda-weak" not in codes
    weak = metric.flags(_result([], value=0.29), opts)
    assert [f.code for f in weak] == ["kda-weak"]
    assert metric.flags(_result([], value=0.3), opts) == []
    # Thresholds come from the options (settings can change them).
    assert metric.flags(_result([], value=0.35), {**opts, "weak_below": 0.4})


def test_key_in_stem_flag_without_models() -> None:
    metric = KdaMetric()
    info = metric._key_in_stem(_item(stem="Paris is the capital of which country, Paris?"))
    assert info["all_in_stem"]
    assert not metric._key_in_stem(_item())["all_in_stem"]


# -- real models -------------------------------------------------------------------------------
def squad_mcqs(indices: Sequence[int]) -> list[Item]:
    if not SQUAD.exists():
        pytest.skip(f"{SQUAD} is absent")
    return shared_squad_mcqs(indices)


@pytest.fixture(scope="module")
def real_ctx() -> MetricContext:
    # One llama.cpp thread: on the shared 2-core test machines, llama.cpp's spinning worker
    # threads slow down 10x or more when another process holds a core (measured).
    return MetricContext(settings=Settings(n_threads=1))


@pytest.mark.slow
def test_real_models_end_to_end(real_ctx: MetricContext) -> None:
    metric = KdaMetric()
    items = squad_mcqs([0, 165, 365])
    values = []
    for item in items:
        result = metric.score(item, real_ctx)
        assert result.scored, result.not_scored_reason
        assert result.value is not None and 0.0 <= result.value <= 1.0
        disc = result.values["kda_disc"]
        assert disc is None or 0.0 <= disc <= 1.0
        rows = result.evidence["solvers"]
        assert len(rows) == 5  # 2 LLMs x 2 styles + the embedding solver
        for row in rows:
            for cond in ("without_fact", "with_fact"):
                assert set(row[cond]) == {o.text for o in item.options}
                assert math.fsum(row[cond].values()) == pytest.approx(1.0, abs=1e-3)
        assert len(result.evidence["distractors"]) == 3
        assert result.model_config["solvers"]
        values.append(result.value)
    # Invariant on the average: reading the sentence with the answer helps these students.
    assert sum(values) / len(values) > 0.25


@pytest.mark.slow
def test_real_models_flag_key_in_stem(real_ctx: MetricContext) -> None:
    item = squad_mcqs([0])[0]
    item.stem = "Which name, Touchdown Jesus, is given to the mural by Millard Sheets?"
    metric = KdaMetric()
    result = metric.score(item, real_ctx)
    assert result.scored, result.not_scored_reason
    codes = {f.code for f in metric.flags(result, real_ctx.options(metric))}
    assert "key-in-stem" in codes


@pytest.mark.slow
def test_windowing_small_context_real_model() -> None:
    """A passage several times the model's context: the metric windows it (>= 3 windows),
    scores every window and keeps one, without crashing."""
    from quizsmith.providers import catalog
    from quizsmith.providers.llamacpp import LlamaCppProvider

    path = catalog.locate(catalog.find("smollm2-135m-instruct", catalog.load_catalog()))
    # A small context keeps the text (and the run time) short while still needing windows.
    provider = LlamaCppProvider(path, model_id="smollm-256", n_ctx=256, n_threads=1)
    item = squad_mcqs([0])[0]
    rows = [json.loads(line) for line in SQUAD.read_text(encoding="utf-8").splitlines()]
    assert item.passage is not None
    long_text = rows[1]["context"] + " " + item.passage.text  # 4 windows at n_ctx=256
    # No target fact and a key absent from the text: the whole passage is "the fact".
    item.passage = Passage(text=long_text)
    item.key = item.options[0].text = "Touchdown Jesus statue"
    settings = Settings(n_threads=1)
    settings.roles["solvers"] = ["smollm-256"]
    settings.metrics["kda"] = {"embedding_solver": False, "styles": ["letter"]}
    ctx = MetricContext(settings=settings, overrides={"smollm-256": provider})
    result = KdaMetric().score(item, ctx)
    assert result.scored, result.not_scored_reason
    assert result.evidence["fact_source"].startswith("passage")
    row = result.evidence["solvers"][0]
    window, n_windows = (int(x) for x in row["window"].split(" of "))
    assert n_windows >= 3 and 1 <= window <= n_windows
    assert math.fsum(row["with_fact"].values()) == pytest.approx(1.0, abs=1e-3)


def test_item_without_a_single_key_is_not_scored() -> None:
    from quizsmith.domain import Option

    item = _item()
    item.options = [Option("Paris", False, 0), Option("Rome", False, 1)]
    result = KdaMetric().score(item, _scripted_ctx(SCORES, bonus=0.0))
    assert not result.scored and "key" in (result.not_scored_reason or "")


def test_registered_under_its_name() -> None:
    from quizsmith.metrics import registry

    assert registry.get("kda") is KdaMetric


def test_target_fact_without_passage_is_enough() -> None:
    item = _item(fact="The capital of France is Paris.")
    item.passage = None
    assert KdaMetric().not_applicable(item) is None
    item.target_fact = ""
    assert KdaMetric().not_applicable(item) == "The item has no passage."


def test_weak_flag_prints_enough_decimals_to_show_the_comparison() -> None:
    from quizsmith.metrics.base import below_text

    assert below_text(0.297, 0.3) == "0.297 < 0.300"
    assert below_text(0.1, 0.3) == "0.10 < 0.30"
    result = ScoreResult(metric="kda", value=0.2996, values={})
    (flag,) = [f for f in KdaMetric().flags(result, {}) if f.code == "kda-weak"]
    assert "0.2996 < 0.3000" in flag.message
