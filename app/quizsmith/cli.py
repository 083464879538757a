"""`quizsmith ...`: a thin layer that parses arguments and calls the headless API.

This module builds the parser and runs a command (`main`); each command group declares its
own options and adapters to the API: `models` and `key` in cli_setup.py; `generate`, `score`
and `exam` in cli_items.py; `import` and `export` in cli_formats.py; `review`, `quiz` and
`delete` in cli_review.py; `eval` and `refit` in cli_eval.py; `recover`, `gui` and `demo`, a
few lines each, here. What they share (exit statuses, argument types, the progress display)
is in cli_shared.py, the registry-filled help texts in cli_help.py.

Heavy libraries are imported inside the command functions so that `--help` is instant.
Expected failures print the message and its fix (exit 2); anything unexpected is written to
a crash log and summarised in one line (exit 1). A teacher never sees a traceback.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from quizsmith import __version__, cli_eval, cli_formats, cli_items, cli_review, cli_setup
from quizsmith.cli_shared import EXIT_INCOMPLETE, drive, guard_paths, positive_int

#: Commands that call models: each first proves that llama.cpp runs on this computer (once
#: per build, providers/native_check.py), so a library built for another CPU ends in a
#: message with its fix instead of a crash in the middle of a batch.
MODEL_COMMANDS = frozenset({"generate", "score", "exam", "demo", "eval"})


def _check_llama_runs() -> None:
    from quizsmith import settings as settings_mod
    from quizsmith.operations.model_loading import ensure_llama_runs

    ensure_llama_runs(settings_mod.load())


def _first_start() -> None:
    """Pick the model profile for this computer on the first start, and say which."""
    from quizsmith.providers.machine_profile import first_start

    message = first_start()
    if message:
        print(message, file=sys.stderr)


def _cmd_demo(args: argparse.Namespace) -> int:
    from quizsmith import demo, settings
    from quizsmith.jobs import CancelToken

    passage = Path(args.passage) if args.passage else demo.sample_passage()
    out_dir = Path(args.out)
    print("Quizsmith headless demo (no desktop app is started by this command).")
    jsonl = drive(demo.run_demo(passage, out_dir, args.n, settings.load(), CancelToken()))
    print(f"Wrote {jsonl} and {jsonl.with_suffix('.md')}")
    return 0


def _cmd_recover(args: argparse.Namespace) -> int:
    from quizsmith.bank.recover import recover_bank
    from quizsmith.paths_guard import bank_paths

    guard_paths([("--out", args.out)], [("the damaged bank", p) for p in bank_paths(args.bank)])
    report = recover_bank(Path(args.bank), Path(args.out) if args.out else None)
    print(f"Rescued what could be read of {report.source.name} into {report.target}:")
    for table in report.tables:
        notes = [f"{table.kept:,} rows"]
        if table.unreadable:
            notes.append(f"part could not be read ({table.unreadable})")
        if table.dropped:
            notes.append(f"{table.dropped:,} dropped: what they point at was lost")
        if table.cleared:
            notes.append(f"{table.cleared:,} kept without a lost reference")
        print(f"  {table.name}: {'; '.join(notes)}")
    for problem in report.problems:
        print(f"  still wrong: {problem}")
    print(f"{report.source.name} was not changed. Check {report.target.name} before using it.")
    return 0 if report.complete and not report.problems else EXIT_INCOMPLETE


def _cmd_gui(args: argparse.Namespace) -> int:
    # Imported here: the desktop app (PySide6) is an optional extra and slow to import.
    from quizsmith.gui.app import run

    return run(Path(args.bank) if args.bank else None)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quizsmith",
        description="Generate, score, review and export quiz items with local or API models.",
    )
    parser.add_argument("--version", action="version", version=f"quizsmith {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    cli_setup.register(sub)
    cli_items.register(sub)
    cli_formats.register(sub)
    cli_review.register(sub)
    cli_eval.register(sub)

    p = sub.add_parser(
        "recover",
        help="copy what can still be read of a damaged bank into a new bank",
        description="Copy every row that can still be read of a damaged bank into a new bank "
        "(NAME-rescued.qbank beside it, or --out); the damaged file is only read. Exit "
        "status 0 when everything was kept, 4 when rows on damaged pages were lost.",
    )
    p.add_argument("bank", help="the damaged bank file")
    p.add_argument("--out", help="the new bank to write (default: NAME-rescued.qbank)")
    p.set_defaults(func=_cmd_recover)

    p = sub.add_parser("gui", help="start the desktop app")
    p.add_argument("bank", nargs="?", help="the item bank file (default: the last one opened)")
    p.set_defaults(func=_cmd_gui)

    p = sub.add_parser(
        "demo", help="generate, score and export a quiz from a passage with the bundled models"
    )
    p.add_argument("passage", nargs="?", help="a .txt/.md file (default: the bundled sample)")
    p.add_argument("-n", type=positive_int, default=3, help="how many questions (default 3)")
    p.add_argument(
        "--out", default="quizsmith-demo", help="output folder (default ./quizsmith-demo)"
    )
    p.set_defaults(func=_cmd_demo)
    return parser


#: Commands that load models: the first of them to run picks the model profile.
_USES_MODELS = MODEL_COMMANDS | {"models"}


class _StderrNotice(logging.Handler):
    """Writes to the sys.stderr of the moment (a test's captured one included)."""

    def emit(self, record: logging.LogRecord) -> None:
        print(f"warning: {record.getMessage()}", file=sys.stderr)


def _show_core_warnings() -> None:
    """What the core logs under "quizsmith.notices" (what a bank file held that was removed,
    bank/foreign.py; an API key about to go over plain http://, providers/http.py) is said on
    stderr, whichever command met it, as well as in the log file."""
    notices = logging.getLogger("quizsmith.notices")
    if not any(isinstance(h, _StderrNotice) for h in notices.handlers):
        notices.addHandler(_StderrNotice(logging.WARNING))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    from quizsmith.errors import QuizsmithError

    try:
        from quizsmith.logs import setup_logging

        setup_logging()
        _show_core_warnings()
        if args.command in _USES_MODELS and not getattr(args, "profile", None):
            _first_start()
        if args.command in MODEL_COMMANDS:
            _check_llama_runs()
        from quizsmith.jobs import CancelToken, cancel_scope

        # The command is one job for the model host: if the host dies during it, the
        # command stops with the host's message (status 2) rather than go on with a new one.
        with cancel_scope(CancelToken()):
            return int(args.func(args))
    except QuizsmithError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        if exc.fix:
            print(f"  fix: {exc.fix}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("Cancelled.", file=sys.stderr)
        return 130
    except Exception as exc:
        from quizsmith.crash import write_crash_log

        path = write_crash_log(exc)
        print(
            f"Unexpected error ({type(exc).__name__}). Details were saved to {path}.",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
