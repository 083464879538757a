"""Parts of a metric reported while it runs (issue 16: the live chips fill in progressively)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from quizsmith.domain import Item, Passage, ScoreResult
from quizsmith.errors import CancelledError, OutputParseError
from quizsmith.jobs import CancelToken, run_to_end
from quizsmith.metrics import registry
from quizsmith.metrics.base import Metric, MetricContext
from quizsmith.metrics.runner import PartStep, ScoredStep, score_items


class TwoPartMetric(Metric):
    name: ClassVar[str] = "test-two-parts"
    title: ClassVar[str] = "Two parts"
    reports_parts: ClassVar[bool] = True
    fail: ClassVar[bool] = False
    #: When set, the metric waits for it after its first part (the test cancels meanwhile).
    gate: ClassVar[threading.Event | None] = None

    def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
        ctx.part(self.name, "first part done")
        if self.gate is not None:
            self.gate.wait(10)
        ctx.cancel.raise_if_cancelled()
        ctx.part(self.name, "second part done")
        if self.fail:
            raise OutputParseError("the model's answer could not be read", "try again")
        return ScoreResult(metric=self.name, value=0.75)


@pytest.fixture
def metric() -> Iterator[type[TwoPartMetric]]:
    TwoPartMetric.fail = False
    TwoPartMetric.gate = None
    registry.register(TwoPartMetric.name, TwoPartMetric)
    yield TwoPartMetric
    registry.unregister(TwoPartMetric.name)


def _item() -> Item:
    return Item(
        type="short",
        stem="What gas do plants release?",
        key="oxygen",
        passage=Passage(text="Plants release oxygen."),
    )


def test_parts_come_in_order_before_the_result(metric: Any) -> None:
    ctx = MetricContext()
    events, items = run_to_end(score_items([_item()], [metric.name], ctx, parts=True))
    payloads = [e.payload for e in events]
    assert [type(p) for p in payloads] == [PartStep, PartStep, ScoredStep]
    assert [p.text for p in payloads[:2]] == ["first part done", "second part done"]
    assert all(p.metric == metric.name and p.item is items[0] for p in payloads[:2])
    assert events[0].message == "Two parts: first part done"
    assert payloads[2].result.value == 0.75 and items[0].scores[metric.name].value == 0.75
    assert ctx.report_part is None  # the listener is removed afterwards


def test_without_parts_only_results_come_and_nobody_listens(metric: Any) -> None:
    events, _ = run_to_end(score_items([_item()], [metric.name], MetricContext()))
    assert [type(e.payload) for e in events] == [ScoredStep]


def test_a_listener_set_by_the_caller_is_kept(metric: Any) -> None:
    heard: list[tuple[str, str]] = []
    ctx = MetricContext(report_part=lambda m, t: heard.append((m, t)))
    run_to_end(score_items([_item()], [metric.name], ctx, parts=True))
    assert ctx.report_part is not None and heard == []  # parts went to the job, not both
    ctx.part(metric.name, "x")
    assert heard == [(metric.name, "x")]


def test_an_error_in_the_metric_reaches_the_job_after_its_parts(metric: Any) -> None:
    metric.fail = True
    job = score_items([_item()], [metric.name], MetricContext(), parts=True)
    seen = [next(job).payload.text, next(job).payload.text]
    # `score` turns a model-output error into "not scored" (never a made-up value).
    last = next(job).payload
    assert seen == ["first part done", "second part done"]
    assert isinstance(last, ScoredStep) and not last.result.scored


def test_cancel_between_parts_stops_the_job(metric: Any) -> None:
    token = CancelToken()
    metric.gate = threading.Event()
    job = score_items([_item()], [metric.name], MetricContext(cancel=token), parts=True)
    assert next(job).payload.text == "first part done"
    token.cancel()
    metric.gate.set()
    with pytest.raises(CancelledError):
        list(job)


def test_a_metric_that_does_not_declare_parts_runs_on_the_jobs_thread(metric: Any) -> None:
    threads: list[str] = []

    class Quiet(TwoPartMetric):
        name: ClassVar[str] = "test-quiet"
        reports_parts: ClassVar[bool] = False

        def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
            threads.append(threading.current_thread().name)
            return super().compute(item, ctx)

    registry.register(Quiet.name, Quiet)
    try:
        events, _ = run_to_end(score_items([_item()], [Quiet.name], MetricContext(), parts=True))
    finally:
        registry.unregister(Quiet.name)
    assert [type(e.payload) for e in events] == [ScoredStep]  # its ctx.part calls go nowhere
    assert threads == [threading.current_thread().name]
