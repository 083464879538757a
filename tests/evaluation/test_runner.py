"""The runner with the cheap baselines (bleu, rouge): caching, resuming after a cancel, and
honest "not scored" counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quizsmith.errors import CancelledError, QuizsmithError
from quizsmith.evaluation.cache import ResultCache
from quizsmith.evaluation.runner import run_evaluation
from quizsmith.jobs import CancelToken, run_to_end
from quizsmith.settings import Settings

SETTINGS = Settings(n_threads=1)


def _run(path: Path, fmt: str, cache: Path, **kw: Any) -> Any:
    kw.setdefault("n_boot", 100)
    job = run_evaluation(path, fmt, ["bleu", "rouge"], settings=SETTINGS, cache_dir=cache, **kw)
    return run_to_end(job)[1]


def _stable(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "timing"}


def test_resume_after_cancel_gives_the_same_report(qgeval_small: Path, tmp_path: Path) -> None:
    whole = _run(qgeval_small, "qgeval", tmp_path / "a", limit=8, seed=2)

    cancel = CancelToken()
    job = run_evaluation(
        qgeval_small,
        "qgeval",
        ["bleu", "rouge"],
        limit=8,
        seed=2,
        cache_dir=tmp_path / "b",
        settings=SETTINGS,
        cancel=cancel,
        n_boot=100,
    )
    steps = 0
    with pytest.raises(CancelledError):
        for event in job:
            if event.total:
                steps += 1
            if steps == 5:
                cancel.cancel()
    cache = ResultCache.in_dir(tmp_path / "b")
    assert cache.count() == 5  # everything finished before the cancel is kept
    cache.close()

    resumed = _run(qgeval_small, "qgeval", tmp_path / "b", limit=8, seed=2)
    assert resumed.data["timing"]["from_cache"] == 5
    assert resumed.data["timing"]["computed"] == 16 - 5
    assert _stable(resumed.data) == _stable(whole.data)
    # And a third run is served entirely from the cache.
    again = _run(qgeval_small, "qgeval", tmp_path / "b", limit=8, seed=2)
    assert again.data["timing"]["computed"] == 0
    assert _stable(again.data) == _stable(whole.data)


def test_keyboard_interrupt_keeps_finished_results(qgeval_small: Path, tmp_path: Path) -> None:
    job = run_evaluation(
        qgeval_small, "qgeval", ["bleu"], limit=6, cache_dir=tmp_path, settings=SETTINGS
    )
    done = 0
    for event in job:
        done += bool(event.total)
        if done == 3:
            job.close()  # what Ctrl-C in the consumer does to the generator
            break
    cache = ResultCache.in_dir(tmp_path)
    assert cache.count() == 3
    cache.close()


def test_report_contents(qgeval_small: Path, tmp_path: Path) -> None:
    report = _run(qgeval_small, "qgeval", tmp_path, seed=0)
    data = report.data
    assert data["dataset"]["records_evaluated"] == 30
    # The two "reference" systems' questions are the reference: not scored, with the reason.
    assert data["scored"]["bleu"] == 28
    assert data["not_scored"]["bleu"] == {"count": 2, "reasons": {"no reference question": 2}}
    assert data["labels"][0] == "mean"
    corr = data["correlations"]["fluency"]["rouge"]
    assert corr["n"] == 28
    for name in ("pearson", "spearman", "kendall"):
        stat = corr[name]
        if stat["value"] is not None:
            assert stat["ci"][0] <= stat["value"] <= stat["ci"][1]
    assert data["model_config"]["bleu"]["seen"][0]["model_config"]["metric"] == "bleu"
    assert set(data["roles"]["bleu"]) == {r.role for r in report.records} - {
        "SQuAD_reference",
        "HotpotQA_reference",
    }
    assert "groups" not in data  # qgeval is not a group format
    json_path, md_path = report.write(tmp_path / "out" / "r.json")
    assert json_path.exists() and "## Correlation with human `fluency`" in md_path.read_text()


def test_group_format_tables(fixtures: Path, tmp_path: Path) -> None:
    report = _run(fixtures / "quizdesign.jsonl", "quizdesign", tmp_path)
    groups = report.data["groups"]
    assert set(groups["bleu"]["kept"]) == {"disfluent", "wrong_context", "off_target"}
    # A kept question has two references in g1: the multi-reference sub-score exists.
    assert "bleu.multi" in report.data["roles"] or "bleu.single" in report.data["roles"]
    naco = _run(fixtures / "naco_groups.jsonl", "naco-groups", tmp_path)
    assert naco.data["not_scored"]["bleu"]["count"] == 2  # refq has no reference
    assert set(naco.data["groups"]["rouge"]["annoq"]) == {"1hop_q", "non_q", "random_q"}
    assert naco.data["groups"]["rouge"]["annoq"]["non_q"]["groups"] == 2


def test_unknown_metric_fails_before_reading(tmp_path: Path) -> None:
    job = run_evaluation(tmp_path / "none.json", "qgeval", ["bleu", "nope"], cache_dir=tmp_path)
    with pytest.raises(QuizsmithError, match="Unknown metric 'nope'"):
        next(job)
