"""`quizsmith generate`, `score` and `exam`: the commands that make items, score them and
grade a text by them, from a passage, a JSONL file of items or a bank."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from quizsmith import cli_help
from quizsmith.cli_shared import (
    EXIT_INCOMPLETE,
    bank_inputs,
    drive,
    guard_paths,
    positive_int,
    seed_int,
)


def register(sub: Any) -> None:
    """Add the `generate`, `score` and `exam` subcommands to the CLI's subparsers."""
    p = sub.add_parser("generate", help="write quiz items about a passage (.txt .md .docx .pdf)")
    p.add_argument("passage", help="the passage file")
    p.add_argument("-n", type=positive_int, default=5, help="how many items (default 5)")
    p.add_argument(
        "--types", default="mcq", help="comma-separated: mcq,tf,short,cloze (default: mcq)"
    )
    p.add_argument(
        "--difficulty", choices=["recall", "understanding", "application"], help="a hint"
    )
    p.add_argument("--subject", help="the passage's subject (stored with the items)")
    p.add_argument("--bank", help="add the passage and the items to this bank")
    p.add_argument("--out", help="write the items to this JSONL file")
    p.add_argument(
        "--candidates",
        type=positive_int,
        default=None,
        help="candidates per fact, best kept (default: 1 with a chat model, which writes "
        "each question with its own answer; 3 with a few-shot model, the light profile)",
    )
    p.add_argument(
        "--no-rank", action="store_true", help="keep the first valid candidate, no scoring"
    )
    p.add_argument("--answer", action="append", help="pin an answer (repeatable)")
    p.add_argument("--fact", action="append", help="pin a fact sentence (repeatable)")
    p.add_argument("--seed", type=seed_int, default=0, help="random seed (default 0)")
    p.set_defaults(func=_cmd_generate)

    p = sub.add_parser(
        "score",
        help="score items with the quality metrics",
        formatter_class=cli_help.RegistryHelpFormatter,
    )
    p.add_argument("items", nargs="?", help="a JSONL file of items (interchange format)")
    p.add_argument("--bank", help="score the items of this bank and store the scores there")
    p.add_argument("--status", help="with --bank: only items with this status")
    p.add_argument(
        "--metrics",
        default=cli_help.BATCH_DEFAULT,
        type=cli_help.metric_list,
        help=f"comma-separated: {cli_help.METRICS} (default: {cli_help.BATCH_METRICS}; "
        "overall, the estimated chance raters accept the item, reads the others, so list "
        "it last)",
    )
    p.add_argument("--out", help="write the scored items to this JSONL file")
    p.add_argument(
        "--rescore",
        action="store_true",
        help="with --bank: score again items that already have a score (default: skip them, "
        "so a stopped run continues where it stopped)",
    )
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


def _read_items_jsonl(path: Path) -> list[Any]:
    """The items of a JSONL file, with every check `quizsmith import` makes (a bad line is
    refused by number before any model loads)."""
    from quizsmith.bank.jsonl import read_file
    from quizsmith.errors import QuizsmithError

    items = [parsed.item for parsed in read_file(path).items]
    if not items:
        raise QuizsmithError(f"{path.name} holds no items.", "Give a JSONL file of items.")
    return items


def _write_items_jsonl(path: Path, items: Sequence[Any]) -> None:
    from quizsmith.generation.keeper import write_items_jsonl

    write_items_jsonl(path, items)


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


def _cmd_generate(args: argparse.Namespace) -> int:
    from quizsmith import settings as settings_mod
    from quizsmith.errors import ModelHostError, QuizsmithError
    from quizsmith.generation import GenerationRequest
    from quizsmith.generation.keeper import ItemKeeper
    from quizsmith.generation.passages import load_passage
    from quizsmith.jobs import CancelToken
    from quizsmith.operations.generate import continue_batch, generate_into_bank

    if not args.bank and not args.out:
        raise QuizsmithError("Say where the items go.", "Give --out items.jsonl or --bank DB.")
    guard_paths([("--out", args.out)], [("the passage", args.passage), *bank_inputs(args.bank)])
    try:
        request = GenerationRequest(
            n=args.n,
            types=tuple(t.strip() for t in args.types.split(",") if t.strip()),
            difficulty=args.difficulty,
            candidates_per_target=args.candidates,
            rank=not args.no_rank,
            pinned_answers=tuple(args.answer or ()),
            pinned_facts=tuple(args.fact or ()),
            seed=args.seed,
        )
    except ValueError as exc:
        raise QuizsmithError(str(exc), "See quizsmith generate --help.") from None
    passage = load_passage(Path(args.passage), subject=args.subject)
    bank = None
    if args.bank:
        from quizsmith.bank import ItemBank

        bank = ItemBank(args.bank)
        passage.id = bank.add_passage(passage)
        # A re-run on the same passage continues a stopped batch.
        left, done = continue_batch(bank, passage.id, request)
        if left is None:
            print(f"The bank already holds {done} items about this passage.")
            bank.close()
            return 0
        if done:
            print(f"Continuing: {done} items about this passage are already in the bank.")
        request = left
    keeper = ItemKeeper(bank, Path(args.out) if args.out else None)
    items = keeper.items

    def warn_unsaved(event: Any) -> None:
        # Each finished item is written at once, so Ctrl-C or a crash loses at most the
        # item being made; a busy bank costs no item either (see generation/keeper.py).
        if keeper.unsaved and keeper.unsaved[-1] is event.payload:
            newline = "\n" if sys.stderr.isatty() else ""  # after the progress line
            print(
                f"{newline}warning: item {len(items)} could not be saved in the bank "
                f"({keeper.reason}); it is kept in {keeper.rescue_path}.",
                file=sys.stderr,
            )

    cancel = CancelToken()
    job = generate_into_bank(
        passage,
        request,
        settings_mod.load(),
        cancel,
        keeper,
        expected_complexity=bank.expected_complexity if bank else None,
    )
    try:
        result = drive(job, warn_unsaved)
    except KeyboardInterrupt:
        cancel.cancel()
        print(f"Stopped by Ctrl-C; {len(items)} finished items were kept.", file=sys.stderr)
        return 130
    except ModelHostError:
        # The host died (or hung): status 2 with its message, from main; what was finished
        # is already written, item by item.
        print(f"{len(items)} finished items were kept.", file=sys.stderr)
        raise
    finally:
        if bank is not None:
            bank.close()
    where = " and ".join(w for w in (args.out, args.bank and f"the bank {args.bank}") if w)
    if keeper.unsaved:
        where = " and ".join(w for w in (args.out, f"the bank {args.bank} (see below)") if w)
    if items:
        print(f"{len(items)} items written to {where}.")
    for item in items:
        flags = f"  [{'; '.join(f.message for f in item.flags)}]" if item.flags else ""
        print(f"  {item.type}: {item.stem} -> {item.key}{flags}")
    if keeper.unsaved:
        print(
            f"error: {len(keeper.unsaved)} of {len(items)} items could not be saved in the bank "
            f"({keeper.reason}); they are kept in {keeper.rescue_path}.\n"
            f"  fix: add them when the bank is free: quizsmith import {keeper.rescue_path} "
            f"--bank {args.bank}",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    if not items:
        reason = result.shortfall or "no candidate question passed the checks"
        print(f"error: no item could be made. {reason}", file=sys.stderr)
        return EXIT_INCOMPLETE
    if result.shortfall:
        print(f"note: {result.shortfall}", file=sys.stderr)
        return EXIT_INCOMPLETE
    return 0


def _cmd_exam(args: argparse.Namespace) -> int:
    from quizsmith import settings
    from quizsmith.jobs import CancelToken
    from quizsmith.operations.handout import check_handout
    from quizsmith.text import check_passage, read_text_file

    text = check_passage(read_text_file(Path(args.text)))
    _, items = _load_items(args, "exam")
    gold_text = check_passage(read_text_file(Path(args.gold))) if args.gold else None
    job = check_handout(
        text, items, settings.load(), CancelToken(), gold_text=gold_text, source=args.text
    )

    def announce(event: Any) -> None:
        if event.done == 0:  # "Answering N questions from TEXT", before the long part
            print(f"{event.message} ...", file=sys.stderr)

    report, nexam, gold_exam = drive(job, announce, show=False)
    against = Path(args.gold).name if args.gold else "the items' own passages"
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
    from quizsmith.operations.scores import save_score

    names = [m.strip() for m in args.metrics.split(",") if m.strip()]
    for name in names:
        registry.get(name)  # unknown names fail before any model loads
    guard_paths([("--out", args.out)], [("ITEMS", args.items), *bank_inputs(args.bank)])
    bank, items = _load_items(args, "score")
    complexity = bank.expected_complexity if bank is not None else None
    ctx = MetricContext(
        settings=settings.load(), cancel=CancelToken(), expected_complexity=complexity
    )

    out = Path(args.out) if args.out else None
    # What this run did (a re-run after a stop skips scores already in the bank; those are
    # neither written again nor counted again).
    written: list[Any] = []

    def store(event: Any) -> None:
        step = event.payload
        if step is None:
            return
        written.append(step)
        if bank is not None and step.item.id is not None:
            save_score(bank, step.item.id, step.result, step.flags)
        if out is not None:
            # Each score reaches --out as soon as it is made, as each reaches the bank.
            _write_items_jsonl(out, items)

    interrupted = False
    try:
        drive(score_items(items, names, ctx, skip_scored=bool(bank) and not args.rescore), store)
    except KeyboardInterrupt:
        interrupted = True
    if out is not None:
        _write_items_jsonl(out, items)
    not_scored = [(s.item.stem, s.result.not_scored_reason) for s in written if not s.result.scored]
    skipped = sum(1 for it in items for m in names if m in it.scores) - len(written)
    where = f" to {out}" if out else (" into the bank" if bank else "")
    done = len(written) - len(not_scored)
    print(
        f"{done} scores written{where}; {len(not_scored)} not scored"
        + (f"; {skipped} already scored before." if skipped > 0 else ".")
    )
    for stem, reason in not_scored[:10]:
        print(f"  not scored: {stem[:60]!r}: {reason}")
    _print_reasons(written)
    _print_flags(written)
    if interrupted:
        print("Stopped by Ctrl-C; finished scores were kept.", file=sys.stderr)
        return 130
    failed = [s for s in written if not s.result.scored and not _not_applicable(s.result)]
    return EXIT_INCOMPLETE if failed else 0


def _print_reasons(written: list[Any], most: int = 20) -> None:
    """Each score's main reason where its metric gives one (the overall estimate: the
    signal that moved it most), so a number never comes without its why."""
    from quizsmith.metrics import registry

    lines = []
    for step in written:
        result = step.result
        if result.scored and (reason := registry.get(result.metric).chip_reason(result)):
            chip = registry.get(result.metric).chip_text(result)
            lines.append(f"  {result.metric} {chip} {step.item.stem[:60]!r}: mostly, {reason}")
    for line in lines[:most]:
        print(line)
    if len(lines) > most:
        print(f"  ... and {len(lines) - most} more (the evidence in --out or the bank has all)")


def _print_flags(written: list[Any]) -> None:
    """The warning and error flags this run raised, as the review queue will show them
    (hints are stored, not printed)."""
    from quizsmith.metrics.flag_policy import is_hint

    raised = [(s.item, f) for s in written for f in s.flags if not is_hint(f)]
    if raised:
        print(f"{len(raised)} flag(s) raised:")
    for item, flag in raised[:10]:
        label = f"item {item.id}" if item.id is not None else repr(item.stem[:60])
        print(f"  {flag.severity}: {label}: {flag.message} [{flag.code}]")
    if len(raised) > 10:
        print(f"  ... and {len(raised) - 10} more.")


def _not_applicable(result: Any) -> bool:
    return bool(result.evidence.get("not_applicable"))
