"""The measured flag policy: severities follow measured precision, whoever calls flags()."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from quizsmith.domain import Flag, ScoreResult
from quizsmith.metrics import flag_policy
from quizsmith.metrics.base import Metric
from quizsmith.metrics.flag_policy import FlagRule, apply_policy, is_hint


class _Loud(Metric):
    name: ClassVar[str] = "loud"

    def flags(self, result: ScoreResult, options: dict[str, Any]) -> list[Flag]:
        return [Flag("often-wrong", "m", self.name, "warning"), Flag("unlisted", "m", self.name)]


def test_policy_turns_an_imprecise_warning_into_a_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(
        flag_policy.FLAG_POLICY, "often-wrong", FlagRule("info", 0.31, "test: 31% right")
    )
    flags = _Loud().flags(ScoreResult(metric="loud", value=0.5), {})
    assert [f.severity for f in flags] == ["info", "warning"]  # an unlisted code keeps its own
    assert is_hint(flags[0]) and not is_hint(flags[1])


def test_apply_policy_keeps_message_and_metric(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(flag_policy.FLAG_POLICY, "x", FlagRule("warning", 0.7, "test"))
    flag = apply_policy(Flag("x", "words", "naco", "info"))
    assert (flag.code, flag.message, flag.metric, flag.severity) == (
        "x",
        "words",
        "naco",
        "warning",
    )


def test_every_shipped_rule_is_a_real_severity_with_its_basis() -> None:
    from quizsmith.domain import SEVERITIES

    for code, rule in flag_policy.FLAG_POLICY.items():
        assert rule.severity in SEVERITIES, code
        assert rule.basis
        if rule.severity in ("warning", "error"):
            # A warning must have earned it: measured precision of at least 0.6.
            assert rule.precision is not None and rule.precision >= 0.6, code


def test_an_item_with_more_options_than_letters_does_not_apply() -> None:
    from quizsmith.domain import Item, Passage
    from quizsmith.metrics.base import MAX_SCORED_OPTIONS, MetricContext
    from quizsmith.metrics.kda import KdaMetric
    from quizsmith.metrics.solvers import LETTERS

    assert len(LETTERS) == MAX_SCORED_OPTIONS
    item = Item(
        type="mcq",
        stem="Which number?",
        key="0",
        options=Item.make_options("0", [str(i) for i in range(1, 30)]),
        passage=Passage(text="Numbers from 0 to 29."),
    )
    result = KdaMetric().score(item, MetricContext())
    assert not result.scored and "at most 10 options" in (result.not_scored_reason or "")
    assert result.evidence.get("not_applicable") is True


def test_every_policy_code_is_declared_by_a_metric() -> None:
    # A metric lists the codes it raises (`Metric.flag_codes`); a rule for a code no metric
    # declares would be measuring a flag that no longer exists.
    from quizsmith.metrics import registry
    from quizsmith.metrics.flag_policy import FLAG_POLICY

    declared = {code for cls in registry.shown_order() for code in cls.flag_codes}
    assert set(FLAG_POLICY) <= declared
