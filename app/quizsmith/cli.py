"""`quizsmith ...`: a thin layer that parses arguments and calls the headless API.

Why this module is long: `build_parser` declares every command and option in one place (about
200 lines of argparse), and each `_cmd_*` is a short adapter to the API; the registry-filled
help texts are in cli_help.py, import, review and quiz commands in cli_formats.py.

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
from typing import Any

from quizsmith import __version__, cli_formats, cli_help

#: Exit statuses: 0 all done, 1 unexpected error (crash log), 2 refused (bad input, with the
#: fix), 3 `quizsmith gui` without a display (gui.app.NO_DISPLAY_EXIT), 4 finished but some
#: items were not scored or fewer items than asked could be made (the reasons are printed).
EXIT_INCOMPLETE = 4


#: Commands that call models: each first proves that llama.cpp runs on this computer (once
#: per build, providers/native_check.py), so a library built for another CPU ends in a
#: message with its fix instead of a crash in the middle of a batch.
MODEL_COMMANDS = frozenset({"generate", "score", "exam", "demo", "eval"})


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (`--limit 0` or `-5` ran on nothing and
    ended with status 0, issue 48)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


#: Seeds reach NumPy and scikit-learn, which take 0 to 2**32 - 1 (a negative one crashed).
MAX_SEED = 2**32 - 1


def seed_int(text: str) -> int:
    """An argparse type: a random seed, a whole number from 0 to MAX_SEED."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be from 0 to {MAX_SEED:,}, not {value}")
    return value


def _check_llama_runs() -> None:
    from quizsmith import settings as settings_mod
    from quizsmith.operations.model_loading import ensure_llama_runs

    ensure_llama_runs(settings_mod.load())


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


def _first_start() -> None:
    """Pick the model profile for this computer on the first start, and say which."""
    from quizsmith.providers.machine_profile import first_start

    message = first_start()
    if message:
        print(message, file=sys.stderr)


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


def _bank_inputs(bank: str | None) -> list[tuple[str, Any]]:
    from quizsmith.paths_guard import bank_paths

    return [("the bank (--bank)", p) for p in bank_paths(bank)]


def _guard_paths(outputs: list[tuple[str, Any]], inputs: list[tuple[str, Any]]) -> None:
    """Refuse, before anything is written, an output that would overwrite an input."""
    from quizsmith.paths_guard import check_outputs

    check_outputs(outputs, inputs)


def _drive(job: Any, on_event: Any = None, *, show: bool = True) -> Any:
    """Run a job generator with a one-line progress display on stderr (none when `show` is
    false: `on_event` prints what the command wants); returns its value."""
    while True:
        try:
            event = next(job)
        except StopIteration as stop:
            if sys.stderr.isatty() and show:
                print(file=sys.stderr)
            return stop.value
        if on_event is not None:
            on_event(event)
        if not show:
            continue
        total = f"[{event.done}/{event.total}] " if event.total else ""
        if sys.stderr.isatty():
            print(f"\r\033[K{total}{event.message}", end="", file=sys.stderr, flush=True)
        else:
            print(f"{total}{event.message}", file=sys.stderr, flush=True)


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
    _guard_paths([("--out", args.out)], [("the passage", args.passage), *_bank_inputs(args.bank)])
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
        result = _drive(job, warn_unsaved)
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

    report, nexam, gold_exam = _drive(job, announce, show=False)
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
    _guard_paths([("--out", args.out)], [("ITEMS", args.items), *_bank_inputs(args.bank)])
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
        _drive(score_items(items, names, ctx, skip_scored=bool(bank) and not args.rescore), store)
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


def _cmd_import(args: argparse.Namespace) -> int:
    from quizsmith.bank import ItemBank
    from quizsmith.jobs import CancelToken

    source = Path(args.file)
    _guard_paths(_bank_inputs(args.bank), [("the imported file", args.file)])
    fmt = getattr(args, "format", None)
    if fmt not in (None, "jsonl") or (fmt is None and source.suffix.lower() != ".jsonl"):
        from quizsmith.cli_formats import import_question_file

        return import_question_file(args.bank, source, fmt)
    from quizsmith.bank.jsonl import read_file

    # The whole file is read and checked before the bank is opened, so a bad or empty file
    # leaves no new bank behind.
    parsed = read_file(source)
    if not parsed.items and not parsed.others:
        empty = source.stat().st_size == 0
        cli_formats.refuse_empty(source, args.bank, "it is empty" if empty else "blank lines only")
    with cli_formats.new_bank_removed_on_failure(args.bank), ItemBank(args.bank) as bank:
        result = _drive(bank.import_parsed_job(parsed, cancel=CancelToken()))
    print(
        f"Imported {result.items} items, {result.passages} passages and "
        f"{result.quizzes} quizzes into {args.bank}."
    )
    cli_formats.print_warnings(result.warnings)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from quizsmith.bank import ItemBank
    from quizsmith.jobs import CancelToken

    _guard_paths([("--out", args.out)], [*_bank_inputs(args.bank), ("--template", args.template)])
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
        cli_formats.print_simplified(result.simplified)
        return 0
    if args.quiz:
        from quizsmith.errors import QuizsmithError

        raise QuizsmithError(
            "JSONL export writes the bank, not one quiz.", "Leave out --quiz or choose --format."
        )
    status = None if args.status in (None, "all") else args.status
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


def _cmd_eval(args: argparse.Namespace) -> int:
    from quizsmith import paths, settings
    from quizsmith.errors import QuizsmithError
    from quizsmith.evaluation.runner import run_evaluation
    from quizsmith.jobs import CancelToken

    if args.ship and not args.fit:
        raise QuizsmithError("--ship only goes with --fit.", "Add --fit, or leave out --ship.")
    names = [m.strip() for m in args.metrics.split(",") if m.strip()]
    cache = Path(args.cache_dir) if args.cache_dir else paths.cache_dir() / "evaluation"
    report_md = Path(args.report).with_suffix(".md")
    _guard_paths(
        [("--report", args.report), ("the report's .md", report_md)],
        [("the dataset", args.dataset)],
    )
    job = run_evaluation(
        args.dataset,
        args.format,
        names,
        args.limit,
        args.seed,
        cache,
        settings.load(),
        CancelToken(),
    )
    try:
        report = _drive(job)
    except KeyboardInterrupt:
        print(
            f"Stopped by Ctrl-C. Every finished score is kept in {cache}; run the same command "
            "again to continue where it stopped.",
            file=sys.stderr,
        )
        return 130
    json_path, md_path = report.write(args.report)
    print(f"Wrote {json_path} and {md_path}.")
    for name in names:
        missing = report.data["not_scored"][name]["count"]
        print(f"  {name}: {report.data['scored'][name]} scored, {missing} not scored")
    if args.plots:
        print(f"Wrote {len(report.plots(args.plots))} plots to {args.plots}.")
    if args.fit:
        from quizsmith.evaluation.overall import fit_overall, shipped_model_path

        records, results = list(report.records), list(report.results)
        described = [f"{args.format} {Path(args.dataset).name}"]
        for extra in args.fit_also or []:
            fmt, path, limit = _parse_fit_also(extra)
            more = _drive(
                run_evaluation(
                    path, fmt, names, limit, args.seed, cache, settings.load(), CancelToken()
                )
            )
            for record in more.records:
                # Groups of different datasets never meet in one fold by accident of naming.
                record.group = f"{fmt}:{record.group or record.record_id}"
            records += more.records
            results += more.results
            described.append(f"{fmt} {Path(path).name}" + (f" (limit {limit})" if limit else ""))
        model = fit_overall(
            records,
            results,
            seed=args.seed,
            kind=args.estimator,
            description=f"{' + '.join(described)}, metrics {','.join(names)}",
        )
        target = shipped_model_path() if args.ship else json_path.with_suffix(".overall.joblib")
        saved, sidecar = model.save(target)
        r = model.info["cv"]["pearson_vs_accept"]["pearson"]["value"]
        print(f"Overall model: grouped-CV Pearson r with acceptance {r}; saved {saved}, {sidecar}.")
    return 0


def _parse_fit_also(text: str) -> tuple[str, str, int | None]:
    """FORMAT=PATH[@LIMIT] -> (format, path, limit)."""
    from quizsmith.errors import QuizsmithError
    from quizsmith.evaluation.adapters import FORMATS

    fmt, sep, rest = text.partition("=")
    path, _, limit = rest.partition("@")
    if not sep or fmt not in FORMATS or not path:
        raise QuizsmithError(
            f"--fit-also {text!r} is not FORMAT=PATH[@LIMIT].",
            f"For example --fit-also naco-variants=squad_candidates.jsonl@1050; formats: "
            f"{', '.join(FORMATS)}.",
        )
    if limit and (not limit.isdigit() or int(limit) < 1):
        raise QuizsmithError(
            f"--fit-also: the limit {limit!r} is not a number of 1 or more.", "Write @N."
        )
    return fmt, path, int(limit) if limit else None


def _cmd_refit(args: argparse.Namespace) -> int:
    from quizsmith.bank import ItemBank
    from quizsmith.evaluation.overall import refit_from_bank

    with ItemBank(args.bank, create=False, read_only=True) as bank:
        model = refit_from_bank(bank, seed=args.seed)
    cv = model.info["cv"]
    r = cv["pearson_vs_accept"]["pearson"]["value"]
    n = model.info["training"]["items"]
    compared = model.info.get("refit", {})
    against = (
        f" (better than {compared['compared_with']}: AUC {compared['compared_auc']:.2f})"
        if compared
        else ""
    )
    print(
        f"Refitted the overall score on your decisions ({n} items): grouped-CV Pearson r with "
        f"your accept/reject {r}, AUC {cv['auc']}{against}. Saved {model.path}; the app and "
        "`quizsmith score` use it from now on."
    )
    return 0


def _cmd_recover(args: argparse.Namespace) -> int:
    from quizsmith.bank.recover import recover_bank
    from quizsmith.paths_guard import bank_paths

    _guard_paths([("--out", args.out)], [("the damaged bank", p) for p in bank_paths(args.bank)])
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
        default=3,
        help="candidates per fact, best kept (default 3)",
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
    p.epilog = cli_formats.EXIT_STATUS_HELP
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
    cli_formats.register(sub)

    p = sub.add_parser(
        "eval",
        help="check the metrics against human labels on a dataset",
        formatter_class=cli_help.RegistryHelpFormatter,
    )
    p.add_argument("dataset", help="the dataset file")
    p.add_argument(
        "--format",
        required=True,
        choices=["jsonl", "qgeval", "naco-squad", "naco-groups", "naco-variants", "quizdesign"],
        help="the dataset's format (see docs/evaluation.md)",
    )
    p.add_argument(
        "--metrics",
        default="naco,bleu,rouge,meteor,bertscore",
        help=f"comma-separated: {cli_help.METRICS},bleu,rouge,meteor,bertscore (default: "
        "naco,bleu,rouge,meteor,bertscore)",
    )
    p.add_argument("--limit", type=positive_int, help="score a stratified sample of N records")
    p.add_argument("--seed", type=seed_int, default=0, help="sampling and bootstrap seed (0)")
    p.add_argument("--report", required=True, help="write the JSON report here (+ .md beside)")
    p.add_argument("--plots", help="write PNG plots into this folder")
    p.add_argument("--cache-dir", help="result cache folder (default: the user cache folder)")
    p.add_argument(
        "--fit", action="store_true", help="fit the overall model (saved as REPORT.overall.joblib)"
    )
    p.add_argument(
        "--fit-also",
        action="append",
        metavar="FORMAT=PATH[@LIMIT]",
        help="with --fit: also fit on this dataset, scored with the same metrics (repeatable)",
    )
    p.add_argument(
        "--estimator",
        default="forest",
        # evaluation.overall.ESTIMATORS, written out: importing it here would load NumPy for
        # every command's --help.
        choices=["forest", "logistic", "boosting", "blend"],
        help="with --fit: the model kind (default forest; the shipped model is a blend; see "
        "docs/evaluation.md)",
    )
    p.add_argument(
        "--ship", action="store_true", help="with --fit: write resources/overall_model.joblib"
    )
    p.set_defaults(func=_cmd_eval)

    p = sub.add_parser(
        "refit",
        help="refit the overall score on your own accept/reject decisions in a bank",
        description="Fits the overall quality estimate on the questions (multiple-choice and "
        "short-answer items) you accepted or rejected (at least 30, with 10 of each), from "
        "the scores they carry, and saves it in your config folder, where it replaces the "
        "shipped model.",
    )
    p.add_argument("--bank", required=True, help="the bank file")
    p.add_argument("--seed", type=seed_int, default=0, help="random forest and fold seed (0)")
    p.set_defaults(func=_cmd_refit)

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
_USES_MODELS = (_cmd_models, _cmd_generate, _cmd_exam, _cmd_score, _cmd_demo, _cmd_eval)


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
        if args.func in _USES_MODELS and not getattr(args, "profile", None):
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
