"""The main window's jobs: generating items about the shown passage, scoring items (the
passage's, the bank's selection, the new wording after a swap) and refitting the overall
estimate, each in a worker with its row in the status bar, their results routed to the lists."""

from __future__ import annotations

import contextlib
from typing import Any

from quizsmith.domain import Item
from quizsmith.errors import QuizsmithError
from quizsmith.gui import jobs
from quizsmith.gui.messages import show_error, show_info
from quizsmith.gui.window_parts import WindowParts
from quizsmith.gui.worker import JobWorker
from quizsmith.jobs import Progress
from quizsmith.metrics import registry as metric_registry


def cancelled_note(kept: int) -> str:
    if kept == 0:
        return "Cancelled; no item was finished."
    return f"Cancelled, {kept} item{'s' if kept != 1 else ''} kept."


class WindowJobs(WindowParts):
    """Generation, batch scoring and refitting, started from the window."""

    def generate(self) -> JobWorker | None:
        from quizsmith.generation.api import GenerationRequest

        panel = self.passage_panel
        if not panel.text_edit.toPlainText().strip():
            show_error(self, "There is no passage to ask about.", "Paste or open a passage first.")
            return None
        try:
            request = GenerationRequest(
                n=panel.count_box.value(),
                types=panel.types(),
                difficulty=panel.difficulty(),
                candidates_per_target=panel.candidates(),
                rank=panel.rank_check.isChecked(),
            )
        except ValueError as exc:
            show_error(self, f"Cannot generate: {exc}", "Choose at least one item type.")
            return None
        passage = self.save_passage()
        if passage is None:
            return None
        worker = self.runner.start(jobs.generate_job(self.bank, passage, request, self.settings))
        self.progress.attach(worker, f"Generating {request.n} item(s)")
        panel.generate_button.setEnabled(False)
        self.generation_worker = worker
        self.generation_passage_id = passage.id
        self.generated_kept = 0
        worker.signals.progress.connect(self._generated_progress)
        worker.signals.finished.connect(self._generated)
        worker.signals.cancelled.connect(self._generation_cancelled)
        worker.signals.failed.connect(self._job_failed)
        worker.signals.done.connect(lambda: panel.generate_button.setEnabled(bool(panel.types())))
        return worker

    def _generated_progress(self, event: Progress) -> None:
        item = event.payload
        if isinstance(item, Item):
            self.generated_kept += 1
            if item.passage_id == self.passage_panel_id():
                self.passage_items.add_items([item])

    def _generated(self, batch: jobs.GeneratedBatch) -> None:
        if batch.cancelled:
            self._show_generation_note(cancelled_note(len(batch.items)))
            return
        note = f"Generated {len(batch.items)} item(s)."
        if batch.shortfall:
            note += f" {batch.shortfall}"
        self._show_generation_note(note)

    def _generation_cancelled(self) -> None:
        """Cancel stopped the job between two steps: the items finished before it are in
        the bank (and in the table) already."""
        self._show_generation_note(cancelled_note(self.generated_kept))

    def _show_generation_note(self, note: str) -> None:
        # Under the passage it is about only (the teacher may have moved to another).
        if self.generation_passage_id in (None, self.passage_panel_id()):
            self.passage_panel.note.setText(note)
        self.statusBar().showMessage(note, 8000)

    def score_passage_items(self) -> None:
        rows = sorted({i.row() for i in self.items_view.selectionModel().selectedRows()})
        items = [self.passage_proxy.item_at(r) for r in rows] or self.passage_items.items()
        self.score_ids([int(i.id) for i in items if i.id is not None])

    def score_ids(self, ids: list[int]) -> JobWorker | None:
        if not ids:
            show_error(self, "No items to score.", "Select items or generate some first.")
            return None
        worker = self.runner.start(
            # The metrics that declare themselves part of batch scoring (`batch_by_default`;
            # MIRROR and MRE are slower: per item, on request).
            jobs.score_and_store_job(
                self.bank, ids, metric_registry.default_batch_metrics(), self.settings
            )
        )
        self.progress.attach(worker, f"Scoring {len(ids)} item(s)")
        worker.signals.progress.connect(self._scored_progress)
        worker.signals.failed.connect(self._job_failed)
        return worker

    def rescore_after_swap(self, ids: list[int]) -> JobWorker | None:
        """Score items whose wording was replaced by an alternative with the live metrics
        whose stored scores no longer describe it."""
        from quizsmith.operations.alternatives import rescore_metrics

        metrics = sorted(
            {m for i in ids for m in rescore_metrics(self.bank, i, self.editor.live_metrics)},
            key=self.editor.live_metrics.index,
        )
        if not ids or not metrics:
            return None
        worker = self.runner.start(
            jobs.score_and_store_job(self.bank, ids, jobs.live_order(metrics), self.settings)
        )
        self.progress.attach(worker, "Scoring the new wording")
        worker.signals.progress.connect(self._scored_progress)
        worker.signals.failed.connect(self._job_failed)
        return worker

    def _scored_progress(self, event: Progress) -> None:
        step = event.payload
        item = getattr(step, "item", None)
        if isinstance(item, Item) and item.id is not None:
            with contextlib.suppress(QuizsmithError):
                self.item_changed(self.bank.get_item(item.id))

    def refit_overall(self) -> JobWorker:
        """Refit the overall estimate on this bank's accept/reject decisions (in a worker)."""
        worker = self.runner.start(jobs.refit_overall_job(self.bank))
        self.progress.attach(worker, "Learning your standard")
        worker.signals.finished.connect(self._refitted)
        worker.signals.failed.connect(self._job_failed)
        return worker

    def _refitted(self, model: Any) -> None:
        cv = model.info["cv"]
        show_info(
            self,
            f"The overall score now follows your decisions on "
            f"{model.info['training']['items']} items (cross-validated Pearson r with your "
            f"accept/reject {cv['pearson_vs_accept']['pearson']['value']:.2f}, AUC "
            f"{cv['auc']:.2f}). The review queue ranks by it from its next refresh.",
            "Overall score refitted",
        )
        self.review.refresh()

    def _job_failed(self, message: str, fix: str) -> None:
        show_error(self, message, fix)
