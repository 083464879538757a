"""The item editor's evidence: the Evidence and Passage tabs, and the scores run on the saved
item on request: "Score all" (every metric, stored as it goes) and "Explain" (issue 26: one
metric outside the live set, such as NACo's steps, KDA's solvers or MIRROR's review). While
one runs, the chips and the evidence of its metrics are greyed as out of date.

`EvidencePanel` is the editor's layer above its live scores (`item_editor.ItemEditor` builds
on it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu, QPushButton, QTabWidget, QTextBrowser, QToolButton

from quizsmith.errors import QuizsmithError
from quizsmith.gui import jobs
from quizsmith.gui.chip_row import metric_title
from quizsmith.gui.evidence import passage_html
from quizsmith.gui.live_scores import LiveScores
from quizsmith.gui.messages import show_error
from quizsmith.gui.worker import JobWorker
from quizsmith.metrics import registry as metric_registry
from quizsmith.metrics.runner import ScoredStep


class EvidencePanel(LiveScores):
    """The evidence tabs with Explain, and Score all."""

    score_all_button: QPushButton

    if TYPE_CHECKING:

        def save(self) -> bool:
            """Save the edited item (item_editor.ItemEditor)."""

        def _reload(self) -> None:
            """Show the item's stored scores and status again (item_editor.ItemEditor)."""

    def _build_evidence_tabs(self) -> QTabWidget:
        self.evidence = QTextBrowser()
        self.evidence.setOpenExternalLinks(False)
        self.passage_view = QTextBrowser()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.evidence, "Evidence")
        self.tabs.addTab(self.passage_view, "Passage")
        # Issue 26: the metrics outside the live set (NACo's steps, KDA's solvers, MIRROR's
        # review...) on request, one at a time, for the saved item.
        self.explain_button = QToolButton()
        self.explain_button.setText("Explain")
        self.explain_button.setToolTip(
            "Run one metric that is not re-scored as you type on this item and show its "
            "evidence (the item is saved first)"
        )
        self.explain_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.explain_menu = QMenu(self.explain_button)
        self.explain_menu.aboutToShow.connect(self._fill_explain_menu)
        self.explain_button.setMenu(self.explain_menu)
        self.tabs.setCornerWidget(self.explain_button, Qt.Corner.TopRightCorner)
        return self.tabs

    def _show_passage(self) -> None:
        passage = self.item.passage if self.item else None
        if passage is None and self.item is not None and self.item.passage_id is not None:
            try:
                passage = self.bank.get_passage(self.item.passage_id)
                self.item.passage = passage
            except QuizsmithError:
                passage = None
        text = passage.text if passage else ""
        self.passage_view.setHtml(passage_html(text, self.fact_edit.toPlainText()))

    def score_all(self) -> JobWorker | None:
        """Every metric on the saved item, stored as it goes (MIRROR/MRE take a while)."""
        return self._score_saved(jobs.all_metrics(), "Scoring with every metric")

    def explain_metrics(self) -> list[str]:
        """What "Explain" offers: the metrics of "Score all" that are not live and apply to
        the item as saved."""
        if self.item is None:
            return []
        live = set(self._live_metrics)
        return [
            name
            for name in jobs.all_metrics()
            if name not in live and metric_registry.get(name)().not_applicable(self.item) is None
        ]

    def _fill_explain_menu(self) -> None:
        self.explain_menu.clear()
        names = self.explain_metrics()
        for name in names:
            action = self.explain_menu.addAction(metric_title(name))
            action.triggered.connect(lambda _checked=False, m=name: self.explain(m))
        if not names:
            none = self.explain_menu.addAction("Nothing more applies to this item")
            none.setEnabled(False)

    def explain(self, metric: str) -> JobWorker | None:
        """One metric on the saved item (its evidence replaces any out-of-date one)."""
        return self._score_saved([metric], f"Explaining with {metric_title(metric)}")

    def _score_saved(self, metrics: list[str], label: str) -> JobWorker | None:
        if self.item is None or self.item.id is None:
            return None
        if self.full_worker is not None:
            return None  # one at a time (its buttons are disabled until it ends)
        if self.dirty and not self.save():
            return None
        worker = self.runner.start(
            jobs.score_and_store_job(self.bank, [self.item.id], metrics, self.settings)
        )
        self.full_worker = worker
        self._full_pending = list(metrics)
        if self.progress is not None:
            self.progress.attach(worker, label)
        item_id = self.item.id
        worker.signals.progress.connect(self._full_progress)
        worker.signals.failed.connect(lambda m, f: show_error(self, m, f, "Scoring failed"))
        worker.signals.finished.connect(lambda _v: self._after_full_score(item_id))
        worker.signals.done.connect(self._full_done)
        self._sync_scoring_buttons()
        self._refresh()
        return worker

    def _sync_scoring_buttons(self) -> None:
        """ "Score all" and "Explain" wait while either runs (the progress panel shows it),
        rather than take a click they would ignore."""
        free = self.item is not None and self.full_worker is None
        for button in (self.score_all_button, self.explain_button):
            button.setEnabled(free)

    def _full_progress(self, event: object) -> None:
        """One metric of "Score all" finished: its chip and evidence are current again."""
        if self.full_worker is None or self.sender() is not self.full_worker.signals:
            return
        step = getattr(event, "payload", None)
        if not isinstance(step, ScoredStep) or self.item is None:
            return
        if step.item.id == self.item.id and step.result.metric in self._full_pending:
            self._full_pending.remove(step.result.metric)
            if not self.dirty:
                self._reload()
            else:
                self._refresh()

    def _full_done(self) -> None:
        if self.full_worker is not None and self.sender() is self.full_worker.signals:
            self.full_worker = None
            self._full_pending = []
            self._sync_scoring_buttons()
            self._refresh()

    def _after_full_score(self, item_id: int) -> None:
        if self.item is not None and self.item.id == item_id:
            self._reload()
        else:
            self.item_changed.emit(self.bank.get_item(item_id))
