"""A metric, a format and a provider added from outside, each as one class: registered through
the entry-point mechanism `plugins.py` uses for the built-ins, they show up everywhere their
kind is listed, with no edit elsewhere (CONTRIBUTING.md, "Walk-throughs").

Each registration is removed after its test, so the registries are as the entry points make
them for every other test.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

from quizsmith import plugins
from quizsmith.domain import Item, ScoreResult
from quizsmith.formats.base import Exporter, ExportOptions, ExportResult, Importer, ParsedFile
from quizsmith.metrics.base import Metric, MetricContext
from quizsmith.metrics.display import Threshold, esc, number
from quizsmith.providers.base import ChatResult, Message, ModelInfo, Provider
from quizsmith.settings import Endpoint, Settings


class _EntryPoint:
    """What `importlib.metadata.entry_points` gives the registry: a name and `load`."""

    def __init__(self, name: str, cls: type) -> None:
        self.name, self._cls = name, cls

    def load(self) -> type:
        return self._cls


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """`installed(registry, name, cls)` declares `cls` as an entry point of the registry's
    group, as an installed package would, and makes the registry read its group again."""
    added: list[tuple[plugins.PluginRegistry[Any], str]] = []
    extra: dict[str, list[_EntryPoint]] = {}
    real = plugins.entry_points

    def entry_points(group: str) -> list[Any]:
        return [*real(group=group), *extra.get(group, [])]

    monkeypatch.setattr(plugins, "entry_points", entry_points)

    def install(registry: plugins.PluginRegistry[Any], name: str, cls: type) -> None:
        extra.setdefault(registry.group, []).append(_EntryPoint(name, cls))
        registry._loaded = False  # read the group again, as a fresh process would
        assert name in registry.names()
        added.append((registry, name))

    yield install
    for registry, name in added:
        registry.unregister(name)
        assert name not in registry.names()


# --- a metric -----------------------------------------------------------------------------


class StemLengthMetric(Metric):
    """Words in the stem, over 20: everything a metric declares, in one class."""

    name: ClassVar[str] = "stemlen"
    title: ClassVar[str] = "Stem length"
    description: ClassVar[str] = "Words in the question, over 20 (0-1)."
    needs_passage: ClassVar[bool] = False
    defaults: ClassVar[dict[str, Any]] = {"flag_below": 0.1}
    chip_label: ClassVar[str] = "Len"
    chart_label: ClassVar[str] = "Stem length"
    evidence_title: ClassVar[str] = "Stem length"
    batch_by_default: ClassVar[bool] = True
    thresholds: ClassVar[tuple[Threshold, ...]] = (
        Threshold("flag_below", "Stem length: hint below", "A very short question."),
    )
    flag_codes: ClassVar[tuple[str, ...]] = ("short-stem",)
    subscores: ClassVar[tuple[str, ...]] = ("words",)
    feature_names: ClassVar[tuple[str, ...]] = ("stemlen", "stemlen.words")

    def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
        words = len(item.stem.split())
        return ScoreResult(metric=self.name, value=min(1.0, words / 20), values={"words": words})

    @classmethod
    def chip_text(cls, result: ScoreResult) -> str:
        return f"{result.values['words']}w"

    @classmethod
    def evidence_html(cls, result: ScoreResult) -> str:
        return f"<p>{esc(result.values['words'])} words &lt;counted&gt;</p>"

    @classmethod
    def features(cls, result: ScoreResult) -> dict[str, float | None]:
        return {"stemlen": number(result.value), "stemlen.words": number(result.values["words"])}


@pytest.fixture
def metric(installed: Any) -> type[Metric]:
    from quizsmith.metrics import registry

    installed(registry.metrics, StemLengthMetric.name, StemLengthMetric)
    return StemLengthMetric


def _item() -> Item:
    return Item(type="short", stem="What do plants release?", key="oxygen")


def test_metric_is_run_by_score_all_and_batches(metric: type[Metric]) -> None:
    from quizsmith.metrics import registry

    every = registry.all_metric_names()
    assert "stemlen" in every
    # After the built-ins it does not read, before the overall estimate, which reads them all.
    assert every.index("stemlen") < every.index("overall") == len(every) - 1
    assert "stemlen" in registry.default_batch_metrics()
    assert "stemlen" not in registry.default_live_metrics()  # it did not ask to be live
    assert registry.default_live_metrics() == ["overall"]


def test_metric_gets_a_chip_evidence_a_chart_entry_and_a_threshold(metric: type[Metric]) -> None:
    from quizsmith.gui import evidence, scores
    from quizsmith.metrics import registry

    chips = scores.chip_metrics()
    assert chips[-1] == ("stemlen", "Len")
    assert [name for name, _ in chips[:5]] == ["overall", "naco", "kda", "exam", "mirror"]
    assert ("stemlen", "Stem length") in registry.chart_metrics()
    assert ("stemlen", "flag_below") in [(m, t.key) for m, t in registry.threshold_fields()]
    item = _item()
    item.scores["stemlen"] = metric().score(item, MetricContext())
    chip = scores.chip_for(item, "stemlen")
    assert (chip.text, chip.level) == ("4w", "good")
    html = evidence.evidence_html(item)
    assert "<h3>Stem length 4w</h3>" in html  # the number as its chip shows it
    assert "4 words &lt;counted&gt;" in html


def test_metric_is_listed_in_cli_help_and_is_a_batch_default(
    metric: type[Metric], capsys: pytest.CaptureFixture[str]
) -> None:
    from quizsmith import cli

    with pytest.raises(SystemExit):
        cli.main(["score", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    # A list longer than the help's column is broken inside (argparse's wrapping).
    every = "naco,kda,exam,mirror,mre,signals,stemlen,overall,answerable"
    assert every in "".join(text.split())
    assert "default: naco,kda,exam,stemlen,overall" in text
    args = cli.build_parser().parse_args(["score", "items.jsonl"])
    assert args.metrics == "naco,kda,exam,stemlen,overall"
    typed = cli.build_parser().parse_args(["score", "items.jsonl", "--metrics", "stemlen"])
    assert typed.metrics == "stemlen"


def test_metric_feeds_eval_statistics_and_the_overall_features(metric: type[Metric]) -> None:
    from quizsmith.evaluation import features

    item = _item()
    result = metric().score(item, MetricContext())
    assert features.subscores(result) == {"stemlen": 0.2, "stemlen.words": 4.0}
    assert "stemlen.words" in features.feature_names()
    assert features.metrics_read(["stemlen.words", "naco.a"]) == {"stemlen", "naco"}
    found = features.overall_features({"stemlen": result})
    assert found["stemlen"] == 0.2 and found["stemlen.words"] == 4.0


def test_a_removed_metric_leaves_no_trace(installed: Any) -> None:
    from quizsmith.gui import scores
    from quizsmith.metrics import registry

    installed(registry.metrics, "stemlen", StemLengthMetric)
    registry.unregister("stemlen")
    assert "stemlen" not in registry.all_metric_names()
    assert "stemlen" not in dict(scores.chip_metrics())


# --- a format -----------------------------------------------------------------------------


class LinesFormat(Exporter, Importer):
    """One question a line, "Q: stem = key", under a "LINES" heading."""

    name = "lines"
    title = "Lines"
    extension = ".lines"
    suffixes = (".lines",)
    description = "One question a line"

    @classmethod
    def sniff(cls, text: str) -> int:
        return 9 if text.startswith("LINES\n") else 0

    def write(
        self, items: list[Item], path: Path, options: ExportOptions, result: ExportResult
    ) -> None:
        lines = [f"Q: {it.stem} = {it.key}" for it in items]
        path.write_text("LINES\n" + "\n".join(lines) + "\n", encoding="utf-8")
        result.count = len(items)

    def parse(self, path: Path) -> ParsedFile:
        rows = path.read_text(encoding="utf-8").splitlines()[1:]
        stems = [row.removeprefix("Q: ").split(" = ") for row in rows if row.strip()]
        return ParsedFile([Item(type="short", stem=s, key=k) for s, k in stems])


@pytest.fixture
def lines(installed: Any) -> type[LinesFormat]:
    from quizsmith.formats import registry

    installed(registry.formats, LinesFormat.name, LinesFormat)
    return LinesFormat


def test_format_exports_and_imports_by_suffix(lines: Any, tmp_path: Path) -> None:
    from quizsmith import formats
    from quizsmith.bank import ItemBank
    from quizsmith.formats.registry import exporters_in_order, importer_for

    assert exporters_in_order()[-1] == "lines"  # after the built-ins, which come first
    out = tmp_path / "quiz.lines"
    result = formats.export_items([_item()], "lines", out)
    assert result.count == 1
    assert isinstance(importer_for(out), LinesFormat)
    with ItemBank(tmp_path / "bank.sqlite") as bank:
        report = formats.import_file(bank, out)
        assert report.format == "lines"
        assert [bank.get_item(i).stem for i in report.item_ids] == ["What do plants release?"]


def test_format_is_recognised_in_plain_text(lines: Any, tmp_path: Path) -> None:
    from quizsmith.formats.registry import importer_for, sniff_text

    text = tmp_path / "quiz.txt"
    text.write_text("LINES\nQ: Which gas? = oxygen\n", encoding="utf-8")
    assert isinstance(importer_for(text), LinesFormat)
    # The built-ins still win on their own files.
    assert sniff_text("::q1:: What? {=yes}") == "gift"
    assert sniff_text("What?\nA. yes\nB. no\nANSWER: A\n") == "aiken"


def test_format_is_in_the_export_dialog(lines: Any) -> None:
    from quizsmith.gui.dialogs import available_exporters

    found = available_exporters()
    assert found[0][0] == "docx"
    assert ("lines", "Lines", ".lines") in found


# --- a provider ---------------------------------------------------------------------------


class EchoProvider(Provider):
    """An in-memory chat model that repeats the last message."""

    name: ClassVar[str] = "echo"
    description: ClassVar[str] = "Repeats the prompt (tests)"
    can_chat: ClassVar[bool] = True
    serves_endpoints: ClassVar[bool] = True

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint

    @classmethod
    def from_endpoint(cls, endpoint: Endpoint) -> Provider:
        return cls(endpoint)

    @property
    def info(self) -> ModelInfo:
        return ModelInfo(self.name, self.endpoint.model or "echo")

    @property
    def context_size(self) -> int | None:
        return 64

    def count_tokens(self, text: str) -> int | None:
        return len(text.split())

    def chat(self, messages: Sequence[Message | dict[str, str]], **kwargs: Any) -> ChatResult:  # type: ignore[override]
        last = messages[-1]
        text = last.content if isinstance(last, Message) else last["content"]
        return ChatResult(text=text, model="echo")


@pytest.fixture
def echo(installed: Any) -> type[EchoProvider]:
    from quizsmith.providers import registry

    installed(registry.providers, EchoProvider.name, EchoProvider)
    return EchoProvider


def test_provider_is_built_from_an_endpoint(echo: Any) -> None:
    from quizsmith.providers import manager

    settings = Settings(endpoints={"mine": Endpoint("mine", provider="echo", model="parrot")})
    provider = manager.provider_for("endpoint:mine", settings)
    try:
        assert isinstance(provider, EchoProvider)
        assert provider.info.label() == "echo:parrot"
        assert provider.chat([Message("user", "Say hi")]).text == "Say hi"
        assert provider.is_chat_model and provider.count_tokens("a b c") == 3
    finally:
        manager._cache.pop(("endpoint:mine", manager._settings_key(settings)), None)


def test_provider_is_offered_in_the_settings_dialog(
    echo: Any, metric: type[Metric], qtbot: Any
) -> None:
    from quizsmith.gui.dialogs import SettingsDialog
    from quizsmith.gui.worker import JobRunner
    from quizsmith.providers.registry import endpoint_kinds

    assert endpoint_kinds() == ["openai", "anthropic", "echo"]
    dialog = SettingsDialog(Settings(n_threads=1), JobRunner())
    qtbot.addWidget(dialog)
    kinds = [dialog.ep_provider.itemText(i) for i in range(dialog.ep_provider.count())]
    assert kinds == ["openai", "anthropic", "echo"]
    # The metric's threshold is offered too, under its own caption.
    assert ("stemlen", "flag_below") in dialog.threshold_spins
