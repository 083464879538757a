"""`quizsmith import` and `quizsmith export`: question files (Quizsmith JSONL, Moodle XML,
GIFT, Aiken; Word, QTI and CSV out) into and out of a bank, with import's "partial" exit
status.

Exit statuses: 0 all done; 2 refused or failed (nothing changed); 4 partial: an import that
skipped some questions of the file (each listed with its number and reason).
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

from quizsmith.cli_shared import bank_inputs, drive, guard_paths, seed_int

#: An import that brought in some questions of the file and skipped others.
EXIT_PARTIAL = 4

EXIT_STATUS_HELP = (
    "exit status: 0 all imported; 4 partial: some questions were skipped (each listed with "
    "its number and reason, the others imported); 2 refused: nothing imported, bank unchanged"
)


def import_question_file(bank: str, source: Path, fmt: str | None) -> int:
    """Import a Moodle XML, GIFT or Aiken file; print what came in, what was simplified and
    what was skipped; 0, or EXIT_PARTIAL when some questions were skipped."""
    from quizsmith.formats import import_file

    # Given the path, import_file parses the whole file before it opens (or creates) the
    # bank, so a file of which nothing can be imported leaves no trace.
    with new_bank_removed_on_failure(bank):
        report = import_file(bank, source, fmt)
    print(
        f"Imported {report.count} items from {source.name} ({report.format}) into "
        f"{bank}, marked needs-review."
    )
    if report.simplified:
        print(f"Simplified {len(report.simplified)} question(s):")
        for note in report.simplified:
            print(f"  - {note.reason}")
    print_warnings([str(w) for w in report.warnings])
    if report.skipped:
        print(f"Skipped {len(report.skipped)} question(s):")
        for skipped in report.skipped:
            print(f"  - {skipped.reason}")
        print(f"Partial import (exit status {EXIT_PARTIAL}): fix the questions above and import")
        print("  the file again; questions already imported are recognised and not duplicated.")
        return EXIT_PARTIAL
    return 0


def print_warnings(warnings: list[str]) -> None:
    """Items imported as they are but weak (`Item.warnings`), one line each."""
    if warnings:
        print(f"Warnings on {len(warnings)} imported item(s) (imported all the same):")
        for warning in warnings:
            print(f"  - {warning}")


def refuse_empty(source: Path, bank: str, why: str) -> NoReturn:
    """Refuse a question file that holds nothing to import (rc 2), before any bank opens."""
    from quizsmith.errors import QuizsmithError

    created = "" if os.path.lexists(bank) else f"; {bank} was not created"
    raise QuizsmithError(
        f"{source.name} holds no questions ({why}).",
        "Check that this is the file you meant: a Quizsmith JSONL file has one item per "
        f"line (quizsmith export --format jsonl writes one). Nothing was imported{created}.",
    )


@contextlib.contextmanager
def new_bank_removed_on_failure(bank: str) -> Iterator[None]:
    """Remove the bank file (and its -wal/-shm/-journal) when this command created it and
    then failed, so a failed import into a new bank leaves no empty bank behind. Files that
    were there before are never touched."""
    path = Path(bank)
    mine = [
        Path(f"{path}{suffix}")
        for suffix in ("", "-wal", "-shm", "-journal")
        if not os.path.lexists(f"{path}{suffix}")
    ]
    if not mine or mine[0] != path:  # the bank was there before: nothing here is ours
        yield
        return
    try:
        yield
    except BaseException:
        for created in mine:
            created.unlink(missing_ok=True)
        raise


def print_simplified(simplified: list[Any]) -> None:
    """What an export wrote without something the format cannot carry, item by item."""
    if simplified:
        print(f"Simplified {len(simplified)} item(s) (the rest of each was written):")
        for note in simplified:
            print(f"  - {note}")


def register(sub: Any) -> None:
    """Add the `import` and `export` subcommands to the CLI's subparsers."""
    p = sub.add_parser(
        "import", help="import items into a bank (Quizsmith JSONL, Moodle XML, GIFT, Aiken)"
    )
    p.add_argument(
        "file",
        help="a question file: .jsonl (Quizsmith), .xml (Moodle XML), .gift, or .txt "
        "(GIFT or Aiken, told apart by their markers)",
    )
    p.add_argument("--bank", required=True, help="the bank file (created if missing)")
    p.add_argument(
        "--format",
        help="jsonl, moodle, gift or aiken (default: from the extension and contents); "
        "imported questions are marked needs-review",
    )
    p.epilog = EXIT_STATUS_HELP
    p.set_defaults(func=_cmd_import)

    p = sub.add_parser(
        "export", help="export items to Word, Moodle, GIFT, Aiken, QTI, CSV or JSONL"
    )
    p.add_argument("--bank", required=True, help="the bank file")
    p.add_argument(
        "--format",
        default="jsonl",
        help="docx (student sheet), docx-key (answer key), docx-report (teacher report), "
        "moodle, gift, aiken, qti (Canvas), csv, or jsonl (default: the whole bank)",
    )
    p.add_argument("--out", required=True, help="output file")
    p.add_argument(
        "--status",
        help="only items with this status (draft, accepted, rejected, needs-review) or all; "
        "default for jsonl: all, i.e. the whole bank with its quizzes and history; for the "
        "other formats: accepted (with --quiz: every item of the quiz)",
    )
    p.add_argument("--quiz", help="export this quiz (by name), in its order")
    p.add_argument(
        "--seed", type=seed_int, help="option shuffle seed; the same seed gives the same order"
    )
    p.add_argument("--template", help="a .docx whose styles, headers and page set-up to use")
    p.add_argument("--title", help="the quiz title on the sheet and in headers (default: the "
                   "quiz name, else the output file name)")  # fmt: skip
    p.add_argument("--passages", action=argparse.BooleanOptionalAction, help="docx: print "
                   "each passage before its questions (default: when all share one)")  # fmt: skip
    p.set_defaults(func=_cmd_export)


def _cmd_import(args: argparse.Namespace) -> int:
    from quizsmith.bank import ItemBank
    from quizsmith.jobs import CancelToken

    source = Path(args.file)
    guard_paths(bank_inputs(args.bank), [("the imported file", args.file)])
    fmt = getattr(args, "format", None)
    if fmt not in (None, "jsonl") or (fmt is None and source.suffix.lower() != ".jsonl"):
        return import_question_file(args.bank, source, fmt)
    from quizsmith.bank.jsonl import read_file

    # The whole file is read and checked before the bank is opened, so a bad or empty file
    # leaves no new bank behind.
    parsed = read_file(source)
    if not parsed.items and not parsed.others:
        empty = source.stat().st_size == 0
        refuse_empty(source, args.bank, "it is empty" if empty else "blank lines only")
    with new_bank_removed_on_failure(args.bank), ItemBank(args.bank) as bank:
        result = drive(bank.import_parsed_job(parsed, cancel=CancelToken()))
    print(
        f"Imported {result.items} items, {result.passages} passages and "
        f"{result.quizzes} quizzes into {args.bank}."
    )
    print_warnings(result.warnings)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from quizsmith.bank import ItemBank
    from quizsmith.jobs import CancelToken

    guard_paths([("--out", args.out)], [*bank_inputs(args.bank), ("--template", args.template)])
    if args.format != "jsonl":
        from quizsmith.formats import export_from_bank

        with ItemBank(args.bank, create=False, read_only=True) as bank:
            result = export_from_bank(
                bank,
                args.format,
                args.out,
                quiz=args.quiz,
                status=args.status,
                seed=args.seed,
                template=args.template,
                title=args.title,
                passages=args.passages,
            )
        print(f"Exported {result.count} items to {args.out} (option order seed {result.seed}).")
        if result.skipped:
            print(f"Skipped {len(result.skipped)} item(s):")
            for skipped in result.skipped:
                print(f"  - {skipped}")
        print_simplified(result.simplified)
        return 0
    if args.quiz:
        from quizsmith.errors import QuizsmithError

        raise QuizsmithError(
            "JSONL export writes the bank, not one quiz.", "Leave out --quiz or choose --format."
        )
    status = None if args.status in (None, "all") else args.status
    with ItemBank(args.bank, create=False, read_only=True) as bank:
        count = drive(bank.export_jsonl_job(args.out, status=status, cancel=CancelToken()))
    print(f"Exported {count} items to {args.out}.")
    return 0
