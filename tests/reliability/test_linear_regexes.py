"""Every pattern that reads an imported file runs in linear time (issue 48, round four).

A Moodle question text of "Which...?", 100,000 spaces and `<b>x</b>` took 141 s to import
(`\\s*<p` in markup.py tried from every space); a .txt of 80,000 blank lines then "x" took 72 s
to be told apart as GIFT or Aiken (`^\\s*` with MULTILINE went over every blank line from each
line start); a GIFT numerical answer `{#8<40,000 spaces>x}` took 41 s and its 40 KB answer
came back in the message. These tests are hang guards, not benchmarks: each bound is one
second per 100 KB of input (at least one second), where the faults took minutes; a linear
reading takes milliseconds.

The property test injects long runs of spaces, tabs and line breaks at random places into a
file of each registered import format and reads it as the CLI would: by its own suffix, and
as .txt, told apart by sniffing.
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from quizsmith.bank import ItemBank
from quizsmith.cli import main
from quizsmith.domain import Item
from quizsmith.errors import QuizsmithError, quoted
from quizsmith.formats import FormatError, import_file, registry
from quizsmith.formats.markup import html_to_text, media_refs
from quizsmith.formats.mathtext import readable_math
from quizsmith.formats.option_order import numeric_value
from quizsmith.generation.markdown_text import atx_heading, inline_markdown
from quizsmith.generation.passages import load_passage

#: A linear reading of 100 KB takes milliseconds; the faults took 41-141 s.
SECONDS_PER_100_KB = 1.0


def bound(size: int) -> float:
    return SECONDS_PER_100_KB * max(1.0, size / 100_000)


def timed(call: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    try:
        result: Any = call()
    except QuizsmithError as exc:  # a refusal is fine; only the time is under test here
        result = exc
    return result, time.perf_counter() - start


# -- the three reproduced faults ---------------------------------------------------------------

MOODLE_QUESTION = """<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="shortanswer">
    <name><text>Long</text></name>
    <questiontext format="html"><text><![CDATA[{text}]]></text></questiontext>
    <answer fraction="100"><text>x</text></answer>
  </question>
</quiz>
"""


def test_a_moodle_question_text_with_100_000_spaces_imports_quickly(tmp_path: Path) -> None:
    source = tmp_path / "long.xml"
    source.write_text(
        MOODLE_QUESTION.replace("{text}", "Which...?" + " " * 100_000 + "<b>x</b>"), "utf-8"
    )
    with ItemBank(tmp_path / "b.qbank") as bank:
        report, seconds = timed(lambda: import_file(bank, source))
    assert seconds < bound(source.stat().st_size), f"{seconds:.1f} s"
    # The spaces stay in the text, so the question is refused as too long, in a short message.
    assert isinstance(report, FormatError), report
    assert "characters long" in report.message and len(report.message) < 300


def test_a_txt_of_80_000_blank_lines_is_refused_quickly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    warm = tmp_path / "warm.txt"
    warm.write_text("x\n", "utf-8")
    main(["import", str(warm), "--bank", str(tmp_path / "warm.qbank")])  # imports loaded
    capsys.readouterr()
    source = tmp_path / "blank.txt"
    source.write_text("\n" * 80_000 + "x", "utf-8")
    code, seconds = timed(lambda: main(["import", str(source), "--bank", str(tmp_path / "b")]))
    assert seconds < 2 * bound(source.stat().st_size), f"{seconds:.1f} s"  # the whole command
    assert code == 2
    assert "Cannot tell whether" in capsys.readouterr().err
    _, seconds = timed(lambda: registry.importer_for(source))
    assert seconds < bound(source.stat().st_size), f"{seconds:.1f} s"


def test_a_gift_number_with_40_000_spaces_is_skipped_quickly_with_a_short_message(
    tmp_path: Path,
) -> None:
    source = tmp_path / "n.gift"
    source.write_text(
        "::ok::How many legs has a spider?{#8}\n\n::bad::And this?{#8" + " " * 40_000 + "x}\n",
        "utf-8",
    )
    parsed, seconds = timed(lambda: registry.get("gift")().read(source))
    assert seconds < bound(source.stat().st_size), f"{seconds:.1f} s"
    assert [i.key for i in parsed.items] == ["8"]
    (skipped,) = parsed.skipped
    assert "is not 'value' or 'value:tolerance'" in skipped.reason
    assert re.search(r"'8 +'… \(40,\d{3} characters\)", skipped.reason), skipped.reason
    assert len(str(skipped)) < 300


def test_a_message_quotes_at_most_a_line_of_the_teachers_text() -> None:
    assert quoted("short") == "'short'"
    long = quoted("a" * 40_000)
    assert long.startswith("'aaaa") and "(40,000 characters)" in long and len(long) < 100


# -- every registered importer, with whitespace runs injected ----------------------------------

#: Files with what the importers read closely: HTML question text, answer blocks, numbers,
#: categories, lettered options. A format without one here is read from its own export.
SAMPLES = {
    "moodle": MOODLE_QUESTION.replace(
        "{text}",
        '<p>Which <b>river</b><br/> is <span class="x">longest</span>?</p><div><p> </p></div>'
        '<img src="@@PLUGINFILE@@/nile.png"> \\( x^2 + \\frac{1}{2} \\) $$a_1$$',
    ).replace(
        "</quiz>",
        """<question type="numerical"><name><text>N</text></name>
<questiontext format="html"><text>&lt;p&gt;How many?&lt;/p&gt;</text></questiontext>
<answer fraction="100"><text>12.5</text><tolerance>0.5</tolerance></answer>
<units><unit><multiplier>1</multiplier><unit_name>kg</unit_name></unit></units></question>
</quiz>""",
    ),
    "gift": (
        "// comment\n$CATEGORY: $course$/top/Rivers\n\n"
        "::Nile::[html]<p>Which <b>river</b> is longest?</p>{\n=Nile#yes\n~%50%Amazon\n~Rhine}\n\n"
        "::Legs::How many legs has a spider?{#8:0.5 =%50%7..9}\n\n"
        "Grant is {=entombed =buried} in Grant's tomb.\n\n"
        "::TF::Water is wet.{TRUE}\n"
    ),
    "aiken": (
        "Which river is longest?\nA. Nile\nB) Amazon\nC)Rhine\nANSWER: A\n\n"
        "Is water wet?\nA. True\nB. False\nANSWER: A\n"
    ),
}
RUNS = [" ", "\t", "\n", "\r\n", " \t", " \n", "\n\n", "\t\n \n"]
#: (where, 0-1 of the file; which run; how many times) per injection.
INJECTIONS = st.lists(
    st.tuples(st.floats(0, 1), st.sampled_from(RUNS), st.integers(1, 30_000)),
    min_size=1,
    max_size=3,
)


def _sample(name: str, folder: Path) -> str:
    """The hand-written file above, or (a plug-in format) what it exports, or plain text."""
    if name in SAMPLES:
        return SAMPLES[name]
    fmt = registry.get(name)()
    if not fmt.can_export:
        return "Which river is longest?\nThe Nile.\n"
    items = [
        Item(type="mcq", stem="Which river is longest?", key="Nile",
             options=Item.make_options("Nile", ["Amazon", "Rhine"])),
        Item(type="short", stem="Which <b>sea</b> does it reach?", key="Mediterranean"),
    ]  # fmt: skip
    out = folder / f"sample{fmt.extension or '.txt'}"
    fmt.export(items, out)
    return out.read_text("utf-8", errors="replace")


def _injected(text: str, injections: list[tuple[float, str, int]]) -> str:
    for where, run, times in sorted(injections, reverse=True):
        at = int(where * len(text))
        text = text[:at] + run * times + text[at:]
    return text


def _read_every_way(name: str, text: str, folder: Path) -> None:
    cls = registry.get(name)
    suffix = cls.suffixes[0] if cls.suffixes else cls.extension or ".txt"
    # Also as .txt, which `quizsmith import` tells apart by sniffing: every sniffer then
    # reads the file, whatever its format.
    paths = [folder / f"q{suffix}", folder / "q.txt"]
    for path in paths:
        path.write_bytes(text.encode("utf-8"))
        size = path.stat().st_size

        def read(path: Path = path) -> Any:
            fmt = registry.get(name)() if path.suffix == suffix else registry.importer_for(path)
            return fmt.read(path)

        result, seconds = timed(read)
        assert seconds < bound(size), f"{name} {path.name}: {seconds:.2f} s for {size:,} bytes"
        assert not isinstance(result, Exception) or isinstance(result, FormatError)


@pytest.mark.parametrize("name", registry.importer_names())
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(injections=INJECTIONS)
@example(injections=[(0.5, " ", 30_000), (0.6, "\n", 30_000), (0.7, "\t", 30_000)])
@example(injections=[(0.0, "\n", 30_000)])
@example(injections=[(1.0, " \n", 30_000)])
def test_whitespace_runs_anywhere_in_any_import_format_read_in_linear_time(
    name: str, injections: list[tuple[float, str, int]]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = _sample(name, Path(folder))
        _read_every_way(name, _injected(base, injections), Path(folder))


# -- the other readers of imported text ---------------------------------------------------------

LONG_INPUTS = {
    "spaces before a tag": "Which...?" + " " * 100_000 + "<b>x</b>",
    "spaces before a block": "a" + " \t" * 50_000 + "<p>b",
    "line ends in markup": "<b>" + " \n\t" * 33_000 + "x",
    "< without >": "<p" * 50_000,
    "media without >": "<img src='a" * 10_000,
    "math openings without closing": "\\(a " * 25_000 + "\\[b " * 25_000 + "$$c " * 25_000,
    "math closing after many openings": "$$a$$ \\( " * 10_000 + "\\)",
}


@pytest.mark.parametrize("text", list(LONG_INPUTS.values()), ids=list(LONG_INPUTS))
def test_markup_and_math_readers_are_linear(text: str) -> None:
    for read in (html_to_text, media_refs, readable_math):
        _, seconds = timed(lambda read=read: read(text))  # type: ignore[misc]
        assert seconds < bound(len(text)), f"{read.__name__}: {seconds:.2f} s"


@pytest.mark.parametrize(
    "text",
    [
        "$" + " " * 100_000 + "x",  # took 58 s with 2,000 spaces
        "- " + " \t" * 50_000 + "$x",
        "1" + ",000" * 25_000 + "x5",
        "5 " + "x" * 100_000 + "5",
    ],
)
def test_a_numeric_option_is_read_in_linear_time(text: str) -> None:
    result, seconds = timed(lambda: numeric_value(text))
    assert seconds < bound(len(text)), f"{seconds:.2f} s"
    assert result is None


def test_numeric_options_still_read_as_before() -> None:
    assert numeric_value("$ - $ 5") == (-5.0, "$")
    assert numeric_value("1 000 000") == (1_000_000.0, "")
    assert numeric_value("-3.5 kg") == (-3.5, "kg")
    assert numeric_value("$ 5 kg") is None


MARKDOWN_LINES = {
    "heading with spaces": "# a" + " " * 100_000 + "b",  # 2,000 spaces took 11 s
    "[ without ]": "[" * 100_000,
    "links without )": "[a](" * 25_000,
    "emphasis never closed": "*a " * 33_000,
    "code never closed": "`x " * 33_000,
    "mixed marks": "**a*" * 25_000 + "__b_" * 25_000,
}


@pytest.mark.parametrize("line", list(MARKDOWN_LINES.values()), ids=list(MARKDOWN_LINES))
def test_markdown_passage_lines_are_read_in_linear_time(line: str, tmp_path: Path) -> None:
    _, seconds = timed(lambda: (inline_markdown(line), atx_heading(line)))
    assert seconds < bound(len(line)), f"{seconds:.2f} s"
    source = tmp_path / "passage.md"
    source.write_text(f"# Title\n\n{line}\n\nThe Nile is long.\n", "utf-8")
    _, seconds = timed(lambda: load_passage(source))  # refused as too long, or read
    assert seconds < 2 * bound(source.stat().st_size), f"{seconds:.2f} s"


def test_markdown_still_reads_as_before() -> None:
    assert atx_heading("## The Nile ##  ") == "The Nile"
    assert atx_heading("#Not a heading") is None
    assert inline_markdown("The **Nile** is *long*, see [the map](http://x/y) and `code`.") == (
        "The Nile is long, see the map and code."
    )
    assert inline_markdown("a * b * c") == "a * b * c"  # marks around spaces stay
    assert inline_markdown("[a [b](u)") == "[a b"  # a link's text stops at the next "["
