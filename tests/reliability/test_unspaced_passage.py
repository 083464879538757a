"""A short Chinese passage gave 0 items, exit 0 and no reason (issue 18). Its sentences are
found (pysbd splits at 。！？), but the answer finder and the question checks work on
space-separated English words, so nothing can be asked. The CLI now says so and exits
non-zero.

The generator is `QuickGenerator` (conftest.py): what is under test is what generation and
the CLI report, not what a model writes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from quizsmith.cli import main
from quizsmith.cli_shared import EXIT_INCOMPLETE
from quizsmith.generation.sentences import split_sentences
from quizsmith.generation.target import written_without_spaces
from quizsmith.providers.base import Provider
from quizsmith.quality.rule_spans import candidate_targets

from .conftest import QuickGenerator

CHINESE = "光合作用是植物利用阳光把二氧化碳和水转化为葡萄糖的过程。叶绿体含有叶绿素。"
ENGLISH = "Photosynthesis takes place in the chloroplasts of green plants."
COMMON = ["--types", "short", "--no-rank", "--candidates", "1"]


@pytest.mark.parametrize(
    ("text", "unspaced"),
    [
        (CHINESE, True),
        ("葉緑体は葉緑素を含む。光合作用は植物にとって重要です。", True),
        ("การสังเคราะห์ด้วยแสงเกิดขึ้นในคลอโรพลาสต์", True),
        ("叶绿体 (chloroplast) 含有叶绿素 (chlorophyll)。", True),
        (ENGLISH, False),
        (f"{ENGLISH} In Chinese it is called 光合作用.", False),
        ("Фотосинтез происходит в хлоропластах.", False),
        ("광합성은 엽록체에서 일어난다.", False),  # Korean separates words by spaces
        ("1963 — 42 %", False),
    ],
)
def test_scripts_without_spaces_are_recognised(text: str, unspaced: bool) -> None:
    assert written_without_spaces(text) is unspaced


def test_a_chinese_passage_has_sentences_but_no_answers() -> None:
    sentences = split_sentences(CHINESE)
    assert [s.text for s in sentences] == [
        "光合作用是植物利用阳光把二氧化碳和水转化为葡萄糖的过程。",
        "叶绿体含有叶绿素。",
    ]
    assert candidate_targets(CHINESE, sentences) == []


def _passage(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "passage.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_chinese_passage_is_refused_with_the_reason(
    tmp_path: Path,
    quick_generation: Callable[[Provider], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    generator = QuickGenerator(lambda: "叶绿体含有什么？")
    quick_generation(generator)
    out = tmp_path / "items.jsonl"

    rc = main(["generate", str(_passage(tmp_path, CHINESE)), "-n", "3", *COMMON, "--out", str(out)])

    err = capsys.readouterr().err
    assert rc == 2
    assert "without spaces between words" in err
    assert "English-only" in err
    assert "fix:" in err
    assert generator.stems_asked == 0
    assert not out.exists()


def test_a_pinned_answer_in_chinese_gives_no_item_and_says_why(
    tmp_path: Path,
    quick_generation: Callable[[Provider], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With the answer pinned a target exists, but a Chinese question has no spaces (one
    "word") and a full-width question mark, so the checks refuse it: 0 of 2, exit 4."""
    generator = QuickGenerator(lambda: "叶绿体含有什么？")
    quick_generation(generator)
    passage = _passage(tmp_path, CHINESE)
    out = tmp_path / "items.jsonl"

    rc = main(
        ["generate", str(passage), "-n", "2", *COMMON, "--answer", "叶绿素", "--out", str(out)]
    )

    captured = capsys.readouterr()
    assert rc == EXIT_INCOMPLETE
    assert "error: no item could be made" in captured.err
    assert "Only 0 of 2 items" in captured.err
    assert "English-only" in captured.err
    assert "items written" not in captured.out
    assert generator.stems_asked >= 1


def test_an_english_shortfall_keeps_the_usual_advice(
    tmp_path: Path,
    quick_generation: Callable[[Provider], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Every model question is too short and dropped; the rule-made question stands in where
    # it can (a chat generator's fallback), but one sentence cannot give 20 items.
    quick_generation(QuickGenerator(lambda: "Is it?"))
    out = tmp_path / "items.jsonl"

    rc = main(
        ["generate", str(_passage(tmp_path, ENGLISH)), "-n", "20", *COMMON, "--out", str(out)]
    )

    err = capsys.readouterr().err
    assert rc == EXIT_INCOMPLETE
    assert re.search(r"Only \d+ of 20 items", err)
    assert "Try a longer passage" in err
    assert "English-only" not in err


@pytest.mark.slow
def test_the_chinese_passage_on_the_bundled_models_says_why(
    tmp_path: Path, one_thread: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """The run of the report, on the real bundled generator (a few seconds)."""
    passage = _passage(tmp_path, CHINESE)
    out = tmp_path / "items.jsonl"

    rc = main(["generate", str(passage), "-n", "3", "--out", str(out)])

    err = capsys.readouterr().err
    assert rc != 0
    assert "English-only" in err
    assert "fix:" in err or "error: no item could be made" in err
    assert not out.exists()
