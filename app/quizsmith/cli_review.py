"""The review workflow on the command line: `quizsmith review` (accept, reject, send back),
`quizsmith quiz create/add/list` and `quizsmith delete`, each as the desktop app does it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    """Add the `review`, `quiz` and `delete` subcommands to the CLI's subparsers."""
    """Add the `review` and `quiz` subcommands to the CLI's subparsers."""
    p = sub.add_parser(
        "review",
        help="accept, reject or send back items (as the review queue does)",
        description="Record a review decision on items; it sets their status and is kept "
        "in the item's review history.",
    )
    p.add_argument("ids", nargs="+", type=int, metavar="ID", help="item ids")
    p.add_argument("--bank", required=True, help="the bank file")
    decision = p.add_mutually_exclusive_group(required=True)
    decision.add_argument("--accept", dest="decision", action="store_const", const="accept")
    decision.add_argument("--reject", dest="decision", action="store_const", const="reject")
    decision.add_argument(
        "--needs-review", dest="decision", action="store_const", const="needs-review"
    )
    p.add_argument("--reason", default="", help="why (shown in the report and history)")
    p.add_argument("--note", default="", help="a longer note")
    p.set_defaults(func=_cmd_review)

    p = sub.add_parser("quiz", help="create quizzes, add items to them, list them")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    q = actions.add_parser("create", help="create a quiz (optionally with items)")
    q.add_argument("name")
    q.add_argument("ids", nargs="*", type=int, metavar="ID", help="items, in quiz order")
    q.add_argument("--bank", required=True, help="the bank file")
    q.set_defaults(func=_cmd_quiz_create)
    q = actions.add_parser("add", help="add items to the end of a quiz")
    q.add_argument("name")
    q.add_argument("ids", nargs="+", type=int, metavar="ID")
    q.add_argument("--bank", required=True, help="the bank file")
    q.set_defaults(func=_cmd_quiz_add)
    q = actions.add_parser("list", help="list the quizzes, or the items of one")
    q.add_argument("name", nargs="?")
    q.add_argument("--bank", required=True, help="the bank file")
    q.set_defaults(func=_cmd_quiz_list)

    p = sub.add_parser(
        "delete",
        help="delete items, or a passage with its items (as the desktop app's Delete does)",
        description="Delete items with their scores, flags, reviews and quiz places, or a "
        "passage with every item written about it. Says what will go and asks first; "
        "--yes answers for you (needed when the input is not a terminal).",
    )
    p.add_argument("ids", nargs="*", type=int, metavar="ID", help="item ids")
    p.add_argument(
        "--passage", type=int, action="append", metavar="ID", help="a passage id (repeatable)"
    )
    p.add_argument("--bank", required=True, help="the bank file")
    p.add_argument("--yes", action="store_true", help="do not ask")
    p.set_defaults(func=_cmd_delete)


def _open(bank: str, *, read_only: bool = False) -> Any:
    from quizsmith.bank import ItemBank

    return ItemBank(bank, create=False, read_only=read_only)


def _check_ids(bank: Any, ids: list[int]) -> None:
    from quizsmith.errors import QuizsmithError

    found = {item.id for item in bank.get_items(ids, with_passages=False)}
    missing = [str(i) for i in ids if i not in found]
    if missing:
        raise QuizsmithError(
            f"No item with id {', '.join(missing)} in {bank.path.name}.",
            "Check the ids (quizsmith export --format csv lists them); nothing was changed.",
        )


def _cmd_review(args: argparse.Namespace) -> int:
    from quizsmith.domain import DECISION_STATUS
    from quizsmith.operations.reviews import record_review

    with _open(args.bank) as bank:
        _check_ids(bank, args.ids)
        record_review(bank, args.ids, args.decision, args.reason, args.note)
    status = DECISION_STATUS[args.decision]
    print(f"{len(args.ids)} item(s) now {status}: {', '.join(map(str, args.ids))}.")
    return 0


def _cmd_delete(args: argparse.Namespace) -> int:
    import sys

    from quizsmith.errors import QuizsmithError
    from quizsmith.operations.deletion import delete, describe_deletion

    passages = args.passage or []
    if not args.ids and not passages:
        raise QuizsmithError(
            "Nothing to delete.", "Give item ids, or --passage ID (see quizsmith delete --help)."
        )
    with _open(args.bank) as bank:
        plan = describe_deletion(bank, args.ids, passages)
        if not args.yes:
            if not sys.stdin.isatty():
                raise QuizsmithError(
                    f"{plan.sentence()} Not confirmed: the input is not a terminal.",
                    "Add --yes to delete without asking.",
                )
            answer = input(f"{plan.sentence()} Delete? [y/N] ")
            if answer.strip().casefold() not in ("y", "yes"):
                print("Nothing was deleted.")
                return 0
        changes = delete(bank, args.ids, passages)
    parts = [f"{len(changes.deleted)} item(s)"]
    if changes.passages:
        parts.insert(0, f"{len(changes.passages)} passage(s)")
    print(f"Deleted {' and '.join(parts)} from {Path(args.bank).name}.")
    return 0


def _quiz_named(bank: Any, name: str) -> Any:
    from quizsmith.errors import QuizsmithError

    for quiz in bank.quizzes():
        if quiz.name.casefold() == name.casefold():
            return quiz
    known = ", ".join(repr(q.name) for q in bank.quizzes()) or "none"
    raise QuizsmithError(
        f"There is no quiz named {name!r} in {bank.path.name}.", f"Quizzes in this bank: {known}."
    )


def _cmd_quiz_create(args: argparse.Namespace) -> int:
    from quizsmith.errors import QuizsmithError

    with _open(args.bank) as bank:
        if any(q.name.casefold() == args.name.casefold() for q in bank.quizzes()):
            raise QuizsmithError(
                f"A quiz named {args.name!r} already exists.",
                f"Add items to it with: quizsmith quiz add {args.name!r} ID...",
            )
        _check_ids(bank, args.ids)
        bank.create_quiz(args.name, args.ids)
    print(f"Created quiz {args.name!r} with {len(args.ids)} item(s).")
    return 0


def _cmd_quiz_add(args: argparse.Namespace) -> int:
    with _open(args.bank) as bank:
        quiz = _quiz_named(bank, args.name)
        _check_ids(bank, args.ids)
        new = [i for i in args.ids if i not in quiz.item_ids]
        bank.add_to_quiz(quiz.id, new)
        total = len(quiz.item_ids) + len(new)
    already = len(args.ids) - len(new)
    note = f" ({already} already in it)" if already else ""
    print(f"Added {len(new)} item(s) to {quiz.name!r}{note}; it now has {total}.")
    return 0


def _cmd_quiz_list(args: argparse.Namespace) -> int:
    with _open(args.bank, read_only=True) as bank:
        if args.name is None:
            quizzes = bank.quizzes()
            if not quizzes:
                print("No quizzes yet: create one with quizsmith quiz create NAME ID...")
            for quiz in quizzes:
                print(f"{quiz.name}\t{len(quiz.item_ids)} item(s)")
            return 0
        quiz = _quiz_named(bank, args.name)
        for number, item in enumerate(bank.get_items(quiz.item_ids, with_passages=False), 1):
            stem = " ".join(item.stem.split())
            print(f"{number}.\t#{item.id}\t{item.status}\t{stem[:70]}")
    return 0
