"""MRE: prompt building and cleaning, SRE/MRE arithmetic, and a real run on QGEval items."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from quizsmith.domain import Item
from quizsmith.metrics import overlap
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.mre import (
    MEASURES,
    MreMetric,
    clean_paraphrase,
    few_shot_prompt,
    score_references,
)
from quizsmith.settings import Settings

DATA = Path(__file__).parents[2].parent / "shared" / "data" / "qgeval" / "instances.json"


def test_few_shot_prompt_is_the_appendix_prompt_continued() -> None:
    prompt = few_shot_prompt("Who wrote Hamlet?", [])
    assert prompt.startswith("Please paraphrase the following sentence 20 times:\n")
    assert prompt.count("Sentence: ") == 4
    assert "20. Can you provide me with the whereabouts of the Eiffel Tower?" in prompt
    assert prompt.endswith("Sentence: Who wrote Hamlet?\n1.")
    more = few_shot_prompt("Who wrote Hamlet?", ["Who is the author of Hamlet?"])
    assert more.endswith("Sentence: Who wrote Hamlet?\n1. Who is the author of Hamlet?\n2.")


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (" Who is the author of Hamlet?\n2. x", "Who is the author of Hamlet?"),
        ("1. Who penned Hamlet?", "Who penned Hamlet?"),
        ('\n\n"Who wrote the play Hamlet?"', "Who wrote the play Hamlet?"),
        ("Sentence: Where is Rome?", ""),
        ("   \n", ""),
    ],
)
def test_clean_paraphrase(raw: str, clean: str) -> None:
    assert clean_paraphrase(raw) == clean


def _bag(texts: Sequence[str]) -> list[np.ndarray]:
    """One-hot vector per lower-cased word: a hand-checkable token embedder."""
    vocab: dict[str, int] = {}
    words = [t.lower().replace("?", "").split() for t in texts]
    for ws in words:
        for w in ws:
            vocab.setdefault(w, len(vocab))
    return [np.eye(len(vocab))[[vocab[w] for w in ws]] for ws in words]


def test_sre_uses_the_reference_and_mre_the_best_of_all() -> None:
    cand = "Who is the author of Hamlet?"
    refs = ["Who wrote Hamlet?", "Who is the author of Hamlet?", "Name the writer of Hamlet."]
    values, best = score_references(cand, refs, _bag)
    assert values["sre_bleu4"] == pytest.approx(overlap.bleu4(cand, refs[:1]), abs=1e-6)
    assert values["mre_bleu4"] == pytest.approx(1.0)
    assert values["mre_rouge_l"] == pytest.approx(1.0)
    assert values["sre_meteor"] == pytest.approx(overlap.meteor(cand, refs[:1]), abs=1e-6)
    # One-hot words: cand {who is the author of hamlet} vs {who wrote hamlet}:
    # P = 2/6, R = 2/3 -> F1 = 4/9.
    assert values["sre_bertscore"] == pytest.approx(4 / 9, abs=1e-6)
    assert values["mre_bertscore"] == pytest.approx(1.0)
    assert best["bertscore"] == refs[1]
    for m in MEASURES:
        assert values[f"mre_{m}"] >= values[f"sre_{m}"]


def test_not_scored_without_reference() -> None:
    item = Item(type="short", stem="Who wrote Hamlet?", key="Shakespeare")
    result = MreMetric().score(item, MetricContext())
    assert not result.scored
    assert "reference" in (result.not_scored_reason or "")


def test_flag_only_when_a_threshold_is_set() -> None:
    from quizsmith.domain import ScoreResult

    metric = MreMetric()
    low = ScoreResult(metric="mre", value=0.3)
    assert metric.flags(low, dict(metric.defaults)) == []
    flags = metric.flags(low, {**metric.defaults, "flag_below": 0.5})
    assert [f.code for f in flags] == ["far-from-reference"]


@pytest.mark.slow
def test_real_run_on_qgeval_items() -> None:
    if not DATA.exists():
        pytest.skip(f"QGEval data not found at {DATA}")
    instances = json.loads(DATA.read_text(encoding="utf-8"))[:3]
    metric = MreMetric()
    n = int(metric.defaults["n_paraphrases"])
    ctx = MetricContext(settings=Settings(), seed=7)
    results = []
    for inst in instances:
        item = Item(
            type="short",
            stem=inst["questions"][0]["prediction"],
            key=inst["answer"],
            reference=inst["reference"],
        )
        result = metric.score(item, ctx)
        assert result.scored, result.not_scored_reason
        results.append(result)
        values = result.values
        assert 1 <= values["n_paraphrases"] == len(result.evidence["paraphrases"]) <= n
        assert values["n_paraphrases"] + len(result.evidence["dropped"]) == n
        for m in MEASURES:
            assert 0.0 <= values[f"sre_{m}"] <= values[f"mre_{m}"] <= 1.0
        assert result.value == values["mre_bertscore"]
        assert result.model_config["profile"] == "fewshot"  # gemma3-270m is a base model
        refs = [inst["reference"].strip(), *result.evidence["paraphrases"]]
        assert all(result.evidence["best_reference"][m] in refs for m in MEASURES)
    # Paraphrases help on average (the paper's premise), or at least never hurt.
    assert np.mean([r.values["mre_meteor"] - r.values["sre_meteor"] for r in results]) >= 0.0
