"""A key the reader disputes is never green (issue 47): the reader's answer holds the key
and more, or shares no word with it; the Overall chip is amber with the reason as a flag."""

from __future__ import annotations

from quizsmith.domain import ScoreResult
from quizsmith.quality.metric import OverallMetric
from quizsmith.quality.reader import READER_ANSWERS_MORE, answers_more, disputes_key


def test_an_answer_holding_the_key_and_more_is_told_apart() -> None:
    assert answers_more("pyrimidines and purines", "pyrimidines")
    assert answers_more("The pyrimidines and the purines.", "Pyrimidines")
    assert not answers_more("pyrimidines", "pyrimidines")  # the key itself
    assert not answers_more("the pyrimidines", "pyrimidines")  # an article is no more
    assert not answers_more("purines", "pyrimidines")
    assert not answers_more("anything", "")


def test_disputes_key_needs_an_answer() -> None:
    assert disputes_key("purines", "pyrimidines", 0.0)
    assert disputes_key("pyrimidines and purines", "pyrimidines", 0.5)
    assert not disputes_key("pyrimidines", "pyrimidines", 1.0)
    assert not disputes_key(None, "pyrimidines", 0.0)
    assert not disputes_key("  ", "pyrimidines", 0.0)


def _result(value: float, answer: str, f1: float, *, more: bool, disputes: bool) -> ScoreResult:
    evidence = {
        "signals": {"is_question": 1.0, "reader_f1": f1, "reader_key_lp": -0.1},
        "signals_evidence": {"reader_answer": answer},
    }
    if more:
        evidence["reader_answers_more"] = True
    if disputes:
        evidence["reader_disputes_key"] = True
    return ScoreResult(metric="overall", value=value, evidence=evidence)


def test_a_disputed_key_is_amber_with_its_reason() -> None:
    result = _result(0.82, "pyrimidines and purines", 0.67, more=True, disputes=True)
    flags = OverallMetric().flags(result, {})
    assert [f.code for f in flags] == [READER_ANSWERS_MORE]
    assert "pyrimidines and purines" in flags[0].message
    level = OverallMetric.chip_level(result, {}, {f.severity for f in flags})
    assert level == "ok"  # amber, not green


def test_an_undisputed_key_stays_green() -> None:
    result = _result(0.82, "pyrimidines", 1.0, more=False, disputes=False)
    assert OverallMetric().flags(result, {}) == []
    assert OverallMetric.chip_level(result, {}, set()) == "good"


def test_never_green_beside_a_warning() -> None:
    result = _result(0.9, "pyrimidines", 1.0, more=False, disputes=False)
    assert OverallMetric.chip_level(result, {}, {"warning"}) == "ok"
    assert OverallMetric.chip_level(result, {}, {"info"}) == "good"


def test_the_app_s_chip_is_amber_and_names_the_reason() -> None:
    from quizsmith.domain import Item, Option
    from quizsmith.gui.scores import chip_for

    item = Item(
        type="mcq",
        stem="What are the two main groups of nitrogenous bases?",
        key="pyrimidines",
        options=[
            Option("pyrimidines", True, 0),
            Option("nucleotides", False, 1),
            Option("phosphates", False, 2),
        ],
    )
    result = _result(0.82, "pyrimidines and purines", 0.67, more=True, disputes=True)
    item.scores["overall"] = result
    item.flags = OverallMetric().flags(result, {})
    chip = chip_for(item, "overall")
    assert chip.text == "82%" and chip.level == "ok"
    assert "pyrimidines and purines" in chip.tooltip
