"""ItemBank's JSONL interchange: the whole bank, or one status, to and from a JSONL file
(the format and its checks are in jsonl.py)."""

from __future__ import annotations

import os
from pathlib import Path

from quizsmith.bank import jsonl
from quizsmith.bank.access import BankAccess
from quizsmith.jobs import CancelToken, Job, run_to_end


class JsonlMixin(BankAccess):
    """Export and import of JSONL files."""

    # --- JSONL interchange ----------------------------------------------------------------

    def export_jsonl(self, path: str | os.PathLike[str], *, status: str | None = None) -> int:
        """Write the bank as JSONL (DESIGN.md interchange format); returns the item count.
        Without `status` the file holds the whole bank (see `quizsmith.bank.jsonl`)."""
        return run_to_end(self.export_jsonl_job(path, status=status))[1]

    def export_jsonl_job(
        self,
        path: str | os.PathLike[str],
        *,
        status: str | None = None,
        cancel: CancelToken | None = None,
    ) -> Job[int]:
        with self.reading() as conn:
            return (yield from jsonl.export_job(conn, Path(path), status, cancel or CancelToken()))

    def import_jsonl(self, path: str | os.PathLike[str]) -> jsonl.ImportResult:
        """Add every record of a JSONL file in one transaction: a bad line (reported by
        number) or a cancel imports nothing."""
        return run_to_end(self.import_jsonl_job(path))[1]

    def import_jsonl_job(
        self, path: str | os.PathLike[str], *, cancel: CancelToken | None = None
    ) -> Job[jsonl.ImportResult]:
        return (yield from self.import_parsed_job(jsonl.read_file(Path(path)), cancel=cancel))

    def import_parsed_job(
        self, parsed: jsonl.ParsedFile, *, cancel: CancelToken | None = None
    ) -> Job[jsonl.ImportResult]:
        """Add a JSONL file already read and checked with `bank.jsonl.read_file` (so a caller
        can refuse a bad or empty file before it opens, or creates, the bank)."""
        with self.transaction() as conn:
            return (yield from jsonl.import_job(conn, parsed, cancel or CancelToken()))
